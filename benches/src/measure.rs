//! Median wall time and peak memory of one benchmark case, measured inside
//! the process that runs it (the `bench-report` binary runs each case in a
//! child process of its own, so peaks never mix).
//!
//! Peak memory is the growth of the resident set's high-water mark over the
//! resident set just before the first run: Linux's `VmHWM` is reset by
//! writing `5` to `/proc/self/clear_refs` once the input is built and the
//! code is resident, so the figure is the routine's own scratch and output,
//! not its input's or its code's.

use std::time::{Duration, Instant};

/// One `/proc/self/status` field in bytes (`VmHWM`, `VmRSS`), if readable.
pub fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Makes every page of the process's file-backed mappings that hold code
/// resident, and the read-only data beside them. Linux maps such pages in
/// 64 KiB windows on a fault (`fault_around_bytes`), aligned to addresses
/// that change from run to run, so code first reached during a run would
/// add 0 to 128 KiB to its peak at random; this keeps the peak to data.
fn fault_in_code() {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return;
    };
    // Only the binary and shared objects: mappings of other files (locale
    // archives, caches) are left alone.
    let exe = std::env::current_exe().ok();
    for line in maps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(range), Some(perms), Some(path)) = (fields.first(), fields.get(1), fields.get(5))
        else {
            continue;
        };
        let is_object =
            path.contains(".so") || exe.as_ref().is_some_and(|e| e.to_str() == Some(path));
        if !perms.starts_with('r') || !is_object {
            continue;
        }
        let Some((start, end)) = range.split_once('-') else {
            continue;
        };
        let (Ok(start), Ok(end)) = (
            usize::from_str_radix(start, 16),
            usize::from_str_radix(end, 16),
        ) else {
            continue;
        };
        for address in (start..end).step_by(4096) {
            // SAFETY: the address lies in a readable mapping of an ELF
            // object, whose segments the loader maps within the file.
            unsafe {
                std::ptr::read_volatile(address as *const u8);
            }
        }
    }
}

/// Makes the code resident (`fault_in_code`), returns the allocator's free
/// memory to the kernel (glibc), then resets `VmHWM` to the current resident
/// set; false where Linux's `clear_refs` is not available. Without the trim,
/// scratch served from memory freed while building the input would be
/// resident already and escape the peak.
pub fn reset_peak() -> bool {
    fault_in_code();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> core::ffi::c_int;
        }
        // SAFETY: malloc_trim only releases free memory; it is always safe.
        unsafe {
            malloc_trim(0);
        }
    }
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// How many times to run a case: at least `min_runs`, then more until
/// `target` wall time has been spent or `max_runs` is reached.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    /// Runs always made (a single run longer than `single_run_cap` stops here
    /// after one).
    pub min_runs: usize,
    /// Upper bound on runs.
    pub max_runs: usize,
    /// Wall time after which no further run starts.
    pub target: Duration,
    /// A first run longer than this is not repeated: the case is too slow to
    /// repeat within the benchmark's time budget.
    pub single_run_cap: Duration,
}

/// What one case measured.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Wall time of every run, in order.
    pub times: Vec<Duration>,
    /// CPU time of every run (this process, all threads), where the OS
    /// reports it: on a shared machine the wall time can exceed it.
    pub cpu_times: Vec<Duration>,
    /// Growth of the resident high-water mark during the first run, in
    /// bytes (`None` where `/proc` is unavailable).
    pub peak_bytes: Option<u64>,
}

/// The median of `times` (the mean of the two middle ones for an even
/// count); zero for none.
pub fn median(times: &[Duration]) -> Duration {
    let mut times = times.to_vec();
    times.sort();
    let n = times.len();
    match n {
        0 => Duration::ZERO,
        _ if n % 2 == 1 => times[n / 2],
        _ => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}

impl Sample {
    /// The median wall time of the runs.
    pub fn median(&self) -> Duration {
        median(&self.times)
    }
}

/// CPU time consumed by this process so far (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn cpu_time() -> Option<Duration> {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        #[repr(C)]
        struct Timespec {
            seconds: i64,
            nanoseconds: i64,
        }
        extern "C" {
            fn clock_gettime(clock: core::ffi::c_int, time: *mut Timespec) -> core::ffi::c_int;
        }
        const CLOCK_PROCESS_CPUTIME_ID: core::ffi::c_int = 2;
        let mut time = Timespec {
            seconds: 0,
            nanoseconds: 0,
        };
        // SAFETY: `time` is a valid, writable timespec (64-bit Linux layout).
        let status = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut time) };
        (status == 0).then(|| Duration::new(time.seconds as u64, time.nanoseconds as u32))
    }
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    None
}

/// Runs `case` as `runs` says, dropping each result outside the timing, and
/// records its times and the first run's peak memory.
pub fn measure<T>(runs: Runs, mut case: impl FnMut() -> T) -> Sample {
    let baseline = if reset_peak() {
        status_bytes("VmRSS")
    } else {
        None
    };
    let mut times = Vec::new();
    let mut cpu_times = Vec::new();
    let started = Instant::now();
    let mut peak_bytes = None;
    while times.len() < runs.max_runs {
        let cpu_start = cpu_time();
        let start = Instant::now();
        let result = case();
        let elapsed = start.elapsed();
        if let (Some(before), Some(after)) = (cpu_start, cpu_time()) {
            cpu_times.push(after.saturating_sub(before));
        }
        if times.is_empty() {
            peak_bytes = baseline
                .zip(status_bytes("VmHWM"))
                .map(|(before, peak)| peak.saturating_sub(before));
        }
        drop(std::hint::black_box(result));
        times.push(elapsed);
        if times.len() == 1 && elapsed > runs.single_run_cap {
            break;
        }
        if times.len() >= runs.min_runs && started.elapsed() >= runs.target {
            break;
        }
    }
    Sample {
        times,
        cpu_times,
        peak_bytes,
    }
}
