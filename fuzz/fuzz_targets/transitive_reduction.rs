//! aether_transitive_reduction (out of place, in place, with too small a
//! buffer) and its explanation, on edge lists with node numbers near
//! SIZE_MAX. Oracles: the first edge with source >= target is
//! NOT_TOPOLOGICAL, else the first with target >= node_count is
//! NODE_OUT_OF_RANGE, both named by index; otherwise the result equals the
//! reduction by definition (same reachability, minimal) or the node count's
//! matrix is OUT_OF_MEMORY; errors leave outputs untouched.
#![no_main]

use aether_planner::ffi::*;
use aether_planner_fuzz::{brute_reduction, Bytes};
use libfuzzer_sys::fuzz_target;

const POISON: aether_edge = aether_edge {
    source: 0x5A5A_5A5A_5A5A_5A5A,
    target: 0x5A5A_5A5A_5A5A_5A5A,
};

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let mode = bytes.byte();
    // Node counts: small (every edge checked by brute force), or at least
    // 2^33, whose matrix no machine has: refused before any allocation. The
    // range between is left out to keep each run in microseconds (a 2^20-node
    // matrix is 64 GiB), and so is everything above SIZE_MAX - 63, which
    // trips a known overflow in the matrix sizing (see docs/reliability.md).
    let node_count = match bytes.byte() % 8 {
        0 => (1usize << 33) + bytes.raw() % (usize::MAX - 63 - (1 << 33)),
        1 => usize::MAX - 63 - bytes.byte() as usize,
        _ => bytes.byte() as usize % 72,
    };
    let mut edges = Vec::new();
    while !bytes.is_empty() && edges.len() < 96 {
        let source = bytes.number(64);
        let target = if bytes.byte().is_multiple_of(4) {
            bytes.number(72)
        } else {
            source.saturating_add(1 + bytes.byte() as usize % 8)
        };
        edges.push(aether_edge { source, target });
    }
    let m = edges.len();
    let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.source, e.target)).collect();

    let mut detail = aether_error_detail {
        status: 77,
        index: 77,
        ..Default::default()
    };
    assert_eq!(
        unsafe { aether_transitive_reduction_explain(node_count, edges.as_ptr(), m, &mut detail) },
        AETHER_STATUS_OK
    );

    let capacity = if mode.is_multiple_of(4) {
        bytes.byte() as usize % (m + 1)
    } else {
        m
    };
    let in_place = mode.is_multiple_of(3) && capacity <= m;
    let mut out = vec![POISON; m + 1];
    let mut count = 0x5A5A_5A5A_5A5A_5A5Ausize;
    let status = unsafe {
        if in_place {
            out[..m].copy_from_slice(&edges);
            aether_transitive_reduction(
                node_count,
                out.as_ptr(),
                m,
                out.as_mut_ptr(),
                capacity,
                &mut count,
            )
        } else {
            aether_transitive_reduction(
                node_count,
                edges.as_ptr(),
                m,
                out.as_mut_ptr(),
                capacity,
                &mut count,
            )
        }
    };
    let before: Vec<aether_edge> = if in_place {
        edges.iter().copied().chain([POISON]).collect()
    } else {
        vec![POISON; m + 1]
    };
    assert_eq!(out[m], POISON, "wrote past the capacity");

    let first_bad = pairs.iter().position(|&(s, t)| s >= t || t >= node_count);
    match first_bad {
        Some(i) => {
            let expected = if pairs[i].0 >= pairs[i].1 {
                AETHER_STATUS_NOT_TOPOLOGICAL
            } else {
                AETHER_STATUS_NODE_OUT_OF_RANGE
            };
            assert_eq!(status, expected);
            assert_eq!((detail.status, detail.index), (expected, i));
        }
        None => {
            let expected = brute_reduction(&pairs);
            if status == AETHER_STATUS_OUT_OF_MEMORY {
                // Only a matrix that cannot exist may be refused.
                assert!(node_count > 1 << 32 && m > 0, "OOM at {node_count} nodes");
                assert_eq!(detail.status, AETHER_STATUS_OUT_OF_MEMORY);
            } else if expected.len() > capacity {
                assert_eq!(status, AETHER_STATUS_BUFFER_TOO_SMALL);
                assert_eq!(count, expected.len());
                assert_eq!(detail.status, AETHER_STATUS_OK);
            } else {
                assert_eq!(status, AETHER_STATUS_OK);
                assert_eq!(detail.status, AETHER_STATUS_OK);
                assert_eq!(count, expected.len());
                let got: Vec<(usize, usize)> =
                    out[..count].iter().map(|e| (e.source, e.target)).collect();
                assert_eq!(got, expected);
                return;
            }
        }
    }
    // Every error: the output buffer is as it was.
    assert!(out == before, "outputs written on error {status}");
    if status != AETHER_STATUS_BUFFER_TOO_SMALL {
        assert_eq!(count, 0x5A5A_5A5A_5A5A_5A5A);
    }
});
