//! The one error type of the fallible (`try_*`) entry points.
//!
//! Every variant that is caused by one input element names that element's
//! index, so a caller with thousands of tensors or edges learns exactly which
//! one to fix.

use core::fmt;

/// Why a `try_*` function refused its input.
///
/// Each variant marks a precondition whose violation would make the result
/// silently wrong, or a resource the computation could not get. Nothing is
/// computed half-way: an error is returned before any result exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PlanError {
    /// Tensor `tensor` has `first_use > last_use`: its lifetime is empty.
    InvalidLifetime {
        /// Index of the tensor in the input slice.
        tensor: usize,
        /// Its `first_use`.
        first_use: usize,
        /// Its `last_use`.
        last_use: usize,
    },
    /// A byte count would pass `usize::MAX`: tensor `tensor` could not be
    /// placed (`offset + size` overflows) or counted (the sum of the sizes
    /// live at one node overflows).
    Overflow {
        /// Index of the tensor whose size could not be added.
        tensor: usize,
    },
    /// Edge `edge` runs against the topological numbering (`source >= target`).
    NotTopological {
        /// Index of the edge in the input slice.
        edge: usize,
        /// Its source node.
        source: usize,
        /// Its target node.
        target: usize,
    },
    /// Edge `edge` names node `node`, which is not below `node_count`.
    EdgeOutOfRange {
        /// Index of the edge in the input slice.
        edge: usize,
        /// The node it names.
        node: usize,
        /// The number of nodes the graph was declared with.
        node_count: usize,
    },
    /// Incidence `incidence` names node `node`, which is not below `node_count`.
    IncidenceOutOfRange {
        /// Index of the incidence in the input slice.
        incidence: usize,
        /// The node it names.
        node: usize,
        /// The number of nodes the graph was declared with.
        node_count: usize,
    },
    /// Scratch memory of `bytes` bytes could not be allocated (or its size
    /// does not fit in `usize`, in which case `bytes` is `usize::MAX`).
    OutOfMemory {
        /// The size of the allocation that failed.
        bytes: usize,
    },
    /// The plan option `alignment` is 0 or not a power of two.
    InvalidAlignment {
        /// The alignment that was asked for.
        alignment: usize,
    },
    /// The graph has a directed cycle through `node`, so it has no
    /// topological order and no transitive reduction of a DAG.
    Cycle {
        /// A node on the cycle.
        node: usize,
    },
    /// A per-tensor constraint array has `count` elements where the problem
    /// has `tensor_count` tensors (it must be empty or have one per tensor).
    ConstraintCount {
        /// Which array: "alignments", "fixed_offsets" or "hints".
        array: &'static str,
        /// Its length.
        count: usize,
        /// The number of tensors.
        tensor_count: usize,
    },
    /// Tensor `tensor` asks for an alignment that is 0 or not a power of two.
    InvalidTensorAlignment {
        /// Index of the tensor.
        tensor: usize,
        /// The alignment it asked for.
        alignment: usize,
    },
    /// Tensor `tensor` is fixed at an offset that is not a multiple of the
    /// alignment it needs (its own, the plan's, or that of a tensor reusing
    /// its memory).
    MisalignedFixedOffset {
        /// Index of the tensor whose alignment is not met.
        tensor: usize,
        /// The fixed offset.
        offset: usize,
        /// The alignment it needs.
        alignment: usize,
    },
    /// Tensors `first` and `second` are both fixed and their fixed offsets
    /// make them share bytes while both are live (or they share memory by
    /// reuse and are fixed at different offsets), or they belong to one
    /// reuse group, neither reusing the other, and would share bytes while
    /// both are active: the reuse pins them to one offset.
    ConflictingFixedOffsets {
        /// The tensor with the lower index.
        first: usize,
        /// The other tensor.
        second: usize,
    },
    /// Gap `gap` (of tensor `tensor`) is not a non-empty node range inside
    /// the tensor's lifetime, disjoint from its other gaps, with a window
    /// inside the tensor's size; or it names a tensor that does not exist.
    InvalidGap {
        /// Index of the gap in the problem's gap list.
        gap: usize,
        /// The tensor it names.
        tensor: usize,
    },
    /// Reuse pair `pair` (tensor `tensor` reuses tensor `reused`) is not
    /// valid: a tensor out of range, a tensor reusing itself or a larger
    /// size, a tensor reusing twice, or a cycle of reuses.
    InvalidReuse {
        /// Index of the pair in the problem's reuse list.
        pair: usize,
        /// The tensor that reuses memory.
        tensor: usize,
        /// The tensor whose memory it reuses.
        reused: usize,
    },
    /// No plan within `capacity` bytes: `proven` says whether that is a
    /// proof (the lower bound exceeds the capacity, a fixed tensor ends past
    /// it, or the search exhausted every plan) or only that the planner or
    /// its budget found none.
    DoesNotFit {
        /// The capacity asked for.
        capacity: usize,
        /// A proven lower bound on the arena of every plan.
        lower_bound: usize,
        /// Whether no plan within `capacity` exists.
        proven: bool,
    },
}

impl PlanError {
    /// The index of the input element (tensor, edge or incidence) at fault,
    /// or `None` when the error is not caused by one element.
    pub fn index(&self) -> Option<usize> {
        match *self {
            PlanError::InvalidLifetime { tensor, .. } | PlanError::Overflow { tensor } => {
                Some(tensor)
            }
            PlanError::NotTopological { edge, .. } | PlanError::EdgeOutOfRange { edge, .. } => {
                Some(edge)
            }
            PlanError::IncidenceOutOfRange { incidence, .. } => Some(incidence),
            PlanError::InvalidTensorAlignment { tensor, .. }
            | PlanError::MisalignedFixedOffset { tensor, .. }
            | PlanError::InvalidGap { tensor, .. }
            | PlanError::InvalidReuse { tensor, .. } => Some(tensor),
            PlanError::ConflictingFixedOffsets { first, .. } => Some(first),
            PlanError::OutOfMemory { .. }
            | PlanError::InvalidAlignment { .. }
            | PlanError::Cycle { .. }
            | PlanError::ConstraintCount { .. }
            | PlanError::DoesNotFit { .. } => None,
        }
    }

    /// The node the error is about (one out of range, or one on a cycle), or
    /// `None` when it is about no single node.
    pub fn node(&self) -> Option<usize> {
        match *self {
            PlanError::EdgeOutOfRange { node, .. }
            | PlanError::IncidenceOutOfRange { node, .. }
            | PlanError::Cycle { node } => Some(node),
            _ => None,
        }
    }

    /// The second tensor of a pair at fault (the other fixed tensor, or the
    /// tensor whose memory is reused), or `None`.
    pub fn other_tensor(&self) -> Option<usize> {
        match *self {
            PlanError::ConflictingFixedOffsets { second, .. } => Some(second),
            PlanError::InvalidReuse { reused, .. } => Some(reused),
            _ => None,
        }
    }

    /// The gap or reuse pair at fault, by its index in its list, or `None`.
    pub fn item(&self) -> Option<usize> {
        match *self {
            PlanError::InvalidGap { gap, .. } => Some(gap),
            PlanError::InvalidReuse { pair, .. } => Some(pair),
            _ => None,
        }
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PlanError::InvalidLifetime {
                tensor,
                first_use,
                last_use,
            } => write!(
                f,
                "tensor {tensor}: first_use {first_use} is after last_use {last_use}"
            ),
            PlanError::Overflow { tensor } => write!(
                f,
                "tensor {tensor}: a byte offset or a sum of live sizes would overflow usize"
            ),
            PlanError::NotTopological {
                edge,
                source,
                target,
            } => write!(
                f,
                "edge {edge}: {source} -> {target} runs against the topological numbering \
                 (every edge needs source < target)"
            ),
            PlanError::EdgeOutOfRange {
                edge,
                node,
                node_count,
            } => write!(
                f,
                "edge {edge}: node {node} is out of range for {node_count} nodes"
            ),
            PlanError::IncidenceOutOfRange {
                incidence,
                node,
                node_count,
            } => write!(
                f,
                "incidence {incidence}: node {node} is out of range for {node_count} nodes"
            ),
            PlanError::OutOfMemory { bytes } => {
                let unit = if bytes == 1 { "byte" } else { "bytes" };
                write!(f, "could not allocate {bytes} {unit} of scratch memory")
            }
            PlanError::InvalidAlignment { alignment } => {
                write!(f, "alignment {alignment} is not a power of two")
            }
            PlanError::Cycle { node } => write!(
                f,
                "node {node} is on a directed cycle: the graph has no topological order"
            ),
            PlanError::ConstraintCount {
                array,
                count,
                tensor_count,
            } => write!(
                f,
                "{array}: {count} elements for {tensor_count} tensors (give none or one per tensor)"
            ),
            PlanError::InvalidTensorAlignment { tensor, alignment } => write!(
                f,
                "tensor {tensor}: alignment {alignment} is not a power of two"
            ),
            PlanError::MisalignedFixedOffset {
                tensor,
                offset,
                alignment,
            } => write!(
                f,
                "tensor {tensor}: fixed offset {offset} is not a multiple of its alignment {alignment}"
            ),
            PlanError::ConflictingFixedOffsets { first, second } => write!(
                f,
                "tensors {first} and {second}: their fixed offsets, or a reuse that pins them to one \
                 offset, make them share bytes while both are live"
            ),
            PlanError::InvalidGap { gap, tensor } => write!(
                f,
                "gap {gap} of tensor {tensor}: a gap must name a tensor, lie inside its lifetime, \
                 be disjoint from its other gaps and have a window inside its size"
            ),
            PlanError::InvalidReuse {
                pair,
                tensor,
                reused,
            } => write!(
                f,
                "reuse {pair}: tensor {tensor} cannot reuse tensor {reused} (out of range, itself, \
                 larger than it, reusing twice, or a cycle of reuses)"
            ),
            PlanError::DoesNotFit {
                capacity,
                lower_bound,
                proven,
            } => {
                if proven {
                    write!(f, "does not fit: no plan within capacity {capacity} exists (lower bound {lower_bound})")
                } else {
                    write!(f, "does not fit: no plan within capacity {capacity} was found within the budget (lower bound {lower_bound})")
                }
            }
        }
    }
}

impl std::error::Error for PlanError {}
