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
//! The conflicting tensors are found without scanning every placed one: the
//! placed lifetimes are indexed by their endpoints' ranks (a segment tree for
//! "contains the first node", buckets by start for "starts inside"), so each
//! tensor gathers exactly its conflicts. Best fit itself is unchanged, so the
//! plan is bit-identical to the scan the specification describes.
//!
//! # What is exact
//!
//! Soundness: every tensor is placed in a free interval of the byte ranges of
//! all placed tensors whose lifetimes meet its own, so no two
//! lifetime-intersecting tensors share a byte. Not claimed: optimality.
//!
//! # Complexity
//!
//! `O(n log n + Σ_i k_i log k_i)` time, where `k_i` is the number of placed
//! tensors meeting tensor `i` (plus a scan of `1/64` word per distinct
//! endpoint inside each lifetime); `O(n² log n)` in the worst case, when
//! every lifetime meets every other. Memory: `O(n log n)` in the worst case
//! for the index (each lifetime is stored at `O(log n)` tree nodes), `O(n)`
//! when lifetimes are short.

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
/// Complexity: `O(n log n + Σ_i (log n + k_i log k_i + s_i / 64))` time, where
/// `k_i` is the number of placed tensors whose lifetimes meet tensor `i`'s and
/// `s_i` the number of distinct lifetime endpoints inside its lifetime;
/// `O(n² log n)` in the worst case. `O(n log n)` memory in the worst case.
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
    let mut offsets = fallible::filled(tensors.len(), 0usize)?;
    let mut arena_size = 0usize;
    // (start, end) byte ranges of the conflicting placed tensors.
    // At most every placed tensor conflicts, so this never grows.
    let mut blocks: Vec<(usize, usize)> = fallible::with_capacity(order.len())?;

    for (step, &i) in order.iter().enumerate() {
        let size = tensors[i].size;
        blocks.clear();
        placed.conflicts(step, &mut blocks);
        let offset = best_fit(&mut blocks, size);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        placed.insert(step, (offset, end));
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(MemoryPlan {
        offsets,
        arena_size,
    })
}

/// The byte ranges of the tensors placed so far, indexed by lifetime so that
/// the ones meeting a given lifetime are found without scanning the rest.
///
/// Lifetimes are first replaced by the ranks of their endpoints among all
/// distinct endpoints (order is all that overlap depends on). A placed
/// lifetime `[f, l]` meets `[a, b]` iff it contains `a`, or it starts in
/// `(a, b]`; the two cases are disjoint, so each conflict is found once:
///
/// - *contains `a`*: a segment tree over ranks stores each lifetime at the
///   `O(log n)` canonical nodes that tile it; the ones containing `a` are
///   exactly those stored on the path from leaf `a` to the root.
/// - *starts in `(a, b]`*: lifetimes are bucketed by start rank, and a bit
///   set of non-empty buckets skips empty ranks 64 at a time.
///
/// Every tensor is known in advance, so both indexes are laid out once
/// (compressed rows, one slot per entry), ordered by placement step: the
/// placed entries of a bucket are always a prefix, filled as tensors land.
struct PlacedIndex {
    /// `(first, last)` endpoint ranks of the tensor placed at each step.
    ranks: Vec<(usize, usize)>,
    /// Leaves of the segment tree: a power of two above the largest rank.
    leaves: usize,
    /// Segment tree node `v` owns `tree_slots[tree_start[v]..tree_start[v + 1]]`,
    /// of which the first `tree_fill[v] - tree_start[v]` are placed.
    tree_start: Vec<usize>,
    tree_fill: Vec<usize>,
    tree_slots: Vec<(usize, usize)>,
    /// The same by start rank.
    start_start: Vec<usize>,
    start_fill: Vec<usize>,
    start_slots: Vec<(usize, usize)>,
    /// Bit `r` set iff some placed lifetime starts at rank `r`.
    start_nonempty: Vec<u64>,
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

/// Compressed rows from per-row counts: `start[r]..start[r + 1]` is row `r`.
fn row_starts(counts: &[usize]) -> Result<Vec<usize>, PlanError> {
    let mut start = fallible::with_capacity(counts.len() + 1)?;
    let mut total = 0;
    start.push(0);
    for &count in counts {
        total += count;
        start.push(total);
    }
    Ok(start)
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
        let rank_count = endpoints.len().max(1);
        let leaves = rank_count.next_power_of_two();

        let mut tree_counts = fallible::filled(2 * leaves, 0usize)?;
        let mut start_counts = fallible::filled(rank_count, 0usize)?;
        for &(first, last) in &ranks {
            canonical_nodes(leaves, first, last, |node| tree_counts[node] += 1);
            start_counts[first] += 1;
        }
        let tree_start = row_starts(&tree_counts)?;
        let start_start = row_starts(&start_counts)?;
        Ok(PlacedIndex {
            tree_fill: fallible::collect(2 * leaves, tree_start[..2 * leaves].iter().copied())?,
            tree_slots: fallible::filled(tree_start[2 * leaves], (0, 0))?,
            tree_start,
            start_fill: fallible::collect(rank_count, start_start[..rank_count].iter().copied())?,
            start_slots: fallible::filled(start_start[rank_count], (0, 0))?,
            start_start,
            start_nonempty: fallible::filled(rank_count.div_ceil(64), 0u64)?,
            ranks,
            leaves,
        })
    }

    /// Records the byte range of the tensor placed at `step`.
    fn insert(&mut self, step: usize, range: (usize, usize)) {
        let (first, last) = self.ranks[step];
        let (fill, slots) = (&mut self.tree_fill, &mut self.tree_slots);
        canonical_nodes(self.leaves, first, last, |node| {
            slots[fill[node]] = range;
            fill[node] += 1;
        });
        self.start_slots[self.start_fill[first]] = range;
        self.start_fill[first] += 1;
        self.start_nonempty[first / 64] |= 1 << (first % 64);
    }

    /// Appends to `blocks` the byte range of every placed tensor whose
    /// lifetime meets that of the tensor placed at `step`.
    fn conflicts(&self, step: usize, blocks: &mut Vec<(usize, usize)>) {
        let (first, last) = self.ranks[step];
        // Placed lifetimes containing `first`.
        let mut node = first + self.leaves;
        while node >= 1 {
            blocks.extend_from_slice(&self.tree_slots[self.tree_start[node]..self.tree_fill[node]]);
            node >>= 1;
        }
        // Placed lifetimes starting in (first, last].
        if first == last {
            return;
        }
        let (low, high) = (first + 1, last);
        for word in low / 64..=high / 64 {
            let mut bits = self.start_nonempty[word];
            if word == low / 64 {
                bits &= u64::MAX << (low % 64);
            }
            if word == high / 64 && high % 64 != 63 {
                bits &= (1u64 << (high % 64 + 1)) - 1;
            }
            while bits != 0 {
                let rank = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                blocks.extend_from_slice(
                    &self.start_slots[self.start_start[rank]..self.start_fill[rank]],
                );
            }
        }
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
