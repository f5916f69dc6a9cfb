//! The tests' one seeded generator and their naive oracles, written
//! independently of the library: each oracle computes its answer from the
//! definition, by brute force or a plain traversal.

#![allow(dead_code)] // each test file uses its own part

use std::collections::{BTreeMap, BTreeSet};

use aether_planner::TensorLifetime;

/// splitmix64 (Steele, Lea and Flood, 2014): the tests' one seeded
/// generator, so every instance can be replayed from its seed. (The library
/// has its own, `src/rng.rs`, for the heuristic; a test's instances never
/// depend on it.)
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x6A09_E667_F3BC_C908)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..bound` (bound > 0), up to the modulo's bias.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
    /// [`Rng::below`] for 64-bit counts (bound > 0).
    pub fn below_u64(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
    /// A uniformly random permutation of `items` (Fisher and Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// The most bytes live at any one node: the sum at every first use (the live
/// set only grows at first uses), tensor by tensor.
pub fn brute_peak(tensors: &[TensorLifetime]) -> usize {
    tensors
        .iter()
        .map(|at| {
            tensors
                .iter()
                .filter(|t| t.first_use <= at.first_use && at.first_use <= t.last_use)
                .map(|t| t.size)
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0)
}

/// The first pair `(i, j)`, `i < j`, of tensors live at a common node whose
/// byte ranges `[offset, offset + size)` meet, by comparing every pair; `None`
/// for a sound plan. Zero-size tensors occupy no byte.
pub fn first_shared_byte(tensors: &[TensorLifetime], offsets: &[usize]) -> Option<(usize, usize)> {
    first_shared_extent(tensors, offsets, 1)
}

/// [`first_shared_byte`] over extents rounded up to `alignment`:
/// `[offset, offset + ⌈size / alignment⌉ · alignment)`.
pub fn first_shared_extent(
    tensors: &[TensorLifetime],
    offsets: &[usize],
    alignment: usize,
) -> Option<(usize, usize)> {
    let extent = |t: &TensorLifetime| t.size.div_ceil(alignment) * alignment;
    for (i, a) in tensors.iter().enumerate() {
        for (j, b) in tensors.iter().enumerate().skip(i + 1) {
            let live_together = a.first_use <= b.last_use && b.first_use <= a.last_use;
            let share = offsets[i] < offsets[j] + extent(b) && offsets[j] < offsets[i] + extent(a);
            if live_together && a.size > 0 && b.size > 0 && share {
                return Some((i, j));
            }
        }
    }
    None
}

/// Strict reachability: `reach[u][v]` iff a non-empty path leads from `u` to
/// `v`, by depth-first search from every node.
pub fn reachability(node_count: usize, edges: &[(usize, usize)]) -> Vec<Vec<bool>> {
    let mut successors = vec![Vec::new(); node_count];
    for &(u, v) in edges {
        successors[u].push(v);
    }
    (0..node_count)
        .map(|start| {
            let mut seen = vec![false; node_count];
            let mut stack = successors[start].clone();
            while let Some(x) = stack.pop() {
                if !seen[x] {
                    seen[x] = true;
                    stack.extend(&successors[x]);
                }
            }
            seen
        })
        .collect()
}

/// The transitive reduction by its definition: `u -> v` survives iff no
/// other successor `w` of `u` reaches `v`. Sorted, each edge once.
pub fn brute_reduction(node_count: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let reach = reachability(node_count, edges);
    let distinct: BTreeSet<(usize, usize)> = edges.iter().copied().collect();
    distinct
        .iter()
        .copied()
        .filter(|&(u, v)| {
            !distinct
                .iter()
                .any(|&(a, w)| a == u && w != v && reach[w][v])
        })
        .collect()
}

/// Strict reachability over the distinct nodes the edges name (so node
/// numbers may be anything, `usize::MAX` included), by depth-first search
/// from every named node.
pub fn sparse_reachability(edges: &[(usize, usize)]) -> BTreeMap<usize, BTreeSet<usize>> {
    let mut successors: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(u, v) in edges {
        successors.entry(u).or_default().push(v);
        successors.entry(v).or_default();
    }
    successors
        .keys()
        .map(|&start| {
            let mut seen = BTreeSet::new();
            let mut stack = successors[&start].clone();
            while let Some(x) = stack.pop() {
                if seen.insert(x) {
                    stack.extend(&successors[&x]);
                }
            }
            (start, seen)
        })
        .collect()
}

/// The transitive reduction of a graph given by its edges alone, whatever
/// its node numbers: edge `u → v` survives iff no other successor `w` of
/// `u` reaches `v` ([`sparse_reachability`]). Sorted, each edge once.
pub fn sparse_reduction(edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let reach = sparse_reachability(edges);
    let distinct: BTreeSet<(usize, usize)> = edges.iter().copied().collect();
    distinct
        .iter()
        .copied()
        .filter(|&(u, v)| {
            !distinct
                .range((u, 0)..=(u, usize::MAX))
                .any(|&(_, w)| w != v && reach[&w].contains(&v))
        })
        .collect()
}

/// Components by breadth-first search, numbered in order of their smallest
/// member; nodes in no incidence get `None`.
pub fn brute_islands(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> (Vec<Option<usize>>, usize) {
    let mut neighbours = vec![Vec::new(); node_count];
    let mut active = vec![false; node_count];
    for &(a, b) in incidences {
        neighbours[a].push(b);
        neighbours[b].push(a);
        active[a] = true;
        active[b] = true;
    }
    let mut labels = vec![None; node_count];
    let mut count = 0;
    for start in 0..node_count {
        if !active[start] || labels[start].is_some() {
            continue;
        }
        let mut queue = std::collections::VecDeque::from([start]);
        labels[start] = Some(count);
        while let Some(x) = queue.pop_front() {
            for &y in &neighbours[x] {
                if labels[y].is_none() {
                    labels[y] = Some(count);
                    queue.push_back(y);
                }
            }
        }
        count += 1;
    }
    (labels, count)
}

/// The first pair of tensors with intersecting lifetimes whose extents
/// (sizes rounded up to `alignment`) share a byte, if any, and the highest
/// end. A sweep over lifetime endpoints keeps the live extents by offset,
/// ends before arrivals at each time; an arrival is checked against its two
/// neighbours only, since the live extents are pairwise disjoint. Not `n²`
/// pairs: `O(n log n)`.
pub fn first_overlap(
    tensors: &[TensorLifetime],
    offsets: &[usize],
    alignment: usize,
) -> (Option<(usize, usize)>, usize) {
    assert_eq!(offsets.len(), tensors.len());
    let extent = |i: usize| tensors[i].size.div_ceil(alignment) * alignment;
    // (time, false = leave | true = arrive, tensor).
    let mut events: Vec<(u128, bool, usize)> = Vec::with_capacity(2 * tensors.len());
    for (i, t) in tensors.iter().enumerate().filter(|(_, t)| t.size > 0) {
        events.push((t.first_use as u128, true, i));
        events.push((t.last_use as u128 + 1, false, i));
    }
    events.sort_unstable();
    let mut live: BTreeMap<(usize, usize), usize> = BTreeMap::new(); // (offset, tensor) -> end
    let mut highest = 0;
    for (_, arrives, i) in events {
        let key = (offsets[i], i);
        if !arrives {
            live.remove(&key);
            continue;
        }
        let end = offsets[i] + extent(i);
        highest = highest.max(end);
        if let Some((&(_, j), &below_end)) = live.range(..key).next_back() {
            if below_end > offsets[i] {
                return (Some((j, i)), highest);
            }
        }
        if let Some((&(above, j), _)) = live.range(key..).next() {
            if end > above {
                return (Some((i, j)), highest);
            }
        }
        live.insert(key, end);
    }
    (None, highest)
}
