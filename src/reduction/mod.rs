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
//!   it; without one, [`try_transitive_reduction`] sizes them by its rule.
//!   The blocks share one buffer, so fresh pages are faulted in once.
//! - *Nodes on no edge.* With fewer edges than half the nodes, the graph is
//!   renumbered onto the nodes its edges name, in ascending order (still
//!   topological), and reduced there.
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
//! column blocks (`n` at most `2E` after renumbering): grouping, the triangle's zeroed
//! words, and one fold per surviving edge over the words its target's row
//! stores. That is at most the literal `O(E log E + (n + E)⌈n/64⌉)`. Memory:
//! the largest block, at most `≈ n²/16` bytes, allocated fallibly, plus `O(n + E)` for the grouped edges (or
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

/// Without a budget, a whole triangle up to this size is built in one
/// block: it is cheap to fault in and stays close to the caches.
const WHOLE_UP_TO: usize = 32 << 20;

/// Without a budget, larger triangles are built in blocks of at least this
/// size, in one reused buffer: the buffer is faulted in once and stays in
/// the last-level cache while each block is closed.
const BLOCK_AT_LEAST: usize = 16 << 20;

/// Without a budget, blocks also hold at least this many bytes per node and
/// edge, since every block walks all grouped edges of its rows: the walk
/// then stays a small share of each block's work, and the block count stays
/// bounded on large graphs.
const BLOCK_BYTES_PER_ITEM: usize = 128;

/// Without a budget, blocks are also at most [`WHOLE_UP_TO`] where this
/// many such blocks hold the whole triangle: a block the last-level cache
/// holds is closed faster than a larger one, by more than the extra walks
/// of the edges cost while the blocks stay few (on 50,000 nodes of 8 edges
/// each, see BENCHMARKS.md), but not once they are many.
const CACHED_BLOCKS_UP_TO: usize = 16;

/// The block budget chosen without one from the caller: see
/// [`try_transitive_reduction`]'s documentation for the rule.
fn default_budget(node_count: usize, edge_count: usize, whole_bytes: usize) -> usize {
    if whole_bytes <= WHOLE_UP_TO {
        return whole_bytes;
    }
    let walk = BLOCK_BYTES_PER_ITEM.saturating_mul(node_count.saturating_add(edge_count));
    let budget = BLOCK_AT_LEAST.max(walk);
    if whole_bytes.div_ceil(WHOLE_UP_TO) <= CACHED_BLOCKS_UP_TO {
        budget.min(WHOLE_UP_TO)
    } else {
        budget
    }
}

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
    if worth_compacting(node_count, edges.len()) {
        return reduce_compacted(edges, budget_bytes);
    }
    reduce_numbered(node_count, edges, budget_bytes)
}

/// The nodes the edges name, ascending, and the edges renumbered onto them
/// (a node's new number is its rank there, so the renumbering keeps every
/// order between nodes). `O(E log E)` time and `O(E)` memory, whatever the
/// node count.
pub(super) type Compacted = (Vec<usize>, Vec<(usize, usize)>);

pub(super) fn compact(edges: &[(usize, usize)]) -> Result<Compacted, PlanError> {
    let mut named = fallible::collect(2 * edges.len(), edges.iter().flat_map(|&(u, v)| [u, v]))?;
    named.sort_unstable();
    named.dedup();
    let rank = |node: usize| named.binary_search(&node).expect("an endpoint");
    let renumbered =
        fallible::collect(edges.len(), edges.iter().map(|&(u, v)| (rank(u), rank(v))))?;
    Ok((named, renumbered))
}

/// Whether some nodes surely lie on no edge (fewer edges than half the
/// nodes), so that a reduction is better made on the nodes the edges name:
/// the others change no reachability. Both the strict and the any-order
/// form follow this one rule.
pub(super) fn worth_compacting(node_count: usize, edge_count: usize) -> bool {
    edge_count < node_count / 2
}

/// The reduction of a graph with fewer edges than half its nodes, made on
/// the nodes its edges name ([`compact`]; the renumbering is still
/// topological). Memory is then `O(E)` plus a triangle of `O(E²)` bits,
/// whatever `node_count` is.
fn reduce_compacted(
    edges: &[(usize, usize)],
    budget_bytes: Option<usize>,
) -> Result<Vec<(usize, usize)>, PlanError> {
    let (named, renumbered) = compact(edges)?;
    let mut reduced = reduce_numbered(named.len(), &renumbered, budget_bytes)?;
    for edge in &mut reduced {
        *edge = (named[edge.0], named[edge.1]);
    }
    Ok(reduced)
}

/// The column blocks of the triangle, each within `budget` bytes, in
/// ascending order; `OutOfMemory` with the narrowest block's size if even
/// 64 columns do not fit.
fn plan_blocks(node_count: usize, budget: usize) -> Result<Vec<ColumnBlock>, PlanError> {
    let words = node_count.div_ceil(64);
    let whole = ColumnBlock::new(node_count, 0, words);
    if whole.bytes() <= budget {
        return fallible::collect(1, [whole].into_iter());
    }
    let mut blocks = Vec::new();
    let mut first_word = 0;
    while first_word < words {
        // The widest block from `first_word` that fits (bytes grow with the
        // width, so a binary search finds it).
        let fits = |end: usize| ColumnBlock::new(node_count, first_word, end).bytes() <= budget;
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
    Ok(blocks)
}

/// The reduction of a graph whose nodes may all lie on edges.
fn reduce_numbered(
    node_count: usize,
    edges: &[(usize, usize)],
    budget_bytes: Option<usize>,
) -> Result<Vec<(usize, usize)>, PlanError> {
    let words = node_count.div_ceil(64);
    if node_count >= u32::MAX as usize {
        // Far beyond any matrix that fits in memory (grouped edges are u32);
        // refused before any block is sized, since sizing could overflow.
        return Err(PlanError::OutOfMemory {
            bytes: (node_count / 2).saturating_mul(words).saturating_mul(8),
        });
    }
    let whole = ColumnBlock::new(node_count, 0, words);
    let wanted =
        budget_bytes.unwrap_or_else(|| default_budget(node_count, edges.len(), whole.bytes()));
    // No block larger than half the memory the machine can back: granted by
    // the kernel, it would be touched into the out-of-memory killer. The
    // other half is left to the caller's process and the rest of the
    // machine. Only large blocks pay for the look-up.
    let mut budget = wanted.min(fallible::half_available(wanted.min(whole.bytes())));
    // The blocks share one buffer, allocated before anything of size O(n),
    // so a matrix that cannot exist is refused before any other work. An
    // allocation refused (an address-space limit, say) is retried with
    // blocks half as large, down to 64 columns.
    let (blocks, mut matrix) = loop {
        let blocks = plan_blocks(node_count, budget)?;
        let largest = blocks.iter().map(ColumnBlock::words).max().unwrap_or(0);
        match try_matrix(largest) {
            Ok(matrix) => break (blocks, matrix),
            Err(error) if blocks.len() == words => return Err(error),
            Err(_) => budget = largest.saturating_mul(8) / 2,
        }
    };
    let dense = (node_count as u128).pow(2) <= 128 * edges.len() as u128;
    if blocks.len() == 1 && dense {
        return reduce_dense(&blocks[0], matrix, edges);
    }
    let graph = GroupedEdges::new(node_count, edges)?;
    let mut kept = fallible::filled(edges.len(), false)?;
    for block in &blocks {
        reduce_block(&graph, block, &mut matrix, &mut kept)?;
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
/// The memory layout is chosen here, by one rule:
///
/// - With fewer edges than half the nodes, the graph is first renumbered
///   onto the nodes its edges name (the others change no reachability), so
///   the node count that matters is at most `2E`.
/// - A bit triangle (`≈ n²/16` bytes) of at most 32 MiB is built whole.
/// - A larger one is built in column blocks, one after another in one
///   reused buffer, each at most `max(16 MiB, 128 · (n + E))` bytes: small
///   enough to stay cached, large enough that walking the edges once per
///   block stays a small share of the work; and at most 32 MiB where 16
///   blocks of 32 MiB hold the whole triangle (up to 512 MiB, about
///   92,000 nodes), whose edges are then walked few times.
/// - No block is larger than half the memory the machine can back (on
///   Linux `MemAvailable`, within the cgroup's limit), and a buffer the
///   allocator refuses is asked for again with blocks half as large.
///
/// So [`PlanError::OutOfMemory`] means that even the narrowest block, 64
/// columns (at most `8 · n` bytes), or the `O(n + E)` grouped edges cannot
/// be had. [`try_transitive_reduction_with_budget`] sets the block size
/// instead.
///
/// Other errors: [`PlanError::NotTopological`] for an edge with
/// `source >= target`; [`PlanError::EdgeOutOfRange`] for a target at or
/// beyond `node_count`.
///
/// Exact: the unique minimal edge set with the same reachability, sorted by
/// `(source, target)`, independent of edge order and of the layout;
/// duplicate edges collapse.
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
/// `budget_bytes` (and, as without a budget, at most half the memory the
/// machine can back); beyond that, `O(n + E)` bytes hold the grouped edges.
/// The narrowest block (64 columns) needs at most `8 · node_count` bytes, so
/// any budget of at least that succeeds. A budget that holds the whole
/// triangle (`≈ n²/16` bytes) gives a single pass.
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
    fn nodes_on_no_edge_cost_nothing() {
        for node_count in [usize::MAX / 2, 1 << 40, 1 << 31, 1 << 26] {
            let edges = [(5, 1 << 20), (0, 5), (0, 1 << 20), (7, 9)];
            let reduced = try_transitive_reduction(node_count, &edges);
            assert_eq!(
                reduced,
                Ok(vec![(0, 5), (5, 1 << 20), (7, 9)]),
                "{node_count}"
            );
        }
    }

    #[test]
    fn a_budget_below_64_columns_is_out_of_memory() {
        let chain: Vec<(usize, usize)> = (1..1_000).map(|v| (v - 1, v)).collect();
        let refused = try_transitive_reduction_with_budget(1_000, &chain, 7_999);
        assert!(
            matches!(refused, Err(PlanError::OutOfMemory { .. })),
            "{refused:?}"
        );
        assert_eq!(
            try_transitive_reduction_with_budget(1_000, &chain, 8_000),
            Ok(chain.clone())
        );
    }
}
