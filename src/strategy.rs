//! Plan options: alignment and the choice of strategy, and the one entry point
//! that dispatches to the greedy planner, the multi-heuristic planner or the
//! exact search.
//!
//! # Problem
//!
//! The offset problem of [`try_plan_offsets`] with an alignment `a` (a power
//! of two): every planned offset is a multiple of `a`, and the arena is
//! computed on sizes rounded up to `a`, `w'_i = ⌈w_i / a⌉ · a`. Planning the
//! rounded sizes is exactly this problem: every offset the planners produce is
//! 0 or the end of a placed rounded block, so it is a multiple of `a` by
//! induction.
//!
//! # Strategies
//!
//! - [`Strategy::Greedy`]: the specification's planner ([`try_plan_offsets`])
//!   on the rounded sizes. With alignment 1 its plan is exactly
//!   `try_plan_offsets(tensors)`.
//! - [`Strategy::Heuristic`]: several orderings and placement rules with a
//!   local improvement, keeping the best plan (see `heuristic.rs`).
//! - [`Strategy::Search`]: an anytime branch and bound for the minimum arena,
//!   started from the heuristic's plan (see `search.rs`).
//!
//! # What is exact
//!
//! Every plan is sound: lifetime-intersecting tensors never share a byte of
//! their rounded extents. [`PlanReport::lower_bound`] is a proven lower bound
//! on the arena of every sound aligned plan (at least the peak of live rounded
//! bytes); [`PlanReport::proven_optimal`] is true only when the arena equals
//! it. Zero-size tensors are not planned and get offset 0.

use std::time::Duration;

use crate::error::PlanError;
use crate::offsets::{try_peak_live_bytes, try_plan_offsets, MemoryPlan, TensorLifetime};
use crate::{heuristic, search};

/// Which planner [`try_plan_offsets_with`] runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The specification's greedy planner: best fit in decreasing size.
    #[default]
    Greedy,
    /// The best of several orderings and placement rules, then local
    /// improvement. Deterministic; no search budget is used.
    Heuristic,
    /// Exact anytime branch and bound within [`PlanOptions::budget`], started
    /// from the heuristic's plan.
    Search,
}

/// Limits of [`Strategy::Search`]. When one runs out the search returns the
/// best plan found so far. With only a node budget the result is the same on
/// every machine; a time budget makes it depend on the machine's speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchBudget {
    /// Wall-clock limit of the search, or `None` for no limit. It starts
    /// after the heuristic plan the search starts from, and the clock is read
    /// every 1,024 nodes.
    pub time: Option<Duration>,
    /// Limit on the number of search nodes (partial plans that passed the
    /// search's bounds), or `None` for no limit.
    pub nodes: Option<u64>,
}

impl Default for SearchBudget {
    /// 300,000 nodes and no time limit: deterministic; on the MiniMalloc
    /// benchmark problems (154 to 454 tensors) this proves 9 of 11 optimal and
    /// takes at most about 11 s on a 2-core machine.
    fn default() -> Self {
        SearchBudget {
            time: None,
            nodes: Some(300_000),
        }
    }
}

/// Options of [`try_plan_offsets_with`]. The default is the greedy planner
/// without alignment, which returns exactly [`try_plan_offsets`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlanOptions {
    /// Every planned offset is a multiple of this power of two, and the arena
    /// is computed on sizes rounded up to it. 1 means no alignment.
    pub alignment: usize,
    /// The planner to run.
    pub strategy: Strategy,
    /// Limits of [`Strategy::Search`]; ignored by the other strategies.
    pub budget: SearchBudget,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            alignment: 1,
            strategy: Strategy::Greedy,
            budget: SearchBudget::default(),
        }
    }
}

/// What [`try_plan_offsets_with`] found.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PlanReport {
    /// The plan: offsets (multiples of the alignment) and the arena computed
    /// on rounded sizes.
    pub plan: MemoryPlan,
    /// A proven lower bound on the arena of every sound plan at this
    /// alignment: at least the peak of live rounded bytes, at most
    /// `plan.arena_size`.
    pub lower_bound: usize,
    /// Whether `plan.arena_size == lower_bound`, so no smaller arena exists.
    pub proven_optimal: bool,
    /// Search nodes visited (0 unless the strategy is [`Strategy::Search`]).
    pub search_nodes: u64,
}

/// Plans offsets with the given alignment and strategy, or says why it cannot.
///
/// Errors: [`PlanError::InvalidAlignment`] if `options.alignment` is 0 or not
/// a power of two; [`PlanError::InvalidLifetime`] for the first tensor with
/// `first_use > last_use`; [`PlanError::Overflow`] naming a tensor whose size
/// rounded up to the alignment, or whose end offset, would pass `usize::MAX`;
/// [`PlanError::OutOfMemory`] if scratch memory cannot be had (the heuristic
/// and the search build conflict lists of up to `n²/2` pairs, and refuse
/// lists larger than half the memory the machine can back).
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
/// let options = PlanOptions { alignment: 64, strategy: Strategy::Search, ..PlanOptions::default() };
/// let report = try_plan_offsets_with(&tensors, &options).unwrap();
/// assert!(report.plan.offsets.iter().all(|offset| offset % 64 == 0));
/// assert_eq!(report.plan.arena_size, 256); // 128 + 128 live at node 1
/// assert!(report.proven_optimal);
/// ```
pub fn try_plan_offsets_with(
    tensors: &[TensorLifetime],
    options: &PlanOptions,
) -> Result<PlanReport, PlanError> {
    let alignment = options.alignment;
    if !alignment.is_power_of_two() {
        return Err(PlanError::InvalidAlignment { alignment });
    }
    if let Some(i) = tensors.iter().position(|t| t.first_use > t.last_use) {
        return Err(PlanError::InvalidLifetime {
            tensor: i,
            first_use: tensors[i].first_use,
            last_use: tensors[i].last_use,
        });
    }
    let rounded = round_sizes(tensors, alignment)?;
    let peak = try_peak_live_bytes(&rounded)?;

    let (plan, lower_bound, search_nodes) = match options.strategy {
        Strategy::Greedy => (try_plan_offsets(&rounded)?, peak, 0),
        Strategy::Heuristic => (heuristic::plan(&rounded)?, peak, 0),
        Strategy::Search => {
            let start = heuristic::plan(&rounded)?;
            let outcome = search::improve(&rounded, start, peak, &options.budget)?;
            (outcome.plan, outcome.lower_bound, outcome.nodes)
        }
    };
    Ok(PlanReport {
        proven_optimal: plan.arena_size == lower_bound,
        plan,
        lower_bound,
        search_nodes,
    })
}

/// The tensors with sizes rounded up to `alignment` (a power of two).
fn round_sizes(
    tensors: &[TensorLifetime],
    alignment: usize,
) -> Result<Vec<TensorLifetime>, PlanError> {
    let mask = alignment - 1;
    tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let size = t
                .size
                .checked_add(mask)
                .ok_or(PlanError::Overflow { tensor: i })?
                & !mask;
            Ok(TensorLifetime { size, ..*t })
        })
        .collect()
}
