//! `--help` explains every input format with an example, and the examples
//! it shows are what the tool really prints.

mod common;

use common::*;

/// The lines of `text` between the line `start` and the next empty line,
/// without their indentation.
fn block_after(text: &str, start: &str) -> String {
    let mut lines = text.lines().skip_while(|l| l.trim() != start).skip(1);
    let mut out = String::new();
    for line in lines.by_ref() {
        if line.trim().is_empty() {
            break;
        }
        out.push_str(line.trim());
        out.push('\n');
    }
    assert!(!out.is_empty(), "no block after {start:?} in:\n{text}");
    out
}

#[test]
fn the_main_help_names_every_format_with_an_example() {
    let run = run_ok(&scratch("help-main"), &["--help"]);
    for needle in [
        "offsets",
        "reduce",
        "islands",
        "size,first_use,last_use",
        "id,lower,upper,size",
        "EXCLUSIVE",
        "source,target",
        "a,b",
        "Examples:",
        "aether-plan offsets --svg mobilenet_v1.svg",
        "exit status 1",
    ] {
        assert!(
            run.stdout.contains(needle),
            "{needle:?} missing from:\n{}",
            run.stdout
        );
    }
    // The piped example prints what the help says it prints.
    let dir = scratch("help-main-example");
    let shown = block_after(
        &run.stdout,
        "$ printf 'size,first_use,last_use\\n100,0,1\\n80,1,2\\n60,2,3\\n' | aether-plan offsets - --format csv",
    );
    let actual = run_with_stdin(
        &dir,
        &["offsets", "-", "--format", "csv"],
        "size,first_use,last_use\n100,0,1\n80,1,2\n60,2,3\n",
    );
    assert_eq!(actual.stdout, shown);
}

/// Runs each subcommand's help example: the `Example (FILE):` block is the
/// input, the block after `$ aether-plan ...` the output.
fn check_example(subcommand: &str, heading: &str, command: &str, extra: &[&str]) {
    let dir = scratch(&format!("help-{subcommand}"));
    let help = run_ok(&dir, &[subcommand, "--help"]).stdout;
    assert!(help.contains("Example"), "{help}");
    let input = block_after(&help, heading);
    let after_heading = &help[help.find(heading).unwrap()..];
    let expected = block_after(after_heading, command);
    write(&dir, "FILE", &input);
    let mut args = vec![subcommand, "FILE"];
    args.extend(extra);
    assert_eq!(
        run_ok(&dir, &args).stdout,
        expected,
        "{subcommand} --help example"
    );
}

#[test]
fn each_subcommand_help_shows_a_true_example() {
    let csv = ["--format", "csv"];
    check_example(
        "offsets",
        "Example (FILE):",
        "$ aether-plan offsets FILE --format csv",
        &csv,
    );
    check_example(
        "offsets",
        "Example (MiniMalloc FILE, a buffer live over [lower, upper)):",
        "$ aether-plan offsets FILE --format csv",
        &csv,
    );
    check_example(
        "reduce",
        "Example (FILE):",
        "$ aether-plan reduce FILE",
        &[],
    );
    check_example(
        "islands",
        "Example (FILE):",
        "$ aether-plan islands FILE",
        &[],
    );
}

#[test]
fn usage_errors_exit_with_status_2() {
    let dir = scratch("help-usage");
    assert_eq!(run(&dir, &[]).status, 2);
    assert_eq!(run(&dir, &["offsets", "--format", "xml"]).status, 2);
    assert_eq!(run(&dir, &["reduce"]).status, 2);
}

#[test]
fn the_budget_defaults_read_the_same_in_every_text() {
    // The node budget is the library's default; no time cap unless asked.
    let nodes = aether_planner::SearchBudget::default()
        .nodes
        .map_or("none".to_owned(), |n| n.to_string());
    let dir = scratch("help-budgets");
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    for flag in ["-h", "--help"] {
        let help = words(&run_ok(&dir, &["offsets", flag]).stdout);
        assert!(
            help.contains("Time cap of --strategy search in milliseconds, or `none` [default: none: no time cap]"),
            "{help}"
        );
        assert!(
            help.contains(&format!(
                "Node budget of --strategy search, or `none` for no limit [default: {nodes}]"
            )),
            "{help}"
        );
    }
    let long = words(&run_ok(&dir, &["offsets", "--help"]).stdout);
    assert!(
        long.contains(&format!(
            "--budget-nodes N (default {nodes}; `none` for no limit)"
        )),
        "{long}"
    );
    assert!(long.contains("(default: none: no time cap)"), "{long}");
    let docs = std::fs::read_to_string(repo("docs/cli.md")).unwrap();
    assert!(
        docs.contains(&format!(
            "| `--budget-nodes N` | `{nodes}` (the library's default) |"
        )),
        "docs/cli.md's table names the node budget's default"
    );
    assert!(docs.contains("| `--budget-ms N` | none: no time cap |"));
}
