//! `axe-infer-layout`: fill every `?` layout (Hexcute §4–5, on Axe layouts).
//!
//! Phases, analysis before rewriting:
//! 1. **Anchors.** Every gemm fixes its register operands to the target's tensor-core atom
//!    (`mma.sync m16n8k16` fragments, tiled over the warps of the scope that runs it).
//! 2. **Propagation** (worklist to a fixpoint, largest copies first): a copy between a known
//!    layout and an unknown register tensor gives the register side a coalesced, vectorized
//!    distribution (`blocked`); pointwise ops and casts share their destination's layout,
//!    broadcast operands get its projection; reduce projects its source; slices get `L[R:S]`.
//!    Shared memory cuts the dataflow: register layouts never flow through it.
//! 3. **Conflicts.** Where two propagated layouts disagree on a pointwise operand or a gemm
//!    input, an `axe.convert_layout` into a fresh tensor is inserted and a remark says so.
//! 4. **Shared memory.** Each `?` shared tensor gets the padded layout, in the global tensor's
//!    dimension order, with the fewest bank-conflict wavefronts over every access to it.
//! 5. **Rewrite and diagnose.** Inferred layouts are written into the types; a tensor nothing
//!    constrains, or one whose type cannot change (used by a non-Axe op), is a located error.

mod blocked;
pub mod check;
pub mod gemm;
mod project;
mod shared;

use crate::error::{AtOp, AxeError};
use std::collections::{HashMap, HashSet};

use axe_layout::{equivalent, Layout};
use melior::ir::operation::OperationRefMut;
use mlir_sys::{MlirOperation, MlirValue};

use crate::dialect::ods;
use crate::ir::{self, MemoryScope};
use crate::target::ScopeKind;
use blocked::Threads;

/// The ops the analysis reads, in program order.
const OPS: &[&str] = &[
    ods::ops::ALLOC,
    ods::ops::VIEW,
    ods::ops::SLICE,
    ods::ops::COPY,
    ods::ops::FILL,
    ods::ops::IOTA,
    ods::ops::GEMM,
    ods::ops::UNARY,
    ods::ops::BINARY,
    ods::ops::CAST,
    ods::ops::REDUCE,
    ods::ops::CONVERT_LAYOUT,
];

struct Inference {
    /// Known layouts, by value.
    known: HashMap<usize, Layout>,
    /// Values whose `?` this pass fills.
    inferred: Vec<MlirValue>,
    seen: HashSet<usize>,
    /// Swizzles chosen for shared tensors (phase 4).
    swizzles: HashMap<usize, axe_layout::swizzle::Swizzle>,
    /// `?` slice results: their layout is L[R:S] of their source's, set only by the slice
    /// rule (a slice views its source's storage; a layout chosen for it on its own would
    /// contradict the one its source gets).
    derived: HashSet<usize>,
    ok: bool,
}

impl Inference {
    fn layout(&self, v: MlirValue) -> Option<&Layout> {
        self.known.get(&ir::key(v))
    }

    /// Records an inferred layout for `v`; false when `v` already had one, or is a `?` slice
    /// result (whose layout only its source's decides: [`Self::set_sliced`]).
    fn set(&mut self, v: MlirValue, l: Layout) -> bool {
        if self.derived.contains(&ir::key(v)) {
            return false;
        }
        self.set_sliced(v, l)
    }

    /// [`Self::set`] for any value, slice results included.
    fn set_sliced(&mut self, v: MlirValue, l: Layout) -> bool {
        if self.known.contains_key(&ir::key(v)) {
            return false;
        }
        self.known.insert(ir::key(v), l);
        if self.seen.insert(ir::key(v)) {
            self.inferred.push(v);
        }
        true
    }

    fn fail(&mut self, op: MlirOperation, message: &str) {
        ir::error(op, message);
        self.ok = false;
    }
}

/// The threads executing `op`: its innermost `axe.scope`, or the whole CTA of its kernel.
pub(crate) fn threads_of(op: MlirOperation) -> Option<Threads> {
    let mut p = ir::parent(op);
    let mut kind: Option<ScopeKind> = None;
    while let Some(o) = p {
        match ir::name(o).as_str() {
            ods::ops::SCOPE if kind.is_none() => {
                kind = ir::int_attr(o, ods::scope::KIND).and_then(ScopeKind::from_i64);
                match kind {
                    Some(ScopeKind::Thread) => return Some(Threads { lanes: 1, warps: 1 }),
                    Some(ScopeKind::Warp) => return Some(Threads { lanes: 32, warps: 1 }),
                    Some(ScopeKind::Warpgroup) => return Some(Threads { lanes: 32, warps: 4 }),
                    _ => {}
                }
            }
            ods::ops::KERNEL => {
                let threads: i64 = ir::i64_array(o, ods::kernel::THREADS).iter().product();
                return Some(Threads {
                    lanes: 32.min(threads),
                    warps: (threads / 32).max(1),
                });
            }
            _ => {}
        }
        p = ir::parent(o);
    }
    None
}

pub(crate) fn scope(v: MlirValue) -> Option<MemoryScope> {
    ir::tensor_scope(ir::value_type(v))
}

pub(crate) fn shape(v: MlirValue) -> Vec<i64> {
    ir::shape(ir::value_type(v))
}

pub(crate) fn equal(a: &Layout, b: &Layout) -> bool {
    a == b || equivalent(a, b).map(|e| e.equal).unwrap_or(false)
}

/// Phase 1: the gemm anchors. Returns the A/B atom layouts per gemm (used to score shared
/// memory accesses in phase 4).
fn anchor_gemm(inf: &mut Inference, op: MlirOperation) -> Option<(Layout, Layout)> {
    let (a, b, c) = (
        ir::operand(op, ods::gemm::operands::A),
        ir::operand(op, ods::gemm::operands::B),
        ir::operand(op, ods::gemm::operands::C),
    );
    let (ta, tb) = (
        ir::has_attr(op, ods::gemm::TRANSPOSE_A),
        ir::has_attr(op, ods::gemm::TRANSPOSE_B),
    );
    let (sa, sc) = (shape(a), shape(c));
    let (m, n) = (sc[0], sc[1]);
    let k = if ta { sa[0] } else { sa[1] };
    let registers = [a, b, c].iter().any(|v| scope(*v) == Some(MemoryScope::Register));
    let threads = threads_of(op)?;
    let bits = ir::element_bits(ir::value_type(a));
    let acc_bits = ir::element_bits(ir::value_type(c));
    let shared = |v: MlirValue| scope(v) == Some(MemoryScope::Shared);
    // FP8 (e4m3/e5m2) has no mma.sync atom here, only wgmma (sm_90a, A and B in shared
    // memory, m64nNk32): the accumulator is the same D fragment as for 16-bit inputs.
    let elt = |v: MlirValue| crate::convert_axe_to_gpu::types::element_type(ir::value_type(v));
    if let (Some(ia), Some(ib)) = (gemm::WgmmaInput::of(elt(a)), gemm::WgmmaInput::of(elt(b))) {
        if ia.bytes() == 1 && ib.bytes() == 1 && acc_bits == 32 && gemm::has_wgmma(op) && shared(a) && shared(b) {
            return anchor_wgmma_accumulator(inf, op, c, m, n, k, ia.k(), threads.warps);
        }
    }
    if !(bits == 16 && acc_bits == 32) {
        if registers {
            inf.fail(
                op,
                &format!(
                    "no tensor-core atom for {} inputs with a {} accumulator (mma.sync m16n8k16 takes f16/bf16 into f32; wgmma also takes FP8 into f32, on an sm_90a target with A and B in shared memory)",
                    ir::element_type_name(ir::value_type(a)),
                    ir::element_type_name(ir::value_type(c))
                ),
            );
        }
        return None;
    }
    if m % 16 != 0 || n % 8 != 0 || k % 16 != 0 {
        inf.fail(
            op,
            &format!("a {m}x{n}x{k} gemm cannot be tiled by the mma.sync m16n8k16 atom"),
        );
        return None;
    }
    // sm_90a: B in shared memory and A in shared memory or registers make the gemm a wgmma
    // (convert-axe-to-gpu), whose accumulator is the m64nNk16 D fragment, the warpgroups
    // splitting M. A register A gets the m64k16 A fragment, which is mma.sync's A fragment over
    // the same (4 warps per warpgroup) x 1 grid — and the same map as a 16-bit copy of an
    // accumulator over those columns, so attention's P needs no conversion.
    let a_ok = shared(a) || scope(a) == Some(MemoryScope::Register);
    let mut wgmma = (gemm::has_wgmma(op) && a_ok && shared(b))
        .then(|| gemm::wgmma_warpgroups(m, n, k, 16, threads.warps))
        .flatten();
    // ... unless the accumulator is already laid out as a tiling of the mma.sync atom (not
    // wgmma's D fragment): the instruction follows the layout (paper §3.4), so a kernel can
    // keep mma.sync on sm_90a, e.g. beside setmaxnreg, which only sm_90a has.
    if let (Some(wg), Some(have)) = (wgmma, inf.layout(c)) {
        let is_wgmma = gemm::wgmma_accumulator(m, n, wg).is_ok_and(|w| equal(have, &w));
        if scope(c) == Some(MemoryScope::Register) && !is_wgmma && gemm::fragments_for(have, m, n, k).is_ok() {
            wgmma = None;
        }
    }
    let grid = match wgmma {
        Some(wg) => Some((4 * wg, 1)),
        None => gemm::warp_grid(m, n, threads.warps),
    };
    let Some((wm, wn)) = grid else {
        inf.fail(
            op,
            &format!(
                "{} warps cannot be arranged over the {}x{} atom grid of a {m}x{n} accumulator",
                threads.warps,
                m / 16,
                n / 8
            ),
        );
        return None;
    };
    let layouts = match gemm::mma_layouts(m, n, k, wm, wn) {
        Ok(mut l) => {
            if let Some(wg) = wgmma {
                match gemm::wgmma_accumulator(m, n, wg) {
                    Ok(c) => l.c = c,
                    Err(e) => {
                        inf.fail(op, &format!("cannot lay out the wgmma accumulator: {e}"));
                        return None;
                    }
                }
            }
            l
        }
        Err(e) => {
            inf.fail(op, &format!("cannot tile the mma atom: {e}"));
            return None;
        }
    };
    // An accumulator that already has a layout keeps it when it is any tiling of the mma.sync
    // atom over warps and registers: A's and B's fragments follow from it (paper §3.4).
    let layouts = match (wgmma, inf.layout(c).cloned()) {
        (None, Some(have)) if scope(c) == Some(MemoryScope::Register) => {
            gemm::fragments_for(&have, m, n, k).unwrap_or(layouts)
        }
        _ => layouts,
    };
    let a_want = if ta {
        gemm::transpose(&layouts.a, &[m, k]).ok()?
    } else {
        layouts.a.clone()
    };
    let b_want = if tb {
        gemm::transpose(&layouts.b, &[k, n]).ok()?
    } else {
        layouts.b.clone()
    };
    for (idx, v, want) in [(0, a, &a_want), (1, b, &b_want), (2, c, &layouts.c)] {
        if scope(v) != Some(MemoryScope::Register) {
            continue;
        }
        match inf.layout(v).cloned() {
            None => {
                inf.set(v, want.clone());
            }
            Some(have) if !equal(&have, want) => {
                if idx == 2 {
                    inf.fail(
                        op,
                        &format!(
                            "the accumulator's layout {have} is not the {} layout {want} this gemm needs",
                            if wgmma.is_some() {
                                "wgmma m64nNk16 accumulator"
                            } else {
                                "mma.sync m16n8k16"
                            }
                        ),
                    );
                } else {
                    convert_operand(inf, op, idx, want.clone(), "the mma.sync fragment layout");
                }
            }
            Some(_) => {}
        }
    }
    Some((a_want, b_want))
}

/// Phase 1 for a gemm that only `wgmma` computes (FP8 inputs in shared memory): the register
/// accumulator gets (or must already have) the m64nNkK D fragment over the scope's
/// warpgroups. A and B are shared, so there are no register fragments to anchor.
#[allow(clippy::too_many_arguments)]
fn anchor_wgmma_accumulator(
    inf: &mut Inference,
    op: MlirOperation,
    c: MlirValue,
    m: i64,
    n: i64,
    k: i64,
    k_atom: i64,
    warps: i64,
) -> Option<(Layout, Layout)> {
    let Some(wg) = gemm::wgmma_warpgroups(m, n, k, k_atom, warps) else {
        inf.fail(
            op,
            &format!(
                "a {m}x{n}x{k} gemm on {warps} warps is not tiled by the wgmma m64nNk{k_atom} atom (M a multiple of 64 per warpgroup, N of 8, K of {k_atom}, warps of 4)"
            ),
        );
        return None;
    };
    let want = match gemm::wgmma_accumulator(m, n, wg) {
        Ok(l) => l,
        Err(e) => {
            inf.fail(op, &format!("cannot lay out the wgmma accumulator: {e}"));
            return None;
        }
    };
    if scope(c) == Some(MemoryScope::Register) {
        match inf.layout(c).cloned() {
            None => {
                inf.set(c, want);
            }
            Some(have) if !equal(&have, &want) => inf.fail(
                op,
                &format!("the accumulator's layout {have} is not the wgmma m64nNk{k_atom} accumulator layout {want} this gemm needs"),
            ),
            Some(_) => {}
        }
    }
    None
}

/// Phase 3: operand `idx` of `op` must have `want`: copy it into a fresh tensor that has.
fn convert_operand(inf: &mut Inference, op: MlirOperation, idx: usize, want: Layout, why: &str) {
    let old = ir::operand(op, idx);
    let have = inf.layout(old).map(|l| l.to_string()).unwrap_or_else(|| "?".into());
    let ty = ir::with_layout(ir::value_type(old), &want);
    // SAFETY: `op` is in a block of the module being rewritten; `axe.alloc -> ty` and
    // `axe.convert_layout %old, %fresh` are valid forms of those ops (`ty` is `old`'s tensor
    // type with another layout) and their operands are defined before `op`; `fresh` has the
    // type the operand had, but for its layout, which is what `op` asks for.
    let alloc = unsafe { ir::create_before(op, ods::ops::ALLOC, &[], &[ty]) };
    let fresh = ir::result(alloc, 0);
    // SAFETY: as above; `fresh` is defined right before `op` and before the conversion.
    unsafe {
        ir::create_before(op, ods::ops::CONVERT_LAYOUT, &[old, fresh], &[]);
        ir::set_operand(op, idx, fresh);
    }
    inf.known.insert(ir::key(fresh), want.clone());
    ir::remark(
        op,
        &format!("layout conflict on operand #{idx}: {have} vs {want} ({why}); inserted axe.convert_layout"),
    );
}

/// Phase 2, one op. Returns whether anything new became known. With `choose`, only copies
/// between memory and registers, whose register layout is a free (coalescing) choice.
fn propagate(inf: &mut Inference, op: MlirOperation, choose: bool) -> bool {
    let name = ir::name(op);
    match name.as_str() {
        ods::ops::COPY => {
            let (src, dst) = (
                ir::operand(op, ods::copy::operands::SOURCE),
                ir::operand(op, ods::copy::operands::DEST),
            );
            for (from, to) in [(src, dst), (dst, src)] {
                if inf.layout(to).is_some() || scope(to) != Some(MemoryScope::Register) {
                    continue;
                }
                let from_register = scope(from) == Some(MemoryScope::Register);
                if from_register == choose {
                    continue;
                }
                let Some(known) = inf.layout(from).cloned() else {
                    continue;
                };
                // A `?` slice takes its layout from its source: the free choice is made for
                // the tensor it is sliced from (its whole shape, the memory side's order), and
                // the slice rule derives the slice's. A register-to-register copy leaves it.
                let mut target = to;
                if inf.derived.contains(&ir::key(to)) {
                    let root = slice_root(to);
                    if from_register || inf.layout(root).is_some() {
                        continue;
                    }
                    target = root;
                }
                let layout = if from_register {
                    Ok(known.clone())
                } else {
                    coalesced(
                        op,
                        &known,
                        &shape(to),
                        &shape(target),
                        ir::element_bits(ir::value_type(to)),
                    )
                };
                match layout {
                    Ok(l) => return inf.set(target, l),
                    Err(e) => inf.fail(op, &format!("cannot derive a register layout from {known}: {e}")),
                }
            }
            false
        }
        _ if choose => false,
        ods::ops::UNARY | ods::ops::CAST => {
            // Both are (source, dest).
            let (src, dst) = (
                ir::operand(op, ods::cast::operands::SOURCE),
                ir::operand(op, ods::cast::operands::DEST),
            );
            match (inf.layout(src).cloned(), inf.layout(dst).cloned()) {
                (Some(l), None) => inf.set(dst, l),
                (None, Some(l)) => inf.set(src, l),
                _ => false,
            }
        }
        ods::ops::BINARY => {
            let (lhs, rhs, dst) = (
                ir::operand(op, ods::binary::operands::LHS),
                ir::operand(op, ods::binary::operands::RHS),
                ir::operand(op, ods::binary::operands::DEST),
            );
            let dshape = shape(dst);
            let mut changed = false;
            if inf.layout(dst).is_none() {
                let full = [lhs, rhs]
                    .into_iter()
                    .find(|v| shape(*v) == dshape && inf.layout(*v).is_some());
                if let Some(l) = full.and_then(|v| inf.layout(v).cloned()) {
                    changed |= inf.set(dst, l);
                }
            }
            let Some(dl) = inf.layout(dst).cloned() else {
                return changed;
            };
            for v in [lhs, rhs] {
                if inf.layout(v).is_some() {
                    continue;
                }
                let vs = shape(v);
                let broadcast: Vec<usize> = (0..dshape.len()).filter(|&d| vs[d] == 1 && dshape[d] != 1).collect();
                let l = if broadcast.is_empty() {
                    Ok(dl.clone())
                } else {
                    project::project(&dl, &dshape, &broadcast)
                };
                match l {
                    Ok(l) => changed |= inf.set(v, l),
                    Err(e) => inf.fail(op, &format!("cannot project {dl} for broadcasting: {e}")),
                }
            }
            changed
        }
        ods::ops::REDUCE => {
            let (src, dst) = (
                ir::operand(op, ods::reduce::operands::SOURCE),
                ir::operand(op, ods::reduce::operands::DEST),
            );
            if inf.layout(dst).is_some() {
                return false;
            }
            let Some(sl) = inf.layout(src).cloned() else {
                return false;
            };
            let dims: Vec<usize> = ir::i64_array(op, ods::reduce::DIMS)
                .iter()
                .map(|&d| d as usize)
                .collect();
            match project::project(&sl, &shape(src), &dims) {
                Ok(l) => inf.set(dst, l),
                Err(e) => {
                    inf.fail(op, &format!("cannot project {sl} over the reduced dims: {e}"));
                    false
                }
            }
        }
        ods::ops::SLICE => {
            let (src, res) = (
                ir::operand(op, ods::slice::operands::SOURCE),
                ir::result(op, ods::slice::results::RESULT),
            );
            if inf.layout(res).is_some() {
                return false;
            }
            let Some(sl) = inf.layout(src).cloned() else {
                return false;
            };
            match crate::slice::sliced_layout(&sl, &shape(src), op) {
                Ok(l) => inf.set_sliced(res, l),
                Err(e) => {
                    inf.fail(
                        op,
                        &format!("the region of this slice admits no slice layout of {sl}: {e}"),
                    );
                    false
                }
            }
        }
        _ => false,
    }
}

/// A coalesced register layout of `shape` for copying a tensor of `copied` elements laid out
/// as `memory` (Hexcute: vector width from the memory layout's contiguity): `shape` is the
/// copied tensor's, or that of the tensor it is a slice of (same rank, same order).
fn coalesced(
    op: MlirOperation,
    memory: &Layout,
    copied: &[i64],
    shape: &[i64],
    bits: u32,
) -> crate::error::Result<Layout> {
    let threads = threads_of(op).ok_or_else(|| AxeError::at(op, "the copy is not inside an axe.kernel"))?;
    let (order, run) = blocked::memory_order(memory, copied).at(op)?;
    let vec = blocked::vector_width(run, bits);
    blocked::blocked(shape, &order, vec, threads).at(op)
}

/// The tensor a (chain of) `axe.slice` results is sliced from.
fn slice_root(mut v: MlirValue) -> MlirValue {
    while let Some(d) = ir::defining_op(v).filter(|d| ir::name(*d) == ods::ops::SLICE) {
        v = ir::operand(d, ods::slice::operands::SOURCE);
    }
    v
}

/// Phase 3 for pointwise ops: every full-shape operand must have the destination's layout.
fn resolve_pointwise(inf: &mut Inference, op: MlirOperation) {
    let name = ir::name(op);
    let (inputs, dst): (Vec<usize>, MlirValue) = match name.as_str() {
        ods::ops::UNARY | ods::ops::CAST => (
            vec![ods::cast::operands::SOURCE],
            ir::operand(op, ods::cast::operands::DEST),
        ),
        ods::ops::BINARY => (
            vec![ods::binary::operands::LHS, ods::binary::operands::RHS],
            ir::operand(op, ods::binary::operands::DEST),
        ),
        _ => return,
    };
    let Some(dl) = inf.layout(dst).cloned() else { return };
    let dshape = shape(dst);
    for idx in inputs {
        let v = ir::operand(op, idx);
        let Some(vl) = inf.layout(v).cloned() else { continue };
        let vs = shape(v);
        let broadcast: Vec<usize> = (0..dshape.len()).filter(|&d| vs[d] == 1 && dshape[d] != 1).collect();
        let want = if broadcast.is_empty() {
            dl.clone()
        } else {
            match project::project(&dl, &dshape, &broadcast) {
                Ok(l) => l,
                Err(_) => continue,
            }
        };
        if !equal(&vl, &want) {
            convert_operand(inf, op, idx, want, "the destination's distribution");
        }
    }
}

/// Phase 4: the layout of an unknown shared tensor from every access to it.
fn infer_shared(inf: &mut Inference, v: MlirValue, ops: &[MlirOperation], atoms: &HashMap<usize, (Layout, Layout)>) {
    let vshape = shape(v);
    let bits = ir::element_bits(ir::value_type(v));
    let mut accesses = Vec::new();
    let mut order: Option<(Vec<usize>, i64)> = None;
    let mut first_user: Option<MlirOperation> = None;
    for &op in ops {
        let name = ir::name(op);
        let operands: Vec<MlirValue> = (0..ir::num_operands(op)).map(|i| ir::operand(op, i)).collect();
        let Some(pos) = operands.iter().position(|o| ir::key(*o) == ir::key(v)) else {
            continue;
        };
        first_user.get_or_insert(op);
        match name.as_str() {
            ods::ops::COPY => {
                let other = operands[1 - pos];
                let Some(ol) = inf.layout(other).cloned() else { continue };
                if scope(other) == Some(MemoryScope::Register) {
                    accesses.push(shared::Access { threads: ol, vec: 1 });
                } else if let Ok((o, run)) = blocked::memory_order(&ol, &vshape) {
                    let vec = blocked::vector_width(run, bits);
                    if let Some(t) = threads_of(op) {
                        if let Ok(l) = blocked::blocked(&vshape, &o, vec, t) {
                            accesses.push(shared::Access { threads: l, vec });
                        }
                    }
                    order.get_or_insert((o, run));
                }
            }
            ods::ops::GEMM if pos < 2 => {
                if let Some((a, b)) = atoms.get(&(op.ptr as usize)) {
                    accesses.push(shared::Access {
                        threads: if pos == 0 { a.clone() } else { b.clone() },
                        vec: 2,
                    });
                }
            }
            _ => {}
        }
    }
    let Some(user) = first_user else { return };
    let (order, run) = order.unwrap_or_else(|| ((0..vshape.len()).rev().collect(), *vshape.last().unwrap_or(&1)));
    let vec = blocked::vector_width(run, bits);
    match shared::choose(&vshape, &order, vec, &accesses, (bits as i64 / 8).max(1)) {
        Ok(c) => {
            let swz = c
                .swizzle
                .map(|s| format!(" with Swizzle<{}, {}, {}>", s.bits, s.base, s.shift))
                .unwrap_or_default();
            ir::remark(
                user,
                &format!(
                    "shared layout {}{swz} chosen for operand of shape {vshape:?}: {} bank wavefronts over {} accesses",
                    c.layout,
                    c.wavefronts,
                    accesses.len()
                ),
            );
            if let Some(s) = c.swizzle {
                inf.swizzles.insert(ir::key(v), s);
            }
            inf.set(v, c.layout);
        }
        Err(e) => inf.fail(user, &format!("cannot choose a shared-memory layout: {e}")),
    }
}

/// The pass body, with its options (generated from `AxePasses.td`, read by
/// [`crate::run_pass`]).
pub fn run(root: OperationRefMut, options: &ods::passes::AxeInferLayoutOptions) -> bool {
    let root = root.to_raw();
    if options.check_only {
        return check::run(root);
    }
    let mut inf = Inference {
        known: HashMap::new(),
        inferred: Vec::new(),
        seen: HashSet::new(),
        swizzles: HashMap::new(),
        derived: HashSet::new(),
        ok: true,
    };
    let ops = ir::collect(root, OPS);
    for &op in ops.iter().filter(|o| ir::name(**o) == ods::ops::SLICE) {
        let res = ir::result(op, ods::slice::results::RESULT);
        if ir::tensor_layout(ir::value_type(res)).is_none() {
            inf.derived.insert(ir::key(res));
        }
    }

    // Every Axe tensor value the ops touch, with the layouts already known.
    let mut values: Vec<MlirValue> = Vec::new();
    let mut listed = HashSet::new();
    for &op in &ops {
        let results: Vec<MlirValue> = (0..ir::num_results(op)).map(|i| ir::result(op, i)).collect();
        let operands: Vec<MlirValue> = (0..ir::num_operands(op)).map(|i| ir::operand(op, i)).collect();
        for v in operands.into_iter().chain(results) {
            let t = ir::value_type(v);
            if !ir::is_tensor(t) || !listed.insert(ir::key(v)) {
                continue;
            }
            if let Some(l) = ir::tensor_layout(t) {
                inf.known.insert(ir::key(v), l);
            }
            values.push(v);
        }
    }

    // Phase 1: anchors.
    let mut atoms = HashMap::new();
    for &op in ops.iter().filter(|o| ir::name(**o) == ods::ops::GEMM) {
        if let Some(ab) = anchor_gemm(&mut inf, op) {
            atoms.insert(op.ptr as usize, ab);
        }
    }
    // Phase 2: exact constraints (pointwise, reduce, slice, register copies) to a fixpoint;
    // only then the free choice of one coalesced copy layout — the largest copy first — and
    // again. A register tensor thus takes its consumers' layout when they have one.
    let mut copies: Vec<MlirOperation> = ops.iter().copied().filter(|o| ir::name(*o) == ods::ops::COPY).collect();
    copies.sort_by_key(|o| -shape(ir::operand(*o, 0)).iter().product::<i64>());
    loop {
        for _ in 0..256 {
            let mut changed = false;
            for &op in &ops {
                changed |= propagate(&mut inf, op, false);
            }
            if !changed {
                break;
            }
        }
        if !copies.iter().any(|&op| propagate(&mut inf, op, true)) {
            break;
        }
    }
    // Phase 3: conflicts on pointwise operands.
    for &op in &ops {
        resolve_pointwise(&mut inf, op);
    }
    // Phase 4: shared memory, scored against every access. A slice of a `?` shared tensor is
    // not chosen on its own: its layout is L[R:S] of the one its source gets (a slice views
    // its source's storage), derived once the sources are chosen.
    let ops_now = ir::collect(root, OPS);
    let slices: Vec<MlirOperation> = ops_now
        .iter()
        .copied()
        .filter(|o| ir::name(*o) == ods::ops::SLICE)
        .collect();
    let is_slice = |v: MlirValue| ir::defining_op(v).is_some_and(|d| ir::name(d) == ods::ops::SLICE);
    for &v in &values {
        if inf.layout(v).is_none() && scope(v) == Some(MemoryScope::Shared) && !is_slice(v) {
            infer_shared(&mut inf, v, &ops_now, &atoms);
        }
    }
    while slices
        .iter()
        .fold(false, |changed, &op| propagate(&mut inf, op, false) | changed)
    {}
    for &op in &slices {
        // The slice's swizzle is its source's (it addresses the same bytes).
        let (src, res) = (
            ir::operand(op, ods::slice::operands::SOURCE),
            ir::result(op, ods::slice::results::RESULT),
        );
        if let Some(&s) = inf.swizzles.get(&ir::key(src)) {
            if inf.seen.contains(&ir::key(res)) {
                inf.swizzles.insert(ir::key(res), s);
            }
        }
    }
    // Phase 5: write the types; diagnose what stays unknown.
    for &v in &inf.inferred.clone() {
        let Some(l) = inf.layout(v).cloned() else { continue };
        let owner = ir::defining_op(v);
        if let Some(user) = ir::users(v).into_iter().find(|u| !ods::is_axe_op(&ir::name(*u))) {
            let at = owner.unwrap_or(user);
            inf.fail(
                at,
                &format!(
                    "inferred layout {l} cannot be written: the tensor is used by '{}', whose types would change",
                    ir::name(user)
                ),
            );
            continue;
        }
        match owner {
            Some(_) => {
                let mut t = ir::with_layout(ir::value_type(v), &l);
                if let Some(s) = inf.swizzles.get(&ir::key(v)) {
                    t = ir::with_swizzle(t, Some(s));
                }
                // SAFETY: only the layout (and swizzle) of the `!axe.tensor` changes; the
                // users checked above accept any layout.
                unsafe { ir::set_value_type(v, t) }
            }
            None => {
                let user = ir::users(v).first().copied();
                if let Some(u) = user {
                    inf.fail(u, &format!("inferred layout {l} for a block argument; give the argument this layout in the function signature"));
                }
            }
        }
    }
    // What stays unknown: `?` global tensors first (they are causes), then — only when nothing
    // failed before, so one root cause does not cascade — tensors nothing constrains.
    let unknown: Vec<MlirValue> = values
        .iter()
        .copied()
        .filter(|&v| inf.layout(v).is_none() && ir::tensor_layout(ir::value_type(v)).is_none())
        .collect();
    for global in [true, false] {
        for &v in &unknown {
            if (scope(v) == Some(MemoryScope::Global)) != global || (!global && !inf.ok) {
                continue;
            }
            let Some(at) = ir::defining_op(v).or_else(|| ir::users(v).first().copied()) else {
                continue;
            };
            let what = if global {
                "a global tensor's layout is never inferred; give it one (e.g. with axe.view)"
            } else {
                "no operation constrains this tensor's layout"
            };
            inf.fail(at, &format!("cannot infer a layout: {what}"));
        }
    }
    inf.ok
}
