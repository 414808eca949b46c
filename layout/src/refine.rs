//! Common refinement: the mixed-radix digits an operator's iteration space runs over, and
//! where each digit moves each operand.
//!
//! Every operand's shard is cut into *factors* so that all operands (and the logical
//! dimensions) agree on a mixed-radix decomposition of the iteration space: a factor is one
//! digit `d ∈ [0, extent)` which, in each operand, moves along one hardware axis with one
//! stride (or not at all, for a broadcast/reduced operand). Then an element's coordinate on an
//! axis is `Σ d_k · stride_k + offset` (the paper's Def. 2.2 with the shard unflattened
//! lexicographically), so a code generator can compute a thread's dynamic part (its lane/warp
//! digits) once and fold every register's static part to a constant.
//!
//! Layouts that admit no common refinement (e.g. `(4, 3)` against `(3, 4)`) are refused.
//! [`refine`] cuts the shards as written (it does not merge iters first), so a layout whose
//! shard has mergeable neighbours may be refused where its canonical form would not be.

use crate::error::LayoutError;
use crate::layout::{Axis, Layout};

/// One operand of an iteration space: its layout, logical shape, and for each dimension of
/// the iteration space the operand's dimension that follows it (None: broadcast/reduced).
pub struct Operand<'a> {
    pub layout: &'a Layout,
    pub shape: Vec<i64>,
    pub dim_map: Vec<Option<usize>>,
}

/// Where one factor moves one operand: axis, stride, and the factor's weight in the
/// operand's own row-major flattened index (for the oracle check).
#[derive(Clone, Debug)]
pub struct Place {
    pub axis: Axis,
    pub stride: i64,
    pub own_weight: i64,
}

/// One digit of the common refinement.
#[derive(Clone, Debug)]
pub struct Factor {
    pub extent: i64,
    /// The iteration-space dimension the factor belongs to.
    pub dim: usize,
    /// Weight in the row-major flattened iteration space.
    pub weight: i64,
    /// Per operand, where the digit moves it (None: the operand does not depend on it).
    pub places: Vec<Option<Place>>,
}

/// A run of a shard: an iter with its weight in the flattened logical index.
#[derive(Clone, Debug)]
struct Piece {
    extent: i64,
    stride: i64,
    axis: Axis,
    weight: i64,
}

/// Row-major strides of `shape` (the weight of each dimension in the flattened index).
pub fn suffix_products(shape: &[i64]) -> Vec<i64> {
    let mut w = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        w[i] = w[i + 1] * shape[i + 1];
    }
    w
}

/// The shard iters with their weights in the flattened index (extent-1 iters dropped).
fn pieces(layout: &Layout) -> Vec<Piece> {
    let extents: Vec<i64> = layout.shard.iter().map(|i| i.extent).collect();
    let w = suffix_products(&extents);
    layout
        .shard
        .iter()
        .zip(w)
        .filter(|(i, _)| i.extent > 1)
        .map(|(i, w)| Piece {
            extent: i.extent,
            stride: i.stride,
            axis: i.axis.clone(),
            weight: w,
        })
        .collect()
}

/// Cuts pieces at every weight in `cuts` that falls strictly inside one (splitting an iter
/// preserves the map, the paper's Lemma B.1); None when a cut is not compatible (does not
/// divide the piece's range).
fn cut(ps: &[Piece], cuts: &[i64]) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    for p in ps {
        let (lo, hi) = (p.weight, p.weight * p.extent);
        let mut inner: Vec<i64> = cuts.iter().copied().filter(|&c| c > lo && c < hi).collect();
        inner.sort_unstable();
        inner.dedup();
        let mut bounds = vec![hi];
        for &c in inner.iter().rev() {
            if c % lo != 0 || hi % c != 0 {
                return None;
            }
            bounds.push(c);
        }
        bounds.push(lo);
        for w in bounds.windows(2) {
            out.push(Piece {
                extent: w[0] / w[1],
                stride: p.stride * (w[1] / lo),
                axis: p.axis.clone(),
                weight: w[1],
            });
        }
    }
    Some(out)
}

/// The common refinement of `operands` over the iteration space of shape `space`.
///
/// The factors come dimension by dimension (dimensions of extent 1 have none), each
/// dimension's from its most to its least significant digit. Every operand's shard (replica
/// and offset are not part of the refinement) is `Σ d_k · stride_k` over the factors placed
/// on it. Errors (all [`LayoutError::Unsupported`]): an operand whose layout size is not its
/// shape's, a shard that does not split along its shape's dimensions, a dimension whose
/// extent an operand does not share (other than 1), and layouts with no common mixed-radix
/// refinement.
pub fn refine(space: &[i64], operands: &[Operand]) -> Result<Vec<Factor>, LayoutError> {
    let unsupported = LayoutError::Unsupported;
    let full_w = suffix_products(space);
    // Per operand: pieces grouped by its own dimension, weights relative to that dimension.
    let mut per_dim: Vec<Vec<Vec<Piece>>> = Vec::new();
    for o in operands {
        let size: i64 = o.shape.iter().product();
        if o.layout.size() != size {
            return Err(unsupported(format!(
                "layout {} has {} elements, but its tensor has {size}",
                o.layout,
                o.layout.size()
            )));
        }
        let w = suffix_products(&o.shape);
        let ps = cut(&pieces(o.layout), &w).ok_or_else(|| {
            unsupported(format!(
                "layout {} does not split along the dimensions of shape {:?}",
                o.layout, o.shape
            ))
        })?;
        let mut dims: Vec<Vec<Piece>> = vec![Vec::new(); o.shape.len()];
        for p in ps {
            // `cut` split the pieces at the dimensions' boundaries, so each lies in one.
            let d = (0..o.shape.len())
                .find(|&d| p.weight >= w[d] && p.weight < w[d] * o.shape[d])
                .ok_or_else(|| {
                    unsupported(format!(
                        "internal: a piece of layout {} lies in no dimension of shape {:?}",
                        o.layout, o.shape
                    ))
                })?;
            dims[d].push(Piece {
                weight: p.weight / w[d],
                ..p
            });
        }
        per_dim.push(dims);
    }
    let mut factors = Vec::new();
    for (d, &n) in space.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let mut parts: Vec<(usize, usize)> = Vec::new();
        for (i, o) in operands.iter().enumerate() {
            if let Some(od) = o.dim_map[d] {
                match o.shape[od] {
                    1 => {}
                    e if e == n => parts.push((i, od)),
                    e => {
                        return Err(unsupported(format!(
                            "dimension {d} has extent {n} but operand {i} has {e}"
                        )))
                    }
                }
            }
        }
        let mut ws: Vec<i64> = vec![1, n];
        for &(i, od) in &parts {
            ws.extend(per_dim[i][od].iter().map(|p| p.weight));
        }
        ws.sort_unstable();
        ws.dedup();
        if ws.windows(2).any(|w| w[1] % w[0] != 0) {
            let ls: Vec<String> = parts.iter().map(|&(i, _)| operands[i].layout.to_string()).collect();
            return Err(unsupported(format!(
                "layouts {} admit no common mixed-radix refinement along dimension {d}",
                ls.join(" and ")
            )));
        }
        let mut cut_parts: Vec<(usize, usize, Vec<Piece>)> = Vec::new();
        for &(i, od) in &parts {
            // `ws` is a divisibility chain holding every piece's weight: the cut always fits.
            let ps = cut(&per_dim[i][od], &ws).ok_or_else(|| {
                unsupported(format!(
                    "internal: layout {} does not split along the chain {ws:?}",
                    operands[i].layout
                ))
            })?;
            cut_parts.push((i, od, ps));
        }
        for k in (0..ws.len() - 1).rev() {
            let (wk, ext) = (ws[k], ws[k + 1] / ws[k]);
            let mut places = vec![None; operands.len()];
            for (i, od, ps) in &cut_parts {
                // The cut at `ws` has a piece at every weight of the chain.
                let p = ps.iter().find(|p| p.weight == wk).ok_or_else(|| {
                    unsupported(format!(
                        "internal: layout {} has no piece of weight {wk}",
                        operands[*i].layout
                    ))
                })?;
                let own = suffix_products(&operands[*i].shape)[*od];
                places[*i] = Some(Place {
                    axis: p.axis.clone(),
                    stride: p.stride,
                    own_weight: wk * own,
                });
            }
            factors.push(Factor {
                extent: ext,
                dim: d,
                weight: wk * full_w[d],
                places,
            });
        }
    }
    Ok(factors)
}

/// Offsets (on `axis`) of every replica combination of `layout` (just `[0]` without one), in
/// the replica's lexicographic order (a multiset: aliasing combinations repeat).
pub fn replica_offsets(layout: &Layout, axis: &str) -> Vec<i64> {
    let mut offs = vec![0i64];
    for it in &layout.replica {
        if it.axis.name() != axis {
            continue;
        }
        offs = offs
            .iter()
            .flat_map(|o| (0..it.extent).map(move |j| o + j * it.stride))
            .collect();
    }
    offs
}

/// The offset `O` of `layout` on `axis` (0 where it has none).
pub fn offset(layout: &Layout, axis: &str) -> i64 {
    layout.offset.get(&Axis::new(axis)).copied().unwrap_or(0)
}

/// Every combination of digits, the i-th in `0..extents[i]` stepping by `steps[i]` (1, or the
/// vector width for a vectorized factor), first digit slowest.
pub fn combos(extents: &[i64], steps: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for (e, s) in extents.iter().zip(steps) {
        out = out
            .into_iter()
            .flat_map(|c| {
                (0..*e).step_by(*s as usize).map(move |d| {
                    let mut c = c.clone();
                    c.push(d);
                    c
                })
            })
            .collect();
    }
    out
}
