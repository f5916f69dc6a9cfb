//! The legend under the plot: one entry per kind of mark the picture uses,
//! and no entry for a kind it does not.

use std::io::{self, Write};

use super::{Picture, ARENA_LINE, LEFT, MERGED_FILL, PEAK_LINE, WIDTH};
use crate::units::grouped;

/// How an entry's sample is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sample {
    /// A tensor's rectangle, with extra attributes (outline, opacity).
    Tensor(&'static str),
    /// The shape of the merged tensors.
    Merged,
    /// A horizontal line with these attributes.
    Line(&'static str),
}

/// The entries, laid out in rows that fit the picture's width.
pub struct Legend {
    entries: Vec<(Sample, String)>,
}

const ROW: f64 = 18.0;
const SAMPLE: f64 = 14.0;
/// A width per character of the 11-pixel text, generous so that entries
/// never run into each other.
const CHAR: f64 = 6.2;

impl Legend {
    /// The entries `picture` needs, given which of the `drawn` tensors are
    /// drawn `one_by_one` and how many are `merged`.
    pub fn of(picture: &Picture, drawn: &[usize], one_by_one: &[bool], merged: usize) -> Legend {
        let alone = || {
            drawn
                .iter()
                .zip(one_by_one)
                .filter(|(_, &alone)| alone)
                .map(|(&i, _)| i)
        };
        let mut entries = Vec::new();
        if merged < drawn.len() {
            entries.push((
                Sample::Tensor(""),
                "a tensor (its tooltip: size, lifetime, offset)".to_owned(),
            ));
        }
        if merged > 0 {
            entries.push((
                Sample::Merged,
                format!(
                    "{} tensors too small to draw alone, merged: every pixel one touches",
                    grouped(merged)
                ),
            ));
        }
        if let Some(c) = picture.constraints {
            if alone().any(|i| c.fixed[i].is_some()) {
                entries.push((
                    Sample::Tensor(" stroke-width=\"2.4\""),
                    "fixed offset".to_owned(),
                ));
            }
            if alone().any(|i| c.reuses_of.get(i).copied().flatten().is_some()) {
                entries.push((
                    Sample::Tensor(" stroke-dasharray=\"4 2\""),
                    "reuses another tensor's memory".to_owned(),
                ));
            }
            let windowed = |i: usize| c.gaps_of(i).any(|g| g.window.is_some_and(|(l, h)| h > l));
            if alone().any(windowed) {
                entries.push((
                    Sample::Tensor(" fill-opacity=\"0.45\""),
                    "during a gap: the bytes it keeps".to_owned(),
                ));
            }
        }
        entries.push((Sample::Line(ARENA_LINE), "arena".to_owned()));
        entries.push((
            Sample::Line(PEAK_LINE),
            "peak live bytes: no arena is smaller".to_owned(),
        ));
        Legend { entries }
    }

    /// Where each entry goes: `(x, row)`.
    fn layout(&self) -> Vec<(f64, usize)> {
        let mut at = (LEFT, 0);
        self.entries
            .iter()
            .map(|(_, text)| {
                let width = SAMPLE + 6.0 + CHAR * text.chars().count() as f64;
                if at.0 > LEFT && at.0 + width > WIDTH - 12.0 {
                    at = (LEFT, at.1 + 1);
                }
                let place = at;
                at.0 += width + 18.0;
                place
            })
            .collect()
    }

    /// The height the legend takes, its margin below included.
    pub fn height(&self) -> f64 {
        let rows = self.layout().last().map_or(0, |&(_, row)| row + 1);
        rows as f64 * ROW + 6.0
    }

    /// Writes the legend with its first row's top at `top`.
    pub fn write<W: Write>(&self, out: &mut W, top: f64) -> io::Result<()> {
        writeln!(out, "<g font-size=\"11\" fill=\"#333\">")?;
        for ((sample, text), (x, row)) in self.entries.iter().zip(self.layout()) {
            let y = top + row as f64 * ROW;
            match sample {
                Sample::Tensor(extra) => write!(
                    out,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{SAMPLE}\" height=\"{h:.1}\" \
                     fill=\"hsl(200,62%,74%)\" stroke=\"hsl(200,45%,36%)\" \
                     stroke-width=\"0.6\"{extra}/>",
                    h = SAMPLE - 4.0,
                )?,
                Sample::Merged => write!(
                    out,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{SAMPLE}\" height=\"{h:.1}\" \
                     fill=\"{MERGED_FILL}\"/>",
                    h = SAMPLE - 4.0,
                )?,
                Sample::Line(style) => write!(
                    out,
                    "<line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"{m:.1}\" y2=\"{m:.1}\" {style}/>",
                    x + SAMPLE,
                    m = y + (SAMPLE - 4.0) / 2.0,
                )?,
            }
            writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\">{text}</text>",
                x + SAMPLE + 6.0,
                y + 9.5
            )?;
        }
        writeln!(out, "</g>")
    }
}
