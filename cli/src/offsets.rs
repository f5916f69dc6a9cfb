//! `aether-plan offsets`: read a tensor table, plan it with the library, and
//! say what came out (summary, table, CSV, JSON).

mod refusal;
mod summary;
mod write;

use std::time::{Duration, Instant};

use aether_planner::{
    try_peak_live_bytes, try_plan_offsets_observed, try_plan_problem_observed, PlanOptions,
    PlanReport, Strategy, TensorLifetime,
};

use csv::StringRecord;

use crate::constraints::{ConstraintColumns, Constraints};
use crate::input::{parse_count, read_csv, At, CliError, FirstError, Input};
use crate::table::{Rows, TableFormat, Texts};
use crate::units::plural;

pub use refusal::refused;

/// The header lines `offsets` accepts, for messages.
pub const EXPECTED_HEADERS: &str = "'size,first_use,last_use' or 'id,lower,upper,size'";

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
    pub ids: Option<Texts>,
    /// Each tensor's `name` column, if the file has one.
    pub names: Option<Texts>,
    /// The constraint columns, if the file has any (or `--capacity` is given).
    pub constraints: Option<Constraints>,
    /// The lifetimes, inclusive, in file order.
    pub tensors: Vec<TensorLifetime>,
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
        ids: id_col.map(|_| Texts::default()),
        names: name_col.map(|_| Texts::default()),
        constraints: constraint_columns
            .any()
            .then(|| Constraints::new(constraint_columns)),
        tensors: Vec::new(),
    };
    // Room for every line: the vectors then grow once, not twenty times.
    let lines = input.text.bytes().filter(|&b| b == b'\n').count() + 1;
    table.tensors.reserve(lines);
    table.lines.reserve(lines);
    table.rows.reserve(lines, input.text.len());
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
            ids.push(&record[col]);
        }
        if let (Some(names), Some(col)) = (table.names.as_mut(), name_col) {
            names.push(&record[col]);
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
        let names = table.ids.as_ref().or(table.names.as_ref());
        constraints.resolve(names, &table.name, &table.lines)?;
    }
    Ok(table)
}

impl TensorTable {
    /// What tensor `i` is called: its `id`, else its `name`, else its index.
    pub fn label(&self, i: usize) -> std::borrow::Cow<'_, str> {
        match self.ids.as_ref().or(self.names.as_ref()) {
            Some(names) => std::borrow::Cow::Borrowed(&names[i]),
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
    let label = format!(
        "planning {} ({})",
        plural(table.tensors.len(), "tensor", "tensors"),
        strategy_name(options.strategy)
    );
    let budget = (options.strategy == Strategy::Search).then_some(&options.budget);
    let (report, elapsed) = crate::progress::while_running(&label, budget, |observe| {
        let start = Instant::now();
        let report = match &table.constraints {
            Some(c) => try_plan_problem_observed(&c.problem(&table.tensors), options, observe),
            None => try_plan_offsets_observed(&table.tensors, options, observe),
        };
        (report, start.elapsed())
    });
    let report = report.map_err(|e| refused(&table, options, e))?;
    // The library rounded the same way and found no overflow.
    let planned: Vec<TensorLifetime> = table
        .tensors
        .iter()
        .map(|t| TensorLifetime {
            size: t.size.next_multiple_of(alignment),
            ..*t
        })
        .collect();
    // No arena is below the peak, so neither sum can pass usize::MAX.
    let peak = match &table.constraints {
        Some(c) => c.problem(&planned).try_peak_live_bytes(),
        None => try_peak_live_bytes(&planned),
    }
    .map_err(|e| refused(&table, options, e))?;
    Ok(Planned {
        table,
        options: *options,
        planned,
        report,
        peak,
        elapsed,
    })
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
}
