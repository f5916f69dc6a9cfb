//! Property tests: each algorithm against a brute-force oracle (tests/common),
//! on inputs proptest generates and shrinks: 9 properties of 2,000 cases.

use aether_planner::{
    islands, peak_live_bytes, plan_offsets, transitive_reduction, try_peak_live_bytes,
    try_plan_offsets, try_transitive_reduction, Islands, TensorLifetime,
};
use proptest::prelude::*;

mod common;
use common::oracles::{brute_islands, brute_peak, brute_reduction, reachability, Rng};

const CASES: u32 = 2_000;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ------------------------------------------------------------- strategies

fn tensors(max_len: usize, max_size: usize) -> impl Strategy<Value = Vec<TensorLifetime>> {
    prop::collection::vec((0..=max_size, 0usize..24, 0usize..8), 0..=max_len).prop_map(|raw| {
        raw.into_iter()
            .map(|(size, first, length)| TensorLifetime {
                size,
                first_use: first,
                last_use: first + length,
            })
            .collect()
    })
}

/// A DAG on up to `max_nodes` nodes numbered topologically, its edges in
/// arbitrary order with repeats.
fn dag(max_nodes: usize) -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
    (2..=max_nodes).prop_flat_map(|n| {
        let edge = (0..n - 1).prop_flat_map(move |u| (Just(u), u + 1..n));
        (Just(n), prop::collection::vec(edge, 0..=3 * n))
    })
}

fn incidences(max_nodes: usize) -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
    (1..=max_nodes).prop_flat_map(|n| (Just(n), prop::collection::vec((0..n, 0..n), 0..=2 * n)))
}

// -------------------------------------------------------------- properties

proptest! {
    #![proptest_config(config())]

    #[test]
    fn plans_are_sound_and_never_below_the_peak(tensors in tensors(24, 64)) {
        let plan = plan_offsets(&tensors);
        let peak = peak_live_bytes(&tensors);
        prop_assert_eq!(plan.offsets.len(), tensors.len());
        prop_assert!(plan.arena_size >= peak);
        for (i, a) in tensors.iter().enumerate() {
            if a.size == 0 {
                prop_assert_eq!(plan.offsets[i], 0);
                continue;
            }
            prop_assert!(plan.offsets[i] + a.size <= plan.arena_size);
            for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                let meet = a.first_use <= b.last_use && b.first_use <= a.last_use;
                let share = plan.offsets[i] < plan.offsets[j] + b.size
                    && plan.offsets[j] < plan.offsets[i] + a.size;
                prop_assert!(!(b.size > 0 && meet && share), "tensors {} and {} share a byte", i, j);
            }
        }
    }

    #[test]
    fn the_peak_equals_a_sum_at_every_node(tensors in tensors(24, 1_000)) {
        prop_assert_eq!(peak_live_bytes(&tensors), brute_peak(&tensors));
    }

    #[test]
    fn a_live_sum_past_size_max_is_an_overflow_not_a_wrap(
        small in tensors(6, 8),
        at in 0usize..24,
    ) {
        // Two tensors of more than half the address space, both live at `at`.
        let mut tensors = small;
        let half = usize::MAX / 2 + 1;
        tensors.push(TensorLifetime { size: half, first_use: 0, last_use: at });
        tensors.push(TensorLifetime { size: half, first_use: at, last_use: 30 });
        prop_assert!(try_peak_live_bytes(&tensors).is_err());
        prop_assert!(try_plan_offsets(&tensors).is_err());
    }

    #[test]
    fn a_backwards_lifetime_is_refused(mut tensors in tensors(12, 64), pick in any::<prop::sample::Index>()) {
        prop_assume!(!tensors.is_empty());
        let i = pick.index(tensors.len());
        tensors[i].first_use = tensors[i].last_use + 1;
        prop_assert!(try_plan_offsets(&tensors).is_err());
        prop_assert!(try_peak_live_bytes(&tensors).is_err());
    }

    #[test]
    fn the_reduction_is_the_brute_force_reduction((n, edges) in dag(12)) {
        let reduced = transitive_reduction(n, &edges);
        prop_assert_eq!(&reduced, &brute_reduction(n, &edges));
        // Same reachability, and every kept edge is needed.
        let reach = reachability(n, &edges);
        prop_assert_eq!(&reachability(n, &reduced), &reach);
        for skip in 0..reduced.len() {
            let mut fewer = reduced.clone();
            fewer.remove(skip);
            prop_assert_ne!(&reachability(n, &fewer), &reach);
        }
    }

    #[test]
    fn the_reduction_ignores_edge_order((n, edges) in dag(16), seed in any::<u64>()) {
        let mut shuffled = edges.clone();
        Rng::new(seed).shuffle(&mut shuffled);
        prop_assert_eq!(transitive_reduction(n, &edges), transitive_reduction(n, &shuffled));
    }

    #[test]
    fn an_edge_against_the_numbering_or_beyond_the_nodes_is_refused(
        (n, mut edges) in dag(10),
        pick in any::<prop::sample::Index>(),
        beyond in 0usize..3,
    ) {
        prop_assume!(!edges.is_empty());
        let i = pick.index(edges.len());
        let (u, v) = edges[i];
        edges[i] = (v, u);
        prop_assert!(try_transitive_reduction(n, &edges).is_err());
        edges[i] = (u, n + beyond);
        prop_assert!(try_transitive_reduction(n, &edges).is_err());
    }

    #[test]
    fn islands_are_the_components_of_a_traversal((n, incidences) in incidences(40)) {
        let expected = brute_islands(n, &incidences);
        prop_assert_eq!(&islands(n, &incidences), &expected);
        // The named result is the same answer.
        let found = Islands::find(n, &incidences);
        prop_assert_eq!((found.labels, found.count), expected);
    }

    #[test]
    fn islands_ignore_order_and_orientation((n, incidences) in incidences(40)) {
        let mut turned: Vec<(usize, usize)> = incidences.iter().rev().map(|&(a, b)| (b, a)).collect();
        let third = turned.len() / 3;
        turned.rotate_left(third);
        prop_assert_eq!(islands(n, &turned), islands(n, &incidences));
    }
}
