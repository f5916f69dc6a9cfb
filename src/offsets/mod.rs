//! Arena offset planning: where each tensor lives in one arena, and the lower
//! bound every arena must meet.
//!
//! # Problem
//!
//! Tensors `i = 0..n` have byte sizes `w_i` and *inclusive* lifetimes
//! `[f_i, l_i]` over node indices. Assign each an offset `o_i` in one arena so
//! that tensors whose lifetimes intersect never share a byte:
//!
//! ```text
//! [f_i, l_i] ∩ [f_j, l_j] ≠ ∅  ⟹  [o_i, o_i + w_i) ∩ [o_j, o_j + w_j) = ∅
//! ```
//!
//! and keep the arena `max_i (o_i + w_i)` small. Minimising it exactly is
//! dynamic storage allocation (Garey and Johnson, SR2), which is NP-complete.
//! [`try_plan_offsets_with`] adds an alignment `a` (a power of two): every
//! planned offset is a multiple of `a`, and the arena is computed on sizes
//! rounded up to `a`, `w'_i = ⌈w_i / a⌉ · a`. Planning the rounded sizes is
//! exactly this problem: every offset the planners produce is 0 or the end of
//! a placed rounded block, so it is a multiple of `a` by induction.
//!
//! # The planners, compared
//!
//! | planner | module | plan | time | extra memory | claims |
//! |---|---|---|---|---|---|
//! | [`Strategy::Greedy`] ([`try_plan_offsets`]) | `greedy` | best fit in decreasing size | `O(n log n + Σ k_i log k_i)`, `O(n² log n)` at worst | `O(n log n)` | the specification's plan, bit for bit |
//! | [`Strategy::Heuristic`] | `heuristic` | the best of nine orderings and three placement rules, then a seeded perturbation walk and a repair of the plan's top (its highest tensors placed again with their neighbours in time) | `O((n + E) log n)` per placement (a lazy radix heap; a scan where `n²` is smaller), a bounded number of placements, an `O(n)` budget for the repair; it stops at the first plan that meets the peak | `O(n + E)` conflict lists up to 8 M entries (32 MiB); above that, no lists: `O(n)` with a section tree or a k-d tree over lifetimes, the same rules | deterministic; never worse than greedy |
//! | [`Strategy::Search`] | `search` | anytime branch and bound over canonical placements, from the better of the greedy and heuristic plans (under a time cap, the best of those finished in time and an online first-fit plan) | exponential at worst, bounded by [`SearchBudget`] (nodes; a time cap from the start of the call) | `O(n log n)` without conflict lists, plus bounded key and candidate stacks | optimal when it reports `proven_optimal` |
//! | [`try_peak_live_bytes`] | `peak` | the lower bound, not a plan | `O(n log n)` | `O(n)` | exact |
//!
//! `k_i` is the number of placed tensors whose lifetimes meet tensor `i`'s,
//! `E` the number of conflicting pairs. What the heuristic and the search
//! share (conflict lists, sections of the timeline, the gcd of sizes) lives in
//! `conflicts`; the heap-free forms over a caller's buffer in `no_heap`.
//! Greedy is the choice when plans must match the specification or time is
//! tight; the heuristic when the arena matters and milliseconds are
//! affordable; the search when it is worth seconds to get, or prove, the
//! minimum. Measured figures are in `BENCHMARKS.md` and `docs/strategies.md`.
//!
//! # A search under a time cap
//!
//! Without a time cap (the default [`SearchBudget`], a node budget alone)
//! the search starts from the greedy plan, or the heuristic's when the
//! greedy plan is above the peak, and the plan is the same on every
//! machine. With [`SearchBudget::time`] set, the cap counts from the start
//! of the call and is a promise: when time runs short the call returns a
//! sound plan, possibly a poor one, rather than overrun. It first makes a
//! sound plan whose cost does not depend on the number of conflicting
//! pairs: online first fit in time order (`online`, `O(n log n)`). On
//! tables of 4,096 planned tensors or more that plan does not begin its
//! time order (whose passes write several words a tensor and sort) with
//! less time left than four times what the peak took, reads the clock every
//! 4,096 items of its passes and placements. Once the time left holds
//! little more than the tensors not yet placed need in size-class slots
//! (each class, a quarter of an octave of sizes, a row of slots as wide
//! as its largest tensor, a slot reused once its tensor's last use has
//! passed), they go to such slots above the highest end placed, in
//! `O(1)` a tensor; once less time is left than stacking what remains
//! would take, the tensors not yet placed are stacked above everything
//! placed (before the table is ordered, every tensor in input order from
//! 0). Sound, since first fit stays below its arena and the slots below
//! the stack; slots cost a small factor over the peak of live bytes
//! (`docs/search_caps.md` measures it), a stack can reach the sum of the
//! rounded sizes. Then,
//! each abandoned once the cap passes and kept when no worse than the best
//! so far: the greedy plan (not begun when the first-fit plan was cut
//! short, nor with less time left than that plan took); the heuristic's
//! (abandoned one greedy run's time before the cap, not begun with less
//! than three such runs' time left); and the search (not begun with less
//! than ten times the first-fit plan's time left). A cap too short for the
//! greedy plan gives the first-fit plan, whole or cut short, with the peak
//! of live bytes as its lower bound; a zero cap gives exactly the
//! first-fit plan on tables of fewer than 4,096 planned tensors, and every
//! planned tensor stacked in input order on larger ones. The report says
//! no more than it knows: [`PlanReport::lower_bound`] is then the peak,
//! [`PlanReport::search_nodes`] 0 and [`PlanReport::proven_optimal`] false
//! unless the arena meets the peak, so the gap between the arena and the
//! bound is what a cut may have cost; [`PlanReport::stacked_tensors`]
//! counts the tensors a cut first-fit plan left stacked (0 when the cap
//! cut a later step, or none, or the tensors it left all went to slots).
//! The least any capped call costs is one pass that checks the lifetimes
//! and surveys the table (planned tensors, node range, total size), the
//! rounding, the peak (`O(n log n)`, reading no clock) and a stack written
//! out (`O(n)`) into the memory of the peak's table, so that no fresh
//! memory is touched twice; past those, the call overruns the cap by
//! the stretch of work in progress when the cap passes: each planner reads
//! the clock between its set-up steps and every few thousand items or
//! placements, and the heuristic, whose set-up reads no clock, is given the
//! margin above. The search, whose decisions open with two sorts of the
//! table and whose placements on a table that is one component cost `O(n)`
//! each, opens no decision with less time left than the last opening took
//! (the set-up's time, before the first), and tries no placement with less
//! left than the longest stretch between two of its clock readings so far.
//!
//! # What is exact
//!
//! Every plan of every planner is sound: lifetime-intersecting tensors never
//! share a byte of their rounded extents. [`PlanReport::lower_bound`] is a
//! proven lower bound on the arena of every sound aligned plan (at least the
//! peak of live rounded bytes); [`PlanReport::proven_optimal`] is true only
//! when the arena equals it. Zero-size tensors are not planned and get offset
//! 0.

mod conflicts;
mod constrained;
mod greedy;
mod heuristic;
mod no_heap;
mod online;
mod options;
mod peak;
mod radix;
mod search;

pub use constrained::{
    try_plan_problem, try_plan_problem_observed, LifetimeGap, PlanProblem, Reuse,
};
pub use greedy::{plan_offsets, try_plan_offsets};
pub(crate) use no_heap::{
    peak_live_bytes_scratch_bytes, plan_offsets_indexed_scratch_bytes, plan_offsets_scratch_bytes,
    try_peak_live_bytes_in, try_plan_offsets_in, try_plan_offsets_indexed_in,
};
pub use options::{
    MemoryPlan, PlanOptions, PlanReport, SearchBudget, SearchProgress, Strategy,
    DEFAULT_SEARCH_NODES, DEFAULT_SEARCH_TIME,
};
use peak::Survey;
pub use peak::{peak_live_bytes, try_peak_live_bytes};

use crate::error::PlanError;
pub use crate::input::TensorLifetime;

use crate::input::check_lifetimes;
use crate::sys::fallible;
use std::borrow::Cow;
use std::time::{Duration, Instant};

/// Plans offsets with the given alignment and strategy, or says why it cannot.
///
/// Errors: [`PlanError::InvalidAlignment`] if `options.alignment` is 0 or not
/// a power of two; [`PlanError::InvalidLifetime`] for the first tensor with
/// `first_use > last_use`; [`PlanError::Overflow`] naming a tensor whose size
/// rounded up to the alignment, or whose end offset, would pass `usize::MAX`;
/// [`PlanError::OutOfMemory`] if scratch memory cannot be had (the heuristic
/// builds conflict lists of up to `n²/2` pairs, and refuses lists larger
/// than half the memory the machine can back).
///
/// `Strategy::Greedy` with alignment 1 returns exactly
/// [`try_plan_offsets`]`(tensors)`.
///
/// ```
/// use aether_planner::{try_plan_offsets_with, PlanOptions, Strategy, TensorLifetime};
/// let tensors = [
///     TensorLifetime::new(100, 0, 1),
///     TensorLifetime::new(80, 1, 2),
///     TensorLifetime::new(60, 2, 3),
/// ];
/// let mut options = PlanOptions::default();
/// options.alignment = 64;
/// options.strategy = Strategy::Search;
/// let report = try_plan_offsets_with(&tensors, &options).unwrap();
/// assert!(report.plan.offsets.iter().all(|offset| offset % 64 == 0));
/// assert_eq!(report.plan.arena_size, 256); // 128 + 128 live at node 1
/// assert!(report.proven_optimal);
/// ```
pub fn try_plan_offsets_with(
    tensors: &[TensorLifetime],
    options: &PlanOptions,
) -> Result<PlanReport, PlanError> {
    try_plan_offsets_observed(tensors, options, &mut |_| {})
}

/// [`try_plan_offsets_with`], telling `observe` how a search progresses:
/// with [`Strategy::Search`], once with the starting plan's arena and the
/// peak when the search begins, then each time the best arena or the
/// proven lower bound improves (the nodes visited so far included), for
/// progress displays on long runs. Not called when the starting plan is
/// already optimal or the time cap leaves too little for the search's
/// set-up (less than ten times what the online first-fit plan took, or
/// that plan was cut short), nor by the other strategies. The plan and
/// report are exactly those of [`try_plan_offsets_with`].
///
/// Errors: those of [`try_plan_offsets_with`]. Complexity: theirs, plus
/// `O(1)` and one call per improvement (at most one per decision of the
/// search).
///
/// ```
/// use aether_planner::{try_plan_offsets_observed, PlanOptions, Strategy, TensorLifetime};
/// let tensors: Vec<TensorLifetime> =
///     (0..40).map(|i| TensorLifetime::new(8 + (i * 37) % 90, i, i + 3)).collect();
/// let mut options = PlanOptions::default();
/// options.strategy = Strategy::Search;
/// let mut seen = Vec::new();
/// let report = try_plan_offsets_observed(&tensors, &options, &mut |p| seen.push(*p)).unwrap();
/// if let Some(last) = seen.last() {
///     assert_eq!(last.best_arena, report.plan.arena_size);
/// }
/// ```
pub fn try_plan_offsets_observed(
    tensors: &[TensorLifetime],
    options: &PlanOptions,
    observe: &mut dyn FnMut(&SearchProgress),
) -> Result<PlanReport, PlanError> {
    let started = Instant::now();
    within_cap_rules(options, || {
        plan_observed(tensors, options, observe, started)
    })
}

/// Runs `work`, under the rules of a capped call if `options` set a time
/// cap: no memory advised huge pages, whose faults may stall.
pub(crate) fn within_cap_rules<R>(options: &PlanOptions, work: impl FnOnce() -> R) -> R {
    let capped = options.strategy == Strategy::Search && options.budget.time.is_some();
    if capped {
        crate::sys::pages::without_huge_pages(work)
    } else {
        work()
    }
}

/// [`try_plan_offsets_observed`] of a call begun at `started`.
fn plan_observed(
    tensors: &[TensorLifetime],
    options: &PlanOptions,
    observe: &mut dyn FnMut(&SearchProgress),
    started: Instant,
) -> Result<PlanReport, PlanError> {
    let alignment = options.alignment;
    if !alignment.is_power_of_two() {
        return Err(PlanError::InvalidAlignment { alignment });
    }
    if alignment > 1 {
        // Before rounding, which reports overflows; at alignment 1 the
        // peak's survey checks the lifetimes in its one pass.
        check_lifetimes(tensors)?;
    }
    let rounded = round_sizes(tensors, alignment)?;
    let survey = Survey::of(&rounded)?;
    // The time cap bounds the whole call, the starting plans included.
    let deadline = match options.strategy {
        Strategy::Search => (options.budget.time).and_then(|limit| started.checked_add(limit)),
        _ => None,
    };
    // Under a cap the peak's table lends its memory to the first plan's
    // offsets: fresh memory is touched once.
    let mut table = Vec::new();
    let keep = if deadline.is_some() { rounded.len() } else { 0 };
    let peak_began = Instant::now();
    let peak = peak::peak_in(&rounded, &survey, &mut table, keep)?;
    let peak_took = peak_began.elapsed();
    if deadline.is_none() {
        // Not lent: given back before the plans take their memory.
        table = Vec::new();
    }

    let mut stacked_tensors = 0;
    let (plan, lower_bound, search_nodes) = match options.strategy {
        Strategy::Greedy => (try_plan_offsets(&rounded)?, peak, 0),
        Strategy::Heuristic => (heuristic_or_greedy(&rounded, peak, None)?, peak, 0),
        Strategy::Search => {
            let (start, no_time) = match deadline {
                None => (search_start(&rounded, peak)?, false),
                Some(deadline) => {
                    // A table far longer than the offsets would ride along
                    // in the returned plan: not lent then.
                    if table.capacity() > 2 * rounded.len() + 1024 {
                        table = Vec::new();
                    }
                    let first = FirstFit {
                        survey: &survey,
                        buffer: table,
                        ordering: peak_took.saturating_mul(ORDERING_OVER_PEAK),
                        stack: peak_took,
                    };
                    let (start, online_took, left_out, stacked) =
                        capped_start(&rounded, peak, deadline, first)?;
                    stacked_tensors = stacked;
                    // Before its first placement the search sorts the table
                    // six times (conflict counts, sections, starts, two for
                    // the ranks, first candidates), sweeps it more often and
                    // builds a tree over its sections, where the online plan
                    // sorted it twice and swept it once; a set-up cut short
                    // by the cap is wasted, and so is one that leaves less
                    // time than it took, since no decision is opened then:
                    // not begun with less time left than ten times what the
                    // online plan took.
                    // A first-fit plan cut short says time is short.
                    let left = deadline.saturating_duration_since(Instant::now());
                    (start, left_out > 0 || left < online_took.saturating_mul(10))
                }
            };
            let budget = options.budget;
            if start.arena_size <= peak || no_time || past(deadline) {
                // Proven optimal already, or the cap was (nearly) spent
                // before the search could begin.
                let bound = peak.min(start.arena_size);
                (start, bound, 0)
            } else {
                let outcome = search::improve(&rounded, start, peak, &budget, deadline, observe)?;
                (outcome.plan, outcome.lower_bound, outcome.nodes)
            }
        }
    };
    Ok(PlanReport {
        proven_optimal: plan.arena_size == lower_bound,
        plan,
        lower_bound,
        search_nodes,
        stacked_tensors,
    })
}

/// Whether the time cap `deadline`, if any, has passed.
fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// The plan an uncapped search starts from: the greedy plan, then the
/// heuristic's if the greedy plan is above `peak`, the lower bound. The
/// same on every machine.
///
/// Errors: [`PlanError::OutOfMemory`].
fn search_start(rounded: &[TensorLifetime], peak: usize) -> Result<MemoryPlan, PlanError> {
    let greedy = try_plan_offsets(rounded)?;
    if greedy.arena_size <= peak {
        return Ok(greedy);
    }
    match heuristic::plan_knowing(rounded, peak, None, Some(&greedy))? {
        // Never worse than the greedy plan by its rules; kept as a guard.
        Some(plan) if plan.arena_size <= greedy.arena_size => Ok(plan),
        _ => Ok(greedy),
    }
}

/// The plan a search capped at `deadline` starts from: a sound plan made
/// cheaply first, then better ones while time remains, the best kept (a
/// later one on a tie); how long the first took; and how many tensors the
/// deadline left out of its first-fit plan, and of those how many it
/// stacked (0 and 0 if it was not cut short).
///
/// 0. The heuristic's direct plan at `peak` on the tables of its three
///    shapes ([`heuristic::plan_at_peak`]): a sort by first use and a
///    pass, less than the first-fit plan's two sorts and sweep, and
///    optimal where it applies; then returned alone. Not begun with less
///    time left than the first-fit plan's ordering is estimated to take.
/// 1. The online first-fit plan (`online`): `O(n log n)` whatever the
///    number of conflicting pairs, so that every capped call has a sound
///    plan; cut short by the deadline (the tensors not yet placed go to
///    size-class slots above the others, or to a stack where even those
///    would be late), and then returned alone.
/// 2. The greedy plan, abandoned at the deadline, and not begun with less
///    time left than the first-fit plan took.
/// 3. The heuristic's plan, abandoned at the deadline less the greedy
///    plan's time, and not begun with less than three times the greedy
///    plan's time left: its sorts and each stretch between its clock
///    readings cost up to about a greedy run (on tables without conflict
///    lists it is given the greedy plan, and makes it only if the greedy
///    was late).
///
/// Each step is skipped once a plan meets `peak`, the lower bound.
///
/// Errors: [`PlanError::OutOfMemory`]; [`PlanError::Overflow`] if an end
/// offset would pass `usize::MAX`.
fn capped_start(
    rounded: &[TensorLifetime],
    peak: usize,
    deadline: Instant,
    first: FirstFit,
) -> Result<(MemoryPlan, Duration, usize, usize), PlanError> {
    let began = Instant::now();
    // The direct plan reads the clock between its steps and every few
    // thousand tensors, but not within its sort by first use (none where
    // the table is in time order) nor while it touches fresh memory: not
    // begun with less time left than it is taken to cost and a stack, and
    // given up before the cap by two stacks' time (one for a step under
    // way, one for the stack that then follows).
    let direct_cost = if first.survey.in_time_order {
        first.ordering
    } else {
        first.stack.saturating_mul(DIRECT_OVER_PEAK_UNSORTED)
    };
    let left = deadline.saturating_duration_since(began);
    if left >= direct_cost.saturating_add(first.stack) {
        let direct_deadline = deadline
            .checked_sub(first.stack.saturating_mul(2))
            .unwrap_or(began);
        if let Some(plan) = heuristic::plan_at_peak(rounded, peak, Some(direct_deadline))? {
            return Ok((plan, began.elapsed(), 0, 0));
        }
    }
    let online_began = Instant::now();
    let FirstFit {
        survey,
        buffer,
        ordering,
        ..
    } = first;
    let online::Online {
        plan: mut best,
        left_out,
        stacked,
    } = online::plan_with(rounded, survey, buffer, ordering, Some(deadline))?;
    let greedy_began = Instant::now();
    let online_took = greedy_began.saturating_duration_since(online_began);
    // The greedy's set-up (validation, the placement order) reads no
    // clock; it costs less than the first-fit plan, which sorts the table
    // twice and sweeps it: not begun with less time left than that took.
    let left = deadline.saturating_duration_since(greedy_began);
    // A cut says time is short.
    if best.arena_size <= peak || left_out > 0 || left < online_took {
        return Ok((best, online_took, left_out, stacked));
    }
    let greedy = greedy::plan_until(rounded, Some(deadline))?;
    if let Some(plan) = &greedy {
        if plan.arena_size <= best.arena_size {
            best.clone_from(plan);
        }
    }
    let now = Instant::now();
    // The heuristic reads the clock in its set-up every few thousand
    // items, but not inside its sorts, nor within a stretch between its
    // placements' readings (an ordering's sort, a placement's set-up), each
    // of which costs up to about a greedy run. So it is begun only with
    // three greedy runs' time left, and given the cap less one greedy run
    // as its deadline, that the stretch it is in when that passes ends by
    // the cap.
    let greedy_took = now.saturating_duration_since(greedy_began);
    if best.arena_size <= peak || now >= deadline || deadline - now < greedy_took.saturating_mul(3)
    {
        return Ok((best, online_took, 0, 0));
    }
    let heuristic_deadline = Some(deadline - greedy_took);
    if let Some(plan) = heuristic::plan_knowing(rounded, peak, heuristic_deadline, greedy.as_ref())?
    {
        if plan.arena_size <= best.arena_size {
            best = plan;
        }
    }
    Ok((best, online_took, 0, 0))
}

/// What the online first-fit plan of a capped call is given: the table's
/// survey, the peak's table to write its offsets to, the least its
/// ordering passes are taken to cost, and the time a stack of every tensor
/// is taken to cost (one pass over the table, as the peak's).
struct FirstFit<'a> {
    survey: &'a Survey,
    buffer: Vec<usize>,
    ordering: Duration,
    stack: Duration,
}

/// What the direct plan at the peak is taken to cost on a table not in
/// time order, in peaks' time: a sort by first use, its keys and positions
/// in fresh memory, then its passes.
const DIRECT_OVER_PEAK_UNSORTED: u32 = 12;

/// The first-fit plan's time order writes eight words a tensor into fresh
/// memory and sorts, where the peak reads the table once and writes two
/// words a tensor: it is not begun with less time left than this many
/// times what the peak took, which a cap that short would cut anyway.
const ORDERING_OVER_PEAK: u32 = 4;

/// The heuristic's plan, or the greedy one if `deadline` passes before the
/// heuristic finishes a placement.
fn heuristic_or_greedy(
    rounded: &[TensorLifetime],
    peak: usize,
    deadline: Option<Instant>,
) -> Result<MemoryPlan, PlanError> {
    match heuristic::plan(rounded, peak, deadline)? {
        Some(plan) => Ok(plan),
        None => try_plan_offsets(rounded),
    }
}

/// The tensors with sizes rounded up to `alignment` (a power of two):
/// `tensors` itself when every size is a multiple of it already (always at
/// alignment 1), so that no copy is made.
fn round_sizes(
    tensors: &[TensorLifetime],
    alignment: usize,
) -> Result<Cow<'_, [TensorLifetime]>, PlanError> {
    if alignment == 1 || tensors.iter().all(|t| t.size & (alignment - 1) == 0) {
        return Ok(Cow::Borrowed(tensors));
    }
    let mut rounded = fallible::with_capacity(tensors.len())?;
    for (i, t) in tensors.iter().enumerate() {
        let size = round_up(t.size, alignment, i)?;
        rounded.push(TensorLifetime { size, ..*t });
    }
    Ok(Cow::Owned(rounded))
}

/// `size` rounded up to a multiple of `alignment` (a power of two), or an
/// overflow naming `tensor`.
pub(crate) fn round_up(size: usize, alignment: usize, tensor: usize) -> Result<usize, PlanError> {
    let mask = alignment - 1;
    Ok(size
        .checked_add(mask)
        .ok_or(PlanError::Overflow { tensor })?
        & !mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under a cap an hour away, the capped start plans a chain (one of
    /// the direct plan's two shapes) at its peak when the first-fit
    /// ordering is taken to cost nothing, and does not begin the direct
    /// plan when that ordering is taken to cost two hours: the first-fit
    /// plan, not begun either, stacks every tensor. Listed out of time
    /// order, the chain's direct plan is gated by the stack's cost instead.
    #[test]
    fn the_direct_plan_is_not_begun_with_less_time_left_than_the_ordering() {
        // Enough tensors for the first-fit plan to read its clock.
        let n = 5000;
        let tensors: Vec<TensorLifetime> = (0..n)
            .map(|i| TensorLifetime::new(64 * (1 + i % 7), i, i + 1))
            .collect();
        // The peak by brute force: the bytes live at each node.
        let mut live = vec![0usize; n + 1];
        for t in &tensors {
            for bytes in &mut live[t.first_use..=t.last_use] {
                *bytes += t.size;
            }
        }
        let peak = live.into_iter().max().unwrap();
        let hour = Duration::from_secs(3600);
        let deadline = Instant::now() + hour;
        let start = |tensors: &[TensorLifetime], ordering, stack| {
            let survey = Survey::of(tensors).unwrap();
            let first = FirstFit {
                survey: &survey,
                buffer: Vec::new(),
                ordering,
                stack,
            };
            capped_start(tensors, peak, deadline, first).unwrap()
        };
        let total: usize = tensors.iter().map(|t| t.size).sum();
        let (plan, _, _, stacked) = start(&tensors, Duration::ZERO, Duration::ZERO);
        assert_eq!((plan.arena_size, stacked), (peak, 0));
        let (plan, _, _, stacked) = start(&tensors, 2 * hour, Duration::ZERO);
        assert_eq!((plan.arena_size, stacked), (total, tensors.len()));
        // Out of time order the direct plan sorts first, taken to cost
        // DIRECT_OVER_PEAK_UNSORTED stacks, whatever the ordering is taken
        // to cost: stacks of no time leave it all the hour, stacks of ten
        // minutes no room in it (and the first-fit plan is not begun).
        let reversed: Vec<TensorLifetime> = tensors.iter().rev().copied().collect();
        let (plan, _, _, stacked) = start(&reversed, 2 * hour, Duration::ZERO);
        assert_eq!((plan.arena_size, stacked), (peak, 0));
        let ten_minutes = Duration::from_secs(600);
        let (plan, _, _, stacked) = start(&reversed, 2 * hour, ten_minutes);
        assert_eq!((plan.arena_size, stacked), (total, reversed.len()));
    }
}
