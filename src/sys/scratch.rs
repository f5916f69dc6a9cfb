//! Typed arrays carved out of one caller-given byte buffer: the allocator of
//! the heap-free (`*_in`) forms, for runtimes that may not call `malloc`.

use core::mem::{align_of, size_of, MaybeUninit};

use crate::error::PlanError;

/// Typed arrays carved one after another out of a byte buffer.
pub(crate) struct Scratch<'a> {
    rest: &'a mut [MaybeUninit<u8>],
}

impl<'a> Scratch<'a> {
    pub(crate) fn new(bytes: &'a mut [MaybeUninit<u8>]) -> Self {
        Scratch { rest: bytes }
    }

    /// The next `count` elements, each set to `fill`; `OutOfMemory` if the
    /// buffer is too small (callers check sizes first, so this is a guard).
    pub(crate) fn take<T: Copy>(
        &mut self,
        count: usize,
        fill: T,
    ) -> Result<&'a mut [T], PlanError> {
        if count == 0 {
            return Ok(&mut []);
        }
        let rest = core::mem::take(&mut self.rest);
        let pad = rest.as_ptr().align_offset(align_of::<T>());
        let needed = count
            .checked_mul(size_of::<T>())
            .and_then(|bytes| bytes.checked_add(pad))
            .filter(|&needed| needed <= rest.len())
            .ok_or(PlanError::OutOfMemory {
                bytes: count.saturating_mul(size_of::<T>()),
            })?;
        let (mine, rest) = rest.split_at_mut(needed);
        self.rest = rest;
        let slots = &mut mine[pad..];
        let ptr = slots.as_mut_ptr().cast::<T>();
        for i in 0..count {
            // SAFETY: `ptr` is aligned for T and the `count * size_of::<T>()`
            // bytes behind it are this call's alone.
            unsafe { ptr.add(i).write(fill) };
        }
        // SAFETY: every element was just initialised; the borrow of `mine`
        // lasts 'a and nothing else refers to these bytes.
        Ok(unsafe { core::slice::from_raw_parts_mut(ptr, count) })
    }

    /// The rest of the buffer as uninitialised elements of `T`, as many as
    /// fit: memory a caller writes before it reads, and whose pages it
    /// never writes stay untouched.
    pub(crate) fn take_rest<T>(&mut self) -> &'a mut [MaybeUninit<T>] {
        let rest = core::mem::take(&mut self.rest);
        let pad = rest.as_ptr().align_offset(align_of::<T>()).min(rest.len());
        let count = (rest.len() - pad) / size_of::<T>().max(1);
        let slots = &mut rest[pad..];
        // SAFETY: `slots` is aligned for T and holds at least
        // `count * size_of::<T>()` bytes, which the result borrows for 'a
        // alone; `MaybeUninit<T>` may hold any bytes.
        unsafe { core::slice::from_raw_parts_mut(slots.as_mut_ptr().cast(), count) }
    }

    /// Runs `f` over the rest of the buffer, which is whole again when `f`
    /// returns: scratch for a first step whose arrays are dropped before the
    /// arrays of the next are taken.
    pub(crate) fn scoped<R>(&mut self, f: impl FnOnce(&mut Scratch<'_>) -> R) -> R {
        f(&mut Scratch {
            rest: &mut *self.rest,
        })
    }
}

/// Bytes of `count` elements of `T`, or `None` on overflow. With buffers
/// aligned to a machine word, as `malloc` and `size_t` arrays are, the
/// arrays here need no padding, so the sums below are exact.
pub(crate) fn array_bytes<T>(count: usize) -> Option<usize> {
    count.checked_mul(size_of::<T>())
}

/// Plain integer words whose bytes any `u32`s may overwrite.
///
/// # Safety
///
/// An implementor is at least 4 bytes in size and alignment, its size a
/// multiple of 4, and every bit pattern of it is valid: [`halves`] relies
/// on it.
pub(crate) unsafe trait Word: Copy {}
// SAFETY: 8 bytes, 8-aligned, every bit pattern valid.
unsafe impl Word for u64 {}
// SAFETY: 4 or 8 bytes, aligned as its size, every bit pattern valid.
unsafe impl Word for usize {}

/// The 32-bit halves of `words` (the words themselves where they are
/// 32-bit), in the platform's byte order, which no caller relies on.
pub(crate) fn halves<W: Word>(words: &mut [W]) -> &mut [u32] {
    let len = words.len() * (size_of::<W>() / 4);
    // SAFETY: `u32` is no larger and no more aligned than a `Word`, every
    // bit pattern is a valid `u32` and a valid `Word`, and the halves cover
    // exactly the bytes `words` borrows, a borrow the result takes over.
    unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u32>(), len) }
}
