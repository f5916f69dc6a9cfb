//! The greedy's index of placed byte ranges: segment-tree nodes keep
//! coalesced unions of placed ranges, so a placement gathers a few short
//! unions instead of one range per conflicting tensor.

use super::{Clock, Stop, TensorLifetime};
use crate::error::PlanError;
use crate::sys::fallible;
use crate::sys::pages::prefetch;

/// The byte ranges of the tensors placed so far, indexed by lifetime so that
/// the ones meeting a given lifetime are found as a few coalesced unions
/// instead of one range per conflicting tensor.
///
/// Best fit depends only on the union of the conflicting byte ranges (its
/// gaps), so index nodes keep *unions*: disjoint, non-touching ranges sorted
/// by start. Tensors packed side by side, the common case, merge into one
/// range.
///
/// Lifetimes are replaced by the ranks of their endpoints among all distinct
/// endpoints (order is all that overlap depends on). Consecutive ranks form
/// *buckets* of `2^bucket_bits` ranks, the leaves of a segment tree with a
/// power-of-two number of leaves. A placed lifetime `P` keeps
///
/// - a raw entry (its ranks and byte range) in the buckets of its first and
///   last rank (its *end buckets*);
/// - its range in `within[v]` at every node `v` on the path from its first
///   bucket to the root;
/// - its range at each canonical node `v` of the buckets it covers whole: in
///   `stored[v]` if `v` is lower than `cover_height`, otherwise, in effect,
///   in `cover[c]` of every node `c` at `cover_height` below `v`. Above that
///   height the range waits in `lazy[v]`, and a query pushes the waiting
///   ranges down the path to the one cover it reads (both children of each
///   node on the way receive them): a range reaches a cover only once a
///   query reads it, together with those pushed with it, coalesced.
///
/// A query lifetime `Q` meets `P` iff `P` starts in `Q` or `P` is live where
/// `Q` starts, and each case is found:
///
/// - `P` has an endpoint in one of `Q`'s end buckets: in that bucket's raw
///   entries, which are tested against `Q` exactly;
/// - `P` starts in a bucket `Q` covers whole: that bucket lies below a
///   canonical node `q` of the buckets `Q` covers whole, and `q` is on the
///   bucket's path to the root, so `P` is in `within[q]`;
/// - otherwise `P` starts before `Q`'s first bucket and ends after it, so it
///   covers that bucket whole, and a canonical node of `P` is on the path
///   from that bucket to the root: below `cover_height` it is `stored`
///   there, otherwise `P` is in the `cover` of the path's node at that
///   height.
///
/// A lifetime met is so found once or twice (in raw entries and a union),
/// not once per endpoint inside `Q` and once per end of `Q`: the unions
/// read are few and overlap little.
///
/// With single-rank buckets every bucket a query meets is whole, and no raw
/// entries are kept.
///
/// Every range gathered belongs to a lifetime meeting `Q`, so the union
/// gathered is exactly the union of the conflicting ranges, but for gaps
/// no tensor still to be placed fits (see [`Union::add`] and below). Every
/// query is known in advance, so a union no later query reads is neither
/// added to nor kept.
///
/// A few earlier queries' covered prefixes are kept ([`Fact`]): a query
/// whose lifetime contains one of theirs conflicts with a superset of
/// their conflicts, so it gathers one range for the prefix and only the
/// ranges ending past it (found by binary search in each union). Where
/// long lifetimes nest (a training step's activations), the ranges below
/// the top of the conflicts are spread thinly over many unions that only
/// together cover them, and each such query would otherwise gather them
/// all to find no gap.
pub(crate) struct PlacedIndex {
    /// `(first, last)` endpoint ranks of the tensor placed at each step.
    ranks: Vec<(usize, usize)>,
    /// Ranks per bucket, as a power of two.
    bucket_bits: u32,
    /// Leaves of the bucket tree: a power of two above the last bucket.
    buckets: usize,
    /// Bucket `b` owns `raw[raw_start[b]..raw_start[b + 1]]`, of which the
    /// first `raw_fill[b] - raw_start[b]` are placed.
    raw_start: Vec<usize>,
    raw_fill: Vec<usize>,
    raw: Vec<Raw>,
    /// By bucket-tree node (node 1 is the root, bucket `b` is node
    /// `buckets + b`).
    within: Vec<Union>,
    stored: Vec<Union>,
    /// Height, above the buckets, of the nodes whose covers replace `stored`.
    cover_height: u32,
    /// By node at `cover_height`, counted from the first one.
    cover: Vec<Union>,
    /// The last step whose query reads `within[v]`, `stored[v]`, `cover[b]`
    /// (see [`last_read`]).
    within_until: Vec<u32>,
    /// Levels, from the buckets up, holding a `within` union some query
    /// reads: an insertion's walk up the paths stops there, as no union
    /// above it is ever read (a sparse table reads only the lowest levels,
    /// and walking on to the root would touch one cold node per level).
    within_levels: u32,
    stored_until: Vec<u32>,
    cover_until: Vec<u32>,
    /// By node above `cover_height` (node 1 is the root): ranges added to
    /// the covers below the node that have not yet been pushed down.
    lazy: Vec<Union>,
    /// The last step whose query reads a cover below each such node.
    lazy_until: Vec<u32>,
    /// No tensor planned is smaller (the `useful` of every insertion).
    useful: usize,
    /// Scratch for one query's ranges, sorted by start in runs that end at
    /// `runs` (after a leading 0), and for merging them.
    blocks: Vec<(usize, usize)>,
    runs: Vec<usize>,
    merged: Vec<(usize, usize)>,
    /// Queries' covered prefixes (see [`Facts`]).
    facts: Facts,
    /// Ranges a query gathers from which its prefix is recorded (or it had
    /// a floor): on tables of short gathers the facts would cost more than
    /// they spare, and none are kept.
    fact_from: usize,
    /// The covered prefix of the last query, for [`Self::insert`] to record.
    pending: Option<usize>,
}

/// A query's lifetime (ranks) and the prefix `[0, covered)` of bytes its
/// gathered union covered, up to gaps no tensor fits. Placed ranges are
/// never removed, so a later query whose lifetime contains this one
/// conflicts with a superset and covers the same prefix: it need gather
/// only the ranges ending past `covered`.
#[derive(Clone, Copy, Default)]
struct Fact {
    first: usize,
    last: usize,
    covered: usize,
}

/// Facts kept.
const FACTS: usize = 16;

/// Queries' covered prefixes (see [`Fact`]), the first `count` in use:
/// those covering most, or the latest of nested ones, are kept.
#[derive(Default)]
pub(crate) struct Facts {
    facts: [Fact; FACTS],
    count: usize,
}

impl Facts {
    /// Records `covered`, the prefix a query for `(first, last)` gathered,
    /// extended by the range placed if it starts there: the tensor placed
    /// conflicts with every later query containing its lifetime.
    pub(crate) fn record(
        &mut self,
        first: usize,
        last: usize,
        mut covered: usize,
        range: (usize, usize),
        useful: usize,
    ) {
        if range.0 <= covered || range.0 - covered < useful {
            covered = covered.max(range.1);
        }
        if covered == 0 {
            return;
        }
        let fact = Fact {
            first,
            last,
            covered,
        };
        // A fact the new one dominates (its lifetime contains the new one's,
        // it covers no more) gives way; else the least covering one, if the
        // new one covers more.
        let facts = &mut self.facts[..self.count];
        let dominated = facts
            .iter()
            .position(|old| old.first <= first && old.last >= last && old.covered <= covered);
        if let Some(at) = dominated {
            facts[at] = fact;
        } else if self.count < FACTS {
            self.facts[self.count] = fact;
            self.count += 1;
        } else {
            let mut weakest = 0;
            for (at, old) in facts.iter().enumerate() {
                if old.covered < facts[weakest].covered {
                    weakest = at;
                }
            }
            if facts[weakest].covered < covered {
                facts[weakest] = fact;
            }
        }
    }

    /// The longest prefix `[0, covered)` a recorded fact proves the union
    /// of the conflicts of `(first, last)` covers, up to gaps no tensor
    /// fits (0 if none does).
    #[inline]
    pub(crate) fn floor(&self, first: usize, last: usize) -> usize {
        self.facts[..self.count]
            .iter()
            .filter(|f| f.first >= first && f.last <= last)
            .map(|f| f.covered)
            .max()
            .unwrap_or(0)
    }
}

/// The `fact_from` of the index's own shape: a training step's queries
/// gather hundreds of ranges, the sparse tables' a few dozen.
pub(crate) const FACT_FROM: usize = 128;

/// Sorted byte ranges read in place.
type Ranges<'a> = &'a [(usize, usize)];

/// A placed lifetime in one of its end buckets: its ranks and byte range.
#[derive(Clone, Copy, Default)]
struct Raw {
    first: usize,
    last: usize,
    range: (usize, usize),
}

/// A union of byte ranges: disjoint, non-touching `[start, end)` ranges in
/// increasing order.
#[derive(Default)]
struct Union(Vec<(usize, usize)>);

impl Union {
    /// Adds the ranges of `other` (sorted by start), as [`Self::add`] of
    /// each in turn would: one by one when they are few against this
    /// union's length, else in one merge written to `scratch`, which then
    /// takes this union's old storage.
    fn merge_from(
        &mut self,
        other: &[(usize, usize)],
        useful: usize,
        scratch: &mut Vec<(usize, usize)>,
    ) -> Result<(), PlanError> {
        if other.len() <= 2 || other.len() * 16 <= self.0.len() {
            for &range in other {
                self.add(range, useful)?;
            }
            return Ok(());
        }
        let mut out = core::mem::take(scratch);
        out.clear();
        out.try_reserve(self.0.len() + other.len())
            .map_err(|_| PlanError::OutOfMemory {
                bytes: (self.0.len() + other.len()).saturating_mul(16),
            })?;
        out.resize(self.0.len() + other.len(), (0, 0));
        let len = merge_filled(&self.0, other, useful, &mut out);
        out.truncate(len);
        *scratch = core::mem::replace(&mut self.0, out);
        Ok(())
    }

    /// [`add_range`] to this union.
    fn add(&mut self, range: (usize, usize), useful: usize) -> Result<bool, PlanError> {
        add_range(&mut self.0, range, useful)
    }

    /// Adds `range` if a query after `step` reads this union (`until` is
    /// the last step that does); frees it once none will.
    fn add_if_read(
        &mut self,
        until: u32,
        step: usize,
        range: (usize, usize),
        useful: usize,
    ) -> Result<(), PlanError> {
        if read_after(until, step) {
            self.add(range, useful).map(|_| ())
        } else {
            if !self.0.is_empty() {
                self.0 = Vec::new();
            }
            Ok(())
        }
    }
}

/// Merges the unions `a` and `b` into `out` (as long as both) as
/// [`add_range`] of each range of `b` to `a` would: ranges that meet, touch
/// or leave a gap shorter than `useful` coalesce, a leading gap too.
/// Returns the ranges written.
pub(crate) fn merge_filled(
    a: &[(usize, usize)],
    b: &[(usize, usize)],
    useful: usize,
    out: &mut [(usize, usize)],
) -> usize {
    let (mut i, mut j, mut k) = (0, 0, 0);
    let useful = useful.max(1);
    while i < a.len() || j < b.len() {
        let next = if j == b.len() || (i < a.len() && a[i].0 <= b[j].0) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        if k > 0 && (next.0 <= out[k - 1].1 || next.0 - out[k - 1].1 < useful) {
            out[k - 1].1 = out[k - 1].1.max(next.1);
        } else if k == 0 && next.0 < useful {
            out[0] = (0, next.1);
            k = 1;
        } else {
            out[k] = next;
            k += 1;
        }
    }
    k
}

/// Where a union's ranges are kept: a vector of its own, or a slot of fixed
/// capacity in a heap-free form's workspace.
pub(crate) trait RangeStore {
    fn ranges_mut(&mut self) -> &mut [(usize, usize)];
    /// Inserts `range` before the range at `at`.
    fn insert_at(&mut self, at: usize, range: (usize, usize)) -> Result<(), PlanError>;
    /// Removes the ranges `low..high`.
    fn remove(&mut self, low: usize, high: usize);
}

impl RangeStore for Vec<(usize, usize)> {
    fn ranges_mut(&mut self) -> &mut [(usize, usize)] {
        self
    }
    fn insert_at(&mut self, at: usize, range: (usize, usize)) -> Result<(), PlanError> {
        self.try_reserve(1).map_err(|_| PlanError::OutOfMemory {
            bytes: (self.len() + 1).saturating_mul(16),
        })?;
        self.insert(at, range);
        Ok(())
    }
    fn remove(&mut self, low: usize, high: usize) {
        self.drain(low..high);
    }
}

/// Adds `[start, end)` (non-empty) to the union in `store`, merging what it
/// meets, touches, or leaves a gap shorter than `useful` bytes to: when no
/// tensor still to be placed is smaller than `useful`, such a gap, and
/// every gap lying inside it of a union containing this one, can never be
/// chosen, so filling it changes no plan. Returns whether the union changed.
pub(crate) fn add_range<S: RangeStore + ?Sized>(
    store: &mut S,
    (start, end): (usize, usize),
    useful: usize,
) -> Result<bool, PlanError> {
    let ranges = store.ranges_mut();
    let far_before = |e: usize| e < start && start - e >= useful;
    // Ranges before `low` end at least `useful` bytes before `start`;
    // from `high` on they start at least `useful` bytes after `end`.
    // A range placed on top of the others, the common case (a long
    // lifetime's conflicts include every range of the unions it is
    // added to), is found from the last ranges without a search.
    let len = ranges.len();
    let (low, high) = match ranges.last() {
        Some(&(_, e)) if far_before(e) => (len, len),
        Some(&(s, _)) if s <= start && (len < 2 || far_before(ranges[len - 2].1)) => (len - 1, len),
        _ => {
            let low = ranges.partition_point(|&(_, e)| far_before(e));
            let high = low + ranges[low..].partition_point(|&(s, _)| s <= end || s - end < useful);
            (low, high)
        }
    };
    // A leading gap `[0, start)` too short is filled as well.
    let start = if start < useful { 0 } else { start };
    if low == high {
        store.insert_at(low, (start, end))?;
    } else {
        let merged = (ranges[low].0.min(start), ranges[high - 1].1.max(end));
        if high == low + 1 && merged == ranges[low] {
            return Ok(false);
        }
        ranges[low] = merged;
        store.remove(low + 1, high);
    }
    Ok(true)
}

/// A step as the last one reading a union, in 32 bits: steps from
/// `u32::MAX` on are all `u32::MAX`, which [`read_after`] reads as "to the
/// end", so a union is never dropped too early.
fn last_read(step: usize) -> u32 {
    u32::try_from(step).unwrap_or(u32::MAX)
}

/// Whether a query after `step` reads a union last read at `until`.
#[inline]
fn read_after(until: u32, step: usize) -> bool {
    until == u32::MAX || until as usize > step
}

/// Calls `visit` with each canonical node of the half-open leaf range
/// `[low, high)` in a tree with `leaves` leaves.
#[inline]
pub(crate) fn canonical_nodes(
    leaves: usize,
    low: usize,
    high: usize,
    mut visit: impl FnMut(usize),
) {
    let (mut low, mut high) = (low + leaves, high + leaves);
    while low < high {
        if low & 1 == 1 {
            visit(low);
            low += 1;
        }
        if high & 1 == 1 {
            high -= 1;
            visit(high);
        }
        low >>= 1;
        high >>= 1;
    }
}

/// Calls `visit(node, false)` with each node on the path from leaf `leaf`
/// up to, not including, height `height`; then `visit(node, true)` with the
/// node at that height.
#[inline]
fn path_to_height(leaves: usize, height: u32, leaf: usize, mut visit: impl FnMut(usize, bool)) {
    let mut node = leaf + leaves;
    for _ in 0..height {
        visit(node, false);
        node >>= 1;
    }
    visit(node, true);
}

/// [`super::best_fit_sorted`] of the ranges of `left` and `right` (each
/// sorted by start) merged by start, read in one pass without writing the
/// merge; and the end of the prefix `[0, end)` they cover but for gaps
/// shorter than `useful`, the leading one included.
pub(crate) fn best_fit_of_two(
    left: &[(usize, usize)],
    right: &[(usize, usize)],
    size: usize,
    useful: usize,
) -> (usize, usize) {
    // Kept without branches on the data, whose gaps are as good as random:
    // the best gap (`found`, its length and offset) and the prefix (`None`
    // until the first gap of `useful` bytes). A gap is at least one byte.
    let (size, useful) = (size.max(1), useful.max(1));
    let (mut found, mut best_len, mut best_at) = (false, 0usize, 0usize);
    let (mut open, mut prefix) = (true, 0usize);
    let mut covered_to = 0usize;
    let mut step = |(start, end): (usize, usize)| {
        let gap = start.saturating_sub(covered_to);
        let ends_prefix = open & (gap >= useful);
        prefix = if ends_prefix { covered_to } else { prefix };
        open &= !ends_prefix;
        let better = (gap >= size) & (!found | (gap < best_len));
        best_len = if better { gap } else { best_len };
        best_at = if better { covered_to } else { best_at };
        found |= better;
        covered_to = covered_to.max(end);
    };
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        let (x, y) = (left[i], right[j]);
        let take_left = x.0 <= y.0;
        step(if take_left { x } else { y });
        i += take_left as usize;
        j += !take_left as usize;
    }
    for &next in left[i..].iter().chain(&right[j..]) {
        step(next);
    }
    (
        if found { best_at } else { covered_to },
        if open { covered_to } else { prefix },
    )
}

/// Appends to `blocks`, as a run starting at the end of `runs`, the ranges
/// of `union` ending past `floor`, unless they are more than those of
/// `aside`: then they take its place, and its ranges are appended instead.
fn push_union<'a>(
    blocks: &mut Vec<(usize, usize)>,
    runs: &mut Vec<usize>,
    aside: &mut &'a [(usize, usize)],
    union: &'a Union,
    floor: usize,
) -> Result<(), PlanError> {
    let mut ranges = past_floor(&union.0, floor);
    if ranges.len() > aside.len() {
        core::mem::swap(&mut ranges, aside);
    }
    push_run(blocks, runs, ranges)
}

/// The ranges of the union `ranges` ending past `floor`.
#[inline]
pub(crate) fn past_floor(ranges: &[(usize, usize)], floor: usize) -> &[(usize, usize)] {
    if floor == 0 {
        return ranges;
    }
    // Few ranges end past a floor (it is usually near the top of the
    // conflicts): they are counted from the end, in steps doubling.
    let len = ranges.len();
    let mut past = 1;
    while past < len && ranges[len - past].1 > floor {
        past *= 2;
    }
    let low = len.saturating_sub(past);
    &ranges[low + ranges[low..].partition_point(|&(_, end)| end <= floor)..]
}

/// Appends `ranges` (sorted), if any, to `blocks` as a run starting at the
/// end of `runs`.
fn push_run(
    blocks: &mut Vec<(usize, usize)>,
    runs: &mut Vec<usize>,
    ranges: &[(usize, usize)],
) -> Result<(), PlanError> {
    if !ranges.is_empty() {
        runs.try_reserve(1).map_err(|_| PlanError::OutOfMemory {
            bytes: (runs.len() + 1).saturating_mul(8),
        })?;
        runs.push(blocks.len());
        gather(blocks, ranges)?;
    }
    Ok(())
}

/// Appends `ranges` to `blocks`, failing instead of aborting.
fn gather(blocks: &mut Vec<(usize, usize)>, ranges: &[(usize, usize)]) -> Result<(), PlanError> {
    blocks
        .try_reserve(ranges.len())
        .map_err(|_| PlanError::OutOfMemory {
            bytes: (blocks.len() + ranges.len()).saturating_mul(16),
        })?;
    blocks.extend_from_slice(ranges);
    Ok(())
}

/// Merges the sorted runs of `blocks` (each ending where the next of `runs`
/// starts, the last at the end) into one run sorted by start with the same
/// union, in `blocks` or in `merged`, whichever is returned.
///
/// Each merge coalesces the ranges that meet or touch, so the unions of
/// neighbouring nodes, which share most of their bytes, shrink towards
/// their union before the next pass reads them.
fn merge_runs<'a>(
    blocks: &'a mut [(usize, usize)],
    merged: &'a mut Vec<(usize, usize)>,
    runs: &mut Vec<usize>,
) -> Result<&'a [(usize, usize)], PlanError> {
    // `runs` holds each run's start after the first's, which is 0.
    if runs.first() == Some(&0) {
        runs.remove(0);
    }
    if runs.is_empty() {
        return Ok(blocks);
    }
    merged.clear();
    merged
        .try_reserve(blocks.len())
        .map_err(|_| PlanError::OutOfMemory {
            bytes: blocks.len().saturating_mul(16),
        })?;
    merged.resize(blocks.len(), (0, 0));
    // Run boundaries, with 0 and the end: runs `bounds[i]..bounds[i + 1]`.
    runs.try_reserve(2).map_err(|_| PlanError::OutOfMemory {
        bytes: (runs.len() + 2).saturating_mul(8),
    })?;
    runs.insert(0, 0);
    runs.push(blocks.len());
    let (in_merged, len) = merge_sorted_runs(blocks, merged, runs);
    Ok(if in_merged {
        &merged[..len]
    } else {
        &blocks[..len]
    })
}

/// Merges the sorted runs of `source` (run `i` is
/// `bounds[i]..bounds[i + 1]`; `bounds` starts at 0 and ends at the last
/// run's end) into one run sorted by start with the same union, pass by
/// pass between `source` and `target` (as long): returns whether it ended
/// in `target`, and its length. `bounds` is overwritten.
pub(crate) fn merge_sorted_runs<'a>(
    mut source: &'a mut [(usize, usize)],
    mut target: &'a mut [(usize, usize)],
    bounds: &mut [usize],
) -> (bool, usize) {
    let mut count = bounds.len();
    let mut in_target = false;
    while count > 2 {
        // Merged runs are written from the start of `target` on, each
        // right after the previous one, never past where its inputs were.
        let mut kept = 1;
        let mut written = 0;
        let mut i = 0;
        while i + 1 < count {
            let (a, b) = (bounds[i], bounds[i + 1]);
            let c = if i + 2 < count { bounds[i + 2] } else { b };
            written += merge_two(&source[a..b], &source[b..c], &mut target[written..]);
            bounds[kept] = written;
            kept += 1;
            i += 2;
        }
        bounds[0] = 0;
        count = kept;
        core::mem::swap(&mut source, &mut target);
        in_target = !in_target;
    }
    (in_target, if count < 2 { 0 } else { bounds[1] })
}

/// Merges the sorted `left` and `right` into `out`, by start, coalescing
/// ranges that meet or touch; returns how many ranges it wrote (at most
/// `left.len() + right.len()`).
///
/// The range being coalesced is kept aside and written at every step, the
/// count moving on only when a range starts past it: no branch depends on
/// the data, whose order is as good as random where the unions interleave.
#[inline]
fn merge_two(
    left: &[(usize, usize)],
    right: &[(usize, usize)],
    out: &mut [(usize, usize)],
) -> usize {
    let (mut i, mut j, mut k) = (0, 0, 0);
    let mut current = match (left.first(), right.first()) {
        (None, None) => return 0,
        (Some(&x), Some(&y)) if y.0 < x.0 => {
            j = 1;
            y
        }
        (Some(&x), _) => {
            i = 1;
            x
        }
        (None, Some(&y)) => {
            j = 1;
            y
        }
    };
    // `k` stays below the ranges read so far, so `out[k]` is in bounds.
    let mut step = |next: (usize, usize), k: &mut usize| {
        let join = next.0 <= current.1;
        out[*k] = current;
        *k += !join as usize;
        current = if join {
            (current.0, current.1.max(next.1))
        } else {
            next
        };
    };
    while i < left.len() && j < right.len() {
        let (x, y) = (left[i], right[j]);
        let take_left = x.0 <= y.0;
        step(if take_left { x } else { y }, &mut k);
        i += take_left as usize;
        j += !take_left as usize;
    }
    for &next in left[i..].iter().chain(&right[j..]) {
        step(next, &mut k);
    }
    out[k] = current;
    k + 1
}

/// What a union addition costs against a raw entry scanned and sorted by a
/// query: the exchange rate by which [`bucket_bits`] weighs the two.
const ADD_PER_RAW: usize = 30;

/// The bucket size, as a power of two, that least costs: larger buckets
/// shorten every tensor's two paths to the root (one union addition per
/// level), but each query scans the raw entries of its two end buckets,
/// about `c²` over a bucket's life for `c` entries. Single-rank buckets need
/// no raw entries at all: a query's end ranks are whole buckets of it.
fn bucket_bits(ranks: &[(usize, usize)], rank_count: usize) -> Result<u32, PlanError> {
    let mut counts = fallible::filled(rank_count, 0usize)?;
    for &(first, last) in ranks {
        counts[first] += 1;
        if last != first {
            counts[last] += 1;
        }
    }
    let levels = rank_count.next_power_of_two().trailing_zeros();
    let path_cost = |bits: u32| {
        (2 * ranks.len())
            .saturating_mul(ADD_PER_RAW)
            .saturating_mul((levels - bits) as usize + 1)
    };
    let (mut best, mut best_cost) = (0, path_cost(0));
    for bits in 1..=levels {
        // Merge neighbouring buckets pairwise.
        let len = counts.len().div_ceil(2);
        for b in 0..len {
            counts[b] = counts[2 * b] + counts.get(2 * b + 1).copied().unwrap_or(0);
        }
        counts.truncate(len);
        let scans = counts
            .iter()
            .fold(0usize, |sum, &c| sum.saturating_add(c.saturating_mul(c)));
        let cost = scans.saturating_add(path_cost(bits));
        if cost < best_cost {
            (best, best_cost) = (bits, cost);
        }
    }
    Ok(best)
}

/// Cover additions a tensor costs on average at most, were they all made
/// (a canonical node adds one per cover node below it): below
/// [`COVER_HEIGHT_AT_MOST`], the covers sit at the lowest height where
/// this bound holds.
const COVER_ADDS_PER_TENSOR: usize = 128;

/// The height the covers sit at most, unless [`COVER_ADDS_AT_MOST`] needs
/// them higher. The stored unions a query merges hold up to `2^height`
/// lifetimes, so covers high up let every query's work grow with the table
/// (a training step's activations). Pushed down lazily, the covers take
/// far fewer additions than [`COVER_ADDS_PER_TENSOR`] counts: the ranges
/// pushed together coalesce (a training step's activations are placed on
/// top of one another). The value comes from side-by-side timings of the
/// training step from 64k to 4M tensors: the best height was 3 or 4 at
/// every size, and 0 took about twice as long.
const COVER_HEIGHT_AT_MOST: u32 = 3;

/// Cover additions a tensor may cost on average, were they all made: the
/// covers sit at least as high as this bound needs, whatever
/// [`COVER_HEIGHT_AT_MOST`] says. It bounds the memory of the covers and of
/// the ranges waiting above them at 16 bytes times this many ranges per
/// tensor: a lifetime's range is in at most one union on each path from
/// its canonical nodes down to a cover.
const COVER_ADDS_AT_MOST: usize = 2048;

/// The cover height: the lowest at which the covers' additions, were they
/// all made, stay within [`COVER_ADDS_PER_TENSOR`] per tensor (the buckets a
/// lifetime covers whole bound them), but at most [`COVER_HEIGHT_AT_MOST`],
/// and never lower than where they stay within [`COVER_ADDS_AT_MOST`].
fn cover_height(ranks: &[(usize, usize)], rank_count: usize, bucket_bits: u32) -> u32 {
    let mask = (1usize << bucket_bits) - 1;
    let covered = ranks.iter().fold(0usize, |sum, &(first, last)| {
        let (low, high) = ((first + mask) >> bucket_bits, (last + 1) >> bucket_bits);
        sum.saturating_add(high.saturating_sub(low))
    });
    let levels = rank_count
        .div_ceil(1 << bucket_bits)
        .next_power_of_two()
        .trailing_zeros();
    cover_height_of(covered, ranks.len(), levels)
}

/// The cover height for `tensors` tensors whose lifetimes cover `covered`
/// leaves in all, in a tree of `levels` levels above its leaves: the
/// lowest at which the covers would receive at most
/// [`COVER_ADDS_PER_TENSOR`] additions per tensor, but no higher than
/// [`COVER_HEIGHT_AT_MOST`] unless they would receive more than
/// [`COVER_ADDS_AT_MOST`].
pub(crate) fn cover_height_of(covered: usize, tensors: usize, levels: u32) -> u32 {
    let lowest_within = |per_tensor: usize| {
        let budget = tensors.max(1).saturating_mul(per_tensor);
        let mut height = 0;
        while height < levels && (covered >> height) > budget {
            height += 1;
        }
        height
    };
    lowest_within(COVER_ADDS_PER_TENSOR)
        .min(COVER_HEIGHT_AT_MOST)
        .max(lowest_within(COVER_ADDS_AT_MOST))
}

impl PlacedIndex {
    /// Lays out the index for `tensors` placed in `order`; nothing is placed.
    /// Reads `clock` between the steps of the set-up.
    pub(super) fn new<C: Clock>(
        tensors: &[TensorLifetime],
        order: &[usize],
        clock: C,
    ) -> Result<Self, Stop<C::Late>> {
        let (ranks, endpoint_count) = super::keys::endpoint_ranks(tensors, order)?;
        clock.check()?;
        let rank_count = endpoint_count.max(1);
        let bucket_bits = bucket_bits(&ranks, rank_count)?;
        let cover_height = cover_height(&ranks, rank_count, bucket_bits);
        clock.check()?;
        Ok(Self::with_shape(
            ranks,
            rank_count,
            bucket_bits,
            cover_height,
            FACT_FROM,
        )?)
    }

    /// [`Self::new`] with the shape given instead of chosen.
    #[cfg(test)]
    pub(super) fn shaped(
        tensors: &[TensorLifetime],
        order: &[usize],
        bucket_bits: u32,
        cover_height: u32,
    ) -> Result<Self, PlanError> {
        let (ranks, endpoint_count) = super::keys::endpoint_ranks(tensors, order)?;
        // Facts from every query, so that they are tested on small tables.
        Self::with_shape(ranks, endpoint_count.max(1), bucket_bits, cover_height, 0)
    }

    /// The index with buckets of `2^bucket_bits` ranks and covers at
    /// `cover_height` above them (at most the tree's height), for the
    /// lifetimes of `ranks` over `rank_count` ranks. Any shape gives the same
    /// unions; the shape sets only the cost.
    fn with_shape(
        ranks: Vec<(usize, usize)>,
        rank_count: usize,
        bucket_bits: u32,
        cover_height: u32,
        fact_from: usize,
    ) -> Result<Self, PlanError> {
        let buckets = rank_count.div_ceil(1 << bucket_bits).next_power_of_two();
        let cover_height = cover_height.min(buckets.trailing_zeros());
        // Single-rank buckets keep no raw entries.
        let raw_buckets = if bucket_bits == 0 { 0 } else { buckets };
        let mut raw_counts = fallible::filled(raw_buckets, 0usize)?;
        let mut within_until = fallible::filled(2 * buckets, 0u32)?;
        let mut stored_until = fallible::filled(2 * buckets, 0u32)?;
        let mut cover_until = fallible::filled(buckets >> cover_height, 0u32)?;
        let cover_base = buckets >> cover_height;
        let mut within_levels = 0;
        for (step, &(first, last)) in ranks.iter().enumerate() {
            let (first_bucket, last_bucket) = (first >> bucket_bits, last >> bucket_bits);
            if bucket_bits > 0 {
                raw_counts[first_bucket] += 1;
                if last_bucket != first_bucket {
                    raw_counts[last_bucket] += 1;
                }
            }
            let mask = (1usize << bucket_bits) - 1;
            let (low, high) = ((first + mask) >> bucket_bits, (last + 1) >> bucket_bits);
            let step = last_read(step);
            canonical_nodes(buckets, low, high, |node| {
                within_until[node] = step;
                let height = buckets.trailing_zeros() - node.ilog2();
                within_levels = within_levels.max(height + 1);
            });
            path_to_height(
                buckets,
                cover_height,
                first_bucket,
                |node, at_cover| match at_cover {
                    false => stored_until[node] = step,
                    true => cover_until[node - cover_base] = step,
                },
            );
        }
        let mut raw_start = fallible::with_capacity(raw_buckets + 1)?;
        raw_start.push(0);
        for &n in &raw_counts {
            raw_start.push(raw_start[raw_start.len() - 1] + n);
        }
        // Unions nothing reads are not laid out: `stored` is read below the
        // cover height only, `within` at the canonical nodes of queries.
        let stored_nodes = if cover_height == 0 { 0 } else { 2 * buckets };
        let mut stored = fallible::with_capacity(stored_nodes)?;
        stored.resize_with(stored_nodes, Union::default);
        let within_nodes = if within_levels == 0 { 0 } else { 2 * buckets };
        let mut within = fallible::with_capacity(within_nodes)?;
        within.resize_with(within_nodes, Union::default);
        let mut cover = fallible::with_capacity(cover_base)?;
        cover.resize_with(cover_base, Union::default);
        let mut lazy_until = fallible::filled(cover_base, 0u32)?;
        for node in (1..cover_base).rev() {
            let child = |c: usize| {
                if c >= cover_base {
                    cover_until[c - cover_base]
                } else {
                    lazy_until[c]
                }
            };
            lazy_until[node] = child(2 * node).max(child(2 * node + 1));
        }
        let mut lazy = fallible::with_capacity(cover_base)?;
        lazy.resize_with(cover_base, Union::default);
        Ok(PlacedIndex {
            raw_fill: fallible::collect(raw_buckets, raw_start[..raw_buckets].iter().copied())?,
            raw: fallible::filled(raw_start[raw_buckets], Raw::default())?,
            raw_start,
            ranks,
            bucket_bits,
            buckets,
            within,
            stored,
            cover_height,
            cover,
            within_until,
            within_levels,
            stored_until,
            cover_until,
            lazy,
            lazy_until,
            useful: 0,
            blocks: Vec::new(),
            runs: Vec::new(),
            merged: Vec::new(),
            facts: Facts::default(),
            fact_from,
            pending: None,
        })
    }

    /// The half-open range of buckets the rank range `(first, last)` covers
    /// whole.
    #[inline]
    fn whole_buckets(&self, (first, last): (usize, usize)) -> (usize, usize) {
        let mask = (1usize << self.bucket_bits) - 1;
        (
            (first + mask) >> self.bucket_bits,
            (last + 1) >> self.bucket_bits,
        )
    }

    /// Records the byte range of the tensor placed at `step`; no tensor
    /// still to be placed is smaller than `useful` bytes.
    pub(crate) fn insert(
        &mut self,
        step: usize,
        range: (usize, usize),
        useful: usize,
    ) -> Result<(), PlanError> {
        let (first, last) = self.ranks[step];
        self.record_fact(first, last, range, useful);
        let (first_bucket, last_bucket) = (first >> self.bucket_bits, last >> self.bucket_bits);
        // Single-rank buckets are whole buckets of every query ending there.
        let raw_buckets = if self.bucket_bits == 0 { 0 } else { 2 };
        for bucket in [first_bucket, last_bucket].into_iter().take(raw_buckets) {
            let slot = &mut self.raw_fill[bucket];
            self.raw[*slot] = Raw { first, last, range };
            *slot += 1;
            if last_bucket == first_bucket {
                break;
            }
        }

        let mut result = Ok(());
        let (low, high) = self.whole_buckets((first, last));
        let (buckets, height) = (self.buckets, self.cover_height);
        let cover_base = buckets >> height;
        self.useful = useful;
        let (within, stored, cover) = (&mut self.within, &mut self.stored, &mut self.cover);
        let (within_until, stored_until, cover_until) =
            (&self.within_until, &self.stored_until, &self.cover_until);
        let (lazy, lazy_until) = (&mut self.lazy, &self.lazy_until);
        canonical_nodes(buckets, low, high, |node| {
            if result.is_err() {
                return;
            }
            let above = buckets.trailing_zeros() - node.ilog2();
            if above < height {
                result = stored[node].add_if_read(stored_until[node], step, range, useful);
            } else if above == height {
                let at = node - cover_base;
                result = cover[at].add_if_read(cover_until[at], step, range, useful);
            } else {
                result = lazy[node].add_if_read(lazy_until[node], step, range, useful);
            }
        });
        result?;
        // Up the first bucket's path. A union no query reads any more is
        // skipped; where a union still read already covers the range, so do
        // all above it, which have received every range it has (the filling
        // of short gaps does not depend on the order of additions), and the
        // walk stops.
        let mut node = buckets + first_bucket;
        for _ in 0..self.within_levels {
            if read_after(within_until[node], step) {
                if !within[node].add(range, useful)? {
                    break;
                }
            } else if !within[node].0.is_empty() {
                within[node].0 = Vec::new();
            }
            node >>= 1;
        }
        Ok(())
    }

    /// Records the covered prefix of the last query (`pending`, if any).
    fn record_fact(&mut self, first: usize, last: usize, range: (usize, usize), useful: usize) {
        if let Some(covered) = self.pending.take() {
            self.facts.record(first, last, covered, range, useful);
        }
    }

    /// The longest prefix `[0, covered)` a recorded fact proves the union
    /// of the conflicts of `(first, last)` covers, up to gaps no tensor
    /// fits (0 if none does).
    #[inline]
    fn covered_floor(&self, first: usize, last: usize) -> usize {
        self.facts.floor(first, last)
    }

    /// Asks the cache for what the queries a few steps after `step` read
    /// first: their end buckets' raw entries and first bucket's cover, in two stages
    /// (the bucket's bounds, then the entries they point to). Placement
    /// order is by size, so at scale each query's bucket is a cache miss;
    /// a hint only, no effect on any result.
    #[inline]
    pub(super) fn prefetch(&self, step: usize) {
        const NEAR: usize = 8;
        const FAR: usize = 2 * NEAR;
        let cover_base = self.buckets >> self.cover_height;
        if let Some(&(first, last)) = self.ranks.get(step + FAR) {
            for bucket in [first >> self.bucket_bits, last >> self.bucket_bits] {
                if let Some(start) = self.raw_start.get(bucket) {
                    prefetch(start);
                }
            }
            // Only the first bucket's path is read.
            let node = (self.buckets + (first >> self.bucket_bits)) >> self.cover_height;
            if let Some(union) = self.cover.get(node - cover_base) {
                prefetch(union);
            }
        }
        if let Some(&(first, last)) = self.ranks.get(step + NEAR) {
            for bucket in [first >> self.bucket_bits, last >> self.bucket_bits] {
                if let (Some(&at), Some(&fill)) =
                    (self.raw_start.get(bucket), self.raw_fill.get(bucket))
                {
                    // The first four lines of the bucket's entries.
                    for raw in self.raw[at..fill].iter().step_by(2).take(4) {
                        prefetch(raw);
                    }
                }
            }
            let node = (self.buckets + (first >> self.bucket_bits)) >> self.cover_height;
            if let Some(range) = self
                .cover
                .get(node - cover_base)
                .and_then(|union| union.0.first())
            {
                prefetch(range);
            }
        }
    }

    /// The offset best fit gives the tensor placed at `step` (`size` bytes)
    /// among the placed tensors whose lifetimes meet its own.
    pub(super) fn best_fit(
        &mut self,
        step: usize,
        size: usize,
        useful: usize,
    ) -> Result<usize, PlanError> {
        self.query(step, |blocks, merged, runs, aside, record| {
            let sorted = merge_runs(blocks, merged, runs)?;
            let (offset, covered) = best_fit_of_two(sorted, aside, size, useful);
            Ok((offset, record.then_some(covered)))
        })
    }

    /// Pushes the ranges waiting above the cover the query at `step` reads
    /// down the path to it, to both children of each node on the way (a
    /// union no query from `step` on reads is freed instead).
    fn push_down(&mut self, step: usize) -> Result<(), PlanError> {
        let cover_base = self.buckets >> self.cover_height;
        if cover_base <= 1 {
            return Ok(());
        }
        let first_bucket = self.ranks[step].0 >> self.bucket_bits;
        let target = (self.buckets + first_bucket) >> self.cover_height;
        let useful = self.useful;
        for k in (1..=target.ilog2()).rev() {
            let node = target >> k;
            if self.lazy[node].0.is_empty() {
                continue;
            }
            let mut ranges = core::mem::take(&mut self.lazy[node].0);
            for child in [2 * node, 2 * node + 1] {
                let (union, until) = if child >= cover_base {
                    let at = child - cover_base;
                    (&mut self.cover[at], self.cover_until[at])
                } else {
                    (&mut self.lazy[child], self.lazy_until[child])
                };
                // Read by this step's query or a later one.
                if read_after(until, step) || until as usize == step {
                    union.merge_from(&ranges, useful, &mut self.merged)?;
                } else if !union.0.is_empty() {
                    union.0 = Vec::new();
                }
            }
            ranges.clear();
            self.lazy[node].0 = ranges;
        }
        Ok(())
    }

    /// One query for the tensor placed at `step`, on the index's scratch:
    /// the conflicts are gathered ([`Self::conflicts`]), then `finish`
    /// reads them (the gathered runs, the merge's scratch and run bounds,
    /// the union left in place, and whether a covered prefix is to be
    /// recorded) and answers with its value and that prefix, which the next
    /// [`Self::insert`] records.
    #[inline]
    fn query<T>(
        &mut self,
        step: usize,
        finish: impl FnOnce(
            &mut Vec<(usize, usize)>,
            &mut Vec<(usize, usize)>,
            &mut Vec<usize>,
            Ranges<'_>,
            bool,
        ) -> Result<(T, Option<usize>), PlanError>,
    ) -> Result<T, PlanError> {
        self.push_down(step)?;
        let mut blocks = core::mem::take(&mut self.blocks);
        let mut runs = core::mem::take(&mut self.runs);
        let mut merged = core::mem::take(&mut self.merged);
        blocks.clear();
        runs.clear();
        let result = self
            .conflicts(step, &mut blocks, &mut runs)
            .and_then(|(aside, floor)| {
                let record = floor > 0 || blocks.len() + aside.len() >= self.fact_from;
                finish(&mut blocks, &mut merged, &mut runs, aside, record)
            });
        (self.blocks, self.runs, self.merged) = (blocks, runs, merged);
        let (value, covered) = result?;
        self.pending = covered;
        Ok(value)
    }

    /// Appends to `blocks` byte ranges whose union, with that of the
    /// returned sorted ranges (the longest union read, left in place), is
    /// the union of the byte ranges of every placed tensor whose lifetime
    /// meets that of the tensor placed at `step`, but for gaps no tensor
    /// fits; and returns the floor below which a fact proved it covered.
    fn conflicts<'a>(
        &'a self,
        step: usize,
        blocks: &mut Vec<(usize, usize)>,
        runs: &mut Vec<usize>,
    ) -> Result<(Ranges<'a>, usize), PlanError> {
        let (first, last) = self.ranks[step];
        let (first_bucket, last_bucket) = (first >> self.bucket_bits, last >> self.bucket_bits);
        // Ranges ending inside a prefix already proven covered change no
        // gap a tensor fits: one range stands for them all.
        let floor = self.covered_floor(first, last);
        if floor > 0 {
            gather(blocks, &[(0, floor)])?;
        }
        let mut result = Ok(());
        let raw_buckets = if self.bucket_bits == 0 { 0 } else { 2 };
        for bucket in [first_bucket, last_bucket].into_iter().take(raw_buckets) {
            let placed = &self.raw[self.raw_start[bucket]..self.raw_fill[bucket]];
            blocks
                .try_reserve(placed.len())
                .map_err(|_| PlanError::OutOfMemory {
                    bytes: (blocks.len() + placed.len()).saturating_mul(16),
                })?;
            blocks.extend(
                placed
                    .iter()
                    .filter(|raw| raw.first <= last && raw.last >= first && raw.range.1 > floor)
                    .map(|raw| raw.range),
            );
            if last_bucket == first_bucket {
                break;
            }
        }
        // The raw entries are the one unsorted run; each union is sorted.
        blocks.sort_unstable_by_key(|&(start, _)| start);
        // The longest union is not copied: it is merged last, in place.
        let mut aside: &[(usize, usize)] = &[];
        let mut push_run = |blocks: &mut Vec<(usize, usize)>, union: &'a Union| {
            push_union(blocks, runs, &mut aside, union, floor)
        };
        let (low, high) = self.whole_buckets((first, last));
        canonical_nodes(self.buckets, low, high, |node| {
            if result.is_ok() {
                result = push_run(blocks, &self.within[node]);
            }
        });
        let cover_base = self.buckets >> self.cover_height;
        path_to_height(
            self.buckets,
            self.cover_height,
            first_bucket,
            |node, at_cover| {
                if result.is_ok() {
                    let union = match at_cover {
                        false => &self.stored[node],
                        true => &self.cover[node - cover_base],
                    };
                    result = push_run(blocks, union);
                }
            },
        );
        result.map(|()| (aside, floor))
    }

    /// The index for `tensors` placed in `order`, for a planner outside the
    /// greedy that places in an order known up front but chooses its
    /// offsets its own way ([`Self::conflict_union`], then [`Self::insert`]
    /// at each step). `tensors` of size 0 are not planned: `order` holds
    /// every other one.
    ///
    /// Complexity: `O(n log n)` time, `O(n)` memory.
    pub(crate) fn for_order(
        tensors: &[TensorLifetime],
        order: &[usize],
    ) -> Result<Self, PlanError> {
        Self::new(tensors, order, super::NoDeadline).map_err(|stop| match stop {
            Stop::Error(error) => error,
            Stop::Late(never) => match never {},
        })
    }

    /// Forgets the covered prefix of the last query, which
    /// [`Self::insert`] would otherwise record as a fact under the lifetime
    /// of the step it inserts: for a caller whose next insertion is not the
    /// last query's step.
    pub(crate) fn forget_last_query(&mut self) {
        self.pending = None;
    }

    /// Writes to `out` (cleared first) byte ranges sorted by start whose
    /// union is that of the placed tensors whose lifetimes meet the one of
    /// the tensor at `step`, gaps shorter than `useful` (no tensor still to
    /// be placed is smaller; the same at every query and insertion)
    /// possibly filled. Ranges may touch or overlap. Returns how many
    /// ranges the query read from the index (its work: more than it
    /// writes where they coalesce).
    ///
    /// Complexity: that of a query of [`Self::best_fit`].
    pub(crate) fn conflict_union(
        &mut self,
        step: usize,
        useful: usize,
        out: &mut Vec<(usize, usize)>,
    ) -> Result<usize, PlanError> {
        out.clear();
        self.query(step, |blocks, merged, runs, aside, record| {
            // The union left in place is one more run here.
            push_run(blocks, runs, aside)?;
            let read = blocks.len();
            let sorted = merge_runs(blocks, merged, runs)?;
            gather(out, sorted)?;
            // The covered prefix, a fact for later queries as in
            // `best_fit`: no tensor fits a gap shorter than `useful`.
            Ok((
                read,
                record.then(|| best_fit_of_two(sorted, &[], 1, useful).1),
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The covered bytes of `ranges` as disjoint, non-touching ranges in
    /// increasing order: the brute-force union.
    fn coalesced(ranges: &[(usize, usize)]) -> Vec<(usize, usize)> {
        let mut sorted = ranges.to_vec();
        sorted.sort_unstable();
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (start, end) in sorted {
            match out.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => out.push((start, end)),
            }
        }
        out
    }

    /// [`coalesced`] with every gap shorter than `useful` bytes filled,
    /// the leading one `[0, start)` included.
    fn filled(ranges: &[(usize, usize)], useful: usize) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (start, end) in coalesced(ranges) {
            match out.last_mut() {
                Some(last) if start - last.1 < useful => last.1 = end,
                None if start < useful => out.push((0, end)),
                _ => out.push((start, end)),
            }
        }
        out
    }

    #[test]
    fn merged_runs_have_the_union_of_the_runs() {
        let mut rng = crate::rng::XorShift(0x5EED_0021);
        let mut next = move |bound: usize| rng.below(bound);
        for _ in 0..2000 {
            // Sorted runs (the first may overlap itself, as raw entries do;
            // the others are unions), some empty, some sharing ranges.
            let mut blocks = Vec::new();
            let mut runs = Vec::new();
            for run in 0..next(9) {
                if run > 0 {
                    runs.push(blocks.len());
                }
                let mut ranges: Vec<(usize, usize)> = (0..next(12))
                    .map(|_| {
                        let start = next(200);
                        (start, start + 1 + next(30))
                    })
                    .collect();
                if run > 0 {
                    ranges = coalesced(&ranges);
                }
                ranges.sort_unstable_by_key(|&(start, _)| start);
                blocks.extend(ranges);
            }
            let all = blocks.clone();
            let mut merged = Vec::new();
            let sorted = merge_runs(&mut blocks, &mut merged, &mut runs).unwrap();
            assert!(sorted.windows(2).all(|w| w[0].0 <= w[1].0));
            assert_eq!(coalesced(sorted), coalesced(&all));
            for size in [1, 2, 5, 17, 40, 300] {
                let mut oracle = all.clone();
                assert_eq!(
                    super::super::best_fit_sorted(sorted, size),
                    super::super::best_fit(&mut oracle, size)
                );
            }
        }
    }

    /// `count` random ranges sorted by start, starting below `starts` and
    /// at most `longest` bytes long.
    fn sorted_ranges(
        next: &mut dyn FnMut(usize) -> usize,
        count: usize,
        starts: usize,
        longest: usize,
    ) -> Vec<(usize, usize)> {
        let mut ranges: Vec<(usize, usize)> = (0..count)
            .map(|_| {
                let start = next(starts);
                (start, start + 1 + next(longest))
            })
            .collect();
        ranges.sort_unstable_by_key(|&(start, _)| start);
        ranges
    }

    #[test]
    fn the_covers_sit_low_but_within_their_memory_bound() {
        // The cover blocks inside the buckets each lifetime covers whole:
        // the covers' additions, were they all made.
        fn additions(ranks: &[(usize, usize)], bucket_bits: u32, height: u32) -> usize {
            let block = 1usize << (bucket_bits + height);
            let mut count = 0;
            for &(first, last) in ranks {
                // The buckets covered whole, in ranks: `[start, end)`.
                let start = first.div_ceil(1 << bucket_bits) << bucket_bits;
                let end = (last + 1) >> bucket_bits << bucket_bits;
                count += (end / block).saturating_sub(start.div_ceil(block));
            }
            count
        }
        let mut rng = crate::rng::XorShift(0x5EED_0025);
        for &(n, long) in &[
            (300, 0),
            (300, 1),
            (2000, 4),
            (5000, 10),
            (20000, 30),
            (40000, 40),
        ] {
            // `long` in 40 lifetimes span most of the timeline.
            let ranks: Vec<(usize, usize)> = (0..n)
                .map(|_| {
                    let first = rng.below(2 * n);
                    let span = if rng.below(40) < long { 2 * n } else { 8 };
                    (first, (first + rng.below(span)).min(2 * n - 1))
                })
                .collect();
            for bucket_bits in [0, 2, 4] {
                let height = cover_height(&ranks, 2 * n, bucket_bits);
                let levels = (2 * n)
                    .div_ceil(1 << bucket_bits)
                    .next_power_of_two()
                    .ilog2();
                let adds = |h: u32| additions(&ranks, bucket_bits, h);
                let case = (n, long, bucket_bits, height);
                // The function counts whole buckets, `n` more at most than
                // the cover blocks inside them.
                assert!(
                    height == levels || adds(height) <= COVER_ADDS_AT_MOST * n,
                    "{case:?}"
                );
                let low = COVER_HEIGHT_AT_MOST.min(levels);
                if adds(low) + n <= COVER_ADDS_AT_MOST * n {
                    assert!(height <= low, "{case:?}");
                }
                if height > 0 && height <= COVER_HEIGHT_AT_MOST {
                    assert!(adds(height - 1) + n > COVER_ADDS_PER_TENSOR * n, "{case:?}");
                }
                if height < low {
                    assert!(adds(height) <= COVER_ADDS_PER_TENSOR * n, "{case:?}");
                }
            }
        }
    }

    #[test]
    fn a_merge_of_ranges_is_their_additions_in_turn() {
        let mut rng = crate::rng::XorShift(0x5EED_0024);
        let mut next = move |bound: usize| rng.below(bound);
        let mut scratch = Vec::new();
        for _ in 0..3000 {
            let useful = 1 + next(12);
            let union = |count: usize, next: &mut dyn FnMut(usize) -> usize| {
                let mut union = Union::default();
                for _ in 0..count {
                    let start = next(400);
                    union.add((start, start + 1 + next(25)), useful).unwrap();
                }
                union
            };
            // Long and short on either side, so both ways of merging run.
            let (left, right) = (next(60), next(60));
            let mut merged = union(left, &mut next);
            // The ranges added: a union's, or any sorted by start.
            let other = match next(2) {
                0 => union(right, &mut next).0,
                _ => sorted_ranges(&mut next, right, 400, 25),
            };
            let mut added = Union(merged.0.clone());
            for &range in &other {
                added.add(range, useful).unwrap();
            }
            merged.merge_from(&other, useful, &mut scratch).unwrap();
            assert_eq!(merged.0, added.0, "useful {useful}");
        }
    }

    #[test]
    fn best_fit_of_two_runs_is_that_of_their_merge() {
        let mut rng = crate::rng::XorShift(0x5EED_0023);
        let mut next = move |bound: usize| rng.below(bound);
        for _ in 0..2000 {
            let mut run = || {
                let count = next(10);
                sorted_ranges(&mut next, count, 150, 20)
            };
            let (left, right) = (run(), run());
            let all: Vec<(usize, usize)> = left.iter().chain(&right).copied().collect();
            for (size, useful) in [(1, 1), (3, 2), (8, 8), (20, 5), (60, 60)] {
                let (offset, covered) = best_fit_of_two(&left, &right, size, useful);
                let mut oracle = all.clone();
                assert_eq!(offset, super::super::best_fit(&mut oracle, size));
                // The prefix: bytes up to `covered` are in the union or in
                // gaps shorter than `useful`, and a gap of `useful` follows.
                let expected = filled(&all, useful)
                    .first()
                    .filter(|&&(start, _)| start == 0)
                    .map_or(0, |&(_, end)| end);
                assert_eq!(covered, expected);
            }
        }
    }

    /// Plans `tensors` with the index of every shape, checking at each step
    /// that the ranges gathered have the union of the byte ranges of the
    /// placed tensors whose lifetimes meet the one placed (found by
    /// scanning them all).
    fn assert_gathered_unions_are_the_conflicts(tensors: &[TensorLifetime]) {
        let order = super::super::keys::placement_order(tensors).unwrap();
        let smallest = order.last().map_or(0, |&i| tensors[i].size);
        for bucket_bits in [0, 1, 2, 3, 63] {
            for cover_height in [0, 1, 2, 64] {
                let mut index =
                    PlacedIndex::shaped(tensors, &order, bucket_bits, cover_height).unwrap();
                let mut placed: Vec<(usize, (usize, usize))> = Vec::new();
                let mut sorted = Vec::new();
                for (step, &i) in order.iter().enumerate() {
                    // Also records the prefix covered, for the facts of
                    // later queries (every query's, in this shape).
                    index.conflict_union(step, smallest, &mut sorted).unwrap();
                    let conflicts: Vec<(usize, usize)> = placed
                        .iter()
                        .filter(|&&(j, _)| tensors[j].overlaps(&tensors[i]))
                        .map(|&(_, range)| range)
                        .collect();
                    // The index may fill gaps no tensor fits, so both are
                    // compared with every such gap filled.
                    let shape = (bucket_bits, cover_height, step);
                    assert_eq!(
                        (filled(&sorted, smallest), shape),
                        (filled(&conflicts, smallest), shape)
                    );
                    let offset = super::super::best_fit_sorted(&sorted, tensors[i].size);
                    let range = (offset, offset + tensors[i].size);
                    index.insert(step, range, smallest).unwrap();
                    placed.push((i, range));
                }
            }
        }
    }

    #[test]
    fn the_unions_gathered_are_those_of_the_conflicts_in_every_shape() {
        let t = TensorLifetime::new;
        // A training step: nested activations, one-node temporaries,
        // two-node gradients (every lifetime met where a query starts, or
        // starting inside it, or both).
        let layers = 40;
        let mut rng = crate::rng::XorShift(0x5EED_0022);
        let mut step = Vec::new();
        for i in 0..layers {
            step.push(t(64 * (1 + rng.below(16)), i, 2 * layers - 1 - i));
            step.push(t(64 * (1 + rng.below(4)), i, i));
            step.push(t(
                64 * (1 + rng.below(16)),
                2 * layers - 1 - i,
                2 * layers - i,
            ));
        }
        assert_gathered_unions_are_the_conflicts(&step);
        // Random lifetimes, short and long, with ties in size.
        for _ in 0..20 {
            let horizon = 1 + rng.below(120);
            let tensors: Vec<TensorLifetime> = (0..rng.below(120))
                .map(|_| {
                    let first = rng.below(horizon);
                    let span = if rng.below(6) == 0 { horizon } else { 4 };
                    t(16 * (1 + rng.below(8)), first, first + rng.below(span))
                })
                .collect();
            assert_gathered_unions_are_the_conflicts(&tensors);
        }
    }
}
