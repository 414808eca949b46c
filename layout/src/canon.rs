//! Canonicalization (Axe paper, Appendix A): a normal form that preserves the induced map.
//!
//! The shard `D` and the pair `(O, R)` are normalized separately:
//!
//! * **D0** deletes unit-extent shard iters; **D1** merges adjacent iters
//!   `(e₁, s₁@a), (e₂, s₂@a)` with `s₁ = e₂·s₂` into `(e₁e₂, s₂@a)` (Lemma B.1 read backwards).
//!   The result is unique given `f_D` (Theorem A.8). A layout of one element canonicalizes to
//!   an empty shard `() : ()`.
//! * **C0** deletes unit-extent replica iters; **C1** makes every replica stride positive,
//!   moving `(e − 1)·s` into the offset; **C2** absorbs `(E_j, q·σ@a)` into `(E_i, σ@a)` as
//!   `(E_i + q(E_j − 1), σ@a)` when `1 ≤ q ≤ E_i`. The paper typesets `q < E_i`; the
//!   saturation condition and the exactness proof of C2 both use `q ≤ E_i`, which is what
//!   is implemented (an erratum of the paper).
//!
//! Without the gap condition (GC) the replica rules are not confluent:
//! `[(3, 2, 2) : (2, 3, 6)]` reduces to `[(6, 2) : (2, 3)]` or `[(3, 4) : (2, 3)]`. We fix one
//! deterministic order (replica sorted by axis, stride, extent; always merge the first
//! eligible pair) so the result is a function of the input and idempotent, and we report
//! whether GC holds: only then is the form unique among all layouts with the same map
//! (Theorem A.14) and usable for equivalence by structural comparison.
//!
//! A rewrite whose arithmetic would overflow i64 is skipped rather than wrapped; that can
//! only happen on a layout that fails [`Layout::validate`], and the map is still preserved.

use std::collections::BTreeMap;

use crate::layout::{Axis, Iter, Layout};

/// A canonical layout and whether its replica satisfies the gap condition (GC).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The canonical layout: same induced map as the input.
    pub layout: Layout,
    /// GC holds on every axis of the canonical replica (vacuously true without replica), so
    /// two layouts whose canonical forms both satisfy it are equivalent iff the forms are
    /// equal (Theorem A.14).
    pub gap_condition: bool,
}

impl Layout {
    /// Canonicalize with D0, D1 (shard) and C0, C1, C2 (replica and offset).
    ///
    /// Deterministic and idempotent; the induced map (the set of points per logical index)
    /// is preserved exactly.
    pub fn canonicalize(&self) -> Canonical {
        let shard = normalize_shard(&self.shard);
        let mut offset = self.offset.clone();
        let replica = normalize_replica(&self.replica, &mut offset);
        offset.retain(|_, v| *v != 0);
        let gap_condition = gap_condition(&replica);
        Canonical {
            layout: Layout { shard, replica, offset },
            gap_condition,
        }
    }

    /// The canonical layout (see [`Layout::canonicalize`]).
    pub fn canonical(&self) -> Layout {
        self.canonicalize().layout
    }
}

/// D0 + D1 on an ordered iter list. One left-to-right pass reaches the fixpoint: after
/// merging `top` with `it` into `(e_top·e_it, s_it)`, merging with the element below `top`
/// would need `s_below = e_top·e_it·s_it = e_top·s_top`, which was already refused.
pub(crate) fn normalize_shard(iters: &[Iter]) -> Vec<Iter> {
    let mut out: Vec<Iter> = Vec::with_capacity(iters.len());
    for it in iters {
        if it.extent == 1 {
            continue; // D0
        }
        if let Some(top) = out.last_mut() {
            let merges = top.axis == it.axis && it.extent.checked_mul(it.stride) == Some(top.stride);
            if merges {
                if let Some(e) = top.extent.checked_mul(it.extent) {
                    // D1
                    top.extent = e;
                    top.stride = it.stride;
                    continue;
                }
            }
        }
        out.push(it.clone());
    }
    out
}

/// The sort order of canonical replica lists: by axis, then stride, then extent.
pub(crate) fn sort_replica(r: &mut [Iter]) {
    r.sort_by(|x, y| (&x.axis, x.stride, x.extent).cmp(&(&y.axis, y.stride, y.extent)));
}

/// C0 + C1 + C2 to a fixpoint, updating `offset` for C1. Returns the sorted replica.
pub(crate) fn normalize_replica(replica: &[Iter], offset: &mut BTreeMap<Axis, i64>) -> Vec<Iter> {
    let mut r: Vec<Iter> = Vec::with_capacity(replica.len());
    for it in replica {
        if it.extent == 1 {
            continue; // C0
        }
        let mut it = it.clone();
        if it.stride < 0 {
            // C1: digits 0..e with stride s < 0 cover (e-1)s, …, 0, the same set as stride −s
            // shifted by (e−1)s.
            let shift = (it.extent - 1).checked_mul(it.stride);
            let cur = offset.get(&it.axis).copied().unwrap_or(0);
            let pos = it.stride.checked_neg();
            if let (Some(shift), Some(pos)) = (shift, pos) {
                if let Some(o) = cur.checked_add(shift) {
                    offset.insert(it.axis.clone(), o);
                    it.stride = pos;
                }
            }
        }
        r.push(it);
    }
    sort_replica(&mut r);
    // C2, first eligible pair in sorted order, until none applies.
    'outer: loop {
        for i in 0..r.len() {
            for j in 0..r.len() {
                if i == j || r[i].axis != r[j].axis {
                    continue;
                }
                let (si, sj) = (r[i].stride, r[j].stride);
                if si <= 0 || sj <= 0 || sj % si != 0 {
                    continue;
                }
                // Equal strides: only merge i<j so the pair is taken once, in sorted order.
                if si == sj && j < i {
                    continue;
                }
                let q = sj / si;
                if q < 1 || q > r[i].extent {
                    continue;
                }
                let merged = (r[j].extent - 1)
                    .checked_mul(q)
                    .and_then(|v| v.checked_add(r[i].extent));
                let Some(e) = merged else { continue };
                // The merged iter's largest coordinate must stay in range.
                if (e - 1).checked_mul(si).is_none() {
                    continue;
                }
                r[i].extent = e;
                r.remove(j);
                sort_replica(&mut r);
                continue 'outer;
            }
        }
        break;
    }
    r
}

/// The gap condition on a canonical replica: on each axis, with strides sorted
/// `σ₁ < σ₂ < …` and extents `E_k`, `σ_{k+1} > E_k·σ_k`; all strides positive and distinct.
pub(crate) fn gap_condition(replica: &[Iter]) -> bool {
    let mut per_axis: BTreeMap<&Axis, Vec<(i64, i64)>> = BTreeMap::new();
    for it in replica {
        if it.stride <= 0 {
            return false;
        }
        per_axis.entry(&it.axis).or_default().push((it.stride, it.extent));
    }
    per_axis.values_mut().all(|v| {
        v.sort();
        v.windows(2).all(|w| match w[0].1.checked_mul(w[0].0) {
            Some(bound) => w[1].0 > bound,
            None => false,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d1_merges_chains() {
        let l = Layout::parse("(2, 1, 3, 4) : (12, 7@warp, 4, 1)").unwrap();
        assert_eq!(l.canonical().to_string(), "(24) : (1)");
    }

    #[test]
    fn c1_moves_sign_into_offset() {
        let l = Layout::parse("(2) : (1) + [(4) : (-2@warp)]").unwrap();
        assert_eq!(l.canonical().to_string(), "(2) : (1) + [(4) : (2@warp)] + -6@warp");
    }
}
