//! The large real problems of `data/large`, and the fast soundness check
//! (in `oracles.rs`) the tests at scale use on them.

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

// The sweep checker is one of the tests' oracles; the files at scale
// reach it here too.
#[allow(unused_imports)] // not every test file checks at scale
pub use super::oracles::first_overlap;
