//! The specification's planner: greedy best fit in decreasing size (after
//! google/XNNPACK#10801).
//!
//! # Algorithm
//!
//! Tensors are placed in decreasing size; equal sizes keep input order, so the
//! plan is deterministic. Each tensor collects the byte ranges of the placed
//! tensors whose lifetimes intersect its own, sorts and coalesces them into
//! disjoint blocks, and takes the smallest free interval that fits (best fit).
//! The leading interval `[0, first block)` is a candidate and wins ties. If no
//! interval fits, the tensor goes right after the last block. Zero-size
//! tensors are not planned and get offset 0.
//!
//! Best fit depends only on the union of the conflicting byte ranges, so the
//! placed ranges are kept as coalesced unions in a segment tree over the
//! lifetimes' endpoint ranks: a tensor gathers `O(log n)` unions, whose
//! ranges are far fewer than its conflicts when placed tensors sit side by
//! side, instead of one range per conflicting tensor. Best fit itself is
//! unchanged, so the plan is bit-identical to the scan the specification
//! describes.
//!
//! # What is exact
//!
//! Soundness: every tensor is placed in a free interval of the byte ranges of
//! all placed tensors whose lifetimes meet its own, so no two
//! lifetime-intersecting tensors share a byte. Not claimed: optimality.
//!
//! # Complexity
//!
//! `O(n log n + Σ_i (u_i log u_i + log n · r_i))` time, where `u_i` is the
//! number of ranges tensor `i` gathers (at most `O(log n)` times its `k_i`
//! conflicting placed tensors, usually far fewer) and `r_i` the length of the
//! unions it is added to (an insertion shifts the ranges after it); `O(n² log
//! n)` in the worst case. Memory: `O(n log n)` ranges in the worst case (each
//! tensor is in `O(log n)` unions), `O(n)` when the unions coalesce.

use super::{MemoryPlan, TensorLifetime};
use crate::error::PlanError;
use crate::input::check_lifetimes;
use crate::sys::fallible;

/// Plans offsets greedily (best fit, decreasing size), or says why it cannot.
///
/// Errors: [`PlanError::InvalidLifetime`] for the first tensor with
/// `first_use > last_use`; [`PlanError::Overflow`] if a tensor's end offset
/// would pass `usize::MAX` (the first such tensor in placement order).
///
/// Exact: soundness (see the module documentation), and the plan is
/// bit-identical to the specification's greedy. Not claimed: optimality.
/// Complexity: see the module documentation; `O(n² log n)` time and
/// `O(n log n)` memory in the worst case.
pub fn try_plan_offsets(tensors: &[TensorLifetime]) -> Result<MemoryPlan, PlanError> {
    check_lifetimes(tensors)?;

    let mut order: Vec<usize> = fallible::collect(
        tensors.len(),
        (0..tensors.len()).filter(|&i| tensors[i].size > 0),
    )?;
    // Decreasing size; equal sizes keep input order, so the plan is
    // deterministic (the index breaks ties, so an unstable sort is exact).
    order.sort_unstable_by_key(|&i| (core::cmp::Reverse(tensors[i].size), i));

    let mut placed = PlacedIndex::new(tensors, &order)?;
    // No gap shorter than the smallest tensor can ever be chosen.
    let smallest = order.last().map_or(0, |&i| tensors[i].size);
    let mut offsets = fallible::filled(tensors.len(), 0usize)?;
    let mut arena_size = 0usize;
    // (start, end) byte ranges whose union is that of the conflicting placed
    // tensors: a few coalesced unions, grown fallibly when needed.
    let mut blocks: Vec<(usize, usize)> = fallible::with_capacity(order.len())?;

    for (step, &i) in order.iter().enumerate() {
        let size = tensors[i].size;
        blocks.clear();
        placed.conflicts(step, &mut blocks)?;
        let offset = best_fit(&mut blocks, size);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        placed.insert(step, (offset, end), smallest)?;
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(MemoryPlan {
        offsets,
        arena_size,
    })
}

/// The byte ranges of the tensors placed so far, indexed by lifetime so that
/// the ones meeting a given lifetime are found as a few coalesced unions
/// instead of one range per conflicting tensor.
///
/// Best fit depends only on the union of the conflicting byte ranges (its
/// gaps), so each index node keeps a *union*: disjoint, non-touching ranges
/// sorted by start. Tensors packed side by side, the common case, merge into
/// one range; a query gathers a few short unions, not every conflict.
///
/// Lifetimes are replaced by the ranks of their endpoints among all distinct
/// endpoints (order is all that overlap depends on), over a segment tree with
/// a power-of-two number of leaves. A placed lifetime `P` is cut into its
/// canonical nodes; `stored[v]` holds the placed lifetimes with `v` as a
/// canonical node (they contain all of `v`'s ranks), `within[v]` placed
/// lifetimes meeting `v`'s ranks, among them every one with a canonical node
/// at or below `v` (each is added at its canonical nodes and on the paths
/// from its two end leaves to the root, which hold all their ancestors). A query lifetime `Q` meets `P` iff either
///
/// - `P` has a canonical node at or below a canonical node `q` of `Q`: then
///   `P` is in `within[q]`; or
/// - `P` contains all of some canonical node `q` of `Q`: then a canonical
///   node of `P` is a proper ancestor of `q`, and every proper ancestor of a
///   canonical node of `Q` contains `Q`'s first or last rank, so `P` is in
///   `stored[u]` for some `u` on the path from one of those two leaves to the
///   root.
///
/// Every range gathered belongs to a lifetime meeting `Q` (each set holds
/// only lifetimes meeting its node's ranks), so the union gathered is exactly
/// the union of the conflicting ranges.
struct PlacedIndex {
    /// `(first, last)` endpoint ranks of the tensor placed at each step.
    ranks: Vec<(usize, usize)>,
    /// Leaves of the segment tree: a power of two above the largest rank.
    leaves: usize,
    stored: Vec<Union>,
    within: Vec<Union>,
}

/// A union of byte ranges: disjoint, non-touching `[start, end)` ranges in
/// increasing order.
#[derive(Default)]
struct Union(Vec<(usize, usize)>);

impl Union {
    /// Adds `[start, end)` (non-empty), merging what it meets, touches, or
    /// leaves a gap shorter than `useful` bytes to: when no tensor still to
    /// be placed is smaller than `useful`, such a gap, and every gap lying
    /// inside it of a union containing this one, can never be chosen, so
    /// filling it changes no plan.
    fn add(&mut self, (start, end): (usize, usize), useful: usize) -> Result<(), PlanError> {
        let ranges = &mut self.0;
        // Ranges before `low` end at least `useful` bytes before `start`;
        // from `high` on they start at least `useful` bytes after `end`.
        let low = ranges.partition_point(|&(_, e)| e < start && start - e >= useful);
        let high = low + ranges[low..].partition_point(|&(s, _)| s <= end || s - end < useful);
        // A leading gap `[0, start)` too short is filled as well.
        let start = if start < useful { 0 } else { start };
        if low == high {
            ranges.try_reserve(1).map_err(|_| PlanError::OutOfMemory {
                bytes: (ranges.len() + 1).saturating_mul(16),
            })?;
            ranges.insert(low, (start, end));
        } else {
            ranges[low] = (ranges[low].0.min(start), ranges[high - 1].1.max(end));
            ranges.drain(low + 1..high);
        }
        Ok(())
    }
}

/// Calls `visit` with each canonical segment tree node of the rank range
/// `[first, last]` in a tree with `leaves` leaves (node 1 is the root, leaf
/// `r` is node `leaves + r`).
#[inline]
fn canonical_nodes(leaves: usize, first: usize, last: usize, mut visit: impl FnMut(usize)) {
    let (mut low, mut high) = (first + leaves, last + leaves + 1);
    while low < high {
        if low & 1 == 1 {
            visit(low);
            low += 1;
        }
        if high & 1 == 1 {
            high -= 1;
            visit(high);
        }
        low >>= 1;
        high >>= 1;
    }
}

/// Calls `visit` with each node on the paths from leaves `first` and `last`
/// to the root, once each.
#[inline]
fn boundary_paths(leaves: usize, first: usize, last: usize, mut visit: impl FnMut(usize)) {
    let (mut low, mut high) = (first + leaves, last + leaves);
    while low != high {
        visit(low);
        visit(high);
        low >>= 1;
        high >>= 1;
    }
    while low >= 1 {
        visit(low);
        low >>= 1;
    }
}

/// Appends `ranges` to `blocks`, failing instead of aborting.
fn gather(blocks: &mut Vec<(usize, usize)>, ranges: &[(usize, usize)]) -> Result<(), PlanError> {
    blocks
        .try_reserve(ranges.len())
        .map_err(|_| PlanError::OutOfMemory {
            bytes: (blocks.len() + ranges.len()).saturating_mul(16),
        })?;
    blocks.extend_from_slice(ranges);
    Ok(())
}

impl PlacedIndex {
    /// Lays out the index for `tensors` placed in `order`; nothing is placed.
    fn new(tensors: &[TensorLifetime], order: &[usize]) -> Result<Self, PlanError> {
        let mut endpoints: Vec<usize> = fallible::collect(
            2 * order.len(),
            order
                .iter()
                .flat_map(|&i| [tensors[i].first_use, tensors[i].last_use]),
        )?;
        endpoints.sort_unstable();
        endpoints.dedup();
        let rank = |value: usize| endpoints.binary_search(&value).unwrap_or(0);
        let ranks: Vec<(usize, usize)> = fallible::collect(
            order.len(),
            order
                .iter()
                .map(|&i| (rank(tensors[i].first_use), rank(tensors[i].last_use))),
        )?;
        let leaves = endpoints.len().max(1).next_power_of_two();
        let mut stored = fallible::with_capacity(2 * leaves)?;
        stored.resize_with(2 * leaves, Union::default);
        let mut within = fallible::with_capacity(2 * leaves)?;
        within.resize_with(2 * leaves, Union::default);
        Ok(PlacedIndex {
            ranks,
            leaves,
            stored,
            within,
        })
    }

    /// Records the byte range of the tensor placed at `step`; no tensor
    /// still to be placed is smaller than `useful` bytes.
    fn insert(
        &mut self,
        step: usize,
        range: (usize, usize),
        useful: usize,
    ) -> Result<(), PlanError> {
        let (first, last) = self.ranks[step];
        let mut result = Ok(());
        // Canonical nodes, and every node on the boundary paths: each of the
        // latter either is an ancestor of a canonical node or lies inside the
        // lifetime, so the lifetime meets its ranks.
        let (stored, within) = (&mut self.stored, &mut self.within);
        canonical_nodes(self.leaves, first, last, |node| {
            if result.is_ok() {
                result = stored[node]
                    .add(range, useful)
                    .and_then(|()| within[node].add(range, useful));
            }
        });
        boundary_paths(self.leaves, first, last, |node| {
            if result.is_ok() {
                result = within[node].add(range, useful);
            }
        });
        result
    }

    /// Appends to `blocks` byte ranges whose union is the union of the byte
    /// ranges of every placed tensor whose lifetime meets that of the tensor
    /// placed at `step`.
    fn conflicts(&self, step: usize, blocks: &mut Vec<(usize, usize)>) -> Result<(), PlanError> {
        let (first, last) = self.ranks[step];
        let mut result = Ok(());
        canonical_nodes(self.leaves, first, last, |node| {
            if result.is_ok() {
                result = gather(blocks, &self.within[node].0);
            }
        });
        boundary_paths(self.leaves, first, last, |node| {
            if result.is_ok() {
                result = gather(blocks, &self.stored[node].0);
            }
        });
        result
    }
}

/// The offset best fit gives a tensor of `size` bytes among the occupied
/// byte ranges `blocks` (unsorted, possibly overlapping; reordered here).
///
/// Candidates are the leading interval `[0, first start)` and every interval
/// between coalesced blocks; the smallest one that fits wins, and the earliest
/// wins a tie, so the leading interval wins any tie it is part of. With no
/// fitting interval the tensor goes at the end of the last block.
pub(crate) fn best_fit(blocks: &mut [(usize, usize)], size: usize) -> usize {
    // By start only: among equal starts the first one closes any gap before
    // it and the rest cannot open one, so their order does not matter.
    blocks.sort_unstable_by_key(|&(start, _)| start);
    let mut best: Option<(usize, usize)> = None; // (gap length, offset)
    let mut covered_to = 0usize; // end of the coalesced block so far
    for &(start, end) in blocks.iter() {
        if start > covered_to {
            let gap = start - covered_to;
            if gap >= size && best.map_or(true, |(len, _)| gap < len) {
                best = Some((gap, covered_to));
            }
        }
        covered_to = covered_to.max(end);
    }
    best.map_or(covered_to, |(_, offset)| offset)
}

/// Plans offsets greedily; panics on an invalid lifetime.
///
/// The panicking form of [`try_plan_offsets`]: same plan, same complexity.
///
/// # Panics
///
/// If a tensor has `first_use > last_use`, or an end offset would overflow
/// `usize`.
///
/// # Example
///
/// ```
/// use aether_planner::{plan_offsets, TensorLifetime};
/// // A 100-byte tensor live at nodes 0..=1 and an 80-byte one at 1..=2 meet at
/// // node 1; a 60-byte one at 2..=3 reuses the bytes of the first.
/// let tensors = [
///     TensorLifetime::new(100, 0, 1),
///     TensorLifetime::new(80, 1, 2),
///     TensorLifetime::new(60, 2, 3),
/// ];
/// let plan = plan_offsets(&tensors);
/// assert_eq!(plan.offsets, vec![0, 100, 0]);
/// assert_eq!(plan.arena_size, 180);
/// ```
pub fn plan_offsets(tensors: &[TensorLifetime]) -> MemoryPlan {
    try_plan_offsets(tensors).unwrap_or_else(|error| panic!("plan_offsets: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive oracle: every placed tensor is scanned for a conflict, as
    /// the specification states it.
    fn naive_plan(tensors: &[TensorLifetime]) -> MemoryPlan {
        let mut order: Vec<usize> = (0..tensors.len())
            .filter(|&i| tensors[i].size > 0)
            .collect();
        order.sort_by(|&a, &b| tensors[b].size.cmp(&tensors[a].size));
        let mut offsets = vec![0usize; tensors.len()];
        let mut arena_size = 0;
        for (placed, &i) in order.iter().enumerate() {
            let mut blocks: Vec<(usize, usize)> = order[..placed]
                .iter()
                .filter(|&&j| tensors[j].overlaps(&tensors[i]))
                .map(|&j| (offsets[j], offsets[j] + tensors[j].size))
                .collect();
            offsets[i] = best_fit(&mut blocks, tensors[i].size);
            arena_size = arena_size.max(offsets[i] + tensors[i].size);
        }
        MemoryPlan {
            offsets,
            arena_size,
        }
    }

    #[test]
    fn the_indexed_conflict_search_gives_the_naive_plan() {
        let mut rng = crate::rng::XorShift(0x5EED_0003);
        let mut next = move |bound: usize| rng.below(bound);
        for _ in 0..300 {
            let horizon = 1 + next(200);
            let tensors: Vec<TensorLifetime> = (0..next(150))
                .map(|_| {
                    let first = next(horizon);
                    let span = if next(8) == 0 { horizon } else { 5 };
                    let last = (first + next(span)).min(horizon);
                    let size = [0, 64, 128][next(3)] + next(3) * next(100);
                    TensorLifetime::new(size, first, last)
                })
                .collect();
            assert_eq!(plan_offsets(&tensors), naive_plan(&tensors));
        }
    }
}
