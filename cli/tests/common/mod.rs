//! Running the built `aether-plan` binary, and oracles that do not use the
//! library: everything here is computed from first principles.

#![allow(dead_code)] // Each test file uses its own share of these helpers.

// The workspace's one seeded generator and its naive oracles.
#[path = "../../../tests/common/oracles.rs"]
pub mod oracles;
#[allow(unused_imports)] // not every test file draws
pub use oracles::Rng;

use aether_planner::TensorLifetime;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A fresh, empty folder for one test, so that file names in messages are
/// short and known.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join("aether-plan-tests")
        .join(format!("{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the scratch folder");
    dir
}

/// Writes `text` to `dir/name`.
pub fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write a test input");
}

/// A file of the repository, by its path from the repository's root.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// Runs `aether-plan ARGS` in `dir`, with `stdin` as standard input.
pub fn run_with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_aether-plan"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start aether-plan");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let output = child.wait_with_output().expect("wait for aether-plan");
    Run {
        status: output
            .status
            .code()
            .expect("aether-plan exits, it is not killed"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `aether-plan ARGS` in `dir`.
pub fn run(dir: &Path, args: &[&str]) -> Run {
    run_with_stdin(dir, args, "")
}

/// Runs successfully, or fails the test showing what was printed.
pub fn run_ok(dir: &Path, args: &[&str]) -> Run {
    let run = run(dir, args);
    assert_eq!(run.status, 0, "aether-plan {args:?} failed: {run:?}");
    run
}

/// Asserts a bad-input failure: exit status 1, nothing on standard output,
/// and exactly one line on standard error, `aether-plan: error: MESSAGE`.
pub fn assert_error(run: &Run, message: &str) {
    assert_eq!(run.status, 1, "exit status of {run:?}");
    assert_eq!(run.stdout, "", "nothing may reach stdout: {run:?}");
    assert_eq!(
        run.stderr,
        format!("aether-plan: error: {message}\n"),
        "the one-line message"
    );
    assert!(!run.stderr.contains("panicked"), "{run:?}");
}

/// Writes `text` to `dir/name` and runs `aether-plan ARGS` on it, expecting
/// the bad-input failure `message`.
pub fn bad_input(dir: &Path, name: &str, text: &str, args: &[&str], message: &str) {
    write(dir, name, text);
    let run = run(dir, args);
    assert_error(&run, message);
}

/// A CSV document as a header and rows of strings (split with the csv crate,
/// not with the tool's own code).
pub fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.expect("a CSV row").iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

/// The `--format table` part of an output: its header's words and every
/// line after it as words.
pub fn parse_table(stdout: &str) -> (Vec<&str>, Vec<Vec<&str>>) {
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.split_whitespace().next() == Some("tensor"))
        .expect("a table header");
    let rows = lines[at + 1..].iter().map(|line| words(line)).collect();
    (words(lines[at]), rows)
}

fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// A field as a number.
pub fn num(field: &str) -> u64 {
    field
        .parse()
        .unwrap_or_else(|_| panic!("{field:?} is a number"))
}

/// The number after `label` in a summary such as `arena   1,391,616 B`.
pub fn summary_bytes(summary: &str, label: &str) -> u64 {
    let line = summary
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} line in {summary}"));
    let digits: String = line[line.find(label).unwrap() + label.len()..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    num(&digits)
}

/// One placed tensor: bytes `[offset, offset + size)` over the half-open time
/// interval `[start, end)`.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    pub size: u64,
    pub start: u64,
    pub end: u64,
    pub offset: u64,
}

/// The placed tensors as the oracles take them: inclusive node lifetimes
/// `[start, end - 1]`; a tensor with an empty time interval is live at no
/// node, so it gets no bytes.
fn lifetimes(placed: &[Placed]) -> (Vec<TensorLifetime>, Vec<usize>) {
    placed
        .iter()
        .map(|p| {
            let size = if p.end > p.start { p.size } else { 0 };
            let last = p.end.max(p.start + 1) - 1;
            (
                TensorLifetime::new(size as usize, p.start as usize, last as usize),
                p.offset as usize,
            )
        })
        .unzip()
}

/// Checks every pair with the tests' oracle ([`oracles::first_shared_byte`]):
/// tensors whose times intersect must not share a byte. Returns the arena,
/// `max(offset + size)`.
pub fn assert_sound(placed: &[Placed]) -> u64 {
    let (tensors, offsets) = lifetimes(placed);
    if let Some((i, j)) = oracles::first_shared_byte(&tensors, &offsets) {
        panic!(
            "tensors {i} {:?} and {j} {:?} are live together and share bytes",
            placed[i], placed[j]
        );
    }
    placed
        .iter()
        .filter(|p| p.size > 0)
        .map(|p| p.offset + p.size)
        .max()
        .unwrap_or(0)
}

/// The most bytes live at one time, by the tests' brute force
/// ([`oracles::brute_peak`]).
pub fn brute_peak(placed: &[Placed]) -> u64 {
    oracles::brute_peak(&lifetimes(placed).0) as u64
}

/// `reach[u]`: the nodes reachable from `u` by one or more edges, by the
/// tests' depth-first search ([`oracles::reachability`]).
pub fn closure(nodes: usize, edges: &BTreeSet<(usize, usize)>) -> Vec<BTreeSet<usize>> {
    let edges: Vec<(usize, usize)> = edges.iter().copied().collect();
    oracles::reachability(nodes, &edges)
        .into_iter()
        .map(|row| (0..nodes).filter(|&v| row[v]).collect())
        .collect()
}
