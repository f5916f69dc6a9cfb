//! Address-space limits for the tests that probe allocation failure in a
//! child process (Linux only).

/// `struct rlimit` on Linux.
#[repr(C)]
struct Rlimit {
    current: u64,
    max: u64,
}
const RLIMIT_AS: i32 = 9;
extern "C" {
    fn setrlimit(resource: i32, limit: *const Rlimit) -> i32;
}

/// Sets the soft address-space limit to `bytes` (the hard one stays
/// unlimited, so it can be raised again).
pub fn address_space(bytes: u64) {
    let limit = Rlimit {
        current: bytes,
        max: u64::MAX,
    };
    // SAFETY: a valid rlimit struct for the duration of the call.
    assert_eq!(unsafe { setrlimit(RLIMIT_AS, &limit) }, 0, "setrlimit");
}

/// The process's current address-space size (`VmSize`), in bytes.
pub fn current_size() -> u64 {
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

/// The parent's side of a limit ladder: reruns the test `name` of this
/// binary as a child with `child_var` set (the child then plans under each
/// rung and prints one `status=N` line per rung), and asserts that the child
/// lived, printed `rungs` statuses, each OK or OUT_OF_MEMORY, and reached
/// both outcomes (else the ladder tests nothing).
pub fn run_ladder_child(name: &str, child_var: &str, rungs: usize) {
    const OK: u32 = aether_planner::ffi::AETHER_STATUS_OK;
    const OUT_OF_MEMORY: u32 = aether_planner::ffi::AETHER_STATUS_OUT_OF_MEMORY;
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        // `--include-ignored`: the child runs the test even when it is
        // `#[ignore]`d and the parent was started with `--ignored`.
        .args([
            name,
            "--exact",
            "--include-ignored",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(child_var, "1")
        // One malloc arena: a thread's own arena reserves 64 MiB of address
        // space up front, which would hide the ladder's lower rungs.
        .env("MALLOC_ARENA_MAX", "1")
        .output()
        .expect("start the child");
    let text = String::from_utf8_lossy(&out.stdout);
    let statuses: Vec<u32> = text
        .lines()
        .filter_map(|line| line.split("status=").nth(1)?.trim().parse().ok())
        .collect();
    assert!(
        out.status.success() && statuses.len() == rungs,
        "{name}: the child died ({:?}): {text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        statuses.iter().all(|&s| s == OK || s == OUT_OF_MEMORY),
        "{name}: {text}"
    );
    assert!(statuses.contains(&OUT_OF_MEMORY), "{name}: {text}");
    assert!(statuses.contains(&OK), "{name}: {text}");
}
