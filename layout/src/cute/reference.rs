//! The CuTe algebra as it was before the flat rewrite of `cute.rs` (nested `IntTuple` trees at
//! every step), kept for tests only: `cute.rs`'s differential test checks that the optimized
//! operations return exactly the same layouts and the same errors.

use std::fmt;

use super::IntTuple;
use crate::error::LayoutError;

/// Compositions whose domain has at most this many elements are re-checked by enumeration.
const VERIFY_LIMIT: i64 = 1 << 16;

/// The reference layout: the same fields as `CuteLayout`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RefLayout {
    pub shape: IntTuple,
    pub stride: IntTuple,
}

impl fmt::Display for RefLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl RefLayout {
    /// Build and validate: congruent shape/stride, positive shape leaves, size and every value
    /// on the domain within i64.
    pub fn new(shape: IntTuple, stride: IntTuple) -> Result<Self, LayoutError> {
        let l = RefLayout { shape, stride };
        l.validate()?;
        Ok(l)
    }

    /// A flat (depth ≤ 1) layout; one mode gives a bare `s:d`.
    pub fn flat(shape: &[i64], stride: &[i64]) -> Result<Self, LayoutError> {
        if shape.len() != stride.len() || shape.is_empty() {
            return Err(LayoutError::Unsupported(
                "flat CuTe layout needs equally many (≥ 1) shapes and strides".into(),
            ));
        }
        Self::new(IntTuple::flat(shape), IntTuple::flat(stride))
    }

    fn from_modes(modes: &[(i64, i64)]) -> Result<Self, LayoutError> {
        if modes.is_empty() {
            return Self::flat(&[1], &[0]);
        }
        let (s, d): (Vec<i64>, Vec<i64>) = modes.iter().copied().unzip();
        Self::flat(&s, &d)
    }

    /// Check the invariants of [`RefLayout::new`].
    pub fn validate(&self) -> Result<(), LayoutError> {
        if !self.shape.congruent(&self.stride) {
            return Err(LayoutError::Unsupported(format!(
                "shape {} and stride {} are not congruent",
                self.shape, self.stride
            )));
        }
        let mut size: i64 = 1;
        let mut reach: i64 = 0;
        for (s, d) in self.modes_flat() {
            if s <= 0 {
                return Err(LayoutError::NonPositiveExtent(s));
            }
            size = size.checked_mul(s).ok_or(LayoutError::Overflow)?;
            let r = (s - 1)
                .checked_mul(d)
                .and_then(i64::checked_abs)
                .ok_or(LayoutError::Overflow)?;
            reach = reach.checked_add(r).ok_or(LayoutError::Overflow)?;
        }
        Ok(())
    }

    /// The flattened `(shape, stride)` leaves, in colexicographic order (first fastest).
    pub fn modes_flat(&self) -> Vec<(i64, i64)> {
        self.shape.leaves().into_iter().zip(self.stride.leaves()).collect()
    }

    /// `|L|`, the domain size.
    /// Saturates at `i64::MAX` for an unvalidated layout whose size overflows.
    pub fn size(&self) -> i64 {
        self.shape.leaves().iter().fold(1i64, |a, &s| a.saturating_mul(s))
    }

    /// `cosize(L) = max L + 1` over the domain (non-negative strides only).
    pub fn cosize(&self) -> Result<i64, LayoutError> {
        let mut m: i64 = 0;
        for (s, d) in self.modes_flat() {
            if d < 0 {
                return Err(LayoutError::Unsupported("cosize needs non-negative strides".into()));
            }
            m = m
                .checked_add((s - 1).checked_mul(d).ok_or(LayoutError::Overflow)?)
                .ok_or(LayoutError::Overflow)?;
        }
        m.checked_add(1).ok_or(LayoutError::Overflow)
    }

    /// `L(i)` for an integer index `i ≥ 0`; indices beyond `|L|` use the extended domain (the
    /// last leaf is unbounded), as composition and complement require.
    pub fn eval(&self, i: i64) -> Result<i64, LayoutError> {
        if i < 0 {
            return Err(LayoutError::OutOfBounds {
                coord: vec![i],
                shape: vec![self.size()],
            });
        }
        let modes = self.modes_flat();
        if let Some(&(s, _)) = modes.iter().find(|m| m.0 <= 0) {
            return Err(LayoutError::NonPositiveExtent(s));
        }
        let mut rest = i as i128;
        let mut acc: i128 = 0;
        for (k, (s, d)) in modes.iter().enumerate() {
            let c = if k + 1 == modes.len() { rest } else { rest % *s as i128 };
            rest /= *s as i128;
            acc += c * *d as i128;
        }
        i64::try_from(acc).map_err(|_| LayoutError::Overflow)
    }

    /// Coalesce (CuTe paper §3.2): the minimal-rank flat layout with the same integral evaluation.
    /// Shape-1 modes are dropped; adjacent modes with `s_i·d_i = d_{i+1}` merge.
    pub fn coalesce(&self) -> RefLayout {
        let mut out: Vec<(i64, i64)> = Vec::new();
        for (s, d) in self.modes_flat() {
            if s == 1 {
                continue;
            }
            if let Some(last) = out.last_mut() {
                if last.0.checked_mul(last.1) == Some(d) {
                    if let Some(merged) = last.0.checked_mul(s) {
                        last.0 = merged;
                        continue;
                    }
                }
            }
            out.push((s, d));
        }
        if out.is_empty() {
            out.push((1, 0));
        }
        let (s, d): (Vec<i64>, Vec<i64>) = out.into_iter().unzip();
        RefLayout {
            shape: IntTuple::flat(&s),
            stride: IntTuple::flat(&d),
        }
    }

    /// Coalesce keeping the extended-domain function (composition evaluates the left operand
    /// beyond its size): a dropped trailing shape-1 leaf `(1, d)` still sets the stride of the
    /// extension, so it is re-appended unless the last merged mode already extends with `d`.
    fn coalesce_ext(&self) -> Vec<(i64, i64)> {
        let mut modes = self.coalesce().modes_flat();
        if let Some(&(1, d_last)) = self.modes_flat().last() {
            let extends = match modes.last() {
                Some(&(s, d)) if s > 1 => s.checked_mul(d) == Some(d_last),
                _ => false,
            };
            if !extends {
                if modes == [(1, 0)] {
                    modes.clear();
                }
                modes.push((1, d_last));
            }
        }
        modes
    }

    /// Base case of composition (CuTe paper Eq. (19)–(21)): `self ∘ s:d` for a coalesced flat `self`.
    fn compose_leaf(a: &[(i64, i64)], s: i64, d: i64) -> Result<RefLayout, LayoutError> {
        if s == 1 {
            return Self::from_modes(&[(1, 0)]);
        }
        if d == 0 {
            return Self::from_modes(&[(s, 0)]);
        }
        if d < 0 {
            return Err(LayoutError::Unsupported(
                "composition with a negative right-hand stride".into(),
            ));
        }
        // Truncate `a` after the first mode r with Π_{k≤r} S_k > (s-1)·d: later modes never
        // contribute, and the kept last mode becomes the extended one.
        let span = ((s - 1) as i128) * (d as i128);
        let mut prod: i128 = 1;
        let mut keep = a.len();
        for (r, &(sr, _)) in a.iter().enumerate() {
            prod *= sr as i128;
            if prod > span {
                keep = r + 1;
                break;
            }
        }
        let a = &a[..keep];
        let mut modes: Vec<(i64, i64)> = Vec::new();
        let (mut rest_shape, mut rest_stride) = (s, d);
        for &(cs, cd) in &a[..a.len() - 1] {
            if cs % rest_stride != 0 && rest_stride % cs != 0 {
                return Err(LayoutError::Unsupported(format!(
                    "composition violates the stride divisibility condition: stride {d} against a \
                     mode boundary {cs} of the coalesced left layout"
                )));
            }
            let next_shape = ceil_div(cs, rest_stride);
            let next_stride = ceil_div(rest_stride, cs);
            if next_shape == 1 || rest_shape == 1 {
                rest_stride = next_stride;
                continue;
            }
            let new_shape = next_shape.min(rest_shape);
            if rest_shape % new_shape != 0 {
                return Err(LayoutError::Unsupported(format!(
                    "composition violates the shape divisibility condition: {new_shape} does not divide {rest_shape}"
                )));
            }
            modes.push((new_shape, rest_stride.checked_mul(cd).ok_or(LayoutError::Overflow)?));
            rest_shape /= new_shape;
            rest_stride = next_stride;
        }
        let last = a[a.len() - 1].1;
        modes.push((rest_shape, rest_stride.checked_mul(last).ok_or(LayoutError::Overflow)?));
        Ok(Self::from_modes(&modes)?.coalesce())
    }

    fn compose_tree(a: &[(i64, i64)], bs: &IntTuple, bd: &IntTuple) -> Result<RefLayout, LayoutError> {
        match (bs, bd) {
            (IntTuple::Int(s), IntTuple::Int(d)) => Self::compose_leaf(a, *s, *d),
            (IntTuple::Tuple(ss), IntTuple::Tuple(dd)) => {
                let parts = ss
                    .iter()
                    .zip(dd)
                    .map(|(s, d)| Self::compose_tree(a, s, d))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(RefLayout {
                    shape: IntTuple::Tuple(parts.iter().map(|p| p.shape.clone()).collect()),
                    stride: IntTuple::Tuple(parts.into_iter().map(|p| p.stride).collect()),
                })
            }
            _ => Err(LayoutError::Unsupported("shape and stride are not congruent".into())),
        }
    }

    /// Group composition `R = self ∘ b` (CuTe paper §3.3): `R` has `b`'s shape hierarchy and
    /// `R(i) = self(b(i))` for every `i < |b|` (with `self`'s extended domain).
    ///
    /// Each leaf of `b` is composed by the base case (after coalescing and truncating `self`);
    /// `Unsupported` when a divisibility condition fails. Distributing over `b`'s leaves (CuTe
    /// Eq. (23)) is proved when the leaves add without carries in `self`'s mixed radix
    /// ([`distributes`]); otherwise the result is checked by enumeration (when
    /// `|b| ≤ VERIFY_LIMIT`) and refused if it differs. Debug builds also re-check proved results.
    pub fn compose(&self, b: &RefLayout) -> Result<RefLayout, LayoutError> {
        self.validate()?;
        b.validate()?;
        let a = self.coalesce_ext();
        let r = Self::compose_tree(&a, &b.shape, &b.stride)?;
        r.validate()?;
        let live: Vec<(i64, i64)> = b.modes_flat().into_iter().filter(|&(s, d)| s > 1 && d != 0).collect();
        let provably = distributes(&a, &live);
        let n = b.size();
        // Where the leaves provably distribute, enumeration is only a self-check (debug builds
        // and tests); otherwise it decides, for right operands small enough to enumerate.
        if (!provably || cfg!(debug_assertions)) && n <= VERIFY_LIMIT {
            for i in 0..n {
                if r.eval(i)? != self.eval(b.eval(i)?)? {
                    return Err(LayoutError::Unsupported(format!(
                        "composition {self} ∘ {b} does not distribute over the right operand's modes"
                    )));
                }
            }
        } else if !provably {
            return Err(LayoutError::Unsupported(format!(
                "composition {self} ∘ {b}: the right operand's modes may carry into each other in the left operand's modes (CuTe paper Eq. 23), and it is too large to check element by element"
            )));
        }
        Ok(r)
    }

    /// Complement with respect to `cotarget` (CuTe paper §3.5): a layout `L*` whose images are
    /// disjoint from `L`'s (except at 0), strictly increasing, and whose size reaches `cotarget`:
    /// the modes of `L` sorted by stride, each gap `d_i / current` filled by a mode of stride
    /// `current`, then a final mode `(⌈cotarget / current⌉, current)`. Shape-1 gap modes are
    /// dropped; the final mode is kept (so `complement((4,8):(1,4), 1) = 1:32`, as in Table 7).
    ///
    /// `Unsupported` for negative strides or a non-injective `L` (overlapping modes).
    pub fn complement(&self, cotarget: i64) -> Result<RefLayout, LayoutError> {
        self.validate()?;
        let mut modes: Vec<(i64, i64)> = self
            .modes_flat()
            .into_iter()
            .filter(|&(s, d)| s > 1 && d != 0)
            .collect();
        if modes.iter().any(|&(_, d)| d < 0) {
            return Err(LayoutError::Unsupported("complement needs non-negative strides".into()));
        }
        modes.sort_by_key(|&(s, d)| (d, s));
        let mut out: Vec<(i64, i64)> = Vec::new();
        let mut current: i64 = 1;
        for (s, d) in modes {
            let gap = d / current;
            if gap == 0 {
                return Err(LayoutError::Unsupported(format!(
                    "complement of {self}: the layout is not injective (modes overlap at stride {d})"
                )));
            }
            if gap > 1 {
                out.push((gap, current));
            }
            current = s.checked_mul(d).ok_or(LayoutError::Overflow)?;
        }
        // ⌈cotarget / current⌉ without the overflow of `cotarget + current - 1`.
        let last = if cotarget > current {
            cotarget / current + i64::from(cotarget % current != 0)
        } else {
            1
        };
        out.push((last, current));
        Self::from_modes(&out)
    }

    /// Right inverse (CuTe paper §3.4.1, Table 5): the largest `R` with `L(R(k)) = k` for `k < |R|`,
    /// built by following the strides 1, `s_0·d_0`, … of the coalesced layout; `1:0` when no
    /// mode has stride 1.
    pub fn right_inverse(&self) -> Result<RefLayout, LayoutError> {
        self.validate()?;
        let c = self.coalesce().modes_flat();
        let mut weights = Vec::with_capacity(c.len());
        let mut w: i64 = 1;
        for &(s, _) in &c {
            weights.push(w);
            w = w.checked_mul(s).ok_or(LayoutError::Overflow)?;
        }
        let mut used = vec![false; c.len()];
        let mut out = Vec::new();
        let mut current: i64 = 1;
        while let Some(i) = (0..c.len()).find(|&i| !used[i] && c[i].0 > 1 && c[i].1 == current) {
            used[i] = true;
            out.push((c[i].0, weights[i]));
            current = c[i].0.checked_mul(c[i].1).ok_or(LayoutError::Overflow)?;
        }
        Self::from_modes(&out)
    }

    /// Left inverse (CuTe paper §3.4.3, Table 6): `L†` with `L(L†(L(k))) = L(k)` for all `k < |L|`.
    /// The offsets are unflattened in the radix of `L`'s modes sorted by stride
    /// (`d_0, d_1/d_0, …, s_last`); each digit is sent to its mode's logical weight. A leading
    /// mode `d_0 : 0` absorbs a first stride above 1; stride-0 modes are skipped.
    ///
    /// `Unsupported` when the sorted strides do not divide each other or a mode overlaps the next
    /// (`d_{j+1} / d_j < s_j`), or for negative strides.
    pub fn left_inverse(&self) -> Result<RefLayout, LayoutError> {
        self.validate()?;
        let c = self.coalesce().modes_flat();
        let mut modes = Vec::new();
        let mut w: i64 = 1;
        for &(s, d) in &c {
            if d < 0 {
                return Err(LayoutError::Unsupported(
                    "left inverse needs non-negative strides".into(),
                ));
            }
            if s > 1 && d != 0 {
                modes.push((s, d, w));
            }
            w = w.checked_mul(s).ok_or(LayoutError::Overflow)?;
        }
        if modes.is_empty() {
            return Self::from_modes(&[(1, 0)]);
        }
        modes.sort_by_key(|&(s, d, _)| (d, s));
        let mut out = Vec::new();
        if modes[0].1 > 1 {
            out.push((modes[0].1, 0));
        }
        for j in 0..modes.len() - 1 {
            let (s, d, w) = modes[j];
            let dn = modes[j + 1].1;
            if dn % d != 0 || dn / d < s {
                return Err(LayoutError::Unsupported(format!(
                    "no left inverse for {self}: strides {d} and {dn} do not nest"
                )));
            }
            out.push((dn / d, w));
        }
        let (s, _, w) = modes[modes.len() - 1];
        out.push((s, w));
        Self::from_modes(&out)
    }

    /// Logical divide `A ⊘ B = A ∘ (B, B*_{|A|})` (CuTe paper §3.5.2), a rank-2 layout (tile, rest).
    pub fn logical_divide(&self, b: &RefLayout) -> Result<RefLayout, LayoutError> {
        self.validate()?;
        // Coalescing B* is safe here: the tiler (B, B*) is only evaluated inside its domain.
        let comp = b.complement(self.size())?.coalesce();
        let tiler = RefLayout {
            shape: IntTuple::Tuple(vec![b.shape.clone(), comp.shape]),
            stride: IntTuple::Tuple(vec![b.stride.clone(), comp.stride]),
        };
        self.compose(&tiler)
    }

    /// Logical product `A ⊗ B = (A, A* ∘ B)` with `A* = complement(A, |A|·cosize(B))`
    /// (CuTe paper §3.5.1), a rank-2 layout (tile, grid).
    pub fn logical_product(&self, b: &RefLayout) -> Result<RefLayout, LayoutError> {
        self.validate()?;
        b.validate()?;
        let target = self.size().checked_mul(b.cosize()?).ok_or(LayoutError::Overflow)?;
        // Not coalesced: B's image may exceed |A*|, and the extension stride of A*'s last mode
        // is what keeps the copies of A disjoint.
        let grid = self.complement(target)?.compose(b)?;
        RefLayout::new(
            IntTuple::Tuple(vec![self.shape.clone(), grid.shape]),
            IntTuple::Tuple(vec![self.stride.clone(), grid.stride]),
        )
    }
}

/// `⌈a / b⌉` for `a ≥ 0`, `b > 0`, without the overflow of `(a + b - 1) / b`.
fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

/// Whether composing the coalesced flat layout `a` with the right operand's leaves (`live`:
/// shape > 1, stride ≠ 0) distributes over them: `a(Σ i_k d_k) = Σ a(i_k d_k)`. `a` is linear
/// in the digits of its mixed radix (the last mode unbounded, the extended domain), so it
/// distributes when the leaves' values add without carries: for every bounded digit `j`, the
/// largest digit `j` of any value `i · d_k` (`i < s_k`), summed over the leaves, stays below the
/// mode's size. (Segregated images alone are not enough: `(3,8,8):(1,1,0) ∘ ((2,2)):((1,2))`
/// carries out of the first mode at index 3.) Leaves of more than [`DISTRIBUTE_LIMIT`] values
/// are not examined: then only a single leaf is proved.
pub(super) fn distributes(a: &[(i64, i64)], live: &[(i64, i64)]) -> bool {
    if live.len() <= 1 {
        return true;
    }
    if live.iter().any(|&(s, d)| d < 0 || s > DISTRIBUTE_LIMIT) {
        return false;
    }
    let n = a.len();
    // Mode boundaries P_0 = 1, P_j = S_0 ⋯ S_{j-1}; the last mode is unbounded.
    let mut bounds: Vec<i128> = Vec::with_capacity(n);
    let mut acc: i128 = 1;
    for &(s, _) in a {
        bounds.push(acc);
        acc = acc.saturating_mul(s as i128);
    }
    let mut total = vec![0i128; n.saturating_sub(1)];
    for &(s, d) in live {
        let mut most = vec![0i128; total.len()];
        for i in 0..s as i128 {
            let v = i * d as i128;
            for (j, m) in most.iter_mut().enumerate() {
                *m = (*m).max((v / bounds[j]) % a[j].0 as i128);
            }
        }
        for (j, m) in most.into_iter().enumerate() {
            total[j] += m;
            if total[j] >= a[j].0 as i128 {
                return false;
            }
        }
    }
    true
}

/// The most values of one leaf [`distributes`] examines.
pub(super) const DISTRIBUTE_LIMIT: i64 = 1 << 12;
