//! The types of offset planning's Rust API: the plan, the options and
//! the report of [`try_plan_offsets_with`](crate::try_plan_offsets_with),
//! and the search's budget and progress.

use std::time::Duration;

/// A plan: one offset per input tensor, in input order, and the arena size
/// `max_i (offsets[i] + size_i)` (0 when nothing is planned).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemoryPlan {
    /// Byte offset of each input tensor, in input order.
    pub offsets: Vec<usize>,
    /// Bytes the arena needs to hold every tensor at its offset.
    pub arena_size: usize,
}

/// Which planner [`try_plan_offsets_with`](crate::try_plan_offsets_with) runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The specification's greedy planner: best fit in decreasing size.
    #[default]
    Greedy,
    /// The best of several orderings and placement rules, then local
    /// improvement; nested lifetimes, and tables with at most two tensors
    /// live at once, are planned at the peak of live bytes directly
    /// (optimal). Deterministic; no search budget is used.
    Heuristic,
    /// Exact anytime branch and bound within [`PlanOptions::budget`], started
    /// from the better of the greedy and heuristic plans (under a time cap,
    /// the heuristic's direct plan where it applies, else the best of those
    /// made in time and an online first-fit plan; see
    /// [`SearchBudget::time`]).
    Search,
}

/// Options of [`try_plan_offsets_with`](crate::try_plan_offsets_with). The default is the greedy planner
/// without alignment, which returns exactly [`try_plan_offsets`](crate::try_plan_offsets).
///
/// The struct may gain fields: outside this crate, build it from the
/// default with the `with_` setters (or assign its fields one by one).
///
/// ```
/// use aether_planner::{PlanOptions, SearchBudget, Strategy};
/// let options = PlanOptions::default()
///     .with_alignment(64)
///     .with_strategy(Strategy::Search)
///     .with_budget(SearchBudget::nodes(20_000));
/// assert_eq!((options.alignment, options.budget.nodes), (64, Some(20_000)));
/// ```
#[non_exhaustive]
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
    /// [`PlanOptions::new`]: greedy, no alignment, the default budget.
    fn default() -> Self {
        PlanOptions::new()
    }
}

impl PlanOptions {
    /// The default options, in a `const` context: [`Strategy::Greedy`],
    /// alignment 1 and [`SearchBudget::new`].
    pub const fn new() -> Self {
        PlanOptions {
            alignment: 1,
            strategy: Strategy::Greedy,
            budget: SearchBudget::new(),
        }
    }

    /// These options with [`alignment`](Self::alignment) `alignment`
    /// (checked by the planner: a power of two).
    pub const fn with_alignment(self, alignment: usize) -> Self {
        PlanOptions { alignment, ..self }
    }

    /// These options with [`strategy`](Self::strategy) `strategy`.
    pub const fn with_strategy(self, strategy: Strategy) -> Self {
        PlanOptions { strategy, ..self }
    }

    /// These options with the search budget `budget`.
    pub const fn with_budget(self, budget: SearchBudget) -> Self {
        PlanOptions { budget, ..self }
    }
}

/// What [`try_plan_offsets_with`](crate::try_plan_offsets_with) found.
/// Made by the planners only; it may gain fields, so read the ones you need.
#[non_exhaustive]
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
    /// Tensors the plan stacks one above another, unplanned, because the
    /// search's time cap ran out before its first plan was complete: 0
    /// unless the strategy is [`Strategy::Search`] with a time cap too
    /// small for the table. The plan is sound either way, but then poor
    /// (up to the sum of the sizes): a cap that leaves room for the first
    /// plan avoids it.
    pub stacked_tensors: usize,
}

/// Limits of [`Strategy::Search`]. When one runs out the search returns the
/// best plan found so far. With only a node budget the result is the same on
/// every machine; a time limit, an optional cap, makes it depend on the
/// machine's speed once it is reached. The default is a node budget alone,
/// [`DEFAULT_SEARCH_NODES`], so that the default plan is reproducible; a
/// node costs more on larger problems (`O(d + m + S)`, see the module
/// documentation of the search), so at compiler scale add a time cap.
///
/// The struct may gain fields: outside this crate, build it with
/// [`SearchBudget::nodes`], [`SearchBudget::unlimited`] or the default and
/// the `with_` setters.
///
/// ```
/// use std::time::Duration;
/// use aether_planner::SearchBudget;
/// let capped = SearchBudget::nodes(50_000).with_time_cap(Duration::from_secs(5));
/// let time_only = SearchBudget::unlimited().with_time(Some(Duration::from_secs(5)));
/// assert_eq!((capped.nodes, time_only.nodes), (Some(50_000), None));
/// ```
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchBudget {
    /// Wall-clock cap of the whole call, or `None` for no cap. The cap is a
    /// promise kept at the plan's expense: when time runs short the call
    /// returns a sound plan, possibly a poor one, rather than overrun.
    ///
    /// With a cap, a table whose lifetimes are nested or that has at most
    /// two tensors live at once is planned at the peak of live bytes
    /// directly, as the heuristic does (a sort by first use and a pass,
    /// abandoned when the cap passes), and that optimal plan is returned.
    /// Otherwise the call first makes a sound plan in `O(n log n)`
    /// whatever the number of conflicting pairs (online first fit in time
    /// order), then the greedy plan, the heuristic's and the search, each
    /// abandoned when the cap passes and kept when no worse than the best so
    /// far. On tables of 4,096 planned tensors or more the first-fit plan
    /// does not begin ordering the table with less time left than four
    /// times what the peak of live bytes took, and otherwise
    /// reads the clock every 4,096 items, and once less time is left than
    /// finishing by a stack would take, it stacks the tensors not yet
    /// placed above those placed (every tensor in input order from 0 if the
    /// table was not yet ordered): sound, but the arena can then reach the
    /// sum of the rounded sizes (never cut when the sizes sum past
    /// `usize::MAX`). Nothing else is tried after such a cut. A cap too
    /// short for the greedy plan gives the first-fit plan, whole or cut
    /// short; a zero cap gives exactly the first-fit plan on tables of
    /// fewer than 4,096 planned tensors, and every planned tensor stacked
    /// in input order on larger ones. Either way
    /// [`PlanReport::lower_bound`] is the peak of live bytes,
    /// [`PlanReport::search_nodes`] is 0 and [`PlanReport::proven_optimal`]
    /// is false unless the arena meets the peak: the gap between the arena
    /// and the bound is what the cap may have cost, and
    /// [`PlanReport::stacked_tensors`] counts the tensors a cut first-fit
    /// plan left stacked.
    ///
    /// The least a capped call costs is one pass that checks and surveys
    /// the table, rounding, the peak (`O(n log n)`, reading no clock) and a
    /// stack written out (`O(n)`). The clock is read between the
    /// greedy's set-up steps and every 1,024 of its placements; between the
    /// search's set-up steps and every 4,096 items inside them; at least
    /// every 1,024 search placements (more often above 256 tensors); and
    /// every 256 heuristic placements. The greedy is not begun with less
    /// time left than the first-fit plan took; the heuristic is abandoned
    /// one greedy run's time before the cap and not begun with less than
    /// three such runs left; the search is not begun with less than ten
    /// times the first-fit plan's time left, and opens no decision, nor
    /// tries a placement, with less time left than the last opening, or
    /// the longest stretch between its clock readings, took. Without a cap
    /// none of this runs: the plan is the same on every machine.
    pub time: Option<Duration>,
    /// Limit on the number of search nodes (partial plans that passed the
    /// search's bounds), or `None` for no limit.
    pub nodes: Option<u64>,
}

impl Default for SearchBudget {
    /// [`DEFAULT_SEARCH_NODES`] nodes and no time cap: the same plan on every
    /// machine.
    fn default() -> Self {
        SearchBudget::new()
    }
}

impl SearchBudget {
    /// The default budget in a `const` context: [`DEFAULT_SEARCH_NODES`]
    /// nodes and no time cap.
    pub const fn new() -> Self {
        SearchBudget::nodes(DEFAULT_SEARCH_NODES)
    }

    /// No limit at all: the search runs until it has proven its plan
    /// optimal, which may take exponential time. Add a limit with
    /// [`with_nodes`](Self::with_nodes) or [`with_time`](Self::with_time).
    pub const fn unlimited() -> Self {
        SearchBudget {
            time: None,
            nodes: None,
        }
    }

    /// A node budget of `nodes` and no time cap: the same plan on every
    /// machine.
    pub const fn nodes(nodes: u64) -> Self {
        SearchBudget {
            time: None,
            nodes: Some(nodes),
        }
    }

    /// This budget with the wall-clock cap `time` (of the whole call).
    pub const fn with_time_cap(self, time: Duration) -> Self {
        self.with_time(Some(time))
    }

    /// This budget with the wall-clock cap [`time`](Self::time): `None`
    /// removes it.
    pub const fn with_time(self, time: Option<Duration>) -> Self {
        SearchBudget { time, ..self }
    }

    /// This budget with the node limit [`nodes`](Self::nodes): `None`
    /// removes it.
    pub const fn with_nodes(self, nodes: Option<u64>) -> Self {
        SearchBudget { nodes, ..self }
    }
}

/// What a search has reached, as given to the observer of
/// [`try_plan_offsets_observed`](crate::try_plan_offsets_observed): its
/// first state, then each time the incumbent or the lower bound improves.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchProgress {
    /// Search nodes visited so far.
    pub nodes: u64,
    /// Arena of the best plan found so far (the start plan's at first);
    /// `usize::MAX` while a constrained search knows no plan within its
    /// capacity.
    pub best_arena: usize,
    /// Proven lower bound on every sound arena, at most `best_arena`.
    pub lower_bound: usize,
}

/// The default node budget of a search: enough to end the search on the
/// MiniMalloc benchmark problems (most are proven optimal long before it).
pub const DEFAULT_SEARCH_NODES: u64 = 300_000;

/// A time cap for searches at compiler scale, long enough that the default
/// node budget is what ends a search on the MiniMalloc benchmark problems.
///
/// Not part of the default budget any more (which is
/// [`DEFAULT_SEARCH_NODES`] alone, so that the default plan is the same on
/// every machine); kept for callers that want the former cap:
/// `SearchBudget::default().with_time_cap(DEFAULT_SEARCH_TIME)`.
pub const DEFAULT_SEARCH_TIME: Duration = Duration::from_secs(60);
