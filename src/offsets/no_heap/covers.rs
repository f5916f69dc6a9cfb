//! Covers: the heap-free index's cache of the unions its placements read
//! on the upper part of a leaf's path, kept in whatever room the workspace
//! has left.
//!
//! A placement reads the `stored` union of every node on its first leaf's
//! path; on a training step the upper nodes hold most of their ranges,
//! spread thinly over many unions that only together coalesce. As the heap
//! form's index does, a *cover* at a node `c` of height `H` keeps the
//! union of the `stored` unions of `c` and of every node above it, so a
//! placement reads one union for the whole upper path. A range stored at a
//! node above `H` waits in that node's *lazy* union until a placement below
//! reads a cover there: the waiting ranges are then pushed down the path,
//! to both children of each node on the way, coalescing as they go.
//!
//! Everything here is a cache of the index's `stored` unions, which hold
//! every range: a cover not yet built is built from them when first read;
//! when the room runs out, every cover and lazy union is dropped and built
//! again as placements read them. So the room is never a bound on the
//! plan, only on how much the cache spares.

use core::mem::MaybeUninit;

use crate::error::PlanError;
use crate::offsets::greedy::{add_range, merge_filled, RangeStore};

type Range = (usize, usize);

/// A union's place in the room: its start, ranges in use and room for.
#[derive(Clone, Copy, Default)]
pub(super) struct PoolSlot {
    at: usize,
    len: u32,
    cap: u32,
}

/// The covers of the nodes at one height and the lazy unions above them.
pub(super) struct Covers<'a> {
    /// The covers' height above the leaves.
    pub(super) height: u32,
    /// Node id of the first cover; covers are nodes `base..2 · base`, the
    /// lazy unions nodes `1..base`.
    base: usize,
    /// By node id: each union's slot in `room` (a cover is built once its
    /// slot has room).
    slots: &'a mut [PoolSlot],
    room: &'a mut [MaybeUninit<Range>],
    /// The first range of `room` no slot has taken.
    bump: usize,
}

/// A slot's ranges as a union [`add_range`] can grow.
struct InRoom<'s> {
    ranges: &'s mut [MaybeUninit<Range>],
    len: &'s mut u32,
}

impl RangeStore for InRoom<'_> {
    fn ranges_mut(&mut self) -> &mut [Range] {
        let len = *self.len as usize;
        // SAFETY: the first `len` ranges of a slot were written.
        unsafe { &mut *(core::ptr::from_mut(&mut self.ranges[..len]) as *mut [Range]) }
    }
    fn insert_at(&mut self, at: usize, range: Range) -> Result<(), PlanError> {
        let len = *self.len as usize;
        // The caller reserved room for one more.
        self.ranges.copy_within(at..len, at + 1);
        self.ranges[at] = MaybeUninit::new(range);
        *self.len += 1;
        Ok(())
    }
    fn remove(&mut self, low: usize, high: usize) {
        let len = *self.len as usize;
        self.ranges.copy_within(high..len, low);
        *self.len -= (high - low) as u32;
    }
}

impl<'a> Covers<'a> {
    /// Covers at `height` in a tree of `leaves` leaves, over `slots` (one
    /// per node up to the covers' level) and `room`.
    pub(super) fn new(
        height: u32,
        leaves: usize,
        slots: &'a mut [PoolSlot],
        room: &'a mut [MaybeUninit<Range>],
    ) -> Self {
        debug_assert_eq!(slots.len(), 2 * (leaves >> height));
        Covers {
            height,
            base: leaves >> height,
            slots,
            room,
            bump: 0,
        }
    }

    /// Slots for the covers at `height` over `leaves` leaves.
    pub(super) fn slots_for(height: u32, leaves: usize) -> usize {
        2 * (leaves >> height)
    }

    /// Drops every cover and lazy union.
    fn clear(&mut self) {
        #[cfg(test)]
        ROOM_EVENTS.with(|events| events.set((events.get().0, events.get().1 + 1)));
        self.bump = 0;
        self.slots.fill(PoolSlot::default());
    }

    /// Room for `need` ranges in node `id`'s slot, moved to the free end of
    /// the room if it has less (the room compacted first if its end is
    /// reached); `false` if the room has none (then every union was
    /// dropped).
    fn reserve(&mut self, id: usize, need: usize) -> bool {
        let slot = self.slots[id];
        if slot.cap as usize >= need {
            return true;
        }
        let cap = need.max(2 * slot.cap as usize).max(8);
        if cap >= u32::MAX as usize {
            self.clear();
            return false;
        }
        // A block is its owner's id and room, then the room.
        if cap + 1 > self.room.len() - self.bump && !self.compact(cap + 1) {
            self.clear();
            return false;
        }
        let slot = self.slots[id];
        let at = self.bump + 1;
        self.room[self.bump] = MaybeUninit::new((id, cap));
        self.room
            .copy_within(slot.at..slot.at + slot.len as usize, at);
        self.slots[id] = PoolSlot {
            at,
            len: slot.len,
            cap: cap as u32,
        };
        self.bump = at + cap;
        true
    }

    /// Slides the blocks still in use to the start of the room, each cut to
    /// half again what it holds: whether `free` ranges are then free past them, and
    /// at least a quarter of the room (else caching costs more than it
    /// spares here, and the caller drops it all).
    fn compact(&mut self, free: usize) -> bool {
        #[cfg(test)]
        ROOM_EVENTS.with(|events| events.set((events.get().0 + 1, events.get().1)));
        let (mut read, mut write) = (0, 0);
        while read < self.bump {
            // SAFETY: every block starts with the header written when it
            // was taken, and blocks follow one another up to `bump`.
            let (id, cap) = unsafe { self.room[read].assume_init() };
            let slot = self.slots[id];
            if slot.at == read + 1 {
                // Room for half as many again, so that the next few
                // additions do not move it at once.
                let len = slot.len as usize;
                let kept = (len + len / 2).max(1).min(slot.cap as usize);
                self.room[write] = MaybeUninit::new((id, kept));
                self.room.copy_within(read + 1..read + 1 + len, write + 1);
                self.slots[id] = PoolSlot {
                    at: write + 1,
                    len: slot.len,
                    cap: kept as u32,
                };
                write += 1 + kept;
            }
            read += 1 + cap;
        }
        self.bump = write;
        let left = self.room.len() - write;
        left >= free && left >= self.room.len() / 4
    }

    /// The union of node `id`.
    pub(super) fn union(&self, id: usize) -> &[Range] {
        let slot = self.slots[id];
        let ranges = &self.room[slot.at..slot.at + slot.len as usize];
        // SAFETY: the first `len` ranges of a slot were written.
        unsafe { &*(core::ptr::from_ref(ranges) as *const [Range]) }
    }

    /// Adds `range` to node `id`'s union; `false` if the room ran out.
    fn add(&mut self, id: usize, range: Range, useful: usize) -> bool {
        if !self.reserve(id, self.slots[id].len as usize + 1) {
            return false;
        }
        let PoolSlot { at, cap, .. } = self.slots[id];
        let mut union = InRoom {
            ranges: &mut self.room[at..at + cap as usize],
            len: &mut self.slots[id].len,
        };
        // The slot has room, so the addition cannot fail.
        add_range(&mut union, range, useful).is_ok()
    }

    /// Adds the sorted `ranges` to node `id`'s union, through `scratch` (at
    /// least as long as both together) where they are many; `false` if
    /// the room ran out.
    fn add_all(
        &mut self,
        id: usize,
        ranges: &[Range],
        useful: usize,
        scratch: &mut [Range],
    ) -> bool {
        let len = self.slots[id].len as usize;
        // One by one, each shifts half the union on average: only for a few.
        if ranges.len() <= 2 || ranges.len() * 256 <= len {
            return ranges.iter().all(|&range| self.add(id, range, useful));
        }
        let merged = merge_filled(self.union(id), ranges, useful, scratch);
        if !self.reserve(id, merged) {
            return false;
        }
        let at = self.slots[id].at;
        for (slot, &range) in self.room[at..at + merged]
            .iter_mut()
            .zip(&scratch[..merged])
        {
            *slot = MaybeUninit::new(range);
        }
        self.slots[id].len = merged as u32;
        true
    }

    /// Records the range a placement put at canonical node `node` (of
    /// `height`, at or above the covers'): in its cover if built, else in
    /// its lazy union.
    pub(super) fn insert(&mut self, node: usize, range: Range, useful: usize) {
        if node < self.base || self.is_built(node) {
            self.add(node, range, useful);
        }
    }

    /// Pushes the lazy unions on the path from the root to the cover over
    /// leaf node `leaf_node` down, each into both children (`spare` holds
    /// the one pushed, `scratch` a merge; each as long as two unions):
    /// the cover's id, or `None` if the room ran out (then nothing is
    /// cached).
    pub(super) fn push_down(
        &mut self,
        leaf_node: usize,
        useful: usize,
        spare: &mut [Range],
        scratch: &mut [Range],
    ) -> Option<usize> {
        let cover = leaf_node >> self.height;
        for shift in (1..=cover.ilog2()).rev() {
            let node = cover >> shift;
            let waiting = self.slots[node].len as usize;
            if waiting == 0 {
                continue;
            }
            let pending = &mut spare[..waiting];
            pending.copy_from_slice(self.union(node));
            self.slots[node].len = 0;
            for child in [2 * node, 2 * node + 1] {
                // A cover not built yet will be built from `stored`.
                let built = child < self.base || self.is_built(child);
                if built && !self.add_all(child, pending, useful, scratch) {
                    return None;
                }
            }
        }
        Some(cover)
    }

    /// Whether `cover` holds its union.
    pub(super) fn is_built(&self, cover: usize) -> bool {
        self.slots[cover].cap > 0
    }

    /// Builds `cover` as `union`; `false` if the room ran out.
    pub(super) fn build(&mut self, cover: usize, union: &[Range]) -> bool {
        if !self.reserve(cover, union.len().max(1)) {
            return false;
        }
        let at = self.slots[cover].at;
        for (slot, &range) in self.room[at..].iter_mut().zip(union) {
            *slot = MaybeUninit::new(range);
        }
        self.slots[cover].len = union.len() as u32;
        true
    }
}

#[cfg(test)]
std::thread_local! {
    /// Compactions and clearings of the room on this thread, for the tests
    /// that run out of room on purpose.
    pub(super) static ROOM_EVENTS: core::cell::Cell<(usize, usize)> =
        const { core::cell::Cell::new((0, 0)) };
}
