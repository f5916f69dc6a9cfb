//! `aether-plan reduce` and `aether-plan islands`: read a list of node pairs,
//! call the library, and format what it returns.

use std::fmt::Write as _;

use aether_planner::{try_islands, try_transitive_reduction, PlanError};

use crate::input::{read_pairs, At, CliError, Input, PairSpec, Pairs};
use crate::units::{grouped, human_bytes, plural};

/// The node count to use, and what set it (for messages).
struct NodeCount {
    count: usize,
    origin: String,
}

/// The most nodes an edge list may ask for beyond two per edge (all its
/// edges can name): `reduce` keeps a bit matrix of about N²/16 bytes.
pub const REDUCE_SPARE_NODES: usize = 16_384;

/// The same for an incidence list: `islands` needs tens of bytes per node.
pub const ISLANDS_SPARE_NODES: usize = 1 << 20;

/// `--nodes` if given, else the JSON object's `"nodes"`, else one more than
/// the largest node named. A count from the file may be at most two per
/// pair plus `spare`, so that memory follows the size of the file, not a
/// number in it; `--nodes` is taken as given.
fn node_count(
    input: &Input,
    spec: &PairSpec,
    pairs: &Pairs,
    flag: Option<usize>,
    spare: usize,
) -> Result<NodeCount, CliError> {
    if let Some(count) = flag {
        return Ok(NodeCount {
            count,
            origin: format!("--nodes {count}"),
        });
    }
    let limit = pairs.pairs.len().saturating_mul(2).saturating_add(spare);
    let pair = spec.list_key.strip_suffix('s').unwrap_or(spec.list_key);
    let over = |count: usize| {
        format!(
            "more than a file may ask for: at most 2 per {pair} plus {}, here {}; give \
             --nodes {count} to allow it",
            grouped(spare),
            grouped(limit)
        )
    };
    if let Some((count, line)) = pairs.nodes {
        if count > limit {
            return Err(input
                .at(line)
                .field("nodes", format!("{count} nodes is {}", over(count))));
        }
        return Ok(NodeCount {
            count,
            origin: format!("\"nodes\": {count} on line {line}"),
        });
    }
    let largest = pairs
        .pairs
        .iter()
        .enumerate()
        .max_by_key(|(_, &(a, b))| a.max(b));
    match largest {
        None => Ok(NodeCount {
            count: 0,
            origin: "no pairs".to_string(),
        }),
        Some((i, &(a, b))) => {
            let node = a.max(b);
            let at = input.at(pairs.lines[i]);
            let count = node.checked_add(1).ok_or_else(|| {
                at.line(format!(
                    "node {node} is too large: the node count {node} + 1 does not fit"
                ))
            })?;
            if count > limit {
                return Err(at.field(
                    field_naming(spec, pairs, i, node),
                    format!("node {node} makes {count} nodes, {}", over(count)),
                ));
            }
            Ok(NodeCount {
                count,
                origin: format!("the largest node, {node}, plus one"),
            })
        }
    }
}

/// The field of `pairs[index]` that names `node`: the first if it does.
fn field_naming(spec: &PairSpec, pairs: &Pairs, index: usize, node: usize) -> &'static str {
    if pairs.pairs[index].0 == node {
        spec.fields[0]
    } else {
        spec.fields[1]
    }
}

/// A library refusal of a pair list, located at the pair and field at fault.
fn refused(
    input: &Input,
    spec: &PairSpec,
    pairs: &Pairs,
    nodes: &NodeCount,
    e: PlanError,
) -> CliError {
    let at = |index: usize| At {
        file: &input.name,
        line: pairs.lines[index],
    };
    match e {
        PlanError::NotTopological {
            edge,
            source,
            target,
        } => at(edge).field(
            "target",
            format!(
                "edge {source} -> {target} runs against the topological numbering; every \
                 edge needs source < target"
            ),
        ),
        PlanError::EdgeOutOfRange {
            edge: index, node, ..
        }
        | PlanError::IncidenceOutOfRange {
            incidence: index,
            node,
            ..
        } => at(index).field(
            field_naming(spec, pairs, index, node),
            match nodes.count {
                0 => format!(
                    "node {node} is out of range: {} allows no nodes",
                    nodes.origin
                ),
                count => format!(
                    "node {node} is out of range: {} allows nodes 0 to {}",
                    nodes.origin,
                    count - 1
                ),
            },
        ),
        PlanError::OutOfMemory { bytes } => CliError::new(format!(
            "{}: {} nodes need {} of scratch memory, which could not be allocated",
            input.name,
            nodes.count,
            if bytes == usize::MAX {
                "more than the address space".to_string()
            } else {
                human_bytes(bytes)
            }
        )),
        other => CliError::new(format!("{}: {other}", input.name)),
    }
}

/// The edge list format of `reduce`.
pub const EDGES: PairSpec = PairSpec {
    fields: ["source", "target"],
    list_key: "edges",
};

/// The incidence list format of `islands`.
pub const INCIDENCES: PairSpec = PairSpec {
    fields: ["a", "b"],
    list_key: "incidences",
};

/// A transitive reduction and how it came about.
pub struct Reduced {
    /// The number of nodes the graph was given.
    pub node_count: usize,
    /// Edges read, duplicates included.
    pub edges_in: usize,
    /// Distinct edges read.
    pub distinct: usize,
    /// The reduction, sorted by (source, target).
    pub kept: Vec<(usize, usize)>,
}

/// Reads an edge list and reduces it.
pub fn reduce(input: &Input, nodes: Option<usize>) -> Result<Reduced, CliError> {
    let pairs = read_pairs(input, &EDGES)?;
    let count = node_count(input, &EDGES, &pairs, nodes, REDUCE_SPARE_NODES)?;
    let kept = try_transitive_reduction(count.count, &pairs.pairs)
        .map_err(|e| refused(input, &EDGES, &pairs, &count, e))?;
    let mut distinct = pairs.pairs.clone();
    distinct.sort_unstable();
    distinct.dedup();
    Ok(Reduced {
        node_count: count.count,
        edges_in: pairs.pairs.len(),
        distinct: distinct.len(),
        kept,
    })
}

impl Reduced {
    /// `source,target` and one row per kept edge.
    pub fn csv(&self) -> String {
        let mut out = String::from("source,target\n");
        for (s, t) in &self.kept {
            let _ = writeln!(out, "{s},{t}");
        }
        out
    }

    /// How many edges were removed, and why.
    pub fn summary(&self) -> String {
        let removed = self.edges_in - self.kept.len();
        let duplicates = self.edges_in - self.distinct;
        format!(
            "{} over {}: kept {}, removed {} ({} implied by a longer path, {})\n",
            plural(self.edges_in, "edge", "edges"),
            plural(self.node_count, "node", "nodes"),
            self.kept.len(),
            removed,
            self.distinct - self.kept.len(),
            plural(duplicates, "duplicate", "duplicates")
        )
    }

    /// Graphviz DOT of the reduced graph, every node declared.
    pub fn dot(&self, name: &str) -> String {
        let mut out = String::from("digraph reduced {\n");
        let _ = writeln!(
            out,
            "  // transitive reduction of {}: {} of {} edges kept",
            name.replace('\n', " "),
            self.kept.len(),
            self.edges_in
        );
        out.push_str("  rankdir=LR;\n  node [shape=circle];\n");
        for node in 0..self.node_count {
            let _ = writeln!(out, "  {node};");
        }
        for (s, t) in &self.kept {
            let _ = writeln!(out, "  {s} -> {t};");
        }
        out.push_str("}\n");
        out
    }
}

/// Islands: each node's label and the island sizes.
pub struct Islands {
    /// Each node's island, `None` for a node in no incidence.
    pub labels: Vec<Option<usize>>,
    /// Each island's number of nodes, by label.
    pub sizes: Vec<usize>,
}

/// Reads an incidence list and finds its islands.
pub fn islands(input: &Input, nodes: Option<usize>) -> Result<Islands, CliError> {
    let pairs = read_pairs(input, &INCIDENCES)?;
    let count = node_count(input, &INCIDENCES, &pairs, nodes, ISLANDS_SPARE_NODES)?;
    let (labels, islands) = try_islands(count.count, &pairs.pairs)
        .map_err(|e| refused(input, &INCIDENCES, &pairs, &count, e))?;
    let mut sizes = vec![0; islands];
    for label in labels.iter().flatten() {
        sizes[*label] += 1;
    }
    Ok(Islands { labels, sizes })
}

impl Islands {
    /// `node,island` and one row per node, `none` for a node in no island.
    pub fn csv(&self) -> String {
        let mut out = String::from("node,island\n");
        for (node, label) in self.labels.iter().enumerate() {
            match label {
                Some(label) => {
                    let _ = writeln!(out, "{node},{label}");
                }
                None => {
                    let _ = writeln!(out, "{node},none");
                }
            }
        }
        out
    }

    /// The island count and sizes.
    pub fn summary(&self) -> String {
        let untouched = self.labels.iter().filter(|l| l.is_none()).count();
        let sizes: Vec<String> = self.sizes.iter().map(usize::to_string).collect();
        format!(
            "{} over {} ({} in no island)\nisland sizes: {}\n",
            plural(self.sizes.len(), "island", "islands"),
            plural(self.labels.len(), "node", "nodes"),
            untouched,
            if sizes.is_empty() {
                "none".to_string()
            } else {
                sizes.join(" ")
            }
        )
    }
}
