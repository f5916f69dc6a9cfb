//! The summary of a plan: the figures a reader checks first.

use std::fmt::Write as _;

use aether_planner::Strategy;

use crate::units::{grouped, grouped_u64, human_bytes, human_duration};

use super::{method, Planned};

/// A byte count for the summary: `512 B`, `1,048,576 B (1 MiB)`.
fn bytes(b: usize) -> String {
    if b < 1024 {
        format!("{b} B")
    } else {
        format!("{} B ({})", grouped(b), human_bytes(b))
    }
}

impl Planned {
    /// The summary: tensors, alignment, peak live bytes, arena, arena/peak,
    /// lower bound, whether the arena is proven optimal, search nodes,
    /// planning time; `title` names what was planned.
    pub fn summary(&self, title: &str) -> String {
        let report = &self.report;
        let alignment = self.options.alignment;
        let mut out = String::new();
        let _ = writeln!(out, "{title}");
        let _ = writeln!(out, "  tensors          {}", self.table.tensors.len());
        if alignment > 1 {
            let _ = writeln!(
                out,
                "  alignment        {}  every offset a multiple of it; below, sizes are rounded \
                 up to it",
                bytes(alignment)
            );
        }
        let _ = writeln!(
            out,
            "  peak live bytes  {}  {} lower bound for any arena",
            bytes(self.peak),
            if report.lower_bound > self.peak {
                "a"
            } else {
                "the"
            }
        );
        if let Some(c) = &self.table.constraints {
            let _ = writeln!(out, "  constraints      {}", c.describe());
        }
        let _ = writeln!(out, "  arena            {}", bytes(self.arena()));
        let _ = writeln!(out, "  arena / peak     {:.3}", self.ratio());
        let _ = writeln!(
            out,
            "  lower bound      {}  {}",
            bytes(report.lower_bound),
            if report.lower_bound > self.peak && self.table.constraints.is_some() {
                "above the peak: from fixed offsets, alignments or the search"
            } else if report.lower_bound > self.peak {
                "proven by the search, above the peak"
            } else {
                "the peak live bytes"
            }
        );
        let above = self.arena() - report.lower_bound.min(self.arena());
        let _ = if report.proven_optimal {
            writeln!(
                out,
                "  proven optimal   yes: the arena equals the lower bound"
            )
        } else {
            writeln!(
                out,
                "  proven optimal   no: the arena exceeds the lower bound by {}, {:.2}%",
                bytes(above),
                100.0 * above as f64 / report.lower_bound.max(1) as f64
            )
        };
        if self.options.strategy == Strategy::Search {
            let budget = &self.options.budget;
            let why = if report.proven_optimal {
                if report.search_nodes == 0 {
                    "none needed: the heuristic plan meets the lower bound".to_owned()
                } else {
                    "the search stopped at the proof".to_owned()
                }
            } else if report.stacked_tensors > 0 {
                format!(
                    "the time budget ran out before the first plan: {} tensors stacked unplanned",
                    grouped_u64(report.stacked_tensors as u64)
                )
            } else if let Some(limit) = budget.nodes.filter(|&n| report.search_nodes >= n) {
                format!("the node budget ({}) ran out", grouped_u64(limit))
            } else if let Some(time) = budget.time {
                format!("the time budget ({}) ran out", human_duration(time))
            } else {
                "the search stopped".to_owned()
            };
            let _ = writeln!(
                out,
                "  search nodes     {}  {why}",
                grouped_u64(report.search_nodes)
            );
        }
        let _ = writeln!(
            out,
            "  planning time    {}  ({})",
            human_duration(self.elapsed),
            method(self.options.strategy)
        );
        out
    }
}
