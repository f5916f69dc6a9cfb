//! The lowest-floor rule, shared by the planner with conflict lists and the
//! one without: repeatedly place the unplaced tensor of least (floor, rank)
//! key at its floor, where its floor is the top of the placed tensors whose
//! lifetimes meet its own and its rank is its place in the ordering.
//!
//! # Algorithm
//!
//! A lazy min-heap ([`RadixHeap`]). Floors only rise, so an entry pushed with a tensor's
//! floor of the time never exceeds its current key. When the least entry is
//! popped and its floor is the tensor's current one, its key is the least of
//! all current keys (every other entry is at least it and at most its
//! tensor's current key): the rule's choice. Otherwise the entry is stale
//! and goes back with the current floor. Each unplaced tensor has exactly
//! one entry, so the heap never holds more than `n`. The heap is kept by
//! floor level (a bucket per small floor, radix buckets above): the keys
//! of the least floor are sorted by rank once, when
//! that level is reached, and with conflict lists their stale keys are
//! found then too, so the level's pops are fresh; the tensors of a level
//! are known before they are placed, and their lists are asked of the
//! cache ahead, so that those misses overlap.
//!
//! Every tensor starts at floor 0 in rank order, and every raised floor is
//! above 0 (sizes are positive): the entries `(0, r)` are walked in rank
//! order by a cursor before the heap is read, with no heap operation for
//! the tensors placed at 0.
//!
//! A placement raises floors through [`Floors`]: by conflict lists (a
//! maximum per conflict, `O(1)`), or by a segment tree over the sections of
//! the timeline ([`SectionFloors`]: a range maximum per read, a range
//! "chmax" per placement, `O(log n)` each), which needs no lists.
//!
//! # What is exact
//!
//! The same tensor at every step as the rule's definition (tested against
//! it), so the same plan as any exact implementation of the rule.
//!
//! # Complexity
//!
//! `O((n + s) log n)` heap work for `s` stale entries (at most one per
//! floor increase), the sorts of the levels included, plus `O(n)` for the
//! scan of the small floors' buckets and the [`Floors`]' reads and raises.

use std::time::Instant;

use super::{Key, CLOCK_PERIOD};
use crate::error::PlanError;
use crate::offsets::conflicts::{Conflicts, Sections};
use crate::offsets::radix::{bit_length, sort_packed, RADIX_FROM};
use crate::sys::fallible;
use crate::sys::pages::prefetch;

/// Where the floors of the unplaced tensors come from. Floors are in units
/// (the gcd of the sizes).
pub(super) trait Floors {
    /// Every floor back to 0, nothing placed.
    fn reset(&mut self);
    /// The current floor of the unplaced position `p`.
    fn floor(&mut self, p: usize) -> usize;
    /// Position `p` is placed with its top at `end` units.
    fn place(&mut self, p: usize, end: usize);
    /// Asks the cache for what [`Floors::floor`] and [`Floors::place`] will
    /// read of position `p`, in two stages: `first` asks for what the
    /// second stage reads (a hint only; the second stage is best asked for
    /// a step after the first).
    fn prefetch(&self, _p: usize, _first: bool) {}
}

/// A placer's floors, heap and offsets, borrowed together.
pub(super) type Parts<'s, F, K> = (&'s mut F, &'s mut RadixHeap<K>, &'s mut [usize]);

/// What a lowest-floor placement reads and writes besides the floors.
pub(super) struct Placement<'s, K> {
    /// Each position's size in bytes, a multiple of `unit`.
    pub(super) sizes: &'s [usize],
    /// Each position's input index (for overflow errors).
    pub(super) items: &'s [usize],
    /// Greatest common divisor of the sizes (1 if none).
    pub(super) unit: usize,
    /// Each position's offset, written by the placement.
    pub(super) offsets: &'s mut [usize],
    /// The heap, reused between placements.
    pub(super) heap: &'s mut RadixHeap<K>,
    /// Number of stale entries the last placement met (its work beyond `n`
    /// heap operations).
    pub(super) stale: &'s mut usize,
    /// A placement that meets more stale entries per tensor placed (or per
    /// sixteenth of the tensors, early on) stops, answering `None` and
    /// setting `stopped`.
    pub(super) stale_limit: usize,
    pub(super) stopped: &'s mut bool,
    /// Whether a level's stale entries are found as the level fills rather
    /// than as they pop ([`RadixHeap::pop`]): the same plan, and the same
    /// number of stale entries once a placement finishes, but not where it
    /// stops early. For callers that neither limit nor count them then.
    pub(super) refresh: bool,
}

/// Places every tensor of `order` by the lowest-floor rule; returns the
/// arena, or `None` if `deadline` passed first (the clock is read every
/// [`CLOCK_PERIOD`] entries). Stops as soon as the arena passes `bound`
/// (the offsets are then partial).
///
/// Errors: [`PlanError::Overflow`] if an end offset would pass `usize::MAX`;
/// [`PlanError::OutOfMemory`].
pub(super) fn place<K: Key>(
    floors: &mut impl Floors,
    at: Placement<'_, K>,
    order: &[usize],
    bound: usize,
    deadline: Option<Instant>,
) -> Result<Option<usize>, PlanError> {
    floors.reset();
    at.heap.clear(order.len())?;
    let limits = Limits {
        bound,
        stale: at.stale_limit,
        deadline,
        refresh: at.refresh,
    };
    let (arena, stale, stopped) = run(
        floors, at.heap, at.sizes, at.items, at.unit, at.offsets, order, limits,
    )?;
    *at.stale = stale;
    *at.stopped = stopped;
    Ok(arena)
}

/// A radix heap of [`Key`]s by floor level: a min-heap for keys whose
/// floors never go below the current level, as the lowest-floor rule's are.
/// The level's keys are kept apart, sorted by rank once when the level is
/// reached (a key pushed later is at a higher floor, since sizes are
/// positive, so the level stays sorted). Every other key sits in the bucket
/// of the highest base-[`DIGITS`] digit in which its floor differs from the
/// level, and of its own value of that digit. When the level is empty, the
/// least bucket (lowest digit place, then least digit) is spread into lower
/// places around its least floor; the other buckets stay valid, since the
/// new level agrees with the old one above that digit. A key moves down at
/// most once per digit of the floors' range, usually once or twice, and
/// keys that differ only by rank never move apart: `O(1)` amortised per
/// push and pop in practice, plus the sort of each level.
///
/// The small floors (below [`near_floors`], in units) come first and have a
/// bucket each, so their keys are filed once and never moved, and the next
/// level is found by a scan that passes each of them once per placement;
/// the digit buckets take over past them. Floors are ends of placed
/// tensors, so on many tables all of them are small.
///
/// Each key travels with its tensor's position, so that a pop needs no
/// look-up of the rank in the ordering (a cache miss per pop on large
/// tables, where pops come in floor order, not rank order).
pub(super) struct RadixHeap<K> {
    /// The current level's keys, the least rank last.
    level_keys: Vec<(K, usize)>,
    /// Bucket `(place, digit)` at `place * DIGITS + digit`.
    buckets: Vec<Vec<(K, usize)>>,
    /// For each digit place, a bit per digit whose bucket is not empty.
    occupied: [u64; PLACES],
    /// The floor of the current level.
    level: usize,
    len: usize,
    /// While `near_mode`: the keys of each floor below `near.len()` (but
    /// the level's), filed once and never moved; keys at or above it wait
    /// unsorted in `far`, and go to the digit buckets once the near floors
    /// are passed. Floors are ends of placed tensors, so on many tables
    /// every floor is near.
    near: Vec<Vec<(K, usize)>>,
    far: Vec<(K, usize)>,
    /// Emptied buffers of passed near floors, for the floors that fill
    /// next: the buffers held are those of the floors with keys at once,
    /// not of every floor ever used.
    spare: Vec<Vec<(K, usize)>>,
    near_mode: bool,
    /// The least near floor that may hold keys above the level.
    scan: usize,
    /// A large level's ranks and positions packed for its sort, and the
    /// sort's scratch, kept for the next level.
    packed: Vec<u64>,
    scratch: Vec<u64>,
}

/// How many keys ahead of the one refreshed a [`RadixHeap`] level's fill
/// names the next to refresh, so that their cache misses overlap.
const REFRESH_AHEAD: usize = 8;

/// The most keys whose room an emptied bucket of a [`RadixHeap`] keeps.
const KEPT_BUFFER: usize = 1024;

/// Near floors of a [`RadixHeap`] for `n` tensors: few enough that their
/// empty buckets cost little to allocate and to scan once per placement.
fn near_floors(n: usize) -> usize {
    n.saturating_mul(2).saturating_add(64).min(1 << 16)
}

/// Bits of a digit of the floors in a [`RadixHeap`]: few enough that a
/// place's buckets are found by one bit mask, many enough that a key moves
/// down few times.
const DIGIT_BITS: u32 = 6;
/// Values of a digit.
const DIGITS: usize = 1 << DIGIT_BITS;
/// Digit places of a floor.
const PLACES: usize = usize::BITS.div_ceil(DIGIT_BITS) as usize;

impl<K: Key> Default for RadixHeap<K> {
    fn default() -> Self {
        RadixHeap {
            level_keys: Vec::new(),
            buckets: Vec::new(),
            occupied: [0; PLACES],
            level: 0,
            len: 0,
            near: Vec::new(),
            far: Vec::new(),
            spare: Vec::new(),
            near_mode: false,
            scan: 0,
            packed: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

/// The bucket of floor `floor` in a [`RadixHeap`] at level `level`: its
/// place and digit, or `None` on the level itself.
fn bucket(floor: usize, level: usize) -> Option<(usize, usize)> {
    let differ = floor ^ level;
    if differ == 0 {
        return None;
    }
    let place = ((usize::BITS - 1 - differ.leading_zeros()) / DIGIT_BITS) as usize;
    let digit = (floor >> (place as u32 * DIGIT_BITS)) & (DIGITS - 1);
    Some((place, digit))
}

impl<K: Key> RadixHeap<K> {
    /// Empties the heap, for `n` tensors; its level back to 0. Errors:
    /// [`PlanError::OutOfMemory`].
    fn clear(&mut self, n: usize) -> Result<(), PlanError> {
        let floors = near_floors(n);
        if self.near.len() != floors {
            self.near = fallible::collect(floors, (0..floors).map(|_| Vec::new()))?;
        }
        for keys in &mut self.near {
            keys.clear();
        }
        self.far.clear();
        self.near_mode = true;
        self.scan = 0;
        self.level_keys.clear();
        for place in 0..PLACES {
            let mut digits = std::mem::take(&mut self.occupied[place]);
            while digits != 0 {
                let digit = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                self.buckets[place * DIGITS + digit].clear();
            }
        }
        self.level = 0;
        self.len = 0;
        Ok(())
    }

    /// Files `entry` by its floor. Errors: [`PlanError::OutOfMemory`].
    #[inline]
    fn file(&mut self, entry: (K, usize)) -> Result<(), PlanError> {
        let floor = entry.0.floor();
        if self.near_mode && floor != self.level {
            return match self.near.get_mut(floor) {
                Some(keys) => {
                    if keys.capacity() == 0 {
                        if let Some(buffer) = self.spare.pop() {
                            *keys = buffer;
                        }
                    }
                    fallible::push(keys, entry)
                }
                None => fallible::push(&mut self.far, entry),
            };
        }
        match bucket(floor, self.level) {
            Some((place, digit)) => {
                if self.buckets.is_empty() {
                    let count = PLACES * DIGITS;
                    self.buckets = fallible::collect(count, (0..count).map(|_| Vec::new()))?;
                }
                fallible::push(&mut self.buckets[place * DIGITS + digit], entry)?;
                self.occupied[place] |= 1 << digit;
            }
            None => {
                // Only before the level is first popped (at 0, where no key
                // is pushed by the rule); kept sorted all the same.
                let keys = &mut self.level_keys;
                let at = keys.partition_point(|e| e.0 > entry.0);
                fallible::reserve(keys, 1)?;
                keys.insert(at, entry);
            }
        }
        Ok(())
    }

    /// Adds `key` of position `p`; its floor is above the current level, or
    /// the level has not been popped yet. Errors: [`PlanError::OutOfMemory`].
    fn push(&mut self, key: K, p: usize) -> Result<(), PlanError> {
        self.file((key, p))?;
        self.len += 1;
        Ok(())
    }

    /// Removes and returns the least key and its position. With `refresh`,
    /// a level's keys are checked as it fills: a key below its tensor's
    /// current floor, `refresh(p)`, is stale and goes straight back at that
    /// floor (counted in `stale`), so the level's sort and pops see fresh
    /// keys only; `refresh(p, Some(q))` is also told of a position `q` it
    /// will be asked about [`REFRESH_AHEAD`] keys later (to ask the cache
    /// for it). Errors: [`PlanError::OutOfMemory`].
    fn pop(
        &mut self,
        mut refresh: Option<&mut dyn FnMut(usize, Option<usize>) -> usize>,
        stale: &mut usize,
    ) -> Result<Option<(K, usize)>, PlanError> {
        while self.level_keys.is_empty() {
            if self.len == 0 {
                return Ok(None);
            }
            let (mut moving, from) = if self.near_mode {
                // The next near floor with keys, else past the near floors.
                let scan = self.scan;
                let Some(floor) = (scan..self.near.len()).find(|&f| !self.near[f].is_empty())
                else {
                    // Every key left is far: the digit buckets around the
                    // last level, below all of them, take them.
                    self.near_mode = false;
                    self.scan = self.near.len();
                    let far = std::mem::take(&mut self.far);
                    for &entry in &far {
                        self.file(entry)?;
                    }
                    self.far = far;
                    self.far.clear();
                    continue;
                };
                self.level = floor;
                self.scan = floor + 1;
                (std::mem::take(&mut self.near[floor]), None)
            } else {
                let Some(place) = (0..PLACES).find(|&place| self.occupied[place] != 0) else {
                    return Ok(None);
                };
                let digit = self.occupied[place].trailing_zeros() as usize;
                self.occupied[place] &= !(1 << digit);
                let at = place * DIGITS + digit;
                let moving = std::mem::take(&mut self.buckets[at]);
                self.level = moving
                    .iter()
                    .map(|e| e.0.floor())
                    .min()
                    .unwrap_or(self.level);
                (moving, Some(at))
            };
            // Every floor of the bucket agrees with the new level from its
            // place up: it goes to a lower place, or to the level (or,
            // refreshed, to its current floor's bucket).
            for (k, &(key, p)) in moving.iter().enumerate() {
                let mut entry = (key, p);
                if let Some(refresh) = refresh.as_mut() {
                    if key.floor() == self.level {
                        let ahead = moving.get(k + REFRESH_AHEAD).map(|e| e.1);
                        let floor = refresh(p, ahead);
                        if floor > key.floor() {
                            *stale += 1;
                            entry = (K::new(floor, key.rank()), p);
                        }
                    }
                }
                if entry.0.floor() == self.level {
                    fallible::push(&mut self.level_keys, entry)?;
                } else {
                    self.file(entry)?;
                }
            }
            moving.clear();
            // A bucket's buffer is kept for its next keys, but not a large
            // one: the buckets' peaks come at different times, and their
            // sum would be many times the keys held at once.
            if moving.capacity() > KEPT_BUFFER {
                moving = Vec::new();
            }
            match from {
                Some(at) => self.buckets[at] = moving,
                None => fallible::push(&mut self.spare, moving)?,
            }
            self.sort_level()?;
        }
        let entry = self.level_keys.pop();
        self.len -= usize::from(entry.is_some());
        Ok(entry)
    }

    /// Sorts the level's keys, the least rank last (where it pops). Every
    /// key there has the level's floor, so the order is the ranks'; on a
    /// large level, a radix sort of the ranks packed with their positions.
    /// Errors: [`PlanError::OutOfMemory`].
    fn sort_level(&mut self) -> Result<(), PlanError> {
        let keys = &mut self.level_keys;
        let fits = |e: &(K, usize)| e.0.rank() <= u32::MAX as usize && e.1 <= u32::MAX as usize;
        if keys.len() < RADIX_FROM || !keys.iter().all(fits) {
            keys.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
            return Ok(());
        }
        let packed = &mut self.packed;
        packed.clear();
        fallible::reserve(packed, keys.len())?;
        let mut top = 0;
        packed.extend(keys.iter().map(|&(key, p)| {
            top = top.max(key.rank() as u64);
            (key.rank() as u64) << 32 | p as u64
        }));
        // Ranks are distinct, so the positions below them never decide.
        sort_packed(packed, &mut self.scratch, 32, 32 + bit_length(top))?;
        for (entry, &key) in keys.iter_mut().zip(packed.iter().rev()) {
            *entry = (
                K::new(self.level, (key >> 32) as usize),
                key as u32 as usize,
            );
        }
        Ok(())
    }

    /// The position that the `k`-th pop from now (0: the next) returns, if
    /// the current level holds it.
    fn ahead(&self, k: usize) -> Option<usize> {
        let keys = &self.level_keys;
        let at = keys.len().checked_sub(k + 1)?;
        Some(keys[at].1)
    }
}

/// How many tensors ahead of the one in hand the cursor, and a level's
/// pops, ask the cache for their conflict lists (twice as far ahead for
/// where those lists start).
const PREFETCH_DISTANCE: usize = 4;

/// Where a placement stops.
struct Limits {
    /// Once the arena passes it.
    bound: usize,
    /// Once more stale entries per tensor placed have been met.
    stale: usize,
    /// Once it has passed.
    deadline: Option<Instant>,
    /// Whether stale entries are found as a level fills.
    refresh: bool,
}

/// The loop of [`place`] on its heap; the arena (or `None`) and the number
/// of stale entries met.
#[allow(clippy::too_many_arguments)]
fn run<K: Key>(
    floors: &mut impl Floors,
    heap: &mut RadixHeap<K>,
    sizes: &[usize],
    items: &[usize],
    unit: usize,
    offsets: &mut [usize],
    order: &[usize],
    limits: Limits,
) -> Result<(Option<usize>, usize, bool), PlanError> {
    let Limits {
        bound,
        stale: stale_limit,
        deadline,
        refresh,
    } = limits;
    let n = order.len();
    let mut cursor = 0;
    let mut stale = 0usize;
    let mut steps = 0usize;
    let mut arena = 0usize;
    let mut placed = 0usize;
    let early = (n / 16).max(1);
    loop {
        steps += 1;
        if steps % CLOCK_PERIOD == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok((None, stale, false));
        }
        // The least entry: the cursor's (floor 0) before any in the heap.
        let (p, floor) = if cursor < n {
            let r = cursor;
            cursor += 1;
            // Lists ahead, so that their cache misses overlap.
            if let Some(&q) = order.get(r + 2 * PREFETCH_DISTANCE) {
                floors.prefetch(q, true);
                prefetch(&sizes[q]);
            }
            if let Some(&q) = order.get(r + PREFETCH_DISTANCE) {
                floors.prefetch(q, false);
            }
            let p = order[r];
            let floor = floors.floor(p);
            if floor > 0 {
                heap.push(K::new(floor, r), p)?;
                continue;
            }
            (p, 0)
        } else {
            let popped = if refresh {
                // A level fills with the tensors to place next: ask for
                // their floors, sizes and lists' places a few keys ahead.
                let mut refresh = |q: usize, ahead: Option<usize>| {
                    if let Some(a) = ahead {
                        floors.prefetch(a, true);
                        prefetch(&sizes[a]);
                    }
                    floors.floor(q)
                };
                heap.pop(Some(&mut refresh), &mut stale)?
            } else {
                heap.pop(None, &mut stale)?
            };
            let Some((least, p)) = popped else {
                break;
            };
            // The level's next tensors, as for the cursor: a level can hold
            // many, so what its fill asked the cache for may be gone.
            if let Some(q) = heap.ahead(2 * PREFETCH_DISTANCE) {
                floors.prefetch(q, true);
                prefetch(&sizes[q]);
            }
            if let Some(q) = heap.ahead(PREFETCH_DISTANCE) {
                floors.prefetch(q, false);
            }
            let floor = floors.floor(p);
            if floor > least.floor() {
                stale += 1;
                if stale > stale_limit.saturating_mul(placed.max(early)) {
                    return Ok((None, stale, true));
                }
                heap.push(K::new(floor, least.rank()), p)?;
                continue;
            }
            (p, floor)
        };
        let offset = floor * unit;
        let end = offset
            .checked_add(sizes[p])
            .ok_or(PlanError::Overflow { tensor: items[p] })?;
        offsets[p] = offset;
        arena = arena.max(end);
        if arena > bound {
            return Ok((Some(arena), stale, false)); // cannot win: stop early
        }
        placed += 1;
        // Sizes are multiples of the unit, so `end` is too.
        floors.place(p, end / unit);
    }
    Ok((Some(arena), stale, false))
}

/// Floors by conflict lists: each position's floor in an array, raised by
/// every placed conflict (`O(1)` each); a placed position's floor is the
/// array's greatest value, which no raise lowers. When every floor fits
/// below that value in `u32`, each position's floor sits beside where its
/// list starts: one cache line for both on large tables, where each read
/// is a miss.
pub(super) struct ListFloors<'a> {
    conflicts: &'a Conflicts,
    floor: FloorArray,
}

/// The floors of a [`ListFloors`], in `u32` beside the lists' starts or in
/// `usize` alone.
enum FloorArray {
    /// `[floor, list start]` of each position, and the last list's end.
    Narrow(Vec<[u32; 2]>),
    Wide(Vec<usize>),
}

impl<'a> ListFloors<'a> {
    /// Floors of the positions of `conflicts`, each at most `most` (in
    /// units). Errors: [`PlanError::OutOfMemory`].
    pub(super) fn new(conflicts: &'a Conflicts, most: usize) -> Result<Self, PlanError> {
        let n = conflicts.items.len();
        Ok(ListFloors {
            conflicts,
            floor: if most < u32::MAX as usize {
                let starts = conflicts.starts();
                FloorArray::Narrow(fallible::collect(
                    starts.len(),
                    starts.iter().map(|&s| [0, s]),
                )?)
            } else {
                FloorArray::Wide(fallible::filled(n, 0)?)
            },
        })
    }
}

impl Floors for ListFloors<'_> {
    fn reset(&mut self) {
        match &mut self.floor {
            FloorArray::Narrow(slots) => slots.iter_mut().for_each(|slot| slot[0] = 0),
            FloorArray::Wide(floor) => floor.fill(0),
        }
    }
    #[inline]
    fn floor(&mut self, p: usize) -> usize {
        match &self.floor {
            FloorArray::Narrow(slots) => slots[p][0] as usize,
            FloorArray::Wide(floor) => floor[p],
        }
    }
    #[inline]
    fn prefetch(&self, p: usize, first: bool) {
        match &self.floor {
            FloorArray::Narrow(slots) => {
                if first {
                    if let Some(slot) = slots.get(p) {
                        prefetch(slot);
                    }
                } else if let (Some(&[_, start]), Some(&[_, end])) =
                    (slots.get(p), slots.get(p + 1))
                {
                    self.conflicts
                        .prefetch_entries(start as usize, end as usize);
                }
            }
            FloorArray::Wide(floor) => {
                if first {
                    if let Some(floor) = floor.get(p) {
                        prefetch(floor);
                    }
                    self.conflicts.prefetch_start(p);
                } else {
                    self.conflicts.prefetch_list(p);
                }
            }
        }
    }
    #[inline]
    fn place(&mut self, p: usize, end: usize) {
        match &mut self.floor {
            FloorArray::Narrow(slots) => {
                let (start, stop) = (slots[p][1] as usize, slots[p + 1][1] as usize);
                slots[p][0] = u32::MAX;
                // `end` is at most the bound the array was made for.
                let end = end as u32;
                for &q in &self.conflicts.list()[start..stop] {
                    let floor = &mut slots[q as usize][0];
                    *floor = (*floor).max(end);
                }
            }
            FloorArray::Wide(floor) => {
                floor[p] = usize::MAX;
                for &q in self.conflicts.neighbours(p) {
                    let floor = &mut floor[q as usize];
                    *floor = (*floor).max(end);
                }
            }
        }
    }
}

/// Floors without conflict lists: `H(s)`, the top of the placed tensors
/// live in section `s`, in a segment tree over the sections; a tensor's
/// floor is the maximum of `H` over its sections (the placed tensors whose
/// lifetimes meet its own are exactly those sharing a section with it).
/// Placing a tensor raises `H` to its top over its sections.
///
/// Each node keeps `tag`, a raise of its whole range, and `top`, the most
/// of the tags in its subtree. A raise sets the tags of the range's
/// canonical nodes and the tops of their ancestors (all on the paths from
/// the range's two end leaves); a read takes the tops of the canonical
/// nodes and the tags on those two paths. `O(log n)` each, no lazy pushes.
///
/// A node's tag and top sit side by side, in `u32` when every floor fits
/// (half the tree's bytes: on large tables its lower levels are cache
/// misses, one per level and end).
pub(super) enum SectionFloors {
    Narrow(SectionTree<u32>),
    Wide(SectionTree<usize>),
}

impl SectionFloors {
    /// The tree over `sections`, for floors of at most `most` (in units).
    /// Errors: [`PlanError::OutOfMemory`].
    pub(super) fn new(sections: Sections, most: usize) -> Result<Self, PlanError> {
        Ok(if u32::try_from(most).is_ok() {
            SectionFloors::Narrow(SectionTree::new(sections)?)
        } else {
            SectionFloors::Wide(SectionTree::new(sections)?)
        })
    }
}

impl Floors for SectionFloors {
    fn reset(&mut self) {
        match self {
            SectionFloors::Narrow(tree) => tree.reset(),
            SectionFloors::Wide(tree) => tree.reset(),
        }
    }
    #[inline]
    fn floor(&mut self, p: usize) -> usize {
        match self {
            SectionFloors::Narrow(tree) => tree.floor(p) as usize,
            SectionFloors::Wide(tree) => tree.floor(p),
        }
    }
    #[inline]
    fn place(&mut self, p: usize, end: usize) {
        match self {
            // `end` is at most the bound the tree was made for.
            SectionFloors::Narrow(tree) => tree.place(p, end as u32),
            SectionFloors::Wide(tree) => tree.place(p, end),
        }
    }
    #[inline]
    fn prefetch(&self, p: usize, first: bool) {
        match self {
            SectionFloors::Narrow(tree) => tree.prefetch(p, first),
            SectionFloors::Wide(tree) => tree.prefetch(p, first),
        }
    }
}

/// The segment tree of [`SectionFloors`], with floors of type `V`.
pub(super) struct SectionTree<V> {
    /// Section range `lo..hi` of each position.
    ranges: Vec<(usize, usize)>,
    /// Leaves: a power of two, at least the number of sections.
    leaves: usize,
    /// Each node's `[tag, top]`.
    nodes: Vec<[V; 2]>,
}

/// Levels above the leaves whose nodes a [`SectionTree`] prefetch asks for,
/// at each end of a range: the upper levels are few enough to stay cached.
const PREFETCHED_LEVELS: u32 = 3;

impl<V: Copy + Ord + Default> SectionTree<V> {
    fn new(sections: Sections) -> Result<Self, PlanError> {
        let leaves = sections.count.max(1).next_power_of_two();
        Ok(SectionTree {
            ranges: sections.ranges,
            leaves,
            nodes: fallible::filled(2 * leaves, [V::default(); 2])?,
        })
    }

    fn reset(&mut self) {
        self.nodes.fill([V::default(); 2]);
    }

    #[inline]
    fn floor(&self, p: usize) -> V {
        let (lo, hi) = self.ranges[p];
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
        let mut most = V::default();
        // The tags on the paths from both end leaves to the root: each of
        // those nodes holds a leaf of the range.
        let (mut a, mut b) = (l, r - 1);
        while a > 0 {
            most = most.max(self.nodes[a][0]).max(self.nodes[b][0]);
            a >>= 1;
            b >>= 1;
        }
        // The canonical nodes' tops.
        while l < r {
            if l & 1 == 1 {
                most = most.max(self.nodes[l][1]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                most = most.max(self.nodes[r][1]);
            }
            l >>= 1;
            r >>= 1;
        }
        most
    }

    #[inline]
    fn place(&mut self, p: usize, end: V) {
        let (lo, hi) = self.ranges[p];
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
        let (mut a, mut b) = (l, r - 1);
        while l < r {
            if l & 1 == 1 {
                let node = &mut self.nodes[l];
                *node = [node[0].max(end), node[1].max(end)];
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                let node = &mut self.nodes[r];
                *node = [node[0].max(end), node[1].max(end)];
            }
            l >>= 1;
            r >>= 1;
        }
        // Every ancestor of a canonical node lies on one of the two paths,
        // and every node on them holds a leaf of the range.
        while a > 0 {
            self.nodes[a][1] = self.nodes[a][1].max(end);
            self.nodes[b][1] = self.nodes[b][1].max(end);
            a >>= 1;
            b >>= 1;
        }
    }

    /// First stage: the position's range; second: the lower levels' nodes
    /// on the paths from its two end leaves (a canonical node is the
    /// sibling of a path node, on the same cache line).
    #[inline]
    fn prefetch(&self, p: usize, first: bool) {
        if first {
            // Asked for, not read: reading it here would wait for it.
            if let Some(range) = self.ranges.get(p) {
                prefetch(range);
            }
            return;
        }
        let Some(&(lo, hi)) = self.ranges.get(p) else {
            return;
        };
        let (a, b) = (lo + self.leaves, hi.max(lo + 1) - 1 + self.leaves);
        for level in 0..PREFETCHED_LEVELS {
            if let Some(node) = self.nodes.get(a >> level) {
                prefetch(node);
            }
            if let Some(node) = self.nodes.get(b >> level) {
                prefetch(node);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::XorShift;
    use std::collections::BTreeSet;

    /// The heap pops the least key each time, as an ordered set does, under
    /// the rule's use: pushes at floors above the last pop (some far above,
    /// across many digit places), pops between them, and refreshed levels
    /// whose stale keys rise; on both key widths.
    fn pops_like_an_ordered_set<K: Key + std::fmt::Debug>(seed: u64, top_bits: u32) {
        let mut rng = XorShift(seed);
        for _ in 0..200 {
            let mut heap = RadixHeap::<K>::default();
            heap.clear(rng.below(200)).unwrap();
            let mut oracle: BTreeSet<(K, usize)> = BTreeSet::new();
            // Each position's current floor; raised while it waits.
            let mut current: Vec<usize> = Vec::new();
            let mut level = 0usize;
            let mut stale = 0;
            for _ in 0..rng.below(300) {
                if rng.below(3) > 0 || oracle.is_empty() {
                    let p = current.len();
                    let span = 1usize << rng.below(top_bits as usize);
                    let floor = level + 1 + rng.below(span);
                    current.push(floor);
                    let key = K::new(floor, p);
                    heap.push(key, p).unwrap();
                    oracle.insert((key, p));
                } else {
                    // A waiting position's floor may rise (the heap finds
                    // it stale when refreshed, the oracle re-keys it).
                    if rng.below(2) == 0 {
                        let &(key, p) = oracle.iter().nth(rng.below(oracle.len())).unwrap();
                        oracle.remove(&(key, p));
                        let span = 1usize << rng.below(top_bits as usize);
                        current[p] += 1 + rng.below(span);
                        oracle.insert((K::new(current[p], p), p));
                    }
                    let mut refresh = |p: usize, _: Option<usize>| current[p];
                    let got = heap.pop(Some(&mut refresh), &mut stale).unwrap();
                    // Stale keys that were not refreshed pop below their
                    // tensor's floor: go back, as the rule does.
                    let mut got = got.unwrap();
                    while got.0.floor() < current[got.1] {
                        heap.push(K::new(current[got.1], got.0.rank()), got.1)
                            .unwrap();
                        got = heap.pop(Some(&mut refresh), &mut stale).unwrap().unwrap();
                    }
                    let least = oracle.pop_first().unwrap();
                    assert_eq!(got, least);
                    level = least.0.floor();
                }
            }
            while let Some(least) = oracle.pop_first() {
                let mut refresh = |p: usize, _: Option<usize>| current[p];
                let mut got = heap.pop(Some(&mut refresh), &mut stale).unwrap().unwrap();
                while got.0.floor() < current[got.1] {
                    heap.push(K::new(current[got.1], got.0.rank()), got.1)
                        .unwrap();
                    got = heap.pop(Some(&mut refresh), &mut stale).unwrap().unwrap();
                }
                assert_eq!(got, least);
            }
            assert_eq!(heap.pop(None, &mut stale).unwrap(), None);
        }
    }

    #[test]
    fn the_heap_pops_like_an_ordered_set() {
        pops_like_an_ordered_set::<u64>(0x1357_9BDF_2468_ACE0, 30);
        pops_like_an_ordered_set::<u128>(0x0FED_CBA9_8765_4321, 60);
    }

    /// Levels of thousands of keys (sorted by the radix sort of their
    /// ranks) pop in (floor, rank) order, as an ordered set does.
    fn large_levels_pop_in_order<K: Key + std::fmt::Debug>(seed: u64) {
        let mut rng = XorShift(seed);
        let n = 3 * RADIX_FROM + 7;
        let mut ranks: Vec<usize> = (0..n).collect();
        for k in (1..n).rev() {
            ranks.swap(k, rng.below(k + 1));
        }
        let mut heap = RadixHeap::<K>::default();
        heap.clear(n).unwrap();
        let mut oracle: BTreeSet<(K, usize)> = BTreeSet::new();
        for (p, &rank) in ranks.iter().enumerate() {
            let key = K::new(1 + rng.below(2), rank);
            heap.push(key, p).unwrap();
            oracle.insert((key, p));
        }
        let mut stale = 0;
        while let Some(least) = oracle.pop_first() {
            assert_eq!(heap.pop(None, &mut stale).unwrap(), Some(least));
        }
        assert_eq!(heap.pop(None, &mut stale).unwrap(), None);
    }

    #[test]
    fn large_levels_pop_in_rank_order() {
        large_levels_pop_in_order::<u64>(0x2468_1357_ACE0_BDF1);
        large_levels_pop_in_order::<u128>(0x1122_3344_5566_7788);
    }
}
