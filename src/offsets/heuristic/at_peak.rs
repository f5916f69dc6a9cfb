//! Three shapes of table whose lower bound, the peak of live bytes, is met
//! by a direct construction, in `O(n)` over the tensors sorted by first use:
//! the heuristic returns these plans before any ordering is made.
//!
//! - *Nested lifetimes* (any two that meet, one within the other: the
//!   tensors of a stack, of nested scopes, of a recursion): each tensor is
//!   put on top of the tensors whose lifetimes hold its own. Those are all
//!   live at its first use, so no top passes the live bytes there.
//! - *At most two tensors live at once* (a chain of operators, each
//!   reading one tensor and writing the next): the conflicts form a forest,
//!   whose two sides take the two ends of the arena, one at offset 0 and
//!   the other ending at the peak ("ping-pong" buffers). Two tensors that
//!   meet are live together at some node, so their sizes add up to at most
//!   the peak, and the two ends never overlap.
//! - *The same under tensors live over the whole table* (weights or state
//!   kept from the first node to the last, above a chain): those are live
//!   at every node, so they are stacked at the bottom and take their total
//!   off the peak at every node, and the others' two sides share the rest.
//!
//! # What is exact
//!
//! Every plan returned is sound and its arena is the peak, which no sound
//! plan is below: optimal. Tables of none of these shapes are left to the
//! heuristic's orderings.
//!
//! # Complexity
//!
//! `O(n)` time after the sort by first use (which the caller's
//! [`Starts`] has), plus the sort of each run of equal first uses by
//! decreasing last use for the nested test (`O(n log n)` at worst); `O(n)`
//! memory. The deadline is read every [`DEADLINE_PERIOD`] tensors.

use std::cmp::Reverse;
use std::time::Instant;

use crate::error::PlanError;
use crate::offsets::conflicts::{late, Starts, DEADLINE_PERIOD};
use crate::offsets::{MemoryPlan, TensorLifetime};
use crate::sys::fallible;

/// What [`plan`] found.
pub(super) enum AtPeak {
    /// A plan whose arena is the peak.
    Plan(MemoryPlan),
    /// The table is of neither shape.
    Neither,
    /// The deadline passed first.
    Late,
}

/// A plan of `tensors` meeting `peak` (their peak of live bytes, sizes
/// already rounded) if their lifetimes are nested or at most two tensors
/// are live at once, beside any live over the whole table; `starts` are
/// the planned tensors sorted by first use.
///
/// Errors: [`PlanError::OutOfMemory`].
pub(super) fn plan(
    tensors: &[TensorLifetime],
    starts: &Starts,
    peak: usize,
    deadline: Option<Instant>,
) -> Result<AtPeak, PlanError> {
    let items = &starts.items;
    let tensor = |p: usize| &tensors[items[p]];
    // Offsets by input index, written only once a shape is found (zero-size
    // tensors keep 0).
    let mut offsets = fallible::filled(tensors.len(), 0usize)?;
    match two_sides(&starts.by_start, &tensor, deadline)? {
        Found::Late => return Ok(AtPeak::Late),
        // A tensor's size is at most the peak (it is live alone).
        Found::Yes(bottom) => {
            for (p, &bottom) in bottom.iter().enumerate() {
                if !bottom {
                    offsets[items[p]] = peak.saturating_sub(tensor(p).size);
                }
            }
        }
        Found::No => match stacked(&starts.by_start, &tensor, deadline, |p, floor| {
            offsets[items[p]] = floor;
        })? {
            Found::Late => return Ok(AtPeak::Late),
            Found::Yes(()) => {}
            Found::No => match two_sides_under_whole(&starts.by_start, &tensor, deadline)? {
                Found::Late => return Ok(AtPeak::Late),
                Found::No => return Ok(AtPeak::Neither),
                Found::Yes((whole, bottom)) => {
                    // The whole tensors are live together: their total is
                    // at most the peak, when `peak` is the table's.
                    let mut below = 0usize;
                    for &p in &whole {
                        below = match below.checked_add(tensor(p).size) {
                            Some(top) if top <= peak => top,
                            _ => return Ok(AtPeak::Neither),
                        };
                    }
                    for (p, &bottom) in bottom.iter().enumerate() {
                        offsets[items[p]] = match bottom {
                            true => below,
                            false => peak.saturating_sub(tensor(p).size),
                        };
                    }
                    // The whole ones, given a side above, stacked below.
                    let mut top = 0;
                    for &p in &whole {
                        offsets[items[p]] = top;
                        top += tensor(p).size;
                    }
                }
            },
        },
    }
    // Both constructions keep every top within the peak when `peak` is the
    // table's; a top past it would mean it is not, and then nothing is
    // claimed.
    let mut arena = 0;
    for &i in items {
        let (offset, size) = (offsets[i], tensors[i].size);
        if size > peak || offset > peak - size {
            return Ok(AtPeak::Neither);
        }
        arena = arena.max(offset + size);
    }
    Ok(AtPeak::Plan(MemoryPlan {
        offsets,
        arena_size: arena,
    }))
}

/// The outcome of one shape's test, with what it built.
enum Found<T> {
    Yes(T),
    No,
    Late,
}

/// Whether at most two of the positions are live at any node; if so, each
/// position's side of the arena (`true`: the bottom), the two sides of
/// every meeting pair different. A tensor meets an earlier starter only if
/// that one is live at its first use, and there is at most one such: it
/// takes the other side.
fn two_sides<'t>(
    by_start: &[usize],
    tensor: &impl Fn(usize) -> &'t TensorLifetime,
    deadline: Option<Instant>,
) -> Result<Found<Vec<bool>>, PlanError> {
    two_sides_of(by_start, by_start.len(), tensor, deadline)
}

/// [`two_sides`] of the positions of `by_start` (sorted by first use), some
/// of the `positions` of the table; the sides of the others are `true`.
fn two_sides_of<'t>(
    by_start: &[usize],
    positions: usize,
    tensor: &impl Fn(usize) -> &'t TensorLifetime,
    deadline: Option<Instant>,
) -> Result<Found<Vec<bool>>, PlanError> {
    let mut bottom = fallible::filled(positions, true)?;
    // The earlier starters with the greatest and the second greatest last
    // use: the first's (last use, position), the second's last use.
    let mut latest: Option<(usize, usize)> = None;
    let mut second: Option<usize> = None;
    for (k, &p) in by_start.iter().enumerate() {
        if k % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 && late(deadline) {
            return Ok(Found::Late);
        }
        let t = tensor(p);
        if second.is_some_and(|last| last >= t.first_use) {
            return Ok(Found::No); // two earlier starters live at its first use
        }
        if let Some((last, q)) = latest {
            if last >= t.first_use {
                bottom[p] = !bottom[q];
            }
            if t.last_use > last {
                second = Some(last);
                latest = Some((t.last_use, p));
            } else if second.map_or(true, |s| t.last_use > s) {
                second = Some(t.last_use);
            }
        } else {
            latest = Some((t.last_use, p));
        }
    }
    Ok(Found::Yes(bottom))
}

/// Whether the positions whose lifetimes do not hold the whole table's
/// (from the first first use to the last last use) have at most two live
/// at any node, and at least one position's does; if so, the positions
/// whose lifetimes hold it (in order of first use) and each other
/// position's side (`true`: the bottom; `true` too for the first ones).
/// The whole ones are live at every node any tensor is, so the others'
/// live bytes are the peak less their total at every node, and the two
/// sides' argument holds above them.
#[allow(clippy::type_complexity)]
fn two_sides_under_whole<'t>(
    by_start: &[usize],
    tensor: &impl Fn(usize) -> &'t TensorLifetime,
    deadline: Option<Instant>,
) -> Result<Found<(Vec<usize>, Vec<bool>)>, PlanError> {
    let Some(&first) = by_start.first() else {
        return Ok(Found::No);
    };
    // Only the first starters can hold the whole table, and none does if
    // a tensor ends after all of them: on most tables one of the first few
    // tensors read does.
    let earliest = tensor(first).first_use;
    let first_run = by_start
        .iter()
        .position(|&p| tensor(p).first_use > earliest)
        .unwrap_or(by_start.len());
    let latest = by_start[..first_run]
        .iter()
        .map(|&p| tensor(p).last_use)
        .max()
        .unwrap_or(0);
    if by_start.iter().any(|&p| tensor(p).last_use > latest) {
        return Ok(Found::No);
    }
    // The first starters ending at `latest` hold the whole table; the one
    // that gave `latest` is among them.
    let holds_all = |p: usize| tensor(p).first_use <= earliest && tensor(p).last_use >= latest;
    let whole = fallible::collect_growing(
        by_start[..first_run]
            .iter()
            .copied()
            .filter(|&p| holds_all(p)),
    )?;
    let rest = fallible::collect_growing(by_start.iter().copied().filter(|&p| !holds_all(p)))?;
    match two_sides_of(&rest, by_start.len(), tensor, deadline)? {
        Found::Yes(bottom) => Ok(Found::Yes((whole, bottom))),
        Found::No => Ok(Found::No),
        Found::Late => Ok(Found::Late),
    }
}

/// Whether the lifetimes of the positions are nested (any two that meet,
/// one within the other); if so, each position's floor, handed to
/// `floor(p, floor)` (also for positions of a table then found not to
/// nest): the top of the tensors whose lifetimes hold its own, stacked.
/// Sorted by first use and then by decreasing last use, the lifetimes
/// holding a tensor's come before it, and the open ones form a stack.
fn stacked<'t>(
    by_start: &[usize],
    tensor: &impl Fn(usize) -> &'t TensorLifetime,
    deadline: Option<Instant>,
    mut floor: impl FnMut(usize, usize),
) -> Result<Found<()>, PlanError> {
    let n = by_start.len();
    // The open lifetimes: (last use, top), outermost first.
    let mut open: Vec<(usize, usize)> = Vec::new();
    // A run of equal first uses, longest lifetime first (ties by position,
    // as `by_start` has them); sorted as reached, so that a crossing found
    // early ends the work.
    let mut run: Vec<usize> = Vec::new();
    let mut k = 0;
    while k < n {
        let first = tensor(by_start[k]).first_use;
        let mut end = k + 1;
        while end < n && tensor(by_start[end]).first_use == first {
            end += 1;
        }
        let positions = if end - k > 1 {
            run.clear();
            fallible::reserve(&mut run, end - k)?;
            run.extend_from_slice(&by_start[k..end]);
            run.sort_by_key(|&p| (Reverse(tensor(p).last_use), p));
            &run[..]
        } else {
            &by_start[k..end]
        };
        for &p in positions {
            let t = tensor(p);
            while open.last().is_some_and(|&(last, _)| last < t.first_use) {
                open.pop();
            }
            let base = match open.last() {
                Some(&(last, _)) if last < t.last_use => return Ok(Found::No), // they cross
                Some(&(_, top)) => top,
                None => 0,
            };
            floor(p, base);
            // Tops stay within the sizes' total, which the peak bounds when
            // the lifetimes nest; a sum past `usize` is no plan of that kind.
            let Some(top) = base.checked_add(t.size) else {
                return Ok(Found::No);
            };
            fallible::push(&mut open, (t.last_use, top))?;
        }
        // The clock once per DEADLINE_PERIOD tensors passed.
        if end / DEADLINE_PERIOD > k / DEADLINE_PERIOD && late(deadline) {
            return Ok(Found::Late);
        }
        k = end;
    }
    Ok(Found::Yes(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offsets::peak::try_peak_live_bytes;
    use crate::rng::XorShift;

    /// Live bytes and live tensors (non-zero sizes) at each node, by their
    /// definition: the most of each.
    fn live_most(tensors: &[TensorLifetime]) -> (usize, usize) {
        let horizon = tensors.iter().map(|t| t.last_use + 1).max().unwrap_or(0);
        (0..horizon)
            .map(|node| {
                let live = || {
                    (tensors.iter())
                        .filter(move |t| t.size > 0 && t.first_use <= node && node <= t.last_use)
                };
                (live().map(|t| t.size).sum(), live().count())
            })
            .fold((0, 0), |(b, c), (lb, lc)| (b.max(lb), c.max(lc)))
    }

    /// Whether every two meeting lifetimes (non-zero sizes) are one within
    /// the other, pair by pair.
    fn nested(tensors: &[TensorLifetime]) -> bool {
        let sized: Vec<_> = tensors.iter().filter(|t| t.size > 0).collect();
        sized.iter().all(|a| {
            sized.iter().all(|b| {
                let meet = a.first_use <= b.last_use && b.first_use <= a.last_use;
                let within = |x: &TensorLifetime, y: &TensorLifetime| {
                    y.first_use <= x.first_use && x.last_use <= y.last_use
                };
                !meet || within(a, b) || within(b, a)
            })
        })
    }

    /// Whether some lifetimes hold the whole table's span (from the first
    /// first use to the last last use) and at most two of the others are
    /// live at any node, by definition.
    fn two_under_whole(tensors: &[TensorLifetime]) -> bool {
        let sized: Vec<TensorLifetime> = tensors.iter().copied().filter(|t| t.size > 0).collect();
        let (Some(earliest), Some(latest)) = (
            sized.iter().map(|t| t.first_use).min(),
            sized.iter().map(|t| t.last_use).max(),
        ) else {
            return false;
        };
        let holds = |t: &TensorLifetime| t.first_use <= earliest && t.last_use >= latest;
        let rest: Vec<TensorLifetime> = sized.iter().copied().filter(|t| !holds(t)).collect();
        sized.iter().any(holds) && live_most(&rest).1 <= 2
    }

    fn assert_sound(tensors: &[TensorLifetime], plan: &MemoryPlan) {
        for (i, a) in tensors.iter().enumerate() {
            for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                let meet = a.first_use <= b.last_use && b.first_use <= a.last_use;
                let share = plan.offsets[i] < plan.offsets[j] + b.size
                    && plan.offsets[j] < plan.offsets[i] + a.size;
                assert!(
                    a.size == 0 || b.size == 0 || !(meet && share),
                    "{i} {j} {tensors:?}"
                );
            }
        }
    }

    /// Seeded tables of the shapes and of none: a plan is returned
    /// exactly for the nested ones, those with at most two live tensors
    /// at every node, and those with at most two live at every node under
    /// lifetimes holding the whole table (all tested by definition), sound
    /// and at the peak of live bytes counted node by node.
    #[test]
    fn the_shapes_and_only_they_are_planned_at_the_peak() {
        let mut rng = XorShift(0x2468_ACE0_1357_9BDF);
        let mut shapes = [0usize; 3];
        for round in 0..2000 {
            let count = rng.below(24);
            let horizon = 1 + rng.below(30);
            let tensors: Vec<TensorLifetime> = match round % 4 {
                // A chain with gaps, repeats and zero sizes.
                0 => (0..count)
                    .map(|i| {
                        let first = i + rng.below(2);
                        let last = first + rng.below(3);
                        TensorLifetime::new([0, 8, 24, 40, 64][rng.below(5)], first, last)
                    })
                    .collect(),
                // Nested: halves of intervals, split again; some crossing.
                1 => {
                    let mut table = Vec::new();
                    let mut spans = vec![(0, horizon)];
                    while let Some((a, b)) = spans.pop() {
                        if table.len() == count {
                            break;
                        }
                        table.push(TensorLifetime::new(8 * rng.below(6), a, b));
                        let mid = a + rng.below(b - a + 1);
                        spans.push((a, mid));
                        if mid < b && rng.below(3) > 0 {
                            spans.push((mid + rng.below(2), b));
                        }
                    }
                    table
                }
                // A chain under one to three lifetimes over most or all of
                // it (weights, state), one crossing now and then.
                3 => {
                    let mut table: Vec<TensorLifetime> = (0..count)
                        .map(|i| {
                            let first = i + rng.below(2);
                            let last = first + rng.below(3);
                            TensorLifetime::new([0, 8, 24, 40][rng.below(4)], first, last)
                        })
                        .collect();
                    for _ in 0..1 + rng.below(3) {
                        let (first, last) = match rng.below(4) {
                            0 => {
                                let first = rng.below(3);
                                (first, first.max(count + 2 - rng.below(3)))
                            }
                            _ => (0, count + 2),
                        };
                        table.push(TensorLifetime::new([0, 16, 48][rng.below(3)], first, last));
                    }
                    table
                }
                // Anything.
                _ => (0..count)
                    .map(|_| {
                        let first = rng.below(horizon);
                        let last = first + rng.below(6);
                        TensorLifetime::new(8 * rng.below(4), first, last)
                    })
                    .collect(),
            };
            let starts = Starts::new_until(&tensors, None).unwrap().unwrap();
            let peak = try_peak_live_bytes(&tensors).unwrap();
            let (bytes, live) = live_most(&tensors);
            assert_eq!(peak, bytes);
            let expected = live <= 2 || nested(&tensors) || two_under_whole(&tensors);
            match plan(&tensors, &starts, peak, None).unwrap() {
                AtPeak::Plan(plan) => {
                    assert!(expected, "{tensors:?}");
                    assert_eq!(plan.arena_size, peak, "{tensors:?}");
                    assert_sound(&tensors, &plan);
                    for (t, &offset) in tensors.iter().zip(&plan.offsets) {
                        assert!(t.size > 0 || offset == 0);
                    }
                    shapes[usize::from(live > 2)] += 1;
                }
                AtPeak::Neither => {
                    assert!(!expected, "{tensors:?}");
                    shapes[2] += 1;
                }
                AtPeak::Late => panic!("no deadline"),
            }
        }
        // Each outcome met many times.
        assert!(shapes.iter().all(|&s| s > 100), "{shapes:?}");
    }

    /// A passed deadline answers `Late` on tables long enough to read it,
    /// of either shape: a chain, and two whole-table lifetimes over short
    /// ones (nested, three live at once).
    #[test]
    fn a_passed_deadline_is_late() {
        let count = 3 * DEADLINE_PERIOD;
        let chain: Vec<TensorLifetime> = (0..count)
            .map(|i| TensorLifetime::new(8, i, i + 1))
            .collect();
        let nested: Vec<TensorLifetime> = (0..count)
            .map(|i| match i {
                0 | 1 => TensorLifetime::new(8, 0, count),
                _ => TensorLifetime::new(8, i, i),
            })
            .collect();
        for tensors in [chain, nested] {
            let starts = Starts::new_until(&tensors, None).unwrap().unwrap();
            let peak = try_peak_live_bytes(&tensors).unwrap();
            assert!(matches!(
                plan(&tensors, &starts, peak, Some(Instant::now())).unwrap(),
                AtPeak::Late
            ));
            assert!(matches!(
                plan(&tensors, &starts, peak, None).unwrap(),
                AtPeak::Plan(_)
            ));
        }
    }
}
