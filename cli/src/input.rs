//! Reading input files, and saying in one line what is wrong with them.
//!
//! Every error names the file, and where it can, the line (1-based, as an
//! editor counts) and the field. The CSV is split by the `csv` crate and the
//! JSON by `serde_json`; this module only turns their records into numbers and
//! their failures into messages.

mod json;

use std::fmt;
use std::io::Read;
use std::path::Path;

use csv::StringRecord;

/// Why the tool stopped: one line, printed after `aether-plan: error: `.
#[derive(Debug)]
pub struct CliError(String);

impl CliError {
    /// An error with a message that already says where.
    pub fn new(message: impl Into<String>) -> Self {
        CliError(message.into())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, always: a message that quotes input must not break it.
        f.write_str(&self.0.replace(['\n', '\r'], " "))
    }
}

/// A place in an input file: `FILE:LINE`, and optionally the field there.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    /// The file as the user named it.
    pub file: &'a str,
    /// 1-based line number.
    pub line: usize,
}

impl<'a> At<'a> {
    /// `FILE:LINE: field 'FIELD': MESSAGE`.
    pub fn field(self, field: &str, message: impl fmt::Display) -> CliError {
        CliError(format!(
            "{}:{}: field '{}': {}",
            self.file, self.line, field, message
        ))
    }

    /// `FILE:LINE: MESSAGE`, for what is wrong with the line as a whole.
    pub fn line(self, message: impl fmt::Display) -> CliError {
        CliError(format!("{}:{}: {}", self.file, self.line, message))
    }
}

/// The text of one input and the name errors call it by.
pub struct Input {
    /// What error messages call the input: the path as given, `<stdin>`, or
    /// the embedded table's name.
    pub name: String,
    /// The whole input.
    pub text: String,
}

impl Input {
    /// Reads `path`, or standard input for `-`.
    pub fn read(path: &Path) -> Result<Input, CliError> {
        let mut bytes = Vec::new();
        let name = if path.as_os_str() == "-" {
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| CliError(format!("<stdin>: cannot read: {e}")))?;
            "<stdin>".to_string()
        } else {
            let name = path.display().to_string();
            bytes =
                std::fs::read(path).map_err(|e| CliError(format!("{name}: cannot read: {e}")))?;
            name
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let offset = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            CliError(format!("{name}:{line}: not UTF-8 text (byte {offset})"))
        })?;
        Ok(Input { name, text })
    }

    /// An input compiled into the binary.
    pub fn embedded(name: &str, text: &str) -> Input {
        Input {
            name: name.to_string(),
            text: text.to_string(),
        }
    }

    /// The place `line` of this input.
    pub fn at(&self, line: usize) -> At<'_> {
        At {
            file: &self.name,
            line,
        }
    }

    /// Fails with "empty file" when there is nothing but white space.
    pub fn require_content(&self, expected: &str) -> Result<(), CliError> {
        if self.text.trim().is_empty() {
            return Err(self.at(1).line(format!("empty file; expected {expected}")));
        }
        Ok(())
    }

    /// Whether the input looks like JSON (an array or an object) rather than
    /// CSV.
    pub fn is_json(&self) -> bool {
        matches!(self.text.trim_start().chars().next(), Some('[' | '{'))
    }
}

/// Parses a whole number that counts something (bytes, a node index).
pub fn parse_count(at: At<'_>, field: &str, raw: &str) -> Result<usize, CliError> {
    if raw.is_empty() {
        return Err(at.field(field, "empty; expected a whole number"));
    }
    if let Some(digits) = raw.strip_prefix('-') {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(at.field(
                field,
                format!("{raw} is negative; {field} must be 0 or more"),
            ));
        }
    }
    match raw.parse::<u64>() {
        Ok(value) => usize::try_from(value)
            .map_err(|_| at.field(field, format!("{raw} is too large for this machine"))),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            Err(at.field(field, format!("{raw} is too large (at most {})", u64::MAX)))
        }
        Err(_) => Err(at.field(field, format!("{:?} is not a whole number", raw))),
    }
}

/// A CSV file with its header read, its data rows read one at a time.
pub struct CsvTable<'a> {
    /// The header's fields, lower-cased.
    pub header: Vec<String>,
    /// The header's fields as written.
    pub written: Vec<String>,
    /// The header's line.
    pub header_line: usize,
    input: &'a Input,
    reader: csv::Reader<&'a [u8]>,
    lines: LineCounter<'a>,
    /// Where a row with spaces around a field is trimmed into.
    spare: StringRecord,
}

impl<'a> CsvTable<'a> {
    /// The position of each of `names` in the header, or an error naming the
    /// first one missing. `expected` describes the accepted headers.
    pub fn columns<const N: usize>(
        &self,
        input: &Input,
        names: [&str; N],
        expected: &str,
    ) -> Result<[usize; N], CliError> {
        let mut found = [0; N];
        for (slot, name) in found.iter_mut().zip(names) {
            *slot = self.column(name).ok_or_else(|| {
                input.at(self.header_line).field(
                    name,
                    format!(
                        "missing from the header {:?}; expected {expected}",
                        self.header.join(",")
                    ),
                )
            })?;
        }
        Ok(found)
    }

    /// The position of column `name` in the header.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Reads the next data row into `record` and returns its line, or `None`
    /// at the end. Blank lines are skipped; a row with more or fewer fields
    /// than the header is an error. One record is reused for every row, so
    /// reading allocates nothing per row.
    pub fn next_row(&mut self, record: &mut StringRecord) -> Result<Option<usize>, CliError> {
        let line = loop {
            match self.reader.read_record(record) {
                Ok(false) => return Ok(None),
                Ok(true) => {
                    trim(record, &mut self.spare);
                    // Lines of nothing but spaces are skipped like empty ones.
                    if !record.iter().all(str::is_empty) {
                        break record_line(&mut self.lines, record);
                    }
                }
                Err(e) => return Err(csv_error(self.input, &mut self.lines, &e)),
            }
        };
        let header = &self.header;
        if record.len() < header.len() {
            return Err(self.input.at(line).field(
                &header[record.len()],
                format!(
                    "missing; the row has {} of the header's {} fields ({})",
                    record.len(),
                    header.len(),
                    header.join(",")
                ),
            ));
        }
        if record.len() > header.len() {
            return Err(self.input.at(line).line(format!(
                "{} fields, but the header ({}) has {}",
                record.len(),
                header.join(","),
                header.len()
            )));
        }
        Ok(Some(line))
    }
}

/// Trims the spaces around every field of `record`, as the csv crate's
/// `Trim::All` does, but without its two new records per row: a row that
/// needs no trimming (nearly all) is left as it is, and one that does is
/// rebuilt in `spare`, which is kept for the next.
fn trim(record: &mut StringRecord, spare: &mut StringRecord) {
    let padded = |f: &str| f.starts_with(char::is_whitespace) || f.ends_with(char::is_whitespace);
    if !record.iter().any(padded) {
        return;
    }
    spare.clear();
    for field in record.iter() {
        spare.push_field(field.trim());
    }
    spare.set_position(record.position().cloned());
    std::mem::swap(record, spare);
}

/// The line a record read by the csv crate starts on.
fn record_line(lines: &mut LineCounter<'_>, record: &StringRecord) -> usize {
    record
        .position()
        .map_or(1, |p| lines.line_after_breaks(p.byte()))
}

fn csv_error(input: &Input, lines: &mut LineCounter<'_>, e: &csv::Error) -> CliError {
    let line = e
        .position()
        .map_or(1, |p| lines.line_after_breaks(p.byte()));
    input.at(line).line(format!("not valid CSV: {e}"))
}

/// Opens `input` as CSV with a header line and reads the header; the rows
/// follow with [`CsvTable::next_row`]. `expected` describes the accepted
/// headers for messages. Column names are compared without case and
/// surrounding spaces; a repeated name is an error.
pub fn read_csv<'a>(input: &'a Input, expected: &str) -> Result<CsvTable<'a>, CliError> {
    input.require_content(&format!("a header line {expected}"))?;

    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input.text.as_bytes());
    let mut lines = LineCounter::new(&input.text);
    let mut first = StringRecord::new();
    let mut spare = StringRecord::new();
    loop {
        match reader.read_record(&mut first) {
            Ok(false) => return Err(input.at(1).line(format!("empty file; expected {expected}"))),
            Ok(true) => {
                trim(&mut first, &mut spare);
                if !first.iter().all(str::is_empty) {
                    break;
                }
            }
            Err(e) => return Err(csv_error(input, &mut lines, &e)),
        }
    }
    let header_line = record_line(&mut lines, &first);
    let shown = first.iter().collect::<Vec<_>>().join(",");
    if first
        .iter()
        .next()
        .is_some_and(|f| f.trim_start_matches(['-', '+']).parse::<f64>().is_ok())
    {
        return Err(input.at(header_line).line(format!(
            "missing header: the first line is data ({shown:?}); put a header line {expected} above it"
        )));
    }
    let header: Vec<String> = first.iter().map(|f| f.to_ascii_lowercase()).collect();
    for (i, name) in header.iter().enumerate() {
        if header[..i].contains(name) {
            return Err(input
                .at(header_line)
                .field(name, "appears twice in the header"));
        }
    }
    Ok(CsvTable {
        header,
        written: first.iter().map(str::to_string).collect(),
        header_line,
        input,
        reader,
        lines,
        spare,
    })
}

/// The first error of a file read in one pass, where malformed rows (CSV
/// syntax, field counts) take precedence over bad values: a bad value is
/// kept while the rest of the file is checked for malformed rows.
#[derive(Default)]
pub struct FirstError(Option<CliError>);

impl FirstError {
    /// Keeps `error` if it is the first bad value.
    pub fn keep<T>(&mut self, result: Result<T, CliError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.0.get_or_insert(error);
                None
            }
        }
    }

    /// Whether a bad value was seen.
    pub fn found(&self) -> bool {
        self.0.is_some()
    }

    /// The bad value's error, if there was one.
    pub fn into_result(self) -> Result<(), CliError> {
        self.0.map_or(Ok(()), Err)
    }
}

/// What a list of node pairs is called in a given subcommand.
pub struct PairSpec {
    /// The two field names, as in the CSV header: `source,target` or `a,b`.
    pub fields: [&'static str; 2],
    /// The key of the list in the JSON object form: `edges`, `incidences`.
    pub list_key: &'static str,
}

/// Node pairs read from CSV or JSON.
pub struct Pairs {
    /// The pairs, in file order.
    pub pairs: Vec<(usize, usize)>,
    /// The line each pair starts on.
    pub lines: Vec<usize>,
    /// The node count a JSON object gave under `"nodes"`, and its line.
    pub nodes: Option<(usize, usize)>,
}

/// Reads a list of node pairs: CSV with the header `spec.fields`, or JSON
/// (`[[s, t], …]`, `[{"source": s, "target": t}, …]`, or an object
/// `{"nodes": n, "edges": [...]}` with the list under `spec.list_key`).
pub fn read_pairs(input: &Input, spec: &PairSpec) -> Result<Pairs, CliError> {
    let [a, b] = spec.fields;
    input.require_content(&format!("a header line '{a},{b}' or a JSON array"))?;
    if input.is_json() {
        return json::read_pairs(input, spec);
    }
    let expected = format!("'{a},{b}'");
    let mut csv = read_csv(input, &expected)?;
    let [ia, ib] = csv.columns(input, [a, b], &expected)?;
    let mut pairs = Pairs {
        pairs: Vec::new(),
        lines: Vec::new(),
        nodes: None,
    };
    let mut bad = FirstError::default();
    let mut record = StringRecord::new();
    while let Some(line) = csv.next_row(&mut record)? {
        if bad.found() {
            continue;
        }
        let at = input.at(line);
        let pair = parse_count(at, a, &record[ia])
            .and_then(|first| Ok((first, parse_count(at, b, &record[ib])?)));
        if let Some(pair) = bad.keep(pair) {
            pairs.pairs.push(pair);
            pairs.lines.push(line);
        }
    }
    bad.into_result()?;
    Ok(pairs)
}

/// Line numbers of byte offsets in one text, counted onward from the offset
/// asked about last: asking in file order reads the text once, however many
/// rows it has. An offset before the last one starts the count over.
struct LineCounter<'a> {
    bytes: &'a [u8],
    /// The last offset asked about, and its 1-based line.
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> Self {
        LineCounter {
            bytes: text.as_bytes(),
            offset: 0,
            line: 1,
        }
    }

    /// The 1-based line of byte `offset` (the end of the text if past it).
    fn line(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.bytes.len());
        if offset < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        self.line += self.bytes[self.offset..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.offset = offset;
        self.line
    }

    /// The 1-based line of the first character at or after byte `offset`
    /// that is not a line break. The csv crate's own line numbers, and its
    /// byte offsets, count from where it began to read a record, before any
    /// blank lines it skipped.
    fn line_after_breaks(&mut self, offset: u64) -> usize {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        let breaks = self.bytes[start..]
            .iter()
            .take_while(|&&b| b == b'\n' || b == b'\r')
            .count();
        self.line(start + breaks)
    }

    /// The 1-based line on which `part`, a slice of the text, starts.
    fn line_of(&mut self, part: &str) -> usize {
        let start = self.bytes.as_ptr() as usize;
        self.line((part.as_ptr() as usize).saturating_sub(start))
    }
}
