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
            PlanError::OutOfMemory { .. }
            | PlanError::InvalidAlignment { .. }
            | PlanError::Cycle { .. } => None,
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
        }
    }
}

impl std::error::Error for PlanError {}
