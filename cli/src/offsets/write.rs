//! The plan as data: CSV, MiniMalloc CSV, JSON and the aligned table.
//!
//! Each writer streams into the caller's buffered writer: a million rows
//! cost one pass and no allocation per row or field. Every row is first
//! assembled in one reused byte buffer, integers written by [`push_number`].

use std::io::{self, Write};

use serde::Serialize;

use crate::constraints::Constraints;
use crate::input::CliError;
use crate::table::TableFormat;

use super::{strategy_name, Planned, TensorTable};

impl TensorTable {
    /// Whether `--format minimalloc` can write this table so that it reads
    /// back as it is: MiniMalloc's `upper` is exclusive, so a lifetime that
    /// ends at node `usize::MAX` has no `upper` the reader takes (nor has a
    /// gap there, which lies inside its lifetime). Checked before planning,
    /// so that nothing is planned in vain.
    ///
    /// Errors: the first such row, naming its field. Complexity: `O(n)`.
    pub fn check_minimalloc(&self) -> Result<(), CliError> {
        // A MiniMalloc table was read with upper <= usize::MAX: it fits.
        if self.format == TableFormat::MiniMalloc {
            return Ok(());
        }
        let at = |t: usize| crate::input::At {
            file: &self.name,
            line: self.lines[t],
        };
        if let Some(t) = self.tensors.iter().position(|t| t.last_use == usize::MAX) {
            return Err(at(t).field(
                "last_use",
                format!(
                    "{} cannot be written with --format minimalloc, whose exclusive upper would \
                     be {}, past the largest number read; --format csv or json writes it",
                    usize::MAX,
                    usize::MAX as u128 + 1
                ),
            ));
        }
        Ok(())
    }
}

impl Planned {
    /// The input's columns (less any `offset`) and then `offset`, one row
    /// per tensor in input order; fields quoted as the `csv` crate quotes
    /// them (only those holding `,`, `"`, or a line break).
    pub fn write_csv<W: Write>(&self, out: &mut W) -> io::Result<()> {
        let mut line = Vec::with_capacity(256);
        for (k, field) in self.table.header.iter().enumerate() {
            if k > 0 {
                line.push(b',');
            }
            push_csv_field(&mut line, field);
        }
        if !self.table.header.is_empty() {
            line.push(b',');
        }
        line.extend_from_slice(b"offset\n");
        out.write_all(&line)?;
        for (i, &offset) in self.report.plan.offsets.iter().enumerate() {
            line.clear();
            for field in self.table.rows.row(i) {
                push_csv_field(&mut line, field);
                line.push(b',');
            }
            push_number(&mut line, offset as u128);
            line.push(b'\n');
            out.write_all(&line)?;
        }
        Ok(())
    }

    /// MiniMalloc's output format, as its converter writes a solved
    /// problem: `id,lower,upper,size`, then `alignment`, `hint` and `gaps`
    /// when any tensor has one, this tool's `reuses` when any tensor reuses
    /// memory, and `offset`; `upper` exclusive, `-1` for no hint. Tensors
    /// without an `id` or `name` column are named by their index.
    pub fn write_minimalloc_csv<W: Write>(&self, out: &mut W) -> io::Result<()> {
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
        let mut line = header.join(",").into_bytes();
        line.push(b'\n');
        out.write_all(&line)?;
        let names = table.ids.as_ref().or(table.names.as_ref());
        // A tensor's id, name, or index.
        let push_label = |line: &mut Vec<u8>, i: usize| match names {
            Some(names) => push_csv_field(line, &names[i]),
            None => push_number(line, i as u128),
        };
        for (i, tensor) in table.tensors.iter().enumerate() {
            line.clear();
            push_label(&mut line, i);
            for value in [
                tensor.first_use as u128,
                tensor.last_use as u128 + 1,
                tensor.size as u128,
            ] {
                line.push(b',');
                push_number(&mut line, value);
            }
            if let Some(c) = alignments {
                line.push(b',');
                push_number(&mut line, c.alignments[i] as u128);
            }
            if let Some(c) = hints {
                line.push(b',');
                match c.hints[i] {
                    Some(hint) => push_number(&mut line, hint as u128),
                    None => line.extend_from_slice(b"-1"),
                }
            }
            if let Some(c) = gaps {
                line.push(b',');
                for (k, g) in c.gaps_of(i).enumerate() {
                    if k > 0 {
                        line.push(b' ');
                    }
                    push_number(&mut line, g.first as u128);
                    line.push(b'-');
                    push_number(&mut line, g.last as u128 + 1);
                    if let Some((lo, hi)) = g.window {
                        line.push(b'@');
                        push_number(&mut line, lo as u128);
                        line.push(b':');
                        push_number(&mut line, hi as u128);
                    }
                }
            }
            if let Some(c) = reuses {
                line.push(b',');
                if let Some(r) = c.reuses_of[i] {
                    push_label(&mut line, r);
                }
            }
            line.push(b',');
            push_number(&mut line, self.report.plan.offsets[i] as u128);
            line.push(b'\n');
            out.write_all(&line)?;
        }
        Ok(())
    }

    /// One JSON object: the figures and every tensor with its offset, laid
    /// out as `serde_json`'s pretty printer lays it out. The figures go
    /// through `serde_json`; the tensors, a million objects of integers,
    /// are written here in the same layout (strings and the rare gaps still
    /// through `serde_json`), which is most of the time saved.
    pub fn write_json<W: Write>(&self, out: &mut W) -> io::Result<()> {
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
            stacked_tensors: usize,
            planning_seconds: f64,
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
            stacked_tensors: self.report.stacked_tensors,
            planning_seconds: self.elapsed.as_secs_f64(),
        };
        // The figures' object less its closing "\n}", then the plan as its
        // last member.
        let head = serde_json::to_vec_pretty(&plan)?;
        out.write_all(&head[..head.len() - 2])?;
        if table.tensors.is_empty() {
            return out.write_all(b",\n  \"plan\": []\n}\n");
        }
        out.write_all(b",\n  \"plan\": [")?;

        let aligned = self.options.alignment > 1;
        let c = table.constraints.as_ref();
        let column = |present: fn(&Constraints) -> bool| c.filter(|c| present(c));
        let alignments = column(|c| c.columns.alignment.is_some());
        let hints = column(|c| c.columns.hint.is_some());
        let fixed = column(|c| c.columns.fixed.is_some());
        let mut line = Vec::with_capacity(256);
        let mut nested = Vec::new();
        for i in 0..table.tensors.len() {
            line.clear();
            line.extend_from_slice(if i == 0 { b"\n    {" } else { b",\n    {" });
            let mut member = Member(&mut line, true);
            member.number("line", table.lines[i]);
            if let Some(ids) = &table.ids {
                member.string("id", &ids[i])?;
            }
            if let Some(names) = &table.names {
                member.string("name", &names[i])?;
            }
            member.number("size", table.tensors[i].size);
            if aligned {
                member.number("rounded_size", self.planned[i].size);
            }
            member.number("first_use", table.tensors[i].first_use);
            member.number("last_use", table.tensors[i].last_use);
            if let Some(c) = alignments {
                member.number("alignment", c.alignments[i]);
            }
            if let Some(offset) = fixed.and_then(|c| c.fixed[i]) {
                member.number("fixed_offset", offset);
            }
            if let Some(hint) = hints.and_then(|c| c.hints[i]) {
                member.number("hint", hint);
            }
            if let Some(c) = c.filter(|c| c.gaps_of(i).next().is_some()) {
                let gaps: Vec<Gap> = c
                    .gaps_of(i)
                    .map(|g| Gap {
                        first: g.first,
                        last: g.last,
                        window: g.window.map(|(lo, hi)| [lo, hi]),
                    })
                    .collect();
                nested.clear();
                serde_json::to_writer_pretty(&mut nested, &gaps)?;
                member.nested("gaps", &nested);
            }
            if let Some(reused) = c.and_then(|c| c.reuses_of.get(i).copied().flatten()) {
                member.number("reuses", reused);
            }
            member.number("offset", self.report.plan.offsets[i]);
            line.extend_from_slice(b"\n    }");
            out.write_all(&line)?;
        }
        out.write_all(b"\n  ]\n}\n")
    }

    /// An aligned table, one row per tensor in input order, lifetimes as
    /// inclusive node indices; with `--align`, the rounded sizes too, and
    /// `end` is the offset plus the rounded size.
    pub fn write_table<W: Write>(&self, out: &mut W) -> io::Result<()> {
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
        // The widths first, then the rows, each cell written into one reused
        // buffer and padded to its column's width.
        let mut widths: Vec<usize> = columns.iter().map(|c| c.heading().len()).collect();
        for i in 0..table.tensors.len() {
            for (column, width) in columns.iter().zip(&mut widths) {
                *width = (*width).max(self.cell_width(*column, i));
            }
        }
        let mut line = Vec::with_capacity(widths.iter().map(|w| w + 2).sum::<usize>() + 1);
        let mut cell = Vec::new();
        let mut row = |out: &mut W, cells: &mut dyn FnMut(usize, &mut Vec<u8>)| {
            line.clear();
            for (c, &width) in widths.iter().enumerate() {
                cell.clear();
                cells(c, &mut cell);
                if c > 0 {
                    line.extend_from_slice(b"  ");
                }
                let chars = std::str::from_utf8(&cell).map_or(cell.len(), |s| s.chars().count());
                line.resize(line.len() + width.saturating_sub(chars), b' ');
                line.extend_from_slice(&cell);
            }
            line.push(b'\n');
            out.write_all(&line)
        };
        row(out, &mut |c, cell| {
            cell.extend_from_slice(columns[c].heading().as_bytes())
        })?;
        for i in 0..table.tensors.len() {
            row(out, &mut |c, cell| self.write_cell(cell, columns[c], i))?;
        }
        Ok(())
    }

    /// The width in characters of what [`Planned::write_cell`] writes.
    fn cell_width(&self, column: Column, i: usize) -> usize {
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

    /// Writes tensor `i`'s cell of `column` of [`Planned::write_table`].
    fn write_cell(&self, out: &mut Vec<u8>, column: Column, i: usize) {
        let tensor = &self.table.tensors[i];
        let offset = self.report.plan.offsets[i];
        let number = match column {
            Column::Tensor => i,
            Column::Line => self.table.lines[i],
            Column::Id => {
                let id = self.table.ids.as_ref().map_or("", |ids| &ids[i]);
                out.extend_from_slice(id.as_bytes());
                return;
            }
            Column::Size => tensor.size,
            Column::Rounded => self.planned[i].size,
            Column::FirstUse => tensor.first_use,
            Column::LastUse => tensor.last_use,
            Column::Offset => offset,
            Column::End => offset + self.planned[i].size,
        };
        push_number(out, number as u128);
    }
}

/// The number of decimal digits of `n`.
fn digits(mut n: usize) -> usize {
    let mut count = 1;
    while n >= 10 {
        n /= 10;
        count += 1;
    }
    count
}

/// Appends the decimal digits of `n`: what `write!("{n}")` writes, without
/// the formatting machinery (which is most of the cost of a numeric row).
pub fn push_number(out: &mut Vec<u8>, n: u128) {
    // Every usize, and a last use plus one, fits 64 bits on the machines
    // the tool builds for, except the one value 2^64; the 128-bit division
    // is only for that.
    let Ok(mut n) = u64::try_from(n) else {
        out.extend_from_slice(n.to_string().as_bytes());
        return;
    };
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends a CSV field, quoted only when it must be (MiniMalloc's own ids
/// never need it): when it holds a comma, a quote or a line break; quotes
/// inside are doubled.
fn push_csv_field(out: &mut Vec<u8>, text: &str) {
    if !text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    out.push(b'"');
    for b in text.bytes() {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// The members of one tensor's JSON object, three levels deep, written as
/// `serde_json`'s pretty printer writes them: the flag says whether the
/// next member is the first.
struct Member<'a>(&'a mut Vec<u8>, bool);

impl Member<'_> {
    fn key(&mut self, key: &str) {
        if !self.1 {
            self.0.push(b',');
        }
        self.1 = false;
        self.0.extend_from_slice(b"\n      \"");
        self.0.extend_from_slice(key.as_bytes());
        self.0.extend_from_slice(b"\": ");
    }

    fn number(&mut self, key: &str, value: usize) {
        self.key(key);
        push_number(self.0, value as u128);
    }

    fn string(&mut self, key: &str, value: &str) -> io::Result<()> {
        self.key(key);
        serde_json::to_writer(&mut *self.0, value).map_err(io::Error::from)
    }

    /// A value pretty-printed on its own, indented to this depth.
    fn nested(&mut self, key: &str, value: &[u8]) {
        self.key(key);
        for &b in value {
            self.0.push(b);
            if b == b'\n' {
                self.0.extend_from_slice(b"      ");
            }
        }
    }
}

/// The columns of [`Planned::write_table`].
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
