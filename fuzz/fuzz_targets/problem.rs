//! aether_plan_problem on problems of at most 7 tensors with every kind of
//! constraint, small or at the edges of `usize` (sizes, node indices,
//! alignments, windows, hints, fixed offsets, capacities), under a strategy
//! from the first byte and a budget of 200 search nodes. Built by
//! `cargo fuzz` with debug assertions and overflow checks, so an overflow
//! in the planner is a PANIC status, which fails here. Oracles
//! (`aether_planner_fuzz::problem`, which shares no code with the planner):
//! the explain call reports the status the call returned; nothing is
//! written on error; every OK plan honours alignment, gaps and windows,
//! fixed offsets, reuse and the capacity (which every tensor, one of no
//! bytes too, ends within), with the arena it reports; a conflict refusal
//! names two fixed tensors that cannot both stay, or two members of one
//! reuse group, neither reusing the other, that would share bytes while
//! both are active, and such a group is always refused; and a brute force
//! over canonical offsets confirms every "does not fit", every refusal of
//! a problem that has a plan, every lower bound and every proof of
//! optimality.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| aether_planner_fuzz::problem_target::run(data));
