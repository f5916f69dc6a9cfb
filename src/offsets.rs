//! Arena offset planning (after google/XNNPACK#10801) and its lower bound.
//!
//! # Problem
//!
//! Tensors `i = 0..n` have byte sizes `w_i` and *inclusive* lifetimes
//! `[f_i, l_i]` over node indices. Assign each an offset `o_i` in one arena so
//! that tensors whose lifetimes intersect never share a byte:
//!
//! ```text
//! [f_i, l_i] ∩ [f_j, l_j] ≠ ∅  ⟹  [o_i, o_i + w_i) ∩ [o_j, o_j + w_j) = ∅
//! ```
//!
//! and keep the arena `max_i (o_i + w_i)` small. Minimising it exactly is
//! dynamic storage allocation (Garey and Johnson, SR2), which is NP-complete,
//! so [`plan_offsets`] is greedy. It is exact about soundness only: it never
//! returns a plan in which two lifetime-intersecting tensors overlap.
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
//! # Lower bound
//!
//! [`peak_live_bytes`] is `max_t Σ_{i : t ∈ [f_i, l_i]} w_i`, the maximum-weight
//! clique of the lifetime interval graph. The tensors live at the peak node
//! pairwise intersect, so they are byte-disjoint: every sound arena is at least
//! the peak.
//!
//! # Complexity
//!
//! `plan_offsets`: `O(n² log n)` time in the worst case, `O(n)` memory.
//! `peak_live_bytes`: `O(n log n)` by a sweep over lifetime endpoints, so node
//! indices may be huge and sparse.

use crate::error::PlanError;

/// One tensor to place: its size in bytes and the first and last node
/// (inclusive) at which it is live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TensorLifetime {
    /// Size in bytes. A zero-size tensor is not planned and gets offset 0.
    pub size: usize,
    /// First node index at which the tensor is live.
    pub first_use: usize,
    /// Last node index at which the tensor is live (inclusive).
    pub last_use: usize,
}

impl TensorLifetime {
    /// A tensor of `size` bytes live from `first_use` through `last_use`.
    pub const fn new(size: usize, first_use: usize, last_use: usize) -> Self {
        TensorLifetime {
            size,
            first_use,
            last_use,
        }
    }

    /// Whether the two inclusive lifetimes share at least one node.
    pub const fn overlaps(&self, other: &TensorLifetime) -> bool {
        self.first_use <= other.last_use && other.first_use <= self.last_use
    }
}

/// A plan: one offset per input tensor, in input order, and the arena size
/// `max_i (offsets[i] + size_i)` (0 when nothing is planned).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemoryPlan {
    /// Byte offset of each input tensor, in input order.
    pub offsets: Vec<usize>,
    /// Bytes the arena needs to hold every tensor at its offset.
    pub arena_size: usize,
}

/// Checks every lifetime, reporting the first tensor with `first_use > last_use`.
fn validate(tensors: &[TensorLifetime]) -> Result<(), PlanError> {
    match tensors.iter().position(|t| t.first_use > t.last_use) {
        Some(i) => Err(PlanError::InvalidLifetime {
            tensor: i,
            first_use: tensors[i].first_use,
            last_use: tensors[i].last_use,
        }),
        None => Ok(()),
    }
}

/// Plans offsets greedily (best fit, decreasing size), or says why it cannot.
///
/// Errors: [`PlanError::InvalidLifetime`] for the first tensor with
/// `first_use > last_use`; [`PlanError::Overflow`] if a tensor's end offset
/// would pass `usize::MAX`.
///
/// Exact: soundness (see the [module docs](self)). Not claimed: optimality.
/// Complexity: `O(n² log n)` time, `O(n)` memory.
pub fn try_plan_offsets(tensors: &[TensorLifetime]) -> Result<MemoryPlan, PlanError> {
    validate(tensors)?;

    let mut order: Vec<usize> = (0..tensors.len())
        .filter(|&i| tensors[i].size > 0)
        .collect();
    // Stable: equal sizes keep input order, so the plan is deterministic.
    order.sort_by(|&a, &b| tensors[b].size.cmp(&tensors[a].size));

    let mut offsets = vec![0usize; tensors.len()];
    let mut arena_size = 0usize;
    // (start, end) byte ranges of the conflicting placed tensors.
    let mut blocks: Vec<(usize, usize)> = Vec::new();

    for (placed, &i) in order.iter().enumerate() {
        let tensor = &tensors[i];
        blocks.clear();
        blocks.extend(
            order[..placed]
                .iter()
                .filter(|&&j| tensors[j].overlaps(tensor))
                .map(|&j| (offsets[j], offsets[j] + tensors[j].size)),
        );
        let offset = best_fit(&mut blocks, tensor.size);
        let end = offset
            .checked_add(tensor.size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(MemoryPlan {
        offsets,
        arena_size,
    })
}

/// The offset best fit gives a tensor of `size` bytes among the occupied
/// byte ranges `blocks` (unsorted, possibly overlapping; reordered here).
///
/// Candidates are the leading interval `[0, first start)` and every interval
/// between coalesced blocks; the smallest one that fits wins, and the earliest
/// wins a tie, so the leading interval wins any tie it is part of. With no
/// fitting interval the tensor goes at the end of the last block.
pub(crate) fn best_fit(blocks: &mut [(usize, usize)], size: usize) -> usize {
    blocks.sort_unstable();
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

/// The largest total size of tensors live at one node, or why it cannot be
/// computed.
///
/// Errors: [`PlanError::InvalidLifetime`] as for [`try_plan_offsets`];
/// [`PlanError::Overflow`] if the live sum at some node passes `usize::MAX`.
///
/// Exact. Complexity: `O(n log n)` time (a sweep over sorted endpoints),
/// `O(n)` memory, independent of the node indices' magnitude.
pub fn try_peak_live_bytes(tensors: &[TensorLifetime]) -> Result<usize, PlanError> {
    validate(tensors)?;
    // A tensor enters at first_use and leaves after last_use. Sorting starts
    // before ends at the same node makes the lifetimes inclusive.
    let mut events: Vec<(usize, bool, usize)> = Vec::with_capacity(2 * tensors.len());
    for (i, t) in tensors.iter().enumerate().filter(|(_, t)| t.size > 0) {
        events.push((t.first_use, false, i));
        events.push((t.last_use, true, i));
    }
    events.sort_unstable();
    let (mut live, mut peak) = (0usize, 0usize);
    for (_, leaves, i) in events {
        if leaves {
            live -= tensors[i].size;
        } else {
            live = live
                .checked_add(tensors[i].size)
                .ok_or(PlanError::Overflow { tensor: i })?;
            peak = peak.max(live);
        }
    }
    Ok(peak)
}

/// The largest total size of tensors live at one node: the lower bound every
/// sound arena meets. Panics on an invalid lifetime.
///
/// # Panics
///
/// If a tensor has `first_use > last_use`, or a live sum overflows `usize`.
///
/// # Example
///
/// ```
/// use aether_planner::{peak_live_bytes, TensorLifetime};
/// // Lifetimes are inclusive: both tensors are live at node 1.
/// let shared = [TensorLifetime::new(100, 0, 1), TensorLifetime::new(80, 1, 2)];
/// assert_eq!(peak_live_bytes(&shared), 180);
/// let consecutive = [TensorLifetime::new(100, 0, 0), TensorLifetime::new(80, 1, 1)];
/// assert_eq!(peak_live_bytes(&consecutive), 100);
/// ```
pub fn peak_live_bytes(tensors: &[TensorLifetime]) -> usize {
    try_peak_live_bytes(tensors).unwrap_or_else(|error| panic!("peak_live_bytes: {error}"))
}
