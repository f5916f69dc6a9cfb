//! The heap-free greedy's index of placed byte ranges, in slots of fixed
//! capacity carved out of the caller's workspace.
//!
//! Where many placed tensors conflict with each placement (a training
//! step's nested activations), reading them one by one, as the max-tree
//! walk does, costs `Θ(n)` per placement; their byte ranges, though, form
//! few pieces. As the heap form's [`PlacedIndex`](crate::offsets::greedy::PlacedIndex)
//! does, this index keeps *coalesced unions* of placed ranges at the nodes
//! of a segment tree, so a placement reads a few short unions. Its shape is
//! the simplest one whose memory is known before the first placement:
//!
//! - the leaves are the planned tensors' positions in first-use order, and
//!   the tensor at position `p` spans the positions `[p, starts_by[p])`
//!   (those starting by its last use): two tensors conflict exactly when
//!   their spans meet;
//! - `within[v]` holds the ranges of the placed tensors whose position lies
//!   below node `v`: at most one per leaf below it, so its slot holds that
//!   many; it is kept at every height a span's canonical node reaches;
//! - `stored[v]` holds the ranges of the placed tensors of which `v` is a
//!   canonical node: its slot holds as many as the spans counted there
//!   before the first placement.
//!
//! A placement's conflicts are those starting inside its span (the
//! `within` unions of its canonical nodes) and those live at its first
//! position (the `stored` unions on that leaf's path to the root). A union
//! never holds more ranges than were added to it, so no slot overflows,
//! and a union no later placement reads is no longer added to. Earlier
//! placements' covered prefixes ([`Facts`]) let a placement whose span
//! contains theirs read only the ranges ending past that prefix. The
//! upper part of each path is read from one cached union where the
//! workspace has room left ([`super::covers`]).
//!
//! Memory: `(h_w + 1) · n` ranges for `within` (`h_w` the highest
//! canonical node of any span, below `log2 n + 1`), one range per
//! canonical node of every span for `stored` (at most `2 log2 n` each),
//! `2 (2n + 1)` ranges of scratch for one placement's gather and merge,
//! and a node record per tree node; see [`indexed_scratch_bytes`]. The
//! covers take what is left, as far as they need.

use super::covers::{Covers, PoolSlot};
use crate::error::PlanError;
use crate::offsets::greedy::{
    add_range, best_fit_of_two, canonical_nodes, cover_height_of, merge_sorted_runs, past_floor,
    Facts, RangeStore, FACT_FROM,
};
use crate::sys::scratch::{array_bytes, Scratch};

type Range = (usize, usize);

/// A node's unions: where its `stored` slot starts, and how many ranges
/// its two unions hold. Kept together, as a placement reads them together.
#[derive(Clone, Copy, Default)]
struct Node {
    stored_at: usize,
    stored_len: u32,
    within_len: u32,
    /// The last step whose placement reads the node's `within` union, and
    /// its `stored` union (a placement below it): a union no later
    /// placement reads is no longer added to.
    within_until: u32,
    stored_until: u32,
}

/// The placed ranges of the heap-free greedy, over `planned` positions.
pub(super) struct FixedIndex<'a> {
    /// Planned positions, and leaves of the tree (a power of two above them).
    planned: usize,
    leaves: usize,
    /// Heights, from the leaves, of the highest `within` and `stored` union
    /// any placement reads or fills.
    within_height: u32,
    stored_height: u32,
    /// By node (1 the root, `leaves + p` the leaf of position `p`), and
    /// one past the last.
    nodes: &'a mut [Node],
    /// `within` unions, height by height: the node `j` of height `h` (from
    /// the left) has the slot at `h · planned + j · 2^h`, one range per
    /// position below it.
    within: &'a mut [Range],
    /// Node `v`'s `stored` union is in `stored[v.stored_at..(v + 1).stored_at]`.
    stored: &'a mut [Range],
    /// One placement's gathered runs and their merge.
    blocks: &'a mut [Range],
    merged: &'a mut [Range],
    /// No tensor planned is smaller.
    useful: usize,
    facts: Facts,
    /// The upper paths' unions, cached where the workspace has room.
    covers: Option<Covers<'a>>,
}

/// A union's slot of fixed capacity and the count of ranges in use.
struct Slot<'s> {
    ranges: &'s mut [Range],
    len: &'s mut u32,
}

impl RangeStore for Slot<'_> {
    fn ranges_mut(&mut self) -> &mut [Range] {
        &mut self.ranges[..*self.len as usize]
    }
    fn insert_at(&mut self, at: usize, range: Range) -> Result<(), PlanError> {
        let len = *self.len as usize;
        // A union holds at most the ranges added to it, which its slot
        // was sized for: a guard.
        if len == self.ranges.len() {
            return Err(PlanError::OutOfMemory {
                bytes: (len + 1).saturating_mul(16),
            });
        }
        self.ranges.copy_within(at..len, at + 1);
        self.ranges[at] = range;
        *self.len += 1;
        Ok(())
    }
    fn remove(&mut self, low: usize, high: usize) {
        let len = *self.len as usize;
        self.ranges.copy_within(high..len, low);
        *self.len -= (high - low) as u32;
    }
}

/// Runs one placement gathers at most: its floor, the canonical nodes of
/// its span (two per height) and the path of its first leaf.
const MAX_RUNS: usize = 1 + 3 * (u32::BITS as usize + 1);

/// Levels above the leaves of a tree over `planned` positions.
fn levels_over(planned: usize) -> u32 {
    planned.max(1).next_power_of_two().trailing_zeros()
}

/// Scratch bytes with which [`FixedIndex::new`] always finds room for
/// `planned` positions, whatever their spans: the worst case of its
/// layout (every height kept, `2 · levels + 1` canonical nodes per span),
/// with room for the alignment of its arrays.
pub(super) fn indexed_scratch_bytes(planned: usize) -> Option<usize> {
    let levels = levels_over(planned) as usize;
    let nodes = 2usize.checked_mul(planned.max(1).next_power_of_two())?;
    let ranges = (levels + 1)
        .checked_add(2 * levels + 1)?
        .checked_mul(planned)?
        .checked_add(2usize.checked_mul(2usize.checked_mul(planned)?.checked_add(1)?)?)?;
    array_bytes::<Node>(nodes.checked_add(1)?)?
        .checked_add(array_bytes::<Range>(ranges)?)?
        .checked_add(2 * core::mem::align_of::<usize>())
}

impl<'a> FixedIndex<'a> {
    /// The index for the tensors at positions `0..starts_by.len()`, the
    /// one at `p` spanning `[p, starts_by[p])`, none placed; none smaller
    /// than `useful` bytes. `None` if its arrays do not fit `scratch` (of
    /// which it may then have taken a part).
    ///
    /// `O(n log n)` time.
    pub(super) fn new(
        starts_by: &[u32],
        step_position: &[u32],
        useful: usize,
        scratch: &mut Scratch<'a>,
    ) -> Option<Self> {
        let planned = starts_by.len();
        let leaves = planned.max(1).next_power_of_two();
        let levels = levels_over(planned);
        let height = |node: usize| levels - node.ilog2();
        // Spans per node: a node's `stored` slot, and the heights read.
        let nodes = scratch.take(2 * leaves + 1, Node::default()).ok()?;
        let (mut within_height, mut stored_height) = (0, 0);
        for (p, &end) in starts_by.iter().enumerate() {
            canonical_nodes(leaves, p, end as usize, |node| {
                nodes[node].stored_len += 1;
                within_height = within_height.max(height(node));
            });
        }
        // The steps reading each node's unions.
        for (step, &p) in step_position.iter().enumerate() {
            let (p, step) = (p as usize, step as u32);
            canonical_nodes(leaves, p, starts_by[p] as usize, |node| {
                nodes[node].within_until = step;
            });
            nodes[leaves + p].stored_until = step;
        }
        for node in (1..leaves).rev() {
            let below = nodes[2 * node]
                .stored_until
                .max(nodes[2 * node + 1].stored_until);
            nodes[node].stored_until = below;
        }
        let mut total = 0usize;
        for (at, node) in nodes.iter_mut().enumerate() {
            if node.stored_len > 0 {
                stored_height = stored_height.max(height(at.max(1)));
            }
            node.stored_at = total;
            total += node.stored_len as usize;
            node.stored_len = 0;
        }
        let within_slots = (within_height as usize + 1).checked_mul(planned)?;
        let within = scratch.take(within_slots, (0, 0)).ok()?;
        let stored = scratch.take(total, (0, 0)).ok()?;
        let gather = 2 * planned + 1;
        let blocks = scratch.take(gather, (0, 0)).ok()?;
        let merged = scratch.take(gather, (0, 0)).ok()?;
        // Covers where ranges are stored above their height, in the room
        // left (none where it is too small to hold a few ranges a cover).
        let spans = starts_by.iter().enumerate();
        let covered = spans.fold(0usize, |sum, (p, &end)| {
            sum.saturating_add(end as usize - p)
        });
        let height = cover_height_of(covered, planned, levels);
        let covers = match height <= stored_height {
            true => scratch
                .take(Covers::slots_for(height, leaves), PoolSlot::default())
                .ok()
                .map(|slots| {
                    let room = scratch.take_rest();
                    (slots, room)
                })
                .filter(|(slots, room)| room.len() >= 8 * slots.len())
                .map(|(slots, room)| Covers::new(height, leaves, slots, room)),
            false => None,
        };
        Some(FixedIndex {
            planned,
            leaves,
            within_height,
            stored_height,
            nodes,
            within,
            stored,
            blocks,
            merged,
            useful,
            facts: Facts::default(),
            covers,
        })
    }

    /// Node `node`'s `within` slot.
    #[inline]
    fn within_slot(planned: usize, leaves: usize, node: usize) -> core::ops::Range<usize> {
        let height = leaves.trailing_zeros() - node.ilog2();
        let j = node - (leaves >> height);
        let start = height as usize * planned + (j << height);
        start..start + (1usize << height).min(planned - (j << height))
    }

    /// The offset best fit gives a tensor of `size` bytes spanning
    /// `[first, end)` among the placed tensors whose spans meet it, and
    /// the prefix its conflicts cover if it is worth recording.
    pub(super) fn best_fit(
        &mut self,
        first: usize,
        end: usize,
        size: usize,
    ) -> (usize, Option<usize>) {
        let (planned, leaves, useful) = (self.planned, self.leaves, self.useful);
        let floor = self.facts.floor(first, end - 1);
        let FixedIndex {
            nodes,
            within,
            stored,
            blocks,
            merged,
            covers,
            stored_height,
            ..
        } = self;
        let (nodes, stored) = (&**nodes, &**stored);
        // The `stored` union of the node `node`.
        let stored_of = |node: usize| {
            let Node {
                stored_at,
                stored_len,
                ..
            } = nodes[node];
            &stored[stored_at..stored_at + stored_len as usize]
        };
        let leaf = leaves + first;
        // The upper path's unions in one cover, where there is room for it.
        let mut cover = None;
        if let Some(covers) = covers {
            if let Some(at) = covers.push_down(leaf, useful, blocks, merged) {
                let built = covers.is_built(at) || {
                    let mut found: [&[Range]; MAX_RUNS] = [&[]; MAX_RUNS];
                    let mut count = 0;
                    let mut node = at;
                    for _ in covers.height..=*stored_height {
                        found[count] = stored_of(node);
                        count += usize::from(!found[count].is_empty());
                        node >>= 1;
                    }
                    let union = merge_all(&mut found[..count], &[], blocks, merged);
                    covers.build(at, union)
                };
                cover = built.then_some(at);
            }
        }
        // The unions read, past the floor; then merged smallest first (each
        // pass of the merge merges neighbours, so runs of like length meet)
        // but for the longest, which is not copied: it is merged last, in
        // place.
        let mut found: [&[Range]; MAX_RUNS] = [&[]; MAX_RUNS];
        let mut count = 0;
        let mut gathered = 0;
        canonical_nodes(leaves, first, end, |node| {
            let slot = Self::within_slot(planned, leaves, node);
            let ranges = &within[slot.start..slot.start + nodes[node].within_len as usize];
            gathered += ranges.len();
            found[count] = past_floor(ranges, floor);
            count += usize::from(!found[count].is_empty());
        });
        let below = match (&cover, &*covers) {
            (Some(_), Some(covers)) => covers.height,
            _ => *stored_height + 1,
        };
        let mut node = leaf;
        for _ in 0..below.min(*stored_height + 1) {
            let ranges = stored_of(node);
            gathered += ranges.len();
            found[count] = past_floor(ranges, floor);
            count += usize::from(!found[count].is_empty());
            node >>= 1;
        }
        if let (Some(at), Some(covers)) = (cover, &*covers) {
            let ranges = covers.union(at);
            gathered += ranges.len();
            found[count] = past_floor(ranges, floor);
            count += usize::from(!found[count].is_empty());
        }
        let found = &mut found[..count];
        found.sort_unstable_by_key(|ranges| ranges.len());
        let aside = found.last().copied().unwrap_or(&[]);
        let lead = [(0, floor)];
        let lead: &[Range] = if floor > 0 { &lead } else { &[] };
        let sorted = merge_all(&mut found[..count.saturating_sub(1)], lead, blocks, merged);
        let (offset, covered) = best_fit_of_two(sorted, aside, size, useful);
        let record = floor > 0 || gathered >= FACT_FROM;
        (offset, record.then_some(covered))
    }

    /// Records the byte range `range` of the tensor spanning `[first,
    /// end)`, and the prefix its query found covered (if it is to be
    /// recorded).
    pub(super) fn insert(
        &mut self,
        step: usize,
        first: usize,
        end: usize,
        range: Range,
        covered: Option<usize>,
    ) -> Result<(), PlanError> {
        let read_later = |until: u32| until as usize > step;
        let (planned, leaves, useful) = (self.planned, self.leaves, self.useful);
        if let Some(covered) = covered {
            self.facts.record(first, end - 1, covered, range, useful);
        }
        // Up the path: where a union already covers the range, so do all
        // above it, which have received every range it has.
        let mut node = leaves + first;
        for _ in 0..=self.within_height {
            if read_later(self.nodes[node].within_until) {
                let slot = Self::within_slot(planned, leaves, node);
                let mut store = Slot {
                    ranges: &mut self.within[slot],
                    len: &mut self.nodes[node].within_len,
                };
                if !add_range(&mut store, range, useful)? {
                    break;
                }
            }
            node >>= 1;
        }
        let mut result = Ok(());
        let (stored, nodes, covers) = (&mut *self.stored, &mut *self.nodes, &mut self.covers);
        canonical_nodes(leaves, first, end, |node| {
            if result.is_ok() && read_later(nodes[node].stored_until) {
                let slot = nodes[node].stored_at..nodes[node + 1].stored_at;
                let mut store = Slot {
                    ranges: &mut stored[slot],
                    len: &mut nodes[node].stored_len,
                };
                result = add_range(&mut store, range, useful).map(|_| ());
                if let Some(covers) = covers {
                    if leaves.trailing_zeros() - node.ilog2() >= covers.height {
                        covers.insert(node, range, useful);
                    }
                }
            }
        });
        result
    }
}

/// The union of `lead` and the sorted runs `runs`, copied into `blocks`
/// and merged there or in `merged` (both long enough for them all).
fn merge_all<'m>(
    runs: &mut [&[Range]],
    lead: &[Range],
    blocks: &'m mut [Range],
    merged: &'m mut [Range],
) -> &'m [Range] {
    let mut bounds = [0usize; MAX_RUNS + 2];
    let (mut count, mut fill) = (0, 0);
    for ranges in core::iter::once(&lead).chain(runs.iter()) {
        if !ranges.is_empty() {
            bounds[count] = fill;
            count += 1;
            blocks[fill..fill + ranges.len()].copy_from_slice(ranges);
            fill += ranges.len();
        }
    }
    bounds[count] = fill;
    if count <= 1 {
        return &blocks[..fill];
    }
    let (in_merged, len) = merge_sorted_runs(
        &mut blocks[..fill],
        &mut merged[..fill],
        &mut bounds[..=count],
    );
    if in_merged {
        &merged[..len]
    } else {
        &blocks[..len]
    }
}
