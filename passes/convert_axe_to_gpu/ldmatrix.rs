//! `axe.copy %shared, %registers schedule ldmatrix`: shared → register copies of 16-bit
//! elements with `ldmatrix` (`nvgpu.ldmatrix`, x1/x2/x4, plain or `.trans`).
//!
//! `ldmatrix` loads 8x8 matrices whose rows are 16 contiguous bytes at addresses the lanes
//! supply; lane `t` receives two elements of each matrix in one 32-bit register: row `t / 4`,
//! columns `2 (t % 4)` and `+1` (with `.trans`: column `t / 4`, rows `2 (t % 4)` and `+1`).
//! The schedule applies when the register layout hands every thread its registers in pairs
//! that are exactly that: enumerating the register layout (lane, warp, reg of every element)
//! against the shared layout, register pair `p` of the 32 lanes of a warp must be one 8x8
//! matrix of 8-element (16-byte, aligned) rows. The row a lane addresses must then be an affine
//! function of the lane's and the warp's bits, which is checked for every lane and warp before
//! any code is emitted (the compile-time oracle); otherwise the copy is a located error.

use crate::error::{AtOp, AxeError};
use std::collections::HashMap;

use axe_layout::Axis;
use mlir_sys::*;

use super::builder::{Ix, B};
use super::context::{coords, Ctx, R};
use super::tensor::{store, swizzled_plus, Mem, Tensor};
use super::types::bit_width;
use crate::target::ScopeKind;

/// How the copy is done: transpose or not, matrices per instruction, and per instruction `g`
/// the row address (unswizzled element offset) as `base[g] + Σ bit_i(lane) lane_step[i] +
/// Σ bit_k(warp) warp_step[k]`.
#[derive(Debug, PartialEq)]
pub struct Plan {
    pub transpose: bool,
    pub tiles: i64,
    pub base: Vec<i64>,
    pub lane_step: [i64; 5],
    pub warp_step: Vec<i64>,
}

/// Finds the plan from `u[w][lane][reg]`, the unswizzled shared offset of the element each
/// register holds, for `warps` warps.
pub fn plan(u: &[Vec<Vec<i64>>]) -> Result<Plan, AxeError> {
    let warps = u.len();
    let regs = u[0][0].len();
    if !regs.is_multiple_of(2) {
        return Err(AxeError::Message(format!(
            "each thread holds {regs} registers; ldmatrix fills them in pairs"
        )));
    }
    let pairs = regs / 2;
    // Row start of matrix p's row `row` in warp w, if the pairs form matrices.
    let rows_of = |transpose: bool| -> Option<Vec<Vec<[i64; 8]>>> {
        let mut out = vec![vec![[0i64; 8]; pairs]; warps];
        for (w, uw) in u.iter().enumerate() {
            for p in 0..pairs {
                for (row, start) in out[w][p].iter_mut().enumerate() {
                    // The lane and register that hold (row, column 0) of the matrix.
                    let (t, e) = if transpose { (row / 2, row % 2) } else { (4 * row, 0) };
                    *start = uw[t][2 * p + e];
                }
                for t in 0..32 {
                    for e in 0..2 {
                        let want = if transpose {
                            out[w][p][2 * (t % 4) + e] + (t / 4) as i64
                        } else {
                            out[w][p][t / 4] + 2 * (t % 4) as i64 + e as i64
                        };
                        if uw[t][2 * p + e] != want {
                            return None;
                        }
                    }
                }
                if out[w][p].iter().any(|r| r % 8 != 0) {
                    return None;
                }
            }
        }
        Some(out)
    };
    let (transpose, rows) = match (rows_of(false), rows_of(true)) {
        (Some(r), _) => (false, r),
        (None, Some(r)) => (true, r),
        (None, None) => {
            return Err(AxeError::Message("its register pairs are not the 8x8 matrices of 16-byte shared rows that ldmatrix delivers (lane t: row t/4, columns 2(t%4) and +1, or their transpose)".into()))
        }
    };
    let tiles = if pairs.is_multiple_of(4) {
        4
    } else if pairs.is_multiple_of(2) {
        2
    } else {
        1
    };
    // Lane t of instruction g addresses row t % 8 of matrix (t / 8) % tiles.
    let addr = |w: usize, t: usize, g: usize| rows[w][g * tiles as usize + (t / 8) % tiles as usize][t % 8];
    let groups = pairs / tiles as usize;
    let base: Vec<i64> = (0..groups).map(|g| addr(0, 0, g)).collect();
    let mut lane_step = [0i64; 5];
    for (i, s) in lane_step.iter_mut().enumerate() {
        *s = addr(0, 1 << i, 0) - base[0];
    }
    let wbits = (usize::BITS - (warps.max(1) - 1).leading_zeros()) as usize;
    let warp_step: Vec<i64> = (0..wbits).map(|k| addr(1 << k, 0, 0) - base[0]).collect();
    for w in 0..warps {
        for t in 0..32 {
            for (g, b) in base.iter().enumerate() {
                let lanes: i64 = (0..5).filter(|i| t >> i & 1 == 1).map(|i| lane_step[i]).sum();
                let ws: i64 = (0..wbits).filter(|k| w >> k & 1 == 1).map(|k| warp_step[k]).sum();
                if addr(w, t, g) != b + lanes + ws {
                    return Err(AxeError::Message(format!(
                        "the row lane {t} of warp {w} must address is not an affine function of the lane's and warp's bits"
                    )));
                }
            }
        }
    }
    Ok(Plan {
        transpose,
        tiles,
        base,
        lane_step,
        warp_step,
    })
}

/// Lowers the copy (shared → register, 16-bit elements, warps).
pub fn lower(op: MlirOperation, ctx: &Ctx, scope: ScopeKind, src: &Tensor, dst: &Tensor) -> R<()> {
    fn err<T>(op: MlirOperation, m: String) -> R<T> {
        Err(AxeError::at(op, format!("cannot copy with ldmatrix: {m}")))
    }
    let err = |m: String| err::<()>(op, m);
    if src.mem != Mem::Shared || dst.mem != Mem::Register {
        return err(
            "internal: ldmatrix copies shared memory into registers (the axe.copy verifier refuses other memories)"
                .into(),
        );
    }
    if bit_width(src.elt) != 16 {
        return err("ldmatrix moves 16-bit elements".into());
    }
    super::tensor::refuse_pinned(op, dst, "destination")?;
    if scope == ScopeKind::Thread || ctx.threads % 32 != 0 {
        return err("ldmatrix is a warp-collective instruction; it needs whole warps".into());
    }
    if let Some(s) = &src.swizzle {
        if s.base < 3 {
            return err(format!(
                "the swizzle #axe.swizzle<{}, {}, {}> moves parts of 16-byte rows",
                s.bits, s.base, s.shift
            ));
        }
    }
    let c = coords(&B::before(op), ctx, scope);
    let warps = c.warps as usize;
    // u[w][lane][reg]: the shared offset of the element each register holds.
    let n = dst.size();
    let (lane_ax, warp_ax, reg_ax, m) = (Axis::new("lane"), Axis::new("warp"), Axis::new("reg"), Axis::memory());
    let mut held: HashMap<(i64, i64, i64), i64> = HashMap::new();
    let mut max_reg = 0;
    for x in 0..n {
        let pr = dst.layout.eval_flat(x).at(op)?;
        let ps = src.layout.eval_flat(x).at(op)?;
        // The register side may replicate an element over warps (an A fragment shared by a
        // row of the warp grid): every replica is a register some warp loads.
        let [q] = ps.as_slice() else {
            return err("the shared layout replicates elements".into());
        };
        for p in &pr {
            let get = |a: &Axis| p.get(a).copied().unwrap_or(0);
            let (l, w, r) = (get(&lane_ax), get(&warp_ax), get(&reg_ax));
            // Counting registers below proves the layout fills every (warp, lane, register)
            // only if none lies outside them. The verifier already refuses register layouts
            // that reach past the executing scope's warps and lanes; this keeps the count sound
            // (and the lookups below in bounds) whatever reaches the lowering.
            if !(0..warps as i64).contains(&w) || !(0..32).contains(&l) || r < 0 {
                return err(format!(
                    "the register layout {} puts an element on warp {w}, lane {l}, register {r}, outside the {warps} warp(s) of 32 lanes that execute the copy",
                    dst.layout
                ));
            }
            max_reg = max_reg.max(r);
            if held.insert((w, l, r), q.get(&m).copied().unwrap_or(0)).is_some() {
                return err("two elements share a register".into());
            }
        }
    }
    let regs = (max_reg + 1) as usize;
    if held.len() != warps * 32 * regs {
        return err(format!(
            "the register layout {} does not fill {regs} registers of every lane of the {warps} warp(s)",
            dst.layout
        ));
    }
    let u: Vec<Vec<Vec<i64>>> = (0..warps)
        .map(|w| {
            (0..32)
                .map(|l| (0..regs).map(|r| held[&(w as i64, l, r as i64)]).collect())
                .collect()
        })
        .collect();
    let pl = plan(&u).map_err(|e| {
        AxeError::at(
            op,
            format!(
                "cannot copy with ldmatrix: register layout {} over shared layout {}: {e}",
                dst.layout, src.layout
            ),
        )
    })?;

    let b = B::before(op);
    let lane = c.lane.unwrap_or(Ix::C(0));
    // The run-time part of the row address, and its constant part (a static slice's offset
    // plus each instruction's base), kept apart for `swizzled_plus`.
    let (mut part, offset) = match src.dyn_offset {
        Ix::C(o) => (Ix::C(0), o),
        v => (v, 0),
    };
    for (i, s) in pl.lane_step.iter().enumerate() {
        if *s != 0 {
            part = b.add(part, b.mul(b.rem(b.div(lane, 1 << i), 2), *s));
        }
    }
    if let Some(w) = c.warp {
        for (k, s) in pl.warp_step.iter().enumerate() {
            if *s != 0 {
                part = b.add(part, b.mul(b.rem(b.div(w, 1 << k), 2), *s));
            }
        }
    }
    // `tiles` is 1, 2 or 4 (a planned ldmatrix), positive.
    let vty = b.vector_type(src.elt, &[pl.tiles as u64, 2]);
    for (g, base) in pl.base.iter().enumerate() {
        let off = match &src.swizzle {
            Some(s) => swizzled_plus(&b, s, part, offset + base),
            None => b.add(part, Ix::C(offset + base)),
        };
        let v = b.nvgpu_ldmatrix(src.buf, &[b.ix(off)], vty, pl.transpose, pl.tiles);
        for j in 0..pl.tiles {
            for e in 0..2 {
                let x = b.vector_extract(v, &[j, e]);
                let reg = 2 * (g as i64 * pl.tiles + j) + e;
                store(&b, ctx, dst, x, Ix::C(reg), 1, 2);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_layout::Layout;

    /// u[w][lane][reg] from Axe layouts, by enumeration (the oracle is the layouts' meaning).
    fn table(reg: &str, shared: &str, warps: usize, regs: usize) -> Vec<Vec<Vec<i64>>> {
        let (r, s) = (Layout::parse(reg).unwrap(), Layout::parse(shared).unwrap());
        let mut u = vec![vec![vec![-1; regs]; 32]; warps];
        for x in 0..r.size() {
            let p = &r.eval_flat(x).unwrap()[0];
            let q = &s.eval_flat(x).unwrap()[0];
            let g = |a: &str| p.get(&Axis::new(a)).copied().unwrap_or(0) as usize;
            u[g("warp")][g("lane")][g("reg")] = q.get(&Axis::memory()).copied().unwrap_or(0);
        }
        u
    }

    #[test]
    fn mma_a_fragment_is_one_x4() {
        // m16n8k16's A fragment over a row-major 16x16 tile, four warps stacked along rows.
        let u = table(
            "(4, 2, 8, 2, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)",
            "(64, 16) : (16, 1)",
            4,
            8,
        );
        let p = plan(&u).unwrap();
        assert!(!p.transpose);
        assert_eq!(p.tiles, 4);
        assert_eq!(p.base, vec![0]);
        // Lane t addresses row t % 8 (+16 t elements for bits 0..2) of matrix t / 8: matrices
        // 1 and 3 are rows 8..15 (+128), 2 and 3 columns 8..15 (+8).
        assert_eq!(p.lane_step, [16, 32, 64, 128, 8]);
        assert_eq!(p.warp_step, vec![256, 512]);
    }

    #[test]
    fn mma_b_fragment_from_k_rows_is_trans_x2() {
        // B (16x8, K x N) stored K-major rows of 8 (row-major [K, N]).
        let u = table(
            "(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)",
            "(16, 8) : (8, 1)",
            1,
            4,
        );
        let p = plan(&u).unwrap();
        assert!(p.transpose);
        assert_eq!(p.tiles, 2);
    }

    #[test]
    fn consecutive_pairs_are_one_x1() {
        // Lane t holds elements 2t, 2t+1 of 64 contiguous ones: rows of 8 at 8r, one matrix.
        let u = table("(32, 2) : (1@lane, 1@reg)", "(64) : (1)", 1, 2);
        let p = plan(&u).unwrap();
        assert_eq!((p.transpose, p.tiles, p.lane_step), (false, 1, [8, 16, 32, 0, 0]));
    }

    #[test]
    fn split_pairs_are_refused() {
        // Lane t holds elements t and t + 32: its register pair is not two adjacent elements.
        let u = table("(2, 32) : (1@reg, 1@lane)", "(64) : (1)", 1, 2);
        assert!(plan(&u).unwrap_err().to_string().contains("not the 8x8 matrices"));
    }
}
