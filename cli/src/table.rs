//! The shapes of a tensor table that every part of `offsets` shares: its
//! format, and the compact stores of its rows and of its names. The table
//! itself ([`crate::offsets::TensorTable`]) holds its constraints too, so it
//! lives with the reader; these types depend on nothing else of the tool.

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
    /// No rows yet, of `width` fields each.
    pub fn new(width: usize) -> Self {
        Rows {
            text: String::new(),
            ends: Vec::new(),
            width,
        }
    }

    /// Room for `rows` rows of `bytes` bytes in all.
    pub fn reserve(&mut self, rows: usize, bytes: usize) {
        self.ends.reserve(rows * self.width);
        self.text.reserve(bytes);
    }

    /// Appends a row of exactly `width` fields.
    pub fn push<'a>(&mut self, fields: impl Iterator<Item = &'a str>) {
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
    /// Appends the next tensor's text.
    pub fn push(&mut self, text: &str) {
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
