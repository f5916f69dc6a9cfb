//! The closure passes of the reduction: strict reachability closed as an
//! upper bit triangle, one block of columns at a time over edges grouped by
//! source, or in one pass over a second bit triangle of edges when the graph
//! is dense. See the module documentation of `reduction` for why each
//! decision is the literal algorithm's.

use crate::error::PlanError;
use crate::sys::fallible;
use crate::sys::pages::advise_huge_pages;
use crate::sys::words::{or_into, wide_words_available};

/// The edges grouped by source, targets ascending within each group
/// (duplicates kept, adjacent): source `u`'s targets are
/// `targets[starts[u]..starts[u + 1]]`.
pub(super) struct GroupedEdges {
    pub(super) starts: Vec<usize>,
    pub(super) targets: Vec<u32>,
}

impl GroupedEdges {
    /// Groups by a counting sort on the source (`O(n + E)`). The targets of
    /// each group are then put in ascending order: with a mean out-degree
    /// of at most 4 by sorting each (tiny) group in place, else by a second,
    /// stable counting sort on the target done first, which costs the same
    /// per edge whatever the degrees.
    /// Every node must be below `u32::MAX`.
    pub(super) fn new(node_count: usize, edges: &[(usize, usize)]) -> Result<Self, PlanError> {
        const SORT_GROUPS_UP_TO_DEGREE: usize = 4;
        let mut starts = fallible::filled(node_count + 1, 0usize)?;
        for &(u, _) in edges {
            starts[u + 1] += 1;
        }
        for x in 0..node_count {
            starts[x + 1] += starts[x];
        }
        let mut cursor = fallible::collect(node_count + 1, starts.iter().copied())?;
        let mut targets = fallible::filled(edges.len(), 0u32)?;
        if edges.len() <= SORT_GROUPS_UP_TO_DEGREE * node_count {
            for &(u, v) in edges {
                targets[cursor[u]] = v as u32;
                cursor[u] += 1;
            }
            for u in 0..node_count {
                let group = &mut targets[starts[u]..starts[u + 1]];
                if group.len() > 1 {
                    group.sort_unstable();
                }
            }
        } else {
            // Sources grouped by target, then visited in ascending target
            // order, fill each source's group in ascending target order.
            let mut in_starts = fallible::filled(node_count + 1, 0usize)?;
            for &(_, v) in edges {
                in_starts[v + 1] += 1;
            }
            for x in 0..node_count {
                in_starts[x + 1] += in_starts[x];
            }
            let mut sources = fallible::filled(edges.len(), 0u32)?;
            let mut in_cursor = fallible::collect(node_count + 1, in_starts.iter().copied())?;
            for &(u, v) in edges {
                sources[in_cursor[v]] = u as u32;
                in_cursor[v] += 1;
            }
            for v in 0..node_count {
                for &u in &sources[in_starts[v]..in_starts[v + 1]] {
                    targets[cursor[u as usize]] = v as u32;
                    cursor[u as usize] += 1;
                }
            }
        }
        Ok(GroupedEdges { starts, targets })
    }
}

/// One block of matrix columns, words `first_word..end_word`, stored as an
/// upper triangle: row `u` holds words `max(first_word, (u + 1) / 64)` up to
/// `end_word`, for the rows `0..rows` that have any bit in the block.
pub(super) struct ColumnBlock {
    first_word: usize,
    end_word: usize,
    rows: usize,
}

impl ColumnBlock {
    pub(super) fn new(node_count: usize, first_word: usize, end_word: usize) -> Self {
        // Row u has bits above u only: none in the block once u >= 64·end - 1.
        let rows = node_count.min((64 * end_word).saturating_sub(1));
        ColumnBlock {
            first_word,
            end_word,
            rows,
        }
    }

    /// The first word row `u` stores.
    fn row_start_word(&self, u: usize) -> usize {
        self.first_word.max((u + 1) / 64)
    }

    /// Words of the block's rows (saturating), in closed form: node counts
    /// near `usize::MAX` must be refused without a loop over their rows.
    pub(super) fn words(&self) -> usize {
        // Σ_{u < rows} (end - max(first, (u + 1) / 64)) with j = u + 1.
        // `below(m)` is Σ_{0 <= j <= m} ⌊j / 64⌋.
        fn below(m: u128) -> u128 {
            let (q, r) = (m / 64, m % 64);
            32 * q * q.saturating_sub(1) + (r + 1) * q
        }
        let (first, end, rows) = (
            self.first_word as u128,
            self.end_word as u128,
            self.rows as u128,
        );
        // j in 1..=min(rows, 64·first - 1): the row starts at `first`.
        let flat = rows.min((64 * first).saturating_sub(1));
        let mut starts = flat * first;
        // j in max(1, 64·first)..=rows: the row starts at ⌊j / 64⌋.
        let low = (64 * first).max(1);
        if rows >= low {
            starts += below(rows) - below(low - 1);
        }
        usize::try_from(rows * end - starts).unwrap_or(usize::MAX)
    }

    /// Bytes of the block's rows, saturating.
    pub(super) fn bytes(&self) -> usize {
        self.words().saturating_mul(8)
    }

    /// Where each row starts in the block's storage; `rows + 1` entries.
    fn row_offsets(&self) -> Result<Vec<usize>, PlanError> {
        let mut offsets = fallible::with_capacity(self.rows + 1)?;
        let mut total = 0;
        offsets.push(0);
        for u in 0..self.rows {
            total += self.end_word - self.row_start_word(u);
            offsets.push(total);
        }
        Ok(offsets)
    }
}

/// An empty matrix with room for `words` words, or the number of bytes that
/// could not be allocated. Nothing is zeroed here: rows are zeroed one at a
/// time by [`append_zeroed_row`], just before they are built, while they are
/// in cache.
pub(super) fn try_matrix(words: usize) -> Result<Vec<u64>, PlanError> {
    let mut matrix = Vec::new();
    matrix
        .try_reserve_exact(words)
        .map_err(|_| PlanError::OutOfMemory {
            bytes: words.saturating_mul(8),
        })?;
    advise_huge_pages(matrix.spare_capacity_mut());
    Ok(matrix)
}

/// Appends row `u`, zeroed, to a matrix whose rows are stored in
/// *descending* order (rows are built from the last node down, so each is
/// appended). Returns the rows above `u`, all built, and row `u`.
/// `offsets` are the block's ascending row offsets.
#[inline]
fn append_zeroed_row<'a>(
    matrix: &'a mut Vec<u64>,
    offsets: &[usize],
    u: usize,
) -> (&'a [u64], &'a mut [u64]) {
    let built = offsets[offsets.len() - 1] - offsets[u + 1];
    debug_assert_eq!(matrix.len(), built);
    matrix.resize(built + offsets[u + 1] - offsets[u], 0);
    let (above, row_u) = matrix.split_at_mut(built);
    (above, row_u)
}

/// Row `w` among the built rows `above` (see [`append_zeroed_row`]).
#[inline]
fn stored_row<'a>(above: &'a [u64], offsets: &[usize], w: usize) -> &'a [u64] {
    let total = offsets[offsets.len() - 1];
    &above[total - offsets[w + 1]..total - offsets[w]]
}

/// Closes reachability on the columns of `block` in `matrix` (a buffer
/// reused from block to block, its contents ignored) and decides every edge
/// whose target lies in it; `kept` (one flag per grouped edge) holds the
/// decisions of the earlier blocks and receives this block's.
pub(super) fn reduce_block(
    graph: &GroupedEdges,
    block: &ColumnBlock,
    matrix: &mut Vec<u64>,
    kept: &mut [bool],
) -> Result<(), PlanError> {
    let wide = wide_words_available();
    let offsets = block.row_offsets()?;
    matrix.clear();
    debug_assert!(matrix.capacity() >= offsets[block.rows]);
    let first_column = 64 * block.first_word;
    let end_column = 64 * block.end_word;
    for u in (0..block.rows).rev() {
        let (tail, row_u) = append_zeroed_row(matrix, &offsets, u);
        let row_u_start = block.row_start_word(u);
        let group = graph.starts[u]..graph.starts[u + 1];
        for (&target, kept) in graph.targets[group.clone()].iter().zip(&mut kept[group]) {
            let w = target as usize;
            if w >= end_column {
                break; // Ascending: no later successor touches this block.
            }
            if w >= first_column {
                let (word, bit) = (w / 64 - row_u_start, 1u64 << (w % 64));
                if row_u[word] & bit != 0 {
                    continue; // Reached through a smaller successor: redundant.
                }
                row_u[word] |= bit;
                *kept = true;
            } else if !*kept {
                continue; // Found redundant in an earlier block.
            }
            if w < block.rows {
                let row_w = stored_row(tail, &offsets, w);
                let skip = row_u.len() - row_w.len();
                or_into(&mut row_u[skip..], row_w, wide);
            }
        }
    }
    Ok(())
}

/// The reduction of a dense graph (`n² <= 128 E`) in a single block, its
/// edges held as a second bit triangle instead of grouped lists: setting one
/// bit per edge is cheaper than sorting, the triangle is no larger than the
/// lists would be, and scanning a row's bits visits its successors in
/// ascending order, duplicates merged. Redundant edges are cleared from the
/// adjacency triangle, which then holds exactly the reduction.
pub(super) fn reduce_dense(
    block: &ColumnBlock,
    mut matrix: Vec<u64>,
    edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, PlanError> {
    let wide = wide_words_available();
    let offsets = block.row_offsets()?;
    let mut adjacency = fallible::zeroed_words(offsets[block.rows])?;
    for &(u, v) in edges {
        adjacency[offsets[u] + v / 64 - block.row_start_word(u)] |= 1 << (v % 64);
    }
    for u in (0..block.rows).rev() {
        let (tail, row_u) = append_zeroed_row(&mut matrix, &offsets, u);
        let adjacency_u = &mut adjacency[offsets[u]..offsets[u + 1]];
        let row_u_start = block.row_start_word(u);
        for word in 0..row_u.len() {
            let mut successors = adjacency_u[word];
            while successors != 0 {
                let bit = successors & successors.wrapping_neg();
                successors ^= bit;
                if row_u[word] & bit != 0 {
                    adjacency_u[word] ^= bit; // Redundant: reached through a smaller successor.
                    continue;
                }
                row_u[word] |= bit;
                let w = (row_u_start + word) * 64 + bit.trailing_zeros() as usize;
                if w < block.rows {
                    let row_w = stored_row(tail, &offsets, w);
                    let skip = row_u.len() - row_w.len();
                    or_into(&mut row_u[skip..], row_w, wide);
                }
            }
        }
    }
    // Every surviving edge is an input edge.
    let mut reduced = fallible::with_capacity(edges.len())?;
    for u in 0..block.rows {
        let row_u_start = block.row_start_word(u);
        for (word, &bits) in adjacency[offsets[u]..offsets[u + 1]].iter().enumerate() {
            let mut successors = bits;
            while successors != 0 {
                let w = (row_u_start + word) * 64 + successors.trailing_zeros() as usize;
                successors &= successors - 1;
                reduced.push((u, w));
            }
        }
    }
    Ok(reduced)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive count the closed form must equal: one row at a time.
    fn words_by_rows(block: &ColumnBlock) -> usize {
        (0..block.rows)
            .map(|u| block.end_word - block.row_start_word(u))
            .sum()
    }

    #[test]
    fn block_sizes_in_closed_form_equal_a_row_by_row_count() {
        for node_count in [1usize, 2, 63, 64, 65, 127, 128, 129, 200, 1_000, 4_097] {
            let words = node_count.div_ceil(64);
            for first in 0..words {
                for end in first + 1..=words {
                    let block = ColumnBlock::new(node_count, first, end);
                    assert_eq!(
                        block.words(),
                        words_by_rows(&block),
                        "{node_count} {first} {end}"
                    );
                    assert_eq!(block.row_offsets().unwrap()[block.rows], block.words());
                }
            }
        }
    }
}
