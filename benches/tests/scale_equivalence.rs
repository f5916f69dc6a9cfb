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
