//! Transitive reduction in any numbering, against a depth-first reachability
//! oracle (tests/common).

use aether_planner::{try_transitive_reduction_any_order, PlanError};

mod common;
use common::oracles::{reachability, Rng};

/// A DAG on up to 20 nodes under a random renaming of its nodes.
fn renamed_dag(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let n = 1 + rng.below(20);
    let mut name: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut name);
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.below(100) < 25 {
                edges.push((name[u], name[v]));
            }
        }
    }
    (n, edges)
}

#[test]
fn any_numbering_keeps_reachability_and_drops_every_redundant_edge() {
    for seed in 0..300 {
        let mut rng = Rng::new(seed);
        let (n, edges) = renamed_dag(&mut rng);
        let reduced = try_transitive_reduction_any_order(n, &edges).unwrap();
        assert!(
            reduced.windows(2).all(|w| w[0] < w[1]),
            "seed {seed}: sorted, unique"
        );
        assert!(
            reduced.iter().all(|e| edges.contains(e)),
            "seed {seed}: invented edge"
        );
        let full = reachability(n, &reduced);
        assert_eq!(
            full,
            reachability(n, &edges),
            "seed {seed}: reachability changed"
        );
        for drop in 0..reduced.len() {
            let mut fewer = reduced.clone();
            fewer.remove(drop);
            assert_ne!(
                reachability(n, &fewer),
                full,
                "seed {seed}: edge {drop} redundant"
            );
        }
    }
}

#[test]
fn a_cycle_is_refused_naming_a_node_on_it() {
    for seed in 0..300 {
        let mut rng = Rng::new(seed + 1000);
        let (n, mut edges) = renamed_dag(&mut rng);
        // Close a cycle: add an edge from a node back to a node that reaches
        // it, or a self-loop.
        let reach = reachability(n, &edges);
        let back = (0..n)
            .flat_map(|u| (0..n).map(move |v| (u, v)))
            .find(|&(u, v)| reach[v][u])
            .unwrap_or((0, 0));
        edges.insert(rng.below(edges.len() + 1), back);
        match try_transitive_reduction_any_order(n, &edges) {
            Err(PlanError::Cycle { node }) => {
                let reach = reachability(n, &edges);
                assert!(reach[node][node], "seed {seed}: node {node} is on no cycle");
            }
            other => panic!("seed {seed}: expected a cycle, got {other:?}"),
        }
    }
}

#[test]
fn nodes_out_of_range_are_named() {
    assert_eq!(
        try_transitive_reduction_any_order(3, &[(2, 0), (1, 5)]),
        Err(PlanError::EdgeOutOfRange {
            edge: 1,
            node: 5,
            node_count: 3
        })
    );
    assert_eq!(try_transitive_reduction_any_order(0, &[]), Ok(vec![]));
    // Against the numbering is fine here.
    assert_eq!(
        try_transitive_reduction_any_order(3, &[(2, 0), (2, 1), (1, 0)]),
        Ok(vec![(1, 0), (2, 1)])
    );
}
