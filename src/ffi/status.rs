//! Status codes: the one table of what a call can answer.
//!
//! Each code's number is stable and documented here once; its description
//! ([`aether_status_str`]) and the core errors that map to it (`status_of`)
//! stand right below, so that adding a code means editing this file only.
//! A retired code keeps its number, as a comment, and is never reused.

use core::ffi::c_char;

use crate::error::PlanError;

/// A status code: `AETHER_STATUS_OK` (0) or the reason a call failed.
/// Codes are stable; a retired code is never reused.
pub type aether_status = u32;

/// Success: every output was written.
pub const AETHER_STATUS_OK: aether_status = 0;
/// An array pointer was NULL with a non-zero count, or a single-value output
/// pointer was NULL.
pub const AETHER_STATUS_NULL_POINTER: aether_status = 1;
/// A tensor has `first_use > last_use`.
pub const AETHER_STATUS_INVALID_LIFETIME: aether_status = 2;
/// An edge has `source >= target`: nodes must be numbered topologically.
pub const AETHER_STATUS_NOT_TOPOLOGICAL: aether_status = 3;
/// An edge or incidence names a node at or beyond `node_count`.
pub const AETHER_STATUS_NODE_OUT_OF_RANGE: aether_status = 4;
/// A size, offset or sum would pass `SIZE_MAX`, or an array's byte length
/// (`count * sizeof(element)`) would pass `PTRDIFF_MAX`.
pub const AETHER_STATUS_OVERFLOW: aether_status = 5;
/// A buffer is too small. For a reduction's `edges_out`, the count it needs
/// was written to `*edges_out_count`. For a `workspace`, nothing was
/// written (the count output neither): the function's `*_workspace_size`
/// gives the bytes it needs.
pub const AETHER_STATUS_BUFFER_TOO_SMALL: aether_status = 6;
/// Scratch memory could not be allocated.
pub const AETHER_STATUS_OUT_OF_MEMORY: aether_status = 7;
/// An internal error was caught at the boundary. Please report it.
pub const AETHER_STATUS_PANIC: aether_status = 8;
/// An array pointer is not aligned for its element type.
pub const AETHER_STATUS_MISALIGNED_POINTER: aether_status = 9;
/// A plan alignment is 0 or not a power of two.
pub const AETHER_STATUS_INVALID_ALIGNMENT: aether_status = 10;
/// An options or report struct is not one this library knows: its
/// `struct_size` is too small, an unknown field is set, or a strategy code is
/// unknown.
pub const AETHER_STATUS_INVALID_OPTIONS: aether_status = 11;
/// The graph has a directed cycle, so it has no transitive reduction as a
/// DAG; the `*_explain` call names a node on it.
pub const AETHER_STATUS_CYCLE: aether_status = 12;
/// A count passed as a C `int` is negative.
pub const AETHER_STATUS_NEGATIVE_COUNT: aether_status = 13;
/// No plan within the problem's capacity exists: the lower bound exceeds it,
/// a fixed tensor ends past it, or the search considered every plan.
pub const AETHER_STATUS_DOES_NOT_FIT: aether_status = 14;
/// No plan within the problem's capacity was found, but none was proven
/// impossible: the strategy or its budget stopped first.
pub const AETHER_STATUS_DOES_NOT_FIT_UNPROVEN: aether_status = 15;
/// Two fixed tensors share bytes while both are live (or share memory by
/// reuse at different fixed offsets), or two tensors of one reuse group,
/// neither reusing the other, would share bytes while both are active (the
/// reuse pins them to one offset); the explain call names both.
pub const AETHER_STATUS_CONFLICTING_FIXED_OFFSETS: aether_status = 16;
/// A gap names no tensor, leaves its lifetime, overlaps another of its gaps,
/// or has a window outside its size.
pub const AETHER_STATUS_INVALID_GAP: aether_status = 17;
/// A reuse pair names a tensor out of range or itself, reuses a smaller
/// tensor, reuses twice, or closes a cycle.
pub const AETHER_STATUS_INVALID_REUSE: aether_status = 18;
/// A fixed offset is not a multiple of an alignment its tensor needs.
pub const AETHER_STATUS_MISALIGNED_FIXED_OFFSET: aether_status = 19;
/// Two buffers of the call share bytes in a way the calling rules forbid
/// (outputs and workspaces overlap nothing else; the islands labels overlap
/// no input either). Nothing was written.
pub const AETHER_STATUS_OVERLAPPING_BUFFERS: aether_status = 20;

/// The `index` of an error that no single input element caused.
pub const AETHER_NO_INDEX: usize = usize::MAX;

/// What went wrong in a call, as reported by the `aether_*_explain` functions.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_error_detail {
    /// The status the explained call returns for these inputs.
    pub status: aether_status,
    /// The index of the input element at fault (tensor, edge or incidence),
    /// or `AETHER_NO_INDEX` when no single element caused the status.
    pub index: usize,
    /// The node the status is about (a node out of range, or one on a
    /// cycle), or `AETHER_NO_INDEX`.
    pub node: usize,
}

/// A static, NUL-terminated description of a status code. Any integer is
/// accepted; an unknown code gets "unknown status code".
#[no_mangle]
pub extern "C" fn aether_status_str(status: u32) -> *const c_char {
    let text: &'static core::ffi::CStr = match status {
        AETHER_STATUS_OK => c"ok",
        AETHER_STATUS_NULL_POINTER => {
            c"null pointer: an array with a non-zero count, or a single-value output, was NULL"
        }
        AETHER_STATUS_INVALID_LIFETIME => c"invalid lifetime: a tensor has first_use > last_use",
        AETHER_STATUS_NOT_TOPOLOGICAL => c"not topological: an edge has source >= target",
        AETHER_STATUS_NODE_OUT_OF_RANGE => {
            c"node out of range: an edge or incidence names a node >= node_count"
        }
        AETHER_STATUS_OVERFLOW => c"overflow: a size, offset, sum or array length passes its limit",
        AETHER_STATUS_BUFFER_TOO_SMALL => {
            c"buffer too small: an output (its needed count was written to the count output) or a workspace (see its *_workspace_size; nothing written)"
        }
        AETHER_STATUS_OUT_OF_MEMORY => c"out of memory: scratch memory could not be allocated",
        AETHER_STATUS_PANIC => c"internal error caught at the library boundary",
        AETHER_STATUS_MISALIGNED_POINTER => {
            c"misaligned pointer: an array is not aligned for its element type"
        }
        AETHER_STATUS_INVALID_ALIGNMENT => {
            c"invalid alignment: a plan alignment must be a power of two"
        }
        AETHER_STATUS_NEGATIVE_COUNT => c"negative count: a count passed as an int is below 0",
        AETHER_STATUS_OVERLAPPING_BUFFERS => {
            c"overlapping buffers: an output or workspace shares bytes with another argument"
        }
        AETHER_STATUS_CYCLE => c"cycle: the graph has a directed cycle, so it is not a DAG",
        AETHER_STATUS_INVALID_OPTIONS => {
            c"invalid options: unknown struct_size, field or strategy in an options or report struct"
        }
        AETHER_STATUS_DOES_NOT_FIT => {
            c"does not fit: no plan within the capacity exists (proven)"
        }
        AETHER_STATUS_DOES_NOT_FIT_UNPROVEN => {
            c"does not fit: no plan within the capacity was found within the budget (not proven)"
        }
        AETHER_STATUS_CONFLICTING_FIXED_OFFSETS => {
            c"conflicting fixed offsets: two fixed tensors, or two tensors one reuse pins to one offset, share bytes while both are live"
        }
        AETHER_STATUS_INVALID_GAP => {
            c"invalid gap: outside its tensor's lifetime, overlapping another, or a window outside its size"
        }
        AETHER_STATUS_INVALID_REUSE => {
            c"invalid reuse: out of range, itself, a smaller tensor, reusing twice, or a cycle"
        }
        AETHER_STATUS_MISALIGNED_FIXED_OFFSET => {
            c"misaligned fixed offset: not a multiple of an alignment its tensor needs"
        }
        _ => c"unknown status code",
    };
    text.as_ptr()
}

/// The status code for an error of the core.
pub(crate) fn status_of(error: &PlanError) -> aether_status {
    match error {
        PlanError::InvalidLifetime { .. } => AETHER_STATUS_INVALID_LIFETIME,
        PlanError::Overflow { .. } => AETHER_STATUS_OVERFLOW,
        PlanError::NotTopological { .. } => AETHER_STATUS_NOT_TOPOLOGICAL,
        PlanError::EdgeOutOfRange { .. } | PlanError::IncidenceOutOfRange { .. } => {
            AETHER_STATUS_NODE_OUT_OF_RANGE
        }
        PlanError::OutOfMemory { .. } => AETHER_STATUS_OUT_OF_MEMORY,
        PlanError::InvalidAlignment { .. } => AETHER_STATUS_INVALID_ALIGNMENT,
        PlanError::Cycle { .. } => AETHER_STATUS_CYCLE,
        PlanError::DoesNotFit { proven: true, .. } => AETHER_STATUS_DOES_NOT_FIT,
        PlanError::DoesNotFit { proven: false, .. } => AETHER_STATUS_DOES_NOT_FIT_UNPROVEN,
        PlanError::ConflictingFixedOffsets { .. } => AETHER_STATUS_CONFLICTING_FIXED_OFFSETS,
        PlanError::InvalidGap { .. } => AETHER_STATUS_INVALID_GAP,
        PlanError::InvalidReuse { .. } => AETHER_STATUS_INVALID_REUSE,
        PlanError::MisalignedFixedOffset { .. } => AETHER_STATUS_MISALIGNED_FIXED_OFFSET,
        PlanError::InvalidTensorAlignment { .. } => AETHER_STATUS_INVALID_ALIGNMENT,
        PlanError::ConstraintCount { .. } => AETHER_STATUS_INVALID_OPTIONS,
        #[allow(unreachable_patterns)] // PlanError is non_exhaustive
        _ => AETHER_STATUS_PANIC,
    }
}

/// Why a call failed, before any output was written.
#[derive(Clone, Copy)]
pub(crate) struct Failure {
    pub(crate) status: aether_status,
    /// The input element at fault, or `AETHER_NO_INDEX`.
    pub(crate) index: usize,
    /// The node at fault, or `AETHER_NO_INDEX`.
    pub(crate) node: usize,
}

/// The outcome of one call before any output is written.
pub(crate) type Outcome<T> = Result<T, Failure>;

pub(crate) fn outcome<T>(result: Result<T, PlanError>) -> Outcome<T> {
    result.map_err(|e| Failure {
        status: status_of(&e),
        index: e.index().unwrap_or(AETHER_NO_INDEX),
        node: e.node().unwrap_or(AETHER_NO_INDEX),
    })
}

pub(crate) fn no_index(status: aether_status) -> Failure {
    Failure {
        status,
        index: AETHER_NO_INDEX,
        node: AETHER_NO_INDEX,
    }
}
