//! The heuristic on the six shape families of issue 21 (chain, sliding
//! window, random short lifetimes, nested scopes, heavy-tailed lifetimes, a
//! training step), at sizes that reach both of its paths: with conflict
//! lists, and without them past the lists' entry limit.
//!
//! Each plan is checked by a sweep over lifetime endpoints (no two tensors
//! whose lifetimes meet share a byte, the arena is the top of the extents),
//! against the peak of live bytes by brute force (no arena below it) and
//! against the greedy's plan (the heuristic's is never larger). No timing:
//! the speed figures come from `bench-scale`.

use aether_planner::{
    try_plan_offsets, try_plan_offsets_with, PlanOptions, Strategy, TensorLifetime,
};

mod common;
use common::large::first_overlap;
use common::oracles::{brute_peak, Rng};

/// Buffer `i` lives `[i, i + 1]`; sizes `64 · U{1..64}`.
fn chain(n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    (0..n)
        .map(|i| TensorLifetime::new(64 * (1 + rng.below(64)), i, i + 1))
        .collect()
}

/// Buffer `i` lives 11 nodes `[i, i + 10]`; sizes `64 · U{1..1024}`.
fn window(n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    (0..n)
        .map(|i| TensorLifetime::new(64 * (1 + rng.below(1024)), i, i + 10))
        .collect()
}

/// Starts uniform in `[0, n)`, lengths `U{1..100}`; sizes `16 · U{1..4096}`.
fn random_short(n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    (0..n)
        .map(|_| {
            let first = rng.below(n);
            TensorLifetime::new(16 * (1 + rng.below(4096)), first, first + rng.below(100))
        })
        .collect()
}

/// Laminar scopes: a breadth-first binary subdivision of `[0, 2n)`, each
/// scope's buffer spanning it; a leaf scope keeps reusing its nodes.
fn nested(n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    let mut out = Vec::with_capacity(n);
    let mut queue = std::collections::VecDeque::from([(0, 2 * n - 1)]);
    while let Some((lo, hi)) = queue.pop_front() {
        if out.len() == n {
            break;
        }
        out.push(TensorLifetime::new(64 * (1 + rng.below(256)), lo, hi));
        if hi - lo >= 2 {
            let mid = lo + 1 + rng.below(hi - lo - 1);
            queue.push_back((lo, mid));
            queue.push_back((mid + 1, hi));
        } else {
            queue.push_back((lo, hi));
        }
    }
    out
}

/// Starts uniform in `[0, n)`, lengths from a heavy tail (`⌊1 / u^(2/3)⌋`,
/// capped at `n`); sizes log-uniform-ish `16 · 2^U{0..16}`.
fn heavy_tailed(n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    (0..n)
        .map(|_| {
            let first = rng.below(n);
            let u = (1 + rng.below(1 << 20)) as f64 / (1 << 20) as f64;
            let length = (u.powf(-2.0 / 3.0) as usize).clamp(1, n);
            TensorLifetime::new(16 << rng.below(17), first, first + length - 1)
        })
        .collect()
}

/// `L = n / 3` layers: activation `i` lives `[i, 2L - 1 - i]`, a temporary
/// `[i, i]`, gradient `[2L - 1 - i, 2L - i]`. Dense: the activations all
/// meet at the middle.
fn training_step(n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    let layers = (n / 3).max(1);
    let mut out = Vec::with_capacity(3 * layers);
    for i in 0..layers {
        let back = 2 * layers - 1 - i;
        out.push(TensorLifetime::new(64 * (1 + rng.below(512)), i, back));
        out.push(TensorLifetime::new(64 * (1 + rng.below(64)), i, i));
        out.push(TensorLifetime::new(
            64 * (1 + rng.below(512)),
            back,
            back + 1,
        ));
    }
    out
}

/// Plans `tensors` with the heuristic and checks the plan by the sweep, the
/// brute-force peak and the greedy's arena.
// Fields set one by one, so that `PlanOptions` may become non-exhaustive.
#[allow(clippy::field_reassign_with_default)]
fn assert_heuristic_plan(name: &str, tensors: &[TensorLifetime]) {
    let mut options = PlanOptions::default();
    options.strategy = Strategy::Heuristic;
    let report = try_plan_offsets_with(tensors, &options).unwrap();
    let plan = &report.plan;
    let (overlap, highest) = first_overlap(tensors, &plan.offsets, 1);
    assert_eq!(overlap, None, "{name}: these tensors share bytes");
    assert_eq!(plan.arena_size, highest, "{name}: arena is not the top");
    for (t, &offset) in tensors.iter().zip(&plan.offsets) {
        if t.size == 0 {
            assert_eq!(offset, 0, "{name}: a zero-size tensor is planned");
        }
    }
    let peak = brute_peak(tensors);
    assert!(plan.arena_size >= peak, "{name}: arena below the peak");
    assert_eq!(report.proven_optimal, plan.arena_size == peak, "{name}");
    let greedy = try_plan_offsets(tensors).unwrap();
    assert!(
        plan.arena_size <= greedy.arena_size,
        "{name}: heuristic {} above greedy {}",
        plan.arena_size,
        greedy.arena_size
    );
}

type Family = fn(usize, &mut Rng) -> Vec<TensorLifetime>;

const FAMILIES: [(&str, Family); 6] = [
    ("chain", chain),
    ("window", window),
    ("random_short", random_short),
    ("nested", nested),
    ("heavy_tailed", heavy_tailed),
    ("training_step", training_step),
];

/// Every family at a few thousand buffers, several seeds: sound, at or
/// above the peak, never above the greedy.
#[test]
fn heuristic_plans_of_every_family_are_sound_and_no_worse_than_greedy() {
    for (name, family) in FAMILIES {
        for seed in 0..2 {
            for n in [300, 2000] {
                let tensors = family(n, &mut Rng::new(seed));
                assert_heuristic_plan(&format!("{name} n={n} seed={seed}"), &tensors);
            }
        }
    }
}

/// Tables whose conflict lists would pass the heuristic's entry limit
/// (8 M entries): the training step's dense middle, and random lifetimes
/// all within a short horizon. They go through the path without lists.
#[test]
fn heuristic_plans_past_the_list_limit_are_sound_and_no_worse_than_greedy() {
    let dense = |n: usize, rng: &mut Rng| -> Vec<TensorLifetime> {
        (0..n)
            .map(|_| {
                let first = rng.below(300);
                TensorLifetime::new(8 * (1 + rng.below(100)), first, first + rng.below(300))
            })
            .collect()
    };
    for (name, tensors) in [
        ("training_step", training_step(10_000, &mut Rng::new(7))),
        ("dense random", dense(5000, &mut Rng::new(8))),
    ] {
        let pairs = tensors
            .iter()
            .enumerate()
            .map(|(i, a)| {
                tensors[i + 1..]
                    .iter()
                    .filter(|b| a.first_use <= b.last_use && b.first_use <= a.last_use)
                    .count()
            })
            .sum::<usize>();
        assert!(2 * pairs > 8 << 20, "{name}: only {pairs} pairs");
        assert_heuristic_plan(name, &tensors);
    }
}
