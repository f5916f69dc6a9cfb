//! The lowest-floor rule over a k-d tree of lifetimes, with no conflict
//! lists: a placer of [`super::scalable`] for tables on which the section
//! tree's lazy heap meets many stale entries (floors that rise many times
//! while their tensors wait), where this tree's "beats" raise costs less.
//!
//! A tensor's floor is the top of its placed conflicts, so placing `p` with
//! top `e` raises to at least `e` the floors of exactly the unplaced tensors
//! whose lifetimes lie in the quadrant `first ≤ last_p`, `last ≥ first_p`.
//! The tensors sit in a k-d tree on `(first, last)`; each subtree keeps its
//! least floor, the least rank at that floor and its second-least floor, so
//! a raise of a subtree inside the quadrant stops there (recorded for its
//! children) unless it passes the second floor, the way a segment tree
//! "beats" a range maximum. The root then names the tensor of least
//! (floor, rank): the listed rule's choice.
//!
//! Complexity: a placement visits `O(√n)` subtrees straddling a quadrant's
//! edges, plus the subtrees whose second floor a raise passes; `O(n log n)`
//! to build the tree. Memory `O(n)`: one 64-byte node (a cache line) per
//! tensor, its lifetime's ends as ranks among the distinct endpoints
//! (`u32`, which keeps every comparison), so the tree is built for fewer
//! than 2^31 tensors.

use std::time::Instant;

use super::{Placement, CLOCK_PERIOD};
use crate::error::PlanError;
use crate::offsets::greedy::endpoint_ranks;
use crate::offsets::TensorLifetime;
use crate::sys::fallible;
use crate::sys::pages::prefetch;

/// How many tensors ahead a placement's setting of the ranks asks the
/// cache for their nodes.
const RANK_PREFETCH: usize = 8;

/// A placed (or absent) tensor's floor: above every other.
const NONE: usize = usize::MAX;

/// The rank of no tensor (that of an empty aggregate).
const NO_RANK: u32 = u32::MAX;

/// One tensor in the k-d tree, with the aggregates of its subtree: one
/// cache line. Lifetime ends are ranks among the table's distinct
/// endpoints, which compare as the nodes do.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Node {
    /// Its floor ([`NONE`] once placed).
    floor: usize,
    /// Least floor of the subtree, the next larger floor
    /// (segment-tree-beats style) and the least rank at the least floor.
    least: usize,
    second: usize,
    /// A raise of the children's floors still to be applied.
    pending: usize,
    /// The tensor's lifetime.
    first: u32,
    last: u32,
    /// Bounding box of the subtree's lifetimes.
    first_min: u32,
    first_max: u32,
    last_min: u32,
    last_max: u32,
    /// The tensor's rank in the ordering (its position while the tree is
    /// built), and the least rank at the subtree's least floor.
    rank: u32,
    least_rank: u32,
}

/// The lowest-floor rule over a k-d tree of the lifetimes `(first, last)`.
/// A tensor's floor is the top of its placed conflicts, so placing `p`
/// raises (to at least its top) exactly the floors in the quadrant
/// `first ≤ last_p, last ≥ first_p`; each subtree keeps its least floor,
/// the least rank there and its second floor, so that a raise stops at
/// subtrees inside the quadrant unless it passes their second floor.
pub(super) struct FloorTree<'a> {
    sizes: &'a [usize],
    items: &'a [usize],
    /// In k-d order: the node of a subtree spanning `lo..hi` sits at
    /// `(lo + hi) / 2`.
    nodes: Vec<Node>,
    /// Where each tensor's node is.
    node_of: Vec<u32>,
    /// By rank in the ordering being placed: the tensor's node and
    /// position, so that the root's least rank leads to both in one read.
    by_rank: Vec<(u32, u32)>,
    pub(super) offsets: Vec<usize>,
    pub(super) deadline: Option<Instant>,
    /// Subtrees visited by the current placement, and by the last one that
    /// finished: the work of a placement, which sizes the improvement.
    pub(super) visits: usize,
    last_visits: usize,
}

/// The aggregates `(least, least_rank, second)` of two sets combined.
/// Without branches (selects), as its inputs are unpredictable: the
/// smaller least floor, the least rank among the sets at it, and the second
/// floor of each set at it with the other's least.
#[inline(always)]
fn merge(a: (usize, u32, usize), b: (usize, u32, usize)) -> (usize, u32, usize) {
    let least = a.0.min(b.0);
    let rank = |x: (usize, u32, usize)| if x.0 == least { x.1 } else { NO_RANK };
    let second = |x: (usize, u32, usize)| if x.0 == least { x.2 } else { x.0 };
    (least, rank(a).min(rank(b)), second(a).min(second(b)))
}

impl<'a> FloorTree<'a> {
    pub(super) fn new(
        tensors: &[TensorLifetime],
        items: &'a [usize],
        sizes: &'a [usize],
        deadline: Option<Instant>,
    ) -> Result<Self, PlanError> {
        let n = items.len();
        if n >= 1 << 31 {
            // Endpoint ranks and tensor ranks would not fit `u32`.
            return Err(PlanError::OutOfMemory { bytes: usize::MAX });
        }
        // Each lifetime end's rank among the distinct endpoints, firsts and
        // lasts together: it compares with any other end as its node does.
        // Below 2n, so below 2^32.
        let (ranks, _) = endpoint_ranks(tensors, items)?;
        let mut nodes: Vec<Node> = fallible::collect(
            n,
            ranks.iter().enumerate().map(|(p, &(first, last))| {
                let (first, last) = (first as u32, last as u32);
                Node {
                    floor: 0,
                    least: 0,
                    second: NONE,
                    pending: 0,
                    first,
                    last,
                    first_min: first,
                    first_max: first,
                    last_min: last,
                    last_max: last,
                    rank: p as u32,
                    least_rank: p as u32,
                }
            }),
        )?;
        drop(ranks);
        build(&mut nodes, 0);
        let mut node_of = fallible::filled(n, 0u32)?;
        for (v, node) in nodes.iter().enumerate() {
            // The rank is still the position here.
            // Below n < 2^31.
            node_of[node.rank as usize] = v as u32;
        }
        Ok(FloorTree {
            sizes,
            items,
            nodes,
            node_of,
            by_rank: fallible::filled(n, (0, 0))?,
            offsets: fallible::filled(n, 0)?,
            deadline,
            visits: 0,
            last_visits: 0,
        })
    }

    /// Recomputes the aggregates of the subtree `lo..hi` from its node and
    /// its children; the node's pending raise must have been pushed.
    fn pull(&mut self, lo: usize, hi: usize) {
        let v = (lo + hi) / 2;
        let mut aggregate = (self.nodes[v].floor, self.nodes[v].rank, NONE);
        if self.nodes[v].floor == NONE {
            aggregate = (NONE, NO_RANK, NONE);
        }
        for (l, h) in [(lo, v), (v + 1, hi)] {
            if l < h {
                let c = &self.nodes[(l + h) / 2];
                aggregate = merge(aggregate, (c.least, c.least_rank, c.second));
            }
        }
        let node = &mut self.nodes[v];
        (node.least, node.least_rank, node.second) = aggregate;
    }

    /// The work of the last finished placement, in subtrees visited (at
    /// least one per tensor).
    pub(super) fn placement_cost(&self) -> usize {
        self.last_visits.max(self.items.len())
    }

    /// Raises every floor of the subtree `lo..hi` to at least `top`.
    fn apply(&mut self, lo: usize, hi: usize, top: usize) {
        if lo >= hi {
            return;
        }
        self.visits += 1;
        let v = (lo + hi) / 2;
        let node = &mut self.nodes[v];
        if top <= node.least {
            return;
        }
        node.floor = node.floor.max(top);
        if top < node.second {
            // Only the least floors rise, all to `top`.
            node.least = top;
            node.pending = node.pending.max(top);
            return;
        }
        self.prefetch_children(lo, hi);
        self.push(lo, hi);
        self.apply(lo, v, top);
        self.apply(v + 1, hi, top);
        self.pull(lo, hi);
    }

    /// Applies the subtree's pending raise to its children.
    fn push(&mut self, lo: usize, hi: usize) {
        let v = (lo + hi) / 2;
        let pending = std::mem::take(&mut self.nodes[v].pending);
        if pending > 0 {
            self.apply(lo, v, pending);
            self.apply(v + 1, hi, pending);
        }
    }

    /// Raises to at least `top` the floors of the tensors of subtree
    /// `lo..hi` live somewhere in `first..=last`; whether any floor rose.
    fn raise(&mut self, lo: usize, hi: usize, (first, last): (u32, u32), top: usize) -> bool {
        if lo >= hi {
            return false;
        }
        self.visits += 1;
        let v = (lo + hi) / 2;
        let node = &self.nodes[v];
        if top <= node.least || node.first_min > last || node.last_max < first {
            return false;
        }
        if node.first_max <= last && node.last_min >= first {
            self.apply(lo, hi, top);
            return true;
        }
        self.prefetch_children(lo, hi);
        self.push(lo, hi);
        let node = &mut self.nodes[v];
        let mut rose = false;
        if node.first <= last && node.last >= first && node.floor < top {
            node.floor = top;
            rose = true;
        }
        rose |= self.raise(lo, v, (first, last), top);
        rose |= self.raise(v + 1, hi, (first, last), top);
        // A push alone leaves this subtree's aggregates as they were.
        if rose {
            self.pull(lo, hi);
        }
        rose
    }

    /// Asks the cache for the nodes of the children of the non-empty
    /// subtree `lo..hi` (its own node where it has no left child): a walk
    /// into both reads the second only after the first's subtree, so its
    /// miss overlaps that work.
    #[inline(always)]
    fn prefetch_children(&self, lo: usize, hi: usize) {
        let v = (lo + hi) / 2;
        prefetch(&self.nodes[(lo + v) / 2]);
        if v + 1 < hi {
            prefetch(&self.nodes[(v + 1 + hi) / 2]);
        }
    }

    /// Asks the cache for every node on the path from subtree `lo..hi`
    /// down to node `at`: the path is known from the bounds alone, so its
    /// misses overlap where the walk would meet them one at a time.
    fn prefetch_path(&self, (mut lo, mut hi): (usize, usize), at: usize) {
        while lo < hi {
            let v = (lo + hi) / 2;
            prefetch(&self.nodes[v]);
            match at.cmp(&v) {
                core::cmp::Ordering::Less => hi = v,
                core::cmp::Ordering::Greater => lo = v + 1,
                core::cmp::Ordering::Equal => break,
            }
        }
    }

    /// Marks the tensor at node `at` placed.
    fn remove(&mut self, lo: usize, hi: usize, at: usize) {
        self.visits += 1;
        let v = (lo + hi) / 2;
        // Pulled below, so the children must hold this node's raise.
        self.push(lo, hi);
        if v == at {
            self.nodes[v].floor = NONE;
        } else {
            if at < v {
                self.remove(lo, v, at);
            } else {
                self.remove(v + 1, hi, at);
            }
        }
        self.pull(lo, hi);
    }

    /// Every floor of the subtree `lo..hi` back to 0.
    fn reset(&mut self, lo: usize, hi: usize) {
        if lo >= hi {
            return;
        }
        let v = (lo + hi) / 2;
        self.reset(lo, v);
        self.reset(v + 1, hi);
        let node = &mut self.nodes[v];
        node.floor = 0;
        node.pending = 0;
        self.pull(lo, hi);
    }
}

/// Arranges `nodes` as a k-d tree on (first, last), splitting on first at
/// even `depth`, and fills in the bounding boxes.
fn build(nodes: &mut [Node], depth: usize) {
    if nodes.is_empty() {
        return;
    }
    let mid = nodes.len() / 2;
    if depth % 2 == 0 {
        nodes.select_nth_unstable_by_key(mid, |n| (n.first, n.last, n.rank));
    } else {
        nodes.select_nth_unstable_by_key(mid, |n| (n.last, n.first, n.rank));
    }
    let (left, rest) = nodes.split_at_mut(mid);
    let (node, right) = rest.split_first_mut().unwrap_or_else(|| unreachable!());
    build(left, depth + 1);
    build(right, depth + 1);
    for child in [left.get(left.len() / 2), right.get(right.len() / 2)]
        .into_iter()
        .flatten()
    {
        node.first_min = node.first_min.min(child.first_min);
        node.first_max = node.first_max.max(child.first_max);
        node.last_min = node.last_min.min(child.last_min);
        node.last_max = node.last_max.max(child.last_max);
    }
}

impl Placement for FloorTree<'_> {
    /// Repeatedly places the unplaced tensor of least (floor, rank) at its
    /// floor; stops as soon as the arena passes `bound`.
    fn place(&mut self, order: &[usize], bound: usize) -> Result<Option<usize>, PlanError> {
        let n = order.len();
        for (r, &p) in order.iter().enumerate() {
            // Nodes in the order's sequence are all over the tree: ask for
            // them ahead so that the misses overlap.
            if let Some(&q) = order.get(r + RANK_PREFETCH) {
                prefetch(&self.nodes[self.node_of[q] as usize]);
            }
            let v = self.node_of[p];
            // Below n < 2^31.
            self.nodes[v as usize].rank = r as u32;
            self.by_rank[r] = (v, p as u32);
        }
        self.reset(0, n);
        self.visits = 0;
        let mut arena = 0usize;
        for placed in 1..=n {
            if placed % CLOCK_PERIOD == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
            let root = &self.nodes[n / 2];
            let floor = root.least;
            let (at, p) = self.by_rank[root.least_rank as usize];
            let (at, p) = (at as usize, p as usize);
            // Read after the removal's walk.
            prefetch(&self.sizes[p]);
            self.prefetch_path((0, n), at);
            self.remove(0, n, at);
            let end = floor
                .checked_add(self.sizes[p])
                .ok_or(PlanError::Overflow {
                    tensor: self.items[p],
                })?;
            self.offsets[p] = floor;
            arena = arena.max(end);
            if arena > bound {
                return Ok(Some(arena)); // cannot win: stop early
            }
            let node = &self.nodes[at];
            self.raise(0, n, (node.first, node.last), end);
        }
        self.last_visits = self.visits;
        Ok(Some(arena))
    }

    fn offsets(&self) -> &[usize] {
        &self.offsets
    }
}

#[cfg(test)]
mod tests {
    use super::super::assert_places_as_listed;
    use super::*;
    use crate::offsets::conflicts::Conflicts;

    /// The selects of [`merge`] give the comparison's aggregates (its
    /// first form), on triples as the tree keeps them (each least floor
    /// below its second, or both [`NONE`]), ties and placed sets included.
    #[test]
    fn the_merge_by_selects_is_the_merge_by_comparison() {
        fn compared(a: (usize, u32, usize), b: (usize, u32, usize)) -> (usize, u32, usize) {
            use std::cmp::Ordering::{Equal, Greater, Less};
            match b.0.cmp(&a.0) {
                Less => (b.0, b.1, b.2.min(a.0)),
                Equal => (a.0, a.1.min(b.1), a.2.min(b.2)),
                Greater => (a.0, a.1, a.2.min(b.0)),
            }
        }
        let mut rng = crate::rng::XorShift(0x6A09_E667_F3BC_C908);
        let triple = |rng: &mut crate::rng::XorShift| {
            if rng.below(6) == 0 {
                return (NONE, NO_RANK, NONE);
            }
            let least = rng.below(5);
            let second = if rng.below(3) == 0 {
                NONE
            } else {
                least + 1 + rng.below(4)
            };
            (least, rng.below(4) as u32, second)
        };
        for _ in 0..20_000 {
            let (a, b) = (triple(&mut rng), triple(&mut rng));
            assert_eq!(merge(a, b), compared(a, b), "{a:?} {b:?}");
        }
    }

    /// The k-d tree places every ordering exactly as the listed lowest-floor
    /// rule does (same offsets, same arena, same early stop), on seeded
    /// tables with nested lifetimes, equal sizes and zero sizes.
    #[test]
    fn the_tree_gives_the_listed_lowest_floor_plans() {
        let mut rng = crate::rng::XorShift(0x0BAD_5EED_1234_5678);
        let mut below = |bound: usize| rng.below(bound);
        for case in 0..400 {
            let horizon = 1 + below(if case % 2 == 0 { 60 } else { 150 });
            let tensors: Vec<TensorLifetime> = (0..below(if case % 2 == 0 { 120 } else { 250 }))
                .map(|_| {
                    let first = below(horizon);
                    let span = if below(6) == 0 { horizon } else { 4 };
                    let last = (first + below(span)).min(horizon);
                    TensorLifetime::new([0, 8, 16, 24, 40][below(5)], first, last)
                })
                .collect();
            let conflicts = Conflicts::new(&tensors).unwrap();
            let items = &conflicts.items;
            let sizes: Vec<usize> = items.iter().map(|&i| tensors[i].size).collect();
            let mut tree = FloorTree::new(&tensors, items, &sizes, None).unwrap();
            assert_places_as_listed(&tensors, &conflicts, &sizes, &mut tree);
        }
    }
}
