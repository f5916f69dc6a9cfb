//! `aether-plan offsets --strategy --align --budget-*`: every strategy's plan
//! checked against oracles written here (pairwise overlap on sizes rounded up
//! to the alignment, brute-force peaks, a brute-force optimum for small
//! tables), and the summary's new lines. Bad flag values: `flags.rs`.

mod common;

use common::*;

/// MiniMalloc's `challenging/C`: 203 buffers, `upper` exclusive.
const C: &str = "data/minimalloc/challenging/C.1048576.csv";

/// Search budgets stay small so that debug builds stay fast.
const NODES: &str = "2000";

/// `size` rounded up to a multiple of `alignment`.
fn round_up(size: u64, alignment: u64) -> u64 {
    size.div_ceil(alignment) * alignment
}

/// The rows of a MiniMalloc `id,lower,upper,size,offset` CSV as placements
/// over `[lower, upper)`, with sizes rounded up to `alignment`.
fn placements(csv: &str, alignment: u64) -> Vec<Placed> {
    let (header, rows) = parse_csv(csv);
    assert_eq!(header, ["id", "lower", "upper", "size", "offset"]);
    rows.iter()
        .map(|r| Placed {
            start: num(&r[1]),
            end: num(&r[2]),
            size: round_up(num(&r[3]), alignment),
            offset: num(&r[4]),
        })
        .collect()
}

/// The rest of the summary line that starts with `label`.
fn summary_line<'a>(summary: &'a str, label: &str) -> Option<&'a str> {
    summary
        .lines()
        .find_map(|l| l.strip_prefix("  ")?.strip_prefix(label))
        .map(str::trim_start)
}

/// What one `--format csv` run of a MiniMalloc file showed, checked for
/// soundness and for agreement between the rows and the summary.
struct Checked {
    csv: String,
    summary: String,
    arena: u64,
    lower_bound: u64,
}

/// Plans `file` with `flags` and checks the result at `alignment`.
fn plan_and_check(test: &str, file: &str, alignment: u64, flags: &[&str]) -> Checked {
    let dir = scratch(test);
    let path = repo(file);
    let mut args = vec!["offsets", path.to_str().unwrap(), "--format", "csv"];
    args.extend(flags);
    let run = run_ok(&dir, &args);
    let what = format!("{args:?}");

    // The rows echo the input, sizes as given.
    let (_, input) = parse_csv(&std::fs::read_to_string(&path).unwrap());
    let (_, rows) = parse_csv(&run.stdout);
    assert_eq!(rows.len(), input.len(), "{what}");
    for (row, given) in rows.iter().zip(&input) {
        assert_eq!(row[..4], given[..], "{what}");
    }

    let placed = placements(&run.stdout, alignment);
    for p in &placed {
        assert_eq!(p.offset % alignment, 0, "{what}: {p:?} is not aligned");
    }
    let arena = assert_sound(&placed);
    let peak = brute_peak(&placed);
    let summary = run.stderr;
    assert_eq!(summary_bytes(&summary, "arena "), arena, "{what}");
    assert_eq!(summary_bytes(&summary, "peak live bytes"), peak, "{what}");
    let lower_bound = summary_bytes(&summary, "lower bound");
    assert!(
        peak <= lower_bound && lower_bound <= arena,
        "{what}: the bound {lower_bound} must lie between the peak {peak} and the arena {arena}"
    );
    let optimal = summary_line(&summary, "proven optimal").expect("a proven optimal line");
    assert_eq!(
        optimal.starts_with("yes"),
        arena == lower_bound,
        "{what}: {optimal}"
    );
    if arena > lower_bound {
        let over = arena - lower_bound;
        let shown = if over < 1024 {
            format!("{over} B")
        } else {
            format!("{} B (", grouped(over))
        };
        assert!(
            optimal.starts_with(&format!("no: the arena exceeds the lower bound by {shown}")),
            "{what}: {optimal}"
        );
    }
    match summary_line(&summary, "alignment") {
        Some(line) if alignment > 1 => assert!(
            line.starts_with(&format!("{} B", grouped(alignment)))
                && line.contains("every offset a multiple of it")
                && line.contains("sizes are rounded up to it"),
            "{what}: {line}"
        ),
        Some(line) => panic!("{what}: an alignment line without --align: {line}"),
        None => assert_eq!(alignment, 1, "{what}: no alignment line in\n{summary}"),
    }
    Checked {
        csv: run.stdout,
        summary,
        arena,
        lower_bound,
    }
}

/// Digits grouped by thousands, written out here rather than taken from the
/// tool.
fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The number of search nodes the summary reports.
fn search_nodes(summary: &str) -> u64 {
    let line = summary_line(summary, "search nodes").expect("a search nodes line");
    num(&line.split_whitespace().next().unwrap().replace(',', ""))
}

#[test]
fn every_strategy_plans_minimalloc_c_soundly_at_every_alignment() {
    for alignment in [1u64, 4096] {
        let align = alignment.to_string();
        let greedy = plan_and_check("c-greedy", C, alignment, &["--align", &align]);
        let heuristic = plan_and_check(
            "c-heuristic",
            C,
            alignment,
            &["--strategy", "heuristic", "--align", &align],
        );
        let search = plan_and_check(
            "c-search",
            C,
            alignment,
            &[
                "--strategy",
                "search",
                "--align",
                &align,
                "--budget-nodes",
                NODES,
            ],
        );
        for (name, checked) in [("greedy", &greedy), ("heuristic", &heuristic)] {
            assert!(
                summary_line(&checked.summary, "search nodes").is_none(),
                "{name} searches nothing: {}",
                checked.summary
            );
        }
        assert!(
            heuristic.arena <= greedy.arena,
            "align {alignment}: heuristic {} above greedy {}",
            heuristic.arena,
            greedy.arena
        );
        assert!(
            search.arena <= heuristic.arena,
            "align {alignment}: search {} above the heuristic plan it starts from {}",
            search.arena,
            heuristic.arena
        );
        assert!(search.lower_bound >= greedy.lower_bound);
        let nodes = search_nodes(&search.summary);
        assert!(nodes <= 2000, "{nodes} nodes within a budget of 2000");
        let why = summary_line(&search.summary, "search nodes").unwrap();
        if search.arena == search.lower_bound {
            assert!(why.ends_with("the search stopped at the proof") || nodes == 0);
        } else {
            assert_eq!(nodes, 2000);
            assert!(why.ends_with("the node budget (2,000) ran out"), "{why}");
        }
        // The planning-time line names the planner.
        for (checked, method) in [
            (&greedy, "(greedy best fit, decreasing size)"),
            (&heuristic, "(best of several heuristics, then local moves)"),
            (&search, "(exact search from the heuristic plan)"),
        ] {
            let line = summary_line(&checked.summary, "planning time").unwrap();
            assert!(line.ends_with(method), "{line}");
        }
    }
}

#[test]
fn other_minimalloc_files_plan_soundly_with_each_strategy() {
    for (file, alignment) in [
        ("data/minimalloc/challenging/A.1048576.csv", 2048u64),
        ("data/minimalloc/challenging/K.1048576.csv", 8192),
    ] {
        let align = alignment.to_string();
        let greedy = plan_and_check("other-greedy", file, alignment, &["--align", &align]);
        let heuristic = plan_and_check(
            "other-heuristic",
            file,
            alignment,
            &["--strategy", "heuristic", "--align", &align],
        );
        let search = plan_and_check(
            "other-search",
            file,
            alignment,
            &[
                "--strategy",
                "search",
                "--align",
                &align,
                "--budget-nodes",
                NODES,
            ],
        );
        assert!(heuristic.arena <= greedy.arena, "{file}");
        assert!(search.arena <= heuristic.arena, "{file}");
    }
}

#[test]
fn greedy_with_default_flags_plans_exactly_as_without_them() {
    let path = repo(C);
    let path = path.to_str().unwrap();
    let dir = scratch("greedy-defaults");
    let plain = run_ok(&dir, &["offsets", path, "--format", "csv"]);
    let spelled = run_ok(
        &dir,
        &[
            "offsets",
            path,
            "--format",
            "csv",
            "--strategy",
            "greedy",
            "--align",
            "1",
        ],
    );
    assert_eq!(plain.stdout, spelled.stdout);
}

#[test]
fn a_node_budget_gives_the_same_offsets_on_every_run() {
    let flags = [
        "--strategy",
        "search",
        "--align",
        "4096",
        "--budget-nodes",
        NODES,
    ];
    let first = plan_and_check("same-1", C, 4096, &flags);
    let second = plan_and_check("same-2", C, 4096, &flags);
    assert_eq!(first.csv, second.csv);
    assert_eq!(search_nodes(&first.summary), search_nodes(&second.summary));
}

#[test]
fn standard_error_holds_only_the_summary_when_it_is_not_a_terminal() {
    // A progress line is for terminals; a pipe sees the summary alone.
    let checked = plan_and_check(
        "no-progress",
        C,
        1,
        &["--strategy", "search", "--budget-nodes", NODES],
    );
    let lines: Vec<&str> = checked.summary.lines().collect();
    assert_eq!(lines[0], format!("plan of {}", repo(C).display()));
    let labels: Vec<&str> = lines[1..].iter().map(|l| l[2..19].trim_end()).collect();
    assert_eq!(
        labels,
        [
            "tensors",
            "peak live bytes",
            "arena",
            "arena / peak",
            "lower bound",
            "proven optimal",
            "search nodes",
            "planning time"
        ]
    );
    assert!(!checked.summary.contains('\r') && !checked.summary.contains('\x1b'));
}

// ---- the optimum, by brute force, for small tables ----

/// Tensors as `(size, first, last)` with inclusive lifetimes.
type Table = Vec<(u64, u64, u64)>;

/// The smallest arena of any sound plan at `alignment`, by brute force: for
/// every order, each tensor at the lowest aligned offset clear of the
/// conflicting tensors before it. Some order gives an optimal plan (place
/// the tensors of an optimal plan by increasing offset: none lands higher
/// than it is there).
fn brute_optimum(table: &Table, alignment: u64) -> u64 {
    fn visit(
        table: &Table,
        sizes: &[u64],
        placed: &mut Vec<(usize, u64)>,
        used: &mut Vec<bool>,
        best: &mut u64,
    ) {
        let top = placed.iter().map(|&(i, o)| o + sizes[i]).max().unwrap_or(0);
        if top >= *best {
            return;
        }
        if placed.len() == table.len() {
            *best = top;
            return;
        }
        for i in 0..table.len() {
            if used[i] {
                continue;
            }
            let (_, first, last) = table[i];
            let mut conflicts: Vec<(u64, u64)> = placed
                .iter()
                .filter(|&&(j, _)| table[j].1 <= last && first <= table[j].2)
                .map(|&(j, o)| (o, o + sizes[j]))
                .collect();
            conflicts.sort_unstable();
            let mut offset = 0;
            for (low, high) in conflicts {
                if offset + sizes[i] <= low {
                    break;
                }
                offset = offset.max(high);
            }
            used[i] = true;
            placed.push((i, offset));
            visit(table, sizes, placed, used, best);
            placed.pop();
            used[i] = false;
        }
    }
    let sizes: Vec<u64> = table.iter().map(|t| round_up(t.0, alignment)).collect();
    let mut best = sizes.iter().sum::<u64>() + 1;
    visit(
        table,
        &sizes,
        &mut Vec::new(),
        &mut vec![false; table.len()],
        &mut best,
    );
    best
}

#[test]
fn an_unlimited_search_finds_the_brute_force_optimum() {
    let dir = scratch("optimum");
    let mut rng = Rng::new(0x5eed_1234_abcd_0001);
    for case in 0..16 {
        let n = 5 + rng.below_u64(4) as usize;
        let table: Table = (0..n)
            .map(|_| {
                let first = rng.below_u64(5);
                (1 + rng.below_u64(100), first, first + rng.below_u64(3))
            })
            .collect();
        let mut csv = String::from("size,first_use,last_use\n");
        for (size, first, last) in &table {
            csv.push_str(&format!("{size},{first},{last}\n"));
        }
        write(&dir, "small.csv", &csv);
        for alignment in [1u64, 16] {
            let optimum = brute_optimum(&table, alignment);
            let align = alignment.to_string();
            let mut arenas = Vec::new();
            for strategy in ["greedy", "heuristic", "search"] {
                let run = run_ok(
                    &dir,
                    &[
                        "offsets",
                        "small.csv",
                        "--format",
                        "csv",
                        "--strategy",
                        strategy,
                        "--align",
                        &align,
                        "--budget-nodes",
                        "none",
                    ],
                );
                let (_, rows) = parse_csv(&run.stdout);
                let placed: Vec<Placed> = rows
                    .iter()
                    .map(|r| Placed {
                        size: round_up(num(&r[0]), alignment),
                        start: num(&r[1]),
                        end: num(&r[2]) + 1,
                        offset: num(&r[3]),
                    })
                    .collect();
                assert!(placed.iter().all(|p| p.offset % alignment == 0));
                let arena = assert_sound(&placed);
                assert!(arena >= optimum, "case {case}: {strategy} beat the optimum");
                assert_eq!(summary_bytes(&run.stderr, "arena "), arena);
                let lower_bound = summary_bytes(&run.stderr, "lower bound");
                assert!(lower_bound <= optimum, "case {case}: the bound is proven");
                arenas.push((strategy, arena, run.stderr));
            }
            let (_, arena, summary) = &arenas[2];
            assert_eq!(
                *arena, optimum,
                "case {case}, align {alignment}: {table:?}\n{summary}"
            );
            assert_eq!(
                summary_line(summary, "proven optimal"),
                Some("yes: the arena equals the lower bound"),
                "{summary}"
            );
        }
    }
}

// ---- the other outputs with --align ----

#[test]
fn json_carries_the_options_and_the_rounded_sizes() {
    let dir = scratch("json-aligned");
    let path = repo("data/minimalloc/examples/input.12.csv");
    let run = run_ok(
        &dir,
        &[
            "offsets",
            path.to_str().unwrap(),
            "--format",
            "json",
            "--strategy",
            "search",
            "--align",
            "8",
            "--budget-nodes",
            "none",
        ],
    );
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert_eq!(doc["strategy"], "search");
    assert_eq!(doc["alignment"], 8);
    let plan = doc["plan"].as_array().unwrap();
    let placed: Vec<Placed> = plan
        .iter()
        .map(|t| {
            let size = t["size"].as_u64().unwrap();
            assert_eq!(t["rounded_size"].as_u64(), Some(round_up(size, 8)));
            Placed {
                size: round_up(size, 8),
                start: t["first_use"].as_u64().unwrap(),
                end: t["last_use"].as_u64().unwrap() + 1,
                offset: t["offset"].as_u64().unwrap(),
            }
        })
        .collect();
    let arena = assert_sound(&placed);
    // Five buffers of 4 bytes, rounded to 8: at most three live at once,
    // and the search proves the 24 bytes of that peak enough.
    assert_eq!(brute_peak(&placed), 24);
    assert_eq!(doc["arena_size"].as_u64(), Some(arena));
    assert_eq!(arena, 24);
    assert_eq!(doc["peak_live_bytes"].as_u64(), Some(24));
    assert_eq!(doc["lower_bound"].as_u64(), Some(24));
    assert_eq!(doc["proven_optimal"], true);
    assert!(doc["search_nodes"].is_u64());

    // Without --align there is no rounded size to report.
    let plain = run_ok(&dir, &["offsets", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&plain.stdout).unwrap();
    assert_eq!(doc["alignment"], 1);
    assert_eq!(doc["strategy"], "greedy");
    assert_eq!(doc["search_nodes"], 0);
    assert_eq!(doc["stacked_tensors"], 0);
    assert!(doc["plan"][0].get("rounded_size").is_none());
}

#[test]
fn the_table_shows_rounded_sizes_and_their_ends() {
    let dir = scratch("table-aligned");
    write(&dir, "t.csv", "size,first_use,last_use\n100,0,1\n80,1,2\n");
    let run = run_ok(
        &dir,
        &["offsets", "t.csv", "--format", "table", "--align", "64"],
    );
    let (header, table) = parse_table(&run.stdout);
    assert_eq!(
        header,
        [
            "tensor",
            "line",
            "size",
            "rounded",
            "first_use",
            "last_use",
            "offset",
            "end"
        ]
    );
    let rows: Vec<Vec<u64>> = table
        .iter()
        .map(|words| words.iter().copied().map(num).collect())
        .collect();
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row[3], round_up(row[2], 64));
        assert_eq!(row[7], row[6] + row[3]);
        assert_eq!(row[6] % 64, 0);
    }
    // Both live at node 1: 128 + 128 rounded bytes.
    assert!(
        run.stdout
            .contains("  alignment        64 B  every offset a multiple of it"),
        "{}",
        run.stdout
    );
    assert_eq!(summary_bytes(&run.stdout, "arena "), 256);
    assert_eq!(summary_bytes(&run.stdout, "peak live bytes"), 256);
}

#[test]
fn the_picture_draws_the_chosen_plan_at_rounded_sizes() {
    let dir = scratch("svg-aligned");
    write(
        &dir,
        "t.csv",
        "size,first_use,last_use\n100,0,1\n80,1,2\n64,2,3\n",
    );
    let run = run_ok(
        &dir,
        &[
            "offsets",
            "t.csv",
            "--strategy",
            "search",
            "--align",
            "64",
            "--svg",
            "t.svg",
        ],
    );
    assert!(run.stdout.contains("  svg              t.svg\n"));
    let svg = std::fs::read_to_string(dir.join("t.svg")).unwrap();
    assert!(
        svg.contains("exact search from the heuristic plan"),
        "{svg}"
    );
    assert!(svg.contains("aligned to 64 B: sizes rounded up"), "{svg}");
    assert!(
        svg.contains("its height its bytes rounded up to 64 B"),
        "{svg}"
    );
    assert!(svg.contains("<title>tensor 0: 128 B (128 B) rounded up from 100 B, nodes 0..=1"));
    assert!(svg.contains("<title>tensor 1: 128 B (128 B) rounded up from 80 B, nodes 1..=2"));
    assert!(svg.contains("<title>tensor 2: 64 B (64 B), nodes 2..=3"));
    assert!(svg.contains("arena = peak"), "256 B is the rounded peak");

    // The heights: tensors 0 and 1 are drawn equally tall, tensor 2 half as
    // tall.
    let heights: Vec<f64> = svg
        .split("<rect x=")
        .skip(1)
        .filter(|r| r.contains("<title>tensor"))
        .map(|r| {
            let h = r.split("height=\"").nth(1).unwrap();
            h[..h.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    assert_eq!(heights.len(), 3);
    assert!((heights[0] - heights[1]).abs() < 0.02, "{heights:?}");
    assert!((heights[0] - 2.0 * heights[2]).abs() < 0.02, "{heights:?}");
}

// ---- bad flag values: one line naming the flag, exit status 2 ----

#[test]
fn a_time_budget_beside_a_node_budget_gives_a_sound_plan() {
    // The result depends on the machine's speed, so only soundness is
    // checked; a node budget keeps the run short on any machine.
    let checked = plan_and_check(
        "time-budget",
        C,
        1,
        &[
            "--strategy",
            "search",
            "--budget-ms",
            "50",
            "--budget-nodes",
            NODES,
        ],
    );
    let why = summary_line(&checked.summary, "search nodes").unwrap();
    assert!(
        why.ends_with("ran out") || why.ends_with("the search stopped at the proof"),
        "{why}"
    );
}

/// A time budget too small for the first plan of a large table: the plan
/// is the stack, and both outputs say how many tensors were left unplanned.
#[test]
fn a_spent_time_budget_says_the_tensors_it_left_stacked() {
    let dir = scratch("stacked");
    let count = 5000;
    let mut csv = String::from("id,lower,upper,size\n");
    for i in 0..count {
        csv.push_str(&format!("{i},{i},{},{}\n", i + 2, 16 + i % 7));
    }
    let input = dir.join("chain.csv");
    std::fs::write(&input, csv).unwrap();
    let args = |format: &'static str| {
        [
            "offsets",
            input.to_str().unwrap(),
            "--strategy",
            "search",
            "--budget-ms",
            "0",
            "--format",
            format,
        ]
        .map(str::to_owned)
    };
    let json = run_ok(&dir, &args("json").each_ref().map(String::as_str));
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("stdout is JSON");
    assert_eq!(doc["stacked_tensors"], count);
    let sum: u64 = (0..count as u64).map(|i| 16 + i % 7).sum();
    assert_eq!(doc["arena_size"].as_u64(), Some(sum), "not the stack");
    let csv = run_ok(&dir, &args("csv").each_ref().map(String::as_str));
    let nodes = summary_line(&csv.stderr, "search nodes").expect("a search nodes line");
    assert!(nodes.contains("5,000 tensors stacked unplanned"), "{nodes}");
}
