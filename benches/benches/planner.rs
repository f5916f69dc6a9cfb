//! Side-by-side micro-benchmarks on the smaller workloads (`cargo bench -p
//! aether-bench`): the library, the specification's literal algorithm and the
//! peers, on identical inputs. The full report with peak memory and the large
//! workloads is `scripts/bench.sh`.

use aether_bench::{literal, peers, workloads};
use aether_planner::{islands, plan_offsets, transitive_reduction};
use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

const SEED: u64 = 2026;

mod offsets {
    use super::*;

    const COUNTS: &[usize] = &[1_000, 10_000];

    #[divan::bench(args = COUNTS)]
    fn library(bencher: Bencher, count: usize) {
        let tensors = workloads::random_tensors(count, SEED);
        bencher.bench(|| plan_offsets(black_box(&tensors)));
    }

    #[divan::bench(args = COUNTS)]
    fn literal_greedy(bencher: Bencher, count: usize) {
        let tensors = workloads::random_tensors(count, SEED);
        bencher.bench(|| literal::plan_offsets(black_box(&tensors)));
    }

    #[divan::bench]
    fn library_minimalloc_k(bencher: Bencher) {
        let path = workloads::data_dir().join("minimalloc/challenging/K.1048576.csv");
        let tensors = workloads::minimalloc(&path);
        bencher.bench(|| plan_offsets(black_box(&tensors)));
    }

    #[divan::bench]
    fn literal_minimalloc_k(bencher: Bencher) {
        let path = workloads::data_dir().join("minimalloc/challenging/K.1048576.csv");
        let tensors = workloads::minimalloc(&path);
        bencher.bench(|| literal::plan_offsets(black_box(&tensors)));
    }
}

/// Library and literal greedy on both sides of the library's crossovers
/// between its direct scans and its index (128, 512 and, dense, 8192
/// tensors): the library must be no slower at any size.
mod offsets_crossover {
    use super::*;
    use aether_planner::TensorLifetime;

    const COUNTS: &[usize] = &[64, 128, 129, 256, 512, 513, 1024, 2048];

    /// A chain (each tensor meets its neighbours only) with sizes falling
    /// in time, as in most networks, or random.
    fn chain(count: usize, falling: bool) -> Vec<TensorLifetime> {
        let mut rng = aether_bench::rng::Rng::new(SEED);
        (0..count)
            .map(|i| {
                let size = if falling {
                    64 * (count - i) + 64 * rng.below(4)
                } else {
                    64 * (1 + rng.below(64))
                };
                TensorLifetime::new(size, i, i + 1)
            })
            .collect()
    }

    /// Random lifetimes of 1 to 100 nodes over `count` nodes.
    fn random_short(count: usize) -> Vec<TensorLifetime> {
        let mut rng = aether_bench::rng::Rng::new(SEED);
        (0..count)
            .map(|_| {
                let start = rng.below(count);
                TensorLifetime::new(16 * (1 + rng.below(4096)), start, start + rng.below(100))
            })
            .collect()
    }

    #[divan::bench(args = COUNTS)]
    fn library_falling_chain(bencher: Bencher, count: usize) {
        let tensors = chain(count, true);
        bencher.bench(|| plan_offsets(black_box(&tensors)));
    }

    #[divan::bench(args = COUNTS)]
    fn literal_falling_chain(bencher: Bencher, count: usize) {
        let tensors = chain(count, true);
        bencher.bench(|| literal::plan_offsets(black_box(&tensors)));
    }

    #[divan::bench(args = COUNTS)]
    fn library_random_chain(bencher: Bencher, count: usize) {
        let tensors = chain(count, false);
        bencher.bench(|| plan_offsets(black_box(&tensors)));
    }

    #[divan::bench(args = COUNTS)]
    fn literal_random_chain(bencher: Bencher, count: usize) {
        let tensors = chain(count, false);
        bencher.bench(|| literal::plan_offsets(black_box(&tensors)));
    }

    #[divan::bench(args = COUNTS)]
    fn library_random_short(bencher: Bencher, count: usize) {
        let tensors = random_short(count);
        bencher.bench(|| plan_offsets(black_box(&tensors)));
    }

    #[divan::bench(args = COUNTS)]
    fn literal_random_short(bencher: Bencher, count: usize) {
        let tensors = random_short(count);
        bencher.bench(|| literal::plan_offsets(black_box(&tensors)));
    }
}

mod reduction {
    use super::*;

    /// `(nodes, mean out-degree)`; degree 0 stands for the collectives DAG.
    const GRAPHS: &[(usize, usize)] = &[(1_000, 2), (1_000, 8), (1_024, 0)];

    fn graph(node_count: usize, degree: usize) -> Vec<(usize, usize)> {
        if degree == 0 {
            workloads::collectives_dag(node_count, SEED)
        } else {
            workloads::random_dag(node_count, degree, SEED)
        }
    }

    #[divan::bench(args = GRAPHS)]
    fn library(bencher: Bencher, (node_count, degree): (usize, usize)) {
        let edges = graph(node_count, degree);
        bencher.bench(|| transitive_reduction(node_count, black_box(&edges)));
    }

    #[divan::bench(args = GRAPHS)]
    fn literal_bit_matrix(bencher: Bencher, (node_count, degree): (usize, usize)) {
        let edges = graph(node_count, degree);
        bencher.bench(|| literal::transitive_reduction(node_count, black_box(&edges)));
    }

    #[divan::bench(args = GRAPHS)]
    fn petgraph_core_call(bencher: Bencher, (node_count, degree): (usize, usize)) {
        let adjacency = peers::petgraph_adjacency(node_count, &graph(node_count, degree));
        bencher.bench(|| peers::petgraph_core(black_box(&adjacency)));
    }
}

mod islands_job {
    use super::*;

    const NODES: usize = 100_000;
    const INCIDENCES: usize = 200_000;

    fn input() -> Vec<(usize, usize)> {
        workloads::random_incidences(NODES, INCIDENCES, SEED)
    }

    #[divan::bench]
    fn library(bencher: Bencher) {
        let incidences = input();
        bencher.bench(|| islands(NODES, black_box(&incidences)));
    }

    #[divan::bench]
    fn literal_forest(bencher: Bencher) {
        let incidences = input();
        bencher.bench(|| literal::islands(NODES, black_box(&incidences)));
    }

    #[divan::bench]
    fn petgraph_union_find(bencher: Bencher) {
        let incidences = input();
        bencher.bench(|| peers::petgraph_islands(NODES, black_box(&incidences)));
    }

    #[divan::bench]
    fn union_find_crate(bencher: Bencher) {
        let incidences = input();
        bencher.bench(|| peers::union_find_islands(NODES, black_box(&incidences)));
    }

    #[divan::bench]
    fn disjoint_sets_crate(bencher: Bencher) {
        let incidences = input();
        bencher.bench(|| peers::disjoint_sets_islands(NODES, black_box(&incidences)));
    }
}
