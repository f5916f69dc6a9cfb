//! The greedy on small sparse tables: each placement finds its conflicting
//! placed tensors as the set bits of a few words, instead of testing every
//! placed tensor's lifetime.
//!
//! Tensor `j` meets tensor `s` when `first_j ≤ last_s` and
//! `last_j ≥ first_s`. Sorting the planned tensors by first use, the set of
//! those with `first ≤ last_s` is a prefix of that order; sorting them by
//! last use, those with `last < first_s` are a prefix of that one. Two
//! tables hold every prefix of each order as a bit set over placement
//! steps, so the conflicts of step `s` among the steps placed before it are
//! `started[k_s] & !ended[m_s]` restricted to the bits below `s`: `s / 64 + 1`
//! words per placement, then one visit per conflicting tensor, whose ranges
//! are sorted for best fit as the specification states it.
//!
//! Where few pairs conflict this replaces the scan of every placed tensor,
//! whose unpredictable branch per tensor is the cost on such tables, by
//! branch-free word operations; the tables take `2 (n + 1) ⌈n / 64⌉` words,
//! which bounds the sizes this path is used at.

use super::{Clock, Stop, TensorLifetime};
use crate::error::PlanError;
use crate::sys::fallible;

/// Places the tensors of `order` by best fit against every placed tensor
/// whose lifetime meets their own; writes `offsets` and returns the arena.
///
/// Errors: [`PlanError::Overflow`] for the first tensor (in `order`) whose
/// end offset passes `usize::MAX`; [`PlanError::OutOfMemory`].
///
/// Complexity: `O(n² / 64 + n log n + Σ_s k_s log k_s)` time for `k_s`
/// conflicts of step `s` among the placed tensors, `O(n² / 64)` memory.
pub(super) fn place<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    clock: C,
) -> Result<usize, Stop<C::Late>> {
    let n = order.len();
    if n == 0 {
        return Ok(0);
    }
    let words = n.div_ceil(64);
    // The steps by first use and by last use, as (endpoint, step), gathered
    // in input order (usually time order, which a comparison sort finds
    // already sorted) and sorted by the endpoint alone: the order among
    // equal endpoints does not matter, since the counts below always take
    // all of them or none.
    let mut step_of = fallible::filled(tensors.len(), 0usize)?;
    let (mut low, mut high) = (usize::MAX, 0usize);
    for (step, &i) in order.iter().enumerate() {
        step_of[i] = step;
        low = low.min(tensors[i].first_use);
        high = high.max(tensors[i].last_use);
    }
    let planned = || (0..tensors.len()).filter(|&i| tensors[i].size > 0);
    let by_first = sorted_by_value(
        planned().map(|i| (tensors[i].first_use, step_of[i])),
        n,
        low,
        high,
    )?;
    let by_last = sorted_by_value(
        planned().map(|i| (tensors[i].last_use, step_of[i])),
        n,
        low,
        high,
    )?;
    drop(step_of);
    let value_of = |&(value, _): &(usize, usize)| value;
    let step_of_key = |&(_, step): &(usize, usize)| step;
    // Per step: how many tensors start by its last use (`.0`) and how many
    // end before its first use (`.1`), by merging the two orders.
    let mut counts = fallible::filled(n, (0usize, 0usize))?;
    let mut started_by = 0;
    for last in &by_last {
        while started_by < n && value_of(&by_first[started_by]) <= value_of(last) {
            started_by += 1;
        }
        counts[step_of_key(last)].0 = started_by;
    }
    let mut ended_before = 0;
    for first in &by_first {
        while ended_before < n && value_of(&by_last[ended_before]) < value_of(first) {
            ended_before += 1;
        }
        counts[step_of_key(first)].1 = ended_before;
    }
    // Row `r` of `started`: the steps of the first `r` tensors by first
    // use; row `r` of `ended`: those of the first `r` by last use. Built a
    // column of words at a time, without a branch per bit.
    let rows = (n + 1)
        .checked_mul(words)
        .ok_or(PlanError::OutOfMemory { bytes: usize::MAX })?;
    let mut started = fallible::filled(rows, 0u64)?;
    let mut ended = fallible::filled(rows, 0u64)?;
    for (table, sorted) in [(&mut started, &by_first), (&mut ended, &by_last)] {
        for w in 0..words {
            let mut column = 0u64;
            for (r, key) in sorted.iter().enumerate() {
                let step = step_of_key(key);
                column |= u64::from(step / 64 == w) << (step % 64);
                table[(r + 1) * words + w] = column;
            }
        }
    }
    drop((by_first, by_last));
    clock.check()?;
    let mut ranges = fallible::filled(n, (0usize, 0usize))?;
    let mut blocks: Vec<(usize, usize)> = fallible::with_capacity(n)?;
    let mut arena_size = 0usize;
    for (step, &i) in order.iter().enumerate() {
        clock.check_at(step)?;
        let size = tensors[i].size;
        // Started by the end of this lifetime; ended before its start.
        let (k, m) = counts[step];
        let meets = &started[k * words..][..words];
        let gone = &ended[m * words..][..words];
        blocks.clear();
        let top = step / 64;
        for w in 0..=top {
            let mut bits = meets[w] & !gone[w];
            if w == top {
                bits &= (1u64 << (step % 64)) - 1;
            }
            while bits != 0 {
                let j = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                blocks.push(ranges[j]);
            }
        }
        let offset = super::best_fit(&mut blocks, size);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        ranges[step] = (offset, end);
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(arena_size)
}

/// The pairs `(value, step)` of `pairs` (`n` of them, values within
/// `low..=high`) in increasing order of value, equal values in any order.
///
/// Complexity: `O(n + high − low)` time and memory by counting when the
/// values span fewer than `4 n` (endpoints numbered by node, as networks'
/// are), else `O(n log n)` by a comparison sort, `O(n)` on sorted input.
fn sorted_by_value(
    pairs: impl Iterator<Item = (usize, usize)> + Clone,
    n: usize,
    low: usize,
    high: usize,
) -> Result<Vec<(usize, usize)>, PlanError> {
    let span = high - low;
    if span >= n.saturating_mul(4) {
        let mut sorted = fallible::collect(n, pairs)?;
        sorted.sort_unstable_by_key(|&(value, _)| value);
        return Ok(sorted);
    }
    // Counting: `starts[v]` is where value `low + v` goes.
    let mut starts = fallible::filled(span + 2, 0usize)?;
    for (value, _) in pairs.clone() {
        starts[value - low + 1] += 1;
    }
    for v in 1..starts.len() {
        starts[v] += starts[v - 1];
    }
    let mut sorted = fallible::filled(n, (0usize, 0usize))?;
    for (value, step) in pairs {
        let at = &mut starts[value - low];
        sorted[*at] = (value, step);
        *at += 1;
    }
    Ok(sorted)
}
