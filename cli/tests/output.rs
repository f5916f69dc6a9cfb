//! What `offsets` writes, read back by other code: the CSV with the `csv`
//! crate and the JSON with `serde_json`, compared field by field with the
//! input and with the library's own plan of the same tensors; the CSV also
//! byte for byte with what the `csv` crate writes for those records. The
//! SVG is checked for well-formed markup, and at scale against a picture
//! whose merged pixels are computed here from the node indices alone.

mod common;

use aether_planner::{try_plan_offsets_with, PlanOptions, TensorLifetime};
use common::*;

/// A seeded tensor table in the inclusive format with a name column that
/// needs quoting, a free-text column, and an old `offset` column that the
/// plan replaces. Returns the text, each row's fields as written (unquoted)
/// and the tensors.
fn table(rows: usize, seed: u64) -> (String, Vec<Vec<String>>, Vec<TensorLifetime>) {
    let mut rng = Rng::new(seed);
    let mut text = String::from("name,size,first_use,note,last_use,offset\n");
    let mut fields = Vec::new();
    let mut tensors = Vec::new();
    for i in 0..rows {
        let size =
            [0, 1, 64, 1000, 4096, 65_536][rng.below_u64(6) as usize] + rng.below_u64(3) as usize;
        let first = rng.below_u64(rows as u64 / 3 + 1) as usize;
        let span = if rng.below_u64(20) == 0 { 400 } else { 6 };
        let last = first + rng.below_u64(span) as usize;
        let name = match rng.below_u64(4) {
            0 => format!("t{i}, part \"{}\"", rng.below_u64(9)),
            1 => format!("conv/{i}"),
            2 => format!("x{i}"),
            _ => String::new(),
        };
        let note = ["", "a \"quoted\" note", "plain", "semi;colon"][rng.below_u64(4) as usize];
        let row = vec![
            name,
            size.to_string(),
            first.to_string(),
            note.to_string(),
            last.to_string(),
        ];
        let mut writer = csv::Writer::from_writer(Vec::new());
        let old_offset = rng.below_u64(99).to_string();
        writer
            .write_record(row.iter().map(String::as_str).chain([old_offset.as_str()]))
            .unwrap();
        text.push_str(std::str::from_utf8(&writer.into_inner().unwrap()).unwrap());
        fields.push(row);
        tensors.push(TensorLifetime::new(size, first, last));
    }
    (text, fields, tensors)
}

/// The library's greedy offsets of `tensors`.
fn library_offsets(tensors: &[TensorLifetime]) -> (Vec<usize>, usize) {
    let report = try_plan_offsets_with(tensors, &PlanOptions::default()).unwrap();
    (report.plan.offsets, report.plan.arena_size)
}

/// The most bytes live at one node, by a sweep over sorted starts and ends.
fn sweep_peak(tensors: &[TensorLifetime]) -> usize {
    let mut events: Vec<(u128, i128)> = Vec::new();
    for t in tensors {
        events.push((t.first_use as u128, t.size as i128));
        events.push((t.last_use as u128 + 1, -(t.size as i128)));
    }
    // Ends before starts at the same time: a tensor ending at t - 1 and one
    // starting at t are not live together.
    events.sort_by_key(|&(time, delta)| (time, delta));
    let (mut live, mut peak) = (0i128, 0i128);
    for (_, delta) in events {
        live += delta;
        peak = peak.max(live);
    }
    peak as usize
}

#[test]
fn the_csv_echoes_every_field_and_carries_the_librarys_offsets() {
    let dir = scratch("output-csv");
    let (text, fields, tensors) = table(3_000, 0x5eed_c5f1);
    write(&dir, "t.csv", &text);
    let run = run_ok(&dir, &["offsets", "t.csv", "--format", "csv"]);
    let (offsets, arena) = library_offsets(&tensors);

    let (header, rows) = parse_csv(&run.stdout);
    assert_eq!(
        header,
        ["name", "size", "first_use", "note", "last_use", "offset"]
    );
    assert_eq!(rows.len(), tensors.len());
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[..5], fields[i][..], "row {i}");
        assert_eq!(num(&row[5]) as usize, offsets[i], "row {i}'s offset");
    }
    assert_eq!(summary_bytes(&run.stderr, "arena "), arena as u64);

    // Byte for byte what the csv crate writes for the same records.
    let mut expected = csv::Writer::from_writer(Vec::new());
    expected.write_record(&header).unwrap();
    for (row, offset) in fields.iter().zip(&offsets) {
        let offset = offset.to_string();
        expected
            .write_record(row.iter().map(String::as_str).chain([offset.as_str()]))
            .unwrap();
    }
    assert!(run.stdout.as_bytes() == expected.into_inner().unwrap().as_slice());
}

#[test]
fn the_json_holds_every_tensor_the_figures_and_the_librarys_offsets() {
    let dir = scratch("output-json");
    let (text, fields, tensors) = table(2_000, 0x0c0f_fee5);
    write(&dir, "t.csv", &text);
    let run = run_ok(&dir, &["offsets", "t.csv", "--format", "json"]);
    let (offsets, arena) = library_offsets(&tensors);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("valid JSON");
    assert!(run.stdout.ends_with("}\n"));
    assert_eq!(json["input"], "t.csv");
    assert_eq!(json["format"], "size,first_use,last_use");
    assert_eq!(json["strategy"], "greedy");
    assert_eq!(json["tensors"], tensors.len());
    assert_eq!(json["arena_size"], arena);
    assert_eq!(json["peak_live_bytes"], sweep_peak(&tensors));
    let plan = json["plan"].as_array().expect("a plan array");
    assert_eq!(plan.len(), tensors.len());
    for (i, entry) in plan.iter().enumerate() {
        // No field of the generated table holds a line break: row i is line
        // i + 2.
        assert_eq!(entry["line"], i + 2);
        assert_eq!(entry["name"], fields[i][0].as_str());
        assert_eq!(entry["size"], tensors[i].size);
        assert_eq!(entry["first_use"], tensors[i].first_use);
        assert_eq!(entry["last_use"], tensors[i].last_use);
        assert_eq!(entry["offset"], offsets[i], "tensor {i}");
        assert_eq!(entry.as_object().unwrap().len(), 6, "{entry}");
    }
}

#[test]
fn minimalloc_output_and_the_table_carry_the_librarys_offsets() {
    let dir = scratch("output-minimalloc");
    let mut rng = Rng::new(77);
    let mut text = String::from("id,lower,upper,size\n");
    let mut tensors = Vec::new();
    for i in 0..4_000 {
        let lower = rng.below_u64(2_000) as usize;
        let upper = lower + 1 + rng.below_u64(30) as usize;
        let size = 1 + rng.below_u64(5_000) as usize;
        text.push_str(&format!("b{i},{lower},{upper},{size}\n"));
        tensors.push(TensorLifetime::new(size, lower, upper - 1));
    }
    write(&dir, "m.csv", &text);
    let (offsets, _) = library_offsets(&tensors);

    let run = run_ok(&dir, &["offsets", "m.csv", "--format", "minimalloc"]);
    let (header, rows) = parse_csv(&run.stdout);
    assert_eq!(header, ["id", "lower", "upper", "size", "offset"]);
    let input: Vec<&str> = text.lines().skip(1).collect();
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[..4].join(","), input[i]);
        assert_eq!(num(&row[4]) as usize, offsets[i]);
    }
    assert_eq!(rows.len(), tensors.len());

    let run = run_ok(&dir, &["offsets", "m.csv", "--format", "table"]);
    let (heading, rows) = parse_table(&run.stdout);
    assert_eq!(
        heading,
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
    assert_eq!(rows.len(), tensors.len());
    for (i, row) in rows.iter().enumerate() {
        let t = &tensors[i];
        let expected = [
            i.to_string(),
            (i + 2).to_string(),
            format!("b{i}"),
            t.size.to_string(),
            t.first_use.to_string(),
            t.last_use.to_string(),
            offsets[i].to_string(),
            (offsets[i] + t.size).to_string(),
        ];
        assert_eq!(row[..], expected[..], "table row {i}");
    }
}

/// Checks that `svg` is well-formed markup: every tag closed in order, one
/// root `<svg>`, attribute values quoted, `&` only in entities and no `<`
/// in text. Returns how many elements of each name it holds.
fn well_formed(svg: &str) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    let mut open: Vec<&str> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(at) = rest.find('<') {
        let text = &rest[..at];
        for (k, _) in text.match_indices('&') {
            let entity = &text[k..text[k..].find(';').map_or(text.len(), |e| k + e + 1)];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;"].contains(&entity),
                "a bare & in {text:?}"
            );
        }
        let end = at + rest[at..].find('>').expect("every tag ends");
        let tag = &rest[at + 1..end];
        assert!(!tag.contains('<'), "a < inside tag {tag:?}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name), "closing {name}");
        } else {
            let name = tag.split([' ', '/']).next().unwrap();
            assert!(open.is_empty() || roots == 1, "one root");
            if open.is_empty() {
                roots += 1;
            }
            // Attribute values: an even number of quotes.
            assert_eq!(tag.matches('"').count() % 2, 0, "quotes in {tag:?}");
            *counts.entry(name.to_string()).or_insert(0) += 1;
            if !tag.ends_with('/') {
                open.push(name);
            }
        }
        rest = &rest[end + 1..];
    }
    assert!(open.is_empty(), "unclosed {open:?}");
    assert_eq!(roots, 1);
    assert_eq!(rest.trim(), "");
    counts
}

/// The merged shape's rectangles as `(x, y, width, height)`.
fn merged_rectangles(svg: &str) -> Vec<[usize; 4]> {
    let path = svg
        .lines()
        .find(|l| l.starts_with("<path fill=\"#8a9bb0\""))
        .expect("a merged shape");
    let d = path.split("d=\"").nth(1).unwrap().trim_end_matches("\"/>");
    d.split('z')
        .filter(|r| !r.is_empty())
        .map(|r| {
            let n: Vec<usize> = r
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            assert_eq!(n.len(), 5, "{r:?}");
            assert_eq!(n[2], n[4], "{r:?} closes where it started");
            [n[0], n[1], n[2], n[3]]
        })
        .collect()
}

#[test]
fn a_large_picture_merges_the_tensors_under_a_pixel_exactly() {
    // One byte at each node of 0..10,007 except 4,000..6,000: the greedy
    // puts every tensor at offset 0, so the arena is one byte, the plot is
    // full height wherever a tensor lives, and each node is 840 / 10,007 of
    // a pixel wide (a prime count: no node boundary falls on a pixel's).
    let dir = scratch("output-svg-merged");
    const NODES: usize = 10_007;
    let live = |t: usize| !(4_000..6_000).contains(&t);
    let mut text = String::from("size,first_use,last_use\n");
    for t in (0..NODES).filter(|&t| live(t)) {
        text.push_str(&format!("1,{t},{t}\n"));
    }
    write(&dir, "u.csv", &text);
    let run = run_ok(&dir, &["offsets", "u.csv", "--svg", "u.svg"]);
    assert!(run.stdout.contains("  svg              u.svg\n"));
    let svg = std::fs::read_to_string(dir.join("u.svg")).unwrap();
    let counts = well_formed(&svg);
    assert_eq!(counts.get("title"), None, "no tensor is a pixel wide");
    assert_eq!(counts["path"], 1);
    assert!(svg.contains(">8,007 tensors too small to draw alone, merged"));
    assert!(svg.contains("peak live bytes: no arena is smaller"));

    // The pixel columns a live node touches, from the node indices alone:
    // node t spans [840 t / NODES, 840 (t + 1) / NODES).
    let mut covered = [false; 840];
    for t in (0..NODES).filter(|&t| live(t)) {
        let first = 840 * t / NODES;
        let end = (840 * (t + 1)).div_ceil(NODES);
        covered[first..end].iter_mut().for_each(|c| *c = true);
    }
    let mut expected = Vec::new();
    let mut c = 0;
    while c < 840 {
        if covered[c] {
            let start = c;
            while c < 840 && covered[c] {
                c += 1;
            }
            // The plot's left edge is at 84, its top at 64, 760 tall.
            expected.push([84 + start, 64, c - start, 760]);
        }
        c += 1;
    }
    assert_eq!(expected.len(), 2);
    assert_eq!(merged_rectangles(&svg), expected);
}

#[test]
fn a_large_picture_draws_the_visible_tensors_alone_and_merges_the_rest() {
    // Three large tensors over long lifetimes, each many pixels in both
    // directions, and 6,000 one-byte tensors a node each.
    let dir = scratch("output-svg-mixed");
    let mut text = String::from("id,lower,upper,size\n");
    for (k, (lower, upper)) in [(0, 2_000), (2_000, 4_000), (4_000, 6_000)]
        .into_iter()
        .enumerate()
    {
        text.push_str(&format!("big{k},{lower},{upper},100000\n"));
    }
    for t in 0..6_000 {
        text.push_str(&format!("s{t},{t},{},1\n", t + 1));
    }
    write(&dir, "m.csv", &text);
    run_ok(&dir, &["offsets", "m.csv", "--svg", "m.svg"]);
    let svg = std::fs::read_to_string(dir.join("m.svg")).unwrap();
    let counts = well_formed(&svg);
    assert_eq!(counts["title"], 3);
    for k in 0..3 {
        assert!(svg.contains(&format!("<title>tensor big{k}: 100,000 B")));
    }
    assert!(svg.contains(">6,000 tensors too small to draw alone, merged"));
    assert!(svg.contains(">a tensor (its tooltip: size, lifetime, offset)</text>"));
    // The small tensors lie on top of the large ones, one byte over 100,000:
    // one thin band of whole pixels across the plot.
    let rectangles = merged_rectangles(&svg);
    assert_eq!(rectangles.len(), 1, "{rectangles:?}");
    let [x, _, width, height] = rectangles[0];
    assert_eq!((x, width, height), (84, 840, 1));
}

#[test]
fn a_small_picture_draws_every_tensor_alone_with_a_legend() {
    let dir = scratch("output-svg-small");
    let (text, _, tensors) = table(400, 3);
    write(&dir, "t.csv", &text);
    run_ok(&dir, &["offsets", "t.csv", "--svg", "t.svg"]);
    let svg = std::fs::read_to_string(dir.join("t.svg")).unwrap();
    let counts = well_formed(&svg);
    let sized = tensors.iter().filter(|t| t.size > 0).count();
    assert_eq!(counts["title"], sized);
    assert_eq!(counts.get("path"), None);
    assert!(!svg.contains("too small to draw alone"));
    assert!(svg.contains(">arena</text>"));
}

#[test]
fn spaces_around_fields_are_trimmed_as_the_csv_crate_trims_them() {
    // Spaces and tabs around fields, quoted fields with spaces inside and
    // outside the quotes, a line of spaces, CRLF ends: read with the csv
    // crate's `Trim::All` here, the tool's output must be those records.
    let dir = scratch("output-trim");
    let text = " name , Size,first_use ,last_use\r\n\
                \" a, b \" , 100 ,0, 1\r\n\
                \tplain\t,80,1,2\n\
                \x20\x20\x20\n\
                \"  \",60 , 2 ,3\n";
    write(&dir, "t.csv", text);
    let run = run_ok(&dir, &["offsets", "t.csv", "--format", "csv"]);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let records: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .filter(|r: &Vec<String>| r.iter().any(|f| !f.is_empty()))
        .collect();
    assert_eq!(records.len(), 4, "{records:?}");
    let tensors: Vec<TensorLifetime> = records[1..]
        .iter()
        .map(|r| {
            TensorLifetime::new(
                num(&r[1]) as usize,
                num(&r[2]) as usize,
                num(&r[3]) as usize,
            )
        })
        .collect();
    let (offsets, _) = library_offsets(&tensors);
    let mut expected = csv::Writer::from_writer(Vec::new());
    let header = records[0].iter().map(String::as_str).chain(["offset"]);
    expected.write_record(header).unwrap();
    for (row, offset) in records[1..].iter().zip(&offsets) {
        let offset = offset.to_string();
        expected
            .write_record(row.iter().map(String::as_str).chain([offset.as_str()]))
            .unwrap();
    }
    let expected = String::from_utf8(expected.into_inner().unwrap()).unwrap();
    assert_eq!(run.stdout, expected);
    // Inside the quotes too, as the csv crate does.
    assert!(run
        .stdout
        .starts_with("name,Size,first_use,last_use,offset\n\"a, b\",100,0,1,"));
}
