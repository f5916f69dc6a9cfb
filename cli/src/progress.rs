//! A progress line on standard error while a plan takes a while: a spinner,
//! the time spent, what a search has reached (its best arena, its proven
//! bound, the gap between them and the node of the last improvement) and
//! the search budget. Only when standard error is a terminal, and only
//! after a moment, so quick plans, pipes and tests see nothing of it.

use std::io::IsTerminal;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use aether_planner::{SearchBudget, SearchProgress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::units::{grouped_u64, human_bytes, human_duration};

/// What a search has reached, in the progress line's words:
/// `best 1.33 MiB, bound 1 MiB, gap 33.3% (node 12,345)`. The gap is how far
/// the best arena is above the proven lower bound, in percent of the bound
/// (0 once they meet); the node is the one at which the last of the three
/// figures improved, as the library reports them only then. A constrained
/// search without a plan within its capacity says so instead.
pub fn reached(nodes: u64, best_arena: usize, lower_bound: usize) -> String {
    if best_arena == usize::MAX {
        // A constrained search that knows no plan within its capacity yet.
        return format!(
            "no plan within the capacity yet, bound {} (node {})",
            human_bytes(lower_bound),
            grouped_u64(nodes)
        );
    }
    let gap = if lower_bound == 0 || best_arena <= lower_bound {
        0.0
    } else {
        (best_arena - lower_bound) as f64 / lower_bound as f64 * 100.0
    };
    format!(
        "best {}, bound {}, gap {}% (node {})",
        human_bytes(best_arena),
        human_bytes(lower_bound),
        crate::units::trim_decimals(gap, if gap < 10.0 { 2 } else { 1 }),
        grouped_u64(nodes)
    )
}

/// The whole line after the spinner: `label`, the time spent, what the
/// search reached when it has said so, and the budget in words.
fn message(
    label: &str,
    elapsed: Duration,
    progress: Option<&SearchProgress>,
    budget: Option<&str>,
) -> String {
    let mut line = format!("{label}: {:.1} s", elapsed.as_secs_f64());
    if let Some(p) = progress {
        line.push_str("; ");
        line.push_str(&reached(p.nodes, p.best_arena, p.lower_bound));
    }
    if let Some(budget) = budget {
        line.push_str("; ");
        line.push_str(budget);
    }
    line
}

/// The latest progress a search reported, written by the planning thread
/// and read by the drawing one.
#[derive(Default)]
struct Latest(Mutex<Option<SearchProgress>>);

impl Latest {
    fn set(&self, progress: &SearchProgress) {
        // A poisoned lock only means a panic elsewhere: the value is whole.
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(*progress);
    }

    fn get(&self) -> Option<SearchProgress> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How long a plan runs before the line appears.
const DELAY: Duration = Duration::from_millis(300);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// The budget in words: `budget 200,000 nodes, no time limit`.
fn describe(budget: &SearchBudget) -> String {
    let nodes = budget.nodes.map_or("no node limit".to_owned(), |n| {
        format!("{} nodes", grouped_u64(n))
    });
    let time = budget
        .time
        .map_or("no time limit".to_owned(), human_duration);
    format!("budget {nodes}, {time}")
}

/// Runs `work` and returns its result. `work` gets an observer to hand to
/// [`aether_planner::try_plan_offsets_observed`]. When standard error is a
/// terminal, `work` runs on a worker thread while this thread draws
/// `label`, the time spent, what the observer last heard and, for a search,
/// the `budget`; the line is erased before returning. Elsewhere the
/// observer does nothing. A panic in `work` is passed on.
pub fn while_running<T: Send>(
    label: &str,
    budget: Option<&SearchBudget>,
    work: impl FnOnce(&mut dyn FnMut(&SearchProgress)) -> T + Send,
) -> T {
    if !std::io::stderr().is_terminal() {
        return work(&mut |_| {});
    }
    with_progress(label, budget, work)
}

/// [`while_running`] on a terminal: `work` on a worker thread, the line
/// drawn from this one. (indicatif draws nothing where standard error is
/// not a terminal, so the tests below run this path quietly.)
fn with_progress<T: Send>(
    label: &str,
    budget: Option<&SearchBudget>,
    work: impl FnOnce(&mut dyn FnMut(&SearchProgress)) -> T + Send,
) -> T {
    let latest = Latest::default();
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<()>();
        let latest = &latest;
        let worker = scope.spawn(move || {
            let result = work(&mut |progress| latest.set(progress));
            // The receiver waits for this unless it gave up; either is fine.
            let _ = done.send(());
            result
        });
        let start = Instant::now();
        let mut spinner: Option<ProgressBar> = None;
        let budget = budget.map(describe);
        loop {
            match finished.recv_timeout(TICK) {
                // Done, or the worker panicked: join it below.
                Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let elapsed = start.elapsed();
            if elapsed < DELAY {
                continue;
            }
            let bar = spinner.get_or_insert_with(|| {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                bar.set_style(
                    // wide_msg: cut to the terminal's width, never wrapped.
                    ProgressStyle::with_template("{spinner} {wide_msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar
            });
            bar.set_message(message(
                label,
                elapsed,
                latest.get().as_ref(),
                budget.as_deref(),
            ));
            bar.tick();
        }
        if let Some(bar) = spinner {
            bar.finish_and_clear();
        }
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_result_comes_back_after_the_line_was_drawn() {
        let budget = SearchBudget::default();
        // Long enough for the line to appear and tick a few times.
        let result = with_progress("planning 2 tensors (search)", Some(&budget), |_| {
            std::thread::sleep(DELAY + 3 * TICK);
            vec![1, 2, 3]
        });
        assert_eq!(result, [1, 2, 3]);
        assert_eq!(with_progress("quick", None, |_| 7), 7);
    }

    #[test]
    fn a_panic_in_the_worker_is_passed_on() {
        let caught = std::panic::catch_unwind(|| {
            with_progress("failing", None, |_| -> u8 { panic!("the plan failed") })
        })
        .expect_err("the panic reaches the caller");
        assert_eq!(caught.downcast_ref::<&str>(), Some(&"the plan failed"));
    }

    #[test]
    fn budgets_read_as_words() {
        let both = SearchBudget::nodes(300_000).with_time_cap(Duration::from_secs(60));
        assert_eq!(describe(&both), "budget 300,000 nodes, 60 s");
        let nodes_only = SearchBudget::nodes(2_000);
        assert_eq!(describe(&nodes_only), "budget 2,000 nodes, no time limit");
        let time_only = SearchBudget::unlimited().with_time_cap(Duration::from_millis(2500));
        assert_eq!(describe(&time_only), "budget no node limit, 2.5 s");
    }

    #[test]
    fn what_a_search_reached_reads_as_words() {
        // 1.5 MiB against a 1 MiB bound: 50% above it.
        assert_eq!(
            reached(12_345, 3 << 19, 1 << 20),
            "best 1.5 MiB, bound 1 MiB, gap 50% (node 12,345)"
        );
        // A small gap keeps two decimals: 1,001 against 1,000 bytes.
        assert_eq!(
            reached(7, 1001, 1000),
            "best 1001 B, bound 1000 B, gap 0.1% (node 7)"
        );
        assert_eq!(
            reached(0, 4096, 4096),
            "best 4 KiB, bound 4 KiB, gap 0% (node 0)"
        );
        // Nothing but empty tensors: no bound to divide by.
        assert_eq!(reached(0, 0, 0), "best 0 B, bound 0 B, gap 0% (node 0)");
        assert_eq!(
            reached(12, usize::MAX, 4096),
            "no plan within the capacity yet, bound 4 KiB (node 12)"
        );
    }

    #[test]
    fn the_line_holds_the_time_the_progress_and_the_budget() {
        let budget = describe(&SearchBudget::nodes(2_000));
        assert_eq!(
            message(
                "planning 9 tensors (search)",
                Duration::from_millis(2300),
                None,
                Some(&budget)
            ),
            "planning 9 tensors (search): 2.3 s; budget 2,000 nodes, no time limit"
        );
        assert_eq!(
            message(
                "planning 9 tensors (greedy)",
                Duration::from_millis(400),
                None,
                None
            ),
            "planning 9 tensors (greedy): 0.4 s"
        );
    }

    #[test]
    fn the_slot_the_line_reads_holds_the_last_report_of_a_search() {
        // A real search reports through the observer; the slot the line is
        // drawn from then holds its last report, which agrees with the
        // final plan, and the line shows it.
        let tensors: Vec<aether_planner::TensorLifetime> = (0..40)
            .map(|i| aether_planner::TensorLifetime::new(8 + (i * 37) % 90, i, i + 3))
            .collect();
        let options = aether_planner::PlanOptions::default()
            .with_strategy(aether_planner::Strategy::Search)
            .with_budget(SearchBudget::nodes(5_000));
        let latest = Latest::default();
        let mut seen = 0;
        let report = aether_planner::try_plan_offsets_observed(&tensors, &options, &mut |p| {
            seen += 1;
            latest.set(p);
        })
        .expect("a valid table");
        match latest.get() {
            Some(last) => {
                assert!(seen > 0);
                assert_eq!(last.best_arena, report.plan.arena_size);
                assert!(last.lower_bound <= last.best_arena);
                let line = message("planning", Duration::ZERO, Some(&last), None);
                assert!(line.contains(&human_bytes(last.best_arena)), "{line}");
            }
            // The start plan was optimal already: nothing to report.
            None => assert!(report.proven_optimal),
        }
    }
}
