//! What the heuristic and the search share: who conflicts with whom, the
//! timeline cut into sections at lifetime endpoints, the gcd of sizes and the
//! lifetime lengths their orderings rank by.
//!
//! Complexity: conflict lists `O(n log n + E)` time and `O(n + E)` memory for
//! `E` conflicting pairs (counted before they are built, and refused when the
//! machine cannot back them); sections `O(n log n)` time, `O(n)` memory.

use std::time::Instant;

use super::TensorLifetime;
use crate::error::PlanError;
use crate::offsets::radix::{bit_length, sort_packed};
use crate::sys::fallible;

/// The planned (non-zero) tensors and who conflicts with whom.
pub(crate) struct Conflicts {
    /// Input indices of the tensors with a non-zero size, in input order.
    pub(crate) items: Vec<usize>,
    /// The conflict lists end to end: position `p`'s list (the positions of
    /// the tensors whose lifetimes intersect its own) is
    /// `list[starts[p]..starts[p + 1]]`. One allocation, not one per tensor;
    /// `u32` entries and starts (the lists are built only for fewer than
    /// 2^32 tensors and entries), half the memory and half the cache lines
    /// of `usize` ones.
    starts: Vec<u32>,
    list: Vec<u32>,
}

/// Above this many list entries (each end of a conflicting pair, 4 bytes
/// each), the heuristic plans without conflict lists (the search never builds
/// them): 8 M entries are 32 MiB, half the memory allowed beyond a large
/// input.
pub(crate) const LIST_ENTRY_LIMIT: usize = 8 << 20;

/// The planned tensors sorted by first use: `O(n log n)` time, `O(n)`
/// memory.
pub(crate) struct Starts {
    /// Input indices of the tensors with a non-zero size, in input order.
    pub(crate) items: Vec<usize>,
    /// Positions in `items`, by first use (ties by position).
    pub(crate) by_start: Vec<usize>,
}

impl Starts {
    /// The sort, or `None` once `deadline` has passed (read between the
    /// steps and every [`DEADLINE_PERIOD`] tensors). Errors:
    /// [`PlanError::OutOfMemory`].
    pub(crate) fn new_until(
        tensors: &[TensorLifetime],
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, PlanError> {
        let items: Vec<usize> = fallible::collect(
            tensors.len(),
            (0..tensors.len()).filter(|&i| tensors[i].size > 0),
        )?;
        let Some(by_start) = positions_by(tensors, &items, |t| t.first_use, deadline)? else {
            return Ok(None);
        };
        Ok(Some(Starts { items, by_start }))
    }
}

/// The planned tensors and how many conflicts each has, counted without
/// listing them: `O(n log n)` time, `O(n)` memory.
pub(crate) struct Degrees {
    /// Input indices of the tensors with a non-zero size, in input order.
    pub(crate) items: Vec<usize>,
    /// Positions in `items`, by first use.
    by_start: Vec<usize>,
    /// For each position in `items`, the number of other tensors whose
    /// lifetimes intersect its own.
    pub(crate) degree: Vec<usize>,
    /// Sum of the degrees (twice the conflicting pairs), saturated.
    pub(crate) entries: usize,
}

impl Degrees {
    /// Counts by a sweep over tensors sorted by first use. Errors:
    /// [`PlanError::OutOfMemory`].
    pub(crate) fn new(tensors: &[TensorLifetime]) -> Result<Self, PlanError> {
        Ok(Self::new_until(tensors, None)?.unwrap_or_else(Degrees::empty))
    }

    /// No tensors.
    fn empty() -> Self {
        Degrees {
            items: Vec::new(),
            by_start: Vec::new(),
            degree: Vec::new(),
            entries: 0,
        }
    }

    /// [`Degrees::new`], or `None` once `deadline` has passed (read between
    /// the steps and every [`DEADLINE_PERIOD`] tensors).
    pub(crate) fn new_until(
        tensors: &[TensorLifetime],
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, PlanError> {
        let Some(starts) = Starts::new_until(tensors, deadline)? else {
            return Ok(None);
        };
        Self::count_until(tensors, starts, deadline)
    }

    /// [`Degrees::new_until`] of the tensors `starts` sorted already.
    pub(crate) fn count_until(
        tensors: &[TensorLifetime],
        starts: Starts,
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, PlanError> {
        let Starts { items, by_start } = starts;
        let Some(by_last) = positions_by(tensors, &items, |t| t.last_use, deadline)? else {
            return Ok(None);
        };
        let n = items.len();
        let firsts: Vec<usize> =
            fallible::collect(n, by_start.iter().map(|&p| tensors[items[p]].first_use))?;
        let mut start_rank = fallible::filled(n, 0usize)?;
        for (k, &p) in by_start.iter().enumerate() {
            start_rank[p] = k;
        }
        // Later starters intersect `p` exactly when they start by its end: a
        // run `k + 1..end` of `by_start`, whose end only moves on as the
        // last uses rise (one merge, no search). Each end of a conflict
        // counts once.
        let mut degree = fallible::filled(n, 0usize)?;
        let mut runs = fallible::filled(n + 1, 0isize)?;
        let mut end = 0;
        for (step, &p) in by_last.iter().enumerate() {
            if step % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 && late(deadline) {
                return Ok(None);
            }
            let last = tensors[items[p]].last_use;
            while end < n && firsts[end] <= last {
                end += 1;
            }
            let k = start_rank[p];
            degree[p] += end - (k + 1);
            runs[k + 1] += 1;
            runs[end] -= 1;
        }
        drop((by_last, start_rank));
        let mut open = 0isize;
        for (k, &p) in by_start.iter().enumerate() {
            open += runs[k];
            degree[p] += open as usize;
        }
        let entries = degree.iter().fold(0usize, |sum, &d| sum.saturating_add(d));
        Ok(Some(Degrees {
            items,
            by_start,
            degree,
            entries,
        }))
    }

    /// The positions in `items` by first use (ties by position).
    pub(crate) fn by_start(&self) -> &[usize] {
        &self.by_start
    }

    /// How far back each tensor's earlier conflicts reach in first-use
    /// order, summed: for each tensor, the tensors from the first whose
    /// running maximum of last uses reaches its first use up to itself.
    /// With the conflicts, what a scan of every tensor's conflicts as one
    /// run of that order reads. `O(n)`.
    pub(crate) fn reach_back(&self, tensors: &[TensorLifetime]) -> usize {
        if self.by_start.is_empty() {
            return 0;
        }
        let last = |k: usize| tensors[self.items[self.by_start[k]]].last_use;
        // `most` is the running maximum of last uses up to `start`, which
        // only moves on (first uses only grow) and stops by `k` (whose own
        // last use reaches its first): each tensor is passed once.
        let (mut start, mut most, mut back) = (0, last(0), 0usize);
        for (k, &p) in self.by_start.iter().enumerate() {
            let first = tensors[self.items[p]].first_use;
            while most < first {
                start += 1;
                most = most.max(last(start));
            }
            back += k - start;
        }
        back
    }

    /// Whether the conflict lists are small enough to build
    /// ([`LIST_ENTRY_LIMIT`]) and their entries fit `u32`.
    pub(crate) fn lists_fit(&self) -> bool {
        self.entries <= LIST_ENTRY_LIMIT && self.items.len() <= u32::MAX as usize
    }
}

impl Conflicts {
    /// Conflict lists by a sweep over tensors sorted by first use:
    /// `O(n log n + E)`. The lists' size is counted first, without building
    /// them, so that a size the machine cannot back (`E` can reach `n²/2`) is
    /// refused as [`PlanError::OutOfMemory`] instead of aborting the process.
    #[cfg(test)]
    pub(crate) fn new(tensors: &[TensorLifetime]) -> Result<Self, PlanError> {
        Self::from_degrees(tensors, Degrees::new(tensors)?)
    }

    /// The lists of the counted `degrees`: `O(E)`. Errors:
    /// [`PlanError::OutOfMemory`] when they cannot be backed.
    #[cfg(test)]
    pub(crate) fn from_degrees(
        tensors: &[TensorLifetime],
        degrees: Degrees,
    ) -> Result<Self, PlanError> {
        Ok(
            Self::from_degrees_until(tensors, degrees, None)?.unwrap_or(Conflicts {
                items: Vec::new(),
                starts: vec![0],
                list: Vec::new(),
            }),
        )
    }

    /// The conflict lists of the counted `degrees` (`O(E)`;
    /// [`PlanError::OutOfMemory`] when they cannot be backed), or `None` once
    /// `deadline` has passed (read every [`DEADLINE_PERIOD`] tensors and
    /// every [`DEADLINE_PERIOD`] × 16 entries).
    pub(crate) fn from_degrees_until(
        tensors: &[TensorLifetime],
        degrees: Degrees,
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, PlanError> {
        let Degrees {
            items,
            by_start,
            degree,
            entries,
        } = degrees;
        fallible::refuse_above_half_available(entries.saturating_mul(std::mem::size_of::<u32>()))?;
        if items.len() > u32::MAX as usize {
            return Err(PlanError::OutOfMemory { bytes: usize::MAX });
        }
        if entries > u32::MAX as usize {
            return Err(PlanError::OutOfMemory { bytes: usize::MAX });
        }
        let mut starts: Vec<u32> = fallible::with_capacity(items.len() + 1)?;
        let mut sum = 0usize;
        starts.push(0);
        for &d in &degree {
            sum += d;
            // At most `entries`, checked to fit `u32`.
            starts.push(sum as u32);
        }
        drop(degree);
        let mut list = fallible::filled(sum, 0u32)?;
        // Each list's next free entry.
        let mut next: Vec<usize> =
            fallible::collect(starts.len(), starts.iter().map(|&s| s as usize))?;
        // Entries written since the clock was last read.
        let mut since = 0usize;
        for (k, &p) in by_start.iter().enumerate() {
            if (k % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 || since > 16 * DEADLINE_PERIOD)
                && late(deadline)
            {
                return Ok(None);
            }
            if since > 16 * DEADLINE_PERIOD {
                since = 0;
            }
            let last = tensors[items[p]].last_use;
            for &q in by_start[k + 1..]
                .iter()
                .take_while(|&&q| tensors[items[q]].first_use <= last)
            {
                // Both below `items.len()`, checked to fit `u32`.
                list[next[p]] = q as u32;
                next[p] += 1;
                list[next[q]] = p as u32;
                next[q] += 1;
                since += 2;
            }
        }
        Ok(Some(Conflicts {
            items,
            starts,
            list,
        }))
    }

    /// The positions of the tensors whose lifetimes intersect that of
    /// position `p`.
    pub(crate) fn neighbours(&self, p: usize) -> &[u32] {
        &self.list[self.starts[p] as usize..self.starts[p + 1] as usize]
    }

    /// Asks the cache for where position `p`'s list starts; a hint only.
    pub(crate) fn prefetch_start(&self, p: usize) {
        if let Some(start) = self.starts.get(p) {
            crate::sys::pages::prefetch(start);
        }
    }

    /// Asks the cache for the two ends of position `p`'s list (reading
    /// where it starts, best asked for beforehand by
    /// [`Conflicts::prefetch_start`]); a hint only.
    pub(crate) fn prefetch_list(&self, p: usize) {
        if let (Some(&start), Some(&end)) = (self.starts.get(p), self.starts.get(p + 1)) {
            self.prefetch_entries(start as usize, end as usize);
        }
    }

    /// Asks the cache for the two ends of the list entries `start..end`; a
    /// hint only.
    pub(crate) fn prefetch_entries(&self, start: usize, end: usize) {
        if start < end && end <= self.list.len() {
            crate::sys::pages::prefetch(&self.list[start]);
            crate::sys::pages::prefetch(&self.list[end - 1]);
        }
    }

    /// Where each position's list starts in [`Conflicts::list`], and where
    /// the last one ends.
    pub(crate) fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// The conflict lists end to end (`list[starts[p]..starts[p + 1]]`).
    pub(crate) fn list(&self) -> &[u32] {
        &self.list
    }

    /// The number of list entries (twice the conflicting pairs).
    pub(crate) fn entries(&self) -> usize {
        self.list.len()
    }
}

/// [`conflict_bytes_until`] with no deadline.
#[cfg(test)]
pub(crate) fn conflict_bytes(
    tensors: &[TensorLifetime],
    items: &[usize],
) -> Result<Vec<u128>, PlanError> {
    Ok(conflict_bytes_until(tensors, items, None)?.unwrap_or_default())
}

/// For each tensor of `items`, the total bytes of the other tensors whose
/// lifetimes intersect its own, without listing them: those starting by its
/// last use, less those ending before its first use. `O(n log n)`. `None`
/// once `deadline` has passed (read between the steps and every
/// [`DEADLINE_PERIOD`] tensors).
pub(crate) fn conflict_bytes_until(
    tensors: &[TensorLifetime],
    items: &[usize],
    deadline: Option<Instant>,
) -> Result<Option<Vec<u128>>, PlanError> {
    let mut bytes: Vec<u128> = fallible::collect(
        items.len(),
        items
            .iter()
            .map(|&i| 0u128.wrapping_sub(tensors[i].size as u128)),
    )?;
    let (mut low, mut high) = (usize::MAX, 0usize);
    for &i in items {
        low = low.min(tensors[i].first_use);
        high = high.max(tensors[i].last_use);
    }
    // Node and position packed in one word beside the size where both fit
    // 32 bits (16 bytes an entry where three words would take 24): at
    // millions of tensors the two sorted copies are the heuristic's peak
    // of memory.
    let packed =
        low > high || (high - low <= u32::MAX as usize && u32::try_from(items.len()).is_ok());
    let done = if packed {
        let by = |node: &dyn Fn(&TensorLifetime) -> usize| {
            sorted_entries(items, |k, i| {
                let t = &tensors[i];
                (((node(t) - low) as u64) << 32 | k as u64, t.size)
            })
        };
        let by_first = by(&|t| t.first_use)?;
        let by_last = by(&|t| t.last_use)?;
        let parts = |(key, size): (u64, usize)| ((key >> 32) as usize, key as u32 as usize, size);
        merge_conflict_bytes(&by_first, &by_last, parts, &mut bytes, deadline)
    } else {
        let by = |node: &dyn Fn(&TensorLifetime) -> usize| {
            sorted_entries(items, |k, i| (node(&tensors[i]), k, tensors[i].size))
        };
        let by_first = by(&|t| t.first_use)?;
        let by_last = by(&|t| t.last_use)?;
        merge_conflict_bytes(&by_first, &by_last, |e| e, &mut bytes, deadline)
    };
    Ok(done.then_some(bytes))
}

/// `entry(k, items[k])` for every position `k`, sorted.
fn sorted_entries<E: Ord>(
    items: &[usize],
    entry: impl Fn(usize, usize) -> E,
) -> Result<Vec<E>, PlanError> {
    let mut sorted = fallible::collect(
        items.len(),
        items.iter().enumerate().map(|(k, &i)| entry(k, i)),
    )?;
    sorted.sort_unstable();
    Ok(sorted)
}

/// Adds to `bytes[k]` the bytes of the tensors starting by the last use of
/// the tensor at position `k`, less those ending before its first use, by
/// one merge of its entries sorted by first use with those sorted by last
/// use in each direction, with no search per tensor; `parts` gives an
/// entry's node, position and size. `false` once `deadline` has passed
/// (read every [`DEADLINE_PERIOD`] tensors).
fn merge_conflict_bytes<E: Copy>(
    by_first: &[E],
    by_last: &[E],
    parts: impl Fn(E) -> (usize, usize, usize),
    bytes: &mut [u128],
    deadline: Option<Instant>,
) -> bool {
    if late(deadline) {
        return false;
    }
    // Started by each last use, in order of last use.
    let (mut started, mut j) = (0u128, 0);
    for (step, &entry) in by_last.iter().enumerate() {
        if step % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 && late(deadline) {
            return false;
        }
        let (last, k, _) = parts(entry);
        while let Some((_, _, size)) = by_first.get(j).map(|&e| parts(e)).filter(|e| e.0 <= last) {
            started += size as u128;
            j += 1;
        }
        bytes[k] = bytes[k].wrapping_add(started);
    }
    // Ended before each first use, in order of first use.
    let (mut ended, mut j) = (0u128, 0);
    for (step, &entry) in by_first.iter().enumerate() {
        if step % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 && late(deadline) {
            return false;
        }
        let (first, k, _) = parts(entry);
        while let Some((_, _, size)) = by_last.get(j).map(|&e| parts(e)).filter(|e| e.0 < first) {
            ended += size as u128;
            j += 1;
        }
        bytes[k] = bytes[k].wrapping_sub(ended);
    }
    true
}

/// The positions of `items` sorted by `key` of their tensors, ties in
/// position order: a radix sort of packed (key, position) pairs when the
/// keys span at most 32 bits, else a comparison sort. `None` once
/// `deadline` has passed. `O(n)` time and memory (`O(n log n)` time by
/// comparison).
pub(crate) fn positions_by(
    tensors: &[TensorLifetime],
    items: &[usize],
    key: impl Fn(&TensorLifetime) -> usize,
    deadline: Option<Instant>,
) -> Result<Option<Vec<usize>>, PlanError> {
    let n = items.len();
    let (mut low, mut high) = (usize::MAX, 0usize);
    // Tables are often listed in the order of their keys already (by first
    // use, in execution order): then the sort is the identity.
    let mut in_order = true;
    for &i in items {
        let key = key(&tensors[i]);
        in_order &= high <= key;
        low = low.min(key);
        high = high.max(key);
    }
    if in_order {
        let positions = fallible::collect(n, 0..n)?;
        return Ok((!late(deadline)).then_some(positions));
    }
    let packed = n > 1 && high - low <= u32::MAX as usize && u32::try_from(n).is_ok();
    let sorted = if packed {
        let mut keys: Vec<u64> = fallible::collect(
            n,
            items
                .iter()
                .enumerate()
                .map(|(p, &i)| ((key(&tensors[i]) - low) as u64) << 32 | p as u64),
        )?;
        if late(deadline) {
            return Ok(None);
        }
        sort_packed(
            &mut keys,
            &mut Vec::new(),
            32,
            32 + bit_length((high - low) as u64),
        )?;
        if late(deadline) {
            return Ok(None);
        }
        fallible::collect(n, keys.iter().map(|&k| k as u32 as usize))?
    } else {
        let mut positions: Vec<usize> = fallible::collect(n, 0..n)?;
        // Unstable with the position as tie-break: the same order as a
        // stable sort, and no scratch buffer allocated behind the fallible
        // ones.
        positions.sort_unstable_by_key(|&p| (key(&tensors[items[p]]), p));
        positions
    };
    Ok((!late(deadline)).then_some(sorted))
}

/// Whether `deadline` has passed.
pub(crate) fn late(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// How often a pass over the tensors reads the clock, in tensors.
pub(crate) const DEADLINE_PERIOD: usize = 4096;

/// The timeline cut at every lifetime endpoint: the distinct first uses and
/// nodes after a last use, in order, bound the sections; no lifetime starts
/// or ends inside one.
pub(crate) struct Sections {
    /// Section range `lo..hi` of each tensor of `items`.
    pub(crate) ranges: Vec<(usize, usize)>,
    /// Number of sections.
    pub(crate) count: usize,
}

impl Sections {
    /// The sections of the tensors `items` of `tensors`: `O(n log n)`.
    /// Errors: [`PlanError::OutOfMemory`].
    pub(crate) fn new(tensors: &[TensorLifetime], items: &[usize]) -> Result<Self, PlanError> {
        Ok(Self::new_until(tensors, items, None)?.unwrap_or(Sections {
            ranges: Vec::new(),
            count: 0,
        }))
    }

    /// [`Sections::new`], or `None` once `deadline` has passed (read
    /// between the steps and every [`DEADLINE_PERIOD`] tensors).
    pub(crate) fn new_until(
        tensors: &[TensorLifetime],
        items: &[usize],
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, PlanError> {
        match Self::packed(tensors, items, deadline)? {
            Some(packed) => Ok(packed),
            None => Self::searched(tensors, items, deadline),
        }
    }

    /// [`Sections::new_until`] when the endpoints (first uses and nodes after
    /// last uses) span at most 32 bits: each endpoint's section is its
    /// rank among the distinct endpoints, read off one sort of (endpoint,
    /// slot) keys packed in `u64`, with no search per endpoint. `Ok(None)`
    /// (nothing done) when they do not fit; `Ok(Some(None))` once
    /// `deadline` has passed.
    #[allow(clippy::type_complexity)]
    fn packed(
        tensors: &[TensorLifetime],
        items: &[usize],
        deadline: Option<Instant>,
    ) -> Result<Option<Option<Self>>, PlanError> {
        let (mut low, mut high) = (u128::MAX, 0u128);
        for &i in items {
            low = low.min(tensors[i].first_use as u128);
            high = high.max(tensors[i].last_use as u128 + 1);
        }
        let fits = !items.is_empty()
            && high - low <= u32::MAX as u128
            && u32::try_from(2 * items.len() - 1).is_ok();
        if !fits {
            return Ok(None);
        }
        // The endpoint above, its slot below: 2k for tensor k's first use,
        // 2k + 1 for the node after its last.
        let mut keys: Vec<u64> = fallible::collect(
            2 * items.len(),
            items.iter().enumerate().flat_map(|(k, &i)| {
                let t = &tensors[i];
                let after = t.last_use as u128 + 1;
                [
                    ((t.first_use as u128 - low) as u64) << 32 | (2 * k) as u64,
                    ((after - low) as u64) << 32 | (2 * k + 1) as u64,
                ]
            }),
        )?;
        let span = bit_length((high - low) as u64);
        sort_packed(&mut keys, &mut Vec::new(), 32, 32 + span)?;
        if late(deadline) {
            return Ok(Some(None));
        }
        let mut ranges = fallible::filled(items.len(), (0usize, 0usize))?;
        let (mut rank, mut previous) = (0usize, keys[0] >> 32);
        for &key in &keys {
            if key >> 32 != previous {
                (rank, previous) = (rank + 1, key >> 32);
            }
            let slot = key as u32 as usize;
            let range = &mut ranges[slot / 2];
            if slot % 2 == 0 {
                range.0 = rank;
            } else {
                range.1 = rank;
            }
        }
        Ok(Some(Some(Sections {
            ranges,
            count: rank,
        })))
    }

    /// [`Sections::new_until`] for endpoints of any span: the distinct
    /// endpoints sorted, then a search per endpoint. Endpoints in `u128`:
    /// `last_use + 1` may pass `usize::MAX`.
    fn searched(
        tensors: &[TensorLifetime],
        items: &[usize],
        deadline: Option<Instant>,
    ) -> Result<Option<Self>, PlanError> {
        let first = |x: usize| x as u128;
        let after = |x: usize| x as u128 + 1;
        let mut points: Vec<u128> = fallible::collect(
            2 * items.len(),
            items
                .iter()
                .flat_map(|&i| [first(tensors[i].first_use), after(tensors[i].last_use)]),
        )?;
        points.sort_unstable();
        points.dedup();
        if late(deadline) {
            return Ok(None);
        }
        let section = |x: u128| points.partition_point(|&p| p < x);
        let mut ranges = fallible::with_capacity(items.len())?;
        for (k, &i) in items.iter().enumerate() {
            if k % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 && late(deadline) {
                return Ok(None);
            }
            ranges.push((
                section(first(tensors[i].first_use)),
                section(after(tensors[i].last_use)),
            ));
        }
        Ok(Some(Sections {
            ranges,
            count: points.len().saturating_sub(1),
        }))
    }
}

/// The greatest common divisor of `sizes` (1 if there are none or all are
/// 0): every sum of sizes, so every floor and offset a placement makes, is
/// a multiple of it.
pub(crate) fn size_unit(sizes: &[usize]) -> usize {
    sizes.iter().fold(0, |g, &s| gcd(g, s)).max(1)
}

/// Greatest common divisor (`gcd(0, b) = b`).
pub(crate) fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The number of nodes in a tensor's inclusive lifetime (`u128`: it may be
/// `usize::MAX + 1`).
pub(crate) fn lifetime_length(tensor: &TensorLifetime) -> u128 {
    (tensor.last_use - tensor.first_use) as u128 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The positions by key are a stable sort's, on tables listed in key
    /// order (where the sort is skipped) and not, with ties and zero sizes,
    /// by the radix sort and by the comparison sort.
    #[test]
    fn positions_by_key_are_a_stable_sorts() {
        let mut rng = crate::rng::XorShift(0x0DDB_A11A_5EED_0003);
        for case in 0..40 {
            let count = rng.below(3000);
            let step = if case % 4 < 2 { 1 } else { 1 << 34 };
            let mut firsts: Vec<usize> = (0..count).map(|_| step * rng.below(50)).collect();
            if case % 2 == 0 {
                firsts.sort();
            }
            let tensors: Vec<TensorLifetime> = (firsts.iter())
                .map(|&f| TensorLifetime::new(rng.below(3), f, f + rng.below(9)))
                .collect();
            let items: Vec<usize> = (0..count).filter(|&i| tensors[i].size > 0).collect();
            let mut expected: Vec<usize> = (0..items.len()).collect();
            expected.sort_by_key(|&p| tensors[items[p]].first_use);
            let sorted = positions_by(&tensors, &items, |t| t.first_use, None).unwrap();
            assert_eq!(sorted, Some(expected), "case {case}");
        }
    }

    /// Each tensor's degree is its number of intersecting tensors, by an
    /// all-pairs count, on seeded tables large enough for the radix sorts
    /// and with endpoints spanning more than 32 bits (the comparison sort).
    #[test]
    fn degrees_count_the_intersecting_tensors() {
        let mut rng = crate::rng::XorShift(0x5EED_D00D_0042_0017);
        for case in 0..8 {
            let count = 3000 + rng.below(3000);
            let step = if case % 2 == 0 { 1 } else { 1 << 34 };
            let tensors: Vec<TensorLifetime> = (0..count)
                .map(|_| {
                    let first = rng.below(count);
                    let last = first + rng.below(if case % 4 < 2 { 8 } else { 400 });
                    TensorLifetime::new(rng.below(4), first * step, last * step)
                })
                .collect();
            let degrees = Degrees::new(&tensors).unwrap();
            let items: Vec<usize> = (0..count).filter(|&i| tensors[i].size > 0).collect();
            assert_eq!(degrees.items, items);
            for (p, &i) in items.iter().enumerate() {
                let (a, b) = (tensors[i].first_use, tensors[i].last_use);
                let meeting = items
                    .iter()
                    .filter(|&&j| j != i && tensors[j].first_use <= b && a <= tensors[j].last_use)
                    .count();
                assert_eq!(degrees.degree[p], meeting, "case {case}, tensor {i}");
            }
            let mut by_start = degrees.by_start.clone();
            by_start.sort_by_key(|&p| (tensors[items[p]].first_use, p));
            assert_eq!(degrees.by_start, by_start, "case {case}");
        }
    }

    /// The sections from packed keys equal those of the sorted endpoints and
    /// a search per endpoint, on seeded tables of every span (within 32
    /// bits and past them, near 0 and near `usize::MAX`) and of sizes on
    /// both sides of the radix sort's threshold.
    #[test]
    fn packed_sections_are_the_searched_ones() {
        let mut rng = crate::rng::XorShift(0x0DDB_A11C_0FFE_E000);
        for case in 0..120 {
            let count = if case % 8 == 0 {
                5000 + rng.below(100)
            } else {
                rng.below(50)
            };
            let (base, step) = match case % 4 {
                0 => (0, 1),
                1 => (usize::MAX - 70, 1),
                2 => (0, 1 << 29),
                _ => (1 << 40, 1 << 33),
            };
            let tensors: Vec<TensorLifetime> = (0..count)
                .map(|_| {
                    let first = base + rng.below(60).min((usize::MAX - base) / step) * step;
                    let reach = ((usize::MAX - first) / step).min(20);
                    let last = first + rng.below(reach + 1) * step;
                    TensorLifetime::new(rng.below(3), first, last)
                })
                .collect();
            let items: Vec<usize> = (0..count).filter(|&i| tensors[i].size > 0).collect();
            let searched = Sections::searched(&tensors, &items, None).unwrap().unwrap();
            let sections = Sections::new(&tensors, &items).unwrap();
            assert_eq!(sections.ranges, searched.ranges, "case {case}");
            assert_eq!(sections.count, searched.count, "case {case}");
        }
    }

    /// Each tensor's conflict bytes are the sum of the sizes of the others
    /// whose lifetimes meet its own, by an all-pairs check, where nodes fit
    /// the packed entries and where they span more than 32 bits.
    #[test]
    fn conflict_bytes_are_the_sum_over_intersecting_tensors() {
        let mut rng = crate::rng::XorShift(0x9E37_79B9_7F4A_7C15);
        for case in 0..400 {
            let count = rng.below(60);
            // Every other case spreads the nodes past 32 bits.
            let step = if case % 2 == 0 { 1 } else { 1usize << 40 };
            let tensors: Vec<TensorLifetime> = (0..count)
                .map(|_| {
                    let (a, b) = (rng.below(16), rng.below(16));
                    let size = rng.below(4) * (1 + rng.below(1 << 20));
                    TensorLifetime::new(size, a.min(b) * step, a.max(b) * step)
                })
                .collect();
            let items: Vec<usize> = (0..count).filter(|&i| tensors[i].size > 0).collect();
            let bytes = conflict_bytes(&tensors, &items).unwrap();
            for (p, &i) in items.iter().enumerate() {
                let expected: u128 = items
                    .iter()
                    .filter(|&&j| j != i && tensors[j].overlaps(&tensors[i]))
                    .map(|&j| tensors[j].size as u128)
                    .sum();
                assert_eq!(bytes[p], expected, "case {case}, tensor {i}");
            }
        }
    }

    /// The conflict lists hold exactly the pairs whose inclusive lifetimes
    /// intersect, by an all-pairs check, on seeded random tables with
    /// zero-size tensors and repeated endpoints.
    #[test]
    fn conflict_lists_are_the_intersecting_pairs() {
        let mut rng = crate::rng::XorShift(0x2545_F491_4F6C_DD1D);
        let mut below = |bound: usize| rng.below(bound);
        for _ in 0..200 {
            let count = below(40);
            let tensors: Vec<TensorLifetime> = (0..count)
                .map(|_| {
                    let (a, b) = (below(12), below(12));
                    TensorLifetime::new(below(4), a.min(b), a.max(b))
                })
                .collect();
            let conflicts = Conflicts::new(&tensors).expect("small input");
            let expected: Vec<usize> = (0..count).filter(|&i| tensors[i].size > 0).collect();
            assert_eq!(conflicts.items, expected);
            for (p, &i) in conflicts.items.iter().enumerate() {
                let mut listed: Vec<usize> = conflicts
                    .neighbours(p)
                    .iter()
                    .map(|&q| conflicts.items[q as usize])
                    .collect();
                listed.sort_unstable();
                let intersecting: Vec<usize> = expected
                    .iter()
                    .copied()
                    .filter(|&j| {
                        j != i
                            && tensors[i].first_use <= tensors[j].last_use
                            && tensors[j].first_use <= tensors[i].last_use
                    })
                    .collect();
                assert_eq!(listed, intersecting, "tensor {i} of {tensors:?}");
                assert_eq!(conflicts.neighbours(p).len(), listed.len());
                let bytes: u128 = intersecting.iter().map(|&j| tensors[j].size as u128).sum();
                assert_eq!(
                    conflict_bytes(&tensors, &conflicts.items).unwrap()[p],
                    bytes
                );
                assert_eq!(Degrees::new(&tensors).unwrap().degree[p], listed.len());
            }
        }
    }
}
