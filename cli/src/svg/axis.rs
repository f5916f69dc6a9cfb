//! The time axis of the picture: linear in node indices, or one step per
//! distinct lifetime boundary when the times are sparse.

use aether_planner::TensorLifetime;

use crate::table::TableFormat;
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
    /// Linear when the node indices are dense enough to read (the range at
    /// most four times the distinct boundaries), else steps. A short range
    /// is checked with a bitmap over it, so that a large dense table costs
    /// two passes and no sort; only a sparse one sorts its boundaries.
    pub fn for_tensors<'a>(drawn: impl Iterator<Item = &'a TensorLifetime> + Clone) -> TimeAxis {
        let bounds = |t: &TensorLifetime| [t.first_use as u128, t.last_use as u128 + 1];
        let (mut start, mut end, mut count) = (u128::MAX, 0, 0u128);
        for [first, after] in drawn.clone().map(bounds) {
            (start, end, count) = (start.min(first), end.max(after), count + 2);
        }
        if count == 0 {
            return TimeAxis::Linear { start: 0, end: 1 };
        }
        // More than four times as many nodes as boundaries, distinct or not:
        // steps, whatever the bitmap would say.
        if end - start <= 4 * count {
            let mut seen = vec![0u64; (end - start) as usize / 64 + 1];
            let mut distinct = 0u128;
            for b in drawn.clone().flat_map(bounds) {
                let k = (b - start) as usize;
                let bit = 1u64 << (k % 64);
                if seen[k / 64] & bit == 0 {
                    seen[k / 64] |= bit;
                    distinct += 1;
                }
            }
            if end - start <= 4 * distinct {
                return TimeAxis::Linear { start, end };
            }
        }
        let mut boundaries: Vec<u128> = drawn.flat_map(bounds).collect();
        boundaries.sort_unstable();
        boundaries.dedup();
        TimeAxis::Steps { boundaries }
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

    #[test]
    fn the_choice_is_the_rule_on_sorted_distinct_boundaries() {
        // The rule stated plainly, by sorting: steps when the range is more
        // than four times the distinct boundaries.
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut below = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as usize
        };
        for _ in 0..500 {
            let spread = [3, 30, 300, 3000][below(4)];
            let tensors: Vec<TensorLifetime> = (0..1 + below(20))
                .map(|_| {
                    let first = below(spread);
                    TensorLifetime::new(1, first, first + below(spread / 3 + 1))
                })
                .collect();
            let mut sorted: Vec<u128> = tensors
                .iter()
                .flat_map(|t| [t.first_use as u128, t.last_use as u128 + 1])
                .collect();
            sorted.sort_unstable();
            sorted.dedup();
            let (start, end) = (sorted[0], sorted[sorted.len() - 1]);
            match TimeAxis::for_tensors(tensors.iter()) {
                TimeAxis::Linear { start: s, end: e } => {
                    assert!(end - start <= 4 * sorted.len() as u128, "{tensors:?}");
                    assert_eq!((s, e), (start, end));
                }
                TimeAxis::Steps { boundaries } => {
                    assert!(end - start > 4 * sorted.len() as u128, "{tensors:?}");
                    assert_eq!(boundaries, sorted);
                }
            }
        }
    }
}
