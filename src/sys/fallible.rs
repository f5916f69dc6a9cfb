//! Allocations that fail with an error instead of aborting the process.
//!
//! The library runs inside someone else's process: an allocation it cannot
//! have must come back as [`PlanError::OutOfMemory`], never as the abort of
//! Rust's default allocation-failure handler.
//!
//! Only [`reserve_advised`] and [`zeroed_words`] (a reduction's matrix) ask
//! for transparent huge pages ([`advise_huge_pages`]), for the few tables
//! that pay for them: a huge page saves TLB misses on a table read or
//! written at random, but it is cleared whole at its first touch, from
//! memory the cache has not seen, where 4 KiB pages are often recycled from
//! the cache.

use crate::error::PlanError;
use crate::sys::pages::advise_huge_pages;

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

/// The items of `items`, of which there should be at most `bound`, collected
/// into a vector allocated up front. More items than `bound` grow it
/// fallibly: a wrong bound costs a reallocation, never an abort.
pub(crate) fn collect<T>(
    bound: usize,
    items: impl Iterator<Item = T>,
) -> Result<Vec<T>, PlanError> {
    let mut vec = with_capacity(bound)?;
    let mut items = items;
    // Within the room allocated: `extend` never reallocates here.
    vec.extend(items.by_ref().take(bound));
    for item in items {
        push(&mut vec, item)?;
    }
    Ok(vec)
}

/// Room in `vec` for `additional` more elements, grown as `Vec` grows
/// (amortised doubling), or the bytes that could not be had.
pub(crate) fn reserve<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), PlanError> {
    vec.try_reserve(additional)
        .map_err(|_| PlanError::OutOfMemory {
            bytes: vec
                .len()
                .saturating_add(additional)
                .saturating_mul(core::mem::size_of::<T>()),
        })
}

/// [`reserve`] for a vector about to be written up to its new length and
/// then read or written at random (a radix sort's scratch, the greedy's
/// tables): new room advised huge pages (but inside
/// [`without_huge_pages`](crate::sys::pages::without_huge_pages)).
pub(crate) fn reserve_advised<T>(vec: &mut Vec<T>, additional: usize) -> Result<(), PlanError> {
    let capacity = vec.capacity();
    reserve(vec, additional)?;
    if vec.capacity() != capacity {
        advise_huge_pages(vec.spare_capacity_mut());
    }
    Ok(())
}

/// Appends `item` to `vec`, growing it fallibly.
pub(crate) fn push<T>(vec: &mut Vec<T>, item: T) -> Result<(), PlanError> {
    if vec.len() == vec.capacity() {
        reserve(vec, 1)?;
    }
    vec.push(item);
    Ok(())
}

/// The items of `items`, of unknown number, collected into a vector grown
/// fallibly: for lists usually much shorter than any bound known up front.
pub(crate) fn collect_growing<T>(items: impl Iterator<Item = T>) -> Result<Vec<T>, PlanError> {
    let mut vec = Vec::new();
    for item in items {
        push(&mut vec, item)?;
    }
    Ok(vec)
}

/// Structures above this size (256 MiB) are first checked against the memory
/// the machine can back; smaller ones never pay for the look-up.
const LOOK_UP_ABOVE: usize = 256 << 20;

/// Refuses a structure of `bytes` that the machine cannot back comfortably:
/// more than half of [`memory_available`]. The other half is left to the
/// caller's process and the rest of the machine. Such a structure would
/// otherwise be granted by the kernel and touched into the out-of-memory
/// killer instead of failing as [`PlanError::OutOfMemory`].
pub(crate) fn refuse_above_half_available(bytes: usize) -> Result<(), PlanError> {
    if bytes > half_available(bytes) {
        return Err(PlanError::OutOfMemory { bytes });
    }
    Ok(())
}

/// The most a structure may take under [`refuse_above_half_available`]'s
/// rule, as seen by one of `bytes`: half of [`memory_available`], or
/// `usize::MAX` where that is unknown or `bytes` is too small to pay for
/// the look-up. Lets a caller that can work in pieces size them instead of
/// being refused.
pub(crate) fn half_available(bytes: usize) -> usize {
    if bytes <= LOOK_UP_ABOVE {
        return usize::MAX;
    }
    memory_available().map_or(usize::MAX, |available| available / 2)
}

/// A zeroed `words`-long vector, or the number of bytes that could not be
/// allocated. Fresh zeroed pages come from the allocator lazily, so an
/// untouched part of a large matrix costs nothing.
pub(crate) fn zeroed_words(words: usize) -> Result<Vec<u64>, PlanError> {
    let mut matrix = zeroed::<u64>(words)?;
    advise_huge_pages(&mut matrix);
    Ok(matrix)
}

/// Types of which the all-zero bit pattern is a valid value.
///
/// # Safety
///
/// Implement only for such types.
pub(crate) unsafe trait ZeroValid {}

// SAFETY: integers and tuples of integers; all-zero bits are zeros.
unsafe impl ZeroValid for u8 {}
unsafe impl ZeroValid for u64 {}
unsafe impl ZeroValid for usize {}
unsafe impl ZeroValid for (usize, usize) {}
unsafe impl ZeroValid for (usize, usize, usize, usize) {}

/// `len` zeros, or the number of bytes that could not be allocated. Fresh
/// zeroed pages come from the allocator lazily: each is first touched by
/// the pass that writes it, not all at once here.
pub(crate) fn zeroed<T: ZeroValid>(len: usize) -> Result<Vec<T>, PlanError> {
    let bytes = len.saturating_mul(core::mem::size_of::<T>());
    if len == 0 || core::mem::size_of::<T>() == 0 {
        return Ok(Vec::new());
    }
    let layout =
        std::alloc::Layout::array::<T>(len).map_err(|_| PlanError::OutOfMemory { bytes })?;
    // SAFETY: the layout has a non-zero size. A non-null result is a zeroed
    // allocation of `len` values of `T` made by the global allocator with
    // the layout `Vec<T>` uses for capacity `len`, and all-zero bits are a
    // valid `T` (`ZeroValid`), so the vector may own it with length and
    // capacity `len`.
    unsafe {
        let pointer = std::alloc::alloc_zeroed(layout).cast::<T>();
        if pointer.is_null() {
            return Err(PlanError::OutOfMemory { bytes });
        }
        Ok(Vec::from_raw_parts(pointer, len, len))
    }
}

/// Bytes this process can still expect the machine to back: the kernel's
/// `MemAvailable`, bounded by what the cgroup's limit leaves. `None` where
/// that is unknown (other systems, no `/proc`).
fn memory_available() -> Option<usize> {
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
