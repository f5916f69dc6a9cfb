//! Greedy arena offsets, literally as the specification states them.
//!
//! Tensors are placed in decreasing size (a stable sort, so equal sizes keep
//! input order). Each one scans *every* already-placed tensor, keeps the byte
//! ranges of those whose inclusive lifetimes intersect its own, sorts and
//! coalesces them, and takes the smallest free interval that fits; the leading
//! interval `[0, first block)` is a candidate and wins ties; with no fit it
//! goes after the last block. Zero-size tensors get offset 0.
//!
//! `O(n² log n)` time, `O(n)` memory.

use aether_planner::{MemoryPlan, PlanError, TensorLifetime};

/// The greedy plan, with the library's errors in the library's order: the
/// first tensor (by input index) with an empty lifetime, else the first
/// tensor (in placement order) whose end offset overflows.
pub fn plan_offsets(tensors: &[TensorLifetime]) -> Result<MemoryPlan, PlanError> {
    if let Some(i) = tensors.iter().position(|t| t.first_use > t.last_use) {
        return Err(PlanError::InvalidLifetime {
            tensor: i,
            first_use: tensors[i].first_use,
            last_use: tensors[i].last_use,
        });
    }
    let mut order: Vec<usize> = (0..tensors.len())
        .filter(|&i| tensors[i].size > 0)
        .collect();
    order.sort_by(|&a, &b| tensors[b].size.cmp(&tensors[a].size));

    let mut offsets = vec![0usize; tensors.len()];
    let mut arena_size = 0usize;
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    for (placed, &i) in order.iter().enumerate() {
        let me = tensors[i];
        blocks.clear();
        for &j in &order[..placed] {
            let other = tensors[j];
            if me.first_use <= other.last_use && other.first_use <= me.last_use {
                blocks.push((offsets[j], offsets[j] + other.size));
            }
        }
        blocks.sort_unstable();
        let mut best_gap: Option<usize> = None;
        let mut best_offset = 0usize;
        let mut block_end = 0usize;
        for &(start, end) in &blocks {
            if start > block_end {
                let gap = start - block_end;
                let better = match best_gap {
                    None => true,
                    Some(best) => gap < best,
                };
                if gap >= me.size && better {
                    best_gap = Some(gap);
                    best_offset = block_end;
                }
            }
            block_end = block_end.max(end);
        }
        let offset = if best_gap.is_some() {
            best_offset
        } else {
            block_end
        };
        let end = offset
            .checked_add(me.size)
            .ok_or(PlanError::Overflow { tensor: i })?;
        offsets[i] = offset;
        arena_size = arena_size.max(end);
    }
    Ok(MemoryPlan {
        offsets,
        arena_size,
    })
}
