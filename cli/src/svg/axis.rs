//! The time axis of the picture: linear in node indices, or one step per
//! distinct lifetime boundary when the times are sparse.

use aether_planner::TensorLifetime;

use crate::offsets::TableFormat;
use crate::units::{grouped, nice_step};

/// How node indices map to x.
pub enum TimeAxis {
    /// Proportional to the node index over `[start, end]`.
    Linear { start: u128, end: u128 },
    /// Each distinct lifetime boundary one equal step, for sparse time values
    /// such as MiniMalloc's (0..1,048,576 with a few hundred distinct ones).
    Steps { boundaries: Vec<u128> },
}

impl TimeAxis {
    /// Linear when the node indices are dense enough to read, else steps.
    pub fn for_tensors<'a>(drawn: impl Iterator<Item = &'a TensorLifetime>) -> TimeAxis {
        let mut boundaries: Vec<u128> = drawn
            .flat_map(|t| [t.first_use as u128, t.last_use as u128 + 1])
            .collect();
        boundaries.sort_unstable();
        boundaries.dedup();
        let (start, end) = match (boundaries.first(), boundaries.last()) {
            (Some(&start), Some(&end)) => (start, end),
            _ => return TimeAxis::Linear { start: 0, end: 1 },
        };
        if end - start > 4 * boundaries.len() as u128 {
            TimeAxis::Steps { boundaries }
        } else {
            TimeAxis::Linear { start, end }
        }
    }

    /// The position of time `t` in `0.0..=1.0`.
    pub fn fraction(&self, t: u128) -> f64 {
        match self {
            TimeAxis::Linear { start, end } => (t - start) as f64 / (end - start) as f64,
            TimeAxis::Steps { boundaries } => {
                let rank = boundaries.partition_point(|&b| b < t);
                rank as f64 / (boundaries.len() - 1) as f64
            }
        }
    }

    /// Ticks as `(position in 0.0..=1.0, label)`. Node indices of an
    /// inclusive table label the middle of each node's column; other times
    /// label the boundary they name.
    pub fn ticks(&self, format: TableFormat) -> Vec<(f64, String)> {
        match self {
            TimeAxis::Linear { start, end } => {
                let span = (end - start) as f64;
                let step = if span <= 40.0 {
                    1
                } else {
                    nice_step(span, 14.0, 1.0) as u128
                };
                let first = start.div_ceil(step) * step;
                let (last, middle) = match format {
                    TableFormat::Inclusive => (end - 1, 0.5),
                    TableFormat::MiniMalloc => (*end, 0.0),
                };
                (first..=last)
                    .step_by(step as usize)
                    .map(|t| (((t - start) as f64 + middle) / span, grouped_u128(t)))
                    .collect()
            }
            TimeAxis::Steps { boundaries } => {
                let step = nice_step((boundaries.len() - 1) as f64, 12.0, 1.0) as usize;
                boundaries
                    .iter()
                    .step_by(step)
                    .map(|&t| (self.fraction(t), grouped_u128(t)))
                    .collect()
            }
        }
    }

    pub fn title(&self, format: TableFormat) -> String {
        match (self, format) {
            (TimeAxis::Linear { .. }, TableFormat::Inclusive) => {
                "node index (time): a tensor spans its columns first_use to last_use".to_owned()
            }
            (TimeAxis::Linear { .. }, TableFormat::MiniMalloc) => {
                "time: a buffer spans lower to upper (upper exclusive)".to_owned()
            }
            (TimeAxis::Steps { boundaries }, _) => format!(
                "time: the {} distinct lifetime boundaries, equally spaced",
                boundaries.len()
            ),
        }
    }
}

/// A time value with grouped digits.
fn grouped_u128(t: u128) -> String {
    usize::try_from(t).map_or_else(|_| t.to_string(), grouped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_times_are_drawn_in_steps_and_dense_ones_linearly() {
        let dense = [TensorLifetime::new(1, 0, 9), TensorLifetime::new(1, 3, 4)];
        assert!(matches!(
            TimeAxis::for_tensors(dense.iter()),
            TimeAxis::Linear { start: 0, end: 10 }
        ));
        let sparse = [
            TensorLifetime::new(1, 0, 99_999),
            TensorLifetime::new(1, 500, 501),
        ];
        let axis = TimeAxis::for_tensors(sparse.iter());
        assert!(matches!(axis, TimeAxis::Steps { .. }));
        assert_eq!(axis.fraction(0), 0.0);
        assert_eq!(axis.fraction(500), 1.0 / 3.0);
        assert_eq!(axis.fraction(100_000), 1.0);
    }
}
