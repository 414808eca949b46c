//! The gemm anchor (Hexcute §5): the target's tensor-core atom (`mma.sync m16n8k16` on
//! sm_80/sm_90), tiled over the warps of the executing scope and repeated in registers.
//!
//! With `wm × wn` warps over C's (M/16, N/8) atom grid, each warp owns `rm = M/16/wm` atom
//! rows and `rn = N/8/wn` atom columns, spread over its registers:
//! the outer layout over the atom grid is
//! `(rm, wm, rn, wn) : (rn@reg, wn@warp, 1@reg, 1@warp)`, and the Kronecker product with the
//! atom (Algorithm 2) scales its register strides by the atom's register span. A is shared by
//! the warps of a row (replicated over `wn`), B by the warps of a column (over `wm`).

use axe_layout::{tile, tile_of, Iter, Layout, LayoutError};

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
        v.iter()
            .filter(|t| t.0 > 1)
            .map(|&(e, s, a)| Iter::new(e, s, a))
            .collect()
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
    let c_outer = outer(
        &[(rm, rn, "reg"), (wm, wn, "warp"), (rn, 1, "reg"), (wn, 1, "warp")],
        &[],
    )?;
    let a_outer = outer(&[(rm, rk, "reg"), (wm, wn, "warp"), (rk, 1, "reg")], &[(wn, 1, "warp")])?;
    let b_outer = outer(&[(rk, rn, "reg"), (rn, 1, "reg"), (wn, 1, "warp")], &[(wm, wn, "warp")])?;
    let c = tile(
        &c_outer,
        &[m / mma::M, n / mma::N],
        &mma::c_fragment(),
        &[mma::M, mma::N],
    )?;
    let a = tile(
        &a_outer,
        &[m / mma::M, k / mma::K],
        &mma::a_fragment(),
        &[mma::M, mma::K],
    )?;
    let b = tile(
        &b_outer,
        &[k / mma::K, n / mma::N],
        &mma::b_fragment(),
        &[mma::K, mma::N],
    )?;
    Ok(GemmLayouts {
        a: a.canonical(),
        b: b.canonical(),
        c: c.canonical(),
    })
}

/// The A and B fragment layouts that go with an accumulator layout `c` over `[m, n]`, found
/// by the algebra (paper §3.4), for *any* tiling of the m16n8k16 C fragment over warps and
/// registers — not only the warp grids [`mma_layouts`] builds. `C = C_outer ⊗ atom` is
/// recovered with tile-of (Algorithm 3); `C_outer` over the `(M/16, N/8)` atom grid is grouped
/// by that shape into its m iters and n iters. A's outer layout over `(M/16, K/16)` keeps the m
/// iters (warps as they are, registers renumbered compactly after the k atoms) and is
/// replicated over the n iters on warps (every warp of a row needs the row's A); B's, over
/// `(K/16, N/8)`, keeps the n iters and is replicated over the m warps. Errors when `c` is not
/// such a tiling (an atom split across warps or lanes, a replica, an offset).
pub fn fragments_for(c: &Layout, m: i64, n: i64, k: i64) -> Result<GemmLayouts, LayoutError> {
    let unsupported = |why: String| LayoutError::Unsupported(why);
    if m % mma::M != 0 || n % mma::N != 0 || k % mma::K != 0 {
        return Err(unsupported(format!(
            "{m}x{n}x{k} is not a multiple of the m16n8k16 atom"
        )));
    }
    let (tm, tn, tk) = (m / mma::M, n / mma::N, k / mma::K);
    let c_outer = tile_of(c, &[m, n], &mma::c_fragment(), &[mma::M, mma::N])?;
    if !c_outer.replica.is_empty() || c_outer.offset.values().any(|&o| o != 0) {
        return Err(unsupported(format!(
            "the atoms' placement {c_outer} has a replica or an offset"
        )));
    }
    if let Some(it) = c_outer
        .shard
        .iter()
        .find(|it| !matches!(it.axis.name(), "warp" | "reg"))
    {
        return Err(unsupported(format!(
            "the atoms' placement {c_outer} puts atoms on '{}', not on warps and registers",
            it.axis
        )));
    }
    let grouped = c_outer.group(&[tm, tn])?;
    let iters = |d: usize| grouped.layout.shard[grouped.groups[d].clone()].to_vec();
    let (m_iters, n_iters) = (iters(0), iters(1));
    // Register iters renumbered compactly (fastest first, starting at stride `unit`); warp
    // iters as they are.
    let compact = |its: &[Iter], unit: i64| -> Vec<Iter> {
        let mut stride = unit;
        let mut out: Vec<Iter> = its.to_vec();
        for it in out.iter_mut().rev() {
            if it.axis.name() == "reg" {
                it.stride = stride;
                stride *= it.extent;
            }
        }
        out
    };
    let warps_of = |its: &[Iter]| -> Vec<Iter> { its.iter().filter(|i| i.axis.name() == "warp").cloned().collect() };
    let regs = |its: &[Iter]| -> i64 {
        its.iter()
            .filter(|i| i.axis.name() == "reg")
            .map(|i| i.extent)
            .product()
    };
    let k_iter = |stride: i64| Iter::new(tk, stride, "reg");
    let mut a_shard = compact(&m_iters, tk);
    a_shard.push(k_iter(1));
    let mut b_shard = vec![k_iter(regs(&n_iters))];
    b_shard.extend(compact(&n_iters, 1));
    let keep = |v: Vec<Iter>| -> Vec<Iter> { v.into_iter().filter(|i| i.extent > 1).collect() };
    let a_outer = Layout::new(keep(a_shard), keep(warps_of(&n_iters)), Default::default())?;
    let b_outer = Layout::new(keep(b_shard), keep(warps_of(&m_iters)), Default::default())?;
    let a = tile(&a_outer, &[tm, tk], &mma::a_fragment(), &[mma::M, mma::K])?;
    let b = tile(&b_outer, &[tk, tn], &mma::b_fragment(), &[mma::K, mma::N])?;
    Ok(GemmLayouts {
        a: a.canonical(),
        b: b.canonical(),
        c: c.clone(),
    })
}

/// Whether `op` sits in a module whose target (`axe.target` on an enclosing op) has `wgmma`
/// ([`crate::target::Target::has_wgmma`]: sm_90a), on which `axe.gemm` with shared A and B
/// becomes `wgmma`.
pub fn has_wgmma(op: mlir_sys::MlirOperation) -> bool {
    crate::target::of(op).is_some_and(|t| t.has_wgmma)
}

/// The A/B element types `wgmma.mma_async` multiplies into an f32 accumulator (PTX ISA,
/// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"): 16-bit floats, with K = 16 per
/// instruction, and the FP8 formats, with K = 32 — one instruction always reads 32 bytes of K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WgmmaInput {
    F16,
    BF16,
    E4M3,
    E5M2,
}

impl WgmmaInput {
    /// The wgmma input type of element type `t`, if it is one.
    pub fn of(t: mlir_sys::MlirType) -> Option<WgmmaInput> {
        use mlir_sys::*;
        // SAFETY: the type predicates only read the uniqued type `t` points to.
        unsafe {
            if mlirTypeIsAF16(t) {
                Some(WgmmaInput::F16)
            } else if mlirTypeIsABF16(t) {
                Some(WgmmaInput::BF16)
            } else if mlirTypeIsAFloat8E4M3FN(t) {
                Some(WgmmaInput::E4M3)
            } else if mlirTypeIsAFloat8E5M2(t) {
                Some(WgmmaInput::E5M2)
            } else {
                None
            }
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> i64 {
        match self {
            WgmmaInput::F16 | WgmmaInput::BF16 => 2,
            WgmmaInput::E4M3 | WgmmaInput::E5M2 => 1,
        }
    }

    /// The K of one instruction (32 bytes of K).
    pub fn k(self) -> i64 {
        32 / self.bytes()
    }

    /// The type's name in `#nvvm.wgmma_type<...>`.
    pub fn nvvm(self) -> &'static str {
        match self {
            WgmmaInput::F16 => "f16",
            WgmmaInput::BF16 => "bf16",
            WgmmaInput::E4M3 => "e4m3",
            WgmmaInput::E5M2 => "e5m2",
        }
    }

    /// Whether an operand of this type may be MN-major (transposed in shared memory): only
    /// the 16-bit types; FP8 operands are read K-major.
    pub fn transposable(self) -> bool {
        self.bytes() == 2
    }
}

pub use crate::target::{WGMMA_M, WGMMA_MAX_N};

/// The N of one `wgmma` instruction for an accumulator `n` columns wide: all of it up to 256,
/// otherwise the widest multiple of 8 (at most 256) that divides it.
pub fn wgmma_n(n: i64) -> Option<i64> {
    if n <= 0 || n % 8 != 0 {
        return None;
    }
    (1..=WGMMA_MAX_N / 8).rev().map(|d| 8 * d).find(|d| n % d == 0)
}

/// How many warpgroups a gemm executed by `warps` warps runs as `wgmma` (sm_90a, A and B in
/// shared memory): `warps` a multiple of 4, the warpgroups splitting M into 64-row blocks
/// (each warpgroup takes every `warpgroups`-th block), K a multiple of the instruction's
/// (`k_atom`: 16 for 16-bit inputs, 32 for FP8). `None`: no wgmma.
pub fn wgmma_warpgroups(m: i64, n: i64, k: i64, k_atom: i64, warps: i64) -> Option<i64> {
    let wg = warps / 4;
    (warps % 4 == 0 && wg >= 1 && m % (WGMMA_M * wg) == 0 && k % k_atom == 0 && wgmma_n(n).is_some()).then_some(wg)
}

/// The register layout of a `wgmma` accumulator C `[M, N]` over `warpgroups` warpgroups: the
/// PTX ISA's m64nNk16 D fragment (warp `w` of warpgroup `g`, lane `t`, register `j`: row
/// `64 (warpgroups i + g) + 16 w + t/4 + 8 ((j/2) % 2)`, column `8 (j/4) + 2 (t%4) + j%2`, for
/// the `i`-th 64-row block of the warpgroup, whose registers follow the previous block's N/2).
/// That fragment is the m16n8 `mma.sync` C atom tiled over the (M/16, N/8) atom grid by
/// `(M/64/wg, 4 wg, N/8) : (N/8 @reg, 1 @warp, 1 @reg)`.
pub fn wgmma_accumulator(m: i64, n: i64, warpgroups: i64) -> Result<Layout, LayoutError> {
    if warpgroups < 1 || m % (WGMMA_M * warpgroups) != 0 || n % 8 != 0 {
        return Err(LayoutError::Unsupported(format!(
            "a {m}x{n} accumulator is not tiled by m64nNk16 over {warpgroups} warpgroup(s)"
        )));
    }
    let rm = m / (WGMMA_M * warpgroups);
    let o = outer(
        &[
            (rm, n / mma::N, "reg"),
            (4 * warpgroups, 1, "warp"),
            (n / mma::N, 1, "reg"),
        ],
        &[],
    )?;
    let l = tile(&o, &[m / mma::M, n / mma::N], &mma::c_fragment(), &[mma::M, mma::N])?;
    Ok(l.canonical())
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
    use axe_layout::Axis;
    use std::collections::BTreeMap;

    /// Oracle: the PTX ISA's wgmma m64nNk16 f32 D fragment formula, enumerated for every
    /// warpgroup, warp, lane and register, against the layout's forward map; every slot once.
    #[test]
    fn wgmma_accumulator_is_the_ptx_d_fragment() {
        use axe_layout::eval::point;
        for (m, n, wg) in [
            (64, 8, 1),
            (64, 128, 1),
            (128, 128, 1),
            (128, 128, 2),
            (256, 64, 2),
            (128, 256, 2),
            (192, 16, 3),
        ] {
            let l = wgmma_accumulator(m, n, wg).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            for i in 0..m / (64 * wg) {
                for g in 0..wg {
                    for w in 0..4 {
                        for t in 0..32 {
                            for j in 0..n / 2 {
                                let row = 64 * (wg * i + g) + 16 * w + t / 4 + 8 * ((j / 2) % 2);
                                let col = 8 * (j / 4) + 2 * (t % 4) + j % 2;
                                let want = point(&[("warp", 4 * g + w), ("lane", t), ("reg", i * (n / 2) + j)]);
                                assert_eq!(
                                    l.eval_set(&[row, col], &[m, n]).unwrap(),
                                    vec![want],
                                    "{m}x{n}/{wg}: ({row}, {col})"
                                );
                                assert!(seen.insert((row, col)));
                            }
                        }
                    }
                }
            }
            assert_eq!(seen.len() as i64, m * n);
            // The same map as the mma.sync m16n8k16 tiling over a (4 wg) x 1 warp grid.
            let mma = mma_layouts(m, n, 16, 4 * wg, 1).unwrap().c;
            assert!(axe_layout::equivalent(&l, &mma).unwrap().equal, "{l} vs {mma}");
        }
        assert!(wgmma_accumulator(64, 64, 2).is_err());
        assert_eq!(wgmma_warpgroups(128, 128, 64, 16, 8), Some(2));
        assert_eq!(wgmma_warpgroups(128, 128, 48, 32, 8), None);
        assert_eq!(wgmma_warpgroups(128, 128, 64, 32, 8), Some(2));
        assert_eq!(wgmma_warpgroups(64, 128, 64, 16, 8), None);
        assert_eq!(wgmma_warpgroups(64, 128, 64, 16, 2), None);
        assert_eq!(wgmma_n(512), Some(256));
        assert_eq!(wgmma_n(264), Some(88));
    }

    #[test]
    fn fragments_follow_from_any_tiling_of_the_accumulator() {
        use axe_layout::equivalent;
        let eq = |a: &Layout, b: &Layout| equivalent(a, b).map(|e| e.equal).unwrap_or(false);
        // The warp grids axe-infer-layout builds: the same A and B as mma_layouts.
        for (m, n, k, wm, wn) in [
            (32, 16, 16, 2, 2),
            (64, 64, 32, 2, 2),
            (128, 128, 32, 2, 2),
            (64, 32, 16, 4, 1),
            (32, 64, 32, 1, 4),
        ] {
            let want = mma_layouts(m, n, k, wm, wn).unwrap();
            let got = fragments_for(&want.c, m, n, k).unwrap();
            assert!(eq(&got.a, &want.a), "{m}x{n}x{k}/{wm}x{wn}: A {} vs {}", got.a, want.a);
            assert!(eq(&got.b, &want.b), "{m}x{n}x{k}/{wm}x{wn}: B {} vs {}", got.b, want.b);
        }
        // Figure 3's accumulator: 2x2 warps each owning a 64x64 block (not a cyclic grid).
        let c =
            Layout::parse("(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)")
                .unwrap();
        let f = fragments_for(&c, 128, 128, 32).unwrap();
        // Oracle, element by element: every A element a warp needs (rows of its C atoms, all k)
        // is held by that warp exactly where the A fragment puts it.
        let a_frag = mma::a_fragment();
        for row in 0..128 {
            let warp_row = row / 64;
            for col in 0..32 {
                let pts = f.a.eval_set(&[row, col], &[128, 32]).unwrap();
                let frag = &a_frag.eval_set(&[row % 16, col % 16], &[16, 16]).unwrap()[0];
                let lane = frag.get(&Axis::from("lane")).copied().unwrap_or(0);
                for wc in 0..2 {
                    let w = 2 * warp_row + wc;
                    assert!(
                        pts.iter().any(|p| p.get(&Axis::from("warp")).copied().unwrap_or(0) == w
                            && p.get(&Axis::from("lane")).copied().unwrap_or(0) == lane),
                        "A({row}, {col}) not on warp {w} lane {lane}: {pts:?}"
                    );
                }
            }
        }
        assert!(fragments_for(&Layout::parse("(128, 128) : (128, 1@reg)").unwrap(), 128, 128, 32).is_err());
    }

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
