//! Transitive reduction of a topologically numbered DAG (after
//! tensorflow/tensorflow#124410).
//!
//! # Problem
//!
//! Given a DAG on nodes `0..n`, find the fewest edges with the same
//! reachability. For a finite DAG this transitive reduction is unique: it is
//! exactly the set of edges `u → v` for which no other path leads from `u` to
//! `v`,
//!
//! ```text
//! (u → v) ∈ TR(G)  ⟺  v ∉ ⋃_{w ∈ N⁺(u), w ≠ v} reach(w)
//! ```
//!
//! where `reach(w)` contains `w` itself.
//!
//! # Preconditions
//!
//! Nodes are numbered topologically: `u < v` for every edge `u → v`, and
//! `v < n`. Descending index is then a reverse topological order, which the
//! single closure pass relies on; a back edge would make it silently wrong, so
//! it is refused.
//!
//! # Algorithm
//!
//! Strict reachability (`reach(u) \ {u}`) is closed as a bit matrix in one
//! pass over the nodes in descending order, so a successor's row is final
//! before it is folded into its predecessor's. Edge `u → v` survives iff `v`
//! is in no other successor's row. Every edge is decided against the complete
//! closure, so the result depends on the edge *set* only, never on edge order.
//! The output is sorted ascending by `(source, target)` with each edge once.
//!
//! Three observations make the pass cheaper than the literal one, without
//! changing a single decision:
//!
//! - *Only surviving successors are folded.* Successors are visited in
//!   ascending order. A successor `w` can only be reached through a smaller
//!   successor (edges go upwards), so when `w` is visited every path that
//!   could make `u → w` redundant has already been folded in: the edge
//!   survives iff bit `w` is still clear. If it is set, `reach(w)` is already
//!   inside the row and folding it would change nothing. So only the rows of
//!   surviving edges are read, `|TR|` rows instead of `E`.
//! - *Upper triangle.* Row `u` holds bits above `u` only, so it is stored
//!   from word `(u + 1) / 64` on, and folding row `w` touches only the words
//!   row `w` stores: half the memory and far fewer words per fold.
//! - *Column blocks.* The bits of one range of columns depend only on the
//!   same columns of other rows, so the matrix can be built one block of
//!   columns at a time, in ascending order (a survival decision made in an
//!   earlier block is reused by later ones). With a memory budget
//!   ([`try_transitive_reduction_with_budget`]) each block is sized to fit
//!   it; without one, a single block holds the whole triangle.
//!
//! A large matrix is advised to Linux as transparent-huge-page memory:
//! faulting in a fresh matrix 4 KiB at a time otherwise dominates the time on
//! large sparse graphs.
//!
//! Edges are grouped by source by a counting sort, targets ascending within
//! each group (`O(n + E)`; tiny groups are sorted in place instead). A dense graph (`n² <= 128 E`) reduced in
//! one block instead keeps its edges as a second bit triangle, which is no
//! larger than the grouped lists and needs no sort at all.
//!
//! # Complexity
//!
//! `O(B·(n + E) + n²/128 + Σ_{(u→w) ∈ TR} ⌈(n − w)/64⌉)` time for `B`
//! column blocks (one without a budget): grouping, the triangle's zeroed
//! words, and one fold per surviving edge over the words its target's row
//! stores. That is at most the literal `O(E log E + (n + E)⌈n/64⌉)`. Memory:
//! the triangle, `≈ n²/16` bytes (at most `budget_bytes` per block with a
//! budget), allocated fallibly, plus `O(n + E)` for the grouped edges (or
//! the dense form's second triangle, at most `8E` bytes).

use crate::error::PlanError;
use crate::fallible;
use crate::workspace::InputList;

/// Checks every edge: `source < target < node_count`. Reports the first bad
/// edge; an edge that is both backwards and out of range is reported as
/// [`PlanError::NotTopological`].
pub(crate) fn validate<L: InputList<Item = (usize, usize)> + ?Sized>(
    node_count: usize,
    edges: &L,
) -> Result<(), PlanError> {
    for i in 0..edges.count() {
        let (source, target) = edges.at(i);
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
    Ok(())
}

/// A zeroed `words`-long vector, or the number of bytes that could not be
/// allocated. Fresh zeroed pages come from the allocator lazily, so an
/// untouched part of a large matrix costs nothing.
fn try_zeroed_words(words: usize) -> Result<Vec<u64>, PlanError> {
    let bytes = words.saturating_mul(8);
    if words == usize::MAX {
        return Err(PlanError::OutOfMemory { bytes });
    }
    if words == 0 {
        return Ok(Vec::new());
    }
    let layout =
        std::alloc::Layout::array::<u64>(words).map_err(|_| PlanError::OutOfMemory { bytes })?;
    // SAFETY: the layout has a non-zero size. A non-null result is a zeroed
    // allocation of `words` u64s made by the global allocator with the layout
    // `Vec<u64>` uses for capacity `words`, and all-zero bits are valid u64s,
    // so the vector may own it with length and capacity `words`.
    unsafe {
        let pointer = std::alloc::alloc_zeroed(layout).cast::<u64>();
        if pointer.is_null() {
            return Err(PlanError::OutOfMemory { bytes });
        }
        let mut matrix = Vec::from_raw_parts(pointer, words, words);
        advise_huge_pages(&mut matrix);
        Ok(matrix)
    }
}

/// Asks Linux to back a large fresh allocation (a matrix here, the labels in
/// islands) with transparent huge pages. Touching fresh memory otherwise
/// costs one or two page faults per 4 KiB, which dominates the time on large
/// sparse graphs. A hint only: failure (another page size, huge pages
/// disabled) changes nothing but speed.
pub(crate) fn advise_huge_pages<T>(matrix: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        use core::ffi::{c_int, c_void};
        extern "C" {
            fn madvise(address: *mut c_void, length: usize, advice: c_int) -> c_int;
        }
        const MADV_HUGEPAGE: c_int = 14;
        const PAGE: usize = 4096;
        const WORTH_IT: usize = 4 << 20;
        let bytes = core::mem::size_of_val(matrix);
        if bytes < WORTH_IT {
            return;
        }
        let start = (matrix.as_mut_ptr() as usize).next_multiple_of(PAGE);
        let end = (matrix.as_mut_ptr() as usize + bytes) & !(PAGE - 1);
        if end <= start {
            return;
        }
        // SAFETY: the range lies inside memory this vector owns, and
        // MADV_HUGEPAGE changes neither its contents nor its validity.
        unsafe {
            madvise(start as *mut c_void, end - start, MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = matrix;
}

/// The edges grouped by source, targets ascending within each group
/// (duplicates kept, adjacent): source `u`'s targets are
/// `targets[starts[u]..starts[u + 1]]`.
struct GroupedEdges {
    starts: Vec<usize>,
    targets: Vec<u32>,
}

impl GroupedEdges {
    /// Groups by a counting sort on the source (`O(n + E)`). The targets of
    /// each group are then put in ascending order: with a mean out-degree
    /// of at most 4 by sorting each (tiny) group in place, else by a second,
    /// stable counting sort on the target done first, which costs the same
    /// per edge whatever the degrees.
    /// Every node must be below `u32::MAX`.
    fn new(node_count: usize, edges: &[(usize, usize)]) -> Result<Self, PlanError> {
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
struct ColumnBlock {
    first_word: usize,
    end_word: usize,
    rows: usize,
}

impl ColumnBlock {
    fn new(node_count: usize, first_word: usize, end_word: usize) -> Self {
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
    fn words(&self) -> usize {
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
    fn bytes(&self) -> usize {
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

/// Whether [`or_into`] may use 256-bit AVX2 words (checked at run time, so
/// the library still runs on any x86-64).
fn wide_words_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// ORs `row` into `into` (equal lengths): the fold of one row into another,
/// where the closure spends its time. `wide` must come from
/// [`wide_words_available`].
#[inline]
fn or_into(into: &mut [u64], row: &[u64], wide: bool) {
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` is true only when the CPU reports AVX2.
        unsafe { or_into_avx2(into, row) };
        return;
    }
    let _ = wide;
    or_words(into, row);
}

#[inline(always)]
fn or_words(into: &mut [u64], row: &[u64]) {
    for (mine, theirs) in into.iter_mut().zip(row) {
        *mine |= theirs;
    }
}

/// [`or_words`] compiled for AVX2: four words per instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn or_into_avx2(into: &mut [u64], row: &[u64]) {
    or_words(into, row);
}

/// An empty matrix with room for `words` words, or the number of bytes that
/// could not be allocated. Nothing is zeroed here: rows are zeroed one at a
/// time by [`append_zeroed_row`], just before they are built, while they are
/// in cache.
fn try_matrix(words: usize) -> Result<Vec<u64>, PlanError> {
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

/// Closes reachability on the columns of `block` and decides every edge
/// whose target lies in it; `kept` (one flag per grouped edge) holds the
/// decisions of the earlier blocks and receives this block's.
fn reduce_block(
    graph: &GroupedEdges,
    block: &ColumnBlock,
    mut matrix: Vec<u64>,
    kept: &mut [bool],
) -> Result<(), PlanError> {
    let wide = wide_words_available();
    let offsets = block.row_offsets()?;
    debug_assert!(matrix.is_empty() && matrix.capacity() >= offsets[block.rows]);
    let first_column = 64 * block.first_word;
    let end_column = 64 * block.end_word;
    for u in (0..block.rows).rev() {
        let (tail, row_u) = append_zeroed_row(&mut matrix, &offsets, u);
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
fn reduce_dense(
    block: &ColumnBlock,
    mut matrix: Vec<u64>,
    edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, PlanError> {
    let wide = wide_words_available();
    let offsets = block.row_offsets()?;
    let mut adjacency = try_zeroed_words(offsets[block.rows])?;
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

/// The reduction, with every column block within `budget_bytes` if a budget
/// is given. Validation comes first, so its errors take precedence.
fn reduce(
    node_count: usize,
    edges: &[(usize, usize)],
    budget_bytes: Option<usize>,
) -> Result<Vec<(usize, usize)>, PlanError> {
    validate(node_count, edges)?;
    if edges.is_empty() {
        return Ok(Vec::new());
    }
    let words = node_count.div_ceil(64);
    if node_count >= u32::MAX as usize {
        // Far beyond any matrix that fits in memory (grouped edges are u32);
        // refused before any block is sized, since sizing could overflow.
        return Err(PlanError::OutOfMemory {
            bytes: (node_count / 2).saturating_mul(words).saturating_mul(8),
        });
    }
    let whole = ColumnBlock::new(node_count, 0, words);
    // Without a budget, a matrix larger than half the memory the machine can
    // back is refused at once rather than granted by the kernel and touched
    // into the out-of-memory killer (rows are zeroed as they are built, so a
    // sparse graph touches its whole triangle too). The other half is left
    // to the caller's process and the rest of the machine. Only large
    // matrices pay for the look-up.
    const LOOK_UP_ABOVE: usize = 256 << 20;
    if budget_bytes.is_none() && whole.bytes() > LOOK_UP_ABOVE {
        if let Some(available) = crate::fallible::memory_available() {
            if whole.bytes() > available / 2 {
                return Err(PlanError::OutOfMemory {
                    bytes: whole.bytes(),
                });
            }
        }
    }
    let mut blocks = Vec::new();
    match budget_bytes {
        Some(budget) if whole.bytes() > budget => {
            let mut first_word = 0;
            while first_word < words {
                // The widest block from `first_word` that fits (bytes grow
                // with the width, so a binary search finds it).
                let fits =
                    |end: usize| ColumnBlock::new(node_count, first_word, end).bytes() <= budget;
                let (mut low, mut high) = (first_word, words);
                while low < high {
                    let middle = (low + high).div_ceil(2);
                    if fits(middle) {
                        low = middle;
                    } else {
                        high = middle - 1;
                    }
                }
                if low == first_word {
                    let narrowest = ColumnBlock::new(node_count, first_word, first_word + 1);
                    return Err(PlanError::OutOfMemory {
                        bytes: narrowest.bytes(),
                    });
                }
                blocks.push(ColumnBlock::new(node_count, first_word, low));
                first_word = low;
            }
        }
        _ => blocks.push(whole),
    }

    // The first block is allocated before anything of size O(n), so a
    // matrix that cannot exist is refused before any other work.
    let mut first_matrix = Some(try_matrix(blocks[0].words())?);
    let dense = (node_count as u128).pow(2) <= 128 * edges.len() as u128;
    if blocks.len() == 1 && dense {
        let matrix = first_matrix.take().expect("allocated above");
        return reduce_dense(&blocks[0], matrix, edges);
    }
    let graph = GroupedEdges::new(node_count, edges)?;
    let mut kept = fallible::filled(edges.len(), false)?;
    for block in &blocks {
        let matrix = match first_matrix.take() {
            Some(matrix) => matrix,
            None => try_matrix(block.words())?,
        };
        reduce_block(&graph, block, matrix, &mut kept)?;
    }
    let mut reduced = fallible::with_capacity(kept.iter().filter(|&&k| k).count())?;
    for u in 0..node_count {
        let group = graph.starts[u]..graph.starts[u + 1];
        for (&target, &kept) in graph.targets[group.clone()].iter().zip(&kept[group]) {
            if kept {
                reduced.push((u, target as usize));
            }
        }
    }
    Ok(reduced)
}

/// The transitive reduction, or why it cannot be computed.
///
/// Errors: [`PlanError::NotTopological`] for an edge with `source >= target`;
/// [`PlanError::EdgeOutOfRange`] for a target at or beyond `node_count`;
/// [`PlanError::OutOfMemory`] if the `≈ n²/16`-byte triangle cannot be
/// allocated, or, on Linux, is larger than half the memory the machine can
/// back (`MemAvailable`, within the cgroup's limit): such a matrix is refused
/// before it is allocated. [`try_transitive_reduction_with_budget`] reduces
/// graphs of any size within a memory budget.
///
/// Exact: the unique minimal edge set with the same reachability, sorted by
/// `(source, target)`, independent of edge order; duplicate edges collapse.
pub fn try_transitive_reduction(
    node_count: usize,
    edges: &[(usize, usize)],
) -> Result<Vec<(usize, usize)>, PlanError> {
    reduce(node_count, edges, None)
}

/// The transitive reduction computed within a memory budget for the bit
/// matrix, or why it cannot be computed.
///
/// The matrix is built one block of columns at a time, each block at most
/// `budget_bytes`; beyond that, `O(n + E)` bytes hold the grouped edges. The
/// narrowest block (64 columns) needs at most `8 · node_count` bytes, so any
/// budget of at least that succeeds. A budget that holds the whole triangle
/// (`≈ n²/16` bytes) gives exactly [`try_transitive_reduction`]'s single pass.
///
/// Errors: as [`try_transitive_reduction`], in the same order; also
/// [`PlanError::OutOfMemory`] (with the narrowest block's size) when
/// `budget_bytes` cannot hold even 64 columns.
///
/// Exact: the same edges as [`try_transitive_reduction`], whatever the budget.
pub fn try_transitive_reduction_with_budget(
    node_count: usize,
    edges: &[(usize, usize)],
    budget_bytes: usize,
) -> Result<Vec<(usize, usize)>, PlanError> {
    reduce(node_count, edges, Some(budget_bytes))
}

/// The transitive reduction of a topologically numbered DAG; panics on a
/// precondition violation.
///
/// # Panics
///
/// With a message containing "topological" for an edge with
/// `source >= target`; also for a node at or beyond `node_count`, or if the
/// bit matrix cannot be allocated.
///
/// # Example
///
/// ```
/// use aether_planner::transitive_reduction;
/// // 0 -> 3 is implied by the path 0 -> 1 -> 2 -> 3.
/// let reduced = transitive_reduction(4, &[(0, 3), (2, 3), (0, 1), (1, 2)]);
/// assert_eq!(reduced, vec![(0, 1), (1, 2), (2, 3)]);
/// ```
pub fn transitive_reduction(node_count: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    try_transitive_reduction(node_count, edges)
        .unwrap_or_else(|error| panic!("transitive_reduction: {error}"))
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

    /// The specification's literal closure: every successor's row folded.
    fn naive_reduction(node_count: usize, edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut reach = vec![vec![false; node_count]; node_count];
        let mut sorted = edges.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let mut kept = Vec::new();
        for u in (0..node_count).rev() {
            let successors: Vec<usize> = sorted.iter().filter(|e| e.0 == u).map(|e| e.1).collect();
            let mut row = vec![false; node_count];
            for &w in &successors {
                for x in 0..node_count {
                    row[x] |= reach[w][x];
                }
            }
            for &v in &successors {
                if !row[v] {
                    kept.push((u, v));
                }
                row[v] = true;
            }
            reach[u] = row;
        }
        kept.sort_unstable();
        kept
    }

    #[test]
    fn every_budget_gives_the_naive_reduction() {
        let mut state = 7u64;
        let mut next = move |bound: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % bound
        };
        for _ in 0..60 {
            let node_count = 1 + next(200);
            let density = 1 + next(60);
            let mut edges = Vec::new();
            for u in 0..node_count {
                for v in u + 1..node_count {
                    if next(100) < density {
                        edges.push((u, v));
                    }
                }
            }
            let expected = naive_reduction(node_count, &edges);
            assert_eq!(
                try_transitive_reduction(node_count, &edges).unwrap(),
                expected
            );
            for budget in [8 * node_count, 100 * node_count, usize::MAX] {
                let reduced = try_transitive_reduction_with_budget(node_count, &edges, budget);
                assert_eq!(reduced.unwrap(), expected, "budget {budget}");
            }
        }
    }

    #[test]
    fn matrices_that_cannot_exist_are_refused_quickly() {
        for node_count in [usize::MAX / 2, 1 << 40, 1 << 31] {
            let refused = try_transitive_reduction(node_count, &[(0, 1)]);
            assert!(
                matches!(refused, Err(PlanError::OutOfMemory { .. })),
                "{node_count}"
            );
        }
    }
}
