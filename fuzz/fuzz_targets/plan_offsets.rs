//! aether_plan_offsets and aether_peak_live_bytes (and their explanations)
//! on tensor tables with sizes and node numbers near SIZE_MAX. Oracles: a
//! plan is sound and its arena is at least the peak; the peak equals a
//! 128-bit sum at every tensor's first node, or OVERFLOW when that sum
//! passes SIZE_MAX; INVALID_LIFETIME names the first backwards tensor; every
//! error leaves the outputs byte-for-byte untouched.
//!
//! Then aether_plan_offsets_with, with the strategy and alignment taken from
//! the first byte (some alignments and strategies invalid) and a budget of 50
//! search nodes. Oracles: the status the validation order implies; on
//! success every offset is a multiple of the alignment, the plan is sound on
//! the rounded sizes, the report's arena is the plan's, its lower bound lies
//! between the rounded peak and the arena, "proven optimal" means they are
//! equal, and greedy at alignment 1 is aether_plan_offsets exactly; on error
//! the offsets and the report are untouched.
#![no_main]

use aether_planner::ffi::*;
use aether_planner_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

const POISON: usize = 0x5A5A_5A5A_5A5A_5A5A;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let mode = bytes.byte();
    let mut tensors = Vec::new();
    while !bytes.is_empty() && tensors.len() < 64 {
        let size = bytes.number(4096);
        let first_use = bytes.number(32);
        let last_use = if bytes.byte().is_multiple_of(8) {
            bytes.number(32)
        } else {
            first_use.saturating_add(bytes.byte() as usize % 8)
        };
        tensors.push(aether_tensor_lifetime {
            size,
            first_use,
            last_use,
        });
    }
    let n = tensors.len();
    // Sometimes a NULL array with a non-zero count.
    let null_input = mode % 16 == 1 && n > 0;
    let input = if null_input {
        core::ptr::null()
    } else {
        tensors.as_ptr()
    };

    let mut offsets = vec![POISON; n + 1]; // one past: must never be written
    let mut arena = POISON;
    let mut peak = POISON;
    let mut detail = aether_error_detail {
        status: 77,
        index: 77,
        ..Default::default()
    };
    let (plan_status, peak_status, plan_explained, peak_explained) = unsafe {
        (
            aether_plan_offsets(input, n, offsets.as_mut_ptr(), &mut arena),
            aether_peak_live_bytes(input, n, &mut peak),
            {
                assert_eq!(
                    aether_plan_offsets_explain(input, n, &mut detail),
                    AETHER_STATUS_OK
                );
                detail
            },
            {
                assert_eq!(
                    aether_peak_live_bytes_explain(input, n, &mut detail),
                    AETHER_STATUS_OK
                );
                detail
            },
        )
    };
    assert_eq!(plan_explained.status, plan_status);
    assert_eq!(peak_explained.status, peak_status);
    assert_eq!(offsets[n], POISON);

    if null_input {
        assert_eq!(plan_status, AETHER_STATUS_NULL_POINTER);
        assert_eq!(peak_status, AETHER_STATUS_NULL_POINTER);
    } else if let Some(bad) = tensors.iter().position(|t| t.first_use > t.last_use) {
        assert_eq!(plan_status, AETHER_STATUS_INVALID_LIFETIME);
        assert_eq!(peak_status, AETHER_STATUS_INVALID_LIFETIME);
        assert_eq!(plan_explained.index, bad);
        assert_eq!(peak_explained.index, bad);
    } else {
        // The peak is reached at some tensor's first node.
        let brute: u128 = tensors
            .iter()
            .map(|at| {
                tensors
                    .iter()
                    .filter(|t| t.first_use <= at.first_use && at.first_use <= t.last_use)
                    .map(|t| t.size as u128)
                    .sum()
            })
            .max()
            .unwrap_or(0);
        if brute > usize::MAX as u128 {
            assert_eq!(peak_status, AETHER_STATUS_OVERFLOW);
            assert_eq!(plan_status, AETHER_STATUS_OVERFLOW);
        } else {
            assert_eq!(peak_status, AETHER_STATUS_OK);
            assert_eq!(peak as u128, brute);
            // A greedy arena may pass SIZE_MAX where the peak does not.
            assert!(plan_status == AETHER_STATUS_OK || plan_status == AETHER_STATUS_OVERFLOW);
        }
    }

    if plan_status == AETHER_STATUS_OK {
        if peak_status == AETHER_STATUS_OK {
            assert!(arena >= peak);
        }
        for (i, a) in tensors.iter().enumerate() {
            if a.size == 0 {
                assert_eq!(offsets[i], 0);
                continue;
            }
            let end_a = offsets[i].checked_add(a.size).expect("offset + size fits");
            assert!(end_a <= arena);
            for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                let meet = a.first_use <= b.last_use && b.first_use <= a.last_use;
                let share = b.size > 0 && offsets[i] < offsets[j] + b.size && offsets[j] < end_a;
                assert!(!(meet && share), "tensors {i} and {j} share a byte");
            }
        }
    } else {
        assert!(offsets.iter().all(|&o| o == POISON));
        assert_eq!(arena, POISON);
    }
    if peak_status != AETHER_STATUS_OK {
        assert_eq!(peak, POISON);
    }

    // The planners beyond greedy.
    let strategy = [
        AETHER_STRATEGY_GREEDY,
        AETHER_STRATEGY_HEURISTIC,
        AETHER_STRATEGY_SEARCH,
        7, // not a strategy
    ][(mode as usize >> 4) % 4];
    let alignment = [1usize, 64, 4096, 48][(mode as usize >> 6) % 4];
    let options = aether_plan_options {
        struct_size: core::mem::size_of::<aether_plan_options>(),
        alignment,
        strategy,
        budget_ms: AETHER_BUDGET_UNLIMITED,
        budget_nodes: 50,
    };
    let untouched = aether_plan_report {
        struct_size: core::mem::size_of::<aether_plan_report>(),
        arena_size: POISON,
        lower_bound: POISON,
        proven_optimal: 77,
        search_nodes: 77,
        stacked_tensors: 77,
    };
    let mut report = untouched;
    let mut planned = vec![POISON; n + 1];
    let status =
        unsafe { aether_plan_offsets_with(input, n, &options, planned.as_mut_ptr(), &mut report) };
    assert_eq!(planned[n], POISON);
    let rounded: Vec<Option<usize>> = tensors
        .iter()
        .map(|t| t.size.checked_next_multiple_of(alignment.max(1)))
        .collect();
    if strategy == 7 {
        assert_eq!(status, AETHER_STATUS_INVALID_OPTIONS);
    } else if null_input {
        assert_eq!(status, AETHER_STATUS_NULL_POINTER);
    } else if !alignment.is_power_of_two() {
        assert_eq!(status, AETHER_STATUS_INVALID_ALIGNMENT);
    } else if tensors.iter().any(|t| t.first_use > t.last_use) {
        assert_eq!(status, AETHER_STATUS_INVALID_LIFETIME);
    } else if rounded.iter().any(Option::is_none) {
        assert_eq!(status, AETHER_STATUS_OVERFLOW);
    } else {
        // Any planner's arena may pass SIZE_MAX where the rounded peak does
        // not; a rounded peak past SIZE_MAX is always an overflow.
        let rounded_peak: u128 = tensors
            .iter()
            .map(|at| {
                tensors
                    .iter()
                    .zip(&rounded)
                    .filter(|(t, _)| t.first_use <= at.first_use && at.first_use <= t.last_use)
                    .map(|(_, r)| r.unwrap_or(0) as u128)
                    .sum::<u128>()
            })
            .max()
            .unwrap_or(0);
        if rounded_peak > usize::MAX as u128 {
            assert_eq!(status, AETHER_STATUS_OVERFLOW);
        } else {
            assert!(status == AETHER_STATUS_OK || status == AETHER_STATUS_OVERFLOW);
        }
        if status == AETHER_STATUS_OK {
            let mut arena_seen = 0usize;
            for (i, a) in tensors.iter().enumerate() {
                let size = rounded[i].unwrap_or(0);
                assert_eq!(planned[i] % alignment, 0, "tensor {i} misaligned");
                if size == 0 {
                    assert_eq!(planned[i], 0);
                    continue;
                }
                let end_a = planned[i].checked_add(size).expect("offset + size fits");
                arena_seen = arena_seen.max(end_a);
                for (j, b) in tensors.iter().enumerate().skip(i + 1) {
                    let size_b = rounded[j].unwrap_or(0);
                    let meet = a.first_use <= b.last_use && b.first_use <= a.last_use;
                    let share =
                        size_b > 0 && planned[i] < planned[j] + size_b && planned[j] < end_a;
                    assert!(!(meet && share), "tensors {i} and {j} share a byte");
                }
            }
            assert_eq!(report.arena_size, arena_seen);
            assert!(report.lower_bound as u128 >= rounded_peak);
            assert!(report.lower_bound <= report.arena_size);
            assert_eq!(
                report.proven_optimal,
                u32::from(report.lower_bound == report.arena_size)
            );
            if strategy == AETHER_STRATEGY_SEARCH {
                assert!(report.search_nodes <= 50);
            } else {
                assert_eq!(report.search_nodes, 0);
            }
            if strategy == AETHER_STRATEGY_GREEDY && alignment == 1 {
                assert_eq!(plan_status, AETHER_STATUS_OK);
                assert_eq!(planned[..n], offsets[..n]);
                assert_eq!(report.arena_size, arena);
            }
        }
    }
    if status != AETHER_STATUS_OK {
        assert!(planned.iter().all(|&o| o == POISON));
        assert_eq!(report, untouched);
    }
});
