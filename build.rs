//! Build script: gives the shared library a SONAME, which cargo does not,
//! and tells the C harness test which target it is compiling for. Shared by
//! Cargo.toml and cmake/library/Cargo.toml (the library alone, for CMake).

fn main() {
    let major = env!("CARGO_PKG_VERSION_MAJOR");
    let minor = env!("CARGO_PKG_VERSION_MINOR");
    // While the version is 0.x every minor release may change the ABI, so the
    // SONAME carries the minor number too.
    let soname = if major == "0" {
        format!("libaether_planner.so.{major}.{minor}")
    } else {
        format!("libaether_planner.so.{major}")
    };
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" || target_os == "android" || target_os.ends_with("bsd") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    println!(
        "cargo:rustc-env=AETHER_BUILD_TARGET={}",
        std::env::var("TARGET").unwrap()
    );
    println!("cargo:rustc-env=AETHER_SONAME={soname}");
    // This script serves two manifests (Cargo.toml, and cmake/library/ for
    // the CMake build), and a relative rerun-if-changed path is read from
    // the package's own directory: name the script by its full path.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let script = std::path::Path::new(&manifest_dir).join(file!());
    println!("cargo:rerun-if-changed={}", script.display());
}
