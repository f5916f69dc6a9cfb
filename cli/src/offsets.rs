//! `aether-plan offsets`: read a tensor table, plan it with the library, and
//! say what came out (summary, table, CSV, JSON).

mod summary;
mod write;

use std::time::{Duration, Instant};

use aether_planner::{
    try_peak_live_bytes, try_plan_offsets_with, try_plan_problem, PlanError, PlanOptions,
    PlanReport, Strategy, TensorLifetime,
};

use csv::StringRecord;

use crate::constraints::{ConstraintColumns, Constraints};
use crate::input::{parse_count, read_csv, At, CliError, FirstError, Input};
use crate::units::plural;

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
    pub ids: Option<Texts>,
    /// Each tensor's `name` column, if the file has one.
    pub names: Option<Texts>,
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

    /// Room for `rows` rows of `bytes` bytes in all.
    fn reserve(&mut self, rows: usize, bytes: usize) {
        self.ends.reserve(rows * self.width);
        self.text.reserve(bytes);
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

/// One text per tensor (its `id` or its `name`), all in one buffer.
#[derive(Default)]
pub struct Texts {
    text: String,
    /// Where each tensor's text ends in `text`.
    ends: Vec<usize>,
}

impl Texts {
    fn push(&mut self, text: &str) {
        self.text.push_str(text);
        self.ends.push(self.text.len());
    }

    /// Every text, in tensor order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| &self[i])
    }
}

impl std::ops::Index<usize> for Texts {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
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

/// The library's `try_peak_live_bytes`, in linear time when the node
/// indices are dense (as a compiler's are): one pass adds each tensor to a
/// table over the node range, a second sums it. Sparse indices, and every
/// input the library would refuse, go to the library's sweep, so that a
/// refusal reads as it always has.
fn peak_live_bytes(tensors: &[TensorLifetime]) -> Result<usize, PlanError> {
    dense_peak(tensors).map_or_else(|| try_peak_live_bytes(tensors), Ok)
}

/// The peak by a table over the nodes, or `None` when the node range is
/// more than twice the tensor count (the table would be mostly empty), a
/// lifetime is invalid, or a sum overflows.
fn dense_peak(tensors: &[TensorLifetime]) -> Option<usize> {
    let (mut low, mut high) = (usize::MAX, 0);
    for t in tensors {
        if t.first_use > t.last_use {
            return None;
        }
        if t.size > 0 {
            low = low.min(t.first_use);
            high = high.max(t.last_use);
        }
    }
    if low > high {
        return Some(0);
    }
    let span = (high - low).checked_add(1)?;
    if span > 2 * tensors.len() + 1024 {
        return None;
    }
    // Bytes entering at each node, and bytes leaving after it.
    let mut enter = vec![0usize; span];
    let mut leave = vec![0usize; span];
    for t in tensors.iter().filter(|t| t.size > 0) {
        let (first, last) = (t.first_use - low, t.last_use - low);
        enter[first] = enter[first].checked_add(t.size)?;
        leave[last] = leave[last].checked_add(t.size)?;
    }
    let (mut live, mut peak) = (0usize, 0usize);
    for (enter, leave) in enter.into_iter().zip(leave) {
        live = live.checked_add(enter)?;
        peak = peak.max(live);
        live -= leave;
    }
    Some(peak)
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
    let given_peak = peak_live_bytes(&table.tensors).map_err(|e| refused(&table, e))?;
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
        peak_live_bytes(&planned).map_err(|e| refused(&table, e))?
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dense_peak_is_the_librarys_or_defers_to_it() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut below = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as usize
        };
        for round in 0..200 {
            let n = 1 + below(60);
            let base = if round % 3 == 0 { 1_000 } else { 0 };
            let tensors: Vec<TensorLifetime> = (0..n)
                .map(|_| {
                    let first = base + below(40);
                    let size = [0, 1, 7, 64, 4096][below(5)];
                    TensorLifetime::new(size, first, first + below(12))
                })
                .collect();
            let dense = dense_peak(&tensors).expect("dense node indices");
            assert_eq!(dense, try_peak_live_bytes(&tensors).unwrap(), "{tensors:?}");
        }
        // Sparse indices, an overflow and an invalid lifetime go to the
        // library, which says what is wrong.
        let sparse = [
            TensorLifetime::new(1, 0, 0),
            TensorLifetime::new(1, 1 << 40, 1 << 40),
        ];
        assert_eq!(dense_peak(&sparse), None);
        assert_eq!(peak_live_bytes(&sparse), Ok(1));
        let huge = [
            TensorLifetime::new(usize::MAX, 0, 1),
            TensorLifetime::new(1, 1, 1),
        ];
        assert_eq!(dense_peak(&huge), None);
        assert_eq!(peak_live_bytes(&huge), try_peak_live_bytes(&huge));
        assert!(peak_live_bytes(&huge).is_err());
        let backwards = [TensorLifetime {
            size: 1,
            first_use: 3,
            last_use: 2,
        }];
        assert_eq!(dense_peak(&backwards), None);
        assert!(peak_live_bytes(&backwards).is_err());
    }
}
