//! The lowest-floor rule over the tensors sorted by first use, with no
//! conflict lists: a placer of [`super::scalable`] for tables of short
//! lifetimes, where each tensor's conflicts lie in a narrow band of that
//! order and are read as one contiguous run.
//!
//! Sorted by first use, the tensors whose lifetimes meet tensor `s`'s are
//! among those from the first whose running maximum of last uses reaches
//! `s`'s first use, up to the last that starts by `s`'s last use: its band.
//! Placing `s` with top `e` raises to at least `e` the floors in its band
//! whose last use reaches its first (the band's later tensors all start
//! within its lifetime). The (floor, rank) keys sit in that order, packed
//! in a `u64` each (floors in units of the sizes' greatest common divisor),
//! in blocks of [`BLOCK`] tensors; each block keeps its least key, and a
//! tournament tree over the blocks names the least of all: the listed
//! rule's choice. A raise passes over the blocks whose least floor is
//! already at its top.
//!
//! The tensors placed one after another are far apart in band order, so on
//! large tables each placement's slots come from memory: the tensor to
//! place next is known before this one's raise (unless the raise lifts it),
//! and its record, the start of its band and its path in the tree are
//! asked of the cache then. A placed tensor's floor stays in its key, and
//! the offsets by position are written in one pass at the end.
//!
//! Complexity: a placement is `O(Σ band + n · (BLOCK + log n))`: each
//! tensor's band is read once, and the blocks it spans are read again for
//! their least keys, with the tournament tree above them. The band lengths
//! are known before any placement ([`band_reads`]), so the
//! caller chooses this placer only where they stay near the number of
//! conflicts and bounded per tensor: a long lifetime early in the order
//! widens every later band, and on dense tables the bands hold `O(n)`
//! tensors each. `O(n log n)` to find the bands. Memory `O(n)`:
//! about 46 bytes per tensor, of which all but the last offsets can be
//! given up between placements ([`BandFloors::stow`]) while another
//! planner runs, at the cost of finding the bands again. Used only where
//! every key fits `u64` (the total of the sizes, in units, below
//! `2^(64 - bits of n)`) and every size in units fits `u32`.

use std::time::Instant;

use super::{Placement, CLOCK_PERIOD};
use crate::error::PlanError;
use crate::offsets::conflicts::size_unit;
use crate::offsets::greedy::endpoint_ranks;
use crate::offsets::radix::bit_length;
use crate::offsets::TensorLifetime;
use crate::sys::fallible;
use crate::sys::pages::prefetch;

/// Tensors per block: a block is read whole when one of its floors may
/// have changed, so small enough that short bands read little beyond
/// themselves, large enough that the tournament tree stays small.
const BLOCK: usize = 16;

/// Reads charged per tensor placed, beyond its band's and blocks': the
/// misses of finding it, its slot and its band, which on large tables
/// cost more than its band's reads.
const PLACE_READS: usize = 128;

/// Slots in a cache line.
const SLOTS_PER_LINE: usize = 64 / core::mem::size_of::<Slot>();

/// The most cache lines of the next tensor's blocks (from its band's start)
/// asked for ahead: the hardware follows a longer band by itself, and the
/// prediction of the next tensor can fail.
const PREFETCH_LINES: usize = 16;

/// How many tensors ahead a placement's setting of the ranks asks the
/// cache for their keys.
const RANK_PREFETCH: usize = 8;

/// An empty block's key: above every other.
const NONE: u64 = u64::MAX;

/// The bit that marks a placed tensor's key, whose floor lies below it:
/// above every unplaced key (each fits 63 bits), and kept by every raise.
const PLACED: u64 = 1 << 63;

/// How many levels of the tournament tree above the next tensor's block
/// are asked for ahead (the upper levels stay in the cache).
const PREFETCH_LEVELS: usize = 6;

/// The bands' lengths summed (the reads of a whole placement in band order
/// but its blocks'), from counts of the table: its `n` tensors, its
/// `entries` conflict list entries (twice the conflicting pairs) and
/// `back`, the sum of how far back its tensors' earlier conflicts reach
/// ([`Degrees::reach_back`]). A band holds its tensor, the tensor's later
/// conflicts and that run back.
///
/// [`Degrees::reach_back`]: crate::offsets::conflicts::Degrees::reach_back
pub(super) fn band_reads(n: usize, entries: usize, back: usize) -> usize {
    n.saturating_add(entries / 2).saturating_add(back)
}

/// What a raise reads of a tensor in band order, and the least of a block
/// names (a quarter cache line).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Slot {
    /// The floor above the rank in the ordering being placed; once placed,
    /// [`PLACED`] above the floor it was placed at.
    key: u64,
    /// The last use, as a rank among the table's distinct endpoints (which
    /// compare as the ends do).
    last: u32,
    /// Where its band starts in band order.
    start: u32,
}

/// What the placement of a tensor reads of it beyond its slot.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Record {
    /// Its first use, as a rank among the table's distinct endpoints.
    first: u32,
    /// Where its band stops in band order.
    stop: u32,
    /// Its position, and its size in units.
    position: u32,
    size: u32,
}

/// The lowest-floor rule over the tensors sorted by first use, each raise
/// a contiguous run of that order; see the [module](self).
pub(super) struct BandFloors<'a> {
    items: &'a [usize],
    /// What the band order is made from, kept to make it again after
    /// [`Self::stow`].
    tensors: &'a [TensorLifetime],
    by_start: &'a [usize],
    sizes: &'a [usize],
    /// Whether the band order's tables are given up until the next
    /// placement ([`Self::stow`]).
    stowed: bool,
    /// The sizes' greatest common divisor: floors are kept in its units.
    unit: usize,
    /// Bits of a key below its floor, which hold the rank.
    rank_bits: u32,
    /// Each position's place in band order.
    band_of: Vec<u32>,
    /// In band order (by first use). A raise reads the slots of its band
    /// only, which on large tables come from memory, band after band.
    slots: Vec<Slot>,
    records: Vec<Record>,
    /// The least key of each block at `leaves + block`, and of two
    /// subtrees at their parent; the least of all at 1: each with its
    /// tensor's place in band order and where its band starts, so that the
    /// tensor to place next and its band can be asked of the cache while
    /// this one's raise runs.
    tree: Vec<Least>,
    leaves: usize,
    pub(super) offsets: Vec<usize>,
    pub(super) deadline: Option<Instant>,
    /// Reads of the current placement (band entries, block entries and
    /// [`PLACE_READS`] per tensor) and of the last one that finished: the
    /// work of a placement, which sizes the improvement.
    pub(super) reads: usize,
    last_reads: usize,
}

/// A least key, its tensor's place in band order and its band's start.
#[derive(Clone, Copy)]
struct Least {
    key: u64,
    at: u32,
    start: u32,
}

/// The least of no tensor.
const EMPTY: Least = Least {
    key: NONE,
    at: 0,
    start: 0,
};

impl<'a> BandFloors<'a> {
    /// The band order of the tensors `items` of `tensors` (`by_start`, their
    /// positions by first use; sizes `sizes` by position, each positive)
    /// and each one's band; `None` if the keys or the sizes in units would
    /// not fit (`u64`, `u32`), or the sizes' total `usize`. Errors:
    /// [`PlanError::OutOfMemory`].
    pub(super) fn new(
        tensors: &'a [TensorLifetime],
        items: &'a [usize],
        by_start: &'a [usize],
        sizes: &'a [usize],
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, PlanError> {
        let n = items.len();
        let unit = size_unit(sizes);
        let total = sizes
            .iter()
            .fold(0usize, |t, &s| t.saturating_add(s / unit));
        let rank_bits = bit_length(n as u64);
        let widest = sizes.iter().max().map_or(0, |&s| s / unit);
        // Keys below [`PLACED`]; every end offset in bytes within `usize`
        // (the other placers report the tensor that passes it).
        let fits = rank_bits + bit_length(total as u64) < 64 && widest <= u32::MAX as usize;
        let bytes = sizes.iter().try_fold(0usize, |t, &s| t.checked_add(s));
        if n >= 1 << 31 || !fits || total == usize::MAX || bytes.is_none() {
            // The keys (or endpoint and tensor ranks) would not fit.
            return Ok(None);
        }
        let BandOrder {
            band_of,
            slots,
            records,
            tree,
        } = band_order(tensors, items, by_start, sizes, unit)?;
        Ok(Some(BandFloors {
            items,
            tensors,
            by_start,
            sizes,
            stowed: false,
            unit,
            rank_bits,
            band_of,
            slots,
            records,
            leaves: tree.len() / 2,
            tree,
            offsets: fallible::filled(n, 0)?,
            deadline,
            reads: 0,
            last_reads: 0,
        }))
    }

    /// Gives up the band order's tables (all its memory but the offsets of
    /// the last placement) until the next placement, which makes them
    /// again: for another planner to use that memory meanwhile.
    pub(super) fn stow(&mut self) {
        self.stowed = true;
        self.band_of = Vec::new();
        self.slots = Vec::new();
        self.records = Vec::new();
        self.tree = Vec::new();
    }

    /// Makes the tables [`Self::stow`] gave up again, as they were.
    fn restore(&mut self) -> Result<(), PlanError> {
        let order = band_order(
            self.tensors,
            self.items,
            self.by_start,
            self.sizes,
            self.unit,
        )?;
        (self.band_of, self.slots, self.records) = (order.band_of, order.slots, order.records);
        self.tree = order.tree;
        self.stowed = false;
        Ok(())
    }
    /// The work of the last finished placement, in reads (at least one per
    /// tensor).
    pub(super) fn placement_cost(&self) -> usize {
        self.last_reads.max(self.items.len())
    }

    /// Sets the least of block `b`.
    #[inline]
    fn refresh(&mut self, b: usize) {
        let (lo, hi) = (b * BLOCK, (b * BLOCK + BLOCK).min(self.slots.len()));
        let block = &self.slots[lo..hi];
        // By selects: which key is least is unpredictable.
        let (mut key, mut at) = (NONE, 0);
        for (i, slot) in block.iter().enumerate() {
            let less = slot.key < key;
            key = if less { slot.key } else { key };
            at = if less { i } else { at };
        }
        self.tree[self.leaves + b] = Least {
            key,
            at: (lo + at) as u32,
            start: block.get(at).map_or(0, |slot| slot.start),
        };
    }

    /// Sets the least of the ancestors of blocks `low..=high`.
    fn pull(&mut self, low: usize, high: usize) {
        let (mut lo, mut hi) = ((self.leaves + low) / 2, (self.leaves + high) / 2);
        while lo >= 1 {
            for v in lo..=hi {
                let (left, right) = (self.tree[2 * v], self.tree[2 * v + 1]);
                self.tree[v] = if right.key < left.key { right } else { left };
            }
            (lo, hi) = (lo / 2, hi / 2);
        }
    }
}

/// The end of the run of `firsts` from `s` on that are at most `last`,
/// given `firsts` sorted and `firsts[s] <= last`: a galloping search from
/// `s`, whose reads stay near it where runs are short (a binary search over
/// the whole order would bring in a line from far away at each of its
/// first steps). `O(log run)`.
fn run_end(firsts: &[u32], s: usize, last: u32) -> usize {
    // `firsts[..low]` are all at most `last`.
    let (mut low, mut step) = (s + 1, 1);
    while low + step <= firsts.len() && firsts[low + step - 1] <= last {
        low += step;
        step *= 2;
    }
    // Past `low + step - 1` (if inside) every first is above `last`.
    let high = (low + step - 1).min(firsts.len());
    low + firsts[low..high].partition_point(|&first| first <= last)
}

/// The tables of [`BandFloors`] that [`BandFloors::stow`] gives up.
struct BandOrder {
    band_of: Vec<u32>,
    slots: Vec<Slot>,
    records: Vec<Record>,
    /// Empty, `2 · leaves` entries.
    tree: Vec<Least>,
}

/// The band order of [`BandFloors::new`]'s tensors (checked to fit there),
/// floors not yet set.
fn band_order(
    tensors: &[TensorLifetime],
    items: &[usize],
    by_start: &[usize],
    sizes: &[usize],
    unit: usize,
) -> Result<BandOrder, PlanError> {
    let n = items.len();
    // Below 2n, so below 2^32.
    let (ranks, _) = endpoint_ranks(tensors, items)?;
    let position: Vec<u32> = fallible::collect(n, by_start.iter().map(|&p| p as u32))?;
    let mut band_of = fallible::filled(n, 0u32)?;
    for (s, &p) in position.iter().enumerate() {
        band_of[p as usize] = s as u32;
    }
    let firsts: Vec<u32> =
        fallible::collect(n, position.iter().map(|&p| ranks[p as usize].0 as u32))?;
    let mut slots: Vec<Slot> = fallible::collect(
        n,
        position.iter().map(|&p| Slot {
            key: 0,
            last: ranks[p as usize].1 as u32,
            start: 0,
        }),
    )?;
    drop(ranks);
    // A band starts at the first tensor whose running maximum of last
    // uses reaches the tensor's first use (firsts only grow along the
    // order, so neither does that start), and ends past the last
    // tensor that starts by its last use.
    let mut reach: Vec<u32> = fallible::with_capacity(n)?;
    let mut most = 0;
    for slot in &slots {
        most = most.max(slot.last);
        reach.push(most);
    }
    let mut start = 0;
    let mut records: Vec<Record> = fallible::with_capacity(n)?;
    for s in 0..n {
        let first = firsts[s];
        while reach[start] < first {
            start += 1;
        }
        let stop = run_end(&firsts, s, slots[s].last);
        slots[s].start = start as u32;
        let p = position[s];
        records.push(Record {
            first,
            stop: stop as u32,
            position: p,
            // Checked below `u32::MAX` above.
            size: (sizes[p as usize] / unit) as u32,
        });
    }
    drop((reach, firsts, position));
    let leaves = n.div_ceil(BLOCK).next_power_of_two();
    Ok(BandOrder {
        band_of,
        slots,
        records,
        tree: fallible::filled(2 * leaves, EMPTY)?,
    })
}

impl Placement for BandFloors<'_> {
    /// Repeatedly places the unplaced tensor of least (floor, rank) at its
    /// floor; stops as soon as the arena passes `bound`.
    fn place(&mut self, order: &[usize], bound: usize) -> Result<Option<usize>, PlanError> {
        if self.stowed {
            self.restore()?;
        }
        let n = order.len();
        for (r, &p) in order.iter().enumerate() {
            if let Some(&q) = order.get(r + RANK_PREFETCH) {
                prefetch(&self.slots[self.band_of[q] as usize]);
            }
            // Every floor starts at 0. Below n < 2^31.
            self.slots[self.band_of[p] as usize].key = r as u64;
        }
        self.tree.fill(EMPTY);
        if n > 0 {
            let blocks = (n - 1) / BLOCK;
            (0..=blocks).for_each(|b| self.refresh(b));
            self.pull(0, blocks);
        }
        self.reads = 0;
        let (unit, rank_bits) = (self.unit, self.rank_bits);
        let rank_mask = (1u64 << rank_bits) - 1;
        let mut arena = 0usize;
        for placed in 1..=n {
            if placed % CLOCK_PERIOD == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(None);
            }
            let Least { key, at, start } = self.tree[1];
            let s = at as usize;
            let floor = key >> rank_bits;
            self.slots[s].key = PLACED | floor;
            self.refresh(s / BLOCK);
            self.pull(s / BLOCK, s / BLOCK);
            // The least tensor left is placed next unless this raise lifts
            // it, which needs it in this band: ask for its record, its
            // blocks and its block's path in the tree now, so that those
            // misses overlap this placement. (This tensor's came with the
            // last placement.)
            let next = self.tree[1];
            let at = next.at as usize;
            prefetch(&self.records[at]);
            // The blocks from its band's start to the one after its own,
            // each read whole when it is refreshed.
            let (from, to) = (
                next.start as usize / BLOCK * BLOCK,
                (at / BLOCK + 2) * BLOCK,
            );
            let ahead = (from..to.min(self.slots.len())).step_by(SLOTS_PER_LINE);
            for line in ahead.take(PREFETCH_LINES) {
                prefetch(&self.slots[line]);
            }
            let mut v = self.leaves + at / BLOCK;
            for _ in 0..PREFETCH_LEVELS {
                prefetch(&self.tree[v]);
                v /= 2;
            }
            let record = self.records[s];
            // Below the total of the sizes in units, which fits with the
            // ranks in 63 bits.
            let end = floor + record.size as u64;
            arena = arena.max(end as usize * unit);
            if arena > bound {
                return Ok(Some(arena)); // cannot win: stop early
            }
            let (start, stop) = (start as usize, record.stop as usize);
            let (first, top) = (record.first, end << rank_bits);
            for b in start / BLOCK..=(stop - 1) / BLOCK {
                // A block whose least floor is at the top already keeps
                // every key.
                if self.tree[self.leaves + b].key >= top {
                    continue;
                }
                let (from, to) = ((b * BLOCK).max(start), (b * BLOCK + BLOCK).min(stop));
                for slot in &mut self.slots[from..to] {
                    // A placed key stays as it is.
                    let raised = slot.key.max(top | (slot.key & rank_mask));
                    slot.key = if slot.last >= first { raised } else { slot.key };
                }
                self.refresh(b);
                self.reads += to - from + BLOCK;
            }
            self.pull(start / BLOCK, (stop - 1) / BLOCK);
            self.reads += PLACE_READS;
        }
        // The offsets by position, from the placed keys in band order.
        for (slot, record) in self.slots.iter().zip(&self.records) {
            self.offsets[record.position as usize] = (slot.key & !PLACED) as usize * unit;
        }
        self.last_reads = self.reads;
        Ok(Some(arena))
    }

    fn offsets(&self) -> &[usize] {
        &self.offsets
    }
}

#[cfg(test)]
mod tests {
    use super::super::assert_places_as_listed;
    use super::*;
    use crate::offsets::conflicts::{Conflicts, Degrees};

    #[test]
    fn the_galloping_search_ends_runs_where_a_binary_search_does() {
        let mut rng = crate::rng::XorShift(0x5EED_0B0D);
        for round in 0..2000 {
            let len = 1 + rng.below(if round % 4 == 0 { 3000 } else { 40 });
            let spread = 1 + rng.below(len * 2);
            let mut firsts: Vec<u32> = (0..len).map(|_| rng.below(spread) as u32).collect();
            firsts.sort_unstable();
            let s = rng.below(len);
            // A last use at or above the first use, up to past every first.
            let last = firsts[s] + rng.below(spread + 2) as u32;
            let expected = firsts.partition_point(|&first| first <= last);
            assert_eq!(run_end(&firsts, s, last), expected, "{firsts:?} {s} {last}");
        }
    }

    /// The band order places every ordering exactly as the listed
    /// lowest-floor rule does (same offsets, same arena, same early stop),
    /// on seeded tables with short, long and nested lifetimes, shared
    /// endpoints, equal sizes and zero sizes, and sizes whose floors pass
    /// `u32`.
    #[test]
    fn the_bands_give_the_listed_lowest_floor_plans() {
        let mut rng = crate::rng::XorShift(0x2545_F491_4F6C_DD1D);
        let mut below = |bound: usize| rng.below(bound);
        let mut refused = 0;
        for case in 0..400 {
            let horizon = 1 + below(if case % 2 == 0 { 60 } else { 300 });
            let long = [0, 3, 12][case % 3];
            // Floors past `u32` in bytes, or past what `u64` keys hold.
            let (wide, huge) = (case % 5 == 0, case % 5 == 1);
            let count = below(if huge {
                90
            } else if case % 2 == 0 {
                120
            } else {
                300
            });
            let tensors: Vec<TensorLifetime> = (0..count)
                .map(|_| {
                    let first = below(horizon);
                    let span = if below(60) < long { horizon } else { 6 };
                    let last = (first + below(span)).min(horizon);
                    let size = [0, 8, 16, 24, 40][below(5)];
                    let size = match size {
                        0 => 0,
                        _ if wide => size << 34,
                        _ if huge => (size << 50) + 8,
                        _ => size,
                    };
                    TensorLifetime::new(size, first, last)
                })
                .collect();
            let conflicts = Conflicts::new(&tensors).unwrap();
            let items = &conflicts.items;
            let sizes: Vec<usize> = items.iter().map(|&i| tensors[i].size).collect();
            let mut by_start: Vec<usize> = (0..items.len()).collect();
            by_start.sort_by_key(|&p| (tensors[items[p]].first_use, p));
            let Some(mut bands) =
                BandFloors::new(&tensors, items, &by_start, &sizes, None).unwrap()
            else {
                // Keys too wide for `u64`: only with the largest sizes.
                assert!(huge, "{tensors:?}");
                refused += 1;
                continue;
            };
            // Every eighth case gives up the tables now and then (making
            // them again costs the set-up, slow in a debug build).
            if case % 8 == 1 {
                let mut stowing = Stowing { bands, placed: 0 };
                assert_places_as_listed(&tensors, &conflicts, &sizes, &mut stowing);
            } else {
                assert_places_as_listed(&tensors, &conflicts, &sizes, &mut bands);
            }
        }
        assert!(refused > 0);
    }

    /// A band placer that gives up its tables before every ninth
    /// placement from the second, and checks that doing so keeps the last
    /// placement's offsets.
    struct Stowing<'a> {
        bands: BandFloors<'a>,
        placed: usize,
    }

    impl Placement for Stowing<'_> {
        fn place(&mut self, order: &[usize], bound: usize) -> Result<Option<usize>, PlanError> {
            if self.placed % 9 == 1 {
                let offsets = self.bands.offsets.clone();
                self.bands.stow();
                assert!(self.bands.slots.is_empty() && self.bands.records.is_empty());
                assert_eq!(self.bands.offsets, offsets);
            }
            self.placed += 1;
            self.bands.place(order, bound)
        }
        fn offsets(&self) -> &[usize] {
            self.bands.offsets()
        }
    }

    /// Sizes whose total passes `usize` are refused (the other placers
    /// report the tensor whose end passes it), as are sizes past `u32` in
    /// units; sizes that fit are taken.
    #[test]
    fn sizes_past_the_keys_are_refused() {
        let half = usize::MAX / 2 + 1;
        for (sizes, taken) in [
            (vec![half, half], false),
            (vec![1, u32::MAX as usize + 1], false),
            (vec![8, 24], true),
        ] {
            let tensors: Vec<TensorLifetime> = sizes
                .iter()
                .map(|&s| TensorLifetime::new(s, 0, 1))
                .collect();
            let items = [0, 1];
            let bands = BandFloors::new(&tensors, &items, &[0, 1], &sizes, None).unwrap();
            assert_eq!(bands.is_some(), taken, "{sizes:?}");
        }
    }

    /// Each tensor's band holds every tensor whose lifetime meets its own
    /// (by a check of every pair), and the band reads count the bands and a
    /// block per tensor.
    #[test]
    fn every_conflict_lies_in_the_band() {
        let mut rng = crate::rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for case in 0..200 {
            let horizon = 1 + rng.below(80);
            let tensors: Vec<TensorLifetime> = (0..rng.below(150))
                .map(|_| {
                    let first = rng.below(horizon);
                    let span = if rng.below(20) < case % 4 { horizon } else { 5 };
                    let last = (first + rng.below(span)).min(horizon);
                    TensorLifetime::new(8 * (1 + rng.below(4)), first, last)
                })
                .collect();
            let degrees = Degrees::new(&tensors).unwrap();
            let items = &degrees.items;
            let sizes: Vec<usize> = tensors.iter().map(|t| t.size).collect();
            let bands = BandFloors::new(&tensors, items, degrees.by_start(), &sizes, None)
                .unwrap()
                .unwrap();
            let mut reads = 0;
            for s in 0..items.len() {
                let (
                    start,
                    Record {
                        stop: end,
                        position,
                        ..
                    },
                ) = (bands.slots[s].start, bands.records[s]);
                reads += (end - start) as usize;
                let a = &tensors[position as usize];
                for (t, b) in bands
                    .records
                    .iter()
                    .map(|t| &tensors[t.position as usize])
                    .enumerate()
                {
                    let meet = a.first_use <= b.last_use && b.first_use <= a.last_use;
                    let inside = start as usize <= t && t < end as usize;
                    assert!(!meet || inside, "{s} meets {t} outside {start}..{end}");
                }
            }
            let back = degrees.reach_back(&tensors);
            assert_eq!(band_reads(items.len(), degrees.entries, back), reads);
        }
    }
}
