//! Large and hostile inputs: errors deep in a long generated file name the
//! line an editor shows (the test counts the lines it writes), repeated JSON
//! keys are refused at the key, and a tiny file cannot ask for a huge node
//! count. How long reading takes is measured, not asserted (BENCHMARKS.md).

mod common;

use common::*;

/// A generated text and the 1-based line of each row in it.
struct Generated {
    text: String,
    lines: usize,
}

impl Generated {
    fn new() -> Self {
        Generated {
            text: String::new(),
            lines: 0,
        }
    }

    /// Appends `line` and its line break; returns its line number.
    fn line(&mut self, line: &str, crlf: bool) -> usize {
        self.text.push_str(line);
        self.text.push_str(if crlf { "\r\n" } else { "\n" });
        self.lines += 1;
        self.lines
    }
}

/// A tensor table with blank lines and CRLF line ends sprinkled in (what
/// trips a line count), whose row number `bad` (0-based) is `bad_row`.
/// Returns the text and the line of that row.
fn tensor_table(rows: usize, bad: usize, bad_row: &str, rng: &mut Rng) -> (String, usize) {
    let mut out = Generated::new();
    out.line("size,first_use,last_use", false);
    let mut bad_line = 0;
    for i in 0..rows {
        match rng.below_u64(50) {
            0 => {
                out.line("", false);
            }
            1 => {
                out.line("   ", true);
            }
            _ => {}
        }
        let crlf = rng.below_u64(3) == 0;
        if i == bad {
            bad_line = out.line(bad_row, crlf);
        } else {
            let start = i as u64 / 4;
            let row = format!(
                "{},{start},{}",
                1 + rng.below_u64(4096),
                start + rng.below_u64(8)
            );
            out.line(&row, crlf);
        }
    }
    (out.text, bad_line)
}

#[test]
fn a_bad_value_deep_in_a_large_table_names_its_line() {
    let dir = scratch("deep-csv-value");
    let mut rng = Rng::new(0x5eed_0001);
    let (text, line) = tensor_table(120_000, 98_000, "12,7,x", &mut rng);
    assert!(line > 99_000, "the bad row is deep: line {line}");
    bad_input(
        &dir,
        "big.csv",
        &text,
        &["offsets", "big.csv"],
        &format!("big.csv:{line}: field 'last_use': \"x\" is not a whole number"),
    );
}

#[test]
fn a_row_at_line_100000_is_reported_as_line_100000() {
    // The header, then rows 2..: no blank lines, so row k is on line k + 1.
    let dir = scratch("line-100000");
    let mut text = String::from("size,first_use,last_use\n");
    for i in 0..110_000usize {
        if i + 2 == 100_000 {
            text.push_str("5,9,3\n");
        } else {
            text.push_str(&format!("{},{},{}\n", 1 + i % 100, i / 8, i / 8 + 2));
        }
    }
    // Reported by the library (tensor index), mapped back to its line.
    bad_input(
        &dir,
        "t.csv",
        &text,
        &["offsets", "t.csv"],
        "t.csv:100000: field 'first_use': 9 is after last_use 3; lifetimes are inclusive node \
         indices, first_use <= last_use",
    );
}

#[test]
fn a_malformed_row_is_reported_before_an_earlier_bad_value() {
    // As when every row was split before any was read as numbers.
    let dir = scratch("deep-csv-order");
    let mut rng = Rng::new(0x5eed_0002);
    let (mut text, value_line) = tensor_table(60_000, 10_000, "-4,1,2", &mut rng);
    text.push_str("1,2,3,4\n");
    let extra_line = text.matches('\n').count();
    assert!(extra_line > value_line);
    bad_input(
        &dir,
        "t.csv",
        &text,
        &["offsets", "t.csv"],
        &format!("t.csv:{extra_line}: 4 fields, but the header (size,first_use,last_use) has 3"),
    );
    // Without the malformed row, the bad value is the error.
    text.truncate(text.len() - "1,2,3,4\n".len());
    bad_input(
        &dir,
        "t.csv",
        &text,
        &["offsets", "t.csv"],
        &format!("t.csv:{value_line}: field 'size': -4 is negative; size must be 0 or more"),
    );
}

#[test]
fn a_bad_pair_deep_in_a_large_json_array_names_its_line() {
    let dir = scratch("deep-json");
    let mut out = Generated::new();
    out.line("[", false);
    let mut bad_line = 0;
    for i in 0..120_000usize {
        let sep = if i + 1 < 120_000 { "," } else { "" };
        if i == 99_998 {
            bad_line = out.line(&format!("  [{i}, -{i}]{sep}"), i % 2 == 0);
        } else {
            out.line(&format!("  [{i}, {}]{sep}", i + 1), i % 2 == 0);
        }
    }
    out.line("]", false);
    assert_eq!(bad_line, 100_000);
    bad_input(
        &dir,
        "i.json",
        &out.text,
        &["islands", "i.json"],
        "i.json:100000: field 'b': -99998 is negative; b must be 0 or more",
    );
    // The same pair as an object spread over lines: its first line counts.
    let text = out
        .text
        .replace("  [99998, -99998],", "  {\"a\": 99998,\n   \"b\": -99998},");
    bad_input(
        &dir,
        "i.json",
        &text,
        &["islands", "i.json"],
        "i.json:100000: field 'b': -99998 is negative; b must be 0 or more",
    );
}

#[test]
fn a_repeated_json_key_is_refused_at_its_line() {
    let dir = scratch("json-duplicates");
    // The object's "nodes" twice: serde_json alone would keep 4.
    bad_input(
        &dir,
        "e.json",
        "{\"nodes\": 3,\n \"edges\": [[0, 1], [1, 2]],\n \"nodes\": 4}\n",
        &["reduce", "e.json"],
        "e.json:3: field 'nodes': appears twice in one object; each key may appear once",
    );
    // A pair's key twice.
    bad_input(
        &dir,
        "i.json",
        "[{\"a\": 0, \"b\": 1},\n {\"a\": 2,\n  \"b\": 3, \"a\": 4}]",
        &["islands", "i.json"],
        "i.json:3: field 'a': appears twice in one object; each key may appear once",
    );
    // Deep in a large list.
    let mut out = Generated::new();
    out.line("{\"incidences\": [", false);
    for i in 0..100_000usize {
        let _ = out.line(&format!("  {{\"a\": {i}, \"b\": {}}},", i + 1), false);
    }
    let line = out.line("  {\"b\": 1, \"a\": 2, \"b\": 3}],", false);
    out.line("\"nodes\": 200000}", false);
    bad_input(
        &dir,
        "big.json",
        &out.text,
        &["islands", "big.json"],
        &format!(
            "big.json:{line}: field 'b': appears twice in one object; each key may appear once"
        ),
    );
    // In a nested object with many keys, and a key written with an escape
    // that equals one without.
    let keys: Vec<String> = (0..40).map(|k| format!("\"k{k}\": {k}")).collect();
    let text = format!(
        "[{{\"a\": 0, \"b\": 1,\n \"x\": {{{},\n  \"k\\u0031\": 1}}}}]",
        keys.join(", ")
    );
    bad_input(
        &dir,
        "n.json",
        &text,
        &["islands", "n.json"],
        "n.json:3: field 'k1': appears twice in one object; each key may appear once",
    );
    // A syntax error is still worded and placed as before, even after a
    // repeated key.
    bad_input(
        &dir,
        "s.json",
        "[{\"a\": 0, \"a\": 1},\n [1, 2],\n]",
        &["islands", "s.json"],
        "s.json:3: not valid JSON (column 1): expected value",
    );
}

/// Runs `aether-plan ARGS` in `dir` with its address space limited to
/// `kib` KiB (`ulimit -v`), so an allocation past it fails the run.
#[cfg(unix)]
fn run_within(dir: &std::path::Path, kib: u64, args: &[&str]) -> Run {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_aether-plan"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run aether-plan under sh");
    Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn a_tiny_file_cannot_ask_for_a_huge_node_count() {
    let dir = scratch("tiny-file");
    // 1 incidence: at most 2 + 1,048,576 nodes.
    let tiny = "{\"nodes\":50000000,\"incidences\":[[0,1]]}";
    assert!(tiny.len() < 41);
    bad_input(
        &dir,
        "tiny.json",
        tiny,
        &["islands", "tiny.json"],
        "tiny.json:1: field 'nodes': 50000000 nodes is more than a file may ask for: at most 2 \
         per incidence plus 1,048,576, here 1,048,578; give --nodes 50000000 to allow it",
    );
    bad_input(
        &dir,
        "one.csv",
        "a,b\n0,1\n7,1048580\n",
        &["islands", "one.csv"],
        "one.csv:3: field 'b': node 1048580 makes 1048581 nodes, more than a file may ask for: \
         at most 2 per incidence plus 1,048,576, here 1,048,580; give --nodes 1048581 to allow it",
    );
    bad_input(
        &dir,
        "e.json",
        "{\"nodes\": 16387, \"edges\": [[0, 1]]}",
        &["reduce", "e.json"],
        "e.json:1: field 'nodes': 16387 nodes is more than a file may ask for: at most 2 per \
         edge plus 16,384, here 16,386; give --nodes 16387 to allow it",
    );

    // The limit itself is accepted, and --nodes lifts it.
    write(&dir, "at.json", "{\"nodes\": 16386, \"edges\": [[0, 1]]}");
    let run = run_ok(&dir, &["reduce", "at.json"]);
    assert_eq!(run.stdout, "source,target\n0,1\n");
    let run = run_ok(&dir, &["reduce", "e.json", "--nodes", "16387"]);
    assert!(run.stderr.contains("over 16387 nodes"), "{run:?}");

    write(
        &dir,
        "at.json",
        "{\"nodes\": 1048578, \"incidences\": [[0, 1]]}",
    );
    let run = run_ok(&dir, &["islands", "at.json"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1 + 1_048_578);
    assert_eq!(&lines[..4], ["node,island", "0,0", "1,0", "2,none"]);
    assert_eq!(lines[lines.len() - 1], "1048577,none");
}

#[cfg(unix)]
#[test]
fn the_largest_count_a_tiny_file_may_ask_for_runs_in_bounded_memory() {
    // 256 MiB of address space: what the bound promises a one-pair file,
    // with room for the runtime. Without the bound, 50,000,000 nodes needed
    // gigabytes and failed here.
    let dir = scratch("tiny-file-memory");
    write(
        &dir,
        "i.json",
        "{\"nodes\": 1048578, \"incidences\": [[0, 1]]}",
    );
    write(&dir, "e.json", "{\"nodes\": 16386, \"edges\": [[0, 1]]}");
    write(
        &dir,
        "huge.json",
        "{\"nodes\":50000000,\"incidences\":[[0,1]]}",
    );
    let limit = 256 * 1024;
    let run = run_within(&dir, limit, &["islands", "i.json"]);
    assert_eq!(run.status, 0, "{:?}", run.stderr);
    assert!(
        run.stderr.contains("over 1048578 nodes"),
        "{:?}",
        run.stderr
    );
    let run = run_within(&dir, limit, &["reduce", "e.json"]);
    assert_eq!(run.status, 0, "{:?}", run.stderr);
    let run = run_within(&dir, limit, &["islands", "huge.json"]);
    assert_eq!(run.status, 1, "{:?}", run.stderr);
    assert!(
        run.stderr.contains("give --nodes 50000000"),
        "{:?}",
        run.stderr
    );
    // Asked for on the command line, the same count does not fit in the
    // limit (the bound is what keeps a file's count cheap), and says so.
    let run = run_within(
        &dir,
        limit,
        &["islands", "huge.json", "--nodes", "50000000"],
    );
    assert_eq!(run.status, 1, "{:?}", run.stderr);
    assert!(
        run.stderr.contains("could not be allocated"),
        "{:?}",
        run.stderr
    );
}
