//! The constrained planner at scale: `bench-constrained [CASE...]` plans each
//! case with `try_plan_problem` and prints one line per call: the wall time,
//! the process's peak resident memory growth during the call (`VmHWM`, reset
//! before it) and the outcome. Figures, not verdicts: run each case in a
//! process of its own (`bench-constrained chain-fixed`) for a clean memory
//! figure. Cases (all by default): `chain-fixed`, `all-live-alignment`,
//! `all-live-search`, `all-live-gap`, `capacity`, `byte-stepping`.

#[path = "../../../tests/common/problems.rs"]
#[allow(dead_code)]
mod problems;

use std::time::{Duration, Instant};

use aether_bench::measure::{reset_peak, status_bytes};
use aether_bench::rng::Rng;
use aether_planner::{
    try_peak_live_bytes, try_plan_problem, LifetimeGap, PlanOptions, PlanProblem, SearchBudget,
    Strategy, TensorLifetime,
};
use problems::byte_stepping;

const STRATEGIES: [Strategy; 3] = [Strategy::Greedy, Strategy::Heuristic, Strategy::Search];
const CASES: [&str; 6] = [
    "chain-fixed",
    "all-live-alignment",
    "all-live-search",
    "all-live-gap",
    "capacity",
    "byte-stepping",
];

fn options(strategy: Strategy, budget_ms: u64) -> PlanOptions {
    PlanOptions::default()
        .with_strategy(strategy)
        .with_budget(SearchBudget::unlimited().with_time(Some(Duration::from_millis(budget_ms))))
}

fn measure(name: &str, problem: &PlanProblem<'_>, options: &PlanOptions) {
    let clean = reset_peak();
    let before = status_bytes("VmHWM").unwrap_or(0);
    let started = Instant::now();
    let result = try_plan_problem(problem, options);
    let elapsed = started.elapsed();
    let grown = status_bytes("VmHWM").unwrap_or(0).saturating_sub(before);
    let outcome = match &result {
        Ok(r) => format!(
            "arena {} bound {} nodes {}",
            r.plan.arena_size, r.lower_bound, r.search_nodes
        ),
        Err(e) => format!("{e}"),
    };
    let memory = if clean {
        format!("{:.1} MiB", grown as f64 / (1 << 20) as f64)
    } else {
        "memory not measured".to_string()
    };
    println!(
        "{name}, {:?}, budget {:?}: {:.3} s, {memory}, {outcome}",
        options.strategy,
        options.budget.time,
        elapsed.as_secs_f64()
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

fn run(case: &str) {
    match case {
        "chain-fixed" => {
            for n in [25_000, 50_000, 100_000] {
                let tensors = chain(n);
                let mut fixed = vec![None; n];
                fixed[n / 2] = Some(4096);
                let problem = PlanProblem::new(&tensors).with_fixed_offsets(&fixed);
                for strategy in STRATEGIES {
                    let name = format!("chain {n}, one fixed offset");
                    measure(&name, &problem, &options(strategy, 2000));
                }
            }
        }
        "all-live-alignment" => {
            for n in [2_500, 5_000, 10_000] {
                let tensors = all_live(n);
                let mut alignments = vec![1; n];
                alignments[0] = 2;
                let problem = PlanProblem::new(&tensors).with_alignments(&alignments);
                for strategy in STRATEGIES {
                    let name = format!("all-live {n}, one alignment");
                    measure(&name, &problem, &options(strategy, 2000));
                }
            }
        }
        "all-live-search" => {
            let tensors = all_live(2000);
            let mut alignments = vec![1; 2000];
            alignments[7] = 64;
            let problem = PlanProblem::new(&tensors).with_alignments(&alignments);
            for ms in [100, 1000] {
                let name = "all-live 2000, one alignment";
                measure(name, &problem, &options(Strategy::Search, ms));
            }
        }
        "all-live-gap" => {
            // A gap makes the blocks more than intervals: the pairs are listed.
            let tensors = all_live(2000);
            let gaps = [LifetimeGap::new(3, 1, 1).with_window(Some((0, 8)))];
            let problem = PlanProblem::new(&tensors).with_gaps(&gaps);
            for ms in [100, 1000] {
                let name = "all-live 2000, one gap";
                measure(name, &problem, &options(Strategy::Search, ms));
            }
        }
        "capacity" => {
            // A capacity at the live peak, which the search neither reaches
            // nor disproves quickly: the budget must be spent once.
            let n = 4000;
            let window: Vec<TensorLifetime> = (0..n)
                .map(|i| TensorLifetime::new(64 + (i * 7919) % 4000, i, i + 10))
                .collect();
            let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
            let short: Vec<TensorLifetime> = (0..n)
                .map(|_| {
                    let first = rng.below(4000);
                    TensorLifetime::new(64 + rng.below(4000), first, first + rng.below(100))
                })
                .collect();
            for (name, tensors) in [("window 4000", window), ("random short 4000", short)] {
                let peak = try_peak_live_bytes(&tensors).expect("a valid table");
                let problem = PlanProblem::new(&tensors).with_capacity(Some(peak));
                let name = format!("{name}, capacity = peak");
                measure(&name, &problem, &options(Strategy::Search, 2000));
            }
        }
        "byte-stepping" => {
            for k in [16, 20, 24] {
                let big = 1usize << k;
                let (tensors, gaps, fixed) = byte_stepping(big);
                let problem = PlanProblem::new(&tensors)
                    .with_gaps(&gaps)
                    .with_fixed_offsets(&fixed)
                    .with_capacity(Some(big + 10));
                let name = format!("byte stepping 2^{k}");
                measure(&name, &problem, &options(Strategy::Search, 200));
            }
        }
        _ => {
            eprintln!("bench-constrained: unknown case {case:?}; cases: {CASES:?}");
            std::process::exit(2);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        CASES.iter().for_each(|case| run(case));
    } else {
        args.iter().for_each(|case| run(case));
    }
}
