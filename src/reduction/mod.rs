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
//! Strict reachability (`reach(u) \ {u}`) is closed as a bit matrix in one
//! pass over the nodes in descending order, so a successor's row is final
//! before it is folded into its predecessor's. Edge `u → v` survives iff `v`
//! is in no other successor's row. Every edge is decided against the complete
//! closure, so the result depends on the edge *set* only, never on edge order.
//! The output is sorted ascending by `(source, target)` with each edge once.
//!
//! Three observations make the pass cheaper than the literal one, without
//! changing a single decision:
//!
//! - *Only surviving successors are folded.* Successors are visited in
//!   ascending order. A successor `w` can only be reached through a smaller
//!   successor (edges go upwards), so when `w` is visited every path that
//!   could make `u → w` redundant has already been folded in: the edge
//!   survives iff bit `w` is still clear. If it is set, `reach(w)` is already
//!   inside the row and folding it would change nothing. So only the rows of
//!   surviving edges are read, `|TR|` rows instead of `E`.
//! - *Upper triangle.* Row `u` holds bits above `u` only, so it is stored
//!   from word `(u + 1) / 64` on, and folding row `w` touches only the words
//!   row `w` stores: half the memory and far fewer words per fold.
//! - *Column blocks.* The bits of one range of columns depend only on the
//!   same columns of other rows, so the matrix can be built one block of
//!   columns at a time, in ascending order (a survival decision made in an
//!   earlier block is reused by later ones). With a memory budget
//!   ([`try_transitive_reduction_with_budget`]) each block is sized to fit
//!   it; without one, a single block holds the whole triangle.
//!
//! A large matrix is advised to Linux as transparent-huge-page memory:
//! faulting in a fresh matrix 4 KiB at a time otherwise dominates the time on
//! large sparse graphs.
//!
//! Edges are grouped by source by a counting sort, targets ascending within
//! each group (`O(n + E)`; tiny groups are sorted in place instead). A dense graph (`n² <= 128 E`) reduced in
//! one block instead keeps its edges as a second bit triangle, which is no
//! larger than the grouped lists and needs no sort at all.
//!
//! # Complexity
//!
//! `O(B·(n + E) + n²/128 + Σ_{(u→w) ∈ TR} ⌈(n − w)/64⌉)` time for `B`
//! column blocks (one without a budget): grouping, the triangle's zeroed
//! words, and one fold per surviving edge over the words its target's row
//! stores. That is at most the literal `O(E log E + (n + E)⌈n/64⌉)`. Memory:
//! the triangle, `≈ n²/16` bytes (at most `budget_bytes` per block with a
//! budget), allocated fallibly, plus `O(n + E)` for the grouped edges (or
//! the dense form's second triangle, at most `8E` bytes).

mod any_order;
mod closure;
mod no_heap;

pub use any_order::try_transitive_reduction_any_order;
pub(crate) use no_heap::{transitive_reduction_scratch_bytes, try_transitive_reduction_in};

use crate::error::PlanError;
use crate::input::check_topological_edges;
use crate::sys::fallible;
use closure::{reduce_block, reduce_dense, try_matrix, ColumnBlock, GroupedEdges};

/// The reduction, with every column block within `budget_bytes` if a budget
/// is given. Validation comes first, so its errors take precedence.
fn reduce(
    node_count: usize,
    edges: &[(usize, usize)],
    budget_bytes: Option<usize>,
) -> Result<Vec<(usize, usize)>, PlanError> {
    check_topological_edges(node_count, edges)?;
    if edges.is_empty() {
        return Ok(Vec::new());
    }
    let words = node_count.div_ceil(64);
    if node_count >= u32::MAX as usize {
        // Far beyond any matrix that fits in memory (grouped edges are u32);
        // refused before any block is sized, since sizing could overflow.
        return Err(PlanError::OutOfMemory {
            bytes: (node_count / 2).saturating_mul(words).saturating_mul(8),
        });
    }
    let whole = ColumnBlock::new(node_count, 0, words);
    // Without a budget, a matrix larger than half the memory the machine can
    // back is refused at once rather than granted by the kernel and touched
    // into the out-of-memory killer (rows are zeroed as they are built, so a
    // sparse graph touches its whole triangle too). The other half is left
    // to the caller's process and the rest of the machine. Only large
    // matrices pay for the look-up.
    if budget_bytes.is_none() {
        fallible::refuse_above_half_available(whole.bytes())?;
    }
    let mut blocks = Vec::new();
    match budget_bytes {
        Some(budget) if whole.bytes() > budget => {
            let mut first_word = 0;
            while first_word < words {
                // The widest block from `first_word` that fits (bytes grow
                // with the width, so a binary search finds it).
                let fits =
                    |end: usize| ColumnBlock::new(node_count, first_word, end).bytes() <= budget;
                let (mut low, mut high) = (first_word, words);
                while low < high {
                    let middle = (low + high).div_ceil(2);
                    if fits(middle) {
                        low = middle;
                    } else {
                        high = middle - 1;
                    }
                }
                if low == first_word {
                    let narrowest = ColumnBlock::new(node_count, first_word, first_word + 1);
                    return Err(PlanError::OutOfMemory {
                        bytes: narrowest.bytes(),
                    });
                }
                blocks.push(ColumnBlock::new(node_count, first_word, low));
                first_word = low;
            }
        }
        _ => blocks.push(whole),
    }

    // The first block is allocated before anything of size O(n), so a
    // matrix that cannot exist is refused before any other work.
    let mut first_matrix = Some(try_matrix(blocks[0].words())?);
    let dense = (node_count as u128).pow(2) <= 128 * edges.len() as u128;
    if blocks.len() == 1 && dense {
        let matrix = first_matrix.take().expect("allocated above");
        return reduce_dense(&blocks[0], matrix, edges);
    }
    let graph = GroupedEdges::new(node_count, edges)?;
    let mut kept = fallible::filled(edges.len(), false)?;
    for block in &blocks {
        let matrix = match first_matrix.take() {
            Some(matrix) => matrix,
            None => try_matrix(block.words())?,
        };
        reduce_block(&graph, block, matrix, &mut kept)?;
    }
    let mut reduced = fallible::with_capacity(kept.iter().filter(|&&k| k).count())?;
    for u in 0..node_count {
        let group = graph.starts[u]..graph.starts[u + 1];
        for (&target, &kept) in graph.targets[group.clone()].iter().zip(&kept[group]) {
            if kept {
                reduced.push((u, target as usize));
            }
        }
    }
    Ok(reduced)
}

/// The transitive reduction, or why it cannot be computed.
///
/// Errors: [`PlanError::NotTopological`] for an edge with `source >= target`;
/// [`PlanError::EdgeOutOfRange`] for a target at or beyond `node_count`;
/// [`PlanError::OutOfMemory`] if the `≈ n²/16`-byte triangle cannot be
/// allocated, or, on Linux, is larger than half the memory the machine can
/// back (`MemAvailable`, within the cgroup's limit): such a matrix is refused
/// before it is allocated. [`try_transitive_reduction_with_budget`] reduces
/// graphs of any size within a memory budget.
///
/// Exact: the unique minimal edge set with the same reachability, sorted by
/// `(source, target)`, independent of edge order; duplicate edges collapse.
pub fn try_transitive_reduction(
    node_count: usize,
    edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, PlanError> {
    reduce(node_count, edges, None)
}

/// The transitive reduction computed within a memory budget for the bit
/// matrix, or why it cannot be computed.
///
/// The matrix is built one block of columns at a time, each block at most
/// `budget_bytes`; beyond that, `O(n + E)` bytes hold the grouped edges. The
/// narrowest block (64 columns) needs at most `8 · node_count` bytes, so any
/// budget of at least that succeeds. A budget that holds the whole triangle
/// (`≈ n²/16` bytes) gives exactly [`try_transitive_reduction`]'s single pass.
///
/// Errors: as [`try_transitive_reduction`], in the same order; also
/// [`PlanError::OutOfMemory`] (with the narrowest block's size) when
/// `budget_bytes` cannot hold even 64 columns.
///
/// Exact: the same edges as [`try_transitive_reduction`], whatever the budget.
pub fn try_transitive_reduction_with_budget(
    node_count: usize,
    edges: &[(usize, usize)],
    budget_bytes: usize,
) -> Result<Vec<(usize, usize)>, PlanError> {
    reduce(node_count, edges, Some(budget_bytes))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's literal closure: every successor's row folded.
    fn naive_reduction(node_count: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut reach = vec![vec![false; node_count]; node_count];
        let mut sorted = edges.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut kept = Vec::new();
        for u in (0..node_count).rev() {
            let successors: Vec<usize> = sorted.iter().filter(|e| e.0 == u).map(|e| e.1).collect();
            let mut row = vec![false; node_count];
            for &w in &successors {
                for x in 0..node_count {
                    row[x] |= reach[w][x];
                }
            }
            for &v in &successors {
                if !row[v] {
                    kept.push((u, v));
                }
                row[v] = true;
            }
            reach[u] = row;
        }
        kept.sort_unstable();
        kept
    }

    #[test]
    fn every_budget_gives_the_naive_reduction() {
        let mut rng = crate::rng::XorShift(0x5EED_0007);
        let mut next = move |bound: usize| rng.below(bound);
        for _ in 0..60 {
            let node_count = 1 + next(200);
            let density = 1 + next(60);
            let mut edges = Vec::new();
            for u in 0..node_count {
                for v in u + 1..node_count {
                    if next(100) < density {
                        edges.push((u, v));
                    }
                }
            }
            let expected = naive_reduction(node_count, &edges);
            assert_eq!(
                try_transitive_reduction(node_count, &edges).unwrap(),
                expected
            );
            for budget in [8 * node_count, 100 * node_count, usize::MAX] {
                let reduced = try_transitive_reduction_with_budget(node_count, &edges, budget);
                assert_eq!(reduced.unwrap(), expected, "budget {budget}");
            }
        }
    }

    #[test]
    fn matrices_that_cannot_exist_are_refused_quickly() {
        for node_count in [usize::MAX / 2, 1 << 40, 1 << 31] {
            let refused = try_transitive_reduction(node_count, &[(0, 1)]);
            assert!(
                matches!(refused, Err(PlanError::OutOfMemory { .. })),
                "{node_count}"
            );
        }
    }
}
