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

use std::collections::BTreeSet;

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
        return Ok(Equivalence {
            equal: false,
            method: EquivMethod::CanonicalForm,
        });
    }
    let ca = a.canonicalize();
    let cb = b.canonicalize();
    if ca.gap_condition && cb.gap_condition {
        // Canonical replicas are sorted, so structural equality is multiset equality.
        return Ok(Equivalence {
            equal: ca.layout == cb.layout,
            method: EquivMethod::CanonicalForm,
        });
    }
    let equal = maps_equal_by_enumeration(&ca.layout, &cb.layout)?;
    Ok(Equivalence {
        equal,
        method: EquivMethod::Enumeration,
    })
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
    let axes: BTreeSet<Axis> = a
        .replica
        .iter()
        .chain(b.replica.iter())
        .map(|i| i.axis.clone())
        .collect();
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
    shards_equal(a, b)
}

/// The set `{ Σ r_t s_t }` of the replica iters on `axis` (every digit combination).
/// Errors when an intermediate set would exceed [`ENUMERATION_LIMIT`].
pub(crate) fn replica_axis_set(replica: &[Iter], axis: &Axis) -> Result<BTreeSet<i64>, LayoutError> {
    // Sorted vectors while combining (a BTreeSet insert per point made 2^22 points take
    // seconds); one bulk build at the end.
    let mut set: Vec<i64> = vec![0];
    for it in replica.iter().filter(|i| &i.axis == axis) {
        let bound = (set.len() as i64).checked_mul(it.extent).ok_or(LayoutError::Overflow)?;
        if bound > ENUMERATION_LIMIT {
            return Err(LayoutError::Unsupported(format!(
                "cannot enumerate the replica set on axis {axis}: more than {ENUMERATION_LIMIT} points"
            )));
        }
        let mut next = Vec::with_capacity(bound as usize);
        for &x in &set {
            for d in 0..it.extent {
                let v = d
                    .checked_mul(it.stride)
                    .and_then(|v| v.checked_add(x))
                    .ok_or(LayoutError::Overflow)?;
                next.push(v);
            }
        }
        next.sort_unstable();
        next.dedup();
        set = next;
    }
    Ok(set.into_iter().collect())
}

/// Whether `f_D(x) + O` is the same point for every flat `x` in both layouts (same size):
/// both shards walked in step by an odometer over dense coordinate vectors on the union of
/// their axes, so each step costs one addition per digit that changes and nothing is stored.
fn shards_equal(a: &Layout, b: &Layout) -> Result<bool, LayoutError> {
    let mut axes: Vec<Axis> = a.axes();
    axes.extend(b.axes());
    axes.sort();
    axes.dedup();
    let pos = |x: &Axis| axes.binary_search(x).expect("an axis of the layout");
    struct Walk {
        iters: Vec<(i64, i64, usize)>,
        digits: Vec<i64>,
        cur: Vec<i64>,
    }
    let start = |l: &Layout| {
        let mut cur = vec![0i64; axes.len()];
        for (x, o) in &l.offset {
            cur[pos(x)] = *o;
        }
        Walk {
            iters: l.shard.iter().map(|i| (i.extent, i.stride, pos(&i.axis))).collect(),
            digits: vec![0; l.shard.len()],
            cur,
        }
    };
    // Increments the last (fastest) digit, carrying into slower ones.
    let step = |w: &mut Walk| -> Result<(), LayoutError> {
        let mut k = w.iters.len();
        while k > 0 {
            k -= 1;
            let (e, s, p) = w.iters[k];
            if w.digits[k] + 1 < e {
                w.digits[k] += 1;
                w.cur[p] = w.cur[p].checked_add(s).ok_or(LayoutError::Overflow)?;
                return Ok(());
            }
            let back = (e - 1).checked_mul(s).ok_or(LayoutError::Overflow)?;
            w.cur[p] = w.cur[p].checked_sub(back).ok_or(LayoutError::Overflow)?;
            w.digits[k] = 0;
        }
        Ok(())
    };
    let size = crate::layout::checked_product(a.shard.iter().map(|i| i.extent))?;
    if size != b.size() {
        return Ok(false);
    }
    let (mut wa, mut wb) = (start(a), start(b));
    for x in 0..size {
        if wa.cur != wb.cur {
            return Ok(false);
        }
        if x + 1 < size {
            step(&mut wa)?;
            step(&mut wb)?;
        }
    }
    Ok(true)
}
