//! The multi-heuristic planner: several orderings and placement rules, then a
//! local improvement of the best, keeping the smallest arena.
//!
//! # Problem
//!
//! The offset problem of [`crate::try_plan_offsets`]: tensors with sizes
//! `w_i` and inclusive lifetimes `[f_i, l_i]`; find offsets `o_i` such that
//! lifetime-intersecting tensors never share a byte, with a small arena
//! `max_i (o_i + w_i)`. Sizes arrive already rounded to the alignment, so every
//! offset produced here (0 or the end of a placed block) is aligned too.
//!
//! # Algorithm
//!
//! First, three shapes of table are planned at the peak of live bytes by a
//! direct construction ([`at_peak`]): nested lifetimes (each tensor stacked
//! on those whose lifetimes hold its own), tables with at most two
//! tensors live at once (the two sides of the conflict forest at the two
//! ends of the arena), and the same under tensors live over the whole
//! table (stacked below). Those plans are optimal and end the work.
//! Otherwise:
//!
//! Nine orderings, each a stable sort (ties keep input order) in decreasing
//! key. Six have a single key: size; number of lifetime conflicts; lifetime
//! length; size × length (area); the pressure of the tensor's busiest node
//! (the live bytes there); the total bytes of its conflicts. Three chain keys
//! the way MiniMalloc's preorderings do: length, area, pressure; pressure,
//! area, length; pressure, length, area. The rules:
//!
//! - *lowest floor*: instead of the given order, repeatedly place the unplaced
//!   tensor whose floor (the top of its placed conflicts) is lowest, ties
//!   broken by the ordering. Every such plan is a canonical plan in the sense
//!   of the exact search. It runs on all nine orderings, and gave the best
//!   plan on every MiniMalloc benchmark problem;
//! - *best fit*: the smallest free interval among the conflicting placed
//!   tensors that fits (lowest wins ties), else on top of them;
//! - *first fit*: the lowest free interval that fits, else on top. The fit
//!   rules run on the size ordering only, as a guard for other inputs.
//!
//! An ordering equal to one already placed is not placed again (its plan
//! would be the same, and only a smaller arena wins).
//!
//! The best of these 12 plans then goes through a local improvement: each
//! round moves a tensor that reaches the top of the arena to a random earlier
//! place in the ordering, swaps two random tensors, and places the ordering
//! again by the same rule, stopping as soon as the arena passes the best one.
//! The new ordering is kept when the arena does not grow, so the walk can
//! cross plateaus. The random numbers come from a fixed seed and the number of
//! rounds depends only on the input's size (a fixed amount of work), so the
//! planner is deterministic.
//!
//! Last, the plan's top is repaired ([`repair`]): each tensor reaching
//! above a target is placed again with its neighbours in time, all other
//! tensors fixed, and the target is lowered while every such tensor can be
//! brought below it. On long sparse tables the highest places are few and
//! far apart, and mending them one by one lowers the arena where placing
//! every tensor again would not.
//!
//! # What is exact
//!
//! Soundness only: each tensor is placed clear of every placed tensor whose
//! lifetime intersects its own. The arena is not claimed optimal.
//!
//! # Complexity
//!
//! `O(n log n)` to sort the tensors by first use and try the three direct
//! shapes ([`at_peak`], `O(n)` after the sort); then
//! `O(n log n + E)` to build the conflict lists (`E` conflicting pairs) and
//! `O(n log n)` at worst for each key component's ranks (once) and `O(n)`
//! for each ordering (counting sorts of the ranks, [`orderings`]); at
//! scale the sorts of packed keys are radix sorts, with no search per
//! tensor. A lowest-floor placement keeps the
//! unplaced tensors' (floor, rank) keys in a lazy radix heap
//! ([`lowest_floor`]; a raise is a maximum per conflict, a stale key goes
//! back when its level is reached), `O(n + E + s)` for `s` stale keys
//! (and the sorts of the levels), or scans them,
//! `O(n² + E)`, whichever costs less for the input (both choose the same
//! tensor at every step). A fit rule sorts each tensor's placed conflicts
//! by offset, `O(E log n)` per placement. The improvement does
//! `IMPROVEMENT_WORK` divided by one placement's cost rounds, at least 8
//! and at most 400, so its work is a bounded number of placements. A plan
//! that meets the peak of live bytes (the lower bound) ends the work at
//! once. The repair costs `O(n log n)` to index the lifetimes and a work
//! budget of `O(n)` (see [`repair`]). Memory `O(n + E)`. The deadline is
//! read by every step, the orderings' keys included.
//!
//! # At scale
//!
//! The conflicts are counted first (`O(n log n)`); when their lists would
//! pass [`LIST_ENTRY_LIMIT`](super::conflicts::LIST_ENTRY_LIMIT) entries, or where lifetimes are
//! short and the lists' improvement would be down to its fewest rounds
//! ([`scalable::prefers_bands`]), [`scalable`] plans instead, with no
//! lists: the same orderings and lowest-floor plans from the
//! tensors sorted by first use where lifetimes are short ([`band_floors`]),
//! else from a segment tree over the timeline's sections, or from a k-d
//! tree of lifetimes ([`kd_floors`]) where floors rise many times while
//! tensors wait; the greedy's plan for best fit, no first fit, `O(n)`
//! memory.

use std::time::Instant;

mod at_peak;
mod band_floors;
mod kd_floors;
mod lowest_floor;
mod orderings;
mod repair;
mod scalable;

use at_peak::AtPeak;
use lowest_floor::{ListFloors, Parts, RadixHeap};
use orderings::{Orderings, ORDERINGS};

use super::conflicts::{size_unit, Conflicts, Degrees, Starts};
use super::{MemoryPlan, TensorLifetime};
use crate::error::PlanError;
use crate::rng::XorShift;
use crate::sys::fallible;

/// How often a placement reads the clock, in tensors placed.
const CLOCK_PERIOD: usize = 256;

/// How many tensors ahead of the one in hand a fit rule asks the cache for
/// their conflict lists.
const FIT_PREFETCH: usize = 4;

/// Work of the local improvement, in the units of a lowest-floor
/// placement's cost ([`scan_cost`] or [`heap_cost`]).
const IMPROVEMENT_WORK: usize = 5_000_000;
/// Bounds on the number of improvement rounds.
const MIN_ROUNDS: usize = 8;
const MAX_ROUNDS: usize = 400;

/// How a tensor is put among the conflicting tensors already placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    BestFit,
    FirstFit,
    LowestFloor,
}

/// Plans `tensors` (sizes already rounded; lifetimes already validated) with
/// the best of the orderings and rules, improved locally. Inputs whose
/// conflict lists would pass [`LIST_ENTRY_LIMIT`](super::conflicts::LIST_ENTRY_LIMIT) go to
/// [`scalable::plan`], which needs no lists.
///
/// `peak` is the tensors' peak of live bytes (the caller has it already):
/// no plan is below it, so one that meets it ends the work.
///
/// Errors: [`PlanError::Overflow`] if an end offset would pass `usize::MAX`.
pub(crate) fn plan(
    tensors: &[TensorLifetime],
    peak: usize,
    deadline: Option<Instant>,
) -> Result<Option<MemoryPlan>, PlanError> {
    plan_knowing(tensors, peak, deadline, None)
}

/// The plan of [`at_peak`] if `tensors` (sizes already rounded; lifetimes
/// already validated; their peak of live bytes `peak`) are nested or have
/// at most two tensors live at once (or at most two beside those live over
/// the whole table): optimal, `O(n log n)`. `None` for other tables, or
/// once `deadline` has passed.
///
/// Errors: [`PlanError::OutOfMemory`].
pub(crate) fn plan_at_peak(
    tensors: &[TensorLifetime],
    peak: usize,
    deadline: Option<Instant>,
) -> Result<Option<MemoryPlan>, PlanError> {
    let Some(starts) = Starts::new_until(tensors, deadline)? else {
        return Ok(None); // out of time
    };
    Ok(match at_peak::plan(tensors, &starts, peak, deadline)? {
        AtPeak::Plan(plan) => Some(plan),
        AtPeak::Neither | AtPeak::Late => None,
    })
}

/// [`plan`], given the greedy plan of `tensors` when the caller has made it
/// already (the path without conflict lists uses it as a candidate rather
/// than making it again).
pub(crate) fn plan_knowing(
    tensors: &[TensorLifetime],
    peak: usize,
    deadline: Option<Instant>,
    greedy: Option<&MemoryPlan>,
) -> Result<Option<MemoryPlan>, PlanError> {
    let Some(starts) = Starts::new_until(tensors, deadline)? else {
        return Ok(None); // out of time
    };
    match at_peak::plan(tensors, &starts, peak, deadline)? {
        AtPeak::Plan(plan) => return Ok(Some(plan)), // optimal
        AtPeak::Late => return Ok(None),
        AtPeak::Neither => {}
    }
    let Some(degrees) = Degrees::count_until(tensors, starts, deadline)? else {
        return Ok(None); // out of time
    };
    if !degrees.lists_fit() {
        return scalable::plan(tensors, degrees, peak, deadline, greedy);
    }
    if scalable::prefers_bands(tensors, &degrees) {
        return scalable::plan_in_bands(tensors, degrees, peak, deadline, greedy);
    }
    let Some(conflicts) = Conflicts::from_degrees_until(tensors, degrees, deadline)? else {
        return Ok(None); // out of time
    };
    let n = conflicts.items.len();
    let sizes: Vec<usize> = fallible::collect(n, conflicts.items.iter().map(|&i| tensors[i].size))?;
    let mut placer = Placer::new(&conflicts, &sizes)?;
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    let degree: Vec<usize> = fallible::collect(n, (0..n).map(|p| conflicts.neighbours(p).len()))?;

    let mut best: Option<(usize, Rule)> = None; // (arena, rule)
    let mut best_order: Vec<usize> = fallible::with_capacity(n)?;
    let mut best_offsets: Vec<usize> = fallible::with_capacity(n)?;
    let mut orders = Orderings::new(tensors, &conflicts.items, &degree, deadline);
    let mut hashes = [0u64; ORDERINGS];
    'orderings: for k in 0..ORDERINGS {
        // The lowest-floor rule on every ordering (it wins on real problems);
        // the fit rules on the size ordering, as a guard on other inputs.
        let rules: &[Rule] = if k == 0 {
            &[Rule::BestFit, Rule::FirstFit, Rule::LowestFloor]
        } else {
            &[Rule::LowestFloor]
        };
        if late() {
            break;
        }
        let Some(order) = orders.order(k)? else {
            break; // out of time
        };
        // An ordering equal to one placed already (on many inputs keys tie
        // the same way) would give the same plan, which cannot be smaller:
        // skip its placement.
        hashes[k] = order_hash(&order);
        for j in 0..k {
            if hashes[j] == hashes[k] {
                let Some(earlier) = orders.order(j)? else {
                    break 'orderings; // out of time
                };
                if earlier == order {
                    continue 'orderings;
                }
            }
        }
        for &rule in rules {
            if late() {
                break 'orderings;
            }
            // Only a smaller arena wins, so a placement may stop as soon as
            // it reaches the best one.
            let bound = best.map_or(usize::MAX, |(b, _)| b.saturating_sub(1));
            let Some(arena) = placer.place(&order, rule, bound, deadline)? else {
                break 'orderings; // out of time
            };
            if best.map_or(true, |(b, _)| arena < b) {
                best = Some((arena, rule));
                best_order.clone_from(&order);
                best_offsets.clone_from(&placer.offsets);
                if arena <= peak {
                    break 'orderings; // optimal
                }
            }
        }
    }
    drop(orders);
    let Some((best_arena, rule)) = best else {
        return no_plan(tensors.len(), n);
    };
    let rounds = rounds(placer.placement_cost());
    let mut best = Best {
        arena: best_arena,
        order: best_order,
        offsets: best_offsets,
    };
    improve(
        &mut Ruled {
            placer: &mut placer,
            rule,
            deadline,
        },
        &sizes,
        &mut best,
        rounds,
        peak,
        deadline,
    )?;
    drop(placer);
    finish(tensors, &conflicts.items, &sizes, best, peak, deadline)
}

/// A hash of `order`, to find orderings equal to earlier ones (equal
/// hashes are then checked element by element).
fn order_hash(order: &[usize]) -> u64 {
    order.iter().fold(order.len() as u64, |h, &p| {
        (h.rotate_left(5) ^ p as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    })
}

/// With no placement finished: `None` (out of time), or the empty plan when
/// there is nothing to place.
fn no_plan(count: usize, planned: usize) -> Result<Option<MemoryPlan>, PlanError> {
    if planned > 0 {
        return Ok(None); // no placement finished in time
    }
    Ok(Some(MemoryPlan {
        offsets: fallible::filled(count, 0)?,
        arena_size: 0,
    }))
}

/// The number of improvement rounds for placements of `placement_cost`
/// units each: it depends only on the input's size.
fn rounds(placement_cost: usize) -> usize {
    (IMPROVEMENT_WORK / placement_cost.max(1)).clamp(MIN_ROUNDS, MAX_ROUNDS)
}

/// The best plan so far, by positions in the planned tensors.
struct Best {
    arena: usize,
    order: Vec<usize>,
    offsets: Vec<usize>,
}

/// The best plan, its top repaired ([`repair`]), as a [`MemoryPlan`] of
/// the tensors `items` of `tensors` (the others get offset 0), whose sizes
/// by position are `sizes`.
fn finish(
    tensors: &[TensorLifetime],
    items: &[usize],
    sizes: &[usize],
    mut best: Best,
    peak: usize,
    deadline: Option<Instant>,
) -> Result<Option<MemoryPlan>, PlanError> {
    repair::repair(tensors, items, sizes, &mut best, peak, deadline)?;
    spread(tensors.len(), items, best)
}

/// The best plan as a [`MemoryPlan`] of `count` tensors (`items` gives each
/// position's input index; the others get offset 0).
fn spread(count: usize, items: &[usize], best: Best) -> Result<Option<MemoryPlan>, PlanError> {
    let mut offsets = fallible::filled(count, 0usize)?;
    for (p, &i) in items.iter().enumerate() {
        offsets[i] = best.offsets[p];
    }
    Ok(Some(MemoryPlan {
        offsets,
        arena_size: best.arena,
    }))
}

/// What the local improvement needs of a placer.
trait Placement {
    /// Places `order`, stopping once the arena passes `bound`; the arena, or
    /// `None` when out of time.
    fn place(&mut self, order: &[usize], bound: usize) -> Result<Option<usize>, PlanError>;
    /// The offsets of the last placement, by position.
    fn offsets(&self) -> &[usize];
}

/// A [`Placer`] with its rule and deadline.
struct Ruled<'p, 'a> {
    placer: &'p mut Placer<'a>,
    rule: Rule,
    deadline: Option<Instant>,
}

impl Placement for Ruled<'_, '_> {
    fn place(&mut self, order: &[usize], bound: usize) -> Result<Option<usize>, PlanError> {
        self.placer.place(order, self.rule, bound, self.deadline)
    }
    fn offsets(&self) -> &[usize] {
        &self.placer.offsets
    }
}

/// Asserts that `placer` (made for the planned tensors of `conflicts`,
/// sizes `sizes` by position) places every ordering of `tensors` as the
/// listed lowest-floor rule does: the same arena, the same early stop below
/// a bound, the same offsets. Each placer without lists is tested so.
#[cfg(test)]
fn assert_places_as_listed(
    tensors: &[TensorLifetime],
    conflicts: &Conflicts,
    sizes: &[usize],
    placer: &mut dyn Placement,
) {
    let items = &conflicts.items;
    let degree: Vec<usize> = (0..items.len())
        .map(|p| conflicts.neighbours(p).len())
        .collect();
    let mut listed = Placer::new(conflicts, sizes).unwrap();
    let mut orders = Orderings::new(tensors, items, &degree, None);
    for k in 0..ORDERINGS {
        let order = orders.order(k).unwrap().unwrap();
        for bound in [usize::MAX, 64] {
            let expected = listed
                .place(&order, Rule::LowestFloor, bound, None)
                .unwrap();
            assert_eq!(
                placer.place(&order, bound).unwrap(),
                expected,
                "{tensors:?}"
            );
            if expected.is_some_and(|arena| arena <= bound) {
                assert_eq!(placer.offsets(), &listed.offsets[..], "{tensors:?}");
            }
        }
    }
}

/// Local improvement: perturb the best ordering and place it again with
/// `placer`, keeping the result when the arena does not grow (so
/// that the walk can cross plateaus), for `rounds` rounds, until `deadline`,
/// or until the arena meets `peak` (no sound plan is smaller).
fn improve(
    placer: &mut dyn Placement,
    sizes: &[usize],
    best: &mut Best,
    rounds: usize,
    peak: usize,
    deadline: Option<Instant>,
) -> Result<(), PlanError> {
    let n = sizes.len();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut tops: Vec<usize> = fallible::with_capacity(n)?;
    let mut order: Vec<usize> = fallible::with_capacity(n)?;
    for _ in 0..rounds {
        if best.arena <= peak || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        tops.clear();
        tops.extend((0..n).filter(|&p| best.offsets[p] + sizes[p] == best.arena));
        if tops.is_empty() {
            break; // nothing is planned
        }
        // Move a tensor at the top of the arena to a random earlier place,
        // and swap two random tensors.
        order.clone_from(&best.order);
        let top = tops[rng.below(tops.len())];
        let from = order.iter().position(|&p| p == top).unwrap_or(0);
        let to = rng.below(from + 1);
        order[to..=from].rotate_right(1);
        let (a, b) = (rng.below(n), rng.below(n));
        order.swap(a, b);
        let Some(arena) = placer.place(&order, best.arena)? else {
            break; // out of time
        };
        if arena <= best.arena {
            best.arena = arena;
            best.offsets.clone_from_slice(placer.offsets());
            core::mem::swap(&mut best.order, &mut order);
        }
    }
    Ok(())
}

/// Places orderings, reusing its scratch.
struct Placer<'a> {
    conflicts: &'a Conflicts,
    sizes: &'a [usize],
    offsets: Vec<usize>,
    placed: Vec<bool>,
    /// Scratch of the fit rules: the placed conflicts of one tensor, as
    /// (offset, end) pairs.
    spans: Vec<(usize, usize)>,
    /// Scratch of the lowest-floor rule: each unplaced tensor's key slot.
    position: Vec<usize>,
    /// The lowest-floor heap's floors, and its entries for each key width.
    floors: ListFloors<'a>,
    keys64: RadixHeap<u64>,
    keys128: RadixHeap<u128>,
    /// Whether the lowest-floor rule keeps its keys in a heap (at most
    /// `O((n + E) log n)` per placement) rather than scanning them
    /// (`O(n² + E)`): the cheaper of the two for this input by the same
    /// measure as before the heap became lazy, so the improvement keeps its
    /// number of rounds; both choose the same tensors.
    heap: bool,
    /// Greatest common divisor of the sizes (1 if there are none): every
    /// floor is a multiple of it.
    unit: usize,
    /// Sum of the sizes, saturated: a bound on every floor.
    total: usize,
}

impl<'a> Placer<'a> {
    fn new(conflicts: &'a Conflicts, sizes: &'a [usize]) -> Result<Self, PlanError> {
        let n = sizes.len();
        let entries = conflicts.entries();
        let unit = size_unit(sizes);
        let total = sizes.iter().fold(0usize, |t, &s| t.saturating_add(s));
        Ok(Placer {
            conflicts,
            sizes,
            offsets: fallible::filled(n, 0)?,
            placed: fallible::filled(n, false)?,
            spans: fallible::with_capacity(
                (0..n)
                    .map(|p| conflicts.neighbours(p).len())
                    .max()
                    .unwrap_or(0),
            )?,
            position: fallible::with_capacity(n)?,
            floors: ListFloors::new(conflicts, total / unit)?,
            keys64: RadixHeap::default(),
            keys128: RadixHeap::default(),
            heap: heap_cost(n, entries) < scan_cost(n, entries),
            unit,
            total,
        })
    }

    /// The cost of one placement by the lowest-floor rule, in the units of
    /// [`IMPROVEMENT_WORK`].
    fn placement_cost(&self) -> usize {
        let n = self.sizes.len();
        let entries = self.conflicts.entries();
        if self.heap {
            heap_cost(n, entries)
        } else {
            scan_cost(n, entries)
        }
    }

    /// Places every tensor by `rule` in `order` (for the lowest-floor rule,
    /// `order` only breaks ties); returns the arena, or `None` if `deadline`
    /// passed first (the clock is read every [`CLOCK_PERIOD`] tensors). Stops
    /// as soon as the arena passes `bound` (the offsets are then partial).
    fn place(
        &mut self,
        order: &[usize],
        rule: Rule,
        bound: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, PlanError> {
        self.placed.fill(false);
        if rule == Rule::LowestFloor {
            return self.place_lowest_floor(order, bound, deadline);
        }
        let mut arena = 0usize;
        for (k, &p) in order.iter().enumerate() {
            if k % CLOCK_PERIOD == CLOCK_PERIOD - 1 && deadline.is_some_and(|d| Instant::now() >= d)
            {
                return Ok(None);
            }
            // The lists ahead, so that their cache misses overlap.
            if let Some(&q) = order.get(k + 2 * FIT_PREFETCH) {
                self.conflicts.prefetch_start(q);
            }
            if let Some(&q) = order.get(k + FIT_PREFETCH) {
                self.conflicts.prefetch_list(q);
            }
            let offset = self.free_interval(p, rule);
            let end = offset
                .checked_add(self.sizes[p])
                .ok_or(PlanError::Overflow {
                    tensor: self.conflicts.items[p],
                })?;
            self.offsets[p] = offset;
            self.placed[p] = true;
            arena = arena.max(end);
            if arena > bound {
                return Ok(Some(arena)); // cannot win: stop early
            }
        }
        Ok(Some(arena))
    }

    /// The offset `rule` gives `p` among the placed tensors whose lifetimes
    /// meet its own: the chosen free interval below the top of them, or that
    /// top if none fits. The placed conflicts, sorted by offset, give the
    /// occupied ranges in order: `O(d log d)` for `d` conflicts.
    fn free_interval(&mut self, p: usize, rule: Rule) -> usize {
        let size = self.sizes[p];
        let neighbours = self.conflicts.neighbours(p);
        // Room for every conflict was reserved in `new`.
        self.spans.clear();
        for &q in neighbours {
            let q = q as usize;
            if self.placed[q] {
                // Placed ends were checked not to overflow.
                self.spans
                    .push((self.offsets[q], self.offsets[q] + self.sizes[q]));
            }
        }
        self.spans.sort_unstable();
        choose_interval(&self.spans, size, rule)
    }

    /// The lowest-floor rule: repeatedly the unplaced tensor of least
    /// (floor, rank) key, by a heap or a scan ([`Placer::heap`]).
    fn place_lowest_floor(
        &mut self,
        order: &[usize],
        bound: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, PlanError> {
        // Floors are sums of sizes, so multiples of their gcd; 64-bit keys
        // (floor / gcd, rank) when those fit, which compare faster.
        let units = self.total / self.unit;
        let narrow = units < 1 << 40 && order.len() < 1 << 24;
        match (self.heap, narrow) {
            (true, true) => self.place_lowest_floor_heap(order, bound, deadline, |s| {
                (&mut s.floors, &mut s.keys64, &mut s.offsets)
            }),
            (true, false) => self.place_lowest_floor_heap(order, bound, deadline, |s| {
                (&mut s.floors, &mut s.keys128, &mut s.offsets)
            }),
            (false, true) => self.place_lowest_floor_keyed::<u64>(order, bound, deadline),
            (false, false) => self.place_lowest_floor_keyed::<u128>(order, bound, deadline),
        }
    }

    /// The lowest-floor rule on keys `K` in a lazy min-heap
    /// ([`lowest_floor`]), floors raised through the conflict lists.
    /// `O((n + E) + (n + s) log n)` for `s` stale entries, `O(n)` scratch.
    /// Stops as soon as the arena passes `bound`.
    fn place_lowest_floor_heap<K: Key>(
        &mut self,
        order: &[usize],
        bound: usize,
        deadline: Option<Instant>,
        heap: fn(&mut Self) -> Parts<'_, ListFloors<'a>, K>,
    ) -> Result<Option<usize>, PlanError> {
        let (sizes, items, unit) = (self.sizes, &self.conflicts.items[..], self.unit);
        let (mut stale, mut stopped) = (0, false);
        let (floors, keys, offsets) = heap(self);
        lowest_floor::place(
            floors,
            lowest_floor::Placement {
                sizes,
                items,
                unit,
                offsets,
                heap: keys,
                stale: &mut stale,
                stale_limit: usize::MAX,
                stopped: &mut stopped,
                // The stale entries are neither limited nor counted here.
                refresh: true,
            },
            order,
            bound,
            deadline,
        )
    }

    /// The lowest-floor rule on keys `K`: repeatedly the least (floor, rank)
    /// key of the unplaced tensors, by a linear scan. `O(n² + E)`, and faster
    /// than a heap here: a heap holds one entry per raised floor, `O(E)` of
    /// them. Stops as soon as the arena passes `bound`.
    fn place_lowest_floor_keyed<K: Key>(
        &mut self,
        order: &[usize],
        bound: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, PlanError> {
        const GONE: usize = usize::MAX;
        // The unplaced tensors' keys, compact: a placed tensor's slot is
        // taken by the last key.
        let mut live: Vec<K> =
            fallible::collect(order.len(), (0..order.len()).map(|r| K::new(0, r)))?;
        let position = &mut self.position;
        position.clear();
        position.resize(order.len(), GONE);
        for (r, &p) in order.iter().enumerate() {
            position[p] = r;
        }
        let unit = self.unit;
        let mut arena = 0usize;
        while !live.is_empty() {
            if live.len() % CLOCK_PERIOD == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
            let mut at = 0;
            let mut least = live[0];
            for (i, &key) in live.iter().enumerate() {
                if key < least {
                    least = key;
                    at = i;
                }
            }
            live.swap_remove(at);
            if let Some(&moved) = live.get(at) {
                position[order[moved.rank()]] = at;
            }
            let p = order[least.rank()];
            position[p] = GONE;
            let offset = least.floor() * unit;
            let end = offset
                .checked_add(self.sizes[p])
                .ok_or(PlanError::Overflow {
                    tensor: self.conflicts.items[p],
                })?;
            self.offsets[p] = offset;
            self.placed[p] = true;
            arena = arena.max(end);
            if arena > bound {
                return Ok(Some(arena)); // cannot win: stop early
            }
            // Sizes are multiples of the unit, so `end` is too.
            let end_units = end / unit;
            for &q in self.conflicts.neighbours(p) {
                let slot = position[q as usize];
                if slot != GONE && live[slot].floor() < end_units {
                    live[slot] = K::new(end_units, live[slot].rank());
                }
            }
        }
        Ok(Some(arena))
    }
}

/// The first fit (lowest) or best fit (smallest, lowest on ties) free
/// interval of `size` bytes below the top of the occupied `spans` (offset,
/// end), sorted by offset; that top when none fits.
fn choose_interval(spans: &[(usize, usize)], size: usize, rule: Rule) -> usize {
    let mut best: Option<(usize, usize)> = None; // (interval length, offset)
    let mut covered_to = 0usize;
    for &(start, end) in spans {
        if start > covered_to {
            let gap = start - covered_to;
            if gap >= size {
                if rule == Rule::FirstFit {
                    return covered_to;
                }
                if best.map_or(true, |(len, _)| gap < len) {
                    best = Some((gap, covered_to));
                }
            }
        }
        covered_to = covered_to.max(end);
    }
    best.map_or(covered_to, |(_, offset)| offset)
}

/// Units of work of one lowest-floor placement by a scan: `n²` key
/// comparisons plus the conflict lists' `entries`.
fn scan_cost(n: usize, entries: usize) -> usize {
    n.saturating_mul(n).saturating_add(2 * entries).max(1)
}

/// Units of work of one lowest-floor placement by the heap, as an indexed
/// heap would do it: `n` pops and at most `entries` raises, `log₂ n` steps
/// each. The lazy heap does no more; the measure sizes the improvement.
fn heap_cost(n: usize, entries: usize) -> usize {
    let depth = (usize::BITS - n.leading_zeros()) as usize;
    n.saturating_add(entries).saturating_mul(depth).max(1)
}

/// A (floor in units, rank) key ordered by floor, then rank.
trait Key: Copy + Ord {
    fn new(floor: usize, rank: usize) -> Self;
    fn floor(self) -> usize;
    fn rank(self) -> usize;
}

impl Key for u64 {
    fn new(floor: usize, rank: usize) -> Self {
        ((floor as u64) << 24) | rank as u64
    }
    fn floor(self) -> usize {
        (self >> 24) as usize
    }
    fn rank(self) -> usize {
        (self & 0xFF_FFFF) as usize
    }
}

impl Key for u128 {
    fn new(floor: usize, rank: usize) -> Self {
        ((floor as u128) << 64) | rank as u128
    }
    fn floor(self) -> usize {
        (self >> 64) as usize
    }
    fn rank(self) -> usize {
        self as u64 as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offsets::peak::try_peak_live_bytes;

    /// Seeded tables of up to `count` tensors over `horizon` nodes: short
    /// and long lifetimes, repeated sizes and zero sizes.
    fn random_table(below: &mut dyn FnMut(usize) -> usize, count: usize) -> Vec<TensorLifetime> {
        let horizon = 1 + below(80);
        (0..below(count + 1))
            .map(|_| {
                let first = below(horizon);
                let span = if below(5) == 0 { horizon } else { 6 };
                let last = (first + below(span)).min(horizon);
                TensorLifetime::new([0, 8, 16, 24, 40, 64][below(6)], first, last)
            })
            .collect()
    }

    /// Whether the lifetimes of planned positions `p` and `q` meet, read from
    /// the tensors (not from the conflict lists).
    fn meet(tensors: &[TensorLifetime], items: &[usize], p: usize, q: usize) -> bool {
        let (a, b) = (&tensors[items[p]], &tensors[items[q]]);
        a.first_use <= b.last_use && b.first_use <= a.last_use
    }

    /// The lowest-floor rule by its definition: at each step, every unplaced
    /// tensor's floor is the top of the placed tensors whose lifetimes meet
    /// its own, and the least (floor, rank) is placed. `O(n³)`.
    fn naive_lowest_floor(
        tensors: &[TensorLifetime],
        items: &[usize],
        order: &[usize],
        bound: usize,
    ) -> (usize, Vec<Option<usize>>) {
        let n = order.len();
        let mut offsets: Vec<Option<usize>> = vec![None; n];
        let mut arena = 0;
        for _ in 0..n {
            let (floor, _, p) = (0..n)
                .map(|r| (r, order[r]))
                .filter(|&(_, p)| offsets[p].is_none())
                .map(|(r, p)| {
                    let floor = (0..n)
                        .filter(|&q| meet(tensors, items, p, q))
                        .filter_map(|q| offsets[q].map(|o| o + tensors[items[q]].size))
                        .max()
                        .unwrap_or(0);
                    (floor, r, p)
                })
                .min()
                .unwrap();
            offsets[p] = Some(floor);
            arena = arena.max(floor + tensors[items[p]].size);
            if arena > bound {
                break;
            }
        }
        (arena, offsets)
    }

    /// The fit rules the way they were first written: each tensor walks every
    /// placed tensor in offset order, skipping those whose lifetimes do not
    /// meet its own.
    fn naive_fit(
        tensors: &[TensorLifetime],
        items: &[usize],
        order: &[usize],
        rule: Rule,
    ) -> (usize, Vec<usize>) {
        let size = |p: usize| tensors[items[p]].size;
        let mut offsets = vec![0; order.len()];
        let mut by_offset: Vec<usize> = Vec::new();
        let mut arena = 0;
        for &p in order {
            let mut best: Option<(usize, usize)> = None;
            let mut covered_to = 0;
            let mut chosen = None;
            for &q in &by_offset {
                if !meet(tensors, items, p, q) {
                    continue;
                }
                let start = offsets[q];
                if start > covered_to && start - covered_to >= size(p) {
                    let gap = start - covered_to;
                    if rule == Rule::FirstFit {
                        chosen = Some(covered_to);
                        break;
                    }
                    if best.map_or(true, |(len, _)| gap < len) {
                        best = Some((gap, covered_to));
                    }
                }
                covered_to = covered_to.max(start + size(q));
            }
            let offset = chosen.unwrap_or(best.map_or(covered_to, |(_, o)| o));
            offsets[p] = offset;
            let at = by_offset.partition_point(|&q| offsets[q] <= offset);
            by_offset.insert(at, p);
            arena = arena.max(offset + size(p));
        }
        (arena, offsets)
    }

    /// The heap and the scan of the lowest-floor rule both give the plans of
    /// the rule's definition (same offsets, same arena, same early stop), on
    /// every ordering of seeded random tables, one in three with floors too
    /// wide for `u32` units.
    #[test]
    fn the_heap_and_the_scan_give_the_lowest_floor_plans() {
        let mut rng = XorShift(0x5DEE_CE66_D1CE_4E5B);
        let mut below = |bound: usize| rng.below(bound);
        for case in 0..300 {
            let mut tensors = random_table(&mut below, 60);
            if case % 3 == 0 {
                for t in tensors.iter_mut().filter(|t| t.size > 0) {
                    t.size = (t.size << 36) + 8;
                }
            }
            let conflicts = Conflicts::new(&tensors).unwrap();
            let items = &conflicts.items;
            let sizes: Vec<usize> = items.iter().map(|&i| tensors[i].size).collect();
            let degree: Vec<usize> = (0..items.len())
                .map(|p| conflicts.neighbours(p).len())
                .collect();
            let mut orders = Orderings::new(&tensors, items, &degree, None);
            let mut placer = Placer::new(&conflicts, &sizes).unwrap();
            for k in 0..ORDERINGS {
                let order = orders.order(k).unwrap().unwrap();
                for bound in [usize::MAX, 100] {
                    let (arena, expected) = naive_lowest_floor(&tensors, items, &order, bound);
                    for heap in [false, true] {
                        placer.heap = heap;
                        let got = placer.place(&order, Rule::LowestFloor, bound, None);
                        assert_eq!(got.unwrap(), Some(arena), "heap {heap}: {tensors:?}");
                        for (p, offset) in expected.iter().enumerate() {
                            if let Some(offset) = *offset {
                                assert_eq!(placer.offsets[p], offset, "heap {heap}: {tensors:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// The fit rules from each tensor's sorted placed conflicts give the
    /// plans of the walk over every placed tensor, bit for bit.
    #[test]
    fn the_fit_rules_from_conflict_lists_give_the_walks_plans() {
        let mut rng = XorShift(0x1234_5678_9ABC_DEF1);
        let mut below = |bound: usize| rng.below(bound);
        for _ in 0..300 {
            let tensors = random_table(&mut below, 60);
            let conflicts = Conflicts::new(&tensors).unwrap();
            let items = &conflicts.items;
            let sizes: Vec<usize> = items.iter().map(|&i| tensors[i].size).collect();
            let degree: Vec<usize> = (0..items.len())
                .map(|p| conflicts.neighbours(p).len())
                .collect();
            let mut orders = Orderings::new(&tensors, items, &degree, None);
            let mut placer = Placer::new(&conflicts, &sizes).unwrap();
            for k in [0, 2, 6] {
                let order = orders.order(k).unwrap().unwrap();
                for rule in [Rule::BestFit, Rule::FirstFit] {
                    let (arena, offsets) = naive_fit(&tensors, items, &order, rule);
                    let got = placer.place(&order, rule, usize::MAX, None).unwrap();
                    assert_eq!(got, Some(arena), "{rule:?}: {tensors:?}");
                    assert_eq!(placer.offsets, offsets, "{rule:?}: {tensors:?}");
                }
            }
        }
    }

    /// No two planned tensors whose lifetimes meet share a byte, by a check
    /// of every pair; the arena is the top of the extents and at least the
    /// peak.
    fn assert_sound(tensors: &[TensorLifetime], plan: &MemoryPlan) {
        let mut top = 0;
        for (i, a) in tensors.iter().enumerate() {
            if a.size == 0 {
                assert_eq!(plan.offsets[i], 0);
                continue;
            }
            top = top.max(plan.offsets[i] + a.size);
            for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                let lifetimes = a.first_use <= b.last_use && b.first_use <= a.last_use;
                let bytes = plan.offsets[i] < plan.offsets[j] + b.size
                    && plan.offsets[j] < plan.offsets[i] + a.size;
                assert!(
                    b.size == 0 || !(lifetimes && bytes),
                    "tensors {i} and {j} share bytes"
                );
            }
        }
        assert_eq!(plan.arena_size, top);
        assert!(plan.arena_size >= try_peak_live_bytes(tensors).unwrap());
    }

    /// Every plan is sound on seeded random tables (listed path).
    #[test]
    fn plans_are_sound_by_a_pairwise_check() {
        let mut rng = XorShift(0x0F0F_1234_4321_F0F0);
        let mut below = |bound: usize| rng.below(bound);
        for _ in 0..300 {
            let tensors = random_table(&mut below, 80);
            let plan = plan(&tensors, try_peak_live_bytes(&tensors).unwrap(), None)
                .unwrap()
                .unwrap();
            assert_sound(&tensors, &plan);
        }
    }

    /// A table every sound plan of which would do: the first candidate meets
    /// the peak (lifetimes pairwise disjoint, or all of them nested in one
    /// node so that stacking is optimal), and the plan returns that arena.
    /// On tables the lists cannot hold, the lowest-floor plan on the size
    /// ordering stacks all-live tensors, meeting the peak without the greedy.
    #[test]
    fn a_plan_that_meets_the_peak_returns_the_peak() {
        let mut rng = XorShift(0x7777_5555_3333_1111);
        for _ in 0..50 {
            let count = 1 + rng.below(40);
            let disjoint: Vec<TensorLifetime> = (0..count)
                .map(|i| TensorLifetime::new(8 * (1 + rng.below(9)), 2 * i, 2 * i + 1))
                .collect();
            let all_live: Vec<TensorLifetime> = (0..count)
                .map(|_| TensorLifetime::new(8 * (1 + rng.below(9)), rng.below(3), 5))
                .collect();
            for tensors in [disjoint, all_live] {
                let plan = plan(&tensors, try_peak_live_bytes(&tensors).unwrap(), None)
                    .unwrap()
                    .unwrap();
                // The live bytes at every first use, by their definition.
                let peak: usize = (tensors.iter().map(|x| x.first_use))
                    .map(|t| {
                        tensors
                            .iter()
                            .filter(|x| x.first_use <= t && t <= x.last_use)
                            .map(|x| x.size)
                            .sum::<usize>()
                    })
                    .max()
                    .unwrap();
                assert_eq!(plan.arena_size, peak, "{tensors:?}");
                assert_sound(&tensors, &plan);
            }
        }
        // 3000 tensors live at one node: 9 M list entries, past the limit;
        // their lifetimes cross (not nested), so no direct plan is made.
        let tensors: Vec<TensorLifetime> = (0..3000)
            .map(|i| TensorLifetime::new(64 * (1 + i % 7), i % 5, 10 + i % 3))
            .collect();
        assert!(!Degrees::new(&tensors).unwrap().lists_fit());
        let plan = plan(&tensors, try_peak_live_bytes(&tensors).unwrap(), None)
            .unwrap()
            .unwrap();
        let total: usize = tensors.iter().map(|t| t.size).sum();
        assert_eq!(plan.arena_size, total);
        assert_sound(&tensors, &plan);
    }

    /// With its deadline already passed, the planner answers `None` on
    /// tables of both paths (with lists and without), at every set-up step.
    #[test]
    fn a_passed_deadline_gives_no_plan() {
        let window: Vec<TensorLifetime> = (0..5000)
            .map(|i| TensorLifetime::new(64 * (1 + i % 13), i, i + 10))
            .collect();
        let dense: Vec<TensorLifetime> = (0..3000)
            .map(|i| TensorLifetime::new(64 * (1 + i % 7), i % 5, 10))
            .collect();
        assert!(Degrees::new(&window).unwrap().lists_fit());
        assert!(!Degrees::new(&dense).unwrap().lists_fit());
        for tensors in [window, dense] {
            let peak = try_peak_live_bytes(&tensors).unwrap();
            let passed = Some(Instant::now());
            assert!(plan(&tensors, peak, passed).unwrap().is_none());
        }
    }
}
