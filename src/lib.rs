//! # aether-planner
//!
//! Three decisions about a computation before it runs, for the engines that
//! run it:
//!
//! 1. **Where its tensors live in one arena**: [`plan_offsets`] places tensors
//!    with inclusive lifetimes greedily (best fit, decreasing size) and never
//!    returns an unsound plan; [`peak_live_bytes`] is the lower bound every
//!    arena must meet.
//! 2. **Which ordering edges its schedule needs**: [`transitive_reduction`] of
//!    a topologically numbered DAG, the unique minimal edge set with the same
//!    reachability, independent of edge order.
//! 3. **Which of its constraint groups can be solved independently**:
//!    [`islands`](fn@islands) (or [`Islands::find`], the same with a named result),
//!    connected components with canonical labels from a disjoint-set forest.
//!
//! Each function comes in two forms. The plain one panics exactly at its
//! preconditions; the `try_` one returns a [`PlanError`] naming the input
//! element at fault. The C ABI (`include/aether_planner.h`) wraps the `try_`
//! forms.
//!
//! ```
//! use aether_planner::{islands, peak_live_bytes, plan_offsets, transitive_reduction, TensorLifetime};
//!
//! let tensors = [
//!     TensorLifetime::new(100, 0, 1),
//!     TensorLifetime::new(80, 1, 2),
//!     TensorLifetime::new(60, 2, 3),
//! ];
//! let plan = plan_offsets(&tensors);
//! assert_eq!(plan.offsets, vec![0, 100, 0]);
//! assert_eq!(plan.arena_size, peak_live_bytes(&tensors));
//!
//! assert_eq!(transitive_reduction(3, &[(0, 2), (0, 1), (1, 2)]), vec![(0, 1), (1, 2)]);
//!
//! let (labels, count) = islands(4, &[(3, 1), (2, 2)]);
//! assert_eq!(labels, vec![None, Some(0), Some(1), Some(0)]);
//! assert_eq!(count, 2);
//! ```

#![deny(missing_docs)]

// The modules form a DAG: error <- {rng, sys} <- input <- {offsets,
// reduction, islands} <- ffi.
mod error;
// The C boundary: public so that tests and the fuzz targets can call the
// entry points as C does, but no part of the Rust API.
#[doc(hidden)]
pub mod ffi;
mod input;
mod islands;
mod offsets;
mod reduction;
mod rng;
mod sys;

pub use error::PlanError;
pub use islands::{islands, try_islands, Islands};
pub use offsets::{
    peak_live_bytes, plan_offsets, try_peak_live_bytes, try_plan_offsets, MemoryPlan,
    TensorLifetime,
};
pub use offsets::{try_plan_offsets_observed, SearchProgress, DEFAULT_SEARCH_NODES};
pub use offsets::{
    try_plan_offsets_with, PlanOptions, PlanReport, SearchBudget, Strategy, DEFAULT_SEARCH_TIME,
};
pub use offsets::{try_plan_problem, try_plan_problem_observed, LifetimeGap, PlanProblem, Reuse};
pub use reduction::{
    transitive_reduction, try_transitive_reduction, try_transitive_reduction_any_order,
    try_transitive_reduction_with_budget,
};
