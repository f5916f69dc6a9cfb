//! Measures every workload with the library, the literal baseline and each
//! peer, one child process per case, and writes `BENCHMARKS.md`.
//!
//! ```text
//! bench-report [--quick] [--out PATH]   measure everything, write the report
//! bench-report --case WORKLOAD IMPL     (child) run one case, print its figures
//! ```
//!
//! A child builds its input (untimed), then runs the case until it has a
//! stable median (see `Runs`), and prints `RESULT <runs> <peak bytes> <ns>...`.
//! Peak memory is the case's own growth of the resident high-water mark.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Duration;

use aether_bench::measure::{measure, median, Runs, Sample};
use aether_bench::{floors, literal, peers, workloads};
use aether_planner::ffi::{aether_edge, aether_transitive_reduction};
use aether_planner::{
    islands, plan_offsets, transitive_reduction, try_plan_offsets_with,
    try_transitive_reduction_with_budget, PlanOptions, TensorLifetime,
};

/// The workspace form's call, shared with the scale benchmark.
#[path = "../scale_driver.rs"]
#[allow(dead_code)]
mod driver;

/// The three jobs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Job {
    Offsets,
    Reduction,
    Islands,
}

/// A named workload, whether `--quick` runs it, and the implementations
/// measured on it.
struct Workload {
    name: &'static str,
    job: Job,
    quick: bool,
    implementations: &'static [&'static str],
}

const OFFSETS: &[&str] = &["library", "library-workspace", "literal"];
const REDUCTION: &[&str] = &[
    "library",
    "library-whole",
    "triangle-floor",
    "literal",
    "petgraph-core",
    "petgraph",
];
/// The reduction with fixed block budgets beside the layout it picks.
const REDUCTION_SWEEP: &[&str] = &[
    "library",
    "library-4MiB",
    "library-8MiB",
    "library-16MiB",
    "library-32MiB",
    "library-64MiB",
    "library-whole",
    "triangle-floor",
    "literal",
    "petgraph-core",
    "petgraph",
];
/// The sweep where the literal algorithm and the peers take too long.
const LARGE_SWEEP: &[&str] = &[
    "library",
    "library-4MiB",
    "library-8MiB",
    "library-16MiB",
    "library-32MiB",
    "library-64MiB",
    "library-whole",
    "triangle-floor",
];
/// The budgets `LARGE_SWEEP` and `REDUCTION_SWEEP` compare the default with.
const BUDGETS: &[&str] = &[
    "library-4MiB",
    "library-8MiB",
    "library-16MiB",
    "library-32MiB",
    "library-64MiB",
];
const ISLANDS: &[&str] = &[
    "library",
    "floor",
    "literal",
    "petgraph",
    "union-find",
    "disjoint-sets",
    "read-once",
];

fn workloads() -> Vec<Workload> {
    let mut all = Vec::new();
    let mut add = |name, job, quick, implementations| {
        all.push(Workload {
            name,
            job,
            quick,
            implementations,
        })
    };
    // MiniMalloc A-K and the networks; `--quick` runs K alone of them.
    for name in ENGINE_TABLES {
        add(name, Job::Offsets, name == "minimalloc-K", OFFSETS);
    }
    add("random-tensors-1k", Job::Offsets, true, OFFSETS);
    add("random-tensors-10k", Job::Offsets, true, OFFSETS);
    add("random-tensors-100k", Job::Offsets, false, OFFSETS);
    // The greedy at scale, through the aligned entry point the C call
    // wraps; the literal algorithm would take hours.
    // The heap-free form beside it, in the caller's workspace.
    for name in ["chain-1M", "chain-2M", "chain-4M"] {
        add(
            name,
            Job::Offsets,
            false,
            &["library-aligned", "library-workspace"],
        );
    }

    add("dag-1k-deg2", Job::Reduction, true, REDUCTION);
    add("dag-1k-deg8", Job::Reduction, true, REDUCTION);
    add("dag-10k-deg2", Job::Reduction, true, REDUCTION);
    add("dag-10k-deg8", Job::Reduction, false, REDUCTION);
    add("dag-50k-deg2", Job::Reduction, false, REDUCTION_SWEEP);
    add("dag-50k-deg8", Job::Reduction, false, REDUCTION_SWEEP);
    add("dag-200k-deg2", Job::Reduction, false, LARGE_SWEEP);
    add("layered-20k", Job::Reduction, true, REDUCTION);
    add("collectives-1024", Job::Reduction, true, REDUCTION);
    add(
        "dag-200k-deg2-256MiB",
        Job::Reduction,
        false,
        &["library-256MiB"],
    );
    add(
        "dag-1e6-deg2",
        Job::Reduction,
        false,
        &["library", "library-c"],
    );

    add("incidences-1e6-E1e6", Job::Islands, true, ISLANDS);
    add("incidences-1e6-E2e6", Job::Islands, false, ISLANDS);
    add("incidences-1e7-E1e7", Job::Islands, false, ISLANDS);
    add("incidences-1e7-E2e7", Job::Islands, false, ISLANDS);
    add("chain-1e7-shuffled", Job::Islands, false, ISLANDS);
    add("small-islands-100k", Job::Islands, true, ISLANDS);
    all
}

/// A workload's input, built from its fixed seed or read from `data/`.
enum Input {
    Tensors(Vec<TensorLifetime>),
    Graph(usize, Vec<(usize, usize)>),
}

fn input(name: &str) -> Input {
    if let Some(letter) = name.strip_prefix("minimalloc-") {
        let path =
            workloads::data_dir().join(format!("minimalloc/challenging/{letter}.1048576.csv"));
        return Input::Tensors(workloads::minimalloc(&path));
    }
    if let Some(model) = name.strip_prefix("mobilenet-") {
        let file = format!("networks/mobilenet_{}_fp32.csv", model.replace('-', "_"));
        return Input::Tensors(workloads::network(&workloads::data_dir().join(file)));
    }
    let seed = 2026;
    match name {
        "random-tensors-1k" => Input::Tensors(workloads::random_tensors(1_000, seed)),
        "random-tensors-10k" => Input::Tensors(workloads::random_tensors(10_000, seed)),
        "random-tensors-100k" => Input::Tensors(workloads::random_tensors(100_000, seed)),
        "chain-1M" => Input::Tensors(chain_tensors(1 << 20, seed)),
        "chain-2M" => Input::Tensors(chain_tensors(2 << 20, seed)),
        "chain-4M" => Input::Tensors(chain_tensors(4 << 20, seed)),
        "dag-1k-deg2" => Input::Graph(1_000, workloads::random_dag(1_000, 2, seed)),
        "dag-1k-deg8" => Input::Graph(1_000, workloads::random_dag(1_000, 8, seed)),
        "dag-10k-deg2" => Input::Graph(10_000, workloads::random_dag(10_000, 2, seed)),
        "dag-10k-deg8" => Input::Graph(10_000, workloads::random_dag(10_000, 8, seed)),
        "dag-50k-deg2" => Input::Graph(50_000, workloads::random_dag(50_000, 2, seed)),
        "dag-50k-deg8" => Input::Graph(50_000, workloads::random_dag(50_000, 8, seed)),
        "dag-200k-deg2" | "dag-200k-deg2-256MiB" => {
            Input::Graph(200_000, workloads::random_dag(200_000, 2, seed))
        }
        "dag-1e6-deg2" => Input::Graph(1_000_000, workloads::random_dag(1_000_000, 2, seed)),
        "layered-20k" => Input::Graph(20_000, workloads::layered_dag(20_000, seed)),
        "collectives-1024" => Input::Graph(1_024, workloads::collectives_dag(1_024, seed)),
        "incidences-1e6-E1e6" => Input::Graph(
            1_000_000,
            workloads::random_incidences(1_000_000, 1_000_000, seed),
        ),
        "incidences-1e6-E2e6" => Input::Graph(
            1_000_000,
            workloads::random_incidences(1_000_000, 2_000_000, seed),
        ),
        "incidences-1e7-E1e7" => Input::Graph(
            10_000_000,
            workloads::random_incidences(10_000_000, 10_000_000, seed),
        ),
        "incidences-1e7-E2e7" => Input::Graph(
            10_000_000,
            workloads::random_incidences(10_000_000, 20_000_000, seed),
        ),
        "chain-1e7-shuffled" => {
            Input::Graph(10_000_000, workloads::shuffled_chain(10_000_000, seed))
        }
        "small-islands-100k" => {
            let (node_count, incidences) = workloads::small_islands(100_000, seed);
            Input::Graph(node_count, incidences)
        }
        _ => panic!("unknown workload {name}"),
    }
}

/// The chain of issue 21: tensor `i` lives nodes `[i, i + 1]`, sizes
/// `64 · U{1..64}` bytes.
fn chain_tensors(count: usize, seed: u64) -> Vec<TensorLifetime> {
    let mut rng = aether_bench::rng::Rng::new(seed);
    (0..count)
        .map(|i| TensorLifetime::new(64 * (1 + rng.below(64)), i, i + 1))
        .collect()
}

/// Runs one case in this process and prints its figures.
fn run_case(name: &str, implementation: &str, quick: bool) {
    let runs = if quick {
        Runs {
            min_runs: 3,
            max_runs: 9,
            target: Duration::from_millis(300),
            single_run_cap: Duration::from_secs(5),
        }
    } else {
        Runs {
            min_runs: 5,
            max_runs: 51,
            target: Duration::from_secs(3),
            single_run_cap: Duration::from_secs(8),
        }
    };
    let sample: Sample = match (input(name), implementation) {
        (Input::Tensors(tensors), "library") => measure(runs, || plan_offsets(&tensors)),
        (Input::Tensors(tensors), "library-aligned") => {
            // Field by field, so that the options may become non-exhaustive.
            #[allow(clippy::field_reassign_with_default)]
            let options = {
                let mut options = PlanOptions::default();
                options.alignment = 64;
                options
            };
            measure(runs, || try_plan_offsets_with(&tensors, &options).unwrap())
        }
        (Input::Tensors(tensors), "library-workspace") => {
            // The C entry point over a workspace and outputs made untimed,
            // as an engine that allocates nothing at run time holds them.
            let table = driver::c_table(&tensors);
            let mut workspace = vec![0u64; driver::workspace_words(table.len())];
            let mut offsets = vec![0usize; table.len()];
            measure(runs, || {
                driver::plan_in_workspace(&table, &mut workspace, &mut offsets)
            })
        }
        (Input::Tensors(tensors), "literal") => {
            measure(runs, || literal::plan_offsets(&tensors).unwrap())
        }
        (Input::Graph(n, edges), "library")
            if name.starts_with("incidences")
                || name.starts_with("chain")
                || name.starts_with("small") =>
        {
            measure(runs, || islands(n, &edges))
        }
        (Input::Graph(n, edges), "literal")
            if name.starts_with("incidences")
                || name.starts_with("chain")
                || name.starts_with("small") =>
        {
            measure(runs, || literal::islands(n, &edges).unwrap())
        }
        (Input::Graph(n, edges), "floor") => measure(runs, || floors::islands_floor(n, &edges)),
        (Input::Graph(n, edges), "library") => measure(runs, || transitive_reduction(n, &edges)),
        (Input::Graph(n, edges), "library-whole") => measure(runs, || {
            try_transitive_reduction_with_budget(n, &edges, usize::MAX).unwrap()
        }),
        (Input::Graph(n, edges), "library-c") => {
            let edges: Vec<aether_edge> = edges
                .iter()
                .map(|&(source, target)| aether_edge { source, target })
                .collect();
            measure(runs, || {
                let mut out = vec![aether_edge::default(); edges.len()];
                let mut count = 0;
                // SAFETY: both arrays hold `edges.len()` elements.
                let status = unsafe {
                    aether_transitive_reduction(
                        n,
                        edges.as_ptr(),
                        edges.len(),
                        out.as_mut_ptr(),
                        out.len(),
                        &mut count,
                    )
                };
                assert_eq!(status, 0, "aether_transitive_reduction's status");
                out.truncate(count);
                out
            })
        }
        (Input::Graph(n, _), "triangle-floor") => measure(runs, || floors::reduction_floor(n)),
        (Input::Graph(n, edges), budgeted) if budgeted.starts_with("library-") => {
            let mib: usize = budgeted["library-".len()..]
                .strip_suffix("MiB")
                .and_then(|mib| mib.parse().ok())
                .unwrap_or_else(|| panic!("no implementation {budgeted}"));
            measure(runs, || {
                try_transitive_reduction_with_budget(n, &edges, mib << 20).unwrap()
            })
        }
        (Input::Graph(n, edges), "literal") => {
            measure(runs, || literal::transitive_reduction(n, &edges).unwrap())
        }
        (Input::Graph(n, edges), "petgraph-core") => {
            let graph = peers::petgraph_adjacency(n, &edges);
            measure(runs, || peers::petgraph_core(&graph))
        }
        (Input::Graph(n, edges), "petgraph")
            if name.starts_with("dag")
                || name.starts_with("layered")
                || name.starts_with("collectives") =>
        {
            measure(runs, || peers::petgraph_reduction(n, &edges))
        }
        (Input::Graph(n, edges), "petgraph") => {
            measure(runs, || peers::petgraph_islands(n, &edges))
        }
        (Input::Graph(n, edges), "union-find") => {
            measure(runs, || peers::union_find_islands(n, &edges))
        }
        (Input::Graph(n, edges), "disjoint-sets") => {
            measure(runs, || peers::disjoint_sets_islands(n, &edges))
        }
        (Input::Graph(_, edges), "read-once") => measure(runs, || {
            edges
                .iter()
                .fold(0usize, |sum, &(a, b)| sum.wrapping_add(a ^ b))
        }),
        _ => panic!("no implementation {implementation} for {name}"),
    };
    let mut line = format!(
        "RESULT {} {}",
        sample.times.len(),
        sample.peak_bytes.map_or(-1, |bytes| bytes as i64)
    );
    for time in &sample.times {
        write!(line, " {}", time.as_nanos()).unwrap();
    }
    line += " CPU";
    for time in &sample.cpu_times {
        write!(line, " {}", time.as_nanos()).unwrap();
    }
    println!("{line}");
}

/// What a child reported.
struct Figures {
    runs: usize,
    median: Duration,
    first: Duration,
    cpu_median: Option<Duration>,
    peak_bytes: Option<u64>,
}

fn run_child(name: &str, implementation: &str, quick: bool) -> Option<Figures> {
    let mut command = Command::new(std::env::current_exe().expect("own path"));
    command.args(["--case", name, implementation]);
    if quick {
        command.arg("--quick");
    }
    let output = command.output().expect("spawn child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let Some(line) = stdout.lines().find(|line| line.starts_with("RESULT ")) else {
        eprintln!(
            "  {name} / {implementation}: failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
        return None;
    };
    let (wall, cpu) = line[7..].split_once(" CPU").unwrap_or((&line[7..], ""));
    let fields: Vec<i128> = wall
        .split_whitespace()
        .map(|field| field.parse().unwrap())
        .collect();
    let nanos = |ns: &i128| Duration::from_nanos(*ns as u64);
    let times: Vec<Duration> = fields[2..].iter().map(nanos).collect();
    let cpu_times: Vec<Duration> = cpu
        .split_whitespace()
        .map(|field| Duration::from_nanos(field.parse().unwrap()))
        .collect();
    Some(Figures {
        runs: fields[0] as usize,
        median: median(&times),
        first: times[0],
        cpu_median: (!cpu_times.is_empty()).then(|| median(&cpu_times)),
        peak_bytes: (fields[1] >= 0).then_some(fields[1] as u64),
    })
}

/// Cases whose median is below this in their first process are measured
/// in [`SHORT_CASE_PROCESSES`] processes.
const SHORT_CASE: Duration = Duration::from_millis(1);
const SHORT_CASE_PROCESSES: usize = 7;

/// The figures of one case measured in several processes: the median of
/// their medians (wall and CPU), their runs summed, the first process's
/// first run, and the largest peak. `None` if no process reported.
fn combined(processes: Vec<Figures>) -> Option<Figures> {
    let first = processes.first()?.first;
    let medians: Vec<Duration> = processes.iter().map(|f| f.median).collect();
    let cpu: Vec<Duration> = processes.iter().filter_map(|f| f.cpu_median).collect();
    Some(Figures {
        runs: processes.iter().map(|f| f.runs).sum(),
        median: median(&medians),
        first,
        cpu_median: (cpu.len() == processes.len()).then(|| median(&cpu)),
        peak_bytes: processes.iter().filter_map(|f| f.peak_bytes).max(),
    })
}

fn format_time(time: Duration) -> String {
    let seconds = time.as_secs_f64();
    if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else if seconds >= 1e-3 {
        format!("{:.2} ms", seconds * 1e3)
    } else {
        format!("{:.1} µs", seconds * 1e6)
    }
}

fn format_bytes(bytes: Option<u64>) -> String {
    match bytes {
        None => "n/a".into(),
        Some(bytes) => format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64),
    }
}

fn ratio(numerator: Option<&Figures>, denominator: Option<&Figures>) -> Option<f64> {
    Some(numerator?.median.as_secs_f64() / denominator?.median.as_secs_f64())
}

fn cpu_ratio(numerator: Option<&Figures>, denominator: Option<&Figures>) -> Option<f64> {
    Some(numerator?.cpu_median?.as_secs_f64() / denominator?.cpu_median?.as_secs_f64())
}

/// A wall-time ratio with the CPU-time ratio of the same runs beside it.
fn with_cpu(wall: Option<f64>, cpu: Option<f64>) -> String {
    format!("{} (CPU time: {})", format_ratio(wall), format_ratio(cpu))
}

fn format_ratio(value: Option<f64>) -> String {
    value.map_or("n/a".into(), |value| format!("{value:.2}x"))
}

fn command_output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .unwrap_or_default()
}

type Results = Vec<(String, String, Option<Figures>)>;

fn find<'a>(results: &'a Results, name: &str, implementation: &str) -> Option<&'a Figures> {
    results
        .iter()
        .find(|(n, i, _)| n == name && i == implementation)
        .and_then(|(_, _, figures)| figures.as_ref())
}

/// One target's verdict line.
fn verdict(met: Option<bool>, text: String) -> String {
    let mark = match met {
        Some(true) => "met",
        Some(false) => "**NOT met**",
        None => "not measured",
    };
    format!("- {mark}: {text}\n")
}

/// The verdict on one workload's speed-up over a peer: "`what`, `name`:
/// `peer_label` ÷ library = …x (`target`)", met when `met` holds.
fn speedup_verdict(
    results: &Results,
    what: &str,
    name: &str,
    peer: (&str, &str),
    met: impl Fn(f64) -> bool,
    target: &str,
) -> String {
    speedup_verdict_of(results, what, name, "library", peer, met, target)
}

/// [`speedup_verdict`] of the library's implementation `ours`.
fn speedup_verdict_of(
    results: &Results,
    what: &str,
    name: &str,
    ours: &str,
    (peer, peer_label): (&str, &str),
    met: impl Fn(f64) -> bool,
    target: &str,
) -> String {
    let (slower, library) = (find(results, name, peer), find(results, name, ours));
    let speedup = ratio(slower, library);
    verdict(
        speedup.map(met),
        format!(
            "{what}, {name}: {peer_label} ÷ {ours} = {} ({target})",
            with_cpu(speedup, cpu_ratio(slower, library))
        ),
    )
}

/// The tables engines plan most, on which the greedy must never be slower
/// than the literal planner (issue 21).
const ENGINE_TABLES: [&str; 15] = [
    "minimalloc-A",
    "minimalloc-B",
    "minimalloc-C",
    "minimalloc-D",
    "minimalloc-E",
    "minimalloc-F",
    "minimalloc-G",
    "minimalloc-H",
    "minimalloc-I",
    "minimalloc-J",
    "minimalloc-K",
    "mobilenet-v1",
    "mobilenet-v2",
    "mobilenet-v3-large",
    "mobilenet-v3-small",
];

fn targets(results: &Results) -> String {
    let mut out = String::new();
    for name in [
        "dag-10k-deg2",
        "dag-10k-deg8",
        "dag-50k-deg2",
        "dag-50k-deg8",
        "layered-20k",
    ] {
        out += &speedup_verdict(
            results,
            "transitive reduction",
            name,
            ("literal", "literal"),
            |s| s >= 3.0,
            "target ≥ 3x",
        );
    }
    out += &speedup_verdict(
        results,
        "transitive reduction",
        "collectives-1024",
        ("petgraph-core", "petgraph core call"),
        |s| s > 1.0,
        "target > 1x",
    );
    for name in [
        "dag-1k-deg2",
        "dag-1k-deg8",
        "dag-10k-deg2",
        "dag-10k-deg8",
        "dag-50k-deg2",
        "dag-50k-deg8",
        "layered-20k",
        "collectives-1024",
    ] {
        let Some(peak) = find(results, name, "library").and_then(|f| f.peak_bytes) else {
            continue;
        };
        let Input::Graph(node_count, edges) = input(name) else {
            unreachable!("reduction workloads are graphs")
        };
        let (n, e) = (node_count as u64, edges.len() as u64);
        // O(n + E): grouped edges, flags and output, 32 bytes per node and
        // edge is a generous bound; the OS measures in 4 KiB pages.
        let bound = n * n / 8 + 32 * (n + e) + 4096;
        out += &verdict(
            Some(peak <= bound),
            format!(
                "transitive reduction memory, {name}: library peak {} ≤ n²/8 + 32(n + E) = {} (literal: {})",
                format_bytes(Some(peak)),
                format_bytes(Some(bound)),
                format_bytes(find(results, name, "literal").and_then(|f| f.peak_bytes)),
            ),
        );
    }
    for name in ["dag-50k-deg2", "dag-50k-deg8", "dag-200k-deg2"] {
        let best = BUDGETS
            .iter()
            .filter_map(|&b| find(results, name, b).map(|f| (b, f)))
            .min_by_key(|(_, f)| f.median);
        let library = find(results, name, "library");
        let to_best = best.and_then(|(_, f)| ratio(library, Some(f)));
        out += &verdict(
            to_best.map(|r| r <= 1.1),
            format!(
                "reduction layout, {name}: library ÷ best budget over 4–64 MiB ({}) = {} (target ≤ 1.1x); library ÷ whole triangle = {}",
                best.map_or("n/a", |(b, _)| &b["library-".len()..]),
                with_cpu(to_best, cpu_ratio(library, best.map(|(_, f)| f))),
                format_ratio(ratio(library, find(results, name, "library-whole"))),
            ),
        );
    }
    for name in [
        "dag-1k-deg2",
        "dag-1k-deg8",
        "dag-10k-deg2",
        "dag-10k-deg8",
        "layered-20k",
        "collectives-1024",
    ] {
        let (library, whole) = (
            find(results, name, "library"),
            find(results, name, "library-whole"),
        );
        let slowdown = ratio(library, whole);
        out += &verdict(
            slowdown.map(|r| r <= 1.05),
            format!(
                "reduction layout, {name}: library ÷ whole triangle in one pass (the former default) = {} (target: no slower; ≤ 1.05x allows for noise)",
                with_cpu(slowdown, cpu_ratio(library, whole)),
            ),
        );
    }
    let name = "dag-1e6-deg2";
    for implementation in ["library", "library-c"] {
        let figures = find(results, name, implementation);
        out += &verdict(
            figures.map(|_| true),
            format!(
                "no refusal, {name} ({}): {} in {}, peak {} (target: succeeds; the whole triangle would need {})",
                if implementation == "library" { "transitive_reduction" } else { "aether_transitive_reduction" },
                if figures.is_some() { "succeeded" } else { "failed" },
                figures.map_or("n/a".into(), |f| format_time(f.median)),
                format_bytes(figures.and_then(|f| f.peak_bytes)),
                format_bytes(Some(floors::triangle_words(1_000_000) as u64 * 8)),
            ),
        );
    }
    for (name, limit) in [
        ("small-islands-100k", 3.0),
        ("incidences-1e7-E1e7", 2.5),
        ("incidences-1e7-E2e7", 2.5),
        ("chain-1e7-shuffled", 2.5),
    ] {
        let (library, floor) = (find(results, name, "library"), find(results, name, "floor"));
        let to_floor = ratio(library, floor);
        out += &verdict(
            to_floor.map(|r| r <= limit),
            format!(
                "islands, {name}: library ÷ realistic floor (init + read + touch both endpoints + output) = {} (target ≤ {limit}x)",
                with_cpu(to_floor, cpu_ratio(library, floor)),
            ),
        );
    }
    let name = "dag-200k-deg2-256MiB";
    let figures = find(results, name, "library-256MiB");
    // The budget bounds the matrix; the grouped edges, flags and output are
    // O(n + E) beside it: 32 bytes per node and edge is a generous bound.
    let (nodes, edges) = (200_000u64, 400_000u64);
    let allowance = 32 * (nodes + edges);
    out += &verdict(
        figures
            .and_then(|f| f.peak_bytes)
            .map(|p| p <= (256 << 20) + allowance),
        format!(
            "bounded memory, 200k nodes, 256 MiB matrix budget: peak {} in {} (target: 256 MiB + O(n + E), here ≤ {}; the full n²/8 matrix would need {})",
            format_bytes(figures.and_then(|f| f.peak_bytes)),
            figures.map_or("n/a".into(), |f| format_time(f.median)),
            format_bytes(Some((256 << 20) + allowance)),
            format_bytes(Some(nodes * nodes / 8)),
        ),
    );
    for name in [
        "incidences-1e7-E1e7",
        "incidences-1e7-E2e7",
        "chain-1e7-shuffled",
    ] {
        out += &speedup_verdict(
            results,
            "islands",
            name,
            ("petgraph", "petgraph"),
            |s| s >= 2.0,
            "target ≥ 2x",
        );
    }
    out += &speedup_verdict(
        results,
        "islands",
        "small-islands-100k",
        ("petgraph", "petgraph"),
        |s| s >= 1.0,
        "target ≥ 1x, no slower",
    );
    for name in [
        "incidences-1e6-E1e6",
        "incidences-1e6-E2e6",
        "incidences-1e7-E1e7",
        "incidences-1e7-E2e7",
        "chain-1e7-shuffled",
        "small-islands-100k",
    ] {
        let to_floor = ratio(
            find(results, name, "library"),
            find(results, name, "read-once"),
        );
        let petgraph_to_floor = ratio(
            find(results, name, "petgraph"),
            find(results, name, "read-once"),
        );
        if to_floor.is_some() {
            writeln!(
                out,
                "- (floor) islands, {name}: library = {} the time of reading the incidences once; petgraph = {}",
                format_ratio(to_floor),
                format_ratio(petgraph_to_floor)
            )
            .unwrap();
        }
    }
    out += &speedup_verdict(
        results,
        "offsets",
        "random-tensors-10k",
        ("literal", "literal"),
        |s| s >= 3.0,
        "target ≥ 3x",
    );
    // Issue 21: the greedy is never slower than the literal planner.
    for name in ENGINE_TABLES {
        out += &speedup_verdict(
            results,
            "offsets",
            name,
            ("literal", "literal"),
            |s| s >= 1.0,
            "target ≥ 1.0x, never slower",
        );
    }
    // The heap-free form is the same greedy: never slower than the literal
    // planner either, on every table both run.
    let random = [
        "random-tensors-1k",
        "random-tensors-10k",
        "random-tensors-100k",
    ];
    for name in ENGINE_TABLES.into_iter().chain(random) {
        out += &speedup_verdict_of(
            results,
            "offsets (workspace form)",
            name,
            "library-workspace",
            ("literal", "literal"),
            |s| s >= 1.0,
            "target ≥ 1.0x, never slower",
        );
    }
    let figures = find(results, "chain-4M", "library-aligned");
    out += &verdict(
        figures.map(|f| f.median <= Duration::from_secs(2)),
        format!(
            "offsets, chain-4M (alignment 64, `try_plan_offsets_with`): median {} (target ≤ 2 s; CPU time {}; 1M: {}, 2M: {})",
            figures.map_or("n/a".into(), |f| format_time(f.median)),
            figures
                .and_then(|f| f.cpu_median)
                .map_or("n/a".into(), format_time),
            find(results, "chain-1M", "library-aligned")
                .map_or("n/a".into(), |f| format_time(f.median)),
            find(results, "chain-2M", "library-aligned")
                .map_or("n/a".into(), |f| format_time(f.median)),
        ),
    );
    let name = "random-tensors-100k";
    let figures = find(results, name, "library");
    out += &verdict(
        figures.map(|f| f.median < Duration::from_secs(1)),
        format!(
            "offsets, {name}: library median {} (target < 1 s; CPU time {})",
            figures.map_or("n/a".into(), |f| format_time(f.median)),
            figures
                .and_then(|f| f.cpu_median)
                .map_or("n/a".into(), format_time)
        ),
    );
    out
}

/// The one-minute load average, as Linux reports it ("n/a" elsewhere).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "n/a".into())
}

fn report(
    results: &Results,
    quick: bool,
    started: &str,
    elapsed: Duration,
    (load_at_start, load_at_end): (String, String),
) -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mut out = String::new();
    out += "# Benchmarks\n\n";
    out += "Generated by `scripts/bench.sh`";
    if quick {
        out += " `--quick` (a reduced set, fewer runs: a smoke test, not the reference figures)";
    }
    out += ". Do not edit by hand.\n\n";
    writeln!(
        out,
        "- Machine: {cores} cores ({}), {}; one-minute load average {load_at_start} at the start and {load_at_end} at the end (work of other processes makes figures noisy).",
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| info
                .lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
            .unwrap_or_else(|| "unknown CPU".into()),
        command_output("uname", &["-sr"]),
    )
    .unwrap();
    writeln!(
        out,
        "- Toolchain: {}, release profile.",
        command_output("rustc", &["--version"])
    )
    .unwrap();
    writeln!(
        out,
        "- Started {started}; the whole run took {:.0} s.",
        elapsed.as_secs_f64()
    )
    .unwrap();
    out += &format!(
        "- Each case runs in a child process of its own: input built untimed, then run until it has made at least 5 runs and spent 3 s (51 runs at most; a case whose first run exceeds 8 s runs once: its figure is that single run). Time is the **median** wall time (where an implementation took under {short_ms} ms, it runs in {SHORT_CASE_PROCESSES} such processes, alternating with the workload's other such implementations, and the median of the processes' medians is shown, its *runs* the total: a case of microseconds moves by up to 2x from one process to the next, with where its heap and code fall); *CPU median* is the median CPU time of the same runs (all threads), and where it is well below the wall time the case was waiting for a core that other work held; the first run is shown too, since only it pays for memory the kernel has not handed out before. Peak is the growth of the process's resident high-water mark (`VmHWM`, reset after the input is built and after every page of the binary's and its shared objects' code is made resident) during the first run: the routine's scratch plus its output. (Without making the code resident first, Linux maps it in 64 KiB windows at run-dependent addresses, and the 1,000-node reduction's peak moved between 160 and 288 KiB from run to run; with it, repeated runs agree.)\n",
        short_ms = SHORT_CASE.as_millis()
    );
    out += "- Every implementation returns exactly the library's result on these inputs' kind (`benches/tests/equivalence.rs`).\n";
    out += "- Peers: petgraph 0.8 (`algo::tred::dag_transitive_reduction_closure`: *core* is the call alone on a prepared adjacency list, the other column adds building the list and reading the edges back; `unionfind::UnionFind<u32>`), `union-find` 0.4 (`QuickUnionUf<UnionBySize>`), `disjoint-sets` 0.4 (`UnionFind<u32>`). Island peers add the same canonical numbering pass the library does. *read-once* reads the incidence array once: the floor.\n\n";

    out += "## Targets\n\n";
    out += &targets(results);

    out += "\n## Notes\n\n";
    out += "- Transitive reduction: the library asks Linux for transparent huge pages on a matrix of 4 MiB or more (`madvise`). Once the kernel has free huge pages this removes most page-fault time; when it must first compact memory, the first call pays for it (the *first run* column).\n";
    out += "- Offsets: the peak's table, the greedy's tables and the radix sorts' scratch are advised huge pages the same way, except under a search's time cap (a fault in an advised range may first compact memory).\n";
    out += "- petgraph's reduction also builds the full transitive closure as adjacency lists, hence its time and memory on the large DAGs. Boost Graph's `transitive_reduction` (C++) is not part of this Rust suite.\n";
    out += "- Transitive reduction layout: *library* is the default, which picks its layout (`try_transitive_reduction`'s documented rule); *library-N MiB* fixes the column-block budget; *library-whole* builds the whole triangle in one pass, the default's layout before it chose blocks. *triangle-floor* writes every word of the triangle once through one reused 16 MiB buffer: what any closure that builds the triangle must pay. The *÷ floor* column divides by it.\n";
    out += "- Islands' *floor* initialises one 32-bit entry per node, reads every incidence and updates both endpoints' entries (independent accesses, no forest walks), then writes the labels as the library returns them: the realistic floor the *÷ floor* column divides by. *read-once* only reads the incidences.\n";
    out += "- On a machine shared with other work, wall-time ratios move from run to run; the CPU-time ratio beside each is steadier.\n";
    out += "- Islands: every implementation returns `Vec<Option<usize>>` labels, 16 bytes per node; writing them is part of every figure, the read-once floor excepted.\n";

    for (title, job) in [
        ("Offsets", Job::Offsets),
        ("Transitive reduction", Job::Reduction),
        ("Islands", Job::Islands),
    ] {
        writeln!(out, "\n## {title}\n").unwrap();
        let jobs: Vec<Workload> = workloads()
            .into_iter()
            .filter(|w| w.job == job && (!quick || w.quick))
            .collect();
        for workload in &jobs {
            writeln!(out, "### {}\n", workload.name).unwrap();
            out += "| implementation | median | first run | CPU median | runs | peak | median ÷ library | median ÷ floor |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
            let library = find(results, workload.name, workload.implementations[0]);
            let floor = ["floor", "triangle-floor"]
                .iter()
                .find_map(|&f| find(results, workload.name, f));
            for &implementation in workload.implementations {
                let figures = find(results, workload.name, implementation);
                writeln!(
                    out,
                    "| {implementation} | {} | {} | {} | {} | {} | {} | {} |",
                    figures.map_or("failed".into(), |f| format_time(f.median)),
                    figures.map_or("-".into(), |f| format_time(f.first)),
                    figures
                        .and_then(|f| f.cpu_median)
                        .map_or("-".into(), format_time),
                    figures.map_or("-".into(), |f| f.runs.to_string()),
                    format_bytes(figures.and_then(|f| f.peak_bytes)),
                    format_ratio(ratio(figures, library)),
                    floor.map_or("-".into(), |f| format_ratio(ratio(figures, Some(f)))),
                )
                .unwrap();
            }
            out += "\n";
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    if let Some(position) = args.iter().position(|a| a == "--case") {
        run_case(&args[position + 1], &args[position + 2], quick);
        return;
    }
    let out = args
        .iter()
        .position(|a| a == "--out")
        .map_or("BENCHMARKS.md".to_string(), |p| args[p + 1].clone());
    let only: Option<&String> = args
        .iter()
        .position(|a| a == "--only")
        .map(|p| &args[p + 1]);
    let started_at = command_output("date", &["-u", "+%Y-%m-%d %H:%M UTC"]);
    let load_at_start = load_average();
    let started = std::time::Instant::now();
    let mut results: Results = Vec::new();
    for workload in workloads() {
        if quick && !workload.quick {
            continue;
        }
        if only.is_some_and(|o| !workload.name.contains(o.as_str())) {
            continue;
        }
        let mut measured: Vec<Option<Figures>> = (workload.implementations.iter())
            .map(|implementation| run_child(workload.name, implementation, quick))
            .collect();
        // A case of microseconds moves by up to 2x from one process to the
        // next (where the heap and the code fall): the workload's
        // implementations under SHORT_CASE run again in processes of their
        // own, alternating, and the median of the processes' medians is kept.
        let short: Vec<bool> = (measured.iter())
            .map(|f| !quick && f.as_ref().is_some_and(|f| f.median < SHORT_CASE))
            .collect();
        if short.iter().any(|&s| s) {
            let mut again: Vec<Vec<Figures>> = measured
                .iter_mut()
                .zip(&short)
                .map(|(f, &s)| {
                    if s {
                        f.take().into_iter().collect()
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            for _ in 1..SHORT_CASE_PROCESSES {
                for ((&implementation, runs), &s) in
                    workload.implementations.iter().zip(&mut again).zip(&short)
                {
                    if s {
                        runs.extend(run_child(workload.name, implementation, quick));
                    }
                }
            }
            for ((figures, runs), &s) in measured.iter_mut().zip(again).zip(&short) {
                if s {
                    *figures = combined(runs);
                }
            }
        }
        for (&implementation, figures) in workload.implementations.iter().zip(measured) {
            if let Some(f) = &figures {
                eprintln!(
                    "{:>24} {:>15} {:>12} x{:<3} {:>12}",
                    workload.name,
                    implementation,
                    format_time(f.median),
                    f.runs,
                    format_bytes(f.peak_bytes)
                );
            }
            results.push((
                workload.name.to_string(),
                implementation.to_string(),
                figures,
            ));
        }
    }
    let load = (load_at_start, load_average());
    let text = report(&results, quick, &started_at, started.elapsed(), load);
    std::fs::write(&out, text).expect("write the report");
    eprintln!("wrote {out}");
}
