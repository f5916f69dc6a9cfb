//! The allocation-free entry points allocate nothing: this test binary's
//! global allocator counts every allocation made while they run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use aether_planner::ffi::*;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|count| count.set(count.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Allocations made on this thread while `body` runs.
fn allocations_during(body: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    body();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn islands_and_workspace_variants_do_not_allocate() {
    let incidences = [
        aether_incidence { a: 3, b: 1 },
        aether_incidence { a: 2, b: 2 },
        aether_incidence { a: 5, b: 3 },
    ];
    let pairs = [3, 1, -1, 2, 5, -1];
    let tensors = [
        aether_tensor_lifetime {
            size: 100,
            first_use: 0,
            last_use: 1,
        },
        aether_tensor_lifetime {
            size: 80,
            first_use: 1,
            last_use: 2,
        },
        aether_tensor_lifetime {
            size: 60,
            first_use: 2,
            last_use: 3,
        },
    ];
    let edges = [
        aether_edge {
            source: 0,
            target: 2,
        },
        aether_edge {
            source: 0,
            target: 1,
        },
        aether_edge {
            source: 1,
            target: 2,
        },
    ];
    let mut workspace = vec![0usize; 64];
    let (mut labels, mut labels_i32) = ([0usize; 6], [0i32; 6]);
    let (mut offsets, mut out) = ([0usize; 3], [aether_edge::default(); 3]);
    let (mut count, mut count_i32, mut arena, mut peak) = (0usize, 0i32, 0usize, 0usize);
    let bytes = workspace.len() * 8;
    let ws = workspace.as_mut_ptr().cast();

    let made = allocations_during(|| unsafe {
        let statuses = [
            aether_islands(6, incidences.as_ptr(), 3, labels.as_mut_ptr(), &mut count),
            aether_islands_i32(
                6,
                pairs.as_ptr(),
                3,
                labels_i32.as_mut_ptr(),
                &mut count_i32,
            ),
            aether_plan_offsets_in_workspace(
                tensors.as_ptr(),
                3,
                ws,
                bytes,
                offsets.as_mut_ptr(),
                &mut arena,
            ),
            aether_peak_live_bytes_in_workspace(tensors.as_ptr(), 3, ws, bytes, &mut peak),
            aether_transitive_reduction_in_workspace(
                3,
                edges.as_ptr(),
                3,
                ws,
                bytes,
                out.as_mut_ptr(),
                3,
                &mut count,
            ),
        ];
        assert_eq!(statuses, [AETHER_STATUS_OK; 5]);
    });
    assert_eq!(made, 0, "allocation-free entry points allocated");

    // The results are the right ones (checked by hand), and the counter does
    // count: the plain reduction allocates.
    assert_eq!(labels_i32, [-1, 0, 1, 0, -1, 2]);
    assert_eq!((offsets, arena, peak), ([0, 100, 0], 180, 180));
    assert_eq!(count, 2);
    assert_eq!(
        (out[0].source, out[0].target, out[1].source, out[1].target),
        (0, 1, 1, 2)
    );
    let made = allocations_during(|| unsafe {
        aether_transitive_reduction(3, edges.as_ptr(), 3, out.as_mut_ptr(), 3, &mut count);
    });
    assert!(made > 0);
}

#[test]
fn the_indexed_workspace_form_plans_a_training_step_without_allocating() {
    // 3,000 layers (4.5 million conflicting pairs, past the 256 per tensor
    // from which the index plans): each activation lives from its forward node to the
    // mirrored backward one, a temporary at each forward node, a gradient
    // over two backward nodes; sizes from a fixed sequence.
    let layers = 3000;
    let turn = 2 * layers;
    let size = |i: usize| 64 * (1 + (i * 7919) % 500);
    let tensors: Vec<aether_tensor_lifetime> = (0..layers)
        .flat_map(|i| {
            [
                (size(3 * i), i, turn - 1 - i),
                (size(3 * i + 1) / 8 + 16, i, i),
                (size(3 * i + 2), turn - 1 - i, turn - i),
            ]
        })
        .map(|(size, first_use, last_use)| aether_tensor_lifetime {
            size,
            first_use,
            last_use,
        })
        .collect();
    let n = tensors.len();
    let (mut heap, mut heap_arena) = (vec![0usize; n], 0usize);
    let status =
        unsafe { aether_plan_offsets(tensors.as_ptr(), n, heap.as_mut_ptr(), &mut heap_arena) };
    assert_eq!(status, AETHER_STATUS_OK);
    let bytes = aether_plan_offsets_indexed_workspace_size(n);
    let mut workspace = vec![0usize; bytes.div_ceil(8)];
    let (mut offsets, mut arena) = (vec![0usize; n], 0usize);
    let made = allocations_during(|| {
        let status = unsafe {
            aether_plan_offsets_in_indexed_workspace(
                tensors.as_ptr(),
                n,
                workspace.as_mut_ptr().cast(),
                bytes,
                offsets.as_mut_ptr(),
                &mut arena,
            )
        };
        assert_eq!(status, AETHER_STATUS_OK);
    });
    assert_eq!(made, 0, "the indexed form allocated");
    assert_eq!((offsets, arena), (heap, heap_arena));
}
