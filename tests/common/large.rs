//! The large real problems of `data/large` and the fast soundness check the
//! tests at scale use on them.

use std::collections::BTreeMap;
use std::path::Path;

use aether_planner::TensorLifetime;

/// Reads `data/large/NAME.csv` (MiniMalloc CSV, `upper` exclusive).
pub fn large_file(name: &str) -> Vec<TensorLifetime> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/large")
        .join(format!("{name}.csv"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let f: Vec<usize> = line
                .split(',')
                .skip(1)
                .map(|x| x.trim().parse().unwrap())
                .collect();
            TensorLifetime::new(f[2], f[0], f[1] - 1)
        })
        .collect()
}

/// The first pair of tensors with intersecting lifetimes whose extents
/// (sizes rounded up to `alignment`) share a byte, if any, and the highest
/// end. A sweep over lifetime endpoints keeps the live extents by offset,
/// ends before arrivals at each time; an arrival is checked against its two
/// neighbours only, since the live extents are pairwise disjoint. Not `n²`
/// pairs: `O(n log n)`.
pub fn first_overlap(
    tensors: &[TensorLifetime],
    offsets: &[usize],
    alignment: usize,
) -> (Option<(usize, usize)>, usize) {
    assert_eq!(offsets.len(), tensors.len());
    let extent = |i: usize| tensors[i].size.div_ceil(alignment) * alignment;
    // (time, false = leave | true = arrive, tensor).
    let mut events: Vec<(u128, bool, usize)> = Vec::with_capacity(2 * tensors.len());
    for (i, t) in tensors.iter().enumerate().filter(|(_, t)| t.size > 0) {
        events.push((t.first_use as u128, true, i));
        events.push((t.last_use as u128 + 1, false, i));
    }
    events.sort_unstable();
    let mut live: BTreeMap<(usize, usize), usize> = BTreeMap::new(); // (offset, tensor) -> end
    let mut highest = 0;
    for (_, arrives, i) in events {
        let key = (offsets[i], i);
        if !arrives {
            live.remove(&key);
            continue;
        }
        let end = offsets[i] + extent(i);
        highest = highest.max(end);
        if let Some((&(_, j), &below_end)) = live.range(..key).next_back() {
            if below_end > offsets[i] {
                return (Some((j, i)), highest);
            }
        }
        if let Some((&(above, j), _)) = live.range(key..).next() {
            if end > above {
                return (Some((i, j)), highest);
            }
        }
        live.insert(key, end);
    }
    (None, highest)
}
