//! Checks a [`PlanProblem`] and turns it into what the planners work on:
//! blocks (a reuse group, or one tensor) with a piecewise window profile over
//! time, and for every conflicting pair of blocks the separation that keeps
//! them apart.
//!
//! Arithmetic is in `i128`: node `last_use + 1` and `offset + size` never
//! overflow there, and windows may make a separation negative.

use super::{try_copy, PlanProblem, Reuse};
use crate::error::PlanError;
use crate::input::check_lifetimes;
use crate::offsets::round_up;
use crate::sys::fallible;

/// A gap of one tensor: first and last node, window.
type GapSpan = (usize, usize, Window);
type Window = Option<(usize, usize)>;

/// A stretch of time `[start, end)` in which a block occupies the bytes
/// `[offset + lo, offset + hi)`, `lo < hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    pub(super) start: i128,
    pub(super) end: i128,
    pub(super) lo: i128,
    pub(super) hi: i128,
}

/// What is planned as one: a tensor, or a reuse group at one offset.
#[derive(Clone, Debug)]
pub(super) struct Block {
    /// The largest rounded member size.
    pub(super) size: i128,
    /// The largest member alignment (and at least the plan's).
    pub(super) align: i128,
    /// The fixed offset, if a member is fixed.
    pub(super) fixed: Option<i128>,
    /// The first member with a hint, its hint.
    pub(super) hint: Option<i128>,
    /// Sorted, disjoint in time.
    pub(super) pieces: Vec<Piece>,
}

/// One conflicting neighbour of a block `b`: with `c = other`, `c` above `b`
/// needs `o_c - o_b >= up` and `b` above `c` needs `o_b - o_c >= down`, so
/// `o_b` may not lie strictly between `o_c - up` and `o_c + down`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Neighbour {
    pub(super) other: usize,
    pub(super) up: i128,
    pub(super) down: i128,
}

/// The checked problem.
pub(super) struct Model {
    pub(super) blocks: Vec<Block>,
    /// Each tensor's block.
    pub(super) block_of: Vec<usize>,
    /// Each block's conflicting neighbours, or `None` when the blocks
    /// have too many conflicting pairs to list. Plain blocks occupy their
    /// whole size in every piece (gaps without windows, no reuse group with
    /// a profile): two conflict exactly when pieces of theirs meet in time,
    /// and `c` above `b` needs `o_c - o_b >= size_b`, so the planners find
    /// the pairs from the pieces and compute their separations on demand.
    /// Intervals, plain blocks of one piece, conflict when their spans meet.
    pub(super) neighbours: Option<Vec<Vec<Neighbour>>>,
    /// Without `neighbours`, each block's conflicting neighbours in the
    /// pairs of which one block at least is not plain (windows, a reuse
    /// group's profile): those pairs listed, the plain pairs found from the
    /// pieces. Empty with `neighbours`, or when every block is plain.
    pub(super) irregular: Vec<Vec<Neighbour>>,
    pub(super) capacity: Option<i128>,
}

/// Interval blocks are listed unless their pairs are dense, so that
/// scanning every placed block costs about what a list would: at least one
/// pair in `DENSE` of all `n²` ordered pairs, and more than
/// `SMALL_ENTRIES` entries (a list that small costs nothing); or past
/// `LIST_ENTRIES` (the unconstrained heuristic's limit) and one pair in
/// `64` of them.
const DENSE: usize = 8;
const SMALL_ENTRIES: usize = 1 << 16;
const LIST_ENTRIES: usize = 1 << 22;

fn check_count<T>(array: &'static str, values: &[T], tensor_count: usize) -> Result<(), PlanError> {
    if values.is_empty() || values.len() == tensor_count {
        Ok(())
    } else {
        Err(PlanError::ConstraintCount {
            array,
            count: values.len(),
            tensor_count,
        })
    }
}

/// Checks that each per-tensor array is empty or has one element per tensor.
pub(super) fn check_counts(problem: &PlanProblem<'_>) -> Result<(), PlanError> {
    let n = problem.tensors.len();
    check_count("alignments", problem.alignments, n)?;
    check_count("fixed_offsets", problem.fixed_offsets, n)?;
    check_count("hints", problem.hints, n)
}

/// The root of `x` in a disjoint-set forest, with path halving.
fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Checks the reuse pairs and returns each tensor's group representative
/// and the tensor it reuses (`usize::MAX`: none).
fn reuse_groups(reuses: &[Reuse], sizes: &[usize]) -> Result<(Vec<usize>, Vec<usize>), PlanError> {
    let n = sizes.len();
    let mut parent: Vec<usize> = fallible::collect(n, 0..n)?;
    let mut reused_by = fallible::filled(n, usize::MAX)?;
    for (pair, r) in reuses.iter().enumerate() {
        let bad = PlanError::InvalidReuse {
            pair,
            tensor: r.tensor,
            reused: r.reused,
        };
        if r.tensor >= n || r.reused >= n || r.tensor == r.reused {
            return Err(bad);
        }
        if reused_by[r.tensor] != usize::MAX || sizes[r.tensor] > sizes[r.reused] {
            return Err(bad);
        }
        reused_by[r.tensor] = r.reused;
        // `r.tensor` had no reuse yet, so it is the root of its tree: an
        // edge inside one tree closes a cycle.
        let (a, b) = (find(&mut parent, r.tensor), find(&mut parent, r.reused));
        if a == b {
            return Err(bad);
        }
        parent[a] = b;
    }
    let roots = fallible::collect(n, (0..n).map(|t| find(&mut parent, t)))?;
    Ok((roots, reused_by))
}

/// Checks that the members of one reuse group share bytes only where a
/// member reuses the other directly: at one offset, two members active at
/// a common node whose bytes meet would overwrite each other, which no
/// reuse pair declared. `spans[k]` is member `group[k]`'s pieces, in
/// `pieces`. Errors: [`PlanError::ConflictingFixedOffsets`] naming the two
/// members (the reuse pins them to one offset).
///
/// Time `O(p log p + q)` for `p` pieces and `q` pairs of pieces active
/// together; space `O(p)`.
fn check_group(
    group: &[usize],
    spans: &[(usize, usize)],
    pieces: &[Piece],
    reused_by: &[usize],
) -> Result<(), PlanError> {
    // Every piece, tagged by its member's position in `group`.
    let total = spans.iter().map(|&(a, b)| b - a).sum();
    let mut order: Vec<(usize, usize)> = fallible::with_capacity(total)?;
    for (k, &(a, b)) in spans.iter().enumerate() {
        order.extend((a..b).map(|i| (i, k)));
    }
    order.sort_unstable_by_key(|&(i, k)| (pieces[i].start, k, i));
    let mut active: Vec<(usize, usize)> = fallible::with_capacity(total)?;
    for &(i, k) in &order {
        let p = pieces[i];
        active.retain(|&(j, _)| pieces[j].end > p.start);
        for &(j, m) in &active {
            let q = pieces[j];
            let (x, y) = (group[k], group[m]);
            let direct = reused_by[x] == y || reused_by[y] == x;
            if x != y && !direct && p.lo < q.hi && q.lo < p.hi {
                return Err(PlanError::ConflictingFixedOffsets {
                    first: x.min(y),
                    second: x.max(y),
                });
            }
        }
        active.push((i, k));
    }
    Ok(())
}

impl Model {
    /// Checks `problem` (reporting the first element at fault) and builds
    /// its blocks and conflicts at plan alignment `alignment`.
    pub(super) fn new(problem: &PlanProblem<'_>, alignment: usize) -> Result<Model, PlanError> {
        let tensors = problem.tensors;
        let n = tensors.len();
        if !alignment.is_power_of_two() {
            return Err(PlanError::InvalidAlignment { alignment });
        }
        check_lifetimes(tensors)?;
        check_counts(problem)?;
        let mut rounded = fallible::with_capacity(n)?;
        let mut aligns = fallible::with_capacity(n)?;
        for (i, t) in tensors.iter().enumerate() {
            rounded.push(round_up(t.size, alignment, i)? as i128);
            let own = problem.alignments.get(i).copied().unwrap_or(1);
            if !own.is_power_of_two() {
                return Err(PlanError::InvalidTensorAlignment {
                    tensor: i,
                    alignment: own,
                });
            }
            aligns.push(own.max(alignment) as i128);
        }
        let gaps = tensor_gaps(problem)?;
        let sizes: Vec<usize> = fallible::collect(n, tensors.iter().map(|t| t.size))?;
        let (root, reused_by) = reuse_groups(problem.reuses, &sizes)?;
        drop(sizes);

        // Blocks, one per group, numbered by their lowest member; each
        // block's members are `member[start[b]..start[b + 1]]`.
        let mut block_of = fallible::filled(n, usize::MAX)?;
        let mut block_count = 0;
        for t in 0..n {
            let r = root[t];
            if block_of[r] == usize::MAX {
                block_of[r] = block_count;
                block_count += 1;
            }
            block_of[t] = block_of[r];
        }
        drop(root);
        let mut start = fallible::filled(block_count + 1, 0usize)?;
        for &b in &block_of {
            start[b + 1] += 1;
        }
        for b in 0..block_count {
            start[b + 1] += start[b];
        }
        let mut member = fallible::filled(n, 0usize)?;
        let mut next = try_copy(&start[..block_count])?;
        for (t, &b) in block_of.iter().enumerate() {
            member[next[b]] = t;
            next[b] += 1;
        }
        drop(next);
        let mut blocks = fallible::with_capacity(block_count)?;
        let mut fixed_by = fallible::with_capacity(block_count)?;
        for b in 0..block_count {
            let group = &member[start[b]..start[b + 1]];
            let mut block = Block {
                size: 0,
                align: 1,
                fixed: None,
                hint: None,
                pieces: Vec::new(),
            };
            let mut fixer = usize::MAX;
            // A tensor has a piece between its gaps and one per window.
            let piece_bound = group.iter().map(|&t| 2 * gaps[t].len() + 1).sum();
            let mut pieces = fallible::with_capacity(piece_bound)?;
            let mut spans: Vec<(usize, usize)> = fallible::with_capacity(group.len())?;
            for &t in group {
                block.size = block.size.max(rounded[t]);
                block.align = block.align.max(aligns[t]);
                if let Some(offset) = problem.fixed_offsets.get(t).copied().flatten() {
                    match block.fixed {
                        Some(other) if other != offset as i128 => {
                            return Err(PlanError::ConflictingFixedOffsets {
                                first: fixer,
                                second: t,
                            })
                        }
                        _ => (block.fixed, fixer) = (Some(offset as i128), t),
                    }
                }
                if block.hint.is_none() {
                    block.hint = problem.hints.get(t).copied().flatten().map(|h| h as i128);
                }
                let first = pieces.len();
                tensor_pieces(tensors[t], rounded[t], &gaps[t], &mut pieces);
                spans.push((first, pieces.len()));
            }
            if group.len() > 1 {
                check_group(group, &spans, &pieces, &reused_by)?;
            }
            if let Some(offset) = block.fixed {
                for &t in group {
                    if offset % aligns[t] != 0 {
                        return Err(PlanError::MisalignedFixedOffset {
                            tensor: t,
                            offset: offset as usize,
                            alignment: aligns[t] as usize,
                        });
                    }
                    if offset + rounded[t] > usize::MAX as i128 {
                        return Err(PlanError::Overflow { tensor: t });
                    }
                }
            }
            block.pieces = if group.len() == 1 {
                pieces
            } else {
                merge_pieces(&pieces)?
            };
            blocks.push(block);
            fixed_by.push(fixer);
        }
        drop(gaps);
        check_fixed(&blocks, &fixed_by)?;
        // Dense spans are not listed: the plain pairs among them are found
        // from the pieces, and only the pairs with a block that is not plain
        // are listed (all of them, where every block has a window).
        let pairs = span_pairs(&blocks)?;
        let (entries, squared) = (
            pairs.saturating_mul(2),
            blocks.len().saturating_mul(blocks.len()),
        );
        let dense = entries > SMALL_ENTRIES && pairs.saturating_mul(DENSE) >= squared;
        let many = entries > LIST_ENTRIES && pairs.saturating_mul(64) >= squared;
        let (neighbours, irregular) = if dense || many {
            let irregular = if blocks.iter().all(is_plain) {
                Vec::new()
            } else {
                irregular_conflicts(&blocks)?
            };
            (None, irregular)
        } else {
            (Some(conflicts(&blocks)?), Vec::new())
        };
        Ok(Model {
            blocks,
            block_of,
            neighbours,
            irregular,
            capacity: problem.capacity.map(|c| c as i128),
        })
    }

    /// Whether block `b` is plain (or has no pieces): every piece over its
    /// whole size, its pairs found from the pieces when not listed.
    #[inline]
    pub(super) fn is_plain(&self, b: usize) -> bool {
        is_plain(&self.blocks[b])
    }

    /// Whether plain blocks `b` and `c`, whose spans meet, conflict: some
    /// pieces of theirs meet in time (always, for two intervals).
    ///
    /// Time `O(p)` for `p` pieces of the two.
    #[inline]
    pub(super) fn plain_meet(&self, b: usize, c: usize) -> bool {
        let (a, b) = (&self.blocks[b].pieces, &self.blocks[c].pieces);
        if a.len() == 1 && b.len() == 1 {
            return true;
        }
        pieces_meet(a, b)
    }

    /// Block `b`'s listed neighbours of [`Model::irregular`] (none where
    /// nothing is listed there).
    #[inline]
    pub(super) fn irregular_of(&self, b: usize) -> &[Neighbour] {
        self.irregular.get(b).map_or(&[], Vec::as_slice)
    }

    /// Block `b`'s time span `[start, end)`; empty for a block with no
    /// pieces.
    pub(super) fn span(&self, b: usize) -> (i128, i128) {
        span_of(&self.blocks[b])
    }

    /// The separations of plain blocks `b` and `c` that conflict, as
    /// a neighbour of `b`.
    pub(super) fn plain_neighbour(&self, b: usize, c: usize) -> Neighbour {
        Neighbour {
            other: c,
            up: self.blocks[b].size,
            down: self.blocks[c].size,
        }
    }

    /// Whether block `b` at offset `o_b` and block `c` at `o_c` keep apart.
    pub(super) fn apart(nb: &Neighbour, o_b: i128, o_c: i128) -> bool {
        o_c - o_b >= nb.up || o_b - o_c >= nb.down
    }
}

/// Each tensor's gaps, checked, sorted by first node.
fn tensor_gaps(problem: &PlanProblem<'_>) -> Result<Vec<Vec<GapSpan>>, PlanError> {
    let tensors = problem.tensors;
    // Counted first, so that every list is allocated once, fallibly.
    let mut count = fallible::filled(tensors.len(), 0usize)?;
    for gap in problem.gaps {
        if let Some(c) = count.get_mut(gap.tensor) {
            *c += 1;
        }
    }
    let mut gaps: Vec<Vec<GapSpan>> = fallible::with_capacity(tensors.len())?;
    let mut index: Vec<Vec<usize>> = fallible::with_capacity(tensors.len())?;
    for &c in &count {
        gaps.push(fallible::with_capacity(c)?);
        index.push(fallible::with_capacity(c)?);
    }
    drop(count);
    for (g, gap) in problem.gaps.iter().enumerate() {
        let bad = PlanError::InvalidGap {
            gap: g,
            tensor: gap.tensor,
        };
        let Some(t) = tensors.get(gap.tensor) else {
            return Err(bad);
        };
        let inside = t.first_use <= gap.first && gap.first <= gap.last && gap.last <= t.last_use;
        let window_ok = gap.window.map_or(true, |(lo, hi)| lo <= hi && hi <= t.size);
        if !inside || !window_ok {
            return Err(bad);
        }
        gaps[gap.tensor].push((gap.first, gap.last, gap.window));
        index[gap.tensor].push(g);
    }
    for (list, index) in gaps.iter_mut().zip(&index) {
        let mut order: Vec<usize> = fallible::collect(list.len(), 0..list.len())?;
        // Keys are distinct, so the unstable sort (which does not allocate)
        // gives the stable order.
        order.sort_unstable_by_key(|&k| (list[k].0, index[k]));
        for pair in order.windows(2) {
            if list[pair[1]].0 <= list[pair[0]].1 {
                let g = index[pair[0]].max(index[pair[1]]);
                return Err(PlanError::InvalidGap {
                    gap: g,
                    tensor: problem.gaps[g].tensor,
                });
            }
        }
        *list = fallible::collect(order.len(), order.iter().map(|&k| list[k]))?;
    }
    Ok(gaps)
}

/// Appends a tensor's pieces: full between gaps, its window during each gap.
fn tensor_pieces(
    t: crate::input::TensorLifetime,
    size: i128,
    gaps: &[GapSpan],
    out: &mut Vec<Piece>,
) {
    if size == 0 {
        return;
    }
    let mut push = |start: i128, end: i128, lo: i128, hi: i128| {
        if start < end && lo < hi {
            out.push(Piece { start, end, lo, hi });
        }
    };
    let mut at = t.first_use as i128;
    for &(first, last, window) in gaps {
        push(at, first as i128, 0, size);
        if let Some((lo, hi)) = window {
            push(first as i128, last as i128 + 1, lo as i128, hi as i128);
        }
        at = last as i128 + 1;
    }
    push(at, t.last_use as i128 + 1, 0, size);
}

/// The profile of a group: at every time the hull of its active members'
/// windows, as sorted disjoint pieces.
fn merge_pieces(pieces: &[Piece]) -> Result<Vec<Piece>, PlanError> {
    let mut times: Vec<i128> = fallible::collect(
        2 * pieces.len(),
        pieces.iter().flat_map(|p| [p.start, p.end]),
    )?;
    times.sort_unstable();
    times.dedup();
    // One piece at most per span between consecutive times.
    let mut out: Vec<Piece> = fallible::with_capacity(times.len())?;
    for span in times.windows(2) {
        let (start, end) = (span[0], span[1]);
        let mut hull: Option<(i128, i128)> = None;
        for p in pieces.iter().filter(|p| p.start <= start && end <= p.end) {
            hull = Some(match hull {
                None => (p.lo, p.hi),
                Some((lo, hi)) => (lo.min(p.lo), hi.max(p.hi)),
            });
        }
        let Some((lo, hi)) = hull else { continue };
        match out.last_mut() {
            Some(last) if last.end == start && last.lo == lo && last.hi == hi => last.end = end,
            _ => out.push(Piece { start, end, lo, hi }),
        }
    }
    Ok(out)
}

/// The separations of two blocks active at a common time, as MiniMalloc's
/// effective sizes: `(up, down)` with `up` the least `o_b - o_a` for `b`
/// above `a` over every shared time, `down` the reverse; `None` if they
/// never share a time.
pub(super) fn separation(a: &[Piece], b: &[Piece]) -> Option<(i128, i128)> {
    let (mut i, mut j) = (0, 0);
    let mut found: Option<(i128, i128)> = None;
    while i < a.len() && j < b.len() {
        let (pa, pb) = (a[i], b[j]);
        if pa.start < pb.end && pb.start < pa.end {
            let (up, down) = (pa.hi - pb.lo, pb.hi - pa.lo);
            found = Some(match found {
                None => (up, down),
                Some((u, d)) => (u.max(up), d.max(down)),
            });
        }
        if pa.end <= pb.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    found
}

fn span_of(block: &Block) -> (i128, i128) {
    match (block.pieces.first(), block.pieces.last()) {
        (Some(first), Some(last)) => (first.start, last.end),
        _ => (0, 0),
    }
}

/// Checks that fixed blocks keep apart, by a sweep over the fixed blocks'
/// spans with separations computed from the two blocks' pieces. Errors:
/// [`PlanError::ConflictingFixedOffsets`] naming a tensor fixing each.
///
/// Time `O(f log f + q · p)` for `f` fixed blocks, `q` pairs of them whose
/// spans meet and `p` pieces a block; space `O(f)`.
fn check_fixed(blocks: &[Block], fixed_by: &[usize]) -> Result<(), PlanError> {
    let count = blocks
        .iter()
        .filter(|b| b.fixed.is_some() && !b.pieces.is_empty())
        .count();
    let mut order: Vec<usize> = fallible::collect(
        count,
        (0..blocks.len()).filter(|&b| blocks[b].fixed.is_some() && !blocks[b].pieces.is_empty()),
    )?;
    order.sort_unstable_by_key(|&b| (span_of(&blocks[b]).0, b));
    for (k, &a) in order.iter().enumerate() {
        let end = span_of(&blocks[a]).1;
        for &b in order[k + 1..]
            .iter()
            .take_while(|&&b| span_of(&blocks[b]).0 < end)
        {
            let Some((up, down)) = separation(&blocks[a].pieces, &blocks[b].pieces) else {
                continue;
            };
            let (oa, ob) = (blocks[a].fixed.unwrap(), blocks[b].fixed.unwrap());
            if ob - oa < up && oa - ob < down {
                let (x, y) = (fixed_by[a], fixed_by[b]);
                return Err(PlanError::ConflictingFixedOffsets {
                    first: x.min(y),
                    second: x.max(y),
                });
            }
        }
    }
    Ok(())
}

/// The number of pairs of blocks whose spans meet, counted from
/// the sorted starts and ends without visiting the pairs: a block meets
/// every block starting no later than it (earlier in start order) except
/// those ending at or before its start.
///
/// Time `O(n log n)`; space `O(n)`.
fn span_pairs(blocks: &[Block]) -> Result<usize, PlanError> {
    let with = blocks.iter().filter(|b| !b.pieces.is_empty()).count();
    let spans = || blocks.iter().filter(|b| !b.pieces.is_empty()).map(span_of);
    let mut starts: Vec<i128> = fallible::collect(with, spans().map(|s| s.0))?;
    let mut ends: Vec<i128> = fallible::collect(with, spans().map(|s| s.1))?;
    starts.sort_unstable();
    ends.sort_unstable();
    let (mut pairs, mut ended) = (0usize, 0usize);
    for (k, &start) in starts.iter().enumerate() {
        while ended < ends.len() && ends[ended] <= start {
            ended += 1;
        }
        pairs = pairs.saturating_add(k - ended);
    }
    Ok(pairs)
}

/// Whether `block` occupies its whole size in every piece (or has no
/// pieces): gaps without windows, or none.
fn is_plain(block: &Block) -> bool {
    block.pieces.iter().all(|p| p.lo == 0 && p.hi == block.size)
}

/// Whether two lists of pieces (each sorted, disjoint in time) have two
/// that meet in time, by a merge. `O(p)` for `p` pieces.
fn pieces_meet(a: &[Piece], b: &[Piece]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (pa, pb) = (a[i], b[j]);
        if pa.start < pb.end && pb.start < pa.end {
            return true;
        }
        if pa.end <= pb.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    false
}

/// Every conflicting pair of which one block at least is not plain (a
/// window, a reuse group's profile), as lists by block: each such block
/// against every block whose span meets its own. Counted first, refused
/// when the machine cannot back them, and stored in lists allocated once.
///
/// Time `O(k n)` for `k` blocks that are not plain; space `O(n + E_k)`
/// for the `E_k` pairs listed.
pub(super) fn irregular_conflicts(blocks: &[Block]) -> Result<Vec<Vec<Neighbour>>, PlanError> {
    let mut order: Vec<usize> =
        fallible::collect_growing((0..blocks.len()).filter(|&b| !blocks[b].pieces.is_empty()))?;
    order.sort_unstable_by_key(|&b| (span_of(&blocks[b]).0, b));
    let sweep = |visit: &mut dyn FnMut(usize, usize, i128, i128)| {
        for &a in order.iter().filter(|&&a| !is_plain(&blocks[a])) {
            let (start, end) = span_of(&blocks[a]);
            let starting_before_end = order.partition_point(|&c| span_of(&blocks[c]).0 < end);
            for &c in &order[..starting_before_end] {
                // A pair of two such blocks is visited from its lower one.
                let once = is_plain(&blocks[c]) || c > a;
                if c == a || !once || span_of(&blocks[c]).1 <= start {
                    continue;
                }
                if let Some((up, down)) = separation(&blocks[a].pieces, &blocks[c].pieces) {
                    visit(a, c, up, down);
                }
            }
        }
    };
    lists_of_pairs(blocks.len(), sweep)
}

/// Every conflicting pair, found by a sweep over the blocks' time spans.
/// The pairs may be quadratic in number: they are counted first, refused
/// when the machine cannot back them, and stored in lists allocated once.
fn conflicts(blocks: &[Block]) -> Result<Vec<Vec<Neighbour>>, PlanError> {
    let mut order: Vec<usize> = fallible::collect(
        blocks.len(),
        (0..blocks.len()).filter(|&b| !blocks[b].pieces.is_empty()),
    )?;
    let span = |b: usize| {
        let p = &blocks[b].pieces;
        (p[0].start, p[p.len() - 1].end)
    };
    // Ties by block number, as a stable sort would leave them.
    order.sort_unstable_by_key(|&b| (span(b).0, b));
    let sweep = |visit: &mut dyn FnMut(usize, usize, i128, i128)| {
        for (k, &a) in order.iter().enumerate() {
            let end = span(a).1;
            for &b in order[k + 1..].iter().take_while(|&&b| span(b).0 < end) {
                if let Some((up, down)) = separation(&blocks[a].pieces, &blocks[b].pieces) {
                    visit(a, b, up, down);
                }
            }
        }
    };
    lists_of_pairs(blocks.len(), sweep)
}

/// The lists by block of the pairs `sweep` visits (each pair once, as
/// `(a, b, up, down)`: `b` above `a` needs `o_b - o_a >= up`), for `count`
/// blocks: the sweep runs twice, counting, then filling lists allocated
/// once, after the pairs' bytes are checked against the memory available.
fn lists_of_pairs(
    count: usize,
    sweep: impl Fn(&mut dyn FnMut(usize, usize, i128, i128)),
) -> Result<Vec<Vec<Neighbour>>, PlanError> {
    let mut degree = fallible::filled(count, 0usize)?;
    sweep(&mut |a, b, _, _| {
        degree[a] += 1;
        degree[b] += 1;
    });
    let entries = degree.iter().fold(0usize, |sum, &d| sum.saturating_add(d));
    let bytes = entries
        .saturating_mul(core::mem::size_of::<Neighbour>())
        .saturating_add(count.saturating_mul(core::mem::size_of::<Vec<Neighbour>>()));
    fallible::refuse_above_half_available(bytes)?;
    let mut lists: Vec<Vec<Neighbour>> = fallible::with_capacity(count)?;
    for &d in &degree {
        lists.push(fallible::with_capacity(d)?);
    }
    drop(degree);
    // Every list has exactly the room its pairs take: these pushes never
    // reallocate.
    sweep(&mut |a, b, up, down| {
        lists[a].push(Neighbour { other: b, up, down });
        lists[b].push(Neighbour {
            other: a,
            up: down,
            down: up,
        });
    });
    Ok(lists)
}
