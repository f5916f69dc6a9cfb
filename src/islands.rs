//! Island discovery: connected components with canonical labels (after
//! google-deepmind/mujoco#3396 and mujoco_warp#1541).
//!
//! # Problem
//!
//! Given nodes `0..n` and incidences `(a, b)` between them, partition the nodes
//! that appear in at least one incidence into connected components
//! ("islands"), so that a constraint solver can treat them independently. A
//! node in no incidence belongs to no island; an incidence `(t, t)` activates
//! `t` on its own.
//!
//! # Algorithm
//!
//! A disjoint-set forest in one parent array. Union links the larger root
//! under the smaller, so every root is the minimum of its set and
//! `parent[x] <= x` for every active node. One ascending pass then numbers the
//! roots in order and gives every other node its parent's number, which is
//! already final because the parent is smaller.
//!
//! Union is Rem's algorithm with splicing (Patwary, Blair and Manne,
//! "Experiments on union-find algorithms for the disjoint-set data
//! structure", SEA 2010): the two walks towards the roots advance
//! alternately, always on the side whose parent is larger, and each step
//! re-points that node at the other side's smaller parent. It stops as soon
//! as both sides share a parent (same set) or a root is reached, which is
//! then linked under the other side's smaller parent. Every re-pointing
//! moves a node to a smaller parent in the union of both sets, so the two
//! invariants above hold throughout and the labels are exactly those of the
//! specification's link-by-minimum forest with full path compression. The
//! walk is iterative (a chain of depth `n - 1` cannot overflow the stack).
//!
//! Parents are 32-bit while `node_count` allows, halving the cache
//! footprint. Once the parent array outgrows the per-core caches, the
//! parents (and grandparents) of the incidences a few steps ahead are
//! prefetched, so cache misses overlap instead of queueing, and so are the
//! labels the numbering pass is about to read; a smaller array is walked
//! without, since there the prefetches cost more than they hide. A node is
//! activated without a branch and islands are counted by the numbering
//! pass, which also writes the returned labels. Validation is fused into
//! the same single pass over the incidences. Parent and label arrays of
//! 4 MiB or more are advised to Linux as transparent huge pages, which cuts
//! the page faults of a fresh 10-million-node call about fourfold.
//!
//! # What is exact
//!
//! The components, and their labels: island `k` is the one whose smallest
//! member is the `k`-th smallest among the islands' smallest members, whatever
//! the order and orientation of the incidences.
//!
//! # Complexity
//!
//! One parent entry of scratch per node (4 bytes below `u32::MAX` nodes, a
//! machine word beyond), independent of the number of incidences. Linking is
//! by minimum index, not by rank or size, so the inverse-Ackermann bound does
//! not apply; Rem's splicing, like path compression, gives `O(log n)`
//! amortised per operation (Tarjan and van Leeuwen, 1984, analyse splicing as
//! a compaction rule). `O(n + m log n)` time for `m` incidences.

use crate::error::PlanError;
use crate::input::{check_incidences, InputList};
use crate::sys::pages::{advise_huge_pages, prefetch};

/// A parent entry: a node index stored as `u32`, `usize` or an engine's
/// `i32`, with one value reserved to mark a node that no incidence has named
/// yet (and, once labelled, a node in no island).
pub(crate) trait Parent: Copy + Eq {
    const INACTIVE: Self;
    fn from_index(index: usize) -> Self;
    fn index(self) -> usize;
}

/// -1 is MuJoCo's "no island"; indices are below `i32::MAX`.
impl Parent for i32 {
    const INACTIVE: Self = -1;
    #[inline(always)]
    fn from_index(index: usize) -> Self {
        index as i32
    }
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
}

impl Parent for u32 {
    const INACTIVE: Self = u32::MAX;
    #[inline(always)]
    fn from_index(index: usize) -> Self {
        index as u32
    }
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
}

impl Parent for usize {
    const INACTIVE: Self = usize::MAX;
    #[inline(always)]
    fn from_index(index: usize) -> Self {
        index
    }
    #[inline(always)]
    fn index(self) -> usize {
        self
    }
}

/// A physics engine's incidences (MuJoCo's layout): `2 * count` ints, -1
/// for a static endpoint (the world), which stands for the other endpoint.
/// A pair naming no node (two -1s, or any other negative value) reads as an
/// out-of-range node.
pub(crate) struct StaticEndpointPairs<'a>(pub(crate) &'a [i32]);

impl InputList for StaticEndpointPairs<'_> {
    type Item = (usize, usize);
    #[inline(always)]
    fn count(&self) -> usize {
        self.0.len() / 2
    }
    #[inline(always)]
    fn at(&self, i: usize) -> (usize, usize) {
        match (self.0[2 * i], self.0[2 * i + 1]) {
            (a, b) if a >= 0 && b >= 0 => (a as usize, b as usize),
            (-1, b) if b >= 0 => (b as usize, b as usize),
            (a, -1) if a >= 0 => (a as usize, a as usize),
            _ => (usize::MAX, usize::MAX),
        }
    }
}

/// How many incidences ahead the endpoints' parents are prefetched: far
/// enough to hide a cache miss behind the unions in between, near enough to
/// stay cached.
const PREFETCH_DISTANCE: usize = 32;

/// How many incidences ahead the *grandparents* are prefetched: by then the
/// parents prefetched earlier are in cache, so reading them is cheap.
const GRANDPARENT_DISTANCE: usize = 12;

/// Joins the sets of active nodes `x` and `y` by Rem's algorithm with
/// splicing.
///
/// Each step takes the side whose parent is larger, re-points that node at
/// the other side's (smaller) parent and moves on to its old parent. A root
/// reached this way is linked under the other side's parent, which is
/// smaller than it, so roots stay their set's minimum.
#[inline(always)]
fn union<P: Parent>(parent: &mut [P], mut x: usize, mut y: usize) {
    loop {
        let (px, py) = (parent[x].index(), parent[y].index());
        if px == py {
            return;
        }
        if px > py {
            parent[x] = P::from_index(py);
            if px == x {
                return;
            }
            x = px;
        } else {
            parent[y] = P::from_index(px);
            if py == y {
                return;
            }
            y = py;
        }
    }
}

/// Builds the forest of `incidences` in `parent` (all `INACTIVE` on entry),
/// validating as it goes. Afterwards
/// `parent[x]` is `INACTIVE`, or a node `<= x` in the same island, and roots
/// are `parent[x] == x`.
fn build_forest<P: Parent, I: InputList<Item = (usize, usize)> + ?Sized>(
    parent: &mut [P],
    incidences: &I,
) -> Result<(), PlanError> {
    if worth_prefetching(parent) {
        build_forest_with::<true, P, I>(parent, incidences)
    } else {
        build_forest_with::<false, P, I>(parent, incidences)
    }
}

/// Parent arrays above this size (1M 32-bit entries) outgrow the per-core
/// caches, so their misses are worth prefetching; below it the prefetches'
/// own loads and address arithmetic cost more than the misses they hide.
const PREFETCH_ABOVE_BYTES: usize = 4 << 20;

fn worth_prefetching<P>(parent: &[P]) -> bool {
    core::mem::size_of_val(parent) > PREFETCH_ABOVE_BYTES
}

/// [`build_forest`], prefetching the parents ahead or not.
#[inline(always)]
fn build_forest_with<
    const PREFETCH: bool,
    P: Parent,
    I: InputList<Item = (usize, usize)> + ?Sized,
>(
    parent: &mut [P],
    incidences: &I,
) -> Result<(), PlanError> {
    let node_count = parent.len();
    let count = incidences.count();
    for i in 0..count {
        let (a, b) = incidences.at(i);
        if PREFETCH && i + PREFETCH_DISTANCE < count {
            let (c, d) = incidences.at(i + PREFETCH_DISTANCE);
            if let (Some(pc), Some(pd)) = (parent.get(c), parent.get(d)) {
                prefetch(pc);
                prefetch(pd);
            }
        }
        if PREFETCH && i + GRANDPARENT_DISTANCE < count {
            let (c, d) = incidences.at(i + GRANDPARENT_DISTANCE);
            for x in [c, d] {
                // Inactive or out of range: nothing to fetch.
                if let Some(grandparent) = parent.get(x).and_then(|p| parent.get(p.index())) {
                    prefetch(grandparent);
                }
            }
        }
        if a >= node_count || b >= node_count {
            // The first incidence at fault is this one: report it as the check does.
            return check_incidences(node_count, incidences);
        }
        // Activation without a branch: whether a node is new is as random
        // as the incidences' order, so a branch would often be mispredicted.
        // Islands are counted by the numbering pass instead.
        for x in [a, b] {
            let p = parent[x];
            parent[x] = if p == P::INACTIVE {
                P::from_index(x)
            } else {
                p
            };
        }
        union(parent, a, b);
    }
    Ok(())
}

/// Replaces every active parent entry by its node's canonical label, in one
/// ascending pass, hands each node's entry to `emit` once final, and returns
/// the number of labels given.
#[inline(always)]
fn label_in_place<P: Parent>(parent: &mut [P], emit: impl FnMut(P)) -> usize {
    if worth_prefetching(parent) {
        label_in_place_with::<true, P>(parent, emit)
    } else {
        label_in_place_with::<false, P>(parent, emit)
    }
}

#[inline(always)]
fn label_in_place_with<const PREFETCH: bool, P: Parent>(
    parent: &mut [P],
    mut emit: impl FnMut(P),
) -> usize {
    let mut next = 0;
    for x in 0..parent.len() {
        // The parent a few nodes ahead is read soon, at a random place.
        if let Some(ahead) = parent.get(x + PREFETCH_DISTANCE).filter(|_| PREFETCH) {
            if let Some(target) = parent.get(ahead.index()) {
                prefetch(target);
            }
        }
        let p = parent[x];
        if p != P::INACTIVE {
            // Ascending: a node's parent is smaller, so its label is final.
            parent[x] = if p.index() == x {
                next += 1;
                P::from_index(next - 1)
            } else {
                parent[p.index()]
            };
        }
        emit(parent[x]);
    }
    next
}

/// Allocates `node_count` inactive parents, reporting a failure as the
/// input's first fault if it has one (validation comes first), else as
/// [`PlanError::OutOfMemory`].
fn inactive_parents<P: Parent>(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> Result<Vec<P>, PlanError> {
    let mut parent = Vec::new();
    if parent.try_reserve_exact(node_count).is_err() {
        check_incidences(node_count, incidences)?;
        return Err(PlanError::OutOfMemory {
            bytes: node_count.saturating_mul(core::mem::size_of::<P>()),
        });
    }
    advise_huge_pages(parent.spare_capacity_mut());
    parent.resize(node_count, P::INACTIVE);
    Ok(parent)
}

/// Writes each node's label into `labels` (one entry per node; its prior
/// contents are ignored) and returns the number of islands, with no heap
/// allocation: the label array is the forest's parent array. On error
/// `labels` is untouched, because every incidence is checked first.
pub(crate) fn try_islands_into<P: Parent, I: InputList<Item = (usize, usize)> + ?Sized>(
    incidences: &I,
    labels: &mut [P],
) -> Result<usize, PlanError> {
    check_incidences(labels.len(), incidences)?;
    labels.fill(P::INACTIVE);
    build_forest(labels, incidences)?;
    Ok(label_in_place(labels, |_| ()))
}

fn islands_with<P: Parent>(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> Result<(Vec<Option<usize>>, usize), PlanError> {
    let mut parent = inactive_parents::<P>(node_count, incidences)?;
    build_forest(&mut parent, incidences)?;
    let mut labels = crate::sys::fallible::with_capacity(node_count)?;
    advise_huge_pages(labels.spare_capacity_mut());
    // The labels are written in the numbering pass itself: one pass over
    // the parents, not two.
    let count = label_in_place(&mut parent, |label| {
        labels.push((label != P::INACTIVE).then(|| label.index()));
    });
    Ok((labels, count))
}

/// Each node's island label and the number of islands, or why they cannot
/// be computed. [`Islands::try_find`] returns the same as a named struct.
///
/// Errors: [`PlanError::IncidenceOutOfRange`] for the first incidence naming a
/// node at or beyond `node_count`; [`PlanError::OutOfMemory`] if the parent
/// array cannot be allocated.
///
/// Exact: the connected components, labelled canonically by smallest member.
/// Complexity: `O(n + m log n)` amortised for `m` incidences; one parent
/// entry (4 or 8 bytes) of scratch per node.
pub fn try_islands(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> Result<(Vec<Option<usize>>, usize), PlanError> {
    // u32::MAX itself marks inactive nodes, so indices must stay below it.
    if node_count <= u32::MAX as usize {
        islands_with::<u32>(node_count, incidences)
    } else {
        islands_with::<usize>(node_count, incidences)
    }
}

/// Each node's island label (`None` for a node in no incidence) and the
/// number of islands; panics on a node out of range. [`Islands::find`]
/// returns the same as a named struct.
///
/// # Panics
///
/// If an incidence names a node at or beyond `node_count`.
///
/// # Example
///
/// ```
/// use aether_planner::islands;
/// // {1, 3, 5, 6} has smallest member 1 and is island 0; {4} is island 1.
/// let (labels, count) = islands(7, &[(5, 6), (3, 1), (4, 4), (6, 3)]);
/// assert_eq!(labels, vec![None, Some(0), None, Some(0), Some(1), Some(0), Some(0)]);
/// assert_eq!(count, 2);
/// ```
pub fn islands(node_count: usize, incidences: &[(usize, usize)]) -> (Vec<Option<usize>>, usize) {
    try_islands(node_count, incidences).unwrap_or_else(|error| panic!("islands: {error}"))
}

/// The islands of a set of incidences: each node's label and how many
/// islands there are. More may be reported later, so the struct cannot be
/// built or matched field by field outside the library.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Islands {
    /// One entry per node: `Some(k)` for a node of island `k`, `None` for a
    /// node in no incidence. Island `k` is the one whose smallest member is
    /// the `k`-th smallest among islands.
    pub labels: Vec<Option<usize>>,
    /// The number of islands; every label is below it.
    pub count: usize,
}

impl Islands {
    /// The islands of `incidences` among nodes `0..node_count`, or why they
    /// cannot be computed: [`try_islands`] with a named result.
    ///
    /// Arguments: the node count and the incidences `(a, b)`, in any order
    /// and orientation; `(t, t)` activates `t` alone.
    ///
    /// Returns: the labels and the island count.
    ///
    /// Errors: [`PlanError::IncidenceOutOfRange`] for the first incidence
    /// naming a node at or beyond `node_count`; [`PlanError::OutOfMemory`]
    /// if the parent or label array cannot be allocated.
    ///
    /// Complexity: `O(n + m log n)` time amortised for `m` incidences; the
    /// labels and one parent entry (4 or 8 bytes) of scratch per node.
    ///
    /// ```
    /// use aether_planner::Islands;
    /// let found = Islands::try_find(4, &[(3, 1), (2, 2)]).unwrap();
    /// assert_eq!(found.labels, vec![None, Some(0), Some(1), Some(0)]);
    /// assert_eq!(found.count, 2);
    /// ```
    pub fn try_find(node_count: usize, incidences: &[(usize, usize)]) -> Result<Self, PlanError> {
        let (labels, count) = try_islands(node_count, incidences)?;
        Ok(Islands { labels, count })
    }

    /// [`Islands::try_find`], panicking where [`islands`] does.
    ///
    /// # Panics
    ///
    /// If an incidence names a node at or beyond `node_count`, or memory
    /// runs out.
    pub fn find(node_count: usize, incidences: &[(usize, usize)]) -> Self {
        Self::try_find(node_count, incidences).unwrap_or_else(|error| panic!("islands: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive oracle: propagate the smallest member along incidences until
    /// nothing changes, then number the islands by that smallest member.
    fn naive_islands(node_count: usize, incidences: &[(usize, usize)]) -> Vec<Option<usize>> {
        let mut smallest: Vec<Option<usize>> = vec![None; node_count];
        for &(a, b) in incidences {
            smallest[a] = Some(a);
            smallest[b] = Some(b);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &(a, b) in incidences {
                let least = smallest[a].min(smallest[b]);
                for x in [a, b] {
                    if smallest[x] != least {
                        smallest[x] = least;
                        changed = true;
                    }
                }
            }
        }
        let mut minima: Vec<usize> = smallest.iter().flatten().copied().collect();
        minima.sort_unstable();
        minima.dedup();
        smallest
            .iter()
            .map(|m| m.map(|m| minima.binary_search(&m).unwrap()))
            .collect()
    }

    #[test]
    fn rem_splicing_gives_the_naive_labels() {
        let mut rng = crate::rng::XorShift(0x5EED_0011);
        let mut next = move |bound: usize| rng.below(bound);
        for _ in 0..300 {
            let node_count = 1 + next(80);
            let incidences: Vec<(usize, usize)> = (0..next(100))
                .map(|_| (next(node_count), next(node_count)))
                .collect();
            let expected = naive_islands(node_count, &incidences);
            let count = expected.iter().flatten().max().map_or(0, |&m| m + 1);
            assert_eq!(
                try_islands(node_count, &incidences),
                Ok((expected.clone(), count))
            );
            // The machine-word form, used beyond u32::MAX nodes, agrees too.
            assert_eq!(
                islands_with::<usize>(node_count, &incidences),
                Ok((expected.clone(), count))
            );
            // So do the in-place forms over a caller's labels.
            let mut words = vec![7usize; node_count];
            assert_eq!(try_islands_into(&incidences[..], &mut words), Ok(count));
            let mut ints = vec![7i32; node_count];
            assert_eq!(try_islands_into(&incidences[..], &mut ints), Ok(count));
            for x in 0..node_count {
                assert_eq!(expected[x], (words[x] != usize::MAX).then_some(words[x]));
                assert_eq!(expected[x], (ints[x] != -1).then_some(ints[x] as usize));
            }
        }
    }
}
