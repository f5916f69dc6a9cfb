//! A side-by-side check of the heuristic's speed work (issue 21): plans one
//! table with `Strategy::Heuristic` and prints the arena, a hash of every
//! offset (so that two builds' plans can be compared bit for bit without
//! storing them), the call's seconds and the peak resident memory over it.
//!
//! `bench-heur FILE` reads a MiniMalloc CSV; `bench-heur family NAME N SEED`
//! generates `workloads::Family::tensors(N, SEED)` in process.

#[path = "../scale_driver.rs"]
#[allow(dead_code)]
mod driver;

use std::time::Instant;

use aether_bench::workloads::Family;
use aether_planner::{try_plan_offsets_with, PlanOptions, Strategy};

/// A figure of `/proc/self/status` in KiB (0 where unknown).
fn status_kib(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix(key)
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
        })
        .unwrap_or(0)
}

/// This thread's processor time (user and system) in seconds, from
/// `/proc/thread-self/stat` (clock ticks of 1/100 s); 0 where unknown.
/// Less sensitive than the wall clock to other processes on the machine.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name's closing parenthesis.
            let rest = &s[s.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let ticks = |k: usize| fields.get(k)?.parse::<f64>().ok();
            Some((ticks(11)? + ticks(12)?) / 100.0)
        })
        .unwrap_or(0.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tensors = match args.first().map(String::as_str) {
        Some("family") => {
            let family = Family::from_name(&args[1]).expect("a family name");
            family.tensors(args[2].parse().expect("n"), args[3].parse().expect("seed"))
        }
        Some(path) => driver::read_csv(path),
        None => {
            eprintln!("usage: bench-heur FILE | family NAME N SEED");
            std::process::exit(2);
        }
    };
    let mut options = PlanOptions::default();
    options.strategy = Strategy::Heuristic;
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let input_kib = status_kib("VmRSS:");
    let cpu = cpu_seconds();
    let started = Instant::now();
    let report = try_plan_offsets_with(&tensors, &options).expect("a plan");
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let rss_kib = status_kib("VmHWM:");
    // FNV-1a over every offset, then the arena.
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for &o in report.plan.offsets.iter().chain([&report.plan.arena_size]) {
        for b in (o as u64).to_le_bytes() {
            hash = (hash ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    println!(
        "n={} arena={} hash={hash:016x} seconds={seconds:.4} cpu={cpu:.2} rss_mib={:.1} input_mib={:.1}",
        tensors.len(),
        report.plan.arena_size,
        rss_kib as f64 / 1024.0,
        input_kib as f64 / 1024.0
    );
}
