//! The lower bound of the constrained problem: the largest of
//!
//! - every block's own end: its size, or its fixed offset plus its size;
//! - every free block's lowest end among the fixed blocks alone, which never
//!   move;
//! - at every time, the live window bytes `W`, and the padding alignment
//!   forces: the block whose window starts highest starts at or above the
//!   other windows' bytes, so the arena is at least
//!   `min_t align_up(W - w_t - lo_t, a_t) + size_t` over the live blocks `t`.
//!
//! The padding term costs the live set's size per time; past a work limit
//! only `W` is counted, which stays a bound.

use super::align_up;
use super::normalise::Model;
use super::place::Placement;
use crate::error::PlanError;
use crate::sys::fallible;

/// Live-set visits the padding term may spend in total.
const PADDING_WORK: usize = 1 << 22;

pub(super) fn lower_bound(model: &Model) -> Result<usize, PlanError> {
    let blocks = &model.blocks;
    let mut bound = 0i128;
    // The fixed blocks placed, the others not: each free block's lowest
    // offset among them visits its own neighbours (or the fixed blocks)
    // only.
    let any_fixed = blocks.iter().any(|b| b.fixed.is_some());
    // Queried in block order, never placed: with many blocks, an index of
    // the fixed ones (see `Placement::for_order`).
    let free: Vec<usize> = if any_fixed {
        fallible::collect_growing((0..blocks.len()).filter(|&b| blocks[b].fixed.is_none()))?
    } else {
        Vec::new()
    };
    let mut fixed = Placement::for_order(model, &free)?;
    for (b, block) in blocks.iter().enumerate() {
        if let Some(o) = block.fixed {
            fixed.set(model, b, o)?;
        }
    }
    for (b, block) in blocks.iter().enumerate() {
        if block.size == 0 {
            continue;
        }
        let end = match block.fixed {
            Some(offset) => offset + block.size,
            None if !any_fixed => block.size,
            None => fixed.lowest(model, b, None)? + block.size,
        };
        bound = bound.max(end);
    }

    // Sweep the pieces: ends before starts at one time (half-open pieces).
    let pieces: usize = blocks.iter().map(|b| b.pieces.len()).sum();
    let mut events: Vec<(i128, bool, usize, usize)> = fallible::with_capacity(2 * pieces)?;
    for (b, block) in blocks.iter().enumerate() {
        for (k, p) in block.pieces.iter().enumerate() {
            events.push((p.start, true, b, k));
            events.push((p.end, false, b, k));
        }
    }
    events.sort_unstable_by_key(|&(time, starts, b, k)| (time, starts, b, k));
    // At most every piece is live at once.
    let mut live: Vec<(usize, usize)> = fallible::with_capacity(pieces)?;
    let mut slot: Vec<Vec<usize>> = fallible::with_capacity(blocks.len())?;
    for block in blocks {
        slot.push(fallible::filled(block.pieces.len(), 0)?);
    }
    let mut bytes = 0i128;
    let mut work = 0usize;
    let mut e = 0;
    while e < events.len() {
        let time = events[e].0;
        while e < events.len() && events[e].0 == time {
            let (_, starts, b, k) = events[e];
            let p = blocks[b].pieces[k];
            if starts {
                slot[b][k] = live.len();
                live.push((b, k));
                bytes += p.hi - p.lo;
            } else {
                let at = slot[b][k];
                live.swap_remove(at);
                if let Some(&(mb, mk)) = live.get(at) {
                    slot[mb][mk] = at;
                }
                bytes -= p.hi - p.lo;
            }
            e += 1;
        }
        bound = bound.max(bytes);
        if live.len() > 1 && work < PADDING_WORK {
            work += live.len();
            let forced = live
                .iter()
                .map(|&(b, k)| {
                    let (block, p) = (&blocks[b], blocks[b].pieces[k]);
                    let below = (bytes - (p.hi - p.lo) - p.lo).max(0);
                    align_up(below, block.align) + block.size
                })
                .min()
                .unwrap_or(0);
            bound = bound.max(forced);
        }
    }
    Ok(bound.min(usize::MAX as i128) as usize)
}
