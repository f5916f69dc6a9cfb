//! The inputs of every algorithm and their preconditions, each checked in one
//! place.
//!
//! An input array is read through [`InputList`], "element `i` in the caller's
//! layout", so that the heap-free forms and the C boundary read a caller's
//! own arrays (C structs, an engine's `int` pairs) without a converted copy.
//! The checks report the first element at fault, with the error every entry
//! point documents for it.

use crate::error::PlanError;

/// One tensor to place: its size in bytes and the first and last node
/// (inclusive) at which it is live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TensorLifetime {
    /// Size in bytes. A zero-size tensor is not planned and gets offset 0.
    pub size: usize,
    /// First node index at which the tensor is live.
    pub first_use: usize,
    /// Last node index at which the tensor is live (inclusive).
    pub last_use: usize,
}

impl TensorLifetime {
    /// A tensor of `size` bytes live from `first_use` through `last_use`.
    pub const fn new(size: usize, first_use: usize, last_use: usize) -> Self {
        TensorLifetime {
            size,
            first_use,
            last_use,
        }
    }

    /// Whether the two inclusive lifetimes share at least one node.
    pub const fn overlaps(&self, other: &TensorLifetime) -> bool {
        self.first_use <= other.last_use && other.first_use <= self.last_use
    }
}

/// Read access to a caller's input array in whatever layout it has.
pub(crate) trait InputList {
    /// What one element means to the algorithms.
    type Item;
    /// The number of elements.
    fn count(&self) -> usize;
    /// Element `i < count()`.
    fn at(&self, i: usize) -> Self::Item;
    /// Asks the cache for element `i` (any index); a hint only.
    #[inline(always)]
    fn prefetch(&self, _i: usize) {}
}

impl InputList for [(usize, usize)] {
    type Item = (usize, usize);
    #[inline(always)]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(&self, i: usize) -> (usize, usize) {
        self[i]
    }
}

impl InputList for [TensorLifetime] {
    type Item = TensorLifetime;
    #[inline(always)]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(&self, i: usize) -> TensorLifetime {
        self[i]
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        crate::sys::pages::prefetch_address(self.as_ptr().wrapping_add(i));
    }
}

/// Checks every lifetime: reports the first tensor with
/// `first_use > last_use` as [`PlanError::InvalidLifetime`].
pub(crate) fn check_lifetimes<L: InputList<Item = TensorLifetime> + ?Sized>(
    tensors: &L,
) -> Result<(), PlanError> {
    for i in 0..tensors.count() {
        let t = tensors.at(i);
        if t.first_use > t.last_use {
            return Err(PlanError::InvalidLifetime {
                tensor: i,
                first_use: t.first_use,
                last_use: t.last_use,
            });
        }
    }
    Ok(())
}

/// Checks the edges of a topologically numbered DAG:
/// `source < target < node_count`. Reports the first bad edge; an edge that
/// is both backwards and out of range is reported as
/// [`PlanError::NotTopological`].
pub(crate) fn check_topological_edges<L: InputList<Item = (usize, usize)> + ?Sized>(
    node_count: usize,
    edges: &L,
) -> Result<(), PlanError> {
    for i in 0..edges.count() {
        let (source, target) = edges.at(i);
        if source >= target {
            return Err(PlanError::NotTopological {
                edge: i,
                source,
                target,
            });
        }
        if target >= node_count {
            return Err(PlanError::EdgeOutOfRange {
                edge: i,
                node: target,
                node_count,
            });
        }
    }
    Ok(())
}

/// The first pair with an endpoint at or beyond `node_count`: its index and
/// that endpoint.
fn first_out_of_range<L: InputList<Item = (usize, usize)> + ?Sized>(
    node_count: usize,
    pairs: &L,
) -> Option<(usize, usize)> {
    (0..pairs.count()).find_map(|i| {
        let (a, b) = pairs.at(i);
        (a.max(b) >= node_count).then_some((i, a.max(b)))
    })
}

/// Checks the edges of a graph numbered in any order: both endpoints below
/// `node_count`, else [`PlanError::EdgeOutOfRange`] for the first bad edge.
pub(crate) fn check_edges_in_range<L: InputList<Item = (usize, usize)> + ?Sized>(
    node_count: usize,
    edges: &L,
) -> Result<(), PlanError> {
    match first_out_of_range(node_count, edges) {
        Some((edge, node)) => Err(PlanError::EdgeOutOfRange {
            edge,
            node,
            node_count,
        }),
        None => Ok(()),
    }
}

/// Checks every incidence: reports the first that names a node at or beyond
/// `node_count` as [`PlanError::IncidenceOutOfRange`].
pub(crate) fn check_incidences<L: InputList<Item = (usize, usize)> + ?Sized>(
    node_count: usize,
    incidences: &L,
) -> Result<(), PlanError> {
    match first_out_of_range(node_count, incidences) {
        Some((incidence, node)) => Err(PlanError::IncidenceOutOfRange {
            incidence,
            node,
            node_count,
        }),
        None => Ok(()),
    }
}
