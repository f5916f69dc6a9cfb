//! The reduction domain at the C boundary: edges, and every entry point of
//! the transitive reduction.

use super::boundary::*;
use super::status::*;
use crate::input::InputList;
use crate::reduction::{transitive_reduction_scratch_bytes, try_transitive_reduction_in};
use crate::{try_transitive_reduction, try_transitive_reduction_any_order, PlanError};

/// A DAG edge `source -> target`; nodes are numbered topologically, so
/// `source < target`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_edge {
    /// The node the edge leaves.
    pub source: usize,
    /// The node the edge enters.
    pub target: usize,
}

impl InputList for RawInput<aether_edge> {
    type Item = (usize, usize);
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> (usize, usize) {
        let edge = self.get(i);
        (edge.source, edge.target)
    }
}

/// The outputs of a reduction: at most `edge_count` edges are ever written
/// (the result has no more edges than the input), then the count. They
/// must not overlap each other.
fn output_regions(
    edges_out: *const aether_edge,
    capacity: usize,
    edge_count: usize,
    count_out: *const usize,
) -> [Region; 2] {
    [
        region(edges_out, capacity.min(edge_count)),
        region(count_out, 1),
    ]
}

/// A reduction of the core: topologically numbered only, or any numbering.
type Reducer = fn(usize, &[(usize, usize)]) -> Result<Vec<(usize, usize)>, PlanError>;

unsafe fn compute_reduction(
    reducer: Reducer,
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
) -> Outcome<Vec<(usize, usize)>> {
    check_array(edges, edge_count).map_err(no_index)?;
    let edges = read_array(edges, edge_count, |e| (e.source, e.target)).map_err(no_index)?;
    outcome(reducer(node_count, &edges))
}

/// Writes a reduction to a caller's buffer of `capacity` edges, or reports
/// the count it needs.
///
/// # Safety
/// `check_array(edges_out, capacity)` and `check_value(count_out)` succeeded.
unsafe fn write_reduction(
    reduced: &[(usize, usize)],
    edges_out: *mut aether_edge,
    capacity: usize,
    count_out: *mut usize,
) -> Result<(), aether_status> {
    if reduced.len() > capacity {
        count_out.write(reduced.len());
        return Err(AETHER_STATUS_BUFFER_TOO_SMALL);
    }
    for (i, &(source, target)) in reduced.iter().enumerate() {
        edges_out.add(i).write(aether_edge { source, target });
    }
    count_out.write(reduced.len());
    Ok(())
}

/// One reduction entry point: checks the outputs, reduces with `reducer`
/// and writes the result or the count it needs.
///
/// # Safety
/// As for `aether_transitive_reduction`.
unsafe fn reduce_into(
    reducer: Reducer,
    node_count: usize,
    (edges, edge_count): (*const aether_edge, usize),
    (edges_out, edges_out_capacity, edges_out_count): (*mut aether_edge, usize, *mut usize),
) -> aether_status {
    guard(|| {
        check_array(edges_out, edges_out_capacity)?;
        check_value(edges_out_count)?;
        disjoint(&output_regions(
            edges_out,
            edges_out_capacity,
            edge_count,
            edges_out_count,
        ))?;
        let reduced =
            compute_reduction(reducer, node_count, edges, edge_count).map_err(|f| f.status)?;
        write_reduction(&reduced, edges_out, edges_out_capacity, edges_out_count)
    })
}

/// The transitive reduction of a DAG whose nodes are numbered topologically
/// (`source < target < node_count` for every edge): the unique minimal edge
/// set with the same reachability, independent of edge order, sorted by
/// `(source, target)`, each edge once.
///
/// On success the first `*edges_out_count` elements of `edges_out` hold the
/// result. `edges_out_capacity >= edge_count` always suffices; a smaller
/// capacity that cannot hold the result gets `BUFFER_TOO_SMALL`, with the
/// needed count in `*edges_out_count` and `edges_out` untouched. `edges_out`
/// may be the same buffer as `edges` (the input is read fully first).
/// Errors: `NULL_POINTER`, `MISALIGNED_POINTER`, `NOT_TOPOLOGICAL`,
/// `NODE_OUT_OF_RANGE`, `OVERFLOW`, `OUT_OF_MEMORY` (only when even the
/// narrowest column blocks or the O(n + E) arrays cannot be had),
/// `BUFFER_TOO_SMALL`.
///
/// # Safety
/// `edges` points to `edge_count` readable elements and `edges_out` to
/// `edges_out_capacity` writable ones (either NULL when its count is 0);
/// `edges_out_count` points to one writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    edges_out: *mut aether_edge,
    edges_out_capacity: usize,
    edges_out_count: *mut usize,
) -> aether_status {
    reduce_into(
        try_transitive_reduction,
        node_count,
        (edges, edge_count),
        (edges_out, edges_out_capacity, edges_out_count),
    )
}

/// Explains what `aether_transitive_reduction` returns for these inputs (its
/// output buffer aside, so never `BUFFER_TOO_SMALL`): the status and the index
/// of the edge at fault (or `AETHER_NO_INDEX`).
///
/// # Safety
/// As for `aether_transitive_reduction`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_explain(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        compute_reduction(try_transitive_reduction, node_count, edges, edge_count)
    })
}

/// The transitive reduction of a DAG numbered in any order: the nodes are
/// ordered topologically first (Kahn's algorithm), and the result comes back
/// in the caller's numbering, sorted by `(source, target)`, each edge once.
///
/// Buffers and errors as for `aether_transitive_reduction`, except that an
/// edge against the numbering is fine and a directed cycle (a self-loop
/// included) is `AETHER_STATUS_CYCLE`;
/// `aether_transitive_reduction_any_order_explain` names a node on it.
///
/// # Safety
/// As for `aether_transitive_reduction`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_any_order(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    edges_out: *mut aether_edge,
    edges_out_capacity: usize,
    edges_out_count: *mut usize,
) -> aether_status {
    reduce_into(
        try_transitive_reduction_any_order,
        node_count,
        (edges, edge_count),
        (edges_out, edges_out_capacity, edges_out_count),
    )
}

/// Explains what `aether_transitive_reduction_any_order` returns for these
/// inputs: the status, the edge at fault (or `AETHER_NO_INDEX`) and, for
/// `AETHER_STATUS_CYCLE`, a node on the cycle in `node`.
///
/// # Safety
/// As for `aether_transitive_reduction_any_order`; `detail_out` points to one
/// writable `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_any_order_explain(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        compute_reduction(
            try_transitive_reduction_any_order,
            node_count,
            edges,
            edge_count,
        )
    })
}

/// The exact workspace bytes `aether_transitive_reduction_in_workspace`
/// needs: `node_count * ceil(node_count / 64) * 8` for the bit matrix plus
/// `2 * sizeof(size_t)` per edge, or `SIZE_MAX` if that does not fit; 0 when
/// `edge_count` is 0 (no matrix is needed, whatever `node_count`).
#[no_mangle]
pub extern "C" fn aether_transitive_reduction_workspace_size(
    node_count: usize,
    edge_count: usize,
) -> usize {
    transitive_reduction_scratch_bytes(node_count, edge_count).unwrap_or(usize::MAX)
}

/// `aether_transitive_reduction` without any heap allocation, over a
/// workspace as for `aether_plan_offsets_in_workspace`. Buffers, results
/// and errors as for `aether_transitive_reduction` (`edges_out` may overlap
/// `edges`: the edges are copied into the workspace first), and the same
/// result for every input. The workspace overlaps no other argument
/// (`OVERLAPPING_BUFFERS`). A workspace smaller than
/// `aether_transitive_reduction_workspace_size(node_count, edge_count)` is
/// `BUFFER_TOO_SMALL` with nothing written, `*edges_out_count` included.
///
/// # Safety
/// As for `aether_transitive_reduction`; `workspace` points to
/// `aether_transitive_reduction_workspace_size(node_count, edge_count)`
/// writable bytes (NULL only when that is 0).
#[no_mangle]
pub unsafe extern "C" fn aether_transitive_reduction_in_workspace(
    node_count: usize,
    edges: *const aether_edge,
    edge_count: usize,
    workspace: *mut core::ffi::c_void,
    workspace_size: usize,
    edges_out: *mut aether_edge,
    edges_out_capacity: usize,
    edges_out_count: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(edges_out, edges_out_capacity)?;
        check_value(edges_out_count)?;
        let edges_in = RawInput::new(edges, edge_count)?;
        let needed = transitive_reduction_scratch_bytes(node_count, edge_count);
        let work = workspace_region(workspace, workspace_size, needed)?;
        let [out, count] =
            output_regions(edges_out, edges_out_capacity, edge_count, edges_out_count);
        disjoint(&[work, out, count])?;
        disjoint(&[work, region(edges, edge_count)])?;
        let mut scratch = scratch_of(workspace, needed.unwrap_or(0));
        let reduced = try_transitive_reduction_in(node_count, &edges_in, &mut scratch)
            .map_err(|e| status_of(&e))?;
        write_reduction(reduced, edges_out, edges_out_capacity, edges_out_count)
    })
}
