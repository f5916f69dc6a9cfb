//! Hints to the memory system: transparent huge pages for large fresh
//! allocations and cache-line prefetches. Each is a hint only; where the
//! platform has no such hint it compiles to nothing.

/// Asks Linux to back a large fresh allocation (a matrix here, the labels in
/// islands) with transparent huge pages. Touching fresh memory otherwise
/// costs one or two page faults per 4 KiB, which dominates the time on large
/// sparse graphs. A hint only: failure (another page size, huge pages
/// disabled) changes nothing but speed.
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
        if bytes < WORTH_IT {
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
