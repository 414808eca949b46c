//! Reductions of register tensors: in-thread over the `reg` factors of the reduced
//! dimensions (unrolled, four interleaved chains and a tree of them), then a butterfly of `gpu.shuffle xor` over their `lane` factors
//! (every lane of the group ends with the full result), then — when the reduced dimensions
//! also span warps — an exchange through shared memory: every warp writes its partial
//! results to a scratch buffer (indexed by result and warp), the CTA synchronizes, and every
//! thread combines the partials of the warps in its group in a fixed order, so all of them
//! end with the same, complete result.

use crate::error::{AtOp, AxeError};
use mlir_sys::*;

use super::address;
use super::address::{check_schedule, combos, plan_threads, refine, replica_offsets, static_part, Operand};
use super::builder::{Ix, B};
use super::context::{coords, Ctx, R};
use super::distribute::{ownership_refusal, RegIndex};
use super::elementwise::{binary, kind_of};
use super::tensor::{load, spans_thread_axis, store, tensor, Mem, Tensor, THREAD_AXES};
use super::types::bit_width;
use crate::dialect::ods::{self, BinaryKind, ReduceKind};
use crate::ir;
use crate::target::{ScopeKind, WARP_THREADS};

pub fn lower(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    let b = B::before(op);
    let kind = match kind_of::<ReduceKind>(op, ods::reduce::KIND)? {
        ReduceKind::Sum => BinaryKind::Add,
        ReduceKind::Max => BinaryKind::Max,
        ReduceKind::Min => BinaryKind::Min,
    };
    let src = tensor(ctx, op, ir::operand(op, ods::reduce::operands::SOURCE))?;
    let dst = tensor(ctx, op, ir::operand(op, ods::reduce::operands::DEST))?;
    if src.mem != Mem::Register || dst.mem != Mem::Register {
        return Err(AxeError::at(
            op,
            format!(
                "{} is lowered for register tensors only: copy the source into registers first",
                ods::reduce::NAME
            ),
        ));
    }
    let dims = ir::i64_array(op, ods::reduce::DIMS);
    let space = src.shape.clone();
    let reduced = |d: usize| dims.contains(&(d as i64));
    let dst_map: Vec<Option<usize>> = if dst.shape.len() == space.len() {
        (0..space.len())
            .map(|d| if reduced(d) { None } else { Some(d) })
            .collect()
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
        Operand {
            layout: &src.layout,
            shape: src.shape.clone(),
            dim_map: (0..space.len()).map(Some).collect(),
        },
        Operand {
            layout: &dst.layout,
            shape: dst.shape.clone(),
            dim_map: dst_map,
        },
    ];
    let c = coords(&b, ctx, scope);
    if let Some(why) = ownership_refusal(&src, &dst, &c) {
        return Err(AxeError::at(op, why));
    }
    let factors = refine(&space, &ops).at(op)?;
    // A register slice as the result may not use registers its layout leaves free (they
    // belong to the tensor it is sliced from).
    check_schedule(&factors, &ops, 0, &[false, !dst.sliced]).at(op)?;
    let plan = plan_threads(&b, &c, &factors, 0, &src.layout, &src.pinned).at(op)?;
    // The source's stride of factor `k` when the factor lies on `axis`.
    let on = |k: usize, axis: &str| {
        factors[k].places[0]
            .as_ref()
            .filter(|p| p.axis.name() == axis)
            .map(|p| p.stride)
    };
    let mut kept = Vec::new();
    let mut red_static = Vec::new();
    // Reduced factors on lanes: (factor, source stride).
    let mut red_lanes: Vec<(usize, i64)> = Vec::new();
    // Reduced factors on warps: (factor, source stride, the thread's digit of it).
    let mut red_warps: Vec<(usize, i64, Ix)> = Vec::new();
    for (k, factor) in factors.iter().enumerate() {
        let r = reduced(factor.dim);
        match (r, plan.digits[k]) {
            (false, None) => kept.push(k),
            (false, Some(_)) => {}
            (true, None) => red_static.push(k),
            (true, Some(digit)) => match (on(k, "lane"), on(k, "warp")) {
                (Some(s), _) => red_lanes.push((k, s)),
                (None, Some(s)) => red_warps.push((k, s, digit)),
                (None, None) => {
                    return Err(AxeError::at(
                        op,
                        format!(
                            "reducing over the {} axis of layout {} crosses CTAs, which a kernel cannot synchronize",
                            factors[k].places[0]
                                .as_ref()
                                .map(|p| p.axis.name().to_string())
                                .unwrap_or_default(),
                            src.layout
                        ),
                    ))
                }
            },
        }
    }
    // A result that is every thread's own along an axis (its layout does not name it) must
    // end up at every thread along it: where the source lies along that axis, its iters
    // there must all be reduced (the exchange leaves the total at each of them) and, with
    // its replicas, cover every coordinate the executing unit has.
    for axis in THREAD_AXES {
        if spans_thread_axis(&dst.layout, axis) || dst.pinned.contains(&axis) {
            continue;
        }
        if !spans_thread_axis(&src.layout, axis) && !src.pinned.contains(&axis) {
            continue;
        }
        let count = match axis {
            "lane" => c.lanes,
            "warp" => c.warps,
            _ => c.ctas,
        };
        let mut iters = address::replica_iters(&src.layout, axis);
        let mut kept_here = false;
        for (k, f) in factors.iter().enumerate() {
            if let Some(s) = on(k, axis) {
                kept_here |= !reduced(f.dim);
                iters.push((s, f.extent));
            }
        }
        let whole = address::covers_exactly(iters, count)
            && address::offset(&src.layout, axis) == 0
            && !src.pinned.contains(&axis);
        if kept_here || !whole {
            return Err(AxeError::at(
                op,
                format!(
                    "the result (layout {}) is every {axis}'s own, but only some {axis}s of the executing unit compute it from the source (layout {}): give the result the source's {axis} distribution, or reduce over all of its {axis}s",
                    dst.layout, src.layout
                ),
            ));
        }
    }
    if !red_warps.is_empty() {
        if ctx.emulate {
            return Err(AxeError::at(
                op,
                "emulate-threads-on-cpu cannot model the shared-memory exchange of a cross-warp reduction",
            ));
        }
        if !matches!(scope, ScopeKind::Cta | ScopeKind::Cluster) {
            return Err(AxeError::at(
                op,
                "a reduction across warps must execute at CTA scope (it synchronizes the CTA)",
            ));
        }
        if plan.valid.is_some() {
            return Err(AxeError::at(
                op,
                format!(
                    "cross-warp reduction of layout {} needs every thread of the CTA to take part",
                    src.layout
                ),
            ));
        }
    }
    if !red_lanes.is_empty() {
        if ctx.emulate {
            return Err(AxeError::at(
                op,
                "emulate-threads-on-cpu does not model warp shuffles: cross-lane reductions cannot be emulated",
            ));
        }
        if plan.valid.is_some() {
            return Err(AxeError::at(
                op,
                format!(
                    "cross-lane reduction of layout {} needs every lane of the warp to take part",
                    src.layout
                ),
            ));
        }
        if bit_width(src.elt) != 32 {
            return Err(AxeError::at(
                op,
                "warp-shuffle reductions are lowered for 32-bit element types only",
            ));
        }
        for &(k, s) in &red_lanes {
            if !(factors[k].extent as u64).is_power_of_two() || !(s as u64).is_power_of_two() {
                return Err(AxeError::at(
                    op,
                    format!(
                        "lane iters of layout {} are not power-of-two groups; xor shuffles need them",
                        src.layout
                    ),
                ));
            }
        }
    }
    let t = src.elt;
    let kext: Vec<i64> = kept.iter().map(|&k| factors[k].extent).collect();
    let kcombos = combos(&kext, &vec![1; kext.len()]);
    // Phase 1: in-thread and in-warp, per kept coordinate.
    let mut partials: Vec<(Vec<i64>, MlirValue)> = Vec::new();
    b.guarded(plan.valid, |g| {
        let rext: Vec<i64> = red_static.iter().map(|&k| factors[k].extent).collect();
        for kc in &kcombos {
            let mut digits = vec![0i64; factors.len()];
            for (&k, d) in kept.iter().zip(kc) {
                digits[k] = *d;
            }
            let mut level: Vec<MlirValue> = Vec::new();
            for rc in combos(&rext, &vec![1; rext.len()]) {
                for (&k, d) in red_static.iter().zip(&rc) {
                    digits[k] = *d;
                }
                let r = static_part(&plan, &factors, 0, &src.layout, "reg", &digits);
                level.push(load(&g, ctx, &src, Ix::C(r), 1, 1));
            }
            // Four interleaved chains, then a tree of the four: n values in about n / 4 + 2
            // dependent steps with four values live, where one chain takes n - 1 steps (32
            // maxima in a chain were most of an attention softmax's row-max latency) and a full
            // tree keeps n / 2 values live (and made ptxas spill in the causal attention kernel).
            const CHAINS: usize = 4;
            if level.len() > CHAINS {
                let mut chains: Vec<MlirValue> = level[..CHAINS].to_vec();
                for (i, &x) in level.iter().enumerate().skip(CHAINS) {
                    chains[i % CHAINS] = binary(&g, kind, chains[i % CHAINS], x, t, None);
                }
                level = chains;
            }
            while level.len() > 1 {
                level = level
                    .chunks(2)
                    .map(|p| match p {
                        [a, b2] => binary(&g, kind, *a, *b2, t, None),
                        [a] => *a,
                        _ => unreachable!("chunks of two"),
                    })
                    .collect();
            }
            // Factors have extents of at least 2 (`refine`), so there is at least one combination.
            let Some(mut acc) = level.pop() else {
                return Err(format!("internal: an empty reduction of layout {}", src.layout));
            };
            for &(k, s) in &red_lanes {
                let mut off = s;
                while off < s * factors[k].extent {
                    let o = g.ci32(off);
                    let w = g.ci32(32);
                    let (other, _valid) = g.gpu_shuffle_xor(acc, o, w);
                    acc = binary(&g, kind, acc, other, t, None);
                    off *= 2;
                }
            }
            for &k in &red_static {
                digits[k] = 0;
            }
            if red_warps.is_empty() {
                // Values made under the guard stay under it: store them here.
                let reg = RegIndex::of(&plan, &factors, 1, &dst.layout, &digits);
                for r in replica_offsets(&dst.layout, "reg") {
                    reg.store(&g, ctx, &dst, acc, r);
                }
            } else {
                partials.push((digits, acc));
            }
        }
        Ok::<(), String>(())
    })
    .at(op)?;
    // Phase 2: across warps, through shared memory (every thread takes part: no guard).
    if !red_warps.is_empty() {
        let warps = (ctx.threads + 31) / 32;
        let nk = kcombos.len() as i64;
        // One slot per (warp, lane, partial) where the lanes of a warp hold partials of
        // different output elements (a dimension kept, not reduced, lies on lanes): a slot per
        // warp alone had every lane of a warp write the same one (found by axe-fuzz
        // lowering-gpu, seed 100 case 2898: every output got one lane's value). Where every
        // lane dimension is reduced, the lanes of a warp hold the same partials after the
        // shuffles, and one slot per warp does.
        let lanes_kept = factors
            .iter()
            .enumerate()
            .any(|(k, f)| !reduced(f.dim) && on(k, "lane").is_some());
        let lane_slots = if lanes_kept { WARP_THREADS } else { 1 };
        let scratch = super::shared::shared_scratch(&b, op, t, nk * warps * lane_slots);
        let scratch_t = Tensor::scratch(
            scratch,
            Mem::Shared,
            src.layout.clone(),
            vec![nk * warps * lane_slots],
            t,
        );
        let warp = b.div(Ix::V(ctx.tid), 32);
        let lane = if lanes_kept {
            b.rem(Ix::V(ctx.tid), 32)
        } else {
            Ix::C(0)
        };
        let slot = |w: Ix, i: usize| b.add(b.mul(b.add(b.mul(w, lane_slots), lane), nk), Ix::C(i as i64));
        for (i, (_, acc)) in partials.iter().enumerate() {
            store(&b, ctx, &scratch_t, *acc, slot(warp, i), 1, 1);
        }
        b.gpu_barrier();
        // My group's first warp: subtract my reduced warp digits.
        let mut group = warp;
        for &(_, s, digit) in &red_warps {
            group = b.sub(group, b.mul(digit, s));
        }
        let wext: Vec<i64> = red_warps.iter().map(|&(k, _, _)| factors[k].extent).collect();
        for (i, (_, acc)) in partials.iter_mut().enumerate() {
            let mut total: Option<MlirValue> = None;
            for wc in combos(&wext, &vec![1; wext.len()]) {
                let mut w = group;
                for (&(_, s, _), d) in red_warps.iter().zip(&wc) {
                    w = b.add(w, Ix::C(d * s));
                }
                let x = load(&b, ctx, &scratch_t, slot(w, i), 1, 1);
                total = Some(match total {
                    None => x,
                    Some(a) => binary(&b, kind, a, x, t, None),
                });
            }
            // There is at least one reduced warp factor (`red_warps` is not empty), of extent 2
            // or more.
            *acc = total.ok_or_else(|| AxeError::at(op, "internal: a cross-warp reduction over no warps"))?;
        }
        // Every warp has read the scratch before any rewrites it (the next iteration of a loop
        // around this reduction), as `through_shared` does for conversions.
        b.gpu_barrier();
    }
    // Phase 3: store the cross-warp results (no guard: every thread took part).
    for (digits, acc) in &partials {
        let reg = RegIndex::of(&plan, &factors, 1, &dst.layout, digits);
        for r in replica_offsets(&dst.layout, "reg") {
            reg.store(&b, ctx, &dst, *acc, r);
        }
    }
    Ok(())
}
