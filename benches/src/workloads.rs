//! Benchmark and test inputs: generated from fixed seeds, or read from the
//! real tables in `data/`.
//!
//! Every generated DAG is numbered topologically (`u < v` on every edge) and
//! its edges are shuffled, so no routine is handed sorted input for free.

use std::path::{Path, PathBuf};

use aether_planner::TensorLifetime;

use crate::rng::Rng;

/// The repository's `data/` folder.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// One CSV table of numbers after its first `skip` columns, header skipped;
/// panics on a malformed file, since the data is part of the repository.
fn read_rows(path: &Path, skip: usize) -> Vec<Vec<usize>> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            line.split(',')
                .skip(skip)
                .map(|field| {
                    field.trim().parse().unwrap_or_else(|error| {
                        panic!("{}: bad field {field:?}: {error}", path.display())
                    })
                })
                .collect()
        })
        .collect()
}

/// A MiniMalloc problem (`id,lower,upper,size`, `upper` exclusive) as
/// inclusive lifetimes: `first = lower`, `last = upper - 1`.
pub fn minimalloc(path: &Path) -> Vec<TensorLifetime> {
    // The id column may be a name (examples/input.12.csv says "b1").
    read_rows(path, 1)
        .into_iter()
        .map(|row| TensorLifetime::new(row[2], row[0], row[1] - 1))
        .collect()
}

/// Writes `tensors` as a MiniMalloc problem (`id,lower,upper,size`, `upper`
/// exclusive), the format [`minimalloc`] reads.
///
/// # Errors
/// The file's creation or writing error.
///
/// # Complexity
/// `O(n)` time, a buffer's worth of space.
pub fn write_minimalloc(path: &Path, tensors: &[TensorLifetime]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "id,lower,upper,size")?;
    for (i, t) in tensors.iter().enumerate() {
        writeln!(out, "{i},{},{},{}", t.first_use, t.last_use + 1, t.size)?;
    }
    out.flush()
}

/// A network table (`size,first_use,last_use`, inclusive).
pub fn network(path: &Path) -> Vec<TensorLifetime> {
    read_rows(path, 0)
        .into_iter()
        .map(|row| TensorLifetime::new(row[0], row[1], row[2]))
        .collect()
}

/// Every MiniMalloc file in `data/minimalloc` (challenging A–K, then the
/// examples), as `(file name, tensors)`.
pub fn minimalloc_files() -> Vec<(String, Vec<TensorLifetime>)> {
    let mut files = Vec::new();
    for folder in ["challenging", "examples"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(data_dir().join("minimalloc").join(folder))
            .expect("data/minimalloc is part of the repository")
            .map(|entry| entry.expect("readable directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "csv"))
            .collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.push((name, minimalloc(&path)));
        }
    }
    files
}

/// Every network table in `data/networks`, as `(file name, tensors)`.
pub fn network_files() -> Vec<(String, Vec<TensorLifetime>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(data_dir().join("networks"))
        .expect("data/networks is part of the repository")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "csv"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, network(&path))
        })
        .collect()
}

/// `count` tensors over a horizon of `count` nodes whose lifetimes are short
/// relative to the horizon, as in real graphs: most live a few nodes, a few
/// percent tens of nodes, one percent up to a quarter of the horizon. Sizes
/// are multiples of 64 bytes drawn from few values, so ties are common.
pub fn random_tensors(count: usize, seed: u64) -> Vec<TensorLifetime> {
    let mut rng = Rng::new(seed);
    let horizon = count.max(1);
    (0..count)
        .map(|_| {
            let first = rng.below(horizon);
            let length = match rng.below(100) {
                0 => rng.below(horizon / 4 + 1),
                1..=9 => rng.below(64),
                _ => 1 + rng.below(8),
            };
            let last = (first + length).min(horizon - 1);
            let size = 64 << rng.below(12);
            TensorLifetime::new(size * (1 + rng.below(3)), first, last)
        })
        .collect()
}

/// A random DAG on `node_count` nodes with mean out-degree about `degree`:
/// three edges in four are local (to one of the next 8 nodes), the rest
/// long-range (to any later node).
pub fn random_dag(node_count: usize, degree: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut rng = Rng::new(seed);
    let mut edges = Vec::with_capacity(node_count * degree);
    for u in 0..node_count.saturating_sub(1) {
        for _ in 0..degree {
            let v = if rng.chance(3, 4) {
                u + 1 + rng.below(8)
            } else {
                u + 1 + rng.below(node_count - u - 1)
            };
            if v < node_count {
                edges.push((u, v));
            }
        }
    }
    rng.shuffle(&mut edges);
    edges
}

/// A layered, network-like DAG of `node_count` nodes: layers of 1 to 48
/// nodes, each node fed by 1–3 nodes of the previous layer, and one node in
/// eight also by a skip connection from 2–6 layers back.
pub fn layered_dag(node_count: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut rng = Rng::new(seed);
    let mut layer_starts = vec![0usize];
    while *layer_starts.last().unwrap() < node_count {
        let next = layer_starts.last().unwrap() + 1 + rng.below(48);
        layer_starts.push(next.min(node_count));
    }
    let mut edges = Vec::new();
    for layer in 1..layer_starts.len() - 1 {
        let (start, end) = (layer_starts[layer], layer_starts[layer + 1]);
        let (prev_start, prev_end) = (layer_starts[layer - 1], layer_starts[layer]);
        for v in start..end {
            for _ in 0..1 + rng.below(3) {
                edges.push((prev_start + rng.below(prev_end - prev_start), v));
            }
            if layer >= 2 && rng.chance(1, 8) {
                let back = (2 + rng.below(5)).min(layer);
                let (s, e) = (layer_starts[layer - back], layer_starts[layer - back + 1]);
                edges.push((s + rng.below(e - s), v));
            }
        }
    }
    rng.shuffle(&mut edges);
    edges
}

/// A dense DAG like the control dependencies among collectives: each pair
/// `u < v` of `node_count` nodes is an edge with probability 0.765 (about
/// 400k edges at 1,024 nodes).
pub fn collectives_dag(node_count: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut rng = Rng::new(seed);
    let mut edges = Vec::new();
    for u in 0..node_count {
        for v in u + 1..node_count {
            if rng.chance(765, 1000) {
                edges.push((u, v));
            }
        }
    }
    rng.shuffle(&mut edges);
    edges
}

/// `count` incidences between uniformly random nodes of `0..node_count`.
pub fn random_incidences(node_count: usize, count: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| (rng.below(node_count), rng.below(node_count)))
        .collect()
}

/// The chain `0 – 1 – … – (node_count - 1)`, its links in shuffled order and
/// random orientation.
pub fn shuffled_chain(node_count: usize, seed: u64) -> Vec<(usize, usize)> {
    let mut rng = Rng::new(seed);
    let mut links: Vec<(usize, usize)> = (1..node_count)
        .map(|v| {
            if rng.chance(1, 2) {
                (v - 1, v)
            } else {
                (v, v - 1)
            }
        })
        .collect();
    rng.shuffle(&mut links);
    links
}

/// `island_count` small islands like a physics scene's: 1–6 neighbouring
/// bodies each (a lone body by a self-incidence), joined by a spanning tree
/// and up to two extra contacts, with up to two untouched bodies between
/// islands; all incidences shuffled. Returns `(node_count, incidences)`.
pub fn small_islands(island_count: usize, seed: u64) -> (usize, Vec<(usize, usize)>) {
    let mut rng = Rng::new(seed);
    let mut incidences = Vec::new();
    let mut next = 0;
    for _ in 0..island_count {
        next += rng.below(3);
        let size = 1 + rng.below(6);
        if size == 1 {
            incidences.push((next, next));
        }
        for j in 1..size {
            incidences.push((next + rng.below(j), next + j));
        }
        for _ in 0..rng.below(3) {
            incidences.push((next + rng.below(size), next + rng.below(size)));
        }
        next += size;
    }
    rng.shuffle(&mut incidences);
    (next, incidences)
}

/// The compiler-scale problems of `data/large` (MiniMalloc CSV, `upper`
/// exclusive), as `(file name, tensors)`, in a fixed order.
pub fn large_files() -> Vec<(String, Vec<TensorLifetime>)> {
    ["resnet50", "G_1", "pangu_2.6B", "S_1"]
        .iter()
        .map(|name| {
            let path = data_dir().join("large").join(format!("{name}.csv"));
            (name.to_string(), minimalloc(&path))
        })
        .collect()
}

/// A heavy-tailed table of `count` tensors over `count` nodes: 5 % live up to
/// `count / 4` nodes (saved activations, gradients), the rest a few nodes;
/// sizes from a few distinct values, so that ties are everywhere.
pub fn heavy_tailed_tensors(count: usize, seed: u64) -> Vec<TensorLifetime> {
    const SIZES: [usize; 6] = [64, 256, 1024, 4096, 65_536, 1 << 20];
    let mut rng = Rng::new(seed);
    let horizon = count.max(1);
    (0..count)
        .map(|_| {
            let first = rng.below(horizon);
            let span = if rng.chance(1, 20) {
                1 + rng.below((count / 4).max(1))
            } else {
                1 + rng.below(8)
            };
            let last = (first + span - 1).min(horizon - 1);
            // Small sizes are common, large ones rare.
            let size = SIZES[rng.below(SIZES.len()).min(rng.below(SIZES.len()))];
            TensorLifetime::new(size, first, last)
        })
        .collect()
}

/// The six shape families of the scaling sweep (issue 21): the shapes most
/// inference and compiler graphs have, each generated at any size from a
/// seed by [`Family::tensors`].
///
/// `n` is the number of buffers and `E` the number of conflicting pairs
/// (buffers whose lifetimes intersect). Every family but the training step
/// is sparse: `E` grows linearly in `n`, or as `n log n` for the nested
/// scopes. The training step keeps every forward activation alive until its
/// backward node, so it is inherently dense: `E = Θ(n²)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Buffer `i` lives nodes `[i, i + 1]`; sizes `64 · U{1..64}`. At most
    /// two buffers are live at a node; `E = n - 1`.
    Chain,
    /// Buffer `i` lives the 11 nodes `[i, i + 10]`; sizes `64 · U{1..1024}`.
    /// Eleven buffers are live at every inner node; `E = 10n - 55` for
    /// `n ≥ 11`.
    Window,
    /// Starts uniform in `[0, n)`, lengths `U{1..100}` nodes; sizes
    /// `16 · U{1..4096}`. About 50 buffers live at an inner node; `E` is
    /// about `50n`.
    RandomShort,
    /// Laminar scopes: a breadth-first binary subdivision of a timeline of
    /// `2n` nodes at uniform split points, one buffer spanning each scope; a
    /// scope of at most two nodes keeps taking buffers (one per round of the
    /// subdivision). Any two lifetimes are disjoint or nested; each round
    /// partitions the timeline, so the live count at every node is the
    /// number of rounds `D` (or `D + 1` on a prefix of the timeline, where
    /// the last round stopped), `D` about `log2 n`, and `E` grows as
    /// `n log n`. Sizes `64 · U{1..256}`.
    Nested,
    /// Starts uniform in `[0, n)`, lengths Pareto (`α = 1.5`, at least 1,
    /// truncated to an integer, capped at `n`); sizes log-uniform from
    /// `2^4` to `2^20` bytes, rounded down to a multiple of 16. The mean
    /// length is bounded (`α > 1`), so `E` grows linearly in expectation,
    /// with a heavy tail of long lifetimes.
    HeavyTailed,
    /// A training step of `L = n / 3` layers over `2L` nodes: forward node
    /// `i` makes activation `i`, live `[i, 2L - 1 - i]` (kept for the
    /// backward pass), and a temporary live `[i, i]`; backward node
    /// `2L - 1 - i` makes a gradient live `[2L - 1 - i, 2L - i]`. Sizes
    /// `64 · U{1..512}` (activations, gradients) and `64 · U{1..64}`
    /// (temporaries). There are `3L` buffers (`n` rounded down to a multiple
    /// of 3; `n` itself below 3). All activations are live at the turn, and
    /// `E = (3L² + L)/2 + L - 1 ≈ n²/6`: inherently dense.
    TrainingStep,
    // The further shapes of `scripts/bench_scale.sh shapes` ([`Family::MORE`]):
    // shapes at the edges of what graphs have, to show that no planner has
    // a quadratic path the six miss.
    /// Buffer `i` lives `[i, 2n - 1 - i]`: the activations of a training
    /// step without the short tensors between them, or the skip connections
    /// of an encoder and decoder. Every lifetime spans the turn, so every
    /// pair conflicts: `E = n(n - 1)/2`. Sizes `64 · U{1..512}`.
    Staircase,
    /// Every buffer lives `[0, 1]`: all live together, `E = n(n - 1)/2`.
    /// Sizes `64 · U{1..512}`.
    AllLive,
    /// Starts uniform in `[0, n)`, lengths uniform in `[1, n]` nodes; sizes
    /// `16 · U{1..4096}`. Long random lifetimes: `E` about `n²/3`, and the
    /// union of the ranges a greedy placement meets has a block for about
    /// every twelve of them (counted at 4,096 and 8,192 buffers): `Θ(n)`
    /// blocks for best fit to read.
    LongRandom,
    /// Buffer `i` lives `[i, i + (i mod 1000)]`: lifetimes growing over a
    /// thousand nodes, then starting over. About 500 buffers are live at a
    /// node: `E` about `500n`. Sizes `64 · U{1..256}`.
    Sawtooth,
    /// Buffer 0 (1 MiB) lives over the whole graph, and buffer `i > 0`
    /// lives `[i, i + 1]` (sizes `64 · U{1..64}`): one long-lived buffer
    /// over a chain. `E = 2n - 3`.
    Star,
    /// Groups of 1,000 buffers, each group all live together at its own
    /// node (`[2g, 2g]` for group `g`): `E` about `500n`. Sizes
    /// `64 · U{1..512}`.
    Cliques,
    /// A chain (`[i, i + 1]`) whose sizes grow with `i`, from 64 bytes to
    /// 64 KiB: the placement order (by size) runs against time.
    GrowingChain,
}

impl Family {
    /// Every family, in the sweep's order.
    pub const ALL: [Family; 6] = [
        Family::Chain,
        Family::Window,
        Family::RandomShort,
        Family::Nested,
        Family::HeavyTailed,
        Family::TrainingStep,
    ];

    /// The further shapes, beyond the six of the sweep (see
    /// `scripts/bench_scale.sh shapes`).
    pub const MORE: [Family; 7] = [
        Family::Staircase,
        Family::AllLive,
        Family::LongRandom,
        Family::Sawtooth,
        Family::Star,
        Family::Cliques,
        Family::GrowingChain,
    ];

    /// The family's name in file names and reports (`random_short`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Family::Chain => "chain",
            Family::Window => "window",
            Family::RandomShort => "random_short",
            Family::Nested => "nested",
            Family::HeavyTailed => "heavy_tailed",
            Family::TrainingStep => "training_step",
            Family::Staircase => "staircase",
            Family::AllLive => "all_live",
            Family::LongRandom => "long_random",
            Family::Sawtooth => "sawtooth",
            Family::Star => "star",
            Family::Cliques => "cliques",
            Family::GrowingChain => "growing_chain",
        }
    }

    /// The family named `name` (as [`Family::name`] spells it), if any.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL
            .into_iter()
            .chain(Family::MORE)
            .find(|f| f.name() == name)
    }

    /// Whether `E` grows at most as `n log n` (every family but the
    /// training step, the staircase, all live and long random).
    pub fn is_sparse(self) -> bool {
        !matches!(
            self,
            Family::TrainingStep | Family::Staircase | Family::AllLive | Family::LongRandom
        )
    }

    /// Whether the family is one of the six of the sweep, which the
    /// targets of issue 21 name.
    pub fn is_swept(self) -> bool {
        Family::ALL.contains(&self)
    }

    /// `n` buffers of this family (the training step: `3 ⌊n/3⌋`), fixed by
    /// `seed`.
    ///
    /// # Complexity
    /// `O(n)` time and space.
    pub fn tensors(self, n: usize, seed: u64) -> Vec<TensorLifetime> {
        let mut rng = Rng::new(seed);
        match self {
            Family::Chain => (0..n)
                .map(|i| TensorLifetime::new(64 * (1 + rng.below(64)), i, i + 1))
                .collect(),
            Family::Window => (0..n)
                .map(|i| TensorLifetime::new(64 * (1 + rng.below(1024)), i, i + 10))
                .collect(),
            Family::RandomShort => (0..n)
                .map(|_| {
                    let first = rng.below(n);
                    let length = 1 + rng.below(100);
                    TensorLifetime::new(16 * (1 + rng.below(4096)), first, first + length - 1)
                })
                .collect(),
            Family::Nested => nested_scopes(n, &mut rng),
            Family::HeavyTailed => (0..n)
                .map(|_| {
                    let first = rng.below(n);
                    // Inverse transform of Pareto(1.5) on [1, ∞): u^(-1/α)
                    // with u in (0, 1].
                    let u = 1.0 - unit(&mut rng);
                    let length = (u.powf(-1.0 / 1.5) as usize).clamp(1, n);
                    let bytes = (4.0 + 16.0 * unit(&mut rng)).exp2() as usize;
                    let size = (bytes / 16 * 16).max(16);
                    TensorLifetime::new(size, first, first + length - 1)
                })
                .collect(),
            Family::TrainingStep => {
                let layers = (n / 3).max(1);
                let turn = 2 * layers;
                let mut out = Vec::with_capacity(3 * layers);
                for i in 0..layers {
                    out.push(TensorLifetime::new(
                        64 * (1 + rng.below(512)),
                        i,
                        turn - 1 - i,
                    ));
                    out.push(TensorLifetime::new(64 * (1 + rng.below(64)), i, i));
                    out.push(TensorLifetime::new(
                        64 * (1 + rng.below(512)),
                        turn - 1 - i,
                        turn - i,
                    ));
                }
                out.truncate(n);
                out
            }
            Family::Staircase => (0..n)
                .map(|i| TensorLifetime::new(64 * (1 + rng.below(512)), i, 2 * n - 1 - i))
                .collect(),
            Family::AllLive => (0..n)
                .map(|_| TensorLifetime::new(64 * (1 + rng.below(512)), 0, 1))
                .collect(),
            Family::LongRandom => (0..n)
                .map(|_| {
                    let first = rng.below(n);
                    let length = 1 + rng.below(n);
                    TensorLifetime::new(16 * (1 + rng.below(4096)), first, first + length - 1)
                })
                .collect(),
            Family::Sawtooth => (0..n)
                .map(|i| TensorLifetime::new(64 * (1 + rng.below(256)), i, i + i % 1000))
                .collect(),
            Family::Star => (0..n)
                .map(|i| match i {
                    0 => TensorLifetime::new(1 << 20, 0, n + 1),
                    _ => TensorLifetime::new(64 * (1 + rng.below(64)), i, i + 1),
                })
                .collect(),
            Family::Cliques => (0..n)
                .map(|i| {
                    TensorLifetime::new(64 * (1 + rng.below(512)), 2 * (i / 1000), 2 * (i / 1000))
                })
                .collect(),
            Family::GrowingChain => (0..n)
                .map(|i| TensorLifetime::new(64 * (1 + i * 1024 / n.max(1)), i, i + 1))
                .collect(),
        }
    }
}

/// Uniform in `[0, 1)`, from the top 53 bits.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The nested family (see [`Family::Nested`]): scopes taken breadth-first
/// from a queue, each inner scope split at a uniform point into two
/// children; a scope of at most two nodes goes back to the queue whole.
/// `O(n)` time and space: the queue holds at most `n + 1` scopes.
fn nested_scopes(n: usize, rng: &mut Rng) -> Vec<TensorLifetime> {
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let mut queue = std::collections::VecDeque::from([(0usize, 2 * n - 1)]);
    while out.len() < n {
        let (lo, hi) = queue.pop_front().expect("the queue never empties");
        out.push(TensorLifetime::new(64 * (1 + rng.below(256)), lo, hi));
        if hi - lo >= 2 {
            let mid = lo + 1 + rng.below(hi - lo - 1);
            queue.push_back((lo, mid));
            queue.push_back((mid + 1, hi));
        } else {
            queue.push_back((lo, hi));
        }
    }
    out
}
