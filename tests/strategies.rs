//! Plan options of issue 6: alignment and the greedy, heuristic and search
//! strategies of `try_plan_offsets_with`.
//!
//! Every plan of every strategy is checked by a pairwise overlap oracle
//! written here, on the MiniMalloc problems, the MobileNet tables and seeded
//! random tables. Optimality claims are checked against a brute-force
//! minimum; the lower bound against a brute-force peak.

use aether_planner::{
    peak_live_bytes, try_plan_offsets, try_plan_offsets_with, MemoryPlan, PlanError, PlanOptions,
    PlanReport, SearchBudget, Strategy, TensorLifetime,
};

mod common;
use common::oracles::{brute_peak, first_shared_extent, Rng};

const STRATEGIES: [Strategy; 3] = [Strategy::Greedy, Strategy::Heuristic, Strategy::Search];

fn options(strategy: Strategy, alignment: usize, nodes: u64) -> PlanOptions {
    PlanOptions::default()
        .with_alignment(alignment)
        .with_strategy(strategy)
        .with_budget(SearchBudget::nodes(nodes))
}

fn rounded(size: usize, alignment: usize) -> usize {
    size.div_ceil(alignment) * alignment
}

/// The oracle: offsets aligned, zero-size tensors at 0, the arena exactly the
/// top of the rounded extents, and no two lifetime-intersecting tensors
/// sharing a byte of their rounded extents.
fn assert_sound(tensors: &[TensorLifetime], plan: &MemoryPlan, alignment: usize, what: &str) {
    assert_eq!(
        plan.offsets.len(),
        tensors.len(),
        "{what}: one offset per tensor"
    );
    let mut top = 0usize;
    for (i, (t, &offset)) in tensors.iter().zip(&plan.offsets).enumerate() {
        assert_eq!(
            offset % alignment,
            0,
            "{what}: tensor {i} offset {offset} unaligned"
        );
        if t.size == 0 {
            assert_eq!(offset, 0, "{what}: zero-size tensor {i} is planned");
        }
        top = top.max(offset + rounded(t.size, alignment));
    }
    assert_eq!(
        plan.arena_size, top,
        "{what}: arena is not the top of the extents"
    );
    if let Some((i, j)) = first_shared_extent(tensors, &plan.offsets, alignment) {
        panic!("{what}: tensors {i} and {j} share bytes");
    }
}

/// The report's own claims: bound between peak and arena, optimality flag
/// consistent, node budget respected.
fn assert_report(
    tensors: &[TensorLifetime],
    report: &PlanReport,
    options: &PlanOptions,
    what: &str,
) {
    assert_sound(tensors, &report.plan, options.alignment, what);
    let rounded_tensors: Vec<TensorLifetime> = tensors
        .iter()
        .map(|t| TensorLifetime::new(rounded(t.size, options.alignment), t.first_use, t.last_use))
        .collect();
    let peak = brute_peak(&rounded_tensors);
    assert!(
        report.lower_bound >= peak,
        "{what}: lower bound below the peak"
    );
    assert!(
        report.lower_bound <= report.plan.arena_size,
        "{what}: lower bound above the arena"
    );
    assert_eq!(
        report.proven_optimal,
        report.lower_bound == report.plan.arena_size,
        "{what}: optimality flag"
    );
    if let Some(limit) = options.budget.nodes {
        assert!(report.search_nodes <= limit, "{what}: node budget exceeded");
    }
    if options.strategy != Strategy::Search {
        assert_eq!(report.search_nodes, 0, "{what}: nodes without a search");
    }
}

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
            TensorLifetime::new(size, a.min(b), a.max(b))
        })
        .collect()
}

/// Rows of a CSV file with a header; a non-numeric field (an id) reads as 0.
fn read_csv(path: &str) -> Vec<Vec<usize>> {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            line.split(',')
                .map(|field| field.trim().parse().unwrap_or(0))
                .collect()
        })
        .collect()
}

/// MiniMalloc's `id,lower,upper,size`: `upper` is exclusive.
fn minimalloc(name: &str) -> Vec<TensorLifetime> {
    read_csv(&format!("data/minimalloc/{name}"))
        .iter()
        .map(|row| TensorLifetime::new(row[3], row[1], row[2] - 1))
        .collect()
}

/// XNNPACK tables: `size,first_use,last_use`, inclusive.
fn network(name: &str) -> Vec<TensorLifetime> {
    read_csv(&format!("data/networks/{name}"))
        .iter()
        .map(|row| TensorLifetime::new(row[0], row[1], row[2]))
        .collect()
}

fn data_files() -> Vec<(String, Vec<TensorLifetime>)> {
    let mut files: Vec<(String, Vec<TensorLifetime>)> = "ABCDEFGHIJK"
        .chars()
        .map(|c| {
            let name = format!("challenging/{c}.1048576.csv");
            (name.clone(), minimalloc(&name))
        })
        .collect();
    files.push((
        "examples/input.12.csv".into(),
        minimalloc("examples/input.12.csv"),
    ));
    for name in [
        "mobilenet_v1_fp32.csv",
        "mobilenet_v2_fp32.csv",
        "mobilenet_v3_large_fp32.csv",
        "mobilenet_v3_small_fp32.csv",
    ] {
        files.push((name.into(), network(name)));
    }
    files
}

// ---------------------------------------------------------------------------
// Soundness of every strategy
// ---------------------------------------------------------------------------

fn assert_sound_on(files: &[(String, Vec<TensorLifetime>)], alignments: &[usize]) {
    for (name, tensors) in files {
        for &alignment in alignments {
            for strategy in STRATEGIES {
                let options = options(strategy, alignment, 300);
                let report = try_plan_offsets_with(tensors, &options).expect("valid input");
                assert_report(
                    tensors,
                    &report,
                    &options,
                    &format!("{name} {strategy:?} a={alignment}"),
                );
            }
        }
    }
}

/// The MobileNet tables, MiniMalloc's example and its three smallest
/// challenging problems; the other eight are in the ignored test below (and
/// every plan of the results example is checked the same way).
#[test]
fn every_strategy_is_sound_on_the_data_files() {
    let files: Vec<_> = data_files()
        .into_iter()
        .filter(|(name, _)| !name.starts_with("challenging/") || "ABC".contains(&name[12..13]))
        .collect();
    assert_sound_on(&files, &[1, 4096]);
}

/// All data files at three alignments: about a minute in the debug profile.
#[test]
#[ignore]
fn every_strategy_is_sound_on_all_the_data_files_at_three_alignments() {
    assert_sound_on(&data_files(), &[1, 64, 4096]);
}

#[test]
fn every_strategy_is_sound_on_seeded_random_tables() {
    for seed in 0..300 {
        let mut rng = Rng::new(seed);
        let tensors = random_tensors(&mut rng);
        let alignment = [1, 2, 8, 64][rng.below(4)];
        for strategy in STRATEGIES {
            let options = options(strategy, alignment, 2_000);
            let report = try_plan_offsets_with(&tensors, &options).expect("valid input");
            assert_report(
                &tensors,
                &report,
                &options,
                &format!("seed {seed} {strategy:?} a={alignment}"),
            );
        }
    }
}

#[test]
fn the_search_never_loses_to_the_heuristic_and_the_heuristic_never_loses_to_nothing() {
    for seed in 0..100 {
        let mut rng = Rng::new(1_000 + seed);
        let tensors = random_tensors(&mut rng);
        let heuristic = try_plan_offsets_with(&tensors, &options(Strategy::Heuristic, 1, 0))
            .expect("valid input");
        let search = try_plan_offsets_with(&tensors, &options(Strategy::Search, 1, 1_000))
            .expect("valid input");
        assert!(
            search.plan.arena_size <= heuristic.plan.arena_size,
            "seed {seed}"
        );
    }
}

/// Two shapes whose optimum is the peak of live bytes: a chain of
/// operators (at most two buffers live at once, with gaps and zero sizes)
/// and nested lifetimes (a buffer per scope of a recursion). The heuristic
/// and a capped search plan both at the brute-force peak, sound, at two
/// alignments; the greedy, by the specification's rule, often does not.
#[test]
fn chains_and_nested_lifetimes_are_planned_at_the_peak() {
    let mut rng = Rng::new(0xC4A1);
    let mut greedy_above = 0;
    for round in 0..24 {
        // Long enough that the heuristic's orderings alone miss the peak
        // of most chains.
        let n = 1 + rng.below(6000);
        let tensors: Vec<TensorLifetime> = if round % 2 == 0 {
            let mut node = 0;
            (0..n)
                .map(|_| {
                    // Each buffer meets only the one before and the one
                    // after: at most two are live at any node.
                    node += 1 + usize::from(rng.below(500) == 0);
                    let size = if rng.below(200) == 0 {
                        0
                    } else {
                        64 * (1 + rng.below(64))
                    };
                    TensorLifetime::new(size, node, node + 1)
                })
                .collect()
        } else {
            let mut table = Vec::new();
            let mut scopes = vec![(0usize, 4 * n)];
            while let Some((a, b)) = scopes.pop() {
                if table.len() == n {
                    break;
                }
                table.push(TensorLifetime::new(1 + rng.below(5000), a, b));
                if b > a + 1 {
                    let mid = a + rng.below(b - a);
                    scopes.push((a, mid));
                    scopes.push((mid + 1, b));
                }
            }
            table
        };
        for alignment in [1, 64] {
            let what = format!("round {round} alignment {alignment}");
            let rounded_tensors: Vec<TensorLifetime> = (tensors.iter())
                .map(|t| TensorLifetime::new(rounded(t.size, alignment), t.first_use, t.last_use))
                .collect();
            let peak = brute_peak(&rounded_tensors);
            let capped = SearchBudget::default().with_time_cap(std::time::Duration::from_secs(60));
            for options in [
                options(Strategy::Heuristic, alignment, 0),
                options(Strategy::Search, alignment, 0).with_budget(capped),
            ] {
                let report = try_plan_offsets_with(&tensors, &options).expect("valid input");
                assert_report(&tensors, &report, &options, &what);
                assert_eq!(
                    report.plan.arena_size, peak,
                    "{what} {:?}",
                    options.strategy
                );
                assert!(report.proven_optimal, "{what}");
            }
            let greedy = try_plan_offsets_with(&tensors, &options(Strategy::Greedy, alignment, 0));
            greedy_above += usize::from(greedy.expect("valid input").plan.arena_size > peak);
        }
    }
    assert!(greedy_above > 8, "the tables are too easy: {greedy_above}");
}

// ---------------------------------------------------------------------------
// Greedy is the specification's planner
// ---------------------------------------------------------------------------

#[test]
fn greedy_at_alignment_one_is_the_specification_planner_bit_for_bit() {
    let mut cases: Vec<Vec<TensorLifetime>> = data_files().into_iter().map(|(_, t)| t).collect();
    for seed in 0..300 {
        cases.push(random_tensors(&mut Rng::new(5_000 + seed)));
    }
    for tensors in cases {
        let expected = try_plan_offsets(&tensors).expect("valid input");
        let report = try_plan_offsets_with(&tensors, &PlanOptions::default()).expect("valid input");
        assert_eq!(report.plan, expected);
        assert_eq!(report.search_nodes, 0);
    }
}

#[test]
fn the_default_options_are_greedy_without_alignment() {
    let options = PlanOptions::default();
    assert_eq!(options.strategy, Strategy::Greedy);
    assert_eq!(options.alignment, 1);
}

// ---------------------------------------------------------------------------
// Alignment
// ---------------------------------------------------------------------------

#[test]
fn alignment_must_be_a_power_of_two() {
    let tensors = [TensorLifetime::new(10, 0, 1)];
    for alignment in [0, 3, 6, 48, 100, usize::MAX] {
        for strategy in STRATEGIES {
            let result = try_plan_offsets_with(&tensors, &options(strategy, alignment, 10));
            assert_eq!(result, Err(PlanError::InvalidAlignment { alignment }));
        }
    }
    let error = PlanError::InvalidAlignment { alignment: 48 };
    assert_eq!(error.index(), None);
    assert!(error.to_string().contains("48"));
}

#[test]
fn rounding_a_size_past_usize_max_names_the_tensor() {
    let tensors = [
        TensorLifetime::new(8, 0, 0),
        TensorLifetime::new(usize::MAX - 2, 1, 1),
    ];
    for strategy in STRATEGIES {
        let result = try_plan_offsets_with(&tensors, &options(strategy, 8, 10));
        assert_eq!(result, Err(PlanError::Overflow { tensor: 1 }));
    }
    // At alignment 1 nothing is rounded, and a lone huge tensor fits.
    let report = try_plan_offsets_with(&tensors, &options(Strategy::Heuristic, 1, 10))
        .expect("fits without rounding");
    assert_eq!(report.plan.arena_size, usize::MAX - 2);
}

#[test]
fn an_empty_lifetime_is_refused_by_every_strategy() {
    let tensors = [TensorLifetime::new(8, 0, 0), TensorLifetime::new(8, 3, 2)];
    for strategy in STRATEGIES {
        let result = try_plan_offsets_with(&tensors, &options(strategy, 4, 10));
        assert_eq!(
            result,
            Err(PlanError::InvalidLifetime {
                tensor: 1,
                first_use: 3,
                last_use: 2
            })
        );
    }
}

#[test]
fn aligned_sizes_are_what_the_arena_counts() {
    // 100 and 80 bytes meet at node 1; at alignment 64 they take 128 each.
    let tensors = [
        TensorLifetime::new(100, 0, 1),
        TensorLifetime::new(80, 1, 2),
        TensorLifetime::new(0, 0, 2),
        TensorLifetime::new(60, 2, 3),
    ];
    for strategy in STRATEGIES {
        let options = options(strategy, 64, 1_000);
        let report = try_plan_offsets_with(&tensors, &options).expect("valid input");
        assert_report(&tensors, &report, &options, &format!("{strategy:?}"));
        assert_eq!(report.plan.arena_size, 256, "{strategy:?}");
        assert_eq!(report.plan.offsets[2], 0, "{strategy:?}");
    }
}

// ---------------------------------------------------------------------------
// The search
// ---------------------------------------------------------------------------

/// The minimum arena by trying every aligned offset of every tensor, with
/// pruning by the best arena so far.
fn brute_force_minimum(tensors: &[TensorLifetime], alignment: usize) -> usize {
    fn extend(
        tensors: &[(usize, usize, usize)],
        alignment: usize,
        offsets: &mut Vec<usize>,
        top: usize,
        best: &mut usize,
    ) {
        let k = offsets.len();
        if k == tensors.len() {
            *best = (*best).min(top);
            return;
        }
        let (size, first, last) = tensors[k];
        let mut offset = 0;
        while offset + size < *best {
            let clear = (0..k).all(|j| {
                let (other, f, l) = tensors[j];
                !(first <= l && f <= last)
                    || offset + size <= offsets[j]
                    || offsets[j] + other <= offset
            });
            if clear {
                offsets.push(offset);
                extend(tensors, alignment, offsets, top.max(offset + size), best);
                offsets.pop();
            }
            offset += alignment;
        }
    }
    let planned: Vec<(usize, usize, usize)> = tensors
        .iter()
        .filter(|t| t.size > 0)
        .map(|t| (rounded(t.size, alignment), t.first_use, t.last_use))
        .collect();
    let mut best = planned.iter().map(|t| t.0).sum::<usize>() + 1;
    extend(&planned, alignment, &mut Vec::new(), 0, &mut best);
    best.min(planned.iter().map(|t| t.0).sum())
}

/// Up to 7 tensors of 0 to 5 bytes over up to 5 nodes.
fn small_tensors(rng: &mut Rng) -> Vec<TensorLifetime> {
    let count = 1 + rng.below(7);
    let nodes = 1 + rng.below(5);
    (0..count)
        .map(|_| {
            let a = rng.below(nodes);
            let b = rng.below(nodes);
            TensorLifetime::new(rng.below(6), a.min(b), a.max(b))
        })
        .collect()
}

#[test]
fn the_search_proves_the_brute_force_minimum_on_small_instances() {
    for seed in 0..400 {
        let mut rng = Rng::new(20_000 + seed);
        let tensors = small_tensors(&mut rng);
        let alignment = [1, 1, 2, 4][rng.below(4)];
        let options = options(Strategy::Search, alignment, 1_000_000);
        let report = try_plan_offsets_with(&tensors, &options).expect("valid input");
        assert_report(&tensors, &report, &options, &format!("seed {seed}"));
        let minimum = brute_force_minimum(&tensors, alignment);
        assert!(
            report.proven_optimal,
            "seed {seed}: not proven within the budget"
        );
        assert_eq!(report.plan.arena_size, minimum, "seed {seed}: {tensors:?}");
    }
}

#[test]
fn every_lower_bound_is_at_most_the_brute_force_minimum() {
    for seed in 0..150 {
        let mut rng = Rng::new(40_000 + seed);
        let tensors = small_tensors(&mut rng);
        let minimum = brute_force_minimum(&tensors, 1);
        for strategy in [Strategy::Greedy, Strategy::Heuristic] {
            let report =
                try_plan_offsets_with(&tensors, &options(strategy, 1, 0)).expect("valid input");
            assert!(report.lower_bound <= minimum, "seed {seed} {strategy:?}");
            assert!(
                report.plan.arena_size >= minimum,
                "seed {seed} {strategy:?}"
            );
        }
        // Tiny budgets: the search stops early, its bound must still hold.
        for nodes in [0, 3, 50] {
            let report = try_plan_offsets_with(&tensors, &options(Strategy::Search, 1, nodes))
                .expect("valid input");
            assert!(report.lower_bound <= minimum, "seed {seed} search {nodes}");
            assert!(
                report.plan.arena_size >= minimum,
                "seed {seed} search {nodes}"
            );
        }
    }
}

#[test]
fn a_node_budget_gives_the_same_result_every_time() {
    let tensors = minimalloc("challenging/D.1048576.csv");
    for nodes in [0, 1, 100, 3_000] {
        let options = options(Strategy::Search, 1, nodes);
        let first = try_plan_offsets_with(&tensors, &options).expect("valid input");
        let second = try_plan_offsets_with(&tensors, &options).expect("valid input");
        assert_eq!(first, second, "budget {nodes}");
        assert_eq!(
            first.search_nodes, nodes,
            "D is not solved in {nodes} nodes"
        );
    }
}

/// MiniMalloc's file I has its peak, 1,048,576 bytes, as optimum. The search
/// proves it in about 20,000 nodes; with a static preorder (no re-ranking
/// of the pieces a placement cuts off) it did not in 2,000,000.
#[test]
fn the_search_proves_minimalloc_i_optimal_within_forty_thousand_nodes() {
    let tensors = minimalloc("challenging/I.1048576.csv");
    let options = options(Strategy::Search, 1, 40_000);
    let report = try_plan_offsets_with(&tensors, &options).expect("valid input");
    assert_report(&tensors, &report, &options, "I");
    assert_eq!(report.plan.arena_size, peak_live_bytes(&tensors));
    assert!(report.proven_optimal);
    assert!(report.search_nodes < 40_000);
}

#[test]
fn a_time_budget_alone_still_returns_a_sound_plan() {
    let tensors = minimalloc("challenging/J.1048576.csv");
    let options = PlanOptions::default()
        .with_strategy(Strategy::Search)
        .with_budget(SearchBudget::unlimited().with_time_cap(std::time::Duration::from_millis(20)));
    let report = try_plan_offsets_with(&tensors, &options).expect("valid input");
    assert_report(&tensors, &report, &options, "J with 20 ms");
}

/// 20,000 tensors live at one node conflict pairwise: their conflict lists
/// would take 3.2 GB, far past what the planners allow themselves. The
/// heuristic and the search count them, build none, and still answer: each
/// tensor gets its own 64 bytes, the arena is the peak, proven.
#[test]
fn conflict_lists_too_large_to_build_are_not_built() {
    let tensors = vec![TensorLifetime::new(64, 0, 0); 20_000];
    for strategy in [Strategy::Heuristic, Strategy::Search] {
        let report = try_plan_offsets_with(&tensors, &options(strategy, 1, 10))
            .unwrap_or_else(|error| panic!("{strategy:?}: {error}"));
        // All meet at node 0: sound exactly when the blocks are disjoint.
        let mut offsets = report.plan.offsets.clone();
        offsets.sort_unstable();
        assert!(
            offsets.windows(2).all(|pair| pair[1] >= pair[0] + 64),
            "{strategy:?}: overlapping blocks"
        );
        assert!(offsets
            .last()
            .is_some_and(|&o| o + 64 <= report.plan.arena_size));
        assert_eq!(report.plan.arena_size, 20_000 * 64, "{strategy:?}");
        assert!(report.proven_optimal, "{strategy:?}");
    }
}
