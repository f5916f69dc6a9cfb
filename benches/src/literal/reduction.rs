//! Transitive reduction by a dense reachability bit matrix, literally as the
//! specification states it.
//!
//! Edges are sorted and deduplicated. Nodes are visited in descending index (a
//! reverse topological order, since every edge has `u < v`); node `u`'s strict
//! reachability row is the union of the rows of *all* its successors, and
//! edge `u → v` survives iff `v` is in none of them. Then every successor's
//! bit is set in row `u`.
//!
//! `O(E log E + (n + E)⌈n/64⌉)` time, `n × ⌈n/64⌉ × 8` bytes for the matrix.

use aether_planner::PlanError;

/// The transitive reduction, sorted by `(source, target)`, with the
/// library's errors in the library's order (a backward edge before an
/// out-of-range one, first edge first). Allocation failure is not modelled.
pub fn transitive_reduction(
    node_count: usize,
    edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, PlanError> {
    for (i, &(source, target)) in edges.iter().enumerate() {
        if source >= target {
            return Err(PlanError::NotTopological {
                edge: i,
                source,
                target,
            });
        }
        if target >= node_count {
            return Err(PlanError::EdgeOutOfRange {
                edge: i,
                node: target,
                node_count,
            });
        }
    }
    if edges.is_empty() {
        return Ok(Vec::new());
    }
    let words = node_count.div_ceil(64);
    let mut matrix = vec![0u64; node_count * words];
    let mut sorted = edges.to_vec();
    sorted.sort_unstable();
    sorted.dedup();

    let mut kept = Vec::new();
    let mut end = sorted.len();
    while end > 0 {
        let u = sorted[end - 1].0;
        let mut start = end;
        while start > 0 && sorted[start - 1].0 == u {
            start -= 1;
        }
        let successors = &sorted[start..end];
        // Row u is folded in place; every successor's row lies above it.
        let (below, above) = matrix.split_at_mut((u + 1) * words);
        let row = &mut below[u * words..];
        for &(_, w) in successors {
            let theirs = &above[(w - u - 1) * words..(w - u) * words];
            for (bits, theirs) in row.iter_mut().zip(theirs) {
                *bits |= theirs;
            }
        }
        for &(_, v) in successors {
            if row[v / 64] >> (v % 64) & 1 == 0 {
                kept.push((u, v));
            }
        }
        for &(_, v) in successors {
            row[v / 64] |= 1 << (v % 64);
        }
        end = start;
    }
    kept.sort_unstable();
    Ok(kept)
}
