//! The shape families of the scaling sweep (`workloads::Family`) have the
//! shapes their documentation states, checked against independent oracles:
//! the live count at every node by a difference-array sweep, compared with
//! each family's closed form; conflicting pairs by a brute-force scan of all
//! pairs (which also checks the sweep `bench-scale` reports E with); and the
//! laminar structure of the nested scopes pair by pair.

#[path = "../src/scale_driver.rs"]
#[allow(dead_code)]
mod driver;

use aether_bench::workloads::Family;
use aether_planner::TensorLifetime;

const SIZES: [usize; 9] = [0, 1, 2, 3, 10, 11, 100, 999, 3001];

/// The number of tensors live at each node `0..=max last_use`.
fn live_counts(tensors: &[TensorLifetime]) -> Vec<usize> {
    let end = tensors.iter().map(|t| t.last_use + 1).max().unwrap_or(0);
    let mut delta = vec![0isize; end + 1];
    for t in tensors {
        delta[t.first_use] += 1;
        delta[t.last_use + 1] -= 1;
    }
    let mut live = 0isize;
    delta[..end]
        .iter()
        .map(|d| {
            live += d;
            live as usize
        })
        .collect()
}

/// Pairs whose lifetimes intersect, by a scan of every pair.
fn brute_pairs(tensors: &[TensorLifetime]) -> u64 {
    let mut pairs = 0;
    for (i, a) in tensors.iter().enumerate() {
        for b in &tensors[i + 1..] {
            if a.first_use <= b.last_use && b.first_use <= a.last_use {
                pairs += 1;
            }
        }
    }
    pairs
}

fn sizes_within(tensors: &[TensorLifetime], unit: usize, max: usize) {
    for t in tensors {
        assert!(
            t.size >= unit && t.size <= max && t.size % unit == 0,
            "size {} outside {unit}·[1, {}]",
            t.size,
            max / unit
        );
    }
}

/// `|[lo, hi] ∩ [0, n - 1]|` for possibly negative `lo`.
fn clipped(lo: isize, hi: isize, n: usize) -> usize {
    let (lo, hi) = (lo.max(0), hi.min(n as isize - 1));
    (hi - lo + 1).max(0) as usize
}

#[test]
fn every_family_is_deterministic_and_of_the_stated_count() {
    for family in Family::ALL {
        assert_eq!(Family::from_name(family.name()), Some(family));
        for n in SIZES {
            let tensors = family.tensors(n, 5);
            let expected = match family {
                Family::TrainingStep if n >= 3 => n / 3 * 3,
                _ => n,
            };
            assert_eq!(tensors.len(), expected, "{} at n = {n}", family.name());
            assert!(
                tensors == family.tensors(n, 5),
                "{}: not replayable",
                family.name()
            );
            assert!(
                tensors.iter().all(|t| t.first_use <= t.last_use),
                "{}: empty lifetime",
                family.name()
            );
        }
        let (a, b) = (family.tensors(1000, 1), family.tensors(1000, 2));
        assert!(a != b, "{}: the seed changes nothing", family.name());
    }
}

#[test]
fn chain_lives_two_nodes_each() {
    for n in SIZES {
        let tensors = Family::Chain.tensors(n, 3);
        sizes_within(&tensors, 64, 64 * 64);
        let live = live_counts(&tensors);
        assert_eq!(live.len(), if n == 0 { 0 } else { n + 1 });
        for (t, &count) in live.iter().enumerate() {
            // Buffers i with i ≤ t ≤ i + 1.
            assert_eq!(count, clipped(t as isize - 1, t as isize, n), "node {t}");
        }
        let pairs = brute_pairs(&tensors);
        assert_eq!(pairs, n.saturating_sub(1) as u64);
        assert_eq!(driver::conflict_pairs(&tensors), pairs);
    }
}

#[test]
fn window_keeps_eleven_live() {
    for n in SIZES {
        let tensors = Family::Window.tensors(n, 3);
        sizes_within(&tensors, 64, 64 * 1024);
        for (t, &count) in live_counts(&tensors).iter().enumerate() {
            assert_eq!(count, clipped(t as isize - 10, t as isize, n), "node {t}");
        }
        let pairs = brute_pairs(&tensors);
        if n >= 11 {
            assert_eq!(pairs, 10 * n as u64 - 55);
        }
        assert_eq!(driver::conflict_pairs(&tensors), pairs);
    }
}

#[test]
fn random_short_lifetimes_are_one_to_a_hundred_nodes() {
    let n = 20_000;
    let tensors = Family::RandomShort.tensors(n, 9);
    sizes_within(&tensors, 16, 16 * 4096);
    let lengths: Vec<usize> = tensors
        .iter()
        .map(|t| t.last_use - t.first_use + 1)
        .collect();
    assert!(tensors.iter().all(|t| t.first_use < n));
    assert_eq!(lengths.iter().min(), Some(&1));
    assert_eq!(lengths.iter().max(), Some(&100));
    // Uniform lengths: mean 50.5, the sample mean's deviation about 0.2.
    let mean = lengths.iter().sum::<usize>() as f64 / n as f64;
    assert!((mean - 50.5).abs() < 1.5, "mean length {mean}");
    // Away from the ends, about 50.5 buffers are live at a node.
    let live = live_counts(&tensors);
    let inner = &live[100..n - 100];
    let mean_live = inner.iter().sum::<usize>() as f64 / inner.len() as f64;
    assert!((mean_live - 50.5).abs() < 2.0, "mean live {mean_live}");
    let small = Family::RandomShort.tensors(2000, 9);
    assert_eq!(driver::conflict_pairs(&small), brute_pairs(&small));
}

#[test]
fn nested_scopes_are_laminar_and_each_round_covers_the_timeline() {
    for n in SIZES {
        let tensors = Family::Nested.tensors(n, 4);
        sizes_within(&tensors, 64, 64 * 256);
        if n == 0 {
            continue;
        }
        assert_eq!((tensors[0].first_use, tensors[0].last_use), (0, 2 * n - 1));
        for (i, a) in tensors.iter().enumerate() {
            for b in &tensors[i + 1..] {
                let disjoint = a.last_use < b.first_use || b.last_use < a.first_use;
                let nested = (a.first_use <= b.first_use && b.last_use <= a.last_use)
                    || (b.first_use <= a.first_use && a.last_use <= b.last_use);
                assert!(disjoint || nested, "{a:?} and {b:?} cross");
            }
        }
        // Every round partitions the timeline and is taken left to right,
        // so the live count is D + 1 on a prefix and D after it.
        let live = live_counts(&tensors);
        assert_eq!(live.len(), 2 * n);
        assert!(live.windows(2).all(|w| w[0] >= w[1]), "live count rises");
        let (high, low) = (live[0], live[2 * n - 1]);
        assert!(high - low <= 1, "live counts {low} to {high}");
        let log2 = (2 * n).ilog2() as usize + 1;
        assert!(low <= 4 * log2, "depth {low} at n = {n}");
        assert_eq!(driver::conflict_pairs(&tensors), brute_pairs(&tensors));
    }
    // E grows faster than n: the depth grows.
    let pairs_per_buffer =
        |n: usize| driver::conflict_pairs(&Family::Nested.tensors(n, 4)) as f64 / n as f64;
    assert!(pairs_per_buffer(1 << 16) > pairs_per_buffer(1 << 10) + 2.0);
}

#[test]
fn heavy_tailed_lengths_follow_a_pareto_tail() {
    let n = 200_000;
    let tensors = Family::HeavyTailed.tensors(n, 8);
    sizes_within(&tensors, 16, 1 << 20);
    let lengths: Vec<usize> = tensors
        .iter()
        .map(|t| t.last_use - t.first_use + 1)
        .collect();
    assert!(lengths.iter().all(|&l| (1..=n).contains(&l)));
    assert!(tensors.iter().all(|t| t.first_use < n));
    // P(length ≥ k) = k^-1.5 for Pareto(1.5) truncated to an integer.
    for (k, tolerance) in [(2usize, 0.05), (4, 0.08), (16, 0.15), (100, 0.4)] {
        let share = lengths.iter().filter(|&&l| l >= k).count() as f64 / n as f64;
        let expected = (k as f64).powf(-1.5);
        assert!(
            (share / expected - 1.0).abs() < tolerance,
            "P(length ≥ {k}) = {share}, expected {expected}"
        );
    }
    // Log-uniform sizes from 2^4 to 2^20: half below 2^12.
    let below = tensors.iter().filter(|t| t.size < 1 << 12).count() as f64 / n as f64;
    assert!((below - 0.5).abs() < 0.01, "share below 4 KiB {below}");
    let small = Family::HeavyTailed.tensors(3000, 8);
    assert_eq!(driver::conflict_pairs(&small), brute_pairs(&small));
}

#[test]
fn training_step_keeps_activations_to_the_backward_pass() {
    for n in SIZES {
        let tensors = Family::TrainingStep.tensors(n, 6);
        if n < 3 {
            continue;
        }
        let layers = n / 3;
        let live = live_counts(&tensors);
        assert_eq!(live.len(), 2 * layers + 1);
        for (t, &count) in live.iter().enumerate() {
            let expected = if t < layers {
                // Activations 0..=t, the temporary of t.
                t + 2
            } else {
                // Activations i with 2L - 1 - i ≥ t; gradients of the
                // layers i with 2L - 1 - i ≤ t ≤ 2L - i.
                let turn = 2 * layers as isize;
                let t = t as isize;
                clipped(0, turn - 1 - t, layers) + clipped(turn - 1 - t, turn - t, layers)
            };
            assert_eq!(count, expected, "node {t} of {layers} layers");
        }
        let pairs = brute_pairs(&tensors);
        let l = layers as u64;
        assert_eq!(pairs, (3 * l * l + l) / 2 + l - 1, "{layers} layers");
        assert_eq!(driver::conflict_pairs(&tensors), pairs);
    }
    for (i, t) in Family::TrainingStep.tensors(300, 6).iter().enumerate() {
        let max = if i % 3 == 1 { 64 * 64 } else { 64 * 512 };
        sizes_within(std::slice::from_ref(t), 64, max);
    }
}
