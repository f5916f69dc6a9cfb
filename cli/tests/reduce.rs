//! `aether-plan reduce`: outputs checked against a brute-force closure (same
//! reachability, and every kept edge needed), and every kind of bad input
//! with its exact one-line message.

mod common;

use std::collections::BTreeSet;

use common::*;

type Edges = BTreeSet<(usize, usize)>;

/// The `source,target` rows of the tool's output.
fn output_edges(stdout: &str) -> Vec<(usize, usize)> {
    let (header, rows) = parse_csv(stdout);
    assert_eq!(header, ["source", "target"]);
    rows.iter()
        .map(|r| (num(&r[0]) as usize, num(&r[1]) as usize))
        .collect()
}

/// Checks `kept` against the definition of the transitive reduction of
/// `input`: a subset with the same reachability in which no edge can go.
fn assert_reduction(nodes: usize, input: &Edges, kept: &[(usize, usize)]) {
    let kept_set: Edges = kept.iter().copied().collect();
    assert_eq!(kept_set.len(), kept.len(), "each edge once");
    let mut sorted = kept.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, kept, "sorted by (source, target)");
    assert!(kept_set.is_subset(input), "only input edges are kept");
    assert_eq!(
        closure(nodes, &kept_set),
        closure(nodes, input),
        "same reachability"
    );
    for &edge in kept {
        let mut without = kept_set.clone();
        without.remove(&edge);
        assert!(
            !closure(nodes, &without)[edge.0].contains(&edge.1),
            "{edge:?} is implied by the other kept edges, so it is not needed"
        );
    }
}

fn edges_csv(edges: &[(usize, usize)]) -> String {
    let mut text = String::from("source,target\n");
    for (s, t) in edges {
        text.push_str(&format!("{s},{t}\n"));
    }
    text
}

#[test]
fn a_small_dag_loses_its_implied_edges() {
    let dir = scratch("reduce-small");
    // 0 -> 3 and 0 -> 2 are implied by 0 -> 1 -> 2 -> 3; 1 -> 2 is repeated.
    let input = [(0, 3), (2, 3), (0, 1), (1, 2), (0, 2), (1, 2)];
    write(&dir, "edges.csv", &edges_csv(&input));
    let run = run_ok(&dir, &["reduce", "edges.csv"]);
    assert_eq!(run.stdout, "source,target\n0,1\n1,2\n2,3\n");
    assert_eq!(
        run.stderr,
        "edges.csv: 6 edges over 4 nodes: kept 3, removed 3 (2 implied by a longer path, 1 duplicate)\n"
    );
    assert_reduction(
        4,
        &input.iter().copied().collect(),
        &output_edges(&run.stdout),
    );
}

#[test]
fn random_dags_match_the_brute_force_closure() {
    let dir = scratch("reduce-random");
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for case in 0..40 {
        let nodes = 2 + rng.below_u64(11) as usize;
        let mut input = Vec::new();
        for _ in 0..rng.below_u64(30) {
            let a = rng.below_u64(nodes as u64) as usize;
            let b = rng.below_u64(nodes as u64) as usize;
            if a != b {
                input.push((a.min(b), a.max(b)));
            }
        }
        write(&dir, "edges.csv", &edges_csv(&input));
        let nodes_flag = nodes.to_string();
        let run = run_ok(&dir, &["reduce", "edges.csv", "--nodes", &nodes_flag]);
        let kept = output_edges(&run.stdout);
        let set: Edges = input.iter().copied().collect();
        assert_reduction(nodes, &set, &kept);
        let removed = input.len() - kept.len();
        assert!(
            run.stderr.contains(&format!("removed {removed} (")),
            "case {case}: {}",
            run.stderr
        );
    }
}

#[test]
fn json_forms_give_the_same_reduction() {
    let dir = scratch("reduce-json");
    let expected = "source,target\n0,1\n1,2\n";
    for (name, text) in [
        ("pairs.json", "[[0, 1], [1, 2], [0, 2]]"),
        (
            "objects.json",
            r#"[{"source": 0, "target": 1}, {"target": 2, "source": 1}, {"source": 0, "target": 2}]"#,
        ),
        (
            "object.json",
            r#"{"nodes": 5, "edges": [[0, 1], [1, 2], [0, 2]]}"#,
        ),
    ] {
        write(&dir, name, text);
        let run = run_ok(&dir, &["reduce", name]);
        assert_eq!(run.stdout, expected, "{name}");
    }
    let run = run_ok(&dir, &["reduce", "object.json"]);
    assert!(run.stderr.contains("over 5 nodes"), "{}", run.stderr);
}

#[test]
fn dot_output_draws_the_kept_edges() {
    let dir = scratch("reduce-dot");
    write(
        &dir,
        "edges.csv",
        &edges_csv(&[(0, 2), (0, 1), (1, 2), (2, 4)]),
    );
    let run = run_ok(&dir, &["reduce", "edges.csv", "--dot", "reduced.dot"]);
    let dot = std::fs::read_to_string(dir.join("reduced.dot")).expect("the DOT file");
    assert!(dot.starts_with("digraph "), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
    let dot_edges: Vec<(usize, usize)> = dot
        .lines()
        .filter_map(|l| l.trim().strip_suffix(';')?.split_once(" -> "))
        .map(|(s, t)| (num(s.trim()) as usize, num(t.trim()) as usize))
        .collect();
    assert_eq!(dot_edges, output_edges(&run.stdout));
    assert_eq!(dot_edges, [(0, 1), (1, 2), (2, 4)]);
    // Node 3 is in no edge, but it is a node of the graph.
    assert!(dot.lines().any(|l| l.trim() == "3;"), "{dot}");
    assert!(
        run.stderr.ends_with("wrote reduced.dot\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_empty_edge_list_reduces_to_nothing() {
    let dir = scratch("reduce-none");
    write(&dir, "edges.csv", "source,target\n");
    let run = run_ok(&dir, &["reduce", "edges.csv"]);
    assert_eq!(run.stdout, "source,target\n");
}

// ---- bad input ----

fn bad_edges(test: &str, name: &str, text: &str, extra: &[&str], message: &str) {
    let dir = scratch(test);
    let mut args = vec!["reduce", name];
    args.extend(extra);
    bad_input(&dir, name, text, &args, message);
    args.extend(["--dot", "out.dot"]);
    assert_error(&run(&dir, &args), message);
    assert!(!dir.join("out.dot").exists(), "no DOT of a refused graph");
}

#[test]
fn a_non_number_is_refused() {
    bad_edges(
        "reduce-nan",
        "e.csv",
        "source,target\n0,1\n1,two\n",
        &[],
        "e.csv:3: field 'target': \"two\" is not a whole number",
    );
    bad_edges(
        "reduce-json-nan",
        "e.json",
        "[[0, 1],\n [\"1\", 2]]",
        &[],
        "e.json:2: field 'source': \"1\" is not a number",
    );
    bad_edges(
        "reduce-json-fraction",
        "e.json",
        "[[0, 1],\n [1, 2.5]]",
        &[],
        "e.json:2: field 'target': 2.5 is not a whole number",
    );
}

#[test]
fn a_negative_node_is_refused() {
    bad_edges(
        "reduce-negative",
        "e.csv",
        "source,target\n-1,1\n",
        &[],
        "e.csv:2: field 'source': -1 is negative; source must be 0 or more",
    );
    bad_edges(
        "reduce-json-negative",
        "e.json",
        "[\n  {\"source\": 0, \"target\": -4}\n]",
        &[],
        "e.json:2: field 'target': -4 is negative; target must be 0 or more",
    );
}

#[test]
fn an_edge_against_the_topological_numbering_is_refused() {
    bad_edges(
        "reduce-backwards",
        "e.csv",
        "source,target\n0,1\n1,2\n2,1\n",
        &[],
        "e.csv:4: field 'target': edge 2 -> 1 runs against the topological numbering; every \
         edge needs source < target",
    );
    bad_edges(
        "reduce-loop",
        "e.csv",
        "source,target\n3,3\n",
        &[],
        "e.csv:2: field 'target': edge 3 -> 3 runs against the topological numbering; every \
         edge needs source < target",
    );
    bad_edges(
        "reduce-json-backwards",
        "e.json",
        "[\n  [0, 1],\n  [5, 4]\n]\n",
        &[],
        "e.json:3: field 'target': edge 5 -> 4 runs against the topological numbering; every \
         edge needs source < target",
    );
}

#[test]
fn a_node_out_of_range_is_refused() {
    bad_edges(
        "reduce-range",
        "e.csv",
        "source,target\n0,1\n1,9\n",
        &["--nodes", "5"],
        "e.csv:3: field 'target': node 9 is out of range: --nodes 5 allows nodes 0 to 4",
    );
    bad_edges(
        "reduce-json-range",
        "e.json",
        "{\"nodes\": 3,\n \"edges\": [[0, 1],\n   [1, 3]]}",
        &[],
        "e.json:3: field 'target': node 3 is out of range: \"nodes\": 3 on line 1 allows \
         nodes 0 to 2",
    );
}

#[test]
fn an_empty_file_is_refused() {
    let message = "e.csv:1: empty file; expected a header line 'source,target' or a JSON array";
    bad_edges("reduce-empty", "e.csv", "", &[], message);
    bad_edges("reduce-blank", "e.csv", " \n\n", &[], message);
}

#[test]
fn a_missing_header_is_refused() {
    bad_edges(
        "reduce-no-header",
        "e.csv",
        "0,1\n1,2\n",
        &[],
        "e.csv:1: missing header: the first line is data (\"0,1\"); put a header line \
         'source,target' above it",
    );
    bad_edges(
        "reduce-wrong-header",
        "e.csv",
        "from,to\n0,1\n",
        &[],
        "e.csv:1: field 'source': missing from the header \"from,to\"; expected 'source,target'",
    );
}

#[test]
fn malformed_json_is_refused() {
    bad_edges(
        "reduce-json-syntax",
        "e.json",
        "[[0, 1],\n [1, 2,]",
        &[],
        "e.json:2: not valid JSON (column 8): expected value",
    );
    bad_edges(
        "reduce-json-missing",
        "e.json",
        "[{\"source\": 0, \"target\": 1},\n {\"source\": 1}]",
        &[],
        "e.json:2: field 'target': missing; expected [source, target] or {\"source\": …, \
         \"target\": …}",
    );
    bad_edges(
        "reduce-json-shape",
        "e.json",
        "[[0, 1],\n [1, 2, 3]]",
        &[],
        "e.json:2: expected [source, target] or {\"source\": …, \"target\": …}, found [1, 2, 3]",
    );
    bad_edges(
        "reduce-json-key",
        "e.json",
        "{\"edge\": [[0, 1]]}",
        &[],
        "e.json:1: field 'edge': unknown key; expected \"nodes\" or \"edges\"",
    );
}

#[test]
fn a_missing_file_is_refused() {
    let dir = scratch("reduce-missing-file");
    assert_error(
        &run(&dir, &["reduce", "nowhere.csv"]),
        "nowhere.csv: cannot read: No such file or directory (os error 2)",
    );
}
