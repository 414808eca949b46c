//! Thread distribution: how a unit's threads share the elements of a copy-like operation.
//!
//! * thread-bound (`thread_bound`): the register operand drives — each thread computes its
//!   lane/warp digits once, then walks the registers it owns (the `reg` factors, unrolled)
//!   with the other side's address `base + constant`; a `{clip}` destination's stores are
//!   predicated on the tensor's bounds;
//! * distributed (`distributed`): memory to memory, and fills — the unit's threads stride over
//!   the elements.
//!
//! A factor that is contiguous on both sides (register stride 1 and memory stride 1)
//! becomes vector loads/stores of 2, 4 or 8 elements (at most 16 bytes) when the memory side
//! is provably aligned (every other memory stride and the offset are multiples of the
//! width, [`vector_width`]); otherwise accesses are scalar. Used by the copy, elementwise and
//! gemm lowerings.

use crate::error::AtOp;
use melior::dialect::arith::CmpiPredicate;
use mlir_sys::*;

use super::address::Coords;
use super::address::{
    self, check_schedule, combos, dynamic_part, plan_threads, refine, static_part, Factor, Operand, ThreadPlan,
};
use super::builder::{Ix, B};
use super::context::{coords, unit_linear, Ctx, R};
use super::tensor::{load, loaded_type, spans_thread_axis, store, Mem, Tensor, THREAD_AXES};
use super::types::bit_width;
use crate::target::ScopeKind;
use axe_layout::Layout;

/// The widest vector (2, 4 or 8 elements, ≤ 16 bytes) along factor `k` that keeps every
/// memory operand in `mem_ops` aligned — relative to its base, and the base itself aligned at
/// least as much (`Tensor::base_align`); 1 when none does.
pub fn vector_width(factors: &[Factor], k: usize, mem_ops: &[(usize, &Tensor)], elt_bits: i64) -> i64 {
    // A swizzle keeps runs of 2^M elements together, and no longer ones.
    let swizzle_cap = mem_ops
        .iter()
        .filter_map(|(_, t)| t.swizzle.map(|s| 1i64 << s.base))
        .min()
        .unwrap_or(i64::MAX);
    for v in [8i64, 4, 2] {
        if v * elt_bits > 128 || factors[k].extent % v != 0 || elt_bits % 8 != 0 || v > swizzle_cap {
            continue;
        }
        let ok = mem_ops.iter().all(|(o, t)| {
            // The access is aligned relative to the base; the base must be at least as aligned,
            // and so must every run-time offset (a window at any origin moves by its stride only).
            v * elt_bits / 8 <= t.base_align
                && (t.dyn_align == 0 || t.dyn_align % v == 0)
                && factors[k].places[*o]
                    .as_ref()
                    .is_some_and(|p| p.axis.name() == "m" && p.stride == 1)
                && factors
                    .iter()
                    .enumerate()
                    .all(|(j, f)| j == k || f.places[*o].as_ref().is_none_or(|p| p.stride % v == 0))
                && address::offset(&t.layout, "m") % v == 0
                && address::replica_offsets(&t.layout, "m").iter().all(|r| r % v == 0)
        });
        if ok {
            return v;
        }
    }
    1
}

/// A register of a thread's share of a tensor: a constant, plus, where the register depends
/// on the thread ([`address::thread_bound_terms`]), the sum of those digits times their
/// strides. Such a register is accessed as a choice among the constant registers it can be
/// (selects), not by a run-time index: a run-time index into a thread's registers makes
/// LLVM keep them in local memory.
pub struct RegIndex {
    pub base: i64,
    pub terms: Vec<(Ix, i64, i64)>,
}

impl RegIndex {
    pub fn of(plan: &ThreadPlan, factors: &[Factor], o: usize, layout: &Layout, digits: &[i64]) -> RegIndex {
        RegIndex {
            base: static_part(plan, factors, o, layout, "reg", digits),
            terms: address::thread_bound_terms(plan, factors, o, "reg"),
        }
    }

    /// The run-time part (`Σ digit · stride`) and every value it can take.
    fn choices(&self, g: &B) -> (Ix, Vec<i64>) {
        let mut at = Ix::C(0);
        for &(d, _, s) in &self.terms {
            at = g.add(at, g.mul(d, s));
        }
        let extents: Vec<i64> = self.terms.iter().map(|t| t.1).collect();
        let mut values: Vec<i64> = combos(&extents, &vec![1; extents.len()])
            .iter()
            .map(|c| c.iter().zip(&self.terms).map(|(d, t)| d * t.2).sum())
            .collect();
        values.sort_unstable();
        values.dedup();
        (at, values)
    }

    /// Loads the element at this register (plus `extra`) of the register tensor `t`.
    pub fn load(&self, g: &B, ctx: &Ctx, t: &Tensor, extra: i64) -> MlirValue {
        if self.terms.is_empty() {
            return load(g, ctx, t, Ix::C(self.base + extra), 1, 1);
        }
        let (at, values) = self.choices(g);
        let mut val = load(g, ctx, t, Ix::C(self.base + extra + values[0]), 1, 1);
        for &c in &values[1..] {
            let here = g.cmp(CmpiPredicate::Eq, at, Ix::C(c));
            let x = load(g, ctx, t, Ix::C(self.base + extra + c), 1, 1);
            val = g.select(here, x, val);
        }
        val
    }

    /// Stores `val` at this register (plus `extra`) of the register tensor `t`: each register
    /// it can be keeps its value unless it is the one.
    pub fn store(&self, g: &B, ctx: &Ctx, t: &Tensor, val: MlirValue, extra: i64) {
        if self.terms.is_empty() {
            store(g, ctx, t, val, Ix::C(self.base + extra), 1, 1);
            return;
        }
        let (at, values) = self.choices(g);
        for c in values {
            let r = Ix::C(self.base + extra + c);
            let here = g.cmp(CmpiPredicate::Eq, at, Ix::C(c));
            let old = load(g, ctx, t, r, 1, 1);
            store(g, ctx, t, g.select(here, val, old), r, 1, 1);
        }
    }
}

/// Why an op whose threads follow `driver` cannot read or write the register operand
/// `other`, or `None` when it may run. Along a thread axis the driver does not name, every
/// thread of the executing unit (`c`) runs the op with its own registers, so `other` must be
/// every such thread's too: not named on that axis either (each thread's own), or replicated
/// over all of its coordinates. Refused: a register slice at coordinate 0 of the axis
/// (`Tensor::pinned`), and a tensor replicated over only some of them (e.g. 18 of 32 lanes):
/// the threads past them would use registers that hold nothing, or other elements.
pub fn ownership_refusal(driver: &Tensor, other: &Tensor, c: &Coords) -> Option<String> {
    if other.mem != Mem::Register {
        return None;
    }
    for axis in THREAD_AXES {
        if driver.pinned.contains(&axis) || spans_thread_axis(&driver.layout, axis) {
            continue;
        }
        if other.pinned.contains(&axis) {
            return Some(format!(
                "an operand of layout {} is a register slice held only by {axis} 0 (it is sliced from a tensor distributed over {axis}s), but the threads of this op follow layout {}, which every {axis} runs: give that layout the {axis} coordinate too (slice it likewise) or go through memory",
                other.layout, driver.layout
            ));
        }
        let count = match axis {
            "lane" => c.lanes,
            "warp" => c.warps,
            _ => c.ctas,
        };
        if spans_thread_axis(&other.layout, axis) && !replicated_over_all(&other.layout, axis, count) {
            return Some(format!(
                "an operand of layout {} is held by some {axis}s only, but the threads of this op follow layout {}, which every {axis} of the executing unit runs ({count}): replicate the operand over all of them, or give the op's layout the operand's {axis}s",
                other.layout, driver.layout
            ));
        }
    }
    None
}

/// Whether `layout` holds each of its elements at every one of the `count` coordinates of
/// `axis`: no shard iter and no offset there, and replica iters that form one compact digit
/// system of `count`.
fn replicated_over_all(layout: &Layout, axis: &str, count: i64) -> bool {
    if layout.shard.iter().any(|it| it.axis.name() == axis && it.extent > 1) || address::offset(layout, axis) != 0 {
        return false;
    }
    address::covers_exactly(address::replica_iters(layout, axis), count)
}

pub fn flat(t: &Tensor) -> Operand<'_> {
    Operand {
        layout: &t.layout,
        shape: vec![t.size()],
        dim_map: vec![Some(0)],
    }
}

/// Copies `src` (any memory) into the register tensor `dst` (used by the gemm lowering to
/// materialize mma fragments from shared or global memory).
pub fn into_registers(b: &B, op: MlirOperation, ctx: &Ctx, scope: ScopeKind, src: &Tensor, dst: &Tensor) -> R<()> {
    let n = dst.size();
    let ops = [flat(src), flat(dst)];
    let factors = refine(&[n], &ops).at(op)?;
    thread_bound(b, op, ctx, scope, &factors, &ops, src, dst, 1, bit_width(dst.elt))
}

/// Copies driven by the register operand `driver` (0: source, 1: destination).
#[allow(clippy::too_many_arguments)]
pub fn thread_bound(
    b: &B,
    op: MlirOperation,
    ctx: &Ctx,
    scope: ScopeKind,
    factors: &[Factor],
    ops: &[Operand],
    src: &Tensor,
    dst: &Tensor,
    driver: usize,
    bits: i64,
) -> R<()> {
    let other = 1 - driver;
    let (dt, ot) = if driver == 1 { (dst, src) } else { (src, dst) };
    let c = coords(b, ctx, scope);
    if let Some(why) = ownership_refusal(dt, ot, &c) {
        return Err(crate::error::AxeError::at(op, why));
    }
    // A written register slice may not use a register its own layout leaves free: the tensor
    // it is sliced from holds something there.
    check_schedule(factors, ops, driver, &[false, !dst.sliced]).at(op)?;
    let plan = plan_threads(b, &c, factors, driver, &dt.layout, &dt.pinned).at(op)?;
    // Vectorize along the fastest static factor contiguous in registers and memory.
    let statics: Vec<usize> = (0..factors.len()).filter(|&k| plan.digits[k].is_none()).collect();
    let mut vk = None;
    let mut v = 1;
    if ot.mem != Mem::Register {
        if let Some(&k) = statics.last() {
            let reg_unit = factors[k].places[driver]
                .as_ref()
                .is_some_and(|p| p.axis.name() == "reg" && p.stride == 1);
            if reg_unit {
                v = vector_width(factors, k, &[(other, ot)], bits);
                if v > 1 {
                    vk = Some(k);
                }
            }
        }
    }
    // A partial tile in memory (`{clip}`, or a window with a run-time end): every access is
    // predicated on its logical coordinates lying inside the bounds — stores are skipped,
    // loads give zero. A vector is accessed whole or not at all, so along a bounded dimension
    // it must not straddle a bound: vectors start at multiples of `v`, hence the bound must
    // be one too (else scalars).
    let dim_strides = address::suffix_products(&ot.shape);
    if let Some(k) = vk {
        // The vector's elements are `w` apart in the row-major index, and start at a multiple of
        // `w v` plus less than `w` (the factors are a mixed radix of it): they keep one index
        // of dimension d when it moves by whole vector spans (its stride a multiple of `w v`)
        // or only every multiple of its whole extent; along d itself (w = its stride) they
        // cross a bound only where the bound may fall inside a vector.
        let w = factors[k].weight;
        let straddles = ot.bounds.iter().enumerate().any(|(d, bound)| {
            let Some((_, divisor)) = bound else { return false };
            let (st, span) = (dim_strides[d], dim_strides[d] * ot.shape[d]);
            let safe = if w % span == 0 {
                true
            } else if w < st {
                st % (w * v) == 0
            } else if w == st {
                divisor % v == 0 && ot.shape[d] % v == 0
            } else {
                false
            };
            !safe
        });
        if straddles {
            v = 1;
            vk = None;
        }
    }
    let align = v * bits / 8;
    b.guarded(plan.valid, |g| {
        let base = if ot.mem == Mem::Register {
            Ix::C(0)
        } else {
            dynamic_part(&g, &plan, factors, other, "m")
        };
        let extents: Vec<i64> = statics.iter().map(|&k| factors[k].extent).collect();
        let steps: Vec<i64> = statics.iter().map(|&k| if Some(k) == vk { v } else { 1 }).collect();
        for combo in combos(&extents, &steps) {
            let mut digits = vec![0i64; factors.len()];
            for (&k, d) in statics.iter().zip(&combo) {
                digits[k] = *d;
            }
            let reg = static_part(&plan, factors, driver, &dt.layout, "reg", &digits);
            // The other operand's register (it may depend on the thread: `RegIndex`).
            let other_reg = RegIndex::of(&plan, factors, other, &ot.layout, &digits);
            let other_ix = if ot.mem == Mem::Register {
                Ix::C(other_reg.base)
            } else {
                g.add(
                    base,
                    Ix::C(static_part(&plan, factors, other, &ot.layout, "m", &digits)),
                )
            };
            // The logical index of the (first) element: the digits times their weights.
            let flat = || {
                let mut flat = Ix::C(0);
                for (k, f) in factors.iter().enumerate() {
                    let dg = match plan.digits[k] {
                        Some(t) => t,
                        None => Ix::C(digits[k]),
                    };
                    flat = g.add(flat, g.mul(dg, f.weight));
                }
                flat
            };
            if driver == 1 {
                let val = match inside_bounds(&g, ot, flat) {
                    None if ot.mem == Mem::Register => other_reg.load(&g, ctx, ot, 0),
                    None => load(&g, ctx, ot, other_ix, v, align),
                    Some(inside) => g.if_value(
                        inside,
                        loaded_type(&g, ot.elt, v),
                        |ig| load(ig, ctx, ot, other_ix, v, align),
                        |eg| eg.zero(loaded_type(eg, ot.elt, v)),
                    ),
                };
                for r in address::replica_offsets(&dt.layout, "reg") {
                    store(&g, ctx, dt, val, Ix::C(reg + r), v, align);
                }
            } else {
                let val = load(&g, ctx, dt, Ix::C(reg), v, align);
                let emit = |g: &B| {
                    if ot.mem == Mem::Register {
                        for r in address::replica_offsets(&ot.layout, "reg") {
                            other_reg.store(g, ctx, ot, val, r);
                        }
                        return;
                    }
                    for r in address::replica_offsets(&ot.layout, "m") {
                        store(g, ctx, ot, val, g.add(other_ix, Ix::C(r)), v, align);
                    }
                };
                match inside_bounds(&g, ot, flat) {
                    None => emit(&g),
                    Some(inside) => {
                        g.if_(inside, |ig| {
                            emit(&ig);
                            Ok::<(), String>(())
                        })?;
                    }
                }
            }
        }
        Ok::<(), String>(())
    })
    .at(op)
}

/// Whether the element at logical (row-major) index `flat()` of the partial tile `t` exists:
/// its coordinate along every bounded dimension is below the bound (signed: a bound may be
/// negative for a tile wholly past the end). `None` when `t` has no bounds.
fn inside_bounds(g: &B, t: &Tensor, flat: impl FnOnce() -> Ix) -> Option<MlirValue> {
    if t.bounds.iter().all(Option::is_none) {
        return None;
    }
    let flat = flat();
    let dim_strides = address::suffix_products(&t.shape);
    let mut inside: Option<MlirValue> = None;
    for (d, bound) in t.bounds.iter().enumerate() {
        let Some((bound, _)) = bound else { continue };
        let coord = g.rem(g.div(flat, dim_strides[d]), t.shape[d]);
        let lt = g.cmp(CmpiPredicate::Slt, coord, *bound);
        inside = Some(match inside {
            None => lt,
            Some(p) => g.and(p, lt),
        });
    }
    inside
}

/// Whether a vector of `v` elements along the last of `factors` (consecutive in the row-major
/// index when that factor's weight is 1, starting at a multiple of `v`) may straddle one of
/// the bounds of the partial tile `t`: it may unless every bounded dimension moves by whole
/// vectors (its stride a multiple of `v`) or its bound and extent fall on vector boundaries
/// (known divisors). Vectors of elements that are not consecutive are taken to straddle.
pub fn vector_straddles(t: &Tensor, v: i64, factors: &[Factor]) -> bool {
    let has_bounds = t.bounds.iter().any(Option::is_some);
    if has_bounds && v > 1 && factors.last().is_some_and(|f| f.weight != 1) {
        return true;
    }
    let dim_strides = address::suffix_products(&t.shape);
    t.bounds.iter().enumerate().any(|(d, bound)| {
        bound
            .as_ref()
            .is_some_and(|&(_, divisor)| bound_may_cut(dim_strides[d], t.shape[d], divisor, v))
    })
}

/// Whether a bound of a dimension of row-major stride `st` and `extent` (its index count a
/// multiple of `divisor`) may fall inside a run of `v` consecutive row-major elements starting
/// at a multiple of `v`: not if the dimension moves by whole runs, nor if the bound and the
/// dimension's whole span fall on run boundaries.
pub fn bound_may_cut(st: i64, extent: i64, divisor: i64, v: i64) -> bool {
    !(st % v == 0 || ((divisor * st) % v == 0 && (st * extent) % v == 0))
}

/// The digits of the `q`-th vector of `v` elements when the units stride over `factors`: the
/// last factor is the vectorized one (its extent counted in vectors, each digit standing for
/// `v` elements), the others are split off `q` by their weights. `each` gets every factor, its
/// digit and the digit's scale (v for the last factor, else 1), in order.
fn for_each_strided_digit(g: &B, q: Ix, factors: &[Factor], v: i64, mut each: impl FnMut(&Factor, Ix, i64)) {
    let last = factors.len().checked_sub(1);
    for (k, f) in factors.iter().enumerate() {
        let (w, e, scale) = if Some(k) == last {
            (1, f.extent / v, v)
        } else {
            (f.weight / v, f.extent, 1)
        };
        let qd = g.div(q, w);
        let d = if k == 0 { qd } else { g.rem(qd, e) };
        each(f, d, scale);
    }
}

/// The row-major logical index of the first element of the `q`-th vector of `v` elements when
/// the units stride over `factors`: its digits times the factors' weights. What the predicates
/// of partial tiles compare.
pub fn strided_flat(g: &B, q: Ix, factors: &[Factor], v: i64) -> Ix {
    let mut flat = Ix::C(0);
    for_each_strided_digit(g, q, factors, v, |f, d, scale| {
        flat = g.add(flat, g.mul(d, f.weight * scale))
    });
    flat
}

/// The element offsets, for each operand of `mem_ops` (indexed by its operand number), of the
/// `q`-th vector of `v` elements when the units stride over `factors`: the last factor is the
/// vectorized one (its extent counted in vectors), the others are split off `q` by their
/// weights.
pub fn strided_offsets(g: &B, q: Ix, factors: &[Factor], v: i64, mem_ops: &[(usize, &Tensor)]) -> [Ix; 2] {
    let mut addr = [Ix::C(0); 2];
    for_each_strided_digit(g, q, factors, v, |f, d, scale| {
        for &(o, _) in mem_ops {
            if let Some(p) = &f.places[o] {
                addr[o] = g.add(addr[o], g.mul(d, p.stride * scale));
            }
        }
    });
    addr
}

/// Memory-to-memory copies and fills: the unit's threads stride over the elements
/// (vectors of `v` when contiguous and aligned). `value` is a fill's scalar. `accumulate`:
/// each destination element becomes its old value plus the new one (a reducing copy as the
/// CPU emulation runs it: threads one after another, so plain loads and stores add exactly).
#[allow(clippy::too_many_arguments)]
pub fn distributed(
    b: &B,
    op: MlirOperation,
    ctx: &Ctx,
    scope: ScopeKind,
    factors: &[Factor],
    src: Option<&Tensor>,
    dst: &Tensor,
    value: Option<MlirValue>,
    bits: i64,
    accumulate: bool,
) -> R<()> {
    // Operand indices in `factors`: with a source, 0 = source, 1 = destination.
    let d_ix = if src.is_some() { 1 } else { 0 };
    let n: i64 = factors.iter().map(|f| f.extent).product();
    let mut mem_ops: Vec<(usize, &Tensor)> = vec![(d_ix, dst)];
    if let Some(s) = src {
        mem_ops.push((0, s));
    }
    let last = factors.len().checked_sub(1);
    let mut v = last.map(|k| vector_width(factors, k, &mem_ops, bits)).unwrap_or(1);
    // Partial tiles (`{clip}`, run-time ends): vectors that may straddle a bound become
    // scalars; accesses are predicated below.
    if mem_ops.iter().any(|(_, t)| vector_straddles(t, v, factors)) {
        v = 1;
    }
    let align = v * bits / 8;
    let (tid, units) = unit_linear(b, ctx, scope);
    let nv = n / v;
    let vec_ty = b.vector_type(dst.elt, &[v as u64]);
    let splat = value.map(|x| if v > 1 { b.vector_broadcast(x, vec_ty) } else { x });
    b.for_(tid, Ix::C(nv), Ix::C(units), |g, q| {
        let addr = strided_offsets(&g, Ix::V(q), factors, v, &mem_ops);
        let flat = || strided_flat(&g, Ix::V(q), factors, v);
        let val = match (src, splat) {
            (Some(s), _) => {
                let a = g.add(addr[0], Ix::C(address::offset(&s.layout, "m")));
                match inside_bounds(&g, s, flat) {
                    None => load(&g, ctx, s, a, v, align),
                    Some(inside) => g.if_value(
                        inside,
                        loaded_type(&g, s.elt, v),
                        |ig| load(ig, ctx, s, a, v, align),
                        |eg| eg.zero(loaded_type(eg, s.elt, v)),
                    ),
                }
            }
            (None, Some(x)) => x,
            // The callers pass a source (a copy) or a value (a fill).
            (None, None) => return Err("internal: a distributed copy with neither a source nor a value".to_string()),
        };
        let base = g.add(addr[d_ix], Ix::C(address::offset(&dst.layout, "m")));
        let emit = |g: &B| {
            for r in address::replica_offsets(&dst.layout, "m") {
                let at = g.add(base, Ix::C(r));
                let val = if accumulate {
                    let old = load(g, ctx, dst, at, v, align);
                    if super::types::is_float(dst.elt) {
                        g.addf(old, val)
                    } else {
                        g.addi(old, val)
                    }
                } else {
                    val
                };
                store(g, ctx, dst, val, at, v, align);
            }
        };
        match inside_bounds(&g, dst, flat) {
            None => emit(&g),
            Some(inside) => {
                g.if_(inside, |ig| {
                    emit(&ig);
                    Ok::<(), String>(())
                })?;
            }
        }
        Ok::<(), String>(())
    })
    .at(op)?;
    Ok(())
}
