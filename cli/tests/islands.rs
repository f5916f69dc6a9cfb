//! `aether-plan islands`: labels checked against a brute-force search of the
//! components, and every kind of bad input with its exact one-line message.

mod common;

use common::*;

/// Each node's component as the set of its members, by breadth-first search
/// over the incidences (`None` for a node in no incidence).
fn components(nodes: usize, incidences: &[(usize, usize)]) -> Vec<Option<Vec<usize>>> {
    let mut adjacent = vec![Vec::new(); nodes];
    let mut active = vec![false; nodes];
    for &(a, b) in incidences {
        adjacent[a].push(b);
        adjacent[b].push(a);
        active[a] = true;
        active[b] = true;
    }
    (0..nodes)
        .map(|start| {
            if !active[start] {
                return None;
            }
            let mut seen = vec![false; nodes];
            seen[start] = true;
            let mut queue = std::collections::VecDeque::from([start]);
            while let Some(x) = queue.pop_front() {
                for &y in &adjacent[x] {
                    if !seen[y] {
                        seen[y] = true;
                        queue.push_back(y);
                    }
                }
            }
            Some((0..nodes).filter(|&n| seen[n]).collect())
        })
        .collect()
}

/// The `node,island` rows: every node once, in order.
fn output_labels(stdout: &str) -> Vec<Option<usize>> {
    let (header, rows) = parse_csv(stdout);
    assert_eq!(header, ["node", "island"]);
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            assert_eq!(num(&r[0]) as usize, i, "nodes in order");
            (r[1] != "none").then(|| num(&r[1]) as usize)
        })
        .collect()
}

/// Checks labels against the components: same partition, untouched nodes
/// `none`, islands numbered by their smallest member; and the summary.
fn assert_islands(nodes: usize, incidences: &[(usize, usize)], run: &Run) {
    let labels = output_labels(&run.stdout);
    let truth = components(nodes, incidences);
    assert_eq!(labels.len(), nodes);
    let mut smallest = Vec::new(); // smallest member of each island, by first sight
    for (node, (label, component)) in labels.iter().zip(&truth).enumerate() {
        match (label, component) {
            (None, None) => {}
            (Some(label), Some(members)) => {
                if members[0] == node {
                    assert_eq!(
                        *label,
                        smallest.len(),
                        "islands are numbered by smallest member"
                    );
                    smallest.push(node);
                }
                assert_eq!(
                    *label,
                    labels[members[0]].unwrap(),
                    "one label per component"
                );
            }
            _ => panic!("node {node}: label {label:?} but component {component:?}"),
        }
    }
    let sizes: Vec<String> = smallest
        .iter()
        .map(|&s| truth[s].as_ref().unwrap().len().to_string())
        .collect();
    let untouched = truth.iter().filter(|c| c.is_none()).count();
    let count = match smallest.len() {
        1 => "1 island".to_string(),
        n => format!("{n} islands"),
    };
    let nodes_text = if nodes == 1 {
        "1 node".to_string()
    } else {
        format!("{nodes} nodes")
    };
    let sizes = if sizes.is_empty() {
        "none".to_string()
    } else {
        sizes.join(" ")
    };
    assert!(
        run.stderr.ends_with(&format!(
            "{count} over {nodes_text} ({untouched} in no island)\nisland sizes: {sizes}\n"
        )),
        "{}",
        run.stderr
    );
}

fn incidences_csv(incidences: &[(usize, usize)]) -> String {
    let mut text = String::from("a,b\n");
    for (a, b) in incidences {
        text.push_str(&format!("{a},{b}\n"));
    }
    text
}

#[test]
fn the_documented_example() {
    let dir = scratch("islands-example");
    let incidences = [(5, 6), (3, 1), (4, 4), (6, 3)];
    write(&dir, "i.csv", &incidences_csv(&incidences));
    let run = run_ok(&dir, &["islands", "i.csv"]);
    assert_eq!(
        run.stdout,
        "node,island\n0,none\n1,0\n2,none\n3,0\n4,1\n5,0\n6,0\n"
    );
    assert_eq!(
        run.stderr,
        "i.csv: 2 islands over 7 nodes (2 in no island)\nisland sizes: 4 1\n"
    );
    assert_islands(7, &incidences, &run);
}

#[test]
fn random_incidences_match_a_breadth_first_search() {
    let dir = scratch("islands-random");
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    for _ in 0..40 {
        let nodes = 1 + rng.below_u64(15) as usize;
        let incidences: Vec<(usize, usize)> = (0..rng.below_u64(12))
            .map(|_| {
                (
                    rng.below_u64(nodes as u64) as usize,
                    rng.below_u64(nodes as u64) as usize,
                )
            })
            .collect();
        write(&dir, "i.csv", &incidences_csv(&incidences));
        let flag = nodes.to_string();
        let run = run_ok(&dir, &["islands", "i.csv", "--nodes", &flag]);
        assert_islands(nodes, &incidences, &run);
    }
}

#[test]
fn json_forms_and_node_counts() {
    let dir = scratch("islands-json");
    for (name, text, nodes) in [
        ("pairs.json", "[[0, 1], [3, 3]]", 4),
        ("objects.json", r#"[{"a": 0, "b": 1}, {"b": 3, "a": 3}]"#, 4),
        (
            "object.json",
            r#"{"nodes": 6, "incidences": [[0, 1], [3, 3]]}"#,
            6,
        ),
    ] {
        write(&dir, name, text);
        let run = run_ok(&dir, &["islands", name]);
        assert_islands(nodes, &[(0, 1), (3, 3)], &run);
    }
    // --nodes wins over the JSON's count.
    let run = run_ok(&dir, &["islands", "object.json", "--nodes", "9"]);
    assert_islands(9, &[(0, 1), (3, 3)], &run);
}

#[test]
fn no_incidences_make_no_islands() {
    let dir = scratch("islands-none");
    write(&dir, "i.csv", "a,b\n");
    let run = run_ok(&dir, &["islands", "i.csv", "--nodes", "2"]);
    assert_eq!(run.stdout, "node,island\n0,none\n1,none\n");
    assert_islands(2, &[], &run);
}

// ---- bad input ----

fn bad_incidences(test: &str, name: &str, text: &str, extra: &[&str], message: &str) {
    let dir = scratch(test);
    let mut args = vec!["islands", name];
    args.extend(extra);
    bad_input(&dir, name, text, &args, message);
}

#[test]
fn a_non_number_is_refused() {
    bad_incidences(
        "islands-nan",
        "i.csv",
        "a,b\n0,1\nx,2\n",
        &[],
        "i.csv:3: field 'a': \"x\" is not a whole number",
    );
    bad_incidences(
        "islands-json-nan",
        "i.json",
        "[\n  {\"a\": 0, \"b\": null}\n]",
        &[],
        "i.json:2: field 'b': null is not a number",
    );
}

#[test]
fn a_negative_node_is_refused() {
    bad_incidences(
        "islands-negative",
        "i.csv",
        "a,b\n0,-3\n",
        &[],
        "i.csv:2: field 'b': -3 is negative; b must be 0 or more",
    );
}

#[test]
fn a_node_out_of_range_is_refused() {
    bad_incidences(
        "islands-range-a",
        "i.csv",
        "a,b\n0,1\n7,2\n",
        &["--nodes", "5"],
        "i.csv:3: field 'a': node 7 is out of range: --nodes 5 allows nodes 0 to 4",
    );
    bad_incidences(
        "islands-range-b",
        "i.csv",
        "a,b\n0,1\n\n2,5\n",
        &["--nodes", "5"],
        "i.csv:4: field 'b': node 5 is out of range: --nodes 5 allows nodes 0 to 4",
    );
    bad_incidences(
        "islands-range-zero",
        "i.csv",
        "a,b\n0,0\n",
        &["--nodes", "0"],
        "i.csv:2: field 'a': node 0 is out of range: --nodes 0 allows no nodes",
    );
}

#[test]
fn an_empty_file_is_refused() {
    bad_incidences(
        "islands-empty",
        "i.csv",
        "",
        &[],
        "i.csv:1: empty file; expected a header line 'a,b' or a JSON array",
    );
}

#[test]
fn a_missing_header_is_refused() {
    bad_incidences(
        "islands-no-header",
        "i.csv",
        "3,4\n",
        &[],
        "i.csv:1: missing header: the first line is data (\"3,4\"); put a header line 'a,b' \
         above it",
    );
}

#[test]
fn malformed_json_is_refused() {
    bad_incidences(
        "islands-json-syntax",
        "i.json",
        "{\"incidences\": [[0, 1]\n",
        &[],
        "i.json:2: not valid JSON (column 0): EOF while parsing a list",
    );
    bad_incidences(
        "islands-json-no-list",
        "i.json",
        "{\"nodes\": 4}",
        &[],
        "i.json:1: the JSON object has no \"incidences\" array",
    );
}
