//! The multi-heuristic planner: several orderings and placement rules, then a
//! local improvement of the best, keeping the smallest arena.
//!
//! # Problem
//!
//! The offset problem of [`crate::try_plan_offsets`]: tensors with sizes
//! `w_i` and inclusive lifetimes `[f_i, l_i]`; find offsets `o_i` such that
//! lifetime-intersecting tensors never share a byte, with a small arena
//! `max_i (o_i + w_i)`. Sizes arrive already rounded to the alignment, so every
//! offset produced here (0 or the end of a placed block) is aligned too.
//!
//! # Algorithm
//!
//! Nine orderings, each a stable sort (ties keep input order) in decreasing
//! key. Six have a single key: size; number of lifetime conflicts; lifetime
//! length; size × length (area); the pressure of the tensor's busiest node
//! (the live bytes there); the total bytes of its conflicts. Three chain keys
//! the way MiniMalloc's preorderings do: length, area, pressure; pressure,
//! area, length; pressure, length, area. The rules:
//!
//! - *best fit*: the smallest free interval among the conflicting placed
//!   tensors that fits (lowest wins ties), else on top of them;
//! - *first fit*: the lowest free interval that fits, else on top;
//! - *lowest floor*: instead of the given order, repeatedly place the unplaced
//!   tensor whose floor (the top of its placed conflicts) is lowest, ties
//!   broken by the ordering. Every such plan is a canonical plan in the sense
//!   of the exact search.
//!
//! The fit rules run on the six single-key orderings, the lowest-floor rule on
//! all nine: 21 placements. The best plan then goes through a local
//! improvement: a tensor that reaches the top of the arena is moved to the
//! front of the ordering and the ordering is placed again by the same rule;
//! the move is kept when the arena does not grow. The number of rounds is
//! fixed, so the planner is deterministic.
//!
//! # What is exact
//!
//! Soundness only: each tensor is placed clear of every placed tensor whose
//! lifetime intersects its own. The arena is not claimed optimal.
//!
//! # Complexity
//!
//! `O(n log n + E)` to build the conflict lists (`E` conflicting pairs) and
//! `O(n·S)` for the pressures (`S` distinct lifetime endpoints), then `O(n²)`
//! per placement by a fit rule (each tensor walks the placed ones in offset
//! order) and `O(n² + E)` by the lowest-floor rule, for 21 placements plus
//! [`IMPROVEMENT_ROUNDS`]. Memory `O(n + E)`.

use std::cmp::Reverse;

use crate::error::PlanError;
use crate::offsets::{MemoryPlan, TensorLifetime};

/// Placements tried by the local improvement after the 21 starting ones.
pub(crate) const IMPROVEMENT_ROUNDS: usize = 8;

/// How a tensor is put among the conflicting tensors already placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    BestFit,
    FirstFit,
    LowestFloor,
}

/// The planned (non-zero) tensors and who conflicts with whom.
pub(crate) struct Conflicts {
    /// Input indices of the tensors with a non-zero size, in input order.
    pub(crate) items: Vec<usize>,
    /// For each position in `items`, the positions of the tensors whose
    /// lifetimes intersect its own.
    pub(crate) neighbours: Vec<Vec<usize>>,
}

impl Conflicts {
    /// Conflict lists by a sweep over tensors sorted by first use:
    /// `O(n log n + E)`.
    pub(crate) fn new(tensors: &[TensorLifetime]) -> Self {
        let items: Vec<usize> = (0..tensors.len())
            .filter(|&i| tensors[i].size > 0)
            .collect();
        let mut by_start: Vec<usize> = (0..items.len()).collect();
        by_start.sort_by_key(|&p| tensors[items[p]].first_use);
        let mut neighbours = vec![Vec::new(); items.len()];
        for (k, &p) in by_start.iter().enumerate() {
            let last = tensors[items[p]].last_use;
            // Later starters intersect `p` exactly when they start by its end.
            for &q in by_start[k + 1..]
                .iter()
                .take_while(|&&q| tensors[items[q]].first_use <= last)
            {
                neighbours[p].push(q);
                neighbours[q].push(p);
            }
        }
        Conflicts { items, neighbours }
    }
}

/// Plans `tensors` (sizes already rounded; lifetimes already validated) with
/// the best of the orderings and rules, improved locally.
///
/// Errors: [`PlanError::Overflow`] if an end offset would pass `usize::MAX`.
pub(crate) fn plan(tensors: &[TensorLifetime]) -> Result<MemoryPlan, PlanError> {
    let conflicts = Conflicts::new(tensors);
    let sizes: Vec<usize> = conflicts.items.iter().map(|&i| tensors[i].size).collect();
    let mut placer = Placer::new(tensors, &conflicts, &sizes);

    let mut best: Option<(usize, Vec<usize>, Rule)> = None; // (arena, order, rule)
    let mut best_offsets: Vec<usize> = Vec::new();
    for (k, order) in orderings(tensors, &conflicts).into_iter().enumerate() {
        // The fit rules on the six single-key orderings, the lowest-floor
        // rule on all nine (it wins most often on real problems).
        let rules: &[Rule] = if k < 6 {
            &[Rule::BestFit, Rule::FirstFit, Rule::LowestFloor]
        } else {
            &[Rule::LowestFloor]
        };
        for &rule in rules {
            let arena = placer.place(&order, rule)?;
            if best.as_ref().map_or(true, |(b, _, _)| arena < *b) {
                best = Some((arena, order.clone(), rule));
                best_offsets.clone_from(&placer.offsets);
            }
        }
    }
    let Some((mut best_arena, mut best_order, rule)) = best else {
        return Ok(MemoryPlan {
            offsets: vec![0; tensors.len()],
            arena_size: 0,
        });
    };

    // Local improvement: pull a tensor at the top of the arena to the front.
    for round in 0..IMPROVEMENT_ROUNDS {
        let tops: Vec<usize> = (0..sizes.len())
            .filter(|&p| best_offsets[p] + sizes[p] == best_arena)
            .collect();
        if tops.is_empty() {
            break; // nothing is planned
        }
        // Rotate through the top tensors so repeated rounds try different ones.
        let top = tops[round % tops.len()];
        let mut order = best_order.clone();
        let from = order.iter().position(|&p| p == top).unwrap_or(0);
        order[..=from].rotate_right(1);
        let arena = placer.place(&order, rule)?;
        if arena <= best_arena {
            best_arena = arena;
            best_order = order;
            best_offsets.clone_from(&placer.offsets);
        }
    }

    let mut offsets = vec![0usize; tensors.len()];
    for (p, &i) in conflicts.items.iter().enumerate() {
        offsets[i] = best_offsets[p];
    }
    Ok(MemoryPlan {
        offsets,
        arena_size: best_arena,
    })
}

/// The nine orderings, as sequences of positions in `conflicts.items`.
fn orderings(tensors: &[TensorLifetime], conflicts: &Conflicts) -> Vec<Vec<usize>> {
    let items = &conflicts.items;
    let size = |p: usize| tensors[items[p]].size as u128;
    let length = |p: usize| (tensors[items[p]].last_use - tensors[items[p]].first_use) as u128 + 1;
    let pressure = node_pressure(tensors, items);
    let conflict_bytes: Vec<u128> = (0..items.len())
        .map(|p| conflicts.neighbours[p].iter().map(|&q| size(q)).sum())
        .collect();

    let area = |p: usize| size(p) * length(p);
    let keys: [&dyn Fn(usize) -> (u128, u128, u128); 9] = [
        &|p| (size(p), 0, 0),
        &|p| (conflicts.neighbours[p].len() as u128, size(p), 0),
        &|p| (length(p), size(p), 0),
        &|p| (area(p), size(p), 0),
        &|p| (pressure[p], size(p), 0),
        &|p| (conflict_bytes[p], size(p), 0),
        &|p| (length(p), area(p), pressure[p]),
        &|p| (pressure[p], area(p), length(p)),
        &|p| (pressure[p], length(p), area(p)),
    ];
    keys.iter()
        .map(|key| {
            let mut order: Vec<usize> = (0..items.len()).collect();
            order.sort_by_key(|&p| Reverse(key(p)));
            order
        })
        .collect()
}

/// For each planned tensor, the live bytes at the busiest node of its
/// lifetime, by a sweep over the distinct lifetime endpoints.
fn node_pressure(tensors: &[TensorLifetime], items: &[usize]) -> Vec<u128> {
    // Section boundaries: each first use and the node after each last use.
    let mut points: Vec<u128> = items
        .iter()
        .flat_map(|&i| {
            [
                tensors[i].first_use as u128,
                tensors[i].last_use as u128 + 1,
            ]
        })
        .collect();
    points.sort_unstable();
    points.dedup();
    let section = |x: u128| points.partition_point(|&p| p < x);
    let mut delta = vec![0i128; points.len() + 1];
    let ranges: Vec<(usize, usize)> = items
        .iter()
        .map(|&i| {
            let range = (
                section(tensors[i].first_use as u128),
                section(tensors[i].last_use as u128 + 1),
            );
            delta[range.0] += tensors[i].size as i128;
            delta[range.1] -= tensors[i].size as i128;
            range
        })
        .collect();
    let mut live = Vec::with_capacity(points.len());
    let mut sum = 0i128;
    for d in &delta[..points.len()] {
        sum += d;
        live.push(sum as u128);
    }
    ranges
        .iter()
        .map(|&(lo, hi)| live[lo..hi].iter().copied().max().unwrap_or(0))
        .collect()
}

/// Places orderings, reusing its scratch.
struct Placer<'a> {
    conflicts: &'a Conflicts,
    sizes: &'a [usize],
    first: Vec<usize>,
    last: Vec<usize>,
    offsets: Vec<usize>,
    placed: Vec<bool>,
    /// The placed tensors by increasing offset.
    by_offset: Vec<usize>,
}

impl<'a> Placer<'a> {
    fn new(tensors: &[TensorLifetime], conflicts: &'a Conflicts, sizes: &'a [usize]) -> Self {
        let n = sizes.len();
        Placer {
            conflicts,
            sizes,
            first: conflicts
                .items
                .iter()
                .map(|&i| tensors[i].first_use)
                .collect(),
            last: conflicts
                .items
                .iter()
                .map(|&i| tensors[i].last_use)
                .collect(),
            offsets: vec![0; n],
            placed: vec![false; n],
            by_offset: Vec::with_capacity(n),
        }
    }

    /// Places every tensor by `rule` in `order` (for the lowest-floor rule,
    /// `order` only breaks ties); returns the arena.
    fn place(&mut self, order: &[usize], rule: Rule) -> Result<usize, PlanError> {
        self.placed.fill(false);
        if rule == Rule::LowestFloor {
            return self.place_lowest_floor(order);
        }
        self.by_offset.clear();
        let mut arena = 0usize;
        for &p in order {
            let offset = self.free_interval(p, rule);
            let end = offset
                .checked_add(self.sizes[p])
                .ok_or(PlanError::Overflow {
                    tensor: self.conflicts.items[p],
                })?;
            self.offsets[p] = offset;
            self.placed[p] = true;
            let at = self
                .by_offset
                .partition_point(|&q| self.offsets[q] <= offset);
            self.by_offset.insert(at, p);
            arena = arena.max(end);
        }
        Ok(arena)
    }

    /// The offset `rule` gives `p` among the placed tensors whose lifetimes
    /// meet its own: the chosen free interval below the top of them, or that
    /// top if none fits. Walking the placed tensors in offset order visits
    /// the occupied ranges sorted, with no sort per tensor.
    fn free_interval(&self, p: usize, rule: Rule) -> usize {
        let size = self.sizes[p];
        let (first, last) = (self.first[p], self.last[p]);
        let mut best: Option<(usize, usize)> = None; // (interval length, offset)
        let mut covered_to = 0usize;
        for &q in &self.by_offset {
            if self.first[q] > last || first > self.last[q] {
                continue;
            }
            let start = self.offsets[q];
            if start > covered_to {
                let gap = start - covered_to;
                if gap >= size {
                    if rule == Rule::FirstFit {
                        return covered_to;
                    }
                    if best.map_or(true, |(len, _)| gap < len) {
                        best = Some((gap, covered_to));
                    }
                }
            }
            covered_to = covered_to.max(start + self.sizes[q]);
        }
        best.map_or(covered_to, |(_, offset)| offset)
    }

    /// The lowest-floor rule: a linear scan for the least (floor, rank) key
    /// per step. `O(n² + E)`, and faster than a heap here: a heap holds one
    /// entry per raised floor, `O(E)` of them.
    fn place_lowest_floor(&mut self, order: &[usize]) -> Result<usize, PlanError> {
        let n = order.len();
        // (floor << 64) | rank, or u128::MAX once placed.
        let mut key = vec![0u128; n];
        for (r, &p) in order.iter().enumerate() {
            key[p] = r as u128;
        }
        let mut arena = 0usize;
        for _ in 0..n {
            let Some((p, &least)) = key.iter().enumerate().min_by_key(|&(_, k)| *k) else {
                break;
            };
            let at = (least >> 64) as usize;
            let end = at.checked_add(self.sizes[p]).ok_or(PlanError::Overflow {
                tensor: self.conflicts.items[p],
            })?;
            self.offsets[p] = at;
            self.placed[p] = true;
            key[p] = u128::MAX;
            arena = arena.max(end);
            for &q in &self.conflicts.neighbours[p] {
                if key[q] != u128::MAX && ((key[q] >> 64) as usize) < end {
                    key[q] = ((end as u128) << 64) | (key[q] & u128::from(u64::MAX));
                }
            }
        }
        Ok(arena)
    }
}
