//! The planners without conflict lists against the same planners with
//! them: problems small enough to check are planned both ways.
//! The lists are checked against brute force in `tests/constraints.rs`;
//! here every plan is also checked pairwise, from the tensors alone.

use super::normalise::{irregular_conflicts, separation, Model, Neighbour};
use super::{bound, place, search, LifetimeGap, PlanProblem, Reuse};
use crate::input::TensorLifetime;
use crate::offsets::SearchBudget;
use crate::rng::XorShift;

/// Whether `offsets` keeps aligned, fixed and live-together tensors apart
/// and within the capacity (interval problems: no gaps, no reuse).
fn sound(problem: &PlanProblem<'_>, offsets: &[i128]) -> bool {
    let t = problem.tensors;
    let within = |i: usize| {
        let o = offsets[i];
        let align = problem.alignments.get(i).copied().unwrap_or(1) as i128;
        let fixed = problem.fixed_offsets.get(i).copied().flatten();
        let end = o + t[i].size as i128;
        o >= 0
            && o % align == 0
            && fixed.map_or(true, |f| f as i128 == o)
            && problem.capacity.map_or(true, |c| end <= c as i128)
    };
    let apart = |i: usize, j: usize| {
        let live = t[i].first_use <= t[j].last_use && t[j].first_use <= t[i].last_use;
        let (a, b) = (offsets[i], offsets[j]);
        let empty = t[i].size == 0 || t[j].size == 0;
        !live || empty || a + t[i].size as i128 <= b || b + t[j].size as i128 <= a
    };
    (0..t.len()).all(within) && (0..t.len()).all(|i| (i + 1..t.len()).all(|j| apart(i, j)))
}

/// A small random interval problem's arrays.
struct Small {
    tensors: Vec<TensorLifetime>,
    alignments: Vec<usize>,
    fixed: Vec<Option<usize>>,
    hints: Vec<Option<usize>>,
}

/// `n` tensors over 6 nodes, each living up to `span` more (one in 8 of
/// no bytes), alignments up to 4, one tensor in `fixed_one_in` fixed, one
/// in 3 hinted.
fn small(rng: &mut XorShift, n: usize, span: usize, fixed_one_in: usize) -> Small {
    let tensors: Vec<TensorLifetime> = (0..n)
        .map(|_| {
            let first = rng.below(6);
            let size = if rng.below(8) == 0 {
                0
            } else {
                1 + rng.below(9)
            };
            TensorLifetime::new(size, first, first + rng.below(span))
        })
        .collect();
    let alignments: Vec<usize> = (0..n).map(|_| [1, 1, 2, 4][rng.below(4)]).collect();
    let fixed: Vec<Option<usize>> = (0..n)
        .map(|_| (rng.below(fixed_one_in) == 0).then(|| 4 * rng.below(3)))
        .collect();
    let hints: Vec<Option<usize>> = (0..n)
        .map(|_| (rng.below(3) == 0).then(|| rng.below(12)))
        .collect();
    Small {
        tensors,
        alignments,
        fixed,
        hints,
    }
}

/// The lower bound and the greedy and heuristic plans of `listed`, each
/// asserted equal to that of `other`: the same planners over two models of
/// one problem.
fn same_plans(
    listed: &Model,
    other: &Model,
    tag: &str,
) -> (usize, Option<Vec<i128>>, Option<Vec<i128>>) {
    let lower = bound::lower_bound(listed).unwrap();
    assert_eq!(lower, bound::lower_bound(other).unwrap(), "{tag}");
    let greedy = place::greedy(listed).unwrap();
    assert_eq!(greedy, place::greedy(other).unwrap(), "{tag}");
    let heuristic = place::heuristic(listed, lower, None).unwrap();
    assert_eq!(
        heuristic,
        place::heuristic(other, lower, None).unwrap(),
        "{tag}"
    );
    (lower, greedy, heuristic)
}

/// The exact search on `listed` and on `other` from `start`, with no
/// budget: both exhaust their trees and prove the same lower bound.
fn both_searches(
    listed: &Model,
    other: &Model,
    start: Option<Vec<i128>>,
    lower: usize,
    tag: &str,
) -> (search::Outcome, search::Outcome) {
    let budget = SearchBudget {
        time: None,
        nodes: None,
    };
    let run = |model: &Model, start: Option<Vec<i128>>| {
        search::improve(model, start, lower, &budget, None, &mut |_| {}).unwrap()
    };
    let a = run(listed, start.clone());
    let b = run(other, start);
    assert!(a.exhausted && b.exhausted, "{tag}");
    assert_eq!(a.lower_bound, b.lower_bound, "{tag}");
    (a, b)
}

#[test]
fn planning_without_lists_is_planning_with_them() {
    let mut rng = XorShift(0x5EED_1234_ABCD_0001);
    let mut scanned = 0;
    for case in 0..300 {
        let n = 1 + rng.below(9);
        let Small {
            tensors,
            alignments,
            fixed,
            hints,
        } = small(&mut rng, n, 4, 5);
        let total: usize = tensors.iter().map(|t| t.size).sum();
        let capacity = (rng.below(2) == 0).then(|| total / 2 + rng.below(total + 1));
        let problem = PlanProblem {
            alignments: &alignments,
            fixed_offsets: &fixed,
            hints: &hints,
            capacity,
            ..PlanProblem::new(&tensors)
        };
        let Ok(listed) = Model::new(&problem, 1) else {
            continue;
        };
        if listed.fixed_past_capacity() {
            // Refused before any planner runs.
            continue;
        }
        let mut unlisted = Model::new(&problem, 1).unwrap();
        unlisted.neighbours = None;
        let tag = format!("case {case}: {problem:?}");
        let (lower, greedy, heuristic) = same_plans(&listed, &unlisted, &tag);
        for plan in [&greedy, &heuristic].into_iter().flatten() {
            assert!(sound(&problem, plan), "{tag}: {plan:?}");
        }
        let (a, b) = both_searches(&listed, &unlisted, heuristic, lower, &tag);
        assert_eq!(a.offsets.is_some(), b.offsets.is_some(), "{tag}");
        if let Some(plan) = &b.offsets {
            assert!(sound(&problem, plan), "{tag}: {plan:?}");
            scanned += 1;
        }
    }
    assert!(scanned > 100, "{scanned}");
}

/// Each block's neighbours by brute force: every other block with bytes
/// with a piece meeting one of its own, at the separations of their pieces.
fn listed_by_brute_force(model: &mut Model) {
    let n = model.blocks.len();
    let lists = (0..n)
        .map(|b| {
            (0..n)
                .filter(|&c| c != b)
                .filter_map(|c| {
                    let (up, down) = separation(&model.blocks[b].pieces, &model.blocks[c].pieces)?;
                    Some(Neighbour { other: c, up, down })
                })
                .collect()
        })
        .collect();
    model.neighbours = Some(lists);
}

/// Asserts that `plan` keeps apart every pair `listed` lists.
fn assert_listed_pairs_apart(listed: &Model, plan: &[i128], tag: &str) {
    for (k, list) in listed.neighbours.as_ref().unwrap().iter().enumerate() {
        for nb in list {
            assert!(Model::apart(nb, plan[k], plan[nb.other]), "{tag}: {plan:?}");
        }
    }
}

/// A dense random table's arrays, of enough tensors for the index.
struct Dense {
    tensors: Vec<TensorLifetime>,
    alignments: Vec<usize>,
    fixed: Vec<Option<usize>>,
    hints: Vec<Option<usize>>,
}

/// [`place::INDEXED_FROM`] to 200 more tensors over a horizon of
/// `horizon` to `horizon + spread - 1` nodes, each living up to the whole
/// horizon (one in 16 of no bytes), alignments up to 8, one in 64 fixed
/// far apart (so that fixed tensors never collide, within a capacity of
/// `64 n`), one in 4 hinted. Sizes and hints on a grid of 16, so that hints
/// meet placed blocks' ends exactly.
fn dense(rng: &mut XorShift, horizon: usize, spread: usize) -> Dense {
    let n = place::INDEXED_FROM + rng.below(200);
    let horizon = horizon + rng.below(spread);
    let tensors: Vec<TensorLifetime> = (0..n)
        .map(|_| {
            let first = rng.below(horizon);
            let size = match rng.below(16) {
                0 => 0,
                1..=7 => 16 * (1 + rng.below(4)),
                _ => 1 + rng.below(64),
            };
            TensorLifetime::new(size, first, first + rng.below(horizon))
        })
        .collect();
    let alignments: Vec<usize> = (0..n).map(|_| [1, 1, 1, 2, 8][rng.below(5)]).collect();
    let fixed: Vec<Option<usize>> = (0..n)
        .map(|i| (rng.below(64) == 0 && tensors[i].size > 0).then(|| 64 * i))
        .collect();
    let hints: Vec<Option<usize>> = (0..n)
        .map(|_| (rng.below(4) == 0).then(|| 16 * rng.below(256)))
        .collect();
    Dense {
        tensors,
        alignments,
        fixed,
        hints,
    }
}

#[test]
fn dense_interval_blocks_placed_through_the_index_are_placed_as_with_lists() {
    let mut rng = XorShift(0x5EED_1234_ABCD_0002);
    let mut indexed = 0;
    for case in 0..12 {
        let Dense {
            tensors,
            alignments,
            fixed,
            hints,
        } = dense(&mut rng, 4, 60);
        let n = tensors.len();
        let capacity = (case % 3 == 2).then(|| 64 * n);
        let problem = PlanProblem {
            alignments: &alignments,
            fixed_offsets: &fixed,
            hints: &hints,
            capacity,
            ..PlanProblem::new(&tensors)
        };
        let tag = format!("case {case}, {n} tensors");
        let mut unlisted = Model::new(&problem, 1).unwrap();
        unlisted.neighbours = None;
        let mut listed = Model::new(&problem, 1).unwrap();
        listed_by_brute_force(&mut listed);
        let (_, greedy, heuristic) = same_plans(&listed, &unlisted, &tag);
        for plan in [&greedy, &heuristic].into_iter().flatten() {
            assert!(sound(&problem, plan), "{tag}");
            indexed += 1;
        }
    }
    assert!(indexed >= 8, "{indexed}");
}

#[test]
fn dense_blocks_with_gaps_placed_through_the_index_are_placed_as_with_lists() {
    let mut rng = XorShift(0x5EED_1234_ABCD_0004);
    let mut gapped_blocks = 0;
    for case in 0..10 {
        let Dense {
            tensors,
            alignments,
            fixed,
            hints,
        } = dense(&mut rng, 6, 40);
        let n = tensors.len();
        // Gaps without windows in about a third of the tensors, one or
        // two each, so that their blocks stay plain; a window in a few.
        let mut gaps = Vec::new();
        for (t, tensor) in tensors.iter().enumerate() {
            let (first, last) = (tensor.first_use, tensor.last_use);
            if last - first < 2 || rng.below(3) != 0 {
                continue;
            }
            let mut at = first + 1;
            for _ in 0..1 + rng.below(2) {
                if at >= last {
                    break;
                }
                let end = at + rng.below((last - at).min(4));
                let window = (rng.below(40) == 0).then(|| (0, tensor.size.min(8)));
                gaps.push(LifetimeGap::new(t, at, end).with_window(window));
                at = end + 2;
            }
        }
        let capacity = (case % 3 == 2).then(|| 64 * n);
        let problem = PlanProblem::new(&tensors)
            .with_alignments(&alignments)
            .with_fixed_offsets(&fixed)
            .with_hints(&hints)
            .with_gaps(&gaps)
            .with_capacity(capacity);
        let tag = format!("case {case}, {n} tensors, {} gaps", gaps.len());
        let mut unlisted = Model::new(&problem, 1).unwrap();
        unlisted.neighbours = None;
        unlisted.irregular = irregular_conflicts(&unlisted.blocks).unwrap();
        gapped_blocks += (0..n)
            .filter(|&b| unlisted.is_plain(b) && unlisted.blocks[b].pieces.len() > 1)
            .count();
        let mut listed = Model::new(&problem, 1).unwrap();
        listed_by_brute_force(&mut listed);
        let (_, greedy, heuristic) = same_plans(&listed, &unlisted, &tag);
        for plan in [&greedy, &heuristic].into_iter().flatten() {
            assert_listed_pairs_apart(&listed, plan, &tag);
        }
    }
    assert!(gapped_blocks >= 1000, "{gapped_blocks}");
}

#[test]
fn blocks_whose_pieces_interleave_without_meeting_share_bytes_in_every_planner() {
    // A lives nodes 0 and 6 (a gap from 1 to 5), B lives 2 to 4 inside
    // A's gap, C lives 1 and 5 (a gap from 2 to 4): their spans meet, no
    // two of their pieces do, so all three fit in one block's bytes.
    let tensors = [
        TensorLifetime::new(10, 0, 6),
        TensorLifetime::new(10, 2, 4),
        TensorLifetime::new(10, 1, 5),
    ];
    let gaps = [LifetimeGap::new(0, 1, 5), LifetimeGap::new(2, 2, 4)];
    let problem = PlanProblem::new(&tensors).with_gaps(&gaps);
    let mut unlisted = Model::new(&problem, 1).unwrap();
    unlisted.neighbours = None;
    unlisted.irregular = irregular_conflicts(&unlisted.blocks).unwrap();
    assert!(unlisted.irregular.iter().all(Vec::is_empty));
    let lower = bound::lower_bound(&unlisted).unwrap();
    assert_eq!(lower, 10);
    let arena = |plan: &[i128]| search::arena_of(&unlisted, plan);
    let greedy = place::greedy(&unlisted).unwrap().unwrap();
    assert_eq!(arena(&greedy), 10, "{greedy:?}");
    let heuristic = place::heuristic(&unlisted, lower, None).unwrap().unwrap();
    assert_eq!(arena(&heuristic), 10, "{heuristic:?}");
    // The search from every block at 0 finds nothing to separate.
    let budget = SearchBudget {
        time: None,
        nodes: None,
    };
    let searched = search::improve(&unlisted, None, lower, &budget, None, &mut |_| {}).unwrap();
    assert_eq!(searched.offsets.as_deref().map(arena), Some(10));
}

#[test]
fn gaps_and_reuse_without_lists_of_the_interval_pairs_plan_as_with_every_pair_listed() {
    let mut rng = XorShift(0x5EED_1234_ABCD_0003);
    let mut mixed_models = 0;
    for case in 0..400 {
        let n = 2 + rng.below(8);
        let Small {
            tensors,
            alignments,
            fixed,
            hints,
        } = small(&mut rng, n, 5, 6);
        let mut gaps = Vec::new();
        for (t, tensor) in tensors.iter().enumerate() {
            if tensor.last_use > tensor.first_use && rng.below(3) == 0 {
                let first = tensor.first_use + 1 + rng.below(tensor.last_use - tensor.first_use);
                let last = first + rng.below(tensor.last_use - first + 1);
                let window = (rng.below(2) == 0).then(|| {
                    let lo = rng.below(tensor.size + 1);
                    (lo, lo + rng.below(tensor.size - lo + 1))
                });
                gaps.push(LifetimeGap::new(t, first, last).with_window(window));
            }
        }
        let mut reuses = Vec::new();
        for t in 1..n {
            let r = rng.below(t);
            if rng.below(6) == 0 && tensors[t].size <= tensors[r].size {
                reuses.push(Reuse::new(t, r));
            }
        }
        let total: usize = tensors.iter().map(|t| t.size).sum();
        let capacity = (rng.below(3) == 0).then(|| total / 2 + rng.below(total + 1));
        let problem = PlanProblem::new(&tensors)
            .with_alignments(&alignments)
            .with_fixed_offsets(&fixed)
            .with_hints(&hints)
            .with_gaps(&gaps)
            .with_reuses(&reuses)
            .with_capacity(capacity);
        let Ok(listed) = Model::new(&problem, 1) else {
            continue;
        };
        if listed.fixed_past_capacity() || listed.neighbours.is_none() {
            continue;
        }
        // The interval pairs from the spans, the others listed.
        let mut mixed = Model::new(&problem, 1).unwrap();
        mixed.neighbours = None;
        mixed.irregular = irregular_conflicts(&mixed.blocks).unwrap();
        mixed_models += usize::from(!mixed.irregular.iter().all(Vec::is_empty));
        let tag = format!("case {case}: {problem:?}");
        let (lower, greedy, heuristic) = same_plans(&listed, &mixed, &tag);
        let (a, b) = both_searches(&listed, &mixed, heuristic, lower, &tag);
        let arena = |plan: &[i128]| search::arena_of(&listed, plan);
        assert_eq!(
            a.offsets.as_deref().map(arena),
            b.offsets.as_deref().map(arena),
            "{tag}"
        );
        // Every pair of the full lists is kept apart by the mixed model's
        // plans.
        for plan in [&greedy, &b.offsets].into_iter().flatten() {
            assert_listed_pairs_apart(&listed, plan, &tag);
        }
    }
    assert!(mixed_models > 100, "{mixed_models}");
}
