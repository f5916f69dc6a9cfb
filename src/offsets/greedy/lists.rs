//! The greedy on large tables where each tensor meets few others: explicit
//! lists of each tensor's conflicting tensors placed before it, so that a
//! placement gathers exactly their byte ranges — the specification's scan
//! restricted to the tensors that conflict.
//!
//! The planned tensors are sorted by first use (a radix sort of packed keys,
//! skipped when the input is already in that order, as time-ordered graphs
//! are). In that order the tensors meeting tensor `k` and starting after it
//! are the run that follows `k` up to the last one starting by its last use,
//! so one sweep finds every conflicting pair once. A tensor placed after
//! such a later-starting neighbour finds it again at its placement, among
//! the placed tensors of its run (contiguous, so read without a list); a
//! pair whose earlier-starting tensor is placed first is listed for the
//! other one. The lists hold at most one entry per pair, about half the
//! pairs where sizes are unrelated to time. The lists, the tensors' byte
//! ranges and every other table are indexed by the position in first-use
//! order: a tensor's neighbours in time are its neighbours in memory.
//!
//! The pairs are counted before the lists are laid out; where there are
//! more than the caller allows, nothing is placed and the caller takes
//! another path.
//!
//! The sort by first use and the tables by position take the words the
//! placement order's sort is done with ([`Spare`]): at millions of tensors
//! fresh buffers would be fresh pages, each faulted in on first touch,
//! where those words are resident already.

use super::keys::Spare;
use super::{Clock, Stop, TensorLifetime};
use crate::error::PlanError;
use crate::sys::fallible;
use crate::sys::pages::prefetch;
use crate::sys::scratch::halves;

/// Places the tensors of `order` by best fit against the conflicting
/// tensors placed before each; writes `offsets` and returns the arena, or
/// `Ok(None)` (and writes nothing) if more than `max_pairs` pairs conflict,
/// or the table does not fit the lists' 32-bit entries (more than 2^32 − 1
/// tensors, or endpoints spanning more than 32 bits).
///
/// Errors: [`PlanError::Overflow`] for the first tensor (in `order`) whose
/// end offset passes `usize::MAX`; [`PlanError::OutOfMemory`].
///
/// Complexity: `O(n + E + Σ_i g_i log g_i)` time for `E` conflicting pairs
/// (at most `max_pairs` are counted before giving up) and `g_i` conflicting
/// tensors placed before tensor `i` (`Σ g_i = E`); `O(n + E)` memory, at
/// most 4 bytes per pair.
pub(super) fn place<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    max_pairs: usize,
    mut spare: Spare,
    clock: C,
) -> Result<Option<usize>, Stop<C::Late>> {
    let n = order.len();
    let fits = u32::try_from(tensors.len()).is_ok() && u32::try_from(max_pairs).is_ok();
    if n == 0 || !fits {
        return Ok(None);
    }
    let (mut low, mut high) = (usize::MAX, 0usize);
    for t in tensors.iter().filter(|t| t.size > 0) {
        low = low.min(t.first_use);
        high = high.max(t.last_use);
    }
    if u32::try_from(high - low).is_err() {
        return Ok(None);
    }
    // By position in first-use order: the first use (relative to `low`)
    // above, the input index below. Built in input order, so sorted
    // already when the input is in time order.
    let planned = || (0..tensors.len()).filter(|&i| tensors[i].size > 0);
    let mut by_start = spare.take(n)?;
    by_start.extend(planned().map(|i| (((tensors[i].first_use - low) as u64) << 32) | i as u64));
    if by_start.windows(2).any(|pair| pair[0] > pair[1]) {
        clock.check()?;
        let mut scratch = spare.filled(n, 0)?;
        let span = crate::offsets::radix::bit_length((high - low) as u64);
        // Stable on the first use, so equal first uses keep input order.
        crate::offsets::radix::radix_sort(&mut by_start, &mut scratch, 32, 32 + span);
        spare.keep(scratch);
    }
    clock.check()?;
    let input = |key: u64| (key & 0xFFFF_FFFF) as usize;
    // Each position's placement step (upper half) and last use (lower
    // half, relative to `low`), gathered in one pass from the same words
    // by input index: the last use read in input order, the step scattered
    // from `order`. (Unplanned tensors' words are never read; their last
    // use may lie below `low`, hence the wrapping.)
    let mut by_input = spare.take(tensors.len())?;
    by_input.extend(
        tensors
            .iter()
            .map(|t| t.last_use.wrapping_sub(low) as u32 as u64),
    );
    for (step, &i) in order.iter().enumerate() {
        by_input[i] |= (step as u64) << 32;
    }
    let mut step_last = spare.take(n)?;
    step_last.extend(by_start.iter().map(|&key| by_input[input(key)]));
    // The position of each step, in the words of `by_input`.
    let mut position_words = by_input;
    position_words.clear();
    position_words.resize(n.div_ceil(2), 0);
    let position_at = &mut halves(&mut position_words)[..n];
    for (position, &word) in step_last.iter().enumerate() {
        position_at[(word >> 32) as usize] = position as u32;
    }
    let position_at = &*position_at;
    let step_at = |word: u64| (word >> 32) as u32;
    clock.check()?;

    // A pair of positions `k < q` (found in `k`'s run) where `q` is placed
    // first is read at `k`'s placement from that run, among the placed
    // tensors after `k`; where `k` is placed first it is listed for `q`.
    // Each position's list starts at `starts[position]`; first the counts.
    let mut starts = fallible::filled(n + 1, 0u32)?;
    let mut pairs = 0usize;
    for k in 0..n {
        let (last, step) = (step_last[k] as u32, step_at(step_last[k]));
        let run = run_after(&by_start, k, last);
        // Branch-free: which of two neighbours is placed first is
        // unpredictable.
        for (count, &later) in starts[k + 1..][..run].iter_mut().zip(&step_last[k + 1..]) {
            *count += u32::from(step_at(later) > step);
        }
        pairs += run;
        if pairs > max_pairs {
            return Ok(None);
        }
    }
    clock.check()?;
    let mut listed = 0u32;
    for start in starts.iter_mut() {
        // At most `max_pairs`, which fits u32.
        (*start, listed) = (listed, listed + *start);
    }
    // Then the entries, each list filled from its start on (`starts[p]`
    // moves to the end of list `p`, which is the start of list `p + 1`).
    // One more entry at the end takes the writes of the pairs not listed,
    // so that the loop has no branch.
    let unlisted = listed as usize;
    let mut list = fallible::filled(unlisted + 1, 0u32)?;
    for k in 0..n {
        let (last, step) = (step_last[k] as u32, step_at(step_last[k]));
        let run = run_after(&by_start, k, last);
        for (slot, &later) in starts[k + 1..][..run].iter_mut().zip(&step_last[k + 1..]) {
            let listed = step_at(later) > step;
            let at = if listed { *slot as usize } else { unlisted };
            list[at] = k as u32;
            *slot += u32::from(listed);
        }
    }
    drop(step_last);
    // `starts[p]` is now the end of list `p`; list `p` begins where list
    // `p - 1` ends.
    clock.check()?;

    // Each position's byte range once placed; `(0, 0)` before (a placed
    // tensor ends above 0).
    let mut ranges = fallible::filled(n, (0usize, 0usize))?;
    // The ranges gathered for one placement, its first `gathered`.
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    let mut arena_size = 0usize;
    for step in 0..n {
        clock.check_at(step)?;
        prefetch_ahead(
            step,
            tensors,
            order,
            position_at,
            &by_start,
            &starts,
            &list,
            &ranges,
        );
        let position = position_at[step] as usize;
        let i = order[step];
        let (size, last) = (tensors[i].size, (tensors[i].last_use - low) as u32);
        let begin = match position {
            0 => 0,
            p => starts[p - 1] as usize,
        };
        let earlier = &list[begin..starts[position] as usize];
        let run = run_after(&by_start, position, last);
        let needed = earlier.len() + run;
        if blocks.len() < needed {
            let more = needed - blocks.len();
            fallible::reserve(&mut blocks, more)?;
            blocks.resize(needed, (0, 0));
        }
        for (block, &q) in blocks.iter_mut().zip(earlier) {
            *block = ranges[q as usize];
        }
        // The placed tensors of the run, without a branch.
        let mut gathered = earlier.len();
        for &range in &ranges[position + 1..][..run] {
            blocks[gathered] = range;
            gathered += usize::from(range.1 > 0);
        }
        let offset = super::best_fit(&mut blocks[..gathered], size);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        ranges[position] = (offset, end);
        arena_size = arena_size.max(end);
    }
    for (&key, &(offset, _)) in by_start.iter().zip(&ranges) {
        offsets[input(key)] = offset;
    }
    Ok(Some(arena_size))
}

/// How many positions after `k` in `by_start` start by `last` (relative
/// first uses in the keys' upper halves, sorted).
#[inline]
fn run_after(by_start: &[u64], k: usize, last: u32) -> usize {
    by_start[k + 1..]
        .iter()
        .take_while(|&&key| (key >> 32) as u32 <= last)
        .count()
}

/// Steps ahead whose list and tensor are asked for.
const NEAR: usize = 8;

/// Asks the cache for what the placements a few steps after `step` read,
/// in stages, each reading what an earlier one brought: the bounds of a
/// list and the run's keys, then the list's entries, the tensor and the
/// run's ranges, then the ranges the list names. Placement order is by
/// size, so at scale each step's list is a cache miss; a hint only, no
/// effect on any result.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn prefetch_ahead(
    step: usize,
    tensors: &[TensorLifetime],
    order: &[usize],
    position_at: &[u32],
    by_start: &[u64],
    starts: &[u32],
    list: &[u32],
    ranges: &[(usize, usize)],
) {
    const FAR: usize = 3 * NEAR;
    const MID: usize = 2 * NEAR;
    if let Some(&position) = position_at.get(step + FAR) {
        let position = position as usize;
        prefetch(&starts[position.saturating_sub(1)]);
        prefetch(&starts[position]);
        prefetch(&by_start[position]);
        prefetch(&order[step + FAR]);
    }
    let begin = |position: usize| match position {
        0 => 0,
        p => starts[p - 1] as usize,
    };
    if let Some(&position) = position_at.get(step + MID) {
        let position = position as usize;
        prefetch(&list[begin(position)]);
        // The run's first ranges: four to a line of 64 bytes.
        for range in ranges[position..].iter().step_by(4).take(3) {
            prefetch(range);
        }
        prefetch(&tensors[order[step + MID]]);
    }
    if let Some(&position) = position_at.get(step + NEAR) {
        let position = position as usize;
        for &q in list[begin(position)..starts[position] as usize]
            .iter()
            .step_by(2)
            .take(4)
        {
            prefetch(&ranges[q as usize]);
        }
    }
}
