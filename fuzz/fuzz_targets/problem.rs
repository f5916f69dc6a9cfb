//! aether_plan_problem and its explanation on small problems with every kind
//! of constraint drawn from the input: per-tensor alignments (some invalid),
//! fixed offsets, hints, gaps with and without windows (some outside their
//! tensor), reuse pairs (some invalid) and a capacity, under a strategy from
//! the first byte and a budget of 200 search nodes. Oracles: the explain
//! call reports the status the call returned; on success every offset is a
//! multiple of its tensor's alignment, fixed tensors stay, reused tensors
//! share their offset, the arena is the plan's and within the capacity, and
//! no two tensors outside one reuse group share a byte at any node (checked
//! node by node here); on error nothing is written.
#![no_main]

use aether_planner::ffi::*;
use aether_planner_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

const POISON: usize = 0x5A5A_5A5A_5A5A_5A5A;

/// The bytes tensor `t` at `offset` occupies at `node`, if it is active.
fn occupied(
    t: &aether_tensor_lifetime,
    i: usize,
    gaps: &[aether_gap],
    offset: usize,
    node: usize,
) -> Option<(u128, u128)> {
    if t.size == 0 || node < t.first_use || node > t.last_use {
        return None;
    }
    let o = offset as u128;
    match gaps.iter().find(|g| g.tensor == i && g.first <= node && node <= g.last) {
        Some(g) if g.has_window != 0 && g.window_lo < g.window_hi => {
            Some((o + g.window_lo as u128, o + g.window_hi as u128))
        }
        Some(_) => None,
        None => Some((o, o + t.size as u128)),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let mode = bytes.byte();
    let n = (bytes.byte() % 9) as usize;
    let mut tensors = Vec::new();
    for _ in 0..n {
        let size = bytes.number(64);
        let first_use = bytes.byte() as usize % 12;
        let last_use = first_use + bytes.byte() as usize % 6;
        tensors.push(aether_tensor_lifetime {
            size,
            first_use,
            last_use,
        });
    }
    let alignments: Vec<usize> = if mode & 2 != 0 {
        (0..n).map(|_| [1, 2, 4, 8, 16, 3][bytes.byte() as usize % 6]).collect()
    } else {
        Vec::new()
    };
    let fixed: Vec<usize> = if mode & 4 != 0 {
        (0..n)
            .map(|_| match bytes.byte() % 4 {
                0 => 16 * (bytes.byte() as usize % 8),
                _ => AETHER_OFFSET_FREE,
            })
            .collect()
    } else {
        Vec::new()
    };
    let hints: Vec<usize> = if mode & 8 != 0 {
        (0..n).map(|_| bytes.number(128)).collect()
    } else {
        Vec::new()
    };
    let mut gaps = Vec::new();
    let mut reuses = Vec::new();
    while !bytes.is_empty() && gaps.len() + reuses.len() < 12 {
        let kind = bytes.byte();
        let a = bytes.byte() as usize % (n + 1);
        if kind % 2 == 0 {
            let first = bytes.byte() as usize % 16;
            gaps.push(aether_gap {
                tensor: a,
                first,
                last: first + bytes.byte() as usize % 4,
                window_lo: bytes.byte() as usize % 32,
                window_hi: bytes.byte() as usize % 64,
                has_window: u32::from(kind % 4 == 0),
            });
        } else {
            reuses.push(aether_reuse {
                tensor: a,
                reused: bytes.byte() as usize % (n + 1),
            });
        }
    }
    let mut problem = aether_problem {
        struct_size: 0,
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
        capacity: 0,
    };
    unsafe { aether_problem_init(&mut problem, core::mem::size_of::<aether_problem>()) };
    problem.alignments = alignments.as_ptr();
    problem.alignment_count = alignments.len();
    problem.fixed_offsets = fixed.as_ptr();
    problem.fixed_offset_count = fixed.len();
    problem.hints = hints.as_ptr();
    problem.hint_count = hints.len();
    problem.gaps = gaps.as_ptr();
    problem.gap_count = gaps.len();
    problem.reuses = reuses.as_ptr();
    problem.reuse_count = reuses.len();
    if mode & 16 != 0 {
        problem.capacity = bytes.number(512);
    }
    let mut options = aether_plan_options {
        struct_size: 0,
        alignment: 0,
        strategy: 0,
        budget_ms: 0,
        budget_nodes: 0,
    };
    unsafe { aether_plan_options_init(&mut options) };
    options.strategy = (mode >> 5) as u32 % 3;
    options.budget_nodes = 200;

    let mut offsets = vec![POISON; n + 1];
    let mut report = aether_plan_report {
        struct_size: core::mem::size_of::<aether_plan_report>(),
        ..Default::default()
    };
    let untouched = report;
    let mut detail = aether_problem_detail {
        struct_size: core::mem::size_of::<aether_problem_detail>(),
        ..Default::default()
    };
    let (status, explained) = unsafe {
        (
            aether_plan_problem(
                tensors.as_ptr(),
                n,
                &problem,
                &options,
                offsets.as_mut_ptr(),
                &mut report,
            ),
            aether_plan_problem_explain(tensors.as_ptr(), n, &problem, &options, &mut detail),
        )
    };
    assert_eq!(explained, AETHER_STATUS_OK);
    assert_eq!(detail.status, status);
    assert_eq!(offsets[n], POISON);
    if status != AETHER_STATUS_OK {
        assert!(offsets.iter().all(|&o| o == POISON));
        assert_eq!(report, untouched);
        return;
    }
    let group = |mut t: usize| {
        while let Some(r) = reuses.iter().find(|r| r.tensor == t) {
            t = r.reused;
        }
        t
    };
    let mut arena = 0;
    for i in 0..n {
        if let Some(&a) = alignments.get(i) {
            assert_eq!(offsets[i] % a, 0);
        }
        if let Some(&f) = fixed.get(i) {
            assert!(f == AETHER_OFFSET_FREE || offsets[i] == f);
        }
        if tensors[i].size > 0 {
            arena = arena.max(offsets[i] + tensors[i].size);
        }
    }
    assert_eq!(report.arena_size, arena);
    assert!(report.lower_bound <= arena);
    if problem.capacity != AETHER_NO_CAPACITY {
        assert!(arena <= problem.capacity);
    }
    for r in &reuses {
        assert_eq!(offsets[r.tensor], offsets[r.reused]);
    }
    for i in 0..n {
        for j in i + 1..n {
            if group(i) == group(j) {
                continue;
            }
            for node in 0..24 {
                let x = occupied(&tensors[i], i, &gaps, offsets[i], node);
                let y = occupied(&tensors[j], j, &gaps, offsets[j], node);
                if let (Some(x), Some(y)) = (x, y) {
                    assert!(x.1 <= y.0 || y.1 <= x.0, "{i} and {j} share bytes at {node}");
                }
            }
        }
    }
});
