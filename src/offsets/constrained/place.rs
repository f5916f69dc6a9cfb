//! Placing blocks one at a time, each at its hint when that is free, else at
//! its lowest free aligned offset among the blocks already placed: the
//! greedy (fixed blocks, then decreasing size) and the heuristic (the best of
//! several orders, with and without hints, then a seeded walk of swaps).
//!
//! A placement gathers the ranges its listed neighbours forbid; a model
//! without lists (dense plain blocks) keeps the placed blocks in offset
//! order instead, and a placement walks them up to the first gap that fits.
//! When such a model places [`INDEXED_FROM`] blocks or more in an order
//! known up front, the greedy's index of placed byte ranges
//! ([`PlacedIndex`]) gives each placement the union of its conflicting
//! blocks' ranges, coalesced, in place of the walk over every placed block
//! (which made a table of blocks all live together quadratic). A plain
//! block with gaps is one entry of the index per piece: each piece's
//! placed conflicts are gathered, and its range recorded under each piece.
//! The heuristic's other orders place through the index within an
//! allowance of the ranges they read, a multiple of the greedy's.

use std::time::Instant;

use super::normalise::{Model, Neighbour};
use super::{align_up, hint_can_be_taken, try_room};
use crate::error::PlanError;
use crate::input::TensorLifetime;
use crate::offsets::greedy::PlacedIndex;
use crate::rng::XorShift;
use crate::sys::fallible;

/// Marks a block not placed yet.
pub(super) const UNPLACED: i128 = i128::MIN;

/// Blocks placed so far: an offset per block, and for a model without
/// conflict lists the placed blocks with bytes in offset order, which a
/// placement scans instead of a list.
pub(super) struct Placement {
    pub(super) at: Vec<i128>,
    /// The placed blocks, sorted by offset (then block), each with what
    /// the scan reads, so that it streams through memory; room for every
    /// block, so inserting never reallocates.
    by_offset: Vec<PlacedInterval>,
    /// Scratch: the offsets a block may not take, `(lo, hi)` open.
    forbidden: Vec<(i128, i128)>,
    /// In place of `by_offset`, for dense plain blocks placed in an order
    /// known up front.
    indexed: Option<Indexed>,
    /// Ranges read from the index so far: the work of a placement through
    /// it, which depends on the order.
    read: usize,
}

/// Plain blocks placed in [`PlacedIndex`]'s steps, a step per piece: the
/// fixed blocks first, then the others in their order.
struct Indexed {
    index: PlacedIndex,
    /// Each block's first step, its pieces' steps following it
    /// (`usize::MAX`: a block with no bytes or no pieces, which meets no
    /// other).
    step_of: Vec<usize>,
    /// No block placed by step is smaller: gaps shorter are never taken.
    smallest: usize,
    /// Scratch: one placement's conflicting ranges.
    union: Vec<(usize, usize)>,
}

/// Dense plain models of at least this many blocks place through
/// [`PlacedIndex`]: below, its set-up (two sorts, a tree) costs more than
/// walking the placed blocks.
pub(super) const INDEXED_FROM: usize = 512;

impl Placement {
    /// Nothing placed.
    pub(super) fn new(model: &Model) -> Result<Placement, PlanError> {
        let n = model.blocks.len();
        let by_offset = if model.neighbours.is_some() {
            Vec::new()
        } else {
            fallible::with_capacity(n)?
        };
        Ok(Placement {
            at: fallible::filled(n, UNPLACED)?,
            by_offset,
            forbidden: Vec::new(),
            indexed: None,
            read: 0,
        })
    }

    /// Nothing placed; the fixed blocks (in block order), then the other
    /// blocks of `order`, will be placed in that order. A dense plain
    /// model of [`INDEXED_FROM`] blocks or more whose offsets all fit a
    /// `usize` keeps the placed blocks in a [`PlacedIndex`].
    pub(super) fn for_order(model: &Model, order: &[usize]) -> Result<Placement, PlanError> {
        let blocks = &model.blocks;
        let n = blocks.len();
        // Every offset a placement can produce stays below the fixed ends
        // plus every block's size and alignment: the index's offsets are
        // `usize`. A fixed block of no bytes still keeps others from
        // straddling its offset, which an index of byte ranges cannot say.
        let mut reach: i128 = 0;
        let mut indexable = model.neighbours.is_none() && n >= INDEXED_FROM;
        for block in blocks.iter() {
            reach = reach.saturating_add(block.size.saturating_add(block.align));
            if let Some(o) = block.fixed {
                reach = reach.saturating_add(o);
                indexable &= block.size > 0 || block.pieces.is_empty();
            }
        }
        if !indexable || reach > usize::MAX as i128 {
            return Placement::new(model);
        }
        let in_index =
            |b: usize| blocks[b].size > 0 && !blocks[b].pieces.is_empty() && model.is_plain(b);
        let fixed = (0..n).filter(|&b| blocks[b].fixed.is_some() && in_index(b));
        let free = order
            .iter()
            .copied()
            .filter(|&b| blocks[b].fixed.is_none() && in_index(b));
        let in_steps = fixed.chain(free);
        let count: usize = in_steps.clone().map(|b| blocks[b].pieces.len()).sum();
        let mut step_of = fallible::filled(n, usize::MAX)?;
        // The index reads lifetimes (inclusive) and skips tensors of size
        // 0: one per piece, in step order.
        let mut lifetimes: Vec<TensorLifetime> = fallible::with_capacity(count)?;
        let mut smallest = usize::MAX;
        for b in in_steps {
            step_of[b] = lifetimes.len();
            smallest = smallest.min(blocks[b].size as usize);
            for piece in &blocks[b].pieces {
                let (first, last) = (piece.start as usize, (piece.end - 1) as usize);
                lifetimes.push(TensorLifetime::new(1, first, last));
            }
        }
        let steps: Vec<usize> = fallible::collect(count, 0..count)?;
        let index = PlacedIndex::for_order(&lifetimes, &steps)?;
        let smallest = if count == 0 { 0 } else { smallest };
        Ok(Placement {
            at: fallible::filled(n, UNPLACED)?,
            by_offset: Vec::new(),
            forbidden: Vec::new(),
            indexed: Some(Indexed {
                index,
                step_of,
                smallest,
                union: Vec::new(),
            }),
            read: 0,
        })
    }

    /// Places block `b` at `offset`.
    pub(super) fn set(&mut self, model: &Model, b: usize, offset: i128) -> Result<(), PlanError> {
        self.at[b] = offset;
        if let Some(indexed) = &mut self.indexed {
            let step = indexed.step_of[b];
            if step != usize::MAX {
                // In range: see `for_order`.
                let range = (offset as usize, (offset + model.blocks[b].size) as usize);
                for piece in 0..model.blocks[b].pieces.len() {
                    indexed
                        .index
                        .insert(step + piece, range, indexed.smallest)?;
                }
            }
        } else if model.neighbours.is_none()
            && !model.blocks[b].pieces.is_empty()
            && model.is_plain(b)
        {
            let (start, finish) = model.span(b);
            let entry = PlacedInterval {
                offset,
                block: b,
                end: offset + model.blocks[b].size,
                start,
                finish,
            };
            let k = self
                .by_offset
                .partition_point(|e| (e.offset, e.block) < (offset, b));
            self.by_offset.insert(k, entry);
        }
        Ok(())
    }

    /// The lowest aligned offset at which block `b` keeps apart from every
    /// placed block, or `hint` when that is free, aligned and ends within
    /// the capacity (or `usize::MAX`); any other hint is ignored. The
    /// capacity is otherwise the caller's to check.
    ///
    /// Time `O(d log d)` for `d` listed neighbours of `b`; without lists
    /// `O(p)` for `p` placed blocks, the scan stopping at the first gap
    /// that fits, or with the index that of a query of the greedy's
    /// ([`PlacedIndex`]) and `O(g log g)` for the `g` ranges it gathers.
    /// Space `O(d)`, or `O(g)`.
    pub(super) fn lowest(
        &mut self,
        model: &Model,
        b: usize,
        hint: Option<i128>,
    ) -> Result<i128, PlanError> {
        let block = &model.blocks[b];
        let align = block.align;
        let hint = hint.filter(|&h| hint_can_be_taken(h, align, block.size, model.capacity));
        let forbidden = &mut self.forbidden;
        forbidden.clear();
        let at = &self.at;
        // `o_b` may not lie strictly inside (o - up, o + down) for a placed
        // neighbour at `o`.
        fn placed<'a>(
            at: &'a [i128],
            list: &'a [Neighbour],
        ) -> impl Iterator<Item = (i128, i128)> + 'a {
            list.iter()
                .filter(|nb| at[nb.other] != UNPLACED)
                .map(|nb| (at[nb.other] - nb.up, at[nb.other] + nb.down))
        }
        if let Some(lists) = &model.neighbours {
            // Room for every neighbour, so that the pushes never reallocate.
            try_room(forbidden, lists[b].len())?;
            forbidden.extend(placed(at, &lists[b]));
            return Ok(lowest_outside(forbidden, hint, align));
        }
        // Without lists: the pairs with a block that is not plain are
        // listed, the others found by the index or the scan.
        let listed = model.irregular_of(b);
        try_room(forbidden, listed.len())?;
        forbidden.extend(placed(at, listed));
        if !model.is_plain(b) {
            // Every pair of `b` is listed.
            return Ok(lowest_outside(forbidden, hint, align));
        }
        // The plain blocks' byte ranges `[s, e)` forbid `(s - size_b, e)`.
        let size = block.size;
        match &mut self.indexed {
            Some(indexed) => {
                let step = indexed.step_of[b];
                // Not in the index: no bytes or no span, it meets no block.
                let pieces = if step == usize::MAX {
                    0
                } else {
                    block.pieces.len()
                };
                for piece in 0..pieces {
                    let read = indexed.index.conflict_union(
                        step + piece,
                        indexed.smallest,
                        &mut indexed.union,
                    )?;
                    self.read = self.read.saturating_add(read);
                    if pieces > 1 {
                        // The index would record the union's covered prefix
                        // under the next insertion's lifetime, the first
                        // piece's: another piece's is not that.
                        indexed.index.forget_last_query();
                    }
                    try_room(forbidden, indexed.union.len())?;
                    forbidden.extend(
                        indexed
                            .union
                            .iter()
                            .map(|&(s, e)| (s as i128 - size, e as i128)),
                    );
                }
            }
            // Only plain pairs: the scan stops at the first gap that fits.
            None if forbidden.is_empty() => return Ok(self.lowest_by_scan(model, b, hint)),
            None => {
                let (start, finish) = model.span(b);
                let meets = |e: &&PlacedInterval| {
                    e.start < finish && start < e.finish && model.plain_meet(e.block, b)
                };
                let scanned = self.by_offset.iter().filter(meets);
                try_room(forbidden, scanned.clone().count())?;
                forbidden.extend(scanned.map(|e| (e.offset - size, e.end)));
            }
        }
        Ok(lowest_outside(forbidden, hint, align))
    }

    /// [`Placement::lowest`] for plain blocks without lists: the placed
    /// blocks that meet `b`, in offset order. For plain blocks every
    /// forbidden range starts `size_b` below its block's offset, so offset
    /// order is the order of the ranges.
    fn lowest_by_scan(&self, model: &Model, b: usize, hint: Option<i128>) -> i128 {
        let (start, finish) = model.span(b);
        let size = model.blocks[b].size;
        let meets = |e: &PlacedInterval| {
            e.block != b && e.start < finish && start < e.finish && model.plain_meet(e.block, b)
        };
        if let Some(h) = hint {
            let free = self
                .by_offset
                .iter()
                .all(|e| !meets(e) || h + size <= e.offset || h >= e.end);
            if free {
                return h;
            }
        }
        let align = model.blocks[b].align;
        let mut x = 0;
        for e in &self.by_offset {
            if e.offset >= x + size {
                break;
            }
            if x < e.end && meets(e) {
                x = align_up(e.end, align);
            }
        }
        x
    }
}

/// The lowest offset, a multiple of `align`, strictly inside none of the
/// open ranges `forbidden` (reordered here), or `hint` when it is inside
/// none.
fn lowest_outside(forbidden: &mut [(i128, i128)], hint: Option<i128>, align: i128) -> i128 {
    if let Some(h) = hint {
        if forbidden.iter().all(|&(lo, hi)| h <= lo || h >= hi) {
            return h;
        }
    }
    forbidden.sort_unstable();
    let mut x = 0;
    for &(lo, hi) in forbidden.iter() {
        if lo >= x {
            break;
        }
        if x < hi {
            x = align_up(hi, align);
        }
    }
    x
}

/// A placed plain block, as the scan reads it.
#[derive(Clone, Copy)]
struct PlacedInterval {
    offset: i128,
    block: usize,
    /// `offset + size`.
    end: i128,
    /// Its time span `[start, finish)`.
    start: i128,
    finish: i128,
}

/// What placing one order gave.
enum Placed {
    /// Every block placed: the offsets and the arena.
    Fits(Vec<i128>, i128),
    /// Some block would pass the capacity.
    Over,
    /// The deadline passed first.
    Stopped,
    /// More ranges were read from the index than allowed.
    Costly,
}

/// Places the blocks in `order` (fixed blocks first, wherever they are in
/// it), stopping when `deadline` passes or once more than `most_read`
/// ranges have been read from the index; sets `read` to the ranges read.
fn place(
    model: &Model,
    order: &[usize],
    hints: bool,
    deadline: Option<Instant>,
    most_read: usize,
    read: &mut usize,
) -> Result<Placed, PlanError> {
    *read = 0;
    let blocks = &model.blocks;
    let mut placement = Placement::for_order(model, order)?;
    let mut arena = 0;
    for (b, block) in blocks.iter().enumerate() {
        if let Some(o) = block.fixed {
            placement.set(model, b, o)?;
            if block.size > 0 {
                arena = arena.max(o + block.size);
            }
        }
    }
    for (k, &b) in order.iter().enumerate() {
        let block = &blocks[b];
        if block.fixed.is_some() {
            continue;
        }
        // The clock costs little beside a placement, which visits every
        // placed neighbour.
        if k % 16 == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Placed::Stopped);
        }
        if block.size == 0 {
            placement.at[b] = 0;
            continue;
        }
        let hint = if hints { block.hint } else { None };
        let o = placement.lowest(model, b, hint)?;
        *read = placement.read;
        if placement.read > most_read {
            return Ok(Placed::Costly);
        }
        if model.capacity.is_some_and(|c| o + block.size > c) {
            return Ok(Placed::Over);
        }
        placement.set(model, b, o)?;
        arena = arena.max(o + block.size);
    }
    Ok(Placed::Fits(placement.at, arena))
}

/// The blocks by decreasing `key`, ties by block number. The unstable sort
/// does not allocate; the tie-break keeps it deterministic.
fn order_by(model: &Model, key: &dyn Fn(usize) -> i128) -> Result<Vec<usize>, PlanError> {
    let n = model.blocks.len();
    let mut order: Vec<usize> = fallible::collect(n, 0..n)?;
    order.sort_unstable_by_key(|&b| (core::cmp::Reverse(key(b)), b));
    Ok(order)
}

fn greedy_order(model: &Model) -> Result<Vec<usize>, PlanError> {
    order_by(model, &|b| model.blocks[b].size)
}

/// Fixed blocks, then the others in decreasing size (ties by their lowest
/// tensor), each at its hint or its lowest free offset. `None`: a block
/// would pass the capacity.
pub(super) fn greedy(model: &Model) -> Result<Option<Vec<i128>>, PlanError> {
    let order = greedy_order(model)?;
    match place(model, &order, true, None, usize::MAX, &mut 0)? {
        Placed::Fits(at, ..) => Ok(Some(at)),
        _ => Ok(None),
    }
}

/// Each block's weight: the sizes of the blocks it conflicts with. Without
/// lists the sum over intervals (plain blocks of one piece) is over those
/// starting before its end, less those ending by its start, less itself:
/// two prefix sums; the pairs with a plain block of several pieces (gaps)
/// are found by a sweep of each such block against the plain blocks
/// starting before its end, and the pairs with a block that is not plain
/// are listed. `None` where that sweep would visit more than
/// [`WEIGHT_VISITS_PER_BLOCK`] blocks per block.
///
/// Time `O(n + E)` with lists, `O(n log n)` without (the sweep's visits
/// counted first, at most `64 n`); space `O(n)`.
fn weights(model: &Model) -> Result<Option<Vec<i128>>, PlanError> {
    let blocks = &model.blocks;
    let n = blocks.len();
    if let Some(lists) = &model.neighbours {
        return fallible::collect(
            n,
            lists
                .iter()
                .map(|list| list.iter().map(|nb| blocks[nb.other].size).sum()),
        )
        .map(Some);
    }
    let plain = |b: usize| !blocks[b].pieces.is_empty() && model.is_plain(b);
    let interval = |b: usize| plain(b) && blocks[b].pieces.len() == 1;
    // The intervals' spans.
    let with = (0..n).filter(|&b| interval(b));
    let count = with.clone().count();
    let mut starts: Vec<(i128, i128)> = fallible::collect(
        count,
        with.clone().map(|b| (model.span(b).0, blocks[b].size)),
    )?;
    let mut ends: Vec<(i128, i128)> =
        fallible::collect(count, with.map(|b| (model.span(b).1, blocks[b].size)))?;
    starts.sort_unstable();
    ends.sort_unstable();
    // Prefix sums of the sizes, in place: `.1` becomes the sum up to and
    // including each entry.
    for list in [&mut starts, &mut ends] {
        let mut sum = 0;
        for entry in list.iter_mut() {
            sum += entry.1;
            entry.1 = sum;
        }
    }
    let sum_below = |list: &[(i128, i128)], time: i128, inclusive: bool| {
        let k = list.partition_point(|e| if inclusive { e.0 <= time } else { e.0 < time });
        if k == 0 {
            0
        } else {
            list[k - 1].1
        }
    };
    let mut weight: Vec<i128> = fallible::collect(
        n,
        (0..n).map(|b| {
            let listed: i128 = model
                .irregular_of(b)
                .iter()
                .map(|nb| blocks[nb.other].size)
                .sum();
            if !interval(b) {
                return listed;
            }
            let (start, end) = model.span(b);
            listed + sum_below(&starts, end, false) - sum_below(&ends, start, true) - blocks[b].size
        }),
    )?;
    // The pairs with a plain block of several pieces, each once from that
    // block (twice where both have several, once from each).
    if (0..n).any(|b| plain(b) && !interval(b)) {
        let with = (0..n).filter(|&b| plain(b));
        let mut by_start: Vec<usize> = fallible::collect(with.clone().count(), with)?;
        by_start.sort_unstable_by_key(|&b| model.span(b).0);
        let gapped = || (0..n).filter(|&g| plain(g) && !interval(g));
        let visits = gapped().fold(0usize, |sum, g| {
            let end = model.span(g).1;
            sum.saturating_add(by_start.partition_point(|&c| model.span(c).0 < end))
        });
        if visits > WEIGHT_VISITS_PER_BLOCK.saturating_mul(n) {
            return Ok(None);
        }
        for g in gapped() {
            let (start, end) = model.span(g);
            let before_end = by_start.partition_point(|&c| model.span(c).0 < end);
            for &c in &by_start[..before_end] {
                if c == g || model.span(c).1 <= start || !model.plain_meet(g, c) {
                    continue;
                }
                weight[g] += blocks[c].size;
                if interval(c) {
                    weight[c] += blocks[g].size;
                }
            }
        }
    }
    Ok(Some(weight))
}

/// Blocks the weights' sweep may visit per block: past it, many plain
/// blocks with gaps live together, the sweep would be quadratic, and the
/// order by weight is not tried.
const WEIGHT_VISITS_PER_BLOCK: usize = 64;

/// Ranges a placement in any other order may read from the index, per
/// range the greedy's read (and one per block): the index answers the
/// greedy's order in near-linear work, but an order that places nested
/// lifetimes from the outside in (by area or length, on a training step)
/// reads every placed range below the top at each placement, quadratic
/// work. Such an order is given up once past this.
const READ_PER_GREEDY: usize = 4;

/// Ranges all the placements after the greedy's may read from the index
/// together, per range the greedy's read (and one per block): the
/// heuristic's work stays within a constant times the greedy's, where its
/// 14 orders and 16 or more swaps would each cost up to
/// [`READ_PER_GREEDY`] times it.
const ALL_READ_PER_GREEDY: usize = 12;

/// What the heuristic's placements may still read from the index: set by
/// the greedy's placement, spent by the others.
struct Allowance<'r> {
    /// What any one placement may read.
    per_order: usize,
    /// What all of them together may still read.
    left: usize,
    /// Whether a placement was given up with nothing left.
    spent: bool,
    /// Ranges read: by the greedy's placement, then by all the others.
    reads: &'r mut [usize; 2],
}

impl Allowance<'_> {
    /// [`place`] within the allowance: the greedy's placement (`greedy`)
    /// within none, setting it where it fits; another within what is
    /// left, spending it.
    fn place(
        &mut self,
        model: &Model,
        order: &[usize],
        hints: bool,
        deadline: Option<Instant>,
        greedy: bool,
    ) -> Result<Placed, PlanError> {
        let n = model.blocks.len();
        // Past `left`, no allowance remains for any placement.
        let (most, last, mut read) = (
            self.per_order.min(self.left),
            self.left <= self.per_order,
            0,
        );
        let placed = place(model, order, hints, deadline, most, &mut read)?;
        self.reads[usize::from(!greedy)] += read;
        if !greedy {
            self.left = self.left.saturating_sub(read);
            self.spent |= last && matches!(placed, Placed::Costly);
        } else if matches!(placed, Placed::Fits(..)) {
            // A greedy cut short by the capacity says nothing of a whole
            // placement's work: the others are then not limited.
            self.per_order = read.saturating_mul(READ_PER_GREEDY).saturating_add(n);
            self.left = read.saturating_mul(ALL_READ_PER_GREEDY).saturating_add(n);
        }
        Ok(placed)
    }
}

/// The best of several orders, with and without hints, then a seeded walk
/// of order swaps; never worse than [`greedy`]. It returns as soon as a
/// plan meets `lower_bound`. Once `deadline` passes it keeps the best plan
/// found so far: the greedy's plan, which it always completes, or better.
/// Where the greedy's placement fits, a placement through the index that
/// reads more than [`READ_PER_GREEDY`] times the ranges the greedy's read
/// (plus one per block) is given up, its order not taken; once all of them
/// together have read [`ALL_READ_PER_GREEDY`] times as many, the best plan
/// so far is returned.
pub(super) fn heuristic(
    model: &Model,
    lower_bound: usize,
    deadline: Option<Instant>,
) -> Result<Option<Vec<i128>>, PlanError> {
    heuristic_reading(model, lower_bound, deadline, &mut [0; 2])
}

/// [`heuristic`], adding to `reads` the ranges its placements read from
/// the index: the greedy's, then all the others'.
fn heuristic_reading(
    model: &Model,
    lower_bound: usize,
    deadline: Option<Instant>,
    reads: &mut [usize; 2],
) -> Result<Option<Vec<i128>>, PlanError> {
    let blocks = &model.blocks;
    let n = blocks.len();
    let bound = lower_bound as i128;
    let span = |b: usize| {
        let (start, end) = model.span(b);
        end - start
    };
    let mut best: Option<(Vec<i128>, i128)> = None;
    let mut order = greedy_order(model)?;
    let mut hints = true;
    let met = |best: &Option<(Vec<i128>, i128)>| best.as_ref().is_some_and(|b| b.1 <= bound);
    let mut weight: Vec<i128> = Vec::new();
    let mut allowance = Allowance {
        per_order: usize::MAX,
        left: usize::MAX,
        spent: false,
        reads,
    };
    // The orders after the greedy's, built only when they are tried.
    for k in 0..7 {
        let candidate = match k {
            0 => None,
            1 => Some(order_by(model, &|b| {
                // Saturating: a 2^63-byte block over 2^64 nodes passes i128.
                blocks[b].size.saturating_mul(span(b).max(1))
            })?),
            2 => Some(order_by(model, &span)?),
            3 => match weights(model)? {
                Some(w) => {
                    weight = w;
                    Some(order_by(model, &|b| weight[b] + blocks[b].size)?)
                }
                // Too costly to weigh: the order is not tried.
                None => continue,
            },
            4 => Some(order_by(model, &|b| -model.span(b).0)?),
            5 => Some(order_by(model, &|b| model.span(b).0)?),
            _ => Some(order_by(model, &|b| {
                blocks[b].align * (1 << 40) + blocks[b].size
            })?),
        };
        let candidate_ref = candidate.as_deref().unwrap_or(&order);
        let mut stopped = false;
        let mut improved = None;
        for with_hints in [true, false] {
            // The first order, with hints, is the greedy's, always placed.
            let greedy = k == 0 && with_hints;
            let until = if greedy { None } else { deadline };
            match allowance.place(model, candidate_ref, with_hints, until, greedy)? {
                Placed::Costly if allowance.spent => return Ok(best.map(|(at, _)| at)),
                Placed::Fits(at, arena) => {
                    if best.as_ref().map_or(true, |b| arena < b.1) {
                        best = Some((at, arena));
                        improved = Some(with_hints);
                    }
                }
                Placed::Over => {}
                // Without hints it would gather about as much.
                Placed::Costly => break,
                Placed::Stopped => {
                    stopped = true;
                    break;
                }
            }
            if met(&best) {
                break;
            }
        }
        if let Some(with_hints) = improved {
            hints = with_hints;
            if let Some(c) = candidate {
                order = c;
            }
        }
        if stopped || met(&best) {
            return Ok(best.map(|(at, _)| at));
        }
    }
    drop(weight);
    // A walk of swaps from the best order (the greedy's if none fits),
    // keeping any order that fits and is no worse.
    let steps = if n < 2 {
        0
    } else {
        (40_000 / n).clamp(16, 400)
    };
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..steps {
        if met(&best) || allowance.left == 0 || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let (i, j) = (rng.below(n), rng.below(n));
        order.swap(i, j);
        match allowance.place(model, &order, hints, deadline, false)? {
            Placed::Fits(at, arena) if best.as_ref().map_or(true, |b| arena <= b.1) => {
                best = Some((at, arena));
            }
            Placed::Stopped => break,
            _ => order.swap(i, j),
        }
    }
    Ok(best.map(|(at, _)| at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;

    /// [`lowest_outside`] against its definition, by trying the aligned
    /// offsets in turn: a hint inside no forbidden range is kept (one at a
    /// range's start or end is outside it: the ranges are open), otherwise
    /// the answer is the lowest aligned offset from 0 inside none. Hints are
    /// drawn at ranges' ends and starts as well as anywhere.
    #[test]
    fn lowest_outside_keeps_a_free_hint_or_finds_the_lowest_free_offset() {
        let mut rng = XorShift(0xB0B0_1234_5678_9ABC);
        let inside =
            |x: i128, ranges: &[(i128, i128)]| ranges.iter().any(|&(lo, hi)| lo < x && x < hi);
        for _ in 0..4000 {
            let align = [1i128, 2, 4, 8][rng.below(4)];
            let forbidden: Vec<(i128, i128)> = (0..rng.below(6))
                .map(|_| {
                    let lo = rng.below(60) as i128 - 5;
                    (lo, lo + 1 + rng.below(20) as i128)
                })
                .collect();
            let any = |rng: &mut XorShift| forbidden[rng.below(forbidden.len())];
            let hint = match rng.below(4) {
                0 => None,
                1 if !forbidden.is_empty() => Some(any(&mut rng).1),
                2 if !forbidden.is_empty() => Some(any(&mut rng).0),
                _ => Some(rng.below(80) as i128),
            };
            let expected = match hint {
                Some(h) if !inside(h, &forbidden) => h,
                _ => (0..)
                    .map(|k| k * align)
                    .find(|&x| !inside(x, &forbidden))
                    .unwrap(),
            };
            let got = lowest_outside(&mut forbidden.clone(), hint, align);
            assert_eq!(got, expected, "{forbidden:?}, hint {hint:?}, align {align}");
        }
    }

    /// Nested lifetimes, each live at the middle node, in blocks enough
    /// for the index: a dense plain model without lists.
    fn nested(n: usize) -> Model {
        let mut rng = XorShift(0x0E57_ED00_1234_5678);
        let tensors: Vec<TensorLifetime> = (0..n)
            .map(|i| TensorLifetime::new(64 * (1 + rng.below(64)), i, 2 * n - i))
            .collect();
        let mut model = Model::new(&super::super::PlanProblem::new(&tensors), 1).unwrap();
        model.neighbours = None;
        model
    }

    #[test]
    fn a_placement_reading_past_its_allowance_is_given_up() {
        let model = nested(super::INDEXED_FROM + 100);
        let order = greedy_order(&model).unwrap();
        let mut read = 0;
        let Placed::Fits(at, arena) =
            place(&model, &order, true, None, usize::MAX, &mut read).unwrap()
        else {
            panic!("no capacity, no deadline: the order fits");
        };
        assert!(read > 0, "placed through the index");
        // Exactly the allowance: the same plan, the same reads.
        let mut again_read = 0;
        match place(&model, &order, true, None, read, &mut again_read).unwrap() {
            Placed::Fits(again, a) => assert_eq!((again, a, again_read), (at, arena, read)),
            _ => panic!("within its allowance"),
        }
        // One range short of it: given up, past the allowance.
        let mut short_read = 0;
        assert!(matches!(
            place(&model, &order, true, None, read - 1, &mut short_read).unwrap(),
            Placed::Costly
        ));
        assert!(short_read > read - 1);
        // The heuristic is never worse than the greedy and keeps every two
        // blocks (all live at the middle node) apart. Its other placements
        // read within their allowance, but for the query that passed it
        // (which reads each placed range at most once per union on its
        // path: at most `n` ranges times the tree's height, four kinds).
        let mut reads = [0; 2];
        let plan = heuristic_reading(&model, 0, None, &mut reads)
            .unwrap()
            .unwrap();
        let n = model.blocks.len();
        assert_eq!(reads[0], read);
        let height = (usize::BITS - n.leading_zeros()) as usize;
        let allowed = read * ALL_READ_PER_GREEDY + n + 4 * n * height;
        println!("reads {reads:?}, allowed {allowed}");
        assert!(reads[1] <= allowed, "{reads:?}, greedy read {read}");
        let size = |b: usize| model.blocks[b].size;
        let top = (0..plan.len()).map(|b| plan[b] + size(b)).max().unwrap();
        assert!(top <= arena);
        let mut ranges: Vec<(i128, i128)> = (0..plan.len())
            .map(|b| (plan[b], plan[b] + size(b)))
            .collect();
        ranges.sort_unstable();
        assert!(ranges.windows(2).all(|w| w[0].1 <= w[1].0));
    }
}
