//! The greedy's two sorts at scale: the placement order and the ranks of the
//! lifetimes' endpoints, both as radix sorts of packed 64-bit keys where the
//! keys fit, so that neither chases a tensor or binary-searches a large
//! array once per element (at millions of tensors those cache misses, not
//! the comparisons, were the cost). The sort's buffers are then kept
//! ([`Spare`]) for the conflict lists to reuse.

use super::TensorLifetime;
use crate::error::PlanError;
use crate::offsets::radix::{bit_length, radix_sort, radix_sort_into_either, RADIX_FROM};
use crate::sys::fallible;

/// [`placement_order_sparing`] with nothing kept.
#[cfg(test)]
pub(super) fn placement_order(tensors: &[TensorLifetime]) -> Result<Vec<usize>, PlanError> {
    placement_order_sparing(tensors, &mut Spare::default())
}

/// The planned tensors (non-zero size) in placement order: decreasing size,
/// equal sizes in input order. The radix sort's two buffers go to `spare`.
///
/// Complexity: `O(n)` time and memory from [`RADIX_FROM`] tensors on when
/// the sizes, shifted by their common trailing zero bits, span at most 32
/// bits (a radix sort of packed keys); otherwise an `O(n log n)` stable
/// comparison sort.
pub(super) fn placement_order_sparing(
    tensors: &[TensorLifetime],
    spare: &mut Spare,
) -> Result<Vec<usize>, PlanError> {
    let planned = || (0..tensors.len()).filter(|&i| tensors[i].size > 0);
    let count = planned().count();
    if count < RADIX_FROM {
        // Key: the size's complement above, the input index below, so that
        // the keys' ascending order is the placement order (the index
        // breaks ties, so an unstable sort is exact) and the sort reads no
        // tensor; in 64 bits where sizes and indices fit in 32.
        let narrow = u32::try_from(tensors.len()).is_ok()
            && planned().all(|i| u32::try_from(tensors[i].size).is_ok());
        if narrow {
            let mut keys: Vec<u64> = fallible::collect(
                count,
                planned().map(|i| (!tensors[i].size as u32 as u64) << 32 | i as u64),
            )?;
            keys.sort_unstable();
            return fallible::collect(count, keys.iter().map(|&key| key as u32 as usize));
        }
        let mut keys: Vec<u128> = fallible::collect(
            count,
            planned().map(|i| (!tensors[i].size as u128) << 64 | i as u128),
        )?;
        keys.sort_unstable();
        return fallible::collect(count, keys.iter().map(|&key| key as u64 as usize));
    }
    let (mut max, mut common) = (0usize, 0usize);
    for i in planned() {
        max = max.max(tensors[i].size);
        common |= tensors[i].size;
    }
    let shift = common.trailing_zeros().min(usize::BITS - 1);
    let top = (max >> shift) as u64;
    let packable = bit_length(top) <= 32 && u32::try_from(tensors.len()).is_ok();
    if !packable {
        let mut order: Vec<usize> = fallible::collect(count, planned())?;
        // The index breaks ties, so an unstable sort is exact.
        order.sort_unstable_by_key(|&i| (core::cmp::Reverse(tensors[i].size), i));
        return Ok(order);
    }
    // Key: (top − size) above, the input index below; the sort runs on the
    // size bits only and, being stable, keeps equal sizes in input order.
    let mut keys: Vec<u64> = fallible::collect(
        count,
        planned().map(|i| ((top - (tensors[i].size >> shift) as u64) << 32) | i as u64),
    )?;
    // Zeroed lazily: the sort's first pass writes every word, each page
    // touched once.
    let mut scratch = fallible::zeroed::<u64>(count)?;
    let in_scratch = radix_sort_into_either(&mut keys, &mut scratch, 32, 32 + bit_length(top));
    let sorted = if in_scratch { &scratch } else { &keys };
    let order = fallible::collect(
        count,
        sorted.iter().map(|&key| (key & 0xFFFF_FFFF) as usize),
    )?;
    spare.keep(keys);
    spare.keep(scratch);
    Ok(order)
}

/// Word buffers one step of a plan is done with, for a later step to
/// reuse. At millions of tensors a fresh allocation is fresh pages, each
/// faulted in on first touch; reused, its pages are already there.
#[derive(Default)]
pub(super) struct Spare(Vec<Vec<u64>>);

impl Spare {
    /// Keeps `buffer` for reuse.
    pub(super) fn keep(&mut self, buffer: Vec<u64>) {
        if buffer.capacity() > 0 && self.0.try_reserve(1).is_ok() {
            self.0.push(buffer);
        }
    }

    /// An empty buffer with room for `len` words: the kept one with the
    /// most room, grown if short, or a new one.
    pub(super) fn take(&mut self, len: usize) -> Result<Vec<u64>, PlanError> {
        let largest = (0..self.0.len()).max_by_key(|&k| self.0[k].capacity());
        let mut buffer = match largest {
            Some(k) => self.0.swap_remove(k),
            None => Vec::new(),
        };
        buffer.clear();
        fallible::reserve_advised(&mut buffer, len)?;
        Ok(buffer)
    }

    /// `len` copies of `value` in a buffer from [`Self::take`].
    pub(super) fn filled(&mut self, len: usize, value: u64) -> Result<Vec<u64>, PlanError> {
        let mut buffer = self.take(len)?;
        buffer.resize(len, value);
        Ok(buffer)
    }
}

/// The ranks of the planned tensors' lifetime endpoints among all distinct
/// endpoints (overlap depends on their order alone), for the tensors of `order`
/// (every planned tensor once, in any order), and the number of distinct
/// endpoints.
///
/// Complexity: `O(n)` time and memory when the endpoints span at most 32
/// bits and there are fewer than 2^31 tensors (a radix sort of packed keys,
/// visited in input order, which is usually time order); otherwise
/// `O(n log n)` by sorting and binary search.
pub(crate) fn endpoint_ranks(
    tensors: &[TensorLifetime],
    order: &[usize],
) -> Result<(Vec<(usize, usize)>, usize), PlanError> {
    let (mut low, mut high) = (usize::MAX, 0usize);
    for &i in order {
        low = low.min(tensors[i].first_use);
        high = high.max(tensors[i].last_use);
    }
    let span = high.saturating_sub(low) as u64;
    let packable = bit_length(span) <= 32 && tensors.len() < 1 << 31 && order.len() > 1;
    if !packable {
        return ranks_by_search(tensors, order);
    }
    // Key: the endpoint above, its slot below (2i for tensor i's first use,
    // 2i + 1 for its last), in input order.
    let planned = || (0..tensors.len()).filter(|&i| tensors[i].size > 0);
    let mut keys: Vec<u64> = fallible::collect(
        2 * order.len(),
        planned().flat_map(|i| {
            let t = &tensors[i];
            let slot = 2 * i as u64;
            [
                (((t.first_use - low) as u64) << 32) | slot,
                (((t.last_use - low) as u64) << 32) | (slot + 1),
            ]
        }),
    )?;
    let mut scratch = fallible::filled(keys.len(), 0u64)?;
    if keys.len() < RADIX_FROM {
        keys.sort_unstable();
    } else {
        radix_sort(&mut keys, &mut scratch, 32, 32 + bit_length(span));
    }
    // `scratch` becomes each slot's rank (only planned tensors' slots are
    // written or read).
    let mut by_slot = scratch;
    by_slot.clear();
    by_slot.resize(2 * tensors.len(), 0);
    let mut rank = 0u64;
    let mut previous = keys.first().map_or(0, |&key| key >> 32);
    for &key in &keys {
        if key >> 32 != previous {
            previous = key >> 32;
            rank += 1;
        }
        by_slot[(key & 0xFFFF_FFFF) as usize] = rank;
    }
    drop(keys);
    let ranks = fallible::collect(
        order.len(),
        order
            .iter()
            .map(|&i| (by_slot[2 * i] as usize, by_slot[2 * i + 1] as usize)),
    )?;
    Ok((ranks, rank as usize + 1))
}

/// [`endpoint_ranks`] by a comparison sort of the endpoints and a binary
/// search per endpoint: `O(n log n)` time, `O(n)` memory.
fn ranks_by_search(
    tensors: &[TensorLifetime],
    order: &[usize],
) -> Result<(Vec<(usize, usize)>, usize), PlanError> {
    let mut endpoints: Vec<usize> = fallible::collect(
        2 * order.len(),
        order
            .iter()
            .flat_map(|&i| [tensors[i].first_use, tensors[i].last_use]),
    )?;
    endpoints.sort_unstable();
    endpoints.dedup();
    let rank = |value: usize| endpoints.binary_search(&value).unwrap_or(0);
    let ranks = fallible::collect(
        order.len(),
        order
            .iter()
            .map(|&i| (rank(tensors[i].first_use), rank(tensors[i].last_use))),
    )?;
    Ok((ranks, endpoints.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables whose sizes and endpoints take both paths: packed keys and
    /// the comparison fallback.
    fn tables() -> Vec<Vec<TensorLifetime>> {
        let mut rng = crate::rng::XorShift(0x5EED_0008);
        let mut tables = Vec::new();
        for round in 0..60 {
            let count = rng.below(200);
            let size_scale = [1usize, 64, 1 << 40, 3 << 20][round % 4];
            let node_scale = [1usize, 7, 1 << 33][round % 3];
            let table = (0..count)
                .map(|_| {
                    let first = rng.below(50) * node_scale;
                    let last = first + rng.below(10) * node_scale;
                    let size = rng.below(6) * size_scale;
                    TensorLifetime::new(size, first, last)
                })
                .collect();
            tables.push(table);
        }
        // Large enough for the radix sorts: sizes of 4 bits (one pass, the
        // keys sorted into the scratch buffer) and of 13 (two passes, back
        // in the keys).
        for kinds in [9, 5000] {
            let large = (0..5000)
                .map(|i| TensorLifetime::new(64 * rng.below(kinds), i / 3, i / 3 + rng.below(20)))
                .collect();
            tables.push(large);
        }
        let max = usize::MAX;
        tables.push(vec![
            TensorLifetime::new(max, 0, max),
            TensorLifetime::new(1, max, max),
        ]);
        tables
    }

    #[test]
    fn a_spare_buffer_is_the_roomiest_kept_one_emptied_and_grown() {
        let mut spare = Spare::default();
        assert!(spare.take(5).unwrap().capacity() >= 5);
        let (small, large) = (vec![7u64; 3], vec![9u64; 40]);
        let large_at = large.as_ptr();
        spare.keep(small);
        spare.keep(large);
        spare.keep(Vec::new()); // no room: not kept
        let taken = spare.take(10).unwrap();
        assert_eq!((taken.len(), taken.as_ptr()), (0, large_at));
        // The small one is left, and grows to the room asked for.
        let grown = spare.filled(100, 3).unwrap();
        assert_eq!(grown, vec![3; 100]);
        assert!(spare.0.is_empty());
    }

    #[test]
    fn placement_order_is_decreasing_size_then_input_order() {
        for tensors in tables() {
            let mut expected: Vec<usize> = (0..tensors.len())
                .filter(|&i| tensors[i].size > 0)
                .collect();
            expected.sort_by(|&a, &b| tensors[b].size.cmp(&tensors[a].size));
            assert_eq!(placement_order(&tensors).unwrap(), expected);
        }
    }

    #[test]
    fn endpoint_ranks_agree_with_the_search() {
        for tensors in tables() {
            let order = placement_order(&tensors).unwrap();
            assert_eq!(
                endpoint_ranks(&tensors, &order).unwrap(),
                ranks_by_search(&tensors, &order).unwrap()
            );
        }
    }
}
