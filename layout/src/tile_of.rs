//! Tile-of: decide `A = C ⊗ B` and recover `C` (Axe paper, Appendix D, Algorithm 3 + D.4).
//!
//! Algorithm 3 as typeset matches `B`'s block as a *subsequence* of `A`'s block, which accepts
//! interleavings no tile produces (`A = (2, 2, 2) : (2@lane, 1, 2@warp)`, `B = (2) : (1)`), and
//! misses tiles whose iters canonicalization has merged (`(8) : (1) = (2) : (1) ⊗ (4) : (1)`).
//! Both come from matching iters instead of maps. Since `tile` emits, per logical dim `j`,
//! the `W`-scaled block of `C` followed by the block of `B` (`W = span(B)`), we instead:
//!
//! 1. group `A` by the interleaved shape `(S_C[0], S_B[0], …)`. Grouping depends only on the
//!    canonical shard, so it exists whenever `A = C ⊗ B`; it also splits merged iters apart.
//! 2. require the inner block `2j+1` to have the same map as `B`'s block `j` (equal D0/D1
//!    normal forms, Theorem A.8): `B` must be the *trailing* part of `A`'s block;
//! 3. divide the outer block `2j`'s strides by `W` (D1 commutes with scaling, so the
//!    normal form of `C`'s block comes out).
//!
//! Offsets (D.4): after C1 both replica sets have minimum 0, so the canonical offsets satisfy
//! `O_A = O_C ⊙ W + O_B` and `O_C = (O_A − O_B) / W` axis-wise. Replica, which D.4 leaves
//! open when `B` has one: per axis, `S_A = W·S_C + S_B` (Minkowski sum). We first try the
//! iters of `A`'s canonical replica that are not `B`'s, divided by `W`; when the canonical
//! forms merged `B`'s and `C`'s iters we take the largest candidate set
//! `S_C* = { c : W·c + S_B ⊆ S_A }` (any solution is contained in it, so it is the solution if
//! one exists) and read iters off it with the recovery of Theorem A.12.
//!
//! Before returning, `C ⊗ B ≡ A` is checked ([`crate::equiv::equivalent`]), so an answer is
//! never silently wrong; a failed check is reported as `Unsupported`.

use std::collections::{BTreeMap, BTreeSet};

use crate::canon::{normalize_shard, sort_replica};
use crate::equiv::{equivalent, replica_axis_set};
use crate::error::LayoutError;
use crate::layout::{Axis, Iter, Layout};
use crate::span::span_on;
use crate::tile::tile;

fn not_a_tile(a: &Layout, b: &Layout, why: impl std::fmt::Display) -> LayoutError {
    LayoutError::Unsupported(format!("{a} is not a tile of {b}: {why}"))
}

/// Decide whether `A = C ⊗ B` (with `A` under `a_shape`, `B` under `b_shape`) and return `C`,
/// which admits `S_C[j] = a_shape[j] / b_shape[j]`, so that `tile(C, S_C, B, b_shape) ≡ A`.
///
/// Errors: `Unsupported` when `A` is not such a tile (with the reason), when the ranks
/// differ, or when the final check would need an enumeration over the limit;
/// `ShapeNotAdmitted` for a shape its layout does not admit; `Overflow`.
pub fn tile_of(a: &Layout, a_shape: &[i64], b: &Layout, b_shape: &[i64]) -> Result<Layout, LayoutError> {
    if a_shape.len() != b_shape.len() {
        return Err(LayoutError::Unsupported(format!(
            "cannot decide tile-of: shapes {a_shape:?} and {b_shape:?} have different ranks"
        )));
    }
    a.validate()?;
    b.validate()?;
    a.check_admits(a_shape)?;
    b.check_admits(b_shape)?;
    let mut c_shape = Vec::with_capacity(a_shape.len());
    let mut inter = Vec::with_capacity(2 * a_shape.len());
    for (j, (&sa, &sb)) in a_shape.iter().zip(b_shape).enumerate() {
        if sa % sb != 0 {
            return Err(not_a_tile(a, b, format!("dim {j}: {sb} does not divide {sa}")));
        }
        c_shape.push(sa / sb);
        inter.push(sa / sb);
        inter.push(sb);
    }
    let gb = b.group(b_shape)?;
    let ga = a.group(&inter).map_err(|e| {
        not_a_tile(
            a,
            b,
            format!("A does not group by the interleaved shape {inter:?} ({e})"),
        )
    })?;
    let w = b.span()?;

    // Shard: B's block must be the trailing part of A's block; the rest is W-scaled C.
    let mut c_shard: Vec<Iter> = Vec::new();
    for j in 0..a_shape.len() {
        let outer = &ga.layout.shard[ga.groups[2 * j].clone()];
        let inner = normalize_shard(&ga.layout.shard[ga.groups[2 * j + 1].clone()]);
        let b_block = normalize_shard(&gb.layout.shard[gb.groups[j].clone()]);
        if inner != b_block {
            return Err(not_a_tile(
                a,
                b,
                format!(
                    "dim {j}: the trailing part of A's block is {} but B's block is {}",
                    show(&inner),
                    show(&b_block)
                ),
            ));
        }
        for it in normalize_shard(outer) {
            c_shard.push(descale(&it, span_on(&w, &it.axis)).ok_or_else(|| {
                not_a_tile(
                    a,
                    b,
                    format!(
                        "dim {j}: stride {}@{} is not a multiple of B's span",
                        it.stride, it.axis
                    ),
                )
            })?);
        }
    }

    // Offset and replica (D.4), on canonical forms so both replica sets start at 0.
    let ca = a.canonical();
    let cb = b.canonical();
    let mut c_offset: BTreeMap<Axis, i64> = BTreeMap::new();
    let off_axes: BTreeSet<&Axis> = ca.offset.keys().chain(cb.offset.keys()).collect();
    for axis in off_axes {
        let oa = ca.offset.get(axis).copied().unwrap_or(0);
        let ob = cb.offset.get(axis).copied().unwrap_or(0);
        let diff = oa.checked_sub(ob).ok_or(LayoutError::Overflow)?;
        let wa = span_on(&w, axis);
        if diff % wa != 0 {
            return Err(not_a_tile(
                a,
                b,
                format!("offset on {axis}: {oa} − {ob} is not a multiple of B's span {wa}"),
            ));
        }
        c_offset.insert(axis.clone(), diff / wa);
    }
    let rep_axes: BTreeSet<&Axis> = ca.replica.iter().chain(cb.replica.iter()).map(|i| &i.axis).collect();
    let mut c_replica: Vec<Iter> = Vec::new();
    for axis in rep_axes {
        let ra: Vec<Iter> = ca.replica.iter().filter(|i| &i.axis == axis).cloned().collect();
        let rb: Vec<Iter> = cb.replica.iter().filter(|i| &i.axis == axis).cloned().collect();
        let got = recover_replica_axis(&ra, &rb, axis, span_on(&w, axis)).map_err(|e| match e {
            LayoutError::Unsupported(why) => not_a_tile(a, b, why),
            other => other,
        })?;
        c_replica.extend(got);
    }
    sort_replica(&mut c_replica);

    let c = Layout::new(c_shard, c_replica, c_offset)?;
    let t = tile(&c, &c_shape, b, b_shape)?;
    let check = equivalent(&t, a).map_err(|e| match e {
        LayoutError::Unsupported(why) => {
            LayoutError::Unsupported(format!("cannot verify the recovered C = {c}: {why}"))
        }
        other => other,
    })?;
    if !check.equal {
        return Err(not_a_tile(
            a,
            b,
            format!("the candidate C = {c} gives C ⊗ B = {t}, a different map"),
        ));
    }
    Ok(c)
}

fn show(iters: &[Iter]) -> String {
    Layout {
        shard: iters.to_vec(),
        replica: vec![],
        offset: BTreeMap::new(),
    }
    .to_string()
}

fn descale(it: &Iter, w: i64) -> Option<Iter> {
    (it.stride % w == 0).then(|| Iter {
        extent: it.extent,
        stride: it.stride / w,
        axis: it.axis.clone(),
    })
}

/// C's replica iters on one axis from the canonical (positive-stride) replicas of A and B.
fn recover_replica_axis(ra: &[Iter], rb: &[Iter], axis: &Axis, w: i64) -> Result<Vec<Iter>, LayoutError> {
    // Candidate 1: A's iters minus B's (as a multiset), divided by W.
    let mut rest: Vec<Iter> = ra.to_vec();
    let mut contained = true;
    for it in rb {
        match rest.iter().position(|x| x == it) {
            Some(p) => {
                rest.remove(p);
            }
            None => contained = false,
        }
    }
    if contained {
        if let Some(cand) = rest.iter().map(|it| descale(it, w)).collect::<Option<Vec<_>>>() {
            if rb.is_empty() {
                return Ok(cand); // A's replica here is exactly the W-scaled candidate.
            }
            let mut scaled_plus_b: Vec<Iter> = rest.clone();
            scaled_plus_b.extend(rb.iter().cloned());
            if replica_axis_set(&scaled_plus_b, axis)? == replica_axis_set(ra, axis)? {
                return Ok(cand);
            }
        }
    }
    // Candidate 2: the largest S_C with W·S_C + S_B ⊆ S_A, read off by Theorem A.12.
    let sa = replica_axis_set(ra, axis)?;
    let sb = replica_axis_set(rb, axis)?;
    let sc: BTreeSet<i64> = sa
        .iter()
        .filter(|&&s| s % w == 0)
        .map(|&s| s / w)
        .filter(|&c| {
            sb.iter().all(|&y| {
                c.checked_mul(w)
                    .and_then(|v| v.checked_add(y))
                    .is_some_and(|v| sa.contains(&v))
            })
        })
        .collect();
    let fail = || {
        LayoutError::Unsupported(format!(
            "the replica on {axis} is not B's replica plus a span-scaled one"
        ))
    };
    let iters = iters_from_set(&sc, axis).ok_or_else(fail)?;
    if replica_axis_set(&iters, axis)? != sc {
        return Err(fail());
    }
    let mut scaled_plus_b: Vec<Iter> = iters
        .iter()
        .map(|it| {
            it.stride.checked_mul(w).map(|s| Iter {
                extent: it.extent,
                stride: s,
                axis: axis.clone(),
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or(LayoutError::Overflow)?;
    scaled_plus_b.extend(rb.iter().cloned());
    if replica_axis_set(&scaled_plus_b, axis)? != sa {
        return Err(fail());
    }
    Ok(iters)
}

/// Theorem A.12's recovery: `σ = min(B \ {0})`, `E` = run length of multiples of `σ` in `B`,
/// then `B ← LB_σ(B) = { x ∈ B : x − σ ∉ B }`, until `B = {0}`. Exact for saturated replicas
/// with the gap condition; the caller checks the iters regenerate the set otherwise.
fn iters_from_set(set: &BTreeSet<i64>, axis: &Axis) -> Option<Vec<Iter>> {
    if set.first() != Some(&0) {
        return None;
    }
    let mut cur = set.clone();
    let mut out = Vec::new();
    while cur.len() > 1 {
        let sigma = *cur.iter().nth(1)?;
        let mut e: i64 = 1;
        while cur.contains(&e.checked_mul(sigma)?) {
            e += 1;
        }
        out.push(Iter {
            extent: e,
            stride: sigma,
            axis: axis.clone(),
        });
        let next: BTreeSet<i64> = cur.iter().copied().filter(|&x| !cur.contains(&(x - sigma))).collect();
        if next.len() >= cur.len() {
            return None;
        }
        cur = next;
    }
    Some(out)
}
