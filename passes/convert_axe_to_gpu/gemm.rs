//! `axe.gemm` → `nvgpu.mma.sync` (m16n8k16, f16/bf16 → f32), which upstream
//! `convert-nvgpu-to-nvvm` turns into the PTX `mma.sync.aligned.m16n8k16` instruction.
//!
//! The accumulator must be laid out as the m16n8k16 C fragment tiled over a `wm × wn` warp
//! grid (what `axe-infer-layout` produces; recognised here by comparing with every warp grid
//! of the executing scope). A and B take the matching fragment layouts: register operands
//! must already have them; shared or global operands are first copied into per-thread
//! fragment registers (layout-driven loads, see `copy.rs`). The layouts are warp-uniform —
//! every warp holds its atoms at the same register offsets — which is checked by enumeration,
//! so one straight-line sequence of `mma.sync` over register offsets serves every warp.

use std::collections::BTreeSet;

use axe_layout::{equivalent, Axis, Layout};
use mlir_sys::*;

use super::builder::{has_attr, Ix, B};
use super::copy::into_registers;
use super::{coords, tensor, Ctx, Mem, Tensor, R};
use crate::infer_layout::gemm::{mma_layouts, transpose};
use crate::ir;
use crate::target::{mma, ScopeKind};

fn same(a: &Layout, b: &Layout) -> bool {
    a == b || equivalent(a, b).map(|e| e.equal).unwrap_or(false)
}

/// For each warp, the register offset at which it holds the atom starting at `origin` (only
/// warps that hold it), over a 2-D `shape`.
fn atom_regs(l: &Layout, shape: &[i64], origin: [i64; 2]) -> Vec<(i64, i64)> {
    let (warp, reg) = (Axis::from("warp"), Axis::from("reg"));
    let mut out: Vec<(i64, i64)> = l
        .eval_set(&origin, shape)
        .unwrap_or_default()
        .iter()
        .map(|p| (p.get(&warp).copied().unwrap_or(0), p.get(&reg).copied().unwrap_or(0)))
        .collect();
    out.sort();
    out
}

/// The (A, B, C) register offsets of every mma.sync one warp issues; errors when warps differ.
fn schedule(a: &Layout, b: &Layout, c: &Layout, m: i64, n: i64, k: i64, warps: i64) -> Result<Vec<(i64, i64, i64)>, String> {
    let mut per_warp: Vec<BTreeSet<(i64, i64, i64)>> = vec![BTreeSet::new(); warps as usize];
    for mi in 0..m / mma::M {
        for ni in 0..n / mma::N {
            let cs = atom_regs(c, &[m, n], [mi * mma::M, ni * mma::N]);
            let &[(w, creg)] = cs.as_slice() else {
                return Err(format!("the accumulator element ({}, {}) is not held exactly once", mi * 16, ni * 8));
            };
            for ki in 0..k / mma::K {
                let areg = atom_regs(a, &[m, k], [mi * mma::M, ki * mma::K]).into_iter().find(|x| x.0 == w);
                let breg = atom_regs(b, &[k, n], [ki * mma::K, ni * mma::N]).into_iter().find(|x| x.0 == w);
                let (Some((_, ar)), Some((_, br))) = (areg, breg) else {
                    return Err(format!("warp {w} lacks the A or B fragment of atom ({mi}, {ni}, {ki})"));
                };
                per_warp[w as usize].insert((ar, br, creg));
            }
        }
    }
    if per_warp.iter().any(|s| *s != per_warp[0]) {
        return Err("the mma tiling is not the same on every warp".into());
    }
    Ok(per_warp[0].iter().copied().collect())
}

/// A per-thread register buffer holding a fragment layout.
fn fragment_registers(b: &B, layout: &Layout, shape: Vec<i64>, elt: MlirType) -> Tensor {
    let span = layout.span().ok().and_then(|s| s.get(&Axis::from("reg")).copied()).unwrap_or(1);
    let t = b.ty(&format!("memref<{span}x{}>", ir::type_to_string(elt)));
    let buf = b.val("memref.alloca", &[], t, &[("operandSegmentSizes", b.attr("array<i32: 0, 0>"))]);
    Tensor { buf, mem: Mem::Register, layout: layout.clone(), shape, elt, per_thread: false, swizzle: None }
}

pub fn lower(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    if ctx.emulate {
        return Err((op, "emulate-threads-on-cpu cannot run mma.sync (a warp-collective instruction)".into()));
    }
    let b = B::before(op);
    let (ta, tb) = (has_attr(op, "transpose_a"), has_attr(op, "transpose_b"));
    let a = tensor(ctx, op, ir::operand(op, 0))?;
    let bt = tensor(ctx, op, ir::operand(op, 1))?;
    let c = tensor(ctx, op, ir::operand(op, 2))?;
    let (m, n) = (c.shape[0], c.shape[1]);
    let k = if ta { a.shape[0] } else { a.shape[1] };
    let (ae, ce) = (ir::type_to_string(a.elt), ir::type_to_string(c.elt));
    if !(ae == "f16" || ae == "bf16") || ce != "f32" || c.mem != Mem::Register {
        return Err((op, format!(
            "mma.sync m16n8k16 takes f16/bf16 A and B and a register f32 accumulator (got {ae} and a {ce} {:?} accumulator)",
            c.mem
        )));
    }
    if m % mma::M != 0 || n % mma::N != 0 || k % mma::K != 0 {
        return Err((op, format!("a {m}x{n}x{k} gemm is not a multiple of the m16n8k16 atom")));
    }
    let warps = coords(&b, ctx, scope).warps;
    // The warp grid whose tiling the accumulator has.
    let tiling = (0..=warps.trailing_zeros())
        .map(|t| (1i64 << t, warps >> t))
        .filter(|&(wm, wn)| wm * wn == warps && (m / mma::M) % wm == 0 && (n / mma::N) % wn == 0)
        .filter_map(|(wm, wn)| mma_layouts(m, n, k, wm, wn).ok())
        .find(|l| same(&l.c, &c.layout));
    let Some(frags) = tiling else {
        return Err((op, format!(
            "the accumulator layout {} is not the mma.sync m16n8k16 fragment tiled over the {warps} warps of this scope (run axe-infer-layout)",
            c.layout
        )));
    };
    let sched = schedule(&frags.a, &frags.b, &frags.c, m, n, k, warps).map_err(|e| (op, e))?;
    // A and B fragments: the operand itself when it is in registers with the fragment layout,
    // otherwise registers filled from memory through the (transposed) fragment layout.
    let operand = |t: &Tensor, frag: &Layout, logical: [i64; 2], trans: bool, what: &str| -> R<Tensor> {
        let want = if trans { transpose(frag, &logical).map_err(|e| (op, e.to_string()))? } else { frag.clone() };
        if t.mem == Mem::Register {
            if !same(&t.layout, &want) {
                return Err((op, format!("register operand {what} has layout {}, not the mma.sync fragment layout {want}", t.layout)));
            }
            return Ok(Tensor { buf: t.buf, mem: t.mem, layout: t.layout.clone(), shape: t.shape.clone(), elt: t.elt, per_thread: t.per_thread, swizzle: t.swizzle });
        }
        let regs = fragment_registers(&b, &want, t.shape.clone(), t.elt);
        into_registers(&b, op, ctx, scope, t, &regs)?;
        Ok(regs)
    };
    let ra = operand(&a, &frags.a, [m, k], ta, "A")?;
    let rb = operand(&bt, &frags.b, [k, n], tb, "B")?;
    let vty = |s: &str| b.ty(s);
    // n-D vectors built and taken apart element-wise (vector.shape_cast of n-D vectors has no
    // LLVM lowering in the upstream GPU pipeline).
    let gather = |t: &Tensor, base: i64, count: i64, ty: &str| {
        let elems: Vec<MlirValue> =
            (0..count).map(|i| b.val("memref.load", &[t.buf, b.cidx(base + i)], t.elt, &[])).collect();
        b.val("vector.from_elements", &elems, vty(ty), &[])
    };
    for (ar, br, cr) in sched {
        let a2 = gather(&ra, ar, 8, &format!("vector<4x2x{ae}>"));
        let b2 = gather(&rb, br, 4, &format!("vector<2x2x{ae}>"));
        let c2 = gather(&c, cr, 4, "vector<2x2xf32>");
        let d2 = b.val("nvgpu.mma.sync", &[a2, b2, c2], vty("vector<2x2xf32>"), &[("mmaShape", b.attr("[16, 8, 16]"))]);
        for i in 0..4i64 {
            let e = b.val("vector.extract", &[d2], c.elt, &[("static_position", b.attr(&format!("array<i64: {}, {}>", i / 2, i % 2)))]);
            b.op("memref.store", &[e, c.buf, b.cidx(cr + i)], &[], &[], vec![]);
        }
    }
    let _ = Ix::C(0);
    Ok(())
}
