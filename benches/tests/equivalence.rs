//! Every optimised library routine returns exactly what the specification's
//! literal algorithm returns (`aether_bench::literal`, written straight from
//! the specification and sharing no code with the library): offsets and
//! arena bit-identical, reductions and island labels equal, and the same
//! error for the same faulty element. The peers the benchmarks time are
//! checked the same way, so every benchmark compares equal work.
//!
//! Inputs: every MiniMalloc file in `data/minimalloc`, every network table in
//! `data/networks`, and seeded random inputs small enough for the debug
//! profile.

use aether_bench::rng::Rng;
use aether_bench::{literal, peers, workloads};
use aether_planner::{
    islands, plan_offsets, transitive_reduction, try_islands, try_plan_offsets,
    try_transitive_reduction, try_transitive_reduction_with_budget, PlanError, TensorLifetime,
};

// ---------------------------------------------------------------------------
// Offsets
// ---------------------------------------------------------------------------

fn assert_same_plan(name: &str, tensors: &[TensorLifetime]) {
    let expected = literal::plan_offsets(tensors).expect("valid table");
    let actual = plan_offsets(tensors);
    assert_eq!(
        actual, expected,
        "{name}: plan differs from the literal greedy"
    );
}

#[test]
fn offsets_equal_the_literal_greedy_on_every_minimalloc_file() {
    let files = workloads::minimalloc_files();
    assert_eq!(files.len(), 12, "challenging A-K and examples/input.12");
    for (name, tensors) in &files {
        assert_same_plan(name, tensors);
    }
}

#[test]
fn offsets_equal_the_literal_greedy_on_every_network_table() {
    let files = workloads::network_files();
    assert_eq!(files.len(), 4, "MobileNet V1, V2, V3 large, V3 small");
    for (name, tensors) in &files {
        assert_same_plan(name, tensors);
    }
}

/// Tables built to stress ties: few distinct sizes, zero sizes, lifetimes
/// from single nodes to the whole horizon, sparse huge node indices.
fn tie_heavy_tensors(rng: &mut Rng) -> Vec<TensorLifetime> {
    let count = rng.below(120);
    let horizon = 1 + rng.below(60);
    let scale = if rng.chance(1, 4) { 1 << 40 } else { 1 };
    (0..count)
        .map(|_| {
            let a = rng.below(horizon);
            let b = if rng.chance(1, 10) {
                horizon - 1
            } else {
                (a + rng.below(6)).min(horizon - 1)
            };
            let size = match rng.below(6) {
                0 => 0,
                1 => 64,
                2 => 128,
                _ => 1 + rng.below(300),
            };
            TensorLifetime::new(size, a * scale, b * scale)
        })
        .collect()
}

#[test]
fn offsets_equal_the_literal_greedy_on_seeded_random_tables() {
    for seed in 0..400 {
        let mut rng = Rng::new(seed);
        let tensors = tie_heavy_tensors(&mut rng);
        assert_same_plan(&format!("tie-heavy seed {seed}"), &tensors);
    }
    for (count, seed) in [(1, 1), (50, 2), (500, 3), (2_000, 4)] {
        let tensors = workloads::random_tensors(count, seed);
        assert_same_plan(&format!("random_tensors({count}, {seed})"), &tensors);
    }
}

#[test]
fn offset_errors_name_the_same_tensor_as_the_literal_greedy() {
    for seed in 0..200 {
        let mut rng = Rng::new(1_000 + seed);
        let mut tensors = tie_heavy_tensors(&mut rng);
        if tensors.is_empty() {
            continue;
        }
        // Break one or two lifetimes, or make sizes that overflow when stacked.
        for _ in 0..1 + rng.below(2) {
            let i = rng.below(tensors.len());
            if rng.chance(1, 2) {
                tensors[i].first_use = tensors[i].last_use + 1 + rng.below(3);
            } else {
                tensors[i].size = usize::MAX - rng.below(1_000);
            }
        }
        let expected = literal::plan_offsets(&tensors);
        assert_eq!(try_plan_offsets(&tensors), expected, "seed {seed}");
    }
}

// ---------------------------------------------------------------------------
// Transitive reduction
// ---------------------------------------------------------------------------

/// A seeded DAG on up to 300 nodes: density from sparse to nearly complete,
/// duplicate edges, shuffled order, isolated nodes.
fn random_dag(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let node_count = 1 + rng.below(300);
    let per_mille = [2, 10, 50, 200, 800][rng.below(5)];
    let mut edges = Vec::new();
    for u in 0..node_count {
        for v in u + 1..node_count {
            if rng.chance(per_mille, 1000) {
                edges.push((u, v));
                if rng.chance(1, 20) {
                    edges.push((u, v));
                }
            }
        }
    }
    rng.shuffle(&mut edges);
    (node_count, edges)
}

#[test]
fn reductions_equal_the_literal_bit_matrix_on_seeded_random_dags() {
    for seed in 0..300 {
        let mut rng = Rng::new(seed);
        let (node_count, edges) = random_dag(&mut rng);
        let expected = literal::transitive_reduction(node_count, &edges).unwrap();
        assert_eq!(
            transitive_reduction(node_count, &edges),
            expected,
            "seed {seed}: {node_count} nodes, {} edges",
            edges.len()
        );
    }
    for (node_count, degree, seed) in [(1_000, 2, 1), (1_000, 8, 2), (3_000, 4, 3)] {
        let edges = workloads::random_dag(node_count, degree, seed);
        let expected = literal::transitive_reduction(node_count, &edges).unwrap();
        assert_eq!(transitive_reduction(node_count, &edges), expected);
    }
    let edges = workloads::layered_dag(2_000, 4);
    let expected = literal::transitive_reduction(2_000, &edges).unwrap();
    assert_eq!(transitive_reduction(2_000, &edges), expected);
}

#[test]
fn a_bounded_memory_reduction_equals_the_literal_bit_matrix_at_every_budget() {
    for seed in 0..120 {
        let mut rng = Rng::new(5_000 + seed);
        let (node_count, edges) = random_dag(&mut rng);
        let expected = literal::transitive_reduction(node_count, &edges).unwrap();
        // From the smallest workable budget (one 64-column block) upwards.
        for budget in [8 * node_count + 64, 64 * node_count, 1_000, 1 << 20] {
            match try_transitive_reduction_with_budget(node_count, &edges, budget) {
                Ok(reduced) => assert_eq!(reduced, expected, "seed {seed}, budget {budget}"),
                Err(PlanError::OutOfMemory { .. }) => {
                    assert!(
                        budget < 8 * node_count,
                        "seed {seed}: budget {budget} refused"
                    )
                }
                Err(other) => panic!("seed {seed}: unexpected {other:?}"),
            }
        }
    }
    let edges = workloads::random_dag(4_000, 4, 9);
    let expected = literal::transitive_reduction(4_000, &edges).unwrap();
    for budget in [40_000, 100_000, 1 << 20] {
        let reduced = try_transitive_reduction_with_budget(4_000, &edges, budget).unwrap();
        assert_eq!(reduced, expected, "budget {budget}");
    }
}

#[test]
fn reduction_errors_name_the_same_edge_as_the_literal_bit_matrix() {
    for seed in 0..200 {
        let mut rng = Rng::new(9_000 + seed);
        let (node_count, mut edges) = random_dag(&mut rng);
        for _ in 0..1 + rng.below(3) {
            let bad = match rng.below(3) {
                0 => {
                    let v = rng.below(node_count);
                    (v + rng.below(2), v)
                }
                1 => (rng.below(node_count), node_count + rng.below(5)),
                _ => (node_count + 1 + rng.below(3), node_count + rng.below(2)),
            };
            let at = rng.below(edges.len() + 1);
            edges.insert(at, bad);
        }
        let expected = literal::transitive_reduction(node_count, &edges);
        assert!(expected.is_err());
        assert_eq!(
            try_transitive_reduction(node_count, &edges),
            expected,
            "seed {seed}"
        );
        assert_eq!(
            try_transitive_reduction_with_budget(node_count, &edges, usize::MAX),
            expected,
            "seed {seed}, budgeted"
        );
    }
}

#[test]
fn petgraph_computes_the_same_reduction_as_the_literal_bit_matrix() {
    for seed in 0..60 {
        let mut rng = Rng::new(13_000 + seed);
        let (node_count, edges) = random_dag(&mut rng);
        let expected = literal::transitive_reduction(node_count, &edges).unwrap();
        assert_eq!(
            peers::petgraph_reduction(node_count, &edges),
            expected,
            "seed {seed}"
        );
    }
}

// ---------------------------------------------------------------------------
// Islands
// ---------------------------------------------------------------------------

/// Seeded incidences: few to many, self-incidences, repeated and reversed
/// pairs, untouched nodes.
fn random_incidences(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let node_count = 1 + rng.below(400);
    let count = rng.below(2 * node_count);
    let span = 1 + rng.below(node_count);
    let incidences = (0..count)
        .map(|_| {
            let a = rng.below(node_count);
            let b = if rng.chance(1, 10) {
                a
            } else {
                (a + rng.below(span)) % node_count
            };
            if rng.chance(1, 2) {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect();
    (node_count, incidences)
}

#[test]
fn island_labels_equal_the_literal_forest_on_seeded_random_graphs() {
    for seed in 0..500 {
        let mut rng = Rng::new(20_000 + seed);
        let (node_count, incidences) = random_incidences(&mut rng);
        let expected = literal::islands(node_count, &incidences).unwrap();
        assert_eq!(islands(node_count, &incidences), expected, "seed {seed}");
    }
    let chain = workloads::shuffled_chain(50_000, 1);
    assert_eq!(
        islands(50_000, &chain),
        literal::islands(50_000, &chain).unwrap()
    );
    let (node_count, small) = workloads::small_islands(5_000, 2);
    let expected = literal::islands(node_count, &small).unwrap();
    assert_eq!(islands(node_count, &small), expected);
    let many = workloads::random_incidences(50_000, 60_000, 3);
    assert_eq!(
        islands(50_000, &many),
        literal::islands(50_000, &many).unwrap()
    );
}

#[test]
fn island_errors_name_the_same_incidence_as_the_literal_forest() {
    for seed in 0..200 {
        let mut rng = Rng::new(30_000 + seed);
        let (node_count, mut incidences) = random_incidences(&mut rng);
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(incidences.len() + 1);
            let bad = node_count + rng.below(4);
            let good = rng.below(node_count);
            incidences.insert(
                at,
                if rng.chance(1, 2) {
                    (bad, good)
                } else {
                    (good, bad)
                },
            );
        }
        let expected = literal::islands(node_count, &incidences);
        assert!(expected.is_err());
        assert_eq!(
            try_islands(node_count, &incidences),
            expected,
            "seed {seed}"
        );
    }
}

#[test]
fn every_union_find_peer_computes_the_same_islands_as_the_literal_forest() {
    for seed in 0..100 {
        let mut rng = Rng::new(40_000 + seed);
        let (node_count, incidences) = random_incidences(&mut rng);
        let expected = literal::islands(node_count, &incidences).unwrap();
        assert_eq!(peers::petgraph_islands(node_count, &incidences), expected);
        assert_eq!(peers::union_find_islands(node_count, &incidences), expected);
        assert_eq!(
            peers::disjoint_sets_islands(node_count, &incidences),
            expected
        );
    }
}
