//! aether_plan_offsets and aether_peak_live_bytes (and their explanations)
//! on tensor tables with sizes and node numbers near SIZE_MAX. Oracles: a
//! plan is sound and its arena is at least the peak; the peak equals a
//! 128-bit sum at every tensor's first node, or OVERFLOW when that sum
//! passes SIZE_MAX; INVALID_LIFETIME names the first backwards tensor; every
//! error leaves the outputs byte-for-byte untouched.
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
        let last_use = if bytes.byte() % 8 == 0 {
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
});
