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
