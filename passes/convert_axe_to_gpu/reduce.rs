//! Reductions of register tensors: in-thread over the `reg` factors of the reduced
//! dimensions (unrolled), then a butterfly of `gpu.shuffle xor` over their `lane` factors
//! (every lane of the group ends with the full result). Reductions across warps need
//! shared memory and are refused.

use mlir_sys::*;

use super::address::{check_schedule, combos, plan_threads, refine, replica_offsets, static_part, Operand};
use super::builder::{int_attr, Ix, B};
use super::elementwise::binary;
use super::{bit_width, coords, load, store, tensor, Ctx, Mem, R};
use crate::ir;
use crate::target::ScopeKind;

pub fn lower(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    let b = B::before(op);
    let kind = match int_attr(op, "kind").unwrap_or(0) {
        0 => 0, // sum → add
        1 => 4, // max
        _ => 5, // min
    };
    let src = tensor(ctx, op, ir::operand(op, 0))?;
    let dst = tensor(ctx, op, ir::operand(op, 1))?;
    if src.mem != Mem::Register || dst.mem != Mem::Register {
        return Err((op, "axe.reduce is lowered for register tensors only: copy the source into registers first".into()));
    }
    let dims = ir::i64_array(op, "dims");
    let space = src.shape.clone();
    let reduced = |d: usize| dims.contains(&(d as i64));
    let dst_map: Vec<Option<usize>> = if dst.shape.len() == space.len() {
        (0..space.len()).map(|d| if reduced(d) { None } else { Some(d) }).collect()
    } else {
        let mut next = 0;
        (0..space.len())
            .map(|d| {
                if reduced(d) {
                    None
                } else {
                    next += 1;
                    Some(next - 1)
                }
            })
            .collect()
    };
    let ops = [
        Operand { layout: &src.layout, shape: src.shape.clone(), dim_map: (0..space.len()).map(Some).collect() },
        Operand { layout: &dst.layout, shape: dst.shape.clone(), dim_map: dst_map },
    ];
    let factors = refine(&space, &ops).map_err(|e| (op, e))?;
    check_schedule(&factors, &ops, 0, &[false, true]).map_err(|e| (op, e))?;
    let c = coords(&b, ctx, scope);
    let plan = plan_threads(&b, &c, &factors, 0, &src.layout).map_err(|e| (op, e))?;
    let on = |k: usize, axis: &str| factors[k].places[0].as_ref().is_some_and(|p| p.axis.name() == axis);
    let mut kept = Vec::new();
    let mut red_static = Vec::new();
    let mut red_lanes = Vec::new();
    for k in 0..factors.len() {
        let r = reduced(factors[k].dim);
        match (r, plan.digits[k].is_some()) {
            (false, false) => kept.push(k),
            (false, true) => {}
            (true, false) => red_static.push(k),
            (true, true) if on(k, "lane") => red_lanes.push(k),
            (true, true) => {
                return Err((op, format!(
                    "reducing over the warp axis of layout {} needs a shared-memory exchange, which is not implemented",
                    src.layout
                )))
            }
        }
    }
    if !red_lanes.is_empty() {
        if ctx.emulate {
            return Err((op, "emulate-threads-on-cpu does not model warp shuffles: cross-lane reductions cannot be emulated".into()));
        }
        if plan.valid.is_some() {
            return Err((op, format!("cross-lane reduction of layout {} needs every lane of the warp to take part", src.layout)));
        }
        if bit_width(src.elt) != 32 {
            return Err((op, "warp-shuffle reductions are lowered for 32-bit element types only".into()));
        }
        for &k in &red_lanes {
            let s = factors[k].places[0].as_ref().unwrap().stride;
            if !(factors[k].extent as u64).is_power_of_two() || !(s as u64).is_power_of_two() {
                return Err((op, format!("lane iters of layout {} are not power-of-two groups; xor shuffles need them", src.layout)));
            }
        }
    }
    let t = src.elt;
    b.guarded(plan.valid, |g| {
        let kext: Vec<i64> = kept.iter().map(|&k| factors[k].extent).collect();
        let rext: Vec<i64> = red_static.iter().map(|&k| factors[k].extent).collect();
        for kc in combos(&kext, &vec![1; kext.len()]) {
            let mut digits = vec![0i64; factors.len()];
            for (&k, d) in kept.iter().zip(&kc) {
                digits[k] = *d;
            }
            let mut acc: Option<MlirValue> = None;
            for rc in combos(&rext, &vec![1; rext.len()]) {
                for (&k, d) in red_static.iter().zip(&rc) {
                    digits[k] = *d;
                }
                let r = static_part(&plan, &factors, 0, &src.layout, "reg", &digits);
                let x = load(&g, ctx, &src, Ix::C(r), 1, 1);
                acc = Some(match acc {
                    None => x,
                    Some(a) => binary(&g, kind, a, x, t)?,
                });
            }
            let mut acc = acc.expect("at least one element");
            for &k in &red_lanes {
                let s = factors[k].places[0].as_ref().unwrap().stride;
                let mut off = s;
                while off < s * factors[k].extent {
                    let o = g.ci32(off);
                    let w = g.ci32(32);
                    let i1 = g.ty("i1");
                    let sh = g.op("gpu.shuffle", &[acc, o, w], &[t, i1], &[("mode", g.attr("#gpu<shuffle_mode xor>"))], vec![]);
                    let other = unsafe { mlirOperationGetResult(sh, 0) };
                    acc = binary(&g, kind, acc, other, t)?;
                    off *= 2;
                }
            }
            for &k in &red_static {
                digits[k] = 0;
            }
            let reg = static_part(&plan, &factors, 1, &dst.layout, "reg", &digits);
            for r in replica_offsets(&dst.layout, "reg") {
                store(&g, ctx, &dst, acc, Ix::C(reg + r), 1, 1);
            }
        }
        Ok(())
    })
    .map_err(|e| (op, e))
}
