//! The exact search at compiler scale, on the real problems of `data/large`.
//!
//! - pangu_2.6B (18,692 buffers, 12.2 M conflicting pairs) is proven
//!   optimal under a node budget alone, so the outcome does not depend on the
//!   machine: arena equal to the peak of live bytes, reported proven.
//! - On S_1 (28,526 buffers, 43.2 M pairs) a short search stays sound and
//!   never worse than the heuristic plan it starts from.
//! - Every plan passes a sweep over time (not all pairs) that checks each
//!   arriving buffer against its neighbours in offset order; every lower
//!   bound is at least the peak and at most the arena, and "proven" means
//!   they meet.
//!
//! - When the greedy plan meets the lower bound the search returns it at
//!   once, without a node.
//! - No entry point aborts when memory runs out (`ladders`): a child process
//!   calls `aether_plan_offsets_with` (search) and `aether_plan_problem`
//!   (greedy, heuristic, search; with and without constraints) on 5,000
//!   and 100,000 tensors under a ladder of address-space limits
//!   (`RLIMIT_AS`); every call answers OK with a sound plan, or
//!   OUT_OF_MEMORY having written nothing.
//!
//! The large-file cases, and the ladders over planners that are still
//! quadratic in `n`, are `#[ignore]`d so that a debug `cargo test` stays
//! quick; run them in release:
//! `cargo test --release --test search_scale -- --ignored`.

use aether_planner::{
    try_peak_live_bytes, try_plan_offsets_with, PlanOptions, PlanReport, SearchBudget, Strategy,
    TensorLifetime,
};

mod common;
use common::large::large_file;
use common::oracles::{first_overlap, Rng};

/// Panics unless `report` is a sound plan of `tensors` whose arena is its
/// highest end, with a lower bound between the peak and the arena, met
/// exactly when it says it is proven.
fn assert_sound_report(name: &str, tensors: &[TensorLifetime], report: &PlanReport) {
    let (overlap, highest) = first_overlap(tensors, &report.plan.offsets, 1);
    assert_eq!(overlap, None, "{name}: overlapping buffers");
    assert!(highest <= report.plan.arena_size, "{name}");
    let peak = try_peak_live_bytes(tensors).unwrap();
    assert!(
        peak <= report.lower_bound && report.lower_bound <= report.plan.arena_size,
        "{name}: bound {} outside [{peak}, {}]",
        report.lower_bound,
        report.plan.arena_size
    );
    assert_eq!(
        report.proven_optimal,
        report.lower_bound == report.plan.arena_size,
        "{name}"
    );
}

/// The heuristic's plan, the search's starting point.
fn heuristic_plan(tensors: &[TensorLifetime]) -> PlanReport {
    let options = PlanOptions::default().with_strategy(Strategy::Heuristic);
    try_plan_offsets_with(tensors, &options).unwrap()
}

fn search_with_nodes(nodes: u64) -> PlanOptions {
    PlanOptions::default()
        .with_strategy(Strategy::Search)
        .with_budget(SearchBudget::nodes(nodes))
}

/// The sweep itself catches an overlap, and a plan it passes is sound.
#[test]
fn the_sweep_catches_an_overlap() {
    let tensors = [
        TensorLifetime::new(8, 0, 3),
        TensorLifetime::new(8, 3, 5),
        TensorLifetime::new(8, 4, 9),
    ];
    assert_eq!(first_overlap(&tensors, &[0, 8, 0], 1), (None, 16));
    assert_eq!(first_overlap(&tensors, &[0, 4, 16], 1).0, Some((0, 1)));
    assert_eq!(first_overlap(&tensors, &[0, 8, 4], 1).0, Some((2, 1)));
}

#[test]
#[ignore = "large: run in release (see the module documentation)"]
fn pangu_is_proven_optimal_by_the_search() {
    let tensors = large_file("pangu_2.6B");
    let peak = try_peak_live_bytes(&tensors).unwrap();
    let heuristic = heuristic_plan(&tensors);
    // The heuristic alone does not reach the peak: the search has work.
    assert!(heuristic.plan.arena_size > peak);
    let report = try_plan_offsets_with(&tensors, &search_with_nodes(40_000)).unwrap();
    assert_sound_report("pangu_2.6B search", &tensors, &report);
    assert!(report.proven_optimal, "{report:?}");
    assert_eq!(report.plan.arena_size, peak);
    assert!(report.search_nodes <= 40_000);
}

#[test]
#[ignore = "large: run in release (see the module documentation)"]
fn a_short_search_of_s1_is_sound_and_never_worse_than_its_start() {
    let tensors = large_file("S_1");
    let heuristic = heuristic_plan(&tensors);
    let report = try_plan_offsets_with(&tensors, &search_with_nodes(2_000)).unwrap();
    assert_sound_report("S_1 search", &tensors, &report);
    assert!(report.plan.arena_size <= heuristic.plan.arena_size);
    assert!(report.search_nodes <= 2_000);
}

/// A node budget too small to finish the first decision on pangu_2.6B:
/// the start plan comes back, sound, with the peak as its bound.
#[test]
#[ignore = "large: run in release (see the module documentation)"]
fn a_search_cut_short_on_pangu_returns_a_sound_plan() {
    let tensors = large_file("pangu_2.6B");
    let report = try_plan_offsets_with(&tensors, &search_with_nodes(500)).unwrap();
    assert_sound_report("pangu_2.6B short search", &tensors, &report);
    assert!(!report.proven_optimal);
}

/// The search's start: when the greedy plan already meets the lower bound
/// (the peak), the search returns it at once, with no node and no
/// heuristic run: equal sizes on a chain, where best fit is optimal.
#[test]
fn a_greedy_start_at_the_lower_bound_is_returned_at_once() {
    let tensors: Vec<TensorLifetime> = (0..5_000)
        .map(|i| TensorLifetime::new(64, i, i + 1))
        .collect();
    let peak = try_peak_live_bytes(&tensors).unwrap();
    let greedy = aether_planner::try_plan_offsets(&tensors).unwrap();
    assert_eq!(
        greedy.arena_size, peak,
        "the case needs an optimal greedy plan"
    );
    let report = try_plan_offsets_with(&tensors, &search_with_nodes(1_000)).unwrap();
    assert_sound_report("chain", &tensors, &report);
    assert_eq!(report.plan, greedy);
    assert_eq!(report.search_nodes, 0);
    assert!(report.proven_optimal);
}

/// The progress observer of a search: it sees the start (its arena, the
/// peak as bound, no node), then states whose best arena never rises,
/// whose bound never falls and stays at most the arena, whose node count
/// never falls, and last the report's own figures; the report is that of
/// `try_plan_offsets_with`. Seeded random tables of 30 to 90 tensors.
#[test]
fn the_search_progress_observer_sees_every_improvement_in_order() {
    let mut rng = Rng::new(0xD1B5_4A32_D192_ED03);
    let mut below = |bound: u64| rng.below_u64(bound) as usize;
    let mut improved = 0;
    for _ in 0..40 {
        let count = 30 + below(60);
        let tensors: Vec<TensorLifetime> = (0..count)
            .map(|_| {
                let (a, b) = (below(40), below(40));
                TensorLifetime::new(1 + below(100), a.min(b), a.max(b))
            })
            .collect();
        let options = search_with_nodes(5_000);
        let mut seen = Vec::new();
        let report =
            aether_planner::try_plan_offsets_observed(&tensors, &options, &mut |p| seen.push(*p))
                .unwrap();
        assert_eq!(report, try_plan_offsets_with(&tensors, &options).unwrap());
        assert_sound_report("random", &tensors, &report);
        let Some(first) = seen.first() else {
            // No search: the start was optimal already.
            assert!(report.proven_optimal && report.search_nodes == 0);
            continue;
        };
        let peak = try_peak_live_bytes(&tensors).unwrap();
        assert_eq!((first.nodes, first.lower_bound), (0, peak), "{seen:?}");
        for pair in seen.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert!(b.best_arena <= a.best_arena && b.lower_bound >= a.lower_bound);
            assert!(
                b.nodes >= a.nodes
                    && (b.best_arena, b.lower_bound) != (a.best_arena, a.lower_bound)
            );
        }
        assert!(seen.iter().all(|p| p.lower_bound <= p.best_arena));
        let last = seen.last().unwrap();
        assert_eq!(
            (last.best_arena, last.lower_bound),
            (report.plan.arena_size, report.lower_bound),
            "{seen:?}"
        );
        assert!(last.nodes <= report.search_nodes);
        improved += usize::from(seen.len() > 1);
    }
    assert!(improved > 0, "no search improved on its start");
}

// ---------------------------------------------------------------------------
// The C entry points under address-space limits (RLIMIT_AS), in a child.
// ---------------------------------------------------------------------------

#[cfg(target_os = "linux")]
mod ladders {
    use super::common::limit;
    use super::common::oracles::first_overlap;
    use aether_planner::ffi::{
        aether_plan_offsets_with, aether_plan_options, aether_plan_options_init,
        aether_plan_problem, aether_plan_report, aether_problem, aether_problem_init,
        aether_tensor_lifetime, AETHER_OFFSET_FREE, AETHER_STATUS_OK, AETHER_STATUS_OUT_OF_MEMORY,
        AETHER_STRATEGY_GREEDY, AETHER_STRATEGY_HEURISTIC, AETHER_STRATEGY_SEARCH,
    };
    use aether_planner::TensorLifetime;

    const CHILD: &str = "AETHER_SEARCH_SCALE_CHILD";

    /// Limits above the child's size before each call, in KiB: from below
    /// what the smallest calls need (a 5,000-tensor search needs less than
    /// a MiB beyond what the child has mapped) to more than any needs.
    const LADDER: [u64; 14] = [
        64,
        256,
        1 << 10,
        2 << 10,
        4 << 10,
        8 << 10,
        16 << 10,
        32 << 10,
        64 << 10,
        128 << 10,
        256 << 10,
        512 << 10,
        1024 << 10,
        4096 << 10,
    ];

    /// Which entry point, and for `aether_plan_problem` whether the problem
    /// has constraints (every fourth tensor aligned to 256, tensor 0 fixed
    /// at 0) or none (the unconstrained planners behind it).
    #[derive(Clone, Copy)]
    enum Entry {
        With,
        Problem { constrained: bool },
    }

    /// A sliding window: tensor `i` lives nodes `i..=i + 10`, seeded sizes
    /// from 64 B to 64 KiB (sparse conflicts, one long component, a greedy
    /// plan above the peak).
    fn window(count: usize) -> Vec<aether_tensor_lifetime> {
        let mut rng = super::Rng::new(0x9E37_79B9_7F4A_7C15);
        (0..count)
            .map(|i| aether_tensor_lifetime {
                size: 64 * (1 + rng.below(1024)),
                first_use: i,
                last_use: i + 10,
            })
            .collect()
    }

    /// What the child does: plan with `strategy` under every rung, then
    /// print one status per rung after checking every answer: an OK plan is
    /// sound (and honours the constraints), an OUT_OF_MEMORY one wrote no
    /// offset.
    fn child(entry: Entry, strategy: u32, count: usize) {
        const UNWRITTEN: usize = 0xA5A5_A5A5;
        let tensors = window(count);
        let constrained = matches!(entry, Entry::Problem { constrained: true });
        let alignments: Vec<usize> = (0..count)
            .map(|i| if i % 4 == 0 { 256 } else { 1 })
            .collect();
        let mut fixed = vec![AETHER_OFFSET_FREE; count];
        fixed[0] = 0;
        let mut spec = std::mem::MaybeUninit::<aether_problem>::uninit();
        // SAFETY: init writes the whole struct of the size given.
        let mut spec = unsafe {
            assert_eq!(
                aether_problem_init(spec.as_mut_ptr(), std::mem::size_of::<aether_problem>()),
                AETHER_STATUS_OK
            );
            spec.assume_init()
        };
        if constrained {
            spec.alignments = alignments.as_ptr();
            spec.alignment_count = count;
            spec.fixed_offsets = fixed.as_ptr();
            spec.fixed_offset_count = count;
        }
        let mut options = std::mem::MaybeUninit::<aether_plan_options>::uninit();
        // SAFETY: init writes the whole struct.
        let mut options = unsafe {
            aether_plan_options_init(options.as_mut_ptr());
            options.assume_init()
        };
        options.strategy = strategy;
        options.alignment = 64;
        options.budget_nodes = 200;
        // A cap, so that a heuristic start that is quadratic in a debug
        // build stays short; which rungs answer OK may vary with it, never
        // whether every rung answers.
        options.budget_ms = 300;
        let mut offsets = vec![UNWRITTEN; count];
        let mut report = aether_plan_report {
            struct_size: std::mem::size_of::<aether_plan_report>(),
            ..Default::default()
        };
        let plain: Vec<TensorLifetime> = tensors
            .iter()
            .map(|t| TensorLifetime::new(t.size, t.first_use, t.last_use))
            .collect();
        let mut lines = Vec::with_capacity(LADDER.len());
        for kib in LADDER {
            offsets.fill(UNWRITTEN);
            let base = limit::current_size();
            limit::address_space(base + (kib << 10));
            // SAFETY: arrays of `count` elements, initialised structs.
            let status = unsafe {
                match entry {
                    Entry::With => aether_plan_offsets_with(
                        tensors.as_ptr(),
                        count,
                        &options,
                        offsets.as_mut_ptr(),
                        &mut report,
                    ),
                    Entry::Problem { .. } => aether_plan_problem(
                        tensors.as_ptr(),
                        count,
                        &spec,
                        &options,
                        offsets.as_mut_ptr(),
                        &mut report,
                    ),
                }
            };
            limit::address_space(u64::MAX);
            if status == AETHER_STATUS_OK {
                let (overlap, highest) = first_overlap(&plain, &offsets, 64);
                assert_eq!(overlap, None, "limit+{kib}KiB: overlapping tensors");
                assert!(highest <= report.arena_size);
                if constrained {
                    assert_eq!(offsets[0], 0, "the fixed offset");
                    assert!((0..count).step_by(4).all(|i| offsets[i] % 256 == 0));
                }
            } else if status == AETHER_STATUS_OUT_OF_MEMORY {
                assert!(offsets.iter().all(|&o| o == UNWRITTEN), "written on error");
            }
            lines.push(format!("limit+{kib}KiB status={status}"));
        }
        for line in lines {
            println!("{line}");
        }
    }

    /// Runs the ladder of `entry` with `strategy` on `count` tensors in a
    /// child (this test rerun), which must live and answer every rung OK
    /// or OUT_OF_MEMORY, reaching both.
    fn ladder(name: &str, entry: Entry, strategy: u32, count: usize) {
        if std::env::var_os(CHILD).is_some() {
            child(entry, strategy, count);
            return;
        }
        limit::run_ladder_child(&format!("ladders::{name}"), CHILD, LADDER.len());
    }

    /// One test per entry point, strategy and size; `$ignore` marks those
    /// that take minutes in a debug build (run in release with `--ignored`).
    macro_rules! ladders {
        ($($name:ident: $entry:expr, $strategy:expr, $count:expr $(, $ignore:literal)?;)*) => {$(
            #[test]
            $(#[ignore = $ignore])?
            fn $name() {
                ladder(stringify!($name), $entry, $strategy, $count);
            }
        )*};
    }

    ladders! {
        search_with_options_5000_never_aborts: Entry::With, AETHER_STRATEGY_SEARCH, 5_000;
        search_with_options_100000_never_aborts: Entry::With, AETHER_STRATEGY_SEARCH, 100_000;
        greedy_problem_5000_never_aborts:
            Entry::Problem { constrained: true }, AETHER_STRATEGY_GREEDY, 5_000;
        heuristic_problem_5000_never_aborts:
            Entry::Problem { constrained: true }, AETHER_STRATEGY_HEURISTIC, 5_000;
        search_problem_5000_never_aborts:
            Entry::Problem { constrained: true }, AETHER_STRATEGY_SEARCH, 5_000;
        greedy_problem_100000_never_aborts:
            Entry::Problem { constrained: false }, AETHER_STRATEGY_GREEDY, 100_000;
        heuristic_problem_100000_never_aborts:
            Entry::Problem { constrained: false }, AETHER_STRATEGY_HEURISTIC, 100_000,
            "the heuristic is quadratic in n today (issue 21): run in release";
        search_problem_100000_never_aborts:
            Entry::Problem { constrained: false }, AETHER_STRATEGY_SEARCH, 100_000;
        greedy_constrained_problem_100000_never_aborts:
            Entry::Problem { constrained: true }, AETHER_STRATEGY_GREEDY, 100_000,
            "the constrained planner is quadratic in n today (issue 21): run in release";
        heuristic_constrained_problem_100000_never_aborts:
            Entry::Problem { constrained: true }, AETHER_STRATEGY_HEURISTIC, 100_000,
            "the constrained planner is quadratic in n today (issue 21): run in release";
        search_constrained_problem_100000_never_aborts:
            Entry::Problem { constrained: true }, AETHER_STRATEGY_SEARCH, 100_000,
            "the constrained planner is quadratic in n today (issue 21): run in release";
    }
}
