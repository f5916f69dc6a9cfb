//! Bad values of `offsets`' flags (`--align`, `--budget-*`, `--strategy`):
//! usage errors, status 2, one line naming the flag and the value.

mod common;

use common::*;

/// Asserts a usage failure: status 2, nothing on standard output, and
/// exactly the one line `aether-plan: error: MESSAGE`.
fn assert_usage_error(dir: &std::path::Path, args: &[&str], message: &str) {
    let run = run(dir, args);
    assert_eq!(run.status, 2, "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    assert_eq!(run.stderr, format!("aether-plan: error: {message}\n"));
}

#[test]
fn bad_alignments_are_refused_naming_the_flag() {
    let dir = scratch("bad-align");
    for value in ["0", "3", "48", "1000"] {
        assert_usage_error(
            &dir,
            &["offsets", "--align", value],
            &format!(
                "invalid value '{value}' for '--align <N>': {value} is not a power of two; \
                 the alignment is a power of two: 1, 2, 4, 8, ..."
            ),
        );
    }
    for value in ["abc", "-4", "1.5", ""] {
        assert_usage_error(
            &dir,
            &["offsets", &format!("--align={value}")],
            &format!(
                "invalid value '{value}' for '--align <N>': {value:?} is not a whole number; \
                 the alignment is a power of two: 1, 2, 4, 8, ..."
            ),
        );
    }
}

#[test]
fn bad_budgets_and_strategies_are_refused() {
    let dir = scratch("bad-budget");
    for flag in ["--budget-nodes", "--budget-ms"] {
        for value in ["many", "-1", "2.5"] {
            assert_usage_error(
                &dir,
                &[
                    "offsets",
                    "--strategy",
                    "search",
                    &format!("{flag}={value}"),
                ],
                &format!(
                    "invalid value '{value}' for '{flag} <N>': {value:?} is not a whole number \
                     or `none`"
                ),
            );
        }
    }
    let run = run(&dir, &["offsets", "--strategy", "best"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("'best'") && run.stderr.contains("greedy, heuristic, search"),
        "{}",
        run.stderr
    );
}
