//! The plan as data: CSV, MiniMalloc CSV, JSON and the aligned table.

use std::fmt::Write as _;

use serde::Serialize;

use crate::constraints::Constraints;
use crate::input::CliError;

use super::{strategy_name, Planned};

impl Planned {
    /// The input's columns (less any `offset`) and then `offset`, one row
    /// per tensor in input order.
    pub fn csv(&self) -> Result<String, CliError> {
        let mut writer =
            csv::Writer::from_writer(Vec::with_capacity(self.table.rows.text.len() * 2));
        let fail = |e: csv::Error| CliError::new(format!("cannot format CSV: {e}"));
        let mut header = self.table.header.clone();
        header.push("offset".to_string());
        writer.write_record(&header).map_err(fail)?;
        let mut number = String::new();
        for (i, &offset) in self.report.plan.offsets.iter().enumerate() {
            for field in self.table.rows.row(i) {
                writer.write_field(field).map_err(fail)?;
            }
            number.clear();
            let _ = write!(number, "{offset}");
            writer.write_field(&number).map_err(fail)?;
            writer.write_record(None::<&[u8]>).map_err(fail)?;
        }
        let bytes = writer
            .into_inner()
            .map_err(|e| CliError::new(format!("cannot format CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| CliError::new(format!("cannot format CSV: {e}")))
    }

    /// MiniMalloc's output format, as its converter writes a solved
    /// problem: `id,lower,upper,size`, then `alignment`, `hint` and `gaps`
    /// when any tensor has one, this tool's `reuses` when any tensor reuses
    /// memory, and `offset`; `upper` exclusive, `-1` for no hint. Tensors
    /// without an `id` or `name` column are named by their index.
    pub fn minimalloc_csv(&self) -> String {
        let table = &self.table;
        let c = table.constraints.as_ref();
        let alignments = c.filter(|c| c.alignments.iter().any(|&a| a != 1));
        let hints = c.filter(|c| c.hints.iter().any(Option::is_some));
        let gaps = c.filter(|c| !c.gaps.is_empty());
        let reuses = c.filter(|c| !c.reuses.is_empty());
        let mut header = vec!["id", "lower", "upper", "size"];
        for (present, name) in [
            (alignments.is_some(), "alignment"),
            (hints.is_some(), "hint"),
            (gaps.is_some(), "gaps"),
            (reuses.is_some(), "reuses"),
        ] {
            if present {
                header.push(name);
            }
        }
        header.push("offset");
        let mut out = header.join(",");
        out.push('\n');
        for (i, tensor) in table.tensors.iter().enumerate() {
            let label = table.label(i);
            let _ = write!(
                out,
                "{},{},{},{}",
                csv_field(&label),
                tensor.first_use,
                tensor.last_use as u128 + 1,
                tensor.size
            );
            if let Some(c) = alignments {
                let _ = write!(out, ",{}", c.alignments[i]);
            }
            if let Some(c) = hints {
                let _ = match c.hints[i] {
                    Some(hint) => write!(out, ",{hint}"),
                    None => write!(out, ",-1"),
                };
            }
            if let Some(c) = gaps {
                out.push(',');
                for (k, g) in c.gaps_of(i).enumerate() {
                    if k > 0 {
                        out.push(' ');
                    }
                    let _ = write!(out, "{}-{}", g.first, g.last as u128 + 1);
                    if let Some((lo, hi)) = g.window {
                        let _ = write!(out, "@{lo}:{hi}");
                    }
                }
            }
            if let Some(c) = reuses {
                out.push(',');
                if let Some(r) = c.reuses_of[i] {
                    out.push_str(&csv_field(&table.label(r)));
                }
            }
            let _ = writeln!(out, ",{}", self.report.plan.offsets[i]);
        }
        out
    }

    /// One JSON object: the figures and every tensor with its offset.
    pub fn json(&self) -> Result<String, CliError> {
        #[derive(Serialize)]
        struct Tensor<'a> {
            line: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            name: Option<&'a str>,
            size: usize,
            /// The size rounded up to the alignment, when there is one.
            #[serde(skip_serializing_if = "Option::is_none")]
            rounded_size: Option<usize>,
            first_use: usize,
            last_use: usize,
            /// The constraints, only in a file that has their columns.
            #[serde(skip_serializing_if = "Option::is_none")]
            alignment: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            fixed_offset: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            hint: Option<usize>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            gaps: Vec<Gap>,
            /// The index of the tensor whose memory this one reuses.
            #[serde(skip_serializing_if = "Option::is_none")]
            reuses: Option<usize>,
            offset: usize,
        }
        /// A gap, inclusive node indices as the lifetimes.
        #[derive(Serialize)]
        struct Gap {
            first: usize,
            last: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            window: Option<[usize; 2]>,
        }
        #[derive(Serialize)]
        struct Plan<'a> {
            input: &'a str,
            format: &'a str,
            tensors: usize,
            strategy: &'a str,
            alignment: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            capacity: Option<usize>,
            peak_live_bytes: usize,
            arena_size: usize,
            arena_over_peak: f64,
            lower_bound: usize,
            proven_optimal: bool,
            search_nodes: u64,
            planning_seconds: f64,
            plan: Tensors<'a>,
        }
        /// Every tensor, made one at a time as it is written.
        struct Tensors<'a>(&'a Planned);
        impl Serialize for Tensors<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let planned = self.0;
                let table = &planned.table;
                let aligned = planned.options.alignment > 1;
                let c = table.constraints.as_ref();
                let column = |present: fn(&Constraints) -> bool| c.filter(|c| present(c));
                let alignments = column(|c| c.columns.alignment.is_some());
                let hints = column(|c| c.columns.hint.is_some());
                let fixed = column(|c| c.columns.fixed.is_some());
                serializer.collect_seq((0..table.tensors.len()).map(|i| Tensor {
                    line: table.lines[i],
                    id: table.ids.as_ref().map(|ids| ids[i].as_str()),
                    name: table.names.as_ref().map(|names| names[i].as_str()),
                    alignment: alignments.map(|c| c.alignments[i]),
                    fixed_offset: fixed.and_then(|c| c.fixed[i]),
                    hint: hints.and_then(|c| c.hints[i]),
                    gaps: c.map_or_else(Vec::new, |c| {
                        c.gaps_of(i)
                            .map(|g| Gap {
                                first: g.first,
                                last: g.last,
                                window: g.window.map(|(lo, hi)| [lo, hi]),
                            })
                            .collect()
                    }),
                    reuses: c.and_then(|c| c.reuses_of.get(i).copied().flatten()),
                    size: table.tensors[i].size,
                    rounded_size: aligned.then_some(planned.planned[i].size),
                    first_use: table.tensors[i].first_use,
                    last_use: table.tensors[i].last_use,
                    offset: planned.report.plan.offsets[i],
                }))
            }
        }
        let table = &self.table;
        let plan = Plan {
            input: &table.name,
            format: table.format.header(),
            tensors: table.tensors.len(),
            strategy: strategy_name(self.options.strategy),
            alignment: self.options.alignment,
            capacity: table.constraints.as_ref().and_then(|c| c.capacity),
            peak_live_bytes: self.peak,
            arena_size: self.arena(),
            arena_over_peak: self.ratio(),
            lower_bound: self.report.lower_bound,
            proven_optimal: self.report.proven_optimal,
            search_nodes: self.report.search_nodes,
            planning_seconds: self.elapsed.as_secs_f64(),
            plan: Tensors(self),
        };
        let fail = |e: &dyn std::fmt::Display| CliError::new(format!("cannot format JSON: {e}"));
        let mut bytes = Vec::with_capacity(200 * (table.tensors.len() + 1));
        serde_json::to_writer_pretty(&mut bytes, &plan).map_err(|e| fail(&e))?;
        bytes.push(b'\n');
        String::from_utf8(bytes).map_err(|e| fail(&e))
    }

    /// An aligned table, one row per tensor in input order, lifetimes as
    /// inclusive node indices; with `--align`, the rounded sizes too, and
    /// `end` is the offset plus the rounded size.
    pub fn table(&self) -> String {
        let table = &self.table;
        let aligned = self.options.alignment > 1;
        let mut columns = vec![Column::Tensor, Column::Line];
        if table.ids.is_some() {
            columns.push(Column::Id);
        }
        columns.push(Column::Size);
        if aligned {
            columns.push(Column::Rounded);
        }
        columns.extend([
            Column::FirstUse,
            Column::LastUse,
            Column::Offset,
            Column::End,
        ]);
        // The widths first, then the rows written cell by cell into one
        // reused buffer: no string per cell.
        let mut widths: Vec<usize> = columns.iter().map(|c| c.heading().len()).collect();
        for i in 0..table.tensors.len() {
            for (column, width) in columns.iter().zip(&mut widths) {
                *width = (*width).max(self.cell_width(*column, i));
            }
        }
        let mut cell = String::new();
        let row_width: usize = widths.iter().map(|w| w + 2).sum();
        let mut out = String::with_capacity(row_width * (table.tensors.len() + 1));
        let mut line = |out: &mut String, cells: &mut dyn FnMut(usize, &mut String)| {
            for (c, &width) in widths.iter().enumerate() {
                cell.clear();
                cells(c, &mut cell);
                if c > 0 {
                    out.push_str("  ");
                }
                let pad = width.saturating_sub(cell.chars().count());
                for _ in 0..pad {
                    out.push(' ');
                }
                out.push_str(&cell);
            }
            out.push('\n');
        };
        line(&mut out, &mut |c, cell| cell.push_str(columns[c].heading()));
        for i in 0..table.tensors.len() {
            line(&mut out, &mut |c, cell| {
                self.write_cell(cell, columns[c], i)
            });
        }
        out
    }

    /// The width in characters of what [`Planned::write_cell`] writes.
    fn cell_width(&self, column: Column, i: usize) -> usize {
        let digits = |mut n: usize| {
            let mut count = 1;
            while n >= 10 {
                n /= 10;
                count += 1;
            }
            count
        };
        let tensor = &self.table.tensors[i];
        let offset = self.report.plan.offsets[i];
        match column {
            Column::Tensor => digits(i),
            Column::Line => digits(self.table.lines[i]),
            Column::Id => self
                .table
                .ids
                .as_ref()
                .map_or(0, |ids| ids[i].chars().count()),
            Column::Size => digits(tensor.size),
            Column::Rounded => digits(self.planned[i].size),
            Column::FirstUse => digits(tensor.first_use),
            Column::LastUse => digits(tensor.last_use),
            Column::Offset => digits(offset),
            Column::End => digits(offset + self.planned[i].size),
        }
    }

    /// Writes tensor `i`'s cell of `column` of [`Planned::table`].
    fn write_cell(&self, out: &mut String, column: Column, i: usize) {
        let tensor = &self.table.tensors[i];
        let offset = self.report.plan.offsets[i];
        let _ = match column {
            Column::Tensor => write!(out, "{i}"),
            Column::Line => write!(out, "{}", self.table.lines[i]),
            Column::Id => {
                out.push_str(self.table.ids.as_ref().map_or("", |ids| &ids[i]));
                Ok(())
            }
            Column::Size => write!(out, "{}", tensor.size),
            Column::Rounded => write!(out, "{}", self.planned[i].size),
            Column::FirstUse => write!(out, "{}", tensor.first_use),
            Column::LastUse => write!(out, "{}", tensor.last_use),
            Column::Offset => write!(out, "{offset}"),
            Column::End => write!(out, "{}", offset + self.planned[i].size),
        };
    }
}

/// A CSV field, quoted only when it must be (MiniMalloc's own ids never
/// need it).
fn csv_field(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains([',', '"', '\n', '\r']) {
        std::borrow::Cow::Owned(format!("\"{}\"", text.replace('"', "\"\"")))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The columns of [`Planned::table`].
#[derive(Clone, Copy)]
enum Column {
    Tensor,
    Line,
    Id,
    Size,
    Rounded,
    FirstUse,
    LastUse,
    Offset,
    End,
}

impl Column {
    fn heading(self) -> &'static str {
        match self {
            Column::Tensor => "tensor",
            Column::Line => "line",
            Column::Id => "id",
            Column::Size => "size",
            Column::Rounded => "rounded",
            Column::FirstUse => "first_use",
            Column::LastUse => "last_use",
            Column::Offset => "offset",
            Column::End => "end",
        }
    }
}
