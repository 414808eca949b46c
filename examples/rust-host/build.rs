//! Give this crate's binaries a load path to the libraries they link: libMLIR-C.so, which the
//! `axe` crate builds and exports as DEP_AXE_LIB_DIR, and Debian's LLVM 22.
fn main() {
    let lib = std::env::var("DEP_AXE_LIB_DIR").expect("the axe crate exports its library folder");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    println!("cargo:rustc-link-arg=-Wl,-rpath,/usr/lib/llvm-22/lib");
}
