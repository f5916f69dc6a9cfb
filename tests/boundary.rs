//! Every `extern "C"` entry point called from Rust as C would call it, with
//! the aliasing and size cases the calling rules speak of: the target of
//! the Miri job (`scripts/reliability.sh`), which checks every pointer the
//! boundary builds under Stacked and Tree Borrows. Inputs are small so that
//! the interpreter finishes in minutes; results are checked against brute
//! force oracles written here.

use aether_planner::ffi::*;
use core::ffi::CStr;
use core::mem::size_of;
use core::ptr::{null, null_mut};

// The tests' generator and oracles, without the rest of tests/common (which
// builds C programs, and Miri runs this file).
#[path = "common/oracles.rs"]
mod oracles;
use aether_planner::TensorLifetime;
use oracles::{brute_islands, brute_peak, brute_reduction, first_shared_byte, Rng};

fn tensor(size: usize, first_use: usize, last_use: usize) -> aether_tensor_lifetime {
    aether_tensor_lifetime {
        size,
        first_use,
        last_use,
    }
}

fn edge(source: usize, target: usize) -> aether_edge {
    aether_edge { source, target }
}

fn random_tensors(rng: &mut Rng, n: usize) -> Vec<aether_tensor_lifetime> {
    (0..n)
        .map(|_| {
            let first = rng.below(8);
            tensor(rng.below(5) * 16, first, first + rng.below(4))
        })
        .collect()
}

/// The library's types as the C types hold them.
fn lifetimes(tensors: &[aether_tensor_lifetime]) -> Vec<TensorLifetime> {
    tensors
        .iter()
        .map(|t| TensorLifetime::new(t.size, t.first_use, t.last_use))
        .collect()
}

fn edge_pairs(edges: &[aether_edge]) -> Vec<(usize, usize)> {
    edges.iter().map(|e| (e.source, e.target)).collect()
}

/// No two tensors live at a common node share a byte (the pairwise oracle),
/// and all lie within the arena.
fn assert_sound(tensors: &[aether_tensor_lifetime], offsets: &[usize], arena: usize) {
    for (i, a) in tensors.iter().enumerate() {
        assert!(
            a.size == 0 || offsets[i] + a.size <= arena,
            "tensor {i} past the arena"
        );
    }
    if let Some((i, j)) = first_shared_byte(&lifetimes(tensors), offsets) {
        panic!("tensors {i} and {j} overlap");
    }
}

fn random_dag(rng: &mut Rng, n: usize, m: usize) -> Vec<aether_edge> {
    (0..m)
        .map(|_| {
            let a = rng.below(n - 1);
            edge(a, a + 1 + rng.below(n - 1 - a))
        })
        .collect()
}

fn options() -> aether_plan_options {
    let mut options = core::mem::MaybeUninit::<aether_plan_options>::uninit();
    unsafe {
        aether_plan_options_init(options.as_mut_ptr());
        options.assume_init()
    }
}

fn report() -> aether_plan_report {
    aether_plan_report {
        struct_size: size_of::<aether_plan_report>(),
        ..Default::default()
    }
}

/// A word-aligned workspace of at least `bytes` bytes.
fn workspace(bytes: usize) -> Vec<u64> {
    vec![0xA5A5_A5A5_A5A5_A5A5; bytes.div_ceil(8).max(1)]
}

// ---------------------------------------------------------------------------
// Every entry point, on valid inputs, against the oracles.
// ---------------------------------------------------------------------------

/// The identifiers right before a "(" in `text` that start with `aether_`.
fn called_names(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = text
        .match_indices('(')
        .filter_map(|(at, _)| {
            let before = &text[..at];
            let start = before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            before[start..]
                .starts_with("aether_")
                .then(|| &before[start..])
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

// Plain text work, no pointers: left to the native run, where it is fast.
#[test]
#[cfg_attr(miri, ignore)]
fn every_entry_point_in_the_header_is_called_here() {
    let declared = called_names(include_str!("../include/aether_planner.h"));
    let called = called_names(include_str!("boundary.rs"));
    assert!(declared.len() >= 26, "{declared:?}");
    let missing: Vec<&&str> = declared.iter().filter(|n| !called.contains(n)).collect();
    assert!(missing.is_empty(), "not called here: {missing:?}");
}

#[test]
fn offsets_entry_points_agree_with_brute_force() {
    let mut rng = Rng::new(0x5eed_0001);
    // The interpreter is ~1000x slower: fewer, smaller tables there.
    let (rounds, most) = if cfg!(miri) { (2, 5) } else { (6, 9) };
    for round in 0..rounds {
        let n = 1 + rng.below(most);
        let tensors = random_tensors(&mut rng, n);
        let (mut offsets, mut arena) = (vec![usize::MAX; n], 0);
        let status =
            unsafe { aether_plan_offsets(tensors.as_ptr(), n, offsets.as_mut_ptr(), &mut arena) };
        assert_eq!(status, AETHER_STATUS_OK, "round {round}");
        assert_sound(&tensors, &offsets, arena);

        let mut words = workspace(aether_plan_offsets_workspace_size(n));
        let (mut in_ws, mut arena_ws) = (vec![usize::MAX; n], 0);
        let status = unsafe {
            aether_plan_offsets_in_workspace(
                tensors.as_ptr(),
                n,
                words.as_mut_ptr().cast(),
                aether_plan_offsets_workspace_size(n),
                in_ws.as_mut_ptr(),
                &mut arena_ws,
            )
        };
        assert_eq!(
            (status, &in_ws, arena_ws),
            (AETHER_STATUS_OK, &offsets, arena)
        );
        let bytes = aether_plan_offsets_indexed_workspace_size(n);
        assert!(bytes >= aether_plan_offsets_workspace_size(n));
        let mut room = workspace(bytes);
        let (mut indexed, mut arena_ix) = (vec![usize::MAX; n], 0);
        let status = unsafe {
            aether_plan_offsets_in_indexed_workspace(
                tensors.as_ptr(),
                n,
                room.as_mut_ptr().cast(),
                bytes,
                indexed.as_mut_ptr(),
                &mut arena_ix,
            )
        };
        assert_eq!(
            (status, &indexed, arena_ix),
            (AETHER_STATUS_OK, &offsets, arena)
        );

        let mut peak = 0;
        let mut peak_ws = 0;
        let mut words = workspace(aether_peak_live_bytes_workspace_size(n));
        unsafe {
            assert_eq!(aether_peak_live_bytes(tensors.as_ptr(), n, &mut peak), 0);
            assert_eq!(
                aether_peak_live_bytes_in_workspace(
                    tensors.as_ptr(),
                    n,
                    words.as_mut_ptr().cast(),
                    aether_peak_live_bytes_workspace_size(n),
                    &mut peak_ws,
                ),
                0
            );
        }
        assert_eq!((peak, peak_ws), (brute_peak(&lifetimes(&tensors)), peak));

        for strategy in [
            AETHER_STRATEGY_GREEDY,
            AETHER_STRATEGY_HEURISTIC,
            AETHER_STRATEGY_SEARCH,
        ] {
            let mut opts = options();
            opts.strategy = strategy;
            opts.alignment = 16;
            opts.budget_nodes = if cfg!(miri) { 10 } else { 200 };
            let (mut with, mut rep) = (vec![usize::MAX; n], report());
            let status = unsafe {
                aether_plan_offsets_with(tensors.as_ptr(), n, &opts, with.as_mut_ptr(), &mut rep)
            };
            assert_eq!(status, AETHER_STATUS_OK);
            assert_sound(&tensors, &with, rep.arena_size);
            assert!(rep.lower_bound >= peak && rep.arena_size >= rep.lower_bound);
            assert!(with.iter().all(|o| o % 16 == 0));
        }
    }
    // The explain forms name the tensor at fault.
    let bad = [tensor(8, 0, 1), tensor(8, 3, 2)];
    let mut detail = aether_error_detail::default();
    let opts = options();
    unsafe {
        assert_eq!(aether_plan_offsets_explain(bad.as_ptr(), 2, &mut detail), 0);
        assert_eq!(
            (detail.status, detail.index),
            (AETHER_STATUS_INVALID_LIFETIME, 1)
        );
        detail = Default::default();
        assert_eq!(
            aether_plan_offsets_with_explain(bad.as_ptr(), 2, &opts, &mut detail),
            0
        );
        assert_eq!(
            (detail.status, detail.index),
            (AETHER_STATUS_INVALID_LIFETIME, 1)
        );
        detail = Default::default();
        assert_eq!(
            aether_peak_live_bytes_explain(bad.as_ptr(), 2, &mut detail),
            0
        );
        assert_eq!(
            (detail.status, detail.index),
            (AETHER_STATUS_INVALID_LIFETIME, 1)
        );
    }
}

#[test]
fn reduction_entry_points_agree_with_brute_force() {
    let mut rng = Rng::new(0x5eed_0002);
    for _ in 0..6 {
        let n = 2 + rng.below(10);
        let m = rng.below(16);
        let edges = random_dag(&mut rng, n, m);
        let expected = brute_reduction(n, &edge_pairs(&edges));
        let as_pairs = |out: &[aether_edge], count: usize| -> Vec<(usize, usize)> {
            out[..count].iter().map(|e| (e.source, e.target)).collect()
        };

        let (mut out, mut count) = (vec![edge(9, 9); m], usize::MAX);
        let status = unsafe {
            aether_transitive_reduction(n, edges.as_ptr(), m, out.as_mut_ptr(), m, &mut count)
        };
        assert_eq!((status, as_pairs(&out, count)), (0, expected.clone()));

        // Any order: the same graph renumbered by reversal (n - 1 - x).
        let reversed: Vec<aether_edge> = edges
            .iter()
            .map(|e| edge(n - 1 - e.target, n - 1 - e.source))
            .collect();
        let mut back: Vec<(usize, usize)> = expected
            .iter()
            .map(|&(s, t)| (n - 1 - t, n - 1 - s))
            .collect();
        back.sort_unstable();
        let (mut out, mut count) = (vec![edge(9, 9); m], usize::MAX);
        let status = unsafe {
            aether_transitive_reduction_any_order(
                n,
                reversed.as_ptr(),
                m,
                out.as_mut_ptr(),
                m,
                &mut count,
            )
        };
        assert_eq!((status, as_pairs(&out, count)), (0, back));

        let bytes = aether_transitive_reduction_workspace_size(n, m);
        let mut words = workspace(bytes);
        let (mut out, mut count) = (vec![edge(9, 9); m], usize::MAX);
        let status = unsafe {
            aether_transitive_reduction_in_workspace(
                n,
                edges.as_ptr(),
                m,
                words.as_mut_ptr().cast(),
                bytes,
                out.as_mut_ptr(),
                m,
                &mut count,
            )
        };
        assert_eq!((status, as_pairs(&out, count)), (0, expected.clone()));

        // In place, in both forms: edges_out is the input buffer.
        for in_workspace in [false, true] {
            let mut buffer = edges.clone();
            let mut count = usize::MAX;
            let p = buffer.as_mut_ptr();
            let status = unsafe {
                if in_workspace {
                    aether_transitive_reduction_in_workspace(
                        n,
                        p,
                        m,
                        words.as_mut_ptr().cast(),
                        bytes,
                        p,
                        m,
                        &mut count,
                    )
                } else {
                    aether_transitive_reduction(n, p, m, p, m, &mut count)
                }
            };
            assert_eq!((status, as_pairs(&buffer, count)), (0, expected.clone()));
        }
    }
    let cycle = [edge(0, 1), edge(1, 2), edge(2, 0)];
    let mut detail = aether_error_detail::default();
    unsafe {
        assert_eq!(
            aether_transitive_reduction_any_order_explain(3, cycle.as_ptr(), 3, &mut detail),
            0
        );
        assert_eq!(detail.status, AETHER_STATUS_CYCLE);
        assert!(detail.node < 3);
        assert_eq!(
            aether_transitive_reduction_explain(3, cycle.as_ptr(), 3, &mut detail),
            0
        );
        assert_eq!(
            (detail.status, detail.index),
            (AETHER_STATUS_NOT_TOPOLOGICAL, 2)
        );
    }
}

#[test]
fn islands_entry_points_agree_with_brute_force() {
    let mut rng = Rng::new(0x5eed_0003);
    for _ in 0..6 {
        let n = 1 + rng.below(12);
        let m = rng.below(10);
        let pairs: Vec<(usize, usize)> = (0..m).map(|_| (rng.below(n), rng.below(n))).collect();
        let (labels_expected, islands_expected) = brute_islands(n, &pairs);
        let incidences: Vec<aether_incidence> = pairs
            .iter()
            .map(|&(a, b)| aether_incidence { a, b })
            .collect();
        let (mut labels, mut count) = (vec![7usize; n], 0);
        let status =
            unsafe { aether_islands(n, incidences.as_ptr(), m, labels.as_mut_ptr(), &mut count) };
        assert_eq!(status, 0);
        let got: Vec<Option<usize>> = labels
            .iter()
            .map(|&l| (l != AETHER_NO_ISLAND).then_some(l))
            .collect();
        assert_eq!((got, count), (labels_expected.clone(), islands_expected));

        // The engine layout: a self-incidence as (x, -1) half of the time.
        let ints: Vec<i32> = pairs
            .iter()
            .flat_map(|&(a, b)| {
                if a == b && rng.below(2) == 0 {
                    [a as i32, -1]
                } else {
                    [a as i32, b as i32]
                }
            })
            .collect();
        let (mut labels, mut count) = (vec![7i32; n], 0i32);
        let status = unsafe {
            aether_islands_i32(
                n as i32,
                ints.as_ptr(),
                m as i32,
                labels.as_mut_ptr(),
                &mut count,
            )
        };
        assert_eq!(status, 0);
        let got: Vec<Option<usize>> = labels
            .iter()
            .map(|&l| (l >= 0).then_some(l as usize))
            .collect();
        assert_eq!((got, count as usize), (labels_expected, islands_expected));
    }
    assert_eq!(aether_islands_workspace_size(1000), 0);
    let incidences = [
        aether_incidence { a: 0, b: 1 },
        aether_incidence { a: 1, b: 5 },
    ];
    let mut detail = aether_error_detail::default();
    unsafe {
        assert_eq!(
            aether_islands_explain(3, incidences.as_ptr(), 2, &mut detail),
            0
        );
    }
    assert_eq!(
        (detail.status, detail.index, detail.node),
        (AETHER_STATUS_NODE_OUT_OF_RANGE, 1, 5)
    );
}

#[test]
fn islands_i32_explain_names_the_first_pair_at_fault() {
    // Each case: pairs, the index of the first bad pair by a scan here, and
    // the node it names.
    let cases: [(&[i32], usize, usize); 4] = [
        (&[0, 1, 1, 4, 9, 9], 1, 4),
        (&[0, -1, -1, -1], 1, AETHER_NO_INDEX),
        (&[2, -2, 0, 1], 0, AETHER_NO_INDEX),
        (&[0, 1, 2, 3], AETHER_NO_INDEX, AETHER_NO_INDEX),
    ];
    for (pairs, bad, node) in cases {
        let mut detail = aether_error_detail::default();
        let pair_count = (pairs.len() / 2) as i32;
        let status =
            unsafe { aether_islands_i32_explain(4, pairs.as_ptr(), pair_count, &mut detail) };
        assert_eq!(status, AETHER_STATUS_OK);
        // What the call itself returns, for the same inputs.
        let (mut labels, mut count) = ([0i32; 4], 0i32);
        let call = unsafe {
            aether_islands_i32(
                4,
                pairs.as_ptr(),
                pair_count,
                labels.as_mut_ptr(),
                &mut count,
            )
        };
        assert_eq!(
            (detail.status, detail.index, detail.node),
            (call, bad, node),
            "{pairs:?}"
        );
        assert_eq!(call == AETHER_STATUS_OK, bad == AETHER_NO_INDEX);
    }
    let mut detail = aether_error_detail::default();
    unsafe {
        assert_eq!(aether_islands_i32_explain(-1, null(), 0, &mut detail), 0);
        assert_eq!(detail.status, AETHER_STATUS_NEGATIVE_COUNT);
        assert_eq!(aether_islands_i32_explain(2, null(), 1, &mut detail), 0);
        assert_eq!(detail.status, AETHER_STATUS_NULL_POINTER);
        assert_eq!(
            aether_islands_i32_explain(2, null(), 0, null_mut()),
            AETHER_STATUS_NULL_POINTER
        );
    }
}

#[test]
fn the_version_number_is_the_version_string_in_one_number() {
    let text = unsafe { CStr::from_ptr(aether_version()) }
        .to_str()
        .unwrap();
    let parts: Vec<u32> = text.split('.').map(|p| p.parse().unwrap()).collect();
    assert_eq!(parts.len(), 3, "{text}");
    assert_eq!(
        aether_version_number(),
        parts[0] * 10_000 + parts[1] * 100 + parts[2]
    );
}

#[test]
fn every_status_has_its_own_description() {
    // The known codes are 0..count with no hole, whatever the newest code
    // is, so that a new status needs no change here.
    let described = |status: u32| {
        let text = unsafe { CStr::from_ptr(aether_status_str(status)) };
        (text.to_str().unwrap() != "unknown status code").then_some(text)
    };
    let count = (0..).take_while(|&s| described(s).is_some()).count() as u32;
    assert!(
        count > AETHER_STATUS_OVERLAPPING_BUFFERS,
        "only {count} codes"
    );
    assert!(
        (count..count + 64).all(|s| described(s).is_none()),
        "a hole after code {count}"
    );
    let mut seen = Vec::new();
    for status in 0..count {
        let text = described(status).unwrap();
        assert!(!seen.contains(&text), "{status} repeats {text:?}");
        seen.push(text);
    }
}

// ---------------------------------------------------------------------------
// The defects of 0.1.0, one test each (issue 17's numbers).
// ---------------------------------------------------------------------------

/// 2: a garbage `struct_size` is refused before any byte past the known
/// fields is read; a 0.1.0 build read `struct_size - 40` bytes past the
/// struct (and built a slice over `SIZE_MAX` bytes, aborting a debug
/// build). Each struct lives alone in its own allocation, so under Miri a
/// read past it is an error.
/// The progress a callback of `aether_plan_offsets_observed` was given.
unsafe extern "C" fn record_progress(
    progress: *const aether_search_progress,
    user: *mut core::ffi::c_void,
) -> core::ffi::c_int {
    (*user.cast::<Vec<aether_search_progress>>()).push(*progress);
    0
}

/// `n` tensors of 1 to 100 bytes with lifetimes anywhere in `0..nodes`:
/// tables whose starting plan is often above the peak, so that the search
/// runs.
fn search_table(rng: &mut Rng, n: usize, nodes: usize) -> Vec<aether_tensor_lifetime> {
    (0..n)
        .map(|_| {
            let (a, b) = (rng.below(nodes), rng.below(nodes));
            tensor(1 + rng.below(100), a.min(b), a.max(b))
        })
        .collect()
}

/// Panics unless every progress report is a full struct with its bound
/// between `peak` and its best arena, and each after the first improves the
/// best arena or the bound without going back on nodes, arena or bound.
fn assert_progress_improves(seen: &[aether_search_progress], peak: usize) {
    for (k, p) in seen.iter().enumerate() {
        assert_eq!(p.struct_size, size_of::<aether_search_progress>());
        assert!(
            peak <= p.lower_bound && p.lower_bound <= p.best_arena,
            "{p:?}"
        );
        if let Some(q) = k.checked_sub(1).map(|k| seen[k]) {
            assert!(q.nodes <= p.nodes && q.lower_bound <= p.lower_bound);
            assert!(p.best_arena <= q.best_arena);
            assert!(p.best_arena < q.best_arena || p.lower_bound > q.lower_bound);
        }
    }
}

#[test]
fn the_observed_plan_is_the_plan_with_options_and_its_progress_only_improves() {
    let mut rng = Rng::new(0x5eed_0007);
    // Miri interprets: two small tables there.
    let (rounds, most, nodes) = if cfg!(miri) {
        (2, 24, 10)
    } else {
        (20, 90, 300)
    };
    let mut observed_rounds = 0;
    for round in 0..rounds {
        // Sizes of every magnitude up to 100 and lifetimes of any length,
        // so that the starting plan is often above the peak and the search
        // runs.
        let n = most / 2 + rng.below(most / 2);
        let tensors = search_table(&mut rng, n, 40);
        let peak = brute_peak(&lifetimes(&tensors));
        for strategy in [AETHER_STRATEGY_GREEDY, AETHER_STRATEGY_SEARCH] {
            let mut opts = options();
            opts.strategy = strategy;
            opts.budget_nodes = nodes;
            let (mut with, mut with_rep) = (vec![usize::MAX; n], report());
            let mut seen: Vec<aether_search_progress> = Vec::new();
            let (mut got, mut rep) = (vec![usize::MAX; n], report());
            let (mut unobserved, mut unobserved_rep) = (vec![usize::MAX; n], report());
            unsafe {
                let status = aether_plan_offsets_with(
                    tensors.as_ptr(),
                    n,
                    &opts,
                    with.as_mut_ptr(),
                    &mut with_rep,
                );
                assert_eq!(status, AETHER_STATUS_OK);
                let status = aether_plan_offsets_observed(
                    tensors.as_ptr(),
                    n,
                    &opts,
                    Some(record_progress),
                    (&mut seen as *mut Vec<aether_search_progress>).cast(),
                    got.as_mut_ptr(),
                    &mut rep,
                );
                assert_eq!(status, AETHER_STATUS_OK);
                // No callback: the same call, with nothing to tell.
                let status = aether_plan_offsets_observed(
                    tensors.as_ptr(),
                    n,
                    &opts,
                    None,
                    null_mut(),
                    unobserved.as_mut_ptr(),
                    &mut unobserved_rep,
                );
                assert_eq!(status, AETHER_STATUS_OK);
            }
            assert_sound(&tensors, &got, rep.arena_size);
            assert_eq!((&got, rep), (&with, with_rep), "round {round}");
            assert_eq!((&unobserved, unobserved_rep), (&with, with_rep));
            if strategy != AETHER_STRATEGY_SEARCH {
                assert!(seen.is_empty(), "round {round}: {seen:?}");
                continue;
            }
            if seen.is_empty() {
                // No search: the starting plan met the peak.
                assert!(rep.proven_optimal != 0 && rep.search_nodes == 0);
                continue;
            }
            observed_rounds += 1;
            let (first, last) = (seen[0], seen[seen.len() - 1]);
            assert_eq!((first.nodes, first.lower_bound), (0, peak), "{seen:?}");
            assert_eq!(
                (last.best_arena, last.lower_bound),
                (rep.arena_size, rep.lower_bound)
            );
            assert!(last.nodes <= rep.search_nodes);
            assert_progress_improves(&seen, peak);
            assert!(seen.iter().all(|p| p.lower_bound <= rep.lower_bound));
        }
    }
    assert!(cfg!(miri) || observed_rounds > 0, "no table was searched");
    // Refused like aether_plan_offsets_with, with nothing written and no
    // callback made.
    let tensors = [tensor(8, 0, 1), tensor(8, 3, 2)];
    let mut opts = options();
    opts.strategy = AETHER_STRATEGY_SEARCH;
    let mut seen: Vec<aether_search_progress> = Vec::new();
    let (mut got, mut rep) = ([7usize; 2], report());
    let user = (&mut seen as *mut Vec<aether_search_progress>).cast();
    unsafe {
        let status = aether_plan_offsets_observed(
            tensors.as_ptr(),
            2,
            &opts,
            Some(record_progress),
            user,
            got.as_mut_ptr(),
            &mut rep,
        );
        assert_eq!(status, AETHER_STATUS_INVALID_LIFETIME);
        let status = aether_plan_offsets_observed(
            tensors.as_ptr(),
            2,
            &opts,
            Some(record_progress),
            user,
            got.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(status, AETHER_STATUS_NULL_POINTER);
    }
    assert_eq!(got, [7, 7]);
    assert!(seen.is_empty());
}

#[test]
fn a_garbage_struct_size_is_refused_without_reading_past_the_struct() {
    let tensors = [tensor(8, 0, 1)];
    for garbage in [0, 39, 44, 47, 257, 264, 4096, usize::MAX / 2, usize::MAX] {
        let mut opts = Box::new(options());
        opts.struct_size = garbage;
        let mut offsets = [7usize];
        let mut rep = report();
        let mut detail = aether_error_detail::default();
        unsafe {
            let status = aether_plan_offsets_with(
                tensors.as_ptr(),
                1,
                &*opts,
                offsets.as_mut_ptr(),
                &mut rep,
            );
            assert_eq!(
                status, AETHER_STATUS_INVALID_OPTIONS,
                "struct_size {garbage}"
            );
            assert_eq!(
                aether_plan_offsets_with_explain(tensors.as_ptr(), 1, &*opts, &mut detail),
                0
            );
        }
        assert_eq!(detail.status, AETHER_STATUS_INVALID_OPTIONS);
        assert_eq!(offsets, [7], "written on error");
    }
    // The largest accepted size, with a real buffer behind it: zero tail
    // accepted, any set byte in it refused.
    #[repr(C, align(8))]
    struct Largest([u8; AETHER_PLAN_OPTIONS_MAX_SIZE]);
    for set in [None, Some(40), Some(AETHER_PLAN_OPTIONS_MAX_SIZE - 1)] {
        let mut big = Box::new(Largest([0; AETHER_PLAN_OPTIONS_MAX_SIZE]));
        let p = big.0.as_mut_ptr().cast::<aether_plan_options>();
        unsafe {
            p.write(options());
            (*p).struct_size = AETHER_PLAN_OPTIONS_MAX_SIZE;
            if let Some(k) = set {
                big.0[k] = 1;
            }
            let (mut offsets, mut rep) = ([0usize], report());
            let status = aether_plan_offsets_with(
                tensors.as_ptr(),
                1,
                big.0.as_ptr().cast(),
                offsets.as_mut_ptr(),
                &mut rep,
            );
            let expected = if set.is_some() {
                AETHER_STATUS_INVALID_OPTIONS
            } else {
                AETHER_STATUS_OK
            };
            assert_eq!(status, expected, "byte {set:?} set");
        }
    }
}

/// 3: a caller built against a newer header, following the recommended
/// path (init with its own size, then set fields), has a newer field seen:
/// set, it is refused; left alone, it is zero and accepted. 0.1.0's only
/// init wrote its own size, 40, so the newer field was ignored.
#[test]
fn init_with_the_callers_size_lets_newer_fields_be_seen() {
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Newer {
        known: aether_plan_options,
        later_field: u64,
    }
    let tensors = [tensor(8, 0, 1), tensor(8, 1, 2)];
    for later_field in [0, 1] {
        let mut newer = Box::new(core::mem::MaybeUninit::<Newer>::uninit());
        let p = newer.as_mut_ptr();
        unsafe {
            // What AETHER_PLAN_OPTIONS_INIT(&newer) expands to.
            let status = aether_plan_options_init_sized(p.cast(), size_of::<Newer>());
            assert_eq!(status, AETHER_STATUS_OK);
            let mut newer: Box<Newer> = newer.assume_init();
            assert_eq!(newer.known.struct_size, size_of::<Newer>());
            assert_eq!(
                newer.later_field, 0,
                "init zeroes the caller's whole struct"
            );
            assert_eq!(
                (
                    newer.known.alignment,
                    newer.known.strategy,
                    newer.known.budget_nodes
                ),
                (1, AETHER_STRATEGY_GREEDY, 300_000)
            );
            newer.later_field = later_field;
            let (mut offsets, mut rep) = ([0usize; 2], report());
            // The whole struct's bytes: C's `&newer.known` may reach them.
            let status = aether_plan_offsets_with(
                tensors.as_ptr(),
                2,
                core::ptr::addr_of!(*newer).cast(),
                offsets.as_mut_ptr(),
                &mut rep,
            );
            let expected = if later_field == 0 {
                AETHER_STATUS_OK
            } else {
                AETHER_STATUS_INVALID_OPTIONS
            };
            assert_eq!(status, expected);
        }
    }
    // Sizes no options struct can have are refused, nothing written.
    for size in [0, 39, 41, AETHER_PLAN_OPTIONS_MAX_SIZE + 8, usize::MAX] {
        let mut opts = options();
        opts.alignment = 64;
        let status = unsafe { aether_plan_options_init_sized(&mut opts, size) };
        assert_eq!(status, AETHER_STATUS_INVALID_OPTIONS, "{size}");
        assert_eq!(opts.alignment, 64, "written on error");
    }
    assert_eq!(
        unsafe { aether_plan_options_init_sized(null_mut(), 40) },
        AETHER_STATUS_NULL_POINTER
    );
}

/// 4: a workspace one byte short is `BUFFER_TOO_SMALL` with nothing
/// written, the count output included, and the status's description says
/// so; 0.1.0's said the needed count was written.
/// A report from 0.1.0's header is 40 bytes: filled up to there and no
/// further, so the caller's next bytes (here its offsets) are its own; the
/// bytes past 40 of a current report must not overlap the offsets.
#[test]
fn a_0_1_report_is_filled_up_to_its_size_and_no_further() {
    let tensors = [tensor(100, 0, 1), tensor(50, 1, 2), tensor(80, 2, 3)];
    let opts = options();
    let (mut want, mut want_rep) = ([0usize; 3], report());
    let status = unsafe {
        aether_plan_offsets_with(tensors.as_ptr(), 3, &opts, want.as_mut_ptr(), &mut want_rep)
    };
    assert_eq!(status, AETHER_STATUS_OK);
    assert_eq!(want_rep.struct_size, size_of::<aether_plan_report>());
    assert_eq!(want_rep.stacked_tensors, 0);
    // A report at the words' start, the offsets from its sixth word on.
    let plan_into = |words: &mut [usize; 8]| {
        let base = words.as_mut_ptr();
        unsafe {
            aether_plan_offsets_with(
                tensors.as_ptr(),
                3,
                &opts,
                base.add(5),
                base.cast::<aether_plan_report>(),
            )
        }
    };
    // Five words of a 0.1.0 report, then the offsets.
    let mut words = [usize::MAX; 8];
    words[0] = 40;
    let status = plan_into(&mut words);
    assert_eq!(status, AETHER_STATUS_OK);
    assert_eq!(words[..3], [40, want_rep.arena_size, want_rep.lower_bound]);
    assert_eq!(words[4] as u64, want_rep.search_nodes);
    assert_eq!(words[5..], want);
    // The same layout with a current report's size: its last field would
    // land on the offsets.
    let mut words = [7usize; 8];
    words[0] = size_of::<aether_plan_report>();
    let status = plan_into(&mut words);
    assert_eq!(status, AETHER_STATUS_OVERLAPPING_BUFFERS);
    assert_eq!(words[1..], [7; 7]);
    // Below 0.1.0's size or above the maximum: refused, nothing written.
    for bad in [39, AETHER_PLAN_REPORT_MAX_SIZE + 1] {
        let (mut offsets, mut rep) = ([7usize; 3], report());
        rep.struct_size = bad;
        let status = unsafe {
            aether_plan_offsets_with(tensors.as_ptr(), 3, &opts, offsets.as_mut_ptr(), &mut rep)
        };
        assert_eq!(status, AETHER_STATUS_INVALID_OPTIONS);
        assert_eq!(offsets, [7; 3]);
        assert_eq!(rep.arena_size, 0);
    }
}

#[test]
fn a_short_workspace_writes_nothing_and_the_status_says_so() {
    let edges = [edge(0, 1), edge(1, 2), edge(0, 2)];
    let bytes = aether_transitive_reduction_workspace_size(3, 3);
    let mut words = workspace(bytes);
    let (mut out, mut count) = ([edge(9, 9); 3], 12345usize);
    let status = unsafe {
        aether_transitive_reduction_in_workspace(
            3,
            edges.as_ptr(),
            3,
            words.as_mut_ptr().cast(),
            bytes - 1,
            out.as_mut_ptr(),
            3,
            &mut count,
        )
    };
    assert_eq!(status, AETHER_STATUS_BUFFER_TOO_SMALL);
    assert_eq!((count, out), (12345, [edge(9, 9); 3]));
    let text = unsafe { CStr::from_ptr(aether_status_str(AETHER_STATUS_BUFFER_TOO_SMALL)) };
    let text = text.to_str().unwrap();
    assert!(
        text.contains("workspace") && text.contains("nothing written"),
        "{text}"
    );
}

/// The workspace planner past its literal scan (more than 128 tensors,
/// sparse): the main call's plan, also with the offsets written over the
/// tensors they were planned from, as the calling rules allow.
#[test]
fn the_workspace_planner_past_its_scan_agrees_and_may_write_over_its_input() {
    let mut rng = Rng::new(0x5eed_0129);
    let n = 160;
    let tensors: Vec<aether_tensor_lifetime> = (0..n)
        .map(|i| tensor(16 * rng.below(9), i, i + rng.below(3)))
        .collect();
    let (mut offsets, mut arena) = (vec![usize::MAX; n], 0);
    let status =
        unsafe { aether_plan_offsets(tensors.as_ptr(), n, offsets.as_mut_ptr(), &mut arena) };
    assert_eq!(status, AETHER_STATUS_OK);
    assert_sound(&tensors, &offsets, arena);

    let bytes = aether_plan_offsets_workspace_size(n);
    let mut words = workspace(bytes);
    let mut shared = tensors.clone();
    let mut arena_ws = 0;
    let status = unsafe {
        aether_plan_offsets_in_workspace(
            shared.as_ptr(),
            n,
            words.as_mut_ptr().cast(),
            bytes,
            shared.as_mut_ptr().cast::<usize>(),
            &mut arena_ws,
        )
    };
    let written = unsafe { core::slice::from_raw_parts(shared.as_ptr().cast::<usize>(), n) };
    assert_eq!(
        (status, written, arena_ws),
        (AETHER_STATUS_OK, &offsets[..], arena)
    );
}

/// 6: overlaps the calling rules forbid are refused, inputs intact and
/// nothing written. 0.1.0 returned OK with an unsound plan (workspace over
/// the tensors), OK with wrong edges (edges_out inside the workspace), and
/// wrote labels over the incidences it then rejected.
#[test]
fn forbidden_overlaps_are_refused_with_nothing_written() {
    // Workspace over the tensors.
    let n = 4;
    let needed = aether_plan_offsets_workspace_size(n);
    let mut words = workspace(needed.max(n * 24));
    let tensors = words.as_mut_ptr().cast::<aether_tensor_lifetime>();
    for i in 0..n {
        unsafe { tensors.add(i).write(tensor(16, 0, 3)) };
    }
    let (mut offsets, mut arena) = ([7usize; 4], 7usize);
    let status = unsafe {
        aether_plan_offsets_in_workspace(
            tensors,
            n,
            tensors.cast(),
            words.len() * 8,
            offsets.as_mut_ptr(),
            &mut arena,
        )
    };
    assert_eq!(status, AETHER_STATUS_OVERLAPPING_BUFFERS);
    assert_eq!((offsets, arena), ([7; 4], 7));
    assert_eq!(unsafe { tensors.add(3).read() }, tensor(16, 0, 3));
    let mut peak = 7;
    let status = unsafe {
        aether_peak_live_bytes_in_workspace(tensors, n, tensors.cast(), words.len() * 8, &mut peak)
    };
    assert_eq!((status, peak), (AETHER_STATUS_OVERLAPPING_BUFFERS, 7));

    // edges_out inside the workspace, and the count inside it.
    let edges = [edge(0, 1), edge(1, 2), edge(0, 2)];
    let bytes = aether_transitive_reduction_workspace_size(3, 3);
    let mut words = workspace(bytes + 64);
    let base = words.as_mut_ptr();
    let mut count = 7usize;
    let status = unsafe {
        aether_transitive_reduction_in_workspace(
            3,
            edges.as_ptr(),
            3,
            base.cast(),
            bytes,
            base.cast(),
            3,
            &mut count,
        )
    };
    assert_eq!((status, count), (AETHER_STATUS_OVERLAPPING_BUFFERS, 7));
    let (mut out, count_inside) = ([edge(9, 9); 3], unsafe { base.add(1).cast::<usize>() });
    let status = unsafe {
        aether_transitive_reduction_in_workspace(
            3,
            edges.as_ptr(),
            3,
            base.cast(),
            bytes,
            out.as_mut_ptr(),
            3,
            count_inside,
        )
    };
    assert_eq!(
        (status, out),
        (AETHER_STATUS_OVERLAPPING_BUFFERS, [edge(9, 9); 3])
    );
    // The edges inside the workspace.
    let inside = base.cast::<aether_edge>();
    unsafe { inside.write(edge(0, 1)) };
    let status = unsafe {
        aether_transitive_reduction_in_workspace(
            3,
            inside,
            1,
            base.cast(),
            bytes,
            out.as_mut_ptr(),
            3,
            &mut count,
        )
    };
    assert_eq!(status, AETHER_STATUS_OVERLAPPING_BUFFERS);

    // Labels over the incidences, valid and invalid ones.
    for bad_node in [2usize, 9] {
        let mut memory = [0usize; 8];
        let p = memory.as_mut_ptr();
        let incidences = p.cast::<aether_incidence>();
        unsafe {
            incidences.write(aether_incidence { a: 0, b: 1 });
            incidences
                .add(1)
                .write(aether_incidence { a: 1, b: bad_node });
        }
        let before = memory;
        let mut count = 7;
        let status = unsafe { aether_islands(4, incidences, 2, p.add(1), &mut count) };
        assert_eq!((status, count), (AETHER_STATUS_OVERLAPPING_BUFFERS, 7));
        assert_eq!(memory, before, "input destroyed");
        // The count inside the labels.
        let mut labels = [5usize; 4];
        let lp = labels.as_mut_ptr();
        let status = unsafe { aether_islands(4, incidences, 2, lp, lp.add(3)) };
        assert_eq!(
            (status, labels),
            (AETHER_STATUS_OVERLAPPING_BUFFERS, [5; 4])
        );
    }
    let mut ints = [0i32, 1, 1, 2, 0, 0, 0, 0];
    let p = ints.as_mut_ptr();
    let mut count = 7;
    let status = unsafe { aether_islands_i32(4, p, 2, p.add(2), &mut count) };
    assert_eq!((status, count), (AETHER_STATUS_OVERLAPPING_BUFFERS, 7));
    assert_eq!(ints, [0, 1, 1, 2, 0, 0, 0, 0]);

    // Outputs over each other, in the main forms too.
    let tensors = [tensor(8, 0, 1), tensor(8, 0, 1)];
    let mut out = [7usize; 3];
    let o = out.as_mut_ptr();
    unsafe {
        assert_eq!(
            aether_plan_offsets(tensors.as_ptr(), 2, o, o.add(1)),
            AETHER_STATUS_OVERLAPPING_BUFFERS
        );
    }
    assert_eq!(out, [7; 3]);
    let edges = [edge(0, 1), edge(1, 2)];
    let mut out = [edge(9, 9); 2];
    let count_inside = out.as_mut_ptr().cast::<usize>();
    let status = unsafe {
        aether_transitive_reduction(
            3,
            edges.as_ptr(),
            2,
            out.as_mut_ptr(),
            2,
            count_inside.add(1),
        )
    };
    assert_eq!(
        (status, out),
        (AETHER_STATUS_OVERLAPPING_BUFFERS, [edge(9, 9); 2])
    );
}

/// 7: `offsets_out` over `tensors` in the workspace form, as the main form
/// allows: the same plan, and (under Miri) no reference to the tensors lives
/// while the offsets are written. 0.1.0 held a `&[T]` over the tensors
/// across the `&mut` writes: correct bytes, undefined behaviour.
#[test]
fn offsets_may_overwrite_the_tensors_in_the_workspace_form() {
    let mut rng = Rng::new(0x5eed_0007);
    for _ in 0..4 {
        let n = 1 + rng.below(8);
        let tensors = random_tensors(&mut rng, n);
        let (mut expected, mut arena) = (vec![0usize; n], 0);
        unsafe { aether_plan_offsets(tensors.as_ptr(), n, expected.as_mut_ptr(), &mut arena) };
        for main_form in [false, true] {
            // One buffer: the tensors, then reused for the offsets.
            let mut memory = vec![0usize; 3 * n];
            let p = memory.as_mut_ptr();
            for (i, t) in tensors.iter().enumerate() {
                unsafe { p.cast::<aether_tensor_lifetime>().add(i).write(*t) };
            }
            let bytes = aether_plan_offsets_workspace_size(n);
            let mut words = workspace(bytes);
            let mut got_arena = 0;
            let status = unsafe {
                if main_form {
                    aether_plan_offsets(p.cast(), n, p, &mut got_arena)
                } else {
                    aether_plan_offsets_in_workspace(
                        p.cast(),
                        n,
                        words.as_mut_ptr().cast(),
                        bytes,
                        p,
                        &mut got_arena,
                    )
                }
            };
            assert_eq!(status, AETHER_STATUS_OK);
            assert_eq!((&memory[..n], got_arena), (&expected[..], arena));
        }
    }
}

/// 8: a `workspace_size` beyond the real buffer ("big enough") is fine:
/// only the bytes needed are touched. 0.1.0 built its slice over the
/// declared size (a debug build aborts at `SIZE_MAX`; Miri flags 8 bytes
/// over).
#[test]
fn a_generous_workspace_size_touches_only_the_bytes_needed() {
    let tensors = [tensor(32, 0, 2), tensor(16, 1, 3), tensor(8, 2, 2)];
    let edges = [edge(0, 1), edge(1, 2), edge(0, 2)];
    let (mut plan, mut plan_arena) = ([0usize; 3], 0);
    unsafe { aether_plan_offsets(tensors.as_ptr(), 3, plan.as_mut_ptr(), &mut plan_arena) };
    let reduced: Vec<aether_edge> = brute_reduction(3, &edge_pairs(&edges))
        .into_iter()
        .map(|(s, t)| edge(s, t))
        .collect();
    for extra in [8usize, 4096, usize::MAX / 2, usize::MAX] {
        let declared = |needed: usize| needed.saturating_add(extra);
        let bytes = aether_plan_offsets_workspace_size(3);
        let mut words = vec![0u64; bytes / 8];
        let (mut offsets, mut arena) = ([0usize; 3], 0);
        let status = unsafe {
            aether_plan_offsets_in_workspace(
                tensors.as_ptr(),
                3,
                words.as_mut_ptr().cast(),
                declared(bytes),
                offsets.as_mut_ptr(),
                &mut arena,
            )
        };
        assert_eq!((status, offsets, arena), (0, plan, plan_arena), "{extra}");

        let bytes = aether_peak_live_bytes_workspace_size(3);
        let mut words = vec![0u64; bytes / 8];
        let mut peak = 0;
        let status = unsafe {
            aether_peak_live_bytes_in_workspace(
                tensors.as_ptr(),
                3,
                words.as_mut_ptr().cast(),
                declared(bytes),
                &mut peak,
            )
        };
        assert_eq!((status, peak), (0, brute_peak(&lifetimes(&tensors))));

        let bytes = aether_transitive_reduction_workspace_size(3, 3);
        let mut words = vec![0u64; bytes / 8];
        let (mut out, mut count) = ([edge(9, 9); 3], 0);
        let status = unsafe {
            aether_transitive_reduction_in_workspace(
                3,
                edges.as_ptr(),
                3,
                words.as_mut_ptr().cast(),
                declared(bytes),
                out.as_mut_ptr(),
                3,
                &mut count,
            )
        };
        assert_eq!((status, &out[..count]), (0, &reduced[..]));
    }
}

/// 10(a): no edges and 2^40 nodes: the workspace form needs no workspace
/// and answers OK, as the main form does; 0.1.0 sized the n^2 matrix first
/// and answered OVERFLOW.
#[test]
fn no_edges_needs_no_workspace_whatever_the_node_count() {
    for node_count in [0usize, 1, 1 << 40, usize::MAX] {
        assert_eq!(aether_transitive_reduction_workspace_size(node_count, 0), 0);
        let (mut main_count, mut ws_count) = (7usize, 7usize);
        let (main, ws) = unsafe {
            (
                aether_transitive_reduction(node_count, null(), 0, null_mut(), 0, &mut main_count),
                aether_transitive_reduction_in_workspace(
                    node_count,
                    null(),
                    0,
                    null_mut(),
                    0,
                    null_mut(),
                    0,
                    &mut ws_count,
                ),
            )
        };
        assert_eq!((main, main_count), (AETHER_STATUS_OK, 0), "{node_count}");
        assert_eq!((ws, ws_count), (main, main_count), "{node_count}");
    }
}

// ---------------------------------------------------------------------------
// The constrained problem, as C calls it.
// ---------------------------------------------------------------------------

/// The problem entry points: the sized init, a plan that keeps a fixed
/// offset and a reuse pair (checked here pair by pair), a garbage
/// `struct_size` refused without reading past the struct, an output
/// overlapping the report refused, and the explain naming both fixed
/// tensors of a conflict.
#[test]
fn problem_entry_points_keep_their_constraints_and_the_calling_rules() {
    let tensors = [
        tensor(64, 0, 2),
        tensor(32, 1, 3),
        tensor(64, 2, 4),
        tensor(16, 3, 5),
    ];
    let fixed = [
        AETHER_OFFSET_FREE,
        128,
        AETHER_OFFSET_FREE,
        AETHER_OFFSET_FREE,
    ];
    // Tensor 3 (16 bytes, from node 3) reuses tensor 2's memory.
    let reuses = [aether_reuse {
        tensor: 3,
        reused: 2,
    }];
    let mut problem = unsafe { core::mem::zeroed::<aether_problem>() };
    assert_eq!(
        unsafe { aether_problem_init(&mut problem, size_of::<aether_problem>()) },
        AETHER_STATUS_OK
    );
    assert_eq!(problem.capacity, AETHER_NO_CAPACITY);
    problem.fixed_offsets = fixed.as_ptr();
    problem.fixed_offset_count = fixed.len();
    problem.reuses = reuses.as_ptr();
    problem.reuse_count = reuses.len();
    let opts = options();
    let mut offsets = [usize::MAX; 4];
    let mut rep = report();
    let status = unsafe {
        aether_plan_problem(
            tensors.as_ptr(),
            tensors.len(),
            &problem,
            &opts,
            offsets.as_mut_ptr(),
            &mut rep,
        )
    };
    assert_eq!(status, AETHER_STATUS_OK);
    assert_eq!(offsets[1], 128, "the fixed tensor moved");
    assert_eq!(offsets[3], offsets[2], "the reuse pair does not share");
    // Every other pair live at a common node is byte-disjoint (the reuse
    // pair is one allocation, live from node 2 through 5).
    for i in 0..4 {
        for j in i + 1..4 {
            if (i, j) == (2, 3) {
                continue;
            }
            let (a, b) = (tensors[i], tensors[j]);
            let life = |k: usize| match k {
                2 | 3 => (2, 5),
                _ => (tensors[k].first_use, tensors[k].last_use),
            };
            let ((af, al), (bf, bl)) = (life(i), life(j));
            if af <= bl && bf <= al {
                let disjoint =
                    offsets[i] + a.size <= offsets[j] || offsets[j] + b.size <= offsets[i];
                assert!(disjoint, "{i} and {j} overlap: {offsets:?}");
            }
        }
        assert!(offsets[i] + tensors[i].size <= rep.arena_size);
    }

    // A garbage size: refused, nothing written.
    let mut garbage = problem;
    garbage.struct_size = usize::MAX;
    let mut untouched = [7usize; 4];
    let status = unsafe {
        aether_plan_problem(
            tensors.as_ptr(),
            4,
            &garbage,
            &opts,
            untouched.as_mut_ptr(),
            &mut rep,
        )
    };
    assert_eq!(status, AETHER_STATUS_INVALID_OPTIONS);
    assert_eq!(untouched, [7; 4]);
    assert_eq!(
        unsafe { aether_problem_init(&mut garbage, 3) },
        AETHER_STATUS_INVALID_OPTIONS
    );

    // The offsets inside the report: refused, nothing written.
    let mut both = [0usize; 12];
    let base = both.as_mut_ptr();
    let status = unsafe {
        aether_plan_problem(
            tensors.as_ptr(),
            4,
            &problem,
            &opts,
            base,
            base.add(2).cast::<aether_plan_report>(),
        )
    };
    assert_eq!(status, AETHER_STATUS_OVERLAPPING_BUFFERS);

    // Two fixed tensors live together at overlapping bytes: both named.
    let clash = [0, 32, AETHER_OFFSET_FREE, AETHER_OFFSET_FREE];
    problem.fixed_offsets = clash.as_ptr();
    let mut detail = aether_problem_detail {
        struct_size: size_of::<aether_problem_detail>(),
        ..Default::default()
    };
    let status =
        unsafe { aether_plan_problem_explain(tensors.as_ptr(), 4, &problem, &opts, &mut detail) };
    assert_eq!(status, AETHER_STATUS_OK);
    assert_eq!(detail.status, AETHER_STATUS_CONFLICTING_FIXED_OFFSETS);
    let mut named = [detail.tensor, detail.other_tensor];
    named.sort_unstable();
    assert_eq!(named, [0, 1]);
}

/// `aether_plan_problem_observed`: the plan, report and status of
/// `aether_plan_problem` (refusals included, with nothing written), and
/// progress that only improves, from `SIZE_MAX` ("no plan yet") or the
/// starting arena down to the report's, above the peak throughout.
#[test]
fn the_observed_problem_plan_is_the_problem_plan_and_its_progress_only_improves() {
    let mut rng = Rng::new(0x5eed_0021);
    let (rounds, most, nodes) = if cfg!(miri) {
        (2, 16, 10)
    } else {
        (24, 60, 400)
    };
    let (mut searched, mut refused) = (0, 0);
    for round in 0..rounds {
        let n = most / 2 + rng.below(most / 2);
        let tensors = search_table(&mut rng, n, 30);
        let peak = brute_peak(&lifetimes(&tensors));
        // Every third tensor aligned to 32 bytes (none in one round of
        // four: the plain planners' path); in odd rounds a capacity at the
        // peak, which the search often cannot meet.
        let plain = round % 4 == 0;
        let alignments: Vec<usize> = (0..n).map(|i| if i % 3 == 0 { 32 } else { 1 }).collect();
        let mut problem = unsafe { core::mem::zeroed::<aether_problem>() };
        assert_eq!(
            unsafe { aether_problem_init(&mut problem, size_of::<aether_problem>()) },
            AETHER_STATUS_OK
        );
        if !plain {
            problem.alignments = alignments.as_ptr();
            problem.alignment_count = n;
        }
        if round % 2 == 1 {
            problem.capacity = peak;
        }
        for strategy in [AETHER_STRATEGY_GREEDY, AETHER_STRATEGY_SEARCH] {
            let mut opts = options();
            opts.strategy = strategy;
            opts.budget_nodes = nodes;
            let (mut want, mut want_rep) = (vec![7usize; n], report());
            let (mut got, mut rep) = (vec![7usize; n], report());
            let mut seen: Vec<aether_search_progress> = Vec::new();
            let (want_status, status) = unsafe {
                (
                    aether_plan_problem(
                        tensors.as_ptr(),
                        n,
                        &problem,
                        &opts,
                        want.as_mut_ptr(),
                        &mut want_rep,
                    ),
                    aether_plan_problem_observed(
                        tensors.as_ptr(),
                        n,
                        &problem,
                        &opts,
                        Some(record_progress),
                        (&mut seen as *mut Vec<aether_search_progress>).cast(),
                        got.as_mut_ptr(),
                        &mut rep,
                    ),
                )
            };
            assert_eq!(status, want_status, "round {round}");
            assert_eq!((&got, rep), (&want, want_rep), "round {round}");
            if strategy != AETHER_STRATEGY_SEARCH {
                assert!(seen.is_empty(), "round {round}: {seen:?}");
            }
            if status == AETHER_STATUS_OK {
                assert_sound(&tensors, &got, rep.arena_size);
                if !plain {
                    for (i, &o) in got.iter().enumerate() {
                        assert_eq!(o % alignments[i], 0, "round {round}: tensor {i}");
                    }
                }
            } else {
                assert!(
                    status == AETHER_STATUS_DOES_NOT_FIT
                        || status == AETHER_STATUS_DOES_NOT_FIT_UNPROVEN,
                    "round {round}: status {status}"
                );
                assert!(got.iter().all(|&o| o == 7), "written on a refusal");
                refused += 1;
            }
            if seen.is_empty() {
                continue;
            }
            searched += 1;
            assert_eq!(seen[0].nodes, 0, "{seen:?}");
            assert_progress_improves(&seen, peak);
            let last = seen[seen.len() - 1];
            assert!(last.nodes <= rep.search_nodes.max(want_rep.search_nodes));
            if status == AETHER_STATUS_OK {
                assert_eq!(
                    (last.best_arena, last.lower_bound),
                    (rep.arena_size, rep.lower_bound),
                    "round {round}"
                );
            } else {
                // No plan within the capacity was ever found.
                assert_eq!(last.best_arena, usize::MAX, "round {round}");
            }
        }
    }
    assert!(cfg!(miri) || searched > 0, "no problem was searched");
    assert!(cfg!(miri) || refused > 0, "no capacity was refused");
    // A bad call: refused as by aether_plan_problem, nothing written, no
    // callback made.
    let tensors = [tensor(8, 0, 1), tensor(8, 3, 2)];
    let mut problem = unsafe { core::mem::zeroed::<aether_problem>() };
    unsafe { aether_problem_init(&mut problem, size_of::<aether_problem>()) };
    let mut opts = options();
    opts.strategy = AETHER_STRATEGY_SEARCH;
    let mut seen: Vec<aether_search_progress> = Vec::new();
    let (mut got, mut rep) = ([7usize; 2], report());
    let status = unsafe {
        aether_plan_problem_observed(
            tensors.as_ptr(),
            2,
            &problem,
            &opts,
            Some(record_progress),
            (&mut seen as *mut Vec<aether_search_progress>).cast(),
            got.as_mut_ptr(),
            &mut rep,
        )
    };
    assert_eq!(status, AETHER_STATUS_INVALID_LIFETIME);
    assert_eq!(got, [7, 7]);
    assert!(seen.is_empty());
}
