//! The whole problem real planners state: per-tensor alignment, lifetime gaps
//! with windows, fixed offsets, hints, a capacity and in-place reuse.
//!
//! # Semantics
//!
//! Times are node indices and inclusive, as for [`TensorLifetime`]. A tensor
//! is *active* at every node of its lifetime outside its gaps. During a gap
//! with a window `(lo, hi)` it is active but occupies only the bytes
//! `[offset + lo, offset + hi)`; during a gap without one it occupies nothing.
//! Two tensors conflict when they are active at a common node. As in
//! MiniMalloc, a conflicting pair must keep one order over all the nodes
//! they share: one of them lies wholly above the other at every common node,
//! which is the same as asking `offset_b - offset_a` to stay outside one open
//! interval (`separation`).
//!
//! - Alignment: a tensor's offset is a multiple of the larger of its own
//!   alignment and the plan's; sizes are rounded up to the plan's alignment
//!   only, so the arena is `max (offset + rounded size)` over tensors with a
//!   size, windows or not.
//! - Fixed tensors keep their offsets; two fixed tensors that conflict, or a
//!   fixed offset that breaks an alignment, are errors naming the tensors.
//!   A fixed zero-size tensor occupies nothing and counts in no arena, but
//!   it keeps its offset, and ends there: like every tensor it must end
//!   within the capacity.
//! - Hints are suggestions: the greedy and the heuristic try a hinted offset
//!   first and keep it when it is free, aligned and ends within the
//!   capacity (or `usize::MAX`); any other hint is ignored.
//! - Reuse (tensor `b` reuses tensor `a`): `b` gets no memory of its own, it
//!   lives at `a`'s offset, its size may not exceed `a`'s, and the pair is
//!   planned as one block active whenever either is, occupying the hull of
//!   the bytes the active members occupy. Chains and several reusers of one
//!   tensor form one group. Only a tensor and the one it reuses may share
//!   bytes while both are active (the in-place handover); two other members
//!   of one group that would (two reusers of one tensor live together, say)
//!   make the problem [`PlanError::ConflictingFixedOffsets`] naming both:
//!   the reuse pins them to one offset.
//! - Capacity: every tensor ends at or below it. When no such plan is found
//!   the answer is [`PlanError::DoesNotFit`], never a larger arena; it says
//!   whether that is proven.
//! - Budget: with [`Strategy::Search`], `budget.time` bounds the whole call
//!   from its start. The greedy's plan is always completed; the heuristic's
//!   further orders, each search node and each propagation inside a node
//!   stop at the deadline, keeping the best plan found. A plain problem
//!   whose plan from [`try_plan_offsets_with`](super::try_plan_offsets_with) passes the capacity is not
//!   searched a second time: that search had the whole budget.
//!
//! The layout: `normalise` checks the problem and turns it into blocks with
//! piecewise windows and pairwise separations; `bound` is the lower bound;
//! `place` the greedy and the heuristic; `search` the exact search.
//!
//! # Cost
//!
//! Pairs of blocks whose time spans meet are counted from the sorted spans
//! in `O(n log n)`. While they are sparse every conflicting pair is listed
//! with its separation: `O(n + E)` memory, and a placement costs
//! `O(d log d)` for its `d` neighbours. Dense ones are not stored: a
//! *plain* block, one that occupies its whole size wherever it is active
//! (gaps without windows, or none; no reuse profile), finds the plain
//! blocks it meets from their spans and pieces, their separations from
//! the two sizes, and only the pairs with a block that is not plain (a
//! window, a reuse group's profile) are listed (`O(k n)` time and up to
//! `k n` entries for `k` such blocks: one window among 10^4 buffers live
//! together lists 10^4 pairs, not 5·10^7). A placement reads the union of
//! its conflicting plain blocks' byte ranges from the greedy's index of
//! placed ranges (from 512 blocks on; the greedy's cost per placement, a
//! few coalesced unions where many blocks conflict; a block with gaps is
//! an entry per piece, its union gathered piece by piece) or, on fewer
//! blocks, scans the placed blocks in offset order up to the first gap
//! that fits (`O(n)`), and adds its listed pairs. The lower bound's
//! fixed-block term visits each block's neighbours once. The heuristic's
//! placements after the greedy's read at most a constant times the ranges
//! the greedy's read from the index (an order that reads more is given
//! up), and its weights (the bytes a block conflicts with, `O(n log n)`
//! from the spans) skip their order where plain blocks with gaps would
//! cost more than 64 visits per block. The heuristic returns at once when
//! a plan meets the lower bound; a search node costs `O(n + E)` for its pair scan plus a
//! propagation bounded by `n` rounds, whatever the byte sizes.

mod bound;
mod normalise;
mod place;
mod search;
#[cfg(test)]
mod tests;

use std::time::Instant;

use super::{
    try_plan_offsets_observed, within_cap_rules, MemoryPlan, PlanOptions, PlanReport,
    SearchProgress, Strategy,
};
use crate::error::PlanError;
use crate::input::TensorLifetime;
use crate::sys::fallible;

/// A sub-range of a tensor's lifetime in which it is inactive, or, with a
/// window, active in only part of its bytes.
///
/// The struct may gain fields: outside this crate, build it with
/// [`LifetimeGap::new`] and [`LifetimeGap::with_window`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LifetimeGap {
    /// The tensor, by index.
    pub tensor: usize,
    /// First node of the gap.
    pub first: usize,
    /// Last node of the gap (inclusive).
    pub last: usize,
    /// During the gap the tensor occupies `[offset + lo, offset + hi)`, with
    /// `lo <= hi <= size`; `None`: nothing.
    pub window: Option<(usize, usize)>,
}

impl LifetimeGap {
    /// Tensor `tensor` is inactive from node `first` to node `last`
    /// (inclusive), occupying nothing.
    pub const fn new(tensor: usize, first: usize, last: usize) -> Self {
        LifetimeGap {
            tensor,
            first,
            last,
            window: None,
        }
    }

    /// This gap with the [`window`](Self::window) `window`: `Some((lo,
    /// hi))`, the tensor active in `[offset + lo, offset + hi)` during it
    /// (`lo <= hi <= size`, checked by the planner); `None`, in none of its
    /// bytes.
    pub const fn with_window(self, window: Option<(usize, usize)>) -> Self {
        LifetimeGap { window, ..self }
    }
}

/// Tensor `tensor` reuses the memory of tensor `reused` (an in-place
/// operator's output over its dying input): same offset, no allocation of
/// its own.
///
/// The struct may gain fields: outside this crate, build it with
/// [`Reuse::new`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reuse {
    /// The tensor that takes over the memory.
    pub tensor: usize,
    /// The tensor whose memory it takes; at least as large.
    pub reused: usize,
}

impl Reuse {
    /// Tensor `tensor` takes over the memory of tensor `reused`.
    pub const fn new(tensor: usize, reused: usize) -> Self {
        Reuse { tensor, reused }
    }
}

/// An offset-planning problem with every constraint. Each per-tensor slice
/// is empty (no constraint) or has one element per tensor.
///
/// The struct may gain constraints: outside this crate, build it with
/// [`PlanProblem::new`] and the `with_` setters (or assign its fields one
/// by one).
///
/// ```
/// use aether_planner::{PlanProblem, Reuse, TensorLifetime};
/// let tensors = [TensorLifetime::new(64, 0, 1), TensorLifetime::new(64, 1, 2)];
/// let reuses = [Reuse::new(1, 0)];
/// let problem = PlanProblem::new(&tensors).with_reuses(&reuses).with_capacity(Some(64));
/// assert_eq!(problem.reuses.len(), 1);
/// ```
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlanProblem<'a> {
    /// The tensors.
    pub tensors: &'a [TensorLifetime],
    /// Each tensor's alignment (a power of two; 1 for none).
    pub alignments: &'a [usize],
    /// Each tensor's fixed offset, or `None` for a free tensor.
    pub fixed_offsets: &'a [Option<usize>],
    /// Each tensor's suggested offset, or `None`.
    pub hints: &'a [Option<usize>],
    /// The gaps, in any order.
    pub gaps: &'a [LifetimeGap],
    /// The reuse pairs.
    pub reuses: &'a [Reuse],
    /// The arena may not pass this many bytes; `None`: no limit.
    pub capacity: Option<usize>,
}

impl<'a> PlanProblem<'a> {
    /// The problem of placing `tensors` with no constraint beyond their
    /// lifetimes.
    pub const fn new(tensors: &'a [TensorLifetime]) -> Self {
        PlanProblem {
            tensors,
            alignments: &[],
            fixed_offsets: &[],
            hints: &[],
            gaps: &[],
            reuses: &[],
            capacity: None,
        }
    }

    /// This problem with per-tensor [`alignments`](Self::alignments).
    pub const fn with_alignments(self, alignments: &'a [usize]) -> Self {
        PlanProblem { alignments, ..self }
    }

    /// This problem with per-tensor [`fixed_offsets`](Self::fixed_offsets).
    pub const fn with_fixed_offsets(self, fixed_offsets: &'a [Option<usize>]) -> Self {
        PlanProblem {
            fixed_offsets,
            ..self
        }
    }

    /// This problem with per-tensor [`hints`](Self::hints).
    pub const fn with_hints(self, hints: &'a [Option<usize>]) -> Self {
        PlanProblem { hints, ..self }
    }

    /// This problem with the lifetime [`gaps`](Self::gaps).
    pub const fn with_gaps(self, gaps: &'a [LifetimeGap]) -> Self {
        PlanProblem { gaps, ..self }
    }

    /// This problem with the [`reuses`](Self::reuses) pairs.
    pub const fn with_reuses(self, reuses: &'a [Reuse]) -> Self {
        PlanProblem { reuses, ..self }
    }

    /// This problem with the [`capacity`](Self::capacity) `capacity`
    /// (`None`: no limit).
    pub const fn with_capacity(self, capacity: Option<usize>) -> Self {
        PlanProblem { capacity, ..self }
    }

    /// Whether nothing beyond the lifetimes is asked for at the plan
    /// alignment `alignment`. A hint no planner could take (misaligned, or
    /// ending past the capacity or `usize::MAX`) asks for nothing: it is
    /// ignored, so it may not change which planner answers.
    fn is_plain(&self, alignment: usize) -> bool {
        let usable = |(t, hint): (usize, &Option<usize>)| {
            // An invalid plan alignment is refused whichever planner runs:
            // any hint then keeps the route a hint took before.
            hint.is_some_and(|h| {
                if !alignment.is_power_of_two() {
                    return true;
                }
                let size = self.tensors.get(t).map_or(0, |tensor| tensor.size);
                super::round_up(size, alignment, t).is_ok_and(|size| {
                    hint_can_be_taken(
                        h as i128,
                        alignment as i128,
                        size as i128,
                        self.capacity.map(|c| c as i128),
                    )
                })
            })
        };
        self.alignments.iter().all(|&a| a == 1)
            && self.fixed_offsets.iter().all(Option::is_none)
            && !self.hints.iter().enumerate().any(usable)
            && self.gaps.is_empty()
            && self.reuses.is_empty()
    }
}

/// Whether a hint at `hint` for a block of `size` bytes and alignment
/// `align` can be taken at all: aligned, and ending within `capacity` (or
/// `usize::MAX` when there is none). Any other hint is ignored.
pub(super) fn hint_can_be_taken(
    hint: i128,
    align: i128,
    size: i128,
    capacity: Option<i128>,
) -> bool {
    hint >= 0 && hint % align == 0 && hint + size <= capacity.unwrap_or(usize::MAX as i128)
}

/// Plans offsets honouring every constraint of `problem`, with the strategy,
/// plan alignment and budget of `options`.
///
/// With no constraint (and no capacity, or one the plain plan meets) this is
/// exactly [`try_plan_offsets_with`](super::try_plan_offsets_with). Every strategy honours every
/// constraint: [`Strategy::Greedy`] places fixed tensors, then the others in
/// decreasing size at their hint or lowest free offset; the heuristic keeps
/// the best of several orders; the search is an exact branch and bound over
/// the order of conflicting pairs, started from the heuristic's plan.
///
/// Errors: those of [`try_plan_offsets_with`](super::try_plan_offsets_with);
/// [`PlanError::ConstraintCount`], [`PlanError::InvalidTensorAlignment`],
/// [`PlanError::MisalignedFixedOffset`],
/// [`PlanError::ConflictingFixedOffsets`], [`PlanError::InvalidGap`],
/// [`PlanError::InvalidReuse`] naming the element at fault;
/// [`PlanError::ConflictingFixedOffsets`] also for two members of one reuse
/// group, neither reusing the other, that share bytes while active; and
/// [`PlanError::DoesNotFit`] when no plan within the capacity was found
/// (proven when the lower bound passes the capacity, a fixed tensor ends
/// past it, or the search exhausted every plan).
///
/// ```
/// use aether_planner::{try_plan_problem, LifetimeGap, PlanOptions, PlanProblem, TensorLifetime};
/// // Two buffers live together, except that the first pauses at nodes 1-2.
/// let tensors = [TensorLifetime::new(4, 0, 3), TensorLifetime::new(4, 1, 2)];
/// let gaps = [LifetimeGap::new(0, 1, 2)];
/// let problem = PlanProblem::new(&tensors).with_gaps(&gaps).with_capacity(Some(4));
/// let report = try_plan_problem(&problem, &PlanOptions::default()).unwrap();
/// assert_eq!(report.plan.offsets, vec![0, 0]);
/// ```
pub fn try_plan_problem(
    problem: &PlanProblem<'_>,
    options: &PlanOptions,
) -> Result<PlanReport, PlanError> {
    try_plan_problem_observed(problem, options, &mut |_| {})
}

/// [`try_plan_problem`], telling `observe` how a search progresses, for
/// progress displays on long runs: with [`Strategy::Search`], once when the
/// search begins (the starting plan's arena and the lower bound), then each
/// time it finds a better plan, and once more if it proves the best plan
/// optimal, the nodes visited so far included. While no plan within the
/// capacity is known, `best_arena` is `usize::MAX`. A problem without
/// constraints is observed as [`try_plan_offsets_observed`] observes it. Not
/// called when the starting plan meets the lower bound, nor by the other
/// strategies. The plan and report are exactly those of
/// [`try_plan_problem`].
///
/// Errors: those of [`try_plan_problem`]. Complexity: theirs, plus `O(1)`
/// per call of `observe` (at most one per search node, and two more).
///
/// ```
/// use aether_planner::{try_plan_problem_observed, PlanOptions, PlanProblem, Strategy, TensorLifetime};
/// let tensors: Vec<TensorLifetime> =
///     (0..30).map(|i| TensorLifetime::new(8 + (i * 37) % 90, i, i + 3)).collect();
/// let alignments: Vec<usize> = (0..30).map(|i| if i % 3 == 0 { 64 } else { 1 }).collect();
/// let problem = PlanProblem::new(&tensors).with_alignments(&alignments);
/// let mut options = PlanOptions::default();
/// options.strategy = Strategy::Search;
/// let mut seen = Vec::new();
/// let report = try_plan_problem_observed(&problem, &options, &mut |p| seen.push(*p)).unwrap();
/// if let Some(last) = seen.last() {
///     assert_eq!(last.best_arena, report.plan.arena_size);
/// }
/// ```
pub fn try_plan_problem_observed(
    problem: &PlanProblem<'_>,
    options: &PlanOptions,
    observe: &mut dyn FnMut(&SearchProgress),
) -> Result<PlanReport, PlanError> {
    let started = Instant::now();
    within_cap_rules(options, || {
        plan_problem_observed(problem, options, observe, started)
    })
}

/// [`try_plan_problem_observed`] of a call begun at `started`.
fn plan_problem_observed(
    problem: &PlanProblem<'_>,
    options: &PlanOptions,
    observe: &mut dyn FnMut(&SearchProgress),
    started: Instant,
) -> Result<PlanReport, PlanError> {
    // The time budget bounds the whole call, every phase included.
    let deadline = match options.strategy {
        Strategy::Search => options
            .budget
            .time
            .and_then(|limit| started.checked_add(limit)),
        _ => None,
    };
    normalise::check_counts(problem)?;
    if problem.is_plain(options.alignment) {
        let report = try_plan_offsets_observed(problem.tensors, options, observe)?;
        match problem.capacity {
            Some(capacity) if report.plan.arena_size > capacity => {
                // The plain planners ignore capacities; the constrained
                // heuristic may still find a plan that fits. The search has
                // spent its budget (or proven the minimum) already.
                if report.lower_bound > capacity || options.strategy != Strategy::Heuristic {
                    return Err(PlanError::DoesNotFit {
                        capacity,
                        lower_bound: report.lower_bound,
                        proven: report.lower_bound > capacity,
                    });
                }
            }
            _ => return Ok(report),
        }
    }
    let model = normalise::Model::new(problem, options.alignment)?;
    let lower_bound = bound::lower_bound(&model)?;
    let capacity = problem.capacity;
    let does_not_fit = |lower_bound: usize, proven: bool| PlanError::DoesNotFit {
        capacity: capacity.unwrap_or(usize::MAX),
        lower_bound,
        proven,
    };
    if capacity.is_some_and(|c| lower_bound > c) || model.fixed_past_capacity() {
        return Err(does_not_fit(lower_bound, true));
    }
    let (offsets, lower_bound, search_nodes, exhausted) = match options.strategy {
        Strategy::Greedy => (place::greedy(&model)?, lower_bound, 0, false),
        Strategy::Heuristic => (
            place::heuristic(&model, lower_bound, None)?,
            lower_bound,
            0,
            false,
        ),
        Strategy::Search => {
            let start = place::heuristic(&model, lower_bound, deadline)?;
            let outcome = search::improve(
                &model,
                start,
                lower_bound,
                &options.budget,
                deadline,
                observe,
            )?;
            let exhausted = outcome.exhausted;
            (
                outcome.offsets,
                outcome.lower_bound,
                outcome.nodes,
                exhausted,
            )
        }
    };
    let Some(offsets) = offsets else {
        return Err(does_not_fit(lower_bound, exhausted));
    };
    let plan = model.plan_of(&offsets)?;
    let lower_bound = lower_bound.min(plan.arena_size);
    Ok(PlanReport {
        proven_optimal: plan.arena_size == lower_bound,
        plan,
        lower_bound,
        search_nodes,
        // The constrained planner's time cap never leaves tensors stacked.
        stacked_tensors: 0,
    })
}

/// Appends `item` to `vec`, growing it fallibly: the planners' lists grow
/// with the input and must fail as [`PlanError::OutOfMemory`], not abort.
fn try_push<T>(vec: &mut Vec<T>, item: T) -> Result<(), PlanError> {
    try_room(vec, 1)?;
    vec.push(item);
    Ok(())
}

/// Makes room in `vec` for `more` further elements, fallibly.
fn try_room<T>(vec: &mut Vec<T>, more: usize) -> Result<(), PlanError> {
    vec.try_reserve(more).map_err(|_| PlanError::OutOfMemory {
        bytes: vec
            .len()
            .saturating_add(more)
            .saturating_mul(core::mem::size_of::<T>()),
    })
}

/// A fallible copy of `items`.
fn try_copy<T: Copy>(items: &[T]) -> Result<Vec<T>, PlanError> {
    fallible::collect(items.len(), items.iter().copied())
}

/// Rounds `value` up to a multiple of `alignment` (a power of two).
fn align_up(value: i128, alignment: i128) -> i128 {
    (value + alignment - 1) & !(alignment - 1)
}

impl normalise::Model {
    /// The plan for block offsets: each tensor at its block's offset.
    fn plan_of(&self, offsets: &[i128]) -> Result<MemoryPlan, PlanError> {
        let mut arena = 0i128;
        for (block, &offset) in self.blocks.iter().zip(offsets) {
            if block.size > 0 {
                arena = arena.max(offset + block.size);
            }
        }
        let arena_size = usize::try_from(arena).map_err(|_| PlanError::Overflow {
            tensor: self.first_member_past(offsets),
        })?;
        let tensor_offsets = fallible::collect(
            self.block_of.len(),
            self.block_of.iter().map(|&b| offsets[b] as usize),
        )?;
        Ok(MemoryPlan {
            offsets: tensor_offsets,
            arena_size,
        })
    }

    /// Whether a fixed block ends past the capacity. A fixed zero-size
    /// block ends at its offset, so it counts too.
    fn fixed_past_capacity(&self) -> bool {
        self.capacity.is_some_and(|c| {
            self.blocks
                .iter()
                .any(|b| b.fixed.is_some_and(|o| o + b.size > c))
        })
    }

    /// A tensor whose end passes `usize::MAX`.
    fn first_member_past(&self, offsets: &[i128]) -> usize {
        (0..self.block_of.len())
            .find(|&t| {
                let b = self.block_of[t];
                offsets[b] + self.blocks[b].size > usize::MAX as i128
            })
            .unwrap_or(0)
    }
}
