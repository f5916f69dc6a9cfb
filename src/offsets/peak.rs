//! The lower bound of every arena: the peak of live bytes.
//!
//! # Problem and what is exact
//!
//! [`peak_live_bytes`] is `max_t Σ_{i : t ∈ [f_i, l_i]} w_i`, the maximum-weight
//! clique of the lifetime interval graph. The tensors live at the peak node
//! pairwise intersect, so they are byte-disjoint: every sound arena is at least
//! the peak. Exact.
//!
//! [`PlanProblem::try_peak_live_bytes`] is the same with the constrained
//! problem's semantics: a tensor occupies its size outside its gaps, its
//! window's width in a gap with a window and nothing in a gap without one,
//! and a reuse group counts once at each node, as its largest member active
//! there. Its members share memory, so this too is a lower bound of every
//! sound arena (not always the best one: windows and fixed offsets can force
//! more).
//!
//! # Complexity
//!
//! `O(n log n)` time by a merge of the first uses and the last uses, each
//! sorted by node, so node indices may be huge and sparse; `O(n)` memory.
//! When the node indices are dense (as a compiler's are: a range at most
//! four times the tensor count, plus a little), one table of byte changes per
//! node does it in `O(n)` time. When the sizes' total passes `usize::MAX`,
//! a checked sweep over all endpoints finds whether a live sum does too.
//! The constrained peak is `O((n + g) log(n + g))` for `g` gaps.

use std::collections::BinaryHeap;

use super::{LifetimeGap, PlanProblem, Reuse, TensorLifetime};
use crate::error::PlanError;
use crate::input::check_lifetimes;
use crate::sys::fallible;
use crate::sys::pages::{advise_huge_pages, prefetch};

/// How many tensors ahead the dense peak asks for the table's lines: far
/// enough that a line from memory, a page walk included, has come by the
/// time its change is added (16 was too near on tables in no order).
const PREFETCH_AHEAD: usize = 64;

/// The largest total size of tensors live at one node, or why it cannot be
/// computed.
///
/// Errors: [`PlanError::InvalidLifetime`] as for [`try_plan_offsets`](crate::try_plan_offsets);
/// [`PlanError::Overflow`] if the live sum at some node passes `usize::MAX`.
///
/// Exact. Complexity: `O(n log n)` time (a merge of sorted uses),
/// `O(n)` memory, independent of the node indices' magnitude; `O(n)` time
/// when the indices are dense.
pub fn try_peak_live_bytes(tensors: &[TensorLifetime]) -> Result<usize, PlanError> {
    peak_in(tensors, &Survey::of(tensors)?, &mut Vec::new(), 0)
}

/// What one pass over a table of tensors tells, its lifetimes checked: the
/// planned (non-zero) tensors' count, the range of their nodes and the sum
/// of their sizes. The peak and the online first-fit plan of a capped
/// search share it, so that the table is read once for all three.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Survey {
    /// Tensors of non-zero size.
    pub(crate) planned: usize,
    /// Their lowest first use and highest last use (`low > high` when none).
    pub(crate) low: usize,
    pub(crate) high: usize,
    /// The sum of their sizes, `None` past `usize::MAX`.
    pub(crate) total: Option<usize>,
    /// Whether they come in order of first use, as time-ordered graphs list
    /// them: a sort by first use is then the identity.
    pub(crate) in_time_order: bool,
}

impl Survey {
    /// One pass over `tensors`. Errors: [`PlanError::InvalidLifetime`] for
    /// the first tensor with `first_use > last_use`, as
    /// [`check_lifetimes`] reports it (run again only to name it).
    pub(crate) fn of(tensors: &[TensorLifetime]) -> Result<Self, PlanError> {
        // Without branches or an early exit, so that the pass runs at the
        // speed of memory: flags say afterwards whether a lifetime ran
        // backwards or the sum wrapped (it stays wrapped once it has).
        let (mut low, mut high, mut planned) = (usize::MAX, 0, 0usize);
        let (mut sum, mut wrapped, mut backwards) = (0usize, false, false);
        let (mut latest_first, mut in_time_order) = (0usize, true);
        for t in tensors {
            backwards |= t.first_use > t.last_use;
            let live = t.size != 0;
            in_time_order &= !live || latest_first <= t.first_use;
            latest_first = if live { t.first_use } else { latest_first };
            planned += usize::from(live);
            low = low.min(if live { t.first_use } else { usize::MAX });
            high = high.max(if live { t.last_use } else { 0 });
            let (next, carry) = sum.overflowing_add(t.size);
            (sum, wrapped) = (next, wrapped | carry);
        }
        if backwards {
            check_lifetimes(tensors)?;
        }
        Ok(Survey {
            planned,
            low,
            high,
            total: (!wrapped).then_some(sum),
            in_time_order,
        })
    }
}

/// The peak of `tensors`, whose [`Survey`] is `survey`, its table of byte
/// changes (dense node indices) made in `table`: a caller that needs a
/// vector of at least `keep` words after the peak passes one and gets the
/// table's memory back, touched once (fresh pages cost more to touch than
/// to reuse). `table`'s contents on return are unspecified.
///
/// Errors: [`PlanError::Overflow`] if a live sum passes `usize::MAX`;
/// [`PlanError::OutOfMemory`].
pub(crate) fn peak_in(
    tensors: &[TensorLifetime],
    survey: &Survey,
    table: &mut Vec<usize>,
    keep: usize,
) -> Result<usize, PlanError> {
    let Survey {
        low, high, total, ..
    } = *survey;
    if low > high {
        return Ok(0);
    }
    // A live sum is part of the total: when the total fits, no live sum can
    // overflow and the fast passes need no checks. Otherwise the checked
    // sweep finds the node where one does, if any, and names the tensor.
    let Some(_) = total else {
        return checked_sweep(tensors);
    };
    let span = high - low;
    // Up to four nodes a tensor, the table takes no more memory than the
    // two sorted arrays would, and no sort.
    if span < 4 * tensors.len() + 1024 {
        dense_peak(tensors, low, span, table, keep)
    } else {
        sorted_peak(tensors)
    }
}

/// The peak by one table of byte changes over the node range `low..=low +
/// span`, when the range is at most about four times the tensor count (as a
/// compiler's dense node indices are), made in `table` with room for `keep`
/// words. The total size fits in `usize`.
fn dense_peak(
    tensors: &[TensorLifetime],
    low: usize,
    span: usize,
    table: &mut Vec<usize>,
    keep: usize,
) -> Result<usize, PlanError> {
    // Bytes entering at each node less those that left after the one
    // before. Every prefix sum is a live sum, between 0 and the total, so
    // wrapping arithmetic gives it exactly whatever order the terms come in.
    let len = span + 2;
    table.clear();
    if table.capacity() < len.max(keep) {
        *table = fallible::with_capacity(len.max(keep))?;
        // Fresh: huge pages make its first touch several times cheaper.
        advise_huge_pages(table.spare_capacity_mut());
    }
    table.resize(len, 0);
    let change = &mut table[..];
    for (k, t) in tensors.iter().enumerate() {
        // Where node indices come in no order, nearly every change misses
        // the cache: the lines of a tensor a few ahead are asked for early.
        if let Some(u) = tensors.get(k + PREFETCH_AHEAD).filter(|u| u.size > 0) {
            prefetch(&change[u.first_use - low]);
            prefetch(&change[u.last_use - low + 1]);
        }
        if t.size == 0 {
            continue;
        }
        let (first, after) = (t.first_use - low, t.last_use - low + 1);
        change[first] = change[first].wrapping_add(t.size);
        change[after] = change[after].wrapping_sub(t.size);
    }
    let (mut live, mut peak) = (0usize, 0usize);
    for &c in change.iter() {
        live = live.wrapping_add(c);
        peak = peak.max(live);
    }
    Ok(peak)
}

/// The peak by a merge of the first uses and the last uses, each sorted by
/// node, for sparse node indices. A tensor enters at its first use and
/// leaves after its last, so at one node the entries go first: lifetimes
/// are inclusive. The total size fits in `usize`.
fn sorted_peak(tensors: &[TensorLifetime]) -> Result<usize, PlanError> {
    let live = || tensors.iter().filter(|t| t.size > 0);
    let mut enters: Vec<(usize, usize)> =
        fallible::collect(tensors.len(), live().map(|t| (t.first_use, t.size)))?;
    let mut leaves: Vec<(usize, usize)> =
        fallible::collect(tensors.len(), live().map(|t| (t.last_use, t.size)))?;
    enters.sort_unstable_by_key(|&(node, _)| node);
    leaves.sort_unstable_by_key(|&(node, _)| node);
    let (mut bytes, mut peak, mut next_leave) = (0usize, 0usize, 0);
    for &(node, size) in &enters {
        // Those that left before `node` entered before it too.
        while let Some(&(_, left)) = leaves.get(next_leave).filter(|l| l.0 < node) {
            bytes -= left;
            next_leave += 1;
        }
        bytes += size;
        peak = peak.max(bytes);
    }
    Ok(peak)
}

/// The peak by a sweep over all endpoints with every sum checked, naming the
/// tensor whose bytes pass `usize::MAX` where that happens.
fn checked_sweep(tensors: &[TensorLifetime]) -> Result<usize, PlanError> {
    let mut events: Vec<(usize, bool, usize)> = fallible::with_capacity(2 * tensors.len())?;
    for (i, t) in tensors.iter().enumerate().filter(|(_, t)| t.size > 0) {
        events.push((t.first_use, false, i));
        events.push((t.last_use, true, i));
    }
    events.sort_unstable();
    let (mut live, mut peak) = (0usize, 0usize);
    for (_, leaves, i) in events {
        if leaves {
            live -= tensors[i].size;
        } else {
            live = live
                .checked_add(tensors[i].size)
                .ok_or(PlanError::Overflow { tensor: i })?;
            peak = peak.max(live);
        }
    }
    Ok(peak)
}

/// The largest total size of tensors live at one node: the lower bound every
/// sound arena meets. Panics on an invalid lifetime.
///
/// # Panics
///
/// If a tensor has `first_use > last_use`, or a live sum overflows `usize`.
///
/// # Example
///
/// ```
/// use aether_planner::{peak_live_bytes, TensorLifetime};
/// // Lifetimes are inclusive: both tensors are live at node 1.
/// let shared = [TensorLifetime::new(100, 0, 1), TensorLifetime::new(80, 1, 2)];
/// assert_eq!(peak_live_bytes(&shared), 180);
/// let consecutive = [TensorLifetime::new(100, 0, 0), TensorLifetime::new(80, 1, 1)];
/// assert_eq!(peak_live_bytes(&consecutive), 100);
/// ```
pub fn peak_live_bytes(tensors: &[TensorLifetime]) -> usize {
    try_peak_live_bytes(tensors).unwrap_or_else(|error| panic!("peak_live_bytes: {error}"))
}

impl PlanProblem<'_> {
    /// The most bytes occupied at one node: each tensor its size outside its
    /// gaps, its window's width (`hi - lo`) in a gap with a window, nothing
    /// in a gap without one; the members of a reuse group (a tensor, those
    /// that reuse it, and so on) share memory and count once, as the largest
    /// member active at that node. No sound plan of the problem has a
    /// smaller arena. Alignments, fixed offsets, hints and the capacity play
    /// no part; sizes are taken as given (to count them rounded up to a
    /// plan's alignment, round them in `tensors`). With no gap and no reuse
    /// this is [`try_peak_live_bytes`].
    ///
    /// Errors: [`PlanError::InvalidLifetime`]; [`PlanError::InvalidGap`] and
    /// [`PlanError::InvalidReuse`] as [`try_plan_problem`](crate::try_plan_problem)
    /// reports them (a gap outside its tensor's lifetime or overlapping
    /// another, a window past the size; a reuse out of range, of itself, of
    /// a smaller tensor, a second reuse by one tensor, a cycle);
    /// [`PlanError::Overflow`] when the peak passes `usize::MAX`;
    /// [`PlanError::OutOfMemory`].
    ///
    /// Complexity: `O((n + g) log(n + g))` time and `O(n + g)` memory for
    /// `n` tensors and `g` gaps, independent of the node indices and sizes.
    ///
    /// ```
    /// use aether_planner::{LifetimeGap, PlanProblem, Reuse, TensorLifetime};
    /// // b works in place over a; c is live beside both, except at node 1.
    /// let tensors = [
    ///     TensorLifetime::new(8, 0, 1),
    ///     TensorLifetime::new(8, 1, 2),
    ///     TensorLifetime::new(4, 0, 2),
    /// ];
    /// let reuses = [Reuse::new(1, 0)];
    /// let gaps = [LifetimeGap::new(2, 1, 1)];
    /// let problem = PlanProblem::new(&tensors).with_reuses(&reuses).with_gaps(&gaps);
    /// assert_eq!(problem.try_peak_live_bytes(), Ok(12));
    /// ```
    pub fn try_peak_live_bytes(&self) -> Result<usize, PlanError> {
        let tensors = self.tensors;
        check_lifetimes(tensors)?;
        let groups = reuse_groups(tensors, self.reuses)?;
        let gaps = sorted_gaps(tensors, self.gaps)?;
        let pieces = pieces(tensors, self.gaps, &gaps, &groups)?;
        group_peak(pieces)
    }
}

/// Each tensor's reuse group: the tensor at the head of its chain.
fn reuse_groups(tensors: &[TensorLifetime], reuses: &[Reuse]) -> Result<Vec<usize>, PlanError> {
    let n = tensors.len();
    const NONE: usize = usize::MAX;
    // The tensor each one reuses, and the pair that says so.
    let mut parent = fallible::filled(n, (NONE, 0usize))?;
    for (pair, r) in reuses.iter().enumerate() {
        let bad = PlanError::InvalidReuse {
            pair,
            tensor: r.tensor,
            reused: r.reused,
        };
        if r.tensor >= n || r.reused >= n || r.tensor == r.reused {
            return Err(bad);
        }
        if parent[r.tensor].0 != NONE || tensors[r.tensor].size > tensors[r.reused].size {
            return Err(bad);
        }
        parent[r.tensor] = (r.reused, pair);
    }
    // Heads by walking each chain once: a walk stops at a tensor whose head
    // is known; meeting its own start again (`seen == t`) is a cycle.
    let mut head = fallible::filled(n, NONE)?;
    let mut seen = fallible::filled(n, NONE)?;
    let mut path = fallible::with_capacity(n)?;
    for t in 0..n {
        path.clear();
        let mut x = t;
        while head[x] == NONE {
            if seen[x] == t {
                let (reused, pair) = parent[x];
                return Err(PlanError::InvalidReuse {
                    pair,
                    tensor: x,
                    reused,
                });
            }
            seen[x] = t;
            path.push(x);
            match parent[x].0 {
                NONE => {
                    head[x] = x;
                    break;
                }
                up => x = up,
            }
        }
        let h = head[x];
        for &y in &path {
            head[y] = h;
        }
    }
    Ok(head)
}

/// The gaps' indices sorted by tensor and first node, each gap checked to
/// lie in its tensor's lifetime with its window inside its size, and apart
/// from the tensor's other gaps.
fn sorted_gaps(tensors: &[TensorLifetime], gaps: &[LifetimeGap]) -> Result<Vec<usize>, PlanError> {
    for (g, gap) in gaps.iter().enumerate() {
        let bad = PlanError::InvalidGap {
            gap: g,
            tensor: gap.tensor,
        };
        let t = tensors.get(gap.tensor).ok_or(bad)?;
        let inside = t.first_use <= gap.first && gap.first <= gap.last && gap.last <= t.last_use;
        let window = gap.window.map_or(true, |(lo, hi)| lo <= hi && hi <= t.size);
        if !inside || !window {
            return Err(bad);
        }
    }
    let mut order = fallible::collect(gaps.len(), 0..gaps.len())?;
    order.sort_unstable_by_key(|&g| (gaps[g].tensor, gaps[g].first));
    for w in order.windows(2) {
        let (a, b) = (&gaps[w[0]], &gaps[w[1]]);
        if a.tensor == b.tensor && b.first <= a.last {
            let g = w[0].max(w[1]);
            return Err(PlanError::InvalidGap {
                gap: g,
                tensor: gaps[g].tensor,
            });
        }
    }
    Ok(order)
}

/// A span of nodes `[start, end)` (one past the last node, so `u128`) in
/// which a tensor of group `group` occupies `bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Piece {
    group: usize,
    start: u128,
    end: u128,
    bytes: usize,
}

/// Every tensor's pieces with bytes: its size between its gaps, its window
/// in each gap that has one. Sorted by group, then start.
fn pieces(
    tensors: &[TensorLifetime],
    gaps: &[LifetimeGap],
    order: &[usize],
    groups: &[usize],
) -> Result<Vec<Piece>, PlanError> {
    let mut out = fallible::with_capacity(tensors.len() + 2 * gaps.len())?;
    let mut next = order.iter().map(|&g| &gaps[g]).peekable();
    for (i, t) in tensors.iter().enumerate() {
        let mut push = |start: usize, last: usize, bytes: usize| {
            if bytes > 0 {
                out.push(Piece {
                    group: groups[i],
                    start: start as u128,
                    end: last as u128 + 1,
                    bytes,
                });
            }
        };
        // The first node not yet covered.
        let mut at = t.first_use as u128;
        while let Some(g) = next.next_if(|g| g.tensor == i) {
            if (g.first as u128) > at {
                push(at as usize, g.first - 1, t.size);
            }
            if let Some((lo, hi)) = g.window {
                push(g.first, g.last, hi - lo);
            }
            at = g.last as u128 + 1;
        }
        if at <= t.last_use as u128 {
            push(at as usize, t.last_use, t.size);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// The peak of the sum over groups of each group's largest active piece:
/// each group's level as a step function (a sweep with a heap of its active
/// pieces), then one sweep over every group's steps.
fn group_peak(pieces: Vec<Piece>) -> Result<usize, PlanError> {
    // (node, change of the level, group); at most two per piece.
    let mut steps: Vec<(u128, i128, usize)> = fallible::with_capacity(2 * pieces.len())?;
    let mut active: BinaryHeap<(usize, u128)> =
        BinaryHeap::from(fallible::with_capacity(pieces.len())?);
    let mut ends: Vec<u128> = fallible::with_capacity(pieces.len())?;
    for group in pieces.chunk_by(|a, b| a.group == b.group) {
        active.clear();
        ends.clear();
        ends.extend(group.iter().map(|p| p.end));
        ends.sort_unstable();
        let (mut next_start, mut next_end, mut level) = (0, 0, 0usize);
        while next_start < group.len() || next_end < ends.len() {
            // The next node where the group's level may change.
            let now = match (group.get(next_start), ends.get(next_end)) {
                (Some(p), Some(&e)) => p.start.min(e),
                (Some(p), None) => p.start,
                (None, Some(&e)) => e,
                (None, None) => break,
            };
            while let Some(p) = group.get(next_start).filter(|p| p.start == now) {
                active.push((p.bytes, p.end));
                next_start += 1;
            }
            while ends.get(next_end).is_some_and(|&e| e <= now) {
                next_end += 1;
            }
            // Pieces that ended stay in the heap until they reach its top;
            // below the top they change nothing.
            while active.peek().is_some_and(|&(_, end)| end <= now) {
                active.pop();
            }
            let new = active.peek().map_or(0, |&(bytes, _)| bytes);
            if new != level {
                steps.push((now, new as i128 - level as i128, group[0].group));
                level = new;
            }
        }
    }
    steps.sort_unstable_by_key(|&(node, _, _)| node);
    let (mut live, mut peak) = (0i128, 0i128);
    for at_node in steps.chunk_by(|a, b| a.0 == b.0) {
        live += at_node.iter().map(|&(_, change, _)| change).sum::<i128>();
        if live > peak {
            peak = live;
            if peak > usize::MAX as i128 {
                let tensor = at_node
                    .iter()
                    .filter(|s| s.1 > 0)
                    .map(|s| s.2)
                    .next()
                    .unwrap_or(at_node[0].2);
                return Err(PlanError::Overflow { tensor });
            }
        }
    }
    Ok(peak as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;

    /// The peak by definition: every node of a small range, every tensor.
    fn naive_peak(tensors: &[TensorLifetime]) -> Option<usize> {
        let end = tensors.iter().map(|t| t.last_use).max().unwrap_or(0);
        (0..=end)
            .map(|node| {
                tensors
                    .iter()
                    .filter(|t| t.first_use <= node && node <= t.last_use)
                    .try_fold(0usize, |sum, t| sum.checked_add(t.size))
            })
            .try_fold(0, |peak, live| live.map(|l| l.max(peak)))
    }

    /// The constrained peak by definition, node by node: the bytes each
    /// tensor occupies there (its gap's window, or nothing, or its size),
    /// and for each group (found by following the reuses) its largest.
    fn naive_problem_peak(
        tensors: &[TensorLifetime],
        gaps: &[LifetimeGap],
        reuses: &[Reuse],
    ) -> u128 {
        let head = |mut t: usize| {
            while let Some(r) = reuses.iter().find(|r| r.tensor == t) {
                t = r.reused;
            }
            t
        };
        let end = tensors.iter().map(|t| t.last_use).max().unwrap_or(0);
        (0..=end)
            .map(|node| {
                let mut largest = vec![0u128; tensors.len()];
                for (i, t) in tensors.iter().enumerate() {
                    if node < t.first_use || node > t.last_use {
                        continue;
                    }
                    let gap = gaps
                        .iter()
                        .find(|g| g.tensor == i && g.first <= node && node <= g.last);
                    let bytes = match gap {
                        Some(g) => g.window.map_or(0, |(lo, hi)| hi - lo),
                        None => t.size,
                    };
                    let h = head(i);
                    largest[h] = largest[h].max(bytes as u128);
                }
                largest.iter().sum::<u128>()
            })
            .max()
            .unwrap_or(0)
    }

    /// Random tensors over nodes `base..base + 40`, sizes from `sizes`.
    fn tensors(rng: &mut XorShift, n: usize, base: usize, sizes: &[usize]) -> Vec<TensorLifetime> {
        (0..n)
            .map(|_| {
                let first = base + rng.below(40);
                let size = sizes[rng.below(sizes.len())];
                TensorLifetime::new(size, first, first + rng.below(12))
            })
            .collect()
    }

    #[test]
    fn the_peak_is_the_most_bytes_live_at_one_node() {
        let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
        for round in 0..300 {
            let n = rng.below(60);
            // Dense indices (the table), far ones (still the table, offset)
            // and a sparse outlier (the sweep).
            let base = [0, 1_000, 0][round % 3];
            let mut ts = tensors(&mut rng, n, base, &[0, 1, 7, 64, 4096]);
            if round % 3 == 2 && n > 0 {
                ts.push(TensorLifetime::new(5, 100_000, 100_001));
            }
            let shifted: Vec<TensorLifetime> = ts
                .iter()
                .map(|t| TensorLifetime::new(t.size, t.first_use - base, t.last_use - base))
                .collect();
            let expected = if round % 3 == 2 && n > 0 {
                naive_peak(&shifted[..n]).unwrap().max(5)
            } else {
                naive_peak(&shifted).unwrap()
            };
            assert_eq!(try_peak_live_bytes(&ts), Ok(expected), "{ts:?}");
        }
    }

    /// Many tensors on a few dozen nodes, as they are (the table) and
    /// spread far apart by a map that keeps the nodes' order (the merge of
    /// sorted uses): the peak is the same, the definition's.
    #[test]
    fn the_table_and_the_merge_agree_with_the_definition_on_larger_tables() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..8 {
            let n = 500 + rng.below(1500);
            let ts = tensors(&mut rng, n, 0, &[0, 1, 3, 256, 1 << 20]);
            let spread: Vec<TensorLifetime> = ts
                .iter()
                .map(|t| {
                    TensorLifetime::new(t.size, t.first_use * 1_000_003, t.last_use * 1_000_003)
                })
                .collect();
            let expected = naive_peak(&ts).unwrap();
            assert_eq!(try_peak_live_bytes(&ts), Ok(expected));
            assert_eq!(try_peak_live_bytes(&spread), Ok(expected));
        }
    }

    /// The survey counts what it says, and a table lent by the caller,
    /// whatever it holds and however large, gives the peak of the
    /// definition, and comes back with room for what the caller keeps.
    #[test]
    fn a_lent_table_gives_the_peak_of_the_definition() {
        let mut rng = XorShift(0x1234_5678_9abc_def1);
        for round in 0..200 {
            let n = rng.below(80);
            let base = [0, 1_000][round % 2];
            let mut ts = tensors(&mut rng, n, base, &[0, 1, 7, 64, 4096]);
            if round % 4 == 1 {
                // In time order, each length kept.
                let mut firsts: Vec<usize> = ts.iter().map(|t| t.first_use).collect();
                firsts.sort_unstable();
                for (t, first) in ts.iter_mut().zip(firsts) {
                    let length = t.last_use - t.first_use;
                    (t.first_use, t.last_use) = (first, first + length);
                }
            }
            let survey = Survey::of(&ts).unwrap();
            let planned: Vec<&TensorLifetime> = ts.iter().filter(|t| t.size > 0).collect();
            assert_eq!(survey.planned, planned.len());
            if !planned.is_empty() {
                let low = planned.iter().map(|t| t.first_use).min().unwrap();
                let high = planned.iter().map(|t| t.last_use).max().unwrap();
                assert_eq!((survey.low, survey.high), (low, high), "{ts:?}");
            }
            assert_eq!(survey.total, Some(ts.iter().map(|t| t.size).sum()));
            let in_time_order = planned.windows(2).all(|w| w[0].first_use <= w[1].first_use);
            assert_eq!(survey.in_time_order, in_time_order, "{ts:?}");
            let shifted: Vec<TensorLifetime> = ts
                .iter()
                .map(|t| TensorLifetime::new(t.size, t.first_use - base, t.last_use - base))
                .collect();
            let expected = naive_peak(&shifted).unwrap();
            for (held, keep) in [(0, 0), (3, 0), (500, 0), (0, 100), (7, 1000)] {
                let mut table = vec![usize::MAX / 3 + round; held];
                assert_eq!(
                    peak_in(&ts, &survey, &mut table, keep),
                    Ok(expected),
                    "{ts:?}, {held} held, {keep} kept"
                );
                if !planned.is_empty() {
                    assert!(table.capacity() >= keep, "{ts:?}, {held} held, {keep} kept");
                }
            }
        }
    }

    #[test]
    fn a_peak_past_usize_max_names_a_tensor_in_either_pass() {
        // Dense or sparse indices, a total past the limit leaves the peak to
        // the checked sweep, which names the tensor whose bytes pass it.
        let dense = [
            TensorLifetime::new(usize::MAX, 0, 1),
            TensorLifetime::new(1, 1, 1),
        ];
        assert_eq!(
            try_peak_live_bytes(&dense),
            Err(PlanError::Overflow { tensor: 1 })
        );
        let sparse = [
            TensorLifetime::new(usize::MAX, 0, 1 << 40),
            TensorLifetime::new(1, 1 << 40, 1 << 40),
        ];
        assert_eq!(
            try_peak_live_bytes(&sparse),
            Err(PlanError::Overflow { tensor: 1 })
        );
        // Together at no node: no overflow, in either pass.
        let apart = [
            TensorLifetime::new(usize::MAX, 0, 0),
            TensorLifetime::new(usize::MAX, 1, 1 << 40),
        ];
        assert_eq!(try_peak_live_bytes(&apart), Ok(usize::MAX));
        let backwards = [TensorLifetime {
            size: 1,
            first_use: 3,
            last_use: 2,
        }];
        assert!(matches!(
            try_peak_live_bytes(&backwards),
            Err(PlanError::InvalidLifetime { tensor: 0, .. })
        ));
    }

    #[test]
    fn the_problem_peak_counts_gaps_windows_and_reuse_groups_as_defined() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..400 {
            let n = 1 + rng.below(12);
            let ts = tensors(&mut rng, n, 0, &[0, 1, 8, 64, 4096]);
            // Disjoint gaps inside each lifetime, some with windows.
            let mut gaps = Vec::new();
            for (i, t) in ts.iter().enumerate() {
                let mut at = t.first_use;
                while at <= t.last_use && rng.below(3) > 0 {
                    let first = at + rng.below(3);
                    let last = first + rng.below(3);
                    if last > t.last_use {
                        break;
                    }
                    let window = (rng.below(2) == 0).then(|| {
                        let lo = rng.below(t.size + 1);
                        (lo, lo + rng.below(t.size - lo + 1))
                    });
                    gaps.push(LifetimeGap {
                        tensor: i,
                        first,
                        last,
                        window,
                    });
                    at = last + 2;
                }
            }
            // Reuses of a larger or equal earlier tensor: acyclic, each
            // tensor reusing at most once; several may reuse one.
            let mut reuses = Vec::new();
            for i in 1..n {
                let j = rng.below(i);
                if rng.below(3) == 0 && ts[i].size <= ts[j].size {
                    reuses.push(Reuse {
                        tensor: i,
                        reused: j,
                    });
                }
            }
            // The gaps in any order.
            gaps.reverse();
            let problem = PlanProblem {
                gaps: &gaps,
                reuses: &reuses,
                ..PlanProblem::new(&ts)
            };
            let expected = naive_problem_peak(&ts, &gaps, &reuses) as usize;
            assert_eq!(
                problem.try_peak_live_bytes(),
                Ok(expected),
                "{ts:?} {gaps:?} {reuses:?}"
            );
            assert_eq!(
                PlanProblem::new(&ts).try_peak_live_bytes(),
                try_peak_live_bytes(&ts)
            );
        }
    }

    #[test]
    fn the_problem_peak_takes_any_magnitude() {
        // Two halves of the address space live together over the whole
        // node range: the sum passes usize::MAX, unless one reuses the
        // other or pauses where the other lives.
        let half = usize::MAX / 2 + 1;
        let ts = [
            TensorLifetime::new(half, 0, usize::MAX),
            TensorLifetime::new(half, usize::MAX - 1, usize::MAX),
        ];
        assert_eq!(
            PlanProblem::new(&ts).try_peak_live_bytes(),
            Err(PlanError::Overflow { tensor: 1 })
        );
        let reuses = [Reuse {
            tensor: 1,
            reused: 0,
        }];
        let reused = PlanProblem {
            reuses: &reuses,
            ..PlanProblem::new(&ts)
        };
        assert_eq!(reused.try_peak_live_bytes(), Ok(half));
        let gaps = [LifetimeGap {
            tensor: 0,
            first: usize::MAX - 1,
            last: usize::MAX,
            window: Some((1, 3)),
        }];
        let paused = PlanProblem {
            gaps: &gaps,
            ..PlanProblem::new(&ts)
        };
        assert_eq!(paused.try_peak_live_bytes(), Ok(half + 2));
        // Nothing but zero bytes.
        let empty = [TensorLifetime::new(0, 0, usize::MAX)];
        assert_eq!(PlanProblem::new(&empty).try_peak_live_bytes(), Ok(0));
        assert_eq!(PlanProblem::new(&[]).try_peak_live_bytes(), Ok(0));
    }

    #[test]
    fn the_problem_peak_refuses_what_the_planner_refuses() {
        let ts = [
            TensorLifetime::new(8, 0, 3),
            TensorLifetime::new(8, 2, 5),
            TensorLifetime::new(4, 4, 6),
        ];
        let gap = |tensor, first, last, window| LifetimeGap {
            tensor,
            first,
            last,
            window,
        };
        for (gaps, bad) in [
            (vec![gap(3, 0, 0, None)], 0),
            (vec![gap(0, 3, 4, None)], 0),
            (vec![gap(0, 2, 1, None)], 0),
            (vec![gap(0, 1, 1, Some((2, 9)))], 0),
            (vec![gap(0, 1, 1, Some((3, 2)))], 0),
            (
                vec![gap(1, 2, 3, None), gap(0, 1, 1, None), gap(1, 3, 4, None)],
                2,
            ),
        ] {
            let problem = PlanProblem {
                gaps: &gaps,
                ..PlanProblem::new(&ts)
            };
            assert_eq!(
                problem.try_peak_live_bytes(),
                Err(PlanError::InvalidGap {
                    gap: bad,
                    tensor: gaps[bad].tensor
                }),
                "{gaps:?}"
            );
        }
        let reuse = |tensor, reused| Reuse { tensor, reused };
        for (reuses, bad) in [
            (vec![reuse(0, 3)], 0),
            (vec![reuse(1, 1)], 0),
            (vec![reuse(1, 2)], 0),
            (vec![reuse(2, 0), reuse(2, 1)], 1),
            (vec![reuse(0, 1), reuse(1, 0)], 0),
        ] {
            let problem = PlanProblem {
                reuses: &reuses,
                ..PlanProblem::new(&ts)
            };
            let got = problem.try_peak_live_bytes();
            let expected = reuses[bad];
            match got {
                Err(PlanError::InvalidReuse { tensor, reused, .. })
                    if bad == 0 && reuses.len() == 2 =>
                {
                    // A cycle: either pair of it may be named.
                    assert!(reuses.contains(&Reuse { tensor, reused }), "{got:?}");
                }
                _ => assert_eq!(
                    got,
                    Err(PlanError::InvalidReuse {
                        pair: bad,
                        tensor: expected.tensor,
                        reused: expected.reused
                    }),
                    "{reuses:?}"
                ),
            }
        }
    }
}
