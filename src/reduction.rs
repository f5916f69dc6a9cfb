//! Transitive reduction of a topologically numbered DAG (after
//! tensorflow/tensorflow#124410).
//!
//! # Problem
//!
//! Given a DAG on nodes `0..n`, find the fewest edges with the same
//! reachability. For a finite DAG this transitive reduction is unique: it is
//! exactly the set of edges `u → v` for which no other path leads from `u` to
//! `v`,
//!
//! ```text
//! (u → v) ∈ TR(G)  ⟺  v ∉ ⋃_{w ∈ N⁺(u), w ≠ v} reach(w)
//! ```
//!
//! where `reach(w)` contains `w` itself.
//!
//! # Preconditions
//!
//! Nodes are numbered topologically: `u < v` for every edge `u → v`, and
//! `v < n`. Descending index is then a reverse topological order, which the
//! single closure pass relies on; a back edge would make it silently wrong, so
//! it is refused.
//!
//! # Algorithm
//!
//! Strict reachability (`reach(u) \ {u}`) is closed as a dense bit matrix in
//! one pass over the nodes in descending order, so a successor's row is final
//! before it is folded into its predecessor's. Edge `u → v` survives iff `v` is
//! in no successor's strict row. Every edge is decided against the complete
//! closure, so the result depends on the edge *set* only, never on edge order.
//! The output is sorted ascending by `(source, target)` with each edge once.
//!
//! # Complexity
//!
//! `O(E log E + (n + E)⌈n/64⌉)` time; `n²/8` bytes for the matrix (allocated
//! fallibly) plus `O(n + E)` for adjacency.

use crate::error::PlanError;

/// Checks every edge: `source < target < node_count`. Reports the first bad
/// edge; an edge that is both backwards and out of range is reported as
/// [`PlanError::NotTopological`].
pub(crate) fn validate(node_count: usize, edges: &[(usize, usize)]) -> Result<(), PlanError> {
    for (i, &(source, target)) in edges.iter().enumerate() {
        if source >= target {
            return Err(PlanError::NotTopological {
                edge: i,
                source,
                target,
            });
        }
        if target >= node_count {
            return Err(PlanError::EdgeOutOfRange {
                edge: i,
                node: target,
                node_count,
            });
        }
    }
    Ok(())
}

/// Words of 64 bits needed for one matrix row of `node_count` bits.
pub(crate) fn row_words(node_count: usize) -> usize {
    node_count.div_ceil(64)
}

/// Allocates a zeroed `words`-long vector, or reports how many bytes failed.
pub(crate) fn try_zeroed_words(words: Option<usize>) -> Result<Vec<u64>, PlanError> {
    let words = words.ok_or(PlanError::OutOfMemory { bytes: usize::MAX })?;
    let bytes = words.saturating_mul(8);
    let mut matrix = Vec::new();
    matrix
        .try_reserve_exact(words)
        .map_err(|_| PlanError::OutOfMemory { bytes })?;
    matrix.resize(words, 0);
    Ok(matrix)
}

/// The transitive reduction, or why it cannot be computed.
///
/// Errors: [`PlanError::NotTopological`] for an edge with `source >= target`;
/// [`PlanError::EdgeOutOfRange`] for a target at or beyond `node_count`;
/// [`PlanError::OutOfMemory`] if the `n²/8`-byte matrix cannot be allocated.
///
/// Exact: the unique minimal edge set with the same reachability, sorted by
/// `(source, target)`, independent of edge order; duplicate edges collapse.
pub fn try_transitive_reduction(
    node_count: usize,
    edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, PlanError> {
    validate(node_count, edges)?;
    if edges.is_empty() {
        return Ok(Vec::new());
    }
    let words = row_words(node_count);
    let mut strict = try_zeroed_words(node_count.checked_mul(words))?;

    let mut sorted = edges.to_vec();
    sorted.sort_unstable();
    sorted.dedup();

    let mut kept = Vec::new();
    // Edges grouped by source; sources visited in descending order.
    for group in sorted.chunk_by(|a, b| a.0 == b.0).rev() {
        let u = group[0].0;
        let (row_u, after) = strict[u * words..].split_at_mut(words);
        // Successors are all above u, so their rows live in `after`.
        for &(_, w) in group {
            let row_w = &after[(w - u - 1) * words..(w - u) * words];
            for (mine, theirs) in row_u.iter_mut().zip(row_w) {
                *mine |= theirs;
            }
        }
        for &(_, v) in group {
            if row_u[v / 64] & (1 << (v % 64)) == 0 {
                kept.push((u, v));
            }
        }
        for &(_, v) in group {
            row_u[v / 64] |= 1 << (v % 64);
        }
    }
    kept.sort_unstable();
    Ok(kept)
}

/// The transitive reduction of a topologically numbered DAG; panics on a
/// precondition violation.
///
/// # Panics
///
/// With a message containing "topological" for an edge with
/// `source >= target`; also for a node at or beyond `node_count`, or if the
/// bit matrix cannot be allocated.
///
/// # Example
///
/// ```
/// use aether_planner::transitive_reduction;
/// // 0 -> 3 is implied by the path 0 -> 1 -> 2 -> 3.
/// let reduced = transitive_reduction(4, &[(0, 3), (2, 3), (0, 1), (1, 2)]);
/// assert_eq!(reduced, vec![(0, 1), (1, 2), (2, 3)]);
/// ```
pub fn transitive_reduction(node_count: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    try_transitive_reduction(node_count, edges)
        .unwrap_or_else(|error| panic!("transitive_reduction: {error}"))
}
