//! One measurement of the compiler-scale benchmark: plan a MiniMalloc CSV
//! file (`id,lower,upper,size`, `upper` exclusive) with one strategy and
//! print what came out. It uses only the public API that 0.1.0 already had,
//! so `scripts/bench_scale.sh` builds this same file against 0.1.0 and the
//! two are measured side by side.
//!
//! Output, one line of `key=value` fields: buffers, pairs (lifetime
//! conflicts), peak, arena, lower, proven, seconds (the library call only),
//! rss_kib (the process's peak resident memory during the call, the table
//! and the program included), input_kib (the resident memory just before
//! the call: the table and the program), offsets_hash (FNV-1a of the
//! offsets, so that two builds' plans can be compared bit for bit).

use std::io::BufRead;
use std::time::{Duration, Instant};

use aether_planner::ffi::{
    aether_plan_offsets_in_workspace, aether_plan_offsets_workspace_size, aether_tensor_lifetime,
};
use aether_planner::{
    try_peak_live_bytes, try_plan_offsets_with, PlanOptions, Strategy, TensorLifetime,
};

/// Reads a MiniMalloc CSV as inclusive lifetimes, line by line, so that the
/// text is never held whole (the process's peak memory is the planner's and
/// the table's, not the file's).
pub fn read_csv(path: &str) -> Vec<TensorLifetime> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    std::io::BufReader::new(file)
        .lines()
        .skip(1)
        .map(|line| line.unwrap_or_else(|e| panic!("reading {path}: {e}")))
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split(',').skip(1).map(|f| {
                f.trim()
                    .parse::<usize>()
                    .unwrap_or_else(|e| panic!("{path}: {f:?}: {e}"))
            });
            let mut next = || fields.next().unwrap_or_else(|| panic!("{path}: short row"));
            let (lower, upper, size) = (next(), next(), next());
            TensorLifetime::new(size, lower, upper - 1)
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

/// A memory figure of this process in KiB from `/proc/self/status`
/// (`VmHWM:` the peak resident memory, `VmRSS:` the current), 0 where
/// unknown.
fn resident_kib(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix(key)
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
        })
        .unwrap_or(0)
}

/// `run FILE greedy|heuristic|search|workspace|indexed [BUDGET_MS]`: one
/// measurement.
pub fn run(args: &[String]) {
    let (path, strategy) = (&args[0], args[1].as_str());
    let tensors = read_csv(path);
    let peak = try_peak_live_bytes(&tensors).expect("valid table");
    // Restart the peak at the current resident memory (Linux: "5" resets
    // VmHWM), so that rss_kib is the call's peak over the table, not the
    // reading's or the peak computation's; where it fails the peak is the
    // whole run's, an overestimate.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let input_kib = resident_kib("VmRSS:");
    if strategy == "workspace" {
        return run_in_workspace(&tensors, peak, input_kib);
    }
    if strategy == "indexed" {
        return run_in_indexed_workspace(&tensors, peak, input_kib);
    }
    let strategy = match strategy {
        "greedy" => Strategy::Greedy,
        "heuristic" => Strategy::Heuristic,
        "search" => Strategy::Search,
        other => panic!("unknown strategy {other}"),
    };
    let time = args
        .get(2)
        .map(|ms| Duration::from_millis(ms.parse().expect("budget in ms")));
    // Field by field, not by the setters: this file is built against 0.1.0
    // too (scripts/bench_scale.sh), whose options have no setters.
    #[allow(clippy::field_reassign_with_default)]
    let options = {
        let mut options = PlanOptions::default();
        options.strategy = strategy;
        options.budget.time = time;
        options
    };
    let started = Instant::now();
    let report = try_plan_offsets_with(&tensors, &options).expect("a plan");
    let seconds = started.elapsed().as_secs_f64();
    // Read before counting the pairs, whose sweep allocates.
    let rss_kib = resident_kib("VmHWM:");
    let (arena, lower, proven) = (
        report.plan.arena_size,
        report.lower_bound,
        report.proven_optimal,
    );
    print_run(
        &tensors,
        peak,
        (arena, lower, proven),
        seconds,
        (rss_kib, input_kib),
        &report.plan.offsets,
    );
}

/// The heap-free greedy, `aether_plan_offsets_in_workspace`, timed alone: the
/// workspace and the offsets are made (and counted in the memory) first, as
/// an engine that allocates nothing at run time holds them. Its lower bound
/// is the peak; it proves nothing.
fn run_in_workspace(tensors: &[TensorLifetime], peak: usize, input_kib: u64) {
    time_heap_free(tensors, peak, input_kib, workspace_words, plan_in_workspace);
}

/// A heap-free form timed alone: the C table, a zeroed workspace of
/// `words(n)` words (pages the call does not touch stay out of the
/// resident memory) and the offsets are made first; `plan` is the call.
fn time_heap_free(
    tensors: &[TensorLifetime],
    peak: usize,
    input_kib: u64,
    words: impl FnOnce(usize) -> usize,
    plan: impl FnOnce(&[aether_tensor_lifetime], &mut [u64], &mut [usize]) -> usize,
) {
    let table = c_table(tensors);
    let mut workspace = vec![0u64; words(table.len())];
    let mut offsets = vec![0usize; table.len()];
    let started = Instant::now();
    let arena = plan(&table, &mut workspace, &mut offsets);
    let seconds = started.elapsed().as_secs_f64();
    let rss_kib = resident_kib("VmHWM:");
    print_run(
        tensors,
        peak,
        (arena, peak, false),
        seconds,
        (rss_kib, input_kib),
        &offsets,
    );
}

/// The heap-free greedy over its whole stated workspace,
/// `aether_plan_offsets_in_indexed_workspace`, timed alone as
/// [`run_in_workspace`] is. 0.1.0 has no such form: built against it
/// (`--cfg aether_old`), this runs 0.1.0's `aether_plan_offsets_in_workspace`.
#[cfg(not(aether_old))]
fn run_in_indexed_workspace(tensors: &[TensorLifetime], peak: usize, input_kib: u64) {
    use aether_planner::ffi::{
        aether_plan_offsets_in_indexed_workspace, aether_plan_offsets_indexed_workspace_size,
    };
    let bytes = |n| aether_plan_offsets_indexed_workspace_size(n).div_ceil(8);
    time_heap_free(
        tensors,
        peak,
        input_kib,
        bytes,
        |table, workspace, offsets| {
            let mut arena = 0usize;
            // SAFETY: the table, the workspace (its stated bytes, rounded up to
            // words) and the offsets (one per tensor) are this call's, and none
            // overlaps another.
            let status = unsafe {
                aether_plan_offsets_in_indexed_workspace(
                    table.as_ptr(),
                    table.len(),
                    workspace.as_mut_ptr().cast(),
                    aether_plan_offsets_indexed_workspace_size(table.len()),
                    offsets.as_mut_ptr(),
                    &mut arena,
                )
            };
            assert_eq!(status, 0, "aether_plan_offsets_in_indexed_workspace failed");
            arena
        },
    );
}

#[cfg(aether_old)]
fn run_in_indexed_workspace(tensors: &[TensorLifetime], peak: usize, input_kib: u64) {
    run_in_workspace(tensors, peak, input_kib)
}

/// `tensors` as the C API's array.
pub fn c_table(tensors: &[TensorLifetime]) -> Vec<aether_tensor_lifetime> {
    tensors
        .iter()
        .map(|t| aether_tensor_lifetime {
            size: t.size,
            first_use: t.first_use,
            last_use: t.last_use,
        })
        .collect()
}

/// The words of the workspace `aether_plan_offsets_in_workspace` needs for
/// `tensor_count` tensors.
pub fn workspace_words(tensor_count: usize) -> usize {
    aether_plan_offsets_workspace_size(tensor_count).div_ceil(8)
}

/// `aether_plan_offsets_in_workspace` over `table`, into `offsets` (one per
/// tensor), in `workspace` ([`workspace_words`] words): the arena. Panics if
/// the call fails.
pub fn plan_in_workspace(
    table: &[aether_tensor_lifetime],
    workspace: &mut [u64],
    offsets: &mut [usize],
) -> usize {
    let n = table.len();
    assert!(offsets.len() == n && workspace.len() >= workspace_words(n));
    let mut arena = 0usize;
    // SAFETY: the table, the workspace and the offsets cover what the call
    // reads or writes (checked above), and none overlaps another.
    let status = unsafe {
        aether_plan_offsets_in_workspace(
            table.as_ptr(),
            n,
            workspace.as_mut_ptr().cast(),
            aether_plan_offsets_workspace_size(n),
            offsets.as_mut_ptr(),
            &mut arena,
        )
    };
    assert_eq!(status, 0, "aether_plan_offsets_in_workspace failed");
    arena
}

/// Prints one run's line: the table's size and pairs, the peak, the plan's
/// arena, lower bound and proof, the call's seconds, its peak resident and
/// the input's resident KiB, and a hash of the offsets.
fn print_run(
    tensors: &[TensorLifetime],
    peak: usize,
    (arena, lower, proven): (usize, usize, bool),
    seconds: f64,
    (rss_kib, input_kib): (u64, u64),
    offsets: &[usize],
) {
    let offsets_hash = offsets.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &o| {
        (h ^ o as u64).wrapping_mul(0x0100_0000_01b3)
    });
    println!(
        "buffers={} pairs={} peak={} arena={} lower={} proven={} seconds={:.6} rss_kib={} input_kib={} offsets_hash={:016x}",
        tensors.len(),
        conflict_pairs(tensors),
        peak,
        arena,
        lower,
        proven,
        seconds,
        rss_kib,
        input_kib,
        offsets_hash
    );
}
