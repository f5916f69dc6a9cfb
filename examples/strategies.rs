//! Runs the greedy, heuristic and search strategies on the 11 MiniMalloc
//! "challenging" problems and prints a Markdown table of arenas and times.
//!
//! ```sh
//! cargo run --release --example strategies -- [--nodes N] [--seconds S] [--files ABC] [--out FILE]
//! ```
//!
//! `--nodes` is the search's node budget per file (default the library's,
//! 300,000; 0 means none), `--seconds` its time budget per file (default
//! none), `--files` the files to run by letter (default all 11), and `--out`
//! a file that also receives the table and its summary lines. Every plan is checked for
//! soundness by a pairwise overlap test before it is reported; an unsound
//! plan stops the run with an error. Greedy and heuristic times are the
//! shortest of 5 runs; the search runs once. `docs/strategies.md` holds one
//! run.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use aether_planner::{
    peak_live_bytes, try_plan_offsets_with, PlanOptions, PlanReport, SearchBudget, Strategy,
    TensorLifetime,
};

const FILES: [&str; 11] = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"];

/// Best known arenas (data/minimalloc/SOURCE.md).
fn best_known(file: &str) -> usize {
    match file {
        "C" => 1_039_360,
        "D" => 1_040_384,
        "J" => 1_044_480,
        _ => 1_048_576,
    }
}

/// MiniMalloc's `id,lower,upper,size` with `upper` exclusive, as inclusive
/// lifetimes.
fn read_minimalloc(path: &str) -> Result<Vec<TensorLifetime>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut tensors = Vec::new();
    for (line_number, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.trim().split(',').collect();
        let parse = |k: usize| -> Result<usize, String> {
            fields
                .get(k)
                .and_then(|f| f.trim().parse().ok())
                .ok_or(format!("{path}:{}: bad field {k}", line_number + 1))
        };
        let (lower, upper, size) = (parse(1)?, parse(2)?, parse(3)?);
        if upper <= lower {
            return Err(format!("{path}:{}: empty lifespan", line_number + 1));
        }
        tensors.push(TensorLifetime::new(size, lower, upper - 1));
    }
    Ok(tensors)
}

/// Pairwise: lifetime-intersecting tensors must not share a byte.
fn is_sound(tensors: &[TensorLifetime], report: &PlanReport) -> bool {
    let offsets = &report.plan.offsets;
    let arena_ok = tensors
        .iter()
        .zip(offsets)
        .all(|(t, &o)| t.size == 0 || o + t.size <= report.plan.arena_size);
    arena_ok
        && (0..tensors.len()).all(|i| {
            (i + 1..tensors.len()).all(|j| {
                let (a, b) = (&tensors[i], &tensors[j]);
                a.size == 0
                    || b.size == 0
                    || !a.overlaps(b)
                    || offsets[i] + a.size <= offsets[j]
                    || offsets[j] + b.size <= offsets[i]
            })
        })
}

/// Plans `repeats` times and keeps the shortest time: on a shared machine
/// the minimum is the figure least disturbed by other work. Every repeat
/// must give the same report.
fn run(
    tensors: &[TensorLifetime],
    strategy: Strategy,
    budget: SearchBudget,
    repeats: usize,
) -> Result<(PlanReport, Duration), String> {
    let options = PlanOptions::default()
        .with_strategy(strategy)
        .with_budget(budget);
    let mut best: Option<(PlanReport, Duration)> = None;
    for _ in 0..repeats.max(1) {
        let clock = Instant::now();
        let report = try_plan_offsets_with(tensors, &options).map_err(|e| e.to_string())?;
        let elapsed = clock.elapsed();
        if !is_sound(tensors, &report) {
            return Err(format!("{strategy:?}: unsound plan"));
        }
        if let Some((first, time)) = &mut best {
            if *first != report {
                return Err(format!("{strategy:?}: a repeat gave another plan"));
            }
            *time = (*time).min(elapsed);
        } else {
            best = Some((report, elapsed));
        }
    }
    best.ok_or_else(|| "no run".to_string())
}

fn main() -> Result<(), String> {
    let mut nodes: Option<u64> = SearchBudget::default().nodes;
    let mut seconds: Option<f64> = None;
    let mut out: Option<String> = None;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--nodes" => {
                let n: u64 = value.parse().map_err(|_| "bad --nodes")?;
                nodes = (n > 0).then_some(n);
            }
            "--seconds" => seconds = Some(value.parse().map_err(|_| "bad --seconds")?),
            "--out" => out = Some(value),
            "--files" => only = Some(value),
            _ => return Err(format!("unknown option {arg}")),
        }
    }
    let budget = SearchBudget::unlimited()
        .with_time(seconds.map(Duration::from_secs_f64))
        .with_nodes(nodes);
    let root = env!("CARGO_MANIFEST_DIR");

    let mut table = String::new();
    let _ = writeln!(
        table,
        "| file | buffers | peak | best known | greedy | ms | heuristic | ms | search | s | nodes | lower bound | proven optimal |"
    );
    let _ = writeln!(
        table,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let (mut greedy_ratio, mut heuristic_ratio, mut search_ratio) = (0f64, 0f64, 0f64);
    let mut search_total = Duration::ZERO;
    let mut heuristic_worst = Duration::ZERO;
    let (mut within_capacity, mut proven) = (0, 0);
    let mut below_best_known: Vec<&str> = Vec::new();
    let files: Vec<&str> = FILES
        .into_iter()
        .filter(|f| only.as_ref().map_or(true, |o| o.contains(f)))
        .collect();
    for &file in &files {
        let path = format!("{root}/data/minimalloc/challenging/{file}.1048576.csv");
        let tensors = read_minimalloc(&path)?;
        let peak = peak_live_bytes(&tensors);
        let best = best_known(file);
        let (greedy, greedy_time) = run(&tensors, Strategy::Greedy, budget, 5)?;
        let (heuristic, heuristic_time) = run(&tensors, Strategy::Heuristic, budget, 5)?;
        let (search, search_time) = run(&tensors, Strategy::Search, budget, 1)?;
        greedy_ratio += (greedy.plan.arena_size as f64 / best as f64).ln();
        heuristic_ratio += (heuristic.plan.arena_size as f64 / best as f64).ln();
        search_ratio += (search.plan.arena_size as f64 / best as f64).ln();
        search_total += search_time;
        heuristic_worst = heuristic_worst.max(heuristic_time);
        within_capacity += usize::from(search.plan.arena_size <= 1_048_576);
        proven += usize::from(search.proven_optimal);
        if search.plan.arena_size < best {
            below_best_known.push(file);
        }
        let _ = writeln!(
            table,
            "| {file} | {} | {peak} | {best} | {} | {:.2} | {} | {:.2} | {} | {:.3} | {} | {} | {} |",
            tensors.len(),
            greedy.plan.arena_size,
            greedy_time.as_secs_f64() * 1e3,
            heuristic.plan.arena_size,
            heuristic_time.as_secs_f64() * 1e3,
            search.plan.arena_size,
            search_time.as_secs_f64(),
            search.search_nodes,
            search.lower_bound,
            if search.proven_optimal { "yes" } else { "no" },
        );
        eprintln!("{file} done");
    }
    let count = files.len() as f64;
    let mut summary = String::new();
    let _ = writeln!(
        summary,
        "Geometric mean arena / best known: greedy {:.3}, heuristic {:.3}, search {:.3}.",
        (greedy_ratio / count).exp(),
        (heuristic_ratio / count).exp(),
        (search_ratio / count).exp(),
    );
    let _ = writeln!(
        summary,
        "Slowest heuristic plan: {:.2} ms. Search: {within_capacity}/11 files within 1,048,576 bytes, \
         {proven}/11 proven optimal, {:.2} s in total.",
        heuristic_worst.as_secs_f64() * 1e3,
        search_total.as_secs_f64(),
    );
    let _ = writeln!(
        summary,
        "Search arena below the best known: {}.",
        if below_best_known.is_empty() {
            "none".to_string()
        } else {
            below_best_known.join(", ")
        },
    );
    let budget_text = format!(
        "Search budget per file: {} nodes, {}.",
        nodes.map_or("unlimited".to_string(), |n| n.to_string()),
        seconds.map_or("no time limit".to_string(), |s| format!("{s} s")),
    );
    print!("{table}\n{summary}\n{budget_text}\n");
    if let Some(out) = out {
        let text = format!("{table}\n{summary}\n{budget_text}\n");
        std::fs::write(&out, text).map_err(|e| format!("{out}: {e}"))?;
    }
    Ok(())
}
