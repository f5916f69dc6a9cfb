//! The progress callbacks of the `_observed` entry points, judged: what a
//! callback was given, and the promises each call keeps (it only improves,
//! the bound never passes the best arena, and the last call agrees with the
//! report when the plan is made).

use aether_planner::ffi::{aether_plan_report, aether_search_progress};

/// A C callback that appends each progress to the `Vec<aether_search_progress>`
/// behind `user`.
///
/// # Safety
/// `user` points to a live `Vec<aether_search_progress>`.
pub unsafe extern "C" fn record(
    progress: *const aether_search_progress,
    user: *mut core::ffi::c_void,
) -> core::ffi::c_int {
    (*user.cast::<Vec<aether_search_progress>>()).push(*progress);
    0
}

/// Checks what a callback saw: the first call at node 0, each later one an
/// improvement of the best arena or the bound, nodes never going back, the
/// bound at most the best arena (`usize::MAX` meaning "no plan yet"), and
/// with `report` (a plan was made) the last call matching its arena and
/// bound. `searched`: whether the strategy was the search; no other calls.
pub fn check(seen: &[aether_search_progress], searched: bool, report: Option<&aether_plan_report>) {
    if !searched {
        assert!(seen.is_empty(), "progress without a search: {seen:?}");
        return;
    }
    let Some(last) = seen.last() else { return };
    assert_eq!(seen[0].nodes, 0, "{seen:?}");
    for (k, p) in seen.iter().enumerate() {
        assert_eq!(
            p.struct_size,
            core::mem::size_of::<aether_search_progress>()
        );
        assert!(p.lower_bound <= p.best_arena, "{p:?}");
        if k > 0 {
            let q = seen[k - 1];
            assert!(
                q.nodes <= p.nodes && q.lower_bound <= p.lower_bound,
                "{seen:?}"
            );
            assert!(p.best_arena <= q.best_arena, "{seen:?}");
            assert!(
                p.best_arena < q.best_arena || p.lower_bound > q.lower_bound,
                "{seen:?}"
            );
        }
    }
    if let Some(report) = report {
        assert_eq!(
            (last.best_arena, last.lower_bound),
            (report.arena_size, report.lower_bound),
            "{seen:?}"
        );
        assert!(last.nodes <= report.search_nodes);
    }
}
