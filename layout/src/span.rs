//! Axis-wise span (Axe paper, Appendix C, Lemma C.1).
//!
//! Tiling places one copy of the inner layout per outer coordinate, and the copies must not
//! overlap: the outer coordinates are therefore scaled by the *span* of the inner layout, the
//! width of the interval its image covers on each axis:
//!
//! ```text
//! span_a(L) = 1 + Σ_{I ∈ D, a_I = a} |s_I|(e_I − 1) + Σ_{J ∈ R, a_J = a} |s_J|(e_J − 1)
//! ```
//!
//! Every digit ranges independently over `[0, e)`, so the sum of the `|s|(e − 1)` is exactly
//! `max − min` of the image projected on `a`; the span is that width plus one. The offset
//! shifts the image and does not change its width, so it does not enter the span.
//! (Def. 2.3's prose definition, `max Vals − min Vals + 1` over all image points, is the
//! same number; the property tests check it by enumeration.)

use std::collections::BTreeMap;

use crate::error::LayoutError;
use crate::layout::{Axis, Layout};

impl Layout {
    /// The axis-wise span `span(f_L)` of Lemma C.1: for every axis the layout mentions (shard,
    /// replica or offset), `1 + Σ |s|(e − 1)` over the shard and replica iters on that axis,
    /// i.e. `max − min + 1` of the image of `f_L` projected on the axis.
    ///
    /// Axes the layout does not mention have span 1 (see [`span_on`]); axes that appear only
    /// in the offset are listed with span 1. Errors: the layout's own invalidity
    /// ([`Layout::validate`]), `Overflow` when the sum leaves i64.
    pub fn span(&self) -> Result<BTreeMap<Axis, i64>, LayoutError> {
        self.validate()?;
        let mut out: BTreeMap<Axis, i64> = self.axes().into_iter().map(|a| (a, 1)).collect();
        for it in self.shard.iter().chain(self.replica.iter()) {
            let width = it
                .stride
                .checked_abs()
                .and_then(|s| s.checked_mul(it.extent.checked_sub(1)?))
                .ok_or(LayoutError::Overflow)?;
            let e = out.entry(it.axis.clone()).or_insert(1);
            *e = e.checked_add(width).ok_or(LayoutError::Overflow)?;
        }
        Ok(out)
    }
}

/// The span on one axis, 1 for an axis the span map does not list (no iter there).
pub fn span_on(span: &BTreeMap<Axis, i64>, axis: &Axis) -> i64 {
    span.get(axis).copied().unwrap_or(1)
}
