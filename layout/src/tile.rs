//! Tiling: the Kronecker product `A ⊗ B` (Axe paper §3.3, Appendix C, Algorithm 2).
//!
//! `B` is the inner tile and `A` places the tiles: with `Σ = span(B)` (Lemma C.1),
//!
//! ```text
//! f_T(x ‖ y) = f_A(x) ⊙ Σ + f_B(y)        (a Minkowski sum of point sets)
//! ```
//!
//! for `x` under `S_A`, `y` under `S_B`, where logical dim `j` of `T` has size `S_A[j]·S_B[j]`
//! and coordinate `x_j·S_B[j] + y_j`. Both shards are grouped (Appendix B) and the blocks are
//! interleaved `A₀·Σ, B₀, A₁·Σ, B₁, …`, which is the row-major order of that coordinate.
//! Replicas are combined (`R_A·Σ ∪ R_B`) and offsets add (`O_A ⊙ Σ + O_B`), so the formula
//! holds with sets: scaling by the span keeps distinct tiles from overlapping on every axis.

use crate::error::LayoutError;
use crate::layout::{Iter, Layout};
use crate::span::span_on;

/// `T = A_{‖S_A} ⊗ B_{‖S_B}` (Algorithm 2). `T` admits the shape `a_shape[j] · b_shape[j]` and
/// is grouped by the interleaved shape `(S_A[0], S_B[0], …, S_A[r−1], S_B[r−1])`.
///
/// Errors: `Unsupported` when the ranks differ or a grouping does not exist;
/// `ShapeNotAdmitted` when a shape is not admitted by its layout; `Overflow`.
pub fn tile(a: &Layout, a_shape: &[i64], b: &Layout, b_shape: &[i64]) -> Result<Layout, LayoutError> {
    if a_shape.len() != b_shape.len() {
        return Err(LayoutError::Unsupported(format!(
            "cannot tile: shapes {a_shape:?} and {b_shape:?} have different ranks"
        )));
    }
    a.validate()?;
    b.validate()?;
    let ga = a.group(a_shape)?;
    let gb = b.group(b_shape)?;
    let sigma = b.span()?;
    let scale = |it: &Iter| -> Result<Iter, LayoutError> {
        let s = it
            .stride
            .checked_mul(span_on(&sigma, &it.axis))
            .ok_or(LayoutError::Overflow)?;
        Ok(Iter {
            extent: it.extent,
            stride: s,
            axis: it.axis.clone(),
        })
    };
    let mut shard = Vec::with_capacity(ga.layout.shard.len() + gb.layout.shard.len());
    for (ra, rb) in ga.groups.iter().zip(gb.groups.iter()) {
        for it in &ga.layout.shard[ra.clone()] {
            shard.push(scale(it)?);
        }
        shard.extend(gb.layout.shard[rb.clone()].iter().cloned());
    }
    let mut replica = Vec::with_capacity(a.replica.len() + b.replica.len());
    for it in &a.replica {
        replica.push(scale(it)?);
    }
    replica.extend(b.replica.iter().cloned());
    let mut offset = b.offset.clone();
    for (axis, &o) in &a.offset {
        let v = o.checked_mul(span_on(&sigma, axis)).ok_or(LayoutError::Overflow)?;
        let e = offset.entry(axis.clone()).or_insert(0);
        *e = e.checked_add(v).ok_or(LayoutError::Overflow)?;
    }
    Layout::new(shard, replica, offset)
}

/// The shape `T = tile(A, S_A, B, S_B)` admits: `S_A[j] · S_B[j]`.
pub fn tiled_shape(a_shape: &[i64], b_shape: &[i64]) -> Result<Vec<i64>, LayoutError> {
    if a_shape.len() != b_shape.len() {
        return Err(LayoutError::Unsupported(format!(
            "shapes {a_shape:?} and {b_shape:?} have different ranks"
        )));
    }
    a_shape
        .iter()
        .zip(b_shape)
        .map(|(&x, &y)| x.checked_mul(y).ok_or(LayoutError::Overflow))
        .collect()
}
