//! The lower bound of every arena: the peak of live bytes.
//!
//! # Problem and what is exact
//!
//! [`peak_live_bytes`] is `max_t Σ_{i : t ∈ [f_i, l_i]} w_i`, the maximum-weight
//! clique of the lifetime interval graph. The tensors live at the peak node
//! pairwise intersect, so they are byte-disjoint: every sound arena is at least
//! the peak. Exact.
//!
//! # Complexity
//!
//! `O(n log n)` time by a sweep over sorted lifetime endpoints, so node
//! indices may be huge and sparse; `O(n)` memory.

use super::TensorLifetime;
use crate::error::PlanError;
use crate::input::check_lifetimes;
use crate::sys::fallible;

/// The largest total size of tensors live at one node, or why it cannot be
/// computed.
///
/// Errors: [`PlanError::InvalidLifetime`] as for [`try_plan_offsets`](crate::try_plan_offsets);
/// [`PlanError::Overflow`] if the live sum at some node passes `usize::MAX`.
///
/// Exact. Complexity: `O(n log n)` time (a sweep over sorted endpoints),
/// `O(n)` memory, independent of the node indices' magnitude.
pub fn try_peak_live_bytes(tensors: &[TensorLifetime]) -> Result<usize, PlanError> {
    check_lifetimes(tensors)?;
    // A tensor enters at first_use and leaves after last_use. Sorting starts
    // before ends at the same node makes the lifetimes inclusive.
    let mut events: Vec<(usize, bool, usize)> = fallible::with_capacity(2 * tensors.len())?;
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
