//! aether_plan_offsets_with and its explanation with an options struct of
//! arbitrary bytes: any struct_size (the buffer behind it is
//! AETHER_PLAN_OPTIONS_MAX_SIZE bytes, so a declared size within it is
//! real memory and one beyond it must be refused unread), any strategy,
//! alignment and budgets, and bytes past the known fields. Oracles: the
//! status validation implies (INVALID_OPTIONS for a size outside
//! 40..=MAX, not a multiple of 8, or a set byte past the known fields, or an
//! unknown strategy); the explanation's status is the call's; on error
//! nothing is written; aether_plan_options_init_sized accepts exactly the
//! sizes _with accepts and zeroes what it initialises; aether_plan_offsets_observed
//! gives the same outcome, with progress that only improves.
#![no_main]

use aether_planner::ffi::*;
use aether_planner_fuzz::{progress, Bytes};
use core::mem::size_of;
use libfuzzer_sys::fuzz_target;

const POISON: usize = 0x5A5A_5A5A_5A5A_5A5A;
const KNOWN: usize = size_of::<aether_plan_options>();

#[repr(C, align(8))]
struct Buffer([u8; AETHER_PLAN_OPTIONS_MAX_SIZE]);

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let mut buffer = Buffer([0; AETHER_PLAN_OPTIONS_MAX_SIZE]);
    let struct_size = match bytes.byte() % 4 {
        0 => bytes.number(AETHER_PLAN_OPTIONS_MAX_SIZE + 64),
        1 => bytes.raw(),
        _ => KNOWN + 8 * (bytes.byte() as usize % 8),
    };
    let options = aether_plan_options {
        struct_size,
        alignment: [1usize, 8, 64, 0, 3, bytes.raw()][bytes.byte() as usize % 6],
        strategy: [0u32, 1, 2, 3, u32::MAX][bytes.byte() as usize % 5],
        budget_ms: AETHER_BUDGET_UNLIMITED,
        budget_nodes: bytes.byte() as u64 % 64,
    };
    let p = buffer.0.as_mut_ptr().cast::<aether_plan_options>();
    unsafe { p.write(options) };
    // Sometimes one byte past the known fields is set.
    let tail_byte = bytes
        .byte()
        .is_multiple_of(4)
        .then(|| KNOWN + bytes.byte() as usize % 200);
    if let Some(k) = tail_byte {
        buffer.0[k] = 1 | bytes.byte();
    }
    let mut tensors = Vec::new();
    while !bytes.is_empty() && tensors.len() < 24 {
        let first_use = bytes.byte() as usize % 16;
        tensors.push(aether_tensor_lifetime {
            size: bytes.number(1024),
            first_use,
            last_use: first_use + bytes.byte() as usize % 6,
        });
    }
    let n = tensors.len();

    let size_ok =
        (KNOWN..=AETHER_PLAN_OPTIONS_MAX_SIZE).contains(&struct_size) && struct_size % 8 == 0;
    let tail_clear = tail_byte.is_none_or(|k| k >= struct_size);
    let options_ok = size_ok && tail_clear && options.strategy <= 2;

    let mut offsets = vec![POISON; n + 1];
    let untouched = aether_plan_report {
        struct_size: size_of::<aether_plan_report>(),
        arena_size: POISON,
        ..Default::default()
    };
    let mut report = untouched;
    let mut detail = aether_error_detail::default();
    let (status, explained) = unsafe {
        let options = buffer.0.as_ptr().cast();
        (
            aether_plan_offsets_with(
                tensors.as_ptr(),
                n,
                options,
                offsets.as_mut_ptr(),
                &mut report,
            ),
            aether_plan_offsets_with_explain(tensors.as_ptr(), n, options, &mut detail),
        )
    };
    assert_eq!(explained, AETHER_STATUS_OK);
    assert_eq!(detail.status, status);
    assert_eq!(offsets[n], POISON);
    if !options_ok {
        assert_eq!(
            status, AETHER_STATUS_INVALID_OPTIONS,
            "{struct_size} {tail_byte:?}"
        );
    } else if !options.alignment.is_power_of_two() {
        assert_eq!(status, AETHER_STATUS_INVALID_ALIGNMENT);
    } else {
        assert!(
            matches!(status, AETHER_STATUS_OK | AETHER_STATUS_OVERFLOW),
            "status {status}"
        );
    }
    if status != AETHER_STATUS_OK {
        assert!(offsets.iter().all(|&o| o == POISON));
        assert_eq!(report, untouched);
    }

    // The observed form of the same call: the same outcome, and progress
    // that keeps its promises (the budget is nodes only: deterministic).
    let mut seen: Vec<aether_search_progress> = Vec::new();
    let mut observed = vec![POISON; n + 1];
    let mut observed_report = untouched;
    let observed_status = unsafe {
        aether_plan_offsets_observed(
            tensors.as_ptr(),
            n,
            buffer.0.as_ptr().cast(),
            Some(progress::record),
            (&mut seen as *mut Vec<aether_search_progress>).cast(),
            observed.as_mut_ptr(),
            &mut observed_report,
        )
    };
    assert_eq!(observed_status, status);
    assert_eq!((&observed, observed_report), (&offsets, report));
    let made = (status == AETHER_STATUS_OK).then_some(&report);
    progress::check(
        &seen,
        options_ok && options.strategy == AETHER_STRATEGY_SEARCH,
        made,
    );

    // The sized init accepts what _with accepts, and zeroes the whole size.
    let mut fresh = Buffer([0xEE; AETHER_PLAN_OPTIONS_MAX_SIZE]);
    let init_size = struct_size.min(AETHER_PLAN_OPTIONS_MAX_SIZE + 8);
    let ptr = fresh.0.as_mut_ptr().cast::<aether_plan_options>();
    let init = unsafe { aether_plan_options_init_sized(ptr, init_size) };
    if size_ok {
        assert_eq!(init, AETHER_STATUS_OK);
        let set = unsafe { ptr.read() };
        assert_eq!(
            (set.struct_size, set.strategy),
            (struct_size, AETHER_STRATEGY_GREEDY)
        );
        assert!(fresh.0[KNOWN..struct_size].iter().all(|&b| b == 0));
        assert!(fresh.0[struct_size..].iter().all(|&b| b == 0xEE));
    } else {
        assert_eq!(init, AETHER_STATUS_INVALID_OPTIONS);
        assert!(fresh.0.iter().all(|&b| b == 0xEE));
    }
});
