//! Hostile inputs and many threads, from C: `c_tests/hostile.c` and
//! `c_tests/threads.c` against the static and the shared library, again
//! under AddressSanitizer and UndefinedBehaviorSanitizer and under valgrind,
//! and the resource probes of `hostile.c` in child processes with an
//! address-space limit.
//!
//! `scripts/reliability.sh` installs valgrind where it is missing; without it
//! the valgrind tests fail under `CI=true` and elsewhere say so and check
//! nothing.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Threads and rounds for `threads.c` in the plain builds.
const THREADS: &str = "16";
const ROUNDS: &str = "60";

fn static_args() -> Vec<String> {
    let mut args = static_link_args(artifacts());
    args.push("-pthread".into());
    args
}

fn shared_args() -> Vec<String> {
    let mut args = shared_link_args(artifacts());
    args.push("-pthread".into());
    args
}

/// Compiles `c_tests/{program}.c` with `extra` compiler flags, linked
/// statically.
fn compile(program: &str, exe_name: &str, extra: &[&str]) -> PathBuf {
    let exe = artifacts().work.join(exe_name);
    run(strict(&mut compiler(false), "c99")
        .args(extra)
        .arg(format!("{ROOT}/c_tests/{program}.c"))
        .arg("-o")
        .arg(&exe)
        .args(static_args()));
    exe
}

/// Runs a finished program and checks its "N passed, 0 failed" line.
fn expect_all_passed(command: &mut Command) -> String {
    let out = run(command);
    assert!(out.contains(" passed, 0 failed"), "{command:?}:\n{out}");
    out
}

#[test]
fn hostile_inputs_against_the_static_library() {
    build_and_run(
        "hostile",
        &artifacts().work.join("hostile_static"),
        &static_args(),
    );
}

#[test]
fn hostile_inputs_against_the_shared_library() {
    build_and_run(
        "hostile",
        &artifacts().work.join("hostile_shared"),
        &shared_args(),
    );
}

#[test]
fn every_entry_point_from_many_threads_against_the_static_library() {
    let exe = compile("threads", "threads_static", &[]);
    expect_all_passed(Command::new(exe).args([THREADS, ROUNDS]));
}

#[test]
fn every_entry_point_from_many_threads_against_the_shared_library() {
    let exe = artifacts().work.join("threads_shared");
    run(strict(&mut compiler(false), "c99")
        .arg(format!("{ROOT}/c_tests/threads.c"))
        .arg("-o")
        .arg(&exe)
        .args(shared_args()));
    expect_all_passed(Command::new(exe).args([THREADS, ROUNDS]));
}

/// ASan and UBSan on the C side, linked with the library: a read or write
/// past any C buffer, a use after free or double free of memory the
/// allocator hands to Rust, or undefined behaviour in the callers aborts the
/// run. `allocator_may_return_null` makes ASan's allocator answer an
/// impossible request as malloc does, with NULL, instead of aborting: the
/// hostile cases ask for 2^59 bytes on purpose.
fn sanitized(program: &str, args: &[&str]) {
    let exe = compile(
        program,
        &format!("{program}_sanitized"),
        &[
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
            "-g",
        ],
    );
    expect_all_passed(
        Command::new(exe)
            .args(args)
            .env(
                "ASAN_OPTIONS",
                "allocator_may_return_null=1:detect_leaks=1:abort_on_error=1",
            )
            .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1"),
    );
}

#[test]
fn hostile_inputs_under_address_and_undefined_behaviour_sanitizers() {
    sanitized("hostile", &[]);
}

#[test]
fn many_threads_under_address_and_undefined_behaviour_sanitizers() {
    sanitized("threads", &["8", "20"]);
}

fn valgrind() -> Option<PathBuf> {
    let found = Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "valgrind is not installed, and under CI=true the valgrind checks are required"
        );
        eprintln!("valgrind is not installed: scripts/reliability.sh installs it; SKIPPED");
    }
    found.then(|| PathBuf::from("valgrind"))
}

fn under_valgrind(program: &str, args: &[&str]) {
    let Some(valgrind) = valgrind() else { return };
    let exe = compile(program, &format!("{program}_valgrind"), &["-g"]);
    expect_all_passed(
        Command::new(valgrind)
            .args([
                "--error-exitcode=1",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite,indirect",
                "--quiet",
            ])
            .arg(exe)
            .args(args),
    );
}

#[test]
fn hostile_inputs_under_valgrind() {
    under_valgrind("hostile", &[]);
}

#[test]
fn many_threads_under_valgrind() {
    under_valgrind("threads", &["4", "6"]);
}

// ---------------------------------------------------------------------------
// Resource probes: one call per child process under an address-space limit.
// ---------------------------------------------------------------------------

/// Runs `hostile` with `args` in a child, killed if it outlives `patience`
/// (a guard against swapping forever, not a timing check).
fn probe(exe: &Path, args: &[&str], patience: Duration) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the probe");
    let started = Instant::now();
    while child.try_wait().expect("wait for the probe").is_none() {
        if started.elapsed() > patience {
            let _ = child.kill();
            panic!("{args:?} still running after {patience:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("collect the probe")
}

/// The probe program, compiled once: tests running in parallel must not
/// write the same executable at the same time.
fn probe_exe() -> PathBuf {
    static PROBE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PROBE
        .get_or_init(|| compile("hostile", "hostile_probe", &[]))
        .clone()
}

/// Under 768 MiB of address space, a chain of 2^17 nodes, whose whole
/// triangle (n^2/16 bytes, 1 GiB) cannot be had, is reduced in column
/// blocks instead of refused; under 128 MiB, a chain of 2^22 nodes, whose
/// O(n + E) arrays alone pass the limit, is OUT_OF_MEMORY, not an abort.
/// Chains touch every row of the matrix.
#[test]
fn a_reduction_beyond_the_address_space_limit_is_blocked_or_out_of_memory() {
    let exe = probe_exe();
    let patience = Duration::from_secs(120);
    for (args, expected) in [
        (["reduce", "17", "chain", "768"], "status=OK seconds="),
        (["reduce", "13", "chain", "768"], "status=OK seconds="),
        (["reduce", "22", "chain", "128"], "status=OUT_OF_MEMORY"),
    ] {
        let out = probe(&exe, &args, patience);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains(expected),
            "{args:?}: {:?}\n{text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if expected.starts_with("status=OK") {
            // A chain reduces to itself: n - 1 edges.
            let n = 1usize << args[1].parse::<u32>().unwrap();
            assert!(
                text.contains(&format!("count={}", n - 1)),
                "{args:?}: {text}"
            );
        }
    }
}

/// The peak sweep's event list (48 bytes per tensor, after the 24-byte copy
/// of the input) must be allocated fallibly: when the copy fits and the
/// events do not, the call returns OUT_OF_MEMORY. Allocated infallibly, as it
/// once was, Rust's allocation-failure handler aborted the host process.
#[test]
fn a_peak_whose_scratch_cannot_be_had_is_out_of_memory_not_an_abort() {
    let exe = probe_exe();
    // 2^24 tensors: 384 MiB from the caller, 384 MiB copied, then 256 MiB
    // of first uses and 256 MiB of last uses to sort.
    let out = probe(&exe, &["peak", "16777216", "900"], Duration::from_secs(120));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("status=OUT_OF_MEMORY"),
        "{:?}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A node_count above `SIZE_MAX - 63` with one valid edge must be refused
/// as OUT_OF_MEMORY before any matrix block is sized: sizing first once
/// computed `64 * ceil(n / 64)` unchecked, a PANIC in debug builds.
#[test]
fn a_reduction_of_size_max_nodes_is_out_of_memory_not_a_panic() {
    let exe = probe_exe();
    expect_all_passed(Command::new(exe).arg("known-bugs"));
}

/// Runs one probe and returns its stdout, asserting it exited normally: an
/// abort (an infallible allocation failing) is the failure looked for.
fn probe_status(args: &[&str]) -> String {
    let out = probe(&probe_exe(), args, Duration::from_secs(120));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}: {:?}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The any-order reduction under the limit, as the strict one: a chain of
/// 2^17 nodes under 768 MiB is reduced in blocks, one edge among 2^22 nodes
/// under 64 MiB needs no node-sized array, and a chain of 2^22 nodes under
/// 128 MiB (its reordering arrays alone pass the limit) is OUT_OF_MEMORY,
/// not an abort.
#[test]
fn an_any_order_reduction_beyond_the_address_space_limit_is_blocked_or_out_of_memory() {
    let text = probe_status(&["any-order", "17", "chain", "768"]);
    assert!(
        text.contains("status=OK") && text.contains("count=131071"),
        "{text}"
    );
    let text = probe_status(&["any-order", "22", "one", "64"]);
    assert!(
        text.contains("status=OK") && text.contains("count=1\n"),
        "{text}"
    );
    let text = probe_status(&["any-order", "22", "chain", "128"]);
    assert!(text.contains("status=OUT_OF_MEMORY"), "{text}");
    let text = probe_status(&["any-order", "13", "chain", "768"]);
    assert!(
        text.contains("status=OK") && text.contains("count=8191"),
        "{text}"
    );
}

/// `aether_plan_offsets_with`, greedy, 2^18 tensors (6 MiB of input, as
/// much again copied) under address-space limits from below what the plan
/// needs to where it fits: every call returns, OK or OUT_OF_MEMORY, the
/// tightest one is OUT_OF_MEMORY and the loosest OK. Before the offsets
/// planners allocated fallibly, the rounding of sizes aborted under such
/// limits. Sized so that a debug build plans it in seconds: the probe's
/// patience guards against a hang, it is no timing check.
#[test]
fn a_greedy_plan_with_options_under_address_space_limits_never_aborts() {
    let mut statuses = Vec::new();
    for limit in LIMITS_MIB {
        let text = probe_status(&["with", "greedy", "262144", limit]);
        assert!(
            text.contains("status=OK") || text.contains("status=OUT_OF_MEMORY"),
            "{limit} MiB: {text}"
        );
        statuses.push(text);
    }
    assert!(statuses[0].contains("status=OUT_OF_MEMORY"), "{statuses:?}");
    assert!(
        statuses[LIMITS_MIB.len() - 1].contains("status=OK"),
        "{statuses:?}"
    );
}

/// Absolute address-space limits of the greedy probe, in MiB.
const LIMITS_MIB: [&str; 9] = ["16", "32", "40", "44", "48", "56", "64", "128", "256"];
