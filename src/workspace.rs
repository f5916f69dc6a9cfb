//! Heap-free forms of offset planning, peak live bytes and transitive
//! reduction, over scratch memory the caller provides.
//!
//! Embedded runtimes may not call `malloc` at all. These forms compute
//! exactly what [`try_plan_offsets`](crate::try_plan_offsets),
//! [`try_peak_live_bytes`](crate::try_peak_live_bytes) and
//! [`try_transitive_reduction`](crate::try_transitive_reduction) compute,
//! with the specification's literal algorithms, carving every scratch array
//! out of one caller-given byte buffer whose exact size the `*_bytes`
//! functions state in advance. (Island discovery needs no scratch beyond its
//! label array; see [`crate::islands`].)
//!
//! Complexity: the specification's, `O(n² log n)` for offsets,
//! `O(n log n)` for the peak, `O(E log E + (n + E)⌈n/64⌉)` for the reduction;
//! scratch `4n` words, `4n` words and `n⌈n/64⌉ + 2E` words respectively.

use core::mem::{align_of, size_of, MaybeUninit};

use crate::error::PlanError;
use crate::offsets::{best_fit, TensorLifetime};

/// Read access to a caller's input array in whatever layout it has, so that
/// no converted copy is needed.
pub(crate) trait InputList {
    type Item;
    fn count(&self) -> usize;
    fn at(&self, i: usize) -> Self::Item;
}

impl InputList for [(usize, usize)] {
    type Item = (usize, usize);
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> (usize, usize) {
        self[i]
    }
}

/// Typed arrays carved one after another out of a byte buffer.
pub(crate) struct Scratch<'a> {
    rest: &'a mut [MaybeUninit<u8>],
}

impl<'a> Scratch<'a> {
    pub(crate) fn new(bytes: &'a mut [MaybeUninit<u8>]) -> Self {
        Scratch { rest: bytes }
    }

    /// The next `count` elements, each set to `fill`; `OutOfMemory` if the
    /// buffer is too small (callers check sizes first, so this is a guard).
    fn take<T: Copy>(&mut self, count: usize, fill: T) -> Result<&'a mut [T], PlanError> {
        if count == 0 {
            return Ok(&mut []);
        }
        let rest = core::mem::take(&mut self.rest);
        let pad = rest.as_ptr().align_offset(align_of::<T>());
        let needed = count
            .checked_mul(size_of::<T>())
            .and_then(|bytes| bytes.checked_add(pad))
            .filter(|&needed| needed <= rest.len())
            .ok_or(PlanError::OutOfMemory {
                bytes: count.saturating_mul(size_of::<T>()),
            })?;
        let (mine, rest) = rest.split_at_mut(needed);
        self.rest = rest;
        let slots = &mut mine[pad..];
        let ptr = slots.as_mut_ptr().cast::<T>();
        for i in 0..count {
            // SAFETY: `ptr` is aligned for T and the `count * size_of::<T>()`
            // bytes behind it are this call's alone.
            unsafe { ptr.add(i).write(fill) };
        }
        // SAFETY: every element was just initialised; the borrow of `mine`
        // lasts 'a and nothing else refers to these bytes.
        Ok(unsafe { core::slice::from_raw_parts_mut(ptr, count) })
    }
}

/// Bytes of `count` elements of `T`, or `None` on overflow. With buffers
/// aligned to a machine word, as `malloc` and `size_t` arrays are, the
/// arrays here need no padding, so the sums below are exact.
fn array_bytes<T>(count: usize) -> Option<usize> {
    count.checked_mul(size_of::<T>())
}

fn first_invalid_lifetime<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
) -> Result<(), PlanError> {
    for i in 0..tensors.count() {
        let t = tensors.at(i);
        if t.first_use > t.last_use {
            return Err(PlanError::InvalidLifetime {
                tensor: i,
                first_use: t.first_use,
                last_use: t.last_use,
            });
        }
    }
    Ok(())
}

/// Scratch bytes [`try_plan_offsets_in`] needs for `tensor_count` tensors.
pub(crate) fn plan_offsets_scratch_bytes(tensor_count: usize) -> Option<usize> {
    array_bytes::<usize>(tensor_count.checked_mul(2)?)?
        .checked_add(array_bytes::<(usize, usize)>(tensor_count)?)
}

/// The greedy plan, written to `offsets` (one per tensor); returns the arena
/// size. The same plan as [`crate::try_plan_offsets`]. On error `offsets` is
/// untouched.
pub(crate) fn try_plan_offsets_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    offsets: &mut [usize],
) -> Result<usize, PlanError> {
    first_invalid_lifetime(tensors)?;
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

    // `offsets` is written only once the whole plan fits in usize.
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
    offsets.fill(0);
    for k in 0..planned {
        offsets[order[k]] = placed[k];
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
    first_invalid_lifetime(tensors)?;
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

/// Scratch bytes [`try_transitive_reduction_in`] needs: the `n⌈n/64⌉`-word
/// bit matrix and a sorted copy of the edges.
pub(crate) fn transitive_reduction_scratch_bytes(
    node_count: usize,
    edge_count: usize,
) -> Option<usize> {
    let matrix = array_bytes::<u64>(node_count.checked_mul(node_count.div_ceil(64))?)?;
    matrix.checked_add(array_bytes::<(usize, usize)>(edge_count)?)
}

/// The transitive reduction, as [`crate::try_transitive_reduction`], in the
/// scratch buffer: sorted by `(source, target)`, each edge once.
pub(crate) fn try_transitive_reduction_in<'a, L: InputList<Item = (usize, usize)> + ?Sized>(
    node_count: usize,
    edges: &L,
    scratch: &mut Scratch<'a>,
) -> Result<&'a [(usize, usize)], PlanError> {
    crate::reduction::validate(node_count, edges)?;
    let m = edges.count();
    let words = node_count.div_ceil(64);
    let sorted: &'a mut [(usize, usize)] = scratch.take(m, (0usize, 0usize))?;
    for (i, slot) in sorted.iter_mut().enumerate() {
        *slot = edges.at(i);
    }
    sorted.sort_unstable();
    let mut unique = 0;
    for i in 0..m {
        if i == 0 || sorted[i] != sorted[i - 1] {
            sorted[unique] = sorted[i];
            unique += 1;
        }
    }
    let (sorted, _) = sorted.split_at_mut(unique);
    let strict = scratch.take(node_count * words, 0u64)?;

    // Descending sources: a successor's strict-reachability row is final
    // before it is folded in. An edge survives iff its target is in no
    // successor's row; the others are marked by a source of usize::MAX.
    let mut kept = 0;
    let mut end = sorted.len();
    while end > 0 {
        let u = sorted[end - 1].0;
        let start = sorted[..end].partition_point(|&(s, _)| s < u);
        let (row_u, after) = strict[u * words..].split_at_mut(words);
        for &(_, w) in &sorted[start..end] {
            let row_w = &after[(w - u - 1) * words..(w - u) * words];
            for (mine, theirs) in row_u.iter_mut().zip(row_w) {
                *mine |= theirs;
            }
        }
        for slot in &mut sorted[start..end] {
            let v = slot.1;
            if row_u[v / 64] & (1 << (v % 64)) != 0 {
                slot.0 = usize::MAX; // implied by a longer path
            }
        }
        for &(_, v) in &sorted[start..end] {
            row_u[v / 64] |= 1 << (v % 64);
        }
        end = start;
    }
    for i in 0..sorted.len() {
        if sorted[i].0 != usize::MAX {
            sorted[kept] = sorted[i];
            kept += 1;
        }
    }
    let (reduced, _) = sorted.split_at_mut(kept);
    Ok(reduced)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl InputList for [TensorLifetime] {
        type Item = TensorLifetime;
        fn count(&self) -> usize {
            self.len()
        }
        fn at(&self, i: usize) -> TensorLifetime {
            self[i]
        }
    }

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
            include_str!("../data/minimalloc/challenging/A.1048576.csv"),
            include_str!("../data/minimalloc/challenging/D.1048576.csv"),
            include_str!("../data/minimalloc/challenging/K.1048576.csv"),
            include_str!("../data/minimalloc/examples/input.12.csv"),
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
            let arena =
                try_plan_offsets_in(&tensors[..], &mut Scratch::new(raw), &mut offsets).unwrap();
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
