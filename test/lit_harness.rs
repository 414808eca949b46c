//! `cargo test` entry for the lit suite: builds every tool the suite runs (axe-opt, the plugin,
//! axe-layout), then runs LLVM 22's `lit` over `test/` and fails when any lit test fails.
//! (The lit suite is real LLVM lit + FileCheck; the `lit` crate is a different tool.)

use std::path::Path;
use std::process::{exit, Command};

const LIT: &str = "/usr/lib/llvm-22/bin/lit";

fn main() {
    // `cargo test --test lit -- --list` etc.: nothing to list for a harness-less test.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The plugin and axe-layout live in other packages of the workspace, which `cargo test`
    // of this package does not build: build them (cargo has released its lock by now).
    let status = Command::new(&cargo)
        .args(["build", "--workspace", "--bins", "--lib"])
        .current_dir(root)
        .status()
        .unwrap_or_else(|e| {
            eprintln!("cannot run {cargo}: {e}");
            exit(1)
        });
    if !status.success() {
        eprintln!("building the workspace for the lit suite failed");
        exit(1);
    }
    if !Path::new(LIT).exists() {
        eprintln!("LLVM 22's lit is missing at {LIT}: apt-get install llvm-22-tools");
        exit(1);
    }
    // Every axe-opt run also checks that its output prints and parses back identically.
    let out = Command::new(LIT)
        .args(["-sv", "test"])
        .env("AXE_OPT_CHECK_IR_ROUNDTRIP", "1")
        .current_dir(root)
        .output()
        .unwrap_or_else(|e| {
            eprintln!("cannot run {LIT}: {e}");
            exit(1)
        });
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    // One plain summary line for CI: lit's own summary counts per result code.
    let count = |label: &str| -> usize {
        stdout
            .lines()
            .filter_map(|l| l.trim().strip_prefix(label))
            .filter_map(|rest| rest.split_whitespace().next()?.parse::<usize>().ok())
            .sum()
    };
    let failed = count("Failed:") + count("Unresolved:") + count("Timed Out:") + count("Unexpectedly Passed:");
    println!(
        "lit: {} passed, {} failed",
        count("Passed:") + count("Expectedly Failed:"),
        failed
    );
    exit(if out.status.success() && failed == 0 { 0 } else { 1 });
}
