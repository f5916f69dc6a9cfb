//! Transitive reduction in any numbering, against Warshall's closure and a
//! depth-first cycle check written here.

use aether_planner::{try_transitive_reduction_any_order, PlanError};

struct Rng(u64);

impl Rng {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % bound as u64) as usize
    }
}

/// `r[i][j]` iff a non-empty path leads from i to j.
fn warshall(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<bool>> {
    let mut r = vec![vec![false; n]; n];
    for &(u, v) in edges {
        r[u][v] = true;
    }
    for k in 0..n {
        for i in 0..n {
            if r[i][k] {
                let row_k = r[k].clone();
                for (cell, reach) in r[i].iter_mut().zip(row_k) {
                    *cell |= reach;
                }
            }
        }
    }
    r
}

/// A DAG on up to 20 nodes under a random renaming of its nodes.
fn renamed_dag(rng: &mut Rng) -> (usize, Vec<(usize, usize)>) {
    let n = 1 + rng.below(20);
    let mut name: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        name.swap(i, rng.below(i + 1));
    }
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
        let mut rng = Rng(seed);
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
        let full = warshall(n, &reduced);
        assert_eq!(
            full,
            warshall(n, &edges),
            "seed {seed}: reachability changed"
        );
        for drop in 0..reduced.len() {
            let mut fewer = reduced.clone();
            fewer.remove(drop);
            assert_ne!(
                warshall(n, &fewer),
                full,
                "seed {seed}: edge {drop} redundant"
            );
        }
    }
}

#[test]
fn a_cycle_is_refused_naming_a_node_on_it() {
    for seed in 0..300 {
        let mut rng = Rng(seed + 1000);
        let (n, mut edges) = renamed_dag(&mut rng);
        // Close a cycle: add an edge from a node back to a node that reaches
        // it, or a self-loop.
        let reach = warshall(n, &edges);
        let back = (0..n)
            .flat_map(|u| (0..n).map(move |v| (u, v)))
            .find(|&(u, v)| reach[v][u])
            .unwrap_or((0, 0));
        edges.insert(rng.below(edges.len() + 1), back);
        match try_transitive_reduction_any_order(n, &edges) {
            Err(PlanError::Cycle { node }) => {
                let reach = warshall(n, &edges);
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
