//! `aether-plan offsets` on MiniMalloc's full CSV (alignment, gaps with
//! windows, hints, fixed offsets) and this tool's `reuses` column, with
//! `--capacity`. Every plan written is checked by `check` below, which reads
//! the problem from the test's own text with MiniMalloc's semantics and never
//! calls the planner.

mod common;

use std::collections::HashMap;

use common::*;

/// A gap `[lower, upper)` and its window.
type Gap = (u64, u64, Option<(u64, u64)>);

/// One buffer as MiniMalloc defines it: live over `[lower, upper)`, absent
/// (or only in its window) over each gap `[lower, upper)`.
#[derive(Debug, Clone)]
struct Buf {
    id: String,
    lower: u64,
    upper: u64,
    size: u64,
    alignment: u64,
    gaps: Vec<Gap>,
    fixed: Option<u64>,
    reuses: Option<String>,
}

/// The buffers of a MiniMalloc CSV, read by this test's own code.
fn problem(text: &str) -> Vec<Buf> {
    let (header, rows) = parse_csv(text);
    let col = |name: &str| header.iter().position(|h| h == name);
    let get = |r: &Vec<String>, name: &str| col(name).map(|c| r[c].trim().to_string());
    rows.iter()
        .map(|r| Buf {
            id: get(r, "id").unwrap(),
            lower: num(&get(r, "lower").unwrap()),
            upper: num(&get(r, "upper").unwrap()),
            size: num(&get(r, "size").unwrap()),
            alignment: get(r, "alignment")
                .filter(|a| !a.is_empty())
                .map_or(1, |a| num(&a)),
            gaps: get(r, "gaps")
                .unwrap_or_default()
                .split_whitespace()
                .map(|g| {
                    let (span, window) = match g.split_once('@') {
                        Some((s, w)) => {
                            let (lo, hi) = w.split_once(':').unwrap();
                            (s, Some((num(lo), num(hi))))
                        }
                        None => (g, None),
                    };
                    let (lo, hi) = span.split_once('-').unwrap();
                    (num(lo), num(hi), window)
                })
                .collect(),
            fixed: get(r, "offset")
                .filter(|o| !o.is_empty() && o != "-1")
                .map(|o| num(&o)),
            reuses: get(r, "reuses").filter(|s| !s.is_empty()),
        })
        .collect()
}

/// The bytes `[lo, hi)` buffer `b` at `offset` occupies at time `t`, if any.
fn occupied(b: &Buf, offset: u64, t: u64) -> Option<(u64, u64)> {
    if t < b.lower || t >= b.upper {
        return None;
    }
    for &(lo, hi, window) in &b.gaps {
        if lo <= t && t < hi {
            return window
                .filter(|(wlo, whi)| whi > wlo)
                .map(|(wlo, whi)| (offset + wlo, offset + whi));
        }
    }
    (b.size > 0).then_some((offset, offset + b.size))
}

/// Checks a plan (`offsets` by id) against every constraint and returns its
/// arena: offsets multiples of the buffer's and the plan's alignment, fixed
/// offsets kept, reusing buffers at the offset of the buffer they reuse and no
/// larger, no two buffers of different reuse groups sharing a byte at a time
/// both occupy it (gaps and windows as MiniMalloc defines them), and every
/// buffer within `capacity`.
fn check(bufs: &[Buf], offsets: &HashMap<String, u64>, align: u64, capacity: Option<u64>) -> u64 {
    let off = |b: &Buf| offsets[&b.id];
    let by_id: HashMap<&str, &Buf> = bufs.iter().map(|b| (b.id.as_str(), b)).collect();
    let root = |b: &Buf| -> String {
        let mut id = b.id.as_str();
        while let Some(r) = &by_id[id].reuses {
            id = r.as_str();
        }
        id.to_string()
    };
    let mut arena = 0;
    for b in bufs {
        let o = off(b);
        assert_eq!(
            o % b.alignment.max(align),
            0,
            "{} at {o} is misaligned",
            b.id
        );
        if let Some(f) = b.fixed {
            assert_eq!(o, f, "{} was fixed at {f}", b.id);
        }
        if let Some(r) = &b.reuses {
            let reused = by_id[r.as_str()];
            assert_eq!(o, off(reused), "{} reuses {r}'s memory", b.id);
            assert!(b.size <= reused.size, "{} is larger than {r}", b.id);
        }
        if b.size > 0 {
            arena = arena.max(o + b.size.div_ceil(align) * align);
        }
    }
    if let Some(c) = capacity {
        assert!(arena <= c, "arena {arena} passes the capacity {c}");
    }
    let end = bufs.iter().map(|b| b.upper).max().unwrap_or(0);
    for t in 0..end {
        for (i, a) in bufs.iter().enumerate() {
            for b in &bufs[i + 1..] {
                if root(a) == root(b) {
                    continue;
                }
                if let (Some(x), Some(y)) = (occupied(a, off(a), t), occupied(b, off(b), t)) {
                    assert!(
                        x.1 <= y.0 || y.1 <= x.0,
                        "{} {x:?} and {} {y:?} share bytes at time {t}",
                        a.id,
                        b.id
                    );
                }
            }
        }
    }
    arena
}

/// The offsets of a `--format minimalloc` (or csv) output, by id.
fn offsets(stdout: &str) -> HashMap<String, u64> {
    let (header, rows) = parse_csv(stdout);
    let id = header.iter().position(|h| h == "id").unwrap();
    assert_eq!(header.last().unwrap(), "offset");
    rows.iter()
        .map(|r| (r[id].clone(), num(r.last().unwrap())))
        .collect()
}

/// Plans `text` (written to `name`) with `args`, checks the plan and returns
/// the output and the arena.
fn plan_checked(dir: &std::path::Path, text: &str, args: &[&str]) -> (Run, u64) {
    write(dir, "t.csv", text);
    let mut all = vec!["offsets", "t.csv", "--format", "minimalloc"];
    all.extend(args);
    let run = run_ok(dir, &all);
    let align = flag(args, "--align").unwrap_or(1);
    let capacity = flag(args, "--capacity");
    let arena = check(&problem(text), &offsets(&run.stdout), align, capacity);
    assert!(
        run.stderr
            .contains(&format!("  arena            {arena} B\n")),
        "the summary's arena is the checker's: {}",
        run.stderr
    );
    (run, arena)
}

fn flag(args: &[&str], name: &str) -> Option<u64> {
    args.iter()
        .position(|a| *a == name)
        .map(|i| num(args[i + 1]))
}

const STRATEGIES: [&str; 3] = ["greedy", "heuristic", "search"];

#[test]
fn minimalloc_example_round_trips_in_its_own_format() {
    let dir = scratch("c-round-trip");
    let text = std::fs::read_to_string(repo("data/minimalloc/examples/input.12.csv")).unwrap();
    for strategy in STRATEGIES {
        let (run, arena) = plan_checked(&dir, &text, &["--strategy", strategy, "--capacity", "12"]);
        // MiniMalloc's README: the five buffers fit in 12 bytes, its capacity.
        assert_eq!(arena, 12);
        // Its own columns and rows, byte for byte, then the offset.
        let lines: Vec<&str> = run.stdout.lines().collect();
        let input: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "id,lower,upper,size,offset");
        assert_eq!(lines.len(), input.len());
        for (out, row) in lines[1..].iter().zip(&input[1..]) {
            let (kept, offset) = out.rsplit_once(',').unwrap();
            assert_eq!(kept, *row);
            num(offset);
        }
        // Read back, its offsets become fixed ones: the same plan again.
        let (again, _) = plan_checked(&dir, &run.stdout, &["--strategy", strategy]);
        assert_eq!(again.stdout, run.stdout);
    }
    // 11 bytes: below the peak (b3, b5 and b1 or b2 live together: 12).
    write(&dir, "t.csv", &text);
    let run = run(
        &dir,
        &["offsets", "t.csv", "--capacity", "11", "--svg", "x.svg"],
    );
    assert_error(
        &run,
        "t.csv: does not fit in --capacity 11 bytes, proven: the lower bound, 12 bytes, is \
         above it; no plan written",
    );
    assert!(!dir.join("x.svg").exists());
}

#[test]
fn a_gap_lets_two_buffers_share_bytes() {
    // a is live over [0, 4) but inactive over [1, 3), exactly when b lives.
    let dir = scratch("c-gap");
    let text = "id,lower,upper,size,gaps\na,0,4,4,1-3\nb,1,3,4,\n";
    for strategy in STRATEGIES {
        let (run, arena) = plan_checked(&dir, text, &["--strategy", strategy, "--capacity", "4"]);
        assert_eq!(arena, 4);
        assert_eq!(
            run.stdout,
            "id,lower,upper,size,gaps,offset\na,0,4,4,1-3,0\nb,1,3,4,,0\n"
        );
    }
    // Without the gap they cannot.
    write(&dir, "t.csv", "id,lower,upper,size\na,0,4,4\nb,1,3,4\n");
    let run = run(&dir, &["offsets", "t.csv", "--capacity", "4"]);
    assert_error(
        &run,
        "t.csv: does not fit in --capacity 4 bytes, proven: the lower bound, 8 bytes, is above \
         it; no plan written",
    );
}

#[test]
fn a_window_keeps_its_bytes() {
    // During its gap a keeps bytes [0, 2): b cannot sit at 0.
    let dir = scratch("c-window");
    let text = "id,lower,upper,size,gaps\na,0,4,4,1-3@0:2\nb,1,3,4,\n";
    write(&dir, "t.csv", text);
    for strategy in STRATEGIES {
        let run = run(
            &dir,
            &[
                "offsets",
                "t.csv",
                "--capacity",
                "4",
                "--strategy",
                strategy,
            ],
        );
        assert_error(
            &run,
            "t.csv: does not fit in --capacity 4 bytes, proven: the lower bound, 6 bytes, is \
             above it; no plan written",
        );
        let (run, arena) = plan_checked(&dir, text, &["--strategy", strategy, "--capacity", "6"]);
        assert_eq!(arena, 6);
        assert_eq!(offsets(&run.stdout)["b"], 2);
    }
}

#[test]
fn fixed_offsets_alignments_and_hints_are_kept() {
    let dir = scratch("c-fixed");
    // Model input and output pinned; the rest planned around them.
    // 167 bytes do not fit (see x below).
    let text = "id,lower,upper,size,alignment,hint,offset\n\
                in,0,2,64,64,-1,0\n\
                out,3,5,32,16,-1,96\n\
                x,1,4,40,8,,\n\
                y,2,4,8,32,64,-1\n\
                z,0,5,8,1,,\n";
    for strategy in STRATEGIES {
        for align in ["1", "8"] {
            let (run, _) = plan_checked(
                &dir,
                text,
                &[
                    "--strategy",
                    strategy,
                    "--align",
                    align,
                    "--capacity",
                    "168",
                ],
            );
            let o = offsets(&run.stdout);
            assert_eq!((o["in"], o["out"]), (0, 96));
            // x cannot sit under `in` (nodes 1) nor between `in` and `out`
            // (nodes 3: 32 bytes free, x has 40): it ends at 168.
            assert_eq!(o["x"], 128);
            assert!(run
                .stdout
                .starts_with("id,lower,upper,size,alignment,hint,offset\n"));
            assert!(run.stdout.contains("\nx,1,4,40,8,-1,"), "{}", run.stdout);
        }
    }
}

#[test]
fn reuse_puts_a_buffer_in_the_memory_of_another() {
    let dir = scratch("c-reuse");
    // relu runs in place over conv's output; pool cannot share with either.
    let text = "id,lower,upper,size,reuses\n\
                conv,0,2,64,\n\
                relu,1,3,64,conv\n\
                pool,2,4,32,\n\
                head,0,4,16,\n";
    for strategy in STRATEGIES {
        let (run, arena) = plan_checked(&dir, text, &["--strategy", strategy]);
        assert_eq!(arena, 112);
        let o = offsets(&run.stdout);
        assert_eq!(o["relu"], o["conv"]);
        assert!(run
            .stdout
            .starts_with("id,lower,upper,size,reuses,offset\n"));
        assert!(run.stdout.contains("\nrelu,1,3,64,conv,"));
    }
    // Chains: relu2 over relu over conv.
    let chain =
        "id,lower,upper,size,reuses\nconv,0,2,64,\nrelu,1,3,64,conv\nrelu2,2,4,32,relu\nb,0,4,8,\n";
    let (run, arena) = plan_checked(&dir, chain, &["--strategy", "search"]);
    assert_eq!(arena, 72);
    let o = offsets(&run.stdout);
    assert_eq!((o["relu"], o["relu2"]), (o["conv"], o["conv"]));
}

#[test]
fn the_inclusive_format_takes_the_same_constraints() {
    let dir = scratch("c-inclusive");
    // Gaps are inclusive here, as the lifetimes; a's gap covers nodes 1..=2.
    write(
        &dir,
        "t.csv",
        "name,size,first_use,last_use,gaps,fixed_offset,reuses\n\
         a,4,0,3,1-2,,\n\
         b,4,1,2,,,\n\
         c,4,4,5,,8,\n\
         d,2,5,6,,,c\n",
    );
    let run = run_ok(&dir, &["offsets", "t.csv", "--format", "minimalloc"]);
    assert_eq!(
        run.stdout,
        "id,lower,upper,size,gaps,reuses,offset\n\
         a,0,4,4,1-3,,0\n\
         b,1,3,4,,,0\n\
         c,4,6,4,,,8\n\
         d,5,7,2,,c,8\n"
    );
    check(
        &problem(&run.stdout.replace(",offset\n", ",planned\n")),
        &offsets(&run.stdout),
        1,
        None,
    );
    // The CSV keeps the input's columns and adds the plan's offset.
    let run = run_ok(&dir, &["offsets", "t.csv", "--format", "csv"]);
    assert!(run
        .stdout
        .starts_with("name,size,first_use,last_use,gaps,fixed_offset,reuses,offset\n"));
}

#[test]
fn names_label_the_json_and_the_picture() {
    let dir = scratch("c-json");
    write(
        &dir,
        "t.csv",
        "id,lower,upper,size,gaps,offset,reuses\n\
         a,0,4,4,1-2 2-3@1:3,8,\n\
         b,1,3,4,,,\n\
         c,4,6,2,,,a\n",
    );
    let run = run_ok(
        &dir,
        &[
            "offsets",
            "t.csv",
            "--format",
            "json",
            "--capacity",
            "64",
            "--svg",
            "t.svg",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["capacity"], 64);
    let plan = json["plan"].as_array().unwrap();
    assert_eq!(plan[0]["id"], "a");
    assert_eq!(plan[0]["fixed_offset"], 8);
    assert_eq!(plan[0]["offset"], 8);
    // Gaps in the JSON's inclusive terms, like its lifetimes.
    assert_eq!(
        plan[0]["gaps"],
        serde_json::json!([{"first": 1, "last": 1}, {"first": 2, "last": 2, "window": [1, 3]}])
    );
    assert_eq!(plan[2]["reuses"], 0);
    assert_eq!(plan[2]["offset"], 8);
    assert!(plan[1].get("gaps").is_none() && plan[1].get("fixed_offset").is_none());

    let svg = std::fs::read_to_string(dir.join("t.svg")).unwrap();
    assert_eq!(svg.matches("<title>tensor ").count(), 3);
    assert!(svg.contains("<title>tensor a: 4 B (4 B), nodes 0..=3, offset 8, fixed at 8, gap 1..=1 absent, gap 2..=2 keeps bytes 1..3</title>"));
    assert!(svg.contains(
        "<title>tensor c: 2 B (2 B), nodes 4..=5, offset 8, reuses the memory of a</title>"
    ));
    // a: its two stretches outside its gaps at full height, its window
    // lighter, nothing during the gap without one.
    let a = svg
        .split("<g stroke-width=\"2.4\"><title>tensor a:")
        .nth(1)
        .unwrap();
    let a = &a[..a.find("</g>").unwrap()];
    assert_eq!(a.matches("<rect").count(), 3);
    assert_eq!(a.matches("fill-opacity=\"0.45\"").count(), 1);
    assert!(svg.contains("<g stroke-dasharray=\"4 2\"><title>tensor c:"));
    // A name column labels tensors the same way.
    write(&dir, "n.csv", "name,size,first_use,last_use\nconv,4,0,1\n");
    let run = run_ok(
        &dir,
        &["offsets", "n.csv", "--format", "json", "--svg", "n.svg"],
    );
    assert!(run.stdout.contains("\"name\": \"conv\""));
    let svg = std::fs::read_to_string(dir.join("n.svg")).unwrap();
    assert!(svg.contains("<title>tensor conv:"));
}

#[test]
fn a_plan_the_strategy_did_not_find_is_not_said_impossible() {
    // The greedy needs 16 bytes here, the search finds 15.
    let dir = scratch("c-unproven");
    let text = "id,lower,upper,size\nt0,5,6,4\nt1,0,3,5\nt2,4,7,4\nt3,5,6,2\nt4,4,5,1\nt5,1,6,5\n";
    write(&dir, "t.csv", text);
    let greedy = run(
        &dir,
        &["offsets", "t.csv", "--capacity", "15", "--svg", "x.svg"],
    );
    let peak = summary_peak(&run_ok(&dir, &["offsets", "t.csv"]).stdout);
    assert_error(
        &greedy,
        &format!(
            "t.csv: does not fit in --capacity 15 bytes, not proven: the greedy planner found no \
             plan within it (lower bound {peak} bytes); --strategy search with a larger \
             --budget-nodes may find one; no plan written"
        ),
    );
    assert!(!dir.join("x.svg").exists());
    let (_, arena) = plan_checked(&dir, text, &["--strategy", "search", "--capacity", "15"]);
    assert_eq!(arena, 15);
    // The greedy's own 16 bytes fit a capacity of 16.
    let (_, arena) = plan_checked(&dir, text, &["--capacity", "16"]);
    assert_eq!(arena, 16);
}

/// The peak live bytes of a summary.
fn summary_peak(summary: &str) -> u64 {
    let line = summary
        .lines()
        .find(|l| l.starts_with("  peak live bytes"))
        .unwrap();
    num(line.split_whitespace().nth(3).unwrap())
}

#[test]
fn bad_constraints_name_their_row_and_column() {
    let dir = scratch("c-bad");
    let cases: &[(&str, &str)] = &[
        (
            "id,lower,upper,size,gaps\na,0,4,4,1:3\n",
            "bad.csv:2: field 'gaps': \"1:3\" is not a gap; expected lower-upper or lower-upper@wlo:whi",
        ),
        (
            "id,lower,upper,size,gaps\na,0,4,4,\nb,0,4,4,3-3\n",
            "bad.csv:3: field 'gaps': gap \"3-3\": upper 3 is not above lower 3; upper is exclusive",
        ),
        (
            "id,lower,upper,size,gaps\na,0,4,4,2-5\n",
            "bad.csv:2: field 'gaps': gap \"2-5\" is not inside the buffer's lifetime",
        ),
        (
            "id,lower,upper,size,gaps\nx,0,9,4,\na,0,4,4,1-2@0:5\n",
            "bad.csv:3: field 'gaps': gap \"1-2@0:5\" overlaps another gap of the buffer, or its \
             window passes the buffer's 4 bytes",
        ),
        (
            "id,lower,upper,size,gaps\na,0,9,4,1-4 3-5\n",
            "bad.csv:2: field 'gaps': gap \"3-5\" overlaps another gap of the buffer, or its \
             window passes the buffer's 4 bytes",
        ),
        (
            "id,lower,upper,size,alignment\na,0,4,4,1\nb,0,4,4,12\n",
            "bad.csv:3: field 'alignment': 12 is not a power of two (1, 2, 4, 8, ...)",
        ),
        (
            "id,lower,upper,size,alignment,offset\na,0,4,4,8,4\n",
            "bad.csv:2: field 'offset': 4 is not a multiple of 8, the alignment this buffer needs \
             (its own, --align, or that of a buffer reusing its memory)",
        ),
        (
            "id,lower,upper,size,offset\nin,0,4,8,0\nmid,0,9,4,\nout,2,6,8,4\n",
            "bad.csv:2: field 'offset': fixed at 0, it shares bytes with \"out\" (line 4) fixed at \
             4 while both are live",
        ),
        (
            "id,lower,upper,size,offset\na,0,4,x,0\n",
            "bad.csv:2: field 'size': \"x\" is not a whole number",
        ),
        (
            "id,lower,upper,size,hint\na,0,4,4,-5\n",
            "bad.csv:2: field 'hint': -5 is negative; hint must be 0 or more",
        ),
        (
            "id,lower,upper,size,reuses\na,0,4,4,\nb,3,5,4,c\n",
            "bad.csv:3: field 'reuses': \"c\" names no buffer of the table",
        ),
        (
            "id,lower,upper,size,reuses\na,0,4,4,\nb,3,5,8,a\n",
            "bad.csv:3: field 'reuses': its 8 bytes do not fit in the 4 bytes of \"a\" (line 2)",
        ),
        (
            "id,lower,upper,size,reuses\na,0,4,4,b\nb,3,5,4,a\n",
            "bad.csv:3: field 'reuses': reusing \"a\" (line 2) closes a cycle of reuses",
        ),
        (
            "id,lower,upper,size,reuses\na,0,4,4,a\n",
            "bad.csv:2: field 'reuses': a buffer cannot reuse its own memory",
        ),
        (
            "id,lower,upper,size,reuses\na,0,4,4,\na,3,5,4,\nb,5,6,4,a\n",
            "bad.csv:4: field 'reuses': \"a\" names 2 rows (lines 2, 3); the buffer it reuses must be named once",
        ),
        (
            "size,first_use,last_use,reuses\n4,0,4,\n4,3,5,7\n",
            "bad.csv:3: field 'reuses': tensor 7 does not exist: without an id or name column a \
             buffer is named by its index, 0 to 1",
        ),
        (
            "size,first_use,last_use,gaps\n4,0,4,3-2\n",
            "bad.csv:2: field 'gaps': gap \"3-2\": last 2 is before first 3",
        ),
    ];
    for (text, message) in cases {
        bad_input(
            &dir,
            "bad.csv",
            text,
            &[
                "offsets",
                "bad.csv",
                "--format",
                "minimalloc",
                "--svg",
                "bad.svg",
            ],
            message,
        );
        assert!(!dir.join("bad.svg").exists(), "{message}");
    }
}

/// 2^63: two of these live together pass `usize::MAX`.
const HALF: &str = "9223372036854775808";

#[test]
fn bytes_that_reuse_or_pause_are_not_counted_twice_before_planning() {
    // Summed raw, each pair passes usize::MAX at node 1; but b works in
    // place over a, or a pauses while b lives, so both fit in 2^63 bytes.
    let dir = scratch("c-no-raw-sum");
    let half: u64 = HALF.parse().unwrap();
    for text in [
        format!("id,lower,upper,size,reuses\na,0,2,{HALF},\nb,1,3,{HALF},a\n"),
        format!("id,lower,upper,size,gaps\na,0,3,{HALF},1-2\nb,1,2,{HALF},\n"),
    ] {
        write(&dir, "t.csv", &text);
        for strategy in STRATEGIES {
            let args = ["--format", "minimalloc", "--strategy", strategy];
            let run = run_ok(&dir, &[&["offsets", "t.csv"][..], &args].concat());
            let arena = check(&problem(&text), &offsets(&run.stdout), 1, None);
            assert_eq!(arena, half, "{text}");
            // The summary's figures, digits grouped.
            let figure = |name: &str| {
                let line = run.stderr.lines().find(|l| l.starts_with(name)).unwrap();
                num(&line[name.len()..]
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .replace(',', ""))
            };
            assert_eq!(figure("  peak live bytes"), half, "{}", run.stderr);
            assert_eq!(figure("  arena"), half, "{}", run.stderr);
        }
    }
    // Without the reuse the same sizes do not fit the address space: the
    // library's refusal, at the row of the tensor that passes it.
    bad_input(
        &dir,
        "bad.csv",
        &format!("id,lower,upper,size,alignment\na,0,2,{HALF},1\nb,1,3,{HALF},1\n"),
        &["offsets", "bad.csv"],
        "bad.csv:3: field 'size': 9223372036854775808 bytes overflow: an offset or a sum of live \
         bytes would pass 18446744073709551615",
    );
}

#[test]
fn minimalloc_output_reads_back_at_the_extremes() {
    // Every field at the edge of what the reader takes: upper usize::MAX,
    // a size of usize::MAX, an alignment of 2^63, a gap ending at the last
    // node, a hint of usize::MAX (on a buffer of no bytes, where it fits). Planned, written and read back (the
    // offsets then fixed), the output is the same, byte for byte.
    let dir = scratch("c-extremes");
    let max = "18446744073709551615";
    let below = "18446744073709551614";
    let texts = [
        format!("id,lower,upper,size\na,0,{max},{max}\nb,{below},{max},0\n"),
        format!(
            "id,lower,upper,size,alignment,hint,gaps\na,0,{max},{HALF},{HALF},-1,1-{max}@0:1\n\
             b,{below},{max},9223372036854775807,1,1,\nc,0,1,0,1,{max},\n"
        ),
    ];
    for text in &texts {
        // The greedy only: the heuristic's ordering key still overflows on
        // sizes and spans this large in debug builds.
        for strategy in ["greedy"] {
            write(&dir, "t.csv", text);
            let args = ["--format", "minimalloc", "--strategy", strategy];
            let first = run_ok(&dir, &[&["offsets", "t.csv"][..], &args].concat());
            write(&dir, "t.csv", &first.stdout);
            let again = run_ok(&dir, &[&["offsets", "t.csv"][..], &args].concat());
            assert_eq!(again.stdout, first.stdout, "{text}");
            // The columns read back as written.
            let (header, rows) = parse_csv(&first.stdout);
            let (_, input) = parse_csv(text);
            for (row, given) in rows.iter().zip(&input) {
                assert_eq!(row[..given.len()], given[..], "{header:?}");
            }
        }
    }
    // The inclusive format reaches one node further: a lifetime that ends
    // at usize::MAX has no exclusive upper, so it is refused before
    // planning; one node earlier it is written and read back.
    bad_input(
        &dir,
        "bad.csv",
        &format!("size,first_use,last_use\n4,0,1\n4,0,{max}\n"),
        &["offsets", "bad.csv", "--format", "minimalloc"],
        "bad.csv:3: field 'last_use': 18446744073709551615 cannot be written with --format \
         minimalloc, whose exclusive upper would be 18446744073709551616, past the largest \
         number read; --format csv or json writes it",
    );
    write(
        &dir,
        "t.csv",
        &format!("size,first_use,last_use\n4,0,{below}\n"),
    );
    let out = run_ok(&dir, &["offsets", "t.csv", "--format", "minimalloc"]);
    assert_eq!(
        out.stdout,
        format!("id,lower,upper,size,offset\n0,0,{max},4,0\n")
    );
    write(&dir, "t.csv", &out.stdout);
    let back = run_ok(&dir, &["offsets", "t.csv", "--format", "minimalloc"]);
    assert_eq!(back.stdout, out.stdout);
    // --format csv keeps the inclusive table as given.
    write(
        &dir,
        "t.csv",
        &format!("size,first_use,last_use\n4,0,{max}\n"),
    );
    let csv = run_ok(&dir, &["offsets", "t.csv", "--format", "csv"]);
    assert_eq!(
        csv.stdout,
        format!("size,first_use,last_use,offset\n4,0,{max},0\n")
    );
}
