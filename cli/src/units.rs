//! Numbers for people: byte counts in KiB/MiB/GiB, grouped digits, durations
//! and round axis steps.

use std::time::Duration;

const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];

/// The largest binary unit not above `bytes` (bytes itself below 1 KiB), as
/// `(divisor, name)`.
pub fn byte_unit(bytes: f64) -> (f64, &'static str) {
    let mut divisor = 1.0;
    for unit in UNITS {
        if bytes < divisor * 1024.0 || unit == UNITS[UNITS.len() - 1] {
            return (divisor, unit);
        }
        divisor *= 1024.0;
    }
    unreachable!("the loop returns at the last unit")
}

/// `value` with at most `decimals` decimals and no trailing zeros.
pub fn trim_decimals(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

/// A byte count in the largest fitting unit with up to two decimals:
/// `512 B`, `1 KiB`, `4.59 MiB`.
pub fn human_bytes(bytes: usize) -> String {
    let (divisor, unit) = byte_unit(bytes as f64);
    format!("{} {unit}", trim_decimals(bytes as f64 / divisor, 2))
}

/// `1 edge`, `2 edges`.
pub fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Digits grouped by thousands: `4,816,896`.
pub fn grouped(value: usize) -> String {
    grouped_u64(value as u64)
}

/// Digits grouped by thousands, for counts such as search nodes.
pub fn grouped_u64(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A duration in ns, µs, ms or s with three significant-ish digits.
pub fn human_duration(duration: Duration) -> String {
    let ns = duration.as_nanos() as f64;
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!(
        "{} {unit}",
        trim_decimals(value, if value < 10.0 { 2 } else { 1 })
    )
}

/// The power-of-two byte step that cuts `span` bytes into at most `ticks`
/// intervals, so that axis labels read 256 KiB, 512 KiB, 768 KiB, 1 MiB.
pub fn byte_step(span: f64, ticks: f64) -> f64 {
    let mut step = 1.0;
    while span / step > ticks {
        step *= 2.0;
    }
    step
}

/// The round step (1, 2 or 5 times a power of ten) that cuts `span` into
/// about `ticks` intervals; at least `min`.
pub fn nice_step(span: f64, ticks: f64, min: f64) -> f64 {
    let raw = (span / ticks).max(min);
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&s| s >= raw * 0.999)
        .unwrap_or(10.0 * power);
    step.max(min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_people_write_them() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1024), "1 KiB");
        assert_eq!(human_bytes(4_816_896), "4.59 MiB");
        assert_eq!(human_bytes(1_048_576), "1 MiB");
        assert_eq!(grouped(4_816_896), "4,816,896");
        assert_eq!(grouped(100), "100");
        assert_eq!(grouped(1000), "1,000");
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(4.59, 6.0, 0.0), 1.0);
        assert_eq!(nice_step(29.0, 15.0, 1.0), 2.0);
        assert_eq!(nice_step(1_048_576.0, 10.0, 1.0), 200_000.0);
        assert_eq!(nice_step(3.0, 15.0, 1.0), 1.0);
    }

    #[test]
    fn byte_steps_are_powers_of_two() {
        assert_eq!(byte_step(4_816_896.0, 10.0), 524_288.0);
        assert_eq!(byte_step(1_572_864.0, 8.0), 262_144.0);
        assert_eq!(byte_step(12.0, 8.0), 2.0);
    }

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(human_duration(Duration::from_nanos(12_345)), "12.3 µs");
        assert_eq!(human_duration(Duration::from_micros(2_500)), "2.5 ms");
    }
}
