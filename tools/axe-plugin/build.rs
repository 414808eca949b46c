//! The plugin is loaded into stock mlir-opt: give it an rpath to libMLIR-C.so (built by the
//! `axe` crate's build script, which exports its folder as DEP_AXE_LIB_DIR) and to LLVM 22.
fn main() {
    // Cargo sets DEP_AXE_LIB_DIR from the `axe` build script's `cargo:lib_dir` (a dependency
    // whose build script always prints it): absent only if that contract is broken.
    let lib = std::env::var("DEP_AXE_LIB_DIR").expect("the axe crate exports its lib folder");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    println!("cargo:rustc-link-arg=-Wl,-rpath,/usr/lib/llvm-22/lib");
}
