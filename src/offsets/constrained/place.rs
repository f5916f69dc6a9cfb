//! Placing blocks one at a time, each at its hint when that is free, else at
//! its lowest free aligned offset among the blocks already placed: the
//! greedy (fixed blocks, then decreasing size) and the heuristic (the best of
//! several orders, with and without hints, then a seeded walk of swaps).

use super::normalise::Model;
use super::{align_up, try_room};
use crate::error::PlanError;
use crate::rng::XorShift;
use crate::sys::fallible;

/// Marks a block not placed yet.
pub(super) const UNPLACED: i128 = i128::MIN;

/// The lowest aligned offset at which block `b` keeps apart from every
/// placed neighbour (`at[c] != UNPLACED`), or `hint` when that is free and
/// aligned. The capacity is the caller's to check.
pub(super) fn lowest_offset(
    model: &Model,
    b: usize,
    at: &[(usize, i128)],
    hint: Option<i128>,
) -> Result<i128, PlanError> {
    let mut placed = fallible::filled(model.blocks.len(), UNPLACED)?;
    for &(c, o) in at {
        placed[c] = o;
    }
    lowest_free(model, b, &placed, hint, &mut Vec::new())
}

/// [`lowest_offset`] over an offset per block, with a reusable buffer.
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
        let fits = model
            .capacity
            .map_or(true, |c| h + model.blocks[b].size <= c);
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

/// Places the blocks in `order` (fixed blocks first, wherever they are in
/// it). `None` if some block would pass the capacity.
fn place(
    model: &Model,
    order: &[usize],
    hints: bool,
    forbidden: &mut Vec<(i128, i128)>,
) -> Result<Option<(Vec<i128>, i128)>, PlanError> {
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
    for &b in order {
        let block = &blocks[b];
        if block.fixed.is_some() {
            continue;
        }
        if block.size == 0 {
            at[b] = 0;
            continue;
        }
        let hint = if hints { block.hint } else { None };
        let o = lowest_free(model, b, &at, hint, forbidden)?;
        if model.capacity.is_some_and(|c| o + block.size > c) {
            return Ok(None);
        }
        at[b] = o;
        arena = arena.max(o + block.size);
    }
    Ok(Some((at, arena)))
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
    Ok(place(model, &order, true, &mut Vec::new())?.map(|(at, _)| at))
}

/// The best of several orders, with and without hints, then a seeded walk
/// of order swaps; never worse than [`greedy`].
pub(super) fn heuristic(model: &Model) -> Result<Option<Vec<i128>>, PlanError> {
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
        by(&|b| blocks[b].size * span(b).max(1))?,
        by(&|b| span(b))?,
        by(&|b| weight(b) + blocks[b].size)?,
        by(&|b| -blocks[b].pieces.first().map_or(0, |p| p.start))?,
        by(&|b| blocks[b].pieces.first().map_or(0, |p| p.start))?,
        by(&|b| blocks[b].align * (1 << 40) + blocks[b].size)?,
    ];
    let mut forbidden = Vec::new();
    let mut best: Option<(Vec<i128>, i128)> = None;
    let (mut chosen, mut hints) = (0, true);
    for (k, candidate) in orders.iter().enumerate() {
        for with_hints in [true, false] {
            if let Some((at, arena)) = place(model, candidate, with_hints, &mut forbidden)? {
                if best.as_ref().map_or(true, |b| arena < b.1) {
                    best = Some((at, arena));
                    (chosen, hints) = (k, with_hints);
                }
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
        let (i, j) = (rng.below(n), rng.below(n));
        order.swap(i, j);
        match place(model, &order, hints, &mut forbidden)? {
            Some((at, arena)) if best.as_ref().map_or(true, |b| arena <= b.1) => {
                best = Some((at, arena));
            }
            _ => order.swap(i, j),
        }
    }
    Ok(best.map(|(at, _)| at))
}
