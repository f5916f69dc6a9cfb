//! Realistic floors: the memory traffic any implementation of a job must
//! pay, timed like an implementation, so that the report can say how far
//! each routine is from its limit.

use std::hint::black_box;

/// Words of the reduction's upper bit triangle on `node_count` nodes: row
/// `u` stores the words from `(u + 1) / 64` to the last.
pub fn triangle_words(node_count: usize) -> usize {
    let words = node_count.div_ceil(64);
    (0..node_count).map(|u| words - (u + 1) / 64).sum()
}

/// The reduction's floor: every word of its triangle written once, through
/// one reused 16 MiB buffer (the cheapest way any closure that builds the
/// triangle can touch it: fresh pages once, then cached ones).
pub fn reduction_floor(node_count: usize) -> usize {
    const CHUNK_WORDS: usize = 2 << 20;
    let mut left = triangle_words(node_count);
    let mut buffer: Vec<u64> = Vec::with_capacity(left.min(CHUNK_WORDS));
    while left > 0 {
        let words = left.min(CHUNK_WORDS);
        buffer.clear();
        buffer.resize(words, 0);
        black_box(&mut buffer);
        left -= words;
    }
    buffer.len()
}

/// The islands' floor: initialise one 32-bit entry per node, read every
/// incidence and touch both endpoints' entries (an independent
/// read-modify-write each, with none of a forest's dependent walks), then
/// write the `Option<usize>` label of every node as the library returns it.
pub fn islands_floor(node_count: usize, incidences: &[(usize, usize)]) -> Vec<Option<usize>> {
    let mut entry = vec![u32::MAX; node_count];
    for &(a, b) in incidences {
        entry[a] = entry[a].min(b as u32);
        entry[b] = entry[b].min(a as u32);
    }
    entry
        .iter()
        .map(|&e| (e != u32::MAX).then_some(e as usize))
        .collect()
}
