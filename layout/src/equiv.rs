//! Equivalence of layouts: do two layouts induce the same set-valued map?
//!
//! Where Theorem A.14 applies (both canonical replicas satisfy the gap condition) the
//! canonical forms are unique, so structural comparison decides it without enumerating.
//! Otherwise (aliasing replicas, where the replica rewrite is not confluent) we compare the
//! induced maps by enumeration.
//!
//! The enumeration does not build the full `E_D × E_R` table. After C1 every replica stride is
//! positive, so for a linear functional `θ` with positive weights the θ-minimum of
//! `f_L(x) = f_D(x) + O + S_R` is the single point `f_D(x) + O` (Lemma A.13; it needs no gap
//! condition). Hence `f_L ≡ f_L'` iff `f_D(x) + O = f_D'(x) + O'` for every `x` and the
//! replica sets `S_R = S_R'`; and `S_R` is the Minkowski sum of its per-axis sets, so it is
//! compared axis by axis. That is `E_D` points plus the per-axis replica sets, each bounded
//! by [`ENUMERATION_LIMIT`].

use std::collections::{BTreeMap, BTreeSet};

use crate::error::LayoutError;
use crate::layout::{Axis, Iter, Layout};

/// The largest number of points the enumeration fallback visits (per layout and per set).
pub const ENUMERATION_LIMIT: i64 = 1 << 22;

/// The result of an equivalence check and how it was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Equivalence {
    pub equal: bool,
    pub method: EquivMethod,
}

/// How [`equivalent`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EquivMethod {
    /// Structural comparison of canonical forms (Theorem A.14, or different sizes).
    CanonicalForm,
    /// Enumeration of the induced maps (the gap condition failed for one of the layouts).
    Enumeration,
}

/// Decide whether `a` and `b` induce the same map from flat logical index to point sets.
///
/// Layouts of different sizes are never equal. Errors: an invalid layout
/// ([`Layout::validate`]); `Unsupported` when the enumeration
/// fallback would exceed [`ENUMERATION_LIMIT`] points; `Overflow` on i64 overflow.
pub fn equivalent(a: &Layout, b: &Layout) -> Result<Equivalence, LayoutError> {
    a.validate()?;
    b.validate()?;
    let size_a = crate::layout::checked_product(a.shard.iter().map(|i| i.extent))?;
    let size_b = crate::layout::checked_product(b.shard.iter().map(|i| i.extent))?;
    if size_a != size_b {
        return Ok(Equivalence { equal: false, method: EquivMethod::CanonicalForm });
    }
    let ca = a.canonicalize();
    let cb = b.canonicalize();
    if ca.gap_condition && cb.gap_condition {
        // Canonical replicas are sorted, so structural equality is multiset equality.
        return Ok(Equivalence { equal: ca.layout == cb.layout, method: EquivMethod::CanonicalForm });
    }
    let equal = maps_equal_by_enumeration(&ca.layout, &cb.layout)?;
    Ok(Equivalence { equal, method: EquivMethod::Enumeration })
}

/// Enumerate and compare two layouts whose replica strides are all positive (after C1),
/// as justified in the module docs.
fn maps_equal_by_enumeration(a: &Layout, b: &Layout) -> Result<bool, LayoutError> {
    if a.replica.iter().chain(b.replica.iter()).any(|i| i.stride <= 0) {
        return Err(LayoutError::Unsupported(
            "cannot compare layouts: a replica stride could not be made positive".into(),
        ));
    }
    // Replica sets, per axis (cheap, and decides many cases before the shard walk).
    let axes: BTreeSet<Axis> = a.replica.iter().chain(b.replica.iter()).map(|i| i.axis.clone()).collect();
    for axis in &axes {
        if replica_axis_set(&a.replica, axis)? != replica_axis_set(&b.replica, axis)? {
            return Ok(false);
        }
    }
    let size = crate::layout::checked_product(a.shard.iter().map(|i| i.extent))?;
    if size > ENUMERATION_LIMIT {
        return Err(LayoutError::Unsupported(format!(
            "cannot decide equivalence: the gap condition fails and enumerating {size} logical \
             indices exceeds the limit of {ENUMERATION_LIMIT}"
        )));
    }
    let pa = shard_points(a)?;
    let pb = shard_points(b)?;
    Ok(pa == pb)
}

/// The set `{ Σ r_t s_t }` of the replica iters on `axis` (every digit combination).
/// Errors when an intermediate set would exceed [`ENUMERATION_LIMIT`].
pub(crate) fn replica_axis_set(replica: &[Iter], axis: &Axis) -> Result<BTreeSet<i64>, LayoutError> {
    let mut set: BTreeSet<i64> = BTreeSet::from([0]);
    for it in replica.iter().filter(|i| &i.axis == axis) {
        let bound = (set.len() as i64).checked_mul(it.extent).ok_or(LayoutError::Overflow)?;
        if bound > ENUMERATION_LIMIT {
            return Err(LayoutError::Unsupported(format!(
                "cannot enumerate the replica set on axis {axis}: more than {ENUMERATION_LIMIT} points"
            )));
        }
        let mut next = BTreeSet::new();
        for &x in &set {
            for d in 0..it.extent {
                let v = d.checked_mul(it.stride).and_then(|v| v.checked_add(x)).ok_or(LayoutError::Overflow)?;
                next.insert(v);
            }
        }
        set = next;
    }
    Ok(set)
}

/// `f_D(x) + O` for every flat `x`, in order, as dense coordinate vectors over the axes of
/// the layout's shard and offset (an odometer, so each step costs one addition per digit
/// that changes).
pub(crate) fn shard_points(l: &Layout) -> Result<Vec<BTreeMap<Axis, i64>>, LayoutError> {
    let size = crate::layout::checked_product(l.shard.iter().map(|i| i.extent))?;
    let mut cur: BTreeMap<Axis, i64> = l.offset.clone();
    let mut digits = vec![0i64; l.shard.len()];
    let mut out = Vec::with_capacity(size as usize);
    for x in 0..size {
        let mut p = cur.clone();
        p.retain(|_, v| *v != 0);
        out.push(p);
        if x + 1 == size {
            break;
        }
        // Increment the last (fastest) digit, carrying into slower ones.
        let mut k = l.shard.len();
        while k > 0 {
            k -= 1;
            let it = &l.shard[k];
            let e = cur.entry(it.axis.clone()).or_insert(0);
            if digits[k] + 1 < it.extent {
                digits[k] += 1;
                *e = e.checked_add(it.stride).ok_or(LayoutError::Overflow)?;
                break;
            }
            let back = (it.extent - 1).checked_mul(it.stride).ok_or(LayoutError::Overflow)?;
            *e = e.checked_sub(back).ok_or(LayoutError::Overflow)?;
            digits[k] = 0;
        }
    }
    Ok(out)
}
