//! The gemm anchor (Hexcute §5): the target's tensor-core atom (`mma.sync m16n8k16` on
//! sm_80/sm_90), tiled over the warps of the executing scope and repeated in registers.
//!
//! With `wm × wn` warps over C's (M/16, N/8) atom grid, each warp owns `rm = M/16/wm` atom
//! rows and `rn = N/8/wn` atom columns, spread over its registers:
//! the outer layout over the atom grid is
//! `(rm, wm, rn, wn) : (rn@reg, wn@warp, 1@reg, 1@warp)`, and the Kronecker product with the
//! atom (Algorithm 2) scales its register strides by the atom's register span. A is shared by
//! the warps of a row (replicated over `wn`), B by the warps of a column (over `wm`).

use axe_layout::{tile, Iter, Layout, LayoutError};

use crate::target::mma;

/// The warp grid `(wm, wn)` for `warps` warps over an `M × N` accumulator: the most square
/// split that fits the atom grid.
pub fn warp_grid(m: i64, n: i64, warps: i64) -> Option<(i64, i64)> {
    let (tm, tn) = (m / mma::M, n / mma::N);
    (0..=warps.trailing_zeros())
        .map(|k| (1i64 << k, warps >> k))
        .filter(|&(wm, wn)| wm * wn == warps && tm % wm == 0 && tn % wn == 0)
        .min_by_key(|&(wm, wn)| (((tm / wm) - (tn / wn)).abs(), (wm - wn).abs()))
}

fn outer(iters: &[(i64, i64, &str)], replica: &[(i64, i64, &str)]) -> Result<Layout, LayoutError> {
    let keep = |v: &[(i64, i64, &str)]| -> Vec<Iter> {
        v.iter().filter(|t| t.0 > 1).map(|&(e, s, a)| Iter::new(e, s, a)).collect()
    };
    Layout::new(keep(iters), keep(replica), Default::default())
}

/// Register layouts of C `[M, N]`, A `[M, K]` and B `[K, N]` for an m16n8k16 gemm over
/// `(wm, wn)` warps.
pub struct GemmLayouts {
    pub a: Layout,
    pub b: Layout,
    pub c: Layout,
}

pub fn mma_layouts(m: i64, n: i64, k: i64, wm: i64, wn: i64) -> Result<GemmLayouts, LayoutError> {
    let (rm, rn, rk) = (m / mma::M / wm, n / mma::N / wn, k / mma::K);
    let c_outer = outer(&[(rm, rn, "reg"), (wm, wn, "warp"), (rn, 1, "reg"), (wn, 1, "warp")], &[])?;
    let a_outer = outer(&[(rm, rk, "reg"), (wm, wn, "warp"), (rk, 1, "reg")], &[(wn, 1, "warp")])?;
    let b_outer = outer(&[(rk, rn, "reg"), (rn, 1, "reg"), (wn, 1, "warp")], &[(wm, wn, "warp")])?;
    let c = tile(&c_outer, &[m / mma::M, n / mma::N], &mma::c_fragment(), &[mma::M, mma::N])?;
    let a = tile(&a_outer, &[m / mma::M, k / mma::K], &mma::a_fragment(), &[mma::M, mma::K])?;
    let b = tile(&b_outer, &[k / mma::K, n / mma::N], &mma::b_fragment(), &[mma::K, mma::N])?;
    Ok(GemmLayouts { a: a.canonical(), b: b.canonical(), c: c.canonical() })
}

/// The same map over the transposed 2-D shape `(s1, s0)`.
pub fn transpose(layout: &Layout, shape: &[i64]) -> Result<Layout, LayoutError> {
    let g = layout.group(shape)?;
    let mut shard: Vec<Iter> = g.groups[1].clone().map(|i| g.layout.shard[i].clone()).collect();
    shard.extend(g.groups[0].clone().map(|i| g.layout.shard[i].clone()));
    Layout::new(shard, g.layout.replica.clone(), g.layout.offset.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn warp_grids() {
        assert_eq!(warp_grid(128, 128, 4), Some((2, 2)));
        assert_eq!(warp_grid(64, 128, 8), Some((2, 4)));
        assert_eq!(warp_grid(16, 64, 4), Some((1, 4)));
        assert_eq!(warp_grid(16, 8, 2), None);
    }

    /// Oracle: C(m, n) of a tiled mma must sit on warp (m / (16 rm)) … — checked by brute
    /// force: every warp owns whole 16x8 atoms, each atom placed exactly like the PTX
    /// fragment, and every (warp, lane, reg) slot is used once.
    #[test]
    fn c_tiles_atoms_over_warps() {
        let (m, n) = (64, 32);
        let l = mma_layouts(m, n, 32, 2, 2).unwrap();
        let atom = mma::c_fragment();
        let mut slots = BTreeMap::new();
        for i in 0..m {
            for j in 0..n {
                let pts = l.c.eval_set(&[i, j], &[m, n]).unwrap();
                assert_eq!(pts.len(), 1);
                let p = &pts[0];
                let a = &atom.eval_set(&[i % 16, j % 8], &[16, 8]).unwrap()[0];
                assert_eq!(p.get(&"lane".into()), a.get(&"lane".into()), "lane of ({i}, {j})");
                let reg = p.get(&"reg".into()).copied().unwrap_or(0);
                assert_eq!(reg % 4, a.get(&"reg".into()).copied().unwrap_or(0), "reg of ({i}, {j})");
                assert!(slots.insert(p.clone(), (i, j)).is_none(), "slot reused: {p:?}");
            }
        }
        // 2x2 warps, each with (64/16/2) x (32/8/2) = 2 x 2 atoms of 4 registers.
        assert_eq!(slots.len() as i64, m * n);
    }

    #[test]
    fn a_is_replicated_across_warp_columns() {
        let l = mma_layouts(32, 16, 16, 2, 2).unwrap();
        let pts = l.a.eval_set(&[0, 0], &[32, 16]).unwrap();
        assert_eq!(pts.len(), 2, "A(0, 0) lives on both warps of warp row 0: {pts:?}");
        let pts = l.b.eval_set(&[0, 0], &[16, 16]).unwrap();
        assert_eq!(pts.len(), 2, "B(0, 0) lives on both warps of warp column 0: {pts:?}");
    }
}
