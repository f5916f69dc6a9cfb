//! `aether-plan offsets`: read a tensor table, plan it with the library, and
//! say what came out (summary, table, CSV, JSON).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use aether_planner::{
    try_peak_live_bytes, try_plan_offsets_with, try_plan_problem, PlanError, PlanOptions,
    PlanReport, Strategy, TensorLifetime,
};
use serde::Serialize;

use csv::StringRecord;

use crate::constraints::{ConstraintColumns, Constraints};
use crate::input::{parse_count, read_csv, At, CliError, FirstError, Input};
use crate::units::{grouped, grouped_u64, human_bytes, human_duration, plural};

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
    pub rows: Rows,
    /// Each tensor's line in the file.
    pub lines: Vec<usize>,
    /// Each tensor's `id` column, if the file has one.
    pub ids: Option<Vec<String>>,
    /// Each tensor's `name` column, if the file has one.
    pub names: Option<Vec<String>>,
    /// The constraint columns, if the file has any (or `--capacity` is given).
    pub constraints: Option<Constraints>,
    /// The lifetimes, inclusive, in file order.
    pub tensors: Vec<TensorLifetime>,
}

/// The fields of every row in one buffer, so that a large table costs two
/// allocations rather than one per field.
pub struct Rows {
    text: String,
    /// Where each field ends in `text`, row after row.
    ends: Vec<usize>,
    /// Fields per row.
    width: usize,
}

impl Rows {
    fn new(width: usize) -> Self {
        Rows {
            text: String::new(),
            ends: Vec::new(),
            width,
        }
    }

    /// Appends a row of exactly `width` fields.
    fn push<'a>(&mut self, fields: impl Iterator<Item = &'a str>) {
        for field in fields {
            self.text.push_str(field);
            self.ends.push(self.text.len());
        }
        debug_assert_eq!(self.ends.len() % self.width.max(1), 0);
    }

    /// Row `i`'s fields.
    pub fn row(&self, i: usize) -> impl Iterator<Item = &str> {
        let ends = &self.ends[i * self.width..(i + 1) * self.width];
        let mut start = if i == 0 || self.width == 0 {
            0
        } else {
            self.ends[i * self.width - 1]
        };
        ends.iter().map(move |&end| {
            let field = &self.text[start..end];
            start = end;
            field
        })
    }
}

/// Reads a tensor table in either format, detected from its header. Columns
/// may come in any order; other columns are kept for the CSV output, except a
/// column `offset`, which the plan replaces.
pub fn read_table(input: &Input) -> Result<TensorTable, CliError> {
    let mut csv = read_csv(input, EXPECTED_HEADERS)?;
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
    let [size_col, from_col, to_col] = csv.columns(input, columns(format), EXPECTED_HEADERS)?;
    let id_col = csv.column("id");
    let name_col = csv.column("name");
    // In the inclusive format an `offset` column is an old plan, replaced;
    // in MiniMalloc's it is a fixed offset, and still replaced by the plan
    // (which keeps it).
    let offset_col = csv.column("offset");
    let kept = |(i, _): &(usize, &str)| Some(*i) != offset_col;
    let constraint_columns = ConstraintColumns::find(&csv.header, format);
    let header: Vec<String> = csv
        .written
        .iter()
        .map(String::as_str)
        .enumerate()
        .filter(kept)
        .map(|(_, f)| f.to_string())
        .collect();
    let mut table = TensorTable {
        name: input.name.clone(),
        format,
        rows: Rows::new(header.len()),
        header,
        lines: Vec::new(),
        ids: id_col.map(|_| Vec::new()),
        names: name_col.map(|_| Vec::new()),
        constraints: constraint_columns
            .any()
            .then(|| Constraints::new(constraint_columns)),
        tensors: Vec::new(),
    };
    let mut bad = FirstError::default();
    let mut record = StringRecord::new();
    let mut count = 0usize;
    while let Some(line) = csv.next_row(&mut record)? {
        count += 1;
        if bad.found() {
            continue;
        }
        let at = input.at(line);
        let Some(tensor) = bad.keep(tensor_of(at, &record, format, [size_col, from_col, to_col]))
        else {
            continue;
        };
        if let Some(constraints) = table.constraints.as_mut() {
            if bad
                .keep(constraints.push_row(at, &record, format, &tensor))
                .is_none()
            {
                continue;
            }
        }
        table.tensors.push(tensor);
        table.lines.push(line);
        table
            .rows
            .push(record.iter().enumerate().filter(kept).map(|(_, f)| f));
        if let (Some(ids), Some(col)) = (table.ids.as_mut(), id_col) {
            ids.push(record[col].to_string());
        }
        if let (Some(names), Some(col)) = (table.names.as_mut(), name_col) {
            names.push(record[col].to_string());
        }
    }
    bad.into_result()?;
    if count == 0 {
        return Err(input.at(csv.header_line + 1).line(format!(
            "no tensors: the header {:?} is not followed by any row",
            csv.header.join(",")
        )));
    }
    if let Some(constraints) = table.constraints.as_mut() {
        let names = table.ids.as_deref().or(table.names.as_deref());
        constraints.resolve(names, &table.name, &table.lines)?;
    }
    Ok(table)
}

impl TensorTable {
    /// What tensor `i` is called: its `id`, else its `name`, else its index.
    pub fn label(&self, i: usize) -> std::borrow::Cow<'_, str> {
        match self.ids.as_ref().or(self.names.as_ref()) {
            Some(names) => std::borrow::Cow::Borrowed(names[i].as_str()),
            None => std::borrow::Cow::Owned(i.to_string()),
        }
    }
}

/// One row's lifetime, from the columns `[size, from, to]` of `format`.
fn tensor_of(
    at: At<'_>,
    record: &StringRecord,
    format: TableFormat,
    [size_col, from_col, to_col]: [usize; 3],
) -> Result<TensorLifetime, CliError> {
    let [size, from, to] = columns(format);
    let bytes = parse_count(at, size, &record[size_col])?;
    let start = parse_count(at, from, &record[from_col])?;
    let end = parse_count(at, to, &record[to_col])?;
    Ok(match format {
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
    })
}

/// The size and lifetime columns of `format`.
fn columns(format: TableFormat) -> [&'static str; 3] {
    match format {
        TableFormat::Inclusive => ["size", "first_use", "last_use"],
        TableFormat::MiniMalloc => ["size", "lower", "upper"],
    }
}

/// A planned table.
pub struct Planned {
    /// What was planned.
    pub table: TensorTable,
    /// How it was planned.
    pub options: PlanOptions,
    /// The tensors as planned: sizes rounded up to the alignment.
    pub planned: Vec<TensorLifetime>,
    /// The library's plan and what it proved.
    pub report: PlanReport,
    /// The peak of live bytes of the planned (rounded) sizes.
    pub peak: usize,
    /// How long `try_plan_offsets_with` took.
    pub elapsed: Duration,
}

/// What the summary and the picture call a strategy.
pub fn method(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Greedy => "greedy best fit, decreasing size",
        Strategy::Heuristic => "best of several heuristics, then local moves",
        Strategy::Search => "exact search from the heuristic plan",
    }
}

/// What `--strategy` calls a strategy.
pub fn strategy_name(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Greedy => "greedy",
        Strategy::Heuristic => "heuristic",
        Strategy::Search => "search",
    }
}

/// Plans `table` with the library; a refusal is located at its row.
pub fn plan(
    mut table: TensorTable,
    options: &PlanOptions,
    capacity: Option<usize>,
) -> Result<Planned, CliError> {
    let alignment = options.alignment;
    if let Some(capacity) = capacity {
        table
            .constraints
            .get_or_insert_with(|| Constraints::new(ConstraintColumns::default()))
            .capacity = Some(capacity);
    }
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
                    "{} overflow{}: an offset or a sum of live bytes would pass {}",
                    match table.tensors[tensor].size {
                        1 => "1 byte".to_owned(),
                        size => format!("{size} bytes"),
                    },
                    if alignment > 1 {
                        format!(" when rounded up to --align {alignment}")
                    } else {
                        String::new()
                    },
                    usize::MAX
                ),
            ),
            other => match crate::constraints::refusal(table, options.strategy, &other) {
                Some(error) => error,
                None => CliError::new(format!("{}: {other}", table.name)),
            },
        }
    };
    // The sizes as given first: their overflow is reported as it always was.
    let given_peak = try_peak_live_bytes(&table.tensors).map_err(|e| refused(&table, e))?;
    let label = format!(
        "planning {} ({})",
        plural(table.tensors.len(), "tensor", "tensors"),
        strategy_name(options.strategy)
    );
    let budget = (options.strategy == Strategy::Search).then_some(&options.budget);
    let (report, elapsed) = crate::progress::while_running(&label, budget, || {
        let start = Instant::now();
        let report = match &table.constraints {
            Some(c) => try_plan_problem(&c.problem(&table.tensors), options),
            None => try_plan_offsets_with(&table.tensors, options),
        };
        (report, start.elapsed())
    });
    let report = report.map_err(|e| refused(&table, e))?;
    // The library rounded the same way and found no overflow.
    let planned: Vec<TensorLifetime> = table
        .tensors
        .iter()
        .map(|t| TensorLifetime {
            size: t.size.next_multiple_of(alignment),
            ..*t
        })
        .collect();
    let peak = if let Some(c) = &table.constraints {
        crate::constraints::peak(&planned, c)
    } else if alignment == 1 {
        given_peak
    } else {
        try_peak_live_bytes(&planned).map_err(|e| refused(&table, e))?
    };
    Ok(Planned {
        table,
        options: *options,
        planned,
        report,
        peak,
        elapsed,
    })
}

/// A byte count for the summary: `512 B`, `1,048,576 B (1 MiB)`.
fn bytes(b: usize) -> String {
    if b < 1024 {
        format!("{b} B")
    } else {
        format!("{} B ({})", grouped(b), human_bytes(b))
    }
}

impl Planned {
    /// The plan's arena.
    pub fn arena(&self) -> usize {
        self.report.plan.arena_size
    }

    /// `arena / peak`, or 1 when both are 0 (nothing but zero-size tensors).
    pub fn ratio(&self) -> f64 {
        if self.peak == 0 {
            1.0
        } else {
            self.arena() as f64 / self.peak as f64
        }
    }

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
