//! The specification's planner: greedy best fit in decreasing size (after
//! google/XNNPACK#10801).
//!
//! # Algorithm
//!
//! Tensors are placed in decreasing size; equal sizes keep input order, so the
//! plan is deterministic. Each tensor collects the byte ranges of the placed
//! tensors whose lifetimes intersect its own, sorts and coalesces them into
//! disjoint blocks, and takes the smallest free interval that fits (best fit).
//! The leading interval `[0, first block)` is a candidate and wins ties. If no
//! interval fits, the tensor goes right after the last block. Zero-size
//! tensors are not planned and get offset 0.
//!
//! The conflicting ranges are found without scanning every placed tensor:
//! an index over the lifetimes' endpoint ranks ([`index`]) keeps the placed
//! ranges as coalesced unions, and a placement gathers a few short unions
//! (tensors placed side by side merge into one range) instead of one range
//! per conflicting tensor. Best fit depends only on the union of the
//! conflicting ranges, so the plan is the one of the scan the specification
//! describes, bit for bit. Placed ranges are never removed, so a query
//! whose lifetime contains an earlier query's also covers the byte prefix
//! that one found covered, and gathers only the ranges past it (a training
//! step's nested activations, which would otherwise gather thousands of
//! ranges to find no gap below the top).
//!
//! A table whose lifetimes all share one point ([`stacked`]: buffers all
//! live together, or nested ones held across a turn) has every pair
//! conflicting, so each tensor goes on top of the ones before it: its plan
//! is the running sum of the sizes, found in `O(n)` after the sort.
//!
//! Small tables skip the index, whose set-up (ranks, tree, unions) would
//! cost more than the scans it saves: up to [`IN_ORDER_UP_TO`] tensors,
//! the specification's scan over one contiguous list in placement order
//! ([`direct`]); up to [`BITS_AT_ANY_DENSITY_UP_TO`] tensors, and up to
//! [`BITS_UP_TO`] when the table is sparse (fewer than one pair in
//! [`BITS_DENSE_FROM`] conflicts, estimated from a few sampled tensors),
//! bit sets of the tensors started and ended by each
//! endpoint, whose conjunction gives a placement's conflicts in a few words
//! ([`bits`]); up to [`DENSE_DIRECT_UP_TO`] when the table is dense (at
//! least one pair in 32 conflicts, one in 16 above [`SPARSER_DENSE_UP_TO`]
//! tensors), a scan of the placed tensors kept sorted by offset, which
//! reads best fit off in the same pass. Above [`LISTS_FROM`] tensors, a
//! table with at most [`LIST_PAIRS_PER_TENSOR`] conflicting pairs per
//! tensor (counted exactly, in one sweep stopped once past the bound)
//! takes explicit lists of each tensor's conflicting tensors placed before
//! it ([`lists`]): a placement gathers exactly their ranges, the
//! specification's scan restricted to the tensors that conflict, with no
//! tree to build. Other large tables take the index. The thresholds come
//! from side-by-side timings against the literal planner over the shape
//! families of issue 21, the networks and the MiniMalloc tables; every
//! path gives the same plan. At scale the
//! placement order and the endpoint ranks are radix sorts of packed keys
//! ([`keys`]).
//!
//! # What is exact
//!
//! Soundness: every tensor is placed in a free interval of the byte ranges of
//! all placed tensors whose lifetimes meet its own, so no two
//! lifetime-intersecting tensors share a byte. Not claimed: optimality.
//!
//! # Complexity
//!
//! `O(n log n + Σ_i (g_i log g_i + a_i))` time, where tensor `i` gathers
//! `g_i` ranges (at most one per conflicting placed tensor plus `O(log n)`
//! unions' worth, usually far fewer than its conflicts) and its insertion
//! shifts `a_i` ranges of the unions it changes; `O(n² log n)` at worst.
//! Memory: `O(n log n)` ranges at worst (a tensor's range in the `O(log n)`
//! unions of its end paths and canonical nodes, and in at most 2,048 covers
//! on average), far fewer when they coalesce; see [`index`]. The direct scans:
//! `O(n²)` time (bounded by the thresholds above), `O(n)` memory. The bit
//! sets: `O(n² / 64 + n log n + Σ_i k_i log k_i)` time for `k_i`
//! conflicts, `O(n² / 64)` memory (bounded by [`BITS_UP_TO`]). The
//! conflict lists: `O(n + E)` time for `E` conflicting pairs while the
//! arena fits 32 bits in the sizes' unit (a placement's ranges sorted by
//! a radix sort when there are many), `O(n + E + Σ_i g_i log g_i)` past
//! it, for `g_i` conflicting tensors placed before tensor `i`; `O(n + E)`
//! memory (bounded by [`LIST_PAIRS_PER_TENSOR`]); a table with more pairs
//! costs their counting sweep, `O(n)` beyond the index's work.

mod bits;
mod direct;
mod index;
mod keys;
mod lists;
mod stacked;

pub(crate) use index::PlacedIndex;
// The heap-free form's index keeps its unions in fixed slots with the same
// operations.
pub(crate) use index::{
    add_range, best_fit_of_two, canonical_nodes, cover_height_of, merge_filled, merge_sorted_runs,
    past_floor, Facts, RangeStore, FACT_FROM,
};
pub(crate) use keys::endpoint_ranks;
#[cfg(test)]
pub(crate) use stacked::tests::past_the_address_space;
pub(crate) use stacked::{all_meet, top as stacked_top};

use super::{MemoryPlan, TensorLifetime};
use crate::error::PlanError;
use crate::input::{check_lifetimes, InputList};
use crate::sys::fallible;

/// Plans offsets greedily (best fit, decreasing size), or says why it cannot.
///
/// Errors: [`PlanError::InvalidLifetime`] for the first tensor with
/// `first_use > last_use`; [`PlanError::Overflow`] if a tensor's end offset
/// would pass `usize::MAX` (the first such tensor in placement order).
///
/// Exact: soundness (see the module documentation), and the plan is
/// bit-identical to the specification's greedy. Not claimed: optimality.
/// Complexity: see the module documentation; `O(n² log n)` time and
/// `O(n log n)` memory in the worst case.
pub fn try_plan_offsets(tensors: &[TensorLifetime]) -> Result<MemoryPlan, PlanError> {
    plan(tensors, NoDeadline).map_err(|stop| match stop {
        Stop::Error(error) => error,
        Stop::Late(never) => match never {},
    })
}

/// [`try_plan_offsets`], or `Ok(None)` if `deadline` passes before the plan
/// is complete; with no deadline never `None`. A plan returned is exactly
/// that of [`try_plan_offsets`], never a partial one.
///
/// The clock is read between the set-up steps (the sorts, the index's
/// layout) and every [`CLOCK_PERIOD`] placements, so the call returns
/// within about one such stretch of work after the deadline.
///
/// Errors: those of [`try_plan_offsets`] (a late call may return `Ok(None)`
/// before finding them, except the invalid lifetime, which is always
/// checked first). Complexity: that of [`try_plan_offsets`].
#[allow(dead_code)]
pub(crate) fn plan_until(
    tensors: &[TensorLifetime],
    deadline: Option<std::time::Instant>,
) -> Result<Option<MemoryPlan>, PlanError> {
    match plan(tensors, Deadline(deadline)) {
        Ok(plan) => Ok(Some(plan)),
        Err(Stop::Late(())) => Ok(None),
        Err(Stop::Error(error)) => Err(error),
    }
}

/// Placements between two readings of the clock of [`plan_until`].
const CLOCK_PERIOD: usize = 1024;

/// Why a plan stopped: an error, or the clock's deadline (`L` is `()` for a
/// deadline, the empty [`core::convert::Infallible`] when there is none, so
/// that [`try_plan_offsets`] has no late path at all).
pub(super) enum Stop<L> {
    Error(PlanError),
    Late(L),
}

impl<L> From<PlanError> for Stop<L> {
    fn from(error: PlanError) -> Self {
        Stop::Error(error)
    }
}

/// The clock a plan reads between its steps.
pub(super) trait Clock: Copy {
    /// What [`Stop::Late`] carries.
    type Late;
    /// `Err` once the deadline has passed.
    fn check(self) -> Result<(), Stop<Self::Late>>;
    /// [`Self::check`] at every [`CLOCK_PERIOD`]-th `step`, `Ok` at the others.
    #[inline]
    fn check_at(self, step: usize) -> Result<(), Stop<Self::Late>> {
        if step % CLOCK_PERIOD == CLOCK_PERIOD - 1 {
            self.check()
        } else {
            Ok(())
        }
    }
}

/// No deadline: never late.
#[derive(Clone, Copy)]
pub(super) struct NoDeadline;

impl Clock for NoDeadline {
    type Late = core::convert::Infallible;
    #[inline]
    fn check(self) -> Result<(), Stop<Self::Late>> {
        Ok(())
    }
    #[inline]
    fn check_at(self, _: usize) -> Result<(), Stop<Self::Late>> {
        Ok(())
    }
}

/// Late from the instant given on (never, without one).
#[derive(Clone, Copy)]
pub(super) struct Deadline(Option<std::time::Instant>);

impl Clock for Deadline {
    type Late = ();
    #[inline]
    fn check(self) -> Result<(), Stop<()>> {
        match self.0 {
            Some(deadline) if std::time::Instant::now() >= deadline => Err(Stop::Late(())),
            _ => Ok(()),
        }
    }
}

/// [`try_plan_offsets`] reading `clock` between its steps.
fn plan<C: Clock>(tensors: &[TensorLifetime], clock: C) -> Result<MemoryPlan, Stop<C::Late>> {
    check_lifetimes(tensors)?;
    clock.check()?;
    let mut spare = keys::Spare::default();
    let order = keys::placement_order_sparing(tensors, &mut spare)?;
    clock.check()?;
    let mut offsets = fallible::filled(tensors.len(), 0usize)?;
    let arena_size = place_by_shape(tensors, &order, &mut offsets, spare, clock)?;
    Ok(MemoryPlan {
        offsets,
        arena_size,
    })
}
/// Places the tensors of `order` on the path that costs least for the
/// table's size and density (every path gives the same plan); writes
/// `offsets` and returns the arena.
fn place_by_shape<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    spare: keys::Spare,
    clock: C,
) -> Result<usize, Stop<C::Late>> {
    let n = order.len();
    if stacked::all_meet(tensors) {
        Ok(stacked::place(tensors, order, offsets)?)
    } else if n <= IN_ORDER_UP_TO {
        direct::place_in_order(tensors, order, offsets, clock)
    } else if n <= BITS_AT_ANY_DENSITY_UP_TO
        || (n <= BITS_UP_TO && !is_dense(tensors, n, BITS_DENSE_FROM))
    {
        clock.check()?;
        bits::place(tensors, order, offsets, clock)
    } else if n <= DENSE_DIRECT_UP_TO && is_dense(tensors, n, dense_from(n)) {
        clock.check()?;
        direct::place(tensors, order, offsets, clock)
    } else {
        if n > LISTS_FROM {
            let found = lists::place(
                tensors,
                order,
                offsets,
                LIST_PAIRS_PER_TENSOR * n,
                spare,
                clock,
            )?;
            if let Some(arena) = found {
                return Ok(arena);
            }
        }
        let mut placed = index::PlacedIndex::new(tensors, order, clock)?;
        clock.check()?;
        place(tensors, order, offsets, &mut placed, clock)
    }
}

/// Up to this many planned tensors every table takes the scan in placement
/// order ([`direct::place_in_order`]): below, the other paths' set-up
/// (sorts, tables) costs more than the scans it saves.
const IN_ORDER_UP_TO: usize = 48;

/// Up to this many planned tensors every table takes the bit-set tables of
/// [`bits`]: their work is at most the scans' on any table (a few words
/// where the scans test each placed tensor, the same sort of the
/// conflicting ranges), and the density estimate would cost a sizeable
/// part of the plan.
const BITS_AT_ANY_DENSITY_UP_TO: usize = 128;

/// Up to this many planned tensors a sparse table (fewer than one pair in
/// [`BITS_DENSE_FROM`] conflicting) takes the bit-set tables of [`bits`]:
/// the conflicts of a placement cost a few words and one visit each, where
/// the scans test every placed tensor. Above, the tables' `n² / 32` words
/// outgrow the index's set-up.
const BITS_UP_TO: usize = 1024;

/// The density, as one pair in this many, from which the direct scan in
/// offset order costs less than the bit-set tables: there most placed
/// tensors conflict, and the tables' path sorts their ranges per placement
/// where the scan reads them in order.
const BITS_DENSE_FROM: usize = 8;

/// Up to this many planned tensors a dense table takes the direct scan in
/// offset order ([`direct::place`]): where most pairs conflict, the index
/// gathers nearly as many ranges as the scan visits, and the scan in
/// placement order sorts them all.
const DENSE_DIRECT_UP_TO: usize = 8192;

/// Above this many planned tensors a table whose conflicting pairs are
/// at most [`LIST_PAIRS_PER_TENSOR`] per tensor takes the conflict lists
/// of [`lists`] instead of the index: their set-up is two sweeps over the
/// table in time order where the index sorts the endpoints and lays out a
/// tree, and each placement reads the few ranges it needs. Below, the
/// routing is that measured before the lists.
const LISTS_FROM: usize = 8192;

/// Conflicting pairs per planned tensor up to which the lists of [`lists`]
/// are built (2 or 4 bytes per pair listed, at most one entry per pair):
/// up to there a placement's sort of its gathered ranges costs less than
/// the index's merge of its unions, on the sparse families of issue 21 (a
/// chain has 1 pair per tensor, a window of 11 nodes 10, random lifetimes
/// of 1–100 nodes about 50).
const LIST_PAIRS_PER_TENSOR: usize = 64;

/// Tensors whose conflicts [`is_dense`] counts.
const DENSITY_SAMPLES: usize = 8;

/// Up to this many planned tensors the index costs more than the direct
/// scan from one conflicting pair in 32 on (its set-up weighs more there);
/// above, from one in 16.
const SPARSER_DENSE_UP_TO: usize = 1024;

/// The density from which the direct scan costs less than the index for
/// `planned` tensors, as `one_in` for one pair in `one_in`.
fn dense_from(planned: usize) -> usize {
    if planned <= SPARSER_DENSE_UP_TO {
        32
    } else {
        16
    }
}

/// Whether at least one pair in `one_in` of the `planned` tensors of
/// `tensors` conflicts, as estimated from [`DENSITY_SAMPLES`] planned
/// tensors spread evenly over the input (usually over time) and their
/// conflicts with every planned tensor. The estimate chooses the path
/// only: every path gives the same plan.
///
/// Complexity: `O(n)` time (`8 n` comparisons, without branches), no
/// memory.
pub(crate) fn is_dense<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
    planned: usize,
    one_in: usize,
) -> bool {
    let samples = planned.min(DENSITY_SAMPLES);
    if samples < 2 {
        return false;
    }
    let (mut meets, mut taken) = (0usize, 0usize);
    let all = || (0..tensors.count()).map(|i| tensors.at(i));
    let spread = all().filter(|t| t.size > 0).step_by(planned / samples);
    for sample in spread.take(samples) {
        taken += 1;
        meets += all()
            .filter(|t| {
                (t.size > 0) & (t.first_use <= sample.last_use) & (sample.first_use <= t.last_use)
            })
            .count();
    }
    // Each sample meets itself; the others are the pairs counted.
    (meets - taken).saturating_mul(one_in) >= taken * (planned - 1)
}

/// Places the tensors of `order` by best fit among the ranges `placed`
/// gathers; writes `offsets` and returns the arena.
fn place<C: Clock>(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
    placed: &mut index::PlacedIndex,
    clock: C,
) -> Result<usize, Stop<C::Late>> {
    // No gap shorter than the smallest tensor can ever be chosen.
    let smallest = order.last().map_or(0, |&i| tensors[i].size);
    // The sizes in placement order, gathered in one loop whose loads are
    // independent: at millions of tensors each is a cache miss, which the
    // placements' dependent work would otherwise wait for one at a time.
    // Each step's size is then replaced by its offset, written to
    // `offsets` at the end in one loop of independent stores, for the
    // same reason.
    let mut sizes: Vec<usize> =
        fallible::collect(order.len(), order.iter().map(|&i| tensors[i].size))?;
    let mut arena_size = 0usize;
    for (step, &i) in order.iter().enumerate() {
        clock.check_at(step)?;
        placed.prefetch(step);
        let size = sizes[step];
        let offset = placed.best_fit(step, size, smallest)?;
        let end = offset
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        placed.insert(step, (offset, end), smallest)?;
        sizes[step] = offset;
        arena_size = arena_size.max(end);
    }
    for (&i, &offset) in order.iter().zip(&sizes) {
        offsets[i] = offset;
    }
    Ok(arena_size)
}

/// The offset best fit gives a tensor of `size` bytes among the occupied
/// byte ranges `blocks` (unsorted, possibly overlapping; reordered here).
///
/// Candidates are the leading interval `[0, first start)` and every interval
/// between coalesced blocks; the smallest one that fits wins, and the earliest
/// wins a tie, so the leading interval wins any tie it is part of. With no
/// fitting interval the tensor goes at the end of the last block.
pub(crate) fn best_fit(blocks: &mut [(usize, usize)], size: usize) -> usize {
    // By start only: among equal starts the first one closes any gap before
    // it and the rest cannot open one, so their order does not matter.
    blocks.sort_unstable_by_key(|&(start, _)| start);
    best_fit_sorted(blocks, size)
}

/// [`best_fit`] of `blocks` sorted by start.
pub(crate) fn best_fit_sorted(blocks: &[(usize, usize)], size: usize) -> usize {
    best_fit_sorted_ranges(blocks.iter().copied(), size)
}

/// [`best_fit_sorted`] of ranges read in order of start.
#[inline]
pub(crate) fn best_fit_sorted_ranges(
    blocks: impl IntoIterator<Item = (usize, usize)>,
    size: usize,
) -> usize {
    let mut best: Option<(usize, usize)> = None; // (gap length, offset)
    let mut covered_to = 0usize; // end of the coalesced block so far
    for (start, end) in blocks {
        if start > covered_to {
            let gap = start - covered_to;
            if gap >= size && best.map_or(true, |(len, _)| gap < len) {
                best = Some((gap, covered_to));
            }
        }
        covered_to = covered_to.max(end);
    }
    best.map_or(covered_to, |(_, offset)| offset)
}

/// Plans offsets greedily; panics on an invalid lifetime.
///
/// The panicking form of [`try_plan_offsets`]: same plan, same complexity.
///
/// # Panics
///
/// If a tensor has `first_use > last_use`, or an end offset would overflow
/// `usize`.
///
/// # Example
///
/// ```
/// use aether_planner::{plan_offsets, TensorLifetime};
/// // A 100-byte tensor live at nodes 0..=1 and an 80-byte one at 1..=2 meet at
/// // node 1; a 60-byte one at 2..=3 reuses the bytes of the first.
/// let tensors = [
///     TensorLifetime::new(100, 0, 1),
///     TensorLifetime::new(80, 1, 2),
///     TensorLifetime::new(60, 2, 3),
/// ];
/// let plan = plan_offsets(&tensors);
/// assert_eq!(plan.offsets, vec![0, 100, 0]);
/// assert_eq!(plan.arena_size, 180);
/// ```
pub fn plan_offsets(tensors: &[TensorLifetime]) -> MemoryPlan {
    try_plan_offsets(tensors).unwrap_or_else(|error| panic!("plan_offsets: {error}"))
}

/// The naive oracle: every placed tensor is scanned for a conflict, as
/// the specification states it.
#[cfg(test)]
pub(crate) fn naive_plan(tensors: &[TensorLifetime]) -> MemoryPlan {
    let mut order: Vec<usize> = (0..tensors.len())
        .filter(|&i| tensors[i].size > 0)
        .collect();
    order.sort_by(|&a, &b| tensors[b].size.cmp(&tensors[a].size));
    let mut offsets = vec![0usize; tensors.len()];
    let mut arena_size = 0;
    for (placed, &i) in order.iter().enumerate() {
        let mut blocks: Vec<(usize, usize)> = order[..placed]
            .iter()
            .filter(|&&j| tensors[j].overlaps(&tensors[i]))
            .map(|&j| (offsets[j], offsets[j] + tensors[j].size))
            .collect();
        offsets[i] = best_fit(&mut blocks, tensors[i].size);
        arena_size = arena_size.max(offsets[i] + tensors[i].size);
    }
    MemoryPlan {
        offsets,
        arena_size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// The error of a step run with no deadline, as a test failure.
    fn fail<T>(stop: Stop<core::convert::Infallible>) -> T {
        match stop {
            Stop::Error(error) => panic!("{error}"),
            Stop::Late(never) => match never {},
        }
    }

    /// Tables that take each path of the planner: the scan in placement
    /// order, the direct scan, and the index.
    fn tables_of_every_path() -> Vec<Vec<TensorLifetime>> {
        let mut rng = crate::rng::XorShift(0x5EED_000A);
        [5, IN_ORDER_UP_TO, 300, 3000, 20_000]
            .iter()
            .map(|&n| {
                (0..n)
                    .map(|i| {
                        let span = if rng.below(16) == 0 { 500 } else { 8 };
                        TensorLifetime::new(1 + rng.below(4000), i, i + rng.below(span))
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn plan_until_without_a_deadline_or_before_it_is_the_plan() {
        let later = Instant::now() + Duration::from_secs(24 * 3600);
        for tensors in tables_of_every_path() {
            let plan = try_plan_offsets(&tensors).unwrap();
            if tensors.len() <= 3000 {
                assert_eq!(naive_plan(&tensors), plan);
            }
            assert_eq!(plan_until(&tensors, None).unwrap().as_ref(), Some(&plan));
            assert_eq!(plan_until(&tensors, Some(later)).unwrap(), Some(plan));
        }
    }

    #[test]
    fn plan_until_a_passed_deadline_returns_no_plan() {
        let passed = Instant::now();
        for tensors in tables_of_every_path() {
            assert_eq!(plan_until(&tensors, Some(passed)).unwrap(), None);
        }
        // The lifetimes are checked before the clock.
        let invalid = [TensorLifetime::new(4, 0, 1), TensorLifetime::new(4, 3, 2)];
        assert_eq!(
            plan_until(&invalid, Some(passed)),
            Err(PlanError::InvalidLifetime {
                tensor: 1,
                first_use: 3,
                last_use: 2
            })
        );
    }

    #[test]
    fn plan_until_returns_the_whole_plan_or_none_whatever_the_deadline() {
        // Deadlines that may pass anywhere in the call: the outcome is the
        // whole plan or nothing, never a part of one.
        let tensors = tables_of_every_path().pop().unwrap();
        let plan = try_plan_offsets(&tensors).unwrap();
        for micros in [0, 1, 10, 100, 1000, 10_000, 100_000] {
            let deadline = Instant::now() + Duration::from_micros(micros);
            match plan_until(&tensors, Some(deadline)).unwrap() {
                Some(late) => assert_eq!(late, plan),
                None => assert!(Instant::now() >= deadline),
            }
        }
    }

    #[test]
    fn the_index_gives_the_naive_plan_in_every_shape() {
        let mut rng = crate::rng::XorShift(0x5EED_0003);
        let mut next = move |bound: usize| rng.below(bound);
        for _ in 0..300 {
            let horizon = 1 + next(200);
            let tensors: Vec<TensorLifetime> = (0..next(150))
                .map(|_| {
                    let first = next(horizon);
                    let span = if next(8) == 0 { horizon } else { 5 };
                    let last = (first + next(span)).min(horizon);
                    let size = [0, 64, 128][next(3)] + next(3) * next(100);
                    TensorLifetime::new(size, first, last)
                })
                .collect();
            let naive = naive_plan(&tensors);
            assert_eq!(plan_offsets(&tensors), naive);
            // Every shape of the index, not only the one chosen.
            let mut order: Vec<usize> = (0..tensors.len())
                .filter(|&i| tensors[i].size > 0)
                .collect();
            order.sort_unstable_by_key(|&i| (core::cmp::Reverse(tensors[i].size), i));
            for bucket_bits in [0, 1, 2, 4] {
                for cover_height in [0, 1, 3, 64] {
                    let mut offsets = vec![0; tensors.len()];
                    let mut index =
                        index::PlacedIndex::shaped(&tensors, &order, bucket_bits, cover_height)
                            .unwrap();
                    let arena = place(&tensors, &order, &mut offsets, &mut index, NoDeadline)
                        .unwrap_or_else(fail);
                    let shape = (bucket_bits, cover_height);
                    assert_eq!(
                        (&offsets, arena, shape),
                        (&naive.offsets, naive.arena_size, shape)
                    );
                }
            }
        }
    }

    /// Every path, and every shape of the index, on `tensors` gives the
    /// naive plan.
    fn assert_every_shape_is_naive(tensors: &[TensorLifetime]) {
        let naive = naive_plan(tensors);
        assert_both_paths_are_naive(tensors);
        let mut order: Vec<usize> = (0..tensors.len())
            .filter(|&i| tensors[i].size > 0)
            .collect();
        order.sort_unstable_by_key(|&i| (core::cmp::Reverse(tensors[i].size), i));
        for bucket_bits in [0, 1, 3, 63] {
            for cover_height in [0, 2, 64] {
                let mut offsets = vec![0; tensors.len()];
                let mut index =
                    index::PlacedIndex::shaped(tensors, &order, bucket_bits, cover_height).unwrap();
                let arena = place(tensors, &order, &mut offsets, &mut index, NoDeadline)
                    .unwrap_or_else(fail);
                assert_eq!((offsets, arena), (naive.offsets.clone(), naive.arena_size));
            }
        }
    }

    /// Spare buffers as a plan's earlier step leaves them: full of other
    /// words, some with too little room for a table of `len` tensors (by
    /// `round`), so that a step reusing them must neither read their old
    /// words nor assume their room.
    fn dirty_spare(len: usize, round: usize) -> keys::Spare {
        let mut spare = keys::Spare::default();
        for room in [len / (1 + round % 3), 2 * len + round % 7] {
            let mut buffer = Vec::with_capacity(room);
            buffer.resize(room, u64::MAX - round as u64);
            spare.keep(buffer);
        }
        spare
    }

    /// The scans, the bit sets and the index on the same table, whatever
    /// [`place_by_shape`] would choose, and the choice itself.
    fn assert_both_paths_are_naive(tensors: &[TensorLifetime]) {
        let naive = naive_plan(tensors);
        assert_eq!(plan_offsets(tensors), naive);
        let order = keys::placement_order(tensors).unwrap();
        let mut offsets = vec![0; tensors.len()];
        let arena = direct::place(tensors, &order, &mut offsets, NoDeadline).unwrap_or_else(fail);
        assert_eq!((&offsets, arena), (&naive.offsets, naive.arena_size));
        let mut offsets = vec![0; tensors.len()];
        let arena =
            direct::place_in_order(tensors, &order, &mut offsets, NoDeadline).unwrap_or_else(fail);
        assert_eq!((&offsets, arena), (&naive.offsets, naive.arena_size));
        let mut offsets = vec![0; tensors.len()];
        let arena = bits::place(tensors, &order, &mut offsets, NoDeadline).unwrap_or_else(fail);
        assert_eq!((&offsets, arena), (&naive.offsets, naive.arena_size));
        let mut offsets = vec![0; tensors.len()];
        let spare = dirty_spare(tensors.len(), 1);
        let arena = lists::place(
            tensors,
            &order,
            &mut offsets,
            usize::MAX >> 32,
            spare,
            NoDeadline,
        )
        .unwrap_or_else(fail);
        // Declined only without tensors or where the endpoints span more
        // than 32 bits.
        let low = order.iter().map(|&i| tensors[i].first_use).min();
        let high = order.iter().map(|&i| tensors[i].last_use).max();
        let wide = match (low, high) {
            (Some(low), Some(high)) => high - low > u32::MAX as usize,
            _ => true,
        };
        if arena.is_some() || !wide {
            assert_eq!((&offsets, arena), (&naive.offsets, Some(naive.arena_size)));
        }
        let mut offsets = vec![0; tensors.len()];
        let mut index = index::PlacedIndex::new(tensors, &order, NoDeadline).unwrap_or_else(fail);
        let arena =
            place(tensors, &order, &mut offsets, &mut index, NoDeadline).unwrap_or_else(fail);
        assert_eq!((&offsets, arena), (&naive.offsets, naive.arena_size));
    }

    #[test]
    fn the_direct_scan_and_the_index_give_the_naive_plan_on_both_sides_of_the_crossover() {
        let mut rng = crate::rng::XorShift(0x5EED_0009);
        let mut next = move |bound: usize| rng.below(bound);
        // Planned counts around the crossover (zero sizes are not planned,
        // so they pad a table without moving it across).
        for planned in [
            1,
            2,
            IN_ORDER_UP_TO,
            IN_ORDER_UP_TO + 1,
            63,
            64,
            65,
            BITS_AT_ANY_DENSITY_UP_TO,
            BITS_AT_ANY_DENSITY_UP_TO + 1,
            256,
            257,
            513,
            700,
            BITS_UP_TO,
            BITS_UP_TO + 1,
            SPARSER_DENSE_UP_TO,
            SPARSER_DENSE_UP_TO + 1,
        ] {
            for shape in 0..4 {
                let horizon = [3, 40, 400, 5000][shape];
                let mut tensors: Vec<TensorLifetime> = (0..planned)
                    .map(|_| {
                        let first = next(horizon);
                        let span = if next(10) == 0 {
                            horizon
                        } else {
                            1 + shape * 7
                        };
                        let size = [64, 1 + next(5), 16 * (1 + next(300)), 1 << 40][shape];
                        TensorLifetime::new(size, first, first + next(span))
                    })
                    .collect();
                for _ in 0..next(20) {
                    let at = next(tensors.len() + 1);
                    tensors.insert(at, TensorLifetime::new(0, next(horizon), horizon));
                }
                assert_both_paths_are_naive(&tensors);
            }
        }
        // Overflow: tensor 0 ends at 2^63 and tensor 1 meets it, so its end
        // would be 2^64; the planner names it on both paths.
        for planned in [3, IN_ORDER_UP_TO + 3, 259, BITS_UP_TO + 3] {
            let half = usize::MAX / 2 + 1;
            let mut tensors = vec![TensorLifetime::new(half, 0, 1)];
            tensors.extend((1..planned).map(|i| TensorLifetime::new(half, i, i)));
            assert_eq!(
                try_plan_offsets(&tensors),
                Err(PlanError::Overflow { tensor: 1 })
            );
        }
    }

    /// The conflicting pairs of planned tensors, by testing every pair.
    fn pairs_by_brute_force(tensors: &[TensorLifetime]) -> usize {
        let live: Vec<&TensorLifetime> = tensors.iter().filter(|t| t.size > 0).collect();
        (0..live.len())
            .flat_map(|i| (0..i).map(move |j| (i, j)))
            .filter(|&(i, j)| live[i].overlaps(live[j]))
            .count()
    }

    #[test]
    fn the_conflict_lists_give_the_naive_plan_or_decline_above_their_pairs() {
        let mut rng = crate::rng::XorShift(0x5EED_0031);
        let mut next = move |bound: usize| rng.below(bound);
        // Rounds whose arena passes 32 bits in the sizes' unit, so that
        // their ranges were converted to wide ones on the way.
        let mut converted = 0;
        for round in 0..400 {
            let count = 1 + next(300);
            let horizon = 1 + next(2 * count);
            // Time order (a chain, a window) or shuffled, short lifetimes
            // with a few long ones, ties in first use and in size, empty
            // tensors, and endpoints far from 0.
            let base = [0, 7, usize::MAX - 4 * count][round % 3];
            let mut tensors: Vec<TensorLifetime> = (0..count)
                .map(|i| {
                    let first = if round % 4 == 0 { i } else { next(horizon) };
                    let span = match next(12) {
                        0 => horizon,
                        1 => 0,
                        _ => 1 + next(1 + round % 11),
                    };
                    // Every seventh round: sizes of up to 2^40 bytes, whose
                    // arena can pass 32 bits in their largest common power
                    // of two (ranges converted to wide ones on the way).
                    let size = match round % 7 {
                        6 => [0, 1 << 40, 3 << 38, 64 * (1 + next(1000))][next(4)],
                        _ => [0, 64, 128, 1 + next(1000)][next(4)],
                    };
                    TensorLifetime::new(size, base + first, base + first + span)
                })
                .collect();
            if round % 5 == 0 {
                tensors.sort_by_key(|t| t.first_use);
            }
            let naive = naive_plan(&tensors);
            if naive.arena_size >> unit_shift_of(&tensors) > u32::MAX as usize {
                converted += 1;
            }
            let order = keys::placement_order(&tensors).unwrap();
            let pairs = pairs_by_brute_force(&tensors);
            // Both widths of list entries: 16 bits (these tables' runs are
            // short) and 32.
            let widths = [usize::from(u16::MAX), 0];
            for (max_pairs, narrow_up_to) in [0, pairs.saturating_sub(1), pairs, pairs + 1, 1 << 31]
                .into_iter()
                .flat_map(|max_pairs| widths.map(|narrow_up_to| (max_pairs, narrow_up_to)))
            {
                let mut offsets = vec![0; tensors.len()];
                let spare = dirty_spare(tensors.len(), round);
                let arena = lists::place_listing(
                    &tensors,
                    &order,
                    &mut offsets,
                    max_pairs,
                    spare,
                    NoDeadline,
                    narrow_up_to,
                )
                .unwrap_or_else(fail);
                if pairs <= max_pairs && !order.is_empty() {
                    assert_eq!(
                        (&offsets, arena, round),
                        (&naive.offsets, Some(naive.arena_size), round)
                    );
                } else {
                    assert_eq!((arena, round), (None, round));
                    assert!(offsets.iter().all(|&offset| offset == 0));
                }
            }
        }
        assert!(converted > 20, "{converted}");
        // Endpoints spanning more than 32 bits are declined.
        let wide = [
            TensorLifetime::new(4, 0, 1),
            TensorLifetime::new(4, 1, 1 << 33),
        ];
        let order = keys::placement_order(&wide).unwrap();
        let mut offsets = vec![0; 2];
        let arena = lists::place(
            &wide,
            &order,
            &mut offsets,
            8,
            keys::Spare::default(),
            NoDeadline,
        )
        .unwrap_or_else(fail);
        assert_eq!(arena, None);
        // Overflow names the first tensor in placement order past usize.
        let half = usize::MAX / 2 + 1;
        let mut tensors = vec![TensorLifetime::new(half, 0, 1)];
        tensors.extend((1..40).map(|i| TensorLifetime::new(half, i, i)));
        let order = keys::placement_order(&tensors).unwrap();
        let mut offsets = vec![0; tensors.len()];
        assert!(matches!(
            lists::place(
                &tensors,
                &order,
                &mut offsets,
                100,
                keys::Spare::default(),
                NoDeadline
            ),
            Err(Stop::Error(PlanError::Overflow { tensor: 1 }))
        ));
    }

    #[test]
    fn list_entries_hold_a_neighbour_as_far_back_as_the_longest_run() {
        // One large tensor, then `run` one-node tensors starting in its
        // lifetime, one per node: each meets the large one alone, which is
        // placed first, at 0, so every other one goes right above it, the
        // last listed `run` positions after it. A run of 65,535 takes
        // 16-bit entries, one more 32-bit ones; an entry cut to 16 bits
        // there would name the wrong neighbour, and the last tensor would
        // take offset 0.
        for run in [usize::from(u16::MAX), usize::from(u16::MAX) + 1] {
            let mut tensors = vec![TensorLifetime::new(1 << 20, 0, run)];
            tensors.extend((1..=run).map(|node| TensorLifetime::new(64, node, node)));
            let order = keys::placement_order(&tensors).unwrap();
            let mut offsets = vec![7; tensors.len()];
            let spare = keys::Spare::default();
            let arena = lists::place(
                &tensors,
                &order,
                &mut offsets,
                usize::MAX >> 32,
                spare,
                NoDeadline,
            )
            .unwrap_or_else(fail);
            assert_eq!(arena, Some((1 << 20) + 64), "run {run}");
            assert_eq!(offsets[0], 0);
            assert!(
                offsets[1..].iter().all(|&offset| offset == 1 << 20),
                "run {run}"
            );
        }
    }

    /// The unit shift of the lists' packed ranges for `tensors`, from their
    /// sizes' bits as the lists gather them.
    fn unit_shift_of(tensors: &[TensorLifetime]) -> u32 {
        lists::unit_shift(tensors.iter().fold(0, |bits, t| bits | t.size))
    }

    #[test]
    fn the_unit_is_the_largest_power_of_two_dividing_every_planned_size() {
        let t = |size| TensorLifetime::new(size, 0, 1);
        assert_eq!(unit_shift_of(&[]), 0);
        assert_eq!(unit_shift_of(&[t(0)]), 0);
        assert_eq!(unit_shift_of(&[t(0), t(64), t(192)]), 6);
        assert_eq!(unit_shift_of(&[t(12), t(0), t(40)]), 2);
        assert_eq!(unit_shift_of(&[t(3), t(64)]), 0);
        assert_eq!(unit_shift_of(&[t(usize::MAX / 2 + 1)]), 63);
    }

    #[test]
    fn the_lists_switch_to_wide_ranges_at_the_first_end_past_32_bits() {
        // Ends pass u32::MAX units at a known step, after three placements
        // whose ranges are converted: tensors of 2^31 + 2 bytes (unit 2,
        // 2^30 + 1 units), all live together, the fourth ending at
        // 4 * (2^30 + 1) units > 2^32 - 1; and tensors of 1 to 3 times 2^40
        // bytes (unit 2^40), whose ends in bytes must also fit usize (2^24
        // units). Then a table whose sizes sum past 32 bits in their unit
        // while its arena does not, which stays packed; and one with sizes
        // of 2^32 + 1 units (2^33 + 2 bytes in units of 2), past what the
        // placement's table of sizes by step holds, so read from the
        // tensor, and converted at the first placement of one. The naive
        // plan is the oracle for all four.
        let big = (1usize << 31) + 2;
        let together: Vec<TensorLifetime> = (0..LISTS_FROM + 5)
            .map(|i| match i % 1000 {
                0..=5 => TensorLifetime::new(big, 0, LISTS_FROM + 5),
                _ => TensorLifetime::new(8 * (1 + i % 7), i, i + 3),
            })
            .collect();
        assert_eq!(unit_shift_of(&together), 1);
        assert!(naive_plan(&together).arena_size >> 1 > u32::MAX as usize);
        let huge: Vec<TensorLifetime> = (0..LISTS_FROM + 5)
            .map(|i| TensorLifetime::new((1 + i % 3) << 40, i, i + 2))
            .collect();
        let spread: Vec<TensorLifetime> = (0..LISTS_FROM + 5)
            .map(|i| TensorLifetime::new((1 << 20) + 1 + 2 * (i % 5), i, i + 1))
            .collect();
        let sum: usize = spread.iter().map(|t| t.size).sum();
        assert!(sum >> unit_shift_of(&spread) > u32::MAX as usize);
        let outsized: Vec<TensorLifetime> = (0..LISTS_FROM + 5)
            .map(|i| match i % 1000 {
                0..=2 => TensorLifetime::new((1 << 33) + 2, i, i + 4),
                _ => TensorLifetime::new(2 * (1 + i % 9), i, i + 3),
            })
            .collect();
        assert_eq!(unit_shift_of(&outsized), 1);
        for tensors in [together, huge, spread, outsized] {
            let naive = naive_plan(&tensors);
            let order = keys::placement_order(&tensors).unwrap();
            let mut offsets = vec![0; tensors.len()];
            let spare = dirty_spare(tensors.len(), 3);
            let arena = lists::place(&tensors, &order, &mut offsets, 1 << 20, spare, NoDeadline)
                .unwrap_or_else(fail);
            assert_eq!((offsets, arena), (naive.offsets, Some(naive.arena_size)));
        }
    }

    #[test]
    fn a_placement_among_thousands_of_placed_ranges_sorts_them_by_start() {
        // Short lifetimes of varied sizes, a few medium tensors living past
        // every later one, and five of the smallest size living over all,
        // placed last: each of those gathers the ranges of every other
        // tensor (more than the radix sort starts at), and the medium ones
        // thousands. Ranges of equal start and of every end; the naive plan
        // is the oracle.
        let n = 6000;
        assert!(n - 5 >= crate::offsets::radix::RADIX_FROM);
        let tensors: Vec<TensorLifetime> = (0..n)
            .map(|i| match i {
                _ if i % 1200 == 7 => TensorLifetime::new(8, 0, n),
                _ if i % 1000 == 500 => TensorLifetime::new(16 * 50, i, n),
                _ => TensorLifetime::new(16 * (1 + (i * 7919) % 97), i, i + 2),
            })
            .collect();
        let naive = naive_plan(&tensors);
        let order = keys::placement_order(&tensors).unwrap();
        let mut offsets = vec![0; n];
        let spare = dirty_spare(n, 1);
        let arena = lists::place(&tensors, &order, &mut offsets, 1 << 20, spare, NoDeadline)
            .unwrap_or_else(fail);
        assert_eq!((offsets, arena), (naive.offsets, Some(naive.arena_size)));
    }

    #[test]
    fn the_routing_around_the_lists_gives_the_naive_plan() {
        // Just below and above the size the lists start at, sparse enough
        // for them and too dense for them: each path the routing may take.
        let mut rng = crate::rng::XorShift(0x5EED_0032);
        for planned in [LISTS_FROM, LISTS_FROM + 1] {
            for span in [1, 2 * LIST_PAIRS_PER_TENSOR, 4 * LIST_PAIRS_PER_TENSOR] {
                let tensors: Vec<TensorLifetime> = (0..planned)
                    .map(|i| TensorLifetime::new(64 * (1 + rng.below(64)), i, i + span))
                    .collect();
                assert_eq!(
                    plan_offsets(&tensors),
                    naive_plan(&tensors),
                    "{planned} {span}"
                );
            }
        }
    }

    #[test]
    fn the_density_estimate_tells_dense_tables_from_sparse_ones_at_every_threshold() {
        for planned in [
            IN_ORDER_UP_TO + 1,
            BITS_UP_TO,
            BITS_UP_TO + 1,
            SPARSER_DENSE_UP_TO,
            SPARSER_DENSE_UP_TO + 1,
            DENSE_DIRECT_UP_TO,
        ] {
            for length in [0, planned / 256, planned / 40, planned / 4] {
                // Every third tensor is empty: not planned, not counted.
                let mut tensors = Vec::new();
                for i in 0..planned {
                    tensors.push(TensorLifetime::new(8 + i % 5, i, i + length));
                    if i % 3 == 0 {
                        tensors.push(TensorLifetime::new(0, 0, usize::MAX));
                    }
                }
                // The oracle: every pair of planned tensors.
                let live: Vec<&TensorLifetime> = tensors.iter().filter(|t| t.size > 0).collect();
                let pairs = (0..planned)
                    .flat_map(|i| (0..i).map(move |j| (i, j)))
                    .filter(|&(i, j)| live[i].overlaps(live[j]))
                    .count();
                let all = planned * (planned - 1) / 2;
                for one_in in [BITS_DENSE_FROM, 16, 32] {
                    // Far from the threshold, the estimate agrees.
                    if pairs * one_in >= 2 * all {
                        assert!(
                            is_dense(&tensors[..], planned, one_in),
                            "{planned} {length}"
                        );
                    } else if 2 * pairs * one_in < all {
                        assert!(
                            !is_dense(&tensors[..], planned, one_in),
                            "{planned} {length}"
                        );
                    }
                }
            }
        }
        assert!(!is_dense(&[TensorLifetime::new(4, 0, 9)][..], 1, 16));
    }

    #[test]
    fn degenerate_tables_give_the_naive_plan_in_every_shape() {
        let t = TensorLifetime::new;
        // Empty, one tensor, zero sizes only.
        assert_every_shape_is_naive(&[]);
        assert_every_shape_is_naive(&[t(8, 3, 3)]);
        assert_every_shape_is_naive(&[t(0, 0, 5), t(0, 2, 2)]);
        // One lifetime shared by all (one rank pair), and lifetimes at the
        // ends of usize.
        assert_every_shape_is_naive(&(1..40).map(|i| t(i % 7 + 1, 4, 9)).collect::<Vec<_>>());
        let max = usize::MAX;
        assert_every_shape_is_naive(&[
            t(5, 0, max),
            t(3, max, max),
            t(4, max - 1, max),
            t(2, 0, 0),
        ]);
        // Nested lifetimes, and a staircase where each meets only its
        // neighbours.
        assert_every_shape_is_naive(&(0..60).map(|i| t(60 - i, i, 120 - i)).collect::<Vec<_>>());
        assert_every_shape_is_naive(&(0..60).map(|i| t(1 + i % 3, i, i + 1)).collect::<Vec<_>>());
    }
}
