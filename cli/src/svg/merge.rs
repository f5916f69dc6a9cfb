//! A picture of a million tensors: most are thinner than a pixel, and a
//! rectangle each would make a file of hundreds of megabytes that no viewer
//! shows any better. The tensors a reader can see are drawn one by one, up
//! to [`ONE_BY_ONE`] of them; the others are merged into one shape that
//! fills every pixel any of them touches.

use std::io::{self, Write};

/// The most tensors drawn one by one, each with its tooltip. Up to this
/// many, every tensor is; the committed pictures are far below it.
pub const ONE_BY_ONE: usize = 5_000;

/// Which tensors are drawn one by one, given each one's box in pixels as
/// `(width, height)`: every one when there are at most [`ONE_BY_ONE`];
/// else those at least a pixel wide and tall, the largest by area if there
/// are still too many (ties to the earlier tensor, so that the picture is
/// the same on every run).
pub fn one_by_one(boxes: &[(f64, f64)]) -> Vec<bool> {
    if boxes.len() <= ONE_BY_ONE {
        return vec![true; boxes.len()];
    }
    let mut visible: Vec<usize> = (0..boxes.len())
        .filter(|&k| boxes[k].0 >= 1.0 && boxes[k].1 >= 1.0)
        .collect();
    if visible.len() > ONE_BY_ONE {
        let area = |k: usize| boxes[k].0 * boxes[k].1;
        // Linear on average: only the boundary of the largest is found.
        visible.select_nth_unstable_by(ONE_BY_ONE - 1, |&a, &b| {
            area(b).total_cmp(&area(a)).then(a.cmp(&b))
        });
        visible.truncate(ONE_BY_ONE);
    }
    let mut chosen = vec![false; boxes.len()];
    for k in visible {
        chosen[k] = true;
    }
    chosen
}

/// The plot as whole pixels, counting for each how many merged boxes touch
/// it. Boxes are added to a two-dimensional difference table (four entries
/// each, whatever their size) and summed once at the end, so that `n`
/// boxes cost `O(n + width * height)`.
pub struct Raster {
    width: usize,
    height: usize,
    /// `(width + 1) * (height + 1)` differences, row after row.
    diff: Vec<i64>,
    /// How many boxes were added.
    pub boxes: usize,
}

impl Raster {
    pub fn new(width: usize, height: usize) -> Self {
        Raster {
            width,
            height,
            diff: vec![0; (width + 1) * (height + 1)],
            boxes: 0,
        }
    }

    /// Marks every pixel the box `[x0, x1) × [y0, y1)` touches, in pixels
    /// from the plot's top-left corner; a box thinner than a pixel still
    /// marks the pixel it lies in, so that nothing drawn vanishes.
    pub fn cover(&mut self, x0: f64, x1: f64, y0: f64, y1: f64) {
        let span = |from: f64, to: f64, cells: usize| {
            let first = (from.floor().max(0.0) as usize).min(cells - 1);
            let end = (to.ceil().max(0.0) as usize).clamp(first + 1, cells);
            (first, end)
        };
        let (c0, c1) = span(x0, x1, self.width);
        let (r0, r1) = span(y0, y1, self.height);
        let stride = self.width + 1;
        self.diff[r0 * stride + c0] += 1;
        self.diff[r0 * stride + c1] -= 1;
        self.diff[r1 * stride + c0] -= 1;
        self.diff[r1 * stride + c1] += 1;
        self.boxes += 1;
    }

    /// Writes the marked pixels as one `<path>` with `attributes`, its
    /// origin at `(left, top)`: each row's runs of marked pixels, a run
    /// repeated exactly in the rows below joined into one rectangle.
    /// Returns how many rectangles the path has.
    pub fn write_path<W: Write>(
        mut self,
        out: &mut W,
        (left, top): (usize, usize),
        attributes: &str,
    ) -> io::Result<usize> {
        let stride = self.width + 1;
        // Prefix sums: afterwards entry (r, c) is pixel (r, c)'s count.
        for r in 0..=self.height {
            for c in 0..=self.width {
                let mut v = self.diff[r * stride + c];
                if c > 0 {
                    v += self.diff[r * stride + c - 1];
                }
                if r > 0 {
                    v += self.diff[(r - 1) * stride + c];
                }
                if r > 0 && c > 0 {
                    v -= self.diff[(r - 1) * stride + c - 1];
                }
                self.diff[r * stride + c] = v;
            }
        }
        write!(out, "<path {attributes} d=\"")?;
        let mut rectangles = 0;
        // The runs still growing downwards: `(first column, end, first row)`,
        // in column order.
        let mut open: Vec<(usize, usize, usize)> = Vec::new();
        let mut next = Vec::new();
        for r in 0..=self.height {
            let mut runs = Vec::new();
            if r < self.height {
                let row = &self.diff[r * stride..r * stride + self.width];
                let mut c = 0;
                while c < self.width {
                    if row[c] > 0 {
                        let start = c;
                        while c < self.width && row[c] > 0 {
                            c += 1;
                        }
                        runs.push((start, c));
                    }
                    c += 1;
                }
            }
            // Both lists are in column order and their runs disjoint: an
            // open run either continues exactly or ends here.
            next.clear();
            let mut k = 0;
            for &(a, b, since) in &open {
                while k < runs.len() && runs[k].0 < a {
                    next.push((runs[k].0, runs[k].1, r));
                    k += 1;
                }
                if k < runs.len() && runs[k] == (a, b) {
                    next.push((a, b, since));
                    k += 1;
                } else {
                    write!(
                        out,
                        "M{} {}h{}v{}h-{}z",
                        left + a,
                        top + since,
                        b - a,
                        r - since,
                        b - a
                    )?;
                    rectangles += 1;
                }
            }
            next.extend(runs[k..].iter().map(|&(a, b)| (a, b, r)));
            std::mem::swap(&mut open, &mut next);
        }
        writeln!(out, "\"/>")?;
        Ok(rectangles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pixels a path covers, by filling each of its rectangles.
    fn pixels_of(path: &str, width: usize, height: usize) -> Vec<bool> {
        let d = path
            .split("d=\"")
            .nth(1)
            .unwrap()
            .trim_end_matches("\"/>\n");
        let mut covered = vec![false; width * height];
        for rect in d.split('z').filter(|r| !r.is_empty()) {
            let numbers: Vec<usize> = rect
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            let [x, y, w, h, w2] = numbers[..] else {
                panic!("{rect:?}")
            };
            assert_eq!(w, w2);
            for r in y..y + h {
                for c in x..x + w {
                    assert!(!covered[r * width + c], "rectangles overlap at ({c}, {r})");
                    covered[r * width + c] = true;
                }
            }
        }
        covered
    }

    #[test]
    fn the_path_fills_exactly_the_touched_pixels() {
        // Boxes from a seeded generator, checked against marking each
        // box's pixels one by one.
        let (width, height) = (37, 23);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 10_000) as f64 / 10_000.0
        };
        let mut raster = Raster::new(width, height);
        let mut expected = vec![false; width * height];
        for _ in 0..60 {
            let x0 = next() * width as f64;
            let x1 = (x0 + next() * next() * 12.0).min(width as f64);
            let y0 = next() * height as f64;
            let y1 = (y0 + next() * next() * 6.0).min(height as f64);
            raster.cover(x0, x1, y0, y1);
            let c0 = (x0.floor() as usize).min(width - 1);
            let r0 = (y0.floor() as usize).min(height - 1);
            for r in r0..(y1.ceil() as usize).max(r0 + 1) {
                for c in c0..(x1.ceil() as usize).max(c0 + 1) {
                    expected[r * width + c] = true;
                }
            }
        }
        let mut path = Vec::new();
        let rectangles = raster
            .write_path(&mut path, (0, 0), "fill=\"grey\"")
            .unwrap();
        let path = String::from_utf8(path).unwrap();
        assert_eq!(path.matches('z').count(), rectangles);
        assert_eq!(pixels_of(&path, width, height), expected);
    }

    #[test]
    fn few_tensors_are_all_drawn_and_many_keep_the_largest_visible() {
        assert_eq!(one_by_one(&[(0.1, 0.1), (5.0, 5.0)]), [true, true]);
        let mut boxes = vec![(0.5, 100.0); ONE_BY_ONE + 10];
        boxes.extend((0..ONE_BY_ONE + 10).map(|k| (1.0 + k as f64, 1.0)));
        let chosen = one_by_one(&boxes);
        assert_eq!(chosen.iter().filter(|&&c| c).count(), ONE_BY_ONE);
        // Thinner than a pixel: merged, however tall.
        assert!(chosen[..ONE_BY_ONE + 10].iter().all(|&c| !c));
        // Of the visible ones, the ten smallest are merged.
        assert!(chosen[ONE_BY_ONE + 10..ONE_BY_ONE + 20].iter().all(|&c| !c));
        assert!(chosen[ONE_BY_ONE + 20..].iter().all(|&c| c));
    }
}
