//! The C API proven from C: `c_tests/` compiled with the `cc` crate's
//! compiler and linked against the static and the shared library built from
//! the current source.
//!
//! `target/debug/libaether_planner.{a,so}` may be left over from an older
//! build, so the artifacts are built afresh into a directory of this test's
//! own with `cargo build --lib`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const TARGET: &str = env!("AETHER_BUILD_TARGET");
const SONAME: &str = env!("AETHER_SONAME");

struct Artifacts {
    static_lib: PathBuf,
    shared_lib: PathBuf,
    /// Where executables and the SONAME link to the shared library go.
    work: PathBuf,
}

fn run(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("could not run {command:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{command:?} failed:\n{text}");
    text
}

/// Builds the libraries from the current source into `target_dir` with
/// `features`, and links the shared one under its SONAME.
fn build_artifacts(name: &str, features: &str) -> Artifacts {
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    run(Command::new(cargo)
        .current_dir(ROOT)
        .args(["build", "--lib", "--package", "aether-planner"])
        .args(["--features", features, "--target-dir"])
        .arg(&target_dir)
        .env_remove("CARGO_TARGET_DIR"));
    let lib_dir = target_dir.join("debug");
    let work = target_dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    // The loader looks the library up by its SONAME.
    let shared_lib = lib_dir.join("libaether_planner.so");
    let link = work.join(SONAME);
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&shared_lib, &link).unwrap();
    Artifacts {
        static_lib: lib_dir.join("libaether_planner.a"),
        shared_lib,
        work,
    }
}

/// The libraries as a C program links them.
fn artifacts() -> &'static Artifacts {
    static ARTIFACTS: OnceLock<Artifacts> = OnceLock::new();
    ARTIFACTS.get_or_init(|| build_artifacts("c-harness", ""))
}

/// The C or C++ compiler the `cc` crate picks for this target.
fn compiler(cpp: bool) -> Command {
    cc::Build::new()
        .cpp(cpp)
        .target(TARGET)
        .host(TARGET)
        .opt_level(1)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .get_compiler()
        .to_command()
}

fn strict<'a>(command: &'a mut Command, standard: &str) -> &'a mut Command {
    command
        .arg(format!("-std={standard}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(format!("-I{ROOT}/include"))
}

/// Compiles `c_tests/{program}.c` into `exe`, linked by `link_args`, runs
/// it, and checks that every check passed.
fn build_and_run(program: &str, exe: &Path, link_args: &[String]) {
    run(strict(&mut compiler(false), "c99")
        .arg(format!("{ROOT}/c_tests/{program}.c"))
        .arg("-o")
        .arg(exe)
        .args(link_args));
    let out = run(&mut Command::new(exe));
    assert!(
        out.contains(" passed, 0 failed"),
        "{}:\n{out}",
        exe.display()
    );
}

fn build_and_run_c_tests(name: &str, link_args: &[String]) {
    build_and_run("test_planner", &artifacts().work.join(name), link_args);
}

#[test]
fn c_tests_pass_against_the_static_library() {
    let lib = artifacts().static_lib.display().to_string();
    // A Rust staticlib needs these system libraries on the link line.
    let link: Vec<String> = [lib.as_str(), "-lpthread", "-ldl", "-lm"]
        .map(String::from)
        .to_vec();
    build_and_run_c_tests("test_planner_static", &link);
}

#[test]
fn c_tests_pass_against_the_shared_library() {
    let a = artifacts();
    let link = vec![
        a.shared_lib.display().to_string(),
        format!("-Wl,-rpath,{}", a.work.display()),
    ];
    build_and_run_c_tests("test_planner_shared", &link);
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
            .arg(&a.static_lib)
            .args(["-lpthread", "-ldl", "-lm"]));
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

#[test]
fn a_panic_inside_any_entry_point_becomes_a_status_and_the_process_goes_on() {
    let injected = build_artifacts("c-harness-panic", "panic-injection");
    let link = [
        injected.static_lib.display().to_string(),
        "-lpthread".into(),
        "-ldl".into(),
        "-lm".into(),
    ];
    build_and_run("test_panic", &injected.work.join("test_panic"), &link);
}
