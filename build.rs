//! Build script: gives the shared library a SONAME, which cargo does not,
//! and tells the C harness test which target it is compiling for.

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
    println!("cargo:rerun-if-changed=build.rs");
}
