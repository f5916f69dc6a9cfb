//! The tests' one support place. This file: for the tests that compile C
//! against the library, build the static and shared libraries afresh from
//! the current source (never a stale `target/debug` copy), and compile and
//! run C programs with the `cc` crate's compiler. [`limit`]: address-space
//! limits for the allocation-failure probes. [`oracles`]: the seeded
//! generator and the naive oracles the Rust tests check against.
//! [`large`]: the large real problems and the sweep soundness check.
//! [`problems`]: problem instances several test files plan.

#![allow(dead_code)] // each test file uses its own part

pub mod large;
#[cfg(target_os = "linux")]
pub mod limit;
pub mod oracles;
pub mod problems;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");
pub const TARGET: &str = env!("AETHER_BUILD_TARGET");
pub const SONAME: &str = env!("AETHER_SONAME");

pub struct Artifacts {
    pub static_lib: PathBuf,
    pub shared_lib: PathBuf,
    /// Where executables and the SONAME link to the shared library go.
    pub work: PathBuf,
}

pub fn run(command: &mut Command) -> String {
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
pub fn build_artifacts(name: &str, features: &str) -> Artifacts {
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
pub fn artifacts() -> &'static Artifacts {
    static ARTIFACTS: OnceLock<Artifacts> = OnceLock::new();
    ARTIFACTS.get_or_init(|| build_artifacts("c-harness", ""))
}

/// The C or C++ compiler the `cc` crate picks for this target.
pub fn compiler(cpp: bool) -> Command {
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

pub fn strict<'a>(command: &'a mut Command, standard: &str) -> &'a mut Command {
    command
        .arg(format!("-std={standard}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(format!("-I{ROOT}/include"))
}

/// Compiles `c_tests/{program}.c` into `exe`, linked by `link_args`, runs
/// it, and checks that every check passed.
pub fn build_and_run(program: &str, exe: &Path, link_args: &[String]) {
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

/// Link arguments for the static library: a Rust staticlib needs these
/// system libraries on the link line.
pub fn static_link_args(artifacts: &Artifacts) -> Vec<String> {
    vec![
        artifacts.static_lib.display().to_string(),
        "-lpthread".into(),
        "-ldl".into(),
        "-lm".into(),
    ]
}

/// Link arguments for the shared library, found at run time by its SONAME.
pub fn shared_link_args(artifacts: &Artifacts) -> Vec<String> {
    vec![
        artifacts.shared_lib.display().to_string(),
        format!("-Wl,-rpath,{}", artifacts.work.display()),
    ]
}
