//! Typed builders of the Axe dialect's ops, generated from its ODS
//! (`dialect/include/Axe/AxeOps.td`) by melior's `dialect!` macro: each op `axe.foo_bar`
//! becomes `axe::FooBarOperation` with a type-state builder
//! (`FooBarOperation::builder(context, location)`, one setter per operand, result, attribute
//! and region, `build()` once every required one is set). Passes that create Axe ops
//! (`axe-expand-matmul`) build them through these, so that an operand or attribute renamed in
//! ODS is a compile error, not a malformed op.

#[allow(clippy::all, missing_docs, unused)]
mod generated {
    melior::dialect! {
        name: "axe",
        files: ["Axe/AxeOps.td"],
        include_directory_env_vars: ["AXE_ODS_INCLUDE"],
    }
}

pub use generated::axe;
