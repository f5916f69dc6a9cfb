//! Uses std's allocator, formatting and panic machinery, as any Rust library
//! linked into a C program would.

/// The sum of 0..n, computed through a heap vector and a string round trip.
#[no_mangle]
pub extern "C" fn other_staticlib_sum(n: u32) -> u64 {
    let values: Vec<u64> = (0..u64::from(n)).collect();
    let text = format!("{}", values.iter().sum::<u64>());
    std::panic::catch_unwind(|| text.parse().unwrap_or(u64::MAX)).unwrap_or(u64::MAX)
}
