//! The word loop of the reduction's closure, `into |= row`, with the x86-64
//! AVX2 form chosen at run time: the one place the library has
//! architecture-specific code.

/// Whether [`or_into`] may use 256-bit AVX2 words (checked at run time, so
/// the library still runs on any x86-64).
pub(crate) fn wide_words_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// ORs `row` into `into` (equal lengths): the fold of one row into another,
/// where the closure spends its time. `wide` must come from
/// [`wide_words_available`].
#[inline]
pub(crate) fn or_into(into: &mut [u64], row: &[u64], wide: bool) {
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` is true only when the CPU reports AVX2.
        unsafe { or_into_avx2(into, row) };
        return;
    }
    let _ = wide;
    or_words(into, row);
}

#[inline(always)]
fn or_words(into: &mut [u64], row: &[u64]) {
    for (mine, theirs) in into.iter_mut().zip(row) {
        *mine |= theirs;
    }
}

/// [`or_words`] compiled for AVX2: four words per instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn or_into_avx2(into: &mut [u64], row: &[u64]) {
    or_words(into, row);
}
