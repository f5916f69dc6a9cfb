//! Shared by the fuzz targets: turning bytes into numbers that favour the
//! edges of `usize` (0, small, `usize::MAX - small`), and the oracles.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub mod problem;
pub mod problem_target;

/// Reads numbers from the fuzzer's bytes; past the end every read is 0.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn raw(&mut self) -> usize {
        let mut v = 0usize;
        for _ in 0..core::mem::size_of::<usize>() {
            v = (v << 8) | self.byte() as usize;
        }
        v
    }

    /// Mostly below `small`, sometimes near `usize::MAX`, sometimes anything.
    pub fn number(&mut self, small: usize) -> usize {
        let tag = self.byte();
        match tag % 16 {
            0 => usize::MAX - (self.byte() as usize % 4),
            1 => usize::MAX / 2 + 1 - (self.byte() as usize % 2),
            2 => self.raw(),
            _ => (tag as usize / 16 + 16 * self.byte() as usize) % small.max(1),
        }
    }
}

/// Strict reachability over the distinct nodes the edges name (so node
/// numbers may be anything), by depth-first search.
pub fn reachability(edges: &[(usize, usize)]) -> BTreeMap<usize, BTreeSet<usize>> {
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

/// The transitive reduction by definition: u -> v survives iff no other
/// successor w of u reaches v. Sorted, each edge once.
pub fn brute_reduction(edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let reach = reachability(edges);
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

/// Components by breadth-first search, labelled by ascending smallest
/// member; `usize::MAX` for a node in no incidence.
pub fn brute_islands(node_count: usize, incidences: &[(usize, usize)]) -> (Vec<usize>, usize) {
    let mut neighbours = vec![Vec::new(); node_count];
    for &(a, b) in incidences {
        neighbours[a].push(b);
        neighbours[b].push(a);
    }
    let mut active = vec![false; node_count];
    for &(a, b) in incidences {
        active[a] = true;
        active[b] = true;
    }
    let mut labels = vec![usize::MAX; node_count];
    let mut count = 0;
    for start in 0..node_count {
        if !active[start] || labels[start] != usize::MAX {
            continue;
        }
        labels[start] = count;
        let mut queue = VecDeque::from([start]);
        while let Some(x) = queue.pop_front() {
            for &y in &neighbours[x] {
                if labels[y] == usize::MAX {
                    labels[y] = count;
                    queue.push_back(y);
                }
            }
        }
        count += 1;
    }
    (labels, count)
}

/// The command-line tool's input parsers, compiled here from its source:
/// `cli/` is a binary crate, so they are not reachable as a library. The
/// inline module takes the CLI's source folder as its path, so that the
/// reader's own submodules (`input/json.rs`) are found beside it.
#[allow(dead_code)]
#[path = "../../cli/src"]
mod cli_src {
    pub mod input;
}
pub use cli_src::input as cli_input;
