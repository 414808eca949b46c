//! TensorE matmul dispatch (Axe paper §3.4 "Systolic Array GEMM", Appendix H).
//!
//! `nisa.nc_matmul(stationary, moving)` computes `stationary.T @ moving` into PSUM, so for
//! `C[M, N] += A[M, K] · B[K, N]` the stationary tile is A as `[K on P, M on F]`, the moving tile
//! B as `[K on P, N on F]` and the result C as `[M on P, N on F]`. The four steps:
//!
//! 1. **Group**: find `S_M`, `S_N`, `S_K` so that A by `(S_M, S_K)`, B by `(S_K, S_N)` and C by
//!    `(S_M, S_N)` have exactly one iter per factor ([`super::plan::common_grouping`]).
//! 2. **K intersection**: positions where both A and B are on `P`, each `A[i] ∩ B[i]`
//!    (`axe_layout::intersect::intersect_iters`); A and B must agree there (the same partition
//!    must hold the same k in both), and the kept iters must chain to one `1@P` iter.
//! 3. **M/N intersection**: `m_intersection` (A on F, C on P) and `n_intersection` (B on F,
//!    C on F) pick the largest index sets forming a single iter.
//! 4. **Finalize**: the kept extents are the instruction's K, M, N; extents over the NKI limits
//!    (K ≤ 128, M ≤ 128 stationary free size, N ≤ 512 moving free size / one PSUM bank) are
//!    split; every other position becomes an `nl.affine_range` loop moving each operand by its
//!    own strides.

use crate::error::AxeError;
use axe_layout::intersect::{intersect_iters, m_intersection, n_intersection};
use axe_layout::Iter;
use mlir_sys::MlirOperation;

use super::emit::Affine;
use super::plan::common_grouping;
use super::{buffer_shape, diag, hw, ir, Kernel, Res, Scope, Tensor};
use crate::dialect::ods;

const M: usize = 0;
const N: usize = 1;
const K: usize = 2;
const A: usize = 0;
const B: usize = 1;
const C: usize = 2;
const DIM: [&str; 3] = ["M", "N", "K"];
const OPND: [&str; 3] = ["A", "B", "C"];

/// A loop of the nest: extent, and the stride it moves each operand by on each axis.
struct Loop {
    dim: usize,
    extent: i64,
    /// (operand, axis name, stride)
    moves: Vec<(usize, String, i64)>,
}

/// The instruction along one dimension: its extent and the two operands' chained iters.
struct InstDim {
    extent: i64,
}

/// Checks that `iters` (in position order, outer first) form one iter `extent : 1@axis`.
fn chains_unit(iters: &[&Iter], axis: &str) -> bool {
    let mut expect = 1i64;
    for it in iters.iter().rev() {
        if it.axis.name() != axis || it.stride != expect {
            return false;
        }
        expect *= it.extent;
    }
    true
}

fn iters_str(its: &[&Iter]) -> String {
    its.iter()
        .map(|i| format!("{}:{}@{}", i.extent, i.stride, i.axis))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn emit_gemm(k: &mut Kernel, op: MlirOperation) -> Res<()> {
    let ts: Vec<Tensor> = (0..3).map(|i| k.tensor(op, ir::operand(op, i))).collect::<Res<_>>()?;
    let (a, b, c) = (&ts[A], &ts[B], &ts[C]);
    for (t, want, who) in [(a, Scope::Sbuf, "A"), (b, Scope::Sbuf, "B"), (c, Scope::Psum, "C")] {
        if t.scope != want {
            return diag(
                op,
                format!(
                    "axe-to-nki: TensorE reads A and B from SBUF and writes C to PSUM; operand {who} is in {}",
                    t.scope.name()
                ),
            );
        }
        buffer_shape(op, t, &format!("operand {who}"))?;
    }
    if c.elem != super::Elem::F32 {
        return diag(
            op,
            format!(
                "axe-to-nki: nc_matmul accumulates in float32; C must be f32, got {}",
                c.elem
            ),
        );
    }
    let ta = ir::has_attr(op, ods::gemm::TRANSPOSE_A);
    let tb = ir::has_attr(op, ods::gemm::TRANSPOSE_B);
    let a_dims = if ta { vec![K, M] } else { vec![M, K] };
    let b_dims = if tb { vec![N, K] } else { vec![K, N] };
    let c_dims = vec![M, N];
    let m = c.shape[0];
    let n = c.shape[1];
    let kk = if ta { a.shape[0] } else { a.shape[1] };

    // Step 1: group.
    let operands = [
        (&a.layout, a_dims.clone(), "A".to_string()),
        (&b.layout, b_dims.clone(), "B".to_string()),
        (&c.layout, c_dims.clone(), "C".to_string()),
    ];
    let (s, per) = common_grouping(op, &[m, n, kk], &operands)?;
    // iters[operand][global dim] -> iters by position
    let mut iters: Vec<Vec<Vec<Iter>>> = vec![vec![Vec::new(); 3]; 3];
    for (o, dims) in [a_dims, b_dims, c_dims].iter().enumerate() {
        for (ld, &g) in dims.iter().enumerate() {
            iters[o][g] = per[o][ld].clone();
        }
    }
    let mut loops: Vec<Loop> = Vec::new();
    let push_loop = |loops: &mut Vec<Loop>, dim: usize, pos: usize, ops: &[usize], iters: &Vec<Vec<Vec<Iter>>>| {
        let e = s[dim][pos];
        if e > 1 {
            loops.push(Loop {
                dim,
                extent: e,
                moves: ops
                    .iter()
                    .map(|&o| {
                        let it = &iters[o][dim][pos];
                        (o, it.axis.name().to_string(), it.stride)
                    })
                    .collect(),
            });
        }
    };

    // Step 2: K intersection.
    let mut k_pos = Vec::new();
    for (i, (x, y)) in iters[A][K].iter().zip(&iters[B][K]).enumerate() {
        if x.axis.name() == "P" && y.axis.name() == "P" {
            let inter = intersect_iters(x, y).map_err(|e| AxeError::at(op, format!("axe-to-nki: {e}")))?;
            if &inter != x || &inter != y {
                return diag(op, format!(
                    "axe-to-nki: K iter #{i} is placed differently on the partition axis by A ({}:{}@P) and B ({}:{}@P); their intersection {}:{}@P does not cover it, so the same partition would hold different k",
                    x.extent, x.stride, y.extent, y.stride, inter.extent, inter.stride));
            }
            k_pos.push(i);
        }
    }
    if k_pos.is_empty() && kk > 1 {
        return diag(
            op,
            format!(
            "axe-to-nki: TensorE contracts over the partition axis, but no K iter is on P in both A ({}) and B ({})",
            a.layout, b.layout),
        );
    }
    // The instruction's K: the innermost chain of P positions ending in stride 1.
    let k_inst = innermost_chain(&k_pos, |i| vec![&iters[A][K][i], &iters[B][K][i]], "P");
    if k_inst.is_empty() && kk > 1 {
        return diag(op, format!(
            "axe-to-nki: the K iters on P ({}) do not include a unit-stride partition iter, so no K tile starts a partition range",
            iters_str(&k_pos.iter().map(|&i| &iters[A][K][i]).collect::<Vec<_>>())));
    }

    // Step 3: M and N intersection.
    let msel = m_intersection(&iters[A][M], &iters[C][M]).map_err(|e| AxeError::at(op, format!("axe-to-nki: {e}")))?;
    if msel.indices.is_empty() && m > 1 {
        return diag(op, format!(
            "axe-to-nki: no M iter is on the free axis of A and the partition axis of C (A: {}, C: {}); TensorE's stationary operand is [K on P, M on F] and its output [M on P, N on F]",
            a.layout, c.layout));
    }
    let nsel = n_intersection(&iters[B][N], &iters[C][N]).map_err(|e| AxeError::at(op, format!("axe-to-nki: {e}")))?;
    if nsel.indices.is_empty() && n > 1 {
        return diag(op, format!(
            "axe-to-nki: no N iter is on the free axis of both B and C (B: {}, C: {}); TensorE's moving operand is [K on P, N on F] and its output [M on P, N on F]",
            b.layout, c.layout));
    }
    for (sel, o1, ax1, o2, ax2, dim) in [(&msel.indices, A, "F", C, "P", M), (&nsel.indices, B, "F", C, "F", N)] {
        for (o, ax) in [(o1, ax1), (o2, ax2)] {
            let its: Vec<&Iter> = sel.iter().map(|&i| &iters[o][dim][i]).collect();
            if !chains_unit(&its, ax) {
                return diag(op, format!(
                    "axe-to-nki: the {} iters chosen for the instruction ({}) are not one contiguous unit-stride run on {ax} in operand {}",
                    DIM[dim], iters_str(&its), OPND[o]));
            }
        }
    }

    // Step 4: finalize: instruction shape, splits over the limits, loops.
    let mut inst = [InstDim { extent: 1 }, InstDim { extent: 1 }, InstDim { extent: 1 }];
    let chosen: [Vec<usize>; 3] = [msel.indices.clone(), nsel.indices.clone(), k_inst.clone()];
    let users: [[usize; 2]; 3] = [[A, C], [B, C], [A, B]];
    let limit = [hw::STATIONARY_FMAX, hw::MOVING_FMAX, hw::PARTITIONS];
    for d in [M, N, K] {
        let full: i64 = chosen[d].iter().map(|&i| s[d][i]).product();
        let mut e = full;
        while e > limit[d] || full % e != 0 {
            e -= 1;
        }
        inst[d].extent = e;
        if full / e > 1 {
            // The chained iter `full : 1` splits into a loop `full/e : e` around the instruction.
            loops.push(Loop {
                dim: d,
                extent: full / e,
                moves: users[d]
                    .iter()
                    .map(|&o| {
                        let axis = iters[o][d][chosen[d][0]].axis.name().to_string();
                        (o, axis, e)
                    })
                    .collect(),
            });
        }
        for pos in 0..s[d].len() {
            if !chosen[d].contains(&pos) {
                push_loop(&mut loops, d, pos, &users[d], &iters);
            }
        }
    }
    // Loops over M and N outside, K (the accumulation) innermost.
    loops.sort_by_key(|l| l.dim == K);

    let (em, en, ek) = (inst[M].extent, inst[N].extent, inst[K].extent);
    // Each instruction's output must stay inside one 2 KiB PSUM bank.
    let bank = hw::PSUM_BANK_BYTES / c.elem_bytes();
    let c_off_f = c
        .layout
        .offset
        .iter()
        .find(|(x, _)| x.name() == "F")
        .map(|(_, v)| *v)
        .unwrap_or(0);
    let mut starts = vec![c_off_f];
    for l in &loops {
        for &(o, ref ax, st) in &l.moves {
            if o == C && ax == "F" {
                starts = starts
                    .iter()
                    .flat_map(|&s0| (0..l.extent).map(move |i| s0 + i * st))
                    .collect();
            }
        }
    }
    if let Some(bad) = starts.iter().find(|&&f0| f0 / bank != (f0 + en - 1) / bank) {
        return diag(op, format!(
            "axe-to-nki: an instruction would write PSUM free range [{bad}, {}) of C, crossing a 2 KiB PSUM bank ({bank} x {}); matmul output must stay in one bank",
            bad + en, c.elem));
    }

    let count: i64 = loops.iter().map(|l| l.extent).product();
    let loop_desc: Vec<String> = loops.iter().map(|l| format!("{}:{}", DIM[l.dim], l.extent)).collect();
    k.py.line(&format!(
        "# axe.gemm on TensorE: instruction M={em} N={en} K={ek}, {count} nc_matmul, loops [{}]",
        loop_desc.join(", ")
    ));
    let mut vars = Vec::new();
    for l in &loops {
        let v = k.fresh_var();
        k.py.line(&format!("for {v} in nl.affine_range({}):  # {}", l.extent, DIM[l.dim]));
        k.py.indent += 1;
        vars.push(v);
    }
    let tile = |t: &Tensor, o: usize, ep: i64, ef: i64| {
        let mut p = Affine::constant(
            t.layout
                .offset
                .iter()
                .find(|(x, _)| x.name() == "P")
                .map(|(_, v)| *v)
                .unwrap_or(0),
        );
        let mut f = Affine::constant(
            t.layout
                .offset
                .iter()
                .find(|(x, _)| x.name() == "F")
                .map(|(_, v)| *v)
                .unwrap_or(0),
        );
        for (l, v) in loops.iter().zip(&vars) {
            for (oo, ax, st) in &l.moves {
                if *oo == o {
                    if ax == "P" {
                        p.add_term(v, *st);
                    } else {
                        f.add_term(v, *st);
                    }
                }
            }
        }
        format!("{}[{}, {}]", t.buf, p.range(ep), f.range(ef))
    };
    let stmt = format!(
        "{} += nisa.nc_matmul({}, {})",
        tile(c, C, em, en),
        tile(a, A, ek, em),
        tile(b, B, ek, en)
    );
    k.py.line(&stmt);
    k.py.indent -= loops.len();
    Ok(())
}

/// Among `positions` (ascending), the innermost run whose iters (every operand's, from `get`)
/// chain into one unit-stride iter on `axis`.
fn innermost_chain<'a>(positions: &[usize], get: impl Fn(usize) -> Vec<&'a Iter>, axis: &str) -> Vec<usize> {
    let mut best = Vec::new();
    for start in 0..positions.len() {
        let cand: Vec<usize> = positions[start..].to_vec();
        let ok = (0..get(cand[0]).len()).all(|o| {
            let its: Vec<&Iter> = cand.iter().map(|&i| get(i)[o]).collect();
            chains_unit(&its, axis) && cand.windows(2).all(|w| w[1] == w[0] + 1)
        });
        if ok {
            best = cand;
            break;
        }
    }
    best
}
