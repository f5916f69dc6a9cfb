//! `aether_plan_problem` never aborts when memory runs out: a child process
//! calls it for each strategy under a ladder of address-space limits
//! (`RLIMIT_AS`) on a problem whose lifetimes all meet (quadratic conflict
//! lists) and that has gaps, alignments, a fixed offset and a reuse pair.
//! Each call must answer `OK` or `OUT_OF_MEMORY`; an allocation made
//! infallibly would abort the child, which the parent sees.

#[cfg(target_os = "linux")]
use aether_planner::ffi::{
    aether_gap, aether_plan_options, aether_plan_options_init, aether_plan_problem,
    aether_plan_report, aether_problem, aether_problem_init, aether_reuse, aether_tensor_lifetime,
    AETHER_OFFSET_FREE, AETHER_STATUS_OK, AETHER_STRATEGY_GREEDY, AETHER_STRATEGY_HEURISTIC,
    AETHER_STRATEGY_SEARCH,
};

#[cfg(target_os = "linux")]
const CHILD: &str = "AETHER_PROBLEM_MEMORY_CHILD";

/// Limits above the child's current size, in MiB.
#[cfg(target_os = "linux")]
const LADDER: [u64; 6] = [1, 2, 4, 8, 16, 1024];

/// Tensors in the problem: enough that the conflict lists need far more
/// than the lowest rungs allow.
#[cfg(target_os = "linux")]
const COUNT: usize = 600;

mod common;
#[cfg(target_os = "linux")]
use common::limit;

/// The problem: every lifetime meets every other; every tenth tensor has
/// a gap with a window and every tenth (offset by five) one without; every
/// fourth is aligned to 256; tensor 0 is fixed at 0; tensor 5 reuses
/// tensor 4 (64 bytes within 1024).
#[cfg(target_os = "linux")]
struct Problem {
    tensors: Vec<aether_tensor_lifetime>,
    alignments: Vec<usize>,
    fixed: Vec<usize>,
    gaps: Vec<aether_gap>,
    reuses: Vec<aether_reuse>,
}

#[cfg(target_os = "linux")]
fn problem(count: usize) -> Problem {
    let tensors: Vec<aether_tensor_lifetime> = (0..count)
        .map(|i| aether_tensor_lifetime {
            size: 64 << (i % 5),
            first_use: i % 7,
            last_use: count + i % 3,
        })
        .collect();
    let alignments = (0..count)
        .map(|i| if i % 4 == 0 { 256 } else { 1 })
        .collect();
    let mut fixed = vec![AETHER_OFFSET_FREE; count];
    fixed[0] = 0;
    let gaps = (0..count)
        .filter_map(|i| {
            let size = tensors[i].size;
            match i % 10 {
                0 => Some(aether_gap {
                    tensor: i,
                    first: 10 + i % 13,
                    last: 20 + i % 13,
                    window_lo: 0,
                    window_hi: size / 2,
                    has_window: 1,
                }),
                5 => Some(aether_gap {
                    tensor: i,
                    first: 30 + i % 11,
                    last: 40 + i % 11,
                    window_lo: 0,
                    window_hi: 0,
                    has_window: 0,
                }),
                _ => None,
            }
        })
        .collect();
    let reuses = vec![aether_reuse {
        tensor: 5,
        reused: 4,
    }];
    Problem {
        tensors,
        alignments,
        fixed,
        gaps,
        reuses,
    }
}

/// What the child does: plan the problem with `strategy` at every rung of
/// the ladder, printing each status.
#[cfg(target_os = "linux")]
fn child_ladder(strategy: u32) {
    let input = problem(COUNT);
    let mut spec = std::mem::MaybeUninit::<aether_problem>::uninit();
    // SAFETY: init writes the whole struct of the size given.
    let mut spec = unsafe {
        assert_eq!(
            aether_problem_init(spec.as_mut_ptr(), std::mem::size_of::<aether_problem>()),
            AETHER_STATUS_OK
        );
        spec.assume_init()
    };
    spec.alignments = input.alignments.as_ptr();
    spec.alignment_count = COUNT;
    spec.fixed_offsets = input.fixed.as_ptr();
    spec.fixed_offset_count = COUNT;
    spec.gaps = input.gaps.as_ptr();
    spec.gap_count = input.gaps.len();
    spec.reuses = input.reuses.as_ptr();
    spec.reuse_count = input.reuses.len();
    let mut options = std::mem::MaybeUninit::<aether_plan_options>::uninit();
    // SAFETY: init writes the whole struct.
    let mut options = unsafe {
        aether_plan_options_init(options.as_mut_ptr());
        options.assume_init()
    };
    options.strategy = strategy;
    options.alignment = 16;
    options.budget_nodes = 200;
    options.budget_ms = 500;
    let mut offsets = vec![0usize; COUNT];
    let mut report = aether_plan_report {
        struct_size: std::mem::size_of::<aether_plan_report>(),
        ..Default::default()
    };
    let mut statuses = Vec::with_capacity(LADDER.len());
    let base = limit::current_size();
    for mib in LADDER {
        limit::address_space(base + (mib << 20));
        // SAFETY: arrays of the counts given, initialised structs.
        let status = unsafe {
            aether_plan_problem(
                input.tensors.as_ptr(),
                COUNT,
                &spec,
                &options,
                offsets.as_mut_ptr(),
                &mut report,
            )
        };
        limit::address_space(u64::MAX);
        statuses.push((mib, status));
    }
    for (mib, status) in statuses {
        println!("limit+{mib}MiB status={status}");
    }
}

#[cfg(target_os = "linux")]
fn ladder_in_a_child(name: &str, strategy: u32) {
    if std::env::var_os(CHILD).is_some() {
        child_ladder(strategy);
        return;
    }
    limit::run_ladder_child(name, CHILD, LADDER.len());
}

#[cfg(target_os = "linux")]
#[test]
fn greedy_problem_under_an_address_space_limit_is_out_of_memory_not_an_abort() {
    ladder_in_a_child(
        "greedy_problem_under_an_address_space_limit_is_out_of_memory_not_an_abort",
        AETHER_STRATEGY_GREEDY,
    );
}

#[cfg(target_os = "linux")]
#[test]
fn heuristic_problem_under_an_address_space_limit_is_out_of_memory_not_an_abort() {
    ladder_in_a_child(
        "heuristic_problem_under_an_address_space_limit_is_out_of_memory_not_an_abort",
        AETHER_STRATEGY_HEURISTIC,
    );
}

#[cfg(target_os = "linux")]
#[test]
fn search_problem_under_an_address_space_limit_is_out_of_memory_not_an_abort() {
    ladder_in_a_child(
        "search_problem_under_an_address_space_limit_is_out_of_memory_not_an_abort",
        AETHER_STRATEGY_SEARCH,
    );
}
