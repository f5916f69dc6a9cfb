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
    let (mut low, mut high) = (usize::MAX, 0usize);
    for &i in order {
        low = low.min(tensors[i].first_use);
        high = high.max(tensors[i].last_use);
    }
    // One list for the pairs of every step, in five parts of `n`: the steps
    // by first use and by last use as (endpoint, step), each step's counts
    // below, each placed step's byte range, and the conflicting ranges of
    // the current placement.
    let mut pairs = fallible::filled(5 * n, (0usize, 0usize))?;
    let (by_first, rest) = pairs.split_at_mut(n);
    let (by_last, rest) = rest.split_at_mut(n);
    let (counts, rest) = rest.split_at_mut(n);
    let (ranges, blocks) = rest.split_at_mut(n);
    // Sorted by the endpoint alone: the order among equal endpoints does
    // not matter, since the counts below always take all of them or none.
    let endpoints = |last: bool| {
        order.iter().enumerate().map(move |(step, &i)| {
            let t = &tensors[i];
            (if last { t.last_use } else { t.first_use }, step)
        })
    };
    sort_by_value(endpoints(false), by_first, low, high)?;
    sort_by_value(endpoints(true), by_last, low, high)?;
    // Per step: how many tensors start by its last use (`.0`) and how many
    // end before its first use (`.1`), by merging the two orders.
    let mut started_by = 0;
    for &(last, step) in by_last.iter() {
        while started_by < n && by_first[started_by].0 <= last {
            started_by += 1;
        }
        counts[step].0 = started_by;
    }
    let mut ended_before = 0;
    for &(first, step) in by_first.iter() {
        while ended_before < n && by_last[ended_before].0 < first {
            ended_before += 1;
        }
        counts[step].1 = ended_before;
    }
    // Row `r` of `started`: the steps of the first `r` tensors by first
    // use; row `r` of `ended`: those of the first `r` by last use. Built a
    // column of words at a time, without a branch per bit.
    let rows = (n + 1)
        .checked_mul(words)
        .ok_or(PlanError::OutOfMemory { bytes: usize::MAX })?;
    let mut tables = fallible::filled(2 * rows, 0u64)?;
    let (started, ended) = tables.split_at_mut(rows);
    for (table, sorted) in [(&mut *started, &*by_first), (&mut *ended, &*by_last)] {
        for w in 0..words {
            let mut column = 0u64;
            for (r, &(_, step)) in sorted.iter().enumerate() {
                column |= u64::from(step / 64 == w) << (step % 64);
                table[(r + 1) * words + w] = column;
            }
        }
    }
    clock.check()?;
    let mut arena_size = 0usize;
    for (step, &i) in order.iter().enumerate() {
        clock.check_at(step)?;
        let size = tensors[i].size;
        // Started by the end of this lifetime; ended before its start.
        let (k, m) = counts[step];
        let meets = &started[k * words..][..words];
        let gone = &ended[m * words..][..words];
        let mut conflicts = 0;
        let top = step / 64;
        for w in 0..=top {
            let mut bits = meets[w] & !gone[w];
            if w == top {
                bits &= (1u64 << (step % 64)) - 1;
            }
            while bits != 0 {
                let j = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                blocks[conflicts] = ranges[j];
                conflicts += 1;
            }
        }
        let offset = super::best_fit(&mut blocks[..conflicts], size);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        ranges[step] = (offset, end);
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(arena_size)
}

/// Writes the pairs `(value, step)` of `pairs` (`sorted.len()` of them,
/// values within `low..=high`) to `sorted` in increasing order of value,
/// equal values in any order.
///
/// Complexity: `O(n + high − low)` time and memory by counting when the
/// values span fewer than `4 n` (endpoints numbered by node, as networks'
/// are), else `O(n log n)` time by a comparison sort, no memory.
fn sort_by_value(
    pairs: impl Iterator<Item = (usize, usize)> + Clone,
    sorted: &mut [(usize, usize)],
    low: usize,
    high: usize,
) -> Result<(), PlanError> {
    let span = high - low;
    if span >= sorted.len().saturating_mul(4) {
        for (slot, pair) in sorted.iter_mut().zip(pairs) {
            *slot = pair;
        }
        sorted.sort_unstable_by_key(|&(value, _)| value);
        return Ok(());
    }
    // Counting: `starts[v]` is where value `low + v` goes.
    let mut starts = fallible::filled(span + 2, 0usize)?;
    for (value, _) in pairs.clone() {
        starts[value - low + 1] += 1;
    }
    for v in 1..starts.len() {
        starts[v] += starts[v - 1];
    }
    for (value, step) in pairs {
        let at = &mut starts[value - low];
        sorted[*at] = (value, step);
        *at += 1;
    }
    Ok(())
}
