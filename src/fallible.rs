//! Allocations that fail with an error instead of aborting the process.
//!
//! The library runs inside someone else's process: an allocation it cannot
//! have must come back as [`PlanError::OutOfMemory`], never as the abort of
//! Rust's default allocation-failure handler.

use crate::error::PlanError;

/// An empty vector with room for `capacity` elements.
pub(crate) fn with_capacity<T>(capacity: usize) -> Result<Vec<T>, PlanError> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(capacity)
        .map_err(|_| PlanError::OutOfMemory {
            bytes: capacity.saturating_mul(core::mem::size_of::<T>()),
        })?;
    Ok(vec)
}

/// `len` copies of `value`.
pub(crate) fn filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>, PlanError> {
    let mut vec = with_capacity(len)?;
    vec.resize(len, value);
    Ok(vec)
}

/// The items of `items`, of which there are at most `bound`, collected into
/// a vector allocated up front.
pub(crate) fn collect<T>(
    bound: usize,
    items: impl Iterator<Item = T>,
) -> Result<Vec<T>, PlanError> {
    let mut vec = with_capacity(bound)?;
    vec.extend(items);
    Ok(vec)
}

/// Bytes this process can still expect the machine to back: the kernel's
/// `MemAvailable`, bounded by what the cgroup's limit leaves. `None` where
/// that is unknown (other systems, no `/proc`).
pub(crate) fn memory_available() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
        let kib: usize = meminfo
            .lines()
            .find_map(|line| line.strip_prefix("MemAvailable:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        let mut available = kib.saturating_mul(1024);
        let read = |path: &str| -> Option<usize> {
            std::fs::read_to_string(path).ok()?.trim().parse().ok()
        };
        // cgroup v2; "max" (no limit) does not parse and is skipped.
        if let (Some(max), Some(current)) = (
            read("/sys/fs/cgroup/memory.max"),
            read("/sys/fs/cgroup/memory.current"),
        ) {
            available = available.min(max.saturating_sub(current));
        }
        Some(available)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
