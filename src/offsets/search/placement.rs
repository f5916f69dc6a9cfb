//! The search's moves: placing a tensor at its floor and taking it back,
//! re-ranking a component by the current preorder, and recording a plan.

use super::overlaps::Overlaps;
use super::{Frame, Search, UNPLACED};
use crate::error::PlanError;
use crate::sys::fallible;

impl Search {
    /// Puts `p` at its floor and raises its unplaced conflicts' floors and
    /// its sections' tops (only the tops are logged: [`Search::unplace`]
    /// recomputes the floors from them). Returns whether `p` was
    /// the last unplaced tensor across one of the section boundaries it
    /// spans, which cuts its component. Errors: [`PlanError::OutOfMemory`]
    /// if the tops' log cannot grow (the partial plan is then unusable).
    pub(super) fn place(&mut self, p: usize) -> Result<bool, PlanError> {
        let offset = self.floor[p];
        let end = offset + self.sizes[p];
        self.offset[p] = offset;
        self.placed_count += 1;
        self.arena = self.arena.max(end);
        for &q in &self.lifted_list {
            self.lifted[q] = false;
        }
        self.lifted_list.clear();
        let Search {
            overlaps,
            sections,
            by_start,
            starts_at,
            unplaced_neighbours,
            offset: offsets,
            floor,
            lifted,
            lifted_list,
            ..
        } = self;
        for_each_conflict(overlaps, sections, by_start, starts_at, p, |q| {
            unplaced_neighbours[q] -= 1;
            if offsets[q] == UNPLACED && floor[q] < end {
                floor[q] = end;
                lifted[q] = true;
                // Each tensor once per placement: within the capacity of
                // `n` reserved up front, so this never allocates.
                lifted_list.push(q);
            }
        });
        let (lo, hi) = self.sections[p];
        self.tops.raise((lo, hi), end)?;
        for s in lo..hi {
            self.section_unplaced[s] -= self.sizes[p];
        }
        let mut cut = false;
        for count in &mut self.spanning[lo..hi - 1] {
            *count -= 1;
            cut |= *count == 0;
        }
        Ok(cut)
    }

    /// Rebuilds the candidates `frame` gave up, once the partial plan is
    /// again as when they were made. Errors: [`PlanError::OutOfMemory`].
    pub(super) fn restore_candidates(
        &mut self,
        frame: &mut Frame,
        cap: usize,
    ) -> Result<(), PlanError> {
        let (scan, range, after, monotone) = (frame.scan, frame.range, frame.after, frame.monotone);
        frame.candidates = self
            .candidates(scan, range, after, cap, monotone)?
            .map_or(Vec::new(), |(candidates, _)| candidates);
        self.stack_candidates += frame.candidates.len();
        frame.dropped = false;
        Ok(())
    }

    /// Undoes a frame: its placement, then its re-ranking.
    pub(super) fn pop(&mut self, frame: Frame) {
        self.stack_keys -= frame.keys.len();
        self.stack_candidates -= frame.candidates.len();
        if let Some(q) = frame.placed {
            self.unplace(q, frame.tops_log_len, frame.arena_before);
        }
        for (q, old) in self.rank_log.drain(frame.rank_log_len..).rev() {
            self.rank[q] = old;
        }
    }

    /// The preorder key of `p` (compared decreasing): lifetime length, area
    /// and `total`, the unplaced bytes of `p`'s busiest section now, in the
    /// order of the current preorder.
    pub(super) fn preorder_key(&self, p: usize, total: usize) -> (u128, u128, u128) {
        let total = total as u128;
        let (length, area) = (self.length[p], self.area[p]);
        match self.preorder {
            0 => (length, area, total),
            1 => (total, area, length),
            _ => (total, length, area),
        }
    }

    /// Ranks the unplaced tensors of the sections `range` by the current
    /// preorder with today's totals (ties by input order), reusing the ranks
    /// they hold so that ranks stay distinct; logs the old ranks. Errors:
    /// [`PlanError::OutOfMemory`] (the ranks are then unusable).
    pub(super) fn rerank(&mut self, (lo, hi): (usize, usize)) -> Result<(), PlanError> {
        let starting = &self.by_start[self.starts_at[lo]..self.starts_at[hi]];
        let mut members: Vec<usize> = fallible::collect(
            starting.len(),
            starting
                .iter()
                .copied()
                .filter(|&q| self.offset[q] == UNPLACED),
        )?;
        let mut ranks: Vec<usize> =
            fallible::collect(members.len(), members.iter().map(|&q| self.rank[q]))?;
        ranks.sort_unstable();
        // Each key once; the totals from a table of range maxima when the
        // component is wide enough that long tensors would cost a pass each.
        let busiest = Maxima::new(&self.section_unplaced[lo..hi], hi - lo >= WIDE)?;
        let mut keyed: Vec<((u128, u128, u128), usize)> = fallible::collect(
            members.len(),
            members.iter().map(|&q| {
                let (q_lo, q_hi) = self.sections[q];
                let total = busiest.max(q_lo - lo, q_hi - lo);
                let (a, b, c) = self.preorder_key(q, total);
                ((!a, !b, !c), q)
            }),
        )?;
        keyed.sort_unstable();
        members.clear();
        members.extend(keyed.iter().map(|&(_, q)| q));
        for (&q, &r) in members.iter().zip(&ranks) {
            if self.rank[q] != r {
                fallible::push(&mut self.rank_log, (q, self.rank[q]))?;
                self.rank[q] = r;
            }
        }
        Ok(())
    }

    /// Takes `p` back: the tops to their log length `tops_len`, the arena to
    /// `arena`. The unplaced conflicts that `p` may have raised (those resting
    /// at its top) get the highest top over their sections again, which is
    /// their floor without `p`.
    pub(super) fn unplace(&mut self, p: usize, tops_len: usize, arena: usize) {
        self.tops.undo(tops_len);
        let end = self.floor[p] + self.sizes[p];
        let Search {
            overlaps,
            sections,
            by_start,
            starts_at,
            unplaced_neighbours,
            offset: offsets,
            floor,
            tops,
            ..
        } = self;
        for_each_conflict(overlaps, sections, by_start, starts_at, p, |q| {
            unplaced_neighbours[q] += 1;
            if offsets[q] == UNPLACED && floor[q] == end {
                floor[q] = tops.highest(sections[q]);
            }
        });
        let (lo, hi) = self.sections[p];
        for bytes in &mut self.section_unplaced[lo..hi] {
            *bytes += self.sizes[p];
        }
        for count in &mut self.spanning[lo..hi - 1] {
            *count += 1;
        }
        self.offset[p] = UNPLACED;
        self.placed_count -= 1;
        self.arena = arena;
    }

    /// Back to the empty partial plan, as popping every frame would leave it
    /// (ranks aside, which each decision sets anew).
    pub(super) fn reset(&mut self) {
        self.offset.fill(UNPLACED);
        self.floor.fill(0);
        self.tops.clear();
        let (unplaced, spanning, neighbours) = &self.empty;
        self.section_unplaced.copy_from_slice(unplaced);
        self.spanning.copy_from_slice(spanning);
        self.unplaced_neighbours.copy_from_slice(neighbours);
        for &q in &self.lifted_list {
            self.lifted[q] = false;
        }
        self.lifted_list.clear();
        self.rank_log.clear();
        self.placed_count = 0;
        self.arena = 0;
        self.stack_keys = 0;
        self.stack_candidates = 0;
    }

    /// Keeps the complete plan as the new incumbent.
    pub(super) fn record(&mut self) {
        self.best_arena = self.arena;
        // The starting plan's offsets have the input's length: no allocation.
        self.best_offsets.fill(0);
        for (p, &i) in self.items.iter().enumerate() {
            self.best_offsets[i] = self.offset[p];
        }
    }
}

/// Calls `f` with every tensor whose lifetime meets `p`'s: those live in
/// `p`'s first section (but `p`), then those starting later inside its
/// range (`by_start` and `starts_at` as in [`Search`]).
fn for_each_conflict(
    overlaps: &Overlaps,
    sections: &[(usize, usize)],
    by_start: &[usize],
    starts_at: &[usize],
    p: usize,
    mut f: impl FnMut(usize),
) {
    let (lo, hi) = sections[p];
    overlaps.live_in(lo, |q| {
        if q != p {
            f(q);
        }
    });
    for &q in &by_start[starts_at[lo + 1]..starts_at[hi]] {
        f(q);
    }
}

/// Components of at least this many sections get a table of range maxima
/// for their re-ranking.
const WIDE: usize = 256;

/// Maxima of the ranges of a slice: the maxima of its blocks of
/// [`MAXIMA_BLOCK`] values, and a sparse table over those (level `j` holds
/// the maxima of the runs of `2^j` blocks); a range scans at most its two
/// partial blocks. Without the table, the slice itself is scanned per query.
/// The table holds `O((S / B) log(S / B))` words for `S` values, where one
/// over the values themselves would hold `O(S log S)`: at a million
/// sections that is hundreds of megabytes, written before the first
/// decision of a search.
struct Maxima<'a> {
    values: &'a [usize],
    /// Level 0: each whole block's maximum; level `j`: each run of `2^j`
    /// whole blocks'.
    levels: Vec<Vec<usize>>,
}

/// Values per block of [`Maxima`]: a partial block is scanned, so small
/// enough that two scans cost little, large enough that the table over
/// the blocks stays small.
const MAXIMA_BLOCK: usize = 64;

impl<'a> Maxima<'a> {
    /// Errors: [`PlanError::OutOfMemory`] if the table cannot be had.
    fn new(values: &'a [usize], table: bool) -> Result<Self, PlanError> {
        let mut levels: Vec<Vec<usize>> = Vec::new();
        let blocks = values.len() / MAXIMA_BLOCK;
        if table && blocks > 0 {
            fallible::reserve(&mut levels, blocks.ilog2() as usize + 1)?;
            let whole = values.chunks_exact(MAXIMA_BLOCK);
            levels.push(fallible::collect(
                blocks,
                whole.map(|block| block.iter().copied().max().unwrap_or(0)),
            )?);
            let mut width = 1;
            while 2 * width <= blocks {
                let below = levels.last().map_or(&[][..], |level| level.as_slice());
                let len = blocks + 1 - 2 * width;
                let level =
                    fallible::collect(len, (0..len).map(|i| below[i].max(below[i + width])))?;
                levels.push(level);
                width *= 2;
            }
        }
        Ok(Maxima { values, levels })
    }

    /// The maximum of `values[a..b]`, `a < b`.
    fn max(&self, a: usize, b: usize) -> usize {
        let scan = |a: usize, b: usize| self.values[a..b].iter().copied().max().unwrap_or(0);
        // The whole blocks inside the range, `first..last`.
        let (first, last) = (a.div_ceil(MAXIMA_BLOCK), b / MAXIMA_BLOCK);
        if self.levels.is_empty() || first >= last {
            return scan(a, b);
        }
        let j = (last - first).ilog2() as usize;
        let level = &self.levels[j];
        let blocks = level[first].max(level[last - (1 << j)]);
        let head = scan(a, first * MAXIMA_BLOCK);
        let tail = scan(last * MAXIMA_BLOCK, b);
        blocks.max(head).max(tail)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Degrees, Search, SearchBudget};
    use super::Maxima;
    use crate::offsets::{try_peak_live_bytes, try_plan_offsets};

    /// Frames that give their keys and candidates up and rebuild them when
    /// returned to search exactly as frames that keep them: the same arena,
    /// bound and node count on seeded random tables, with limits of one
    /// entry against the defaults.
    #[test]
    fn rebuilt_frames_search_as_kept_ones() {
        let mut rng = crate::rng::XorShift(0xBF58_476D_1CE4_E5B9);
        let mut searched = 0;
        for _ in 0..60 {
            let tensors = crate::rng::small_table(&mut rng);
            let peak = try_peak_live_bytes(&tensors).unwrap();
            let budget = SearchBudget {
                time: None,
                nodes: Some(3_000),
            };
            let run = |limits: Option<(usize, usize)>| {
                let start = try_plan_offsets(&tensors).unwrap();
                let degrees = Degrees::new(&tensors).unwrap();
                let mut search =
                    match Search::new(&tensors, degrees, start, peak, &budget, None).unwrap() {
                        Ok(search) => search,
                        Err(_) => unreachable!("no deadline"),
                    };
                if let Some(limits) = limits {
                    search.stack_limits = limits;
                }
                search.run(&mut |_| {}).unwrap();
                (
                    search.best_arena,
                    search.lower_bound,
                    search.nodes,
                    search.best_offsets,
                )
            };
            let kept = run(None);
            assert_eq!(run(Some((1, 1))), kept, "{tensors:?}");
            searched += usize::from(kept.2 > 0);
        }
        assert!(searched > 30, "{searched} searches");
    }

    /// The table's range maxima are those of a scan, on seeded random slices.
    #[test]
    fn table_maxima_match_a_scan() {
        let mut rng = crate::rng::XorShift(0x94D0_49BB_1331_11EB);
        for _ in 0..100 {
            let longest = if rng.below(4) == 0 { 1200 } else { 70 };
            let len = 1 + rng.below(longest);
            let values: Vec<usize> = (0..len).map(|_| rng.below(1000)).collect();
            let (table, scan) = (
                Maxima::new(&values, true).unwrap(),
                Maxima::new(&values, false).unwrap(),
            );
            // Every range of short slices; on long ones, ranges from a
            // sample of starts (every block boundary and its neighbours).
            let starts = (0..values.len())
                .filter(|&a| len <= 70 || a % 64 <= 1 || a % 64 == 63 || a % 97 == 5);
            for a in starts {
                for b in a + 1..=values.len() {
                    let expected = values[a..b].iter().copied().max().unwrap();
                    assert_eq!(table.max(a, b), expected, "{a}..{b} of {values:?}");
                    assert_eq!(scan.max(a, b), expected);
                }
            }
        }
    }
}
