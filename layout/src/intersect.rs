//! Iter intersection for the Trainium TensorE matmul dispatch (Axe paper §3.4, Appendix H).
//!
//! The dispatch groups `A[K, M]`, `B[K, N]` and `C[M, N]` so that each iter is one dimension
//! entry, then:
//!
//! * **K intersection** ([`k_intersection`]): position-wise over the K iters of `A` and `B`,
//!   where both are on the partition axis `P`, keep `A[i] ∩ B[i]` ([`intersect_iters`]);
//! * **M intersection** ([`m_intersection`]): over the M iters, keep positions where `A` is on the
//!   free axis `F` and `C` on `P`; among them choose the largest index set `I` that contains the
//!   `C` iter of smallest stride and whose `C` iters, viewed as a replica set, form exactly one
//!   iter (a contiguous chain `s, s·e_0, s·e_0·e_1, …`);
//! * **N intersection** ([`n_intersection`]): the same with `B` on `F` and `C` on `F`, the chain
//!   taken in `B` or in `C`, whichever is larger.
//!
//! The extents of the kept iters give the largest instruction shape; the remaining iters become
//! loops around the instruction. (Step 1, finding `S_M`, `S_N`, `S_K`, is grouping and is not
//! done here: the functions take the grouped iter lists.)

use crate::error::LayoutError;
use crate::gcd;
use crate::layout::{Axis, Iter};

/// The SBUF/PSUM partition axis.
pub const PARTITION_AXIS: &str = "P";
/// The SBUF/PSUM free axis.
pub const FREE_AXIS: &str = "F";

fn check_iter(i: &Iter) -> Result<(), LayoutError> {
    if i.extent <= 0 {
        return Err(LayoutError::NonPositiveExtent(i.extent));
    }
    if i.stride == 0 {
        return Err(LayoutError::ZeroStride);
    }
    (i.extent - 1).checked_mul(i.stride).ok_or(LayoutError::Overflow)?;
    Ok(())
}

/// `I1 ∩ I2` (§3.4 step 2): the iter whose values `{k·s@a | 0 ≤ k < e}` are exactly the values
/// both `I1` and `I2` produce. Both value sets contain 0 and are arithmetic progressions from 0,
/// so the intersection is one too and always exists: multiples of `lcm(|s1|, |s2|)` up to the
/// smaller reach when the strides have the same sign and the same axis, else only `{0}`
/// (returned as an extent-1 iter with `I1`'s stride and axis).
///
/// Errors: invalid iters (`NonPositiveExtent`, `ZeroStride`, `Overflow`).
pub fn intersect_iters(a: &Iter, b: &Iter) -> Result<Iter, LayoutError> {
    check_iter(a)?;
    check_iter(b)?;
    let unit = Iter {
        extent: 1,
        stride: a.stride,
        axis: a.axis.clone(),
    };
    if a.axis != b.axis || (a.stride > 0) != (b.stride > 0) {
        return Ok(unit);
    }
    let g = gcd(a.stride, b.stride);
    // An lcm beyond i64 exceeds every value either iter produces: only 0 is shared.
    let lcm = match (a.stride.abs() / g).checked_mul(b.stride.abs()) {
        Some(l) => l,
        None => return Ok(unit),
    };
    let reach_a = (a.extent - 1) * a.stride.abs();
    let reach_b = (b.extent - 1) * b.stride.abs();
    let extent = reach_a.min(reach_b) / lcm + 1;
    let stride = if a.stride > 0 { lcm } else { -lcm };
    Ok(Iter {
        extent,
        stride,
        axis: a.axis.clone(),
    })
}

/// K intersection (§3.4 step 2): for each position `i` of the K iters of the grouped `A` and `B`
/// (equal length), when both are on `axis` (normally [`PARTITION_AXIS`]), append
/// `ka[i] ∩ kb[i]`.
pub fn k_intersection(ka: &[Iter], kb: &[Iter], axis: &Axis) -> Result<Vec<Iter>, LayoutError> {
    if ka.len() != kb.len() {
        return Err(LayoutError::Unsupported(format!(
            "K intersection needs iter lists of equal length, got {} and {}",
            ka.len(),
            kb.len()
        )));
    }
    let mut out = Vec::new();
    for (x, y) in ka.iter().zip(kb) {
        if &x.axis == axis && &y.axis == axis {
            out.push(intersect_iters(x, y)?);
        }
    }
    Ok(out)
}

/// The result of an M or N intersection: the chosen positions (in iter-list order) and the
/// corresponding iters of the two operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub indices: Vec<usize>,
    pub first: Vec<Iter>,
    pub second: Vec<Iter>,
}

impl Selection {
    /// The instruction extent along this dimension (product of the kept extents).
    pub fn extent(&self) -> i64 {
        self.first.iter().map(|i| i.extent).product()
    }
}

/// The largest subset of `candidates` (positions into `iters`) containing the candidate of
/// smallest `|stride|` whose iters, as a replica set, equal exactly one iter: starting from the
/// smallest stride `s`, repeatedly add the candidate on the same axis, same sign, whose stride is
/// the running reach `s·Πe`. Extent-1 candidates are skipped (they contribute nothing).
fn chain_from_smallest(iters: &[Iter], candidates: &[usize]) -> Vec<usize> {
    let live: Vec<usize> = candidates.iter().copied().filter(|&i| iters[i].extent > 1).collect();
    let Some(&start) = live.iter().min_by_key(|&&i| (iters[i].stride.unsigned_abs(), i)) else {
        return Vec::new();
    };
    let mut chosen = vec![start];
    let mut next = iters[start].stride.checked_mul(iters[start].extent);
    while let Some(want) = next {
        match live
            .iter()
            .copied()
            .find(|&i| !chosen.contains(&i) && iters[i].axis == iters[start].axis && iters[i].stride == want)
        {
            Some(i) => {
                chosen.push(i);
                next = want.checked_mul(iters[i].extent);
            }
            None => break,
        }
    }
    chosen.sort_unstable();
    chosen
}

fn select(
    first: &[Iter],
    second: &[Iter],
    first_axis: &str,
    second_axis: &str,
    chain_in_first_too: bool,
) -> Result<Selection, LayoutError> {
    if first.len() != second.len() {
        return Err(LayoutError::Unsupported(format!(
            "M/N intersection needs iter lists of equal length, got {} and {}",
            first.len(),
            second.len()
        )));
    }
    for it in first.iter().chain(second) {
        check_iter(it)?;
    }
    let candidates: Vec<usize> = (0..first.len())
        .filter(|&i| first[i].axis.name() == first_axis && second[i].axis.name() == second_axis)
        .collect();
    let mut indices = chain_from_smallest(second, &candidates);
    if chain_in_first_too {
        let alt = chain_from_smallest(first, &candidates);
        let size = |ix: &[usize]| ix.iter().map(|&i| first[i].extent as i128).product::<i128>();
        if size(&alt) > size(&indices) {
            indices = alt;
        }
    }
    Ok(Selection {
        first: indices.iter().map(|&i| first[i].clone()).collect(),
        second: indices.iter().map(|&i| second[i].clone()).collect(),
        indices,
    })
}

/// M intersection (§3.4 step 3): `la_m`, `lc_m` are the M iters of grouped `A` and `C`.
/// Keeps positions with `A` on `F` and `C` on `P`, then the largest chain in `C` that contains
/// `C`'s smallest stride. `first` holds `L_M^A`, `second` `L_M^C`.
pub fn m_intersection(la_m: &[Iter], lc_m: &[Iter]) -> Result<Selection, LayoutError> {
    select(la_m, lc_m, FREE_AXIS, PARTITION_AXIS, false)
}

/// N intersection (§3.4 step 3): `lb_n`, `lc_n` are the N iters of grouped `B` and `C`.
/// Keeps positions with both on `F`, then the larger of the chains found in `B` and in `C`.
/// `first` holds `L_N^B`, `second` `L_N^C`.
pub fn n_intersection(lb_n: &[Iter], lc_n: &[Iter]) -> Result<Selection, LayoutError> {
    select(lb_n, lc_n, FREE_AXIS, FREE_AXIS, true)
}
