//! The specification's three algorithms, written straight from its text
//! (`runtime_planner.txt`) with no optimisation: the baseline of every
//! benchmark and the oracle of every equivalence test.

mod islands;
mod offsets;
mod reduction;

pub use islands::islands;
pub use offsets::plan_offsets;
pub use reduction::transitive_reduction;
