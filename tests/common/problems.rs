//! Problem instances that several test files plan.

use aether_planner::{LifetimeGap, TensorLifetime};

/// Seven tensors with windows of one byte, one fixed tensor, and a
/// capacity just above a tensor of `big` bytes: propagating the search's
/// orders raised blocks a byte at a time up to the capacity.
pub fn byte_stepping(big: usize) -> (Vec<TensorLifetime>, Vec<LifetimeGap>, Vec<Option<usize>>) {
    let window = |tensor, first, last, lo: usize| {
        LifetimeGap::new(tensor, first, last).with_window(Some((lo, lo + 1)))
    };
    let tensors = vec![
        TensorLifetime::new(big, 2, 4),
        TensorLifetime::new(3, 1, 3),
        TensorLifetime::new(4, 1, 3),
        TensorLifetime::new(10, 0, 2),
        TensorLifetime::new(2, 1, 5),
        TensorLifetime::new(8, 3, 6),
        TensorLifetime::new(6, 1, 2),
    ];
    let gaps = vec![
        window(1, 1, 1, 0),
        window(1, 3, 3, 2),
        window(2, 1, 2, 2),
        window(3, 0, 2, 0),
        window(4, 1, 4, 0),
        window(5, 3, 6, 4),
        window(6, 1, 2, 2),
    ];
    let fixed = vec![None, Some(0), None, None, None, None, None];
    (tensors, gaps, fixed)
}
