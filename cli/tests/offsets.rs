//! `aether-plan offsets`: good input checked against independent oracles
//! (pairwise overlap, brute-force peaks, the data's SOURCE.md figures), and
//! every kind of bad input with its exact one-line message.

mod common;

use common::*;

/// The rows of a `size,first_use,last_use[,...],offset` CSV as placements
/// (inclusive lifetimes become half-open ones).
fn inclusive_placements(header: &[String], rows: &[Vec<String>]) -> Vec<Placed> {
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (size, first, last, offset) = (
        col("size"),
        col("first_use"),
        col("last_use"),
        col("offset"),
    );
    assert_eq!(offset, header.len() - 1, "offset is the last column");
    rows.iter()
        .map(|r| Placed {
            size: num(&r[size]),
            start: num(&r[first]),
            end: num(&r[last]) + 1,
            offset: num(&r[offset]),
        })
        .collect()
}

/// The rows of a MiniMalloc `id,lower,upper,size,offset` CSV, read the way
/// MiniMalloc defines them: `[lower, upper)`.
fn minimalloc_placements(header: &[String], rows: &[Vec<String>]) -> Vec<Placed> {
    assert_eq!(header, ["id", "lower", "upper", "size", "offset"]);
    rows.iter()
        .map(|r| Placed {
            start: num(&r[1]),
            end: num(&r[2]),
            size: num(&r[3]),
            offset: num(&r[4]),
        })
        .collect()
}

/// The data rows of a repository CSV file, as strings.
fn data_rows(path: &str) -> (Vec<String>, Vec<Vec<String>>) {
    parse_csv(&std::fs::read_to_string(repo(path)).expect("read a data file"))
}

#[test]
fn the_main_command_prints_the_mobilenet_v1_summary_and_draws_it() {
    let dir = scratch("main-command");
    let run = run_ok(&dir, &["offsets", "--svg", "mobilenet_v1.svg"]);
    assert_eq!(run.stderr, "");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "plan of FP32 MobileNet V1 (embedded mobilenet_v1_fp32.csv)"
    );
    assert_eq!(lines[1], "  tensors          28");
    // data/networks/SOURCE.md: peak live bytes 4816896 (at node 2).
    assert_eq!(
        lines[2],
        "  peak live bytes  4,816,896 B (4.59 MiB)  the lower bound for any arena"
    );
    assert!(
        lines[3].starts_with("  arena            "),
        "{}",
        run.stdout
    );
    assert!(
        lines[4].starts_with("  arena / peak     "),
        "{}",
        run.stdout
    );
    // The greedy plan meets the peak, so the peak is the bound it proves.
    assert_eq!(
        lines[5],
        "  lower bound      4,816,896 B (4.59 MiB)  the peak live bytes"
    );
    assert_eq!(
        lines[6],
        "  proven optimal   yes: the arena equals the lower bound"
    );
    assert!(
        lines[7].starts_with("  planning time    ")
            && lines[7].ends_with("  (greedy best fit, decreasing size)"),
        "{}",
        run.stdout
    );
    assert_eq!(lines[8], "  svg              mobilenet_v1.svg");
    assert_eq!(lines.len(), 9);

    let svg = std::fs::read_to_string(dir.join("mobilenet_v1.svg")).expect("the SVG is written");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<title>tensor ").count(),
        28,
        "one rectangle per tensor"
    );
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
}

#[test]
fn mobilenet_v1_offsets_are_sound_and_echo_the_input_in_order() {
    let dir = scratch("v1-csv");
    let run = run_ok(&dir, &["offsets", "--format", "csv"]);
    let (header, rows) = parse_csv(&run.stdout);
    let (data_header, data) = data_rows("data/networks/mobilenet_v1_fp32.csv");
    assert_eq!(header, ["size", "first_use", "last_use", "offset"]);
    assert_eq!(data_header, header[..3]);
    assert_eq!(rows.len(), 28);
    for (row, input) in rows.iter().zip(&data) {
        assert_eq!(row[..3], input[..], "input order and values are kept");
    }
    let placed = inclusive_placements(&header, &rows);
    let arena = assert_sound(&placed);
    assert_eq!(brute_peak(&placed), 4_816_896);
    // The summary goes to stderr with --format csv, and agrees with the rows.
    assert_eq!(summary_bytes(&run.stderr, "arena "), arena);
    assert_eq!(summary_bytes(&run.stderr, "peak live bytes"), 4_816_896);
    assert!(arena >= 4_816_896);
}

#[test]
fn every_embedded_network_plans_soundly_with_its_documented_peak() {
    // Peaks from data/networks/SOURCE.md.
    let dir = scratch("networks");
    for (network, tensors, peak) in [
        ("v1", 28, 4_816_896),
        ("v2", 65, 6_021_120),
        ("v3-large", 122, 4_014_080),
        ("v3-small", 109, 1_605_632),
    ] {
        let run = run_ok(&dir, &["offsets", "--network", network, "--format", "csv"]);
        let (header, rows) = parse_csv(&run.stdout);
        assert_eq!(rows.len(), tensors, "{network}");
        let placed = inclusive_placements(&header, &rows);
        let arena = assert_sound(&placed);
        assert_eq!(brute_peak(&placed), peak, "{network}");
        assert_eq!(
            summary_bytes(&run.stderr, "peak live bytes"),
            peak,
            "{network}"
        );
        assert_eq!(summary_bytes(&run.stderr, "arena "), arena, "{network}");
    }
}

#[test]
fn minimalloc_k_is_read_with_exclusive_upper_bounds() {
    let dir = scratch("minimalloc-k");
    let path = repo("data/minimalloc/challenging/K.1048576.csv");
    let path = path.to_str().unwrap();
    let run = run_ok(&dir, &["offsets", path, "--format", "csv"]);
    let (header, rows) = parse_csv(&run.stdout);
    let (_, data) = data_rows("data/minimalloc/challenging/K.1048576.csv");
    assert_eq!(rows.len(), 454);
    for (row, input) in rows.iter().zip(&data) {
        assert_eq!(row[..4], input[..]);
    }
    let placed = minimalloc_placements(&header, &rows);
    let arena = assert_sound(&placed);
    // SOURCE.md: peak 1048576 with [lower, upper); reading upper as
    // inclusive would give 1980416.
    assert_eq!(brute_peak(&placed), 1_048_576);
    assert_eq!(summary_bytes(&run.stderr, "peak live bytes"), 1_048_576);
    assert_eq!(summary_bytes(&run.stderr, "arena "), arena);
    assert!(
        run.stderr.contains("  tensors          454\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn minimalloc_example_fits_its_known_optimum() {
    // MiniMalloc's README: the five buffers of input.12.csv fit in 12 bytes.
    let dir = scratch("minimalloc-12");
    let path = repo("data/minimalloc/examples/input.12.csv");
    let run = run_ok(
        &dir,
        &["offsets", path.to_str().unwrap(), "--format", "csv"],
    );
    let (header, rows) = parse_csv(&run.stdout);
    assert_eq!(rows.len(), 5);
    let placed = minimalloc_placements(&header, &rows);
    assert_eq!(assert_sound(&placed), 12);
    assert_eq!(brute_peak(&placed), 12);
    // b1 [0,3) and b2 [3,9) do not meet, so they may share bytes.
    assert!(
        run.stderr.contains("  arena            12 B\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn json_output_is_one_document_with_every_offset() {
    let dir = scratch("json");
    let run = run_ok(&dir, &["offsets", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    let plan = doc["plan"].as_array().expect("a plan array");
    assert_eq!(doc["tensors"], 28);
    assert_eq!(plan.len(), 28);
    let placed: Vec<Placed> = plan
        .iter()
        .map(|t| Placed {
            size: t["size"].as_u64().unwrap(),
            start: t["first_use"].as_u64().unwrap(),
            end: t["last_use"].as_u64().unwrap() + 1,
            offset: t["offset"].as_u64().unwrap(),
        })
        .collect();
    let arena = assert_sound(&placed);
    assert_eq!(doc["arena_size"].as_u64(), Some(arena));
    assert_eq!(doc["peak_live_bytes"].as_u64(), Some(brute_peak(&placed)));
    assert_eq!(plan[0]["line"], 2, "rows point back at their line");
    assert!(run.stderr.contains("  tensors          28\n"));
}

#[test]
fn table_output_follows_the_summary() {
    let dir = scratch("table");
    let path = repo("data/minimalloc/examples/input.12.csv");
    let run = run_ok(
        &dir,
        &["offsets", path.to_str().unwrap(), "--format", "table"],
    );
    let (header, rows) = parse_table(&run.stdout);
    assert_eq!(
        header,
        [
            "tensor",
            "line",
            "id",
            "size",
            "first_use",
            "last_use",
            "offset",
            "end"
        ]
    );
    // b2 is [3, 9) in MiniMalloc's terms: inclusive nodes 3..=8.
    assert_eq!(rows[1][..6], ["1", "3", "b2", "4", "3", "8"]);
    assert_eq!(rows.len(), 5);
}

#[test]
fn columns_may_come_in_any_order_and_others_are_kept() {
    let dir = scratch("columns");
    write(
        &dir,
        "named.csv",
        "Last_Use, name ,size,first_use,offset\n1,conv,100,0,999\n2,\"relu, 6\",80,1,999\n3,pool,0,2,999\n",
    );
    let run = run_ok(&dir, &["offsets", "named.csv", "--format", "csv"]);
    let (header, rows) = parse_csv(&run.stdout);
    // A stale offset column is replaced by the plan's.
    assert_eq!(header, ["Last_Use", "name", "size", "first_use", "offset"]);
    assert_eq!(rows[1][1], "relu, 6");
    let placed: Vec<Placed> = rows
        .iter()
        .map(|r| Placed {
            size: num(&r[2]),
            start: num(&r[3]),
            end: num(&r[0]) + 1,
            offset: num(&r[4]),
        })
        .collect();
    assert_eq!(assert_sound(&placed), 180);
    assert_eq!(rows[2][4], "0", "a zero-size tensor gets offset 0");
}

#[test]
fn standard_input_is_read_for_a_dash() {
    let dir = scratch("stdin");
    let run = run_with_stdin(
        &dir,
        &["offsets", "-", "--format", "csv"],
        "size,first_use,last_use\n100,0,1\n80,1,2\n60,2,3\n",
    );
    assert_eq!(run.status, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "size,first_use,last_use,offset\n100,0,1,0\n80,1,2,100\n60,2,3,0\n"
    );
    assert!(run.stderr.starts_with("plan of <stdin>\n"));
}

#[test]
fn a_large_plan_draws_every_tensor() {
    let dir = scratch("svg-k");
    let path = repo("data/minimalloc/challenging/K.1048576.csv");
    run_ok(&dir, &["offsets", path.to_str().unwrap(), "--svg", "k.svg"]);
    let svg = std::fs::read_to_string(dir.join("k.svg")).unwrap();
    assert_eq!(svg.matches("<title>tensor ").count(), 454);
    assert!(svg.contains("peak live bytes"));
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
}

#[test]
fn the_committed_pictures_are_what_the_tool_draws() {
    // Run from the repository's root, as docs/cli.md does, so that titles
    // name the files the same way.
    let out = scratch("docs");
    let root = repo("");
    for (input, doc) in [
        (None, "docs/mobilenet_v1.svg"),
        (
            Some("data/minimalloc/challenging/K.1048576.csv"),
            "docs/minimalloc_K.svg",
        ),
    ] {
        let svg = out.join("out.svg");
        let mut args = vec!["offsets"];
        args.extend(input);
        args.extend(["--svg", svg.to_str().unwrap()]);
        run_ok(&root, &args);
        let drawn = std::fs::read_to_string(&svg).unwrap();
        let committed = std::fs::read_to_string(repo(doc)).unwrap();
        assert!(
            drawn == committed,
            "{doc} is stale: regenerate it with `cargo run --release -p aether-plan -- {}`",
            args[..args.len() - 1].join(" ") + " " + doc
        );
    }
}

// ---- bad input: one line naming file, line and field; exit status 1 ----

const HEADER: &str = "size,first_use,last_use\n";

fn bad_table(test: &str, text: &str, message: &str) {
    let dir = scratch(test);
    bad_input(&dir, "bad.csv", text, &["offsets", "bad.csv"], message);
    // With every output requested, still nothing is printed or drawn.
    let run = run(
        &dir,
        &["offsets", "bad.csv", "--format", "csv", "--svg", "bad.svg"],
    );
    assert_error(&run, message);
    assert!(
        !dir.join("bad.svg").exists(),
        "no picture of a refused plan"
    );
}

#[test]
fn a_non_number_is_refused() {
    bad_table(
        "nan",
        &format!("{HEADER}100,0,1\nabc,1,2\n"),
        "bad.csv:3: field 'size': \"abc\" is not a whole number",
    );
    bad_table(
        "fraction",
        &format!("{HEADER}100,0,1.5\n"),
        "bad.csv:2: field 'last_use': \"1.5\" is not a whole number",
    );
    bad_table(
        "blank-field",
        &format!("{HEADER}100,,1\n"),
        "bad.csv:2: field 'first_use': empty; expected a whole number",
    );
    bad_table(
        "huge",
        &format!("{HEADER}99999999999999999999999,0,1\n"),
        "bad.csv:2: field 'size': 99999999999999999999999 is too large (at most 18446744073709551615)",
    );
}

#[test]
fn a_negative_size_is_refused() {
    bad_table(
        "negative",
        &format!("{HEADER}100,0,1\n-5,1,2\n"),
        "bad.csv:3: field 'size': -5 is negative; size must be 0 or more",
    );
    bad_table(
        "negative-node",
        &format!("{HEADER}100,-1,2\n"),
        "bad.csv:2: field 'first_use': -1 is negative; first_use must be 0 or more",
    );
}

#[test]
fn first_use_after_last_use_is_refused() {
    bad_table(
        "backwards",
        &format!("{HEADER}100,0,1\n\n5,3,2\n"),
        "bad.csv:4: field 'first_use': 3 is after last_use 2; lifetimes are inclusive node \
         indices, first_use <= last_use",
    );
}

#[test]
fn minimalloc_upper_not_above_lower_is_refused() {
    let header = "id,lower,upper,size\n";
    bad_table(
        "upper-equal",
        &format!("{header}b1,0,3,4\nb2,5,5,4\n"),
        "bad.csv:3: field 'upper': 5 is not above lower 5; upper is exclusive, so the buffer \
         would be live at no time",
    );
    bad_table(
        "upper-below",
        &format!("{header}b1,7,0,4\n"),
        "bad.csv:2: field 'upper': 0 is not above lower 7; upper is exclusive, so the buffer \
         would be live at no time",
    );
    bad_table(
        "lower-nan",
        &format!("{header}b1,x,3,4\n"),
        "bad.csv:2: field 'lower': \"x\" is not a whole number",
    );
}

#[test]
fn an_empty_file_is_refused() {
    let message = "bad.csv:1: empty file; expected a header line 'size,first_use,last_use' or \
                   'id,lower,upper,size'";
    bad_table("empty", "", message);
    bad_table("blank", "\n   \n\n", message);
}

#[test]
fn a_missing_header_is_refused() {
    bad_table(
        "no-header",
        "100,0,1\n80,1,2\n",
        "bad.csv:1: missing header: the first line is data (\"100,0,1\"); put a header line \
         'size,first_use,last_use' or 'id,lower,upper,size' above it",
    );
    bad_table(
        "unknown-header",
        "bytes,from,to\n100,0,1\n",
        "bad.csv:1: unknown header \"bytes,from,to\"; expected 'size,first_use,last_use' or \
         'id,lower,upper,size'",
    );
    bad_table(
        "partial-header",
        "size,first_use\n100,0\n",
        "bad.csv:1: field 'last_use': missing from the header \"size,first_use\"; expected \
         'size,first_use,last_use' or 'id,lower,upper,size'",
    );
    bad_table(
        "header-only",
        HEADER,
        "bad.csv:2: no tensors: the header \"size,first_use,last_use\" is not followed by any row",
    );
}

#[test]
fn a_row_of_the_wrong_width_is_refused() {
    bad_table(
        "short-row",
        &format!("{HEADER}100,0,1\n80,1\n"),
        "bad.csv:3: field 'last_use': missing; the row has 2 of the header's 3 fields \
         (size,first_use,last_use)",
    );
    bad_table(
        "long-row",
        &format!("{HEADER}100,0,1,7\n"),
        "bad.csv:2: 4 fields, but the header (size,first_use,last_use) has 3",
    );
}

#[test]
fn sizes_that_overflow_are_refused_at_their_row() {
    bad_table(
        "overflow",
        &format!("{HEADER}18446744073709551615,0,1\n2,1,2\n"),
        "bad.csv:3: field 'size': 2 bytes overflow: an offset or a sum of live bytes would \
         pass 18446744073709551615",
    );
}

#[test]
fn a_missing_file_is_refused() {
    let dir = scratch("missing-file");
    let run = run(&dir, &["offsets", "nowhere.csv"]);
    assert_error(
        &run,
        "nowhere.csv: cannot read: No such file or directory (os error 2)",
    );
}

#[test]
fn lines_are_counted_as_an_editor_counts_them() {
    // Blank lines, lines of spaces, CRLF endings and a quoted field that
    // spans two lines all move the line number the way an editor shows it.
    bad_table(
        "crlf",
        "\r\n  \r\nsize,first_use,last_use\r\n100,0,1\r\n\r\n   \r\n7,3,2\r\n",
        "bad.csv:7: field 'first_use': 3 is after last_use 2; lifetimes are inclusive node \
         indices, first_use <= last_use",
    );
    bad_table(
        "quoted",
        "size,first_use,last_use,note\n100,0,1,\"two\nlines\"\n5,x,2,\n",
        "bad.csv:4: field 'first_use': \"x\" is not a whole number",
    );
}
