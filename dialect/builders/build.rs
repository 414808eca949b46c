//! Tells melior's `dialect!` macro where the dialect's ODS lives (an absolute path: the macro
//! resolves relative ones against LLVM's include directory).
fn main() {
    let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../include");
    let include = include.canonicalize().expect("dialect/include exists");
    println!("cargo:rustc-env=AXE_ODS_INCLUDE={}", include.display());
    println!("cargo:rerun-if-changed=../include/Axe");
}
