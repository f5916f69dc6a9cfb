//! The greedy on small tables: one scan of every placed tensor per
//! placement, as the specification states it, but over the placed tensors
//! kept sorted by offset, so the conflicting ranges come out sorted and best
//! fit is read off in the same pass (no list, no sort per placement).
//!
//! On dense tables of up to a few thousand tensors this beats the index of
//! [`super::index`], which gathers nearly as many ranges as the scan visits;
//! sparse ones up to a thousand take the bit sets of [`super::bits`].

use super::{Clock, Stop, TensorLifetime};
use crate::error::PlanError;
use crate::sys::fallible;

/// A placed tensor: its byte range and its lifetime.
#[derive(Clone, Copy)]
struct Placed {
    start: usize,
    end: usize,
    first: usize,
    last: usize,
}

/// [`place`] over the placed tensors in placement order: the conflicting
/// ranges are collected and sorted per placement, as the specification
/// states it, but from one contiguous list. On the smallest tables (a few
/// dozen tensors, below the bit sets' set-up) this is the cheaper scan:
/// sizes fall with time in most networks, so the conflicting tensors are
/// neighbours in placement order and the scan's branches are predictable,
/// while in offset order they are scattered.
///
/// Errors and complexity: those of [`place`], plus `O(k log k)` per
/// placement for `k` conflicts.
pub(super) fn place_in_order<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    clock: C,
) -> Result<usize, Stop<C::Late>> {
    let mut placed: Vec<Placed> = fallible::with_capacity(order.len())?;
    let mut blocks: Vec<(usize, usize)> = fallible::with_capacity(order.len())?;
    let mut arena_size = 0usize;
    for (step, &i) in order.iter().enumerate() {
        clock.check_at(step)?;
        let TensorLifetime {
            size,
            first_use,
            last_use,
        } = tensors[i];
        blocks.clear();
        blocks.extend(
            placed
                .iter()
                .filter(|p| p.first <= last_use && first_use <= p.last)
                .map(|p| (p.start, p.end)),
        );
        let offset = super::best_fit(&mut blocks, size);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        placed.push(Placed {
            start: offset,
            end,
            first: first_use,
            last: last_use,
        });
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(arena_size)
}

/// Places the tensors of `order` by best fit against every placed tensor
/// whose lifetime meets their own; writes `offsets` and returns the arena.
///
/// Errors: [`PlanError::Overflow`] for the first tensor (in `order`) whose
/// end offset passes `usize::MAX`; [`PlanError::OutOfMemory`].
///
/// Complexity: `O(n²)` time (one scan of the placed tensors and one shift
/// of the list per placement), `O(n)` memory.
pub(super) fn place<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    clock: C,
) -> Result<usize, Stop<C::Late>> {
    let mut placed: Vec<Placed> = fallible::with_capacity(order.len())?;
    let mut arena_size = 0usize;
    for (step, &i) in order.iter().enumerate() {
        clock.check_at(step)?;
        let TensorLifetime {
            size,
            first_use,
            last_use,
        } = tensors[i];
        // Best fit over the conflicting ranges in order of start, as
        // `super::best_fit_sorted` reads them.
        let mut best: Option<(usize, usize)> = None; // (gap length, offset)
        let mut covered_to = 0usize;
        for p in &placed {
            if p.first <= last_use && first_use <= p.last {
                if p.start > covered_to {
                    let gap = p.start - covered_to;
                    if gap >= size && best.map_or(true, |(len, _)| gap < len) {
                        best = Some((gap, covered_to));
                    }
                }
                covered_to = covered_to.max(p.end);
            }
        }
        let offset = best.map_or(covered_to, |(_, offset)| offset);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        // Among equal starts the order does not matter (see `best_fit`).
        let at = placed.partition_point(|p| p.start <= offset);
        placed.insert(
            at,
            Placed {
                start: offset,
                end,
                first: first_use,
                last: last_use,
            },
        );
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(arena_size)
}
