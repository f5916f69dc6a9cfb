//! Shared by the fuzz targets: turning bytes into numbers that favour the
//! edges of `usize` (0, small, `usize::MAX - small`), and the oracles, which
//! are the workspace tests' own (`tests/common/oracles.rs`).

pub mod problem;
pub mod problem_target;
pub mod progress;

/// Reads numbers from the fuzzer's bytes; past the end every read is 0.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn raw(&mut self) -> usize {
        let mut v = 0usize;
        for _ in 0..core::mem::size_of::<usize>() {
            v = (v << 8) | self.byte() as usize;
        }
        v
    }

    /// Mostly below `small`, sometimes near `usize::MAX`, sometimes anything.
    pub fn number(&mut self, small: usize) -> usize {
        let tag = self.byte();
        match tag % 16 {
            0 => usize::MAX - (self.byte() as usize % 4),
            1 => usize::MAX / 2 + 1 - (self.byte() as usize % 2),
            2 => self.raw(),
            _ => (tag as usize / 16 + 16 * self.byte() as usize) % small.max(1),
        }
    }
}

/// The tests' one set of naive oracles (and their seeded generator),
/// shared with the workspace's tests rather than copied (the file allows
/// its own unused parts).
#[path = "../../tests/common/oracles.rs"]
mod oracles;

pub use oracles::{sparse_reachability as reachability, sparse_reduction as brute_reduction};

/// Components by breadth-first search ([`oracles::brute_islands`]),
/// labelled by ascending smallest member; `usize::MAX` for a node in no
/// incidence, as the C API's `AETHER_NO_ISLAND`.
pub fn brute_islands(node_count: usize, incidences: &[(usize, usize)]) -> (Vec<usize>, usize) {
    let (labels, count) = oracles::brute_islands(node_count, incidences);
    let labels = labels
        .into_iter()
        .map(|label| label.unwrap_or(usize::MAX))
        .collect();
    (labels, count)
}

/// The command-line tool's input parsers, compiled here from its source:
/// `cli/` is a binary crate, so they are not reachable as a library. The
/// inline module takes the CLI's source folder as its path, so that the
/// reader's own submodules (`input/json.rs`) are found beside it.
#[allow(dead_code)]
#[path = "../../cli/src"]
mod cli_src {
    pub mod input;
}
pub use cli_src::input as cli_input;
