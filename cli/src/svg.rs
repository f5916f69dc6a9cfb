//! The picture of a memory plan, as people draw them: x is time (node index),
//! y is byte offset, one rectangle per tensor spanning its lifetime and its
//! bytes, and a line at the peak-live-bytes lower bound. A legend under the
//! plot names every kind of mark used. At scale (more than
//! [`merge::ONE_BY_ONE`] tensors) the tensors thinner than a pixel are merged
//! into one shape, so that the file and the time to write it stay small.

mod axis;
mod legend;
mod merge;

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

use aether_planner::TensorLifetime;

use crate::constraints::Constraints;
use crate::table::{TableFormat, Texts};
use crate::units::{byte_step, grouped, human_bytes};
use axis::TimeAxis;
use legend::Legend;

/// What to draw.
pub struct Picture<'a> {
    /// The heading: usually the input's name.
    pub title: &'a str,
    /// The tensors as planned (sizes rounded up to the alignment), lifetimes
    /// inclusive.
    pub tensors: &'a [TensorLifetime],
    /// The tensors as given, for the sizes before rounding.
    pub given: &'a [TensorLifetime],
    /// Each tensor's offset, as planned.
    pub offsets: &'a [usize],
    /// Names to show instead of input indices, if the input had an id or a
    /// name column.
    pub names: Option<&'a Texts>,
    /// Gaps, fixed offsets and reuse, if the input stated any.
    pub constraints: Option<&'a Constraints>,
    /// The plan's arena size.
    pub arena: usize,
    /// The peak of live bytes: a lower bound on the arena.
    pub peak: usize,
    /// The best lower bound known: the peak, or higher if a search proved it.
    pub lower_bound: usize,
    /// Every offset is a multiple of it, and sizes are rounded up to it.
    pub alignment: usize,
    /// The planner, in words.
    pub method: &'a str,
    /// The input's format, which says what the time axis counts.
    pub format: TableFormat,
}

const WIDTH: f64 = 1100.0;
const LEFT: f64 = 84.0;
const RIGHT: f64 = 176.0;
const TOP: f64 = 64.0;
const FONT: &str = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";
/// The fill of the tensors merged at pixel resolution.
const MERGED_FILL: &str = "#8a9bb0";
const ARENA_LINE: &str = "stroke=\"#222\" stroke-width=\"1.5\"";
const PEAK_LINE: &str = "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"7 4\"";

/// Text safe inside SVG elements and attribute values.
fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"']) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;"),
    )
}

/// The hue of tensor `i`'s fill and stroke: hues a golden angle apart, so
/// neighbours in input order differ.
fn hue(i: usize) -> f64 {
    (i as f64 * 137.508) % 360.0
}

/// `[start, end)` in nodes and, during a gap, the window drawn.
type Piece = (u128, u128, Option<(usize, usize)>);

/// How a constrained tensor is drawn: its pieces over time, an outline that
/// marks it fixed or reusing, and the tooltip's note.
struct Marks {
    /// `[start, end)` in nodes, and the window during a gap (`None`: all of
    /// its bytes). A gap without a window is no piece: the tensor is absent.
    pieces: Vec<Piece>,
    /// Attributes of the tensor's group.
    style: String,
    note: String,
}

impl Marks {
    fn of(c: &Constraints, i: usize, tensor: &TensorLifetime, names: Option<&Texts>) -> Marks {
        let mut gaps: Vec<_> = c.gaps_of(i).collect();
        gaps.sort_by_key(|g| g.first);
        let mut note = String::new();
        let mut style = String::new();
        if let Some(Some(offset)) = c.fixed.get(i) {
            let _ = write!(note, ", fixed at {}", grouped(*offset));
            style.push_str(" stroke-width=\"2.4\"");
        }
        if let Some(Some(reused)) = c.reuses_of.get(i) {
            let name = names.map_or_else(|| reused.to_string(), |n| n[*reused].to_owned());
            let _ = write!(note, ", reuses the memory of {name}");
            style.push_str(" stroke-dasharray=\"4 2\"");
        }
        let mut pieces = Vec::new();
        let mut at = tensor.first_use as u128;
        for g in &gaps {
            let (first, end) = (g.first as u128, g.last as u128 + 1);
            if first > at {
                pieces.push((at, first, None));
            }
            let _ = match g.window {
                Some((lo, hi)) => {
                    if hi > lo {
                        pieces.push((first, end, Some((lo, hi))));
                    }
                    write!(
                        note,
                        ", gap {}..={} keeps bytes {lo}..{hi}",
                        g.first, g.last
                    )
                }
                None => write!(note, ", gap {}..={} absent", g.first, g.last),
            };
            at = end;
        }
        if at <= tensor.last_use as u128 {
            pieces.push((at, tensor.last_use as u128 + 1, None));
        }
        Marks {
            pieces,
            style,
            note,
        }
    }

    /// Whether the tensor is drawn as one plain rectangle.
    fn plain(&self) -> bool {
        self.style.is_empty() && self.pieces.len() == 1 && self.pieces[0].2.is_none()
    }
}

/// Renders the plan as a standalone SVG document into `out`. Up to
/// [`merge::ONE_BY_ONE`] tensors of non-zero size each get a rectangle and a
/// tooltip; beyond that, see [`merge`].
pub fn render<W: Write>(picture: &Picture, out: &mut W) -> io::Result<()> {
    let drawn: Vec<usize> = (0..picture.tensors.len())
        .filter(|&i| picture.tensors[i].size > 0)
        .collect();
    let axis = TimeAxis::for_tensors(drawn.iter().map(|&i| &picture.tensors[i]));
    let plot_height = if drawn.len() > 100 { 760.0 } else { 520.0 };
    let plot_width = WIDTH - LEFT - RIGHT;

    // The y range: the arena (or the peak, if larger: never for a sound
    // plan) rounded up to a whole power-of-two tick.
    let high = picture.arena.max(picture.peak).max(1) as f64;
    let step = byte_step(high, 8.0);
    let ticks = (high / step - 1e-9).ceil().max(1.0) as usize;
    let top_bytes = ticks as f64 * step;

    let x = |t: u128| LEFT + axis.fraction(t) * plot_width;
    let y = |bytes: f64| TOP + plot_height * (1.0 - bytes / top_bytes);

    // Who is drawn one by one, and what the legend must explain.
    let boxes: Vec<(f64, f64)> = drawn
        .iter()
        .map(|&i| {
            let t = &picture.tensors[i];
            let width = x(t.last_use as u128 + 1) - x(t.first_use as u128);
            (width, plot_height * t.size as f64 / top_bytes)
        })
        .collect();
    let one_by_one = merge::one_by_one(&boxes);
    drop(boxes);
    let merged = one_by_one.iter().filter(|&&alone| !alone).count();
    let legend = Legend::of(picture, &drawn, &one_by_one, merged);
    let base = TOP + plot_height;
    let legend_top = base + 86.0;
    let height = legend_top + legend.height();

    write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" {FONT} font-size=\"12\">\n\
         <rect width=\"{WIDTH}\" height=\"{height}\" fill=\"white\"/>\n"
    )?;

    // Title and the plan's figures.
    let ratio = if picture.peak > 0 {
        format!("{:.3}", picture.arena as f64 / picture.peak as f64)
    } else {
        "n/a".to_owned()
    };
    writeln!(
        out,
        "<text x=\"{LEFT}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>",
        escape(picture.title)
    )?;
    let mut figures = format!(
        "{} tensors · arena {} · peak live bytes {} · arena / peak {ratio}",
        picture.tensors.len(),
        human_bytes(picture.arena),
        human_bytes(picture.peak)
    );
    if picture.lower_bound > picture.peak {
        let _ = write!(
            figures,
            " · lower bound {}",
            human_bytes(picture.lower_bound)
        );
    }
    let _ = write!(figures, " · {}", picture.method);
    if picture.alignment > 1 {
        let _ = write!(
            figures,
            " · aligned to {}: sizes rounded up",
            human_bytes(picture.alignment)
        );
    }
    writeln!(
        out,
        "<text x=\"{LEFT}\" y=\"44\" fill=\"#444\">{}</text>",
        escape(&figures)
    )?;

    // Horizontal grid and byte-offset axis.
    for k in 0..=ticks {
        let bytes = k as f64 * step;
        let py = y(bytes);
        writeln!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{py:.1}\" y2=\"{py:.1}\" stroke=\"#e4e4e4\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT + plot_width,
            LEFT - 6.0,
            py + 4.0,
            human_bytes((k as f64 * step) as usize)
        )?;
    }
    writeln!(
        out,
        "<text transform=\"translate(18,{:.1}) rotate(-90)\" text-anchor=\"middle\">byte offset</text>",
        TOP + plot_height / 2.0
    )?;

    // Time axis.
    for (fraction, label) in axis.ticks(picture.format) {
        let px = LEFT + fraction * plot_width;
        writeln!(
            out,
            "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{base:.1}\" y2=\"{:.1}\" stroke=\"#555\"/>\
             <text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>",
            base + 5.0,
            base + 19.0
        )?;
    }
    writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
        LEFT + plot_width / 2.0,
        base + 40.0,
        escape(&axis.title(picture.format))
    )?;
    let height_is = if picture.alignment > 1 {
        format!(
            "its height its bytes rounded up to {}",
            human_bytes(picture.alignment)
        )
    } else {
        "its height its bytes".to_owned()
    };
    writeln!(
        out,
        "<text x=\"{LEFT}\" y=\"{:.1}\" font-size=\"11\" fill=\"#666\">Each coloured rectangle is \
         one tensor: its width spans its lifetime, {height_is} at its offset. Tensors live at the \
         same time never share a byte.</text>",
        base + 66.0
    )?;

    // The merged tensors first, so that the ones drawn alone lie on top.
    if merged > 0 {
        let mut raster = merge::Raster::new(plot_width as usize, plot_height as usize);
        for (&i, _) in drawn.iter().zip(&one_by_one).filter(|(_, &alone)| !alone) {
            let tensor = &picture.tensors[i];
            let offset = picture.offsets[i];
            let mut cover = |(start, end, window): Piece| {
                let (lo, hi) = window.unwrap_or((0, tensor.size));
                raster.cover(
                    x(start) - LEFT,
                    x(end) - LEFT,
                    y((offset + hi) as f64) - TOP,
                    y((offset + lo) as f64) - TOP,
                );
            };
            match picture.constraints {
                Some(c) if c.gaps_of(i).next().is_some() => {
                    Marks::of(c, i, tensor, picture.names)
                        .pieces
                        .into_iter()
                        .for_each(cover);
                }
                _ => cover((tensor.first_use as u128, tensor.last_use as u128 + 1, None)),
            }
        }
        raster.write_path(
            out,
            (LEFT as usize, TOP as usize),
            &format!("fill=\"{MERGED_FILL}\""),
        )?;
    }

    // The tensors drawn one by one.
    writeln!(out, "<g stroke-width=\"0.6\">")?;
    for (&i, _) in drawn.iter().zip(&one_by_one).filter(|(_, &alone)| alone) {
        write_tensor(out, picture, i, &x, &y)?;
    }
    writeln!(out, "</g>")?;

    // Plot frame, then the arena and the peak lines with their labels.
    writeln!(
        out,
        "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{plot_width}\" height=\"{plot_height}\" \
         fill=\"none\" stroke=\"#555\"/>"
    )?;
    let (arena_y, peak_y) = (y(picture.arena as f64), y(picture.peak as f64));
    let right = LEFT + plot_width;
    writeln!(
        out,
        "<line x1=\"{LEFT}\" x2=\"{right:.1}\" y1=\"{arena_y:.1}\" y2=\"{arena_y:.1}\" \
         {ARENA_LINE}/>\
         <line x1=\"{LEFT}\" x2=\"{right:.1}\" y1=\"{peak_y:.1}\" y2=\"{peak_y:.1}\" \
         {PEAK_LINE}/>"
    )?;
    let label = |out: &mut W, at: f64, colour: &str, lines: [String; 2]| {
        writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{at:.1}\" fill=\"{colour}\"><tspan font-weight=\"bold\">{}</tspan>\
             <tspan x=\"{:.1}\" dy=\"15\">{}</tspan></text>",
            right + 8.0,
            lines[0],
            right + 8.0,
            lines[1]
        )
    };
    if picture.arena == picture.peak {
        label(
            out,
            arena_y,
            "#d62728",
            [
                "arena = peak".to_owned(),
                format!("{} (optimal)", human_bytes(picture.arena)),
            ],
        )?;
    } else {
        // Keep the two labels apart when the lines are close.
        let arena_at = arena_y.min(peak_y - 34.0);
        let arena = if picture.arena == picture.lower_bound {
            format!("{} (optimal)", human_bytes(picture.arena))
        } else {
            human_bytes(picture.arena)
        };
        label(out, arena_at, "#222", ["arena".to_owned(), arena])?;
        label(
            out,
            peak_y,
            "#d62728",
            ["peak live bytes".to_owned(), human_bytes(picture.peak)],
        )?;
        writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#d62728\" font-size=\"10\">lower bound</text>",
            right + 8.0,
            peak_y + 30.0
        )?;
    }
    legend.write(out, legend_top)?;
    out.write_all(b"</svg>\n")
}

/// One tensor's rectangle (or, with constraints, its pieces), its tooltip,
/// and its name where it fits.
fn write_tensor<W: Write>(
    out: &mut W,
    picture: &Picture,
    i: usize,
    x: &dyn Fn(u128) -> f64,
    y: &dyn Fn(f64) -> f64,
) -> io::Result<()> {
    let tensor = &picture.tensors[i];
    let offset = picture.offsets[i];
    let (x0, x1) = (x(tensor.first_use as u128), x(tensor.last_use as u128 + 1));
    let (y0, y1) = (y((offset + tensor.size) as f64), y(offset as f64));
    let hue = hue(i);
    let name = match picture.names {
        Some(names) => Cow::Borrowed(&names[i]),
        None => Cow::Owned(i.to_string()),
    };
    let size = human_bytes(tensor.size);
    let given = picture.given[i].size;
    let rounded = if given == tensor.size {
        String::new()
    } else {
        format!(" rounded up from {} B", grouped(given))
    };
    let marks = picture
        .constraints
        .map(|c| Marks::of(c, i, tensor, picture.names));
    let title = format!(
        "<title>tensor {}: {} B ({size}){rounded}, nodes {}..={}, offset {}{}</title>",
        escape(&name),
        grouped(tensor.size),
        tensor.first_use,
        tensor.last_use,
        grouped(offset),
        escape(marks.as_ref().map_or("", |m| m.note.as_str()))
    );
    let fill = format!("fill=\"hsl({hue:.0},62%,74%)\" stroke=\"hsl({hue:.0},45%,36%)\"");
    let (x0, x1) = match marks.as_ref().filter(|m| !m.plain()) {
        None => {
            write!(
                out,
                "<rect x=\"{x0:.2}\" y=\"{y0:.2}\" width=\"{:.2}\" height=\"{:.2}\" {fill}>{title}</rect>",
                x1 - x0,
                y1 - y0,
            )?;
            (x0, x1)
        }
        Some(marks) => {
            // One group per tensor: its pieces outside and inside its
            // gaps, the tooltip once.
            write!(out, "<g{}>{title}", marks.style)?;
            let mut widest = (x0, x0);
            for &(start, end, window) in &marks.pieces {
                let (px0, px1) = (x(start), x(end));
                let (lo, hi, opacity) = match window {
                    None => (0, tensor.size, ""),
                    Some((lo, hi)) => (lo, hi, " fill-opacity=\"0.45\""),
                };
                let (py0, py1) = (y((offset + hi) as f64), y((offset + lo) as f64));
                write!(
                    out,
                    "<rect x=\"{px0:.2}\" y=\"{py0:.2}\" width=\"{:.2}\" height=\"{:.2}\" {fill}{opacity}/>",
                    px1 - px0,
                    py1 - py0,
                )?;
                if window.is_none() && px1 - px0 > widest.1 - widest.0 {
                    widest = (px0, px1);
                }
            }
            out.write_all(b"</g>")?;
            widest
        }
    };
    let (w, h) = (x1 - x0, y1 - y0);
    // Text only where it fits: the name, and the size below it when
    // there is room for two lines.
    let fits = |text: &str| w >= 6.2 * text.chars().count() as f64 + 4.0;
    let two_lines = h >= 28.0 && fits(&name) && fits(&size);
    if two_lines || (h >= 13.0 && fits(&name)) {
        let middle = (y0 + y1) / 2.0;
        write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\" \
             fill=\"#222\" stroke=\"none\">{}",
            (x0 + x1) / 2.0,
            if two_lines {
                middle - 2.0
            } else {
                middle + 3.5
            },
            escape(&name)
        )?;
        if two_lines {
            write!(
                out,
                "<tspan x=\"{:.1}\" dy=\"12\" fill=\"#555\">{size}</tspan>",
                (x0 + x1) / 2.0
            )?;
        }
        out.write_all(b"</text>")?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture_of(
        tensors: &[TensorLifetime],
        offsets: &[usize],
        arena: usize,
        peak: usize,
    ) -> String {
        let mut out = Vec::new();
        render(
            &Picture {
                title: "t <&> \"q\"",
                tensors,
                given: tensors,
                offsets,
                names: None,
                constraints: None,
                arena,
                peak,
                lower_bound: peak,
                alignment: 1,
                method: "greedy best fit, decreasing size",
                format: TableFormat::Inclusive,
            },
            &mut out,
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn one_rectangle_per_sized_tensor_and_escaped_text() {
        let tensors = [
            TensorLifetime::new(100, 0, 1),
            TensorLifetime::new(80, 1, 2),
            TensorLifetime::new(0, 0, 0),
            TensorLifetime::new(60, 2, 3),
        ];
        let svg = picture_of(&tensors, &[0, 100, 0, 0], 180, 180);
        assert_eq!(svg.matches("<title>tensor").count(), 3);
        assert!(svg.contains("t &lt;&amp;&gt; &quot;q&quot;"));
        assert!(svg.contains("arena = peak"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }

    #[test]
    fn an_empty_plan_still_draws() {
        let svg = picture_of(&[TensorLifetime::new(0, 0, 0)], &[0], 0, 0);
        assert!(svg.ends_with("</svg>\n"));
        assert!(!svg.contains("NaN"));
    }
}
