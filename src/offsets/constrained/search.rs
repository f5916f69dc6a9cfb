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

use std::time::Instant;

use super::normalise::Model;
use super::{align_up, try_copy, try_push};
use crate::error::PlanError;
use crate::offsets::SearchBudget;
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

struct State<'m> {
    model: &'m Model,
    at: Vec<i128>,
    /// Edges `(upper, separation)` out of each block: `o_upper >= o_b + w`.
    out: Vec<Vec<(usize, i128)>>,
    edge_log: Vec<usize>,
    trail: Vec<(usize, i128)>,
    /// Every block must end strictly below this.
    limit: i128,
    queue: Vec<usize>,
}

impl State<'_> {
    fn end(&self, b: usize) -> i128 {
        self.at[b] + self.model.blocks[b].size
    }

    /// Raises block `b` to at least `value`; false if that breaks a fixed
    /// offset or the limit.
    fn raise(&mut self, b: usize, value: i128) -> Result<bool, PlanError> {
        let block = &self.model.blocks[b];
        let value = align_up(value, block.align);
        if value <= self.at[b] {
            return Ok(true);
        }
        if block.fixed.is_some() || value + block.size >= self.limit && block.size > 0 {
            return Ok(false);
        }
        try_push(&mut self.trail, (b, self.at[b]))?;
        self.at[b] = value;
        try_push(&mut self.queue, b)?;
        Ok(true)
    }

    /// Adds `o_upper >= o_lower + w` and restores the least solution.
    fn order(&mut self, lower: usize, upper: usize, w: i128) -> Result<bool, PlanError> {
        try_push(&mut self.out[lower], (upper, w))?;
        try_push(&mut self.edge_log, lower)?;
        self.queue.clear();
        if !self.raise(upper, self.at[lower] + w)? {
            return Ok(false);
        }
        while let Some(b) = self.queue.pop() {
            for k in 0..self.out[b].len() {
                let (c, w) = self.out[b][k];
                if !self.raise(c, self.at[b] + w)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
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
    fn violated(&self) -> Option<[Branch; 2]> {
        let blocks = &self.model.blocks;
        let mut best: Option<(i128, [Branch; 2])> = None;
        for (b, list) in self.model.neighbours.iter().enumerate() {
            for nb in list.iter().filter(|nb| nb.other > b) {
                let c = nb.other;
                if Model::apart(nb, self.at[b], self.at[c]) {
                    continue;
                }
                let weight = blocks[b].size + blocks[c].size;
                if best.as_ref().is_some_and(|(w, _)| *w >= weight) {
                    continue;
                }
                let c_above = (b, c, nb.up);
                let b_above = (c, b, nb.down);
                let branches = if self.at[c] >= self.at[b] {
                    [c_above, b_above]
                } else {
                    [b_above, c_above]
                };
                best = Some((weight, branches));
            }
        }
        best.map(|(_, branches)| branches)
    }
}

fn arena_of(model: &Model, at: &[i128]) -> i128 {
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
        queue: Vec::new(),
    };
    let started = Instant::now();
    let mut nodes = 0u64;
    let mut stopped = false;
    let mut stack: Vec<Frame> = Vec::new();
    let bound = lower_bound as i128;
    let fits = |s: &State| (0..n).all(|b| model.blocks[b].size == 0 || s.end(b) < s.limit);
    // Whether the current node is alive and still to be expanded.
    let mut alive = bound < state.limit && fits(&state);
    loop {
        if alive {
            nodes += 1;
            let out_of_budget = budget.nodes.is_some_and(|limit| nodes > limit)
                || (nodes % 1024 == 0 && budget.time.is_some_and(|t| started.elapsed() >= t));
            if out_of_budget {
                stopped = true;
                break;
            }
            match state.violated() {
                None => {
                    let arena = arena_of(model, &state.at);
                    best_arena = Some(arena);
                    best = Some(try_copy(&state.at)?);
                    state.limit = arena;
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
            if state.order(lower, upper, w)? && fits(&state) {
                alive = true;
                break;
            }
        }
        if !alive && stack.is_empty() {
            break;
        }
    }
    let exhausted = !stopped;
    let lower_bound = match best_arena {
        Some(arena) if exhausted => arena.min(usize::MAX as i128) as usize,
        Some(arena) => lower_bound.min(arena.min(usize::MAX as i128) as usize),
        None => lower_bound,
    };
    Ok(Outcome {
        offsets: best,
        lower_bound,
        nodes,
        exhausted,
    })
}
