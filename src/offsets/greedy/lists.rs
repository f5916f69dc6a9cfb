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
//! pairs where sizes are unrelated to time. An entry is how far back in
//! that order its neighbour starts, at most the longest run: 16 bits
//! where that fits them (lifetimes short against the table, as in most
//! graphs), which halves the lists, the largest allocation of the greedy
//! at scale. The lists, the tensors' byte ranges and every other table
//! are indexed by the position in first-use order: a tensor's neighbours
//! in time are its neighbours in memory.
//!
//! The pairs are counted before the lists are laid out; where there are
//! more than the caller allows, nothing is placed and the caller takes
//! another path.
//!
//! Placement order is by size, so each placement reads from a random
//! place of memory, and at millions of tensors each line it reads there is
//! a cache miss: what it reads is laid out to take few lines. Its
//! tensor's position and size come from one word per step, read in step
//! order; the bounds of its list and of its run from one word per
//! position; then the list's entries and the ranges.
//!
//! The placed tensors' byte ranges are read for every placement, a few
//! dozen from a random place of memory each. A range is one word, its
//! offset above its end, in units of the sizes' largest common power of
//! two, as long as the ends fit 32 bits there (an arena below 4 GiB in
//! bytes, or more in larger units); from the first placement whose end
//! does not, the ranges are converted and kept as two words in bytes.
//! Half the bytes to bring in per range, and the gathered words sort as
//! plain integers.
//!
//! The sort by first use and the tables by position take the words the
//! placement order's sort is done with ([`Spare`]), and the ranges those
//! of a table the set-up is done with: at millions of tensors fresh
//! buffers would be fresh pages, each faulted in on first touch, where
//! those words are resident already.

use super::keys::Spare;
use super::{Clock, Stop, TensorLifetime};
use crate::error::PlanError;
use crate::offsets::radix::{bit_length, sort_packed};
use crate::sys::fallible;
use crate::sys::pages::prefetch;

/// Places the tensors of `order` by best fit against the conflicting
/// tensors placed before each; writes `offsets` and returns the arena, or
/// `Ok(None)` (and writes nothing) if more than `max_pairs` pairs conflict,
/// or the table does not fit the lists' 32-bit entries (more than 2^32 − 1
/// tensors, or endpoints spanning more than 32 bits).
///
/// Errors: [`PlanError::Overflow`] for the first tensor (in `order`) whose
/// end offset passes `usize::MAX`; [`PlanError::OutOfMemory`].
///
/// Complexity: `O(n + E)` time for `E` conflicting pairs (at most
/// `max_pairs` are counted before giving up) while the ranges are packed:
/// a placement's `g_i` gathered ranges (one per conflicting tensor placed
/// before it, `Σ g_i ≤ E`) are sorted by comparison below
/// [`RADIX_FROM`](crate::offsets::radix::RADIX_FROM) of them, by a radix
/// sort of their 32-bit starts from there on; where they are wide,
/// `O(n + E + Σ_i g_i log g_i)`. `O(n + E)` memory: at most 2 bytes per
/// pair where no tensor meets more than 65,535 tensors starting after it,
/// 4 otherwise; 48 per tensor (the ranges: 8 where packed, 16 where not,
/// both while they are converted), and 16 per range of the largest
/// gathering (the gathered ranges and the radix sort's scratch).
pub(super) fn place<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    max_pairs: usize,
    spare: Spare,
    clock: C,
) -> Result<Option<usize>, Stop<C::Late>> {
    let narrow_up_to = usize::from(u16::MAX);
    place_listing(
        tensors,
        order,
        offsets,
        max_pairs,
        spare,
        clock,
        narrow_up_to,
    )
}

/// [`place`], its list entries 16 bits wide where no run is longer than
/// `narrow_up_to` (at most `u16::MAX`; the tests take 0 for 32-bit
/// entries on small tables), 32 otherwise.
pub(super) fn place_listing<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    max_pairs: usize,
    mut spare: Spare,
    clock: C,
    narrow_up_to: usize,
) -> Result<Option<usize>, Stop<C::Late>> {
    let n = order.len();
    let fits = u32::try_from(tensors.len()).is_ok() && u32::try_from(max_pairs).is_ok();
    if n == 0 || !fits {
        return Ok(None);
    }
    // The span of the endpoints, and every size's bits (for the unit the
    // ranges are kept in).
    let (mut low, mut high, mut size_bits) = (usize::MAX, 0usize, 0usize);
    for t in tensors.iter().filter(|t| t.size > 0) {
        low = low.min(t.first_use);
        high = high.max(t.last_use);
        size_bits |= t.size;
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
    clock.check()?;
    let mut step_last = spare.take(n)?;
    step_last.extend(by_start.iter().map(|&key| by_input[input(key)]));
    clock.check()?;

    // A pair of positions `k < q` (found in `k`'s run) where `q` is placed
    // first is read at `k`'s placement from that run, among the placed
    // tensors after `k`; where `k` is placed first it is listed for `q`.
    // Each position's bounds, one word, read together by its placement:
    // where its list starts (upper half; first the count, then the start,
    // then the end) and where its run ends (lower half; read again by the
    // listing and by the placement, which would otherwise scan the run's
    // keys, a line per eight tensors).
    let mut bounds = spare.filled(n, 0)?;
    let (mut pairs, mut longest_run) = (0usize, 0usize);
    for k in 0..n {
        clock.check_at(k)?;
        let (last, step) = (step_last[k] as u32, step_at(step_last[k]));
        let run = run_after(&by_start, k, last);
        longest_run = longest_run.max(run);
        // Below n, which fits u32.
        bounds[k] |= (k + 1 + run) as u64;
        // Branch-free: which of two neighbours is placed first is
        // unpredictable.
        for (count, &later) in bounds[k + 1..][..run].iter_mut().zip(&step_last[k + 1..]) {
            *count += ONE_LISTED * u64::from(step_at(later) > step);
        }
        pairs += run;
        if pairs > max_pairs {
            return Ok(None);
        }
    }
    clock.check()?;
    let mut listed = 0u64;
    for bound in bounds.iter_mut() {
        // At most `max_pairs`, which fits u32.
        let count = *bound >> 32;
        *bound = (listed << 32) | (*bound & 0xFFFF_FFFF);
        listed += count;
    }
    // An entry is how far back its neighbour lies, at most the longest
    // run: where that fits 16 bits (lifetimes short against the table, as
    // they are in most graphs), half the bytes per pair.
    let lists = Lists {
        tensors,
        order,
        by_start,
        by_input,
        step_last,
        bounds,
        listed: listed as usize,
        size_bits,
        longest_run,
    };
    if longest_run <= narrow_up_to {
        lists.place::<u16, C>(offsets, spare, clock)
    } else {
        lists.place::<u32, C>(offsets, spare, clock)
    }
}

/// The set-up's tables once the pairs are counted and each list's end is
/// known: what [`Lists::place`] fills the lists from and places by.
struct Lists<'a> {
    tensors: &'a [TensorLifetime],
    order: &'a [usize],
    by_start: Vec<u64>,
    by_input: Vec<u64>,
    step_last: Vec<u64>,
    bounds: Vec<u64>,
    listed: usize,
    size_bits: usize,
    longest_run: usize,
}

impl Lists<'_> {
    /// Fills the lists with entries `E` and places every tensor; see
    /// [`place`].
    fn place<E: Entry, C: Clock>(
        self,
        offsets: &mut [usize],
        mut spare: Spare,
        clock: C,
    ) -> Result<Option<usize>, Stop<C::Late>> {
        let Lists {
            tensors,
            order,
            by_start,
            by_input,
            step_last,
            mut bounds,
            listed,
            size_bits,
            longest_run,
        } = self;
        let n = order.len();
        // The entries, each list filled from its start on (the start of
        // list `p` moves to its end, which is the start of list `p + 1`). One
        // more entry at the end takes the writes of the pairs not listed, so
        // that the loop has no branch.
        let unlisted = listed;
        let mut list = fallible::filled(unlisted + 1, E::default())?;
        for k in 0..n {
            clock.check_at(k)?;
            let step = step_at(step_last[k]);
            let run = run_end(bounds[k]) - (k + 1);
            let later = bounds[k + 1..][..run].iter_mut().zip(&step_last[k + 1..]);
            for (back, (bound, &later)) in (1..).zip(later) {
                let listed = step_at(later) > step;
                let at = if listed { list_end(*bound) } else { unlisted };
                list[at] = E::back(back);
                *bound += ONE_LISTED * u64::from(listed);
            }
        }
        // The upper half of `bounds[p]` is now the end of list `p`; list `p`
        // begins where list `p - 1` ends.
        clock.check()?;
        // Each step's position (upper half) and size in units (lower half,
        // `u32::MAX` where it does not fit below), in the words of `by_input`:
        // a placement reads them in step order, where the tensor itself would
        // be a line from a random place of the table. Read by position, the
        // sizes come in input order, usually time order too. Made only now,
        // since a table with too many pairs declines before needing them.
        let unit_shift = unit_shift(size_bits);
        let mut at_step = by_input;
        at_step.clear();
        at_step.resize(n, 0);
        for (position, (&word, &key)) in step_last.iter().zip(&by_start).enumerate() {
            let units = tensors[input(key)].size >> unit_shift;
            let units = u32::try_from(units).unwrap_or(u32::MAX);
            at_step[(word >> 32) as usize] = ((position as u64) << 32) | units as u64;
        }
        spare.keep(step_last);

        let tables = Tables {
            unit_shift,
            tensors,
            order,
            at_step: &at_step,
            by_start: &by_start,
            bounds: &bounds,
            list: &list,
            longest_run,
        };
        tables.place(offsets, spare, clock)
    }
}

/// The tables a placement reads, all by position in first-use order but
/// `tensors` and `order`.
struct Tables<'a, E> {
    /// The unit of packed ranges ([`unit_shift`]).
    unit_shift: u32,
    tensors: &'a [TensorLifetime],
    order: &'a [usize],
    /// Each placement step's position (upper half) and its tensor's size
    /// in units (lower half; `u32::MAX` where it does not fit below).
    at_step: &'a [u64],
    /// Packed keys (relative first use above, input index below).
    by_start: &'a [u64],
    /// Where each position's list ends, and the next one starts (upper
    /// half), and where its run of later starters that meet it ends
    /// (lower half).
    bounds: &'a [u64],
    /// Each position's list: how far back each of its earlier-starting
    /// neighbours placed before it lies.
    list: &'a [E],
    /// The most later starters any tensor meets.
    longest_run: usize,
}

impl<E: Entry> Tables<'_, E> {
    /// Places every tensor in `order`, its ranges packed until an end
    /// passes what a packed range holds, then wide from that step on;
    /// writes `offsets` and returns the arena.
    fn place<C: Clock>(
        &self,
        offsets: &mut [usize],
        mut spare: Spare,
        clock: C,
    ) -> Result<Option<usize>, Stop<C::Late>> {
        let n = self.order.len();
        let packed = Packed::new(self.unit_shift);
        let mut ranges = spare.filled(n, Packed::UNPLACED)?;
        let mut arena = 0;
        let Some(step) = self.place_from(packed, &mut ranges, 0, &mut arena, clock)? else {
            self.emit(packed, &ranges, offsets);
            return Ok(Some(packed.bytes(arena)));
        };
        // The placed ranges so far, in bytes; every one fits, as their ends
        // did in units.
        let mut wide = fallible::collect(
            n,
            ranges.iter().map(|&range| {
                if Packed::is_placed(range) {
                    (
                        packed.bytes(Packed::offset(range)),
                        packed.bytes(Packed::end(range)),
                    )
                } else {
                    Wide::UNPLACED
                }
            }),
        )?;
        drop((ranges, spare));
        let mut arena = packed.bytes(arena);
        // Wide ranges hold every end (an end past `usize` is an error).
        self.place_from(Wide, &mut wide, step, &mut arena, clock)?;
        self.emit(Wide, &wide, offsets);
        Ok(Some(arena))
    }

    /// Places the tensors of `order` from `from` on by best fit against
    /// the ranges of their listed neighbours and of the placed tensors of
    /// their runs, keeping the ranges in `form` and the arena (in its
    /// units) in `arena`. Stops at the first step whose end `form` cannot
    /// hold, before placing it, and returns that step; `None` once every
    /// tensor is placed.
    fn place_from<F: Form, C: Clock>(
        &self,
        form: F,
        ranges: &mut [F::Range],
        from: usize,
        arena: &mut usize,
        clock: C,
    ) -> Result<Option<usize>, Stop<C::Late>> {
        // The ranges gathered for one placement, its first `gathered`.
        let mut blocks: Vec<F::Range> = Vec::new();
        let mut scratch = Vec::new();
        for (step, &i) in self.order.iter().enumerate().skip(from) {
            clock.check_at(step)?;
            self.prefetch_ahead(step, ranges);
            let word = self.at_step[step];
            let position = (word >> 32) as usize;
            let size = form.units(match word as u32 {
                u32::MAX => self.tensors[i].size,
                units => (units as usize) << self.unit_shift,
            });
            let earlier = &self.list[self.list_begin(position)..list_end(self.bounds[position])];
            let run = run_end(self.bounds[position]) - (position + 1);
            let needed = earlier.len() + run;
            if blocks.len() < needed {
                let more = needed - blocks.len();
                fallible::reserve(&mut blocks, more)?;
                blocks.resize(needed, F::UNPLACED);
            }
            for (block, &back) in blocks.iter_mut().zip(earlier) {
                *block = ranges[position - back.distance()];
            }
            // The placed tensors of the run, without a branch.
            let mut gathered = earlier.len();
            for &range in &ranges[position + 1..][..run] {
                blocks[gathered] = range;
                gathered += usize::from(F::is_placed(range));
            }
            let offset = F::best_fit(&mut blocks[..gathered], size, *arena, &mut scratch)?;
            let end = offset
                .checked_add(size)
                .ok_or(PlanError::Overflow { tensor: i })?;
            let Some(range) = form.range(offset, end) else {
                return Ok(Some(step));
            };
            ranges[position] = range;
            *arena = (*arena).max(end);
        }
        Ok(None)
    }

    /// Writes each tensor's offset in bytes from `ranges` (by position).
    fn emit<F: Form>(&self, form: F, ranges: &[F::Range], offsets: &mut [usize]) {
        for (&key, &range) in self.by_start.iter().zip(ranges) {
            offsets[(key & 0xFFFF_FFFF) as usize] = form.bytes(F::offset(range));
        }
    }

    /// Asks the cache for what the placements a few steps after `step`
    /// read, in stages, each reading what an earlier one brought: the
    /// word of bounds of a list and of a run, then the list's entries and
    /// the run's ranges, then the ranges the list names. Placement
    /// order is by size, so at scale each step's list is a cache miss; a
    /// hint only, no effect on any result.
    #[inline(always)]
    fn prefetch_ahead<R>(&self, step: usize, ranges: &[R]) {
        const FAR: usize = 3 * NEAR;
        const MID: usize = 2 * NEAR;
        let position_at = |step: usize| self.at_step.get(step).map(|&word| (word >> 32) as usize);
        if let Some(position) = position_at(step + FAR) {
            prefetch(&self.bounds[position.saturating_sub(1)]);
            prefetch(&self.bounds[position]);
        }
        // Ranges to a line of 64 bytes.
        let per_line = (64 / core::mem::size_of::<R>()).max(1);
        if let Some(position) = position_at(step + MID) {
            prefetch(&self.list[self.list_begin(position)]);
            // Its own range and the run's first ones, three lines; where
            // every run is shorter than a line, as a chain's, the lines of
            // its own and its run's last only (the others would be misses
            // for nothing).
            if self.longest_run < per_line {
                prefetch(&ranges[position]);
                prefetch(&ranges[run_end(self.bounds[position]) - 1]);
            } else {
                for range in ranges[position..].iter().step_by(per_line).take(3) {
                    prefetch(range);
                }
            }
        }
        if let Some(position) = position_at(step + NEAR) {
            for &back in self.list[self.list_begin(position)..list_end(self.bounds[position])]
                .iter()
                .step_by(2)
                .take(4)
            {
                prefetch(&ranges[position - back.distance()]);
            }
        }
    }

    /// Where the list of `position` starts: where the one before ends.
    #[inline]
    fn list_begin(&self, position: usize) -> usize {
        match position {
            0 => 0,
            p => list_end(self.bounds[p - 1]),
        }
    }
}

/// A list entry: how many positions before its list's own the
/// neighbour it names lies (at least 1).
trait Entry: Copy + Default {
    /// The entry for a neighbour `distance` positions back; `distance`
    /// fits the type (the caller has checked the longest run).
    fn back(distance: usize) -> Self;
    /// How far back the neighbour lies.
    fn distance(self) -> usize;
}

impl Entry for u16 {
    #[inline]
    fn back(distance: usize) -> Self {
        distance as u16
    }
    #[inline]
    fn distance(self) -> usize {
        usize::from(self)
    }
}

impl Entry for u32 {
    #[inline]
    fn back(distance: usize) -> Self {
        distance as u32
    }
    #[inline]
    fn distance(self) -> usize {
        self as usize
    }
}

/// One more entry in a position's list, in the upper half of its word of
/// bounds.
const ONE_LISTED: u64 = 1 << 32;

/// The input index in a key of `by_start`.
#[inline]
fn input(key: u64) -> usize {
    (key & 0xFFFF_FFFF) as usize
}

/// The placement step in a word of `step_last`.
#[inline]
fn step_at(word: u64) -> u32 {
    (word >> 32) as u32
}

/// Where a position's list ends, from its word of bounds.
#[inline]
fn list_end(bounds: u64) -> usize {
    (bounds >> 32) as usize
}

/// Where a position's run ends, from its word of bounds.
#[inline]
fn run_end(bounds: u64) -> usize {
    bounds as u32 as usize
}

/// The shift of the largest power of two dividing every planned size, from
/// the sizes' bits ORed together (0 if none is planned): every offset of a
/// best-fit plan is a sum of sizes, so it is a multiple of that unit too.
pub(super) fn unit_shift(bits: usize) -> u32 {
    if bits == 0 {
        0
    } else {
        bits.trailing_zeros()
    }
}

/// How a placement keeps the byte ranges of the placed tensors.
trait Form: Copy {
    /// One range.
    type Range: Copy;
    /// An unplaced tensor's range: every placed range differs from it.
    const UNPLACED: Self::Range;
    /// Whether `range` is a placed tensor's.
    fn is_placed(range: Self::Range) -> bool;
    /// The range from `offset` to `end`, in units, if this form holds it.
    fn range(self, offset: usize, end: usize) -> Option<Self::Range>;
    /// Where `range` starts, in units.
    fn offset(range: Self::Range) -> usize;
    /// Best fit for `size` units among `blocks` (reordered here), every
    /// one of which starts below `arena`, with `scratch` to sort them in.
    fn best_fit(
        blocks: &mut [Self::Range],
        size: usize,
        arena: usize,
        scratch: &mut Vec<u64>,
    ) -> Result<usize, PlanError>;
    /// `bytes` in units (every size is a multiple of the unit).
    fn units(self, bytes: usize) -> usize;
    /// `units` in bytes.
    fn bytes(self, units: usize) -> usize;
}

/// Two words per range, in bytes: any range.
#[derive(Clone, Copy)]
struct Wide;

impl Form for Wide {
    type Range = (usize, usize);
    const UNPLACED: (usize, usize) = (0, 0);
    #[inline]
    fn is_placed(range: (usize, usize)) -> bool {
        range.1 > 0 // a placed tensor ends above 0
    }
    #[inline]
    fn range(self, offset: usize, end: usize) -> Option<(usize, usize)> {
        Some((offset, end))
    }
    #[inline]
    fn offset(range: (usize, usize)) -> usize {
        range.0
    }
    #[inline]
    fn best_fit(
        blocks: &mut [(usize, usize)],
        size: usize,
        _: usize,
        _: &mut Vec<u64>,
    ) -> Result<usize, PlanError> {
        Ok(super::best_fit(blocks, size))
    }
    #[inline]
    fn units(self, bytes: usize) -> usize {
        bytes
    }
    #[inline]
    fn bytes(self, units: usize) -> usize {
        units
    }
}

/// One word per range, the offset in its upper half and the end in its
/// lower, in units of `1 << shift` bytes (see [`unit_shift`]), for ends
/// up to `most` units: half the bytes to read per range, and the words
/// sort by start as plain integers.
#[derive(Clone, Copy)]
struct Packed {
    shift: u32,
    /// The largest end held: 32 bits, and in bytes within `usize`.
    most: usize,
}

impl Packed {
    fn new(shift: u32) -> Self {
        Packed {
            shift,
            most: (u32::MAX as usize).min(usize::MAX >> shift),
        }
    }

    /// Where `range` ends, in units.
    fn end(range: u64) -> usize {
        range as u32 as usize
    }
}

impl Form for Packed {
    type Range = u64;
    const UNPLACED: u64 = 0;
    #[inline]
    fn is_placed(range: u64) -> bool {
        range != 0 // a placed tensor ends above 0
    }
    #[inline]
    fn range(self, offset: usize, end: usize) -> Option<u64> {
        (end <= self.most).then_some(((offset as u64) << 32) | end as u64)
    }
    #[inline]
    fn offset(range: u64) -> usize {
        (range >> 32) as usize
    }
    #[inline]
    fn best_fit(
        blocks: &mut [u64],
        size: usize,
        arena: usize,
        scratch: &mut Vec<u64>,
    ) -> Result<usize, PlanError> {
        // By start: the order best fit needs (see `best_fit`; among equal
        // starts any order does). Many blocks (a long lifetime's) sort by
        // their starts' bits alone, in a few passes.
        sort_packed(blocks, scratch, 32, 32 + bit_length(arena as u64))?;
        let ranges = blocks
            .iter()
            .map(|&range| (Packed::offset(range), Packed::end(range)));
        Ok(super::best_fit_sorted_ranges(ranges, size))
    }
    #[inline]
    fn units(self, bytes: usize) -> usize {
        bytes >> self.shift
    }
    #[inline]
    fn bytes(self, units: usize) -> usize {
        units << self.shift
    }
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

/// Steps ahead whose listed ranges are asked for (the list and the run's
/// ranges twice as far ahead, the bounds three times).
const NEAR: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offsets::radix::RADIX_FROM;

    #[test]
    fn packed_best_fit_agrees_with_the_wide_one_below_and_above_the_radix_sort() {
        // Overlapping ranges of every length in random order, some with
        // equal starts, below the radix sort's threshold and above it; the
        // oracle is best fit over the same ranges in bytes, sorted by a
        // comparison sort.
        let mut rng = crate::rng::XorShift(0x5EED_0033);
        let mut scratch = Vec::new();
        for round in 0..60 {
            let count = match round % 3 {
                0 => 1 + rng.below(RADIX_FROM),
                _ => RADIX_FROM + rng.below(3 * RADIX_FROM),
            };
            let reach = 1 << (12 + round % 9);
            let mut wide: Vec<(usize, usize)> = (0..count)
                .map(|_| {
                    let start = rng.below(reach) & !(round % 4);
                    let reach_of_length = 1 << rng.below(13);
                    (start, start + 1 + rng.below(reach_of_length))
                })
                .collect();
            let arena = wide.iter().map(|&(start, _)| start + 1).max().unwrap();
            let packed = Packed::new(0);
            let mut blocks: Vec<u64> = wide
                .iter()
                .map(|&(start, end)| packed.range(start, end).unwrap())
                .collect();
            let size = 1 + rng.below(64);
            let expected = Wide::best_fit(&mut wide, size, 0, &mut Vec::new()).unwrap();
            let found = Packed::best_fit(&mut blocks, size, arena, &mut scratch).unwrap();
            assert_eq!((found, round), (expected, round));
        }
    }
}
