//! `axe-opt`: upstream `MlirOptMain` with every upstream dialect and pass plus Axe's.
fn main() {
    std::process::exit(axe::opt_main());
}
