//! The nine orderings of the heuristic, each a stable sort of the planned
//! tensors in decreasing key (ties keep input order).
//!
//! # Algorithm
//!
//! A key is a chain of up to three components among size, number of
//! conflicts, lifetime length, area (size × length), pressure (the live
//! bytes at the tensor's busiest node) and conflict bytes (the total bytes
//! of its conflicts). Each component is turned once, on first use, into
//! dense ranks (0 for the largest value, equal values equal ranks), by one
//! sort of the values packed with their positions (a radix sort where they
//! fit 64 bits). Ranks are below `n`, so an ordering is then a stable
//! counting sort by each of its components' ranks, the least significant
//! first, from the positions in order: the order of the lexicographic
//! comparison of the values, ties broken by position, with no key
//! compared at all.
//!
//! # Complexity
//!
//! `O(n log n)` per component at worst (once; `O(n)` by the radix sort
//! when a value and a position fit 64 bits) and `O(n)` per ordering;
//! `O(n)` memory: one `u32` rank per tensor and component, and the
//! positions of one ordering at a time. The deadline is read between the
//! steps and every [`DEADLINE_PERIOD`] tensors of the passes over them.

use std::cmp::Reverse;
use std::time::Instant;

use crate::error::PlanError;
use crate::offsets::conflicts::{self, late, lifetime_length, Sections, DEADLINE_PERIOD};
use crate::offsets::radix::sort_packed;
use crate::offsets::TensorLifetime;
use crate::sys::fallible;

/// Number of orderings.
pub(super) const ORDERINGS: usize = 9;

/// A component of the orderings' keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Component {
    Size,
    Degree,
    Length,
    Area,
    Pressure,
    ConflictBytes,
}

/// Number of [`Component`]s.
const COMPONENTS: usize = 6;

/// The components of ordering `k`'s key, the most significant first.
fn components(k: usize) -> &'static [Component] {
    use Component::{Area, ConflictBytes, Degree, Length, Pressure, Size};
    match k {
        0 => &[Size],
        1 => &[Degree, Size],
        2 => &[Length, Size],
        3 => &[Area, Size],
        4 => &[Pressure, Size],
        5 => &[ConflictBytes, Size],
        6 => &[Length, Area, Pressure],
        7 => &[Pressure, Area, Length],
        _ => &[Pressure, Length, Area],
    }
}

/// The orderings of the planned tensors, one at a time (holding them all
/// would cost `9n` words).
pub(super) struct Orderings<'a> {
    tensors: &'a [TensorLifetime],
    items: &'a [usize],
    degree: &'a [usize],
    deadline: Option<Instant>,
    /// Each component's dense rank by position (0 for the largest value);
    /// empty until first used.
    ranks: [Vec<u32>; COMPONENTS],
    /// Each component's number of distinct values (its greatest rank + 1).
    distinct: [usize; COMPONENTS],
}

impl<'a> Orderings<'a> {
    /// The orderings of the tensors `items` (each with `degree[p]`
    /// conflicts); the work is done as orderings are asked for, and stops
    /// (answering `None`) once `deadline` has passed.
    pub(super) fn new(
        tensors: &'a [TensorLifetime],
        items: &'a [usize],
        degree: &'a [usize],
        deadline: Option<Instant>,
    ) -> Self {
        Orderings {
            tensors,
            items,
            degree,
            deadline,
            ranks: Default::default(),
            distinct: [0; COMPONENTS],
        }
    }

    /// Whether ordering `k` needs a component not yet ranked whose values
    /// cost a table of their own (node pressure, conflict bytes): `O(n)`
    /// memory beyond the ranks, alive while they are ranked.
    pub(super) fn needs_costly_values(&self, k: usize) -> bool {
        components(k).iter().any(|&c| {
            matches!(c, Component::Pressure | Component::ConflictBytes)
                && self.ranks[c as usize].len() != self.items.len()
        })
    }

    /// Ordering `k` (below [`ORDERINGS`]) as a sequence of positions in
    /// `items`: a stable sort in decreasing key, `O(n)` once the ranks are
    /// known (`O(n log n)` by comparison past `u32::MAX` tensors); `None`
    /// if the deadline passed first.
    pub(super) fn order(&mut self, k: usize) -> Result<Option<Vec<usize>>, PlanError> {
        let n = self.items.len();
        if n > u32::MAX as usize {
            return self.order_by_comparison(k);
        }
        let parts = components(k);
        for &c in parts {
            if self.ranks[c as usize].len() != n && !self.rank(c)? {
                return Ok(None);
            }
        }
        if late(self.deadline) {
            return Ok(None);
        }
        // Ascending in the components' ranks (rank 0 is the largest value),
        // ties by position: stable counting sorts by each component, the
        // least significant first, from the positions in order. A rank is
        // below `n`, so each sort is `O(n)`.
        let mut order: Vec<u32> = fallible::collect(n, 0..n as u32)?;
        let mut sorted: Vec<u32> = fallible::filled(n, 0)?;
        let mut starts: Vec<u32> = Vec::new();
        for &c in parts.iter().rev() {
            let (ranks, distinct) = (&self.ranks[c as usize], self.distinct[c as usize]);
            if distinct <= 1 {
                continue; // one rank: the sort keeps the order
            }
            starts.clear();
            fallible::reserve(&mut starts, distinct + 1)?;
            starts.resize(distinct + 1, 0);
            for &p in &order {
                starts[ranks[p as usize] as usize + 1] += 1;
            }
            for r in 1..=distinct {
                starts[r] += starts[r - 1];
            }
            for &p in &order {
                let slot = &mut starts[ranks[p as usize] as usize];
                sorted[*slot as usize] = p;
                *slot += 1;
            }
            std::mem::swap(&mut order, &mut sorted);
            if late(self.deadline) {
                return Ok(None);
            }
        }
        Ok(Some(fallible::collect(
            n,
            order.iter().map(|&p| p as usize),
        )?))
    }

    /// Fills in the dense ranks of component `c`; false if the deadline
    /// passed first.
    fn rank(&mut self, c: Component) -> Result<bool, PlanError> {
        let (tensors, items) = (self.tensors, self.items);
        let size = |p: usize| tensors[items[p]].size as u128;
        let length = |p: usize| lifetime_length(&tensors[items[p]]);
        let ranks = match c {
            Component::Size => dense_ranks(items.len(), size, self.deadline)?,
            Component::Degree => {
                dense_ranks(items.len(), |p| self.degree[p] as u128, self.deadline)?
            }
            Component::Length => dense_ranks(items.len(), length, self.deadline)?,
            Component::Area => dense_ranks(items.len(), |p| size(p) * length(p), self.deadline)?,
            Component::Pressure => {
                let Some(values) = node_pressure(tensors, items, self.deadline)? else {
                    return Ok(false);
                };
                dense_ranks(items.len(), |p| values.at(p), self.deadline)?
            }
            Component::ConflictBytes => {
                let values = conflicts::conflict_bytes_until(tensors, items, self.deadline)?;
                let Some(values) = values else {
                    return Ok(false);
                };
                dense_ranks(items.len(), |p| values[p], self.deadline)?
            }
        };
        let Some(ranks) = ranks else {
            return Ok(false);
        };
        self.distinct[c as usize] = ranks.iter().max().map_or(0, |&r| r as usize + 1);
        self.ranks[c as usize] = ranks;
        Ok(true)
    }

    /// Ordering `k` by a comparison sort on the keys' values, computed in
    /// each comparison: the definition of the orderings, for tables too
    /// large for `u32` ranks. `O(n log n)` comparisons.
    pub(super) fn order_by_comparison(&self, k: usize) -> Result<Option<Vec<usize>>, PlanError> {
        let (tensors, items, degree) = (self.tensors, self.items, self.degree);
        let parts = components(k);
        let pressure = if parts.contains(&Component::Pressure) {
            node_pressure(tensors, items, self.deadline)?
        } else {
            Some(Pressure::Narrow(Vec::new()))
        };
        let conflict_bytes = if parts.contains(&Component::ConflictBytes) {
            conflicts::conflict_bytes_until(tensors, items, self.deadline)?
        } else {
            Some(Vec::new())
        };
        let (Some(pressure), Some(conflict_bytes)) = (pressure, conflict_bytes) else {
            return Ok(None);
        };
        let size = |p: usize| tensors[items[p]].size as u128;
        let length = |p: usize| lifetime_length(&tensors[items[p]]);
        let value = |c: Component, p: usize| -> u128 {
            match c {
                Component::Size => size(p),
                Component::Degree => degree[p] as u128,
                Component::Length => length(p),
                Component::Area => size(p) * length(p),
                Component::Pressure => pressure.at(p),
                Component::ConflictBytes => conflict_bytes[p],
            }
        };
        let key = |p: usize| -> (u128, u128, u128) {
            let mut key = [0u128; 3];
            for (slot, &c) in key.iter_mut().zip(parts) {
                *slot = value(c, p);
            }
            (key[0], key[1], key[2])
        };
        let mut order: Vec<usize> = fallible::collect(items.len(), 0..items.len())?;
        order.sort_unstable_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
        Ok(Some(order))
    }
}

/// The dense ranks of `value(p)` for `p` in `0..n` (`n` at most
/// `u32::MAX + 1`): 0 for the largest value, equal values equal ranks.
/// `None` if `deadline` passed first.
///
/// Where a value and its position fit 64 bits together, they are packed
/// into one integer and the integers radix-sorted; wider values sort as
/// (value, position) pairs.
fn dense_ranks(
    n: usize,
    value: impl Fn(usize) -> u128,
    deadline: Option<Instant>,
) -> Result<Option<Vec<u32>>, PlanError> {
    let mut widest = 0u128;
    for p in 0..n {
        if p % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 && late(deadline) {
            return Ok(None);
        }
        widest = widest.max(value(p));
    }
    let position_bits = u128::BITS - (n.saturating_sub(1) as u128).leading_zeros();
    let value_bits = u128::BITS - widest.leading_zeros();
    let mut ranks = fallible::filled(n, 0u32)?;
    // Walks the (value, position) pairs from the largest value down.
    let mut assign = |pairs: &mut dyn Iterator<Item = (u128, usize)>| {
        let mut rank = 0u32;
        let mut previous = None;
        for (value, p) in pairs {
            if previous.is_some_and(|v| v != value) {
                rank += 1;
            }
            previous = Some(value);
            ranks[p] = rank;
        }
    };
    if value_bits + position_bits <= u64::BITS {
        let mut keys: Vec<u64> = fallible::collect(
            n,
            (0..n).map(|p| (value(p) << position_bits | p as u128) as u64),
        )?;
        sort_packed(
            &mut keys,
            &mut Vec::new(),
            position_bits,
            position_bits + value_bits,
        )?;
        if late(deadline) {
            return Ok(None);
        }
        let mask = (1u64 << position_bits) - 1;
        let unpack = |&key: &u64| ((key >> position_bits) as u128, (key & mask) as usize);
        assign(&mut keys.iter().rev().map(unpack));
    } else {
        let mut pairs: Vec<(u128, u32)> =
            fallible::collect(n, (0..n).map(|p| (value(p), p as u32)))?;
        pairs.sort_unstable_by_key(|&(value, _)| Reverse(value));
        if late(deadline) {
            return Ok(None);
        }
        assign(&mut pairs.iter().map(|&(value, p)| (value, p as usize)));
    }
    Ok(Some(ranks))
}

/// For each planned tensor, the live bytes at the busiest node of its
/// lifetime: a sweep over the sections, then a range maximum per tensor over
/// a bottom-up segment tree, `O(n log n)`; `None` if `deadline` passed
/// first.
fn node_pressure(
    tensors: &[TensorLifetime],
    items: &[usize],
    deadline: Option<Instant>,
) -> Result<Option<Pressure>, PlanError> {
    let Some(sections) = Sections::new_until(tensors, items, deadline)? else {
        return Ok(None);
    };
    let total = items
        .iter()
        .try_fold(0u64, |sum, &i| sum.checked_add(tensors[i].size as u64));
    // Live bytes never pass the sum of the sizes: when that fits `u64`, so
    // does every sum below, in half the memory of `u128`.
    Ok(if total.is_some() {
        pressure_by::<u64>(tensors, items, &sections, deadline)?.map(Pressure::Narrow)
    } else {
        pressure_by::<u128>(tensors, items, &sections, deadline)?.map(Pressure::Wide)
    })
}

/// Each planned tensor's node pressure, in the narrowest type that holds
/// every sum of sizes.
enum Pressure {
    Narrow(Vec<u64>),
    Wide(Vec<u128>),
}

impl Pressure {
    /// The pressure of the tensor at position `p`.
    fn at(&self, p: usize) -> u128 {
        match self {
            Pressure::Narrow(values) => u128::from(values[p]),
            Pressure::Wide(values) => values[p],
        }
    }
}

/// Live bytes in an unsigned type wide enough for every sum of sizes that
/// [`pressure_by`] meets; differences wrap (each running sum is exact).
trait LiveBytes: Copy + Ord + Default {
    fn of_size(size: usize) -> Self;
    fn plus(self, other: Self) -> Self;
    fn minus(self, other: Self) -> Self;
}

/// [`LiveBytes`] for the unsigned integer types.
macro_rules! live_bytes {
    ($($t:ty),*) => {$(
        impl LiveBytes for $t {
            fn of_size(size: usize) -> Self {
                size as $t
            }
            fn plus(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            fn minus(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
        }
    )*};
}

live_bytes!(u64, u128);

/// [`node_pressure`] over `sections`, summing in `T`.
fn pressure_by<T: LiveBytes>(
    tensors: &[TensorLifetime],
    items: &[usize],
    sections: &Sections,
    deadline: Option<Instant>,
) -> Result<Option<Vec<T>>, PlanError> {
    // Each section's change of live bytes, then their running sums as the
    // leaves of a bottom-up tree of maxima.
    let mut delta = fallible::filled(sections.count + 1, T::default())?;
    for (&i, &(lo, hi)) in items.iter().zip(&sections.ranges) {
        let size = T::of_size(tensors[i].size);
        delta[lo] = delta[lo].plus(size);
        delta[hi] = delta[hi].minus(size);
    }
    let leaves = sections.count.max(1);
    let mut tree = fallible::filled(2 * leaves, T::default())?;
    let mut sum = T::default();
    for (s, &d) in delta[..sections.count].iter().enumerate() {
        sum = sum.plus(d);
        tree[leaves + s] = sum;
    }
    drop(delta);
    for v in (1..leaves).rev() {
        tree[v] = tree[2 * v].max(tree[2 * v + 1]);
    }
    if late(deadline) {
        return Ok(None);
    }
    let mut pressure = fallible::with_capacity(items.len())?;
    for (k, &(lo, hi)) in sections.ranges.iter().enumerate() {
        if k % DEADLINE_PERIOD == DEADLINE_PERIOD - 1 && late(deadline) {
            return Ok(None);
        }
        let (mut low, mut high, mut most) = (lo + leaves, hi + leaves, T::default());
        while low < high {
            if low & 1 == 1 {
                most = most.max(tree[low]);
                low += 1;
            }
            if high & 1 == 1 {
                high -= 1;
                most = most.max(tree[high]);
            }
            low >>= 1;
            high >>= 1;
        }
        pressure.push(most);
    }
    Ok(Some(pressure))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offsets::conflicts::Degrees;
    use crate::rng::XorShift;

    /// The ranked orderings equal the comparison sort on the keys' values
    /// (the orderings' definition), on seeded tables with many equal keys
    /// and sizes of every width, below and above the `u64` packing's limit.
    #[test]
    fn ranked_orderings_equal_the_comparison_sort() {
        let mut rng = XorShift(0x3141_5926_5358_9793);
        for case in 0..300 {
            let count = if case % 10 == 0 {
                70_000 + rng.below(2000)
            } else {
                rng.below(200)
            };
            // Lifetimes up to 2^62 nodes long in one case of seven: with
            // sizes near 2^64, areas too wide to pack with a position.
            let horizon = match case % 7 {
                0 => 1 << 62,
                _ if case % 3 == 0 => 10,
                _ => 1 + rng.below(5000),
            };
            let tensors: Vec<TensorLifetime> = (0..count)
                .map(|_| {
                    let first = rng.below(horizon);
                    let span = if rng.below(4) == 0 { horizon } else { 5 };
                    let last = first + rng.below(span);
                    let size = match rng.below(4) {
                        0 => 0,
                        1 => 1 + rng.below(3),
                        2 => 64 * (1 + rng.below(64)),
                        _ => usize::MAX / (1 + rng.below(8)),
                    };
                    TensorLifetime::new(size, first, last)
                })
                .collect();
            let degrees = Degrees::new(&tensors).unwrap();
            let mut orders = Orderings::new(&tensors, &degrees.items, &degrees.degree, None);
            for k in 0..ORDERINGS {
                let ranked = orders.order(k).unwrap().unwrap();
                let compared = orders.order_by_comparison(k).unwrap().unwrap();
                assert_eq!(ranked, compared, "ordering {k}, case {case}");
            }
        }
    }

    /// Each tensor's pressure is the most bytes live at one node of its
    /// lifetime, by a check of every node where a lifetime starts (live
    /// bytes rise only there), on seeded tables whose sums fit `u64` and
    /// tables whose sums do not, with endpoints near 0 and near
    /// `usize::MAX` (where `last_use + 1` passes `u64`).
    #[test]
    fn pressure_is_the_busiest_node_of_each_lifetime() {
        let mut rng = XorShift(0x2718_2818_2845_9045);
        for case in 0..400 {
            let count = 1 + rng.below(60);
            let base = if case % 3 == 0 { usize::MAX - 40 } else { 0 };
            let tensors: Vec<TensorLifetime> = (0..count)
                .map(|_| {
                    let first = base + rng.below(30);
                    let last = match rng.below(4) {
                        0 if base > 0 => usize::MAX,
                        _ => first + rng.below(12),
                    };
                    let size = match rng.below(4) {
                        0 => 0,
                        1 if case % 2 == 0 => usize::MAX / (1 + rng.below(4)),
                        _ => 1 + rng.below(1000),
                    };
                    TensorLifetime::new(size, first, last)
                })
                .collect();
            let items = Degrees::new(&tensors).unwrap().items;
            let pressure = node_pressure(&tensors, &items, None).unwrap().unwrap();
            let live = |node: usize| -> u128 {
                items
                    .iter()
                    .map(|&j| &tensors[j])
                    .filter(|t| t.first_use <= node && node <= t.last_use)
                    .map(|t| t.size as u128)
                    .sum()
            };
            for (p, &i) in items.iter().enumerate() {
                let t = &tensors[i];
                let busiest = items
                    .iter()
                    .map(|&j| tensors[j].first_use)
                    .filter(|&node| t.first_use <= node && node <= t.last_use)
                    .chain([t.first_use])
                    .map(live)
                    .max()
                    .unwrap();
                assert_eq!(pressure.at(p), busiest, "tensor {i} of {tensors:?}");
            }
        }
    }

    /// A deadline already passed stops the orderings: `None`.
    #[test]
    fn a_passed_deadline_gives_no_ordering() {
        let tensors: Vec<TensorLifetime> =
            (0..100).map(|i| TensorLifetime::new(8, i, i + 3)).collect();
        let degrees = Degrees::new(&tensors).unwrap();
        let mut orders = Orderings::new(
            &tensors,
            &degrees.items,
            &degrees.degree,
            Some(Instant::now()),
        );
        for k in 0..ORDERINGS {
            assert_eq!(orders.order(k).unwrap(), None);
        }
    }

    /// The orderings by node pressure (4, 6, 7, 8) and by conflict bytes
    /// (5) need costly values until those are ranked, the others never.
    #[test]
    fn costly_values_are_needed_until_ranked() {
        let tensors: Vec<TensorLifetime> = (0..100)
            .map(|i| TensorLifetime::new(8 + i % 5, i, i + 3))
            .collect();
        let degrees = Degrees::new(&tensors).unwrap();
        let mut orders = Orderings::new(&tensors, &degrees.items, &degrees.degree, None);
        let needing = |orders: &Orderings| -> Vec<usize> {
            (0..ORDERINGS)
                .filter(|&k| orders.needs_costly_values(k))
                .collect()
        };
        assert_eq!(needing(&orders), [4, 5, 6, 7, 8]);
        for k in 0..4 {
            orders.order(k).unwrap().unwrap();
        }
        assert_eq!(needing(&orders), [4, 5, 6, 7, 8]);
        orders.order(7).unwrap().unwrap();
        assert_eq!(needing(&orders), [5]);
        orders.order(5).unwrap().unwrap();
        assert_eq!(needing(&orders), Vec::<usize>::new());
    }
}
