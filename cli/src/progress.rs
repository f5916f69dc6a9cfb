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
