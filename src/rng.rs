//! A seeded xorshift generator (Marsaglia, 2003): the heuristic's
//! perturbation walk, and the tests' random tables, are the same on every run.

/// Marsaglia's 64-bit xorshift with shifts 13, 7, 17. The seed must not be 0.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// A number below `bound` (0 if `bound` is 0).
    pub(crate) fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound.max(1) as u64) as usize
    }
}

/// A table of 20 to 59 tensors of 1 to 100 bytes over nodes 0 to 29: the
/// unit tests' random search problem.
#[cfg(test)]
pub(crate) fn small_table(rng: &mut XorShift) -> Vec<crate::input::TensorLifetime> {
    let count = 20 + rng.below(40);
    (0..count)
        .map(|_| {
            let (a, b) = (rng.below(30), rng.below(30));
            crate::input::TensorLifetime::new(1 + rng.below(100), a.min(b), a.max(b))
        })
        .collect()
}
