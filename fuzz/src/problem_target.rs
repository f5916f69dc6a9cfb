//! The body of the `problem` fuzz target, here so that a unit test can run
//! it over the seed corpus: a problem of at most 7 tensors drawn from the
//! bytes, with every kind of constraint and magnitudes up to `usize::MAX`
//! (sizes, node indices, alignments up to 2^63, windows, hints, fixed
//! offsets, capacities), planned by `aether_plan_problem` (and by
//! `aether_plan_problem_observed`, which must agree) under each strategy
//! and judged by [`crate::problem`], which shares no code with the
//! planner.

use aether_planner::ffi::*;

use crate::problem::{Brute, Gap, Problem, Tensor};
use crate::Bytes;

const POISON: usize = 0x5A5A_5A5A_5A5A_5A5A;

/// A node index: mostly small, sometimes at the top of the range.
fn node(bytes: &mut Bytes<'_>, extreme: bool) -> usize {
    let b = bytes.byte() as usize;
    if extreme && b.is_multiple_of(4) {
        usize::MAX - bytes.byte() as usize % 16
    } else if extreme && b % 4 == 1 {
        bytes.raw()
    } else {
        b % 12
    }
}

/// An alignment: a valid one, one time in 32 0 or 3.
fn alignment(bytes: &mut Bytes<'_>) -> usize {
    let b = bytes.byte() as usize;
    match b % 64 {
        0 => 3,
        1 => 0,
        _ => [1, 1, 1, 2, 4, 8, 16, 4096, 1 << 40, 1 << 63][b % 10],
    }
}

/// A value in `low..=high`, from one byte: mostly near either end.
fn within(bytes: &mut Bytes<'_>, low: usize, high: usize) -> usize {
    let b = bytes.byte() as usize;
    let width = high - low;
    match b % 4 {
        0 => low,
        1 => high,
        2 => low + (b / 4) % (width.saturating_add(1)).max(1),
        _ => high - (b / 4) % (width.saturating_add(1)).max(1),
    }
}

/// A problem and the strategy to plan it with, from the fuzzer's bytes.
pub fn decode(data: &[u8]) -> (Problem, u32) {
    let mut bytes = Bytes::new(data);
    let mode = bytes.byte();
    let extreme = mode & 1 != 0;
    let n = (bytes.byte() % 8) as usize;
    let mut p = Problem {
        alignment: match bytes.byte() % 8 {
            0..=4 => 1,
            _ => alignment(&mut bytes),
        },
        ..Problem::default()
    };
    for _ in 0..n {
        let size = if extreme {
            bytes.number(64)
        } else {
            bytes.byte() as usize % 40
        };
        let first = node(&mut bytes, extreme);
        let span = bytes.byte() as usize;
        let last = if span == 255 {
            usize::MAX
        } else {
            first.saturating_add(span % 6)
        };
        p.tensors.push(Tensor { size, first, last });
    }
    if mode & 2 != 0 {
        p.alignments = (0..n).map(|_| alignment(&mut bytes)).collect();
    }
    if mode & 4 != 0 {
        p.fixed = (0..n)
            .map(|_| match bytes.byte() % 6 {
                0 => Some(16 * (bytes.byte() as usize % 8)),
                1 if extreme => Some(bytes.number(256)).filter(|&f| f != AETHER_OFFSET_FREE),
                2 if extreme => Some((usize::MAX >> 1) + 1),
                _ => None,
            })
            .collect();
    }
    if mode & 8 != 0 {
        p.hints = (0..n)
            .map(|_| Some(bytes.number(128)).filter(|&h| h != AETHER_OFFSET_FREE))
            .collect();
    }
    // One problem in eight has items drawn anyhow (one in four of its
    // items); the others are well formed, so that most problems get planned.
    let careless = bytes.byte().is_multiple_of(8);
    while !bytes.is_empty() && p.gaps.len() + p.reuses.len() < 10 {
        let kind = bytes.byte();
        let anyhow = n == 0 || (careless && kind % 4 == 3);
        let a = bytes.byte() as usize % if anyhow { n + 1 } else { n.max(1) };
        if kind.is_multiple_of(2) {
            let Some(&t) = p.tensors.get(a).filter(|_| !anyhow) else {
                let first = node(&mut bytes, extreme);
                p.gaps.push(Gap {
                    tensor: a,
                    first,
                    last: first.saturating_add(bytes.byte() as usize % 3),
                    window: Some((bytes.number(64), bytes.number(64))),
                });
                continue;
            };
            let first = within(&mut bytes, t.first, t.last);
            let last = within(&mut bytes, first, t.last);
            if p.gaps
                .iter()
                .any(|g| g.tensor == a && g.first <= last && first <= g.last)
            {
                continue;
            }
            let window = kind.is_multiple_of(4).then(|| {
                let lo = within(&mut bytes, 0, t.size);
                (lo, within(&mut bytes, lo, t.size))
            });
            p.gaps.push(Gap {
                tensor: a,
                first,
                last,
                window,
            });
        } else {
            let b = bytes.byte() as usize % if anyhow { n + 1 } else { n.max(1) };
            if anyhow {
                p.reuses.push((a, b));
                continue;
            }
            let (Some(x), Some(y)) = (p.tensors.get(a), p.tensors.get(b)) else {
                continue;
            };
            // The smaller reuses the larger, each reuses once, and no
            // chain closes on itself.
            let (t, r) = if x.size <= y.size { (a, b) } else { (b, a) };
            let mut up = r;
            let mut closes = false;
            for _ in 0..=n {
                closes |= up == t;
                match p.reuses.iter().find(|&&(u, _)| u == up) {
                    Some(&(_, next)) if !closes => up = next,
                    _ => break,
                }
            }
            if !closes && !p.reuses.iter().any(|&(u, _)| u == t) {
                p.reuses.push((t, r));
            }
        }
    }
    if mode & 16 != 0 {
        p.capacity = Some(bytes.number(512)).filter(|&c| c != AETHER_NO_CAPACITY);
    }
    (p, (mode >> 5) as u32 % 3)
}

/// What `aether_plan_problem` returned for a problem.
pub struct Outcome {
    pub status: aether_status,
    pub offsets: Vec<usize>,
    pub report: aether_plan_report,
    pub detail: aether_problem_detail,
}

/// Plans `p` through the C entry point with `strategy`, 200 search nodes
/// and a time cap that only a runaway call reaches; also asks the explain
/// call. Checks the boundary's promises: the explanation agrees, nothing is
/// written past the tensors or on error.
pub fn plan(p: &Problem, strategy: u32) -> Outcome {
    let n = p.tensors.len();
    let tensors: Vec<aether_tensor_lifetime> = p
        .tensors
        .iter()
        .map(|t| aether_tensor_lifetime {
            size: t.size,
            first_use: t.first,
            last_use: t.last,
        })
        .collect();
    let fixed: Vec<usize> = p
        .fixed
        .iter()
        .map(|f| f.unwrap_or(AETHER_OFFSET_FREE))
        .collect();
    let hints: Vec<usize> = p
        .hints
        .iter()
        .map(|h| h.unwrap_or(AETHER_OFFSET_FREE))
        .collect();
    let gaps: Vec<aether_gap> = p
        .gaps
        .iter()
        .map(|g| aether_gap {
            tensor: g.tensor,
            first: g.first,
            last: g.last,
            window_lo: g.window.map_or(0, |w| w.0),
            window_hi: g.window.map_or(0, |w| w.1),
            has_window: u32::from(g.window.is_some()),
        })
        .collect();
    let reuses: Vec<aether_reuse> = p
        .reuses
        .iter()
        .map(|&(tensor, reused)| aether_reuse { tensor, reused })
        .collect();
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
    problem.alignments = p.alignments.as_ptr();
    problem.alignment_count = p.alignments.len();
    problem.fixed_offsets = fixed.as_ptr();
    problem.fixed_offset_count = fixed.len();
    problem.hints = hints.as_ptr();
    problem.hint_count = hints.len();
    problem.gaps = gaps.as_ptr();
    problem.gap_count = gaps.len();
    problem.reuses = reuses.as_ptr();
    problem.reuse_count = reuses.len();
    problem.capacity = p.capacity.unwrap_or(AETHER_NO_CAPACITY);
    let mut options = aether_plan_options {
        struct_size: 0,
        alignment: 0,
        strategy: 0,
        budget_ms: 0,
        budget_nodes: 0,
    };
    unsafe { aether_plan_options_init(&mut options) };
    options.alignment = p.alignment;
    options.strategy = strategy;
    options.budget_nodes = 200;
    options.budget_ms = 10_000;

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
    assert_ne!(status, AETHER_STATUS_PANIC, "the planner panicked on {p:?}");
    assert_eq!(explained, AETHER_STATUS_OK);
    assert_eq!(detail.status, status, "the explanation's status, {p:?}");
    assert_eq!(offsets[n], POISON, "written past the tensors");
    if status != AETHER_STATUS_OK {
        assert!(offsets.iter().all(|&o| o == POISON), "written on error");
        assert_eq!(report, untouched, "report written on error");
    }
    // The observed form: the same outcome, and progress that keeps its
    // promises.
    let mut seen: Vec<aether_search_progress> = Vec::new();
    let mut observed = vec![POISON; n + 1];
    let mut observed_report = untouched;
    let observed_status = unsafe {
        aether_plan_problem_observed(
            tensors.as_ptr(),
            n,
            &problem,
            &options,
            Some(crate::progress::record),
            (&mut seen as *mut Vec<aether_search_progress>).cast(),
            observed.as_mut_ptr(),
            &mut observed_report,
        )
    };
    assert_eq!(observed_status, status, "the observed call's status, {p:?}");
    assert_eq!(observed, offsets, "the observed call's plan, {p:?}");
    assert_eq!(observed_report, report, "the observed call's report, {p:?}");
    let made = (status == AETHER_STATUS_OK).then_some(&report);
    crate::progress::check(&seen, strategy == AETHER_STRATEGY_SEARCH, made);
    offsets.truncate(n);
    Outcome {
        status,
        offsets,
        report,
        detail,
    }
}

/// Judges one outcome: every OK plan against the checker, and, on at most
/// 7 tensors, every answer against the brute force.
pub fn judge(p: &Problem, outcome: &Outcome) {
    let status = outcome.status;
    let model = match p.model() {
        Ok(model) => model,
        Err(why) => {
            assert_ne!(
                status, AETHER_STATUS_OK,
                "a plan for a malformed problem ({why}): {p:?}"
            );
            return;
        }
    };
    let detail = &outcome.detail;
    if status == AETHER_STATUS_CONFLICTING_FIXED_OFFSETS {
        assert!(
            model.conflict_is_right(detail.tensor, detail.other_tensor),
            "refused as a conflict of tensors {} and {}, which is none: {p:?}",
            detail.tensor,
            detail.other_tensor
        );
    }
    // The order of the checks of a malformed problem is not said, but a
    // reuse group that pins two members to shared bytes is never a plan,
    // nor a capacity not met.
    if let Some((x, y)) = model.clash {
        assert!(
            ![
                AETHER_STATUS_OK,
                AETHER_STATUS_DOES_NOT_FIT,
                AETHER_STATUS_DOES_NOT_FIT_UNPROVEN
            ]
            .contains(&status),
            "status {status} though the reuses pin tensors {x} and {y} to shared bytes: {p:?}"
        );
    }
    // A fixed tensor ending past the capacity proves that nothing fits.
    if let Some(t) = model.fixed_past_capacity() {
        assert!(
            status != AETHER_STATUS_OK && status != AETHER_STATUS_DOES_NOT_FIT_UNPROVEN,
            "status {status} though fixed tensor {t} ends past the capacity: {p:?}"
        );
    }
    if status == AETHER_STATUS_OK {
        let arena = model
            .check(&outcome.offsets)
            .unwrap_or_else(|why| panic!("unsound plan {:?}: {why}\n{p:?}", outcome.offsets));
        let report = &outcome.report;
        assert_eq!(report.arena_size as u128, arena, "reported arena, {p:?}");
        assert!(report.lower_bound <= report.arena_size);
        assert_eq!(
            report.proven_optimal != 0,
            report.lower_bound == report.arena_size,
            "proven optimal means the arena meets the lower bound"
        );
    }
    if p.tensors.len() > 7 {
        return;
    }
    let Brute { best, exact } = model.brute_force();
    match &best {
        Some((least, plan)) => {
            // A plan exists (checked): only a plan or "not found" may come.
            // OVERFLOW is the latter: the strategy's own plan passed
            // usize::MAX, as the greedy's may on sizes this large.
            assert!(
                status == AETHER_STATUS_OK
                    || status == AETHER_STATUS_DOES_NOT_FIT_UNPROVEN
                    || status == AETHER_STATUS_OVERFLOW,
                "status {status} though the plan {plan:?} (arena {least}) is sound: {p:?}"
            );
            if status == AETHER_STATUS_OK {
                let report = &outcome.report;
                assert!(
                    report.lower_bound as u128 <= *least,
                    "lower bound {} above the plan {plan:?} of {least}: {p:?}",
                    report.lower_bound
                );
                if exact {
                    assert!(
                        *least <= report.arena_size as u128,
                        "the brute force missed a plan"
                    );
                }
            } else {
                assert!(
                    outcome.detail.lower_bound as u128 <= *least,
                    "refusal's lower bound {} above the plan {plan:?} of {least}: {p:?}",
                    outcome.detail.lower_bound
                );
            }
        }
        None if exact => {
            assert_ne!(
                status, AETHER_STATUS_OK,
                "the brute force missed a plan: {p:?}"
            );
        }
        None => {}
    }
    // A refusal's lower bound holds for every plan, those past the
    // capacity too.
    let refused = [
        AETHER_STATUS_DOES_NOT_FIT,
        AETHER_STATUS_DOES_NOT_FIT_UNPROVEN,
    ];
    if refused.contains(&status) && p.capacity.is_some() {
        let unbounded = Problem {
            capacity: None,
            ..p.clone()
        };
        if let Ok(model) = unbounded.model() {
            if let Some((least, plan)) = model.brute_force().best {
                assert!(
                    outcome.detail.lower_bound as u128 <= least,
                    "refusal's lower bound {} above the plan {plan:?} of {least} past the \
                     capacity: {p:?}",
                    outcome.detail.lower_bound
                );
            }
        }
    }
}

/// The fuzz target: one problem, its strategy from the bytes.
pub fn run(data: &[u8]) {
    let (p, strategy) = decode(data);
    let outcome = plan(&p, strategy);
    judge(&p, &outcome);
    hints_that_cannot_fit_change_nothing(&p, strategy, &outcome);
}

/// A hint is kept only when the tensor fits there within the capacity (and
/// usize::MAX): a hint whose end passes it is never kept, so dropping it
/// must change nothing, neither the status nor the plan. Only tensors that
/// reuse no memory and whose memory none reuses are asked: which member's
/// hint a group follows is not said.
fn hints_that_cannot_fit_change_nothing(p: &Problem, strategy: u32, outcome: &Outcome) {
    let limit = p.capacity.map_or(usize::MAX as u128, |c| c as u128);
    let alone = |t: usize| !p.reuses.iter().any(|&(a, b)| a == t || b == t);
    let rounded = |t: usize| {
        let a = p.alignment.max(1) as u128;
        (p.tensors[t].size as u128).div_ceil(a) * a
    };
    let mut q = p.clone();
    let mut dropped = false;
    for (t, hint) in q.hints.iter_mut().enumerate() {
        if let Some(h) = *hint {
            if alone(t) && h as u128 + rounded(t) > limit {
                *hint = None;
                dropped = true;
            }
        }
    }
    if !dropped {
        return;
    }
    let without = plan(&q, strategy);
    assert_eq!(
        (outcome.status, &outcome.offsets),
        (without.status, &without.offsets),
        "hints that cannot fit changed the answer: {p:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every checked-in input of the target, judged as the fuzzer judges it.
    #[test]
    fn the_seed_corpus_plans_soundly() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/problem");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).expect("the seed folder") {
            let path = entry.unwrap().path();
            run(&std::fs::read(&path).unwrap());
            count += 1;
        }
        assert!(count >= 2, "seeds in {}", dir.display());
    }

    /// Each strategy on problems at the edges of `usize`: a tensor of
    /// `usize::MAX` bytes, 2^63 alignments, lifetimes ending at the last
    /// node, windows and fixed offsets at the top of the range.
    #[test]
    fn extreme_magnitudes_plan_soundly_or_are_refused() {
        let max = usize::MAX;
        let half = (max >> 1) + 1;
        let problems = [
            Problem {
                tensors: vec![
                    Tensor {
                        size: max,
                        first: 0,
                        last: max,
                    },
                    Tensor {
                        size: 0,
                        first: max,
                        last: max,
                    },
                ],
                alignment: 1,
                ..Problem::default()
            },
            Problem {
                tensors: vec![
                    Tensor {
                        size: half,
                        first: max - 2,
                        last: max,
                    },
                    Tensor {
                        size: half - 1,
                        first: max - 1,
                        last: max,
                    },
                    Tensor {
                        size: 1,
                        first: 0,
                        last: max,
                    },
                ],
                alignments: vec![half, 1, 1],
                gaps: vec![Gap {
                    tensor: 0,
                    first: max - 1,
                    last: max,
                    window: Some((0, 1)),
                }],
                alignment: 1,
                ..Problem::default()
            },
            Problem {
                tensors: vec![
                    Tensor {
                        size: 8,
                        first: 0,
                        last: 3,
                    },
                    Tensor {
                        size: 8,
                        first: 2,
                        last: 5,
                    },
                ],
                fixed: vec![Some(half), None],
                hints: vec![None, Some(max - 3)],
                capacity: Some(max - 1),
                alignment: 8,
                ..Problem::default()
            },
        ];
        for p in &problems {
            for strategy in 0..3 {
                judge(p, &plan(p, strategy));
            }
        }
    }

    /// The inputs the fuzzer found that the planner still fails, one file
    /// each in `regressions/problem/`, named after what goes wrong. Each
    /// file moves to the seed corpus once it passes, so the folder may be
    /// absent (git keeps no empty folder): nothing is then failing.
    #[test]
    fn inputs_the_fuzzer_found_plan_soundly() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions/problem");
        let mut failed = Vec::new();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => panic!("the regression folder {}: {e}", dir.display()),
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            if std::panic::catch_unwind(|| run(&data)).is_err() {
                failed.push(path.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
        assert!(failed.is_empty(), "still failing: {failed:?}");
    }

    /// Two buffers that both reuse one buffer, live together: the reuses
    /// pin them to one offset, so the documented answer is the refusal
    /// `CONFLICTING_FIXED_OFFSETS` naming both, under every strategy.
    #[test]
    fn reuse_siblings_live_together_get_apart_bytes_or_a_refusal() {
        let p = Problem {
            tensors: vec![
                Tensor {
                    size: 8,
                    first: 0,
                    last: 1,
                },
                Tensor {
                    size: 8,
                    first: 1,
                    last: 2,
                },
                Tensor {
                    size: 8,
                    first: 2,
                    last: 3,
                },
            ],
            reuses: vec![(1, 0), (2, 0)],
            alignment: 1,
            ..Problem::default()
        };
        for strategy in 0..3 {
            let outcome = plan(&p, strategy);
            judge(&p, &outcome);
            assert_eq!(
                (
                    outcome.status,
                    outcome.detail.tensor,
                    outcome.detail.other_tensor
                ),
                (AETHER_STATUS_CONFLICTING_FIXED_OFFSETS, 1, 2)
            );
        }
    }
}
