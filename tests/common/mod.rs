//! What the CPU execution tests share: an MLIR context with every dialect, pass and LLVM
//! translation they use, and f16 bits read as f32.

use axe::dialect;
use melior::utility::register_all_llvm_translations;
use melior::Context;

/// A context with the Axe dialect and upstream's, the LLVM translations, and diagnostics on
/// stderr.
pub fn context() -> Context {
    let registry = dialect::registry_with_everything();
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    register_all_llvm_translations(&context);
    context.attach_diagnostic_handler(|d| {
        eprintln!("{d}");
        true
    });
    context
}

/// The value of the f16 with bits `h`.
pub fn f16_to_f32(h: u16) -> f32 {
    let (sign, exp, frac) = ((h >> 15) as u32, ((h >> 10) & 0x1f) as i32, (h & 0x3ff) as f32);
    let mag = match exp {
        0 => frac * 2f32.powi(-24),
        31 => f32::INFINITY,
        e => (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
    };
    if sign == 1 {
        -mag
    } else {
        mag
    }
}
