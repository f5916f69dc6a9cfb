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
//! placed tensor: over the planned tensors sorted by first use, a max-tree
//! of 16 children per node keeps each placed tensor's last use (as its
//! rank among the first uses), so a walk visits the placed tensors
//! starting by the new one's last use and ending at or after its first
//! use, skipping every subtree that ends too early. A placement's few
//! conflicts are sorted on the stack; many of them below a low arena (a
//! scope enclosing thousands of placed tensors) are counted unit by unit in
//! the unused part of the gathering, so no sort reads a range per
//! comparison. The specification's scan of every placed tensor remains for
//! tables of at most [`SCAN_UP_TO`] tensors, whose set-up would cost more
//! than it saves, for dense tables (where the scan's work is the pairs' and
//! costs less than the walk's; past [`DENSE_SCAN_UP_TO`] tensors the pairs
//! are counted before the scan is chosen; there the placed tensors are
//! kept sorted by offset, so best fit is read off in the same pass with no
//! sort per placement), for `2^32` tensors or more, past the tree's 32-bit
//! positions, and on targets of 32-bit words, where the tree's arrays
//! would not fit the 4 words per tensor.
//!
//! A table whose lifetimes all share one point (every pair conflicts) is
//! stacked in placement order, as the main planner stacks it
//! ([`stacked_in`]), in `O(n log n)` whatever its pairs.
//!
//! Where the caller gives more room, the indexed form
//! ([`try_plan_offsets_indexed_in`]) makes the same plan through coalesced
//! unions of the placed ranges kept in it ([`index`], cached by
//! [`covers`]), near-linear where the pairs are quadratic.
//!
//! Complexity: offsets in `O(n log n + Σ_i k_i log n)` time for `k_i`
//! conflicting tensors placed before tensor `i`, `O((n + E) log n)` for
//! `E` conflicting pairs (the scan's `O(n²)` where it remains); the
//! peak in `O(n log n)`. Scratch `4n` words for each (the
//! tree uses at most `3.5n`).

mod covers;
mod index;

use self::index::{indexed_scratch_bytes, FixedIndex};
use super::greedy::{all_meet, best_fit_sorted_ranges, is_dense, stacked_top};
use super::TensorLifetime;
use crate::error::PlanError;
use crate::input::{check_lifetimes, InputList};
use crate::sys::pages::prefetch;
use crate::sys::scratch::{array_bytes, halves, Scratch};

/// Scratch bytes [`try_plan_offsets_in`] needs for `tensor_count` tensors:
/// 4 words each.
pub(crate) fn plan_offsets_scratch_bytes(tensor_count: usize) -> Option<usize> {
    array_bytes::<usize>(tensor_count.checked_mul(4)?)
}

/// Up to this many planned tensors the scan plans them: below, the
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
    let planned = checked_planned(tensors)?;
    plan_checked_in(tensors, scratch, emit, planned)
}

/// [`try_plan_offsets_in`] of a table whose lifetimes are checked, with
/// `planned` tensors of non-zero size.
fn plan_checked_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    emit: impl FnMut(usize, usize),
    planned: usize,
) -> Result<usize, PlanError> {
    if all_meet(tensors) {
        return stacked_in(tensors, scratch, emit);
    }
    // Small tables skip the density estimate, which would cost about what
    // their plan does.
    if planned <= SCAN_UP_TO {
        return scan_in(tensors, scratch, emit, false);
    }
    // Where most placed tensors conflict the tree visits nearly all of
    // them, each at more cost than the scan's: a dense table (one pair in
    // SCAN_DENSE_FROM) takes the scan, whose work is the pairs' then. The
    // sampled estimate can take a sparse table for dense
    // (one scope spanning all the others), which would cost a quadratic
    // scan where the tree's work grows with the pairs: past
    // DENSE_SCAN_UP_TO tensors the pairs are counted before the scan is
    // chosen.
    let mut dense = || {
        is_dense(tensors, planned, SCAN_DENSE_FROM)
            && (planned <= DENSE_SCAN_UP_TO
                || scratch
                    .scoped(|counting| pairs_at_least(tensors, planned, counting, SCAN_DENSE_FROM)))
    };
    if dense() {
        scan_in(tensors, scratch, emit, true)
    } else if !tree_fits(tensors.count()) {
        scan_in(tensors, scratch, emit, false)
    } else {
        tree_in(tensors, scratch, emit, planned, false)
    }
}

/// The plan of a table whose lifetimes all share one point (see
/// [`all_meet`]): each tensor on top of the ones placed before it, the
/// running sum of the sizes in placement order, as the greedy's own
/// stacked path makes it. Its placement order is a sort of (complemented
/// size, index) pairs in `2n` words of `scratch`, which every form's
/// workspace holds.
///
/// Complexity: `O(n log n)` time.
fn stacked_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    mut emit: impl FnMut(usize, usize),
) -> Result<usize, PlanError> {
    let n = tensors.count();
    let order = word_pairs(scratch.take(2 * n, 0usize)?);
    for (i, pair) in order.iter_mut().enumerate() {
        *pair = [!tensors.at(i).size, i];
    }
    // Decreasing size, equal sizes in input order; the unplanned tensors
    // (size 0, complemented the largest key) last, where they add nothing.
    order.sort_unstable();
    // Offsets are emitted only once the whole plan fits in usize, and the
    // table is not read again from the first one on.
    let arena = stacked_top(order.iter().map(|&[size, i]| (i, !size)))?;
    let mut top = 0;
    for &[size, i] in order.iter() {
        let size = !size;
        emit(i, if size > 0 { top } else { 0 });
        top += size;
    }
    Ok(arena)
}

/// Scratch bytes with which [`try_plan_offsets_indexed_in`] always plans
/// through its index: [`plan_offsets_scratch_bytes`] and the index's
/// worst case.
pub(crate) fn plan_offsets_indexed_scratch_bytes(tensor_count: usize) -> Option<usize> {
    plan_offsets_scratch_bytes(tensor_count)?.checked_add(indexed_scratch_bytes(tensor_count)?)
}

/// [`try_plan_offsets_in`] with the rest of `scratch` (beyond its 4 words
/// per tensor) given to an index of coalesced unions of the placed ranges
/// (see [`index`]), where it fits: the same plan, in `O(n log n + Σ_i u_i)`
/// time for `u_i` ranges of the unions placement `i` reads, which the
/// tensors placed side by side keep few where conflicts are many. Where
/// the index does not fit, and up to [`SCAN_UP_TO`] tensors, as
/// [`try_plan_offsets_in`].
pub(crate) fn try_plan_offsets_indexed_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    emit: impl FnMut(usize, usize),
) -> Result<usize, PlanError> {
    let planned = checked_planned(tensors)?;
    let mut many_pairs = || {
        scratch
            .scoped(|counting| conflicting_pairs(tensors, planned, counting))
            .is_some_and(|pairs| pairs >= (INDEX_FROM_PAIRS_PER_TENSOR * planned) as u128)
    };
    if planned <= SCAN_UP_TO || !tree_fits(tensors.count()) || all_meet(tensors) || !many_pairs() {
        return plan_checked_in(tensors, scratch, emit, planned);
    }
    tree_in(tensors, scratch, emit, planned, true)
}

/// Conflicting pairs per planned tensor from which the indexed form plans
/// through its index. Fewer, the max-tree walk (which visits each pair
/// once, at one cache line each) costs less than reading the unions of a
/// tensor's `O(log n)` nodes, and needs no memory beyond its 4 words per
/// tensor: on the sparse shape families (1 to 50 pairs per tensor) the
/// index took 2 to 4 times as long.
const INDEX_FROM_PAIRS_PER_TENSOR: usize = 256;

/// The tensors of non-zero size, once every lifetime is checked.
fn checked_planned<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
) -> Result<usize, PlanError> {
    check_lifetimes(tensors)?;
    Ok((0..tensors.count())
        .filter(|&i| tensors.at(i).size > 0)
        .count())
}

/// Whether the tree fits `n` tensors: its positions and ranks are 32-bit,
/// and its arrays fit the workspace where a word holds two of them.
fn tree_fits(n: usize) -> bool {
    u32::try_from(n).is_ok() && usize::BITS >= 64
}

/// Whether at least one pair in `one_in` of the `planned` tensors of
/// `tensors` conflicts, counted exactly by [`conflicting_pairs`]; `false`
/// if its scratch is not there (a guard: callers size the scratch for the
/// plan, which is larger).
fn pairs_at_least<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    planned: usize,
    scratch: &mut Scratch<'_>,
    one_in: usize,
) -> bool {
    let all = planned as u128 * (planned as u128).saturating_sub(1) / 2;
    conflicting_pairs(tensors, planned, scratch).is_some_and(|pairs| pairs * one_in as u128 >= all)
}

/// The conflicting pairs among the `planned` tensors of `tensors`: all
/// pairs less those where one tensor ends before the other starts, found
/// by a merge of the sorted first and last uses. `O(n log n)` time,
/// `2 · planned` words of `scratch`; `None` if they are not there.
fn conflicting_pairs<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    planned: usize,
    scratch: &mut Scratch<'_>,
) -> Option<u128> {
    let (Ok(firsts), Ok(lasts)) = (scratch.take(planned, 0usize), scratch.take(planned, 0usize))
    else {
        return None;
    };
    let live = (0..tensors.count())
        .map(|i| tensors.at(i))
        .filter(|t| t.size > 0);
    for ((first, last), t) in firsts.iter_mut().zip(lasts.iter_mut()).zip(live) {
        (*first, *last) = (t.first_use, t.last_use);
    }
    firsts.sort_unstable();
    lasts.sort_unstable();
    // For each first use, the tensors that ended before it.
    let (mut ended, mut apart) = (0usize, 0u128);
    for &first in firsts.iter() {
        while ended < planned && lasts[ended] < first {
            ended += 1;
        }
        apart += ended as u128;
    }
    let all = planned as u128 * (planned as u128).saturating_sub(1) / 2;
    Some(all - apart)
}

/// [`try_plan_offsets_in`] by the specification's scan: each placement
/// tests every placed tensor. With `by_offset` (for dense tables) the
/// placed tensors are kept sorted by offset, so the conflicting ranges come
/// out sorted and best fit is read off in the same pass, with no sort per
/// placement: `O(n²)` time. Otherwise they are read in placement order
/// (where sizes fall with time, as in most networks, the conflicting
/// tensors are neighbours there and the scan's branches predictable) and
/// the few conflicts sorted: `O(n² + Σ_i k_i log k_i)` for `k_i` conflicts.
/// `4n` words either way.
fn scan_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    mut emit: impl FnMut(usize, usize),
    by_offset: bool,
) -> Result<usize, PlanError> {
    let n = tensors.count();
    let order = scratch.take(n, 0usize)?;
    // placed[k]: the offset of order[k], once planned.
    let placed = scratch.take(n, 0usize)?;
    let words = scratch.take(2 * n, 0usize)?;
    // Decreasing size (by its complement), equal sizes in input order: a
    // sort of (key, index) pairs in the words, free until the first
    // placement, where a sort reading each key through the table would
    // read it at every comparison.
    let pairs = word_pairs(words);
    let mut planned = 0;
    for i in 0..n {
        let size = tensors.at(i).size;
        if size > 0 {
            pairs[planned] = [!size, i];
            planned += 1;
        }
    }
    pairs[..planned].sort_unstable();
    for (slot, pair) in order.iter_mut().zip(pairs[..planned].iter()) {
        *slot = pair[1];
    }
    let order = &order[..planned];

    // Offsets are emitted only once the whole plan fits in usize.
    let mut arena = 0usize;
    // Each tensor's offset, by tensor index (0 for zero-size tensors).
    let by_tensor = if !by_offset {
        let blocks = word_pairs(words);
        for k in 0..planned {
            let tensor = tensors.at(order[k]);
            let mut live = 0;
            for j in 0..k {
                let other = tensors.at(order[j]);
                if other.overlaps(&tensor) {
                    blocks[live] = [placed[j], placed[j] + other.size];
                    live += 1;
                }
            }
            blocks[..live].sort_unstable();
            let ranges = blocks[..live].iter().map(|&[start, end]| (start, end));
            let offset = best_fit_sorted_ranges(ranges, tensor.size);
            let end = offset
                .checked_add(tensor.size)
                .ok_or(PlanError::Overflow { tensor: order[k] })?;
            placed[k] = offset;
            arena = arena.max(end);
        }
        // The words, free now.
        let by_tensor = &mut words[..n];
        by_tensor.fill(0);
        for (&i, &offset) in order.iter().zip(placed.iter()) {
            by_tensor[i] = offset;
        }
        by_tensor
    } else {
        // The placed tensors as (offset, tensor) pairs sorted by offset
        // (equal offsets in any order: their ranges are read as one
        // sorted list either way), read in one pass.
        let sorted = word_pairs(words);
        for k in 0..planned {
            let tensor = tensors.at(order[k]);
            let ranges = sorted[..k].iter().filter_map(|&[start, i]| {
                let other = tensors.at(i);
                other.overlaps(&tensor).then(|| (start, start + other.size))
            });
            let offset = best_fit_sorted_ranges(ranges, tensor.size);
            let end = offset
                .checked_add(tensor.size)
                .ok_or(PlanError::Overflow { tensor: order[k] })?;
            arena = arena.max(end);
            let at = sorted[..k].partition_point(|&[start, _]| start <= offset);
            sorted.copy_within(at..k, at + 1);
            sorted[at] = [offset, order[k]];
        }
        // The offsets' array, unused here.
        let by_tensor = placed;
        by_tensor.fill(0);
        for &[offset, i] in &sorted[..planned] {
            by_tensor[i] = offset;
        }
        by_tensor
    };
    // Emitted by tensor index, so that zero-size tensors (absent from
    // `order`) get 0 without reading `tensors` again.
    for (i, &offset) in by_tensor.iter().enumerate() {
        emit(i, offset);
    }
    Ok(arena)
}

/// The density, as one pair in this many, from which a table takes the
/// scan in offset order rather than the tree. Sparser, the walk visits
/// few of the placed tensors where the scan reads them all and shifts the
/// sorted ones at every placement: MiniMalloc's tables F, G, H and K (one
/// pair in 13 to 16) plan faster by the tree, E and I (one in 6 to 7) by
/// the scan.
const SCAN_DENSE_FROM: usize = 8;

/// Up to this many planned tensors a dense table (as the main greedy
/// estimates it from a few samples) takes the scan: the tree would
/// visit nearly every placed tensor at each placement, at about twice the
/// scan's cost. Above, the pairs are counted first.
const DENSE_SCAN_UP_TO: usize = 8192;

/// [`try_plan_offsets_in`] over a max-tree of the placed tensors' last
/// uses, for `planned` tensors of non-zero size (more than
/// [`SCAN_UP_TO`], fewer than `2^32` in all), on a target of 64-bit words.
///
/// The planned tensors are sorted by first use (`by_first`; equal first
/// uses in input order). A last use is kept as its rank among the first
/// uses: `starts_by[p]`, the number of positions starting by the last use
/// of the tensor at position `p`. A tensor at position `p` starts by the
/// last use of a tensor `j` exactly when `starts_by[j] > p` (every position
/// up to `p` starts by then; otherwise only positions starting before it
/// do), so these ranks, below `2^32` whatever the node indices, decide
/// every overlap. Position `p` is leaf `p` of a tree of [`FAN`] children
/// per node (see [`Levels`]) whose nodes keep the largest rank of the
/// placed tensors below them (0 if none is placed). The placed tensors
/// that conflict with a tensor are those of the positions after its own
/// that start by its last use, found by a scan of their leaves, and those
/// before it whose rank passes its position, found by a walk from the
/// nodes covering the positions before it into the subtrees whose largest
/// rank passes its position (it visits them and the nodes above them
/// alone). The set-up, three sorts, gives each step its position too, so
/// a placement searches nothing.
///
/// Each position's byte range is one word: in units of the sizes' largest
/// common power of two, start and end packed in 32-bit halves, while
/// every end fits them; from the first that does not, the offset in bytes
/// beside the size in the table. A conflict then costs one cache line
/// where the wide form reads three (offset, tensor index, tensor).
///
/// Scratch: `2 · planned` words and `n + 3 · planned` 32-bit indices, at
/// most `3.5n` words.
fn tree_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    scratch: &mut Scratch<'_>,
    mut emit: impl FnMut(usize, usize),
    planned: usize,
    indexed: bool,
) -> Result<usize, PlanError> {
    let n = tensors.count();
    // Words first, so the 32-bit arrays need no padding: the pairs of the
    // sorts, then the offsets by position and the tree's 2 · planned
    // 32-bit ranks.
    let words = scratch.take(2 * planned, 0usize)?;
    let by_first = scratch.take(planned, 0u32)?;
    let step_position = scratch.take(planned, 0u32)?;
    let starts_by = scratch.take(planned, 0u32)?;
    // Each tensor's position during the set-up, each placement's
    // conflicts after it, the planned tensors when the offsets go out.
    let shared = scratch.take(n, 0u32)?;

    // Sorts of (key, index) pairs held in the words: a sort reading each
    // key through the table would read it at every comparison. Indices are
    // below 2^32 (checked by the caller).
    let pairs = word_pairs(words);
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
    // By last use: one walk up the first uses ranks each last use.
    fill(pairs, &|t| t.last_use);
    let mut starting = 0;
    for pair in pairs.iter() {
        let last = pair[0];
        while starting < planned && tensors.at(by_first[starting] as usize).first_use <= last {
            starting += 1;
        }
        starts_by[position_of[pair[1]] as usize] = starting as u32;
    }
    let (ranges, tree_words) = words.split_at_mut(planned);
    let index = match indexed {
        true => {
            let sizes = by_first.iter().map(|&i| tensors.at(i as usize).size);
            FixedIndex::new(starts_by, step_position, sizes.min().unwrap_or(1), scratch)
        }
        false => None,
    };
    let arena = match index {
        Some(mut index) => place_indexed(
            &mut index,
            tensors,
            by_first,
            step_position,
            starts_by,
            ranges,
        )?,
        None => {
            let tree = halves(tree_words);
            tree.fill(0);
            let mut walk = Walk {
                step_position,
                starts_by,
                levels: Levels::new(planned, tree.len()),
                tree,
                gathered: shared,
                ranges,
            };
            walk_in(&mut walk, tensors, by_first)?
        }
    };
    let offsets = &*ranges;

    // The planned tensors marked, so that the others get 0 without
    // reading the table again.
    let planned_mark = shared;
    planned_mark.fill(0);
    for (&i, &offset) in by_first.iter().zip(offsets.iter()) {
        planned_mark[i as usize] = 1;
        emit(i as usize, offset);
    }
    for (i, _) in planned_mark
        .iter()
        .enumerate()
        .filter(|(_, &mark)| mark == 0)
    {
        emit(i, 0);
    }
    Ok(arena)
}

/// Places every planned tensor by `walk`, in packed units while the ranges
/// fit them, then in bytes: the arena, each offset left in `walk.ranges`.
fn walk_in<L: InputList<Item = TensorLifetime> + ?Sized>(
    walk: &mut Walk<'_>,
    tensors: &L,
    by_first: &[u32],
) -> Result<usize, PlanError> {
    let planned = by_first.len();
    // Sizes and offsets in units of the sizes' largest common power of
    // two; packed where every range placed ends below 2^32 units, widened
    // at the first one that does not.
    // (No size, no tensor planned: any unit.)
    let sizes = by_first.iter().map(|&i| tensors.at(i as usize).size);
    let shift = match sizes.fold(0, |bits, size| bits | size) {
        0 => 0,
        bits => bits.trailing_zeros(),
    };
    let packed = Packed {
        most: (u32::MAX as usize).min(usize::MAX >> shift),
    };
    // Each unplaced range is (0, size); where a size does not fit, the
    // wide form places every tensor, reading no range before it is placed.
    let mut fits = true;
    for (range, &i) in walk.ranges.iter_mut().zip(by_first.iter()) {
        *range = tensors.at(i as usize).size >> shift;
        fits &= *range <= packed.most;
    }
    let mut arena = 0;
    let mut from = 0;
    if fits {
        let stopped = walk.place(&packed, 0, &mut arena)?;
        for range in walk.ranges.iter_mut() {
            *range = Packed::start(*range) << shift;
        }
        arena <<= shift;
        from = stopped.unwrap_or(planned);
    }
    let wide = Wide { tensors, by_first };
    walk.place(&wide, from, &mut arena)?;
    Ok(arena)
}

/// Places every planned tensor through `index`, in placement order
/// (`step_position`), each offset in bytes into `offsets` by position:
/// the arena.
fn place_indexed<L: InputList<Item = TensorLifetime> + ?Sized>(
    index: &mut FixedIndex<'_>,
    tensors: &L,
    by_first: &[u32],
    step_position: &[u32],
    starts_by: &[u32],
    offsets: &mut [usize],
) -> Result<usize, PlanError> {
    let mut arena = 0;
    for (step, &position) in step_position.iter().enumerate() {
        let p = position as usize;
        let tensor = by_first[p] as usize;
        let size = tensors.at(tensor).size;
        let end_position = starts_by[p] as usize;
        let (offset, covered) = index.best_fit(p, end_position, size);
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor })?;
        offsets[p] = offset;
        arena = arena.max(end);
        index.insert(step, p, end_position, (offset, end), covered)?;
    }
    Ok(arena)
}

/// The placement state of [`tree_in`], by position in first-use order.
struct Walk<'a> {
    step_position: &'a [u32],
    starts_by: &'a [u32],
    /// Where each level of `tree` begins.
    levels: Levels,
    /// The max-tree of the placed tensors' ranks, level by level from the
    /// leaves up (leaf `p` is `tree[p]`), 0 where nothing is placed.
    tree: &'a mut [u32],
    /// Each placement's conflicts.
    gathered: &'a mut [u32],
    /// Each position's byte range, in a [`Form`]'s words.
    ranges: &'a mut [usize],
}

/// How [`Walk::place`] keeps each position's byte range in one word.
trait Form {
    /// A placed range as it sorts by start.
    type Key: Copy + Ord + Default;
    /// The size, in this form's units, of the tensor at `position`.
    fn size(&self, ranges: &[usize], position: usize) -> usize;
    /// The placed range at `position`, as a key.
    fn key(&self, ranges: &[usize], position: usize) -> Self::Key;
    /// The range a key stands for, in this form's units.
    fn range(key: Self::Key) -> (usize, usize);
    /// Places the tensor at `position` at `offset`, of `size`: its end,
    /// `None` if this form cannot hold it.
    fn place(
        &self,
        ranges: &mut [usize],
        position: usize,
        offset: usize,
        size: usize,
    ) -> Result<Option<usize>, PlanError>;
    /// Asks the cache for what [`Form::size`] and [`Form::key`] read at
    /// `position`.
    fn prefetch(&self, ranges: &[usize], position: usize);
    /// Asks the cache, some steps before [`Form::prefetch`], for what
    /// that reads first (nothing, where it reads only the range).
    fn prefetch_soon(&self, _position: usize) {}
}

/// Ranges in bytes: the offset in the word, the size in the table.
struct Wide<'a, L: ?Sized> {
    tensors: &'a L,
    by_first: &'a [u32],
}

impl<L: InputList<Item = TensorLifetime> + ?Sized> Form for Wide<'_, L> {
    type Key = (usize, usize);
    #[inline(always)]
    fn size(&self, _: &[usize], position: usize) -> usize {
        self.tensors.at(self.by_first[position] as usize).size
    }
    #[inline(always)]
    fn key(&self, ranges: &[usize], position: usize) -> (usize, usize) {
        // Placed, so its end was checked to fit.
        let start = ranges[position];
        (start, start + self.size(ranges, position))
    }
    #[inline(always)]
    fn range(key: (usize, usize)) -> (usize, usize) {
        key
    }
    #[inline(always)]
    fn place(
        &self,
        ranges: &mut [usize],
        position: usize,
        offset: usize,
        size: usize,
    ) -> Result<Option<usize>, PlanError> {
        let tensor = self.by_first[position] as usize;
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor })?;
        ranges[position] = offset;
        Ok(Some(end))
    }
    #[inline(always)]
    fn prefetch(&self, ranges: &[usize], position: usize) {
        prefetch(&ranges[position]);
        self.tensors.prefetch(self.by_first[position] as usize);
    }
    #[inline(always)]
    fn prefetch_soon(&self, position: usize) {
        prefetch(&self.by_first[position]);
    }
}

/// Ranges in units, start in the upper half of the word and end in the
/// lower (an unplaced tensor's range starts at 0): one cache line per
/// conflict where [`Wide`] reads three, and ranges sort by their words.
struct Packed {
    /// The largest end held: 32 bits, and in bytes within `usize`.
    most: usize,
}

impl Packed {
    fn start(range: usize) -> usize {
        (range as u64 >> 32) as usize
    }
}

impl Form for Packed {
    type Key = usize;
    #[inline(always)]
    fn size(&self, ranges: &[usize], position: usize) -> usize {
        let (start, end) = Packed::range(ranges[position]);
        end - start
    }
    #[inline(always)]
    fn key(&self, ranges: &[usize], position: usize) -> usize {
        ranges[position]
    }
    #[inline(always)]
    fn range(range: usize) -> (usize, usize) {
        (Packed::start(range), range as u32 as usize)
    }
    #[inline(always)]
    fn place(
        &self,
        ranges: &mut [usize],
        position: usize,
        offset: usize,
        size: usize,
    ) -> Result<Option<usize>, PlanError> {
        // The offset is 0 or a placed range's end, within `most`.
        let end = offset + size;
        if end > self.most {
            return Ok(None);
        }
        // Only on targets of 64-bit words (see `tree_in`).
        ranges[position] = ((offset as u64) << 32 | end as u64) as usize;
        Ok(Some(end))
    }
    #[inline(always)]
    fn prefetch(&self, ranges: &[usize], position: usize) {
        prefetch(&ranges[position]);
    }
}

impl Walk<'_> {
    /// Places the tensors of steps `from` on in `form`, raising `arena`
    /// (in the form's units) to their ends: `Some(step)` at the first
    /// step whose range the form cannot hold, with nothing of it placed.
    fn place<F: Form>(
        &mut self,
        form: &F,
        from: usize,
        arena: &mut usize,
    ) -> Result<Option<usize>, PlanError> {
        for step in from..self.step_position.len() {
            self.prefetch_ahead(form, step);
            let position = self.step_position[step] as usize;
            let size = form.size(self.ranges, position);
            let found = self.gather(position);
            let ranges = &*self.ranges;
            let (gathered, unused) = self.gathered.split_at_mut(found);
            // The conflicts' ranges are cache misses at scale: asked for
            // all at once, they overlap.
            for &p in gathered.iter() {
                form.prefetch(ranges, p as usize);
            }
            let offset = if found <= FEW {
                // The few ranges of a sparse table, sorted on the stack: a
                // sort of positions would read each range at every
                // comparison.
                let mut few = [F::Key::default(); FEW];
                for (slot, &p) in few.iter_mut().zip(gathered.iter()) {
                    *slot = form.key(ranges, p as usize);
                }
                few[..found].sort_unstable();
                best_fit_sorted_ranges(few[..found].iter().map(|&key| F::range(key)), size)
            } else if *arena <= COVERAGE_UNITS_PER_RANGE * found && *arena < unused.len() {
                // Many ranges below a low arena (a scope enclosing
                // thousands of placed tensors): counted unit by unit in
                // the unused part of the gathering, in time linear in
                // both, where a sort would read each range at every
                // comparison.
                let ranges = gathered
                    .iter()
                    .map(|&p| F::range(form.key(ranges, p as usize)));
                best_fit_by_coverage(ranges, &mut unused[..=*arena], size)
            } else {
                gathered.sort_unstable_by_key(|&p| form.key(ranges, p as usize));
                let sorted = gathered
                    .iter()
                    .map(|&p| F::range(form.key(ranges, p as usize)));
                best_fit_sorted_ranges(sorted, size)
            };
            let Some(end) = form.place(self.ranges, position, offset, size)? else {
                return Ok(Some(step));
            };
            *arena = (*arena).max(end);
            // The leaf, then up the tree; an ancestor already as high has
            // every ancestor above it as high.
            let rank = self.starts_by[position];
            for node in self.levels.path(position) {
                let node = &mut self.tree[node];
                if *node >= rank {
                    break;
                }
                *node = rank;
            }
        }
        Ok(None)
    }

    /// Gathers the positions of the placed tensors that conflict with the
    /// one at `position`; returns how many.
    #[inline(always)]
    fn gather(&mut self, position: usize) -> usize {
        let (tree, gathered) = (&*self.tree, &mut *self.gathered);
        // Of the positions starting by the tensor's last use, the placed
        // ones whose own last use it starts by conflict with it. Those
        // after its own start by their last use, which is past its
        // position: every placed one conflicts, found by a scan of their
        // leaves (0 where none is placed), which costs one read per pair
        // where the walk below would cost one per tree level.
        let mut found = 0;
        let after = position + 1..self.starts_by[position] as usize;
        for (q, &rank) in tree[after.clone()].iter().enumerate() {
            gathered[found] = (after.start + q) as u32;
            found += usize::from(rank != 0);
        }
        // Those before it, whose rank passes its position: at each level
        // from the leaves up, the nodes before its ancestor's in the
        // ancestor's group of siblings cover the positions that the level
        // above does not; each is searched if its rank passes.
        let threshold = position as u32 + 1;
        let bases = self.levels.bases();
        let mut end = position;
        for (level, &base) in bases.iter().enumerate() {
            let group = end & !(FAN - 1);
            for node in group..end {
                if tree[base + node] >= threshold {
                    descend(
                        &self.levels,
                        level,
                        node,
                        threshold,
                        tree,
                        gathered,
                        &mut found,
                    );
                }
            }
            end = group >> FAN_BITS;
            if end == 0 {
                break;
            }
        }
        found
    }

    /// Asks the cache for what the placement `AHEAD` steps after `step`
    /// reads first: its range and the tree's nodes on the path up from its
    /// own leaf (the scan's start, the walk's and the update's path), after
    /// its rank (and what the form asks for soon) `2 · AHEAD` steps before.
    /// Placement order is by size, so at scale each of these is a cache
    /// miss; a hint only, no effect on the plan.
    #[inline(always)]
    fn prefetch_ahead(&self, form: &impl Form, step: usize) {
        if let Some(&far) = self.step_position.get(step + 2 * AHEAD) {
            prefetch(&self.starts_by[far as usize]);
            form.prefetch_soon(far as usize);
        }
        if let Some(&near) = self.step_position.get(step + AHEAD) {
            let near = near as usize;
            form.prefetch(self.ranges, near);
            for node in self.levels.path(near) {
                prefetch(&self.tree[node]);
            }
        }
    }
}

/// Conflicts a placement sorts as ranges on the stack (1 KiB); more are
/// sorted as positions in the scratch, or counted by
/// [`best_fit_by_coverage`].
const FEW: usize = 64;

/// A placement of more than [`FEW`] conflicts counts their coverage unit
/// by unit where the arena so far is at most this many units per
/// conflict: the count costs about a unit's pass per unit and a range's
/// per range, the sort a range's times the logarithm of their number.
const COVERAGE_UNITS_PER_RANGE: usize = 4;

/// Best fit for `size` (as [`best_fit_sorted_ranges`]) among `ranges`,
/// which all end by `counts.len() - 1`, found without sorting them: each
/// range adds one at its start and takes one at its end in `counts`
/// (which it overwrites), and a pass of the running sum reads off the
/// covered blocks in order.
///
/// Complexity: `O(r + u)` time for `r` ranges below `u` units, no memory
/// beyond `counts`.
fn best_fit_by_coverage(
    ranges: impl Iterator<Item = (usize, usize)>,
    counts: &mut [u32],
    size: usize,
) -> usize {
    counts.fill(0);
    // Wrapping: the running sum is never below zero, only a unit's own
    // count can be.
    for (start, end) in ranges {
        counts[start] = counts[start].wrapping_add(1);
        counts[end] = counts[end].wrapping_sub(1);
    }
    let mut depth = 0u32;
    let mut block_start = 0;
    let mut units = counts.iter().enumerate();
    let blocks = core::iter::from_fn(|| {
        for (unit, &count) in units.by_ref() {
            let was_covered = depth != 0;
            depth = depth.wrapping_add(count);
            match (was_covered, depth != 0) {
                (false, true) => block_start = unit,
                (true, false) => return Some((block_start, unit)),
                _ => {}
            }
        }
        None
    });
    best_fit_sorted_ranges(blocks, size)
}

/// Steps ahead whose tree nodes [`Walk::prefetch_ahead`] asks for; their
/// position and rank are asked for twice as far ahead.
const AHEAD: usize = 8;

/// Children of a node of the max-tree, as a power of two: 16 ranks fill a
/// cache line, so a walk reads one line per level where a binary tree
/// reads one per level of four times as many.
const FAN_BITS: u32 = 4;
const FAN: usize = 1 << FAN_BITS;

/// The levels of a max-tree over a number of leaves: level `l + 1` has a
/// node for each group of [`FAN`] nodes of level `l`, up to a single
/// root. Where the room allows, each level begins at a whole group, so
/// that a group of siblings shares one cache line as often as the
/// tree's start allows.
struct Levels {
    /// Where each level begins and how many nodes it has, the leaves'
    /// first; the first `count`.
    bases: [usize; MAX_LEVELS],
    widths: [usize; MAX_LEVELS],
    count: usize,
}

/// Levels of a tree of fewer than `2^32` leaves: 8 above the leaves.
const MAX_LEVELS: usize = 32 / FAN_BITS as usize + 1;

impl Levels {
    /// The levels over `leaves` leaves (fewer than `2^32`) in at most
    /// `room` nodes, which `2 · leaves` always is: the levels above the
    /// leaves have fewer than `leaves / 15 + 9` nodes.
    fn new(leaves: usize, room: usize) -> Self {
        let layout = |padded: bool| {
            let mut levels = Levels {
                bases: [0; MAX_LEVELS],
                widths: [0; MAX_LEVELS],
                count: 0,
            };
            let (mut width, mut base) = (leaves.max(1), 0);
            loop {
                levels.bases[levels.count] = base;
                levels.widths[levels.count] = width;
                levels.count += 1;
                if width == 1 {
                    return (levels, base + 1);
                }
                base += if padded {
                    width.next_multiple_of(FAN)
                } else {
                    width
                };
                width = width.div_ceil(FAN);
            }
        };
        match layout(true) {
            (levels, nodes) if nodes <= room => levels,
            _ => layout(false).0,
        }
    }

    fn bases(&self) -> &[usize] {
        &self.bases[..self.count]
    }

    /// Where in the tree the nodes on the path from leaf `leaf` to the
    /// root lie, the leaf first.
    fn path(&self, leaf: usize) -> impl Iterator<Item = usize> + '_ {
        let levels = self.bases().iter().enumerate();
        levels.map(move |(level, &base)| base + (leaf >> (FAN_BITS * level as u32)))
    }
}

/// Appends to `gathered` (from `*found` on) the position of every leaf
/// below the node `node` of level `level` whose rank passes
/// `threshold - 1`, skipping the subtrees whose largest rank does not.
/// Recursion depth: the levels, at most [`MAX_LEVELS`].
fn descend(
    levels: &Levels,
    level: usize,
    node: usize,
    threshold: u32,
    tree: &[u32],
    gathered: &mut [u32],
    found: &mut usize,
) {
    if level == 0 {
        gathered[*found] = node as u32;
        *found += 1;
        return;
    }
    let first = node << FAN_BITS;
    let below = level - 1;
    let children = first..levels.widths[below].min(first + FAN);
    let ranks = &tree[levels.bases[below]..][children.clone()];
    for (child, &rank) in children.zip(ranks) {
        if rank >= threshold {
            descend(levels, below, child, threshold, tree, gathered, found);
        }
    }
}

/// `words` as pairs of words, for sorting pairs without a buffer of their
/// own.
fn word_pairs(words: &mut [usize]) -> &mut [[usize; 2]] {
    // SAFETY: `[usize; 2]` has the size of two words and their alignment, so
    // the `words.len() / 2` pairs lie inside `words`, whose borrow the
    // result takes over.
    unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), words.len() / 2) }
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
            tree_in(tensors, scratch, emit, planned, false)
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
        plan_within(
            tensors,
            plan_offsets_scratch_bytes(tensors.len()).unwrap(),
            plan,
        )
    }

    /// `plan` over a workspace of `workspace` bytes (rounded down to whole
    /// words): the offsets (each emitted once) and the arena.
    fn plan_within(
        tensors: &[TensorLifetime],
        workspace: usize,
        plan: impl FnOnce(
            &[TensorLifetime],
            &mut Scratch<'_>,
            &mut dyn FnMut(usize, usize),
        ) -> Result<usize, PlanError>,
    ) -> Result<(Vec<usize>, usize), PlanError> {
        let n = tensors.len();
        let mut words = words(workspace);
        let mut offsets = vec![None; n];
        let arena = plan(
            tensors,
            &mut Scratch::new(bytes(&mut words)),
            &mut |i, offset| {
                assert!(
                    offsets[i].replace(offset).is_none(),
                    "tensor {i} emitted twice"
                );
            },
        )?;
        Ok((
            offsets
                .into_iter()
                .map(|o| o.expect("every tensor emitted"))
                .collect(),
            arena,
        ))
    }

    /// Word-aligned room for `bytes` bytes (a multiple of 8).
    fn words(bytes: usize) -> Vec<MaybeUninit<u64>> {
        vec![MaybeUninit::uninit(); bytes / 8]
    }

    /// `words` as the bytes a [`Scratch`] carves.
    fn bytes(words: &mut [MaybeUninit<u64>]) -> &mut [MaybeUninit<u8>] {
        // SAFETY: u64 storage viewed as bytes keeps the word alignment and
        // covers `8 · len` bytes, which the result borrows alone.
        unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), words.len() * 8) }
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
            // Dense shapes take the scan: the tree is also run on every
            // one.
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
    fn tables_meeting_at_a_point_are_stacked_in_every_form() {
        // Every lifetime spans node `n / 2` (the third shape of `table`):
        // both forms take the stacked plan, which must be the
        // specification's, found by the naive scan.
        let mut rng = crate::rng::XorShift(0x5EED_57AC);
        for round in 0..120 {
            let n = 2 + rng.below(if round % 10 == 0 { 3000 } else { 300 });
            let base = [0, 1 << 40, usize::MAX / 2][round % 3];
            let tensors = table(&mut rng, n, 2, base);
            assert_eq!(
                all_meet(tensors.as_slice()),
                tensors.iter().any(|t| t.size > 0)
            );
            let naive = crate::offsets::greedy::naive_plan(&tensors);
            let naive = (naive.offsets, naive.arena_size);
            assert_eq!(plan_in(&tensors).unwrap(), naive, "round {round}");
            let full = plan_offsets_indexed_scratch_bytes(n).unwrap();
            let indexed = plan_within(&tensors, full, |tensors, scratch, emit| {
                try_plan_offsets_indexed_in(tensors, scratch, emit)
            });
            assert_eq!(indexed.unwrap(), naive, "round {round}");
        }
    }

    #[test]
    fn a_stacked_table_past_the_address_space_emits_nothing() {
        let tensors = crate::offsets::greedy::past_the_address_space();
        assert!(all_meet(tensors.as_slice()));
        let mut words = words(plan_offsets_indexed_scratch_bytes(tensors.len()).unwrap());
        let mut emitted = 0;
        let result = try_plan_offsets_indexed_in(
            tensors.as_slice(),
            &mut Scratch::new(bytes(&mut words)),
            |_, _| emitted += 1,
        );
        assert_eq!(result, Err(PlanError::Overflow { tensor: 1 }));
        let result = try_plan_offsets_in(
            tensors.as_slice(),
            &mut Scratch::new(bytes(&mut words)),
            |_, _| emitted += 1,
        );
        assert_eq!(result, Err(PlanError::Overflow { tensor: 1 }));
        assert_eq!(emitted, 0);
    }

    /// A training step of `layers` layers: activations live from their
    /// forward node to the mirrored backward one, a temporary at each
    /// forward node, a gradient over two backward nodes.
    fn training_step(rng: &mut crate::rng::XorShift, layers: usize) -> Vec<TensorLifetime> {
        let turn = 2 * layers;
        (0..layers)
            .flat_map(|i| {
                [
                    TensorLifetime::new(64 * (1 + rng.below(512)), i, turn - 1 - i),
                    TensorLifetime::new(64 * (1 + rng.below(64)), i, i),
                    TensorLifetime::new(64 * (1 + rng.below(512)), turn - 1 - i, turn - i),
                ]
            })
            .collect()
    }

    /// Spans `[p, starts_by[p])` over `planned` positions, of the shape
    /// `shape` picks: short, any length, nested, or each of the most
    /// canonical nodes a tree over them has (from just after a left edge
    /// to just before a right one).
    fn spans(rng: &mut crate::rng::XorShift, planned: usize, shape: usize) -> Vec<u32> {
        (0..planned)
            .map(|p| {
                let end = match shape {
                    0 => p + 1 + rng.below(8),
                    1 => p + 1 + rng.below(planned),
                    2 => planned - p.min(planned / 2),
                    _ => planned - 1,
                };
                end.clamp(p + 1, planned) as u32
            })
            .collect()
    }

    #[test]
    fn the_index_fits_its_stated_bound_on_every_shape() {
        let mut rng = crate::rng::XorShift(0x5EED_1DE8);
        for round in 0..400 {
            let planned = 1 + rng.below(if round % 10 == 0 { 5000 } else { 300 });
            let starts_by = spans(&mut rng, planned, round % 4);
            let steps: Vec<u32> = (0..planned as u32).collect();
            let bound = index::indexed_scratch_bytes(planned).unwrap();
            let mut room = words(bound + 8);
            let fitted = FixedIndex::new(
                &starts_by,
                &steps,
                1,
                &mut Scratch::new(&mut bytes(&mut room)[4..]),
            );
            assert!(fitted.is_some(), "round {round}: {planned} positions");
        }
    }

    #[test]
    fn the_index_plans_as_the_main_planner_on_every_shape_and_workspace() {
        let mut rng = crate::rng::XorShift(0x5EED_1DE9);
        for round in 0..240 {
            let n = SCAN_UP_TO + 1 + rng.below(if round % 10 == 0 { 3000 } else { 300 });
            let base = [0, 1 << 40, usize::MAX / 2][round % 3];
            let tensors = match round % 4 {
                3 => training_step(&mut rng, n / 3),
                shape => table(&mut rng, n, shape, base),
            };
            let n = tensors.len();
            let main = crate::try_plan_offsets(&tensors).unwrap();
            let main = (main.offsets, main.arena_size);
            // With the stated bytes the index always fits (the test above);
            // with fewer, it does or the walk plans.
            let (least, full) = (
                plan_offsets_scratch_bytes(n).unwrap(),
                plan_offsets_indexed_scratch_bytes(n).unwrap(),
            );
            for workspace in [full, least + rng.below(full - least)] {
                let plan = plan_within(&tensors, workspace, |tensors, scratch, emit| {
                    try_plan_offsets_indexed_in(tensors, scratch, emit)
                });
                assert_eq!(
                    plan.unwrap(),
                    main,
                    "round {round}, {n} tensors, {workspace} bytes"
                );
                // The index itself, whatever the table's pairs.
                let plan = plan_within(&tensors, workspace, |tensors, scratch, emit| {
                    let planned = tensors.iter().filter(|t| t.size > 0).count();
                    tree_in(tensors, scratch, emit, planned, true)
                });
                assert_eq!(
                    plan.unwrap(),
                    main,
                    "round {round}, {n} tensors, {workspace} bytes"
                );
            }
        }
    }

    #[test]
    fn the_index_plans_alike_whatever_room_its_covers_have() {
        // A training step in workspaces from the stated size down to the
        // 4-word form's: the covers have less and less room, are compacted,
        // then dropped, then not kept at all; the plan never changes.
        let mut rng = crate::rng::XorShift(0x5EED_C0FE);
        let tensors = training_step(&mut rng, 2000);
        let n = tensors.len();
        let main = crate::try_plan_offsets(&tensors).unwrap();
        let main = (main.offsets, main.arena_size);
        let (least, full) = (
            plan_offsets_scratch_bytes(n).unwrap(),
            plan_offsets_indexed_scratch_bytes(n).unwrap(),
        );
        covers::ROOM_EVENTS.with(|events| events.set((0, 0)));
        for step in 0..=40 {
            let workspace = full - (full - least) * step / 40;
            let plan = plan_within(&tensors, workspace, |tensors, scratch, emit| {
                try_plan_offsets_indexed_in(tensors, scratch, emit)
            });
            assert_eq!(plan.unwrap(), main, "{workspace} bytes");
        }
        let (compacted, dropped) = covers::ROOM_EVENTS.with(|events| events.get());
        assert!(
            compacted > 0 && dropped > 0,
            "{compacted} compactions, {dropped} drops"
        );
    }

    /// Laminar scopes over `2n` nodes, split at random points breadth
    /// first, one tensor per scope, sizes `unit · U{1..kinds}`: the
    /// outer scopes conflict with thousands of placed tensors below a low
    /// arena.
    fn nested_scopes(
        rng: &mut crate::rng::XorShift,
        n: usize,
        unit: usize,
        kinds: usize,
    ) -> Vec<TensorLifetime> {
        let mut scopes = std::collections::VecDeque::from([(0, 2 * n - 1)]);
        let mut tensors = Vec::with_capacity(n);
        while tensors.len() < n {
            let (lo, hi) = scopes.pop_front().unwrap();
            tensors.push(TensorLifetime::new(unit * (1 + rng.below(kinds)), lo, hi));
            if hi - lo >= 2 {
                let mid = lo + 1 + rng.below(hi - lo - 1);
                scopes.extend([(lo, mid), (mid + 1, hi)]);
            } else {
                scopes.push_back((lo, hi));
            }
        }
        tensors
    }

    #[test]
    fn coverage_finds_the_best_fit_of_the_sorted_ranges() {
        let mut rng = crate::rng::XorShift(0x5EED_C0FE);
        for round in 0..2000 {
            let units = 1 + rng.below(if round % 2 == 0 { 40 } else { 400 });
            let ranges: Vec<(usize, usize)> = (0..rng.below(200))
                .map(|_| {
                    let start = rng.below(units);
                    (start, start + 1 + rng.below(units - start))
                })
                .collect();
            let size = 1 + rng.below(units / 4 + 1);
            let mut sorted = ranges.clone();
            sorted.sort();
            let mut counts = vec![7; units + 1];
            assert_eq!(
                best_fit_by_coverage(ranges.iter().copied(), &mut counts, size),
                best_fit_sorted_ranges(sorted, size),
                "round {round}: {ranges:?}, size {size}"
            );
        }
    }

    #[test]
    fn scopes_enclosing_thousands_plan_as_the_specification_reads() {
        // The outer scopes gather more than FEW conflicts below an arena of
        // a few units each: their coverage is counted, not sorted.
        let mut rng = crate::rng::XorShift(0x5EED_5C0E);
        for (n, unit, kinds) in [(3000, 64, 4), (5000, 16, 64), (4000, 1, 8), (2500, 48, 300)] {
            let tensors = nested_scopes(&mut rng, n, unit, kinds);
            let naive = crate::offsets::greedy::naive_plan(&tensors);
            let literal = (naive.offsets, naive.arena_size);
            assert_eq!(
                plan_by_tree(&tensors).unwrap(),
                literal,
                "{n} scopes of {unit} x 1..{kinds}"
            );
            assert_eq!(
                plan_in(&tensors).unwrap(),
                literal,
                "{n} scopes of {unit} x 1..{kinds}"
            );
        }
    }

    #[test]
    fn the_tree_plans_small_tables_as_the_main_planner() {
        // The tree's levels are laid out unpadded where padding them to
        // whole groups would not fit its room (a few leaves).
        let mut rng = crate::rng::XorShift(0x5EED_7111);
        for round in 0..600 {
            let n = 1 + rng.below(3 * FAN);
            let tensors = table(&mut rng, n, round % 3, 0);
            let main = crate::try_plan_offsets(&tensors).unwrap();
            let case = format!("round {round}, {n} tensors");
            assert_eq!(
                plan_by_tree(&tensors).unwrap(),
                (main.offsets, main.arena_size),
                "{case}"
            );
        }
    }

    #[test]
    fn ranges_past_32_bits_of_units_widen_in_the_middle_of_a_plan() {
        // Odd sizes (a unit of one byte) above 2^30: a few stacked pass
        // 2^32, so the plan starts packed and widens where the first range
        // ends past it. Sizes of 2^40-byte units leave 24 bits of units
        // for an end in bytes; four stacked pass them, and overflow.
        let mut rng = crate::rng::XorShift(0x5EED_3232);
        let mut overflows = 0;
        for round in 0..60 {
            let n = SCAN_UP_TO + 1 + rng.below(400);
            let wide_units = round % 2 == 1;
            let mut tensors = table(&mut rng, n, round % 3, 0);
            for t in tensors.iter_mut().filter(|t| t.size > 0) {
                t.size = if wide_units {
                    ((1 << 22) + rng.below(1 << 20)) << 40
                } else {
                    (1 << 30) + 2 * rng.below(1 << 20) + 1
                };
            }
            let main = crate::try_plan_offsets(&tensors);
            match &main {
                Ok(plan) if !wide_units => assert!(
                    plan.arena_size > u32::MAX as usize,
                    "round {round}: the plan stays within 32 bits"
                ),
                Err(PlanError::Overflow { .. }) => overflows += 1,
                _ => {}
            }
            let case = format!("round {round}, {n} tensors");
            let main = main.map(|plan| (plan.offsets, plan.arena_size));
            assert_eq!(plan_by_tree(&tensors), main, "{case}");
        }
        assert!(overflows >= 20, "only {overflows} tables overflow");
    }

    #[test]
    fn the_scans_plan_as_the_main_planner_on_every_shape() {
        // Both scans, in placement order and by offset, on tables the
        // routing gives either (up to SCAN_UP_TO and past it).
        let mut rng = crate::rng::XorShift(0x5EED_5CA2);
        for round in 0..600 {
            let n = 1 + rng.below(if round % 4 == 0 { 600 } else { SCAN_UP_TO });
            let base = [0, 1 << 40, usize::MAX / 2][round % 3];
            let tensors = table(&mut rng, n, round % 3, base);
            let main = crate::try_plan_offsets(&tensors).unwrap();
            let main = (main.offsets, main.arena_size);
            for by_offset in [false, true] {
                let by_scan = plan_by(&tensors, |tensors, scratch, emit| {
                    scan_in(tensors, scratch, emit, by_offset)
                });
                let case = format!("round {round}, {n} tensors, by offset: {by_offset}");
                assert_eq!(by_scan.unwrap(), main, "{case}");
            }
        }
    }

    #[test]
    fn the_pair_count_decides_density_as_all_pairs_counted_do() {
        let mut rng = crate::rng::XorShift(0x5EED_9A12);
        for round in 0..400 {
            let n = 2 + rng.below(120);
            let tensors = table(&mut rng, n, round % 3, [0, usize::MAX / 2][round % 2]);
            let live: Vec<_> = tensors.iter().filter(|t| t.size > 0).collect();
            let planned = live.len();
            if planned < 2 {
                continue;
            }
            let pairs = (0..planned)
                .flat_map(|i| (i + 1..planned).map(move |j| (i, j)))
                .filter(|&(i, j)| live[i].overlaps(live[j]))
                .count();
            let all = planned * (planned - 1) / 2;
            let mut words = words(16 * planned);
            for one_in in [1, 2, SCAN_DENSE_FROM, 16, 32] {
                let scratch = &mut Scratch::new(bytes(&mut words));
                let counted = pairs_at_least(&tensors[..], planned, scratch, one_in);
                assert_eq!(
                    counted,
                    pairs * one_in >= all,
                    "round {round}, one in {one_in}"
                );
            }
        }
    }

    #[test]
    fn nodes_spanning_all_of_usize_plan_as_the_main_planner() {
        // The tree ranks last uses among first uses: any node index goes.
        let mut rng = crate::rng::XorShift(0x5EED_0F5A);
        let mut tensors = table(&mut rng, 200, 1, 0);
        tensors.push(TensorLifetime::new(64, 0, 0));
        tensors.push(TensorLifetime::new(64, usize::MAX, usize::MAX));
        tensors.push(TensorLifetime::new(32, 5, usize::MAX));
        let main = crate::try_plan_offsets(&tensors).unwrap();
        let main = (main.offsets, main.arena_size);
        assert_eq!(plan_in(&tensors).unwrap(), main);
        assert_eq!(plan_by_tree(&tensors).unwrap(), main);
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
            include_str!("../../../data/minimalloc/challenging/A.1048576.csv"),
            include_str!("../../../data/minimalloc/challenging/D.1048576.csv"),
            include_str!("../../../data/minimalloc/challenging/K.1048576.csv"),
            include_str!("../../../data/minimalloc/examples/input.12.csv"),
        ];
        for text in files {
            let tensors = minimalloc(text);
            let main = crate::try_plan_offsets(&tensors).unwrap();
            assert_eq!(plan_in(&tensors).unwrap(), (main.offsets, main.arena_size));

            let mut words = words(peak_live_bytes_scratch_bytes(tensors.len()).unwrap());
            let scratch = &mut Scratch::new(bytes(&mut words));
            let peak = try_peak_live_bytes_in(&tensors[..], scratch).unwrap();
            assert_eq!(peak, crate::try_peak_live_bytes(&tensors).unwrap());
        }
    }
}
