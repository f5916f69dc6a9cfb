//! Transitive reduction of a DAG in any numbering, by renumbering it
//! topologically first (Kahn's algorithm).
//!
//! # Problem
//!
//! Graph builders rarely number nodes so that `u < v` for every edge. Given a
//! directed graph on nodes `0..n` in any numbering, either find a topological
//! order (a permutation `π` with `π(u) < π(v)` for every edge) or prove there
//! is none by naming a node on a directed cycle. With an order, the reduction
//! of the renumbered graph, mapped back, is the reduction of the original:
//! reachability does not depend on names.
//!
//! # Algorithm
//!
//! Kahn's algorithm with a min-heap-free FIFO queue: repeatedly remove a node
//! with no remaining predecessors. If nodes remain when the queue empties,
//! every remaining node has a remaining predecessor, so walking predecessors
//! from any of them must revisit a node: that node lies on a cycle.
//!
//! # Complexity
//!
//! `O(n + E)` time and memory for the order, then the cost of
//! [`try_transitive_reduction`] on the
//! renumbered graph and an `O(E log E)` sort of the result. With fewer edges
//! than half the nodes, `n` is first replaced by the number of nodes the
//! edges name, as the strict form does, so nothing of size `O(n)` is built.

use crate::error::PlanError;
use crate::input::check_edges_in_range;
use crate::reduction::{compact, try_transitive_reduction, worth_compacting};
use crate::sys::fallible;

/// A topological order of the graph as `position[node]`, or a node on a cycle.
///
/// Every edge must name nodes below `node_count`; a self-loop is a cycle.
fn topological_positions(
    node_count: usize,
    edges: &[(usize, usize)],
    walk: usize,
) -> Result<Vec<usize>, PlanError> {
    // Successor lists in compressed rows.
    let mut in_degree = fallible::filled(node_count, 0usize)?;
    let mut row_start = fallible::filled(node_count + 1, 0usize)?;
    for &(u, v) in edges {
        row_start[u + 1] += 1;
        in_degree[v] += 1;
    }
    for i in 0..node_count {
        row_start[i + 1] += row_start[i];
    }
    let mut fill = fallible::collect(node_count + 1, row_start.iter().copied())?;
    let mut successors = fallible::filled(edges.len(), 0usize)?;
    for &(u, v) in edges {
        successors[fill[u]] = v;
        fill[u] += 1;
    }

    let mut order: Vec<usize> =
        fallible::collect(node_count, (0..node_count).filter(|&x| in_degree[x] == 0))?;
    let mut next = 0;
    while next < order.len() {
        let u = order[next];
        next += 1;
        for &v in &successors[row_start[u]..row_start[u + 1]] {
            in_degree[v] -= 1;
            if in_degree[v] == 0 {
                order.push(v);
            }
        }
    }
    if order.len() < node_count {
        return Err(PlanError::Cycle {
            node: node_on_cycle(node_count, edges, &in_degree, walk)?,
        });
    }
    let mut position = fallible::filled(node_count, 0usize)?;
    for (rank, &node) in order.iter().enumerate() {
        position[node] = rank;
    }
    Ok(position)
}

/// A node on a cycle among the nodes Kahn's algorithm could not remove (those
/// with `remaining_in_degree > 0`): each has a remaining predecessor, so
/// walking predecessors from the first of them for `walk >= node_count`
/// steps ends inside a cycle. The node is where those `walk` steps end, so a
/// graph renumbered onto fewer nodes, walked as far as the original, names
/// the same node.
fn node_on_cycle(
    node_count: usize,
    edges: &[(usize, usize)],
    remaining_in_degree: &[usize],
    walk: usize,
) -> Result<usize, PlanError> {
    let mut predecessor = fallible::filled(node_count, usize::MAX)?;
    for &(u, v) in edges {
        if remaining_in_degree[u] > 0 && remaining_in_degree[v] > 0 {
            predecessor[v] = u;
        }
    }
    let mut node = (0..node_count)
        .find(|&x| remaining_in_degree[x] > 0)
        .expect("Kahn's algorithm stopped early, so a node remains");
    // After node_count steps the walk is inside the cycle it ends in; the
    // remaining steps go round it.
    for _ in 0..node_count {
        node = predecessor[node];
    }
    let mut cycle_length = 1;
    let mut around = predecessor[node];
    while around != node {
        around = predecessor[around];
        cycle_length += 1;
    }
    for _ in 0..(walk - node_count) % cycle_length {
        node = predecessor[node];
    }
    Ok(node)
}

/// The reduction in the caller's numbering of `edges` on `node_count` nodes,
/// naming a cycle's node as a walk of `walk` steps does.
fn reduce_any_order(
    node_count: usize,
    edges: &[(usize, usize)],
    walk: usize,
) -> Result<Vec<(usize, usize)>, PlanError> {
    let position = topological_positions(node_count, edges, walk)?;
    let mut node_at = fallible::filled(node_count, 0usize)?;
    for (node, &rank) in position.iter().enumerate() {
        node_at[rank] = node;
    }
    let renumbered: Vec<(usize, usize)> = fallible::collect(
        edges.len(),
        edges.iter().map(|&(u, v)| (position[u], position[v])),
    )?;
    let mut reduced: Vec<(usize, usize)> = try_transitive_reduction(node_count, &renumbered)?
        .into_iter()
        .map(|(u, v)| (node_at[u], node_at[v]))
        .collect();
    reduced.sort_unstable();
    Ok(reduced)
}

/// The transitive reduction of a DAG numbered in any order, or why it cannot
/// be computed.
///
/// Errors: [`PlanError::EdgeOutOfRange`] for the first edge naming a node at
/// or beyond `node_count`; [`PlanError::Cycle`] naming a node on a directed
/// cycle (a self-loop `(v, v)` is one); and the errors of
/// [`try_transitive_reduction`].
///
/// Exact: the unique minimal edge set with the same reachability, in the
/// caller's numbering, sorted by `(source, target)`, each edge once.
pub fn try_transitive_reduction_any_order(
    node_count: usize,
    edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, PlanError> {
    check_edges_in_range(node_count, edges)?;
    if !worth_compacting(node_count, edges.len()) {
        return reduce_any_order(node_count, edges, node_count);
    }
    // As the strict form does: nodes on no edge are left out before anything
    // of size O(node_count) exists.
    let (named, renumbered) = compact(edges)?;
    match reduce_any_order(named.len(), &renumbered, node_count) {
        Ok(mut reduced) => {
            for edge in &mut reduced {
                *edge = (named[edge.0], named[edge.1]);
            }
            Ok(reduced)
        }
        Err(PlanError::Cycle { node }) => Err(PlanError::Cycle { node: named[node] }),
        Err(error) => Err(error),
    }
}
