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
//! The best of these 12 plans then goes through a local improvement: each
//! round moves a tensor that reaches the top of the arena to a random earlier
//! place in the ordering, swaps two random tensors, and places the ordering
//! again by the same rule, stopping as soon as the arena passes the best one.
//! The new ordering is kept when the arena does not grow, so the walk can
//! cross plateaus. The random numbers come from a fixed seed and the number of
//! rounds depends only on the input's size (a fixed amount of work), so the
//! planner is deterministic.
//!
//! # What is exact
//!
//! Soundness only: each tensor is placed clear of every placed tensor whose
//! lifetime intersects its own. The arena is not claimed optimal.
//!
//! # Complexity
//!
//! `O(n log n + E)` to build the conflict lists (`E` conflicting pairs) and
//! `O(n log n)` for the pressures and conflict bytes; `O(n² + E)`
//! per placement by the lowest-floor rule (a linear scan for the lowest key per
//! step) and `O(n²)` by a fit rule (each tensor walks the placed ones in offset
//! order). The improvement does `IMPROVEMENT_WORK / (n² + 2E)` rounds, at
//! least 8 and at most 400: bounded work, 7 to 10 ms on 409 tensors here.
//! Memory `O(n + E)`.
//!
//! # At scale
//!
//! The conflicts are counted first (`O(n log n)`); when their lists would
//! pass [`conflicts::LIST_ENTRY_LIMIT`] entries, [`scalable`] plans instead,
//! with no lists: the same orderings and lowest-floor plans from a k-d tree
//! of lifetimes, the greedy's plan for best fit, no first fit, `O(n)`
//! memory.

use std::cmp::Reverse;
use std::time::Instant;

mod scalable;

use super::conflicts::{self, gcd, lifetime_length, Conflicts, Degrees, Sections};
use super::{MemoryPlan, TensorLifetime};
use crate::error::PlanError;
use crate::rng::XorShift;
use crate::sys::fallible;

/// How often a placement reads the clock, in tensors placed.
const CLOCK_PERIOD: usize = 256;

/// Work of the local improvement, in the units of [`Placer::place`]'s cost
/// (`n² + 2E` per lowest-floor placement): 7 to 10 ms here on 409 tensors, depending on the run.
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
/// conflict lists would pass [`conflicts::LIST_ENTRY_LIMIT`] go to
/// [`scalable::plan`], which needs no lists.
///
/// Errors: [`PlanError::Overflow`] if an end offset would pass `usize::MAX`.
pub(crate) fn plan(
    tensors: &[TensorLifetime],
    deadline: Option<Instant>,
) -> Result<Option<MemoryPlan>, PlanError> {
    let degrees = Degrees::new(tensors)?;
    if !degrees.lists_fit() {
        return scalable::plan(tensors, degrees, deadline);
    }
    let conflicts = Conflicts::from_degrees(tensors, degrees)?;
    let n = conflicts.items.len();
    let sizes: Vec<usize> = fallible::collect(n, conflicts.items.iter().map(|&i| tensors[i].size))?;
    let mut placer = Placer::new(tensors, &conflicts, &sizes)?;
    let late = || deadline.is_some_and(|d| Instant::now() >= d);
    let degree: Vec<usize> = fallible::collect(n, conflicts.neighbours.iter().map(Vec::len))?;

    let mut best: Option<(usize, Rule)> = None; // (arena, rule)
    let mut best_order: Vec<usize> = fallible::with_capacity(n)?;
    let mut best_offsets: Vec<usize> = fallible::with_capacity(n)?;
    for (k, order) in orderings(tensors, &conflicts.items, &degree)?
        .into_iter()
        .enumerate()
    {
        // The lowest-floor rule on every ordering (it wins on real problems);
        // the fit rules on the size ordering, as a guard on other inputs.
        let rules: &[Rule] = if k == 0 {
            &[Rule::BestFit, Rule::FirstFit, Rule::LowestFloor]
        } else {
            &[Rule::LowestFloor]
        };
        for &rule in rules {
            if late() {
                break;
            }
            let Some(arena) = placer.place(&order, rule, usize::MAX, deadline)? else {
                break; // out of time
            };
            if best.map_or(true, |(b, _)| arena < b) {
                best = Some((arena, rule));
                best_order.clone_from(&order);
                best_offsets.clone_from(&placer.offsets);
            }
        }
    }
    let Some((best_arena, rule)) = best else {
        return no_plan(tensors.len(), n);
    };
    let conflict_entries: usize = conflicts.neighbours.iter().map(Vec::len).sum();
    let placement_cost = n
        .saturating_mul(n)
        .saturating_add(2 * conflict_entries)
        .max(1);
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
        rounds(placement_cost),
        deadline,
    )?;
    spread(tensors.len(), &conflicts.items, best)
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

/// Local improvement: perturb the best ordering and place it again with
/// `placer`, keeping the result when the arena does not grow (so
/// that the walk can cross plateaus), for `rounds` rounds or until
/// `deadline`.
fn improve(
    placer: &mut dyn Placement,
    sizes: &[usize],
    best: &mut Best,
    rounds: usize,
    deadline: Option<Instant>,
) -> Result<(), PlanError> {
    let n = sizes.len();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut tops: Vec<usize> = fallible::with_capacity(n)?;
    let mut order: Vec<usize> = fallible::with_capacity(n)?;
    for _ in 0..rounds {
        if deadline.is_some_and(|d| Instant::now() >= d) {
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

/// A tensor's ordering key: compared lexicographically, largest first.
type OrderKey = (u128, u128, u128);

/// The nine orderings of the tensors `items` (each with `degree[p]`
/// conflicts), as sequences of positions in `items`.
fn orderings(
    tensors: &[TensorLifetime],
    items: &[usize],
    degree: &[usize],
) -> Result<Vec<Vec<usize>>, PlanError> {
    let size = |p: usize| tensors[items[p]].size as u128;
    let length = |p: usize| lifetime_length(&tensors[items[p]]);
    let pressure = node_pressure(tensors, items)?;
    let conflict_bytes = conflicts::conflict_bytes(tensors, items)?;

    let area = |p: usize| size(p) * length(p);
    let keys: [&dyn Fn(usize) -> OrderKey; 9] = [
        &|p| (size(p), 0, 0),
        &|p| (degree[p] as u128, size(p), 0),
        &|p| (length(p), size(p), 0),
        &|p| (area(p), size(p), 0),
        &|p| (pressure[p], size(p), 0),
        &|p| (conflict_bytes[p], size(p), 0),
        &|p| (length(p), area(p), pressure[p]),
        &|p| (pressure[p], area(p), length(p)),
        &|p| (pressure[p], length(p), area(p)),
    ];
    let mut orders = fallible::with_capacity(keys.len())?;
    for key in keys {
        // A stable sort on precomputed keys (what `sort_by_cached_key` does,
        // with the keys allocated fallibly).
        let mut keyed: Vec<(Reverse<OrderKey>, usize)> =
            fallible::collect(items.len(), (0..items.len()).map(|p| (Reverse(key(p)), p)))?;
        keyed.sort_unstable();
        orders.push(fallible::collect(
            items.len(),
            keyed.iter().map(|&(_, p)| p),
        )?);
    }
    Ok(orders)
}

/// For each planned tensor, the live bytes at the busiest node of its
/// lifetime: a sweep over the sections, then a range maximum per tensor over
/// a bottom-up segment tree, `O(n log n)`.
fn node_pressure(tensors: &[TensorLifetime], items: &[usize]) -> Result<Vec<u128>, PlanError> {
    let sections = Sections::new(tensors, items)?;
    let mut delta = fallible::filled(sections.count + 1, 0i128)?;
    for (&i, &(lo, hi)) in items.iter().zip(&sections.ranges) {
        delta[lo] += tensors[i].size as i128;
        delta[hi] -= tensors[i].size as i128;
    }
    let leaves = sections.count.max(1);
    let mut tree = fallible::filled(2 * leaves, 0u128)?;
    let mut sum = 0i128;
    for (s, d) in delta[..sections.count].iter().enumerate() {
        sum += d;
        tree[leaves + s] = sum as u128;
    }
    for v in (1..leaves).rev() {
        tree[v] = tree[2 * v].max(tree[2 * v + 1]);
    }
    fallible::collect(
        items.len(),
        sections.ranges.iter().map(|&(lo, hi)| {
            let (mut low, mut high, mut most) = (lo + leaves, hi + leaves, 0u128);
            while low < high {
                if low & 1 == 1 {
                    most = most.max(tree[low]);
                    low += 1;
                }
                if high & 1 == 1 {
                    high -= 1;
                    most = most.max(tree[high]);
                }
                low >>= 1;
                high >>= 1;
            }
            most
        }),
    )
}

/// Places orderings, reusing its scratch.
struct Placer<'a> {
    conflicts: &'a Conflicts,
    sizes: &'a [usize],
    first: Vec<usize>,
    last: Vec<usize>,
    offsets: Vec<usize>,
    placed: Vec<bool>,
    /// The placed tensors by increasing offset.
    by_offset: Vec<usize>,
    /// Scratch of the lowest-floor rule: each unplaced tensor's key slot.
    position: Vec<usize>,
    /// Greatest common divisor of the sizes (1 if there are none): every
    /// floor is a multiple of it.
    unit: usize,
    /// Sum of the sizes, saturated: a bound on every floor.
    total: usize,
}

impl<'a> Placer<'a> {
    fn new(
        tensors: &[TensorLifetime],
        conflicts: &'a Conflicts,
        sizes: &'a [usize],
    ) -> Result<Self, PlanError> {
        let n = sizes.len();
        let items = &conflicts.items;
        Ok(Placer {
            conflicts,
            sizes,
            first: fallible::collect(n, items.iter().map(|&i| tensors[i].first_use))?,
            last: fallible::collect(n, items.iter().map(|&i| tensors[i].last_use))?,
            offsets: fallible::filled(n, 0)?,
            placed: fallible::filled(n, false)?,
            by_offset: fallible::with_capacity(n)?,
            position: fallible::with_capacity(n)?,
            unit: sizes.iter().fold(0, |g, &s| gcd(g, s)).max(1),
            total: sizes.iter().fold(0usize, |t, &s| t.saturating_add(s)),
        })
    }

    /// Places every tensor by `rule` in `order` (for the lowest-floor rule,
    /// `order` only breaks ties); returns the arena, or `None` if `deadline`
    /// passed first (the clock is read every [`CLOCK_PERIOD`] tensors).
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
        self.by_offset.clear();
        let mut arena = 0usize;
        for (k, &p) in order.iter().enumerate() {
            if k % CLOCK_PERIOD == CLOCK_PERIOD - 1 && deadline.is_some_and(|d| Instant::now() >= d)
            {
                return Ok(None);
            }
            let offset = self.free_interval(p, rule);
            let end = offset
                .checked_add(self.sizes[p])
                .ok_or(PlanError::Overflow {
                    tensor: self.conflicts.items[p],
                })?;
            self.offsets[p] = offset;
            self.placed[p] = true;
            let at = self
                .by_offset
                .partition_point(|&q| self.offsets[q] <= offset);
            self.by_offset.insert(at, p);
            arena = arena.max(end);
        }
        Ok(Some(arena))
    }

    /// The offset `rule` gives `p` among the placed tensors whose lifetimes
    /// meet its own: the chosen free interval below the top of them, or that
    /// top if none fits. Walking the placed tensors in offset order visits
    /// the occupied ranges sorted, with no sort per tensor.
    fn free_interval(&self, p: usize, rule: Rule) -> usize {
        let size = self.sizes[p];
        let (first, last) = (self.first[p], self.last[p]);
        let mut best: Option<(usize, usize)> = None; // (interval length, offset)
        let mut covered_to = 0usize;
        for &q in &self.by_offset {
            if self.first[q] > last || first > self.last[q] {
                continue;
            }
            let start = self.offsets[q];
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
            covered_to = covered_to.max(start + self.sizes[q]);
        }
        best.map_or(covered_to, |(_, offset)| offset)
    }

    /// The lowest-floor rule: a linear scan for the least (floor, rank) key
    /// per step. `O(n² + E)`, and faster than a heap here: a heap holds one
    /// entry per raised floor, `O(E)` of them.
    fn place_lowest_floor(
        &mut self,
        order: &[usize],
        bound: usize,
        deadline: Option<Instant>,
    ) -> Result<Option<usize>, PlanError> {
        // Floors are sums of sizes, so multiples of their gcd; 64-bit keys
        // (floor / gcd, rank) when those fit, which scan faster.
        let units = self.total / self.unit;
        if units < 1 << 40 && order.len() < 1 << 24 {
            self.place_lowest_floor_keyed::<u64>(order, bound, deadline)
        } else {
            self.place_lowest_floor_keyed::<u128>(order, bound, deadline)
        }
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
            for &q in &self.conflicts.neighbours[p] {
                let slot = position[q];
                if slot != GONE && live[slot].floor() < end_units {
                    live[slot] = K::new(end_units, live[slot].rank());
                }
            }
        }
        Ok(Some(arena))
    }
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
