//! The islands domain at the C boundary: incidences, and the entry points of
//! island discovery, in this library's layout and in a physics engine's.

use super::boundary::*;
use super::status::*;
use crate::input::{check_incidences, InputList};
use crate::islands::{try_islands_into, StaticEndpointPairs};

/// The label of a node that is in no incidence, hence in no island.
pub const AETHER_NO_ISLAND: usize = usize::MAX;

/// An incidence between nodes `a` and `b`; `a == b` activates one node alone.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct aether_incidence {
    /// One endpoint.
    pub a: usize,
    /// The other endpoint.
    pub b: usize,
}

impl InputList for [aether_incidence] {
    type Item = (usize, usize);
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> (usize, usize) {
        (self[i].a, self[i].b)
    }
}

unsafe fn check_islands(
    node_count: usize,
    incidences: *const aether_incidence,
    incidence_count: usize,
) -> Outcome<()> {
    let incidences = input_slice(incidences, incidence_count).map_err(no_index)?;
    outcome(check_incidences(node_count, incidences))
}

/// Connected components ("islands") of the nodes named by the incidences,
/// labelled canonically: island `k` is the one whose smallest member is the
/// `k`-th smallest among islands, whatever the order and orientation of the
/// incidences.
///
/// `labels_out` has `node_count` elements; on success `labels_out[x]` is node
/// `x`'s island, or `AETHER_NO_ISLAND` for a node in no incidence, and
/// `*island_count_out` the number of islands. No heap memory is used: the
/// label array serves as the disjoint-set forest, so it overlaps neither
/// `incidences` nor `island_count_out` (`OVERLAPPING_BUFFERS`). Errors:
/// `NULL_POINTER`, `MISALIGNED_POINTER`, `NODE_OUT_OF_RANGE`, `OVERFLOW`,
/// `OVERLAPPING_BUFFERS`.
///
/// # Safety
/// `incidences` points to `incidence_count` readable elements and
/// `labels_out` to `node_count` writable ones (either NULL when its count is
/// 0), not overlapping; `island_count_out` points to one writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn aether_islands(
    node_count: usize,
    incidences: *const aether_incidence,
    incidence_count: usize,
    labels_out: *mut usize,
    island_count_out: *mut usize,
) -> aether_status {
    guard(|| {
        check_array(labels_out, node_count)?;
        check_value(island_count_out)?;
        check_array(incidences, incidence_count)?;
        let labels_region = region(labels_out, node_count);
        disjoint(&[labels_region, region(island_count_out, 1)])?;
        disjoint(&[labels_region, region(incidences, incidence_count)])?;
        let incidences = input_slice(incidences, incidence_count)?;
        let labels = output_slice(labels_out, node_count);
        let count = try_islands_into(incidences, labels).map_err(|e| status_of(&e))?;
        island_count_out.write(count);
        Ok(())
    })
}

/// Explains what `aether_islands` returns for these inputs (its outputs
/// aside): the status and the index of the incidence at fault (or
/// `AETHER_NO_INDEX`).
///
/// # Safety
/// As for `aether_islands`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_islands_explain(
    node_count: usize,
    incidences: *const aether_incidence,
    incidence_count: usize,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        check_islands(node_count, incidences, incidence_count)
    })
}

/// Islands in a physics engine's own layout, as `aether_islands` computes
/// them: `pairs` holds `2 * pair_count` node indices, -1 standing for a
/// static endpoint (the world) and meaning "the other endpoint"; labels are
/// written straight into the engine's `int` array, -1 for a node in no
/// island. The labels equal `aether_islands`' for the same incidences.
///
/// No heap memory is used (the label array is the forest, so it overlaps
/// neither `pairs` nor `island_count_out`). Errors: `NULL_POINTER`,
/// `MISALIGNED_POINTER`, `NEGATIVE_COUNT` (`node_count` or `pair_count`
/// below 0), `NODE_OUT_OF_RANGE` (an index at or beyond `node_count`, below
/// -1, or a pair of two -1s), `OVERLAPPING_BUFFERS`;
/// `aether_islands_i32_explain` names the pair at fault.
///
/// # Safety
/// `pairs` points to `2 * pair_count` readable ints and `labels_out` to
/// `node_count` writable ones (either NULL when its count is 0), not
/// overlapping; `island_count_out` points to one writable int.
#[no_mangle]
pub unsafe extern "C" fn aether_islands_i32(
    node_count: i32,
    pairs: *const i32,
    pair_count: i32,
    labels_out: *mut i32,
    island_count_out: *mut i32,
) -> aether_status {
    guard(|| {
        let (node_count, pair_ints) = i32_counts(node_count, pair_count)?;
        check_array(labels_out, node_count)?;
        check_value(island_count_out)?;
        check_array(pairs, pair_ints)?;
        let labels_region = region(labels_out, node_count);
        disjoint(&[labels_region, region(island_count_out, 1)])?;
        disjoint(&[labels_region, region(pairs, pair_ints)])?;
        let pairs = input_slice(pairs, pair_ints)?;
        let labels = output_slice(labels_out, node_count);
        let count =
            try_islands_into(&StaticEndpointPairs(pairs), labels).map_err(|e| status_of(&e))?;
        // Islands never outnumber nodes, which fit in an int.
        island_count_out.write(count as i32);
        Ok(())
    })
}

/// `aether_islands_i32`'s counts as sizes: the node count and the number of
/// ints in `pairs`, or `NEGATIVE_COUNT`.
fn i32_counts(node_count: i32, pair_count: i32) -> Result<(usize, usize), aether_status> {
    match (usize::try_from(node_count), usize::try_from(pair_count)) {
        // At most 2 * i32::MAX ints: no overflow.
        (Ok(node_count), Ok(pair_count)) => Ok((node_count, 2 * pair_count)),
        _ => Err(AETHER_STATUS_NEGATIVE_COUNT),
    }
}

/// Explains what `aether_islands_i32` returns for these inputs (its outputs
/// aside): the status, the index of the pair at fault (or `AETHER_NO_INDEX`)
/// and the node it names in `node` (`AETHER_NO_INDEX` for an index below -1
/// or a pair of two -1s, which name no node).
///
/// # Safety
/// As for `aether_islands_i32`; `detail_out` points to one writable
/// `aether_error_detail`.
#[no_mangle]
pub unsafe extern "C" fn aether_islands_i32_explain(
    node_count: i32,
    pairs: *const i32,
    pair_count: i32,
    detail_out: *mut aether_error_detail,
) -> aether_status {
    explain(detail_out, || {
        let (node_count, pair_ints) = i32_counts(node_count, pair_count).map_err(no_index)?;
        let pairs = input_slice(pairs, pair_ints).map_err(no_index)?;
        // An invalid pair reads as node usize::MAX, which is AETHER_NO_INDEX.
        outcome(check_incidences(node_count, &StaticEndpointPairs(pairs)))
    })
}

/// The scratch bytes `aether_islands` and `aether_islands_i32` need beyond
/// their outputs: none, always 0. Provided so that engines that size every
/// call's workspace can treat all entry points alike.
#[no_mangle]
pub extern "C" fn aether_islands_workspace_size(node_count: usize) -> usize {
    let _ = node_count;
    0
}
