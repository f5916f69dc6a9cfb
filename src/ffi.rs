//! The C ABI: `extern "C"` entry points over caller-owned buffers.
//!
//! `include/aether_planner.h` is generated from this file by cbindgen
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
//! This file knows nothing of the algorithms beyond calling their `try_`
//! forms; it converts buffers, maps errors to status codes and guards panics.

#![allow(non_camel_case_types)]

use core::ffi::c_char;
use core::mem::{align_of, size_of};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::islands::{try_islands_into, validate as validate_incidences, IncidenceList};
use crate::workspace::{
    peak_live_bytes_scratch_bytes, plan_offsets_scratch_bytes, transitive_reduction_scratch_bytes,
    try_peak_live_bytes_in, try_plan_offsets_in, try_transitive_reduction_in, InputList, Scratch,
};
use crate::{
    try_peak_live_bytes, try_plan_offsets, try_plan_offsets_with, try_transitive_reduction,
    try_transitive_reduction_any_order, PlanError, PlanOptions, PlanReport, SearchBudget, Strategy,
    TensorLifetime,
};

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
/// The output buffer cannot hold the result; the needed count was reported.
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

/// `aether_plan_options::strategy`: the specification's greedy planner.
pub const AETHER_STRATEGY_GREEDY: u32 = 0;
/// `aether_plan_options::strategy`: the best of several orderings and
/// placement rules, then local improvement.
pub const AETHER_STRATEGY_HEURISTIC: u32 = 1;
/// `aether_plan_options::strategy`: exact anytime branch and bound within the
/// budgets, started from the heuristic's plan.
pub const AETHER_STRATEGY_SEARCH: u32 = 2;
/// A budget field's value for "no limit".
pub const AETHER_BUDGET_UNLIMITED: u64 = u64::MAX;

/// The label of a node that is in no incidence, hence in no island.
pub const AETHER_NO_ISLAND: usize = usize::MAX;
/// The `index` of an error that no single input element caused.
pub const AETHER_NO_INDEX: usize = usize::MAX;

/// A tensor: `size` bytes, live from node `first_use` through node `last_use`
/// (inclusive).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_tensor_lifetime {
    /// Size in bytes. A zero-size tensor is not planned and gets offset 0.
    pub size: usize,
    /// First node at which the tensor is live.
    pub first_use: usize,
    /// Last node at which the tensor is live (inclusive).
    pub last_use: usize,
}

/// A DAG edge `source -> target`; nodes are numbered topologically, so
/// `source < target`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_edge {
    /// The node the edge leaves.
    pub source: usize,
    /// The node the edge enters.
    pub target: usize,
}

/// An incidence between nodes `a` and `b`; `a == b` activates one node alone.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_incidence {
    /// One endpoint.
    pub a: usize,
    /// The other endpoint.
    pub b: usize,
}

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

/// How `aether_plan_offsets_with` plans. Initialise with
/// `aether_plan_options_init`, then change the fields you need: the struct
/// may grow at its end in later versions, and `struct_size` tells the library
/// which version the caller compiled against.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct aether_plan_options {
    /// `sizeof(aether_plan_options)` as the caller compiled it. Bytes past the
    /// fields this library knows must be zero.
    pub struct_size: usize,
    /// Every offset is a multiple of this power of two, and the arena is
    /// computed on sizes rounded up to it. 1: no alignment.
    pub alignment: usize,
    /// `AETHER_STRATEGY_GREEDY` (default), `_HEURISTIC` or `_SEARCH`.
    pub strategy: u32,
    /// Search time limit in milliseconds, or `AETHER_BUDGET_UNLIMITED`
    /// (default). A time limit makes the plan depend on the machine.
    pub budget_ms: u64,
    /// Search node limit (a node is a partial plan that passed the search's
    /// bounds), or `AETHER_BUDGET_UNLIMITED`. The default, 300,000, gives the
    /// same plan on every machine.
    pub budget_nodes: u64,
}

/// What `aether_plan_offsets_with` found. Set `struct_size` to
/// `sizeof(aether_plan_report)` before the call.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_plan_report {
    /// `sizeof(aether_plan_report)` as the caller compiled it.
    pub struct_size: usize,
    /// Bytes the arena needs.
    pub arena_size: usize,
    /// A proven lower bound on the arena of every sound plan at this
    /// alignment: at least the peak of live (rounded) bytes.
    pub lower_bound: usize,
    /// 1 if `arena_size == lower_bound`, so no smaller arena exists; else 0.
    pub proven_optimal: u32,
    /// Search nodes visited (0 unless the strategy is search).
    pub search_nodes: u64,
}

// ---------------------------------------------------------------------------
// Boundary helpers: small early-return checks.
// ---------------------------------------------------------------------------

/// Runs `body` and turns a panic into `AETHER_STATUS_PANIC`.
fn guard(body: impl FnOnce() -> Result<(), aether_status>) -> aether_status {
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
fn check_array<T>(ptr: *const T, count: usize) -> Result<(), aether_status> {
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
fn check_value<T>(ptr: *mut T) -> Result<(), aether_status> {
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
unsafe fn read_array<T: Copy, U>(
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
unsafe fn write_array<T: Copy>(ptr: *mut T, values: &[T]) {
    if !values.is_empty() {
        core::ptr::copy_nonoverlapping(values.as_ptr(), ptr, values.len());
    }
}

/// The status code for an error of the core.
fn status_of(error: &PlanError) -> aether_status {
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
        #[allow(unreachable_patterns)] // PlanError is non_exhaustive
        _ => AETHER_STATUS_PANIC,
    }
}

fn tensor_of(t: aether_tensor_lifetime) -> TensorLifetime {
    TensorLifetime {
        size: t.size,
        first_use: t.first_use,
        last_use: t.last_use,
    }
}

/// Why a call failed, before any output was written.
#[derive(Clone, Copy)]
struct Failure {
    status: aether_status,
    /// The input element at fault, or `AETHER_NO_INDEX`.
    index: usize,
    /// The node at fault, or `AETHER_NO_INDEX`.
    node: usize,
}

/// The outcome of one call before any output is written.
type Outcome<T> = Result<T, Failure>;

fn outcome<T>(result: Result<T, PlanError>) -> Outcome<T> {
    result.map_err(|e| Failure {
        status: status_of(&e),
        index: e.index().unwrap_or(AETHER_NO_INDEX),
        node: e.node().unwrap_or(AETHER_NO_INDEX),
    })
}

fn no_index(status: aether_status) -> Failure {
    Failure {
        status,
        index: AETHER_NO_INDEX,
        node: AETHER_NO_INDEX,
    }
}

// Each entry point's computation, shared by the call and its explanation.

unsafe fn compute_plan(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
) -> Outcome<crate::MemoryPlan> {
    check_array(tensors, tensor_count).map_err(no_index)?;
    let tensors = read_array(tensors, tensor_count, tensor_of).map_err(no_index)?;
    outcome(try_plan_offsets(&tensors))
}

/// The options a C caller asked for, or why they are not acceptable.
///
/// # Safety
/// `options` points to `options->struct_size` readable bytes.
unsafe fn read_options(options: *const aether_plan_options) -> Result<PlanOptions, aether_status> {
    check_array(options, 1)?;
    let declared = (*options).struct_size;
    let known = size_of::<aether_plan_options>();
    if declared < known {
        return Err(AETHER_STATUS_INVALID_OPTIONS);
    }
    // A newer caller's extra fields are accepted only at their zero default.
    let tail = core::slice::from_raw_parts(options.cast::<u8>().add(known), declared - known);
    if tail.iter().any(|&byte| byte != 0) {
        return Err(AETHER_STATUS_INVALID_OPTIONS);
    }
    let options = options.read();
    let strategy = match options.strategy {
        AETHER_STRATEGY_GREEDY => Strategy::Greedy,
        AETHER_STRATEGY_HEURISTIC => Strategy::Heuristic,
        AETHER_STRATEGY_SEARCH => Strategy::Search,
        _ => return Err(AETHER_STATUS_INVALID_OPTIONS),
    };
    let limit = |value: u64| (value != AETHER_BUDGET_UNLIMITED).then_some(value);
    Ok(PlanOptions {
        alignment: options.alignment,
        strategy,
        budget: SearchBudget {
            time: limit(options.budget_ms).map(core::time::Duration::from_millis),
            nodes: limit(options.budget_nodes),
        },
    })
}

unsafe fn compute_plan_with(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    options: *const aether_plan_options,
) -> Outcome<PlanReport> {
    let options = read_options(options).map_err(no_index)?;
    check_array(tensors, tensor_count).map_err(no_index)?;
    let tensors = read_array(tensors, tensor_count, tensor_of).map_err(no_index)?;
    outcome(try_plan_offsets_with(&tensors, &options))
}

unsafe fn compute_peak(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
) -> Outcome<usize> {
    check_array(tensors, tensor_count).map_err(no_index)?;
    let tensors = read_array(tensors, tensor_count, tensor_of).map_err(no_index)?;
    outcome(try_peak_live_bytes(&tensors))
}

/// A reduction of the core: topologically numbered only, or any numbering.
type Reducer = fn(usize, &[(usize, usize)]) -> Result<Vec<(usize, usize)>, PlanError>;

unsafe fn compute_reduction(
    reducer: Reducer,
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
) -> Outcome<Vec<(usize, usize)>> {
    check_array(edges, edge_count).map_err(no_index)?;
    let edges = read_array(edges, edge_count, |e| (e.source, e.target)).map_err(no_index)?;
    outcome(reducer(node_count, &edges))
}

/// Writes a reduction to a caller's buffer of `capacity` edges, or reports
/// the count it needs.
///
/// # Safety
/// `check_array(edges_out, capacity)` and `check_value(count_out)` succeeded.
unsafe fn write_reduction(
    reduced: &[(usize, usize)],
    edges_out: *mut aether_edge,
    capacity: usize,
    count_out: *mut usize,
) -> Result<(), aether_status> {
    if reduced.len() > capacity {
        count_out.write(reduced.len());
        return Err(AETHER_STATUS_BUFFER_TOO_SMALL);
    }
    for (i, &(source, target)) in reduced.iter().enumerate() {
        edges_out.add(i).write(aether_edge { source, target });
    }
    count_out.write(reduced.len());
    Ok(())
}

impl IncidenceList for [aether_incidence] {
    fn count(&self) -> usize {
        self.len()
    }
    fn pair(&self, i: usize) -> (usize, usize) {
        (self[i].a, self[i].b)
    }
}

/// MuJoCo's layout: `2 * count` ints, -1 for a static endpoint (the world),
/// which stands for the other endpoint. A pair naming no node (two -1s, or
/// any other negative value) reads as an out-of-range node.
struct StaticEndpointPairs<'a>(&'a [i32]);

impl IncidenceList for StaticEndpointPairs<'_> {
    fn count(&self) -> usize {
        self.0.len() / 2
    }
    fn pair(&self, i: usize) -> (usize, usize) {
        match (self.0[2 * i], self.0[2 * i + 1]) {
            (a, b) if a >= 0 && b >= 0 => (a as usize, b as usize),
            (-1, b) if b >= 0 => (b as usize, b as usize),
            (a, -1) if a >= 0 => (a as usize, a as usize),
            _ => (usize::MAX, usize::MAX),
        }
    }
}

/// A checked output array as a slice; empty when `count` is 0.
///
/// # Safety
/// `check_array(ptr, count)` succeeded and `ptr` points to `count` writable
/// elements that no input of the call overlaps.
unsafe fn output_slice<'a, T>(ptr: *mut T, count: usize) -> &'a mut [T] {
    if count == 0 {
        &mut []
    } else {
        core::slice::from_raw_parts_mut(ptr, count)
    }
}

unsafe fn check_islands(
    node_count: usize,
    incidences: *const aether_incidence,
    incidence_count: usize,
) -> Outcome<()> {
    let incidences = input_slice(incidences, incidence_count).map_err(no_index)?;
    outcome(validate_incidences(node_count, incidences))
}

/// Fills `detail_out` with an outcome's status and element index.
unsafe fn explain<T>(
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

// ---------------------------------------------------------------------------
// Entry points.
// ---------------------------------------------------------------------------

/// Plans an offset for every tensor in one arena: greedy best fit in
/// decreasing size (equal sizes in input order), never unsound: tensors whose
/// inclusive lifetimes intersect never share a byte.
///
/// `offsets_out` has `tensor_count` elements; on success `offsets_out[i]` is
/// tensor `i`'s offset and `*arena_size_out` the arena size. Zero-size
/// tensors get offset 0. Errors: `NULL_POINTER`, `MISALIGNED_POINTER`,
/// `INVALID_LIFETIME`, `OVERFLOW`, `OUT_OF_MEMORY`; `aether_plan_offsets_explain`
/// names the tensor at fault. Time O(n^2 log n), memory O(n).
///
/// # Safety
/// `tensors` points to `tensor_count` readable elements and `offsets_out` to
/// `tensor_count` writable ones (either may be NULL when `tensor_count` is 0);
/// `arena_size_out` points to one writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    offsets_out: *mut usize,
    arena_size_out: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(offsets_out, tensor_count)?;
        check_value(arena_size_out)?;
        let plan = compute_plan(tensors, tensor_count).map_err(|f| f.status)?;
        write_array(offsets_out, &plan.offsets);
        arena_size_out.write(plan.arena_size);
        Ok(())
    })
}

/// Fills `options` with the defaults (greedy, no alignment, a budget of
/// 300,000 search nodes and no time limit) and this version's `struct_size`.
/// Does nothing if `options` is NULL.
///
/// # Safety
/// `options` is NULL or points to one writable `aether_plan_options`.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_options_init(options: *mut aether_plan_options) {
    let _ = guard(|| {
        check_value(options)?;
        let defaults = PlanOptions::default();
        let limit = |value: Option<u64>| value.unwrap_or(AETHER_BUDGET_UNLIMITED);
        options.write(aether_plan_options {
            struct_size: size_of::<aether_plan_options>(),
            alignment: defaults.alignment,
            strategy: AETHER_STRATEGY_GREEDY,
            budget_ms: limit(defaults.budget.time.map(|t| t.as_millis() as u64)),
            budget_nodes: limit(defaults.budget.nodes),
        });
        Ok(())
    });
}

/// Plans offsets with an alignment and a strategy: `greedy` is
/// `aether_plan_offsets` on sizes rounded up to the alignment; `heuristic`
/// keeps the best of several orderings and placement rules; `search` looks
/// for the minimum arena within its budgets and says whether it proved it.
/// Every strategy is sound.
///
/// `options` comes from `aether_plan_options_init`; `offsets_out` has
/// `tensor_count` elements; `report_out->struct_size` must be set. Errors:
/// those of `aether_plan_offsets`, `INVALID_ALIGNMENT`, `INVALID_OPTIONS`.
///
/// # Safety
/// As for `aether_plan_offsets`; `options` points to an initialised
/// `aether_plan_options` and `report_out` to one writable
/// `aether_plan_report`.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets_with(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    options: *const aether_plan_options,
    offsets_out: *mut usize,
    report_out: *mut aether_plan_report,
) -> aether_status {
    guard(|| {
        check_array(offsets_out, tensor_count)?;
        check_value(report_out)?;
        if (*report_out).struct_size < size_of::<aether_plan_report>() {
            return Err(AETHER_STATUS_INVALID_OPTIONS);
        }
        let report = compute_plan_with(tensors, tensor_count, options).map_err(|f| f.status)?;
        write_array(offsets_out, &report.plan.offsets);
        report_out.write(aether_plan_report {
            struct_size: size_of::<aether_plan_report>(),
            arena_size: report.plan.arena_size,
            lower_bound: report.lower_bound,
            proven_optimal: report.proven_optimal.into(),
            search_nodes: report.search_nodes,
        });
        Ok(())
    })
}

/// Explains what `aether_plan_offsets_with` returns for these inputs and
/// options (its outputs aside): the status and the index of the tensor at
/// fault (or `AETHER_NO_INDEX`).
///
/// # Safety
/// As for `aether_plan_offsets_with`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets_with_explain(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    options: *const aether_plan_options,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        compute_plan_with(tensors, tensor_count, options)
    })
}

/// The largest total size of tensors live at one node: the lower bound every
/// sound arena meets. Exact; O(n log n), independent of node numbers.
///
/// Errors: `NULL_POINTER`, `MISALIGNED_POINTER`, `INVALID_LIFETIME`,
/// `OVERFLOW` (a live sum passes `SIZE_MAX`), `OUT_OF_MEMORY`.
///
/// # Safety
/// `tensors` points to `tensor_count` readable elements (NULL when 0);
/// `peak_out` points to one writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn aether_peak_live_bytes(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    peak_out: *mut usize,
) -> aether_status {
    guard(|| {
        check_value(peak_out)?;
        let peak = compute_peak(tensors, tensor_count).map_err(|f| f.status)?;
        peak_out.write(peak);
        Ok(())
    })
}

/// The transitive reduction of a DAG whose nodes are numbered topologically
/// (`source < target < node_count` for every edge): the unique minimal edge
/// set with the same reachability, independent of edge order, sorted by
/// `(source, target)`, each edge once.
///
/// On success the first `*edges_out_count` elements of `edges_out` hold the
/// result. `edges_out_capacity >= edge_count` always suffices; a smaller
/// capacity that cannot hold the result gets `BUFFER_TOO_SMALL`, with the
/// needed count in `*edges_out_count` and `edges_out` untouched. `edges_out`
/// may be the same buffer as `edges` (the input is read fully first).
/// Errors: `NULL_POINTER`, `MISALIGNED_POINTER`, `NOT_TOPOLOGICAL`,
/// `NODE_OUT_OF_RANGE`, `OVERFLOW`, `OUT_OF_MEMORY` (the n^2/8-byte matrix),
/// `BUFFER_TOO_SMALL`.
///
/// # Safety
/// `edges` points to `edge_count` readable elements and `edges_out` to
/// `edges_out_capacity` writable ones (either NULL when its count is 0);
/// `edges_out_count` points to one writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    edges_out: *mut aether_edge,
    edges_out_capacity: usize,
    edges_out_count: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(edges_out, edges_out_capacity)?;
        check_value(edges_out_count)?;
        let reduced = compute_reduction(try_transitive_reduction, node_count, edges, edge_count)
            .map_err(|f| f.status)?;
        write_reduction(&reduced, edges_out, edges_out_capacity, edges_out_count)
    })
}

/// The transitive reduction of a DAG numbered in any order: the nodes are
/// ordered topologically first (Kahn's algorithm), and the result comes back
/// in the caller's numbering, sorted by `(source, target)`, each edge once.
///
/// Buffers and errors as for `aether_transitive_reduction`, except that an
/// edge against the numbering is fine and a directed cycle (a self-loop
/// included) is `AETHER_STATUS_CYCLE`;
/// `aether_transitive_reduction_any_order_explain` names a node on it.
///
/// # Safety
/// As for `aether_transitive_reduction`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_any_order(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    edges_out: *mut aether_edge,
    edges_out_capacity: usize,
    edges_out_count: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(edges_out, edges_out_capacity)?;
        check_value(edges_out_count)?;
        let reduced = compute_reduction(
            try_transitive_reduction_any_order,
            node_count,
            edges,
            edge_count,
        )
        .map_err(|f| f.status)?;
        write_reduction(&reduced, edges_out, edges_out_capacity, edges_out_count)
    })
}

impl InputList for [aether_tensor_lifetime] {
    type Item = TensorLifetime;
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> TensorLifetime {
        tensor_of(self[i])
    }
}

impl InputList for [aether_edge] {
    type Item = (usize, usize);
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> (usize, usize) {
        (self[i].source, self[i].target)
    }
}

/// A checked input array as a slice; empty when `count` is 0.
///
/// # Safety
/// `ptr` points to `count` readable elements that no output of the call
/// overlaps.
unsafe fn input_slice<'a, T>(ptr: *const T, count: usize) -> Result<&'a [T], aether_status> {
    check_array(ptr, count)?;
    Ok(if count == 0 {
        &[]
    } else {
        core::slice::from_raw_parts(ptr, count)
    })
}

/// A caller's workspace of at least `needed` bytes, as scratch memory.
///
/// # Safety
/// `workspace` points to `workspace_size` writable bytes that no other
/// argument of the call overlaps.
unsafe fn scratch_of<'a>(
    workspace: *mut core::ffi::c_void,
    workspace_size: usize,
    needed: Option<usize>,
) -> Result<Scratch<'a>, aether_status> {
    let needed = needed.ok_or(AETHER_STATUS_OVERFLOW)?;
    if workspace_size < needed {
        return Err(AETHER_STATUS_BUFFER_TOO_SMALL);
    }
    let workspace = workspace.cast::<usize>();
    check_array(workspace.cast_const(), needed.div_ceil(size_of::<usize>()))?;
    Ok(Scratch::new(if needed == 0 {
        &mut []
    } else {
        core::slice::from_raw_parts_mut(workspace.cast(), workspace_size)
    }))
}

/// The exact workspace bytes `aether_plan_offsets_in_workspace` needs for
/// `tensor_count` tensors (4 words per tensor), or `SIZE_MAX` if that does
/// not fit in `size_t`.
#[no_mangle]
pub extern "C" fn aether_plan_offsets_workspace_size(tensor_count: usize) -> usize {
    plan_offsets_scratch_bytes(tensor_count).unwrap_or(usize::MAX)
}

/// `aether_plan_offsets` without any heap allocation: the same plan, with
/// every scratch array carved out of `workspace`.
///
/// `workspace` holds `workspace_size` bytes, aligned for `size_t`, and
/// overlaps no other argument; it needs
/// `aether_plan_offsets_workspace_size(tensor_count)` bytes, else
/// `BUFFER_TOO_SMALL` with nothing written. Other errors as for
/// `aether_plan_offsets`. The spec's literal algorithm: O(n^2 log n).
///
/// # Safety
/// As for `aether_plan_offsets`; `workspace` points to `workspace_size`
/// writable bytes (NULL only when the size needed is 0).
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets_in_workspace(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    workspace: *mut core::ffi::c_void,
    workspace_size: usize,
    offsets_out: *mut usize,
    arena_size_out: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(offsets_out, tensor_count)?;
        check_value(arena_size_out)?;
        let tensors = input_slice(tensors, tensor_count)?;
        let needed = plan_offsets_scratch_bytes(tensor_count);
        let mut scratch = scratch_of(workspace, workspace_size, needed)?;
        let offsets = output_slice(offsets_out, tensor_count);
        let arena =
            try_plan_offsets_in(tensors, &mut scratch, offsets).map_err(|e| status_of(&e))?;
        arena_size_out.write(arena);
        Ok(())
    })
}

/// The exact workspace bytes `aether_peak_live_bytes_in_workspace` needs
/// (4 words per tensor), or `SIZE_MAX` if that does not fit in `size_t`.
#[no_mangle]
pub extern "C" fn aether_peak_live_bytes_workspace_size(tensor_count: usize) -> usize {
    peak_live_bytes_scratch_bytes(tensor_count).unwrap_or(usize::MAX)
}

/// `aether_peak_live_bytes` without any heap allocation, over a workspace as
/// for `aether_plan_offsets_in_workspace`.
///
/// # Safety
/// As for `aether_peak_live_bytes`; `workspace` points to `workspace_size`
/// writable bytes (NULL only when the size needed is 0).
#[no_mangle]
pub unsafe extern "C" fn aether_peak_live_bytes_in_workspace(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    workspace: *mut core::ffi::c_void,
    workspace_size: usize,
    peak_out: *mut usize,
) -> aether_status {
    guard(|| {
        check_value(peak_out)?;
        let tensors = input_slice(tensors, tensor_count)?;
        let needed = peak_live_bytes_scratch_bytes(tensor_count);
        let mut scratch = scratch_of(workspace, workspace_size, needed)?;
        let peak = try_peak_live_bytes_in(tensors, &mut scratch).map_err(|e| status_of(&e))?;
        peak_out.write(peak);
        Ok(())
    })
}

/// The exact workspace bytes `aether_transitive_reduction_in_workspace`
/// needs: `node_count * ceil(node_count / 64) * 8` for the bit matrix plus
/// `2 * sizeof(size_t)` per edge, or `SIZE_MAX` if that does not fit.
#[no_mangle]
pub extern "C" fn aether_transitive_reduction_workspace_size(
    node_count: usize,
    edge_count: usize,
) -> usize {
    transitive_reduction_scratch_bytes(node_count, edge_count).unwrap_or(usize::MAX)
}

/// `aether_transitive_reduction` without any heap allocation, over a
/// workspace as for `aether_plan_offsets_in_workspace`. Buffers, results
/// and errors as for `aether_transitive_reduction`, except that `edges_out`
/// must not overlap `edges`.
///
/// # Safety
/// As for `aether_transitive_reduction`; `workspace` points to
/// `workspace_size` writable bytes (NULL only when the size needed is 0).
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_in_workspace(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    workspace: *mut core::ffi::c_void,
    workspace_size: usize,
    edges_out: *mut aether_edge,
    edges_out_capacity: usize,
    edges_out_count: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(edges_out, edges_out_capacity)?;
        check_value(edges_out_count)?;
        let edges = input_slice(edges, edge_count)?;
        let needed = transitive_reduction_scratch_bytes(node_count, edge_count);
        let mut scratch = scratch_of(workspace, workspace_size, needed)?;
        let reduced = try_transitive_reduction_in(node_count, edges, &mut scratch)
            .map_err(|e| status_of(&e))?;
        write_reduction(reduced, edges_out, edges_out_capacity, edges_out_count)
    })
}

/// Connected components ("islands") of the nodes named by the incidences,
/// labelled canonically: island `k` is the one whose smallest member is the
/// `k`-th smallest among islands, whatever the order and orientation of the
/// incidences.
///
/// `labels_out` has `node_count` elements; on success `labels_out[x]` is node
/// `x`'s island, or `AETHER_NO_ISLAND` for a node in no incidence, and
/// `*island_count_out` the number of islands. No heap memory is used: the
/// label array serves as the disjoint-set forest, so it must not overlap
/// `incidences`. Errors: `NULL_POINTER`, `MISALIGNED_POINTER`,
/// `NODE_OUT_OF_RANGE`, `OVERFLOW`.
///
/// # Safety
/// `incidences` points to `incidence_count` readable elements and
/// `labels_out` to `node_count` writable ones (either NULL when its count is
/// 0), not overlapping; `island_count_out` points to one writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn aether_islands(
    node_count: usize,
    incidences: *const aether_incidence,
    incidence_count: usize,
    labels_out: *mut usize,
    island_count_out: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(labels_out, node_count)?;
        check_value(island_count_out)?;
        let incidences = input_slice(incidences, incidence_count)?;
        let labels = output_slice(labels_out, node_count);
        let count = try_islands_into(incidences, labels).map_err(|e| status_of(&e))?;
        island_count_out.write(count);
        Ok(())
    })
}

/// Islands in a physics engine's own layout, as `aether_islands` computes
/// them: `pairs` holds `2 * pair_count` node indices, -1 standing for a
/// static endpoint (the world) and meaning "the other endpoint"; labels are
/// written straight into the engine's `int` array, -1 for a node in no
/// island. The labels equal `aether_islands`' for the same incidences.
///
/// No heap memory is used (the label array is the forest). Errors:
/// `NULL_POINTER`, `MISALIGNED_POINTER`, `NEGATIVE_COUNT` (`node_count` or
/// `pair_count` below 0), `NODE_OUT_OF_RANGE` (an index at or beyond
/// `node_count`, below -1, or a pair of two -1s).
///
/// # Safety
/// `pairs` points to `2 * pair_count` readable ints and `labels_out` to
/// `node_count` writable ones (either NULL when its count is 0), not
/// overlapping; `island_count_out` points to one writable int.
#[no_mangle]
pub unsafe extern "C" fn aether_islands_i32(
    node_count: i32,
    pairs: *const i32,
    pair_count: i32,
    labels_out: *mut i32,
    island_count_out: *mut i32,
) -> aether_status {
    guard(|| {
        let (Ok(node_count), Ok(pair_count)) =
            (usize::try_from(node_count), usize::try_from(pair_count))
        else {
            return Err(AETHER_STATUS_NEGATIVE_COUNT);
        };
        check_array(labels_out, node_count)?;
        check_value(island_count_out)?;
        let pair_ints = 2 * pair_count; // at most 2 * i32::MAX: no overflow
        let pairs = input_slice(pairs, pair_ints)?;
        let labels = output_slice(labels_out, node_count);
        let count =
            try_islands_into(&StaticEndpointPairs(pairs), labels).map_err(|e| status_of(&e))?;
        // Islands never outnumber nodes, which fit in an int.
        island_count_out.write(count as i32);
        Ok(())
    })
}

/// The scratch bytes `aether_islands` and `aether_islands_i32` need beyond
/// their outputs: none, always 0. Provided so that engines that size every
/// call's workspace can treat all entry points alike.
#[no_mangle]
pub extern "C" fn aether_islands_workspace_size(node_count: usize) -> usize {
    let _ = node_count;
    0
}

/// Explains what `aether_plan_offsets` returns for these inputs (its output
/// pointers aside): on success `*detail_out` holds that status and the index
/// of the tensor at fault (or `AETHER_NO_INDEX`). Returns `NULL_POINTER` only
/// if `detail_out` is NULL. It recomputes the plan: call it after a failure.
///
/// # Safety
/// As for `aether_plan_offsets`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets_explain(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || compute_plan(tensors, tensor_count))
}

/// Explains what `aether_peak_live_bytes` returns for these inputs, as
/// `aether_plan_offsets_explain` does for the plan.
///
/// # Safety
/// As for `aether_peak_live_bytes`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_peak_live_bytes_explain(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || compute_peak(tensors, tensor_count))
}

/// Explains what `aether_transitive_reduction` returns for these inputs (its
/// output buffer aside, so never `BUFFER_TOO_SMALL`): the status and the index
/// of the edge at fault (or `AETHER_NO_INDEX`).
///
/// # Safety
/// As for `aether_transitive_reduction`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_explain(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        compute_reduction(try_transitive_reduction, node_count, edges, edge_count)
    })
}

/// Explains what `aether_transitive_reduction_any_order` returns for these
/// inputs: the status, the edge at fault (or `AETHER_NO_INDEX`) and, for
/// `AETHER_STATUS_CYCLE`, a node on the cycle in `node`.
///
/// # Safety
/// As for `aether_transitive_reduction_any_order`; `detail_out` points to one
/// writable `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_any_order_explain(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        compute_reduction(
            try_transitive_reduction_any_order,
            node_count,
            edges,
            edge_count,
        )
    })
}

/// Explains what `aether_islands` returns for these inputs (its outputs
/// aside): the status and the index of the incidence at fault (or
/// `AETHER_NO_INDEX`).
///
/// # Safety
/// As for `aether_islands`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_islands_explain(
    node_count: usize,
    incidences: *const aether_incidence,
    incidence_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        check_islands(node_count, incidences, incidence_count)
    })
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
            c"buffer too small: the needed count was written to the count output"
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
        AETHER_STATUS_CYCLE => c"cycle: the graph has a directed cycle, so it is not a DAG",
        AETHER_STATUS_INVALID_OPTIONS => {
            c"invalid options: unknown struct_size, field or strategy in an options or report struct"
        }
        _ => c"unknown status code",
    };
    text.as_ptr()
}

/// The library's version, "MAJOR.MINOR.PATCH", as a static NUL-terminated
/// string; equals the `AETHER_PLANNER_VERSION_*` macros of the header the
/// caller compiled against when the two match.
#[no_mangle]
pub extern "C" fn aether_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
