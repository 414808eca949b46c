//! A symmetric buffer's peers (a mesh's distributed tensors): the peer table the mesh lowering
//! added for it, and a peer's buffer addressed through that table. Tensor resolution
//! (`tensor.rs`) needs these for a distributed tensor sliced at one device, below the mesh
//! lowering that adds the tables.

use mlir_sys::*;

use super::builder::{Ix, B};
use crate::dialect::ods;
use crate::ir;

/// The peer table of a symmetric buffer (a function argument of a mesh function): the
/// argument the mesh lowering added for it (`{axe.peers_of = k}`), if any.
pub fn peer_table(buffer: MlirValue) -> Option<MlirValue> {
    // SAFETY: `buffer` is live (module contract); every handle is checked before it is used.
    unsafe {
        if !mlirValueIsABlockArgument(buffer) {
            return None;
        }
        let index = mlirBlockArgumentGetArgNumber(buffer) as i64;
        let block = mlirBlockArgumentGetOwner(buffer);
        (0..mlirBlockGetNumArguments(block))
            .map(|i| mlirBlockGetArgument(block, i))
            .find(|&a| ir::declared_int(a, ods::discardable_attrs::PEERS_OF) == Some(index))
    }
}

/// `buffer_ty` (a rank-1 memref, the symmetric buffer's type) at the address that `peers`
/// holds for `device`: a memref descriptor built around the peer's pointer, so that every
/// access to it is the same layout-driven code as for a local buffer. (The
/// `unrealized_conversion_cast` from the descriptor meets its inverse when memrefs become
/// LLVM descriptors, and `reconcile-unrealized-casts` removes both.)
pub fn peer_buffer(b: &B, peers: MlirValue, device: Ix, buffer_ty: MlirType) -> MlirValue {
    let base = b.load(peers, &[b.ix(device)]);
    let ptr_ty = b.llvm_ptr(0);
    let ptr = b.inttoptr(base, ptr_ty);
    let n = ir::shape(buffer_ty).first().copied().unwrap_or(0);
    let i64t = b.int_type(64);
    // The rank-1 memref descriptor: allocated and aligned pointers, offset, sizes, strides.
    let sizes = b.llvm_array(i64t, 1);
    let desc_ty = b.llvm_struct(&[ptr_ty, ptr_ty, i64t, sizes, sizes]);
    let mut desc = b.poison(desc_ty);
    let field = |desc: MlirValue, v: MlirValue, pos: &[i64]| b.insertvalue(desc, v, pos);
    let zero = b.ci64(0);
    let size = b.ci64(n);
    let one = b.ci64(1);
    desc = field(desc, ptr, &[0]);
    desc = field(desc, ptr, &[1]);
    desc = field(desc, zero, &[2]);
    desc = field(desc, size, &[3, 0]);
    desc = field(desc, one, &[4, 0]);
    b.unrealized_conversion_cast(desc, buffer_ty)
}
