//! Heap-free forms of offset planning and peak live bytes, over scratch
//! memory the caller provides.
//!
//! Embedded runtimes may not call `malloc` at all. These forms compute
//! exactly what [`try_plan_offsets`](crate::try_plan_offsets),
//! and [`try_peak_live_bytes`](crate::try_peak_live_bytes) compute,
//! with the specification's literal algorithms, carving every scratch array
//! out of one caller-given byte buffer whose exact size the `*_bytes`
//! functions state in advance. (Island discovery needs no scratch beyond its
//! label array; see [`crate::islands`](mod@crate::islands), and the reduction's is in
//! `reduction::no_heap`.)
//!
//! Complexity: the specification's, `O(n² log n)` for offsets and
//! `O(n log n)` for the peak; scratch `4n` words for each.

use super::greedy::best_fit;
use super::TensorLifetime;
use crate::error::PlanError;
use crate::input::{check_lifetimes, InputList};
use crate::sys::scratch::{array_bytes, Scratch};

/// Scratch bytes [`try_plan_offsets_in`] needs for `tensor_count` tensors.
pub(crate) fn plan_offsets_scratch_bytes(tensor_count: usize) -> Option<usize> {
    array_bytes::<usize>(tensor_count.checked_mul(2)?)?
        .checked_add(array_bytes::<(usize, usize)>(tensor_count)?)
}

/// The greedy plan, handed to `emit(tensor, offset)` once per tensor in
/// some order; returns the arena size. The same plan as
/// [`crate::try_plan_offsets`]. On error `emit` is never called; once it is,
/// `tensors` is not read again, so the caller's output may alias the input.
pub(crate) fn try_plan_offsets_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    mut emit: impl FnMut(usize, usize),
) -> Result<usize, PlanError> {
    check_lifetimes(tensors)?;
    let n = tensors.count();
    let order = scratch.take(n, 0usize)?;
    // placed[k]: the offset of order[k], once planned.
    let placed = scratch.take(n, 0usize)?;
    let blocks = scratch.take(n, (0usize, 0usize))?;
    let mut planned = 0;
    for i in (0..n).filter(|&i| tensors.at(i).size > 0) {
        order[planned] = i;
        planned += 1;
    }
    let order = &mut order[..planned];
    // Decreasing size, equal sizes in input order: the stable order, by an
    // unstable sort that needs no buffer.
    order.sort_unstable_by_key(|&i| (core::cmp::Reverse(tensors.at(i).size), i));

    // Offsets are emitted only once the whole plan fits in usize.
    let mut arena = 0usize;
    for k in 0..planned {
        let tensor = tensors.at(order[k]);
        let mut live = 0;
        for j in 0..k {
            let other = tensors.at(order[j]);
            if other.overlaps(&tensor) {
                blocks[live] = (placed[j], placed[j] + other.size);
                live += 1;
            }
        }
        let offset = best_fit(&mut blocks[..live], tensor.size);
        let end = offset
            .checked_add(tensor.size)
            .ok_or(PlanError::Overflow { tensor: order[k] })?;
        placed[k] = offset;
        arena = arena.max(end);
    }
    // Emitted by tensor index, so that zero-size tensors (absent from
    // `order`) get 0 without reading `tensors` again: the block list, free
    // now, holds the (tensor, offset) pairs.
    let by_tensor = &mut blocks[..planned];
    for k in 0..planned {
        by_tensor[k] = (order[k], placed[k]);
    }
    by_tensor.sort_unstable();
    let mut next = 0;
    for &(tensor, offset) in by_tensor.iter() {
        for zero_size in next..tensor {
            emit(zero_size, 0);
        }
        emit(tensor, offset);
        next = tensor + 1;
    }
    for zero_size in next..n {
        emit(zero_size, 0);
    }
    Ok(arena)
}

/// Scratch bytes [`try_peak_live_bytes_in`] needs for `tensor_count` tensors.
pub(crate) fn peak_live_bytes_scratch_bytes(tensor_count: usize) -> Option<usize> {
    array_bytes::<(usize, usize)>(tensor_count.checked_mul(2)?)
}

/// The largest total size live at one node, as [`crate::try_peak_live_bytes`].
pub(crate) fn try_peak_live_bytes_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
) -> Result<usize, PlanError> {
    check_lifetimes(tensors)?;
    const ENDS: usize = 1 << (usize::BITS - 1);
    let n = tensors.count();
    // (node, tag): the tag's top bit marks a departure, so at one node every
    // arrival sorts first and lifetimes are inclusive.
    let events = scratch.take(2 * n, (0usize, 0usize))?;
    for i in 0..n {
        let t = tensors.at(i);
        events[2 * i] = (t.first_use, i);
        events[2 * i + 1] = (t.last_use, ENDS | i);
    }
    events.sort_unstable();
    let (mut live, mut peak) = (0usize, 0usize);
    for &(_, tag) in events.iter() {
        let size = tensors.at(tag & !ENDS).size;
        if tag & ENDS != 0 {
            live -= size;
        } else {
            live = live
                .checked_add(size)
                .ok_or(PlanError::Overflow { tensor: tag })?;
            peak = peak.max(live);
        }
    }
    Ok(peak)
}

#[cfg(test)]
mod tests {
    use core::mem::MaybeUninit;

    use super::*;

    /// MiniMalloc's `id,lower,upper,size` rows (upper exclusive) as tensors.
    fn minimalloc(text: &str) -> Vec<TensorLifetime> {
        text.lines()
            .skip(1)
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                let field: Vec<usize> = line
                    .split(',')
                    .skip(1)
                    .map(|f| f.trim().parse().unwrap())
                    .collect();
                TensorLifetime::new(field[2], field[0], field[1] - 1)
            })
            .collect()
    }

    #[test]
    fn the_heap_free_planner_matches_the_main_one_on_real_workloads() {
        let files = [
            include_str!("../../data/minimalloc/challenging/A.1048576.csv"),
            include_str!("../../data/minimalloc/challenging/D.1048576.csv"),
            include_str!("../../data/minimalloc/challenging/K.1048576.csv"),
            include_str!("../../data/minimalloc/examples/input.12.csv"),
        ];
        for text in files {
            let tensors = minimalloc(text);
            let n = tensors.len();
            let mut bytes =
                vec![MaybeUninit::<u64>::uninit(); plan_offsets_scratch_bytes(n).unwrap() / 8];
            // SAFETY: u64 storage viewed as bytes keeps the word alignment.
            let raw = unsafe {
                core::slice::from_raw_parts_mut(
                    bytes.as_mut_ptr().cast::<MaybeUninit<u8>>(),
                    n * 32,
                )
            };
            let mut offsets = vec![usize::MAX; n];
            let arena = try_plan_offsets_in(&tensors[..], &mut Scratch::new(raw), |i, offset| {
                offsets[i] = offset
            })
            .unwrap();
            let main = crate::try_plan_offsets(&tensors).unwrap();
            assert_eq!((offsets, arena), (main.offsets, main.arena_size));

            let mut bytes = vec![MaybeUninit::<u64>::uninit(); 4 * n];
            // SAFETY: as above.
            let raw = unsafe {
                core::slice::from_raw_parts_mut(
                    bytes.as_mut_ptr().cast::<MaybeUninit<u8>>(),
                    n * 32,
                )
            };
            let peak = try_peak_live_bytes_in(&tensors[..], &mut Scratch::new(raw)).unwrap();
            assert_eq!(peak, crate::try_peak_live_bytes(&tensors).unwrap());
        }
    }
}
