//! `include/aether_planner.h` is what cbindgen makes of `src/ffi/` now, and
//! its version macros are Cargo.toml's version.
//!
//! Regenerate the header after changing the C API:
//! `AETHER_BLESS_HEADER=1 cargo test --test header`.

use std::path::Path;

const HEADER: &str = "include/aether_planner.h";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The header cbindgen generates from src/ffi/mod.rs (and the modules it declares) with cbindgen.toml, with the
/// version macros of the package being built. Parsing the one source file
/// (not `with_crate`) keeps `cargo metadata` and the network out of it.
fn generated_header() -> String {
    let mut config = cbindgen::Config::from_file(root().join("cbindgen.toml")).unwrap();
    let constants = config.after_includes.take().unwrap_or_default();
    config.after_includes = Some(format!(
        "{constants}\n\n#define AETHER_PLANNER_VERSION_MAJOR {}\n#define AETHER_PLANNER_VERSION_MINOR {}\n\
         #define AETHER_PLANNER_VERSION_PATCH {}\n#define AETHER_PLANNER_VERSION_STRING \"{}\"",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
        env!("CARGO_PKG_VERSION"),
    ));
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(root().join("src/ffi/mod.rs"))
        .generate()
        .expect("cbindgen could not parse src/ffi/mod.rs");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn the_checked_in_header_is_what_cbindgen_generates_now() {
    let fresh = generated_header();
    let path = root().join(HEADER);
    if std::env::var_os("AETHER_BLESS_HEADER").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "{HEADER} is stale: regenerate it with `AETHER_BLESS_HEADER=1 cargo test --test header`"
    );
}

/// `major.minor.patch` from Cargo.toml's `[package]` table, read as text so
/// the check does not lean on cargo's own variables.
fn cargo_toml_version() -> (String, String, String) {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("version"))
        .expect("Cargo.toml has a version line");
    let version = line.split('"').nth(1).expect("quoted version");
    let mut parts = version.split('.').map(str::to_owned);
    (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    )
}

fn header_define(header: &str, name: &str) -> String {
    let prefix = format!("#define {name} ");
    header
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("{HEADER} defines no {name}"))
        .trim()
        .to_owned()
}

#[test]
fn the_header_version_macros_equal_cargo_toml() {
    let header = std::fs::read_to_string(root().join(HEADER)).unwrap();
    let (major, minor, patch) = cargo_toml_version();
    assert_eq!(
        header_define(&header, "AETHER_PLANNER_VERSION_MAJOR"),
        major
    );
    assert_eq!(
        header_define(&header, "AETHER_PLANNER_VERSION_MINOR"),
        minor
    );
    assert_eq!(
        header_define(&header, "AETHER_PLANNER_VERSION_PATCH"),
        patch
    );
    assert_eq!(
        header_define(&header, "AETHER_PLANNER_VERSION_STRING"),
        format!("\"{major}.{minor}.{patch}\"")
    );
    // And the library reports the same version at run time.
    let runtime = unsafe { std::ffi::CStr::from_ptr(aether_planner::ffi::aether_version()) };
    assert_eq!(
        runtime.to_str().unwrap(),
        format!("{major}.{minor}.{patch}")
    );
}
