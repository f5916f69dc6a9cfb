//! The library's jobs done with the crates a user would otherwise pick,
//! producing exactly the library's output (sorted reduction; canonical island
//! labels), so that every timing compares equal work.

use petgraph::adj::{List, UnweightedList};
use petgraph::algo::tred::dag_transitive_reduction_closure;
use petgraph::visit::IntoNeighbors;

/// petgraph's input format for `dag_transitive_reduction_closure`: an
/// adjacency list whose node indices are a topological order and whose
/// neighbour lists are in topological (here: ascending) order.
pub fn petgraph_adjacency(node_count: usize, edges: &[(usize, usize)]) -> UnweightedList<u32> {
    let mut sorted = edges.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut graph = List::with_capacity(node_count);
    for _ in 0..node_count {
        graph.add_node();
    }
    for (u, v) in sorted {
        graph.add_edge(u as u32, v as u32, ());
    }
    graph
}

/// petgraph's core call alone: reduction and closure of a prepared list.
/// The closure is dropped by the caller, outside any timing.
pub fn petgraph_core(graph: &UnweightedList<u32>) -> (UnweightedList<u32>, UnweightedList<u32>) {
    dag_transitive_reduction_closure(graph)
}

/// The reduction's edges, sorted, from petgraph's reduction list.
pub fn petgraph_edges(reduction: &UnweightedList<u32>) -> Vec<(usize, usize)> {
    let mut edges: Vec<(usize, usize)> = reduction
        .node_indices()
        .flat_map(|u| {
            reduction
                .neighbors(u)
                .map(move |v| (u as usize, v as usize))
        })
        .collect();
    edges.sort_unstable();
    edges
}

/// The whole job with petgraph: build its list, reduce, read the edges back.
pub fn petgraph_reduction(node_count: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let graph = petgraph_adjacency(node_count, edges);
    let (reduction, _closure) = petgraph_core(&graph);
    petgraph_edges(&reduction)
}

/// The part of the islands job every union-find shares: which nodes are
/// active, and canonical labels (numbered by smallest member) from any
/// representative function.
fn canonical_labels(
    node_count: usize,
    active: &[bool],
    mut representative: impl FnMut(usize) -> usize,
) -> (Vec<Option<usize>>, usize) {
    const UNNUMBERED: u32 = u32::MAX;
    let mut root_label = vec![UNNUMBERED; node_count];
    let mut labels = vec![None; node_count];
    let mut count = 0u32;
    for x in 0..node_count {
        if !active[x] {
            continue;
        }
        let root = representative(x);
        if root_label[root] == UNNUMBERED {
            root_label[root] = count;
            count += 1;
        }
        labels[x] = Some(root_label[root] as usize);
    }
    (labels, count as usize)
}

fn activity(node_count: usize, incidences: &[(usize, usize)]) -> Vec<bool> {
    let mut active = vec![false; node_count];
    for &(a, b) in incidences {
        active[a] = true;
        active[b] = true;
    }
    active
}

/// Islands with petgraph's `UnionFind<u32>` (union by rank, path halving).
pub fn petgraph_islands(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> (Vec<Option<usize>>, usize) {
    let mut forest = petgraph::unionfind::UnionFind::<u32>::new(node_count);
    for &(a, b) in incidences {
        forest.union(a as u32, b as u32);
    }
    let active = activity(node_count, incidences);
    canonical_labels(node_count, &active, |x| forest.find_mut(x as u32) as usize)
}

/// Islands with the `union-find` crate's `QuickUnionUf<UnionBySize>`.
pub fn union_find_islands(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> (Vec<Option<usize>>, usize) {
    use union_find::{QuickUnionUf, UnionBySize, UnionFind};
    let mut forest = QuickUnionUf::<UnionBySize>::new(node_count);
    for &(a, b) in incidences {
        forest.union(a, b);
    }
    let active = activity(node_count, incidences);
    canonical_labels(node_count, &active, |x| forest.find(x))
}

/// Islands with the `disjoint-sets` crate's `UnionFind<u32>` (union by rank,
/// path halving).
pub fn disjoint_sets_islands(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> (Vec<Option<usize>>, usize) {
    let mut forest = disjoint_sets::UnionFind::<u32>::new(node_count);
    for &(a, b) in incidences {
        forest.union(a as u32, b as u32);
    }
    let active = activity(node_count, incidences);
    canonical_labels(node_count, &active, |x| forest.find(x as u32) as usize)
}
