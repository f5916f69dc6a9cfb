//! The forms the other targets do not drive, each against the main form it
//! must equal: the four `*_in_workspace` forms, the indexed one among them
//! (the workspace exact, one
//! byte short, or declared far larger than it is; sometimes placed over an
//! input or an output, which must be OVERLAPPING_BUFFERS with nothing
//! written), the any-order reduction on a permuted numbering (the strict
//! result mapped through the permutation), and islands_i32 with its
//! explanation (the labels and status of aether_islands on the same
//! incidences, a -1 endpoint meaning "the other one").
#![no_main]

use aether_planner::ffi::*;
use aether_planner_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

const POISON: usize = 0x5A5A_5A5A_5A5A_5A5A;

/// How the workspace is offered: its real size, the declared size, and
/// whether it is placed over another argument.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Offer {
    Exact,
    Short,
    Generous,
    OverInput,
    OverOutput,
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let offer = [
        Offer::Exact,
        Offer::Short,
        Offer::Generous,
        Offer::OverInput,
        Offer::OverOutput,
    ][bytes.byte() as usize % 5];
    match bytes.byte() % 3 {
        0 => offsets(&mut bytes, offer),
        1 => reduction(&mut bytes, offer),
        _ => islands(&mut bytes),
    }
});

/// The declared size for a need of `needed` bytes.
fn declared(offer: Offer, needed: usize) -> usize {
    match offer {
        Offer::Short => needed - 1,
        Offer::Generous => usize::MAX,
        _ => needed,
    }
}

fn offsets(bytes: &mut Bytes, offer: Offer) {
    let mut tensors = Vec::new();
    while !bytes.is_empty() && tensors.len() < 32 {
        let first_use = bytes.number(24);
        tensors.push(aether_tensor_lifetime {
            size: bytes.number(4096),
            first_use,
            last_use: first_use.saturating_add(bytes.byte() as usize % 6),
        });
    }
    let n = tensors.len();
    let (mut offsets, mut arena) = (vec![POISON; n], POISON);
    let (mut peak, mut peak_main) = (POISON, POISON);
    let (plan_main, peak_status) = unsafe {
        (
            aether_plan_offsets(tensors.as_ptr(), n, offsets.as_mut_ptr(), &mut arena),
            aether_peak_live_bytes(tensors.as_ptr(), n, &mut peak_main),
        )
    };
    let needed = aether_plan_offsets_workspace_size(n);
    assert_eq!(needed, 32 * n);
    assert_eq!(aether_peak_live_bytes_workspace_size(n), 32 * n);
    if n == 0 || (offer == Offer::Short && needed == 0) {
        return;
    }
    // Words for the workspace, and room for the tensors right after it.
    let mut memory = vec![0u64; needed / 8 + 3 * n];
    let base = memory.as_mut_ptr();
    let mut out = vec![POISON; n];
    let (input, out_ptr) = placed(offer, base, &tensors, &mut out);
    let mut ws_arena = POISON;
    let (plan, peak_ws) = unsafe {
        (
            aether_plan_offsets_in_workspace(
                input,
                n,
                base.cast(),
                declared(offer, needed),
                out_ptr,
                &mut ws_arena,
            ),
            aether_peak_live_bytes_in_workspace(
                input,
                n,
                base.cast(),
                declared(offer, needed),
                &mut peak,
            ),
        )
    };
    match offer {
        Offer::Short => {
            assert_eq!(
                (plan, peak_ws),
                (
                    AETHER_STATUS_BUFFER_TOO_SMALL,
                    AETHER_STATUS_BUFFER_TOO_SMALL
                )
            );
        }
        Offer::OverInput => {
            assert_eq!(
                (plan, peak_ws),
                (
                    AETHER_STATUS_OVERLAPPING_BUFFERS,
                    AETHER_STATUS_OVERLAPPING_BUFFERS
                )
            );
        }
        Offer::OverOutput => assert_eq!(plan, AETHER_STATUS_OVERLAPPING_BUFFERS),
        Offer::Exact | Offer::Generous => {
            assert_eq!(plan, plan_main);
            assert_eq!(peak_ws, peak_status);
            if plan == AETHER_STATUS_OK {
                assert_eq!((&out, ws_arena), (&offsets, arena));
            }
            if peak_ws == AETHER_STATUS_OK {
                assert_eq!(peak, peak_main);
            }
        }
    }
    if plan != AETHER_STATUS_OK {
        assert!(out.iter().all(|&o| o == POISON));
        assert_eq!(ws_arena, POISON);
    }
    if peak_ws != AETHER_STATUS_OK {
        assert_eq!(peak, POISON);
    }
    indexed(&tensors, offer, (plan_main, &offsets, arena));
}

/// The table and output pointers an offer passes: the table copied to the
/// workspace's start (`OverInput`), the output at its start (`OverOutput`),
/// else the caller's own.
fn placed(
    offer: Offer,
    base: *mut u64,
    tensors: &[aether_tensor_lifetime],
    out: &mut [usize],
) -> (*const aether_tensor_lifetime, *mut usize) {
    let input = match offer {
        Offer::OverInput => {
            let inside = base.cast::<aether_tensor_lifetime>();
            unsafe { core::ptr::copy_nonoverlapping(tensors.as_ptr(), inside, tensors.len()) };
            inside.cast_const()
        }
        _ => tensors.as_ptr(),
    };
    match offer {
        Offer::OverOutput => (input, base.cast::<usize>()),
        _ => (input, out.as_mut_ptr()),
    }
}

/// The indexed form on the same table, over its own larger workspace
/// (a short one is a byte short of the 4-word form's need): the main
/// form's status and plan, or the offer's refusal with nothing written.
fn indexed(
    tensors: &[aether_tensor_lifetime],
    offer: Offer,
    (plan_main, offsets, arena): (aether_status, &[usize], usize),
) {
    let n = tensors.len();
    let most = aether_plan_offsets_indexed_workspace_size(n);
    assert!(most >= aether_plan_offsets_workspace_size(n));
    let mut memory = vec![0u64; most / 8 + 3 * n];
    let base = memory.as_mut_ptr();
    let mut out = vec![POISON; n];
    let (input, out_ptr) = placed(offer, base, tensors, &mut out);
    let size = match offer {
        Offer::Short => aether_plan_offsets_workspace_size(n) - 1,
        Offer::Generous => usize::MAX,
        _ => most,
    };
    let mut ws_arena = POISON;
    let status = unsafe {
        aether_plan_offsets_in_indexed_workspace(
            input,
            n,
            base.cast(),
            size,
            out_ptr,
            &mut ws_arena,
        )
    };
    let expected = match offer {
        Offer::Short => AETHER_STATUS_BUFFER_TOO_SMALL,
        Offer::OverInput | Offer::OverOutput => AETHER_STATUS_OVERLAPPING_BUFFERS,
        Offer::Exact | Offer::Generous => plan_main,
    };
    assert_eq!(status, expected);
    if status == AETHER_STATUS_OK {
        assert_eq!((out.as_slice(), ws_arena), (offsets, arena));
    } else {
        assert!(out.iter().all(|&o| o == POISON));
        assert_eq!(ws_arena, POISON);
    }
}

fn reduction(bytes: &mut Bytes, offer: Offer) {
    let n = 1 + bytes.byte() as usize % 40;
    let mut edges = Vec::new();
    while !bytes.is_empty() && edges.len() < 96 {
        let (a, b) = (bytes.byte() as usize % n, bytes.byte() as usize % n);
        // Mostly topological, sometimes not, sometimes out of range.
        let edge = match bytes.byte() % 16 {
            0 => aether_edge {
                source: a,
                target: b,
            },
            1 => aether_edge {
                source: a,
                target: n + b,
            },
            _ => aether_edge {
                source: a.min(b),
                target: a.max(b) + usize::from(a == b),
            },
        };
        edges.push(edge);
    }
    let m = edges.len();
    let (mut main, mut main_count) = (vec![aether_edge::default(); m], POISON);
    let strict = unsafe {
        aether_transitive_reduction(n, edges.as_ptr(), m, main.as_mut_ptr(), m, &mut main_count)
    };

    // Any order, on the numbering reversed: the strict result reversed, and a
    // strict NOT_TOPOLOGICAL edge may be fine there (or a CYCLE).
    let reversed: Vec<aether_edge> = edges
        .iter()
        .map(|e| aether_edge {
            source: n.wrapping_sub(1).wrapping_sub(e.source),
            target: n.wrapping_sub(1).wrapping_sub(e.target),
        })
        .collect();
    let (mut any, mut any_count) = (vec![aether_edge::default(); m], POISON);
    let mut detail = aether_error_detail::default();
    let any_status = unsafe {
        aether_transitive_reduction_any_order(
            n,
            reversed.as_ptr(),
            m,
            any.as_mut_ptr(),
            m,
            &mut any_count,
        )
    };
    let explained = unsafe {
        aether_transitive_reduction_any_order_explain(n, reversed.as_ptr(), m, &mut detail)
    };
    assert_eq!((explained, detail.status), (AETHER_STATUS_OK, any_status));
    if strict == AETHER_STATUS_OK {
        assert_eq!(any_status, AETHER_STATUS_OK);
        let mut expected: Vec<(usize, usize)> = main[..main_count]
            .iter()
            .map(|e| (n - 1 - e.source, n - 1 - e.target))
            .collect();
        expected.sort_unstable();
        let got: Vec<(usize, usize)> = any[..any_count]
            .iter()
            .map(|e| (e.source, e.target))
            .collect();
        assert_eq!(got, expected);
    }

    // The workspace form.
    let needed = aether_transitive_reduction_workspace_size(n, m);
    if offer == Offer::Short && needed == 0 {
        return;
    }
    let mut memory = vec![0u64; needed / 8 + 2 * m + 1];
    let base = memory.as_mut_ptr();
    let input = if offer == Offer::OverInput && m > 0 {
        let inside = base.cast::<aether_edge>();
        unsafe { core::ptr::copy_nonoverlapping(edges.as_ptr(), inside, m) };
        inside.cast_const()
    } else {
        edges.as_ptr()
    };
    let mut out = vec![
        aether_edge {
            source: 7,
            target: 7
        };
        m
    ];
    let out_ptr = if offer == Offer::OverOutput && m > 0 {
        base.cast::<aether_edge>()
    } else {
        out.as_mut_ptr()
    };
    let mut count = POISON;
    let status = unsafe {
        aether_transitive_reduction_in_workspace(
            n,
            input,
            m,
            base.cast(),
            declared(offer, needed),
            out_ptr,
            m,
            &mut count,
        )
    };
    let overlapping = matches!(offer, Offer::OverInput | Offer::OverOutput) && m > 0 && needed > 0;
    if overlapping {
        assert_eq!(status, AETHER_STATUS_OVERLAPPING_BUFFERS);
    } else if offer == Offer::Short {
        assert_eq!(status, AETHER_STATUS_BUFFER_TOO_SMALL);
    } else {
        assert_eq!(status, strict);
        if status == AETHER_STATUS_OK {
            assert_eq!(&out[..count], &main[..main_count]);
        }
    }
    if status != AETHER_STATUS_OK {
        assert_eq!(count, POISON);
        assert!(out.iter().all(|e| (e.source, e.target) == (7, 7)));
    }
}

fn islands(bytes: &mut Bytes) {
    let node_count = bytes.byte() as i32 % 48 - 1; // sometimes -1
    let mut ints = Vec::new();
    while !bytes.is_empty() && ints.len() < 128 {
        ints.push(match bytes.byte() % 16 {
            0 => -1,
            1 => i32::MIN + bytes.byte() as i32,
            2 => node_count + bytes.byte() as i32 % 3,
            _ => bytes.byte() as i32 % node_count.max(1),
        });
    }
    ints.truncate(ints.len() / 2 * 2);
    let pair_count = (ints.len() / 2) as i32;
    let n = node_count.max(0) as usize;
    let mut labels = vec![-7i32; n];
    let mut count = -7;
    let mut detail = aether_error_detail::default();
    let status = unsafe {
        aether_islands_i32(
            node_count,
            ints.as_ptr(),
            pair_count,
            labels.as_mut_ptr(),
            &mut count,
        )
    };
    let explained =
        unsafe { aether_islands_i32_explain(node_count, ints.as_ptr(), pair_count, &mut detail) };
    assert_eq!((explained, detail.status), (AETHER_STATUS_OK, status));
    if node_count < 0 {
        assert_eq!(status, AETHER_STATUS_NEGATIVE_COUNT);
        return;
    }
    // The same incidences in this library's layout; an invalid pair names
    // a node past every node_count.
    let incidences: Vec<aether_incidence> = ints
        .chunks(2)
        .map(|pair| match (pair[0], pair[1]) {
            (a, b) if a >= 0 && b >= 0 => aether_incidence {
                a: a as usize,
                b: b as usize,
            },
            (-1, b) if b >= 0 => aether_incidence {
                a: b as usize,
                b: b as usize,
            },
            (a, -1) if a >= 0 => aether_incidence {
                a: a as usize,
                b: a as usize,
            },
            _ => aether_incidence {
                a: usize::MAX,
                b: usize::MAX,
            },
        })
        .collect();
    let mut wide = vec![POISON; n];
    let mut wide_count = POISON;
    let main = unsafe {
        aether_islands(
            n,
            incidences.as_ptr(),
            incidences.len(),
            wide.as_mut_ptr(),
            &mut wide_count,
        )
    };
    let mut main_detail = aether_error_detail::default();
    unsafe { aether_islands_explain(n, incidences.as_ptr(), incidences.len(), &mut main_detail) };
    assert_eq!(status, main);
    assert_eq!(detail.index, main_detail.index);
    if status == AETHER_STATUS_OK {
        assert_eq!(count as usize, wide_count);
        for (x, &label) in labels.iter().enumerate() {
            let expected = if wide[x] == AETHER_NO_ISLAND {
                -1
            } else {
                wide[x] as i32
            };
            assert_eq!(label, expected, "node {x}");
        }
    } else {
        assert_eq!(count, -7);
        assert!(labels.iter().all(|&l| l == -7));
    }
}
