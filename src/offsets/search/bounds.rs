//! The search's bounds: which tensors may be placed next, and whether a
//! placement keeps every section within the capacity (see the module
//! documentation of `search`, "Pruning").

use super::{Search, UNPLACED};
use crate::error::PlanError;
use crate::sys::fallible;

/// A tensor's section range and size, as the bounds read them together.
#[derive(Clone, Copy)]
pub(super) struct Span {
    pub(super) lo: u32,
    pub(super) hi: u32,
    pub(super) size: usize,
}

impl Search {
    /// The section range of the leftmost group of unplaced tensors that no
    /// section boundary separates, if any tensor is unplaced.
    pub(super) fn leftmost_component(&self) -> Option<(usize, usize)> {
        let lo = self.section_unplaced.iter().position(|&bytes| bytes > 0)?;
        let mut hi = lo + 1;
        while hi < self.spanning.len() && self.spanning[hi - 1] > 0 {
            hi += 1;
        }
        Some((lo, hi))
    }

    /// The candidates of the component with section range `component` that
    /// may follow `after` (offset, rank) in a canonical, undominated sequence,
    /// in (floor, rank) order, and the component's number of unplaced
    /// tensors. The section bounds are checked on every section of `scan`
    /// (which contains `component`); `monotone` adds the last offset
    /// (`after.0`) to them. `None` if a bound exceeds `cap` or a tensor
    /// behind `after` can never be placed. Errors:
    /// [`PlanError::OutOfMemory`].
    pub(super) fn candidates(
        &mut self,
        scan: (usize, usize),
        component: (usize, usize),
        after: (usize, usize),
        cap: usize,
        monotone: bool,
    ) -> Result<Option<(Vec<usize>, usize)>, PlanError> {
        let (scan_lo, scan_hi) = scan;
        let monotone_floor = if monotone { after.0 } else { 0 };
        // A cheap first pass of the section bounds: every unplaced tensor of
        // a section conflicts with the last tensor placed there, so it sits
        // above that tensor's top. Most placements fail here.
        if !self.fits_above_tops(scan, monotone_floor, cap) {
            return Ok(None);
        }
        let in_range = |(lo, _): (usize, usize), (a, b): (usize, usize)| a <= lo && lo < b;
        // Unplaced tensors of `scan` as packed (floor, rank) keys: sorting
        // plain integers is several times faster than sorting by lookups.
        let mut keys = std::mem::take(&mut self.scratch);
        keys.clear();
        let mut count = 0usize;
        let mut lowest_top = usize::MAX;
        // Only the tensors starting inside `scan` can belong to it.
        let starting = self.starts_at[scan_lo]..self.starts_at[scan_hi];
        // The scratch was given to a frame and is new: room for them all.
        fallible::reserve(&mut keys, starting.len())?;
        for &q in &self.by_start[starting] {
            if self.offset[q] != UNPLACED {
                continue;
            }
            // A tensor behind the canonical sequence whose floor can no
            // longer rise can never be placed: a dead end.
            if self.unplaced_neighbours[q] == 0 && (self.floor[q], self.rank[q]) < after {
                self.scratch = keys;
                return Ok(None);
            }
            keys.push(self.key(q));
            if in_range(self.sections[q], component) {
                count += 1;
                lowest_top = lowest_top.min(self.floor[q].saturating_add(self.sizes[q]));
            }
        }
        keys.sort_unstable();
        // Lowest floor per section: paint the sections of the unplaced
        // tensors in increasing floor, each section once, skipping painted
        // ones through a path-compressed "next unpainted section" forest.
        self.unpaint(scan);
        self.slack = usize::MAX;
        for &key in &keys {
            let q = tensor_of(key);
            if !self.paint(q, self.floor[q], monotone_floor, cap) {
                self.scratch = keys;
                return Ok(None);
            }
        }
        let candidates =
            fallible::collect_growing(keys.iter().map(|&key| tensor_of(key)).filter(|&q| {
                in_range(self.sections[q], component)
                    && (self.floor[q], self.rank[q]) > after
                    && self.floor[q] < lowest_top
            }));
        self.scratch = keys;
        Ok(Some((candidates?, count)))
    }

    /// Whether every section of `(lo, hi)` holds its unplaced bytes above the
    /// top of its last placed tensor (and `monotone_floor`) within `cap`.
    pub(super) fn fits_above_tops(
        &self,
        (lo, hi): (usize, usize),
        monotone_floor: usize,
        cap: usize,
    ) -> bool {
        (lo..hi).all(|s| {
            let bytes = self.section_unplaced[s];
            bytes == 0 || self.tops.at(s).max(monotone_floor).saturating_add(bytes) <= cap
        })
    }

    /// `q`'s (floor, rank) as one integer, ordered as the pair, with `q`
    /// itself in the low 32 bits ([`tensor_of`]), which the distinct ranks
    /// leave out of the order.
    pub(super) fn key(&self, q: usize) -> u128 {
        ((self.floor[q] as u128) << 64) | ((self.rank[q] as u128) << 32) | q as u128
    }

    /// The sorted (floor, rank) keys of the unplaced tensors of the sections
    /// `(lo, hi)`, as [`Search::candidates`] makes them. Errors:
    /// [`PlanError::OutOfMemory`].
    pub(super) fn sorted_keys(&self, (lo, hi): (usize, usize)) -> Result<Vec<u128>, PlanError> {
        let starting = &self.by_start[self.starts_at[lo]..self.starts_at[hi]];
        let mut keys: Vec<u128> = fallible::collect_growing(
            starting
                .iter()
                .filter(|&&q| self.offset[q] == UNPLACED)
                .map(|&q| self.key(q)),
        )?;
        keys.sort_unstable();
        Ok(keys)
    }

    /// The section bounds of the sequence continuing after `p` (just placed)
    /// in the component with section range `(lo, hi)`, checked with `keys`,
    /// the sorted keys of the frame `p` was chosen in. Only `p`'s conflicts
    /// changed floor since, all up to `p`'s top, so the floor order is
    /// known without sorting: the keys below that top, then the raised
    /// tensors, then the rest. When the bounds hold, leaves the new sorted
    /// keys of the component's unplaced tensors in `scratch` (the raised
    /// ones merged in by rank), as [`Search::candidates`] would make them,
    /// and returns the number of unplaced tensors of `component` (the part
    /// left to place) and their lowest `floor + size`. `None` if a bound
    /// fails or a tensor behind `p` can never be placed. Errors:
    /// [`PlanError::OutOfMemory`].
    pub(super) fn passes_bounds_after(
        &mut self,
        keys: &[u128],
        (lo, hi): (usize, usize),
        component: (usize, usize),
        p: usize,
        cap: usize,
    ) -> Result<Option<(usize, usize)>, PlanError> {
        let monotone_floor = self.offset[p];
        let top = monotone_floor + self.sizes[p];
        let mut count = 0usize;
        let mut lowest_top = usize::MAX;
        let mut dead_end = false;
        self.unpaint((lo, hi));
        // Every unplaced tensor rests at most at `ceiling`, so a section with
        // at most `cap - ceiling` unplaced bytes passes whatever its lowest
        // floor: the paint may stop once the other, tight ones are painted.
        let ceiling = keys.last().map_or(0, |&key| (key >> 64) as usize).max(top);
        self.slack = cap.saturating_sub(ceiling);
        self.tight = (lo..hi)
            .filter(|&s| self.section_unplaced[s] > self.slack)
            .count();
        // Room for every key in each list, so that no push below allocates:
        // `out` and `merged` each end with at most the frame's keys, and the
        // scratch is new whenever a frame took the last one.
        fallible::reserve(&mut self.raised, keys.len())?;
        fallible::reserve(&mut self.scratch, keys.len())?;
        fallible::reserve(&mut self.merged, keys.len())?;
        let mut raised = std::mem::take(&mut self.raised);
        raised.clear();
        // Unchanged keys below `top`, then (from `rest`) those at or above.
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let mut rest = usize::MAX;
        let mut passes = true;
        let mut flushed = false;
        let after_key = self.key(p);
        for &key in keys {
            let q = tensor_of(key);
            // The frame's keys are of the tensors unplaced when it was made:
            // since then only `p` was placed.
            let span = self.spans[q];
            let q_lo = span.lo as usize;
            if q == p || q_lo < lo || q_lo >= hi {
                continue;
            }
            let old_floor = (key >> 64) as usize;
            let lifted = self.lifted[q];
            let floor = if lifted { top } else { old_floor };
            // Raised tensors rest above `p`, the others keep their keys.
            dead_end |= !lifted && key < after_key && self.unplaced_neighbours[q] == 0;
            if component.0 <= q_lo && q_lo < component.1 {
                count += 1;
                lowest_top = lowest_top.min(floor.saturating_add(span.size));
            }
            if !flushed && old_floor >= top {
                flushed = true;
                rest = out.len();
                for &r in &raised {
                    if self.tight > 0 {
                        passes &= self.paint(r, top, monotone_floor, cap);
                    }
                }
            }
            if lifted {
                raised.push(q);
            } else {
                if self.tight > 0 {
                    passes &= self.paint(q, old_floor, monotone_floor, cap);
                }
                out.push(key);
            }
            if !passes || dead_end {
                break;
            }
        }
        passes &= !dead_end;
        if passes && !flushed {
            rest = out.len();
            for &r in &raised {
                if self.tight > 0 {
                    passes &= self.paint(r, top, monotone_floor, cap);
                }
            }
        }
        if passes {
            // The raised tensors all rest at `top` now: in rank order, they
            // merge into the unchanged keys from `top` up.
            let mut merged = std::mem::take(&mut self.merged);
            merged.clear();
            merged.extend(raised.iter().map(|&r| self.key(r)));
            merged.sort_unstable();
            let tail = merged.len();
            merged.extend_from_slice(&out[rest..]);
            out.truncate(rest);
            let (raised_keys, unchanged) = merged.split_at(tail);
            let (mut a, mut b) = (0, 0);
            while a < raised_keys.len() && b < unchanged.len() {
                if raised_keys[a] < unchanged[b] {
                    out.push(raised_keys[a]);
                    a += 1;
                } else {
                    out.push(unchanged[b]);
                    b += 1;
                }
            }
            out.extend_from_slice(&raised_keys[a..]);
            out.extend_from_slice(&unchanged[b..]);
            self.merged = merged;
        }
        self.scratch = out;
        self.raised = raised;
        Ok(passes.then_some((count, lowest_top)))
    }

    /// [`Search::candidates`] of the sequence continuing in `component`
    /// after `after` once [`Search::passes_bounds_after`] passed, left the
    /// sorted keys in `scratch` and found the component's `lowest_top`: the
    /// same candidates without sorting or painting again (its bounds are
    /// the ones just checked, and each section's highest top is at most its
    /// lowest floor). Errors: [`PlanError::OutOfMemory`].
    pub(super) fn continuing_candidates(
        &mut self,
        component: (usize, usize),
        after: (usize, usize),
        lowest_top: usize,
    ) -> Result<Vec<usize>, PlanError> {
        let keys = std::mem::take(&mut self.scratch);
        let in_range = |(lo, _): (usize, usize)| component.0 <= lo && lo < component.1;
        let candidates = fallible::collect_growing(
            keys.iter()
                .take_while(|&&key| ((key >> 64) as usize) < lowest_top)
                .map(|&key| tensor_of(key))
                .filter(|&q| {
                    in_range((self.spans[q].lo as usize, 0))
                        && (self.floor[q], self.rank[q]) > after
                }),
        );
        self.scratch = keys;
        candidates
    }

    /// Whether placing `p` at its floor would break the bound of the
    /// section that failed last, if it lies in the component with section
    /// range `(lo, hi)`: the check [`Search::passes_bounds_after`] makes
    /// there, from the tensors live in that one section. A cheap way to
    /// refuse the many placements that fail at one tight section.
    pub(super) fn fails_at_hot_section(
        &self,
        p: usize,
        (lo, hi): (usize, usize),
        cap: usize,
    ) -> bool {
        let Some(s) = self.hot.filter(|&s| lo <= s && s < hi) else {
            return false;
        };
        let (p_lo, p_hi) = self.sections[p];
        let offset = self.floor[p];
        let top = offset + self.sizes[p];
        let mut bytes = self.section_unplaced[s];
        if p_lo <= s && s < p_hi {
            bytes -= self.sizes[p];
        }
        if bytes == 0 {
            return false;
        }
        // The unplaced tensors live in `s` all belong to the component.
        let mut lowest = usize::MAX;
        self.overlaps.live_in(s, |q| {
            if q == p || self.offset[q] != UNPLACED {
                return;
            }
            let (q_lo, q_hi) = self.sections[q];
            let raised = q_lo < p_hi && p_lo < q_hi && self.floor[q] < top;
            lowest = lowest.min(if raised { top } else { self.floor[q] });
        });
        lowest.max(offset).saturating_add(bytes) > cap
    }

    /// Makes the sections `lo..hi` unpainted (and `hi` the sentinel).
    pub(super) fn unpaint(&mut self, (lo, hi): (usize, usize)) {
        for s in lo..=hi {
            self.next_unpainted[s] = s as u32;
        }
    }

    /// Paints the unpainted sections of `q` with `floor`, their lowest floor;
    /// false if one of them cannot hold its unplaced bytes above that floor
    /// (and `monotone_floor`) within `cap`. Counts down `tight` for each
    /// section painted with more than `slack` unplaced bytes.
    pub(super) fn paint(
        &mut self,
        q: usize,
        floor: usize,
        monotone_floor: usize,
        cap: usize,
    ) -> bool {
        let span = self.spans[q];
        let (lo, hi) = (span.lo as usize, span.hi as usize);
        let base = floor.max(monotone_floor);
        let mut s = self.find_unpainted(lo);
        while s < hi {
            let bytes = self.section_unplaced[s];
            if base.saturating_add(bytes) > cap {
                self.hot = Some(s);
                return false;
            }
            self.tight -= usize::from(bytes > self.slack);
            self.next_unpainted[s] = s as u32 + 1;
            s = self.find_unpainted(s + 1);
        }
        true
    }

    /// The first unpainted section at or after `s` (sections end at a
    /// sentinel that is never painted).
    pub(super) fn find_unpainted(&mut self, s: usize) -> usize {
        let mut root = s;
        while self.next_unpainted[root] as usize != root {
            root = self.next_unpainted[root] as usize;
        }
        let mut at = s;
        while self.next_unpainted[at] as usize != root {
            let next = self.next_unpainted[at] as usize;
            self.next_unpainted[at] = root as u32;
            at = next;
        }
        root
    }
}

/// The tensor of a key made by [`Search::key`].
pub(super) fn tensor_of(key: u128) -> usize {
    key as u32 as usize
}
