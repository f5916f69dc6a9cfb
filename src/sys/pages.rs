//! Hints to the memory system: transparent huge pages for large fresh
//! allocations and cache-line prefetches. Each is a hint only; where the
//! platform has no such hint it compiles to nothing.

use core::cell::Cell;

std::thread_local! {
    /// Set while this thread runs work under a time cap.
    static HELD_BACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` with [`advise_huge_pages`] doing nothing on this thread:
/// for work under a time cap. A fault in an advised range may first
/// compact memory, a stall of tens of milliseconds that no reading of the
/// clock sees coming, where a capped call needs each stretch of work short.
/// Nests; the setting before is restored however `work` ends.
pub(crate) fn without_huge_pages<R>(work: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            HELD_BACK.with(|held| held.set(self.0));
        }
    }
    let _restore = Restore(HELD_BACK.with(|held| held.replace(true)));
    work()
}

/// Asks Linux to back a large fresh allocation of 4 MiB or more with
/// transparent huge pages (see [`fallible`](super::fallible) for which
/// ones). Touching fresh memory otherwise costs one or two page faults per
/// 4 KiB, which dominates the time on large sparse graphs, and tables read
/// at random, or written by a radix sort's thousands of streams, miss the
/// TLB on nearly every access. A hint only: failure (another page size,
/// huge pages disabled) changes nothing but speed. Nothing is asked inside
/// [`without_huge_pages`].
pub(crate) fn advise_huge_pages<T>(matrix: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        use core::ffi::{c_int, c_void};
        extern "C" {
            fn madvise(address: *mut c_void, length: usize, advice: c_int) -> c_int;
        }
        const MADV_HUGEPAGE: c_int = 14;
        const PAGE: usize = 4096;
        const WORTH_IT: usize = 4 << 20;
        let bytes = core::mem::size_of_val(matrix);
        if bytes < WORTH_IT || HELD_BACK.with(Cell::get) {
            return;
        }
        let start = (matrix.as_mut_ptr() as usize).next_multiple_of(PAGE);
        let end = (matrix.as_mut_ptr() as usize + bytes) & !(PAGE - 1);
        if end <= start {
            return;
        }
        // SAFETY: the range lies inside memory this vector owns, and
        // MADV_HUGEPAGE changes neither its contents nor its validity.
        unsafe {
            madvise(start as *mut c_void, end - start, MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = matrix;
}

/// Asks the cache for the line at `address`, which need not be valid (a
/// prefetch never faults); a hint only. For memory the caller owns, where a
/// reference could alias a write of the call.
#[inline(always)]
pub(crate) fn prefetch_address<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no architectural effect,
    // whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// Asks the cache for the line holding `entry`; a hint only.
#[inline(always)]
pub(crate) fn prefetch<T>(entry: &T) {
    prefetch_address(entry as *const T);
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Whether the mapping holding `address` is advised huge pages, read
    /// from the kernel's own account of this process (`hg` among the
    /// mapping's flags in `/proc/self/smaps`).
    fn advised(address: usize) -> bool {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((low, high)) = range.split_once('-') {
                if let (Ok(low), Ok(high)) = (
                    usize::from_str_radix(low, 16),
                    usize::from_str_radix(high, 16),
                ) {
                    inside = (low..high).contains(&address);
                    continue;
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return flags.split_whitespace().any(|flag| flag == "hg");
                }
            }
        }
        panic!("no mapping holds {address:#x}");
    }

    /// Room reserved by `reserve_advised` is advised huge pages, but not
    /// inside `without_huge_pages`, which restores the setting before it
    /// however its work ends (nested, or by a panic). 64 MiB is past the
    /// largest size glibc serves from its heap, so each reservation is a
    /// mapping of its own, untouched (it costs no memory).
    #[test]
    fn large_allocations_are_advised_but_under_a_cap() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            return; // a kernel without huge pages: nothing to advise
        }
        let words = 8 << 20;
        let allocate = || {
            let mut room = Vec::<u64>::new();
            crate::sys::fallible::reserve_advised(&mut room, words).unwrap();
            room
        };
        // The middle of the room: inside whichever huge pages it spans.
        let middle_advised = |room: &Vec<u64>| advised(room.as_ptr() as usize + words * 4);
        assert!(middle_advised(&allocate()));
        let held = without_huge_pages(|| {
            let nested = without_huge_pages(allocate);
            assert!(HELD_BACK.with(Cell::get));
            (allocate(), nested)
        });
        assert!(!middle_advised(&held.0));
        assert!(!middle_advised(&held.1));
        assert!(!HELD_BACK.with(Cell::get));
        let unwound = std::panic::catch_unwind(|| without_huge_pages(|| panic!("work failed")));
        assert!(unwound.is_err());
        assert!(!HELD_BACK.with(Cell::get));
        assert!(middle_advised(&allocate()));
    }
}
