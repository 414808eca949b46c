//! Builds the dialect's C++ (ODS → mlir-tblgen → static library, plus libMLIR-C.so) through
//! the CMake preset and links it into the `axe` crate. Cargo reruns this script only when the
//! C++ or ODS sources change, so a Rust-only change never rebuilds the C++.

use std::path::{Path, PathBuf};
use std::process::Command;

const LLVM_PREFIX: &str = "/usr/lib/llvm-22";
const APT_PACKAGES: &str = "libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 \
     libpolly-22-dev libzstd-dev libz3-dev libxml2-dev zlib1g-dev cmake ninja-build";

fn fail(message: &str) -> ! {
    eprintln!("\nerror: {message}\n");
    std::process::exit(1);
}

fn check_llvm() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| LLVM_PREFIX.into());
    let config = Path::new(&prefix).join("bin/llvm-config");
    let version = Command::new(&config).arg("--version").output();
    match version {
        Ok(out) if String::from_utf8_lossy(&out.stdout).starts_with("22.") => {}
        Ok(out) => fail(&format!(
            "Axe needs LLVM/MLIR 22, but {} reports {}. Install it with:\n  apt-get install {APT_PACKAGES}",
            config.display(),
            String::from_utf8_lossy(&out.stdout).trim()
        )),
        Err(_) => fail(&format!(
            "LLVM/MLIR 22 was not found at {prefix}. On Debian 12 install it with:\n  \
             apt-get update && apt-get install {APT_PACKAGES}"
        )),
    }
    for tool in ["cmake", "ninja"] {
        if Command::new(tool).arg("--version").output().is_err() {
            fail(&format!("`{tool}` was not found. Install it with:\n  apt-get install {APT_PACKAGES}"));
        }
    }
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd.status().unwrap_or_else(|e| fail(&format!("{what}: {e}")));
    if !status.success() {
        fail(&format!("{what} failed ({status}); see the output above"));
    }
}

fn rerun_if_changed_dir(dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                rerun_if_changed_dir(&p);
            } else {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
}

fn main() {
    check_llvm();
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let build = root.join("build");
    rerun_if_changed_dir(&root.join("dialect"));
    println!("cargo:rerun-if-changed={}", root.join("CMakePresets.json").display());
    println!("cargo:rerun-if-changed={}", root.join("CMakeLists.txt").display());

    if !build.join("build.ninja").exists() {
        run(Command::new("cmake").arg("--preset").arg("axe").current_dir(&root), "cmake configure");
    }
    run(
        Command::new("cmake").args(["--build", "--preset", "axe"]).current_dir(&root),
        "cmake build of dialect/",
    );

    let lib = build.join("lib");
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=static=AxeCpp");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    // Dependents (the plugin, the tools) find libMLIR-C.so through this path.
    println!("cargo:lib_dir={}", lib.display());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{LLVM_PREFIX}/lib");
}
