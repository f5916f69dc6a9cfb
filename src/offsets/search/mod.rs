//! Exact anytime search for the minimum arena: depth-first search over
//! canonical plans with section bounds, dominance and decomposition, after
//! the ideas of MiniMalloc (M. D. Moffitt, ASPLOS 2023).
//!
//! # Problem
//!
//! Tensors with sizes `w_i > 0` (already rounded to the alignment) and
//! inclusive lifetimes `[f_i, l_i]`: find offsets with lifetime-intersecting
//! tensors byte-disjoint that minimise the arena `max_i (o_i + w_i)`. This is
//! dynamic storage allocation, NP-complete, so the search may run out of its
//! budget; it then returns the best plan found so far.
//!
//! # Decisions
//!
//! The search answers "is there a plan with arena at most `C`?" for a
//! sequence of capacities `C`. Every offset of a canonical plan (below) is a
//! sum of sizes, so the optimum is a multiple of `g`, the greatest common
//! divisor of the sizes, and a "no" at `C` proves the bound `C + g`. A "yes"
//! is a new incumbent. Each decision stops at a node limit, which doubles from
//! round to round; a round asks
//!
//! 1. at the lower bound, once with each of three preorders of the tensors
//!    (all decreasing: lifetime length, area, total; total, area, length;
//!    total, length, area; *total* is the unplaced bytes of the tensor's
//!    busiest section), as restarts, since which preorder finds a plan
//!    quickly differs from problem to problem;
//! 2. halfway between the lower bound and the incumbent, with one preorder
//!    in turn;
//! 3. one step below the incumbent, with the same preorder, again after each
//!    success.
//!
//! A *node* is a partial plan that passed the bounds below; each costs the
//! placements tried from it, most of which fail a bound.
//!
//! # Canonical plans
//!
//! Among the plans of arena at most `C`, take one that minimises the sum of
//! offsets. In it no tensor can move to any lower free position, so each
//! tensor rests on a conflicting tensor or on 0. Listing the tensors by
//! (offset, rank in a preorder), each one's offset is its *floor* (the top
//! of its conflicting predecessors), whatever the preorder. A decision
//! therefore only builds such sequences: each step places an unplaced tensor
//! at its floor, and the (offset, rank) pairs increase.
//!
//! # Pruning (each rule keeps some minimum-offset-sum plan of arena `≤ C`)
//!
//! - *Sections*: the timeline splits into sections between consecutive
//!   lifetime endpoints. The unplaced tensors live in a section pairwise
//!   conflict and will all sit above the lowest of their floors (and, within
//!   one canonical sequence, above the last offset), so that height plus their
//!   bytes must stay within `C`.
//! - *Dominance*: a tensor is not placed at or above the lowest
//!   `floor + size` of an unplaced tensor: that tensor would stay clear of
//!   everything placed later and could drop to its floor, lowering the sum.
//! - *Decomposition*: when no unplaced tensor spans a section boundary, the
//!   unplaced tensors on either side are independent problems. When a
//!   placement cuts its component so, the pieces are solved one after the
//!   other, each as its own canonical sequence with its tensors ranked anew
//!   by the preorder (the totals have changed), and a failure of a later
//!   piece backtracks past the earlier ones' choices. Re-ranking matters:
//!   with ranks fixed at the start, files of the MiniMalloc benchmark that
//!   are solved in thousands of nodes are not solved in millions.
//! - *Fixed floors*: a tensor with no unplaced conflicts has a final floor.
//!   Once the sequence has passed it, it can never be placed (a dead end);
//!   and if the subtree under it fails, so does every later choice at the
//!   same step, which would all pass it.
//!
//! # What is exact
//!
//! A plan returned with `lower_bound == arena` is optimal, and every lower
//! bound returned is proven (the peak of live bytes, or a capacity shown
//! infeasible plus `g`). The result depends only on the input and the node
//! budget, unless a time budget is set.
//!
//! # Complexity
//!
//! Exponential in the worst case; bounded by the budget. A placement that
//! breaks the bound of the section that failed last is refused first, from
//! the tensors live there alone (at a tight section most placements fail
//! so). Otherwise it costs `O(d + m + S)` to check: `d` conflicts of the
//! placed tensor, found without lists (`overlaps`, a segment tree of section
//! ranges, `O(d + log S)`), `m` unplaced tensors of the active component,
//! visited in the floor order kept from the node it was chosen in (only the
//! placed tensor's conflicts changed floor, all to the same height, so the
//! new order is a merge), and `S` sections, each given its lowest floor once
//! through a path-compressed forest until every section that could fail has
//! one. Taking a placement back recomputes the floors it raised from a tree
//! of placed tops (`tops`, `O(log S)` each), so nothing `O(E)` is logged;
//! `E`, the conflicting pairs, grows towards `n²` at compiler scale.
//! Memory: `O(n log S)` for the trees, `O(n + S)` for the partial plan;
//! sorted keys for the top level, `O(n)`, and for the levels below it at
//! most [`STACK_KEYS`] in total, and candidate lists of at most
//! [`STACK_CANDIDATES`] in total beyond the top frame's (the others are
//! rebuilt when returned to).

mod bounds;
#[cfg(all(test, target_os = "linux"))]
mod ladder;
mod overlaps;
mod placement;
mod tops;

use std::time::{Duration, Instant};

use super::conflicts::{lifetime_length, size_unit, Degrees, Sections};
use super::{MemoryPlan, SearchBudget, SearchProgress, TensorLifetime};
use crate::error::PlanError;
use crate::sys::fallible;
use bounds::Span;
use overlaps::Overlaps;
use tops::Tops;

/// The best plan the search found, and what it proved.
pub(crate) struct Outcome {
    /// Never worse than the starting plan.
    pub(crate) plan: MemoryPlan,
    /// A proven lower bound on every sound arena, at most the plan's arena.
    pub(crate) lower_bound: usize,
    /// Search nodes: partial plans that passed the bounds.
    pub(crate) nodes: u64,
}

/// Whether the time cap `deadline`, if any, has passed.
fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// How often the clock is read, in placements, at most.
const CLOCK_PERIOD: u64 = 1024;

/// How often the set-up reads the clock, in items of its loops.
const SETUP_CLOCK_PERIOD: u32 = 4096;

/// The set-up's reading of an optional deadline: once every
/// [`SETUP_CLOCK_PERIOD`] calls of [`Clock::late`], never without one.
pub(super) struct Clock {
    deadline: Option<Instant>,
    ticks: u32,
}

impl Clock {
    pub(super) fn new(deadline: Option<Instant>) -> Self {
        Clock { deadline, ticks: 0 }
    }

    /// Whether the deadline has passed, by the last reading of the clock.
    pub(super) fn late(&mut self) -> bool {
        if self.deadline.is_none() {
            return false;
        }
        self.ticks += 1;
        if self.ticks < SETUP_CLOCK_PERIOD {
            return false;
        }
        self.ticks = 0;
        past(self.deadline)
    }
}

/// Keys the frames of the depth-first stack may hold in total (8 MiB):
/// past it, a frame that gets a child gives its keys up, so the stack's keys
/// stay within this bound plus one frame's.
const STACK_KEYS: usize = 1 << 19;

/// Candidates the frames of the stack may hold in total (4 MiB), likewise:
/// at compiler scale thousands of frames deep hold thousands each.
const STACK_CANDIDATES: usize = 1 << 19;

/// Number of preorders the decisions take turns with.
const PREORDERS: usize = 3;

/// Unplaced marker in `offset`.
const UNPLACED: usize = usize::MAX;

/// The capacity a decision asks about.
#[derive(Clone, Copy)]
enum Target {
    LowerBound,
    Halfway,
    BelowBest,
}

/// How a decision ended.
enum Decision {
    /// A plan with arena at most the capacity was found and recorded.
    Found,
    /// No plan has an arena at most the capacity.
    Infeasible,
    /// The decision's own node limit was reached.
    NodeLimit,
    /// The caller's budget was spent.
    Budget,
}

/// One choice point of a decision: which tensor of the active component to
/// place next.
struct Frame {
    /// Tensors that may be placed next, in (floor, rank) order; given up
    /// past [`STACK_CANDIDATES`] while the frame has a child, and rebuilt
    /// from `after` when returned to.
    candidates: Vec<usize>,
    dropped: bool,
    /// The (offset, rank) the candidates follow, and whether the section
    /// bounds count it (a continuing canonical sequence).
    after: (usize, usize),
    monotone: bool,
    /// The (floor, rank) keys of the unplaced tensors of `scan`, sorted: the
    /// order in which a placement's bounds are checked without sorting
    /// again. The top frame always has them; frames below it keep theirs
    /// while the stack holds at most [`STACK_KEYS`] keys, else give them up
    /// and rebuild them from `scan` when returned to.
    keys: Vec<u128>,
    /// The sections whose unplaced tensors `keys` lists.
    scan: (usize, usize),
    next: usize,
    /// The candidate currently placed, if any.
    placed: Option<usize>,
    /// Whether it conflicts with no unplaced tensor. Its offset is then
    /// final, every later candidate would leave it behind the canonical
    /// sequence for good, so if it fails the frame fails.
    hatless: bool,
    /// Length of the tops' log before the placement.
    tops_log_len: usize,
    arena_before: usize,
    /// Length of the rank log before this frame re-ranked its component.
    rank_log_len: usize,
    /// Section range of the active component, and its unplaced tensors.
    range: (usize, usize),
    count: usize,
    /// The frame whose placement split off the component this one works in
    /// (`None`: the input's own components).
    owner: Option<usize>,
    /// Where to resume when this frame runs out of candidates (`None`: the
    /// decision is infeasible).
    fence: Option<usize>,
}

/// Searches for plans of `tensors` (sizes rounded, lifetimes validated)
/// smaller than `start`, a sound plan, within `budget`. `peak` is the peak of
/// live bytes.
///
/// `observe` is called with the starting state once the search begins, then
/// whenever the incumbent or the bound improves (between decisions: `O(1)`
/// each, at most one per decision).
///
/// Errors: [`PlanError::OutOfMemory`] if its working memory cannot be had.
pub(crate) fn improve(
    tensors: &[TensorLifetime],
    start: MemoryPlan,
    peak: usize,
    budget: &SearchBudget,
    deadline: Option<Instant>,
    observe: &mut dyn FnMut(&SearchProgress),
) -> Result<Outcome, PlanError> {
    // Nothing to improve, or no time left: no trees are built. The set-up
    // steps are `O(n log n)` each, checked against the cap one by one.
    let unchanged = |start: MemoryPlan| Outcome {
        lower_bound: peak.min(start.arena_size),
        plan: start,
        nodes: 0,
    };
    if start.arena_size <= peak || past(deadline) {
        return Ok(unchanged(start));
    }
    let set_up_began = Instant::now();
    // Under a cap the count reads the clock as it goes.
    let degrees = match deadline {
        None => Degrees::new(tensors)?,
        Some(_) => match Degrees::new_until(tensors, deadline)? {
            Some(degrees) => degrees,
            None => return Ok(unchanged(start)),
        },
    };
    if past(deadline) {
        return Ok(unchanged(start));
    }
    let mut search = match Search::new(tensors, degrees, start, peak, budget, deadline)? {
        Ok(search) => search,
        Err(start) => return Ok(unchanged(start)),
    };
    // A decision's ranking and first candidates read no clock: until one
    // has been timed, they are taken to cost twice what the set-up did.
    // The set-up sorts the table five times, the opening only twice, but
    // by keys of several words, and it builds and scans more per tensor:
    // on a million-buffer sliding window the opening cost more than the
    // set-up, and a decision begun with the set-up's time left passed the
    // cap before it found anything.
    search.opening = set_up_began.elapsed().saturating_mul(OPENING_OVER_SET_UP);
    search.run(observe)?;
    Ok(Outcome {
        lower_bound: search.lower_bound.min(search.best_arena),
        plan: MemoryPlan {
            offsets: search.best_offsets,
            arena_size: search.best_arena,
        },
        nodes: search.nodes,
    })
}

/// What the first decision's opening is taken to cost, in set-ups.
const OPENING_OVER_SET_UP: u32 = 2;

struct Search {
    /// Input index of each planned (non-zero) tensor.
    items: Vec<usize>,
    /// Who overlaps whom, for the placements' floors.
    overlaps: Overlaps,
    sizes: Vec<usize>,
    /// The preorder of the current decision (an index into
    /// [`Search::preorder_key`]).
    preorder: usize,
    /// Rank of each tensor in the preorder of its component, from 1 (0 is
    /// "none yet").
    rank: Vec<usize>,
    /// Old ranks, restored when the frame that re-ranked is popped.
    rank_log: Vec<(usize, usize)>,
    /// Lifetime length and area of each tensor, for the preorders.
    length: Vec<u128>,
    area: Vec<u128>,
    /// Section range `lo..hi` of each tensor.
    sections: Vec<(usize, usize)>,
    /// The same ranges with the sizes, packed for the bounds' scans.
    spans: Vec<Span>,
    /// Whether the last placement raised each tensor's floor, and which.
    lifted: Vec<bool>,
    lifted_list: Vec<usize>,
    /// Greatest common divisor of the sizes: the step between arenas.
    step: usize,
    /// Proven: no plan has a smaller arena.
    lower_bound: usize,
    budget: SearchBudget,
    /// When the caller's time budget runs out, if it has one.
    deadline: Option<Instant>,
    /// Placements between clock reads: fewer on larger problems, whose
    /// placements cost more.
    clock_period: u64,
    /// What the last decision's opening (ranking and first candidates,
    /// which read no clock) took: under a time cap a decision is not begun
    /// with less time left.
    opening: Duration,
    /// The last reading of the clock between placements in this decision,
    /// and the longest time between two such readings: on large components
    /// one placement's bounds and candidates cost `O(n)`, so the search
    /// stops once less than that is left (at least half an opening, which
    /// the first stretch after it is taken to cost).
    last_reading: Option<Instant>,
    stretch: Duration,
    /// The section whose bound failed last: checked first, since the same
    /// tight section tends to fail again and again.
    hot: Option<usize>,

    // Partial plan.
    offset: Vec<usize>,
    floor: Vec<usize>,
    /// Tops of the placed tensors over the sections.
    tops: Tops,
    /// Bytes of the unplaced tensors live in each section.
    section_unplaced: Vec<usize>,
    /// Unplaced tensors spanning the boundary after each section.
    spanning: Vec<usize>,
    placed_count: usize,
    arena: usize,
    /// Scratch: the "next unpainted section" forest of `candidates`.
    next_unpainted: Vec<u32>,
    /// Scratch of the paint: sections with more unplaced bytes than `slack`
    /// are tight, and `tight` of them are still unpainted.
    slack: usize,
    tight: usize,
    /// Scratch: the (floor, rank) keys of `candidates`.
    scratch: Vec<u128>,
    /// Scratch: the tensors whose floor a placement raised.
    raised: Vec<usize>,
    /// Scratch: their keys and the keys they merge into.
    merged: Vec<u128>,
    /// Keys and candidates held by the frames of the stack.
    stack_keys: usize,
    stack_candidates: usize,
    /// [`STACK_KEYS`] and [`STACK_CANDIDATES`] (tests lower them).
    stack_limits: (usize, usize),
    /// Tensors by first section, and where each section's run starts in it.
    by_start: Vec<usize>,
    starts_at: Vec<usize>,
    /// Number of unplaced conflicts of each tensor.
    unplaced_neighbours: Vec<usize>,
    /// `section_unplaced`, `spanning` and `unplaced_neighbours` of the empty
    /// plan, for [`Search::reset`].
    empty: (Vec<usize>, Vec<usize>, Vec<usize>),

    // Incumbent.
    best_offsets: Vec<usize>,
    best_arena: usize,
    /// Partial plans that passed the bounds.
    nodes: u64,
    /// Placements tried (each is checked against the bounds).
    placements: u64,
}

impl Search {
    /// The search's state for the empty plan, or `start` back if
    /// `deadline` passes first: the set-up is `O(n log n + S)`, and the clock is read
    /// between its steps and every [`SETUP_CLOCK_PERIOD`] items inside them
    /// (the sorts excepted). Errors: [`PlanError::OutOfMemory`].
    fn new(
        tensors: &[TensorLifetime],
        degrees: Degrees,
        start: MemoryPlan,
        peak: usize,
        budget: &SearchBudget,
        deadline: Option<Instant>,
    ) -> Result<Result<Self, MemoryPlan>, PlanError> {
        let Degrees { items, degree, .. } = degrees;
        let n = items.len();
        let sizes: Vec<usize> = fallible::collect(n, items.iter().map(|&i| tensors[i].size))?;
        let step = size_unit(&sizes);
        if past(deadline) {
            return Ok(Err(start));
        }

        let Sections {
            ranges: sections,
            count: section_count,
        } = match deadline {
            None => Sections::new(tensors, &items)?,
            Some(_) => match Sections::new_until(tensors, &items, deadline)? {
                Some(sections) => sections,
                None => return Ok(Err(start)),
            },
        };
        if past(deadline) {
            return Ok(Err(start));
        }
        let mut clock = Clock::new(deadline);
        let Some(overlaps) = Overlaps::new(&sections, section_count, &mut clock)? else {
            return Ok(Err(start));
        };
        let spans: Vec<Span> = fallible::collect(
            n,
            sections.iter().zip(&sizes).map(|(&(lo, hi), &size)| Span {
                lo: lo as u32,
                hi: hi as u32,
                size,
            }),
        )?;
        if past(deadline) {
            return Ok(Err(start));
        }
        // Each tensor's bytes over its sections, and its count over the
        // boundaries inside its range, as differences summed once: `O(n + S)`
        // where adding range by range costs the sum of the ranges' lengths,
        // `O(n S)` when long lifetimes span most sections. Wrapping, since
        // only the differences may pass `usize::MAX`: every sum is the bytes
        // live in one section, at most the peak.
        let mut section_unplaced = fallible::filled(section_count + 1, 0usize)?;
        let mut spanning = fallible::filled(section_count + 1, 0usize)?;
        for (p, &(lo, hi)) in sections.iter().enumerate() {
            if clock.late() {
                return Ok(Err(start));
            }
            section_unplaced[lo] = section_unplaced[lo].wrapping_add(sizes[p]);
            section_unplaced[hi] = section_unplaced[hi].wrapping_sub(sizes[p]);
            spanning[lo] = spanning[lo].wrapping_add(1);
            spanning[hi - 1] = spanning[hi - 1].wrapping_sub(1);
        }
        section_unplaced.pop();
        spanning.pop();
        let (mut bytes, mut count) = (0usize, 0usize);
        for (b, c) in section_unplaced.iter_mut().zip(spanning.iter_mut()) {
            bytes = bytes.wrapping_add(*b);
            count = count.wrapping_add(*c);
            (*b, *c) = (bytes, count);
        }
        if past(deadline) {
            return Ok(Err(start));
        }

        let length: Vec<u128> =
            fallible::collect(n, items.iter().map(|&i| lifetime_length(&tensors[i])))?;
        let area: Vec<u128> = fallible::collect(n, (0..n).map(|p| sizes[p] as u128 * length[p]))?;

        let empty = (
            fallible::collect(section_count, section_unplaced.iter().copied())?,
            fallible::collect(section_count, spanning.iter().copied())?,
            fallible::collect(n, degree.iter().copied())?,
        );
        let unplaced_neighbours = degree;
        if past(deadline) {
            return Ok(Err(start));
        }
        let mut by_start: Vec<usize> = fallible::collect(n, 0..n)?;
        // Unstable, which needs no scratch, with ties by position: the
        // order a stable sort gives.
        by_start.sort_unstable_by_key(|&p| (sections[p].0, p));
        if past(deadline) {
            return Ok(Err(start));
        }
        let starts_at: Vec<usize> = fallible::collect(
            section_count + 1,
            (0..=section_count).map(|s| by_start.partition_point(|&p| sections[p].0 < s)),
        )?;
        if past(deadline) {
            return Ok(Err(start));
        }
        Ok(Ok(Search {
            preorder: 0,
            rank: fallible::filled(n, 0)?,
            rank_log: fallible::with_capacity(n)?,
            length,
            area,
            items,
            overlaps,
            sizes,
            spans,
            lifted: fallible::filled(n, false)?,
            lifted_list: fallible::with_capacity(n)?,
            sections,
            step,
            lower_bound: peak,
            budget: *budget,
            deadline,
            clock_period: ((CLOCK_PERIOD << 8) / n.max(1) as u64).clamp(1, CLOCK_PERIOD),
            opening: Duration::ZERO,
            last_reading: None,
            stretch: Duration::ZERO,
            hot: None,
            offset: fallible::filled(n, UNPLACED)?,
            floor: fallible::filled(n, 0)?,
            tops: Tops::new(section_count)?,
            section_unplaced,
            spanning,
            placed_count: 0,
            arena: 0,
            next_unpainted: fallible::filled(section_count + 1, 0)?,
            slack: usize::MAX,
            tight: 0,
            scratch: fallible::with_capacity(n)?,
            raised: fallible::with_capacity(n)?,
            merged: fallible::with_capacity(n)?,
            stack_keys: 0,
            stack_candidates: 0,
            stack_limits: (STACK_KEYS, STACK_CANDIDATES),
            by_start,
            starts_at,
            unplaced_neighbours,
            empty,
            best_offsets: start.offsets,
            best_arena: start.arena_size,
            nodes: 0,
            placements: 0,
        }))
    }

    /// The search's state for its observer.
    fn progress(&self) -> SearchProgress {
        SearchProgress {
            nodes: self.nodes,
            best_arena: self.best_arena,
            lower_bound: self.lower_bound.min(self.best_arena),
        }
    }

    /// Whether the whole budget is spent, or so nearly that the stretch of
    /// placements up to the next reading of the clock, were it as long as
    /// the longest so far, would end past the cap.
    fn out_of_budget(&mut self) -> bool {
        if self.budget.nodes.is_some_and(|limit| self.nodes >= limit) {
            return true;
        }
        let Some(deadline) = self.deadline.filter(|_| self.budget.time.is_some()) else {
            return false;
        };
        if self.placements % self.clock_period != 0 {
            return false;
        }
        let now = Instant::now();
        if let Some(last) = self.last_reading {
            self.stretch = self.stretch.max(now.saturating_duration_since(last));
        }
        self.last_reading = Some(now);
        deadline.saturating_duration_since(now) <= self.stretch
    }

    /// Rounds of decisions with doubling node limits (see the module docs):
    /// the lower bound with each preorder, then halfway to the incumbent,
    /// then one step below it while that succeeds. Errors:
    /// [`PlanError::OutOfMemory`] (the incumbent stays sound).
    fn run(&mut self, observe: &mut dyn FnMut(&SearchProgress)) -> Result<(), PlanError> {
        let mut reported = (self.best_arena, self.lower_bound);
        observe(&self.progress());
        let mut limit = (self.sizes.len() as u64).max(64) * 2;
        for round in 0usize.. {
            // Every preorder at the lower bound; then, with one preorder in
            // turn, halfway between the lower bound and the incumbent, and
            // just below the incumbent for as long as that succeeds.
            let decisions = (0..PREORDERS)
                .map(|preorder| (Target::LowerBound, preorder))
                .chain([
                    (Target::Halfway, round % PREORDERS),
                    (Target::BelowBest, round % PREORDERS),
                ]);
            for (target, preorder) in decisions {
                loop {
                    if self.best_arena <= self.lower_bound {
                        return Ok(());
                    }
                    let below_best = self.best_arena.saturating_sub(self.step);
                    let gap = below_best.saturating_sub(self.lower_bound);
                    let cap = match target {
                        Target::LowerBound => self.lower_bound.min(below_best),
                        Target::Halfway if gap / 2 >= self.step => {
                            self.lower_bound + gap / 2 / self.step * self.step
                        }
                        Target::BelowBest if gap > 0 => below_best,
                        _ => break,
                    };
                    self.preorder = preorder;
                    let decision = self.decide(cap, self.nodes.saturating_add(limit))?;
                    if matches!(decision, Decision::Infeasible) {
                        self.lower_bound = self.lower_bound.max(cap.saturating_add(self.step));
                    }
                    if (self.best_arena, self.lower_bound) != reported {
                        reported = (self.best_arena, self.lower_bound);
                        observe(&self.progress());
                    }
                    match decision {
                        Decision::Found if matches!(target, Target::BelowBest) => continue,
                        Decision::Found | Decision::NodeLimit => break,
                        Decision::Infeasible => break,
                        Decision::Budget => return Ok(()),
                    }
                }
            }
            limit = limit.saturating_mul(2);
        }
        Ok(())
    }

    /// Depth-first search for a plan of arena at most `cap`, stopping at
    /// `node_limit` nodes in total. Leaves the partial plan empty, unless the
    /// budget is spent. Errors: [`PlanError::OutOfMemory`], which leaves the
    /// partial plan unusable (the incumbent is untouched).
    fn decide(&mut self, cap: usize, node_limit: u64) -> Result<Decision, PlanError> {
        let Some(range) = self.leftmost_component() else {
            return Ok(Decision::Found); // nothing to place
        };
        // Ranking and the first candidates cost `O(n log n)` and read no
        // clock: not begun with less time left than the last such opening
        // took, nor continued past the cap.
        let opening_began = Instant::now();
        if let Some(deadline) = self.deadline {
            if deadline.saturating_duration_since(opening_began) <= self.opening {
                return Ok(Decision::Budget);
            }
        }
        for p in 0..self.rank.len() {
            self.rank[p] = p + 1;
        }
        self.rerank((0, self.spanning.len()))?;
        self.rank_log.clear();
        if past(self.deadline) {
            return Ok(Decision::Budget);
        }
        let mut stack: Vec<Frame> = Vec::new();
        let Some((candidates, count)) = self.candidates(range, range, (0, 0), cap, false)? else {
            self.opening = opening_began.elapsed();
            return Ok(Decision::Infeasible);
        };
        let opened = Instant::now();
        self.opening = opened.saturating_duration_since(opening_began);
        self.last_reading = Some(opened);
        // The first stretch, a placement and the next frame's candidates
        // over what remains of the component, is not timed before it
        // runs: it is taken to cost half the opening, which made the
        // first candidates over all of it.
        self.stretch = self.stretch.max(self.opening / 2);
        if past(self.deadline) {
            return Ok(Decision::Budget);
        }
        self.stack_keys = self.scratch.len();
        self.stack_candidates = candidates.len();
        fallible::reserve(&mut stack, 1)?;
        stack.push(Frame {
            candidates,
            dropped: false,
            after: (0, 0),
            monotone: false,
            keys: std::mem::take(&mut self.scratch),
            scan: range,
            next: 0,
            placed: None,
            hatless: false,
            tops_log_len: 0,
            arena_before: 0,
            rank_log_len: 0,
            range,
            count,
            owner: None,
            fence: None,
        });

        let decision = loop {
            let Some(k) = stack.len().checked_sub(1) else {
                break Decision::Infeasible;
            };
            if let Some(p) = stack[k].placed.take() {
                let frame = &stack[k];
                let (tops_len, arena) = (frame.tops_log_len, frame.arena_before);
                self.unplace(p, tops_len, arena);
                if stack[k].dropped {
                    self.restore_candidates(&mut stack[k], cap)?;
                }
                if stack[k].hatless {
                    stack[k].next = stack[k].candidates.len();
                }
            }
            let Some(&p) = stack[k].candidates.get(stack[k].next) else {
                // Out of candidates: resume at the fence, undoing the
                // completed components in between.
                let fence = stack[k].fence;
                let keep = fence.map_or(0, |f| f + 1);
                while stack.len() > keep {
                    let frame = stack.pop().expect("length checked");
                    self.pop(frame);
                }
                continue;
            };
            stack[k].next += 1;
            if self.floor[p].saturating_add(self.sizes[p]) > cap {
                continue;
            }
            if self.out_of_budget() {
                break Decision::Budget;
            }
            if self.nodes >= node_limit {
                break Decision::NodeLimit;
            }
            self.placements += 1;
            if stack[k].count > 1 && self.fails_at_hot_section(p, stack[k].range, cap) {
                // Refused as the bounds after placing it would refuse it.
                if self.unplaced_neighbours[p] == 0 {
                    stack[k].next = stack[k].candidates.len();
                }
                continue;
            }
            if stack[k].keys.is_empty() && stack[k].count > 1 {
                // Returned to from a child after giving the keys up: the
                // partial plan is again as when they were first made.
                stack[k].keys = self.sorted_keys(stack[k].scan)?;
                self.stack_keys += stack[k].keys.len();
            }

            let frame = &mut stack[k];
            frame.placed = Some(p);
            frame.tops_log_len = self.tops.log_len();
            frame.arena_before = self.arena;
            frame.hatless = self.unplaced_neighbours[p] == 0;
            let (active, active_count, owner) = (frame.range, frame.count, frame.owner);
            let split = self.place(p)?;

            if self.placed_count == self.sizes.len() {
                self.nodes += 1;
                self.record();
                break Decision::Found;
            }
            let Some(next_range) = self.leftmost_component() else {
                continue;
            };
            let after = (self.offset[p], self.rank[p]);
            let rank_log_len = self.rank_log.len();
            let mut continuation = (0, 0);
            if active_count > 1 {
                let keys = std::mem::take(&mut stack[k].keys);
                let passes = self.passes_bounds_after(&keys, active, next_range, p, cap);
                stack[k].keys = keys;
                let passes = passes?;
                match passes {
                    Some(found) => continuation = found,
                    None => continue,
                }
            }
            let child = if active_count > 1 {
                // The active component still has tensors: it continues as one
                // canonical sequence, or `p` cut it into fresh problems, which
                // are ranked anew. The bounds of the continuing sequence hold
                // in both cases.
                let (count, lowest_top) = continuation;
                if !split {
                    let candidates = self.continuing_candidates(next_range, after, lowest_top)?;
                    (candidates, count, owner, Some(k), after, true)
                } else {
                    self.rerank(active)?;
                    match self.candidates(active, next_range, (0, 0), cap, false)? {
                        Some((candidates, count)) => {
                            (candidates, count, Some(k), Some(k), (0, 0), false)
                        }
                        None => (Vec::new(), 0, Some(k), Some(k), (0, 0), false),
                    }
                }
            } else {
                // The active component is complete: the next one is a sibling
                // under the nearest owner whose component contains it.
                let mut owner = owner;
                while let Some(o) = owner {
                    let (lo, hi) = stack[o].range;
                    if lo <= next_range.0 && next_range.1 <= hi {
                        break;
                    }
                    owner = stack[o].owner;
                }
                match self.candidates(next_range, next_range, (0, 0), cap, false)? {
                    Some((candidates, count)) => (candidates, count, owner, owner, (0, 0), false),
                    None => (Vec::new(), 0, owner, owner, (0, 0), false),
                }
            };
            // Pushed even without candidates, so that a dead end resumes at
            // its fence.
            let (candidates, count, owner, fence, after, monotone) = child;
            self.nodes += 1;
            self.stack_keys += self.scratch.len();
            if self.stack_keys > self.stack_limits.0 {
                self.stack_keys -= stack[k].keys.len();
                stack[k].keys = Vec::new();
            }
            self.stack_candidates += candidates.len();
            if self.stack_candidates > self.stack_limits.1 && !stack[k].dropped {
                self.stack_candidates -= stack[k].candidates.len();
                stack[k].candidates = Vec::new();
                stack[k].dropped = true;
            }
            fallible::push(
                &mut stack,
                Frame {
                    candidates,
                    dropped: false,
                    after,
                    monotone,
                    keys: std::mem::take(&mut self.scratch),
                    scan: if active_count > 1 { active } else { next_range },
                    next: 0,
                    placed: None,
                    hatless: false,
                    tops_log_len: 0,
                    arena_before: 0,
                    rank_log_len,
                    range: next_range,
                    count,
                    owner,
                    fence,
                },
            )?;
        };
        if matches!(decision, Decision::Budget) {
            // The search ends here: resetting would only spend time past the
            // budget.
            return Ok(decision);
        }
        // Back to the empty plan at once: popping a deep stack frame by
        // frame recomputes floors all the way down.
        drop(stack);
        self.reset();
        Ok(decision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offsets::{try_peak_live_bytes, try_plan_offsets};
    use std::time::Duration;

    /// Under a cap an hour away, a search told that a decision's opening,
    /// or a stretch between its clock readings, takes two hours places
    /// nothing and keeps the starting plan; told nothing, it searches. No
    /// clock reading decides it: the cap is never near.
    #[test]
    fn no_decision_nor_placement_is_begun_with_less_time_left_than_it_took() {
        let mut rng = crate::rng::XorShift(0x2545_F491_4F6C_DD1D);
        let mut searched = 0;
        for _ in 0..40 {
            let tensors = crate::rng::small_table(&mut rng);
            let peak = try_peak_live_bytes(&tensors).unwrap();
            let start = try_plan_offsets(&tensors).unwrap();
            if start.arena_size <= peak {
                continue;
            }
            let hour = Duration::from_secs(3600);
            let budget = SearchBudget {
                time: Some(hour),
                nodes: Some(2_000),
            };
            let deadline = Some(Instant::now() + hour);
            let run = |opening: Duration, stretch: Duration| {
                let degrees = Degrees::new(&tensors).unwrap();
                let start = start.clone();
                let mut search =
                    match Search::new(&tensors, degrees, start, peak, &budget, deadline).unwrap() {
                        Ok(search) => search,
                        Err(_) => unreachable!("the cap is an hour away"),
                    };
                (search.opening, search.stretch) = (opening, stretch);
                search.run(&mut |_| {}).unwrap();
                (search.nodes, search.best_arena, search.best_offsets)
            };
            let long = 2 * hour;
            for (opening, stretch) in [(long, Duration::ZERO), (Duration::ZERO, long)] {
                let (nodes, arena, offsets) = run(opening, stretch);
                assert_eq!(nodes, 0, "{tensors:?}");
                assert_eq!((arena, &offsets), (start.arena_size, &start.offsets));
            }
            searched += usize::from(run(Duration::ZERO, Duration::ZERO).0 > 0);
        }
        assert!(searched > 10, "{searched} searches");
    }
}
