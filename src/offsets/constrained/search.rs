//! The exact search of the constrained problem: branch and bound over the
//! order of conflicting pairs.
//!
//! A node fixes, for some conflicting pairs, which block lies above; that is
//! a system of difference constraints `o_b >= align_up(o_c + w)` whose least
//! aligned solution `L` (fixed blocks pinned, everything else pushed up only
//! as far as needed) is kept by propagation. Every plan that keeps those
//! orders lies pointwise at or above `L`, so `L`'s arena bounds the subtree.
//! If `L` keeps every pair apart it is the subtree's best plan; otherwise a
//! pair that `L` overlaps is branched on, both ways, which loses no plan.
//! Windows may make a separation zero or negative, which is why the search
//! branches on pairs rather than on an order of offsets. Exhausting the tree
//! proves the best plan optimal, or proves that nothing fits the capacity.
//!
//! Propagation is first in, first out; a block queued more than `n` times
//! in one propagation shows a cycle of orders that raises its blocks on
//! every lap, which no plan keeps, so the node dies there. One propagation
//! thus costs `O(n · e)` for `e` orders fixed, whatever the byte sizes,
//! and keeps one trail entry per block raised. The budget is read before
//! every node and every 4,096 queue pops inside a propagation.

use std::time::Instant;

use super::normalise::{Model, Neighbour};
use super::{align_up, try_copy, try_push};
use crate::error::PlanError;
use crate::offsets::{SearchBudget, SearchProgress};
use crate::sys::fallible;

pub(super) struct Outcome {
    /// The best plan: the start, or better. `None`: none within capacity.
    pub(super) offsets: Option<Vec<i128>>,
    /// A proven lower bound on every plan (the best arena when exhausted).
    pub(super) lower_bound: usize,
    pub(super) nodes: u64,
    /// Whether every plan was considered.
    pub(super) exhausted: bool,
}

/// One order of a pair: `(lower, upper, separation)`.
type Branch = (usize, usize, i128);

struct Frame {
    /// `(lower, upper, separation)` of the two orders still to try.
    branches: [Branch; 2],
    tried: usize,
    trail: usize,
    edges: usize,
}

/// How a propagation ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Propagation {
    /// The least solution is restored and fits.
    Done,
    /// No plan keeps these orders: a fixed block or the limit is passed, or
    /// the orders raise one another without end.
    Dead,
    /// The deadline passed first.
    Stopped,
    /// A block was queued more than `n` times and blocks of different
    /// alignments may be on the cycle raising it, which can still settle
    /// (see [`State::raise`]): the node is dropped, and the search can no
    /// longer claim to have seen every plan.
    Unknown,
}

struct State<'m> {
    model: &'m Model,
    at: Vec<i128>,
    /// Edges `(upper, separation)` out of each block: `o_upper >= o_b + w`.
    out: Vec<Vec<(usize, i128)>>,
    edge_log: Vec<usize>,
    trail: Vec<(usize, i128)>,
    /// Every block must end strictly below this.
    limit: i128,
    /// The blocks to propagate from, first in first out: `queue[head..]`,
    /// each at most once (`queued`).
    queue: Vec<usize>,
    head: usize,
    queued: Vec<bool>,
    /// Per block, the propagation (`epoch`) in which it was last raised and
    /// how often it was queued in it.
    stamp: Vec<(u64, usize)>,
    epoch: u64,
    deadline: Option<Instant>,
    /// Whether this propagation queued a block more than `n` times.
    endless: bool,
    /// Whether every block has one alignment.
    uniform: bool,
}

/// Queue pops between two readings of the clock inside one propagation.
const CLOCK_EVERY: usize = 4096;

impl State<'_> {
    fn end(&self, b: usize) -> i128 {
        self.at[b] + self.model.blocks[b].size
    }

    /// Raises block `b` to at least `value`; false if that breaks a fixed
    /// offset or the limit, or `b` was queued more often than there are
    /// blocks in this propagation.
    ///
    /// Every raise is by at least one byte, so without that count the work
    /// of a propagation could grow with the limit in bytes. First in, first
    /// out, a block is queued at most once per round. When every block has
    /// one alignment `a`, all offsets stay multiples of `a` and a lap of a
    /// cycle adds the same amount each time, so `n` rounds reach the least
    /// solution if one exists and a block queued more often is on a cycle
    /// that raises without end: no plan keeps these orders. With mixed
    /// alignments a lap's gain depends on the offsets and may fall to zero
    /// later, so the count only stops the work ([`Propagation::Unknown`]).
    fn raise(&mut self, b: usize, value: i128) -> Result<bool, PlanError> {
        let block = &self.model.blocks[b];
        let value = align_up(value, block.align);
        if value <= self.at[b] {
            return Ok(true);
        }
        if block.fixed.is_some() || value + block.size >= self.limit && block.size > 0 {
            return Ok(false);
        }
        let epoch = self.epoch;
        if self.stamp[b].0 != epoch {
            // The first raise in this propagation keeps the old offset;
            // later ones need no record, as undoing restores the first.
            try_push(&mut self.trail, (b, self.at[b]))?;
            self.stamp[b] = (epoch, 0);
        }
        self.at[b] = value;
        if !self.queued[b] {
            self.stamp[b].1 += 1;
            if self.stamp[b].1 > self.model.blocks.len() {
                self.endless = true;
                return Ok(false);
            }
            self.queued[b] = true;
            try_push(&mut self.queue, b)?;
        }
        Ok(true)
    }

    /// Adds `o_upper >= o_lower + w` and restores the least solution.
    fn order(&mut self, lower: usize, upper: usize, w: i128) -> Result<Propagation, PlanError> {
        try_push(&mut self.out[lower], (upper, w))?;
        try_push(&mut self.edge_log, lower)?;
        self.epoch += 1;
        self.endless = false;
        let mut outcome = self.propagate(lower, upper, w);
        if self.endless && !self.uniform {
            outcome = Ok(Propagation::Unknown);
        }
        // Leave the queue empty whatever happened.
        for &b in &self.queue[self.head..] {
            self.queued[b] = false;
        }
        self.queue.clear();
        self.head = 0;
        outcome
    }

    fn propagate(&mut self, lower: usize, upper: usize, w: i128) -> Result<Propagation, PlanError> {
        if !self.raise(upper, self.at[lower] + w)? {
            return Ok(Propagation::Dead);
        }
        let mut pops = 0usize;
        while self.head < self.queue.len() {
            let b = self.queue[self.head];
            self.head += 1;
            self.queued[b] = false;
            // The queue holds each block at most once: compact it when
            // half of it is spent, so it never passes `2n` entries.
            if self.head > self.model.blocks.len() {
                self.queue.drain(..self.head);
                self.head = 0;
            }
            pops += 1;
            if pops % CLOCK_EVERY == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(Propagation::Stopped);
            }
            for k in 0..self.out[b].len() {
                let (c, w) = self.out[b][k];
                if !self.raise(c, self.at[b] + w)? {
                    return Ok(Propagation::Dead);
                }
            }
        }
        Ok(Propagation::Done)
    }

    fn undo(&mut self, trail: usize, edges: usize) {
        while self.trail.len() > trail {
            let (b, old) = self.trail.pop().unwrap();
            self.at[b] = old;
        }
        while self.edge_log.len() > edges {
            let b = self.edge_log.pop().unwrap();
            self.out[b].pop();
        }
    }

    /// The overlapping pair of largest total size, as its two branches
    /// (the block now higher stays above first), or `None` if `L` is a plan.
    ///
    /// Time `O(n + E)`: the listed pairs, or without lists the plain
    /// blocks in start order (`by_start`), each with those starting before
    /// its end (and `O(p)` for `p` pieces of two with gaps whose spans
    /// meet).
    fn violated(&self, by_start: &[usize]) -> Option<[Branch; 2]> {
        let model = self.model;
        let blocks = &model.blocks;
        let mut best: Option<(i128, [Branch; 2])> = None;
        let mut consider = |b: usize, nb: &Neighbour| {
            let c = nb.other;
            if Model::apart(nb, self.at[b], self.at[c]) {
                return;
            }
            let weight = blocks[b].size + blocks[c].size;
            if best.as_ref().is_some_and(|(w, _)| *w >= weight) {
                return;
            }
            let c_above = (b, c, nb.up);
            let b_above = (c, b, nb.down);
            let branches = if self.at[c] >= self.at[b] {
                [c_above, b_above]
            } else {
                [b_above, c_above]
            };
            best = Some((weight, branches));
        };
        match &model.neighbours {
            Some(lists) => {
                for (b, list) in lists.iter().enumerate() {
                    for nb in list.iter().filter(|nb| nb.other > b) {
                        consider(b, nb);
                    }
                }
            }
            None => {
                // The listed pairs (a block that is not plain), then the
                // plain pairs from the spans and pieces.
                for (b, list) in model.irregular.iter().enumerate() {
                    for nb in list.iter().filter(|nb| nb.other > b) {
                        consider(b, nb);
                    }
                }
                for (k, &b) in by_start.iter().enumerate() {
                    let end = model.span(b).1;
                    for &c in by_start[k + 1..]
                        .iter()
                        .take_while(|&&c| model.span(c).0 < end)
                    {
                        // Visited in block order, as the lists are.
                        let (lo, hi) = (b.min(c), b.max(c));
                        if model.plain_meet(lo, hi) {
                            consider(lo, &model.plain_neighbour(lo, hi));
                        }
                    }
                }
            }
        }
        best.map(|(_, branches)| branches)
    }
}

/// The arena of block offsets `at`: the highest end of a block with bytes.
pub(super) fn arena_of(model: &Model, at: &[i128]) -> i128 {
    model
        .blocks
        .iter()
        .zip(at)
        .filter(|(b, _)| b.size > 0)
        .map(|(b, &o)| o + b.size)
        .max()
        .unwrap_or(0)
}

pub(super) fn improve(
    model: &Model,
    start: Option<Vec<i128>>,
    lower_bound: usize,
    budget: &SearchBudget,
    deadline: Option<Instant>,
    observe: &mut dyn FnMut(&SearchProgress),
) -> Result<Outcome, PlanError> {
    let n = model.blocks.len();
    let mut best_arena = start.as_ref().map(|at| arena_of(model, at));
    let mut best = start;
    let capacity_limit = model.capacity.map_or(i128::MAX, |c| c + 1);
    let limit = best_arena.map_or(capacity_limit, |a| a.min(capacity_limit));
    let at: Vec<i128> = fallible::collect(n, model.blocks.iter().map(|b| b.fixed.unwrap_or(0)))?;
    let mut state = State {
        model,
        at,
        out: fallible::filled(n, Vec::new())?,
        edge_log: Vec::new(),
        trail: Vec::new(),
        limit,
        queue: fallible::with_capacity(2 * n + 1)?,
        head: 0,
        queued: fallible::filled(n, false)?,
        stamp: fallible::filled(n, (0, 0))?,
        epoch: 0,
        deadline,
        endless: false,
        // Fixed blocks are never raised and blocks without pieces never
        // meet: neither is on a cycle.
        uniform: {
            let mut moving = model
                .blocks
                .iter()
                .filter(|b| b.fixed.is_none() && !b.pieces.is_empty());
            let first = moving.next().map_or(1, |b| b.align);
            moving.all(|b| b.align == first)
        },
    };
    // Without lists, the plain blocks with bytes in start order, for the
    // pair scan of every node.
    let by_start: Vec<usize> = if model.neighbours.is_none() {
        let with = (0..n).filter(|&b| !model.blocks[b].pieces.is_empty() && model.is_plain(b));
        let mut order: Vec<usize> = fallible::collect(with.clone().count(), with)?;
        order.sort_unstable_by_key(|&b| (model.span(b).0, b));
        order
    } else {
        Vec::new()
    };
    let mut nodes = 0u64;
    let mut stopped = false;
    // Whether a node was dropped without a proof that it holds no plan.
    let mut incomplete = false;
    let mut stack: Vec<Frame> = Vec::new();
    let bound = lower_bound as i128;
    let fits = |s: &State| (0..n).all(|b| model.blocks[b].size == 0 || s.end(b) < s.limit);
    // Whether the current node is alive and still to be expanded.
    let mut alive = bound < state.limit && fits(&state);
    // What the search has reached, for the caller's progress display; no
    // plan within the capacity yet reads as `usize::MAX`, and so does an
    // arena past it, so a better plan may look the same: only a change is
    // told.
    let mut told: Option<(usize, usize)> = None;
    let mut tell = |nodes: u64, best_arena: Option<i128>, lower_bound: usize| {
        let best_arena = best_arena.map_or(usize::MAX, |a| a.min(usize::MAX as i128) as usize);
        if told != Some((best_arena, lower_bound)) {
            told = Some((best_arena, lower_bound));
            observe(&SearchProgress {
                nodes,
                best_arena,
                lower_bound,
            });
        }
    };
    if alive {
        tell(0, best_arena, lower_bound);
    }
    loop {
        if alive {
            // A node costs a scan of every conflicting pair, far more than
            // reading the clock.
            let out_of_budget = budget.nodes.is_some_and(|limit| nodes >= limit)
                || deadline.is_some_and(|d| Instant::now() >= d);
            if out_of_budget {
                stopped = true;
                break;
            }
            nodes += 1;
            match state.violated(&by_start) {
                None => {
                    let arena = arena_of(model, &state.at);
                    best_arena = Some(arena);
                    best = Some(try_copy(&state.at)?);
                    state.limit = arena;
                    tell(nodes, best_arena, lower_bound);
                    if arena <= bound {
                        break;
                    }
                }
                Some(branches) => try_push(
                    &mut stack,
                    Frame {
                        branches,
                        tried: 0,
                        trail: state.trail.len(),
                        edges: state.edge_log.len(),
                    },
                )?,
            }
        }
        // Expand the next untried branch of the deepest open frame.
        alive = false;
        while let Some(frame) = stack.last_mut() {
            if frame.tried == 2 {
                let (trail, edges) = (frame.trail, frame.edges);
                stack.pop();
                state.undo(trail, edges);
                continue;
            }
            let (lower, upper, w) = frame.branches[frame.tried];
            frame.tried += 1;
            let (trail, edges) = (frame.trail, frame.edges);
            state.undo(trail, edges);
            match state.order(lower, upper, w)? {
                Propagation::Done if fits(&state) => {
                    alive = true;
                    break;
                }
                Propagation::Stopped => {
                    stopped = true;
                    break;
                }
                Propagation::Unknown => incomplete = true,
                _ => {}
            }
        }
        if stopped || !alive && stack.is_empty() {
            break;
        }
    }
    let exhausted = !stopped && !incomplete;
    let searched = lower_bound;
    let lower_bound = match best_arena {
        Some(arena) if exhausted => arena.min(usize::MAX as i128) as usize,
        Some(arena) => lower_bound.min(arena.min(usize::MAX as i128) as usize),
        None => lower_bound,
    };
    if nodes > 0 && lower_bound > searched {
        // Every plan seen: the best one is proven optimal.
        tell(nodes, best_arena, lower_bound);
    }
    Ok(Outcome {
        offsets: best,
        lower_bound,
        nodes,
        exhausted,
    })
}
