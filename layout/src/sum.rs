//! Direct sum `A + B` on the interleaved tiling domain (Axe paper Appendix F).
//!
//! Definition F.1: for `A` admitting `S_A` and `B` admitting `S_B` of the same rank `r`, `A + B`
//! has domain `S_A ⊗ S_B = (S_A[0], S_B[0], …, S_A[r-1], S_B[r-1])` and
//! `f_{A+B}(x ‖ y) = f_A(x) + f_B(y)` (Minkowski sum of the two fibers), with `x ‖ y` the
//! interleaved coordinate `(x_0, y_0, x_1, y_1, …)`.
//!
//! Construction F.2: group both shards, interleave the blocks `A(0) ‖ B(0) ‖ … ‖ A(r-1) ‖ B(r-1)`,
//! concatenate the replicas, add the offsets.
//!
//! Errata of the paper: F.4 prints the example's sum as `(8, 2, 4, 1)`; the construction
//! gives `(8, 4, 2, 1)`. F.3's `(A·W) + B = A ⊗ B` is false when `A` has an offset or a replica
//! (`A = (2) : (1) + 1`, `B = (2) : (1)`): the tiling scales `A`'s offset by `W`, the sum does not.

use crate::error::LayoutError;
use crate::layout::{Iter, Layout};
use crate::slice::group_blocks;

/// The interleaved domain shape `S_A ⊗ S_B = (S_A[0], S_B[0], …)` of a direct sum or tile.
pub fn interleaved_shape(a_shape: &[i64], b_shape: &[i64]) -> Result<Vec<i64>, LayoutError> {
    if a_shape.len() != b_shape.len() {
        return Err(LayoutError::Unsupported(format!(
            "shapes {a_shape:?} and {b_shape:?} have different ranks"
        )));
    }
    Ok(a_shape.iter().zip(b_shape).flat_map(|(&a, &b)| [a, b]).collect())
}

/// `A + B` over `S_A ⊗ S_B` (paper App. F.1/F.2). The result admits
/// [`interleaved_shape`]`(a_shape, b_shape)` and is grouped by it.
///
/// Errors: `ShapeNotAdmitted` when a shape is not admitted, `Unsupported` when the ranks differ
/// or a shard does not group by its shape, `Overflow` when the summed offsets overflow.
pub fn direct_sum(a: &Layout, a_shape: &[i64], b: &Layout, b_shape: &[i64]) -> Result<Layout, LayoutError> {
    a.validate()?;
    b.validate()?;
    a.check_admits(a_shape)?;
    b.check_admits(b_shape)?;
    interleaved_shape(a_shape, b_shape)?;
    let ga = group_blocks(&a.shard, a_shape)?;
    let gb = group_blocks(&b.shard, b_shape)?;
    let mut shard: Vec<Iter> = Vec::new();
    for (ba, bb) in ga.into_iter().zip(gb) {
        shard.extend(ba);
        shard.extend(bb);
    }
    if shard.is_empty() {
        shard.push(Iter::mem(1, 1));
    }
    let mut replica = a.replica.clone();
    replica.extend(b.replica.iter().cloned());
    let mut offset = a.offset.clone();
    for (axis, v) in &b.offset {
        let e = offset.entry(axis.clone()).or_insert(0);
        *e = e.checked_add(*v).ok_or(LayoutError::Overflow)?;
    }
    Layout::new(shard, replica, offset)
}
