//! Slicing `L[R:S]` (Axe paper §3.3 and Appendix E, Algorithm 4), with the paper's errata
//! fixed:
//!
//! * the early exit after peeling fires on `rem = 1` (the typeset `rem = 0` never fires);
//! * the one-wrap form needs the *strict* immediate-left capacity `d_{k-1} + 1 < E_{k-1}`
//!   (with `≤`, `(2, 2, 4) : (1@warp, 8, 1)`, shape 16, region 6:10 yields a wrong layout);
//! * the one-wrap stride `Δ = S_{k-1}@a_{k-1} - (E_k - c) S_k@a_k` must be a legal iter stride:
//!   it is refused when it spans two axes (`(2, 4) : (1@warp, 1)`, region 2:6) or is zero
//!   (`(3, 4) : (2, 1)`, region 2:6).
//!
//! The shard is first grouped by the logical shape `S` (split/fuse, after dropping unit iters and
//! merging chains, which is the paper's standing "canonicalized blocks" assumption); each block is
//! sliced independently on its own dimension's interval and the blocks are concatenated. The
//! offset of the result is `O* = f_{L<S>}(b)`, the region origin; the replica is unchanged.
//!
//! Both sufficient forms (Lemma E.1 no-wrap, Lemma E.2 symmetric one-wrap) are constructive and
//! proved; in debug builds (and so in every test) each answer whose region has at most
//! [`VERIFY_LIMIT`] elements is also checked against brute-force evaluation before it is
//! returned. Release builds skip that self-check: it made slicing cost grow with tensor sizes.

use std::collections::VecDeque;

use crate::error::LayoutError;
use crate::eval::{flatten, unflatten};
use crate::layout::{checked_product, Axis, Iter, Layout, Point};

/// In debug builds, regions with at most this many elements are re-checked by enumeration.
pub const VERIFY_LIMIT: i64 = 1 << 16;

/// Drop unit iters (D0) and merge adjacent chains (D1): `(e1, s1@a), (e2, s2@a)` with
/// `s1 = e2·s2` become `(e1·e2, s2@a)`. The induced map is unchanged.
pub(crate) fn merge_chains(iters: &[Iter]) -> Result<Vec<Iter>, LayoutError> {
    let mut out: Vec<Iter> = Vec::new();
    for it in iters.iter().filter(|i| i.extent != 1) {
        if let Some(last) = out.last_mut() {
            if last.axis == it.axis && it.extent.checked_mul(it.stride) == Some(last.stride) {
                last.extent = last.extent.checked_mul(it.extent).ok_or(LayoutError::Overflow)?;
                last.stride = it.stride;
                continue;
            }
        }
        out.push(it.clone());
    }
    Ok(out)
}

/// Group a shard by an admitted `shape` (paper §3.3 / App. B): split iters (Lemma B.1) so that
/// consecutive blocks have extent products `shape[i]`. Unit iters are dropped and chains merged
/// first (the errata of Algorithm 1), so a grouping is found whenever one exists. A block for a
/// unit dimension is empty. The caller must have checked that `shape` is admitted.
pub(crate) fn group_blocks(shard: &[Iter], shape: &[i64]) -> Result<Vec<Vec<Iter>>, LayoutError> {
    let mut queue: VecDeque<Iter> = merge_chains(shard)?.into();
    let mut blocks = Vec::with_capacity(shape.len());
    for &s in shape {
        let mut need = s;
        let mut block = Vec::new();
        while need > 1 {
            let it = queue.pop_front().ok_or_else(|| LayoutError::ShapeNotAdmitted {
                shape: shape.to_vec(),
                size: checked_product(shard.iter().map(|i| i.extent)).unwrap_or(-1),
            })?;
            if need % it.extent == 0 {
                need /= it.extent;
                block.push(it);
            } else if it.extent % need == 0 {
                let rest = it.extent / need;
                let outer = it.stride.checked_mul(rest).ok_or(LayoutError::Overflow)?;
                block.push(Iter {
                    extent: need,
                    stride: outer,
                    axis: it.axis.clone(),
                });
                queue.push_front(Iter {
                    extent: rest,
                    stride: it.stride,
                    axis: it.axis,
                });
                need = 1;
            } else {
                return Err(LayoutError::Unsupported(format!(
                    "the shard does not group by shape {shape:?}: an iter of extent {} straddles the \
                     boundary of a dimension of size {s}",
                    it.extent
                )));
            }
        }
        blocks.push(block);
    }
    Ok(blocks)
}

/// Add `v` to `p[axis]`, checked.
fn add_to(p: &mut Point, axis: &crate::layout::Axis, v: i64) -> Result<(), LayoutError> {
    let e = p.entry(axis.clone()).or_insert(0);
    *e = e.checked_add(v).ok_or(LayoutError::Overflow)?;
    Ok(())
}

/// Algorithm 4 on one canonicalized block: the iters (slow → fast) realizing the block on the
/// 1-D interval `[b, b + t)` of its domain, relative to the value at `b` (the caller puts
/// `f(b)` into the offset).
fn slice_block(blk: &[Iter], b: i64, t: i64) -> Result<Vec<Iter>, LayoutError> {
    let ext: Vec<i64> = blk.iter().map(|i| i.extent).collect();
    let d0 = unflatten(b, &ext);
    let mut peeled: VecDeque<Iter> = VecDeque::new();
    let mut rem = t;
    let mut pivot = None;
    for j in (0..blk.len()).rev() {
        if rem == 1 {
            break; // errata: the early exit is `rem = 1`
        }
        if d0[j] == 0 && rem % ext[j] == 0 {
            peeled.push_front(blk[j].clone());
            rem /= ext[j];
        } else {
            pivot = Some(j);
            break;
        }
    }
    if rem == 1 {
        return Ok(peeled.into());
    }
    let k = pivot.ok_or_else(|| LayoutError::Unsupported("slice region exceeds its block (internal error)".into()))?;
    let (ek, sk, ak) = (blk[k].extent, blk[k].stride, &blk[k].axis);
    let mut out = Vec::with_capacity(peeled.len() + 2);
    if d0[k] + rem <= ek {
        // Lemma E.1: no wrap at the pivot.
        out.push(Iter {
            extent: rem,
            stride: sk,
            axis: ak.clone(),
        });
    } else if rem % 2 == 0 && d0[k] + rem / 2 == ek {
        // Lemma E.2: symmetric one-wrap, with the errata's strict capacity.
        let c = rem / 2;
        if k > 0 && d0[k - 1] + 1 >= ext[k - 1] {
            return Err(LayoutError::Unsupported(format!(
                "no slice layout: the region wraps digit {k} once, and the carry into digit {} \
                 (value {} of extent {}) propagates further (Lemma E.2 needs d_(k-1) + 1 < E_(k-1))",
                k - 1,
                d0[k - 1],
                ext[k - 1]
            )));
        }
        // Δ = S_{k-1}@a_{k-1} - (E_k - c)·S_k@a_k, as a point; it must sit on one axis.
        let mut delta = Point::new();
        if k > 0 {
            add_to(&mut delta, &blk[k - 1].axis, blk[k - 1].stride)?;
        }
        let back = (ek - c).checked_mul(sk).ok_or(LayoutError::Overflow)?;
        add_to(&mut delta, ak, back.checked_neg().ok_or(LayoutError::Overflow)?)?;
        delta.retain(|_, v| *v != 0);
        if delta.len() != 1 {
            return Err(LayoutError::Unsupported(if delta.is_empty() {
                "no slice layout: the one-wrap step Δ is zero (the two halves of the region alias), \
                 and an iter stride must be non-zero"
                    .to_string()
            } else {
                format!(
                    "no slice layout: the one-wrap step Δ spans two axes ({}), but an iter has one axis",
                    delta
                        .iter()
                        .map(|(a, v)| format!("{v}@{a}"))
                        .collect::<Vec<_>>()
                        .join(" + ")
                )
            }));
        }
        let (axis, stride) = delta.into_iter().next().ok_or(LayoutError::ZeroStride)?;
        out.push(Iter {
            extent: 2,
            stride,
            axis,
        });
        out.push(Iter {
            extent: c,
            stride: sk,
            axis: ak.clone(),
        });
    } else {
        return Err(LayoutError::Unsupported(format!(
            "no slice layout: the region [{b}, {}) of a block with extents {ext:?} starts at digit \
             {} of extent {ek} and needs {rem} steps there, which neither the no-wrap nor the \
             symmetric one-wrap form covers",
            b + t,
            d0[k]
        )));
    }
    out.extend(peeled);
    Ok(out)
}

impl Layout {
    /// `L[R:S]`: the layout of the sub-tensor `region` (half-open `[lo, hi)` per dimension of the
    /// admitted logical `shape`). The result admits the region's shape `(hi - lo, …)` and
    /// satisfies `f_{L[R:S]<T>}(u) = f_{L<S>}(u + lo)` (paper §3.3). Its offset includes the
    /// value at the region origin; its replica is `L`'s.
    ///
    /// Errors: `ShapeNotAdmitted` / `OutOfBounds` for a bad shape or region, `Unsupported` when
    /// the shard does not group by `shape` or when no sufficient form of Theorem E.3 applies
    /// (the slice may then still exist, but this algorithm does not find it), `Overflow`.
    pub fn slice(&self, shape: &[i64], region: &[(i64, i64)]) -> Result<Layout, LayoutError> {
        self.validate()?;
        self.check_admits(shape)?;
        let bad = || LayoutError::OutOfBounds {
            coord: region.iter().flat_map(|&(l, h)| [l, h]).collect(),
            shape: shape.to_vec(),
        };
        if region.len() != shape.len() {
            return Err(bad());
        }
        for (&(lo, hi), &s) in region.iter().zip(shape) {
            if lo < 0 || hi > s || lo >= hi {
                return Err(bad());
            }
        }
        let blocks = group_blocks(&self.shard, shape)?;
        let start: Vec<i64> = region.iter().map(|r| r.0).collect();
        let b_flat = flatten(&start, shape)?;
        let mut offset = self.offset.clone();
        for (a, v) in self.shard_point(b_flat) {
            add_to(&mut offset, &a, v)?;
        }
        offset.retain(|_, v| *v != 0);
        let mut shard = Vec::new();
        for (blk, &(lo, hi)) in blocks.iter().zip(region) {
            shard.extend(slice_block(blk, lo, hi - lo)?);
        }
        if shard.is_empty() {
            shard.push(Iter::mem(1, 1));
        }
        let out = Layout::new(shard, self.replica.clone(), offset)?;
        // The construction is proved (Lemmas E.1-E.3); re-checking it by enumeration is a
        // self-check for debug builds and tests, not work for release builds.
        if cfg!(debug_assertions) {
            verify_slice(self, shape, region, &out)?;
        } else if out.size() != checked_product(region.iter().map(|&(lo, hi)| hi - lo))? {
            return Err(LayoutError::Unsupported(
                "slice construction has the wrong size (internal error)".into(),
            ));
        }
        Ok(out)
    }
}

/// Re-check a slice by enumeration when the region is small (the shard and offset suffice: the
/// replica is shared). A mismatch is an internal error, reported rather than returned.
fn verify_slice(l: &Layout, shape: &[i64], region: &[(i64, i64)], out: &Layout) -> Result<(), LayoutError> {
    let t: Vec<i64> = region.iter().map(|&(lo, hi)| hi - lo).collect();
    let n = checked_product(t.iter().copied())?;
    if n > VERIFY_LIMIT || out.size() != n {
        return if out.size() == n {
            Ok(())
        } else {
            Err(LayoutError::Unsupported(
                "slice construction has the wrong size (internal error)".into(),
            ))
        };
    }
    for u in 0..n {
        let uc = unflatten(u, &t);
        let orig: Vec<i64> = uc.iter().zip(region).map(|(&x, &(lo, _))| x + lo).collect();
        let mut want = l.shard_point(flatten(&orig, shape)?);
        for (a, v) in &l.offset {
            add_to(&mut want, a, *v)?;
        }
        want.retain(|_, v| *v != 0);
        let mut got = out.shard_point(u);
        for (a, v) in &out.offset {
            add_to(&mut got, a, *v)?;
        }
        got.retain(|_, v| *v != 0);
        if got != want {
            return Err(LayoutError::Unsupported(format!(
                "slice construction disagrees with the layout at region coordinate {uc:?} \
                 (internal error, refused)"
            )));
        }
    }
    Ok(())
}

/// A layout cut into equal tiles: per dimension `d`, the coordinate `x_d` is split into a tile
/// index `x_d / size_d` and a position `x_d % size_d`. Grouping the layout by the interleaved
/// shape `(S_0 / size_0, size_0, …)` separates the iters of both, so the layout of *any*
/// tile-aligned region `[t·size, (t+1)·size)` is the same `inner` layout, moved by the offset the
/// `outer` iters give the tile index `t` — what a slice with a run-time origin needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TiledRegion {
    /// The layout of every tile (shard: the position iters, dimension by dimension; replica and
    /// offset: the source's).
    pub inner: Layout,
    /// Per dimension, the iters of the tile index (slowest first); empty for a full dimension.
    pub outer: Vec<Vec<crate::Iter>>,
}

impl Layout {
    /// The tiling of `shape` into regions of `sizes` (each dividing its dimension), or
    /// `Unsupported` when the layout does not separate tile index and position (no grouping by
    /// the interleaved shape exists).
    pub fn tiled_region(&self, shape: &[i64], sizes: &[i64]) -> Result<TiledRegion, LayoutError> {
        if shape.len() != sizes.len() {
            return Err(LayoutError::Unsupported(format!(
                "region of rank {} for a shape of rank {}",
                sizes.len(),
                shape.len()
            )));
        }
        let mut interleaved = Vec::with_capacity(2 * shape.len());
        for (&s, &z) in shape.iter().zip(sizes) {
            if z <= 0 || s % z != 0 {
                return Err(LayoutError::Unsupported(format!(
                    "tile size {z} does not divide the dimension of size {s}"
                )));
            }
            interleaved.push(s / z);
            interleaved.push(z);
        }
        let g = self.group(&interleaved)?;
        let mut inner = Vec::new();
        let mut outer = Vec::with_capacity(shape.len());
        for d in 0..shape.len() {
            outer.push(g.groups[2 * d].clone().map(|i| g.layout.shard[i].clone()).collect());
            inner.extend(g.groups[2 * d + 1].clone().map(|i| g.layout.shard[i].clone()));
        }
        let inner = Layout::new(inner, g.layout.replica.clone(), g.layout.offset.clone())?;
        Ok(TiledRegion { inner, outer })
    }

    /// The layout of `shape` with dimension `dim` extended to `extent` (at least `shape[dim]`)
    /// by growing the dimension's outermost iter: the same map on every coordinate of `shape`,
    /// continued along that iter's stride beyond it. This is how the partial last tile of a
    /// `{clip}` slice is laid out (its elements past the tensor are never accessed). Unsupported
    /// when the outermost iter cannot cover the extension: the rest of the dimension (its other
    /// iters) must divide `extent`; a dimension of size 1 has no iter to grow.
    pub fn padded(&self, shape: &[i64], dim: usize, extent: i64) -> Result<Layout, LayoutError> {
        let size = *shape
            .get(dim)
            .ok_or_else(|| LayoutError::Unsupported(format!("dimension {dim} of a shape of rank {}", shape.len())))?;
        if extent < size {
            return Err(LayoutError::Unsupported(format!(
                "cannot pad dimension {dim} of size {size} down to {extent}"
            )));
        }
        if extent == size {
            return Ok(self.clone());
        }
        let g = self.group(shape)?;
        let range = g.groups[dim].clone();
        let Some(first) = g.layout.shard.get(range.start).filter(|_| !range.is_empty()) else {
            // A dimension of size 1 has no iter (canonical layouts drop unit iters): give it one
            // that steps past everything the layout reaches on the memory axis, so the padded
            // rows never alias the tensor's own elements (they are never accessed anyway).
            let memory = Axis::memory();
            if g.layout.shard.iter().chain(&g.layout.replica).any(|i| i.axis != memory) {
                return Err(LayoutError::Unsupported(format!(
                    "dimension {dim} of {self} has size 1 and the layout is not in memory: no iter to extend to {extent}"
                )));
            }
            let reach = g
                .layout
                .shard
                .iter()
                .map(|i| i.stride.abs().checked_mul(i.extent).ok_or(LayoutError::Overflow))
                .try_fold(1i64, |a, r| r.map(|r| a.max(r)))?;
            let mut shard = g.layout.shard.clone();
            shard.insert(range.start, Iter::new(extent, reach, memory));
            return Layout::new(shard, g.layout.replica.clone(), g.layout.offset.clone());
        };
        let rest = size / first.extent;
        if extent % rest != 0 {
            return Err(LayoutError::Unsupported(format!(
                "dimension {dim} of {self} (size {size}) cannot be extended to {extent}: its outermost iter has extent {} and the rest of the dimension ({rest}) does not divide {extent}",
                first.extent
            )));
        }
        let mut shard = g.layout.shard.clone();
        shard[range.start].extent = extent / rest;
        Layout::new(shard, g.layout.replica.clone(), g.layout.offset.clone())
    }

    /// The axis and stride of dimension `dim` of `shape` when the dimension is one arithmetic
    /// progression on one axis: element `i` of the dimension lies `i * stride` along the axis
    /// from element 0, every other coordinate fixed. A window of the dimension at any origin
    /// (`axe.slice ... [%o : +size until %end]`) then has one layout, moved by
    /// `origin * stride`. Unsupported when the dimension's iters (grouped from the canonical
    /// shard, Algorithm 1) are on several axes or do not continue each other's strides, and
    /// for a dimension of size 1 (nothing to move along).
    pub fn dimension_stride(&self, shape: &[i64], dim: usize) -> Result<(Axis, i64), LayoutError> {
        let g = self.group(shape)?;
        let range =
            g.groups.get(dim).cloned().ok_or_else(|| {
                LayoutError::Unsupported(format!("dimension {dim} of a shape of rank {}", shape.len()))
            })?;
        let iters: Vec<&Iter> = g.layout.shard[range].iter().filter(|it| it.extent > 1).collect();
        let Some(inner) = iters.last() else {
            return Err(LayoutError::Unsupported(format!(
                "dimension {dim} of {self} has size 1: a window has nothing to move along"
            )));
        };
        for w in iters.windows(2) {
            let (outer, next) = (w[0], w[1]);
            if outer.axis != next.axis || Some(outer.stride) != next.stride.checked_mul(next.extent) {
                return Err(LayoutError::Unsupported(format!(
                    "dimension {dim} of {self} is not one stride: its iters ({}, {}@{}) and ({}, {}@{}) do not continue each other",
                    outer.extent, outer.stride, outer.axis, next.extent, next.stride, next.axis
                )));
            }
        }
        Ok((inner.axis.clone(), inner.stride))
    }

    /// `tiled_region` for tiles that may end past the tensor (a `{clip}` slice): every
    /// dimension that `sizes` does not divide is first padded up to whole tiles
    /// ([`Layout::padded`]). Returns the tiling and the padded shape.
    pub fn tiled_region_clipped(&self, shape: &[i64], sizes: &[i64]) -> Result<(TiledRegion, Vec<i64>), LayoutError> {
        if shape.len() != sizes.len() {
            return Err(LayoutError::Unsupported(format!(
                "region of rank {} for a shape of rank {}",
                sizes.len(),
                shape.len()
            )));
        }
        let mut layout = self.clone();
        let mut padded = shape.to_vec();
        for d in 0..shape.len() {
            let (s, z) = (shape[d], sizes[d]);
            if z <= 0 {
                return Err(LayoutError::Unsupported(format!("tile size {z} in dimension {d}")));
            }
            if s % z != 0 {
                let whole = (s / z + 1).checked_mul(z).ok_or(LayoutError::Overflow)?;
                layout = layout.padded(&padded, d, whole)?;
                padded[d] = whole;
            }
        }
        let t = layout.tiled_region(&padded, sizes)?;
        Ok((t, padded))
    }
}

#[cfg(test)]
mod tiled_region_tests {
    use super::*;

    /// Oracle: for every tile-aligned origin, the region's points are the inner layout's
    /// points moved by the outer iters evaluated at the tile index (brute force over L).
    fn check(l: &Layout, shape: &[i64], sizes: &[i64]) {
        let t = l.tiled_region(shape, sizes).unwrap();
        t.inner.check_admits(sizes).unwrap();
        let tiles: Vec<i64> = shape.iter().zip(sizes).map(|(s, z)| s / z).collect();
        for tf in 0..tiles.iter().product::<i64>() {
            let ti = crate::eval::unflatten(tf, &tiles);
            let mut shift = crate::Point::new();
            for (d, its) in t.outer.iter().enumerate() {
                let digits = crate::eval::unflatten(ti[d], &its.iter().map(|i| i.extent).collect::<Vec<_>>());
                for (it, dg) in its.iter().zip(digits) {
                    *shift.entry(it.axis.clone()).or_insert(0) += dg * it.stride;
                }
            }
            for x in 0..t.inner.size() {
                let pos = crate::eval::unflatten(x, sizes);
                let coord: Vec<i64> = (0..shape.len()).map(|d| ti[d] * sizes[d] + pos[d]).collect();
                let want = l.eval_set(&coord, shape).unwrap();
                let mut got: Vec<crate::Point> = t
                    .inner
                    .eval_set_flat(x)
                    .unwrap()
                    .into_iter()
                    .map(|mut p| {
                        for (a, v) in &shift {
                            *p.entry(a.clone()).or_insert(0) += v;
                        }
                        p.retain(|_, v| *v != 0);
                        p
                    })
                    .collect();
                got.sort();
                assert_eq!(got, want, "tile {ti:?} position {pos:?} of {l}");
            }
        }
    }

    #[test]
    fn row_major_tiles() {
        check(&Layout::parse("(64, 64) : (64, 1)").unwrap(), &[64, 64], &[16, 32]);
        check(&Layout::parse("(64, 64) : (64, 1)").unwrap(), &[64, 64], &[64, 8]);
        let t = Layout::parse("(4096, 4096) : (4096, 1)")
            .unwrap()
            .tiled_region(&[4096, 4096], &[128, 32])
            .unwrap();
        assert_eq!(t.inner.to_string(), "(128, 32) : (4096, 1)");
        assert_eq!(t.outer[0], vec![Iter::mem(32, 524288)]);
        assert_eq!(t.outer[1], vec![Iter::mem(128, 32)]);
    }

    #[test]
    fn distributed_and_replicated_tiles() {
        check(
            &Layout::parse("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp").unwrap(),
            &[8, 16],
            &[4, 8],
        );
        check(&Layout::parse("(16, 8) : (1, 16)").unwrap(), &[16, 8], &[8, 4]);
    }

    /// Padding keeps the map on the original shape (brute force over every coordinate), and
    /// the clipped tiling of the padded layout is a tiling (the oracle above).
    #[test]
    fn padded_layouts_agree_on_the_original_shape() {
        let cases: [(&str, &[i64], usize, i64); 7] = [
            ("(1000, 64) : (64, 1)", &[1000, 64], 0, 1024),
            // A dimension of size 1 (a batch of one row): a new iter past the layout's reach.
            ("(1, 4) : (4, 1)", &[1, 4], 0, 64),
            ("(3, 1, 4) : (8, 4, 1)", &[3, 1, 4], 1, 2),
            ("(1000, 64) : (64, 1)", &[1000, 64], 1, 96),
            ("(10, 48) : (1, 10)", &[10, 48], 1, 64),
            ("(6, 2, 5) : (10, 1, 2)", &[12, 5], 0, 16),
            ("(7, 3) : (3@warp, 1)", &[7, 3], 0, 8),
        ];
        for (text, shape, dim, extent) in cases {
            let l = Layout::parse(text).unwrap();
            let p = l.padded(shape, dim, extent).unwrap();
            let mut big = shape.to_vec();
            big[dim] = extent;
            p.check_admits(&big).unwrap();
            let n: i64 = shape.iter().product();
            for x in 0..n {
                let c = crate::eval::unflatten(x, shape);
                assert_eq!(
                    p.eval_set(&c, &big).unwrap(),
                    l.eval_set(&c, shape).unwrap(),
                    "{text} at {c:?}"
                );
            }
        }
        let (t, padded) = Layout::parse("(1000, 1000) : (1000, 1)")
            .unwrap()
            .tiled_region_clipped(&[1000, 1000], &[128, 256])
            .unwrap();
        assert_eq!(padded, vec![1024, 1024]);
        assert_eq!(t.inner.to_string(), "(128, 256) : (1000, 1)");
        check(
            &Layout::parse("(1024, 1024) : (1000, 1)").unwrap(),
            &[1024, 1024],
            &[128, 256],
        );
    }

    #[test]
    fn padding_refused_where_no_iter_extends() {
        // Dimension 0 is (x / 2) on stride 10 and (x % 2) on stride 1: 12 -> 15 is not 2 k.
        assert!(Layout::parse("(6, 2, 5) : (10, 1, 2)")
            .unwrap()
            .padded(&[12, 5], 0, 15)
            .is_err());
        // A size-1 dimension of a register layout has no memory stride to step past.
        assert!(Layout::parse("(1, 4) : (4, 1@lane)")
            .unwrap()
            .padded(&[1, 4], 0, 2)
            .is_err());
        assert!(Layout::parse("(4) : (1)").unwrap().padded(&[4], 0, 3).is_err());
    }

    /// Oracle for `dimension_stride`: brute force over every coordinate of the shape, the
    /// points of coordinate `i` along `dim` are those of coordinate 0 moved by `i * stride`.
    fn is_progression(l: &Layout, shape: &[i64], dim: usize) -> Option<(Axis, i64)> {
        let at = |c: &[i64]| l.eval_set(c, shape).unwrap();
        let mut c1 = vec![0i64; shape.len()];
        c1[dim] = 1;
        let (p0, p1) = (at(&vec![0; shape.len()]), at(&c1));
        // The step from element 0 to element 1: one axis, one stride.
        let step: Vec<(Axis, i64)> = p1[0]
            .iter()
            .filter_map(|(a, v)| {
                let d = v - p0[0].get(a).copied().unwrap_or(0);
                (d != 0).then(|| (a.clone(), d))
            })
            .collect();
        let [(axis, stride)] = step.as_slice() else { return None };
        let n: i64 = shape.iter().product();
        for x in 0..n {
            let c = crate::eval::unflatten(x, shape);
            let mut base = c.clone();
            base[dim] = 0;
            let want: Vec<crate::Point> = at(&base)
                .into_iter()
                .map(|mut p| {
                    *p.entry(axis.clone()).or_insert(0) += c[dim] * stride;
                    p.retain(|_, v| *v != 0);
                    p
                })
                .collect();
            let mut got = at(&c);
            got.iter_mut().for_each(|p| p.retain(|_, v| *v != 0));
            let mut want = want;
            got.sort();
            want.sort();
            if got != want {
                return None;
            }
        }
        Some((axis.clone(), *stride))
    }

    #[test]
    fn dimension_strides_agree_with_brute_force() {
        let cases: [(&str, &[i64]); 9] = [
            ("(64, 32) : (32, 1)", &[64, 32]),
            ("(64, 32) : (1, 64)", &[64, 32]),
            ("(4, 16, 8) : (8, 32, 1)", &[64, 8]),
            ("(2, 8, 4) : (4, 8, 1)", &[16, 4]),
            ("(6, 2, 5) : (10, 1, 2)", &[12, 5]),
            ("(8, 4) : (4@warp, 1)", &[8, 4]),
            ("(4, 2, 4) : (1@lane, 4@lane, 1)", &[8, 4]),
            ("(16, 8) : (8, 1) + [(2) : (1@warp)] + 3", &[16, 8]),
            ("(2, 3, 4) : (12, 4, 1)", &[6, 4]),
        ];
        let mut seen = [0; 2];
        for (text, shape) in cases {
            let l = Layout::parse(text).unwrap();
            for dim in 0..shape.len() {
                let got = l.dimension_stride(shape, dim).ok();
                assert_eq!(got, is_progression(&l, shape, dim), "{text} dimension {dim}");
                seen[usize::from(got.is_some())] += 1;
            }
        }
        // Both answers are exercised.
        assert!(seen[0] >= 3 && seen[1] >= 8, "{seen:?}");
    }

    #[test]
    fn refused_when_tiles_straddle_iters() {
        // Index x is (x / 3, x % 3) on strides (1, 2): tiles of 2 cut through the 3-iter.
        assert!(Layout::parse("(2, 3) : (1, 2)")
            .unwrap()
            .tiled_region(&[6], &[2])
            .is_err());
        assert!(Layout::parse("(4) : (1)").unwrap().tiled_region(&[4], &[3]).is_err());
    }
}
