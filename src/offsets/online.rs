//! The fallback plan of a capped search: an online first-fit allocator,
//! simulated in time order, whose cost does not depend on the number of
//! conflicting pairs.
//!
//! # Algorithm
//!
//! The tensors are taken by first use (at one node, larger first; ties by
//! input index). Before the tensors of node `t` are placed, every tensor
//! whose last use is before `t` gives its bytes back; then each tensor of
//! node `t` takes the lowest free block that holds it (first fit), the rest
//! of the block staying free. Free blocks are kept coalesced in a treap by
//! offset, each subtree knowing its largest block, so the lowest block of at
//! least `w` bytes is one descent; the block above the highest taken byte
//! runs to `usize::MAX`, so a block is always found unless an end offset
//! would pass `usize::MAX`.
//!
//! # What is exact
//!
//! Soundness by construction: when tensor `j` is placed at its first use
//! `f_j`, every tensor `i` placed before it whose lifetime meets `j`'s
//! (`f_i ≤ f_j ≤ l_i`) has not given its bytes back (it does so only once
//! `l_i < t`), so `j`'s block is disjoint from `i`'s. Not claimed: any ratio
//! to the optimum (online first fit can be a logarithmic factor above it);
//! it is the plan to fall back on, never better than what it is kept beside
//! unless those are late.
//!
//! # Complexity
//!
//! `O(n log n)` time: two sorts, and per tensor one descent of an
//! expected `O(log b)`-deep treap to take its bytes and one to give them
//! back (plus a split and two merges when they touch no free block, a
//! merge when they join two), `b` the free blocks (priorities are seeded,
//! so the plan is the same on every run); `O(n)` memory (at most one free
//! block more than the tensors live at once). `E` plays no part. The plan
//! is the first-fit plan by definition whatever the treap's shape: it
//! depends only on the set of free bytes.

use std::time::{Duration, Instant};

use super::peak::Survey;
use super::{MemoryPlan, TensorLifetime};
use crate::error::PlanError;
use crate::sys::fallible::{self, ZeroValid};

/// No node.
const NIL: usize = usize::MAX;

/// Items between two readings of the clock of [`plan_with`], in each of
/// its passes and in its placements: tables of fewer planned tensors than
/// this always get the whole first-fit plan.
const CLOCK_PERIOD: usize = 4096;

/// An entry of the time order: `(first use, usize::MAX - size, index, last
/// use)`.
type Entry = (usize, usize, usize, usize);

/// What [`plan_with`] asks at each reading of its clock.
trait Cut {
    /// Whether to give the work in hand up now for a stack, `reserve`
    /// being about the time the stack (and writing the plan out) will take.
    fn now(&mut self, reserve: Duration) -> bool;

    /// What first fit is to do at one of its readings: go on while more
    /// than `first_fit` is left; else give way to size-class slots (which
    /// read the clock too); or, with `stack` or less left, to a stack,
    /// `stack` being about the time it (and writing the plan out) takes.
    fn choose(&mut self, first_fit: Duration, stack: Duration) -> Choice {
        if !self.now(first_fit) {
            Choice::GoOn
        } else if self.now(stack) {
            Choice::Stack
        } else {
            Choice::Slots
        }
    }
}

/// What first fit does at a reading of the clock ([`Cut::choose`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Choice {
    GoOn,
    Slots,
    Stack,
}

/// A deadline, if any: give up once `reserve` or less is left before it.
impl Cut for Option<Instant> {
    fn now(&mut self, reserve: Duration) -> bool {
        self.is_some_and(|d| d.saturating_duration_since(Instant::now()) <= reserve)
    }
}

/// Plans `tensors` (sizes already rounded, lifetimes validated) by online
/// first fit in time order; zero-size tensors get offset 0.
///
/// Errors: [`PlanError::Overflow`] naming a tensor whose end offset would
/// pass `usize::MAX`; [`PlanError::OutOfMemory`].
#[cfg(test)]
fn plan(tensors: &[TensorLifetime]) -> Result<MemoryPlan, PlanError> {
    plan_until(tensors, None).map(|online| online.plan)
}

/// [`plan`], cut short by `deadline` (always the whole first-fit plan
/// without one). [`plan_with`] with nothing known beforehand.
///
/// Errors: those of [`plan`].
#[cfg(test)]
fn plan_until(tensors: &[TensorLifetime], deadline: Option<Instant>) -> Result<Online, PlanError> {
    let mut deadline = deadline;
    let survey = Survey::of(tensors)?;
    plan_cut(tensors, &survey, Vec::new(), Duration::ZERO, &mut deadline)
}

/// What [`plan_with`] made: the plan; how many planned tensors a cut left
/// out of first fit; and how many of those it stacked (the others went to
/// size-class slots). Both 0 for the whole first-fit plan.
#[derive(Debug)]
pub(crate) struct Online {
    pub(crate) plan: MemoryPlan,
    pub(crate) left_out: usize,
    pub(crate) stacked: usize,
}

/// The online first-fit plan of `tensors` (sizes already rounded,
/// lifetimes validated; zero-size tensors get offset 0), whose [`Survey`]
/// is `survey`, cut short by `deadline` ([`Online`] says how much was cut).
/// The offsets are written to `buffer`'s memory (its contents are not
/// read), which saves touching fresh memory when it has room for them.
///
/// The clock is read once before the time order is begun, which is not
/// begun with less than `ordering` left before the deadline (the caller's
/// estimate of what the ordering passes cost at least); then every
/// [`CLOCK_PERIOD`] items of the passes that order the tensors and every
/// [`CLOCK_PERIOD`] placements. A cut before the order is complete stacks
/// every planned tensor in input order from 0. A cut among the placements
/// leaves the tensors placed so far where first fit put them, and places
/// the others above the highest end placed, still in time order:
///
/// - in size-class slots ([`Slots`]), once the time left holds no more
///   than slots for the rest (taken to cost half of first fit's pace so
///   far) and a stack, while it still holds the stack: each size class (a
///   quarter of an octave of sizes) is a row of equal slots as wide as
///   its largest tensor, and a tensor takes a freed slot of the smallest
///   class at or above its own, or a new one in its class's row;
/// - else, or once the slots run short of time too, stacked, each at the
///   end of the one before.
///
/// Sound either way: everything placed by first fit lies below the
/// slots, and the slots below the stack. A stack can reach the sum of the
/// sizes (no worse than that, since a first-fit arena never passes the sum
/// of the sizes it has placed); the slots reach the sum over classes of
/// the class's width times the most tensors of that class or smaller ones
/// live at once (a new slot is made only while every slot of the class
/// holds a live tensor, each of the class or a smaller one, slots being
/// handed out in time order and freed once their tensor's last use has
/// passed). The clock is not read
/// on tables of fewer than [`CLOCK_PERIOD`] planned tensors, nor when the
/// sizes sum past `usize::MAX` (a stack would overflow where first fit may
/// not).
///
/// Errors: [`PlanError::Overflow`] naming a tensor whose end offset would
/// pass `usize::MAX`; [`PlanError::OutOfMemory`].
pub(crate) fn plan_with(
    tensors: &[TensorLifetime],
    survey: &Survey,
    buffer: Vec<usize>,
    ordering: Duration,
    deadline: Option<Instant>,
) -> Result<Online, PlanError> {
    let mut deadline = deadline;
    plan_cut(tensors, survey, buffer, ordering, &mut deadline)
}

/// [`plan_with`] asking `cut` at each reading of the clock.
fn plan_cut(
    tensors: &[TensorLifetime],
    survey: &Survey,
    buffer: Vec<usize>,
    ordering: Duration,
    cut: &mut impl Cut,
) -> Result<Online, PlanError> {
    let Some(order) = time_order(tensors, survey, ordering, cut)? else {
        return Ok(Online {
            plan: stacked(tensors, buffer)?,
            left_out: survey.planned,
            stacked: survey.planned,
        });
    };
    let TimeOrder {
        by_first,
        by_last,
        step,
        pass,
        clocked,
    } = order;
    let planned = by_first.len();
    let size_at = |pos: usize| usize::MAX - by_first[pos].1;

    // Offsets by position in `by_first` (slot numbers for the tensors in
    // slots until they are laid out), written to the input's order at the
    // end.
    let mut placed = fresh_zeroed(planned)?;
    let mut free = FreeBlocks::new(planned)?;
    let mut slots: Option<Slots> = None;
    let mut arena = 0usize;
    let mut freed = 0;
    // Where the stack begins, if there is one.
    let mut stack_from = planned;
    // Stacking a tensor, writing its offset out, and giving back its
    // entries in the orders (unmapped pages, a few words each) each cost
    // about half a step of the pass that wrote the first order (an entry
    // four times the size), and less than a step of the pass that wrote
    // the second (reading the first in order and writing two words a
    // tensor): the lesser of the two is taken. So a cut reserves, beyond
    // the stack, two operations per tensor planned.
    let operation = (step / 2).min(pass);
    let operations = |count: usize| operation.saturating_mul(clamp_u32(count));
    let after_the_stack = planned.saturating_mul(2);
    let first_fit_began = Instant::now();
    for (pos, &(first_use, room, i, _)) in by_first.iter().enumerate() {
        if clocked && pos > 0 && pos % CLOCK_PERIOD == 0 {
            let rest = planned - pos;
            match &slots {
                None => {
                    // First fit goes on while the time left holds slots for
                    // the rest, taken to cost half as much as first fit has
                    // so far (a slot is taken in a few steps, where first
                    // fit descends a tree), and a stack.
                    let stack = operations(rest.saturating_add(after_the_stack));
                    let pace = per_tensor(first_fit_began, pos).saturating_mul(clamp_u32(rest));
                    let by_first_fit = stack.saturating_add(pace / 2);
                    match cut.choose(by_first_fit, stack) {
                        Choice::GoOn => {}
                        Choice::Slots => slots = Some(Slots::new(pos, arena, rest)?),
                        Choice::Stack => {
                            stack_from = pos;
                            break;
                        }
                    }
                }
                Some(slots) => {
                    // Laying a slot out costs about what stacking does.
                    let laid_out = rest + (pos - slots.from);
                    if cut.now(operations(laid_out.saturating_add(after_the_stack))) {
                        stack_from = pos;
                        break;
                    }
                }
            }
        }
        let size = usize::MAX - room;
        while let Some(&(last_use, q)) = by_last.get(freed) {
            if last_use >= first_use {
                break;
            }
            match &mut slots {
                None => free.give_back(placed[q], size_at(q))?,
                Some(slots) if q >= slots.from => slots.give_back(q, placed[q])?,
                // Placed by first fit, below every slot.
                Some(_) => {}
            }
            freed += 1;
        }
        placed[pos] = match &mut slots {
            None => {
                let offset = free.take(size)?.ok_or(PlanError::Overflow { tensor: i })?;
                // `take` only hands out blocks inside `0..=usize::MAX`.
                arena = arena.max(offset + size);
                offset
            }
            Some(slots) => slots.take(pos, size),
        };
    }
    drop(free);
    // `arena` is at most the sum of the sizes first fit placed (a
    // first-fit block starts at or below the highest end before it), so a
    // stack of all the others from there ends within the sum of all sizes,
    // which fits.
    let left_out = planned - slots.as_ref().map_or(stack_from, |slots| slots.from);
    if let Some(slots) = &slots {
        let (from, to) = (slots.from, stack_from);
        let top = slots.lay_out(&by_first[from..to], &mut placed[from..to]);
        let rest = (to..planned).try_fold(0usize, |sum, pos| sum.checked_add(size_at(pos)));
        match top
            .zip(rest)
            .filter(|&(top, rest)| top.checked_add(rest).is_some())
        {
            Some((top, _)) => arena = top,
            // Rows wider than their tensors, past `usize::MAX`: all stacked.
            None => stack_from = from,
        }
    }
    let stacked_count = planned - stack_from;
    arena = stack(&by_first[stack_from..], &mut placed[stack_from..], arena);
    let mut offsets = zeroed_in(buffer, tensors.len())?;
    for (&(_, _, i, _), &offset) in by_first.iter().zip(&placed) {
        offsets[i] = offset;
    }
    let plan = MemoryPlan {
        offsets,
        arena_size: arena,
    };
    Ok(Online {
        plan,
        left_out,
        stacked: stacked_count,
    })
}

/// The size classes of [`Slots`]: four per octave of sizes up to
/// `usize::MAX` on 64-bit targets (a byte per class number).
const SLOT_CLASSES: usize = 256;

/// The size class of `size` (at least 1): its octave, and the two bits
/// below its highest, so that a class's largest size is less than a
/// quarter above its smallest. Classes grow with sizes.
fn size_class(size: usize) -> usize {
    let octave = usize::BITS - 1 - size.leading_zeros();
    let quarter = if octave >= 2 {
        (size >> (octave - 2)) & 3
    } else {
        (size << (2 - octave)) & 3
    };
    4 * octave as usize + quarter
}

/// Size-class slots for the tensors a cut first-fit plan leaves, taken in
/// time order: each class is a row of slots, each as wide as the largest
/// tensor of the class, and a tensor takes a freed slot of the smallest
/// class at or above its own that has one (a slot as wide as the class's
/// largest tensor holds every smaller one), or else a new one at the end of
/// its own class's row. `O(1)` a tensor (freed slots kept on a stack per
/// class, the classes that have any in a bit set), one byte of memory a
/// tensor (the class of its slot) and a word a freed slot.
struct Slots {
    /// The first position (in time order) placed here.
    from: usize,
    /// The highest end first fit placed: the rows begin there.
    base: usize,
    /// Slots made, per class.
    made: Vec<usize>,
    /// The largest size of the class, per class.
    width: Vec<usize>,
    /// Freed slots, per class.
    free: Vec<Vec<usize>>,
    /// The classes with a freed slot, a bit each.
    freed: [u64; SLOT_CLASSES / 64],
    /// The class of each tensor's slot, by position from `from`.
    class_of: Vec<u8>,
}

impl Slots {
    /// No slot yet, above `base`, for the `left` tensors from position
    /// `from` on.
    fn new(from: usize, base: usize, left: usize) -> Result<Self, PlanError> {
        let mut free = fallible::with_capacity(SLOT_CLASSES)?;
        free.resize_with(SLOT_CLASSES, Vec::new);
        Ok(Slots {
            from,
            base,
            made: fallible::filled(SLOT_CLASSES, 0)?,
            width: fallible::filled(SLOT_CLASSES, 0)?,
            free,
            freed: [0; SLOT_CLASSES / 64],
            class_of: fresh_zeroed(left)?,
        })
    }

    /// A slot for the tensor at position `pos`, of `size`.
    fn take(&mut self, pos: usize, size: usize) -> usize {
        let own = size_class(size);
        self.width[own] = self.width[own].max(size);
        let (class, slot) = match self.freed_from(own) {
            Some(class) => {
                let slots = &mut self.free[class];
                // A class's bit is set while it has a freed slot.
                let slot = slots.pop().unwrap_or_default();
                if slots.is_empty() {
                    self.freed[class / 64] &= !(1 << (class % 64));
                }
                (class, slot)
            }
            None => {
                self.made[own] += 1;
                (own, self.made[own] - 1)
            }
        };
        // Below SLOT_CLASSES, 256.
        self.class_of[pos - self.from] = class as u8;
        slot
    }

    /// The smallest class from `class` on with a freed slot.
    fn freed_from(&self, class: usize) -> Option<usize> {
        let mut word = class / 64;
        let mut bits = self.freed[word] & (u64::MAX << (class % 64));
        while bits == 0 {
            word += 1;
            bits = *self.freed.get(word)?;
        }
        Some(64 * word + bits.trailing_zeros() as usize)
    }

    /// Gives back the slot of the tensor at position `pos`, `slot`.
    fn give_back(&mut self, pos: usize, slot: usize) -> Result<(), PlanError> {
        let class = usize::from(self.class_of[pos - self.from]);
        fallible::push(&mut self.free[class], slot)?;
        self.freed[class / 64] |= 1 << (class % 64);
        Ok(())
    }

    /// Turns the slot numbers of `placed` (of the tensors of `entries`,
    /// from position `from` on) into offsets: the rows one above another
    /// from `base`, smaller classes lower; the highest end (`base` if
    /// there is none), or `None` (`placed` unchanged) if the rows would
    /// pass `usize::MAX`.
    fn lay_out(&self, entries: &[Entry], placed: &mut [usize]) -> Option<usize> {
        let mut row = [0usize; SLOT_CLASSES];
        let mut top = self.base;
        for ((start, &made), &width) in row.iter_mut().zip(&self.made).zip(&self.width) {
            *start = top;
            top = top.checked_add(made.checked_mul(width)?)?;
        }
        let mut highest = self.base;
        for ((slot, &class), &(_, room, _, _)) in placed.iter_mut().zip(&self.class_of).zip(entries)
        {
            let class = usize::from(class);
            // Within the rows, below `top`: the slot is one of those made,
            // as wide as the tensor at least.
            *slot = row[class] + *slot * self.width[class];
            highest = highest.max(*slot + (usize::MAX - room));
        }
        Some(highest)
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Stacks the tensors of `rest` (entries of the time order) in order from
/// `base` up, writing their offsets to `placed`; the new arena. The caller
/// knows that `base` plus their sizes fits in `usize`.
fn stack(rest: &[Entry], placed: &mut [usize], base: usize) -> usize {
    let mut top = base;
    for (&(_, room, _, _), slot) in rest.iter().zip(placed) {
        *slot = top;
        top += usize::MAX - room;
    }
    top
}

/// Every planned tensor of `tensors` stacked in input order from 0, whose
/// sizes the caller knows to sum within `usize`; zero-size tensors at 0.
/// The offsets are written to `buffer`'s memory in one pass.
/// Errors: [`PlanError::OutOfMemory`].
fn stacked(tensors: &[TensorLifetime], buffer: Vec<usize>) -> Result<MemoryPlan, PlanError> {
    let mut offsets = buffer;
    offsets.clear();
    fallible::reserve(&mut offsets, tensors.len())?;
    let mut top = 0usize;
    offsets.extend(tensors.iter().map(|t| {
        let offset = if t.size > 0 { top } else { 0 };
        top += t.size;
        offset
    }));
    Ok(MemoryPlan {
        offsets,
        arena_size: top,
    })
}

/// `len` zeros in `buffer`'s memory, or in fresh memory if it has too
/// little room. Errors: [`PlanError::OutOfMemory`].
fn zeroed_in(mut buffer: Vec<usize>, len: usize) -> Result<Vec<usize>, PlanError> {
    if buffer.capacity() < len {
        return fresh_zeroed(len);
    }
    buffer.clear();
    buffer.resize(len, 0);
    Ok(buffer)
}

/// `len` zeros in fresh memory, each page first touched by the pass that
/// writes it, between that pass's readings of the clock (where zeroing it
/// all at once here would be a stretch of work the clock does not see).
/// Not advised huge pages, though they would make the first touch
/// cheaper: a fault in an advised range may compact memory first, a stall
/// of tens of milliseconds that no reading of the clock sees coming, where
/// a capped call needs each stretch of work short. Errors:
/// [`PlanError::OutOfMemory`].
fn fresh_zeroed<T: ZeroValid>(len: usize) -> Result<Vec<T>, PlanError> {
    fallible::zeroed(len)
}

/// The planned tensors of `tensors` (whose [`Survey`] is `survey`) in
/// time order (entries sorted: by first use, larger first, then by index),
/// and as `(last use, position in the first)` sorted by last use, then
/// position; `None` if `cut` says to give up: asked first with `ordering`
/// as the reserve, before anything is written, then every
/// [`CLOCK_PERIOD`] items of each pass (and, on dense tables, once before
/// the first order is allocated), with about the time stacking every
/// tensor would take as the reserve. It is asked only on tables of at
/// least [`CLOCK_PERIOD`] planned tensors whose sizes sum within `usize`.
///
/// Sorted as keys packed beside the index (and the last use, which the
/// index decides ties before), not as indices compared through the table:
/// the placements then read memory in order. When the node indices are
/// dense (a range less than twice the tensor count plus 1,024, as a
/// compiler's are), both orders are counted out by node in `O(n)`, the
/// tensors that start at one node then sorted among themselves; otherwise
/// sorted, unstable with the index as the last key compared (the same order
/// on every run, no scratch buffer behind the fallible ones), `cut` being
/// asked once before the sorts, which read no clock, with their expected
/// time added to the reserve.
///
/// The tensors given back are taken by last use, as positions in the first
/// order: a sort, not a heap of the live tensors, whose every step misses
/// the cache when most tensors are live at once. The order among equal last
/// uses does not matter: they are always given back together, and the free
/// bytes after that are the same. Positions, not input indices: where
/// lifetimes are short, a tensor given back was placed shortly before, so
/// its size and offset are read near those of the tensors placed since,
/// not at a random place of the input.
///
/// Errors: [`PlanError::OutOfMemory`].
fn time_order(
    tensors: &[TensorLifetime],
    survey: &Survey,
    ordering: Duration,
    cut: &mut impl Cut,
) -> Result<Option<TimeOrder>, PlanError> {
    let Survey {
        planned,
        low,
        high,
        total,
        ..
    } = *survey;
    let clocked = total.is_some() && planned >= CLOCK_PERIOD;
    // A cap too short for the ordering passes is known before any of
    // them: the stack then costs one pass over the table.
    if clocked && cut.now(ordering) {
        return Ok(None);
    }
    let entry =
        |(i, t): (usize, &TensorLifetime)| (t.first_use, usize::MAX - t.size, i, t.last_use);
    let dense = low <= high && high - low < 2 * planned + 1024;
    if !dense {
        let began = Instant::now();
        let mut by_first: Vec<Entry> = fallible::with_capacity(planned)?;
        by_first.extend(
            (tensors.iter().enumerate())
                .filter(|(_, t)| t.size > 0)
                .map(entry),
        );
        let step = per_tensor(began, planned);
        // The stack, and the two sorts: each about a pass like the one
        // timed per level of a merge, `log2 n` levels.
        let levels = planned.max(2).ilog2();
        let reserve = step
            .saturating_mul(clamp_u32(planned))
            .saturating_mul(1 + 2 * levels);
        if clocked && cut.now(reserve) {
            return Ok(None);
        }
        by_first.sort_unstable();
        let began = Instant::now();
        let mut by_last: Vec<(usize, usize)> = fallible::with_capacity(planned)?;
        by_last.extend(
            (by_first.iter().enumerate()).map(|(pos, &(_, _, _, last_use))| (last_use, pos)),
        );
        let pass = per_tensor(began, planned);
        by_last.sort_unstable();
        return Ok(Some(TimeOrder {
            by_first,
            by_last,
            step,
            pass,
            clocked,
        }));
    }
    // Counting sorts over the nodes `low..=high`: `starts[k]` is where the
    // tensors of node `low + k` begin in the order. The count's time (a
    // read of the table, a write to fresh memory per tensor) gives the
    // reserve of a cut.
    let began = Instant::now();
    let nodes = high - low + 1;
    let mut starts = fresh_zeroed(nodes + 1)?;
    for t in tensors.iter().filter(|t| t.size > 0) {
        starts[t.first_use - low + 1] += 1;
    }
    // The stack reads the table as the count did and writes a word per
    // tensor, and the orders' memory, up to six words per tensor, is then
    // given back: taken as four counts.
    let mut reading = Reading {
        cut,
        clocked,
        reserve: per_tensor(began, planned).saturating_mul(clamp_u32(planned).saturating_mul(4)),
    };
    prefix_sums(&mut starts);
    // Before the order's fresh memory is touched: a cut here costs no more
    // than the count did and the stack.
    if reading.now() {
        return Ok(None);
    }
    // Written in input order: stable, so each node's tensors are in index
    // order; then sorted among themselves (larger first, then by index).
    let began = Instant::now();
    let mut by_first = fresh_zeroed(planned)?;
    let planned_tensors = tensors.iter().enumerate().filter(|(_, t)| t.size > 0);
    for (k, (i, t)) in planned_tensors.enumerate() {
        if reading.late(k) {
            return Ok(None);
        }
        let slot = &mut starts[t.first_use - low];
        by_first[*slot] = entry((i, t));
        *slot += 1;
    }
    let step = per_tensor(began, planned);
    // `starts[k]` is now where the tensors of node `low + k` end.
    let mut run = 0;
    for (k, &end) in starts[..nodes].iter().enumerate() {
        if reading.late(k) {
            return Ok(None);
        }
        if end - run > 1 {
            by_first[run..end].sort_unstable();
        }
        run = end;
    }
    starts.fill(0);
    for (k, &(_, _, _, last_use)) in by_first.iter().enumerate() {
        if reading.late(k) {
            return Ok(None);
        }
        starts[last_use - low + 1] += 1;
    }
    prefix_sums(&mut starts);
    // Before more fresh memory is touched, as before the first order's.
    if reading.now() {
        return Ok(None);
    }
    let began = Instant::now();
    let mut by_last = fresh_zeroed(planned)?;
    for (pos, &(_, _, _, last_use)) in by_first.iter().enumerate() {
        if reading.late(pos) {
            return Ok(None);
        }
        let slot = &mut starts[last_use - low];
        by_last[*slot] = (last_use, pos);
        *slot += 1;
    }
    Ok(Some(TimeOrder {
        by_first,
        by_last,
        step,
        pass: per_tensor(began, planned),
        clocked,
    }))
}

/// The two orders of [`time_order`]; the time per tensor of the passes
/// that wrote the first (`step`) and the second (`pass`), into fresh
/// memory as stacking and writing the offsets out do; and whether the
/// clock is read: at least [`CLOCK_PERIOD`] planned tensors whose sizes
/// sum within `usize`, so that a stack of them cannot overflow.
struct TimeOrder {
    by_first: Vec<Entry>,
    by_last: Vec<(usize, usize)>,
    step: Duration,
    pass: Duration,
    clocked: bool,
}

/// The clock of the ordering passes: `cut` asked, with `reserve`, at every
/// [`CLOCK_PERIOD`]-th item of a pass (and once between the count and the
/// first pass) when `clocked`.
struct Reading<'a, C> {
    cut: &'a mut C,
    clocked: bool,
    reserve: Duration,
}

impl<C: Cut> Reading<'_, C> {
    /// Whether to give up now.
    fn now(&mut self) -> bool {
        self.clocked && self.cut.now(self.reserve)
    }

    /// Whether to give up at item `k` of a pass.
    fn late(&mut self, k: usize) -> bool {
        (k + 1) % CLOCK_PERIOD == 0 && self.now()
    }
}

/// Each entry the sum of those up to it.
fn prefix_sums(counts: &mut [usize]) {
    for k in 1..counts.len() {
        counts[k] += counts[k - 1];
    }
}

/// The time since `began` per tensor of `planned`.
fn per_tensor(began: Instant, planned: usize) -> Duration {
    began.elapsed() / clamp_u32(planned.max(1))
}

/// Free byte ranges, pairwise disjoint and never adjacent (coalesced), in a
/// treap keyed by offset; node slots are reused.
struct FreeBlocks {
    /// The nodes, each in one place (a descent reads one line per node).
    nodes: Vec<Block>,
    /// Unused slots.
    spare: Vec<usize>,
    /// Scratch: the nodes on one search path from the root.
    path: Vec<usize>,
    root: usize,
    /// State of the priorities' generator.
    seed: u64,
}

/// A free block and its subtree.
#[derive(Clone, Copy)]
struct Block {
    start: usize,
    /// The block's bytes: `usize::MAX - start` for the block at the top.
    size: usize,
    /// Largest block of the subtree.
    largest: usize,
    priority: u64,
    left: usize,
    right: usize,
}

impl FreeBlocks {
    /// All of `0..usize::MAX` free, with room for the blocks of `planned`
    /// tensors taken at once (one block more than tensors, at most).
    fn new(planned: usize) -> Result<Self, PlanError> {
        let slots = planned.saturating_add(2);
        let mut blocks = FreeBlocks {
            nodes: fallible::with_capacity(slots)?,
            spare: fallible::with_capacity(slots)?,
            path: Vec::new(),
            root: NIL,
            seed: 0x2545_F491_4F6C_DD1D,
        };
        blocks.root = blocks.node(0, usize::MAX)?;
        Ok(blocks)
    }

    /// A new single-node tree for the block `start..start + size`.
    fn node(&mut self, start: usize, size: usize) -> Result<usize, PlanError> {
        // splitmix64: seeded, so the treap's shape is the same on every run.
        self.seed = self.seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let block = Block {
            start,
            size,
            largest: size,
            priority: z ^ (z >> 31),
            left: NIL,
            right: NIL,
        };
        if let Some(slot) = self.spare.pop() {
            self.nodes[slot] = block;
            return Ok(slot);
        }
        fallible::push(&mut self.nodes, block)?;
        Ok(self.nodes.len() - 1)
    }

    /// Returns `slot` to the spare slots (room for every slot was reserved).
    fn recycle(&mut self, slot: usize) -> Result<(), PlanError> {
        fallible::push(&mut self.spare, slot)
    }

    fn largest_of(&self, t: usize) -> usize {
        if t == NIL {
            0
        } else {
            self.nodes[t].largest
        }
    }

    /// Recomputes `largest` of `t` from its children.
    fn pull(&mut self, t: usize) {
        let Block {
            size, left, right, ..
        } = self.nodes[t];
        let below = self.largest_of(left).max(self.largest_of(right));
        self.nodes[t].largest = size.max(below);
    }

    /// Takes the lowest `size` bytes of the lowest free block of at least
    /// `size` bytes; its offset, or `None` if no block is that large.
    fn take(&mut self, size: usize) -> Result<Option<usize>, PlanError> {
        if self.largest_of(self.root) < size {
            return Ok(None);
        }
        let (root, offset) = self.take_in(self.root, size)?;
        self.root = root;
        Ok(Some(offset))
    }

    /// [`FreeBlocks::take`] in the subtree `t`, whose largest block holds
    /// `size`: the subtree's new root and the offset.
    fn take_in(&mut self, t: usize, size: usize) -> Result<(usize, usize), PlanError> {
        let node = self.nodes[t];
        if self.largest_of(node.left) >= size {
            let (left, offset) = self.take_in(node.left, size)?;
            self.nodes[t].left = left;
            self.pull(t);
            return Ok((t, offset));
        }
        if node.size >= size {
            if node.size == size {
                let merged = self.merge(node.left, node.right);
                self.recycle(t)?;
                return Ok((merged, node.start));
            }
            // The rest stays free, between the same neighbours.
            self.nodes[t].start += size;
            self.nodes[t].size -= size;
            self.pull(t);
            return Ok((t, node.start));
        }
        let (right, offset) = self.take_in(node.right, size)?;
        self.nodes[t].right = right;
        self.pull(t);
        Ok((t, offset))
    }

    /// Gives the bytes `start..start + size` back (they are taken: no free
    /// block meets them), coalescing with the free blocks on either side.
    ///
    /// The blocks just below and above them are both on the path of a
    /// search for `start`, so when either touches them the blocks are
    /// merged in place along that one path; only bytes between two taken
    /// ranges make a new node, split in.
    fn give_back(&mut self, start: usize, size: usize) -> Result<(), PlanError> {
        let end = start + size;
        self.path.clear();
        let (mut below, mut above) = (None, None);
        let mut t = self.root;
        while t != NIL {
            fallible::push(&mut self.path, t)?;
            let node = self.nodes[t];
            if node.start < start {
                below = Some(self.path.len() - 1);
                t = node.right;
            } else {
                above = Some(self.path.len() - 1);
                t = node.left;
            }
        }
        // The positions on the path of the blocks that touch the bytes.
        let below = below.filter(|&k| {
            let node = self.nodes[self.path[k]];
            node.start + node.size == start
        });
        let above = above.filter(|&k| self.nodes[self.path[k]].start == end);
        match (below, above) {
            (None, None) => return self.insert(start, size),
            (Some(kb), None) => {
                let b = self.path[kb];
                self.nodes[b].size += size;
            }
            (None, Some(ka)) => {
                let a = self.path[ka];
                self.nodes[a].start = start;
                self.nodes[a].size += size;
            }
            (Some(kb), Some(ka)) => {
                let (b, a) = (self.path[kb], self.path[ka]);
                self.nodes[b].size += size + self.nodes[a].size;
                self.pull_path(self.path.len());
                // The block above leaves the tree: its children take its
                // place under its parent (a merge pulls every node it
                // moves), and the nodes above that are pulled again.
                let merged = self.merge(self.nodes[a].left, self.nodes[a].right);
                match ka.checked_sub(1).map(|k| self.path[k]) {
                    None => self.root = merged,
                    Some(parent) if self.nodes[parent].left == a => {
                        self.nodes[parent].left = merged
                    }
                    Some(parent) => self.nodes[parent].right = merged,
                }
                self.recycle(a)?;
                self.pull_path(ka);
                return Ok(());
            }
        }
        self.pull_path(self.path.len());
        Ok(())
    }

    /// Recomputes `largest` of the first `len` nodes of `path`, deepest
    /// first.
    fn pull_path(&mut self, len: usize) {
        for k in (0..len).rev() {
            self.pull(self.path[k]);
        }
    }

    /// Gives back `start..start + size`, which touches no free block, as a
    /// block of its own.
    fn insert(&mut self, start: usize, size: usize) -> Result<(), PlanError> {
        let (below, above) = self.split(self.root, start);
        let block = self.node(start, size)?;
        let lower = self.merge(below, block);
        self.root = self.merge(lower, above);
        Ok(())
    }

    /// Splits `t` into the blocks starting below `key` and the others.
    fn split(&mut self, t: usize, key: usize) -> (usize, usize) {
        if t == NIL {
            return (NIL, NIL);
        }
        let node = self.nodes[t];
        if node.start < key {
            let (mid, high) = self.split(node.right, key);
            self.nodes[t].right = mid;
            self.pull(t);
            (t, high)
        } else {
            let (low, mid) = self.split(node.left, key);
            self.nodes[t].left = mid;
            self.pull(t);
            (low, t)
        }
    }

    /// Joins `a` and `b`, every block of `a` below every block of `b`.
    fn merge(&mut self, a: usize, b: usize) -> usize {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a].priority > self.nodes[b].priority {
            let right = self.merge(self.nodes[a].right, b);
            self.nodes[a].right = right;
            self.pull(a);
            a
        } else {
            let left = self.merge(a, self.nodes[b].left);
            self.nodes[b].left = left;
            self.pull(b);
            b
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;

    /// The first pair of tensors live together whose bytes meet, by
    /// comparing every pair.
    fn shared_byte(tensors: &[TensorLifetime], offsets: &[usize]) -> Option<(usize, usize)> {
        for (i, a) in tensors.iter().enumerate() {
            for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                let live = a.first_use <= b.last_use && b.first_use <= a.last_use;
                let meet = offsets[i] < offsets[j] + b.size && offsets[j] < offsets[i] + a.size;
                if live && a.size > 0 && b.size > 0 && meet {
                    return Some((i, j));
                }
            }
        }
        None
    }

    #[test]
    fn plans_are_sound_and_the_arena_is_the_highest_end() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        for round in 0..300 {
            let n = 1 + rng.below(60);
            let span = 1 + rng.below(40);
            let tensors: Vec<TensorLifetime> = (0..n)
                .map(|_| {
                    let first = rng.below(span);
                    let longest = rng.below(span);
                    let length = rng.below(1 + longest);
                    let size = if rng.below(8) == 0 {
                        0
                    } else {
                        1 + rng.below(1 << (round % 12))
                    };
                    TensorLifetime::new(size, first, first + length)
                })
                .collect();
            let plan = plan(&tensors).unwrap();
            assert_eq!(shared_byte(&tensors, &plan.offsets), None, "round {round}");
            let highest = tensors
                .iter()
                .zip(&plan.offsets)
                .map(|(t, &o)| if t.size > 0 { o + t.size } else { 0 })
                .max()
                .unwrap_or(0);
            assert_eq!(plan.arena_size, highest, "round {round}");
            for (t, &o) in tensors.iter().zip(&plan.offsets) {
                if t.size == 0 {
                    assert_eq!(o, 0);
                }
            }
        }
    }

    /// Online first fit by its definition: free blocks in a sorted list,
    /// coalesced by a pass over it, each tensor taken by first use (larger
    /// first, then by index) after the tensors ended before it give their
    /// bytes back.
    fn literal_first_fit(tensors: &[TensorLifetime]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..tensors.len())
            .filter(|&i| tensors[i].size > 0)
            .collect();
        order.sort_by_key(|&i| (tensors[i].first_use, usize::MAX - tensors[i].size, i));
        let mut offsets = vec![0; tensors.len()];
        let mut free: Vec<(usize, usize)> = vec![(0, usize::MAX)];
        let mut live: Vec<usize> = Vec::new();
        for &i in &order {
            let t = tensors[i];
            live.retain(|&j| {
                if tensors[j].last_use < t.first_use {
                    free.push((offsets[j], offsets[j] + tensors[j].size));
                    false
                } else {
                    true
                }
            });
            free.sort_unstable();
            let mut coalesced: Vec<(usize, usize)> = Vec::new();
            for &(a, b) in &free {
                match coalesced.last_mut() {
                    Some(last) if last.1 == a => last.1 = b,
                    _ => coalesced.push((a, b)),
                }
            }
            free = coalesced;
            let k = free.iter().position(|&(a, b)| b - a >= t.size).unwrap();
            offsets[i] = free[k].0;
            free[k].0 += t.size;
            if free[k].0 == free[k].1 {
                free.remove(k);
            }
            live.push(i);
        }
        offsets
    }

    #[test]
    fn plans_are_those_of_literal_first_fit() {
        let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
        for round in 0..400 {
            let n = 1 + rng.below(80);
            let span = 1 + rng.below(30);
            let tensors: Vec<TensorLifetime> = (0..n)
                .map(|_| {
                    let first = rng.below(span);
                    let longest = rng.below(span);
                    let length = rng.below(1 + longest);
                    let size = if rng.below(10) == 0 {
                        0
                    } else {
                        1 + rng.below(1 << (1 + round % 6))
                    };
                    TensorLifetime::new(size, first, first + length)
                })
                .collect();
            let plan = plan(&tensors).unwrap();
            assert_eq!(plan.offsets, literal_first_fit(&tensors), "round {round}");
        }
    }

    #[test]
    fn freed_bytes_are_reused_and_coalesced() {
        // Two tensors end at node 1; one twice their size starts at node 2
        // and fits exactly where they were.
        let tensors = [
            TensorLifetime::new(4, 0, 1),
            TensorLifetime::new(4, 0, 1),
            TensorLifetime::new(8, 0, 5),
            TensorLifetime::new(8, 2, 3),
        ];
        let plan = plan(&tensors).unwrap();
        assert_eq!(plan.offsets, vec![8, 12, 0, 8]);
        assert_eq!(plan.arena_size, 16);
    }

    #[test]
    fn an_end_past_usize_max_is_an_overflow() {
        let tensors = [
            TensorLifetime::new(usize::MAX / 2 + 1, 0, 1),
            TensorLifetime::new(usize::MAX / 2 + 1, 1, 2),
        ];
        assert_eq!(plan(&tensors), Err(PlanError::Overflow { tensor: 1 }));
    }

    /// `n` tensors, mostly short-lived with a few long ones and one in
    /// sixteen of size 0, about two starting at each node, in an order
    /// near but not that of time; node indices `spread` apart (1: dense,
    /// counted out; 1,000: sparse, sorted).
    fn large_table(n: usize, spread: usize, seed: u64) -> Vec<TensorLifetime> {
        let mut rng = XorShift(seed);
        (0..n)
            .map(|i| {
                let first = i / 2 + rng.below(8);
                let length = if rng.below(50) == 0 {
                    rng.below(2000)
                } else {
                    rng.below(12)
                };
                let size = if rng.below(16) == 0 {
                    0
                } else {
                    1 + rng.below(1000)
                };
                TensorLifetime::new(size, first * spread, (first + length) * spread)
            })
            .collect()
    }

    /// The first pair of tensors live together whose bytes meet, by
    /// comparing every pair whose lifetimes meet: by first use, each
    /// tensor against every later starter that starts by its last use.
    fn shared_byte_among_live(
        tensors: &[TensorLifetime],
        offsets: &[usize],
    ) -> Option<(usize, usize)> {
        let mut order: Vec<usize> = (0..tensors.len())
            .filter(|&i| tensors[i].size > 0)
            .collect();
        order.sort_by_key(|&i| tensors[i].first_use);
        for (k, &i) in order.iter().enumerate() {
            for &j in &order[k + 1..] {
                if tensors[j].first_use > tensors[i].last_use {
                    break;
                }
                let (a, b) = (tensors[i], tensors[j]);
                if offsets[i] < offsets[j] + b.size && offsets[j] < offsets[i] + a.size {
                    return Some((i, j));
                }
            }
        }
        None
    }

    /// The highest end of a plan's tensors (0 if none is planned).
    fn highest_end(tensors: &[TensorLifetime], offsets: &[usize]) -> usize {
        (tensors.iter().zip(offsets))
            .map(|(t, &o)| if t.size > 0 { o + t.size } else { 0 })
            .max()
            .unwrap_or(0)
    }

    /// Every planned tensor stacked in input order from 0.
    fn input_order_stack(tensors: &[TensorLifetime]) -> Vec<usize> {
        let mut top = 0;
        (tensors.iter())
            .map(|t| {
                if t.size == 0 {
                    return 0;
                }
                top += t.size;
                top - t.size
            })
            .collect()
    }

    /// A clock that says to go on for `slots_after` readings, then to give
    /// first fit up for slots, and to stack after `stack_after` readings;
    /// it counts them.
    struct Staged {
        slots_after: usize,
        stack_after: usize,
        readings: usize,
    }

    impl Cut for Staged {
        fn now(&mut self, _: Duration) -> bool {
            self.readings += 1;
            self.readings > self.stack_after
        }
        fn choose(&mut self, _: Duration, _: Duration) -> Choice {
            self.readings += 1;
            if self.readings > self.stack_after {
                Choice::Stack
            } else if self.readings > self.slots_after {
                Choice::Slots
            } else {
                Choice::GoOn
            }
        }
    }

    /// [`Staged`], its readings not begun.
    fn staged(slots_after: usize, stack_after: usize) -> Staged {
        Staged {
            slots_after,
            stack_after,
            readings: 0,
        }
    }

    /// A clock that lets `passes` readings by, then says to stack at every
    /// reading; it counts them.
    fn expiring(passes: usize) -> Staged {
        staged(passes, passes)
    }

    #[test]
    fn without_a_deadline_or_before_it_large_plans_are_those_of_literal_first_fit() {
        let later = Instant::now() + Duration::from_secs(24 * 3600);
        for (spread, seed) in [(1, 0x61), (1000, 0x62)] {
            let tensors = large_table(3 * CLOCK_PERIOD + 11, spread, seed);
            let reference = literal_first_fit(&tensors);
            let whole = plan(&tensors).unwrap();
            assert_eq!(whole.offsets, reference, "spread {spread}");
            assert_eq!(whole.arena_size, highest_end(&tensors, &reference));
            let Online {
                plan: before,
                stacked,
                ..
            } = plan_until(&tensors, Some(later)).unwrap();
            assert_eq!(stacked, 0, "spread {spread}");
            assert_eq!(before, whole, "spread {spread}");
        }
    }

    #[test]
    fn a_cut_plan_is_sound_and_keeps_what_first_fit_placed_before_the_cut() {
        for (spread, seed) in [(1, 0x51), (1000, 0x52)] {
            let tensors = large_table(2 * CLOCK_PERIOD + 700, spread, seed);
            let reference = literal_first_fit(&tensors);
            // The time order, by its definition.
            let mut order: Vec<usize> = (0..tensors.len())
                .filter(|&i| tensors[i].size > 0)
                .collect();
            order.sort_by_key(|&i| (tensors[i].first_use, usize::MAX - tensors[i].size, i));
            let survey = Survey::of(&tensors).unwrap();
            let mut never = expiring(usize::MAX);
            let Online {
                plan: whole,
                stacked,
                ..
            } = plan_cut(&tensors, &survey, Vec::new(), Duration::ZERO, &mut never).unwrap();
            assert_eq!(stacked, 0);
            assert_eq!(whole.offsets, reference, "spread {spread}");
            // One reading every CLOCK_PERIOD placements after the first;
            // the others order the table (two when the node indices are
            // sparse: before anything, and before the sorts).
            let readings = never.readings;
            let placing = (order.len() - 1) / CLOCK_PERIOD;
            assert!(readings > placing, "spread {spread}");
            let ordering = readings - placing;
            if spread > 1 {
                assert_eq!(ordering, 2);
            }
            for passes in 0..=readings {
                let name = format!("spread {spread}, {passes} readings passed");
                let mut clock = expiring(passes);
                let Online { plan, stacked, .. } =
                    plan_cut(&tensors, &survey, Vec::new(), Duration::ZERO, &mut clock).unwrap();
                assert_eq!(
                    shared_byte_among_live(&tensors, &plan.offsets),
                    None,
                    "{name}"
                );
                assert_eq!(plan.arena_size, highest_end(&tensors, &plan.offsets));
                let (expected, expected_stacked) = if passes == readings {
                    (reference.clone(), 0)
                } else if passes < ordering {
                    (input_order_stack(&tensors), order.len())
                } else {
                    // Cut at placement reading `passes - ordering + 1`: the
                    // tensors placed before it keep their first-fit offsets,
                    // the others are stacked in time order above them.
                    let kept = (passes - ordering + 1) * CLOCK_PERIOD;
                    let mut expected = vec![0; tensors.len()];
                    let mut top = 0;
                    for &i in &order[..kept] {
                        expected[i] = reference[i];
                        top = top.max(reference[i] + tensors[i].size);
                    }
                    for &i in &order[kept..] {
                        expected[i] = top;
                        top += tensors[i].size;
                    }
                    (expected, order.len() - kept)
                };
                assert_eq!(stacked, expected_stacked, "{name}");
                assert!(plan.offsets == expected, "{name}: not the plan expected");
            }
        }
    }

    /// The size class by its definition: the octave `k` with
    /// `2^k <= size < 2^(k+1)`, and which quarter of it holds `size`.
    fn class_by_definition(size: usize) -> usize {
        let mut octave = 0;
        while size.checked_shr(octave + 1).is_some_and(|rest| rest != 0) {
            octave += 1;
        }
        let quarter = ((size as u128 * 4) >> octave) as usize - 4;
        4 * octave as usize + quarter
    }

    /// The offsets size-class slots give the tensors of `order` (in time
    /// order), from `base` up, by the rule's definition: the tensors whose
    /// last use has passed give their slots back, by last use then place
    /// in the order; a tensor takes the slot given back last of the
    /// smallest class at or above its own that has one, else a new slot of
    /// its class; each class a row of slots as wide as its largest tensor,
    /// the rows from `base` up, smaller classes lower. The offsets (by
    /// input index) and the highest end (`base` if none).
    fn literal_slots(
        tensors: &[TensorLifetime],
        order: &[usize],
        base: usize,
    ) -> (Vec<(usize, usize)>, usize) {
        let classes = 4 * usize::BITS as usize;
        let mut made = vec![0usize; classes];
        let mut width = vec![0usize; classes];
        let mut given_back: Vec<Vec<usize>> = vec![Vec::new(); classes];
        // (input index, place in order, class, slot)
        let mut live: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut taken = Vec::new();
        for (place, &i) in order.iter().enumerate() {
            let t = tensors[i];
            let mut ended: Vec<(usize, usize, usize, usize)> = live
                .iter()
                .copied()
                .filter(|&(j, ..)| tensors[j].last_use < t.first_use)
                .collect();
            live.retain(|&(j, ..)| tensors[j].last_use >= t.first_use);
            ended.sort_by_key(|&(j, at, ..)| (tensors[j].last_use, at));
            for (_, _, class, slot) in ended {
                given_back[class].push(slot);
            }
            let own = class_by_definition(t.size);
            width[own] = width[own].max(t.size);
            let (class, slot) = match (own..classes).find(|&c| !given_back[c].is_empty()) {
                Some(c) => (c, given_back[c].pop().unwrap()),
                None => {
                    made[own] += 1;
                    (own, made[own] - 1)
                }
            };
            live.push((i, place, class, slot));
            taken.push((i, class, slot));
        }
        let mut row = vec![0; classes];
        let mut top = base;
        for c in 0..classes {
            row[c] = top;
            top += made[c] * width[c];
        }
        let offsets: Vec<(usize, usize)> = taken
            .into_iter()
            .map(|(i, class, slot)| (i, row[class] + slot * width[class]))
            .collect();
        let highest = (offsets.iter())
            .map(|&(i, offset)| offset + tensors[i].size)
            .fold(base, usize::max);
        (offsets, highest)
    }

    #[test]
    fn a_cut_plan_gives_the_tensors_left_to_size_class_slots_then_to_a_stack() {
        for (spread, unit, seed) in [(1, 1, 0x53), (1000, 1, 0x54), (1, 64, 0x55)] {
            let mut tensors = large_table(4 * CLOCK_PERIOD + 300, spread, seed);
            for t in &mut tensors {
                t.size *= unit;
            }
            let reference = literal_first_fit(&tensors);
            let mut order: Vec<usize> = (0..tensors.len())
                .filter(|&i| tensors[i].size > 0)
                .collect();
            order.sort_by_key(|&i| (tensors[i].first_use, usize::MAX - tensors[i].size, i));
            let planned = order.len();
            let survey = Survey::of(&tensors).unwrap();
            let mut never = expiring(usize::MAX);
            plan_cut(&tensors, &survey, Vec::new(), Duration::ZERO, &mut never).unwrap();
            let placing = (planned - 1) / CLOCK_PERIOD;
            let ordering = never.readings - placing;
            for (slots_at, stack_at) in [(1, usize::MAX), (1, 3), (2, 3), (3, 4), (1, 2)] {
                let name = format!(
                    "spread {spread}, unit {unit}, slots at {slots_at}, stack at {stack_at}"
                );
                let mut clock = staged(
                    ordering + slots_at - 1,
                    ordering.saturating_add(stack_at).saturating_sub(1),
                );
                let Online {
                    plan,
                    left_out,
                    stacked,
                } = plan_cut(&tensors, &survey, Vec::new(), Duration::ZERO, &mut clock).unwrap();
                let slots_from = slots_at * CLOCK_PERIOD;
                let stack_from = stack_at.saturating_mul(CLOCK_PERIOD).min(planned);
                assert_eq!(
                    (left_out, stacked),
                    (planned - slots_from, planned - stack_from),
                    "{name}"
                );
                assert_eq!(
                    shared_byte_among_live(&tensors, &plan.offsets),
                    None,
                    "{name}"
                );
                assert_eq!(
                    plan.arena_size,
                    highest_end(&tensors, &plan.offsets),
                    "{name}"
                );
                assert!(
                    plan.offsets.iter().all(|&o| o % unit == 0),
                    "{name}: unaligned"
                );
                // First fit's tensors where it put them; the slots' where the
                // rule's definition puts them, above; the rest stacked above.
                let mut base = 0;
                for &i in &order[..slots_from] {
                    assert_eq!(plan.offsets[i], reference[i], "{name}");
                    base = base.max(reference[i] + tensors[i].size);
                }
                let (slotted, mut top) =
                    literal_slots(&tensors, &order[slots_from..stack_from], base);
                for (i, offset) in slotted {
                    assert_eq!(plan.offsets[i], offset, "{name}: tensor {i}");
                }
                for &i in &order[stack_from..] {
                    assert_eq!(plan.offsets[i], top, "{name}: tensor {i}");
                    top += tensors[i].size;
                }
                assert_eq!(plan.arena_size.max(base), top.max(base), "{name}");
            }
        }
    }

    #[test]
    fn a_slot_of_a_larger_class_given_back_is_taken_before_a_new_one() {
        // 64 is class 4 * 6 + 0; 40, in [32, 64), is in its second quarter:
        // class 4 * 5 + 1.
        let mut slots = Slots::new(10, 100, 3).unwrap();
        assert_eq!(slots.take(10, 64), 0);
        slots.give_back(10, 0).unwrap();
        assert_eq!(slots.take(11, 40), 0, "the freed slot of class 24");
        assert_eq!(slots.take(12, 40), 0, "a new slot of class 21");
        assert_eq!(slots.class_of, vec![24, 24, 21]);
        let mut placed = vec![0, 0, 0];
        // Rows from 100: class 21's (one slot of 40), then class 24's.
        let entries: Vec<Entry> = [64, 40, 40]
            .iter()
            .map(|&size| (0, usize::MAX - size, 0, 0))
            .collect();
        assert_eq!(slots.lay_out(&entries, &mut placed), Some(204));
        assert_eq!(placed, vec![140, 140, 100]);
        for size in [1, 2, 3, 5, 7, 40, 64, 65, 1000, usize::MAX / 3, usize::MAX] {
            assert_eq!(size_class(size), class_by_definition(size), "size {size}");
        }
    }

    #[test]
    fn slot_rows_past_usize_max_are_stacked_instead() {
        // 4,096 one-byte tensors at node 0, one of a tenth of the address
        // space beside them; after the cut, three that share a size class
        // (a quarter of 2^62..2^63) live at once: their sizes sum within
        // `usize`, but three slots as wide as the widest do not fit above
        // the tenth.
        let tenth = usize::MAX / 10;
        let quarter = 1usize << 60;
        let mut tensors = vec![TensorLifetime::new(tenth, 0, 0)];
        tensors.extend((1..CLOCK_PERIOD).map(|_| TensorLifetime::new(1, 0, 0)));
        let widest = 4 * quarter + quarter - quarter / 64;
        let others = 4 * quarter + quarter / 64;
        tensors.push(TensorLifetime::new(widest, 1, 2));
        tensors.push(TensorLifetime::new(others, 1, 2));
        tensors.push(TensorLifetime::new(others, 1, 2));
        assert_eq!(class_by_definition(widest), class_by_definition(others));
        let sum = tensors
            .iter()
            .try_fold(0usize, |s, t| s.checked_add(t.size));
        assert!(sum.is_some() && tenth.checked_add(3 * widest).is_none());
        let survey = Survey::of(&tensors).unwrap();
        // The dense ordering reads the clock 3 times on this table.
        let mut clock = staged(3, usize::MAX);
        let Online {
            plan,
            left_out,
            stacked,
        } = plan_cut(&tensors, &survey, Vec::new(), Duration::ZERO, &mut clock).unwrap();
        assert_eq!((left_out, stacked), (3, 3));
        let base = tenth + CLOCK_PERIOD - 1;
        let n = tensors.len();
        assert_eq!(
            plan.offsets[n - 3..],
            [base, base + widest, base + widest + others]
        );
        assert_eq!(plan.arena_size, sum.unwrap());
    }

    #[test]
    fn a_passed_deadline_stacks_large_tables_and_spares_small_ones() {
        let passed = Some(Instant::now());
        for spread in [1, 1000] {
            // One tensor in sixteen has size 0: fewer than CLOCK_PERIOD
            // planned ones.
            let small = large_table(CLOCK_PERIOD, spread, 0x71);
            let Online { plan, stacked, .. } = plan_until(&small, passed).unwrap();
            assert_eq!(stacked, 0, "spread {spread}");
            assert_eq!(plan.offsets, literal_first_fit(&small), "spread {spread}");
            let large = large_table(CLOCK_PERIOD + CLOCK_PERIOD / 4, spread, 0x72);
            let Online { plan, stacked, .. } = plan_until(&large, passed).unwrap();
            let planned = large.iter().filter(|t| t.size > 0).count();
            assert_eq!(stacked, planned, "spread {spread}");
            assert_eq!(plan.offsets, input_order_stack(&large), "spread {spread}");
            let sum: usize = large.iter().map(|t| t.size).sum();
            assert_eq!(plan.arena_size, sum, "spread {spread}");
            assert_eq!(shared_byte_among_live(&large, &plan.offsets), None);
        }
        // Sizes summing past usize::MAX: no stack fits, the clock is not read.
        let huge: Vec<TensorLifetime> = (0..CLOCK_PERIOD + 10)
            .map(|i| TensorLifetime::new(usize::MAX / 8, i, i))
            .collect();
        let Online { plan, stacked, .. } = plan_until(&huge, passed).unwrap();
        assert_eq!(stacked, 0);
        assert!(plan.offsets.iter().all(|&o| o == 0));
        assert_eq!(plan.arena_size, usize::MAX / 8);
    }

    /// A clock with `left` before the deadline: it says to give up once
    /// the reserve asked for is at least that; it counts its readings.
    struct Left {
        left: Duration,
        readings: usize,
    }

    impl Cut for Left {
        fn now(&mut self, reserve: Duration) -> bool {
            self.readings += 1;
            reserve >= self.left
        }
    }

    #[test]
    fn an_ordering_longer_than_the_time_left_is_not_begun_and_the_table_is_stacked() {
        let hour = Duration::from_secs(3600);
        for spread in [1, 1000] {
            let tensors = large_table(2 * CLOCK_PERIOD + 300, spread, 0x81);
            let survey = Survey::of(&tensors).unwrap();
            let mut clock = Left {
                left: hour,
                readings: 0,
            };
            let Online { plan, stacked, .. } =
                plan_cut(&tensors, &survey, Vec::new(), 2 * hour, &mut clock).unwrap();
            assert_eq!(
                clock.readings, 1,
                "spread {spread}: read once, nothing ordered"
            );
            assert_eq!(stacked, survey.planned, "spread {spread}");
            assert_eq!(plan.offsets, input_order_stack(&tensors), "spread {spread}");
            let sum: usize = tensors.iter().map(|t| t.size).sum();
            assert_eq!(plan.arena_size, sum, "spread {spread}");
            // An ordering that fits in the hour is begun; the passes' own
            // reserves, a few table passes' time, are far below it.
            let mut clock = Left {
                left: hour,
                readings: 0,
            };
            let Online { plan, stacked, .. } =
                plan_cut(&tensors, &survey, Vec::new(), hour / 2, &mut clock).unwrap();
            assert_eq!(stacked, 0, "spread {spread}");
            assert_eq!(plan.offsets, literal_first_fit(&tensors), "spread {spread}");
        }
    }

    #[test]
    fn the_plan_is_the_same_whatever_memory_its_offsets_are_written_to() {
        let hour = Duration::from_secs(3600);
        for (n, spread) in [
            (300, 1),
            (CLOCK_PERIOD + 500, 1),
            (CLOCK_PERIOD + 500, 1000),
        ] {
            let tensors = large_table(n, spread, 0x91);
            let survey = Survey::of(&tensors).unwrap();
            let whole = literal_first_fit(&tensors);
            for capacity in [0, 10, n - 1, n, 3 * n] {
                // A buffer whose contents are anything.
                let buffer: Vec<usize> = (0..capacity).map(|k| k * 7 + 3).collect();
                let name = format!("n {n}, spread {spread}, capacity {capacity}");
                let mut never = expiring(usize::MAX);
                let Online { plan, stacked, .. } = plan_cut(
                    &tensors,
                    &survey,
                    buffer.clone(),
                    Duration::ZERO,
                    &mut never,
                )
                .unwrap();
                assert_eq!((plan.offsets, stacked), (whole.clone(), 0), "{name}");
                let mut short = Left {
                    left: hour,
                    readings: 0,
                };
                let Online { plan, stacked, .. } =
                    plan_cut(&tensors, &survey, buffer, 2 * hour, &mut short).unwrap();
                if n < CLOCK_PERIOD {
                    // Small tables read no clock: always the whole plan.
                    assert_eq!((plan.offsets, stacked), (whole.clone(), 0), "{name}");
                } else {
                    assert_eq!(plan.offsets, input_order_stack(&tensors), "{name}");
                    assert_eq!(stacked, survey.planned, "{name}");
                }
            }
        }
    }
}
