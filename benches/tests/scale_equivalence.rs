//! The greedy planner at compiler scale is bit-identical to the literal
//! algorithm of the specification (`aether_bench::literal`): on seeded
//! heavy-tailed tables with few distinct sizes (ties everywhere), and on the
//! large real problems of `data/large`. The large cases are `#[ignore]`d so
//! that a debug `cargo test` stays quick; CI runs them once in release:
//! `cargo test --release -p aether-bench --test scale_equivalence -- --ignored`.

use aether_bench::{literal, workloads};
use aether_planner::{try_plan_offsets, TensorLifetime};

fn assert_same_plan(name: &str, tensors: &[TensorLifetime]) {
    let expected = literal::plan_offsets(tensors).expect("valid table");
    let actual = try_plan_offsets(tensors).expect("valid table");
    assert!(
        actual == expected,
        "{name}: plan differs from the literal greedy"
    );
}

#[test]
fn heavy_tailed_tables_equal_the_literal_greedy() {
    for seed in 0..40 {
        let count = 50 + 37 * seed as usize;
        let tensors = workloads::heavy_tailed_tensors(count, seed);
        assert_same_plan(&format!("heavy_tailed({count}, {seed})"), &tensors);
    }
}

#[test]
#[ignore = "large: run in release (see the module documentation)"]
fn large_heavy_tailed_tables_equal_the_literal_greedy() {
    for (count, seed) in [(5_000, 11), (20_000, 12)] {
        let tensors = workloads::heavy_tailed_tensors(count, seed);
        assert_same_plan(&format!("heavy_tailed({count}, {seed})"), &tensors);
    }
}

#[test]
#[ignore = "large: run in release (see the module documentation)"]
fn large_real_problems_equal_the_literal_greedy() {
    let files = workloads::large_files();
    assert_eq!(files.len(), 4);
    for (name, tensors) in &files {
        assert_same_plan(name, tensors);
    }
}

/// The six shape families of issue 21 (chain, window, random short,
/// nested, heavy-tailed, training step), `count` tensors from `seed`.
fn family(name: &str, count: usize, seed: u64) -> Vec<TensorLifetime> {
    let mut rng = aether_bench::rng::Rng::new(seed);
    let mut sized = |unit: usize, most: usize| unit * (1 + rng.below(most));
    let t = TensorLifetime::new;
    match name {
        "chain" => (0..count).map(|i| t(sized(64, 64), i, i + 1)).collect(),
        "window" => (0..count).map(|i| t(sized(64, 1024), i, i + 10)).collect(),
        "random_short" => (0..count)
            .map(|_| {
                let (start, length) = (sized(1, count) - 1, sized(1, 100));
                t(sized(16, 4096), start, start + length - 1)
            })
            .collect(),
        "nested" => {
            // A binary subdivision of the timeline, breadth first.
            let mut scopes = std::collections::VecDeque::from([(0, 2 * count - 1)]);
            let mut out = Vec::new();
            while let Some((low, high)) = scopes.pop_front() {
                if out.len() == count {
                    break;
                }
                out.push(t(sized(64, 256), low, high));
                if high - low >= 2 {
                    let mid = low + sized(1, high - low - 1);
                    scopes.push_back((low, mid));
                    scopes.push_back((mid + 1, high));
                } else {
                    scopes.push_back((low, high));
                }
            }
            out
        }
        "heavy_tailed" => workloads::heavy_tailed_tensors(count, seed),
        "training_step" => {
            let layers = (count / 3).max(1);
            let mut out = Vec::new();
            for i in 0..layers {
                out.push(t(sized(64, 512), i, 2 * layers - 1 - i));
                out.push(t(sized(64, 64), i, i));
                out.push(t(sized(64, 512), 2 * layers - 1 - i, 2 * layers - i));
            }
            out.truncate(count);
            out
        }
        _ => panic!("unknown family {name}"),
    }
}

const FAMILIES: [&str; 6] = [
    "chain",
    "window",
    "random_short",
    "nested",
    "heavy_tailed",
    "training_step",
];

#[test]
fn every_family_equals_the_literal_greedy_on_both_sides_of_the_crossovers() {
    // The planner scans in placement order up to 128 tensors, directly up
    // to 256, and dense tables (one pair in 32 conflicting, one in 16 above
    // 1024 tensors) up to 8192; these sizes fall on both sides of the first
    // three.
    for name in FAMILIES {
        for (count, seed) in [
            (1, 1),
            (7, 2),
            (128, 11),
            (129, 12),
            (200, 3),
            (256, 13),
            (257, 14),
            (512, 4),
            (513, 5),
            (900, 6),
            (1024, 15),
            (1025, 16),
        ] {
            assert_same_plan(
                &format!("{name}({count}, {seed})"),
                &family(name, count, seed),
            );
        }
    }
}

#[test]
#[ignore = "large: run in release (see the module documentation)"]
fn large_families_equal_the_literal_greedy() {
    for name in FAMILIES {
        for (count, seed) in [(3_000, 7), (8_192, 8), (8_193, 9), (20_000, 10)] {
            assert_same_plan(
                &format!("{name}({count}, {seed})"),
                &family(name, count, seed),
            );
        }
    }
}
