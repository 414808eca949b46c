//! `axe.copy` (and `axe.convert_layout` between register layouts): picks the schedule from
//! the operands' memories and the copy's `schedule` — into or out of registers thread-bound,
//! memory to memory distributed over the unit's threads (both in `distribute.rs`), register to
//! register through shared memory where elements change threads, global to shared with
//! `cp.async`, and `ldmatrix` (`ldmatrix.rs`). TMA copies are `tma.rs`'s.

use crate::error::{AtOp, AxeError};
use mlir_sys::*;

use super::address::{self, check_schedule, refine, Factor};
use super::builder::{has_attr, Ix, B};
use super::context::{unit_linear, Ctx, R};
use super::distribute::{bound_may_cut, distributed, flat, strided_flat, strided_offsets, thread_bound, vector_width};
use super::tensor::{swizzled, tensor, Mem, Tensor};
use super::types::bit_width;
use crate::dialect::ods::{self, CopySchedule, ReduceKind};
use crate::ir;
use crate::target::ScopeKind;

pub fn lower(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    let b = B::before(op);
    // An `axe.convert_layout` has no schedule: it is an `auto` copy.
    let schedule = if ir::name(op) == ods::ops::COPY {
        ir::enum_attr::<CopySchedule>(op, ods::copy::SCHEDULE)?.unwrap_or(ods::copy::SCHEDULE_DEFAULT)
    } else {
        CopySchedule::Auto
    };
    // TMA copies are lowered by `tma.rs`; when emulating on the CPU they are plain copies,
    // as are ldmatrix copies (`ldmatrix.rs`).
    if schedule == CopySchedule::Tma && !ctx.emulate {
        return Err(AxeError::at(
            op,
            format!("internal: a copy of schedule '{schedule}' reached the generic copy lowering (TMA copies are the TMA lowering's)"),
        ));
    }
    // A reducing TMA store reaches here only in the CPU emulation (the GPU lowering is
    // `bulk.rs`): the copy below, each element added into the destination.
    // The same kinds and element types as the GPU lowering, so that what emulates also lowers.
    let accumulate = match ir::enum_attr::<ReduceKind>(op, ods::copy::REDUCE)? {
        None => false,
        Some(k) => {
            let elt = super::types::element_type(ir::value_type(ir::operand(op, ods::copy::operands::SOURCE)));
            super::bulk::reduction_suffix(k, &ir::type_to_string(elt)).map_err(|e| AxeError::at(op, e))?;
            true
        }
    };
    let cp_async = schedule == CopySchedule::CpAsync && !ctx.emulate;
    let src = tensor(ctx, op, ir::operand(op, ods::copy::operands::SOURCE))?;
    let dst = tensor(ctx, op, ir::operand(op, ods::copy::operands::DEST))?;
    // Partial tiles (`{clip}`, run-time ends) are accessed by predicated loads and stores
    // (`distribute.rs`) and cp.async's zero fill; on the GPU, TMA copies of `{clip}` tiles are
    // `tma.rs`'s (zero fill past the tensor, stores clipped by the tensor map). TMA has no
    // bound inside a tensor, so a window whose run-time end may fall inside it is refused
    // there (`tma_plan.rs`) and here alike: what the emulation runs, the GPU lowers. (A window
    // that ends at its tensor's end is TMA's own bound: it runs here as predicated accesses.)
    if schedule == CopySchedule::Tma {
        for (role, o) in [
            ("source", ods::copy::operands::SOURCE),
            ("destination", ods::copy::operands::DEST),
        ] {
            if crate::slice::is_window_inside(ir::operand(op, o)) {
                return Err(AxeError::at(op, super::tma_plan::tma_window_refusal(role)));
            }
        }
    }
    if schedule == CopySchedule::Ldmatrix && !ctx.emulate {
        return super::ldmatrix::lower(op, ctx, scope, &src, &dst);
    }
    let n = dst.size();
    if src.size() != n {
        return Err(AxeError::at(op, "internal: source and destination have different element counts (the axe.copy and axe.convert_layout verifiers require one shape)"));
    }
    let ops = [flat(&src), flat(&dst)];
    let factors = refine(&[n], &ops).at(op)?;
    let bits = bit_width(dst.elt);
    // Register to register where elements change threads: through shared memory.
    if src.mem == Mem::Register
        && dst.mem == Mem::Register
        && check_schedule(&factors, &ops, 1, &[false, true]).is_err()
    {
        return through_shared(&b, op, ctx, scope, &src, &dst, bits);
    }
    match (src.mem, dst.mem) {
        (_, Mem::Register) => thread_bound(&b, op, ctx, scope, &factors, &ops, &src, &dst, 1, bits),
        (Mem::Register, _) => thread_bound(&b, op, ctx, scope, &factors, &ops, &src, &dst, 0, bits),
        (Mem::Global, Mem::Shared) if cp_async => {
            async_copy(&b, op, ctx, scope, &factors, &src, &dst, bits)?;
            if !has_attr(op, ods::copy::ASYNC) {
                // A synchronous copy waits for its own cp.async groups right away.
                wait_groups(&b, 0);
            }
            Ok(())
        }
        _ => distributed(&b, op, ctx, scope, &factors, Some(&src), &dst, None, bits, accumulate),
    }
}

/// A register-to-register copy (`axe.convert_layout`) whose elements change threads: every
/// thread stores what it holds into a row-major shared scratch buffer, the unit synchronizes,
/// every thread loads what it needs, and the unit synchronizes again (so the buffer can be
/// rewritten, e.g. by the next loop iteration). Units are CTAs (`gpu.barrier`) or warps
/// (`bar.warp.sync`); warpgroups would need named barriers and are refused.
#[allow(clippy::too_many_arguments)]
fn through_shared(
    b: &B,
    op: MlirOperation,
    ctx: &Ctx,
    scope: ScopeKind,
    src: &Tensor,
    dst: &Tensor,
    bits: i64,
) -> R<()> {
    // Shared memory is the CTA's: an element held in another CTA's (cluster's, device's)
    // registers cannot reach this one (found by `axe-fuzz lowering-gpu`: each CTA read what it
    // had not written).
    if let Some(why) = crosses_ctas(src, dst, ctx.ctas) {
        return Err(AxeError::at(op, why));
    }
    if ctx.emulate {
        return Err(AxeError::at(op, "this layout conversion moves elements between threads (through shared memory, with barriers), which emulate-threads-on-cpu cannot run"));
    }
    let sync = |b: &B| -> R<()> {
        match scope {
            ScopeKind::Cta => {
                b.gpu_barrier();
            }
            ScopeKind::Warp => {
                let mask = b.ci32(-1);
                b.bar_warp_sync(mask);
            }
            other => {
                return Err(AxeError::at(op, format!(
                    "moving register elements between threads at {other:?} scope needs a barrier of that scope (named barriers are not lowered); convert at warp or CTA scope"
                ).to_lowercase()))
            }
        }
        Ok(())
    };
    let n = dst.size();
    let layout = axe_layout::Layout::row_major(&dst.shape).at(op)?;
    let buf = super::shared::shared_scratch(b, op, dst.elt, n);
    let scratch = Tensor::scratch(buf, Mem::Shared, layout, dst.shape.clone(), dst.elt);
    let ops1 = [flat(src), flat(&scratch)];
    let f1 = refine(&[n], &ops1).at(op)?;
    thread_bound(b, op, ctx, scope, &f1, &ops1, src, &scratch, 0, bits)?;
    sync(b)?;
    let ops2 = [flat(&scratch), flat(dst)];
    let f2 = refine(&[n], &ops2).at(op)?;
    thread_bound(b, op, ctx, scope, &f2, &ops2, &scratch, dst, 1, bits)?;
    sync(b)
}

/// Why a conversion from `src` to `dst` (register layouts of the same elements) would move an
/// element between CTAs: some element is needed in a CTA that holds no replica of it. A layout
/// that names no `cta` coordinate is held by every CTA of the grid (`ctas` of them), one that
/// is a register slice at CTA 0 (`Tensor::pinned`) by CTA 0 alone. None when every element
/// stays in its CTAs.
fn crosses_ctas(src: &Tensor, dst: &Tensor, ctas: i64) -> Option<String> {
    const CTA: &str = "cta";
    if ctas <= 1 {
        return None;
    }
    // The CTAs holding element `e` of `t`: None for all of them.
    let units = |t: &Tensor, e: i64| -> Option<Vec<i64>> {
        if super::tensor::spans_thread_axis(&t.layout, CTA) {
            let points = t.layout.eval_set_flat(e).unwrap_or_default();
            Some(
                points
                    .iter()
                    .map(|p| p.get(&axe_layout::Axis::new(CTA)).copied().unwrap_or(0))
                    .collect(),
            )
        } else if t.pinned.contains(&CTA) {
            Some(vec![0])
        } else {
            None
        }
    };
    for e in 0..src.size().min(dst.size()) {
        let (have, need) = (units(src, e), units(dst, e));
        let missing = match (&have, &need) {
            (None, _) => None,
            (Some(_), None) => Some(if have.as_ref().is_some_and(|h| h.contains(&0)) {
                1
            } else {
                0
            }),
            (Some(h), Some(n)) => n.iter().copied().find(|u| !h.contains(u)),
        };
        if let Some(cta) = missing {
            let held = match have {
                Some(h) => format!("only in CTA {h:?}"),
                None => "in every CTA".into(),
            };
            return Some(format!(
                "this layout conversion would move element {e} between CTAs: layout {} holds it {held}, layout {} needs it in CTA {cta}; registers cannot be exchanged between CTAs, so go through global memory (or keep the CTA coordinates)",
                src.layout, dst.layout
            ));
        }
    }
    None
}

/// Waits until at most `outstanding` of this thread's cp.async groups (one per copy, in issue
/// order) are in flight (`cp.async.wait_group N`); the CTA barrier that makes the data visible
/// to other threads stays the program's `axe.barrier`.
pub fn wait_groups(b: &B, outstanding: i64) {
    b.cp_async_wait_group(outstanding);
}

/// Global → shared with `cp.async` (`nvvm.cp.async.shared.global`, 4/8/16 bytes per thread
/// and access, `.cg` for 16): the unit's threads stride over the vectors as in `distributed`,
/// committing one group per access. Completion is `wait_all` (at the copy, or at `axe.wait`).
///
/// The instruction takes raw pointers, taken from the memrefs with
/// `memref.extract_aligned_pointer_as_index` (lowered inside the GPU module, so kernels keep
/// bare-pointer parameters; `nvgpu.device_async_copy` is lowered before kernel outlining and
/// made the outlined kernel take whole memref descriptors instead).
#[allow(clippy::too_many_arguments)]
fn async_copy(
    b: &B,
    op: MlirOperation,
    ctx: &Ctx,
    scope: ScopeKind,
    factors: &[Factor],
    src: &Tensor,
    dst: &Tensor,
    bits: i64,
) -> R<()> {
    let n: i64 = factors.iter().map(|f| f.extent).product();
    let mem_ops: Vec<(usize, &Tensor)> = vec![(1, dst), (0, src)];
    let last = factors.len().checked_sub(1);
    let v = last.map(|k| vector_width(factors, k, &mem_ops, bits)).unwrap_or(1);
    let bytes = v * bits / 8;
    if src.dyn_align != 0 && (src.dyn_align * bits / 8) % 4 != 0 {
        // A window at any origin moves by its dimension's stride: accesses are only as aligned.
        return Err(AxeError::at(
            op,
            format!(
                "cp.async moves 4, 8 or 16 aligned bytes per access, but this source starts at a run-time origin that is only known to be a multiple of {} bytes (a window at any origin, 'until', moves by its dimension's stride); copy it through registers, or window a dimension whose stride is a multiple of 16 bytes",
                src.dyn_align * bits / 8
            ),
        ));
    }
    if ![4, 8, 16].contains(&bytes) {
        // Say what limits the width: the layouts' contiguous runs, or a buffer whose base is
        // not known to be aligned enough (then the fix is a declaration, not a layout).
        let widest = [16i64, 8, 4].into_iter().find(|b| {
            b * 8 % bits == 0 && {
                let w = b * 8 / bits;
                let unaligned: Vec<Tensor> = mem_ops
                    .iter()
                    .map(|(_, t)| Tensor {
                        base_align: 16,
                        bounds: Vec::new(),
                        ..(*t).clone()
                    })
                    .collect();
                let refs: Vec<(usize, &Tensor)> = mem_ops.iter().zip(&unaligned).map(|((o, _), t)| (*o, t)).collect();
                last.is_some_and(|k| vector_width(factors, k, &refs, bits) >= w)
            }
        });
        let hint = match widest {
            Some(b) if b > bytes => format!(
                "; the layouts allow {b}-byte accesses, but the source buffer is only known to be {}-byte aligned: declare its alignment on the function argument ({{axe.align = 16 : i64}})",
                src.base_align
            ),
            _ => " (contiguous runs of 4, 8 or 16 bytes on both sides are needed)".to_string(),
        };
        return Err(AxeError::at(op, format!(
            "cp.async moves 4, 8 or 16 bytes per access, but source layout {} and destination layout {} allow {bytes}-byte accesses{hint}",
            src.layout, dst.layout
        )));
    }
    let (tid, units) = unit_linear(b, ctx, scope);
    let elt_bytes = bits / 8;
    // A partial source tile: each access reads only the bytes before the bounds and cp.async
    // zero-fills the rest (`src-size`). That is a prefix of the access, so a vector may cross
    // a bound only along the dimension it runs along (stride 1).
    let src_dim_strides = address::suffix_products(&src.shape);
    let scattered = v > 1 && factors.last().is_some_and(|f| f.weight != 1);
    if let Some(d) = src.bounds.iter().enumerate().position(|(d, bound)| {
        if bound.is_some() && scattered {
            // The access's elements are not consecutive logical elements: no prefix of it is
            // the part before a bound.
            return true;
        }
        bound.as_ref().is_some_and(|(_, divisor)| {
            let st = src_dim_strides[d];
            if st == 1 {
                src.shape[d] % v != 0
            } else {
                bound_may_cut(st, src.shape[d], *divisor, v)
            }
        })
    }) {
        return Err(AxeError::at(op, format!(
            "cp.async accesses of {bytes} bytes would straddle the bound of dimension {d} of the partial source tile (shape {:?}); copy through registers",
            src.shape
        )));
    }
    let i32t = b.int_type(32);
    let src_bytes = |g: &B, q: MlirValue| -> Option<MlirValue> {
        if src.bounds.iter().all(Option::is_none) {
            return None;
        }
        let flat = strided_flat(g, Ix::V(q), factors, v);
        let mut count = Ix::C(v);
        let mut inside: Option<MlirValue> = None;
        for (d, bound) in src.bounds.iter().enumerate() {
            let Some((bound, _)) = bound else { continue };
            let coord = g.rem(g.div(flat, src_dim_strides[d]), src.shape[d]);
            if src_dim_strides[d] == 1 {
                // Along the access: the elements before the bound, 0 to v.
                let left = g.ix(g.sub(*bound, coord));
                count = Ix::V(g.maxsi(g.minsi(left, g.cidx(v)), g.cidx(0)));
            } else {
                let lt = g.cmp(melior::dialect::arith::CmpiPredicate::Slt, coord, *bound);
                inside = Some(inside.map_or(lt, |p| g.and(p, lt)));
            }
        }
        let mut n = g.ix(g.mul(count, elt_bytes));
        if let Some(inside) = inside {
            n = g.select(inside, n, g.cidx(0));
        }
        Some(g.index_cast(n, i32t))
    };
    let base_of = |t: &Tensor| b.extract_aligned_pointer_as_index(t.buf);
    let (src_base, dst_base) = (base_of(src), base_of(dst));
    let (i64t, gptr, sptr, gen) = (b.int_type(64), b.llvm_ptr(1), b.llvm_ptr(3), b.llvm_ptr(0));
    b.for_(tid, Ix::C(n / v), Ix::C(units), |g, q| {
        let addr = strided_offsets(&g, Ix::V(q), factors, v, &mem_ops);
        // Byte addresses: base + element index * element size.
        let byte_addr = |base: MlirValue, elem: Ix| g.ix(g.add(Ix::V(base), g.mul(elem, elt_bytes)));
        let as_i64 = |x: MlirValue| g.index_cast(x, i64t);
        let s_elem = g.add(g.add(addr[0], Ix::C(address::offset(&src.layout, "m"))), src.dyn_offset);
        let s_gen = g.inttoptr(as_i64(byte_addr(src_base, s_elem)), gen);
        let s_ptr = g.addrspacecast(s_gen, gptr);
        let base = g.add(g.add(addr[1], Ix::C(address::offset(&dst.layout, "m"))), dst.dyn_offset);
        let cache = if bytes == 16 { "cg" } else { "ca" };
        let read = src_bytes(&g, q);
        for r in address::replica_offsets(&dst.layout, "m") {
            let mut elem = g.add(base, Ix::C(r));
            if let Some(s) = &dst.swizzle {
                elem = swizzled(&g, s, elem);
            }
            let d_ptr = g.inttoptr(as_i64(byte_addr(dst_base, elem)), sptr);
            let modifier = g.attr(&format!("#nvvm<load_cache_modifier {cache}>"));
            g.cp_async_shared_global(d_ptr, s_ptr, bytes, modifier, read);
        }
        Ok::<(), String>(())
    })
    .at(op)?;
    // One group per copy (an empty group for a thread with nothing to copy completes at once).
    b.cp_async_commit_group();
    Ok(())
}
