//! Benchmarks of aether-planner against the specification's literal
//! algorithms and against the peers a user would otherwise pick.
//!
//! - [`literal`]: each algorithm written straight from the specification, the
//!   baseline every optimisation is measured against and the oracle the
//!   equivalence tests compare with.
//! - [`workloads`]: inputs generated from fixed seeds, and the real tables in
//!   `data/`.
//! - [`peers`]: the same three jobs done with petgraph, `union-find` and
//!   `disjoint-sets`, producing exactly the library's output so that the
//!   timings compare equal work.
//! - [`floors`]: the memory traffic each job cannot avoid, timed as the
//!   limit the report compares with.
//! - [`measure`]: median wall time and peak memory of one case, in a child
//!   process (used by the `bench-report` binary).

pub mod floors;
pub mod literal;
pub mod measure;
pub mod peers;
pub mod rng;
pub mod workloads;
