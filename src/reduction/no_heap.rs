//! The heap-free reduction: the specification's literal closure over a bit
//! matrix carved out of a caller's buffer, for runtimes that may not call
//! `malloc`. Computes exactly what
//! [`try_transitive_reduction`](crate::try_transitive_reduction) computes.
//!
//! Complexity: `O(E log E + (n + E)⌈n/64⌉)` time; scratch `n⌈n/64⌉ + 2E`
//! words.

use crate::error::PlanError;
use crate::input::{check_topological_edges, InputList};
use crate::sys::scratch::{array_bytes, Scratch};

/// Scratch bytes [`try_transitive_reduction_in`] needs: the `n⌈n/64⌉`-word
/// bit matrix and a sorted copy of the edges; nothing without edges, as the
/// main form allocates nothing then either, whatever `node_count`.
pub(crate) fn transitive_reduction_scratch_bytes(
    node_count: usize,
    edge_count: usize,
) -> Option<usize> {
    if edge_count == 0 {
        return Some(0);
    }
    let matrix = array_bytes::<u64>(node_count.checked_mul(node_count.div_ceil(64))?)?;
    matrix.checked_add(array_bytes::<(usize, usize)>(edge_count)?)
}

/// The transitive reduction, as [`crate::try_transitive_reduction`], in the
/// scratch buffer: sorted by `(source, target)`, each edge once.
pub(crate) fn try_transitive_reduction_in<'a, L: InputList<Item = (usize, usize)> + ?Sized>(
    node_count: usize,
    edges: &L,
    scratch: &mut Scratch<'a>,
) -> Result<&'a [(usize, usize)], PlanError> {
    check_topological_edges(node_count, edges)?;
    let m = edges.count();
    if m == 0 {
        return Ok(&[]);
    }
    let words = node_count.div_ceil(64);
    let sorted: &'a mut [(usize, usize)] = scratch.take(m, (0usize, 0usize))?;
    for (i, slot) in sorted.iter_mut().enumerate() {
        *slot = edges.at(i);
    }
    sorted.sort_unstable();
    let mut unique = 0;
    for i in 0..m {
        if i == 0 || sorted[i] != sorted[i - 1] {
            sorted[unique] = sorted[i];
            unique += 1;
        }
    }
    let (sorted, _) = sorted.split_at_mut(unique);
    let strict = scratch.take(node_count * words, 0u64)?;

    // Descending sources: a successor's strict-reachability row is final
    // before it is folded in. An edge survives iff its target is in no
    // successor's row; the others are marked by a source of usize::MAX.
    let mut kept = 0;
    let mut end = sorted.len();
    while end > 0 {
        let u = sorted[end - 1].0;
        let start = sorted[..end].partition_point(|&(s, _)| s < u);
        let (row_u, after) = strict[u * words..].split_at_mut(words);
        for &(_, w) in &sorted[start..end] {
            let row_w = &after[(w - u - 1) * words..(w - u) * words];
            for (mine, theirs) in row_u.iter_mut().zip(row_w) {
                *mine |= theirs;
            }
        }
        for slot in &mut sorted[start..end] {
            let v = slot.1;
            if row_u[v / 64] & (1 << (v % 64)) != 0 {
                slot.0 = usize::MAX; // implied by a longer path
            }
        }
        for &(_, v) in &sorted[start..end] {
            row_u[v / 64] |= 1 << (v % 64);
        }
        end = start;
    }
    for i in 0..sorted.len() {
        if sorted[i].0 != usize::MAX {
            sorted[kept] = sorted[i];
            kept += 1;
        }
    }
    let (reduced, _) = sorted.split_at_mut(kept);
    Ok(reduced)
}
