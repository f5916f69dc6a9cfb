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
//! `parent[x] <= x` for every active node. Find compresses the path it walks,
//! iteratively (a chain of depth `n - 1` cannot overflow the stack). One
//! ascending pass then numbers the roots in order and gives every other node
//! its parent's number, which is already final because the parent is smaller.
//!
//! # What is exact
//!
//! The components, and their labels: island `k` is the one whose smallest
//! member is the `k`-th smallest among the islands' smallest members, whatever
//! the order and orientation of the incidences.
//!
//! # Complexity
//!
//! One machine word of scratch per node, independent of the number of
//! incidences. Linking is by minimum index, not by rank or size, so the
//! inverse-Ackermann bound does not apply; path compression alone gives
//! `O(log n)` amortised per operation (Tarjan and van Leeuwen, 1984).

use crate::error::PlanError;

/// Marks a node that no incidence has named yet.
const INACTIVE: usize = usize::MAX;

/// Checks every incidence, reporting the first that names a node at or
/// beyond `node_count`.
pub(crate) fn validate(node_count: usize, incidences: &[(usize, usize)]) -> Result<(), PlanError> {
    for (i, &(a, b)) in incidences.iter().enumerate() {
        let node = a.max(b);
        if node >= node_count {
            return Err(PlanError::IncidenceOutOfRange {
                incidence: i,
                node,
                node_count,
            });
        }
    }
    Ok(())
}

/// The root of `x`'s set; every node on the walk is re-pointed at it.
fn find(parent: &mut [usize], x: usize) -> usize {
    let mut root = x;
    while parent[root] != root {
        root = parent[root];
    }
    let mut node = x;
    while parent[node] != root {
        let next = parent[node];
        parent[node] = root;
        node = next;
    }
    root
}

/// Builds the forest of `incidences` in `parent` (all [`INACTIVE`] on entry)
/// and returns the number of islands. Afterwards `parent[x]` is `INACTIVE`,
/// or a node `<= x` in the same island, and roots are `parent[x] == x`.
fn build_forest(parent: &mut [usize], incidences: &[(usize, usize)]) -> usize {
    let mut islands = 0;
    for &(a, b) in incidences {
        for x in [a, b] {
            if parent[x] == INACTIVE {
                parent[x] = x;
                islands += 1;
            }
        }
        let (ra, rb) = (find(parent, a), find(parent, b));
        if ra != rb {
            // The smaller root stays a root: roots are their set's minimum.
            parent[ra.max(rb)] = ra.min(rb);
            islands -= 1;
        }
    }
    islands
}

/// Each node's island label and the number of islands, or why they cannot
/// be computed.
///
/// Errors: [`PlanError::IncidenceOutOfRange`] for the first incidence naming a
/// node at or beyond `node_count`.
///
/// Exact: the connected components, labelled canonically by smallest member.
/// Complexity: `O(n + m log n)` amortised for `m` incidences; one word of
/// scratch per node.
pub fn try_islands(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> Result<(Vec<Option<usize>>, usize), PlanError> {
    validate(node_count, incidences)?;
    let mut parent = Vec::new();
    parent
        .try_reserve_exact(node_count)
        .map_err(|_| PlanError::OutOfMemory {
            bytes: node_count.saturating_mul(core::mem::size_of::<usize>()),
        })?;
    parent.resize(node_count, INACTIVE);
    let count = build_forest(&mut parent, incidences);

    // Ascending: a node's parent is smaller, so its label is already final.
    // The parent array is overwritten with labels in place.
    let mut next = 0;
    for x in 0..node_count {
        let p = parent[x];
        if p == INACTIVE {
            continue;
        }
        parent[x] = if p == x {
            next += 1;
            next - 1
        } else {
            parent[p]
        };
    }
    debug_assert_eq!(next, count);
    // `parent` still says INACTIVE where no island is, labels elsewhere.
    let labels = parent
        .into_iter()
        .map(|label| (label != INACTIVE).then_some(label))
        .collect();
    Ok((labels, count))
}

/// Each node's island label (`None` for a node in no incidence) and the
/// number of islands; panics on a node out of range.
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
