//! The boundary's machinery: the panic guard, pointer and slice checks, and
//! reading and writing caller-owned buffers. It knows the calling rules of
//! `ffi` and nothing of what the entry points compute.

use core::mem::{align_of, size_of};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::status::*;
use crate::sys::scratch::Scratch;

/// Runs `body` and turns a panic into `AETHER_STATUS_PANIC`.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), aether_status>) -> aether_status {
    let body = || {
        // Test builds only: prove that a panic deep in a call stays inside.
        #[cfg(feature = "panic-injection")]
        if std::env::var_os("AETHER_INJECT_PANIC").is_some() {
            panic!("panic injected by AETHER_INJECT_PANIC");
        }
        body()
    };
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => AETHER_STATUS_OK,
        Ok(Err(status)) => status,
        Err(_) => AETHER_STATUS_PANIC,
    }
}

/// Checks an array pointer and its element count: NULL only with count 0,
/// aligned, and a byte length that a Rust slice may have.
pub(crate) fn check_array<T>(ptr: *const T, count: usize) -> Result<(), aether_status> {
    if count == 0 {
        return Ok(());
    }
    if ptr.is_null() {
        return Err(AETHER_STATUS_NULL_POINTER);
    }
    if ptr as usize % align_of::<T>() != 0 {
        return Err(AETHER_STATUS_MISALIGNED_POINTER);
    }
    match count.checked_mul(size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(AETHER_STATUS_OVERFLOW),
    }
}

/// Checks a pointer to one output value.
pub(crate) fn check_value<T>(ptr: *mut T) -> Result<(), aether_status> {
    if ptr.is_null() {
        Err(AETHER_STATUS_NULL_POINTER)
    } else if ptr as usize % align_of::<T>() != 0 {
        Err(AETHER_STATUS_MISALIGNED_POINTER)
    } else {
        Ok(())
    }
}

/// Copies a checked C array into a fallibly allocated Vec, converting each
/// element; the C array is not referenced afterwards, so an output buffer may
/// alias it.
///
/// # Safety
/// `check_array(ptr, count)` succeeded and `ptr` points to `count` readable
/// elements.
pub(crate) unsafe fn read_array<T: Copy, U>(
    ptr: *const T,
    count: usize,
    convert: impl Fn(T) -> U,
) -> Result<Vec<U>, aether_status> {
    let mut out = Vec::new();
    out.try_reserve_exact(count)
        .map_err(|_| AETHER_STATUS_OUT_OF_MEMORY)?;
    for i in 0..count {
        out.push(convert(ptr.add(i).read()));
    }
    Ok(out)
}

/// Writes `values` to a checked output array of at least `values.len()`
/// elements.
///
/// # Safety
/// `check_array(ptr, values.len())` succeeded and `ptr` points to that many
/// writable elements.
pub(crate) unsafe fn write_array<T: Copy>(ptr: *mut T, values: &[T]) {
    if !values.is_empty() {
        core::ptr::copy_nonoverlapping(values.as_ptr(), ptr, values.len());
    }
}

/// A checked input array as a slice; empty when `count` is 0.
///
/// # Safety
/// `ptr` points to `count` readable elements that nothing writes while the
/// slice lives: callers refuse overlapping outputs first ([`disjoint`]).
pub(crate) unsafe fn input_slice<'a, T>(
    ptr: *const T,
    count: usize,
) -> Result<&'a [T], aether_status> {
    check_array(ptr, count)?;
    Ok(if count == 0 {
        &[]
    } else {
        core::slice::from_raw_parts(ptr, count)
    })
}

/// A checked input array read element by element through its raw pointer,
/// never as a reference: an output written through another pointer may
/// overlap it once the algorithm has stopped reading.
pub(crate) struct RawInput<T> {
    ptr: *const T,
    count: usize,
}

impl<T: Copy> RawInput<T> {
    /// # Safety
    /// `ptr` points to `count` readable elements for as long as the value
    /// is used.
    pub(crate) unsafe fn new(ptr: *const T, count: usize) -> Result<Self, aether_status> {
        check_array(ptr, count)?;
        Ok(RawInput { ptr, count })
    }

    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Element `i`; panics (caught by [`guard`]) past the end.
    pub(crate) fn get(&self, i: usize) -> T {
        assert!(i < self.count, "input index {i} out of {}", self.count);
        // SAFETY: `new`'s contract, and `i < count`.
        unsafe { self.ptr.add(i).read() }
    }

    /// Asks the cache for element `i` (any index); a hint only.
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize) {
        crate::sys::pages::prefetch_address(self.ptr.wrapping_add(i));
    }
}

/// A checked output array as a slice; empty when `count` is 0.
///
/// # Safety
/// `check_array(ptr, count)` succeeded and `ptr` points to `count` writable
/// elements that no input of the call overlaps.
pub(crate) unsafe fn output_slice<'a, T>(ptr: *mut T, count: usize) -> &'a mut [T] {
    if count == 0 {
        &mut []
    } else {
        core::slice::from_raw_parts_mut(ptr, count)
    }
}

/// The bytes one argument of a call touches: `count` elements at `ptr`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    start: usize,
    bytes: usize,
}

/// The region of `count` elements at `ptr` (a byte length past `usize` is
/// clamped; `check_array` refuses such arrays anyway).
pub(crate) fn region<T>(ptr: *const T, count: usize) -> Region {
    Region {
        start: ptr as usize,
        bytes: count.saturating_mul(size_of::<T>()),
    }
}

/// Refuses, with `AETHER_STATUS_OVERLAPPING_BUFFERS`, any two non-empty
/// regions that share a byte.
pub(crate) fn disjoint(regions: &[Region]) -> Result<(), aether_status> {
    for (i, a) in regions.iter().enumerate() {
        for b in &regions[i + 1..] {
            if a.bytes == 0 || b.bytes == 0 {
                continue;
            }
            let a_end = a.start.saturating_add(a.bytes);
            let b_end = b.start.saturating_add(b.bytes);
            if a.start < b_end && b.start < a_end {
                return Err(AETHER_STATUS_OVERLAPPING_BUFFERS);
            }
        }
    }
    Ok(())
}

/// The bytes of a caller's workspace that a call needs, checked: the
/// declared size suffices, the pointer is aligned for `size_t` and NULL only
/// when nothing is needed.
pub(crate) fn workspace_region(
    workspace: *mut core::ffi::c_void,
    workspace_size: usize,
    needed: Option<usize>,
) -> Result<Region, aether_status> {
    let needed = needed.ok_or(AETHER_STATUS_OVERFLOW)?;
    if workspace_size < needed {
        return Err(AETHER_STATUS_BUFFER_TOO_SMALL);
    }
    check_array(
        workspace.cast::<usize>().cast_const(),
        needed.div_ceil(size_of::<usize>()),
    )?;
    Ok(region(workspace.cast::<u8>().cast_const(), needed))
}

/// The first `needed` bytes of a caller's workspace as scratch memory: only
/// the bytes the call uses, never the declared size, which a caller may
/// state generously.
///
/// # Safety
/// `workspace_region(workspace, _, Some(needed))` succeeded, `workspace`
/// points to `needed` writable bytes, and [`disjoint`] refused every other
/// argument overlapping them.
pub(crate) unsafe fn scratch_of<'a>(
    workspace: *mut core::ffi::c_void,
    needed: usize,
) -> Scratch<'a> {
    Scratch::new(if needed == 0 {
        &mut []
    } else {
        core::slice::from_raw_parts_mut(workspace.cast(), needed)
    })
}

/// Whether `struct_size` is one an extensible struct `T` of this or a later
/// version can have: at least this library's size, at most `max` (so an
/// uninitialised size is refused without reading past the struct), and a
/// multiple of `T`'s alignment.
pub(crate) fn struct_size_is_valid<T>(struct_size: usize, max: usize) -> bool {
    (size_of::<T>()..=max).contains(&struct_size) && struct_size % align_of::<T>() == 0
}

/// Whether the bytes of the caller's `T` past the fields this library knows,
/// up to `declared`, are all zero: a newer caller's extra fields are accepted
/// only at their zero default. Read byte by byte, so no slice is ever built
/// over memory the caller only claims.
///
/// # Safety
/// `struct_size_is_valid::<T>(declared, _)` holds and `ptr` points to
/// `declared` readable bytes.
pub(crate) unsafe fn unknown_fields_are_zero<T>(ptr: *const T, declared: usize) -> bool {
    let bytes = ptr.cast::<u8>();
    (size_of::<T>()..declared).all(|k| bytes.add(k).read() == 0)
}

/// Fills `detail_out` with an outcome's status and element index.
pub(crate) unsafe fn explain<T>(
    detail_out: *mut aether_error_detail,
    compute: impl FnOnce() -> Outcome<T>,
) -> aether_status {
    guard(|| {
        check_value(detail_out)?;
        let failure = match compute() {
            Ok(_) => no_index(AETHER_STATUS_OK),
            Err(failure) => failure,
        };
        detail_out.write(aether_error_detail {
            status: failure.status,
            index: failure.index,
            node: failure.node,
        });
        Ok(())
    })
}
