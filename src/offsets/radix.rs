//! A least-significant-digit radix sort of packed 64-bit keys: the
//! planners' sorts at scale, where a comparison sort's `O(n log n)` passes
//! over arrays larger than the cache (and the binary searches that often
//! follow it) cost more than a few counting passes.
//!
//! A caller packs what it sorts by above and what it carries below (a
//! position, a slot), so that the sort reads nothing but the keys.

use crate::error::PlanError;
use crate::sys::fallible;

/// Bits of a radix digit: 2048 counters stay in the first-level cache.
const DIGIT_BITS: u32 = 11;

/// Bits of a digit where that spares a pass over the keys (23 or 24 bits
/// in two passes, not three): a pass over keys beyond the cache costs
/// more than its 4096 counters and write streams do.
const WIDE_DIGIT_BITS: u32 = 12;

/// The digit width with which a sort of `bits` bits takes fewest passes,
/// as even as they can be.
fn digit_bits(bits: u32) -> u32 {
    let passes = bits.div_ceil(DIGIT_BITS);
    let wide_passes = bits.div_ceil(WIDE_DIGIT_BITS);
    if wide_passes < passes {
        bits.div_ceil(wide_passes)
    } else {
        bits.div_ceil(passes.max(1))
    }
}

/// Below this many keys a comparison sort of the packed keys costs less
/// than the radix passes' counters.
pub(crate) const RADIX_FROM: usize = 1 << 12;

/// Sorts `keys` by their bits `low..high` (a stable LSD radix sort, so keys
/// equal there keep their order), using `scratch` of the same length.
///
/// Complexity: `O((n + 2^12) · ⌈(high − low) / 12⌉)` time, no memory
/// beyond `scratch`.
pub(crate) fn radix_sort(keys: &mut [u64], scratch: &mut [u64], low: u32, high: u32) {
    if radix_sort_into_either(keys, scratch, low, high) {
        keys.copy_from_slice(scratch);
    }
}

/// [`radix_sort`] without the copy back: the sorted keys end in `keys` or
/// in `scratch` (the other holds what the last pass read); `true` if in
/// `scratch`. For a caller that can read them where they are.
///
/// Complexity: that of [`radix_sort`].
pub(crate) fn radix_sort_into_either(
    keys: &mut [u64],
    scratch: &mut [u64],
    low: u32,
    high: u32,
) -> bool {
    let digit = digit_bits(high.saturating_sub(low));
    // 32-bit counters keep 12-bit digits' counts in the 16 KiB of stack
    // that 11-bit digits' 64-bit ones took.
    if u32::try_from(keys.len()).is_ok() {
        sort_in_passes::<u32>(keys, scratch, low, high, digit)
    } else {
        sort_in_passes::<usize>(keys, scratch, low, high, digit)
    }
}

/// A digit's counter: wide enough for the number of keys.
trait Count: Copy {
    const ZERO: Self;
    fn get(self) -> usize;
    /// `value` fits: it is at most the number of keys.
    fn of(value: usize) -> Self;
}

impl Count for u32 {
    const ZERO: Self = 0;
    fn get(self) -> usize {
        self as usize
    }
    fn of(value: usize) -> Self {
        value as u32
    }
}

impl Count for usize {
    const ZERO: Self = 0;
    fn get(self) -> usize {
        self
    }
    fn of(value: usize) -> Self {
        value
    }
}

/// [`radix_sort_into_either`] in digits of `digit` bits, counted in `C`.
fn sort_in_passes<C: Count>(
    keys: &mut [u64],
    scratch: &mut [u64],
    low: u32,
    high: u32,
    digit: u32,
) -> bool {
    let mut counts = [C::ZERO; 1 << WIDE_DIGIT_BITS];
    let mut shift = low;
    let (mut source, mut target) = (&mut *keys, &mut *scratch);
    let mut in_scratch = false;
    while shift < high {
        let width = digit.min(high - shift);
        let mask = (1u64 << width) - 1;
        counts[..1 << width].fill(C::ZERO);
        for &key in source.iter() {
            let count = &mut counts[((key >> shift) & mask) as usize];
            *count = C::of(count.get() + 1);
        }
        let mut total = 0;
        for count in &mut counts[..1 << width] {
            (*count, total) = (C::of(total), total + count.get());
        }
        for &key in source.iter() {
            let count = &mut counts[((key >> shift) & mask) as usize];
            target[count.get()] = key;
            *count = C::of(count.get() + 1);
        }
        core::mem::swap(&mut source, &mut target);
        in_scratch = !in_scratch;
        shift += width;
    }
    in_scratch
}

/// Sorts `keys` by their bits `low..high`, where no key has a bit at or
/// above `high`: by a comparison sort of the whole keys below
/// [`RADIX_FROM`] keys, else by [`radix_sort`] on the bits `low..high`,
/// with `scratch` grown to the keys' length. The two agree, and sort the
/// whole keys ascending, when the keys are distinct and the bits below
/// `low` already increase in the keys' given order (a position or slot
/// written there in order).
///
/// Errors: [`PlanError::OutOfMemory`] if `scratch` cannot grow.
pub(crate) fn sort_packed(
    keys: &mut [u64],
    scratch: &mut Vec<u64>,
    low: u32,
    high: u32,
) -> Result<(), PlanError> {
    if keys.len() < RADIX_FROM {
        keys.sort_unstable();
        return Ok(());
    }
    if scratch.len() < keys.len() {
        let more = keys.len() - scratch.len();
        fallible::reserve_advised(scratch, more)?;
        scratch.resize(keys.len(), 0);
    }
    radix_sort(keys, &mut scratch[..keys.len()], low, high);
    Ok(())
}

/// Bits needed to write `value`.
pub(crate) fn bit_length(value: u64) -> u32 {
    u64::BITS - value.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_agrees_with_a_stable_sort_on_the_bits_it_reads() {
        let mut rng = crate::rng::XorShift(0x5EED_0007);
        for &(len, low, high) in &[
            (0, 0, 5),
            (1, 3, 9),
            (300, 0, 64),
            (5000, 32, 45),
            (777, 40, 41),
            // Widths sorted in digits of 12 bits: one, two and three.
            (3000, 7, 19),
            (6000, 32, 55),
            (6000, 30, 54),
            (4000, 10, 46),
        ] {
            let keys: Vec<u64> = (0..len)
                .map(|_| ((rng.below(1 << 30) as u64) << 34) ^ rng.below(1 << 30) as u64)
                .collect();
            let field = |key: u64| {
                let width = high - low;
                if width == 64 {
                    key
                } else {
                    (key >> low) & ((1u64 << width) - 1)
                }
            };
            let mut expected = keys.clone();
            expected.sort_by_key(|&key| field(key));
            let mut actual = keys.clone();
            let mut scratch = vec![0; len];
            radix_sort(&mut actual, &mut scratch, low, high);
            assert_eq!(actual, expected, "len {len}, bits {low}..{high}");
        }
    }

    /// Fewest passes, each digit within the counters, evened out: 11-bit
    /// digits unless 12-bit ones take a pass less.
    #[test]
    fn digits_take_the_fewest_passes_the_counters_allow() {
        for bits in 1..=64u32 {
            let digit = digit_bits(bits);
            let passes = bits.div_ceil(digit);
            assert!(digit <= WIDE_DIGIT_BITS, "{bits} bits: digit {digit}");
            let fewest = bits.div_ceil(WIDE_DIGIT_BITS);
            assert_eq!(passes, fewest, "{bits} bits: {passes} passes");
            if bits.div_ceil(DIGIT_BITS) == fewest {
                assert!(digit <= DIGIT_BITS, "{bits} bits: digit {digit}");
            }
        }
        assert_eq!(
            (digit_bits(22), digit_bits(23), digit_bits(24)),
            (11, 12, 12)
        );
        assert_eq!(
            (digit_bits(25), digit_bits(33), digit_bits(34)),
            (9, 11, 12)
        );
    }

    /// Packed keys (a value above, its slot below in order) come out in
    /// ascending order on both sides of [`RADIX_FROM`], with a scratch
    /// shorter and longer than the keys.
    #[test]
    fn sort_packed_sorts_keys_whose_low_bits_follow_their_order() {
        let mut rng = crate::rng::XorShift(0x5EED_0009);
        let mut scratch = vec![0; 17];
        for len in [0, 1, 100, RADIX_FROM - 1, RADIX_FROM, 3 * RADIX_FROM + 5] {
            for value_bits in [1u32, 12, 31] {
                let mut keys: Vec<u64> = (0..len)
                    .map(|slot| (rng.below(1 << value_bits) as u64) << 20 | slot as u64)
                    .collect();
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_packed(&mut keys, &mut scratch, 20, 20 + value_bits).unwrap();
                assert_eq!(keys, expected, "len {len}, {value_bits} bits");
            }
        }
    }
}
