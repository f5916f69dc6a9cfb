//! Measurements of the constrained planner at scale, printed, not asserted
//! (a machine's speed is no test): run with
//! `cargo test --release --test constrained_scale -- --ignored --nocapture --test-threads=1`.
//! Each figure is the wall time of one `try_plan_problem` call and the
//! process's peak resident memory so far (`VmHWM`); run one test per
//! process for a clean memory figure.

use std::time::{Duration, Instant};

#[path = "common/oracles.rs"]
mod oracles;
#[path = "common/problems.rs"]
mod problems;
use oracles::Rng;
use problems::byte_stepping;

use aether_planner::{
    try_plan_problem, LifetimeGap, PlanOptions, PlanProblem, SearchBudget, Strategy, TensorLifetime,
};

const STRATEGIES: [Strategy; 3] = [Strategy::Greedy, Strategy::Heuristic, Strategy::Search];

/// The peak resident set of this process, in MiB.
fn peak_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

fn options(strategy: Strategy, budget_ms: Option<u64>) -> PlanOptions {
    let mut o = PlanOptions::default();
    o.strategy = strategy;
    o.budget = SearchBudget::unlimited().with_time(budget_ms.map(Duration::from_millis));
    o
}

fn measure(name: &str, problem: &PlanProblem<'_>, options: &PlanOptions) {
    let started = Instant::now();
    let result = try_plan_problem(problem, options);
    let elapsed = started.elapsed();
    let outcome = match &result {
        Ok(r) => format!(
            "arena {} bound {} nodes {}",
            r.plan.arena_size, r.lower_bound, r.search_nodes
        ),
        Err(e) => format!("{e}"),
    };
    println!(
        "{name} {:?} budget {:?}: {:.3} s, peak {} MiB, {outcome}",
        options.strategy,
        options.budget.time,
        elapsed.as_secs_f64(),
        peak_mib()
    );
}

/// Buffer `i` lives at nodes `i` and `i + 1`.
fn chain(n: usize) -> Vec<TensorLifetime> {
    (0..n)
        .map(|i| TensorLifetime::new(64 + (i * 37) % 1000, i, i + 1))
        .collect()
}

/// `n` buffers all live at node 0.
fn all_live(n: usize) -> Vec<TensorLifetime> {
    (0..n)
        .map(|i| TensorLifetime::new(64 + (i * 37) % 1000, 0, 1 + i % 3))
        .collect()
}

#[test]
#[ignore]
fn chain_with_one_fixed_offset() {
    for n in [25_000, 50_000, 100_000] {
        let tensors = chain(n);
        let mut fixed = vec![None; n];
        fixed[n / 2] = Some(4096);
        let problem = PlanProblem::new(&tensors).with_fixed_offsets(&fixed);
        for strategy in STRATEGIES {
            measure(
                &format!("chain {n}, one fixed"),
                &problem,
                &options(strategy, Some(2000)),
            );
        }
    }
}

#[test]
#[ignore]
fn all_live_with_one_alignment() {
    for n in [2_500, 5_000, 10_000] {
        let tensors = all_live(n);
        let mut alignments = vec![1; n];
        alignments[0] = 2;
        let problem = PlanProblem::new(&tensors).with_alignments(&alignments);
        for strategy in STRATEGIES {
            measure(
                &format!("all-live {n}, one alignment"),
                &problem,
                &options(strategy, Some(2000)),
            );
        }
    }
}

#[test]
#[ignore]
fn all_live_search_within_its_budget() {
    // 2,000 buffers live together, one aligned: the search with 1 s.
    let tensors = all_live(2000);
    let mut alignments = vec![1; 2000];
    alignments[7] = 64;
    let problem = PlanProblem::new(&tensors).with_alignments(&alignments);
    for ms in [100, 1000] {
        measure(
            "all-live 2000, one alignment",
            &problem,
            &options(Strategy::Search, Some(ms)),
        );
    }
}

#[test]
#[ignore]
fn all_live_with_one_gap_search_within_its_budget() {
    // A gap makes the blocks more than intervals: the pairs are listed.
    let tensors = all_live(2000);
    let gaps = [LifetimeGap::new(3, 1, 1).with_window(Some((0, 8)))];
    let problem = PlanProblem::new(&tensors).with_gaps(&gaps);
    for ms in [100, 1000] {
        measure(
            "all-live 2000, one gap",
            &problem,
            &options(Strategy::Search, Some(ms)),
        );
    }
}

#[test]
#[ignore]
fn plain_problem_with_a_capacity_spends_the_budget_once() {
    // A sliding window: each buffer lives 11 nodes; the capacity is the
    // live peak, which the search does not reach or disprove quickly.
    let n = 4000;
    let tensors: Vec<TensorLifetime> = (0..n)
        .map(|i| TensorLifetime::new(64 + (i * 7919) % 4000, i, i + 10))
        .collect();
    let peak = aether_planner::try_peak_live_bytes(&tensors).unwrap();
    let problem = PlanProblem::new(&tensors).with_capacity(Some(peak));
    measure(
        "window 4000, capacity = peak",
        &problem,
        &options(Strategy::Search, Some(2000)),
    );
    // Random short lifetimes (1-100 nodes), where the plain plan stays
    // above the peak.
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let mut next = |bound: usize| rng.below(bound);
    let tensors: Vec<TensorLifetime> = (0..n)
        .map(|_| {
            let first = next(4000);
            TensorLifetime::new(64 + next(4000), first, first + next(100))
        })
        .collect();
    let peak = aether_planner::try_peak_live_bytes(&tensors).unwrap();
    let problem = PlanProblem::new(&tensors).with_capacity(Some(peak));
    measure(
        "random short 4000, capacity = peak",
        &problem,
        &options(Strategy::Search, Some(2000)),
    );
}

#[test]
#[ignore]
fn byte_stepping_node() {
    for k in [16, 20, 24] {
        let big = 1usize << k;
        let (tensors, gaps, fixed) = byte_stepping(big);
        let problem = PlanProblem::new(&tensors)
            .with_gaps(&gaps)
            .with_fixed_offsets(&fixed)
            .with_capacity(Some(big + 10));
        measure(
            &format!("byte stepping 2^{k}"),
            &problem,
            &options(Strategy::Search, Some(200)),
        );
    }
}
