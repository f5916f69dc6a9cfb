//! The greedy's index of placed byte ranges for ordinary graphs, where each
//! tensor meets few others: one range per conflicting tensor, found without
//! scanning the rest (a segment tree for "contains the first node", buckets
//! by start for "starts inside").

use super::TensorLifetime;
use crate::error::PlanError;
use crate::sys::fallible;

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
pub(super) struct PlacedIndex {
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
    pub(super) fn new(tensors: &[TensorLifetime], order: &[usize]) -> Result<Self, PlanError> {
        let (ranks, endpoint_count) = super::endpoint_ranks(tensors, order)?;
        let rank_count = endpoint_count.max(1);
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
    pub(super) fn insert(&mut self, step: usize, range: (usize, usize)) {
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
    pub(super) fn conflicts(&self, step: usize, blocks: &mut Vec<(usize, usize)>) {
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
