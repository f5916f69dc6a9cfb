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
