//! The search under address-space limits (`RLIMIT_AS`), in a child process:
//! started from the greedy plan with a node budget (so the same work on every
//! machine, and the search runs whatever the heuristic would cost), each call
//! must return a sound plan or [`PlanError::OutOfMemory`]. An allocation
//! made infallibly would abort the child, which the parent sees.

use super::{improve, SearchBudget};
use crate::error::PlanError;
use crate::offsets::{try_peak_live_bytes, try_plan_offsets, TensorLifetime};

const CHILD: &str = "AETHER_SEARCH_LADDER_CHILD";

/// Limits above the child's size before the call, in MiB.
const LADDER: [u64; 12] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096];

#[repr(C)]
struct Rlimit {
    current: u64,
    max: u64,
}
const RLIMIT_AS: i32 = 9;
extern "C" {
    fn setrlimit(resource: i32, limit: *const Rlimit) -> i32;
}

/// Sets the soft address-space limit (the hard one stays unlimited).
fn address_space(bytes: u64) {
    let limit = Rlimit {
        current: bytes,
        max: u64::MAX,
    };
    // SAFETY: a valid rlimit struct for the duration of the call.
    assert_eq!(unsafe { setrlimit(RLIMIT_AS, &limit) }, 0, "setrlimit");
}

/// The process's address-space size (`VmSize`), in bytes.
fn current_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))
        .unwrap()
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    kib * 1024
}

/// Shapes: seeded lifetimes of 20 to 200 nodes starting within the first
/// 1,000 (a dense conflict graph, `E` near `n²/5`), and a sliding window of 11 nodes with
/// seeded sizes (sparse, one long component).
#[derive(Clone, Copy, Debug)]
enum Shape {
    Dense,
    Window,
}

fn tensors(shape: Shape, count: usize) -> Vec<TensorLifetime> {
    let mut rng = crate::rng::XorShift(0x2545_F491_4F6C_DD1D);
    (0..count)
        .map(|i| match shape {
            Shape::Dense => {
                let first = rng.below(1000);
                TensorLifetime::new(64 * (1 + rng.below(64)), first, first + 20 + rng.below(180))
            }
            Shape::Window => TensorLifetime::new(64 * (1 + rng.below(1024)), i, i + 10),
        })
        .collect()
}

/// Panics unless no two tensors with intersecting lifetimes share a byte:
/// each tensor against the later starters that begin by its end, a scan
/// independent of the search.
fn assert_sound(tensors: &[TensorLifetime], offsets: &[usize]) {
    let mut order: Vec<usize> = (0..tensors.len()).collect();
    order.sort_by_key(|&i| tensors[i].first_use);
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if tensors[j].first_use > tensors[i].last_use {
                break;
            }
            let (a, b) = (offsets[i], offsets[j]);
            let disjoint = a + tensors[i].size <= b || b + tensors[j].size <= a;
            let empty = tensors[i].size == 0 || tensors[j].size == 0;
            assert!(disjoint || empty, "tensors {i} and {j} overlap");
        }
    }
}

/// What the child does: search `count` tensors of `shape` within `nodes`
/// nodes under every rung, printing one status per rung (0 OK, 1 out of
/// memory) after checking every plan it got.
fn child(shape: Shape, count: usize, nodes: u64) {
    let input = tensors(shape, count);
    let peak = try_peak_live_bytes(&input).unwrap();
    let start = try_plan_offsets(&input).unwrap();
    assert!(start.arena_size > peak, "{shape:?}: nothing to search");
    let budget = SearchBudget {
        time: None,
        nodes: Some(nodes),
    };
    let mut outcomes = Vec::with_capacity(LADDER.len());
    for mib in LADDER {
        let start = start.clone();
        let base = current_size();
        address_space(base + (mib << 20));
        let outcome = improve(&input, start, peak, &budget, None, &mut |_| {});
        address_space(u64::MAX);
        outcomes.push((mib, outcome));
    }
    for (mib, outcome) in outcomes {
        let status = match outcome {
            Ok(outcome) => {
                assert_sound(&input, &outcome.plan.offsets);
                assert!(outcome.lower_bound >= peak);
                assert!(outcome.plan.arena_size <= start.arena_size);
                0
            }
            Err(PlanError::OutOfMemory { .. }) => 1,
            Err(error) => panic!("{error:?}"),
        };
        println!("limit+{mib}MiB status={status}");
    }
}

/// Reruns this test as a child and asserts that it lived, answered every
/// rung OK or out of memory, and reached both.
fn ladder(name: &str, shape: Shape, count: usize, nodes: u64) {
    if std::env::var_os(CHILD).is_some() {
        child(shape, count, nodes);
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, "1")
        // One malloc arena: a thread's own arena reserves 64 MiB of address
        // space up front, which would hide the lower rungs.
        .env("MALLOC_ARENA_MAX", "1")
        .output()
        .expect("start the child");
    let text = String::from_utf8_lossy(&out.stdout);
    let statuses: Vec<u32> = text
        .lines()
        .filter_map(|line| line.split("status=").nth(1)?.trim().parse().ok())
        .collect();
    assert!(
        out.status.success() && statuses.len() == LADDER.len(),
        "{name}: the child died ({:?}): {text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(statuses.contains(&0) && statuses.contains(&1), "{text}");
}

#[test]
fn a_dense_search_of_5000_tensors_under_address_space_limits_never_aborts() {
    ladder(
        "offsets::search::ladder::a_dense_search_of_5000_tensors_under_address_space_limits_never_aborts",
        Shape::Dense,
        5_000,
        300,
    );
}

#[test]
fn a_window_search_of_5000_tensors_under_address_space_limits_never_aborts() {
    ladder(
        "offsets::search::ladder::a_window_search_of_5000_tensors_under_address_space_limits_never_aborts",
        Shape::Window,
        5_000,
        300,
    );
}

#[test]
fn a_window_search_of_100000_tensors_under_address_space_limits_never_aborts() {
    ladder(
        "offsets::search::ladder::a_window_search_of_100000_tensors_under_address_space_limits_never_aborts",
        Shape::Window,
        100_000,
        20,
    );
}
