//! `aether_plan_problem` proven from C: `c_tests/test_problem.c` compiled
//! and linked against the static and the shared library built from the
//! current source.

mod common;

use common::*;

#[test]
fn the_constrained_problem_works_from_c_against_the_static_library() {
    let a = artifacts();
    build_and_run(
        "test_problem",
        &a.work.join("test_problem_static"),
        &static_link_args(a),
    );
}

#[test]
fn the_constrained_problem_works_from_c_against_the_shared_library() {
    let a = artifacts();
    build_and_run(
        "test_problem",
        &a.work.join("test_problem_shared"),
        &shared_link_args(a),
    );
}
