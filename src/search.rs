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
//! Exponential in the worst case; bounded by the budget. A placement costs
//! `O(d + m + S)` to check: `d` conflicts of the placed tensor, `m` unplaced
//! tensors of the active component, visited in the floor order kept from the
//! node it was chosen in (only the placed tensor's conflicts changed floor,
//! all to the same height, so no sort is needed), and `S` sections, each
//! given its lowest floor once through a path-compressed forest. A placement
//! that passes costs `O(m log m)` more to sort its node's candidates.
//! Memory: the conflict lists, `O(n + E)` (counted first, and refused when
//! larger than half the memory the machine can back); a candidate list per
//! level of the depth-first stack, `O(n²)` at most but short in practice;
//! sorted keys for the top level, `O(n)`, and for the levels below it at
//! most [`STACK_KEYS`] in total (the others are rebuilt when returned to).

use std::time::Instant;

use crate::error::PlanError;
use crate::heuristic::{gcd, Conflicts, Sections};
use crate::offsets::{MemoryPlan, TensorLifetime};
use crate::strategy::SearchBudget;

/// The best plan the search found, and what it proved.
pub(crate) struct Outcome {
    /// Never worse than the starting plan.
    pub(crate) plan: MemoryPlan,
    /// A proven lower bound on every sound arena, at most the plan's arena.
    pub(crate) lower_bound: usize,
    /// Search nodes: partial plans that passed the bounds.
    pub(crate) nodes: u64,
}

/// How often the clock is read, in placements.
const CLOCK_PERIOD: u64 = 1024;

/// Keys the frames of the depth-first stack may hold in total (16 MiB):
/// past it, a frame that gets a child gives its keys up, so the stack's keys
/// stay within this bound plus one frame's.
const STACK_KEYS: usize = 1 << 20;

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
    /// Tensors that may be placed next, in (floor, rank) order.
    candidates: Vec<usize>,
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
    floor_log_len: usize,
    top_log_len: usize,
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
/// Errors: [`PlanError::OutOfMemory`] if the conflict lists cannot be had.
pub(crate) fn improve(
    tensors: &[TensorLifetime],
    start: MemoryPlan,
    peak: usize,
    budget: &SearchBudget,
) -> Result<Outcome, PlanError> {
    let mut search = Search::new(tensors, start, peak, budget)?;
    search.run();
    Ok(Outcome {
        lower_bound: search.lower_bound.min(search.best_arena),
        plan: MemoryPlan {
            offsets: search.best_offsets,
            arena_size: search.best_arena,
        },
        nodes: search.nodes,
    })
}

struct Search<'a> {
    tensors: &'a [TensorLifetime],
    conflicts: Conflicts,
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
    /// Greatest common divisor of the sizes: the step between arenas.
    step: usize,
    /// Proven: no plan has a smaller arena.
    lower_bound: usize,
    budget: SearchBudget,
    started: Instant,

    // Partial plan.
    offset: Vec<usize>,
    floor: Vec<usize>,
    /// Top of the last tensor placed in each section.
    section_top: Vec<usize>,
    /// Bytes of the unplaced tensors live in each section.
    section_unplaced: Vec<usize>,
    /// Unplaced tensors spanning the boundary after each section.
    spanning: Vec<usize>,
    placed_count: usize,
    arena: usize,
    floor_log: Vec<(usize, usize)>,
    top_log: Vec<(usize, usize)>,
    /// Scratch: the "next unpainted section" forest of `candidates`.
    next_unpainted: Vec<usize>,
    /// Scratch: the (floor, rank) keys of `candidates`.
    scratch: Vec<u128>,
    /// Scratch: the tensors whose floor a placement raised.
    raised: Vec<usize>,
    /// Keys held by the frames of the stack.
    stack_keys: usize,
    /// Tensors by first section, and where each section's run starts in it.
    by_start: Vec<usize>,
    starts_at: Vec<usize>,
    /// The tensor of each rank of the current preorder.
    by_rank: Vec<usize>,
    /// Number of unplaced conflicts of each tensor.
    unplaced_neighbours: Vec<usize>,

    // Incumbent.
    best_offsets: Vec<usize>,
    best_arena: usize,
    /// Partial plans that passed the bounds.
    nodes: u64,
    /// Placements tried (each is checked against the bounds).
    placements: u64,
}

impl<'a> Search<'a> {
    fn new(
        tensors: &'a [TensorLifetime],
        start: MemoryPlan,
        peak: usize,
        budget: &SearchBudget,
    ) -> Result<Self, PlanError> {
        let conflicts = Conflicts::new(tensors)?;
        let n = conflicts.items.len();
        let sizes: Vec<usize> = conflicts.items.iter().map(|&i| tensors[i].size).collect();
        let step = sizes.iter().fold(0, |g, &s| gcd(g, s)).max(1);

        let Sections {
            ranges: sections,
            count: section_count,
        } = Sections::new(tensors, &conflicts.items);
        let mut section_unplaced = vec![0usize; section_count];
        let mut spanning = vec![0usize; section_count];
        for (p, &(lo, hi)) in sections.iter().enumerate() {
            for bytes in &mut section_unplaced[lo..hi] {
                *bytes += sizes[p];
            }
            for count in &mut spanning[lo..hi - 1] {
                *count += 1;
            }
        }

        let length: Vec<u128> = conflicts
            .items
            .iter()
            .map(|&i| (tensors[i].last_use - tensors[i].first_use) as u128 + 1)
            .collect();
        let area: Vec<u128> = (0..n).map(|p| sizes[p] as u128 * length[p]).collect();

        let unplaced_neighbours = conflicts.neighbours.iter().map(Vec::len).collect();
        let mut by_start: Vec<usize> = (0..n).collect();
        by_start.sort_by_key(|&p| sections[p].0);
        let starts_at: Vec<usize> = (0..=section_count)
            .map(|s| by_start.partition_point(|&p| sections[p].0 < s))
            .collect();
        Ok(Search {
            tensors,
            preorder: 0,
            rank: vec![0; n],
            rank_log: Vec::new(),
            length,
            area,
            conflicts,
            sizes,
            sections,
            step,
            lower_bound: peak,
            budget: *budget,
            started: Instant::now(),
            offset: vec![UNPLACED; n],
            floor: vec![0; n],
            section_top: vec![0; section_count],
            section_unplaced,
            spanning,
            placed_count: 0,
            arena: 0,
            floor_log: Vec::new(),
            top_log: Vec::new(),
            next_unpainted: vec![0; section_count + 1],
            scratch: Vec::new(),
            raised: Vec::new(),
            stack_keys: 0,
            by_rank: vec![0; n + 1],
            by_start,
            starts_at,
            unplaced_neighbours,
            best_offsets: start.offsets,
            best_arena: start.arena_size,
            nodes: 0,
            placements: 0,
        })
    }

    /// Whether the whole budget is spent.
    fn out_of_budget(&self) -> bool {
        if self.budget.nodes.is_some_and(|limit| self.nodes >= limit) {
            return true;
        }
        match self.budget.time {
            Some(limit) => self.placements % CLOCK_PERIOD == 0 && self.started.elapsed() >= limit,
            None => false,
        }
    }

    /// Rounds of decisions with doubling node limits (see the module docs):
    /// the lower bound with each preorder, then halfway to the incumbent,
    /// then one step below it while that succeeds.
    fn run(&mut self) {
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
                        return;
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
                    match self.decide(cap, self.nodes.saturating_add(limit)) {
                        Decision::Found if matches!(target, Target::BelowBest) => continue,
                        Decision::Found | Decision::NodeLimit => break,
                        Decision::Infeasible => {
                            self.lower_bound = self.lower_bound.max(cap.saturating_add(self.step));
                            break;
                        }
                        Decision::Budget => return,
                    }
                }
            }
            limit = limit.saturating_mul(2);
        }
    }

    /// Depth-first search for a plan of arena at most `cap`, stopping at
    /// `node_limit` nodes in total. Leaves the partial plan empty.
    fn decide(&mut self, cap: usize, node_limit: u64) -> Decision {
        let Some(range) = self.leftmost_component() else {
            return Decision::Found; // nothing to place
        };
        for p in 0..self.rank.len() {
            self.rank[p] = p + 1;
            self.by_rank[p + 1] = p;
        }
        self.rerank((0, self.spanning.len()));
        self.rank_log.clear();
        let mut stack: Vec<Frame> = Vec::new();
        let Some((candidates, count)) = self.candidates(range, range, (0, 0), cap, false) else {
            return Decision::Infeasible;
        };
        self.stack_keys = self.scratch.len();
        stack.push(Frame {
            candidates,
            keys: std::mem::take(&mut self.scratch),
            scan: range,
            next: 0,
            placed: None,
            hatless: false,
            floor_log_len: 0,
            top_log_len: 0,
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
                if stack[k].hatless {
                    stack[k].next = stack[k].candidates.len();
                }
                let frame = &stack[k];
                let (floor_len, top_len, arena) =
                    (frame.floor_log_len, frame.top_log_len, frame.arena_before);
                self.unplace(p, floor_len, top_len, arena);
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
            if stack[k].keys.is_empty() && stack[k].count > 1 {
                // Returned to from a child after giving the keys up: the
                // partial plan is again as when they were first made.
                stack[k].keys = self.sorted_keys(stack[k].scan);
                self.stack_keys += stack[k].keys.len();
            }

            let frame = &mut stack[k];
            frame.placed = Some(p);
            frame.floor_log_len = self.floor_log.len();
            frame.top_log_len = self.top_log.len();
            frame.arena_before = self.arena;
            frame.hatless = self.unplaced_neighbours[p] == 0;
            let (active, active_count, owner) = (frame.range, frame.count, frame.owner);
            let split = self.place(p);

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
            if active_count > 1 {
                let keys = std::mem::take(&mut stack[k].keys);
                let passes = self.passes_bounds_after(&keys, active, p, cap);
                stack[k].keys = keys;
                if !passes {
                    continue;
                }
            }
            let child = if active_count > 1 {
                // The active component still has tensors: it continues as one
                // canonical sequence, or `p` cut it into fresh problems, which
                // are ranked anew. The bounds of the continuing sequence hold
                // in both cases.
                match self.candidates(active, next_range, after, cap, true) {
                    None => continue,
                    Some((candidates, count)) if !split => (candidates, count, owner, Some(k)),
                    Some(_) => {
                        self.rerank(active);
                        match self.candidates(active, next_range, (0, 0), cap, false) {
                            Some((candidates, count)) => (candidates, count, Some(k), Some(k)),
                            None => (Vec::new(), 0, Some(k), Some(k)),
                        }
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
                match self.candidates(next_range, next_range, (0, 0), cap, false) {
                    Some((candidates, count)) => (candidates, count, owner, owner),
                    None => (Vec::new(), 0, owner, owner),
                }
            };
            // Pushed even without candidates, so that a dead end resumes at
            // its fence.
            let (candidates, count, owner, fence) = child;
            self.nodes += 1;
            self.stack_keys += self.scratch.len();
            if self.stack_keys > STACK_KEYS {
                self.stack_keys -= stack[k].keys.len();
                stack[k].keys = Vec::new();
            }
            stack.push(Frame {
                candidates,
                keys: std::mem::take(&mut self.scratch),
                scan: if active_count > 1 { active } else { next_range },
                next: 0,
                placed: None,
                hatless: false,
                floor_log_len: 0,
                top_log_len: 0,
                arena_before: 0,
                rank_log_len,
                range: next_range,
                count,
                owner,
                fence,
            });
        };
        while let Some(frame) = stack.pop() {
            self.pop(frame);
        }
        decision
    }

    /// The section range of the leftmost group of unplaced tensors that no
    /// section boundary separates, if any tensor is unplaced.
    fn leftmost_component(&self) -> Option<(usize, usize)> {
        let lo = self.section_unplaced.iter().position(|&bytes| bytes > 0)?;
        let mut hi = lo + 1;
        while hi < self.spanning.len() && self.spanning[hi - 1] > 0 {
            hi += 1;
        }
        Some((lo, hi))
    }

    /// The candidates of the component with section range `component` that
    /// may follow `after` (offset, rank) in a canonical, undominated sequence,
    /// in (floor, rank) order, and the component's number of unplaced
    /// tensors. The section bounds are checked on every section of `scan`
    /// (which contains `component`); `monotone` adds the last offset
    /// (`after.0`) to them. `None` if a bound exceeds `cap` or a tensor
    /// behind `after` can never be placed.
    fn candidates(
        &mut self,
        scan: (usize, usize),
        component: (usize, usize),
        after: (usize, usize),
        cap: usize,
        monotone: bool,
    ) -> Option<(Vec<usize>, usize)> {
        let (scan_lo, scan_hi) = scan;
        let monotone_floor = if monotone { after.0 } else { 0 };
        // A cheap first pass of the section bounds: every unplaced tensor of
        // a section conflicts with the last tensor placed there, so it sits
        // above that tensor's top. Most placements fail here.
        if !self.fits_above_tops(scan, monotone_floor, cap) {
            return None;
        }
        let in_range = |(lo, _): (usize, usize), (a, b): (usize, usize)| a <= lo && lo < b;
        // Unplaced tensors of `scan` as packed (floor, rank) keys: sorting
        // plain integers is several times faster than sorting by lookups.
        let mut keys = std::mem::take(&mut self.scratch);
        keys.clear();
        let mut count = 0usize;
        let mut lowest_top = usize::MAX;
        // Only the tensors starting inside `scan` can belong to it.
        let starting = self.starts_at[scan_lo]..self.starts_at[scan_hi];
        for &q in &self.by_start[starting] {
            if self.offset[q] != UNPLACED {
                continue;
            }
            // A tensor behind the canonical sequence whose floor can no
            // longer rise can never be placed: a dead end.
            if self.unplaced_neighbours[q] == 0 && (self.floor[q], self.rank[q]) < after {
                self.scratch = keys;
                return None;
            }
            keys.push(self.key(q));
            if in_range(self.sections[q], component) {
                count += 1;
                lowest_top = lowest_top.min(self.floor[q].saturating_add(self.sizes[q]));
            }
        }
        keys.sort_unstable();
        // Lowest floor per section: paint the sections of the unplaced
        // tensors in increasing floor, each section once, skipping painted
        // ones through a path-compressed "next unpainted section" forest.
        self.unpaint(scan);
        for &key in &keys {
            let q = self.by_rank[key as u64 as usize];
            if !self.paint(q, self.floor[q], monotone_floor, cap) {
                self.scratch = keys;
                return None;
            }
        }
        let candidates: Vec<usize> = keys
            .iter()
            .map(|&key| self.by_rank[key as u64 as usize])
            .filter(|&q| {
                in_range(self.sections[q], component)
                    && (self.floor[q], self.rank[q]) > after
                    && self.floor[q] < lowest_top
            })
            .collect();
        self.scratch = keys;
        Some((candidates, count))
    }

    /// Whether every section of `(lo, hi)` holds its unplaced bytes above the
    /// top of its last placed tensor (and `monotone_floor`) within `cap`.
    fn fits_above_tops(&self, (lo, hi): (usize, usize), monotone_floor: usize, cap: usize) -> bool {
        (lo..hi).all(|s| {
            let bytes = self.section_unplaced[s];
            bytes == 0
                || self.section_top[s]
                    .max(monotone_floor)
                    .saturating_add(bytes)
                    <= cap
        })
    }

    /// `q`'s (floor, rank) as one integer, ordered as the pair.
    fn key(&self, q: usize) -> u128 {
        ((self.floor[q] as u128) << 64) | self.rank[q] as u128
    }

    /// The sorted (floor, rank) keys of the unplaced tensors of the sections
    /// `(lo, hi)`, as [`Search::candidates`] makes them.
    fn sorted_keys(&self, (lo, hi): (usize, usize)) -> Vec<u128> {
        let mut keys: Vec<u128> = self.by_start[self.starts_at[lo]..self.starts_at[hi]]
            .iter()
            .filter(|&&q| self.offset[q] == UNPLACED)
            .map(|&q| self.key(q))
            .collect();
        keys.sort_unstable();
        keys
    }

    /// The section bounds of the sequence continuing after `p` (just placed)
    /// in the component with section range `(lo, hi)`, checked with `keys`,
    /// the sorted keys of the frame `p` was chosen in. Only `p`'s conflicts
    /// changed floor since, all up to `p`'s top, so the floor order is
    /// known without sorting: the keys below that top, then the raised
    /// tensors, then the rest.
    fn passes_bounds_after(
        &mut self,
        keys: &[u128],
        (lo, hi): (usize, usize),
        p: usize,
        cap: usize,
    ) -> bool {
        let monotone_floor = self.offset[p];
        let top = monotone_floor + self.sizes[p];
        self.unpaint((lo, hi));
        let mut raised = std::mem::take(&mut self.raised);
        raised.clear();
        let mut passes = true;
        let mut flushed = false;
        for &key in keys {
            let q = self.by_rank[key as u64 as usize];
            let (q_lo, _) = self.sections[q];
            if self.offset[q] != UNPLACED || q_lo < lo || q_lo >= hi {
                continue;
            }
            let old_floor = (key >> 64) as usize;
            if !flushed && old_floor >= top {
                flushed = true;
                for &r in &raised {
                    passes &= self.paint(r, top, monotone_floor, cap);
                }
            }
            if self.floor[q] != old_floor {
                raised.push(q);
            } else {
                passes &= self.paint(q, old_floor, monotone_floor, cap);
            }
            if !passes {
                break;
            }
        }
        if passes && !flushed {
            for &r in &raised {
                passes &= self.paint(r, top, monotone_floor, cap);
            }
        }
        self.raised = raised;
        passes
    }

    /// Makes the sections `lo..hi` unpainted (and `hi` the sentinel).
    fn unpaint(&mut self, (lo, hi): (usize, usize)) {
        for s in lo..=hi {
            self.next_unpainted[s] = s;
        }
    }

    /// Paints the unpainted sections of `q` with `floor`, their lowest floor;
    /// false if one of them cannot hold its unplaced bytes above that floor
    /// (and `monotone_floor`) within `cap`.
    fn paint(&mut self, q: usize, floor: usize, monotone_floor: usize, cap: usize) -> bool {
        let (lo, hi) = self.sections[q];
        let base = floor.max(monotone_floor);
        let mut s = self.find_unpainted(lo);
        while s < hi {
            if base.saturating_add(self.section_unplaced[s]) > cap {
                return false;
            }
            self.next_unpainted[s] = s + 1;
            s = self.find_unpainted(s + 1);
        }
        true
    }

    /// The first unpainted section at or after `s` (sections end at a
    /// sentinel that is never painted).
    fn find_unpainted(&mut self, s: usize) -> usize {
        let mut root = s;
        while self.next_unpainted[root] != root {
            root = self.next_unpainted[root];
        }
        let mut at = s;
        while self.next_unpainted[at] != root {
            let next = self.next_unpainted[at];
            self.next_unpainted[at] = root;
            at = next;
        }
        root
    }

    /// Puts `p` at its floor and raises its unplaced conflicts' floors and
    /// its sections' tops, logging the old values. Returns whether `p` was
    /// the last unplaced tensor across one of the section boundaries it
    /// spans, which cuts its component.
    fn place(&mut self, p: usize) -> bool {
        let offset = self.floor[p];
        let end = offset + self.sizes[p];
        self.offset[p] = offset;
        self.placed_count += 1;
        self.arena = self.arena.max(end);
        for &q in &self.conflicts.neighbours[p] {
            self.unplaced_neighbours[q] -= 1;
            if self.offset[q] == UNPLACED && self.floor[q] < end {
                self.floor_log.push((q, self.floor[q]));
                self.floor[q] = end;
            }
        }
        let (lo, hi) = self.sections[p];
        for s in lo..hi {
            self.top_log.push((s, self.section_top[s]));
            self.section_top[s] = end;
            self.section_unplaced[s] -= self.sizes[p];
        }
        let mut cut = false;
        for count in &mut self.spanning[lo..hi - 1] {
            *count -= 1;
            cut |= *count == 0;
        }
        cut
    }

    /// Undoes a frame: its placement, then its re-ranking.
    fn pop(&mut self, frame: Frame) {
        self.stack_keys -= frame.keys.len();
        if let Some(q) = frame.placed {
            self.unplace(
                q,
                frame.floor_log_len,
                frame.top_log_len,
                frame.arena_before,
            );
        }
        for (q, old) in self.rank_log.drain(frame.rank_log_len..).rev() {
            self.rank[q] = old;
            self.by_rank[old] = q;
        }
    }

    /// The preorder key of `p` (compared decreasing): lifetime length, area
    /// and `total`, the unplaced bytes of `p`'s busiest section now, in the
    /// order of the current preorder.
    fn preorder_key(&self, p: usize) -> (u128, u128, u128) {
        let (lo, hi) = self.sections[p];
        let total = self.section_unplaced[lo..hi]
            .iter()
            .copied()
            .max()
            .unwrap_or(0) as u128;
        let (length, area) = (self.length[p], self.area[p]);
        match self.preorder {
            0 => (length, area, total),
            1 => (total, area, length),
            _ => (total, length, area),
        }
    }

    /// Ranks the unplaced tensors of the sections `range` by the current
    /// preorder with today's totals (ties by input order), reusing the ranks
    /// they hold so that ranks stay distinct; logs the old ranks.
    fn rerank(&mut self, (lo, hi): (usize, usize)) {
        let mut members: Vec<usize> = self.by_start[self.starts_at[lo]..self.starts_at[hi]]
            .iter()
            .copied()
            .filter(|&q| self.offset[q] == UNPLACED)
            .collect();
        let mut ranks: Vec<usize> = members.iter().map(|&q| self.rank[q]).collect();
        ranks.sort_unstable();
        members.sort_by_key(|&q| (std::cmp::Reverse(self.preorder_key(q)), q));
        for (&q, &r) in members.iter().zip(&ranks) {
            if self.rank[q] != r {
                self.rank_log.push((q, self.rank[q]));
                self.rank[q] = r;
                self.by_rank[r] = q;
            }
        }
    }

    fn unplace(&mut self, p: usize, floor_len: usize, top_len: usize, arena: usize) {
        for &q in &self.conflicts.neighbours[p] {
            self.unplaced_neighbours[q] += 1;
        }
        for (q, old) in self.floor_log.drain(floor_len..).rev() {
            self.floor[q] = old;
        }
        for (s, old) in self.top_log.drain(top_len..).rev() {
            self.section_top[s] = old;
        }
        let (lo, hi) = self.sections[p];
        for bytes in &mut self.section_unplaced[lo..hi] {
            *bytes += self.sizes[p];
        }
        for count in &mut self.spanning[lo..hi - 1] {
            *count += 1;
        }
        self.offset[p] = UNPLACED;
        self.placed_count -= 1;
        self.arena = arena;
    }

    /// Keeps the complete plan as the new incumbent.
    fn record(&mut self) {
        self.best_arena = self.arena;
        self.best_offsets = vec![0; self.tensors.len()];
        for (p, &i) in self.conflicts.items.iter().enumerate() {
            self.best_offsets[i] = self.offset[p];
        }
    }
}
