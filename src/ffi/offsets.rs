//! The offsets domain at the C boundary: tensors, plan options and reports,
//! and every entry point of offset planning and the peak.

use core::ffi::{c_int, c_void};
use core::mem::size_of;

use super::boundary::*;
use super::status::*;
use crate::input::InputList;
use crate::offsets::{
    peak_live_bytes_scratch_bytes, plan_offsets_indexed_scratch_bytes, plan_offsets_scratch_bytes,
    try_peak_live_bytes_in, try_plan_offsets_in, try_plan_offsets_indexed_in,
};
use crate::{
    try_peak_live_bytes, try_plan_offsets, try_plan_offsets_observed, try_plan_offsets_with,
    MemoryPlan, PlanOptions, PlanReport, SearchBudget, SearchProgress, Strategy, TensorLifetime,
};

/// `aether_plan_options::strategy`: the specification's greedy planner.
pub const AETHER_STRATEGY_GREEDY: u32 = 0;
/// `aether_plan_options::strategy`: the best of several orderings and
/// placement rules, then local improvement; nested lifetimes, and tables
/// with at most two tensors live at once, are planned at the peak of live
/// bytes directly (optimal).
pub const AETHER_STRATEGY_HEURISTIC: u32 = 1;
/// `aether_plan_options::strategy`: exact anytime branch and bound within the
/// budgets, started from the heuristic's plan.
pub const AETHER_STRATEGY_SEARCH: u32 = 2;
/// A budget field's value for "no limit".
pub const AETHER_BUDGET_UNLIMITED: u64 = u64::MAX;
/// The largest `aether_plan_options::struct_size` this library reads: a
/// larger one (an uninitialised struct, say) is `INVALID_OPTIONS` without a
/// byte past the known fields being read. Far above any planned growth.
pub const AETHER_PLAN_OPTIONS_MAX_SIZE: usize = 256;
/// The largest `aether_plan_report::struct_size` this library accepts: a
/// larger one (an uninitialised struct, say) is `INVALID_OPTIONS`, and
/// nothing is written.
pub const AETHER_PLAN_REPORT_MAX_SIZE: usize = 256;
/// `sizeof(aether_plan_report)` in 0.1: the smallest report accepted, and
/// the part of it a caller compiled against 0.1 has.
const PLAN_REPORT_SIZE_0_1: usize = 40;
const _: () =
    assert!(std::mem::offset_of!(aether_plan_report, stacked_tensors) == PLAN_REPORT_SIZE_0_1);

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

/// How `aether_plan_offsets_with` plans. Initialise with
/// `AETHER_PLAN_OPTIONS_INIT(&options)` (or `aether_plan_options_init_sized`
/// with the caller's `sizeof`), then change the fields you need: the struct
/// may grow at its end in later versions, and `struct_size` tells the library
/// which version the caller compiled against.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct aether_plan_options {
    /// `sizeof(aether_plan_options)` as the caller compiled it: a multiple of
    /// the struct's alignment from 40 (this version) to
    /// `AETHER_PLAN_OPTIONS_MAX_SIZE`. Bytes past the fields this library
    /// knows must be zero.
    pub struct_size: usize,
    /// Every offset is a multiple of this power of two, and the arena is
    /// computed on sizes rounded up to it. 1: no alignment.
    pub alignment: usize,
    /// `AETHER_STRATEGY_GREEDY` (default), `_HEURISTIC` or `_SEARCH`.
    pub strategy: u32,
    /// Time limit of the whole search call (its heuristic start included) in
    /// milliseconds, or `AETHER_BUDGET_UNLIMITED`, the default: the node
    /// budget alone ends the search, so the plan is the same on every
    /// machine. A time limit that is reached makes the plan depend on the
    /// machine's speed. (0.1.0's default was 60,000.)
    pub budget_ms: u64,
    /// Search node limit (a node is a partial plan that passed the search's
    /// bounds), or `AETHER_BUDGET_UNLIMITED`. The default, 300,000, gives the
    /// same plan on every machine.
    pub budget_nodes: u64,
}

/// What `aether_plan_offsets_with` found. Set `struct_size` to
/// `sizeof(aether_plan_report)` before the call. The struct may grow at its
/// end: the library fills the fields that fit in `struct_size` bytes (at
/// least 40, 0.1's size; at most `AETHER_PLAN_REPORT_MAX_SIZE`) and sets
/// `struct_size` to the bytes it wrote, so a caller compiled against an
/// older header gets its own fields and no byte more.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_plan_report {
    /// `sizeof(aether_plan_report)` as the caller compiled it; on return,
    /// the bytes the library filled.
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
    /// Tensors the plan stacks one above another, unplanned, because the
    /// search's time cap (`budget_ms`) ran out before its first plan was
    /// complete: 0 unless the strategy is search with a cap too small for
    /// the table. The plan is sound, but then poor (up to the sum of the
    /// sizes). Written by libraries newer than 0.1.0 only: 0.1.0 sets
    /// `struct_size` to 40 and leaves this field as it was.
    pub stacked_tensors: usize,
}

/// What a search has reached, as `aether_plan_offsets_observed` and
/// `aether_plan_problem_observed` pass it to their callback. Filled by the
/// library: read the fields up to `struct_size` (later versions may add
/// fields at the end); valid only during the callback.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_search_progress {
    /// `sizeof(aether_search_progress)` as this library filled it, at least
    /// the `sizeof` of this version's struct: bytes past the caller's own
    /// `sizeof` are fields of a later version.
    pub struct_size: usize,
    /// Search nodes visited so far.
    pub nodes: u64,
    /// Arena of the best plan found so far (the starting plan's at first);
    /// `SIZE_MAX` while `aether_plan_problem_observed` knows no plan within
    /// the capacity.
    pub best_arena: usize,
    /// Proven lower bound on every sound arena at this alignment, at most
    /// `best_arena`.
    pub lower_bound: usize,
}

/// The callback of the `_observed` entry points: called with what the
/// search has reached and the caller's `user` pointer. Return 0; other
/// values are reserved (a later version may read them as a request to stop
/// early).
pub type aether_progress_fn = Option<
    unsafe extern "C" fn(progress: *const aether_search_progress, user: *mut c_void) -> c_int,
>;

fn tensor_of(t: aether_tensor_lifetime) -> TensorLifetime {
    TensorLifetime {
        size: t.size,
        first_use: t.first_use,
        last_use: t.last_use,
    }
}

impl InputList for RawInput<aether_tensor_lifetime> {
    type Item = TensorLifetime;
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> TensorLifetime {
        tensor_of(self.get(i))
    }
    fn prefetch(&self, i: usize) {
        RawInput::prefetch(self, i);
    }
}

unsafe fn compute_plan(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
) -> Outcome<MemoryPlan> {
    check_array(tensors, tensor_count).map_err(no_index)?;
    let tensors = read_array(tensors, tensor_count, tensor_of).map_err(no_index)?;
    outcome(try_plan_offsets(&tensors))
}

/// Whether `struct_size` is one an options struct of this or a later
/// version can have.
fn options_size_is_valid(struct_size: usize) -> bool {
    struct_size_is_valid::<aether_plan_options>(struct_size, AETHER_PLAN_OPTIONS_MAX_SIZE)
}

/// The options a C caller asked for, or why they are not acceptable.
///
/// # Safety
/// `options` points to `options->struct_size` readable bytes, or to one
/// `aether_plan_options` if that size is not valid.
pub(super) unsafe fn read_options(
    options: *const aether_plan_options,
) -> Result<PlanOptions, aether_status> {
    check_array(options, 1)?;
    let declared = (*options).struct_size;
    if !options_size_is_valid(declared) {
        return Err(AETHER_STATUS_INVALID_OPTIONS);
    }
    if !unknown_fields_are_zero(options, declared) {
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

/// [`compute_plan_with`], telling `callback` how a search progresses.
///
/// # Safety
/// As for `compute_plan_with`; `callback`, when not NULL, may be called
/// with `user` during the call.
unsafe fn compute_plan_observed(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    options: *const aether_plan_options,
    callback: aether_progress_fn,
    user: *mut c_void,
) -> Outcome<PlanReport> {
    let options = read_options(options).map_err(no_index)?;
    check_array(tensors, tensor_count).map_err(no_index)?;
    let tensors = read_array(tensors, tensor_count, tensor_of).map_err(no_index)?;
    let Some(callback) = callback else {
        return outcome(try_plan_offsets_with(&tensors, &options));
    };
    outcome(try_plan_offsets_observed(
        &tensors,
        &options,
        &mut observer(callback, user),
    ))
}

/// The Rust observer that passes each progress to a C `callback` with the
/// caller's `user` pointer.
///
/// # Safety
/// `callback` may be called with `user` whenever the observer is.
pub(super) unsafe fn observer(
    callback: unsafe extern "C" fn(*const aether_search_progress, *mut c_void) -> c_int,
    user: *mut c_void,
) -> impl FnMut(&SearchProgress) {
    move |progress: &SearchProgress| {
        let progress = aether_search_progress {
            struct_size: size_of::<aether_search_progress>(),
            nodes: progress.nodes,
            best_arena: progress.best_arena,
            lower_bound: progress.lower_bound,
        };
        // SAFETY: the caller's function, with the caller's pointer, as the
        // caller asked; the progress lives through the call. Its return
        // value is reserved.
        let _ = unsafe { callback(&progress, user) };
    }
}

unsafe fn compute_peak(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
) -> Outcome<usize> {
    check_array(tensors, tensor_count).map_err(no_index)?;
    let tensors = read_array(tensors, tensor_count, tensor_of).map_err(no_index)?;
    outcome(try_peak_live_bytes(&tensors))
}

/// Plans an offset for every tensor in one arena: greedy best fit in
/// decreasing size (equal sizes in input order), never unsound: tensors whose
/// inclusive lifetimes intersect never share a byte.
///
/// `offsets_out` has `tensor_count` elements; on success `offsets_out[i]` is
/// tensor `i`'s offset and `*arena_size_out` the arena size. Zero-size
/// tensors get offset 0. Errors: `NULL_POINTER`, `MISALIGNED_POINTER`,
/// `INVALID_LIFETIME`, `OVERFLOW`, `OUT_OF_MEMORY`; `aether_plan_offsets_explain`
/// names the tensor at fault. Time O(n^2 log n), memory O(n log n).
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
        disjoint(&[region(offsets_out, tensor_count), region(arena_size_out, 1)])?;
        let plan = compute_plan(tensors, tensor_count).map_err(|f| f.status)?;
        write_array(offsets_out, &plan.offsets);
        arena_size_out.write(plan.arena_size);
        Ok(())
    })
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

/// Fills `options` with the defaults (greedy, no alignment, a budget of
/// 300,000 search nodes and no time cap) and this version's `struct_size`.
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

/// Fills the `struct_size` bytes at `options` as a caller compiled against
/// any version of this header wants them: every byte zero, then the
/// defaults of `aether_plan_options_init`, with `options->struct_size` set
/// to `struct_size`, so that fields newer than this library, once set,
/// are seen (and refused) by `aether_plan_offsets_with`. Call it as
/// `AETHER_PLAN_OPTIONS_INIT(&options)`, which passes `sizeof(options)`.
///
/// Errors, with nothing written: `NULL_POINTER`, `MISALIGNED_POINTER`,
/// `INVALID_OPTIONS` (`struct_size` below 40, above
/// `AETHER_PLAN_OPTIONS_MAX_SIZE`, or not a multiple of the alignment).
///
/// # Safety
/// `options` is NULL or points to `struct_size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_options_init_sized(
    options: *mut aether_plan_options,
    struct_size: usize,
) -> aether_status {
    guard(|| {
        check_value(options)?;
        if !options_size_is_valid(struct_size) {
            return Err(AETHER_STATUS_INVALID_OPTIONS);
        }
        options.cast::<u8>().write_bytes(0, struct_size);
        aether_plan_options_init(options);
        (*options).struct_size = struct_size;
        Ok(())
    })
}

/// Checks the outputs of a call that writes a plan and its report: the
/// offsets array and the report are valid, disjoint, and the report's
/// `struct_size` is one this library can fill.
pub(super) fn check_plan_outputs(
    tensor_count: usize,
    offsets_out: *mut usize,
    report_out: *mut aether_plan_report,
) -> Result<(), aether_status> {
    check_array(offsets_out, tensor_count)?;
    check_value(report_out)?;
    // The bytes every report has first, as 0.1.0 checked them; then its
    // size; then the bytes `write_plan` fills past those, if any.
    let report_bytes = |bytes| {
        disjoint(&[
            region(offsets_out, tensor_count),
            region(report_out.cast::<u8>(), bytes),
        ])
    };
    report_bytes(PLAN_REPORT_SIZE_0_1)?;
    // SAFETY: checked above as an aligned, non-NULL report, whose first
    // field every version has.
    let struct_size = unsafe { (*report_out).struct_size };
    if !(PLAN_REPORT_SIZE_0_1..=AETHER_PLAN_REPORT_MAX_SIZE).contains(&struct_size) {
        return Err(AETHER_STATUS_INVALID_OPTIONS);
    }
    report_bytes(struct_size.min(size_of::<aether_plan_report>()))
}

/// Writes a plan and its report to outputs [`check_plan_outputs`] accepted.
///
/// # Safety
/// `check_plan_outputs(report.plan.offsets.len(), offsets_out, report_out)`
/// succeeded and both point to writable memory of that size.
pub(super) unsafe fn write_plan(
    report: &PlanReport,
    offsets_out: *mut usize,
    report_out: *mut aether_plan_report,
) {
    write_array(offsets_out, &report.plan.offsets);
    // An older caller's report is shorter: only its bytes are written.
    let filled = (*report_out)
        .struct_size
        .min(size_of::<aether_plan_report>());
    let full = aether_plan_report {
        struct_size: filled,
        arena_size: report.plan.arena_size,
        lower_bound: report.lower_bound,
        proven_optimal: report.proven_optimal.into(),
        search_nodes: report.search_nodes,
        stacked_tensors: report.stacked_tensors,
    };
    std::ptr::copy_nonoverlapping(
        (&full as *const aether_plan_report).cast::<u8>(),
        report_out.cast::<u8>(),
        filled,
    );
}

/// Plans offsets with an alignment and a strategy: `greedy` is
/// `aether_plan_offsets` on sizes rounded up to the alignment; `heuristic`
/// keeps the best of several orderings and placement rules; `search` looks
/// for the minimum arena within its budgets and says whether it proved it.
/// Every strategy is sound.
///
/// `options` comes from `AETHER_PLAN_OPTIONS_INIT`; `offsets_out` has
/// `tensor_count` elements; `report_out->struct_size` must be set. Errors:
/// those of `aether_plan_offsets`, `INVALID_ALIGNMENT`, `INVALID_OPTIONS`.
///
/// # Safety
/// As for `aether_plan_offsets`; `options` points to an initialised
/// `aether_plan_options` (`options->struct_size` readable bytes) and
/// `report_out` to one writable `aether_plan_report`.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets_with(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    options: *const aether_plan_options,
    offsets_out: *mut usize,
    report_out: *mut aether_plan_report,
) -> aether_status {
    guard(|| {
        check_plan_outputs(tensor_count, offsets_out, report_out)?;
        let report = compute_plan_with(tensors, tensor_count, options).map_err(|f| f.status)?;
        write_plan(&report, offsets_out, report_out);
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

/// `aether_plan_offsets_with`, telling `progress` how a search advances, for
/// progress displays on long runs. With `AETHER_STRATEGY_SEARCH`, `progress`
/// is called once when the search begins (the starting plan's arena and the
/// lower bound), then each time the best arena or the proven lower bound
/// improves, with the nodes visited so far: at most once per search
/// decision. It is not called when the starting plan is already optimal or
/// the time budget is spent before the search begins, nor by the other
/// strategies. Every call happens on the calling thread, before this
/// function returns; `*progress` is valid only during the call. The
/// callback returns 0; other values are reserved (the search does not stop
/// early in this version). `progress` may be NULL: then this is
/// `aether_plan_offsets_with`. The plan and report are exactly those of
/// `aether_plan_offsets_with`, whose `_explain` form explains a failure
/// here too.
///
/// Errors: those of `aether_plan_offsets_with`.
///
/// # Safety
/// As for `aether_plan_offsets_with`; `progress` is NULL or a function
/// that may be called with `user` (passed through untouched, may be NULL)
/// and that returns normally.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets_observed(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    options: *const aether_plan_options,
    progress: aether_progress_fn,
    user: *mut c_void,
    offsets_out: *mut usize,
    report_out: *mut aether_plan_report,
) -> aether_status {
    guard(|| {
        check_plan_outputs(tensor_count, offsets_out, report_out)?;
        let report = compute_plan_observed(tensors, tensor_count, options, progress, user)
            .map_err(|f| f.status)?;
        write_plan(&report, offsets_out, report_out);
        Ok(())
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
/// `workspace` holds `workspace_size` bytes, aligned for `size_t`; it needs
/// `aether_plan_offsets_workspace_size(tensor_count)` bytes, else
/// `BUFFER_TOO_SMALL` with nothing written, and only those first bytes are
/// touched. The workspace overlaps no other argument, and the outputs not
/// each other (`OVERLAPPING_BUFFERS`); `offsets_out` may overlap `tensors`,
/// as in `aether_plan_offsets` (it is written after the last read). Other
/// errors as for `aether_plan_offsets`. Time O((n + E) log n) for E
/// conflicting pairs: above 128 tensors, over the tensors sorted by first
/// use, the placed tensors starting after a tensor are found by a scan and
/// those before it by a max-tree of their last uses; up to
/// 128 tensors, on dense tables (at least one pair in 8 conflicting) and
/// on 32-bit targets, by the spec's scan of
/// every placed tensor (O(n^2); on dense tables over the placed tensors kept
/// sorted by offset). The workspace is 4 words per tensor either way.
/// Where many tensors are live at once (a training step's activations,
/// freed in the backward pass), E and so the time grow as n^2:
/// `aether_plan_offsets_in_indexed_workspace` makes the same plan
/// near-linearly there, in a larger workspace.
///
/// # Safety
/// As for `aether_plan_offsets`; `workspace` points to
/// `aether_plan_offsets_workspace_size(tensor_count)` writable bytes (NULL
/// only when that is 0).
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
        let tensors_in = RawInput::new(tensors, tensor_count)?;
        let needed = plan_offsets_scratch_bytes(tensor_count);
        let work = workspace_region(workspace, workspace_size, needed)?;
        let offsets = region(offsets_out, tensor_count);
        let arena = region(arena_size_out, 1);
        disjoint(&[work, offsets, arena])?;
        disjoint(&[work, region(tensors, tensor_count)])?;
        let mut scratch = scratch_of(workspace, needed.unwrap_or(0));
        let arena = try_plan_offsets_in(&tensors_in, &mut scratch, |i, offset| {
            offsets_out.add(i).write(offset)
        })
        .map_err(|e| status_of(&e))?;
        arena_size_out.write(arena);
        Ok(())
    })
}

/// The workspace bytes with which `aether_plan_offsets_in_indexed_workspace`
/// always has room for its index, for `tensor_count` tensors whatever their
/// lifetimes: `aether_plan_offsets_workspace_size(tensor_count)`, then
/// `(3 L + 5)` ranges of two words per tensor and three words per node of a
/// tree of `2^(L+1)` nodes, `L = ceil(log2 n)` (about 1,100 bytes per
/// tensor at 10^6 tensors); or `SIZE_MAX` if that does not fit in `size_t`.
/// A table's own index touches only part of it (see
/// `aether_plan_offsets_in_indexed_workspace`).
#[no_mangle]
pub extern "C" fn aether_plan_offsets_indexed_workspace_size(tensor_count: usize) -> usize {
    plan_offsets_indexed_scratch_bytes(tensor_count).unwrap_or(usize::MAX)
}

/// `aether_plan_offsets_in_workspace` with the whole workspace put to use:
/// the same plan, without any heap allocation, and where many tensors
/// conflict at once (a training step's activations, all live between
/// their forward and backward uses) in time near-linear in n where the
/// 4-word form's grows with the conflicting pairs.
///
/// `workspace` holds `workspace_size` bytes, aligned for `size_t`; it needs
/// at least `aether_plan_offsets_workspace_size(tensor_count)` bytes, else
/// `BUFFER_TOO_SMALL` with nothing written; of a larger one it uses the
/// first `workspace_size` bytes, at most
/// `aether_plan_offsets_indexed_workspace_size(tensor_count)`. The conflicting pairs are
/// counted first (O(n log n)). From 256 pairs per tensor on (and past 128
/// tensors, on 64-bit targets), an index of coalesced unions of the placed
/// byte ranges is laid out beyond the first 4 words per tensor, at the
/// nodes of a segment tree over the tensors in first-use order, each
/// node's slot sized for the ranges that can reach it: a placement reads
/// the few short unions of its nodes instead of every conflicting tensor,
/// time O(n log n + the union ranges the placements read). With
/// `aether_plan_offsets_indexed_workspace_size(tensor_count)` bytes it
/// always fits; with fewer it is used where this table's fits. Otherwise
/// the plan is made as by `aether_plan_offsets_in_workspace`, touching only
/// its bytes. The bytes left past the index cache, at a few nodes, the
/// union of each leaf's upper path, which spares most of the reading; when
/// they run out the cache is compacted or dropped, never the plan. The
/// index and its cache touch the bytes their table needs: on a training
/// step of 10^6 to 4 x 10^6 tensors (each activation live from its forward
/// to its backward node) 700 to 800 per tensor, the table included. Overlaps and other errors as for
/// `aether_plan_offsets_in_workspace`; the bytes it may use overlap no
/// other argument.
///
/// # Safety
/// As for `aether_plan_offsets`; `workspace` points to `workspace_size`
/// writable bytes (NULL only when that is 0).
#[no_mangle]
pub unsafe extern "C" fn aether_plan_offsets_in_indexed_workspace(
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
        let tensors_in = RawInput::new(tensors, tensor_count)?;
        let needed = plan_offsets_scratch_bytes(tensor_count);
        workspace_region(workspace, workspace_size, needed)?;
        // Up to the bytes its size function gives, as for every workspace.
        let most = plan_offsets_indexed_scratch_bytes(tensor_count).unwrap_or(usize::MAX);
        let usable = workspace_size.min(most);
        let work = workspace_region(workspace, usable, Some(usable))?;
        let offsets = region(offsets_out, tensor_count);
        let arena = region(arena_size_out, 1);
        disjoint(&[work, offsets, arena])?;
        disjoint(&[work, region(tensors, tensor_count)])?;
        let mut scratch = scratch_of(workspace, usable);
        let arena = try_plan_offsets_indexed_in(&tensors_in, &mut scratch, |i, offset| {
            offsets_out.add(i).write(offset)
        })
        .map_err(|e| status_of(&e))?;
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
/// for `aether_plan_offsets_in_workspace` (`peak_out` may overlap
/// `tensors`, neither may overlap the workspace).
///
/// # Safety
/// As for `aether_peak_live_bytes`; `workspace` points to
/// `aether_peak_live_bytes_workspace_size(tensor_count)` writable bytes
/// (NULL only when that is 0).
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
        let tensors_in = RawInput::new(tensors, tensor_count)?;
        let needed = peak_live_bytes_scratch_bytes(tensor_count);
        let work = workspace_region(workspace, workspace_size, needed)?;
        disjoint(&[work, region(peak_out, 1)])?;
        disjoint(&[work, region(tensors, tensor_count)])?;
        let mut scratch = scratch_of(workspace, needed.unwrap_or(0));
        let peak = try_peak_live_bytes_in(&tensors_in, &mut scratch).map_err(|e| status_of(&e))?;
        peak_out.write(peak);
        Ok(())
    })
}
