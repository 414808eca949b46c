//! Typed builders of the upstream ops that Axe's lowering creates, generated from LLVM 22's ODS
//! (the `.td` files under the LLVM include directory) by melior's `dialect!` macro.
//!
//! `arith`, `builtin`, `gpu`, `llvm`, `math`, `memref` and `vector` (and `func` and `scf`, whose op
//! names the passes query) are melior's own generated modules (its `ods-dialects` feature). melior has no
//! `nvvm` or `nvgpu` module, so this crate expands those itself, with the same macro (whose
//! output needs that feature's type-state markers). Being a crate of its own, the expansion
//! compiles once: a change to the passes relinks without re-expanding it.
//!
//! Each op `foo.bar_baz` becomes `<dialect>::BarBazOperation` with a type-state builder
//! (`BarBazOperation::builder(context, location)`, one setter per operand, result and
//! attribute, `build()` once every required one is set), a `bar_baz(context, ...)` constructor
//! taking the required ones, and `BarBazOperation::name()`, the op name.

pub use melior::dialect::ods::{arith, builtin, func, gpu, llvm, math, memref, scf, vector};

#[allow(clippy::all, missing_docs, unused)]
mod generated {
    melior::dialect! {
        name: "nvvm",
        files: ["mlir/Dialect/LLVMIR/NVVMOps.td"],
    }

    melior::dialect! {
        name: "nvgpu",
        files: ["mlir/Dialect/NVGPU/IR/NVGPUOps.td"],
    }
}

pub use generated::{nvgpu, nvvm};
