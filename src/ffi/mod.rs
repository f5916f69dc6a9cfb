//! The C ABI: `extern "C"` entry points over caller-owned buffers.
//!
//! `include/aether_planner.h` is generated from this folder by cbindgen
//! (`cbindgen.toml`); `tests/header.rs` fails when the checked-in header
//! differs from what cbindgen produces now.
//!
//! Calling rules, for every entry point:
//!
//! - Inputs come first, outputs last; every buffer is followed by its element
//!   count (or capacity).
//! - An array pointer, input or output, may be NULL only when its element
//!   count is 0. A pointer to a single output value is never NULL. Anything
//!   else is `AETHER_STATUS_NULL_POINTER`.
//! - Outputs are written only on success (`AETHER_STATUS_OK`). On any error no
//!   output buffer is written, with one documented exception: a reduction
//!   whose output buffer is too small reports the count it needs.
//! - No global mutable state: every entry point is reentrant and thread-safe.
//! - No panic crosses the boundary: an internal error becomes
//!   `AETHER_STATUS_PANIC`.
//! - Status codes arriving from C are plain integers, never a Rust enum.
//!
//! The layout: [`status`] is the one table of status codes; `boundary` holds
//! the guard and the buffer checks; [`offsets`], [`reduction`] and
//! [`islands`] each keep their `repr(C)` types beside all of their entry
//! points, every `_explain` next to its call. The boundary knows nothing of
//! the algorithms beyond calling their `try_` forms: it converts buffers,
//! maps errors to status codes and guards panics.

#![allow(non_camel_case_types)]

mod boundary;
pub mod islands;
pub mod offsets;
pub mod problem;
pub mod reduction;
pub mod status;

pub use islands::*;
pub use offsets::*;
pub use problem::*;
pub use reduction::*;
pub use status::*;

use core::ffi::c_char;

/// The library's version, "MAJOR.MINOR.PATCH", as a static NUL-terminated
/// string; equals the `AETHER_PLANNER_VERSION_*` macros of the header the
/// caller compiled against when the two match.
#[no_mangle]
pub extern "C" fn aether_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
