//! The heuristic without conflict lists, for inputs whose lists would not
//! fit the memory allowed beyond the input ([`LIST_ENTRY_LIMIT`] entries),
//! and for large tables of short lifetimes, where it is the faster of the
//! two ([`prefers_bands`]).
//!
//! # Algorithm
//!
//! The same nine orderings as the listed heuristic (the conflict counts and
//! bytes come from sorted endpoints, not lists), each placed by the same
//! lowest-floor rule, then the same seeded local improvement and the same
//! repair of the top (which needs no lists either). Best fit on the
//! size ordering is exactly the specification's greedy, so that plan is the
//! greedy's own, made by its segment tree: the result is never larger than
//! the greedy's (or meets the peak without it). First fit is not run here,
//! and when best fit wins no improvement follows (both would need a fit
//! structure per ordering).
//!
//! Where lifetimes are short, the lowest-floor rule runs over the tensors
//! sorted by first use ([`band_floors`]): each placement raises the floors
//! of one contiguous run of that order, its band. It is chosen before any
//! placement, when the bands' lengths (counted with the conflicts, `O(n)`)
//! stay within a few per conflict and a bounded number per tensor.
//!
//! Otherwise the rule reads its floors from a segment tree over the
//! sections of the timeline ([`SectionFloors`]): a tensor's floor is the
//! most of the tops placed over its sections, and placing a tensor raises
//! them over its own. With the lazy heap of [`lowest_floor`] this chooses
//! the listed rule's tensor at every step, so each ordering gives the listed
//! heuristic's plan. Each stale key costs a range read there; when the
//! first placement meets more than [`STALE_PER_TENSOR`] per tensor, it
//! stops and the plan is made on the k-d tree of [`kd_floors`] instead
//! (the same plans, each floor raise of a whole subtree at once).
//!
//! # What is exact
//!
//! Soundness: each tensor sits at or above the top of every placed tensor
//! whose lifetime meets its own. Not claimed: optimality.
//!
//! # Complexity
//!
//! A placement is `O((n + s) log n)` for `s` stale heap entries (at most one
//! per floor increase) on the section tree, and `O(n log n)` in band order
//! (at most [`BAND_READS_PER_TENSOR`] band entries per tensor); the
//! sections and the orderings `O(n log n)`. The
//! placements (the first counts, though it always runs) and the
//! improvement share a budget of work ([`SECTION_WORK`]; or
//! [`SCALABLE_WORK`] visits on the k-d tree, [`BAND_WORK`] reads in band
//! order, with [`WORK_PER_TENSOR`] and [`BAND_WORK_PER_TENSOR`] per tensor on
//! large tables), with at most as many improvement rounds as the listed
//! heuristic would do for the same conflicts. The lowest-floor plan on the
//! size ordering comes first, and a plan that meets the peak of live bytes
//! ends the work (the greedy is then not run). Memory `O(n)`, no conflict
//! lists. Every step reads the deadline and answers `None` once it has
//! passed.
//!
//! [`LIST_ENTRY_LIMIT`]: crate::offsets::conflicts::LIST_ENTRY_LIMIT
//! [`kd_floors`]: super::kd_floors
//! [`band_floors`]: super::band_floors

use std::time::Instant;

use super::band_floors::{band_reads, BandFloors};
use super::kd_floors::FloorTree;
use super::lowest_floor::{self, Parts, RadixHeap, SectionFloors};
use super::{finish, heap_cost, improve, rounds, spread, Best, Placement, MIN_ROUNDS, ORDERINGS};
use super::{Key, Orderings};
use crate::error::PlanError;
use crate::offsets::conflicts::{late, size_unit, Degrees, Sections};
use crate::offsets::greedy::plan_until;
use crate::offsets::{MemoryPlan, TensorLifetime};
use crate::sys::fallible;
use std::borrow::Cow;

/// Plans `tensors` (sizes rounded, lifetimes validated; `degrees` counted
/// from them) without conflict lists; `None` if `deadline` passes before a
/// plan is made. `greedy` is the greedy plan of `tensors` if the caller has
/// made it already (best fit on the size ordering is one of the candidates);
/// otherwise it is made here when needed.
///
/// Errors: [`PlanError::Overflow`] if an end offset would pass `usize::MAX`;
/// [`PlanError::OutOfMemory`].
pub(super) fn plan(
    tensors: &[TensorLifetime],
    degrees: Degrees,
    peak: usize,
    deadline: Option<Instant>,
    greedy: Option<&MemoryPlan>,
) -> Result<Option<MemoryPlan>, PlanError> {
    plan_with(tensors, degrees, peak, deadline, greedy, Route::Measured)
}

/// [`plan`] in band order, for a table [`prefers_bands`] has sent here:
/// its bands are known to stay short.
pub(super) fn plan_in_bands(
    tensors: &[TensorLifetime],
    degrees: Degrees,
    peak: usize,
    deadline: Option<Instant>,
    greedy: Option<&MemoryPlan>,
) -> Result<Option<MemoryPlan>, PlanError> {
    plan_with(tensors, degrees, peak, deadline, greedy, Route::Bands)
}

/// The greedy plan of `tensors`: `known` if the caller has it, else made
/// now, or `None` if `deadline` passes first.
fn greedy_plan<'k>(
    tensors: &[TensorLifetime],
    known: Option<&'k MemoryPlan>,
    deadline: Option<Instant>,
) -> Result<Option<Cow<'k, MemoryPlan>>, PlanError> {
    Ok(match known {
        Some(plan) => Some(Cow::Borrowed(plan)),
        None => plan_until(tensors, deadline)?.map(Cow::Owned),
    })
}

/// Which placer [`plan_with`] uses.
#[derive(Clone, Copy, PartialEq)]
enum Route {
    /// The band order where its bands stay short ([`bands_pay`]); else the
    /// section tree, left for the k-d tree once the first placement meets
    /// more than [`STALE_PER_TENSOR`] stale entries per tensor placed.
    Measured,
    /// The section tree, left for the k-d tree past this many stale entries
    /// per tensor placed (the tests take each placer this way).
    #[cfg_attr(not(test), allow(dead_code))]
    Sections(usize),
    /// The band order, whatever its reads.
    Bands,
}

/// [`plan`] by the placer that `route` names.
fn plan_with(
    tensors: &[TensorLifetime],
    degrees: Degrees,
    peak: usize,
    deadline: Option<Instant>,
    known_greedy: Option<&MemoryPlan>,
    route: Route,
) -> Result<Option<MemoryPlan>, PlanError> {
    let items = &degrees.items;
    let n = items.len();
    let sizes: Vec<usize> = fallible::collect(n, items.iter().map(|&i| tensors[i].size))?;
    let stale_per_tensor = match route {
        Route::Sections(stale) => stale,
        Route::Measured | Route::Bands => {
            let bands = if route == Route::Bands || bands_short(tensors, &degrees) {
                BandFloors::new(tensors, items, degrees.by_start(), &sizes, deadline)?
            } else {
                None
            };
            if let Some(bands) = bands {
                let budget = BAND_WORK.max(n.saturating_mul(BAND_WORK_PER_TENSOR));
                let orders = Orderings::new(tensors, items, &degrees.degree, deadline);
                return plan_by(
                    tensors,
                    &degrees,
                    &sizes,
                    bands,
                    orders,
                    None,
                    budget,
                    peak,
                    known_greedy,
                );
            }
            STALE_PER_TENSOR
        }
    };
    let Some(sections) = Sections::new_until(tensors, items, deadline)? else {
        return Ok(None);
    };
    let mut sectioned = SectionPlacer::new(sections, &sizes, items, deadline)?;
    let mut orders = Orderings::new(tensors, items, &degrees.degree, deadline);

    // The lowest floor on the size ordering first: on dense tables it often
    // meets the peak, and then the greedy, the costliest candidate there, is
    // not needed.
    let Some(size_order) = orders.order(0)? else {
        return Ok(None);
    };
    sectioned.stale_limit = stale_per_tensor;
    let first = sectioned.place(&size_order, usize::MAX)?;
    if sectioned.stopped {
        // Floors rise many times while their tensors wait: the k-d tree.
        drop(sectioned);
        let tree = FloorTree::new(tensors, items, &sizes, deadline)?;
        let budget = scalable_work(n);
        return plan_by(
            tensors,
            &degrees,
            &sizes,
            tree,
            orders,
            Some(size_order),
            budget,
            peak,
            known_greedy,
        );
    }
    sectioned.stale_limit = usize::MAX;
    let Some(first) = first else {
        return Ok(None); // out of time
    };
    if first <= peak {
        let best = Best {
            arena: peak,
            offsets: fallible::collect(n, sectioned.offsets.iter().copied())?,
            order: size_order,
        };
        return spread(tensors.len(), items, best); // optimal
    }
    if late(deadline) {
        return Ok(None);
    }
    let mut placer = sectioned;

    // Best fit on the size ordering: the greedy.
    let Some(greedy) = greedy_plan(tensors, known_greedy, deadline)? else {
        return Ok(None); // out of time
    };
    if greedy.arena_size <= peak {
        return Ok(Some(greedy.into_owned())); // optimal
    }
    let mut best = Best {
        arena: greedy.arena_size,
        order: size_order,
        offsets: fallible::collect(n, items.iter().map(|&i| greedy.offsets[i]))?,
    };
    drop(greedy);
    let mut lowest_floor_won = false;
    if first < best.arena {
        best.arena = first;
        best.offsets.copy_from_slice(placer.offsets());
        lowest_floor_won = true;
    }
    // When the budget cannot take every ordering, the ones by conflict
    // bytes and by length, area and pressure (the best on sliding windows)
    // go first; otherwise the listed heuristic's order, whose ties it keeps.
    // A whole placement's work: its tensors and stale entries.
    let cost = n.saturating_add(placer.stale).max(1);
    let mut work = cost;
    let rest: [usize; ORDERINGS - 1] = if work.saturating_mul(ORDERINGS - 1) > SECTION_WORK {
        [5, 6, 7, 8, 4, 1, 2, 3]
    } else {
        [1, 2, 3, 4, 5, 6, 7, 8]
    };
    for k in rest {
        if work >= SECTION_WORK || best.arena <= peak {
            break;
        }
        let Some(order) = orders.order(k)? else {
            break; // out of time
        };
        // Only a smaller arena wins: stop a placement once it reaches the
        // best one.
        let placed = placer.place(&order, best.arena - 1)?;
        work = work.saturating_add(n).saturating_add(placer.stale);
        let Some(arena) = placed else {
            break; // out of time
        };
        if arena < best.arena {
            best.arena = arena;
            best.order = order;
            best.offsets.copy_from_slice(placer.offsets());
            lowest_floor_won = true;
        }
    }
    drop(orders);
    if lowest_floor_won {
        let rounds =
            rounds(heap_cost(n, degrees.entries)).min(SECTION_WORK.saturating_sub(work) / cost);
        improve(&mut placer, &sizes, &mut best, rounds, peak, deadline)?;
    }
    drop(placer);
    finish(tensors, items, &sizes, best, peak, deadline)
}

/// Work of the placements on the section tree and of the improvement, in
/// tensors placed and stale entries met: beyond it no further ordering is
/// tried and the improvement stops, so that a placement's near-linear cost
/// bounds the whole plan's. Every ordering and the improvement's rounds fit
/// it up to a few hundred thousand tensors with few stale entries.
const SECTION_WORK: usize = 1 << 24;

/// Stale heap entries per tensor placed beyond which the first placement
/// leaves the section tree for the k-d tree: each costs a heap operation
/// and a range read, while the k-d tree raises a whole subtree at once.
const STALE_PER_TENSOR: usize = 2;

/// Work of the placements and of the improvement on the k-d tree, in
/// subtrees visited: beyond it no further ordering is tried and the
/// improvement stops, so that a placement's near-linear cost bounds the
/// whole plan's. Large enough for every ordering and eight improvement
/// rounds on the large benchmark files (about 38 M visits in all on the
/// largest, 2.4 M per placement), and little more: the orderings it no
/// longer reaches on short random lifetimes (about 9 M visits per
/// placement at 100,000 tensors) won on none of the seeds tried, while
/// each cost a whole placement. Large tables get [`WORK_PER_TENSOR`] instead when more.
const SCALABLE_WORK: usize = 5 << 23;

/// Visits per tensor of the k-d tree's budget on large tables: enough for
/// a second ordering on sliding windows of a million tensors (about 66
/// visits per tensor in a placement), where it wins.
const WORK_PER_TENSOR: usize = 72;

/// Tensors in the bands per conflict list entry or tensor, beyond which
/// the band order is not used: its reads are contiguous and cheap, but a
/// table whose long lifetimes widen every band would read many tensors
/// per conflict, where the k-d tree raises whole subtrees.
const BAND_READS_PER_ENTRY: usize = 4;

/// The most tensors per band, on average, of a table placed in band order:
/// above the bands of short random lifetimes (about 150 for lifetimes of up
/// to 100 steps), within [`BAND_WORK_PER_TENSOR`].
const BAND_READS_PER_TENSOR: usize = 256;

/// Work of the placements and of the improvement in band order, in reads:
/// beyond it no further ordering is tried and the improvement stops, so
/// that a placement's near-linear cost bounds the whole plan's. Every
/// ordering on short random lifetimes at 100,000 tensors (about 330 reads
/// per tensor in a placement, the charge per tensor placed included).
const BAND_WORK: usize = 1 << 28;

/// Reads per tensor of the band order's budget on large tables: a second
/// ordering on short random lifetimes, a third on sliding windows.
const BAND_WORK_PER_TENSOR: usize = 512;

/// Whether a placement in band order, whose bands hold `reads` tensors in
/// all for `n` tensors with `entries` conflict list entries, stays
/// near-linear: within [`BAND_READS_PER_ENTRY`] per entry or tensor, and
/// within [`BAND_READS_PER_TENSOR`] per tensor (which on dense tables,
/// where the bands hold `O(n)` tensors each, it does not).
fn bands_pay(reads: usize, n: usize, entries: usize) -> bool {
    reads
        <= n.saturating_add(entries)
            .saturating_mul(BAND_READS_PER_ENTRY)
        && reads <= n.saturating_mul(BAND_READS_PER_TENSOR)
}

/// Whether a table whose conflict lists would fit is planned here all the
/// same: where its bands stay short ([`bands_pay`]) and the listed
/// heuristic's improvement is down to its fewest rounds. The band order
/// places the same orderings by the same rule for the same number of
/// rounds, at a fraction of a listed placement's cost (no lists to build,
/// no heap entry per conflict); what the lists add, first fit on the size
/// ordering, pays on small tables, where the improvement has many rounds.
pub(super) fn prefers_bands(tensors: &[TensorLifetime], degrees: &Degrees) -> bool {
    rounds(heap_cost(degrees.items.len(), degrees.entries)) == MIN_ROUNDS
        && bands_short(tensors, degrees)
}

/// Whether the bands of the table `degrees` counts stay short
/// ([`bands_pay`]), from their lengths counted in `O(n)`.
fn bands_short(tensors: &[TensorLifetime], degrees: &Degrees) -> bool {
    let n = degrees.items.len();
    let reads = band_reads(n, degrees.entries, degrees.reach_back(tensors));
    bands_pay(reads, n, degrees.entries)
}

/// The k-d tree's budget of visits for `n` tensors.
fn scalable_work(n: usize) -> usize {
    SCALABLE_WORK.max(n.saturating_mul(WORK_PER_TENSOR))
}

/// A placer without lists whose work is counted, so that one budget bounds
/// its placements and the improvement.
pub(super) trait Counted: Placement {
    /// The work of the current placement, or of the last one.
    fn work(&self) -> usize;
    /// The work of the last finished placement (at least one per tensor).
    fn placement_cost(&self) -> usize;
    /// When its placements stop.
    fn deadline(&self) -> Option<Instant>;
    /// Gives up what memory it can until its next placement, which then
    /// costs a set-up again (none by default).
    fn stow(&mut self) {}
}

impl Counted for FloorTree<'_> {
    fn work(&self) -> usize {
        self.visits
    }
    fn placement_cost(&self) -> usize {
        FloorTree::placement_cost(self)
    }
    fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
}

impl Counted for BandFloors<'_> {
    fn work(&self) -> usize {
        self.reads
    }
    fn stow(&mut self) {
        BandFloors::stow(self);
    }
    fn placement_cost(&self) -> usize {
        BandFloors::placement_cost(self)
    }
    fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
}

/// The plan by `placer`, from the size ordering (`size_order`, if the
/// caller has it) on, within `budget` of the placer's work.
#[allow(clippy::too_many_arguments)]
fn plan_by(
    tensors: &[TensorLifetime],
    degrees: &Degrees,
    sizes: &[usize],
    mut placer: impl Counted,
    mut orders: Orderings<'_>,
    size_order: Option<Vec<usize>>,
    budget: usize,
    peak: usize,
    known_greedy: Option<&MemoryPlan>,
) -> Result<Option<MemoryPlan>, PlanError> {
    let deadline = placer.deadline();
    let items = &degrees.items;
    let n = items.len();
    let size_order = match size_order {
        Some(order) => order,
        None => match orders.order(0)? {
            Some(order) => order,
            None => return Ok(None), // out of time
        },
    };
    let Some(first) = placer.place(&size_order, usize::MAX)? else {
        return Ok(None); // out of time
    };
    if first <= peak {
        let best = Best {
            arena: peak,
            offsets: fallible::collect(n, placer.offsets().iter().copied())?,
            order: size_order,
        };
        return spread(tensors.len(), items, best); // optimal
    }
    if late(deadline) {
        return Ok(None);
    }
    let mut work = placer.work();

    // Best fit on the size ordering: the greedy. Made here, it is the
    // heuristic's largest allocation (its conflict lists on short
    // lifetimes), and the placer gives up its tables meanwhile.
    if known_greedy.is_none() {
        placer.stow();
    }
    let Some(greedy) = greedy_plan(tensors, known_greedy, deadline)? else {
        return Ok(None); // out of time
    };
    if greedy.arena_size <= peak {
        return Ok(Some(greedy.into_owned())); // optimal
    }
    let mut best = Best {
        arena: greedy.arena_size,
        order: size_order,
        offsets: fallible::collect(n, items.iter().map(|&i| greedy.offsets[i]))?,
    };
    drop(greedy);
    let mut lowest_floor_won = false;
    if first < best.arena {
        best.arena = first;
        best.offsets.copy_from_slice(placer.offsets());
        lowest_floor_won = true;
    }
    // When the budget cannot take every ordering, the ones by conflict
    // bytes and by length, area and pressure (the best on sliding windows)
    // go first; otherwise the listed heuristic's order, whose ties it keeps.
    let rest: [usize; ORDERINGS - 1] = if work.saturating_mul(ORDERINGS - 1) > budget {
        [5, 6, 7, 8, 4, 1, 2, 3]
    } else {
        [1, 2, 3, 4, 5, 6, 7, 8]
    };
    for k in rest {
        if work >= budget || best.arena <= peak || late(deadline) {
            break;
        }
        // Node pressure and conflict bytes take a table of their own
        // while they are ranked: the placer's tables give way meanwhile.
        if orders.needs_costly_values(k) {
            placer.stow();
        }
        let Some(order) = orders.order(k)? else {
            break; // out of time
        };
        // Only a smaller arena wins: stop a placement once it reaches the
        // best one.
        let placed = placer.place(&order, best.arena - 1)?;
        work = work.saturating_add(placer.work());
        let Some(arena) = placed else {
            break; // out of time
        };
        if arena < best.arena {
            best.arena = arena;
            best.order = order;
            best.offsets.copy_from_slice(placer.offsets());
            lowest_floor_won = true;
        }
    }
    drop(orders);
    if lowest_floor_won {
        let cost = placer.placement_cost();
        let rounds = rounds(cost).min(budget.saturating_sub(work) / cost);
        improve(&mut placer, sizes, &mut best, rounds, peak, deadline)?;
    }
    drop(placer);
    finish(tensors, items, sizes, best, peak, deadline)
}

/// The lowest-floor rule on [`SectionFloors`], with its scratch.
struct SectionPlacer<'a> {
    floors: SectionFloors,
    sizes: &'a [usize],
    items: &'a [usize],
    /// Greatest common divisor of the sizes (1 if none): floors are kept in
    /// its units.
    unit: usize,
    /// Whether the floors in units and the ranks fit `u64` keys.
    narrow: bool,
    offsets: Vec<usize>,
    keys64: RadixHeap<u64>,
    keys128: RadixHeap<u128>,
    deadline: Option<Instant>,
    /// Stale entries after which a placement stops, and those the last
    /// placement met.
    stale_limit: usize,
    stale: usize,
    /// Whether the last placement stopped at the limit.
    stopped: bool,
}

impl<'a> SectionPlacer<'a> {
    fn new(
        sections: Sections,
        sizes: &'a [usize],
        items: &'a [usize],
        deadline: Option<Instant>,
    ) -> Result<Self, PlanError> {
        let unit = size_unit(sizes);
        let total = sizes.iter().fold(0usize, |t, &s| t.saturating_add(s));
        Ok(SectionPlacer {
            floors: SectionFloors::new(sections, total / unit)?,
            sizes,
            items,
            unit,
            narrow: total / unit < 1 << 40 && sizes.len() < 1 << 24,
            offsets: fallible::filled(sizes.len(), 0)?,
            keys64: RadixHeap::default(),
            keys128: RadixHeap::default(),
            deadline,
            stale_limit: usize::MAX,
            stale: 0,
            stopped: false,
        })
    }

    fn place_keyed<K: Key>(
        &mut self,
        order: &[usize],
        bound: usize,
        keys: fn(&mut Self) -> Parts<'_, SectionFloors, K>,
    ) -> Result<Option<usize>, PlanError> {
        let (sizes, items, unit, deadline) = (self.sizes, self.items, self.unit, self.deadline);
        let stale_limit = self.stale_limit;
        let mut stale = 0;
        let mut stopped = false;
        let (floors, heap, offsets) = keys(self);
        let placed = lowest_floor::place(
            floors,
            lowest_floor::Placement {
                sizes,
                items,
                unit,
                offsets,
                heap,
                stale: &mut stale,
                stale_limit,
                stopped: &mut stopped,
                // The first placement's limit and the budget count them.
                refresh: false,
            },
            order,
            bound,
            deadline,
        );
        self.stale = stale;
        self.stopped = stopped;
        placed
    }
}

impl Placement for SectionPlacer<'_> {
    /// Repeatedly places the unplaced tensor of least (floor, rank) at its
    /// floor; stops as soon as the arena passes `bound`.
    fn place(&mut self, order: &[usize], bound: usize) -> Result<Option<usize>, PlanError> {
        if self.narrow {
            self.place_keyed(order, bound, |s| {
                (&mut s.floors, &mut s.keys64, &mut s.offsets)
            })
        } else {
            self.place_keyed(order, bound, |s| {
                (&mut s.floors, &mut s.keys128, &mut s.offsets)
            })
        }
    }

    fn offsets(&self) -> &[usize] {
        &self.offsets
    }
}

#[cfg(test)]
mod tests {
    use super::super::assert_places_as_listed;
    use super::*;
    use crate::offsets::conflicts::Conflicts;

    /// The section tree places every ordering exactly as the listed
    /// lowest-floor rule does (same offsets, same arena, same early stop),
    /// on seeded tables with nested lifetimes, equal sizes, zero sizes,
    /// shared endpoints and sizes too wide for `u64` keys.
    #[test]
    fn the_section_tree_gives_the_listed_lowest_floor_plans() {
        let mut rng = crate::rng::XorShift(0x0BAD_5EED_1234_5678);
        let mut below = |bound: usize| rng.below(bound);
        for case in 0..400 {
            let horizon = 1 + below(if case % 2 == 0 { 60 } else { 150 });
            let wide = case % 7 == 0;
            let tensors: Vec<TensorLifetime> = (0..below(if case % 2 == 0 { 120 } else { 250 }))
                .map(|_| {
                    let first = below(horizon);
                    let span = if below(6) == 0 { horizon } else { 4 };
                    let last = (first + below(span)).min(horizon);
                    let size = [0, 8, 16, 24, 40][below(5)];
                    // Wide: floors in units of the sizes' gcd pass 2^40.
                    let size = if wide && size > 0 {
                        (size << 40) + 8
                    } else {
                        size
                    };
                    TensorLifetime::new(size, first, last)
                })
                .collect();
            let conflicts = Conflicts::new(&tensors).unwrap();
            let items = &conflicts.items;
            let sizes: Vec<usize> = items.iter().map(|&i| tensors[i].size).collect();
            let sections = Sections::new(&tensors, items).unwrap();
            let mut tree = SectionPlacer::new(sections, &sizes, items, None).unwrap();
            assert_places_as_listed(&tensors, &conflicts, &sizes, &mut tree);
        }
    }

    /// The band order is taken on short lifetimes (a chain, sliding
    /// windows) and refused where its bands would grow with `n`: one
    /// lifetime over the whole table first in the order, or all tensors
    /// live together. The reads are the bands' lengths counted by brute
    /// force, not the placer's own count.
    #[test]
    fn the_band_order_is_taken_only_where_its_bands_stay_short() {
        let n = 4000;
        let chain: Vec<TensorLifetime> =
            (0..n).map(|i| TensorLifetime::new(64, i, i + 1)).collect();
        let window: Vec<TensorLifetime> =
            (0..n).map(|i| TensorLifetime::new(64, i, i + 10)).collect();
        let mut spanned = chain.clone();
        spanned[0] = TensorLifetime::new(64, 0, n);
        let dense: Vec<TensorLifetime> = (0..n).map(|i| TensorLifetime::new(64, i, n)).collect();
        for (tensors, expected) in [
            (chain, true),
            (window, true),
            (spanned, false),
            (dense, false),
        ] {
            let degrees = Degrees::new(&tensors).unwrap();
            // Each band: from the first tensor whose lifetime or an earlier
            // one's reaches the tensor's first use, to the last that
            // starts by its last use (inputs here are sorted by first use).
            let reads: usize = tensors
                .iter()
                .map(|a| {
                    let start = (0..tensors.len())
                        .find(|&j| tensors[..=j].iter().any(|b| b.last_use >= a.first_use))
                        .unwrap();
                    let stop = tensors.iter().filter(|b| b.first_use <= a.last_use).count();
                    stop - start
                })
                .sum();
            let back = degrees.reach_back(&tensors);
            assert_eq!(band_reads(n, degrees.entries, back), reads);
            assert_eq!(bands_pay(reads, n, degrees.entries), expected);
        }
    }

    /// Tables whose lists fit leave them for the band order only where
    /// both hold: short bands, and an improvement down to its fewest
    /// rounds. Small tables (MiniMalloc's have hundreds of buffers) keep
    /// their lists and first fit; large dense ones keep them too.
    #[test]
    fn the_band_order_replaces_the_lists_only_on_large_short_lived_tables() {
        let window = |n: usize| -> Vec<TensorLifetime> {
            (0..n)
                .map(|i| TensorLifetime::new(64 * (1 + i % 7), i, i + 10))
                .collect()
        };
        let dense = |n: usize| -> Vec<TensorLifetime> {
            (0..n).map(|i| TensorLifetime::new(64, i, n)).collect()
        };
        for (tensors, expected) in [
            (window(500), false),
            (window(40_000), true),
            (dense(500), false),
            (dense(2_000), false),
        ] {
            let degrees = Degrees::new(&tensors).unwrap();
            assert!(degrees.lists_fit());
            assert_eq!(
                prefers_bands(&tensors, &degrees),
                expected,
                "{} tensors",
                tensors.len()
            );
        }
    }

    /// Every route (the section tree throughout, the k-d tree after the
    /// first stale entry, and the band order) gives sound plans, by a check
    /// of every pair, between the peak and the greedy's arena, on seeded
    /// random tables.
    #[test]
    fn every_route_gives_sound_plans_between_the_peak_and_the_greedy() {
        use crate::offsets::peak::try_peak_live_bytes;
        let mut rng = crate::rng::XorShift(0x1357_9BDF_2468_ACE0);
        let mut below = |bound: usize| rng.below(bound);
        for case in 0..200 {
            let horizon = 1 + below(if case % 2 == 0 { 40 } else { 200 });
            let tensors: Vec<TensorLifetime> = (0..1 + below(150))
                .map(|_| {
                    let first = below(horizon);
                    let span = if below(5) == 0 { horizon } else { 8 };
                    let last = (first + below(span)).min(horizon);
                    TensorLifetime::new([0, 8, 16, 24, 40, 64][below(6)], first, last)
                })
                .collect();
            let peak = try_peak_live_bytes(&tensors).unwrap();
            let greedy = crate::offsets::greedy::try_plan_offsets(&tensors)
                .unwrap()
                .arena_size;
            for route in [
                Route::Sections(0),
                Route::Sections(usize::MAX),
                Route::Bands,
            ] {
                let degrees = Degrees::new(&tensors).unwrap();
                let plan = plan_with(&tensors, degrees, peak, None, None, route)
                    .unwrap()
                    .unwrap();
                let mut top = 0;
                for (i, a) in tensors.iter().enumerate() {
                    if a.size == 0 {
                        assert_eq!(plan.offsets[i], 0);
                        continue;
                    }
                    top = top.max(plan.offsets[i] + a.size);
                    for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                        let meet = a.first_use <= b.last_use && b.first_use <= a.last_use;
                        let share = plan.offsets[i] < plan.offsets[j] + b.size
                            && plan.offsets[j] < plan.offsets[i] + a.size;
                        assert!(b.size == 0 || !(meet && share), "{i}, {j}: {tensors:?}");
                    }
                }
                assert_eq!(plan.arena_size, top);
                assert!(peak <= plan.arena_size && plan.arena_size <= greedy);
            }
        }
    }
}
