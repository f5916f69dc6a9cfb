//! aether_islands and its explanation on incidence lists with node numbers
//! near SIZE_MAX, self-incidences and repeats. Oracles: the first incidence
//! naming a node at or beyond node_count is NODE_OUT_OF_RANGE, by index,
//! with the outputs untouched; otherwise the labels are the components of a
//! breadth-first search numbered by smallest member.
#![no_main]

use aether_planner::ffi::*;
use aether_planner_fuzz::{brute_islands, Bytes};
use libfuzzer_sys::fuzz_target;

const POISON: usize = 0x5A5A_5A5A_5A5A_5A5A;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let node_count = bytes.byte() as usize % 200;
    let mut incidences = Vec::new();
    while !bytes.is_empty() && incidences.len() < 256 {
        let a = bytes.number(node_count.max(1) + 2);
        let b = if bytes.byte().is_multiple_of(4) {
            a
        } else {
            bytes.number(node_count.max(1) + 2)
        };
        incidences.push(aether_incidence { a, b });
    }
    let m = incidences.len();
    let mut labels = vec![POISON; node_count + 1];
    let mut count = POISON;
    let mut detail = aether_error_detail {
        status: 77,
        index: 77,
        ..Default::default()
    };
    let (status, explained) = unsafe {
        let status = aether_islands(
            node_count,
            incidences.as_ptr(),
            m,
            labels.as_mut_ptr(),
            &mut count,
        );
        let explained = aether_islands_explain(node_count, incidences.as_ptr(), m, &mut detail);
        (status, explained)
    };
    assert_eq!(explained, AETHER_STATUS_OK);
    assert_eq!(detail.status, status);
    assert_eq!(labels[node_count], POISON, "wrote past node_count");

    match incidences
        .iter()
        .position(|i| i.a >= node_count || i.b >= node_count)
    {
        Some(bad) => {
            assert_eq!(status, AETHER_STATUS_NODE_OUT_OF_RANGE);
            assert_eq!(detail.index, bad);
            assert!(labels.iter().all(|&l| l == POISON));
            assert_eq!(count, POISON);
        }
        None => {
            assert_eq!(status, AETHER_STATUS_OK);
            let pairs: Vec<(usize, usize)> = incidences.iter().map(|i| (i.a, i.b)).collect();
            let (expected, expected_count) = brute_islands(node_count, &pairs);
            assert_eq!(count, expected_count);
            assert_eq!(&labels[..node_count], &expected[..]);
        }
    }
});
