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
