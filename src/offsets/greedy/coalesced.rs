//! The greedy's index of placed byte ranges for compiler-scale graphs, where
//! many long-lived tensors conflict with most others: each segment-tree node
//! keeps the coalesced union of its placed ranges, so a placement gathers a
//! few short unions instead of one range per conflicting tensor.

use super::TensorLifetime;
use crate::error::PlanError;
use crate::sys::fallible;

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
pub(super) struct PlacedIndex {
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
    pub(super) fn new(tensors: &[TensorLifetime], order: &[usize]) -> Result<Self, PlanError> {
        let (ranks, endpoint_count) = super::endpoint_ranks(tensors, order)?;
        let leaves = endpoint_count.max(1).next_power_of_two();
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
    pub(super) fn insert(
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
    pub(super) fn conflicts(
        &self,
        step: usize,
        blocks: &mut Vec<(usize, usize)>,
    ) -> Result<(), PlanError> {
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
