//! Axe: the MLIR dialect and passes for the Axe layout abstraction, driven from Rust.
//!
//! * [`dialect`] registers the `axe` dialect (C++ from ODS) and converts `#axe.layout`
//!   attributes to and from [`axe_layout::Layout`];
//! * the pass bodies live here, one module per pass, named after the pass flag; the C++ pass
//!   shells generated from `dialect/include/Axe/AxePasses.td` call [`run_pass`];
//! * [`opt_main`] is `axe-opt` (upstream `MlirOptMain`).

#[path = "../dialect/rust/mod.rs"]
pub mod dialect;

pub mod axe_ops;
pub mod canonicalize;
pub mod convert_axe_to_gpu;
pub mod convert_linalg_to_axe;
pub mod diagnostics;
pub mod error;
pub mod expand_attention;
pub mod expand_matmul;
pub mod infer_layout;
pub mod ir;
pub mod launch;
pub mod launch_manifest;
pub mod lower_to_nvvm;
pub mod matmul_schedule;
pub mod nki;
pub mod slice;
pub mod target;

pub use axe_layout as layout;

use dialect::ods::{passes, PassOptions};
use melior::ir::operation::OperationRefMut;
use mlir_sys::MlirOperation;

/// Dispatches to the Rust body of the pass with flag `pass` (the arguments generated from
/// `AxePasses.td`, [`dialect::ods::passes`]), with its options read strictly from `options`,
/// the `key=value` words of the C++ shell ([`PassOptions::parse`]). Returns false on failure
/// (diagnostics already emitted).
pub(crate) fn run_pass(pass: &str, op: MlirOperation, options: &str) -> bool {
    // SAFETY: the pass manager hands us the operation it is running on; it is valid and
    // exclusively ours for the duration of the pass.
    let op = unsafe { OperationRefMut::from_raw(op) };
    /// The pass's options, or None after an error at `op` naming the pass and option.
    fn read<O: PassOptions>(op: &OperationRefMut, options: &str) -> Option<O> {
        O::parse(options)
            .map_err(|e| diagnostics::emit_error(op, &e.to_string()))
            .ok()
    }
    match pass {
        passes::AXE_CANONICALIZE => {
            read::<passes::AxeCanonicalizeOptions>(&op, options).is_some_and(|_| canonicalize::run(op))
        }
        passes::AXE_MATMUL_SCHEDULE => read(&op, options).is_some_and(|o| matmul_schedule::run(op, &o)),
        passes::AXE_EXPAND_MATMUL => {
            read::<passes::AxeExpandMatmulOptions>(&op, options).is_some_and(|_| expand_matmul::run(op))
        }
        passes::AXE_EXPAND_ATTENTION => {
            read::<passes::AxeExpandAttentionOptions>(&op, options).is_some_and(|_| expand_attention::run(op))
        }
        passes::AXE_SLICE => read::<passes::AxeSliceOptions>(&op, options).is_some_and(|_| slice::run(op)),
        passes::CONVERT_LINALG_TO_AXE => read(&op, options).is_some_and(|o| convert_linalg_to_axe::run(op, &o)),
        passes::CONVERT_AXE_TO_GPU => read(&op, options).is_some_and(|o| convert_axe_to_gpu::run(op, &o)),
        passes::AXE_INFER_LAYOUT => read(&op, options).is_some_and(|o| infer_layout::run(op, &o)),
        // The Rust step of the C++ pass (between outlining and the rest of upstream's
        // pipeline); its options configure the C++ part.
        passes::AXE_LOWER_TO_NVVM => {
            read::<passes::AxeLowerToNVVMOptions>(&op, options).is_some_and(|_| lower_to_nvvm::run(op.to_raw()))
        }
        // A pass body with a bug, for the test that a panic becomes an error at the op.
        #[cfg(test)]
        "axe-test-panic" => panic!("attempt to multiply with overflow"),
        other => {
            diagnostics::emit_error(&op, &format!("no Rust body for pass '{other}'"));
            false
        }
    }
}

/// Runs the Rust translation `name` on `op`: the output text, or None after emitting
/// diagnostics on failure.
pub(crate) fn translate(name: &str, op: MlirOperation) -> Option<String> {
    // SAFETY: the C++ translation hands us the operation it translates (the parsed module);
    // it is valid and exclusively ours for the duration of the call.
    let op = unsafe { OperationRefMut::from_raw(op) };
    match name {
        "axe-to-nki" => nki::translate(op),
        "axe-to-launch-manifest" => launch_manifest::translate(op.to_raw()),
        other => {
            diagnostics::emit_error(&op, &format!("no Rust body for translation '{other}'"));
            None
        }
    }
}

fn c_args() -> Vec<std::ffi::CString> {
    std::env::args()
        .map(|a| std::ffi::CString::new(a).unwrap_or_default())
        .collect()
}

/// Runs `axe-translate` with the process arguments; returns the exit code.
pub fn translate_main() -> i32 {
    dialect::install();
    let args = c_args();
    let mut argv: Vec<*mut std::os::raw::c_char> = args.iter().map(|a| a.as_ptr() as *mut _).collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: `argv` holds `args.len()` NUL-terminated strings (owned by `args`, alive for the
    // call) followed by a null pointer, the `argc`/`argv` contract of `mlirTranslateMain`.
    unsafe { dialect::ffi::axeTranslateMain(args.len() as i32, argv.as_mut_ptr()) }
}

/// Runs `axe-opt` with the process arguments; returns the exit code.
pub fn opt_main() -> i32 {
    dialect::install();
    let args = c_args();
    let mut argv: Vec<*mut std::os::raw::c_char> = args.iter().map(|a| a.as_ptr() as *mut _).collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: `argv` holds `args.len()` NUL-terminated strings (owned by `args`, alive for the
    // call) followed by a null pointer, the `argc`/`argv` contract of `MlirOptMain`.
    unsafe { dialect::ffi::axeOptMain(args.len() as i32, argv.as_mut_ptr()) }
}

/// Entry points for the `mlir-opt` plugin (tools/axe-plugin).
pub mod plugin {
    use std::os::raw::{c_char, c_void};

    /// Mirrors `mlir::DialectPluginLibraryInfo`.
    #[repr(C)]
    pub struct DialectPluginLibraryInfo {
        pub api_version: u32,
        pub plugin_name: *const c_char,
        pub plugin_version: *const c_char,
        pub register_dialect_registry_callbacks: unsafe extern "C" fn(*mut c_void),
    }

    /// Mirrors `mlir::PassPluginLibraryInfo`.
    #[repr(C)]
    pub struct PassPluginLibraryInfo {
        pub api_version: u32,
        pub plugin_name: *const c_char,
        pub plugin_version: *const c_char,
        pub register_pass_registry_callbacks: extern "C" fn(),
    }

    /// `MLIR_PLUGIN_API_VERSION` of LLVM 22.
    pub const API_VERSION: u32 = 1;
    pub const NAME: &[u8] = b"Axe\0";
    pub const VERSION: &[u8] = b"0.1.0\0";

    /// # Safety
    /// `registry` is the `mlir::DialectRegistry *` mlir-opt hands its dialect plugins; it is
    /// valid for the duration of the call.
    pub unsafe extern "C" fn register_dialects(registry: *mut c_void) {
        crate::dialect::install();
        // SAFETY: the caller's guarantee: `registry` is mlir-opt's live `DialectRegistry`.
        unsafe { crate::dialect::ffi::axeRegisterDialectPlugin(registry) }
    }

    pub extern "C" fn register_passes() {
        // install() registers the passes once.
        crate::dialect::install();
    }
}
