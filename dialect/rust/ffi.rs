//! The C API of `dialect/include/Axe-c/Dialects.h`, declared for Rust by bindgen at build time
//! (`build.rs`, `generate_ffi`): the header is the one source of these declarations. MLIR's own
//! C types are `mlir_sys`'s.
#![allow(non_snake_case, non_camel_case_types, non_upper_case_globals, dead_code)]

include!(concat!(env!("OUT_DIR"), "/axe_capi.rs"));
