//! The op and pass reference in `docs/reference/` is the one the build generates from the
//! dialect's ODS (`mlir-tblgen -gen-dialect-doc`, `-gen-pass-doc`): this fails when an ODS
//! change was not copied there. Refresh with
//! `scripts/reference-docs.sh` (it copies the generated files after a build).

use std::path::Path;

fn check(name: &str) {
    let generated = Path::new(env!("OUT_DIR")).join("cmake/dialect/docs").join(name);
    let published = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference").join(name);
    let g = std::fs::read_to_string(&generated).unwrap_or_else(|e| panic!("the build's {}: {e}", generated.display()));
    let p = std::fs::read_to_string(&published).unwrap_or_else(|e| panic!("{}: {e}", published.display()));
    assert!(
        g == p,
        "docs/reference/{name} is stale against the ODS: run scripts/reference-docs.sh (copies {})",
        generated.display()
    );
}

#[test]
fn op_reference_is_fresh() {
    check("AxeDialect.md");
}

#[test]
fn pass_reference_is_fresh() {
    check("AxePasses.md");
}
