//! One measurement of the compiler-scale benchmark: plan a MiniMalloc CSV
//! file (`id,lower,upper,size`, `upper` exclusive) with one strategy and
//! print what came out. It uses only the public API that 0.1.0 already had,
//! so `scripts/bench_scale.sh` builds this same file against 0.1.0 and the
//! two are measured side by side.
//!
//! Output, one line of `key=value` fields: buffers, pairs (lifetime
//! conflicts), peak, arena, lower, proven, seconds (the library call only),
//! rss_kib (the process's peak resident memory, input included).

use std::time::{Duration, Instant};

use aether_planner::{
    try_peak_live_bytes, try_plan_offsets_with, PlanOptions, SearchBudget, Strategy, TensorLifetime,
};

/// Reads a MiniMalloc CSV as inclusive lifetimes.
pub fn read_csv(path: &str) -> Vec<TensorLifetime> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<usize> = line
                .split(',')
                .skip(1)
                .map(|f| {
                    f.trim()
                        .parse()
                        .unwrap_or_else(|e| panic!("{path}: {f:?}: {e}"))
                })
                .collect();
            TensorLifetime::new(fields[2], fields[0], fields[1] - 1)
        })
        .collect()
}

/// Pairs of non-zero tensors whose lifetimes intersect, by a sweep.
pub fn conflict_pairs(tensors: &[TensorLifetime]) -> u64 {
    let mut firsts: Vec<usize> = tensors
        .iter()
        .filter(|t| t.size > 0)
        .map(|t| t.first_use)
        .collect();
    firsts.sort_unstable();
    let mut pairs = 0u64;
    for t in tensors.iter().filter(|t| t.size > 0) {
        // Later starters (by sorted position) that start by this one's end.
        let starts_by_end = firsts.partition_point(|&f| f <= t.last_use);
        let at_or_before = firsts.partition_point(|&f| f <= t.first_use);
        pairs += (starts_by_end - at_or_before) as u64;
    }
    // Each unordered pair with distinct starts counted once above; pairs with
    // equal starts were skipped by both: count them per start value.
    let mut k = 0;
    while k < firsts.len() {
        let run = firsts[k..].partition_point(|&f| f == firsts[k]);
        pairs += (run * (run - 1) / 2) as u64;
        k += run;
    }
    pairs
}

/// The process's peak resident memory in KiB (`VmHWM`), 0 where unknown.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix("VmHWM:")
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
        })
        .unwrap_or(0)
}

/// `run FILE greedy|heuristic|search [BUDGET_MS]`: one measurement.
pub fn run(args: &[String]) {
    let (path, strategy) = (&args[0], args[1].as_str());
    let tensors = read_csv(path);
    let strategy = match strategy {
        "greedy" => Strategy::Greedy,
        "heuristic" => Strategy::Heuristic,
        "search" => Strategy::Search,
        other => panic!("unknown strategy {other}"),
    };
    let budget = match args.get(2) {
        Some(ms) => SearchBudget {
            time: Some(Duration::from_millis(ms.parse().expect("budget in ms"))),
            nodes: None,
        },
        None => SearchBudget::default(),
    };
    let options = PlanOptions {
        strategy,
        budget,
        ..PlanOptions::default()
    };
    let peak = try_peak_live_bytes(&tensors).expect("valid table");
    let started = Instant::now();
    let report = try_plan_offsets_with(&tensors, &options).expect("a plan");
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "buffers={} pairs={} peak={} arena={} lower={} proven={} seconds={:.6} rss_kib={}",
        tensors.len(),
        conflict_pairs(&tensors),
        peak,
        report.plan.arena_size,
        report.lower_bound,
        report.proven_optimal,
        seconds,
        peak_rss_kib()
    );
}
