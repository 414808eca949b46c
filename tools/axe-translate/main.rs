//! `axe-translate`: upstream `mlirTranslateMain` with Axe's translations (`--axe-to-nki`).
fn main() {
    std::process::exit(axe::translate_main());
}
