//! Placing blocks one at a time, each at its hint when that is free, else at
//! its lowest free aligned offset among the blocks already placed: the
//! greedy (fixed blocks, then decreasing size) and the heuristic (the best of
//! several orders, with and without hints, then a seeded walk of swaps).

use std::time::Instant;

use super::normalise::Model;
use super::{align_up, try_room};
use crate::error::PlanError;
use crate::rng::XorShift;
use crate::sys::fallible;

/// Marks a block not placed yet.
pub(super) const UNPLACED: i128 = i128::MIN;

/// The lowest aligned offset at which block `b` keeps apart from every
/// placed neighbour (`at[c] != UNPLACED`), or `hint` when that is free,
/// aligned and ends within the capacity (or `usize::MAX`). The capacity is
/// otherwise the caller's to check. `forbidden` is a reusable buffer.
///
/// Time `O(d log d)` for `d` neighbours of `b`; space `O(d)`.
pub(super) fn lowest_free(
    model: &Model,
    b: usize,
    at: &[i128],
    hint: Option<i128>,
    forbidden: &mut Vec<(i128, i128)>,
) -> Result<i128, PlanError> {
    let align = model.blocks[b].align;
    forbidden.clear();
    // Room for every neighbour, so that the pushes below never reallocate.
    try_room(forbidden, model.neighbours[b].len())?;
    for nb in &model.neighbours[b] {
        let o = at[nb.other];
        if o != UNPLACED {
            // `o_b` may not lie strictly inside (o - up, o + down).
            forbidden.push((o - nb.up, o + nb.down));
        }
    }
    if let Some(h) = hint {
        let free = forbidden.iter().all(|&(lo, hi)| h <= lo || h >= hi);
        // A hint is a suggestion: one whose end passes the capacity, or
        // `usize::MAX` when there is none, is not taken.
        let limit = model.capacity.unwrap_or(usize::MAX as i128);
        let fits = h + model.blocks[b].size <= limit;
        if h >= 0 && h % align == 0 && free && fits {
            return Ok(h);
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
    Ok(x)
}

/// What placing one order gave.
enum Placed {
    /// Every block placed: the offsets and the arena.
    Fits(Vec<i128>, i128),
    /// Some block would pass the capacity.
    Over,
    /// The deadline passed first.
    Stopped,
}

/// Places the blocks in `order` (fixed blocks first, wherever they are in
/// it), stopping when `deadline` passes.
fn place(
    model: &Model,
    order: &[usize],
    hints: bool,
    forbidden: &mut Vec<(i128, i128)>,
    deadline: Option<Instant>,
) -> Result<Placed, PlanError> {
    let blocks = &model.blocks;
    let mut at = fallible::filled(blocks.len(), UNPLACED)?;
    let mut arena = 0;
    for (b, block) in blocks.iter().enumerate() {
        if let Some(o) = block.fixed {
            at[b] = o;
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
            at[b] = 0;
            continue;
        }
        let hint = if hints { block.hint } else { None };
        let o = lowest_free(model, b, &at, hint, forbidden)?;
        if model.capacity.is_some_and(|c| o + block.size > c) {
            return Ok(Placed::Over);
        }
        at[b] = o;
        arena = arena.max(o + block.size);
    }
    Ok(Placed::Fits(at, arena))
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
    match place(model, &order, true, &mut Vec::new(), None)? {
        Placed::Fits(at, _) => Ok(Some(at)),
        _ => Ok(None),
    }
}

/// The best of several orders, with and without hints, then a seeded walk
/// of order swaps; never worse than [`greedy`]. Once `deadline` passes it
/// keeps the best plan found so far: the greedy's plan, which it always
/// completes, or better.
pub(super) fn heuristic(
    model: &Model,
    deadline: Option<Instant>,
) -> Result<Option<Vec<i128>>, PlanError> {
    let blocks = &model.blocks;
    let n = blocks.len();
    let span = |b: usize| {
        let p = &blocks[b].pieces;
        p.last().map_or(0, |l| l.end - p[0].start)
    };
    let weight = |b: usize| -> i128 {
        model.neighbours[b]
            .iter()
            .map(|nb| blocks[nb.other].size)
            .sum()
    };
    let by = |key: &dyn Fn(usize) -> i128| order_by(model, key);
    let orders = [
        greedy_order(model)?,
        // Saturating: a 2^63-byte block over 2^64 nodes passes i128.
        by(&|b| blocks[b].size.saturating_mul(span(b).max(1)))?,
        by(&|b| span(b))?,
        by(&|b| weight(b) + blocks[b].size)?,
        by(&|b| -blocks[b].pieces.first().map_or(0, |p| p.start))?,
        by(&|b| blocks[b].pieces.first().map_or(0, |p| p.start))?,
        by(&|b| blocks[b].align * (1 << 40) + blocks[b].size)?,
    ];
    let mut forbidden = Vec::new();
    let mut best: Option<(Vec<i128>, i128)> = None;
    let (mut chosen, mut hints) = (0, true);
    'orders: for (k, candidate) in orders.iter().enumerate() {
        for with_hints in [true, false] {
            // The first order, with hints, is the greedy's, always placed.
            let until = if k == 0 && with_hints { None } else { deadline };
            match place(model, candidate, with_hints, &mut forbidden, until)? {
                Placed::Fits(at, arena) => {
                    if best.as_ref().map_or(true, |b| arena < b.1) {
                        best = Some((at, arena));
                        (chosen, hints) = (k, with_hints);
                    }
                }
                Placed::Over => {}
                Placed::Stopped => break 'orders,
            }
        }
    }
    let mut orders = orders;
    let mut order = core::mem::take(&mut orders[chosen]);
    // A walk of swaps from the best order (the greedy's if none fits),
    // keeping any order that fits and is no worse.
    let steps = if n < 2 {
        0
    } else {
        (40_000 / n).clamp(16, 400)
    };
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..steps {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let (i, j) = (rng.below(n), rng.below(n));
        order.swap(i, j);
        match place(model, &order, hints, &mut forbidden, deadline)? {
            Placed::Fits(at, arena) if best.as_ref().map_or(true, |b| arena <= b.1) => {
                best = Some((at, arena));
            }
            Placed::Stopped => break,
            _ => order.swap(i, j),
        }
    }
    Ok(best.map(|(at, _)| at))
}
