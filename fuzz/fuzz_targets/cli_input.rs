//! The command-line tool's input parsers (cli/src/input.rs): CSV and JSON
//! lists of node pairs and CSV tables. Oracles: arbitrary text is parsed
//! or refused with a one-line message, never a panic; pairs written out as
//! CSV, as JSON arrays and as JSON objects, with numbers near usize::MAX,
//! read back exactly; a key repeated in an object and a number past
//! u64::MAX are refused, never resolved or wrapped.
#![no_main]

use aether_planner_fuzz::cli_input::{read_csv, read_pairs, Input, PairSpec};
use aether_planner_fuzz::Bytes;
use libfuzzer_sys::fuzz_target;

const EDGES: PairSpec = PairSpec {
    fields: ["source", "target"],
    list_key: "edges",
};

fn input(text: String) -> Input {
    Input {
        name: "fuzz".to_string(),
        text,
    }
}

fuzz_target!(|data: &[u8]| {
    // Any text at all.
    let text = String::from_utf8_lossy(data).into_owned();
    let lines = text.lines().count().max(1);
    let any = input(text);
    match read_pairs(&any, &EDGES) {
        Ok(pairs) => {
            assert_eq!(pairs.pairs.len(), pairs.lines.len());
            assert!(pairs.lines.iter().all(|&l| l >= 1 && l <= lines + 1));
        }
        Err(e) => assert!(!e.to_string().contains('\n')),
    }
    let rows = read_csv(&any, "'size,first_use,last_use'").and_then(|mut csv| {
        let mut record = csv::StringRecord::new();
        let mut last = csv.header_line;
        while let Some(line) = csv.next_row(&mut record)? {
            // Rows come in file order, each on a line of the text (a lone
            // CR ends a row but not a line, so two rows may share one).
            assert!(
                line >= last && line <= lines + 1,
                "line {line} after {last}"
            );
            assert_eq!(record.len(), csv.header.len());
            last = line;
        }
        Ok(())
    });
    if let Err(e) = rows {
        assert!(!e.to_string().contains(['\n', '\r']));
    }

    // Pairs written out and read back.
    let mut bytes = Bytes::new(data);
    let style = bytes.byte();
    let mut pairs = Vec::new();
    while !bytes.is_empty() && pairs.len() < 32 {
        pairs.push((bytes.number(1000), bytes.number(1000)));
    }
    let blank = if style & 1 == 1 { "\n  \n" } else { "" };
    let csv: String = std::iter::once(" Source , TARGET \n".to_string())
        .chain(pairs.iter().map(|(s, t)| format!("{s},{t}\n{blank}")))
        .collect();
    let arrays = format!(
        "[{}]",
        pairs
            .iter()
            .map(|(s, t)| format!("[{s},{t}]"))
            .collect::<Vec<_>>()
            .join(",\n")
    );
    let objects = format!(
        "{{\"nodes\": 7, \"edges\": [{}]}}",
        pairs
            .iter()
            .map(|(s, t)| format!("{{\"target\": {t}, \"source\": {s}}}"))
            .collect::<Vec<_>>()
            .join(",\n")
    );
    for text in [csv, arrays, objects] {
        if pairs.is_empty() && !text.starts_with('[') && !text.starts_with('{') {
            continue; // a header alone is a valid, empty table
        }
        let read = read_pairs(&input(text.clone()), &EDGES)
            .unwrap_or_else(|e| panic!("{e}\nfrom\n{text}"));
        assert_eq!(read.pairs, pairs, "from\n{text}");
    }

    // A key twice in one object is refused wherever the object is, never
    // resolved by keeping one of them.
    if let Some((s, t)) = pairs.first() {
        for text in [
            format!("{{\"nodes\": 7, \"edges\": [[{s}, {t}]], \"nodes\": 8}}"),
            format!("[{{\"source\": {s}, \"target\": {t}, \"source\": {t}}}]"),
        ] {
            match read_pairs(&input(text.clone()), &EDGES) {
                Err(e) => assert!(e.to_string().contains("appears twice"), "{e}\nfrom\n{text}"),
                Ok(_) => panic!("a repeated key was accepted from\n{text}"),
            }
        }
    }

    // One past u64::MAX, in each form.
    for text in [
        "source,target\n18446744073709551616,1\n".to_string(),
        "[[1, 18446744073709551616]]".to_string(),
    ] {
        assert!(read_pairs(&input(text), &EDGES).is_err());
    }
});
