//! The specification's 15 tests (`runtime_planner.txt`, "Test evidence").
//!
//! Each algorithm is checked against a brute-force oracle written here, never
//! against itself, and against the exact cases its upstream change added.
//! Further tests live in other files, so `cargo test --test planner` runs
//! exactly these 15.

use aether_planner::{
    islands, peak_live_bytes, plan_offsets, transitive_reduction, TensorLifetime,
};

// The tests' one seeded generator; the oracles these 15 tests check
// against are written here, as the specification asks.
#[path = "common/oracles.rs"]
mod oracles;
use oracles::Rng;

fn tensor(size: usize, first_use: usize, last_use: usize) -> TensorLifetime {
    TensorLifetime {
        size,
        first_use,
        last_use,
    }
}

// ---------------------------------------------------------------------------
// Offset planning: google/XNNPACK#10801
// ---------------------------------------------------------------------------

/// Up to 40 tensors over up to 30 nodes; some zero-size, some repeated sizes.
fn random_tensors(rng: &mut Rng) -> Vec<TensorLifetime> {
    let count = rng.below(41);
    let nodes = 1 + rng.below(30);
    (0..count)
        .map(|_| {
            let a = rng.below(nodes);
            let b = rng.below(nodes);
            let size = match rng.below(8) {
                0 => 0,
                1 => 64,
                _ => 1 + rng.below(1000),
            };
            tensor(size, a.min(b), a.max(b))
        })
        .collect()
}

/// Peak by brute force: the live sum at every node index that occurs.
fn brute_force_peak(tensors: &[TensorLifetime]) -> usize {
    let last = tensors.iter().map(|t| t.last_use).max().unwrap_or(0);
    (0..=last)
        .map(|node| {
            tensors
                .iter()
                .filter(|t| t.first_use <= node && node <= t.last_use)
                .map(|t| t.size)
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn tensors_alive_at_a_common_node_never_share_a_byte() {
    for seed in 0..500 {
        let tensors = random_tensors(&mut Rng::new(seed));
        let plan = plan_offsets(&tensors);
        assert_eq!(plan.offsets.len(), tensors.len(), "seed {seed}");
        for (i, a) in tensors.iter().enumerate() {
            let (oa, ea) = (plan.offsets[i], plan.offsets[i] + a.size);
            assert!(
                ea <= plan.arena_size,
                "seed {seed}: tensor {i} outside the arena"
            );
            if a.size == 0 {
                assert_eq!(oa, 0, "seed {seed}: zero-size tensor {i} must get offset 0");
            }
            for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                // Inclusive node ranges meet; half-open byte ranges meet.
                let share_node = a.first_use.max(b.first_use) <= a.last_use.min(b.last_use);
                let (ob, eb) = (plan.offsets[j], plan.offsets[j] + b.size);
                let share_byte = oa.max(ob) < ea.min(eb);
                assert!(
                    !(share_node && share_byte),
                    "seed {seed}: tensors {i} {a:?} at {oa} and {j} {b:?} at {ob} overlap"
                );
            }
        }
        let used = tensors
            .iter()
            .zip(&plan.offsets)
            .map(|(t, o)| o + t.size)
            .max()
            .unwrap_or(0);
        assert_eq!(
            plan.arena_size, used,
            "seed {seed}: arena is the highest end"
        );
    }
}

#[test]
fn the_arena_is_never_smaller_than_the_peak_of_live_bytes() {
    for seed in 0..500 {
        let tensors = random_tensors(&mut Rng::new(seed));
        let peak = peak_live_bytes(&tensors);
        assert_eq!(peak, brute_force_peak(&tensors), "seed {seed}");
        let arena = plan_offsets(&tensors).arena_size;
        assert!(arena >= peak, "seed {seed}: arena {arena} < peak {peak}");
    }
}

#[test]
fn peak_live_bytes_treats_lifetimes_as_inclusive() {
    // Both tensors are used at node 1, so both are live there.
    assert_eq!(peak_live_bytes(&[tensor(7, 0, 1), tensor(5, 1, 2)]), 12);
    // One ends at node 1 and the other starts at node 2: never live together.
    assert_eq!(peak_live_bytes(&[tensor(7, 0, 1), tensor(5, 2, 3)]), 7);
    // Node numbers need not be dense.
    let sparse = [tensor(3, 1_048_575, 1_048_575), tensor(4, 0, 1_048_575)];
    assert_eq!(peak_live_bytes(&sparse), 7);
    assert_eq!(peak_live_bytes(&[]), 0);
}

#[test]
fn a_free_leading_interval_is_reused_instead_of_appending() {
    // XNNPACK's ReusesLeadingGap. The 60-byte tensor meets only the 80-byte one
    // (at node 2), which sits at [100, 180); [0, 100) is free for it.
    let tensors = [tensor(100, 0, 1), tensor(80, 1, 2), tensor(60, 2, 3)];
    let plan = plan_offsets(&tensors);
    assert_eq!(plan.offsets, vec![0, 100, 0]);
    assert_eq!(plan.arena_size, 180);
    assert_eq!(plan.arena_size, brute_force_peak(&tensors));
    // Appending after the lone live block, as before the fix, gives 240.
    assert!(plan.arena_size < 100 + 80 + 60);
}

#[test]
fn a_strictly_smaller_internal_gap_beats_the_leading_gap() {
    // XNNPACK's PrefersSmallerInternalGapOverLeadingGap: the last tensor sees
    // free [0, 100) and [190, 270) and takes the 80-byte one.
    let tensors = [
        tensor(100, 0, 0),
        tensor(90, 0, 2),
        tensor(80, 0, 0),
        tensor(70, 0, 2),
        tensor(60, 2, 3),
    ];
    let plan = plan_offsets(&tensors);
    assert_eq!(plan.offsets, vec![0, 100, 190, 270, 190]);
    assert_eq!(plan.arena_size, 340);
}

#[test]
fn the_leading_gap_wins_an_equal_fit() {
    // XNNPACK's PrefersLeadingGapOnEqualFit: the last tensor sees two free
    // 110-byte intervals, [0, 110) and [210, 320), and takes the leading one.
    let tensors = [
        tensor(110, 0, 0),
        tensor(100, 0, 2),
        tensor(60, 0, 0),
        tensor(50, 0, 0),
        tensor(45, 0, 2),
        tensor(40, 2, 3),
    ];
    let plan = plan_offsets(&tensors);
    assert_eq!(plan.offsets, vec![0, 110, 210, 270, 320, 0]);
    assert_eq!(plan.arena_size, 365);
}

// ---------------------------------------------------------------------------
// Transitive reduction: tensorflow/tensorflow#124410
// ---------------------------------------------------------------------------

/// A DAG on 1..=24 nodes with u < v, edges in random order, maybe repeated.
fn random_dag(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let n = 1 + rng.below(24);
    let percent = 5 + rng.below(50);
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.below(100) < percent {
                edges.push((u, v));
            }
        }
    }
    if !edges.is_empty() && rng.below(3) == 0 {
        let again = edges[rng.below(edges.len())];
        edges.push(again);
    }
    rng.shuffle(&mut edges);
    (n, edges)
}

/// Reachability by Warshall's algorithm: `r[i][j]` iff a non-empty path i ~> j.
#[allow(clippy::needless_range_loop)] // the textbook triple loop, kept readable
fn warshall(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<bool>> {
    let mut r = vec![vec![false; n]; n];
    for &(u, v) in edges {
        r[u][v] = true;
    }
    for k in 0..n {
        for i in 0..n {
            if r[i][k] {
                for j in 0..n {
                    if r[k][j] {
                        r[i][j] = true;
                    }
                }
            }
        }
    }
    r
}

#[test]
fn the_reduction_has_the_same_reachability_as_the_original() {
    for seed in 0..300 {
        let (n, edges) = random_dag(&mut Rng::new(seed));
        let reduced = transitive_reduction(n, &edges);
        assert!(
            reduced.iter().all(|e| edges.contains(e)),
            "seed {seed}: invented an edge"
        );
        assert!(
            reduced.windows(2).all(|w| w[0] < w[1]),
            "seed {seed}: not sorted and unique"
        );
        assert_eq!(warshall(n, &reduced), warshall(n, &edges), "seed {seed}");
    }
}

#[test]
fn deleting_any_surviving_edge_changes_reachability() {
    for seed in 0..300 {
        let (n, edges) = random_dag(&mut Rng::new(seed));
        let reduced = transitive_reduction(n, &edges);
        let full = warshall(n, &reduced);
        for drop in 0..reduced.len() {
            let mut fewer = reduced.clone();
            let gone = fewer.remove(drop);
            assert_ne!(
                warshall(n, &fewer),
                full,
                "seed {seed}: {gone:?} was redundant"
            );
        }
    }
}

#[test]
fn a_bypass_implied_by_a_path_of_length_three_is_removed_in_every_edge_order() {
    // TensorFlow's TransitiveReductionIsExact: 0 -> 3 is implied by
    // 0 -> 1 -> 2 -> 3 and must go, whatever order the edges arrive in.
    let edges = [(0, 1), (0, 3), (1, 2), (2, 3)];
    let expected = vec![(0, 1), (1, 2), (2, 3)];
    let mut orders = std::collections::BTreeSet::new();
    // Heap's algorithm over the 4! orders.
    let mut order = edges;
    let mut counters = [0usize; 4];
    orders.insert(order);
    let mut i = 1;
    while i < 4 {
        if counters[i] < i {
            let j = if i % 2 == 0 { 0 } else { counters[i] };
            order.swap(j, i);
            orders.insert(order);
            counters[i] += 1;
            i = 1;
        } else {
            counters[i] = 0;
            i += 1;
        }
    }
    assert_eq!(orders.len(), 24);
    for order in &orders {
        assert_eq!(transitive_reduction(4, order), expected, "order {order:?}");
    }
}

#[test]
#[should_panic(expected = "topological")]
fn an_edge_against_the_topological_numbering_is_rejected() {
    transitive_reduction(3, &[(0, 1), (2, 1)]);
}

// ---------------------------------------------------------------------------
// Island discovery: google-deepmind/mujoco#3396, mujoco_warp#1541
// ---------------------------------------------------------------------------

/// Up to 60 nodes and up to 60 incidences, self-incidences and repeats included.
fn random_incidences(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let n = 1 + rng.below(60);
    let m = rng.below(61);
    (n, (0..m).map(|_| (rng.below(n), rng.below(n))).collect())
}

/// Components by iterative depth-first search, numbered as their smallest
/// member is met in ascending order; nodes in no incidence are `None`.
fn dfs_components(n: usize, incidences: &[(usize, usize)]) -> (Vec<Option<usize>>, usize) {
    let mut adjacent = vec![Vec::new(); n];
    let mut active = vec![false; n];
    for &(a, b) in incidences {
        adjacent[a].push(b);
        adjacent[b].push(a);
        active[a] = true;
        active[b] = true;
    }
    let mut labels = vec![None; n];
    let mut count = 0;
    for start in 0..n {
        if !active[start] || labels[start].is_some() {
            continue;
        }
        labels[start] = Some(count);
        let mut stack = vec![start];
        while let Some(x) = stack.pop() {
            for &y in &adjacent[x] {
                if labels[y].is_none() {
                    labels[y] = Some(count);
                    stack.push(y);
                }
            }
        }
        count += 1;
    }
    (labels, count)
}

#[test]
fn island_labels_equal_connected_components_from_a_traversal() {
    for seed in 0..1000 {
        let (n, incidences) = random_incidences(&mut Rng::new(seed));
        assert_eq!(
            islands(n, &incidences),
            dfs_components(n, &incidences),
            "seed {seed}"
        );
    }
}

#[test]
fn island_labels_ignore_edge_order_and_orientation() {
    for seed in 0..500 {
        let mut rng = Rng::new(seed);
        let (n, mut incidences) = random_incidences(&mut rng);
        let before = islands(n, &incidences);
        rng.shuffle(&mut incidences);
        for pair in incidences.iter_mut() {
            if rng.below(2) == 1 {
                *pair = (pair.1, pair.0);
            }
        }
        assert_eq!(islands(n, &incidences), before, "seed {seed}");
    }
}

#[test]
fn islands_are_numbered_by_their_smallest_member() {
    // {2, 4, 7} (smallest 2) is island 0, {3, 5} island 1, {6} island 2.
    let (labels, count) = islands(8, &[(7, 4), (5, 3), (6, 6), (4, 2)]);
    assert_eq!(
        labels,
        vec![
            None,
            None,
            Some(0),
            Some(1),
            Some(0),
            Some(1),
            Some(2),
            Some(0)
        ]
    );
    assert_eq!(count, 3);

    for seed in 0..500 {
        let (n, incidences) = random_incidences(&mut Rng::new(seed));
        let (labels, count) = islands(n, &incidences);
        // Walking up the nodes, each label is either one seen before or
        // exactly the next integer.
        let mut next = 0;
        for &label in labels.iter().flatten() {
            assert!(
                label <= next,
                "seed {seed}: label {label} came before {next}"
            );
            if label == next {
                next += 1;
            }
        }
        assert_eq!(next, count, "seed {seed}");
    }
}

#[test]
fn a_self_incidence_activates_a_singleton_and_an_untouched_node_stays_inactive() {
    let (labels, count) = islands(4, &[(1, 1)]);
    assert_eq!(labels, vec![None, Some(0), None, None]);
    assert_eq!(count, 1);
    assert_eq!(islands(3, &[]), (vec![None, None, None], 0));
    assert_eq!(islands(0, &[]), (vec![], 0));
}

#[test]
fn a_long_chain_is_resolved_without_recursion() {
    // Incidences (i, i - 1) from the top down link each root under the next
    // smaller node, building a parent chain of depth n - 1 before (n - 1, 0)
    // forces a find along all of it.
    let n = 200_000;
    let mut incidences: Vec<(usize, usize)> = (1..n).rev().map(|i| (i, i - 1)).collect();
    incidences.push((n - 1, 0));
    let (labels, count) = islands(n, &incidences);
    assert_eq!(count, 1);
    assert!(labels.iter().all(|&l| l == Some(0)));
}
