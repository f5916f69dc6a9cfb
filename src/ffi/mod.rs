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
//!   whose `edges_out` is too small reports the count it needs
//!   (`BUFFER_TOO_SMALL`); a workspace too small writes nothing at all.
//! - Overlap: inputs are only read and may overlap one another. Outputs
//!   (arrays, single values, workspaces) never overlap one another, and a
//!   workspace overlaps no input. Any other output may overlap an input,
//!   except the labels of `aether_islands` and `aether_islands_i32`, which
//!   are their working memory. A forbidden overlap is
//!   `AETHER_STATUS_OVERLAPPING_BUFFERS`, with nothing written. What counts
//!   is the bytes a call touches: `count * sizeof(element)` of an array (of
//!   a reduction's `edges_out`, at most `edge_count` elements), and of a
//!   workspace the bytes its `*_workspace_size` function gives, never more
//!   of it, whatever `workspace_size` says.
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

/// Parses a decimal version component at compile time.
const fn component(digits: &str) -> u32 {
    let bytes = digits.as_bytes();
    let mut value = 0;
    let mut i = 0;
    while i < bytes.len() {
        value = value * 10 + (bytes[i] - b'0') as u32;
        i += 1;
    }
    value
}

const VERSION_NUMBER: u32 = {
    let (major, minor, patch) = (
        component(env!("CARGO_PKG_VERSION_MAJOR")),
        component(env!("CARGO_PKG_VERSION_MINOR")),
        component(env!("CARGO_PKG_VERSION_PATCH")),
    );
    assert!(
        minor < 100 && patch < 100,
        "the version number has two digits each"
    );
    major * 10_000 + minor * 100 + patch
};

/// The library's version as one number, `MAJOR * 10000 + MINOR * 100 +
/// PATCH` (0.1.0 is 100, 1.2.3 is 10203), equal to the header's
/// `AETHER_PLANNER_VERSION_NUMBER` when the two match. A program linked
/// against the shared library can refuse an incompatible one at start-up:
/// within 0.x a different minor version is incompatible, from 1.0 on a
/// different major one, or an older minor than the header's.
#[no_mangle]
pub extern "C" fn aether_version_number() -> u32 {
    VERSION_NUMBER
}
