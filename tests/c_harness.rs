//! The C API proven from C: `c_tests/` compiled with the `cc` crate's
//! compiler and linked against the static and the shared library built from
//! the current source (see `common/mod.rs`).

mod common;

use common::*;
use std::process::Command;

fn build_and_run_c_tests(name: &str, link_args: &[String]) {
    build_and_run("test_planner", &artifacts().work.join(name), link_args);
}

#[test]
fn c_tests_pass_against_the_static_library() {
    build_and_run_c_tests("test_planner_static", &static_link_args(artifacts()));
}

#[test]
fn c_tests_pass_against_the_shared_library() {
    let a = artifacts();
    build_and_run_c_tests("test_planner_shared", &shared_link_args(a));
    // The executable asks for the library by its SONAME.
    let needed = run(Command::new("readelf")
        .arg("-d")
        .arg(a.work.join("test_planner_shared")));
    assert!(needed.contains(&format!("[{SONAME}]")), "{needed}");
}

#[test]
fn the_header_compiles_as_c99_c11_cxx11_and_cxx17_without_warnings() {
    let a = artifacts();
    for (cpp, standard, source) in [
        (false, "c99", "header_check.c"),
        (false, "c11", "header_check.c"),
        (true, "c++11", "header_check.cpp"),
        (true, "c++17", "header_check.cpp"),
    ] {
        let exe = a.work.join(format!("header_check_{standard}"));
        run(strict(&mut compiler(cpp), standard)
            .arg(format!("{ROOT}/c_tests/{source}"))
            .arg("-o")
            .arg(&exe)
            .args(static_link_args(a)));
        run(&mut Command::new(&exe));
    }
}

#[test]
fn the_shared_library_exports_only_aether_symbols_and_has_a_soname() {
    let a = artifacts();
    let symbols = run(Command::new("nm")
        .args(["-D", "--defined-only", "--format=posix"])
        .arg(&a.shared_lib));
    let names: Vec<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.contains(&"aether_plan_offsets"), "{symbols}");
    let foreign: Vec<&&str> = names.iter().filter(|n| !n.starts_with("aether_")).collect();
    assert!(foreign.is_empty(), "exported beyond aether_*: {foreign:?}");

    let dynamic = run(Command::new("readelf").arg("-d").arg(&a.shared_lib));
    assert!(
        dynamic.contains(&format!("Library soname: [{SONAME}]")),
        "{dynamic}"
    );
}

/// The ABI: the 23 entry points of 0.1.0, which never change meaning, and
/// those added since; nothing removed, nothing exported by accident.
const EXPORTS: [&str; 33] = [
    "aether_islands",
    "aether_islands_explain",
    "aether_islands_i32",
    "aether_islands_workspace_size",
    "aether_peak_live_bytes",
    "aether_peak_live_bytes_explain",
    "aether_peak_live_bytes_in_workspace",
    "aether_peak_live_bytes_workspace_size",
    "aether_plan_offsets",
    "aether_plan_offsets_explain",
    "aether_plan_offsets_in_workspace",
    "aether_plan_offsets_with",
    "aether_plan_offsets_with_explain",
    "aether_plan_offsets_workspace_size",
    "aether_plan_options_init",
    "aether_status_str",
    "aether_transitive_reduction",
    "aether_transitive_reduction_any_order",
    "aether_transitive_reduction_any_order_explain",
    "aether_transitive_reduction_explain",
    "aether_transitive_reduction_in_workspace",
    "aether_transitive_reduction_workspace_size",
    "aether_version",
    // Since 0.1.0.
    "aether_islands_i32_explain",
    "aether_plan_offsets_in_indexed_workspace",
    "aether_plan_offsets_indexed_workspace_size",
    "aether_plan_offsets_observed",
    "aether_plan_options_init_sized",
    "aether_plan_problem",
    "aether_plan_problem_explain",
    "aether_plan_problem_observed",
    "aether_problem_init",
    "aether_version_number",
];

#[test]
fn the_shared_library_exports_exactly_the_abis_entry_points_and_the_header_declares_them() {
    let a = artifacts();
    let symbols = run(Command::new("nm")
        .args(["-D", "--defined-only", "--format=posix"])
        .arg(&a.shared_lib));
    let mut exported: Vec<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    exported.sort_unstable();
    let mut expected = EXPORTS.to_vec();
    expected.sort_unstable();
    assert_eq!(exported, expected);
    let header = std::fs::read_to_string(format!("{ROOT}/include/aether_planner.h")).unwrap();
    for name in EXPORTS {
        // A declaration: outside comments, the name right before its "(".
        let declared = header.lines().any(|line| {
            let code = line.trim_start();
            !code.starts_with('*')
                && !code.starts_with("/*")
                && code.match_indices(&format!("{name}(")).any(|(at, _)| {
                    at == 0
                        || !code.as_bytes()[at - 1].is_ascii_alphanumeric()
                            && code.as_bytes()[at - 1] != b'_'
                })
        });
        assert!(declared, "{name} is not declared in the header");
    }
}

/// The ABI promise: every symbol 0.1 exported (`c_tests/abi/symbols-0.1.txt`,
/// the list as released) is still exported, whatever was added since.
#[test]
fn every_symbol_of_0_1_is_still_exported() {
    let released = std::fs::read_to_string(format!("{ROOT}/c_tests/abi/symbols-0.1.txt")).unwrap();
    let released: Vec<&str> = released.split_whitespace().collect();
    assert!(released.len() >= 23, "the 0.1 list is cut short");
    let symbols = run(Command::new("nm")
        .args(["-D", "--defined-only", "--format=posix"])
        .arg(&artifacts().shared_lib));
    let exported: Vec<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let lost: Vec<&&str> = released.iter().filter(|s| !exported.contains(s)).collect();
    assert!(lost.is_empty(), "no longer exported: {lost:?}");
}

#[test]
fn a_panic_inside_any_entry_point_becomes_a_status_and_the_process_goes_on() {
    let injected = build_artifacts("c-harness-panic", "panic-injection");
    build_and_run(
        "test_panic",
        &injected.work.join("test_panic"),
        &static_link_args(&injected),
    );
}

#[test]
fn plan_options_work_from_c() {
    let a = artifacts();
    build_and_run(
        "test_options",
        &a.work.join("test_options"),
        &static_link_args(a),
    );
}

#[test]
fn engine_native_entry_points_work_from_c_without_allocating() {
    // Only against the static library: the test counts allocations by
    // defining malloc itself, which must win over the C library's.
    let a = artifacts();
    build_and_run(
        "test_engine",
        &a.work.join("test_engine"),
        &static_link_args(a),
    );
}
