//! The optional constraint columns of a tensor table: MiniMalloc's
//! `alignment`, `gaps`, `hint` and `offset` (a fixed offset), and this tool's
//! own `reuses`. Each is read into the library's [`PlanProblem`] terms:
//! inclusive node indices, tensors by index.

use aether_planner::{LifetimeGap, PlanProblem, Reuse, TensorLifetime};
use csv::StringRecord;

use crate::input::{parse_count, At, CliError};
use crate::table::{TableFormat, Texts};

/// Where each constraint column is in the header, if it is there.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstraintColumns {
    pub alignment: Option<usize>,
    pub gaps: Option<usize>,
    pub hint: Option<usize>,
    /// `offset` in MiniMalloc's format, `fixed_offset` in the inclusive one
    /// (where an `offset` column is an old plan, replaced).
    pub fixed: Option<usize>,
    pub reuses: Option<usize>,
}

impl ConstraintColumns {
    /// The constraint columns of a header (lower-cased names).
    pub fn find(header: &[String], format: TableFormat) -> Self {
        let col = |name: &str| header.iter().position(|h| h == name);
        ConstraintColumns {
            alignment: col("alignment"),
            gaps: col("gaps"),
            hint: col("hint"),
            fixed: col(fixed_column(format)),
            reuses: col("reuses"),
        }
    }

    /// Whether any constraint column is present.
    pub fn any(&self) -> bool {
        self.alignment.is_some()
            || self.gaps.is_some()
            || self.hint.is_some()
            || self.fixed.is_some()
            || self.reuses.is_some()
    }
}

/// The name of the fixed-offset column in `format`.
pub fn fixed_column(format: TableFormat) -> &'static str {
    match format {
        TableFormat::MiniMalloc => "offset",
        TableFormat::Inclusive => "fixed_offset",
    }
}

/// The constraints of a whole table, one entry per tensor where per tensor.
#[derive(Debug, Default)]
pub struct Constraints {
    pub columns: ConstraintColumns,
    /// Each tensor's alignment (1 when the column is absent or empty).
    pub alignments: Vec<usize>,
    pub fixed: Vec<Option<usize>>,
    pub hints: Vec<Option<usize>>,
    /// Every gap, in file order; `gap_text[g]` is gap `g` as written.
    pub gaps: Vec<LifetimeGap>,
    pub gap_text: Vec<String>,
    /// Each tensor's `reuses` field as written (resolved by [`Constraints::resolve`]).
    reuse_text: Vec<String>,
    /// The reuse pairs; `reuses_of[t]` is the tensor `t` reuses.
    pub reuses: Vec<Reuse>,
    pub reuses_of: Vec<Option<usize>>,
    pub capacity: Option<usize>,
}

impl Constraints {
    /// Empty constraints for the columns `columns`.
    pub fn new(columns: ConstraintColumns) -> Self {
        Constraints {
            columns,
            ..Constraints::default()
        }
    }

    /// Reads one row's constraints; `tensor` is its (checked) lifetime.
    pub fn push_row(
        &mut self,
        at: At<'_>,
        record: &StringRecord,
        format: TableFormat,
        tensor: &TensorLifetime,
    ) -> Result<(), CliError> {
        let index = self.alignments.len();
        let c = self.columns;
        let alignment = match c.alignment.map(|i| &record[i]) {
            None | Some("") => 1,
            Some(raw) => {
                let value = parse_count(at, "alignment", raw)?;
                if !value.is_power_of_two() {
                    return Err(at.field(
                        "alignment",
                        format!("{value} is not a power of two (1, 2, 4, 8, ...)"),
                    ));
                }
                value
            }
        };
        let hint = optional_offset(at, "hint", c.hint.map(|i| &record[i]))?;
        let fixed = optional_offset(at, fixed_column(format), c.fixed.map(|i| &record[i]))?;
        if let Some(col) = c.gaps {
            for text in record[col].split(' ').filter(|g| !g.is_empty()) {
                let gap = parse_gap(at, text, format, index)?;
                if gap.first < tensor.first_use || gap.last > tensor.last_use {
                    return Err(at.field(
                        "gaps",
                        format!("gap {text:?} is not inside the buffer's lifetime"),
                    ));
                }
                debug_assert!(self.gaps.last().is_none_or(|g| g.tensor <= gap.tensor));
                self.gaps.push(gap);
                self.gap_text.push(text.to_string());
            }
        }
        self.alignments.push(alignment);
        self.hints.push(hint);
        self.fixed.push(fixed);
        self.reuse_text
            .push(c.reuses.map_or(String::new(), |i| record[i].to_string()));
        Ok(())
    }

    /// Resolves the `reuses` fields: each names another row by its `names`
    /// entry (the `id` or `name` column) or, without names, by tensor index.
    pub fn resolve(
        &mut self,
        names: Option<&Texts>,
        file: &str,
        lines: &[usize],
    ) -> Result<(), CliError> {
        let n = self.reuse_text.len();
        self.reuses_of = vec![None; n];
        let by_name: Option<std::collections::HashMap<&str, Vec<usize>>> = names.map(|names| {
            let mut map = std::collections::HashMap::<&str, Vec<usize>>::new();
            for (i, name) in names.iter().enumerate() {
                map.entry(name).or_default().push(i);
            }
            map
        });
        for t in 0..n {
            let text = self.reuse_text[t].as_str();
            if text.is_empty() {
                continue;
            }
            let at = At {
                file,
                line: lines[t],
            };
            let reused = match &by_name {
                Some(map) => match map.get(text).map(Vec::as_slice) {
                    Some([one]) => *one,
                    Some(many) => {
                        return Err(at.field(
                            "reuses",
                            format!(
                                "{text:?} names {} rows (lines {}); the buffer it reuses must be named once",
                                many.len(),
                                many.iter()
                                    .map(|&i| lines[i].to_string())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ))
                    }
                    None => {
                        return Err(at.field(
                            "reuses",
                            format!("{text:?} names no buffer of the table"),
                        ))
                    }
                },
                None => {
                    let index = parse_count(at, "reuses", text)?;
                    if index >= n {
                        return Err(at.field(
                            "reuses",
                            format!(
                                "tensor {index} does not exist: without an id or name column \
                                 a buffer is named by its index, 0 to {}",
                                n - 1
                            ),
                        ));
                    }
                    index
                }
            };
            self.reuses.push(Reuse::new(t, reused));
            self.reuses_of[t] = Some(reused);
        }
        self.reuse_text = Vec::new();
        Ok(())
    }

    /// The library's problem over `tensors`.
    pub fn problem<'a>(&'a self, tensors: &'a [TensorLifetime]) -> PlanProblem<'a> {
        PlanProblem::new(tensors)
            .with_alignments(&self.alignments)
            .with_fixed_offsets(&self.fixed)
            .with_hints(&self.hints)
            .with_gaps(&self.gaps)
            .with_reuses(&self.reuses)
            .with_capacity(self.capacity)
    }

    /// What was asked, in words: `2 gaps, 1 fixed offset, capacity 64 B`.
    pub fn describe(&self) -> String {
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut parts = Vec::new();
        let aligned = self.alignments.iter().filter(|&&a| a > 1).count();
        let fixed = self.fixed.iter().filter(|f| f.is_some()).count();
        let hints = self.hints.iter().filter(|h| h.is_some()).count();
        if aligned > 0 {
            parts.push(count(aligned, "own alignment", "own alignments"));
        }
        if !self.gaps.is_empty() {
            parts.push(count(self.gaps.len(), "gap", "gaps"));
        }
        if fixed > 0 {
            parts.push(count(fixed, "fixed offset", "fixed offsets"));
        }
        if hints > 0 {
            parts.push(count(hints, "hint", "hints"));
        }
        if !self.reuses.is_empty() {
            parts.push(count(self.reuses.len(), "reuse", "reuses"));
        }
        if let Some(capacity) = self.capacity {
            parts.push(format!("capacity {capacity} B"));
        }
        if parts.is_empty() {
            "none set".to_owned()
        } else {
            parts.join(", ")
        }
    }

    /// The gaps of tensor `t`, in file order. Rows are read in order, so
    /// the gaps are sorted by tensor and two binary searches find them: a
    /// writer that asks for every tensor's gaps stays linear.
    pub fn gaps_of(&self, t: usize) -> impl Iterator<Item = &LifetimeGap> {
        let start = self.gaps.partition_point(|g| g.tensor < t);
        let end = start + self.gaps[start..].partition_point(|g| g.tensor == t);
        self.gaps[start..end].iter()
    }
}

/// An optional offset: empty or MiniMalloc's `-1` for none.
fn optional_offset(at: At<'_>, field: &str, raw: Option<&str>) -> Result<Option<usize>, CliError> {
    match raw {
        None | Some("") | Some("-1") => Ok(None),
        Some(raw) => parse_count(at, field, raw).map(Some),
    }
}

/// One gap: `lower-upper` or `lower-upper@wlo:whi`, with `upper` exclusive
/// in MiniMalloc's format and inclusive (`first-last`) in the other.
fn parse_gap(
    at: At<'_>,
    text: &str,
    format: TableFormat,
    tensor: usize,
) -> Result<LifetimeGap, CliError> {
    let shape = match format {
        TableFormat::MiniMalloc => "lower-upper or lower-upper@wlo:whi",
        TableFormat::Inclusive => "first-last or first-last@wlo:whi",
    };
    let bad = || at.field("gaps", format!("{text:?} is not a gap; expected {shape}"));
    let (span, window) = match text.split_once('@') {
        Some((span, window)) => (span, Some(window)),
        None => (text, None),
    };
    let (from, to) = span.split_once('-').ok_or_else(bad)?;
    let number = |raw: &str| {
        if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        parse_count(at, "gaps", raw)
    };
    let (from, to) = (number(from)?, number(to)?);
    let last = match format {
        TableFormat::MiniMalloc => {
            if to <= from {
                return Err(at.field(
                    "gaps",
                    format!(
                        "gap {text:?}: upper {to} is not above lower {from}; upper is exclusive"
                    ),
                ));
            }
            to - 1
        }
        TableFormat::Inclusive => {
            if to < from {
                return Err(at.field(
                    "gaps",
                    format!("gap {text:?}: last {to} is before first {from}"),
                ));
            }
            to
        }
    };
    let window = match window {
        None => None,
        Some(w) => {
            let (lo, hi) = w.split_once(':').ok_or_else(bad)?;
            let (lo, hi) = (number(lo)?, number(hi)?);
            if hi < lo {
                return Err(at.field(
                    "gaps",
                    format!("gap {text:?}: the window's end {hi} is below its start {lo}"),
                ));
            }
            Some((lo, hi))
        }
    };
    Ok(LifetimeGap::new(tensor, from, last).with_window(window))
}

impl Constraints {
    /// The first tensor of `t`'s reuse chain: the one whose memory it is.
    pub fn root(&self, mut t: usize) -> usize {
        for _ in 0..self.reuses_of.len() {
            match self.reuses_of.get(t).copied().flatten() {
                Some(r) => t = r,
                None => break,
            }
        }
        t
    }
}
