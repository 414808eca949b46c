//! Shared memory of a kernel: the module-level workgroup globals that static shared tensors
//! and scratch buffers become, and the alignment that swizzles and bulk copies need of a
//! shared buffer's absolute address.

use axe_upstream_ods::{arith, memref};
use mlir_sys::*;

use super::builder::B;
use crate::error::AxeError;
use crate::error::Result as R;
use crate::ir::{self, block_ops, region_block};

/// The byte alignment of every buffer an `axe.alloc` becomes (shared globals, offsets into
/// dynamic shared memory, CPU-emulation allocas): vector accesses up to 16 bytes proven
/// aligned relative to the base are then aligned.
pub const ALLOCATION_ALIGN: i64 = 16;

/// A fresh 16-byte aligned workgroup (shared memory) buffer of `size` elements of `elt`,
/// declared at module level; returns the `memref.get_global` of it, built by `b`.
pub fn shared_scratch(b: &B, op: MlirOperation, elt: MlirType, size: i64) -> MlirValue {
    let mut module = op;
    while let Some(p) = crate::ir::parent(module) {
        module = p;
    }
    shared_global(b, module, "__axe_scratch", elt, size)
}

/// Declares a 16-byte aligned `memref.global` of `size` elements in address space 3 at the
/// start of `module` (a fresh name from `base`) and returns its `memref.get_global`, built by `b`.
pub fn shared_global(b: &B, module: MlirOperation, base: &str, elt: MlirType, size: i64) -> MlirValue {
    shared_global_aligned(b, module, base, elt, size, 16)
}

/// The alignment the dynamic shared memory starts at: what the 128-byte TMA/wgmma swizzle
/// needs of a buffer's absolute address (its pattern repeats every 1024 bytes).
pub const DYNAMIC_ALIGN: i64 = 1024;

/// The kernel's dynamic shared memory as a `memref<?xi8, 3>`, built by `b`: a public
/// `memref.global` declaration (no storage: `.extern .shared .align 1024 .b8 x[]` in PTX, what
/// CUDA's `extern __shared__` becomes) at the start of `module`. PTX places such a symbol at
/// the start of the launch's dynamic shared memory, after the static shared variables
/// (mbarriers, scratch), aligned as declared; the static segment is then padded to 1 KiB.
///
/// Not upstream's `gpu.dynamic_shared_memory`: convert-gpu-to-nvvm lowers it to an internal
/// zero-sized global, which NVPTX demotes to a static `.shared .b8` variable of the kernel,
/// placed with the static variables rather than declared as the dynamic region. Kernels
/// running one CTA per SM did not show a problem; the 128x128, 3-stage mma.sync GEMM of
/// `bench/gpu/mma_sync_gemm.py`, two CTAs per SM, failed at its mbarrier arrivals ("unspecified
/// launch failure") until the symbol was declared this way (what exactly it overwrote was not
/// established).
pub fn dynamic_shared(b: &B, module: MlirOperation) -> MlirValue {
    let mb = b.at_start(region_block(module, 0));
    let name = fresh_symbol(module, "__axe_dynamic_shared");
    let i8t = b.int_type(8);
    let ty = b.shared_memref_type(i8t, 0);
    mb.memref_global_declaration(&name, ty, DYNAMIC_ALIGN);
    let declared = b.memref_get_global(&name, ty);
    // SAFETY: no argument; the dynamic-size sentinel of shaped types.
    let dynamic = unsafe { mlirShapedTypeGetDynamicSize() };
    b.memref_cast(declared, b.shared_memref_type(i8t, dynamic))
}

/// `shared_global` with a given alignment (bytes).
pub fn shared_global_aligned(
    b: &B,
    module: MlirOperation,
    base: &str,
    elt: MlirType,
    size: i64,
    align: i64,
) -> MlirValue {
    let mb = b.at_start(region_block(module, 0));
    let name = fresh_symbol(module, base);
    let ty = b.shared_memref_type(elt, size);
    mb.memref_global_uninitialized(&name, ty, align);
    b.memref_get_global(&name, ty)
}

/// Sets attribute `name` of `op` to `a`.
///
/// # Safety
/// `op` is a live op of the IR the pass owns (the module contract of [`crate::ir`]) and `a` an
/// attribute of its context; nothing relies on the attribute's old value.
unsafe fn set_attr(op: MlirOperation, name: &str, a: MlirAttribute) {
    // SAFETY: the caller's guarantee; the name's bytes live for the call.
    unsafe {
        mlirOperationSetAttributeByName(
            op,
            MlirStringRef {
                data: name.as_ptr() as *const _,
                length: name.len(),
            },
            a,
        );
    }
}

/// Makes sure the shared buffer `buf` starts at a multiple of `align` bytes (what the
/// hardware's swizzles and bulk copies need of absolute addresses): a static buffer's
/// `memref.global` gets that alignment; a view of dynamic shared memory must have a constant
/// offset that is a multiple of it (the dynamic shared memory itself starts 1024-aligned).
pub fn align_buffer(b: &B, op: MlirOperation, buf: MlirValue, align: i64) -> R<()> {
    let Some(def) = ir::defining_op(buf) else {
        return Err(AxeError::at(
            op,
            "the operand's shared buffer is a block argument; its alignment is unknown",
        ));
    };
    match ir::name(def).as_str() {
        "memref.get_global" => {
            // SAFETY: `def` is a live `memref.get_global`; its `name` is read only when it is
            // a FlatSymbolRefAttr.
            let sym = unsafe {
                let a = mlirOperationGetAttributeByName(def, mlirStringRefCreateFromCString(c"name".as_ptr()));
                (!a.ptr.is_null() && mlirAttributeIsAFlatSymbolRef(a)).then(|| {
                    melior::StringRef::from_raw(mlirFlatSymbolRefAttrGetValue(a))
                        .as_str()
                        .map(str::to_owned)
                })
            };
            let sym = sym.and_then(Result::ok).unwrap_or_default();
            let mut module = def;
            while let Some(p) = ir::parent(module) {
                module = p;
            }
            let global = ir::collect(module, &[memref::GlobalOperation::name()])
                .into_iter()
                .find(|g| ir::string_attr(*g, "sym_name").as_deref() == Some(sym.as_str()));
            let Some(g) = global else {
                return Err(AxeError::at(
                    op,
                    format!("internal error: no memref.global @{sym} for a wgmma operand"),
                ));
            };
            let have = ir::int_attr(g, "alignment").unwrap_or(1);
            if have < align {
                // SAFETY: `g` is the live memref.global of the operand's buffer; raising its
                // alignment only strengthens what every use of it may assume.
                unsafe { set_attr(g, "alignment", b.i64_attr(align)) };
            }
            Ok(())
        }
        "memref.view" => {
            let off = ir::defining_op(ir::operand(def, 1)).and_then(|c| {
                (ir::name(c) == arith::ConstantOperation::name())
                    .then(|| ir::int_attr(c, "value"))
                    .flatten()
            });
            match off {
                Some(o) if o % align == 0 => Ok(()),
                _ => Err(AxeError::at(op, format!(
                    "an operand in dynamic shared memory that the hardware swizzles or bulk-copies must start at a constant multiple of {align} bytes"
                ))),
            }
        }
        other => Err(AxeError::at(
            op,
            format!("the operand's shared buffer comes from '{other}'; its alignment is unknown"),
        )),
    }
}

/// A symbol name `base_N` not yet defined at the top level of `module`.
fn fresh_symbol(module: MlirOperation, base: &str) -> String {
    let taken: std::collections::HashSet<String> = block_ops(region_block(module, 0))
        .into_iter()
        .filter_map(|op| ir::string_attr(op, "sym_name"))
        .collect();
    (0..)
        .map(|i| format!("{base}_{i}"))
        .find(|n| !taken.contains(n))
        .unwrap()
}
