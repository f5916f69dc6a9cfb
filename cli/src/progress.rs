//! A progress line on standard error while a plan takes a while: a spinner,
//! the time spent and the search budget. Only when standard error is a
//! terminal, and only after a moment, so quick plans, pipes and tests see
//! nothing of it.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aether_planner::SearchBudget;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::units::{grouped_u64, human_duration};

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

/// Runs `work` and returns its result. When standard error is a terminal,
/// `work` runs on a worker thread while this thread draws `label`, the time
/// spent and, for a search, the `budget`; the line is erased before
/// returning. A panic in `work` is passed on.
pub fn while_running<T: Send>(
    label: &str,
    budget: Option<&SearchBudget>,
    work: impl FnOnce() -> T + Send,
) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    with_progress(label, budget, work)
}

/// [`while_running`] on a terminal: `work` on a worker thread, the line
/// drawn from this one. (indicatif draws nothing where standard error is
/// not a terminal, so the tests below run this path quietly.)
fn with_progress<T: Send>(
    label: &str,
    budget: Option<&SearchBudget>,
    work: impl FnOnce() -> T + Send,
) -> T {
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<()>();
        let worker = scope.spawn(move || {
            let result = work();
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
            let seconds = elapsed.as_secs_f64();
            bar.set_message(match &budget {
                Some(budget) => format!("{label}: {seconds:.1} s; {budget}"),
                None => format!("{label}: {seconds:.1} s"),
            });
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
        let result = with_progress("planning 2 tensors (search)", Some(&budget), || {
            std::thread::sleep(DELAY + 3 * TICK);
            vec![1, 2, 3]
        });
        assert_eq!(result, [1, 2, 3]);
        assert_eq!(with_progress("quick", None, || 7), 7);
    }

    #[test]
    fn a_panic_in_the_worker_is_passed_on() {
        let caught = std::panic::catch_unwind(|| {
            with_progress("failing", None, || -> u8 { panic!("the plan failed") })
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
}
