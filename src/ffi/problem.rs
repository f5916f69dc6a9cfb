//! The constrained offsets problem at the C boundary: per-tensor alignments,
//! fixed offsets, hints, gaps with windows, reuse pairs and a capacity, as
//! optional arrays in one extensible struct, and its entry points.

use core::ffi::c_void;
use core::mem::size_of;

use super::boundary::*;
use super::offsets::{
    aether_plan_options, aether_plan_report, aether_progress_fn, aether_tensor_lifetime,
    check_plan_outputs, observer, read_options, write_plan,
};
use super::status::*;
use crate::{
    try_plan_problem, try_plan_problem_observed, LifetimeGap, PlanError, PlanProblem, PlanReport,
    Reuse, TensorLifetime,
};

/// `aether_problem::fixed_offsets` and `::hints`: this tensor has none.
pub const AETHER_OFFSET_FREE: usize = usize::MAX;
/// `aether_problem::capacity`: no limit.
pub const AETHER_NO_CAPACITY: usize = usize::MAX;
/// The largest `aether_problem::struct_size` this library reads: a larger
/// one (an uninitialised struct, say) is `INVALID_OPTIONS` without a byte
/// past the known fields being read.
pub const AETHER_PROBLEM_MAX_SIZE: usize = 512;

/// A gap of one tensor: nodes `first` through `last` (inclusive) of its
/// lifetime in which it is inactive, or, with `has_window` set, occupies only
/// bytes `[offset + window_lo, offset + window_hi)`,
/// `window_lo <= window_hi <= size`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_gap {
    /// The tensor, by index.
    pub tensor: usize,
    /// First node of the gap.
    pub first: usize,
    /// Last node of the gap (inclusive).
    pub last: usize,
    /// Start of the window, relative to the tensor's offset.
    pub window_lo: usize,
    /// End of the window (exclusive), relative to the tensor's offset.
    pub window_hi: usize,
    /// 1: the window applies; 0: the tensor occupies nothing in the gap.
    pub has_window: u32,
}

/// Tensor `tensor` reuses the memory of tensor `reused` (an in-place
/// output over its dying input): the same offset, no memory of its own;
/// `size(tensor) <= size(reused)`; the pair is live whenever either is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_reuse {
    /// The tensor that takes over the memory.
    pub tensor: usize,
    /// The tensor whose memory it takes.
    pub reused: usize,
}

/// The constraints of `aether_plan_problem`. Initialise with
/// `AETHER_PROBLEM_INIT(&problem)` (no constraint), then set what you need. Each
/// per-tensor array has 0 elements (no constraint) or `tensor_count`; every
/// pointer may be NULL when its count is 0. The struct may grow at its end;
/// `struct_size` says which version the caller compiled against.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct aether_problem {
    /// `sizeof(aether_problem)` as the caller compiled it. Bytes past the
    /// fields this library knows must be zero.
    pub struct_size: usize,
    /// Each tensor's alignment, a power of two (1: none); the plan's
    /// alignment still applies as a minimum.
    pub alignments: *const usize,
    /// 0 or `tensor_count`.
    pub alignment_count: usize,
    /// Each tensor's fixed offset, or `AETHER_OFFSET_FREE`.
    pub fixed_offsets: *const usize,
    /// 0 or `tensor_count`.
    pub fixed_offset_count: usize,
    /// Each tensor's suggested offset, or `AETHER_OFFSET_FREE`.
    pub hints: *const usize,
    /// 0 or `tensor_count`.
    pub hint_count: usize,
    /// The gaps, in any order.
    pub gaps: *const aether_gap,
    /// The number of gaps.
    pub gap_count: usize,
    /// The reuse pairs.
    pub reuses: *const aether_reuse,
    /// The number of reuse pairs.
    pub reuse_count: usize,
    /// No tensor may end past this many bytes, or `AETHER_NO_CAPACITY`.
    pub capacity: usize,
}

/// What went wrong in `aether_plan_problem`, as told by
/// `aether_plan_problem_explain`. Set `struct_size` before the call.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_problem_detail {
    /// `sizeof(aether_problem_detail)` as the caller compiled it.
    pub struct_size: usize,
    /// The status `aether_plan_problem` returns for these inputs.
    pub status: aether_status,
    /// The tensor at fault, or `AETHER_NO_INDEX`.
    pub tensor: usize,
    /// The second tensor of a pair at fault (the other fixed tensor, the
    /// other of two tensors one reuse pins to one offset that would share
    /// bytes while both are active, or the tensor whose memory is reused),
    /// or `AETHER_NO_INDEX`.
    pub other_tensor: usize,
    /// The gap or reuse pair at fault, by its index in its array, or
    /// `AETHER_NO_INDEX`.
    pub item: usize,
    /// For `DOES_NOT_FIT` and `DOES_NOT_FIT_UNPROVEN`: a proven lower bound
    /// on the arena of every plan; else 0.
    pub lower_bound: usize,
    /// 1 when `status` is `DOES_NOT_FIT` (no plan within the capacity
    /// exists), else 0.
    pub proven: u32,
}

fn tensor_of(t: aether_tensor_lifetime) -> TensorLifetime {
    TensorLifetime::new(t.size, t.first_use, t.last_use)
}

fn optional(value: usize) -> Option<usize> {
    (value != AETHER_OFFSET_FREE).then_some(value)
}

/// Why a call failed: a boundary status, or an error of the core.
enum Fault {
    Status(aether_status),
    Core(PlanError),
}

/// The caller's problem, copied and planned, or why it cannot be read.
/// `progress`, when not NULL, is told how a search advances.
///
/// # Safety
/// `problem` points to `problem->struct_size` readable bytes, and each of
/// its arrays to its count of readable elements; `progress` may be called
/// with `user` during the call.
unsafe fn compute(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    problem: *const aether_problem,
    options: *const aether_plan_options,
    progress: aether_progress_fn,
    user: *mut c_void,
) -> Result<PlanReport, Fault> {
    let options = read_options(options).map_err(Fault::Status)?;
    check_array(problem, 1).map_err(Fault::Status)?;
    let declared = (*problem).struct_size;
    if !struct_size_is_valid::<aether_problem>(declared, AETHER_PROBLEM_MAX_SIZE)
        || !unknown_fields_are_zero(problem, declared)
    {
        return Err(Fault::Status(AETHER_STATUS_INVALID_OPTIONS));
    }
    let p = problem.read();
    let read = |ptr, count| read_array(ptr, count, |x: usize| x);
    let checked = |status: Result<(), aether_status>| status.map_err(Fault::Status);
    checked(check_array(tensors, tensor_count))?;
    checked(check_array(p.alignments, p.alignment_count))?;
    checked(check_array(p.fixed_offsets, p.fixed_offset_count))?;
    checked(check_array(p.hints, p.hint_count))?;
    checked(check_array(p.gaps, p.gap_count))?;
    checked(check_array(p.reuses, p.reuse_count))?;
    let status = Fault::Status;
    let tensors = read_array(tensors, tensor_count, tensor_of).map_err(status)?;
    let alignments = read(p.alignments, p.alignment_count).map_err(status)?;
    let fixed = read_array(p.fixed_offsets, p.fixed_offset_count, optional).map_err(status)?;
    let hints = read_array(p.hints, p.hint_count, optional).map_err(status)?;
    let gaps = read_array(p.gaps, p.gap_count, |g: aether_gap| LifetimeGap {
        tensor: g.tensor,
        first: g.first,
        last: g.last,
        window: (g.has_window != 0).then_some((g.window_lo, g.window_hi)),
    })
    .map_err(status)?;
    let reuses = read_array(p.reuses, p.reuse_count, |r: aether_reuse| Reuse {
        tensor: r.tensor,
        reused: r.reused,
    })
    .map_err(status)?;
    let problem = PlanProblem {
        tensors: &tensors,
        alignments: &alignments,
        fixed_offsets: &fixed,
        hints: &hints,
        gaps: &gaps,
        reuses: &reuses,
        capacity: (p.capacity != AETHER_NO_CAPACITY).then_some(p.capacity),
    };
    match progress {
        None => try_plan_problem(&problem, &options),
        Some(callback) => {
            try_plan_problem_observed(&problem, &options, &mut observer(callback, user))
        }
    }
    .map_err(Fault::Core)
}

/// Fills a caller's `aether_problem` of `struct_size` bytes (pass
/// `sizeof(aether_problem)`, as `AETHER_PROBLEM_INIT(&problem)` does) with
/// no constraint: every array empty, no capacity, every byte past the fields
/// this library knows zero, and `struct_size` the caller's. Errors:
/// `NULL_POINTER`, `MISALIGNED_POINTER`, `INVALID_OPTIONS` (a size below this
/// library's, above `AETHER_PROBLEM_MAX_SIZE`, or not a multiple of the
/// alignment).
///
/// # Safety
/// `problem` is NULL or points to `struct_size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn aether_problem_init(
    problem: *mut aether_problem,
    struct_size: usize,
) -> aether_status {
    guard(|| {
        check_value(problem)?;
        if !struct_size_is_valid::<aether_problem>(struct_size, AETHER_PROBLEM_MAX_SIZE) {
            return Err(AETHER_STATUS_INVALID_OPTIONS);
        }
        problem.cast::<u8>().write_bytes(0, struct_size);
        problem.write(aether_problem {
            struct_size,
            alignments: core::ptr::null(),
            alignment_count: 0,
            fixed_offsets: core::ptr::null(),
            fixed_offset_count: 0,
            hints: core::ptr::null(),
            hint_count: 0,
            gaps: core::ptr::null(),
            gap_count: 0,
            reuses: core::ptr::null(),
            reuse_count: 0,
            capacity: AETHER_NO_CAPACITY,
        });
        Ok(())
    })
}

/// Plans offsets honouring every constraint of `problem` with the strategy,
/// plan alignment and budgets of `options`. Tensors are active over their
/// lifetime outside their gaps; two tensors active at a common node keep
/// one order (one lies wholly above the other at every such node); each
/// offset is a multiple of its tensor's alignment; fixed tensors stay; a
/// tensor that reuses another shares its offset; hints are taken when free.
/// Every tensor ends within the capacity, a fixed one of no bytes at its
/// offset. With no constraint this is `aether_plan_offsets_with`.
///
/// `offsets_out` has `tensor_count` elements; `report_out->struct_size` must
/// be set. A capacity that cannot be met is `DOES_NOT_FIT` (proven: the
/// lower bound or a fixed tensor passes it, or the search tried every plan)
/// or `DOES_NOT_FIT_UNPROVEN` (the strategy or its budget stopped first),
/// never a larger arena. Errors: those of `aether_plan_offsets_with`;
/// `CONFLICTING_FIXED_OFFSETS` for two fixed tensors that would share bytes
/// while both are live, or for two tensors of one reuse group, neither
/// reusing the other, that would share bytes while both are active (the
/// reuse pins them to one offset); `MISALIGNED_FIXED_OFFSET`, `INVALID_GAP`,
/// `INVALID_REUSE`, `INVALID_ALIGNMENT` (a tensor's alignment),
/// `INVALID_OPTIONS` (a per-tensor array neither empty nor `tensor_count`
/// long); `aether_plan_problem_explain` names what is at fault.
///
/// # Safety
/// As for `aether_plan_offsets_with`; `problem` points to an initialised
/// `aether_problem` whose arrays hold their counts of readable elements.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_problem(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    problem: *const aether_problem,
    options: *const aether_plan_options,
    offsets_out: *mut usize,
    report_out: *mut aether_plan_report,
) -> aether_status {
    aether_plan_problem_observed(
        tensors,
        tensor_count,
        problem,
        options,
        None,
        core::ptr::null_mut(),
        offsets_out,
        report_out,
    )
}

/// `aether_plan_problem`, telling `progress` how a search advances, for
/// progress displays on long runs. With `AETHER_STRATEGY_SEARCH`, `progress`
/// is called once when the search begins (the starting plan's arena, or
/// `SIZE_MAX` when no plan within the capacity is known yet, and the lower
/// bound), then each time the search finds a better plan, and once more if
/// it proves its best plan optimal, with the nodes visited so far. A problem
/// without constraints is observed as `aether_plan_offsets_observed`
/// observes it. It is not called when the starting plan meets the lower
/// bound, nor by the other strategies. Every call happens on the calling
/// thread, before this function returns; `*progress` is valid only during
/// the call; the callback returns 0 (other values are reserved). `progress`
/// may be NULL: then this is `aether_plan_problem`. The plan and report are
/// exactly those of `aether_plan_problem`, whose `_explain` form explains a
/// failure here too.
///
/// Errors: those of `aether_plan_problem`.
///
/// # Safety
/// As for `aether_plan_problem`; `progress` is NULL or a function that may
/// be called with `user` (passed through untouched, may be NULL) and that
/// returns normally.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_problem_observed(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    problem: *const aether_problem,
    options: *const aether_plan_options,
    progress: aether_progress_fn,
    user: *mut c_void,
    offsets_out: *mut usize,
    report_out: *mut aether_plan_report,
) -> aether_status {
    guard(|| {
        check_plan_outputs(tensor_count, offsets_out, report_out)?;
        let report = match compute(tensors, tensor_count, problem, options, progress, user) {
            Ok(report) => report,
            Err(Fault::Status(status)) => return Err(status),
            Err(Fault::Core(error)) => return Err(status_of(&error)),
        };
        write_plan(&report, offsets_out, report_out);
        Ok(())
    })
}

/// Explains what `aether_plan_problem` returns for these inputs (its outputs
/// aside): the status, the tensor, second tensor and gap or reuse pair at
/// fault, and for a capacity not met the lower bound and whether the
/// refusal is proven. Returns `NULL_POINTER` if `detail_out` is NULL and
/// `INVALID_OPTIONS` if its `struct_size` is too small. It recomputes the
/// plan: call it after a failure.
///
/// # Safety
/// As for `aether_plan_problem`; `detail_out` points to one writable
/// `aether_problem_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_plan_problem_explain(
    tensors: *const aether_tensor_lifetime,
    tensor_count: usize,
    problem: *const aether_problem,
    options: *const aether_plan_options,
    detail_out: *mut aether_problem_detail,
) -> aether_status {
    guard(|| {
        check_value(detail_out)?;
        if (*detail_out).struct_size < size_of::<aether_problem_detail>() {
            return Err(AETHER_STATUS_INVALID_OPTIONS);
        }
        let mut detail = aether_problem_detail {
            struct_size: size_of::<aether_problem_detail>(),
            status: AETHER_STATUS_OK,
            tensor: AETHER_NO_INDEX,
            other_tensor: AETHER_NO_INDEX,
            item: AETHER_NO_INDEX,
            lower_bound: 0,
            proven: 0,
        };
        match compute(
            tensors,
            tensor_count,
            problem,
            options,
            None,
            core::ptr::null_mut(),
        ) {
            Ok(_) => {}
            Err(Fault::Status(status)) => detail.status = status,
            Err(Fault::Core(error)) => {
                detail.status = status_of(&error);
                detail.tensor = error.index().unwrap_or(AETHER_NO_INDEX);
                detail.other_tensor = error.other_tensor().unwrap_or(AETHER_NO_INDEX);
                detail.item = error.item().unwrap_or(AETHER_NO_INDEX);
                if let PlanError::DoesNotFit {
                    lower_bound,
                    proven,
                    ..
                } = error
                {
                    detail.lower_bound = lower_bound;
                    detail.proven = proven.into();
                }
            }
        }
        detail_out.write(detail);
        Ok(())
    })
}
