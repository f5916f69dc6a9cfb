//! Heap-free forms of offset planning and peak live bytes, over scratch
//! memory the caller provides.
//!
//! Embedded runtimes may not call `malloc` at all. These forms compute
//! exactly what [`try_plan_offsets`](crate::try_plan_offsets),
//! and [`try_peak_live_bytes`](crate::try_peak_live_bytes) compute,
//! carving every scratch array out of one caller-given byte buffer whose
//! exact size the `*_bytes` functions state in advance. (Island discovery
//! needs no scratch beyond its label array; see
//! [`crate::islands`](mod@crate::islands), and the reduction's is in
//! `reduction::no_heap`.)
//!
//! The greedy finds each placement's conflicts without scanning every
//! placed tensor: the planned tensors sorted by first use carry a max-tree
//! of the placed ones' last uses, so the placed tensors starting by the
//! new one's last use and ending at or after its first use are visited
//! alone, each by a walk that skips every subtree ending too early. The
//! specification's literal scan remains for tables of at most
//! [`SCAN_UP_TO`] tensors, whose set-up would cost more than it saves, and
//! for tables the tree's 32-bit positions or relative node indices cannot
//! describe (`2^32` tensors or more, nodes spanning all of `usize`).
//!
//! Complexity: offsets in `O(n log n + Σ_i k_i log n)` time for `k_i`
//! conflicting tensors placed before tensor `i` (`O((n + E) log n)` for
//! `E` conflicting pairs; the literal scan's `O(n² log n)` for at most
//! [`SCAN_UP_TO`] tensors); the peak in `O(n log n)`. Scratch `4n` words
//! for each (the tree uses at most `3.5n`).

use super::greedy::{best_fit, best_fit_sorted_ranges, dense_from, is_dense};
use super::TensorLifetime;
use crate::error::PlanError;
use crate::input::{check_lifetimes, InputList};
use crate::sys::scratch::{array_bytes, Scratch};

/// Scratch bytes [`try_plan_offsets_in`] needs for `tensor_count` tensors.
pub(crate) fn plan_offsets_scratch_bytes(tensor_count: usize) -> Option<usize> {
    array_bytes::<usize>(tensor_count.checked_mul(2)?)?
        .checked_add(array_bytes::<(usize, usize)>(tensor_count)?)
}

/// Up to this many planned tensors the literal scan plans them: below, the
/// tree's set-up (three sorts, the density estimate) costs about what the
/// scans it spares do, on the networks' sparse tables as on dense ones.
pub(crate) const SCAN_UP_TO: usize = 128;

/// The greedy plan, handed to `emit(tensor, offset)` once per tensor in
/// some order; returns the arena size. The same plan as
/// [`crate::try_plan_offsets`]. On error `emit` is never called; once it is,
/// `tensors` is not read again, so the caller's output may alias the input.
pub(crate) fn try_plan_offsets_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    emit: impl FnMut(usize, usize),
) -> Result<usize, PlanError> {
    check_lifetimes(tensors)?;
    let n = tensors.count();
    let (mut planned, mut low, mut high) = (0usize, usize::MAX, 0usize);
    for i in 0..n {
        let t = tensors.at(i);
        if t.size > 0 {
            planned += 1;
            low = low.min(t.first_use);
            high = high.max(t.last_use);
        }
    }
    // Relative last uses count from 1 (0 marks a subtree with nothing
    // placed), so the span must leave room for one more.
    let describable = u32::try_from(n).is_ok() && planned > 0 && high - low < usize::MAX;
    // Where most placed tensors conflict the tree visits nearly all of
    // them, each at more cost than the scan's: up to DENSE_SCAN_UP_TO
    // tensors a dense table takes the scan, whose work is the pairs' then,
    // as the main greedy routes its dense tables. Above, a sampled estimate
    // misjudging a sparse table (one scope spanning all the others) would
    // cost a quadratic scan, where the tree's work grows with the pairs.
    let dense = || planned <= DENSE_SCAN_UP_TO && is_dense(tensors, planned, dense_from(planned));
    if planned <= SCAN_UP_TO || !describable || dense() {
        scan_in(tensors, scratch, emit)
    } else {
        tree_in(tensors, scratch, emit, planned, low)
    }
}

/// [`try_plan_offsets_in`] by the specification's literal scan: each
/// placement tests every placed tensor. `O(n² log n)` time, `4n` words.
fn scan_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    mut emit: impl FnMut(usize, usize),
) -> Result<usize, PlanError> {
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

/// Up to this many planned tensors a dense table (as the main greedy
/// estimates it) takes the literal scan: the tree would visit nearly every
/// placed tensor at each placement, at about twice the scan's cost.
const DENSE_SCAN_UP_TO: usize = 8192;

/// No offset yet: a placed tensor ends above its offset, so no offset is
/// `usize::MAX`.
const UNPLACED: usize = usize::MAX;

/// [`try_plan_offsets_in`] over a max-tree of the placed tensors' last
/// uses, for `planned` tensors of non-zero size (more than
/// [`SCAN_UP_TO`], fewer than `2^32` in all), whose lowest first use is
/// `low` and whose highest last use is below `low + usize::MAX`.
///
/// The planned tensors are sorted by first use (`by_first`; equal first
/// uses in input order); position `p` is leaf `planned + p` of a
/// bottom-up segment tree whose inner node `v` (`1 ≤ v < planned`) keeps
/// in `tree[v]` the largest `last_use - low + 1` of the placed tensors
/// below it, 0 if none is placed. A leaf's value is read from the
/// tensor. The set-up, by three sorts, gives each step its position and
/// each position the number of positions starting by its last use, so a
/// placement searches nothing. Scratch: `n + planned` words and
/// `n + 3 · planned` 32-bit indices, at most `4n` words.
fn tree_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    mut emit: impl FnMut(usize, usize),
    planned: usize,
    low: usize,
) -> Result<usize, PlanError> {
    let n = tensors.count();
    // Words first, so the 32-bit arrays need no padding.
    let words = scratch.take(n + planned, 0usize)?;
    let by_first = scratch.take(planned, 0u32)?;
    let step_position = scratch.take(planned, 0u32)?;
    let starts_by = scratch.take(planned, 0u32)?;
    // Each tensor's position during the set-up, each placement's
    // conflicts after it.
    let shared = scratch.take(n, 0u32)?;

    // Sorts of (key, index) pairs held in the words (`2 · planned ≤ n +
    // planned` of them): a sort reading each key through the table would
    // read it at every comparison. Indices are below 2^32 (checked by the
    // caller).
    let pairs = word_pairs(&mut words[..2 * planned]);
    let fill = |pairs: &mut [[usize; 2]], key: &dyn Fn(TensorLifetime) -> usize| {
        let mut k = 0;
        for i in 0..n {
            let t = tensors.at(i);
            if t.size > 0 {
                pairs[k] = [key(t), i];
                k += 1;
            }
        }
        pairs.sort_unstable();
    };
    // By first use, equal first uses in input order.
    fill(pairs, &|t| t.first_use);
    let position_of = &mut *shared;
    for (p, (slot, pair)) in by_first.iter_mut().zip(pairs.iter()).enumerate() {
        *slot = pair[1] as u32;
        position_of[pair[1]] = p as u32;
    }
    // Decreasing size (by its complement), equal sizes in input order.
    fill(pairs, &|t| !t.size);
    for (slot, pair) in step_position.iter_mut().zip(pairs.iter()) {
        *slot = position_of[pair[1]];
    }
    // By last use: one walk up the first uses counts, for each position,
    // the positions starting by its last use.
    fill(pairs, &|t| t.last_use);
    let mut starting = 0;
    for pair in pairs.iter() {
        let last = pair[0];
        while starting < planned && tensors.at(by_first[starting] as usize).first_use <= last {
            starting += 1;
        }
        starts_by[position_of[pair[1]] as usize] = starting as u32;
    }
    let gathered = shared;
    words.fill(0);
    let (offsets, tree) = words.split_at_mut(n);
    offsets.fill(UNPLACED);
    let relative_last = |i: usize| tensors.at(i).last_use - low + 1;
    let leaves = planned;

    // Offsets are emitted only once the whole plan fits in usize.
    let mut arena = 0usize;
    for &position in step_position.iter() {
        let position = position as usize;
        let i = by_first[position] as usize;
        let tensor = tensors.at(i);
        // Of the positions starting by the tensor's last use, the placed
        // ones ending at or after its first use conflict with it.
        let threshold = tensor.first_use - low + 1;
        let mut found = 0;
        let mut visit = |node: usize| {
            collect(
                node,
                threshold,
                leaves,
                tree,
                by_first,
                offsets,
                &relative_last,
                gathered,
                &mut found,
            )
        };
        let (mut left, mut right) = (leaves, leaves + starts_by[position] as usize);
        while left < right {
            if left & 1 == 1 {
                visit(left);
                left += 1;
            }
            if right & 1 == 1 {
                right -= 1;
                visit(right);
            }
            left >>= 1;
            right >>= 1;
        }
        let conflicts = &mut gathered[..found];
        conflicts.sort_unstable_by_key(|&j| offsets[j as usize]);
        let ranges = conflicts.iter().map(|&j| {
            let start = offsets[j as usize];
            // Placed, so its end was checked to fit.
            (start, start + tensors.at(j as usize).size)
        });
        let offset = best_fit_sorted_ranges(ranges, tensor.size);
        let end = offset
            .checked_add(tensor.size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        offsets[i] = offset;
        arena = arena.max(end);
        // Up the tree from the tensor's leaf; an ancestor already as high
        // has every ancestor above it as high.
        let last = relative_last(i);
        let mut node = (leaves + position) >> 1;
        while node >= 1 && tree[node] < last {
            tree[node] = last;
            node >>= 1;
        }
    }
    for (i, &offset) in offsets.iter().enumerate() {
        emit(i, if offset == UNPLACED { 0 } else { offset });
    }
    Ok(arena)
}

/// `words` as pairs of words, for sorting pairs without a buffer of their
/// own.
fn word_pairs(words: &mut [usize]) -> &mut [[usize; 2]] {
    // SAFETY: `[usize; 2]` has the size of two words and their alignment, so
    // the `words.len() / 2` pairs lie inside `words`, whose borrow the
    // result takes over.
    unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), words.len() / 2) }
}

/// Appends to `gathered` (from `*found` on) every placed tensor below
/// `node` whose relative last use is at least `threshold`, skipping the
/// subtrees whose largest is less. Recursion depth: the tree's height, at
/// most 33 for fewer than `2^32` leaves.
#[allow(clippy::too_many_arguments)]
fn collect(
    node: usize,
    threshold: usize,
    leaves: usize,
    tree: &[usize],
    by_first: &[u32],
    offsets: &[usize],
    relative_last: &impl Fn(usize) -> usize,
    gathered: &mut [u32],
    found: &mut usize,
) {
    if node >= leaves {
        let j = by_first[node - leaves];
        if offsets[j as usize] != UNPLACED && relative_last(j as usize) >= threshold {
            gathered[*found] = j;
            *found += 1;
        }
    } else if tree[node] >= threshold {
        for child in [2 * node, 2 * node + 1] {
            collect(
                child,
                threshold,
                leaves,
                tree,
                by_first,
                offsets,
                relative_last,
                gathered,
                found,
            );
        }
    }
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

    /// [`try_plan_offsets_in`] over a workspace of exactly
    /// [`plan_offsets_scratch_bytes`] bytes: the offsets (each emitted
    /// once) and the arena.
    fn plan_in(tensors: &[TensorLifetime]) -> Result<(Vec<usize>, usize), PlanError> {
        plan_by(tensors, |tensors, scratch, emit| {
            try_plan_offsets_in(tensors, scratch, emit)
        })
    }

    /// [`plan_in`] by [`tree_in`] whatever the table's size and density,
    /// for tables it describes.
    fn plan_by_tree(tensors: &[TensorLifetime]) -> Result<(Vec<usize>, usize), PlanError> {
        plan_by(tensors, |tensors, scratch, emit| {
            let planned = tensors.iter().filter(|t| t.size > 0).count();
            let low = tensors
                .iter()
                .filter(|t| t.size > 0)
                .map(|t| t.first_use)
                .min();
            tree_in(tensors, scratch, emit, planned, low.unwrap())
        })
    }

    /// `plan` over a workspace of exactly [`plan_offsets_scratch_bytes`]
    /// bytes: the offsets (each emitted once) and the arena.
    fn plan_by(
        tensors: &[TensorLifetime],
        plan: impl FnOnce(
            &[TensorLifetime],
            &mut Scratch<'_>,
            &mut dyn FnMut(usize, usize),
        ) -> Result<usize, PlanError>,
    ) -> Result<(Vec<usize>, usize), PlanError> {
        let n = tensors.len();
        let bytes = plan_offsets_scratch_bytes(n).unwrap();
        let mut words = vec![MaybeUninit::<u64>::uninit(); bytes / 8];
        // SAFETY: u64 storage viewed as bytes keeps the word alignment.
        let raw = unsafe {
            core::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<MaybeUninit<u8>>(), bytes)
        };
        let mut offsets = vec![None; n];
        let arena = plan(tensors, &mut Scratch::new(raw), &mut |i, offset| {
            assert!(
                offsets[i].replace(offset).is_none(),
                "tensor {i} emitted twice"
            );
        })?;
        Ok((
            offsets
                .into_iter()
                .map(|o| o.expect("every tensor emitted"))
                .collect(),
            arena,
        ))
    }

    /// A table of `n` tensors of the shape `shape` picks: short lifetimes
    /// over a timeline of `n` nodes, lifetimes of any length, or all live
    /// at one node; some of size 0, sizes from a few values (ties in the
    /// placement order) or many, node indices shifted by `base`.
    fn table(
        rng: &mut crate::rng::XorShift,
        n: usize,
        shape: usize,
        base: usize,
    ) -> Vec<TensorLifetime> {
        let sizes = if rng.below(2) == 0 { 4 } else { 5000 };
        (0..n)
            .map(|_| {
                let size = if rng.below(10) == 0 {
                    0
                } else {
                    16 * rng.below(sizes)
                };
                let (first, length) = match shape {
                    0 => (rng.below(n), rng.below(8)),
                    1 => (rng.below(n), rng.below(n)),
                    _ => {
                        let first = rng.below(n / 2);
                        (first, n / 2 - first + rng.below(n / 2))
                    }
                };
                TensorLifetime::new(size, base + first, base + first + length)
            })
            .collect()
    }

    #[test]
    fn the_tree_plans_as_the_main_planner_on_every_shape() {
        let mut rng = crate::rng::XorShift(0x5EED_4E57);
        for round in 0..300 {
            let n = SCAN_UP_TO + 1 + rng.below(if round % 10 == 0 { 3000 } else { 300 });
            let base = [0, 1 << 40, usize::MAX / 2][round % 3];
            let tensors = table(&mut rng, n, round % 3, base);
            let main = crate::try_plan_offsets(&tensors).unwrap();
            let main = (main.offsets, main.arena_size);
            // Dense shapes of up to 8192 tensors take the scan: the tree
            // is also run on every one.
            assert_eq!(
                plan_in(&tensors).unwrap(),
                main,
                "round {round}, {n} tensors"
            );
            assert_eq!(
                plan_by_tree(&tensors).unwrap(),
                main,
                "round {round}, {n} tensors"
            );
        }
    }

    #[test]
    fn tables_the_tree_cannot_describe_are_scanned_to_the_same_plan() {
        // Nodes spanning all of usize: no room for the relative last uses.
        let mut rng = crate::rng::XorShift(0x5EED_0F5A);
        let mut tensors = table(&mut rng, 200, 1, 0);
        tensors.push(TensorLifetime::new(64, 0, 0));
        tensors.push(TensorLifetime::new(64, usize::MAX, usize::MAX));
        tensors.push(TensorLifetime::new(32, 5, usize::MAX));
        let main = crate::try_plan_offsets(&tensors).unwrap();
        assert_eq!(plan_in(&tensors).unwrap(), (main.offsets, main.arena_size));
    }

    #[test]
    fn an_overflow_names_the_tensor_the_main_planner_names() {
        for at in [3, 100, 150] {
            let mut tensors: Vec<_> = (0..200)
                .map(|i| TensorLifetime::new(8 + i % 7, i, i + 3))
                .collect();
            // Two tensors too large to stack, meeting one small neighbour.
            tensors[at] = TensorLifetime::new(usize::MAX / 2 + 1, at, at + 1);
            tensors[at + 1] = TensorLifetime::new(usize::MAX / 2 + 1, at + 1, at + 2);
            let expected = crate::try_plan_offsets(&tensors).unwrap_err();
            assert!(matches!(expected, PlanError::Overflow { .. }));
            assert_eq!(plan_in(&tensors).unwrap_err(), expected, "at {at}");
            assert_eq!(plan_by_tree(&tensors).unwrap_err(), expected, "at {at}");
        }
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
