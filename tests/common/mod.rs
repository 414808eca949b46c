//! What the CPU execution tests share: an MLIR context with every dialect, pass and LLVM
//! translation they use, buffers aligned as a GPU allocator aligns them, and f16 bits read as
//! f32.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

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

/// A buffer whose base is `misalign` bytes past a 64-byte boundary: 0 gives the alignment
/// cudaMalloc guarantees, 4 a buffer only element-aligned (a tensor view with a storage offset).
pub struct Buf<T: Copy> {
    pub ptr: *mut T,
    pub len: usize,
}

impl<T: Copy> Buf<T> {
    pub fn new(data: &[T]) -> Self {
        Self::misaligned(data, 0)
    }
    pub fn misaligned(data: &[T], misalign: usize) -> Self {
        let bytes = std::mem::size_of_val(data) + misalign;
        let layout = std::alloc::Layout::from_size_align(bytes.max(64), 64).unwrap();
        // SAFETY: `layout` has a nonzero size; `misalign` < 64 stays inside the allocation,
        // which holds `bytes` = the data's size + `misalign`.
        let ptr = unsafe { std::alloc::alloc(layout).add(misalign) as *mut T };
        // SAFETY: `ptr` has room for `data.len()` elements (above); the regions are disjoint.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len()) };
        Buf { ptr, len: data.len() }
    }
    pub fn get(&self) -> Vec<T> {
        // SAFETY: `ptr` holds `len` initialized elements (copied in by `misaligned`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len).to_vec() }
    }
}
