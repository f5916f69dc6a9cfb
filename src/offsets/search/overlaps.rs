//! Who overlaps whom in the search, without conflict lists: a segment tree
//! over the sections holds each tensor at the `O(log S)` nodes that tile its
//! section range, so the tensors live in one section are those on one
//! leaf-to-root path, each found once. A tensor's conflicts are then the
//! tensors live in its first section and those starting inside its range.
//!
//! Memory: at most `2 log2 S` four-byte entries per tensor, `O(n log S)`,
//! where conflict lists take `O(E)` and `E` grows towards `n²` at compiler
//! scale. Time: the entries found plus `O(log S)` per query.

use super::Clock;
use crate::error::PlanError;
use crate::sys::fallible;

pub(super) struct Overlaps {
    /// Leaves of the tree: the section count rounded up to a power of two.
    leaves: usize,
    /// Where each tree node's tensors start in `members` (node `v` holds
    /// `members[starts[v]..starts[v + 1]]`).
    starts: Vec<u32>,
    members: Vec<u32>,
}

impl Overlaps {
    /// The index of tensors with section ranges `ranges` over `count`
    /// sections, or `None` once `clock` finds its deadline passed (read
    /// every few thousand tensors). Errors: [`PlanError::OutOfMemory`],
    /// also when the entries would not fit four-byte indices.
    pub(super) fn new(
        ranges: &[(usize, usize)],
        count: usize,
        clock: &mut Clock,
    ) -> Result<Option<Self>, PlanError> {
        let leaves = count.max(1).next_power_of_two();
        let mut sizes = fallible::filled(2 * leaves + 1, 0usize)?;
        for &range in ranges {
            if clock.late() {
                return Ok(None);
            }
            tile(leaves, range, |v| sizes[v + 1] += 1);
        }
        let total: usize = sizes.iter().sum();
        let beyond = u32::MAX as usize;
        if total > beyond || ranges.len() > beyond || count >= beyond {
            return Err(PlanError::OutOfMemory {
                bytes: total.saturating_mul(4),
            });
        }
        for v in 1..sizes.len() {
            sizes[v] += sizes[v - 1];
        }
        let starts: Vec<u32> = fallible::collect(sizes.len(), sizes.iter().map(|&s| s as u32))?;
        // `sizes[v]` now is the next free slot of node `v`.
        let mut members = fallible::filled(total, 0u32)?;
        for (q, &range) in ranges.iter().enumerate() {
            if clock.late() {
                return Ok(None);
            }
            tile(leaves, range, |v| {
                members[sizes[v]] = q as u32;
                sizes[v] += 1;
            });
        }
        Ok(Some(Overlaps {
            leaves,
            starts,
            members,
        }))
    }

    /// Calls `f` once with every tensor whose range contains section `s`.
    pub(super) fn live_in(&self, s: usize, mut f: impl FnMut(usize)) {
        let mut v = s + self.leaves;
        while v > 0 {
            let (a, b) = (self.starts[v] as usize, self.starts[v + 1] as usize);
            for &q in &self.members[a..b] {
                f(q as usize);
            }
            v >>= 1;
        }
    }
}

/// Calls `f` with each node of the canonical tiling of the section range
/// `(lo, hi)` in a tree of `leaves` leaves.
fn tile(leaves: usize, (lo, hi): (usize, usize), mut f: impl FnMut(usize)) {
    let (mut l, mut r) = (lo + leaves, hi + leaves);
    while l < r {
        if l & 1 == 1 {
            f(l);
            l += 1;
        }
        if r & 1 == 1 {
            r -= 1;
            f(r);
        }
        l >>= 1;
        r >>= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each section's live tensors are found exactly once, by a check of
    /// every range, on seeded random ranges.
    #[test]
    fn live_tensors_are_found_once() {
        let mut rng = crate::rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..100 {
            let count = 1 + rng.below(40);
            let ranges: Vec<(usize, usize)> = (0..rng.below(30))
                .map(|_| {
                    let (a, b) = (rng.below(count), rng.below(count));
                    (a.min(b), a.max(b) + 1)
                })
                .collect();
            let overlaps = Overlaps::new(&ranges, count, &mut Clock::new(None))
                .unwrap()
                .expect("no deadline");
            for s in 0..count {
                let mut found = Vec::new();
                overlaps.live_in(s, |q| found.push(q));
                found.sort_unstable();
                let expected: Vec<usize> = (0..ranges.len())
                    .filter(|&q| ranges[q].0 <= s && s < ranges[q].1)
                    .collect();
                assert_eq!(found, expected, "section {s} of {ranges:?}");
            }
        }
    }
}
