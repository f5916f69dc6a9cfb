//! `aether-plan offsets`: read a tensor table, plan it with the library, and
//! say what came out (summary, table, CSV, JSON).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use aether_planner::{
    try_peak_live_bytes, try_plan_offsets, MemoryPlan, PlanError, TensorLifetime,
};
use serde::Serialize;

use crate::input::{parse_count, read_csv, CliError, Input};
use crate::units::{grouped, human_bytes, human_duration};

/// The header lines `offsets` accepts, for messages.
pub const EXPECTED_HEADERS: &str = "'size,first_use,last_use' or 'id,lower,upper,size'";

/// Which of the two tensor-table formats a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// `size,first_use,last_use`: inclusive node indices.
    Inclusive,
    /// MiniMalloc's `id,lower,upper,size`: `upper` is exclusive.
    MiniMalloc,
}

impl TableFormat {
    /// The format's canonical header.
    pub fn header(self) -> &'static str {
        match self {
            TableFormat::Inclusive => "size,first_use,last_use",
            TableFormat::MiniMalloc => "id,lower,upper,size",
        }
    }
}

/// A tensor table as read: the lifetimes for the library, and what is needed
/// to point back at the file and to echo its rows.
pub struct TensorTable {
    /// The input's name for messages.
    pub name: String,
    /// The format the header named.
    pub format: TableFormat,
    /// The header's fields as written, without an `offset` column.
    pub header: Vec<String>,
    /// Each row's fields as written, without an `offset` column.
    pub rows: Vec<Vec<String>>,
    /// Each tensor's line in the file.
    pub lines: Vec<usize>,
    /// Each tensor's `id` column, if the file has one.
    pub ids: Option<Vec<String>>,
    /// The lifetimes, inclusive, in file order.
    pub tensors: Vec<TensorLifetime>,
}

/// Reads a tensor table in either format, detected from its header. Columns
/// may come in any order; other columns are kept for the CSV output, except a
/// column `offset`, which the plan replaces.
pub fn read_table(input: &Input) -> Result<TensorTable, CliError> {
    let csv = read_csv(input, EXPECTED_HEADERS)?;
    let format = if csv.column("first_use").is_some() || csv.column("last_use").is_some() {
        TableFormat::Inclusive
    } else if csv.column("lower").is_some() || csv.column("upper").is_some() {
        TableFormat::MiniMalloc
    } else {
        return Err(input.at(csv.header_line).line(format!(
            "unknown header {:?}; expected {EXPECTED_HEADERS}",
            csv.header.join(",")
        )));
    };
    let [size, from, to] = match format {
        TableFormat::Inclusive => ["size", "first_use", "last_use"],
        TableFormat::MiniMalloc => ["size", "lower", "upper"],
    };
    let [size_col, from_col, to_col] = csv.columns(input, [size, from, to], EXPECTED_HEADERS)?;
    let id_col = csv.column("id");
    let offset_col = csv.column("offset");
    let keep = |fields: &mut dyn Iterator<Item = &str>| -> Vec<String> {
        fields
            .enumerate()
            .filter(|&(i, _)| Some(i) != offset_col)
            .map(|(_, f)| f.to_string())
            .collect()
    };

    if csv.rows.is_empty() {
        return Err(input.at(csv.header_line + 1).line(format!(
            "no tensors: the header {:?} is not followed by any row",
            csv.header.join(",")
        )));
    }
    let mut table = TensorTable {
        name: input.name.clone(),
        format,
        header: keep(&mut csv.written.iter().map(String::as_str)),
        rows: Vec::with_capacity(csv.rows.len()),
        lines: Vec::with_capacity(csv.rows.len()),
        ids: id_col.map(|_| Vec::with_capacity(csv.rows.len())),
        tensors: Vec::with_capacity(csv.rows.len()),
    };
    for (line, record) in &csv.rows {
        let at = input.at(*line);
        let bytes = parse_count(at, size, &record[size_col])?;
        let start = parse_count(at, from, &record[from_col])?;
        let end = parse_count(at, to, &record[to_col])?;
        let tensor = match format {
            // The library checks first_use <= last_use and names the tensor.
            TableFormat::Inclusive => TensorLifetime::new(bytes, start, end),
            TableFormat::MiniMalloc => {
                if end <= start {
                    return Err(at.field(
                        "upper",
                        format!(
                            "{end} is not above lower {start}; upper is exclusive, so the \
                             buffer would be live at no time"
                        ),
                    ));
                }
                TensorLifetime::new(bytes, start, end - 1)
            }
        };
        table.tensors.push(tensor);
        table.lines.push(*line);
        table.rows.push(keep(&mut record.iter()));
        if let (Some(ids), Some(col)) = (table.ids.as_mut(), id_col) {
            ids.push(record[col].to_string());
        }
    }
    Ok(table)
}

/// A planned table.
pub struct Planned {
    /// What was planned.
    pub table: TensorTable,
    /// The library's plan.
    pub plan: MemoryPlan,
    /// The library's peak of live bytes.
    pub peak: usize,
    /// How long `try_plan_offsets` took.
    pub elapsed: Duration,
}

/// Plans `table` with the library; a refusal is located at its row.
pub fn plan(table: TensorTable) -> Result<Planned, CliError> {
    let refused = |table: &TensorTable, error: PlanError| -> CliError {
        let at = |tensor: usize| crate::input::At {
            file: &table.name,
            line: table.lines[tensor],
        };
        match error {
            PlanError::InvalidLifetime {
                tensor,
                first_use,
                last_use,
            } => at(tensor).field(
                "first_use",
                format!(
                    "{first_use} is after last_use {last_use}; lifetimes are inclusive node \
                     indices, first_use <= last_use"
                ),
            ),
            PlanError::Overflow { tensor } => at(tensor).field(
                "size",
                format!(
                    "{} bytes overflow: an offset or a sum of live bytes would pass {}",
                    table.tensors[tensor].size,
                    usize::MAX
                ),
            ),
            other => CliError::new(format!("{}: {other}", table.name)),
        }
    };
    let peak = try_peak_live_bytes(&table.tensors).map_err(|e| refused(&table, e))?;
    let start = Instant::now();
    let plan = try_plan_offsets(&table.tensors).map_err(|e| refused(&table, e))?;
    let elapsed = start.elapsed();
    Ok(Planned {
        table,
        plan,
        peak,
        elapsed,
    })
}

impl Planned {
    /// `arena / peak`, or 1 when both are 0 (nothing but zero-size tensors).
    pub fn ratio(&self) -> f64 {
        if self.peak == 0 {
            1.0
        } else {
            self.plan.arena_size as f64 / self.peak as f64
        }
    }

    /// The summary: tensors, peak live bytes, arena, arena/peak, planning
    /// time; `title` names what was planned.
    pub fn summary(&self, title: &str) -> String {
        let bytes = |b: usize| {
            if b < 1024 {
                format!("{b} B")
            } else {
                format!("{} B ({})", grouped(b), human_bytes(b))
            }
        };
        let mut out = String::new();
        let _ = writeln!(out, "{title}");
        let _ = writeln!(out, "  tensors          {}", self.table.tensors.len());
        let _ = writeln!(
            out,
            "  peak live bytes  {}  the lower bound for any arena",
            bytes(self.peak)
        );
        let _ = writeln!(out, "  arena            {}", bytes(self.plan.arena_size));
        let _ = writeln!(out, "  arena / peak     {:.3}", self.ratio());
        let _ = writeln!(
            out,
            "  planning time    {}  (greedy best fit, decreasing size)",
            human_duration(self.elapsed)
        );
        out
    }

    /// The input's columns (less any `offset`) and then `offset`, one row
    /// per tensor in input order.
    pub fn csv(&self) -> Result<String, CliError> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let fail = |e: csv::Error| CliError::new(format!("cannot format CSV: {e}"));
        let mut header = self.table.header.clone();
        header.push("offset".to_string());
        writer.write_record(&header).map_err(fail)?;
        for (row, offset) in self.table.rows.iter().zip(&self.plan.offsets) {
            let mut record = row.clone();
            record.push(offset.to_string());
            writer.write_record(&record).map_err(fail)?;
        }
        let bytes = writer
            .into_inner()
            .map_err(|e| CliError::new(format!("cannot format CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| CliError::new(format!("cannot format CSV: {e}")))
    }

    /// One JSON object: the figures and every tensor with its offset.
    pub fn json(&self) -> Result<String, CliError> {
        #[derive(Serialize)]
        struct Tensor<'a> {
            line: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<&'a str>,
            size: usize,
            first_use: usize,
            last_use: usize,
            offset: usize,
        }
        #[derive(Serialize)]
        struct Plan<'a> {
            input: &'a str,
            format: &'a str,
            tensors: usize,
            peak_live_bytes: usize,
            arena_size: usize,
            arena_over_peak: f64,
            planning_seconds: f64,
            plan: Vec<Tensor<'a>>,
        }
        let table = &self.table;
        let plan = Plan {
            input: &table.name,
            format: table.format.header(),
            tensors: table.tensors.len(),
            peak_live_bytes: self.peak,
            arena_size: self.plan.arena_size,
            arena_over_peak: self.ratio(),
            planning_seconds: self.elapsed.as_secs_f64(),
            plan: (0..table.tensors.len())
                .map(|i| Tensor {
                    line: table.lines[i],
                    id: table.ids.as_ref().map(|ids| ids[i].as_str()),
                    size: table.tensors[i].size,
                    first_use: table.tensors[i].first_use,
                    last_use: table.tensors[i].last_use,
                    offset: self.plan.offsets[i],
                })
                .collect(),
        };
        let mut text = serde_json::to_string_pretty(&plan)
            .map_err(|e| CliError::new(format!("cannot format JSON: {e}")))?;
        text.push('\n');
        Ok(text)
    }

    /// An aligned table, one row per tensor in input order, lifetimes as
    /// inclusive node indices.
    pub fn table(&self) -> String {
        let table = &self.table;
        let mut header = vec!["tensor", "line"];
        if table.ids.is_some() {
            header.push("id");
        }
        header.extend(["size", "first_use", "last_use", "offset", "end"]);
        let rows: Vec<Vec<String>> = (0..table.tensors.len())
            .map(|i| {
                let t = &table.tensors[i];
                let offset = self.plan.offsets[i];
                let mut row = vec![i.to_string(), table.lines[i].to_string()];
                if let Some(ids) = &table.ids {
                    row.push(ids[i].clone());
                }
                row.extend([
                    t.size.to_string(),
                    t.first_use.to_string(),
                    t.last_use.to_string(),
                    offset.to_string(),
                    (offset + t.size).to_string(),
                ]);
                row
            })
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|c| {
                rows.iter()
                    .map(|r| r[c].chars().count())
                    .chain([header[c].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
            let text: Vec<String> = cells
                .zip(&widths)
                .map(|(cell, &w)| format!("{cell:>w$}"))
                .collect();
            let _ = writeln!(out, "{}", text.join("  "));
        };
        line(&mut out, &mut header.iter().copied());
        for row in &rows {
            line(&mut out, &mut row.iter().map(String::as_str));
        }
        out
    }
}
