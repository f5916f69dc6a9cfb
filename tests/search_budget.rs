//! The search under a time cap (issue 21): a capped call has a sound plan
//! however short the cap, and an uncapped call plans as before.
//!
//! - A zero time cap returns the fallback plan alone: on tables of fewer
//!   than 4,096 planned tensors, online first fit in time order (tensors by
//!   first use, larger first, then by index; each takes the lowest offset
//!   clear of the tensors still live). It is checked against that rule
//!   simulated naively here, and for soundness against a pairwise check and
//!   the sweep checker, on seeded tables of the six shapes of the scale
//!   sweep (chain, sliding window, random short, nested, heavy-tailed,
//!   training step) and at alignments 1 and 64. On larger tables the cap
//!   is kept rather than the plan made: every planned tensor stacked in
//!   input order, the peak its bound.
//! - Tiny caps (1 ns to 100 ms) on tables of up to 60,000 tensors cut the
//!   call at whatever step the clock finds it: the plan is sound, never
//!   worse than the fallback plan, and the report's bound lies between the
//!   peak and the arena, met exactly when it says it is proven. No
//!   assertion depends on where the cap fell, nor on the machine's speed.
//! - With no cap (a node budget only) the search starts where it always
//!   did: with no nodes it returns the greedy plan when that meets the peak,
//!   else the heuristic's, bit for bit; and every run gives the same plan.

// Options are set field by field, not by a struct literal, so that the tests
// keep building if `PlanOptions` gains fields.
#![allow(clippy::field_reassign_with_default)]

use std::time::Duration;

use aether_planner::{
    try_peak_live_bytes, try_plan_offsets, try_plan_offsets_with, PlanOptions, PlanReport,
    SearchBudget, Strategy, TensorLifetime,
};

mod common;
use common::large::first_overlap;
use common::oracles::{brute_peak, first_shared_byte, Rng};

/// The six shapes of the scale sweep, at small sizes.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Chain,
    Window,
    RandomShort,
    Nested,
    HeavyTailed,
    TrainingStep,
}

const SHAPES: [Shape; 6] = [
    Shape::Chain,
    Shape::Window,
    Shape::RandomShort,
    Shape::Nested,
    Shape::HeavyTailed,
    Shape::TrainingStep,
];

/// About `n` tensors of `shape`, from `rng`; about one in twenty has size 0.
fn table(shape: Shape, n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    let size = |rng: &mut Rng, most: usize| {
        if rng.below(20) == 0 {
            0
        } else {
            1 + rng.below(most)
        }
    };
    let mut tensors = Vec::with_capacity(n);
    match shape {
        Shape::Chain => {
            for i in 0..n {
                tensors.push(TensorLifetime::new(size(rng, 4096), i, i + 1));
            }
        }
        Shape::Window => {
            for i in 0..n {
                tensors.push(TensorLifetime::new(size(rng, 65536), i, i + 10));
            }
        }
        Shape::RandomShort => {
            for _ in 0..n {
                let first = rng.below(n.max(1));
                let length = rng.below(100);
                tensors.push(TensorLifetime::new(size(rng, 65536), first, first + length));
            }
        }
        Shape::Nested => {
            // Breadth-first subdivision of [0, 2n): one tensor per scope.
            let mut scopes = std::collections::VecDeque::from([(0usize, 2 * n.max(1) - 1)]);
            while tensors.len() < n {
                let Some((lo, hi)) = scopes.pop_front() else {
                    break;
                };
                tensors.push(TensorLifetime::new(size(rng, 16384), lo, hi));
                if hi - lo >= 2 {
                    let cut = lo + 1 + rng.below(hi - lo - 1);
                    scopes.push_back((lo, cut - 1));
                    scopes.push_back((cut, hi));
                } else {
                    scopes.push_back((lo, hi));
                }
            }
        }
        Shape::HeavyTailed => {
            for _ in 0..n {
                let first = rng.below(n.max(1));
                // Pareto with α = 1.5, at least 1, capped at n.
                let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                let length = ((1.0 - u).powf(-1.0 / 1.5) as usize).clamp(1, n.max(1));
                let bytes = if rng.below(20) == 0 {
                    0
                } else {
                    1 << (4 + rng.below(17))
                };
                tensors.push(TensorLifetime::new(bytes, first, first + length - 1));
            }
        }
        Shape::TrainingStep => {
            let layers = (n / 3).max(1);
            let turn = 2 * layers;
            for i in 0..layers {
                tensors.push(TensorLifetime::new(size(rng, 32768), i, turn - 1 - i));
                tensors.push(TensorLifetime::new(size(rng, 4096), i, i));
                tensors.push(TensorLifetime::new(
                    size(rng, 32768),
                    turn - 1 - i,
                    turn - i,
                ));
            }
        }
    }
    tensors
}

/// Sizes rounded up to `alignment`.
fn rounded(tensors: &[TensorLifetime], alignment: usize) -> Vec<TensorLifetime> {
    tensors
        .iter()
        .map(|t| {
            TensorLifetime::new(
                t.size.div_ceil(alignment) * alignment,
                t.first_use,
                t.last_use,
            )
        })
        .collect()
}

fn search(budget: SearchBudget, alignment: usize) -> PlanOptions {
    let mut options = PlanOptions::default();
    options.strategy = Strategy::Search;
    options.alignment = alignment;
    options.budget = budget;
    options
}

/// A zero time cap: nothing but the fallback plan has time.
fn zero_cap(alignment: usize) -> PlanOptions {
    search(
        SearchBudget::default().with_time_cap(Duration::ZERO),
        alignment,
    )
}

/// The fallback plan by its rule, naively: tensors by (first use, larger
/// first, index), each at the lowest offset (0 or the end of a live
/// tensor) clear of every tensor placed before it that is still live.
fn naive_first_fit(tensors: &[TensorLifetime]) -> (Vec<usize>, usize) {
    let mut order: Vec<usize> = (0..tensors.len())
        .filter(|&i| tensors[i].size > 0)
        .collect();
    order.sort_by_key(|&i| (tensors[i].first_use, std::cmp::Reverse(tensors[i].size), i));
    let mut offsets = vec![0; tensors.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut arena = 0;
    for &i in &order {
        let t = tensors[i];
        placed.retain(|&j| tensors[j].last_use >= t.first_use);
        let clear = |o: usize| {
            placed
                .iter()
                .all(|&j| o + t.size <= offsets[j] || offsets[j] + tensors[j].size <= o)
        };
        let mut candidates: Vec<usize> = placed
            .iter()
            .map(|&j| offsets[j] + tensors[j].size)
            .collect();
        candidates.push(0);
        let offset = candidates
            .into_iter()
            .filter(|&o| clear(o))
            .min()
            .expect("above every live tensor is clear");
        offsets[i] = offset;
        arena = arena.max(offset + t.size);
        placed.push(i);
    }
    (offsets, arena)
}

/// Panics unless `report` is a sound plan of `tensors` at `alignment`
/// (checked by the sweep, and pairwise when `pairwise`), its arena the
/// highest rounded end, its bound between the peak and the arena and met
/// exactly when it says it is proven.
fn assert_sound(
    name: &str,
    tensors: &[TensorLifetime],
    alignment: usize,
    report: &PlanReport,
    pairwise: bool,
) {
    let offsets = &report.plan.offsets;
    assert_eq!(offsets.len(), tensors.len(), "{name}");
    assert!(
        offsets.iter().all(|o| o % alignment == 0),
        "{name}: misaligned"
    );
    let (overlap, highest) = first_overlap(tensors, offsets, alignment);
    assert_eq!(overlap, None, "{name}: overlapping tensors");
    assert_eq!(report.plan.arena_size, highest, "{name}: arena");
    let rounded = rounded(tensors, alignment);
    if pairwise {
        assert_eq!(first_shared_byte(&rounded, offsets), None, "{name}");
    }
    let peak = if pairwise {
        brute_peak(&rounded)
    } else {
        try_peak_live_bytes(&rounded).unwrap()
    };
    assert!(report.lower_bound >= peak, "{name}: bound below the peak");
    assert!(
        report.lower_bound <= report.plan.arena_size,
        "{name}: bound above the arena"
    );
    assert_eq!(
        report.proven_optimal,
        report.lower_bound == report.plan.arena_size,
        "{name}: proven"
    );
}

#[test]
fn a_zero_cap_gives_the_first_fit_plan_sound_on_every_shape() {
    let mut rng = Rng::new(21);
    for shape in SHAPES {
        for round in 0..40 {
            let n = 1 + rng.below(120);
            let tensors = table(shape, n, &mut rng);
            for alignment in [1, 64] {
                let name = format!("{shape:?} round {round} alignment {alignment}");
                let report = try_plan_offsets_with(&tensors, &zero_cap(alignment)).unwrap();
                assert_sound(&name, &tensors, alignment, &report, true);
                let (offsets, arena) = naive_first_fit(&rounded(&tensors, alignment));
                assert_eq!(
                    report.plan.offsets, offsets,
                    "{name}: not the first-fit plan"
                );
                assert_eq!(report.plan.arena_size, arena, "{name}");
                assert_eq!(report.search_nodes, 0, "{name}");
                // Too small a table for the clock: nothing stacked.
                assert_eq!(report.stacked_tensors, 0, "{name}");
            }
        }
    }
}

#[test]
fn the_zero_cap_plan_is_sound_at_scale_on_every_shape() {
    let mut rng = Rng::new(2121);
    for shape in SHAPES {
        let tensors = table(shape, 50_000, &mut rng);
        for alignment in [1, 64] {
            let name = format!("{shape:?} alignment {alignment}");
            let report = try_plan_offsets_with(&tensors, &zero_cap(alignment)).unwrap();
            assert_sound(&name, &tensors, alignment, &report, false);
        }
    }
}

#[test]
fn a_zero_cap_on_a_large_table_stacks_it_in_input_order() {
    let mut rng = Rng::new(4096);
    for shape in SHAPES {
        let tensors = table(shape, 20_000, &mut rng);
        for alignment in [1, 64] {
            let name = format!("{shape:?} alignment {alignment}");
            let report = try_plan_offsets_with(&tensors, &zero_cap(alignment)).unwrap();
            assert_sound(&name, &tensors, alignment, &report, false);
            let mut top = 0;
            let stacked: Vec<usize> = rounded(&tensors, alignment)
                .iter()
                .map(|t| {
                    let offset = if t.size == 0 { 0 } else { top };
                    top += t.size;
                    offset
                })
                .collect();
            assert!(report.plan.offsets == stacked, "{name}: not the stack");
            assert_eq!(report.plan.arena_size, top, "{name}");
            let peak = try_peak_live_bytes(&rounded(&tensors, alignment)).unwrap();
            assert_eq!(report.lower_bound, peak, "{name}");
            assert_eq!(report.search_nodes, 0, "{name}");
            let planned = tensors.iter().filter(|t| t.size > 0).count();
            assert_eq!(
                report.stacked_tensors, planned,
                "{name}: the report hides the stack"
            );
        }
    }
}

/// Whatever memory a capped call reuses for the plan's offsets, the plan
/// holds no more than about twice what they need, even when the node
/// indices spread over several times the tensor count.
#[test]
fn a_capped_plan_holds_little_more_memory_than_its_offsets() {
    let mut rng = Rng::new(77);
    for spread in [1, 2, 3] {
        let n = 20_000;
        let tensors: Vec<TensorLifetime> = (0..n)
            .map(|i| {
                let first = spread * i + rng.below(4);
                TensorLifetime::new(64 * (1 + rng.below(16)), first, first + rng.below(6))
            })
            .collect();
        let report = try_plan_offsets_with(&tensors, &zero_cap(1)).unwrap();
        assert_sound(&format!("spread {spread}"), &tensors, 1, &report, false);
        let capacity = report.plan.offsets.capacity();
        assert!(
            capacity <= 2 * n + 1024,
            "spread {spread}: capacity {capacity}"
        );
    }
}

#[test]
fn empty_and_zero_size_tables_under_a_zero_cap() {
    let report = try_plan_offsets_with(&[], &zero_cap(1)).unwrap();
    assert_eq!(report.plan.arena_size, 0);
    assert!(report.proven_optimal);
    let zeros = [TensorLifetime::new(0, 0, 3), TensorLifetime::new(0, 1, 2)];
    let report = try_plan_offsets_with(&zeros, &zero_cap(8)).unwrap();
    assert_eq!(report.plan.offsets, vec![0, 0]);
    assert_eq!(report.plan.arena_size, 0);
    assert!(report.proven_optimal);
}

#[test]
fn an_end_past_usize_max_is_an_overflow_under_a_zero_cap() {
    let huge = usize::MAX / 2 + 1;
    let tensors = [
        TensorLifetime::new(huge, 0, 1),
        TensorLifetime::new(huge, 1, 2),
    ];
    assert!(try_plan_offsets_with(&tensors, &zero_cap(1)).is_err());
}

#[test]
fn tiny_caps_give_sound_plans_never_worse_than_the_fallback() {
    let caps = [
        Duration::from_nanos(1),
        Duration::from_micros(50),
        Duration::from_millis(1),
        Duration::from_millis(5),
        Duration::from_millis(20),
        Duration::from_millis(100),
    ];
    let mut rng = Rng::new(0x21);
    for shape in SHAPES {
        for n in [300, 8_000, 60_000] {
            let tensors = table(shape, n, &mut rng);
            let fallback = try_plan_offsets_with(&tensors, &zero_cap(1)).unwrap();
            for cap in caps {
                let name = format!("{shape:?} n {n} cap {cap:?}");
                let budget = SearchBudget::default().with_time_cap(cap);
                let report = try_plan_offsets_with(&tensors, &search(budget, 1)).unwrap();
                assert_sound(&name, &tensors, 1, &report, false);
                assert!(
                    report.plan.arena_size <= fallback.plan.arena_size,
                    "{name}: worse than the fallback plan"
                );
            }
        }
    }
}

#[test]
fn without_a_cap_the_search_starts_from_the_greedy_or_heuristic_plan() {
    let mut rng = Rng::new(7);
    for shape in SHAPES {
        for round in 0..12 {
            let n = 1 + rng.below(400);
            let tensors = table(shape, n, &mut rng);
            for alignment in [1, 16] {
                let name = format!("{shape:?} round {round} alignment {alignment}");
                let rounded = rounded(&tensors, alignment);
                let greedy = try_plan_offsets(&rounded).unwrap();
                let peak = try_peak_live_bytes(&rounded).unwrap();
                let mut heuristic = PlanOptions::default();
                heuristic.strategy = Strategy::Heuristic;
                heuristic.alignment = alignment;
                let heuristic = try_plan_offsets_with(&tensors, &heuristic).unwrap().plan;
                let start = if greedy.arena_size <= peak {
                    greedy
                } else {
                    heuristic
                };
                let report =
                    try_plan_offsets_with(&tensors, &search(SearchBudget::nodes(0), alignment))
                        .unwrap();
                assert_eq!(report.plan, start, "{name}: not the uncapped start");
                assert_eq!(report.stacked_tensors, 0, "{name}");
                assert_sound(&name, &tensors, alignment, &report, true);

                let budget = SearchBudget::nodes(2_000);
                let first = try_plan_offsets_with(&tensors, &search(budget, alignment)).unwrap();
                let again = try_plan_offsets_with(&tensors, &search(budget, alignment)).unwrap();
                assert_eq!(first, again, "{name}: not reproducible");
                assert!(first.plan.arena_size <= start.arena_size, "{name}");
                assert_sound(&name, &tensors, alignment, &first, true);
            }
        }
    }
}
