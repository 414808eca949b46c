//! TMA copies (`axe.copy ... schedule tma`, sm_90+) and their mbarrier completion.
//!
//! **Dispatch** (the Axe paper §3.4, "TMA asynchronous copy"). The global source must be a
//! view of a kernel argument, or slices of one (static or run-time origins); its root layout
//! must be a strided tensor: every logical dimension one memory iter, one of stride 1, the
//! others multiples of 16 bytes. That root becomes the tensor map (`CUtensorMap`): dimensions
//! ordered by stride, built on the host by upstream's `nvgpu.tma.create.descriptor` before
//! the launch and passed to the kernel as a pointer. The shared destination is partitioned
//! into TMA boxes: the swizzle atom (`#axe.swizzle<1|2|3, M, 3>` with 2^M elements = 16 bytes:
//! the hardware's 32/64/128-byte modes; rows of one swizzle span, 8 rows per period) fixes
//! the innermost box extent; each outer box extent is the largest (≤ 256) for which the box is
//! one row-major run of the destination layout — the tiler `T` with `L_S ≡ T ⊗ L_atom`,
//! found and then verified element by element against the Axe layout (the compile-time
//! oracle). Each box's shared offset must be a multiple of the swizzle period (1024 bytes for
//! 128B), or of 128 bytes unswizzled. A layout without such a tiling is a located error.
//!
//! **Completion.** Each TMA copy site owns an mbarrier (64-bit, shared memory, initialized
//! once per CTA with an arrival count of 1). Thread 0 issues `mbarrier.arrive.expect_tx`
//! (the copy's bytes) and one `cp.async.bulk.tensor` per box; the copy's `!axe.token`
//! becomes the barrier's index (an `i32`, so tokens can flow through `scf.for` iter_args).
//! `axe.wait %t` waits on that barrier's current phase with `mbarrier.try_wait.parity`. Every
//! thread tracks the phase parity of each barrier (one bit each) and which barriers have a copy
//! in flight (`pending`, what a plain `axe.wait` waits for), in a per-thread `i32` pair that
//! LLVM keeps in registers. A copy site must be waited for once before it is issued again.
//!
//! **Explicit barriers** (`axe.mbarrier`, the warp-specialized pipelines of the Axe paper
//! §4.1). Each `axe.mbarrier` is one more barrier of the same array, initialized with its
//! `arrivals`; its value is the barrier index. A TMA copy `barrier %b` completes there
//! instead of on a barrier of its own: the first thread of each executing unit issues
//! `mbarrier.arrive.expect_tx` (one arrival plus the copy's bytes) and the boxes, and nothing
//! else tracks it — the program states the phases (`axe.mbarrier_wait %b, %parity`:
//! `mbarrier.try_wait.parity`) and the releases (`axe.mbarrier_arrive`: `mbarrier.arrive` by
//! each executing thread). No per-thread phase bits are involved, so these copies may be
//! issued from a role's own scope and loop (a producer warp) and waited for in another's.

use crate::error::{AtOp, AxeError};
use std::collections::HashMap;

use axe_layout::{eval::flatten, Layout};
use axe_upstream_ods::{arith, scf};
use mlir_sys::*;

use super::builder::{Ix, B};
use super::{bit_width, Ctx, R};
use crate::dialect::ods::{self, CopySchedule, MemoryScope};
use crate::ir;
use crate::slice::DYNAMIC;
use crate::target::ScopeKind;
use melior::dialect::arith::CmpiPredicate;

/// At most this many TMA copy sites and `axe.arrive` ops per kernel (one mbarrier, one phase
/// bit and one pending bit each in an `i32`). 31, not 32: on an H100, every kernel tested
/// with 32 or more sites (multi-stage GEMMs of 5, 6 and 7 stages, with and without
/// `axe.arrive`) failed at launch ("unspecified launch failure"; compute-sanitizer: errors at
/// the mbarrier arrivals), while the same kernels with up to 31 sites ran correctly; widening
/// the phase/pending words to `i64` did not change that. Until the cause is found, more sites
/// are refused here rather than lowered to a kernel that faults.
const MAX_BARRIERS: usize = 31;
/// `mbarrier.try_wait` suspend-time hint (ns), as CUTLASS uses.
const TRY_WAIT_TICKS: i64 = 0x989680;

use crate::target::{MBARRIER_MAX_TX_BYTES, TMA_GLOBAL_ALIGN, TMA_MAX_MULTICAST_CTAS};

/// A tensor map: one global tensor (a kernel argument) seen as TMA dimensions.
pub struct TensorMap {
    pub memref: MlirValue,
    pub elt: MlirType,
    /// Extents and element strides, outermost first (the memref order `nvgpu` uses).
    pub dims: Vec<i64>,
    pub strides: Vec<i64>,
    /// The box, outermost first.
    pub boxes: Vec<i64>,
    /// Swizzle span in bytes (0: none).
    pub span: i64,
}

/// One TMA copy site: a load (global → shared, completing on its mbarrier) or a store (shared
/// → global, a bulk async group the issuing thread waits for).
pub struct Site {
    pub barrier: usize,
    /// The barrier is an `axe.mbarrier` the copy names (`barrier %b`), not the site's own.
    pub explicit: bool,
    pub store: bool,
    pub map: usize,
    /// The TMA dimensions (outermost first): root logical dimension, weight, extent.
    pub dims: Vec<TmaDim>,
    /// Per root logical dimension: the static part of the tile origin and its run-time parts.
    pub origin: Vec<(i64, Vec<MlirValue>)>,
    /// Per box: its origin in tile coordinates (root dimension order) and shared element offset.
    pub boxes: Vec<(Vec<i64>, i64)>,
    pub bytes: i64,
    pub elt_bytes: i64,
    /// `multicast [d, ...]`: the cluster dimensions along which the CTAs share the tile.
    pub multicast: Option<Multicast>,
}

/// The group of CTAs a multicast copy shares its tile with: those of the cluster that differ
/// from the executing CTA only along `dims`; there are `parts` of them, and member j issues
/// boxes j, j + parts, ... of the tile, each written into every member's shared memory.
#[derive(Clone, Debug)]
pub struct Multicast {
    pub dims: Vec<usize>,
    pub parts: i64,
}

/// The TMA state of one kernel.
#[derive(Default)]
pub struct State {
    pub maps: Vec<TensorMap>,
    pub sites: HashMap<usize, Site>,
    /// `axe.arrive` op → its barrier index.
    pub arrives: HashMap<usize, usize>,
    /// `axe.mbarrier` op → its barrier index.
    pub explicit: HashMap<usize, usize>,
    /// Arrival count of every barrier: 1 for a TMA copy site (its issuing thread), the CTA's
    /// threads for an `axe.arrive`.
    pub counts: Vec<i64>,
    /// `after` tokens whose wait is already emitted in the issuing thread's code, per block.
    pub released: std::collections::HashSet<(usize, usize)>,
    /// Set up in the launch body: the barrier array's shared address (i64), the per-thread
    /// `memref<2xi32>` (phase bits, pending bits), and the kernel-side tensor-map pointers.
    pub bars: Option<MlirValue>,
    pub state: Option<MlirValue>,
    pub map_ptrs: Vec<MlirValue>,
}

impl State {
    /// Whether the kernel has TMA copies (loads or stores) or `axe.arrive` barriers.
    pub fn active(&self) -> bool {
        !self.counts.is_empty() || !self.maps.is_empty()
    }
}

fn err<T>(op: MlirOperation, msg: impl Into<String>) -> R<T> {
    Err(AxeError::at(op, msg))
}

/// Plans every TMA copy of `kernel` (before the launch exists: the tensor maps are built on
/// the host, ahead of it).
pub fn plan(kernel: MlirOperation, threads: i64) -> R<State> {
    let mut st = State::default();
    let too_many = |op| {
        err(
            op,
            format!("more than {MAX_BARRIERS} mbarriers in one kernel (axe.mbarrier ops, TMA copy sites without a barrier, axe.arrive ops) are not supported"),
        )
    };
    // Explicit barriers first: their copies refer to them.
    for op in ir::collect(kernel, &[ods::ops::MBARRIER]) {
        if st.counts.len() == MAX_BARRIERS {
            return too_many(op);
        }
        let arrivals = super::builder::int_attr(op, ods::mbarrier::ARRIVALS)
            .ok_or_else(|| AxeError::at(op, "internal: axe.mbarrier without arrivals"))?;
        st.explicit.insert(op.ptr as usize, st.counts.len());
        st.counts.push(arrivals);
    }
    for op in ir::collect(kernel, &[ods::ops::COPY, ods::ops::ARRIVE]) {
        let arrive = ir::name(op) == ods::ops::ARRIVE;
        if !arrive && ir::copy_schedule(op) != Some(CopySchedule::Tma) {
            continue;
        }
        let id = st.counts.len();
        if !arrive && is_store(op) {
            let site = plan_site(op, kernel, &mut st.maps, usize::MAX)?;
            st.sites.insert(op.ptr as usize, site);
            continue;
        }
        if let Some(bar) = (!arrive).then(|| copy_barrier(op)).flatten() {
            let id = explicit_index(&st.explicit, op, bar)?;
            let mut site = plan_site(op, kernel, &mut st.maps, id)?;
            site.explicit = true;
            st.sites.insert(op.ptr as usize, site);
            continue;
        }
        if id == MAX_BARRIERS {
            return too_many(op);
        }
        if arrive {
            // Its token orders TMA copies of one block (the issuing thread waits once).
            let users = ir::users(ir::result(op, 0));
            let block = |o: MlirOperation| ir::block_of(o).map(|b| b.ptr);
            for &u in &users {
                if ir::name(u) != ods::ops::COPY {
                    return err(
                        u,
                        "an axe.arrive token orders TMA copies ('after'); it is not waited on or carried",
                    );
                }
                if block(u) != block(users[0]) {
                    return err(u, "the TMA copies after one axe.arrive must be in one block");
                }
            }
            st.arrives.insert(op.ptr as usize, id);
            st.counts.push(threads);
        } else {
            let site = plan_site(op, kernel, &mut st.maps, id)?;
            st.sites.insert(op.ptr as usize, site);
            st.counts.push(1);
        }
    }
    Ok(st)
}

/// A copy's `after` operand (an `!axe.token`, or the `i32` it has become once its
/// `axe.arrive` is lowered), if any: the optional operand that is not the barrier.
fn copy_after(op: MlirOperation) -> Option<MlirValue> {
    let min = ods::copy::MIN_OPERANDS;
    (min..ir::num_operands(op))
        .map(|i| ir::operand(op, i))
        // SAFETY: the operand's type is live (module contract).
        .find(|&v| !unsafe { crate::dialect::ffi::axeTypeIsAMBarrier(ir::value_type(v)) })
}

/// A copy's `barrier` operand (an `!axe.mbarrier`), if any.
pub fn copy_barrier(op: MlirOperation) -> Option<MlirValue> {
    let min = ods::copy::MIN_OPERANDS;
    (min..ir::num_operands(op))
        .map(|i| ir::operand(op, i))
        // SAFETY: the operand's type is live (module contract).
        .find(|&v| unsafe { crate::dialect::ffi::axeTypeIsAMBarrier(ir::value_type(v)) })
}

/// The barrier index of `op`'s `!axe.mbarrier` operand `v` (the verifier guarantees an
/// `axe.mbarrier` defines it; planning gave each one its index).
fn explicit_index(explicit: &HashMap<usize, usize>, op: MlirOperation, v: MlirValue) -> R<usize> {
    ir::defining_op(v)
        .and_then(|d| explicit.get(&(d.ptr as usize)).copied())
        .ok_or_else(|| AxeError::at(op, "the barrier must be defined by an axe.mbarrier of this kernel"))
}

fn explicit_barrier(op: MlirOperation, ctx: &Ctx, v: MlirValue) -> R<i64> {
    explicit_index(&ctx.tma.explicit, op, v).map(|i| i as i64)
}

/// `axe.mbarrier_arrive %b [cta %r]`: one arrival on `%b` by each executing thread (release),
/// or on barrier `%b` of the cluster's CTA of rank `%r` (its address in that CTA's shared
/// memory from `mapa`).
pub fn mbarrier_arrive(op: MlirOperation, ctx: &Ctx) -> R<()> {
    let b = B::before(op);
    let id = explicit_barrier(op, ctx, ir::operand(op, ods::mbarrier_arrive::operands::BARRIER))?;
    let bar = barrier_ptr(&b, ctx, b.ci32(id));
    if ir::num_operands(op) > ods::mbarrier_arrive::MIN_OPERANDS {
        let rank = b.index_cast(ir::operand(op, ods::mbarrier_arrive::MIN_OPERANDS), b.int_type(32));
        let remote = b.mapa(bar, rank, b.llvm_ptr(7));
        // Release at CTA scope (the instruction's default, as CUTLASS's cluster barriers
        // arrive): what a peer must not overwrite is read by this CTA's own async copies and
        // wgmma, complete once they were waited for. A cluster-scope release here cost the
        // clustered f16 GEMM about a quarter of its throughput on an H100.
        b.mbarrier_arrive(remote);
    } else {
        b.mbarrier_arrive(bar);
    }
    Ok(())
}

/// `axe.mbarrier_wait %b, %parity`: each executing thread waits (acquire) for the phase of
/// that parity to complete.
pub fn mbarrier_wait(op: MlirOperation, ctx: &Ctx) -> R<()> {
    let b = B::before(op);
    let id = explicit_barrier(op, ctx, ir::operand(op, ods::mbarrier_wait::operands::BARRIER))?;
    let bar = barrier_ptr(&b, ctx, b.ci32(id));
    let parity = b.extui(ir::operand(op, ods::mbarrier_wait::operands::PARITY), b.int_type(32));
    // A loop around the non-looping try_wait, not `nvvm.mbarrier.try_wait.parity`: that op's
    // PTX loop branches with `bra.uni`, which asserts the warp is converged, and the lanes of
    // a role need not be (a producer warp's lane 0 issues copies while the others wait on).
    let ticks = b.ci32(TRY_WAIT_TICKS);
    b.spin_while(|w| {
        let done = w.mbarrier_try_wait(bar, parity, ticks);
        w.cmpi(CmpiPredicate::Eq, done, w.cbool(false))
    });
    Ok(())
}

/// `axe.arrive` (every thread of the CTA): a non-blocking arrival on its barrier; returns the
/// token (the barrier index).
pub fn arrive(op: MlirOperation, ctx: &Ctx, scope: ScopeKind) -> R<MlirValue> {
    if scope != ScopeKind::Cta {
        return err(
            op,
            format!("axe.arrive counts every thread of the CTA; this one executes at {scope:?} scope").to_lowercase(),
        );
    }
    let b = B::before(op);
    let id = *ctx
        .tma
        .arrives
        .get(&(op.ptr as usize))
        .ok_or_else(|| AxeError::at(op, "internal: unplanned axe.arrive"))?;
    let idv = b.ci32(id as i64);
    let bar = barrier_ptr(&b, ctx, idv);
    b.mbarrier_arrive(bar);
    Ok(idv)
}

/// The swizzle span (bytes) of a destination's `#axe.swizzle`, as TMA's 32/64/128B modes.
fn swizzle_span(op: MlirOperation, s: Option<axe_layout::swizzle::Swizzle>, elt_bytes: i64) -> R<i64> {
    let Some(s) = s else { return Ok(0) };
    let log2e = elt_bytes.trailing_zeros() as i64;
    if s.base as i64 + log2e == 4 && s.shift == 3 && (1..=3).contains(&s.bits) {
        return Ok(16 << s.bits);
    }
    err(op, format!(
        "#axe.swizzle<{}, {}, {}> is not a TMA swizzle mode: for {}-byte elements TMA swizzles are #axe.swizzle<1|2|3, {}, 3> (32, 64, 128 bytes)",
        s.bits, s.base, s.shift, elt_bytes, 4 - log2e
    ))
}

/// Whether a TMA copy is a store (shared → global).
fn is_store(op: MlirOperation) -> bool {
    let scope = |i: usize| ir::tensor_scope(ir::value_type(ir::operand(op, i)));
    scope(0) == Some(MemoryScope::Shared) && scope(1) == Some(MemoryScope::Global)
}

fn plan_site(op: MlirOperation, kernel: MlirOperation, maps: &mut Vec<TensorMap>, barrier: usize) -> R<Site> {
    let store = is_store(op);
    if store && ir::num_results(op) == 1 {
        return err(
            op,
            "a TMA store is synchronous (it completes when the op ends): drop 'async'",
        );
    }
    // The global operand (the tensor map's view) and the shared one (the boxes' buffer).
    let (src, dst) = if store {
        (
            ir::operand(op, ods::copy::operands::DEST),
            ir::operand(op, ods::copy::operands::SOURCE),
        )
    } else {
        (
            ir::operand(op, ods::copy::operands::SOURCE),
            ir::operand(op, ods::copy::operands::DEST),
        )
    };
    // Every issue of a site must be waited for once (the phase bit each thread keeps would
    // fall out of step with the mbarrier otherwise): an async TMA copy's token must be used.
    if ir::num_results(op) == 1 && !ir::has_uses(ir::result(op, 0)) {
        return err(op, "the token of this async TMA copy is never waited for (axe.wait, or carried to one); its mbarrier's phases would fall out of step");
    }
    let (st, dt) = (ir::value_type(src), ir::value_type(dst));
    if ir::tensor_scope(st) != Some(MemoryScope::Global) || ir::tensor_scope(dt) != Some(MemoryScope::Shared) {
        return err(
            op,
            "a TMA copy moves a global tensor into a shared one (a load) or a shared tensor into a global one (a store)",
        );
    }
    let tile = ir::shape(st);
    if ir::shape(dt) != tile {
        return err(
            op,
            format!(
                "a TMA copy needs source and destination of one shape ({:?} vs {:?})",
                tile,
                ir::shape(dt)
            ),
        );
    }
    let elt = super::element_type(st);
    let bits = bit_width(elt);
    if ![8, 16, 32, 64].contains(&bits) {
        return err(op, "TMA copies 8-, 16-, 32- or 64-bit elements");
    }
    let elt_bytes = bits / 8;

    // The source: slices down to the root view; origins summed per dimension.
    let rank = tile.len();
    let mut origin: Vec<(i64, Vec<MlirValue>)> = vec![(0, Vec::new()); rank];
    let mut v = src;
    let view = loop {
        match ir::defining_op(v) {
            Some(d) if ir::name(d) == ods::ops::SLICE => {
                let mut next = 1;
                for (i, &l) in ir::i64_array(d, ods::slice::LOWER).iter().enumerate() {
                    if l == DYNAMIC {
                        origin[i].1.push(ir::operand(d, next));
                        next += 1;
                    } else {
                        origin[i].0 += l;
                    }
                }
                v = ir::operand(d, ods::slice::operands::SOURCE);
            }
            Some(d) if ir::name(d) == ods::ops::VIEW => break d,
            _ => return err(op, "the source of a TMA copy must be an axe.view of a kernel argument, or slices of one (the tensor map describes that view)"),
        }
    };
    let memref = ir::operand(view, ods::view::operands::SOURCE);
    if let Some(d) = ir::defining_op(memref) {
        if ir::is_ancestor(kernel, d) {
            return err(op, "the TMA source's memref is defined inside the kernel; the host builds the tensor map, so it must come from outside");
        }
    }
    // cuTensorMapEncodeTiled needs a 16-byte aligned global address: the argument must say so.
    let declared = ir::declared_alignment(memref).unwrap_or(0);
    if declared < TMA_GLOBAL_ALIGN {
        return err(op, format!(
            "a TMA copy needs a {TMA_GLOBAL_ALIGN}-byte aligned global buffer: declare it on the kernel argument ({{axe.align = {TMA_GLOBAL_ALIGN} : i64}})"
        ));
    }
    let rt = ir::value_type(ir::result(view, 0));
    let root_shape = ir::shape(rt);
    let Some(root) = ir::tensor_layout(rt) else {
        return err(view, "the TMA source's view has layout '?'");
    };
    if root.axes().iter().any(|a| a.name() == "gpuid") {
        return err(op, format!(
            "a TMA copy of a distributed tensor (layout {root}, over gpuid) is not lowered: the host builds tensor maps of local buffers only; copy it without `schedule tma`"
        ));
    }
    let tdims = tensor_map_dims(&root, &root_shape, elt_bytes)
        .map_err(|e| AxeError::at(op, format!("the TMA source's layout {root} is not a tensor map: {e}")))?;
    let ext = tile_extents(&tdims, &tile)
        .map_err(|e| AxeError::at(op, format!("the TMA source tile {tile:?} of layout {root}: {e}")))?;
    let (dims, strides): (Vec<i64>, Vec<i64>) = tdims.iter().map(|t| (t.extent, t.stride)).unzip();

    // The destination: an allocation, or static slices of one.
    let mut v = dst;
    let alloc = loop {
        match ir::defining_op(v) {
            Some(d) if ir::name(d) == ods::ops::SLICE => {
                if crate::slice::region_sizes(d).1 {
                    return err(
                        op,
                        "a TMA destination with a run-time origin is not supported (its alignment cannot be checked)",
                    );
                }
                v = ir::operand(d, ods::slice::operands::SOURCE);
            }
            Some(d) if ir::name(d) == ods::ops::ALLOC => break d,
            _ => {
                return err(
                    op,
                    "the destination of a TMA copy must be an axe.alloc, or static slices of one",
                )
            }
        }
    };
    let span = swizzle_span(op, ir::tensor_swizzle(ir::value_type(ir::result(alloc, 0))), elt_bytes)?;
    let Some(ls) = ir::tensor_layout(dt) else {
        return err(op, "the TMA destination has layout '?': run axe-infer-layout first");
    };
    let offsets =
        shared_offsets(&ls, &tile).map_err(|e| AxeError::at(op, format!("TMA destination layout {ls}: {e}")))?;
    // A point of the tile in TMA coordinates → its logical coordinate → its shared offset.
    let off = |c: &[i64]| -> i64 {
        let mut x = vec![0i64; tile.len()];
        for (t, &cj) in tdims.iter().zip(c) {
            x[t.dim] += cj * t.weight;
        }
        offsets[flatten(&x, &tile).unwrap() as usize]
    };
    let multicast = multicast_group(op, kernel)?;
    let box_error = |e: AxeError| {
        AxeError::at(
            op,
            format!("the TMA destination layout {ls} cannot be written by TMA boxes: {e}"),
        )
    };
    let mut bx = choose_box(&ext, &off, elt_bytes, span).map_err(box_error)?;
    if let Some(m) = &multicast {
        // Each member of the group issues an equal share of the boxes: where the box count
        // does not divide, the outermost box dimension that the group divides is cut.
        let count: i64 = ext.iter().zip(&bx).map(|(e, b)| e / b).product();
        if count % m.parts != 0 {
            if let Some(j) = (0..bx.len() - 1).find(|&j| bx[j] % m.parts == 0) {
                bx[j] /= m.parts;
            }
        }
    }
    let (boxes_outer_first, box_list) = list_boxes(&ext, bx, &off, elt_bytes, span).map_err(box_error)?;
    let bytes = tile.iter().product::<i64>() * elt_bytes;
    if !store && bytes > MBARRIER_MAX_TX_BYTES {
        return err(
            op,
            format!("a TMA copy of {bytes} bytes exceeds an mbarrier's transaction count (< 2^20 bytes)"),
        );
    }
    let key = |m: &TensorMap| {
        m.memref.ptr == memref.ptr
            && m.boxes == boxes_outer_first
            && m.span == span
            && m.dims == dims
            && m.strides == strides
    };
    let map = match maps.iter().position(key) {
        Some(i) => i,
        None => {
            maps.push(TensorMap {
                memref,
                elt,
                dims,
                strides,
                boxes: boxes_outer_first,
                span,
            });
            maps.len() - 1
        }
    };
    Ok(Site {
        barrier,
        explicit: false,
        store,
        map,
        dims: tdims,
        origin,
        boxes: box_list,
        bytes,
        elt_bytes,
        multicast,
    })
}

/// The multicast group of a copy (`multicast [d, ...]`, verified against the kernel's
/// cluster), None for a copy into this CTA alone.
fn multicast_group(op: MlirOperation, kernel: MlirOperation) -> R<Option<Multicast>> {
    let dims = ir::i64_array(op, ods::copy::MULTICAST);
    if dims.is_empty() {
        return Ok(None);
    }
    let cluster = ir::i64_array(kernel, ods::kernel::CLUSTER);
    let mut out = Vec::new();
    let mut parts = 1;
    for d in dims {
        let n = usize::try_from(d)
            .ok()
            .and_then(|i| cluster.get(i))
            .ok_or_else(|| AxeError::at(op, format!("multicast dimension {d} is not a dimension of the cluster")))?;
        out.push(d as usize);
        parts *= n;
    }
    if parts > TMA_MAX_MULTICAST_CTAS {
        return err(
            op,
            format!("a TMA multicast reaches at most {TMA_MAX_MULTICAST_CTAS} CTAs, this group has {parts}"),
        );
    }
    Ok((parts > 1).then_some(Multicast { dims: out, parts }))
}

/// One TMA dimension: an iter of the root layout's logical dimension `dim`, whose index
/// contributes `weight` (the product of the extents of the dimension's faster iters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmaDim {
    pub dim: usize,
    pub weight: i64,
    pub extent: i64,
    pub stride: i64,
    /// The slowest iter of its logical dimension (its coordinate is not wrapped, so an origin
    /// past the end stays out of bounds: TMA fills zeros).
    pub outermost: bool,
}

/// The TMA dimensions of a global layout over `shape` (the paper's step 3): the layout is
/// grouped by `shape`, and every iter of every group becomes one dimension; ordered by
/// stride, outermost first. Fails when an iter is not on memory, no iter is contiguous, or a
/// stride is not a multiple of 16 bytes.
pub fn tensor_map_dims(root: &Layout, shape: &[i64], elt_bytes: i64) -> Result<Vec<TmaDim>, AxeError> {
    if !root.replica.is_empty() {
        return Err(AxeError::Message("it has replicas".into()));
    }
    if root.offset.values().any(|&o| o != 0) {
        return Err(AxeError::Message(
            "it has an offset (the tensor map starts at the memref's base)".into(),
        ));
    }
    let g = root.group(shape)?;
    let mut ds: Vec<TmaDim> = Vec::new();
    for (d, r) in g.groups.iter().enumerate() {
        let its: Vec<_> = g.layout.shard[r.clone()].iter().filter(|i| i.extent > 1).collect();
        let mut weight = 1;
        for (k, it) in its.iter().enumerate().rev() {
            if !it.axis.is_memory() || it.stride <= 0 {
                return Err(AxeError::Message(format!(
                    "dimension {d} has iter {}:{}@{}",
                    it.extent, it.stride, it.axis
                )));
            }
            ds.push(TmaDim {
                dim: d,
                weight,
                extent: it.extent,
                stride: it.stride,
                outermost: k == 0,
            });
            weight *= it.extent;
        }
    }
    if ds.is_empty() || ds.len() > 5 {
        return Err(AxeError::Message(format!(
            "{} iters (a tensor map has 1 to 5 dimensions)",
            ds.len()
        )));
    }
    ds.sort_by_key(|t| std::cmp::Reverse(t.stride));
    let inner = ds.last().unwrap();
    if inner.stride != 1 {
        return Err(AxeError::Message(format!(
            "no dimension is contiguous (smallest stride {})",
            inner.stride
        )));
    }
    for t in &ds {
        if t.extent > 1 << 32 {
            return Err(AxeError::Message(format!(
                "dimension {} has {} elements (at most 2^32)",
                t.dim, t.extent
            )));
        }
        if t.stride != 1 && (t.stride * elt_bytes) % 16 != 0 {
            return Err(AxeError::Message(format!(
                "dimension {}'s stride is {} bytes, not a multiple of 16",
                t.dim,
                t.stride * elt_bytes
            )));
        }
    }
    Ok(ds)
}

/// The tile's extent along each TMA dimension: along its logical dimension the tile must be a
/// suffix product of the dimension's iters (whole faster iters, then part of one) — the
/// paper's condition that the box is "exactly some suffix product of iter extents".
pub fn tile_extents(dims: &[TmaDim], tile: &[i64]) -> Result<Vec<i64>, AxeError> {
    let mut ext = vec![1i64; dims.len()];
    for (d, &e) in tile.iter().enumerate() {
        let mut left = e;
        let mut mine: Vec<usize> = (0..dims.len()).filter(|&j| dims[j].dim == d).collect();
        mine.sort_by_key(|&j| dims[j].weight);
        for j in mine {
            let x = dims[j].extent;
            if dims[j].outermost {
                // The dimension's slowest iter takes what is left of the tile. A box that does
                // not divide it, or is longer than it, reaches past the tensor (a `{clip}`
                // tile, the only kind the slice verifier lets do that), and TMA fills what
                // lies past it with zeros.
                ext[j] = left;
                left = 1;
                continue;
            }
            if left >= x {
                if left % x != 0 {
                    return Err(AxeError::Message(format!(
                        "{e} elements along dimension {d} are not whole iters of {x}"
                    )));
                }
                ext[j] = x;
                left /= x;
            } else {
                if x % left != 0 {
                    return Err(AxeError::Message(format!(
                        "{e} elements along dimension {d} do not divide its iter of {x}"
                    )));
                }
                ext[j] = left;
                left = 1;
            }
        }
        if left != 1 {
            return Err(AxeError::Message(format!("{e} elements along dimension {d} exceed it")));
        }
    }
    Ok(ext)
}

/// The unswizzled shared element offset of every tile element (row-major over `tile`).
fn shared_offsets(ls: &Layout, tile: &[i64]) -> Result<Vec<i64>, AxeError> {
    let n: i64 = tile.iter().product();
    let m = axe_layout::Axis::memory();
    (0..n)
        .map(|x| {
            let pts = ls.eval_flat(x)?;
            match pts.as_slice() {
                [p] if p.keys().all(|a| *a == m) => Ok(p.get(&m).copied().unwrap_or(0)),
                _ => Err(AxeError::Message(
                    "it replicates elements or uses a non-memory axis".into(),
                )),
            }
        })
        .collect()
}

/// A TMA box (extent per TMA dimension) and every box of a tile: origin, shared offset.
pub type Boxes = (Vec<i64>, Vec<(Vec<i64>, i64)>);

/// Is the box `bx` starting at `o` one row-major run of the shared layout (`offsets`, as for
/// [`tile_boxes`])?
fn is_run(offsets: &dyn Fn(&[i64]) -> i64, bx: &[i64], o: &[i64]) -> bool {
    let r = bx.len();
    let base = offsets(o);
    let vol: i64 = bx.iter().product();
    let mut c = o.to_vec();
    for i in 0..vol {
        let mut rem = i;
        for j in (0..r).rev() {
            c[j] = o[j] + rem % bx[j];
            rem /= bx[j];
        }
        if offsets(&c) != base + i {
            return false;
        }
    }
    true
}

/// Chooses the TMA box of a tile: `ext`, the tile's extent per TMA dimension (outermost
/// first); `offsets`, the unswizzled shared offset of a tile point given in TMA coordinates.
fn choose_box(ext: &[i64], offsets: &dyn Fn(&[i64]) -> i64, elt_bytes: i64, span: i64) -> Result<Vec<i64>, AxeError> {
    let r = ext.len();
    let run = |bx: &[i64], o: &[i64]| is_run(offsets, bx, o);
    let zero = vec![0i64; r];
    let mut bx = vec![1i64; r];
    let inner = ext[r - 1];
    if span > 0 {
        let w = span / elt_bytes;
        if inner % w != 0 {
            return Err(AxeError::Message(format!(
                "the contiguous dimension has {inner} elements, not a multiple of the swizzle row ({w} elements)"
            )));
        }
        bx[r - 1] = w;
        if !run(&bx, &zero) {
            return Err(AxeError::Message(format!(
                "its first {w} elements along the contiguous dimension are not consecutive"
            )));
        }
    } else {
        let best = divisors_desc(inner, 256).into_iter().find(|&b| {
            (b * elt_bytes) % 16 == 0 && {
                bx[r - 1] = b;
                run(&bx, &zero)
            }
        });
        match best {
            Some(b) => bx[r - 1] = b,
            None => {
                return Err(AxeError::Message(
                    "no run of a multiple of 16 bytes along the contiguous dimension is consecutive".into(),
                ))
            }
        }
    }
    for j in (0..r - 1).rev() {
        let b = divisors_desc(ext[j], 256)
            .into_iter()
            .find(|&b| {
                let mut t = bx.clone();
                t[j] = b;
                run(&t, &zero)
            })
            .unwrap_or(1);
        bx[j] = b;
    }
    Ok(bx)
}

/// Chooses the TMA box and lists every box of the tile with its shared offset (see
/// [`choose_box`]). Boxes and their origins are in TMA coordinates.
pub fn tile_boxes(ext: &[i64], offsets: &dyn Fn(&[i64]) -> i64, elt_bytes: i64, span: i64) -> Result<Boxes, AxeError> {
    let bx = choose_box(ext, offsets, elt_bytes, span)?;
    list_boxes(ext, bx, offsets, elt_bytes, span)
}

/// Every box `bx` of the tile `ext`, with its shared offset; each must be one run of the
/// shared layout, aligned as TMA needs.
fn list_boxes(
    ext: &[i64],
    bx: Vec<i64>,
    offsets: &dyn Fn(&[i64]) -> i64,
    elt_bytes: i64,
    span: i64,
) -> Result<Boxes, AxeError> {
    let r = ext.len();
    let zero = vec![0i64; r];
    let run = |bx: &[i64], o: &[i64]| is_run(offsets, bx, o);
    let align = if span > 0 { 8 * span } else { 128 };
    let counts: Vec<i64> = (0..r).map(|j| ext[j] / bx[j]).collect();
    let total: i64 = counts.iter().product();
    let mut out = Vec::new();
    for q in 0..total {
        let mut rem = q;
        let mut o = zero.clone();
        for j in (0..r).rev() {
            o[j] = (rem % counts[j]) * bx[j];
            rem /= counts[j];
        }
        if !run(&bx, &o) {
            return Err(AxeError::Message(format!(
                "the box {bx:?} at {o:?} is not one consecutive run"
            )));
        }
        let off = offsets(&o);
        if (off * elt_bytes) % align != 0 {
            return Err(AxeError::Message(format!(
                "the box {bx:?} at {o:?} starts {} bytes into the buffer, not a multiple of {align}",
                off * elt_bytes
            )));
        }
        out.push((o, off));
    }
    Ok((bx, out))
}

fn divisors_desc(n: i64, cap: i64) -> Vec<i64> {
    (1..=n.min(cap)).rev().filter(|d| n % d == 0).collect()
}

/// Host side, before the launch: one `nvgpu.tma.create.descriptor` per tensor map (the
/// memref reinterpreted with the map's dimensions), cast to the `!llvm.ptr` the kernel takes.
pub fn build_maps(b: &B, st: &State) -> Vec<MlirValue> {
    st.maps
        .iter()
        .map(|m| {
            let e = ir::type_to_string(m.elt);
            let ranked = b.strided_memref_type(m.elt, &m.dims, &m.strides);
            // By name, not through `axe_upstream_ods`: an op with `AttrSizedOperandSegments`, and the
            // generated builders never set `operandSegmentSizes` (see [`B::op`]).
            let rc = b.val(
                "memref.reinterpret_cast",
                &[m.memref],
                ranked,
                &[
                    ("static_offsets", b.i64_array(&[0])),
                    ("static_sizes", b.i64_array(&m.dims)),
                    ("static_strides", b.i64_array(&m.strides)),
                    ("operandSegmentSizes", b.i32_array(&[1, 0, 0, 0])),
                ],
            );
            let unranked = b.memref_cast(rc, b.unranked_memref_type(m.elt));
            let mut ops = vec![unranked];
            ops.extend(m.boxes.iter().map(|&x| b.cidx(x)));
            let swz = match m.span {
                0 => "none".to_string(),
                s => format!("swizzle_{s}b"),
            };
            let shape = m.boxes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x");
            let desc_ty = b.ty(&format!(
                "!nvgpu.tensormap.descriptor<tensor = memref<{shape}x{e}, 3>, swizzle = {swz}, l2promo = none, oob = zero, interleave = none>"
            ));
            let d = b.nvgpu_tma_create_descriptor(ops[0], &ops[1..], desc_ty);
            crate::launch_manifest::record_tensor_map(
                ir::defining_op(d).expect("just built"),
                &crate::launch_manifest::RecordedMap { memref: m.memref, dtype: &e, dims: &m.dims, strides: &m.strides, boxes: &m.boxes, swizzle: m.span },
            );
            b.unrealized_conversion_cast(d, b.llvm_ptr(0))
        })
        .collect()
}

fn i64c(b: &B, v: i64) -> MlirValue {
    b.ci64(v)
}

/// Kernel prologue (in the launch body, after the thread id): the barrier array, the
/// per-thread phase/pending bits, and — by thread 0 — barrier initialization and tensor-map
/// prefetches, then a CTA barrier. The prefetches are the kernel's first uses of the maps, so
/// kernel outlining makes the maps its first parameters, in map order.
pub fn prologue(b: &B, module: MlirOperation, ctx: &mut Ctx, map_ptrs: Vec<MlirValue>) {
    let n = ctx.tma.counts.len() as i64;
    let counts = ctx.tma.counts.clone();
    let i64t = b.int_type(64);
    // The barrier array (none when the kernel's only TMA copies are stores).
    let bars = (n > 0).then(|| {
        let bars_ref = super::shared::shared_global_aligned(b, module, "__axe_mbarriers", i64t, n, 8);
        let p = b.extract_aligned_pointer_as_index(bars_ref);
        b.index_cast(p, i64t)
    });
    let state = b.alloca(b.memref_type(b.int_type(32), &[2]), None);
    for i in 0..2 {
        b.store(b.ci32(0), state, &[b.cidx(i)]);
    }
    let is0 = b.cmp(CmpiPredicate::Eq, Ix::V(ctx.tid), Ix::C(0));
    let sptr = b.llvm_ptr(3);
    b.if_(is0, |ib| {
        for k in 0..n {
            let Some(bars) = bars else { break };
            let a = ib.inttoptr(ib.addi(bars, i64c(&ib, 8 * k)), sptr);
            ib.mbarrier_init(a, ib.ci32(counts[k as usize]));
        }
        for &m in &map_ptrs {
            ib.prefetch_tensormap(m);
        }
        ib.fence_mbarrier_init();
        Ok::<(), AxeError>(())
    })
    .expect("static body");
    // In a cluster, peers multicast into this CTA and arrive on its barriers: they all start
    // once every CTA's barriers are initialized (fence.mbarrier_init is release.cluster).
    if ctx.cluster.is_some() && n > 0 {
        super::barrier::cluster(b);
    } else {
        b.gpu_barrier();
    }
    ctx.tma.bars = bars;
    ctx.tma.state = Some(state);
    ctx.tma.map_ptrs = map_ptrs;
}

fn barrier_ptr(b: &B, ctx: &Ctx, id: MlirValue) -> MlirValue {
    let i64t = b.int_type(64);
    let id64 = b.extui(id, i64t);
    let off = b.muli(id64, i64c(b, 8));
    let a = b.addi(ctx.tma.bars.expect("prologue"), off);
    b.inttoptr(a, b.llvm_ptr(3))
}

fn update_bits(b: &B, ctx: &Ctx, slot: i64, f: impl FnOnce(&B, MlirValue) -> MlirValue) {
    let state = ctx.tma.state.expect("prologue");
    let cur = b.load(state, &[b.cidx(slot)]);
    let new = f(b, cur);
    b.store(new, state, &[b.cidx(slot)]);
}

/// Lowers a TMA copy at CTA scope; returns the copy's token value (its barrier index).
pub fn lower(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<MlirValue> {
    let explicit = ctx.tma.sites.get(&(op.ptr as usize)).is_some_and(|s| s.explicit);
    // A store synchronizes the threads of its unit around the issue: a CTA, or a warpgroup
    // (its named barrier), e.g. one consumer role of a warp-specialized kernel.
    let store_ok = is_store(op) && scope == ScopeKind::Warpgroup;
    if scope != ScopeKind::Cta && !explicit && !store_ok {
        return err(
            op,
            format!("a TMA copy is issued for the whole CTA; this one executes at {scope:?} scope").to_lowercase(),
        );
    }
    let b = B::before(op);
    // The shared operand: the destination of a load, the source of a store.
    let dst = super::tensor(ctx, op, ir::operand(op, if is_store(op) { 0 } else { 1 }))?;
    if dst.dyn_offset.as_const() != Some(0) {
        return err(op, "a TMA copy's shared tile with a run-time offset is not supported");
    }
    let site = ctx
        .tma
        .sites
        .get(&(op.ptr as usize))
        .ok_or_else(|| AxeError::at(op, "internal: unplanned TMA copy"))?;
    let map = &ctx.tma.maps[site.map];
    if map.span > 0 {
        super::shared::align_buffer(&b, op, dst.buf, 8 * map.span)?;
    } else {
        super::shared::align_buffer(&b, op, dst.buf, 128)?;
    }
    if site.store {
        lower_store(&b, ctx, site, dst.buf, scope);
        return Ok(b.ci32(-1));
    }
    let id = b.ci32(site.barrier as i64);
    let (i64t, i32t) = (b.int_type(64), b.int_type(32));
    // Tile origin per root dimension (index).
    let origin: Vec<Ix> = site
        .origin
        .iter()
        .map(|(s, dynv)| dynv.iter().fold(Ix::C(*s), |acc, &v| b.add(acc, Ix::V(v))))
        .collect();
    let origin: Vec<MlirValue> = origin.into_iter().map(|o| b.ix(o)).collect();
    // The issuing thread: thread 0, or for a copy on an explicit barrier the first thread of
    // each executing unit (a producer warp's lane 0).
    let first = if explicit {
        super::unit_linear(&b, ctx, scope).0
    } else {
        Ix::V(ctx.tid)
    };
    let tid0 = b.cmp(CmpiPredicate::Eq, first, Ix::C(0));
    let map_ptr = ctx.tma.map_ptrs[site.map];
    let bar = barrier_ptr(&b, ctx, id);
    let dst_base = {
        let p = b.extract_aligned_pointer_as_index(dst.buf);
        b.index_cast(p, i64t)
    };
    let (bytes, elt_bytes) = (site.bytes, site.elt_bytes);
    let (tdims, boxes) = (site.dims.clone(), site.boxes.clone());
    // The tile origin's coordinate along each TMA dimension: (origin / weight) % extent (not
    // wrapped for a dimension's slowest iter).
    let tile_coord: Vec<MlirValue> = tdims
        .iter()
        .map(|t| {
            let q = b.div(Ix::V(origin[t.dim]), t.weight);
            b.ix(if t.outermost { q } else { b.rem(q, t.extent) })
        })
        .collect();
    // `after %r`: the issuing thread first waits until every thread arrived at %r (once per
    // token and block: later copies after the same token follow in program order).
    let release = copy_after(op);
    let block = ir::block_of(op).map_or(0, |b| b.ptr as usize);
    let wait_release = match release {
        Some(r) => {
            if constant_i32(r).is_none() {
                return err(
                    op,
                    "'after' must be the token of an axe.arrive in this kernel (not carried through a loop)",
                );
            }
            ctx.tma.released.insert((block, r.ptr as usize))
        }
        None => false,
    };
    // A multicast copy: this CTA's place in its group and the group's CTA mask.
    let multicast = site.multicast.clone().map(|m| {
        let (member, mask) = multicast_member(&b, ctx, &m);
        (m, member, mask)
    });
    let ctx_ro: &Ctx = ctx;
    b.if_(tid0, |ib| {
        if wait_release {
            wait(&ib, ctx_ro, release.unwrap());
        }
        ib.fence_proxy_async_shared();
        ib.mbarrier_arrive_expect_tx(bar, ib.ci32(bytes));
        // One box: a TMA load into this CTA's shared memory, or with a multicast mask into
        // every member's (at the same offset, completing on the same barrier there).
        let issue = |g: &B, o: &[i64], off: i64, mask: Option<MlirValue>| {
            let a = g.addi(dst_base, i64c(g, off * elt_bytes));
            let p3 = g.inttoptr(a, g.llvm_ptr(3));
            let p7 = g.addrspacecast(p3, g.llvm_ptr(7));
            // Coordinates innermost first.
            let mut coords = Vec::new();
            for j in (0..tdims.len()).rev() {
                let c = g.addi(tile_coord[j], g.cidx(o[j]));
                coords.push(g.index_cast(c, i32t));
            }
            let mut operands = vec![p7, map_ptr];
            operands.extend(&coords);
            operands.push(bar);
            operands.extend(mask);
            let seg = g.i32_array(&[1, 1, coords.len() as i32, 1, 0, i32::from(mask.is_some()), 0, 0]);
            // By name, not through `axe_upstream_ods`: an op with `AttrSizedOperandSegments`, and the
            // generated builders never set `operandSegmentSizes` (see [`B::op`]).
            g.op(
                "nvvm.cp.async.bulk.tensor.shared.cluster.global",
                &operands,
                &[],
                &[("operandSegmentSizes", seg)],
                vec![],
            );
        };
        match &multicast {
            None => {
                for (o, off) in &boxes {
                    issue(&ib, o, *off, None);
                }
            }
            Some((m, member, mask)) => {
                for j in 0..m.parts {
                    let mine = ib.cmp(CmpiPredicate::Eq, Ix::V(*member), Ix::C(j));
                    ib.if_(mine, |jb| {
                        for (o, off) in boxes.iter().skip(j as usize).step_by(m.parts as usize) {
                            issue(&jb, o, *off, Some(*mask));
                        }
                        Ok::<(), AxeError>(())
                    })?;
                }
            }
        }
        Ok::<(), AxeError>(())
    })
    .at(op)?;
    if explicit {
        // Completion is the program's to wait for (axe.mbarrier_wait); no token.
        return Ok(b.ci32(-1));
    }
    let bit = 1i64 << site.barrier;
    update_bits(&b, ctx, 1, |b, cur| b.ori(cur, b.ci32(bit)));
    if !super::builder::has_attr(op, ods::copy::ASYNC) {
        wait(&b, ctx, id);
    }
    Ok(id)
}

/// The executing CTA's index in the multicast group `m` (index, the group's first dimension
/// fastest) and the group's CTA mask (i16, bit r for the CTA of cluster rank r).
fn multicast_member(b: &B, ctx: &Ctx, m: &Multicast) -> (MlirValue, MlirValue) {
    let cl = ctx.cluster.unwrap_or([1; 3]);
    let stride = [1, cl[0], cl[0] * cl[1]];
    let rank = super::kernel::cluster_coords(b, ctx).0;
    let (mut member, mut base) = (Ix::C(0), rank);
    let mut w = 1;
    // The group's ranks relative to its member 0: every combination of the group's
    // coordinates.
    let mut pattern: Vec<i64> = vec![0];
    for &d in &m.dims {
        let c = b.rem(b.div(rank, stride[d]), cl[d]);
        member = b.add(member, b.mul(c, w));
        base = b.sub(base, b.mul(c, stride[d]));
        w *= cl[d];
        pattern = (0..cl[d])
            .flat_map(|k| pattern.iter().map(move |p| p + k * stride[d]))
            .collect();
    }
    let bits: i64 = pattern.iter().map(|p| 1i64 << p).sum();
    let i16t = b.int_type(16);
    let base16 = b.arith_cast(melior::dialect::arith::index_cast, b.ix(base), i16t);
    let mask = b.shli(b.cint(bits, 16), base16);
    (b.ix(member), mask)
}

/// A TMA store (shared → global): every thread makes its writes of the tile visible to the
/// async proxy (`fence.proxy.async.shared::cta`), the unit (CTA or warpgroup) synchronizes,
/// its first thread issues one `cp.async.bulk.tensor` per box into the global tensor (TMA
/// drops what lies past the tensor: a `{clip}` tile stores only what exists), commits the bulk
/// group and waits for it, and the unit synchronizes again, so the tile is written and its
/// shared buffer free when the op ends.
fn lower_store(b: &B, ctx: &Ctx, site: &Site, smem: MlirValue, scope: ScopeKind) {
    let (i64t, i32t) = (b.int_type(64), b.int_type(32));
    let sync = |g: &B| {
        if scope == ScopeKind::Warpgroup {
            super::barrier::warpgroup(g, ctx);
        } else {
            g.gpu_barrier();
        }
    };
    b.fence_proxy_async_shared();
    sync(b);
    let origin: Vec<MlirValue> = site
        .origin
        .iter()
        .map(|(s, dynv)| b.ix(dynv.iter().fold(Ix::C(*s), |acc, &v| b.add(acc, Ix::V(v)))))
        .collect();
    let tile_coord: Vec<MlirValue> = site
        .dims
        .iter()
        .map(|t| {
            let q = b.div(Ix::V(origin[t.dim]), t.weight);
            b.ix(if t.outermost { q } else { b.rem(q, t.extent) })
        })
        .collect();
    let base = {
        let p = b.extract_aligned_pointer_as_index(smem);
        b.index_cast(p, i64t)
    };
    let map_ptr = ctx.tma.map_ptrs[site.map];
    let tid0 = b.cmp(CmpiPredicate::Eq, super::unit_linear(b, ctx, scope).0, Ix::C(0));
    let issued = b.if_(tid0, |ib| {
        for (o, off) in &site.boxes {
            let a = ib.addi(base, i64c(&ib, off * site.elt_bytes));
            let p3 = ib.inttoptr(a, ib.llvm_ptr(3));
            let mut operands = vec![map_ptr, p3];
            for j in (0..site.dims.len()).rev() {
                let c = ib.addi(tile_coord[j], ib.cidx(o[j]));
                operands.push(ib.index_cast(c, i32t));
            }
            let seg = ib.i32_array(&[1, 1, site.dims.len() as i32, 0, 0]);
            // By name, not through `axe_upstream_ods`: an op with `AttrSizedOperandSegments`, and the
            // generated builders never set `operandSegmentSizes` (see [`B::op`]).
            ib.op(
                "nvvm.cp.async.bulk.tensor.global.shared.cta",
                &operands,
                &[],
                &[("operandSegmentSizes", seg)],
                vec![],
            );
        }
        ib.cp_async_bulk_commit_group();
        ib.cp_async_bulk_wait_group(0);
        Ok::<(), AxeError>(())
    });
    debug_assert!(issued.is_ok(), "the store's body cannot fail");
    sync(b);
}

/// Waits for the copy whose barrier index is `id` (an `i32`; all threads execute it).
pub fn wait(b: &B, ctx: &Ctx, id: MlirValue) {
    let bar = barrier_ptr(b, ctx, id);
    let one = b.ci32(1);
    let bit = b.shli(one, id);
    let state = ctx.tma.state.expect("prologue");
    let phases = b.load(state, &[b.cidx(0)]);
    let phase = b.andi(b.shrui(phases, id), one);
    b.mbarrier_try_wait_parity(bar, phase, b.ci32(TRY_WAIT_TICKS));
    b.store(b.xori(phases, bit), state, &[b.cidx(0)]);
    update_bits(b, ctx, 1, |b, cur| b.andi(cur, b.xori(bit, b.ci32(-1))));
}

/// `axe.wait` on `token` (an `i32`): a TMA barrier index, or -1 for a copy that completes
/// otherwise (cp.async groups, synchronous copies). Static indices wait directly; run-time
/// ones (loop-carried tokens) under `scf.if (id >= 0)`.
pub fn wait_token(b: &B, ctx: &Ctx, op: MlirOperation, token: MlirValue) -> R<()> {
    if ir::defining_op(token).is_some_and(|d| ir::name(d) == ods::ops::COPY) {
        return Ok(()); // a copy that is not a TMA copy
    }
    match constant_i32(token) {
        Some(id) if id < 0 => Ok(()),
        Some(_) => {
            wait(b, ctx, token);
            Ok(())
        }
        None => {
            let ge = b.cmpi(CmpiPredicate::Sge, token, b.ci32(0));
            b.if_(ge, |ib| {
                wait(&ib, ctx, token);
                Ok::<(), AxeError>(())
            })
            .map(|_| ())
            .at(op)
        }
    }
}

/// A plain `axe.wait`: every TMA copy still pending.
pub fn wait_all(b: &B, ctx: &Ctx) {
    for k in 0..ctx.tma.counts.len() as i64 {
        let state = ctx.tma.state.expect("prologue");
        let pending = b.load(state, &[b.cidx(1)]);
        let bit = b.andi(pending, b.ci32(1 << k));
        let set = b.cmpi(CmpiPredicate::Ne, bit, b.ci32(0));
        b.if_(set, |ib| {
            wait(&ib, ctx, ib.ci32(k));
            Ok::<(), AxeError>(())
        })
        .expect("static body");
    }
}

/// What a token can come from.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Kinds {
    pub tma: bool,
    pub gemm: bool,
    /// An `axe.arrive` (ordering TMA copies, not something to wait for).
    pub release: bool,
    /// A copy that is not a TMA copy (cp.async groups, or already complete).
    pub copy: bool,
}

impl Kinds {
    pub fn union(self, o: Kinds) -> Kinds {
        Kinds {
            tma: self.tma || o.tma,
            gemm: self.gemm || o.gemm,
            copy: self.copy || o.copy,
            release: self.release || o.release,
        }
    }
    const ALL: Kinds = Kinds {
        tma: true,
        gemm: true,
        copy: true,
        release: false,
    };
}

/// The kinds of op a token value can come from: its defining copy or gemm, the i32 it was
/// lowered to (a barrier index, `GEMM_TOKEN`, -1), or — for an `scf.for` iter_arg — the
/// union over the loop's init value and yielded value. Anything else is every kind.
pub fn token_kinds(v: MlirValue, emulate: bool) -> Kinds {
    fn go(v: MlirValue, emulate: bool, seen: &mut Vec<usize>) -> Kinds {
        if seen.contains(&(v.ptr as usize)) {
            return Kinds::default();
        }
        seen.push(v.ptr as usize);
        if let Some(d) = ir::defining_op(v) {
            return match ir::name(d).as_str() {
                ods::ops::COPY if ir::copy_schedule(d) == Some(CopySchedule::Tma) && !emulate => Kinds {
                    tma: true,
                    ..Default::default()
                },
                ods::ops::COPY => Kinds {
                    copy: true,
                    ..Default::default()
                },
                ods::ops::GEMM => Kinds {
                    gemm: true,
                    ..Default::default()
                },
                ods::ops::ARRIVE => Kinds {
                    release: true,
                    ..Default::default()
                },
                "arith.constant" => match constant_i32(v) {
                    Some(id) if id >= 0 => Kinds {
                        tma: true,
                        ..Default::default()
                    },
                    Some(super::kernel::GEMM_TOKEN) => Kinds {
                        gemm: true,
                        ..Default::default()
                    },
                    Some(_) => Kinds {
                        copy: true,
                        ..Default::default()
                    },
                    None => Kinds::ALL,
                },
                "scf.for" => {
                    // A loop result: the loop's yielded value (and its init, for zero trips).
                    let i = (0..ir::num_results(d))
                        .find(|&i| ir::result(d, i).ptr == v.ptr)
                        .unwrap_or(0);
                    let Some(y) = ir::terminator(ir::region_block(d, 0)) else {
                        return Kinds::ALL;
                    };
                    go(ir::operand(d, 3 + i), emulate, seen).union(go(ir::operand(y, i), emulate, seen))
                }
                _ => Kinds::ALL,
            };
        }
        // SAFETY: `v` is live (module contract); its owner block, that block's parent op and
        // terminator are only read, null ones refused before use.
        unsafe {
            if !mlirValueIsABlockArgument(v) {
                return Kinds::ALL;
            }
            let block = mlirBlockArgumentGetOwner(v);
            let owner = mlirBlockGetParentOperation(block);
            let n = mlirBlockArgumentGetArgNumber(v) as usize;
            if owner.ptr.is_null() || ir::name(owner) != scf::ForOperation::name() || n == 0 {
                return Kinds::ALL;
            }
            let Some(y) = ir::terminator(block) else {
                return Kinds::ALL;
            };
            go(ir::operand(owner, 3 + n - 1), emulate, seen).union(go(ir::operand(y, n - 1), emulate, seen))
        }
    }
    go(v, emulate, &mut Vec::new())
}

/// The value of an `arith.constant : i32`.
pub fn constant_i32(v: MlirValue) -> Option<i64> {
    let d = ir::defining_op(v)?;
    if ir::name(d) != arith::ConstantOperation::name() {
        return None;
    }
    ir::int_attr(d, "value")
}

/// Tokens become `i32` (barrier indices) inside the kernel: every token-typed block argument
/// and non-Axe result (loop-carried tokens) is retyped before the ops are lowered.
pub fn retype_tokens(kernel: MlirOperation) {
    // SAFETY: `kernel` is live (module contract); the type is uniqued in its context.
    let i32t = unsafe { mlirIntegerTypeGet(mlirOperationGetContext(kernel), 32) };
    // SAFETY: the value types are live (module contract); the predicate only reads them.
    let is_token = |v: MlirValue| unsafe { crate::dialect::ffi::axeTypeIsAToken(ir::value_type(v)) };
    for op in ir::collect_where(kernel, |_| true) {
        if !ods::is_axe_op(&ir::name(op)) {
            for i in 0..ir::num_results(op) {
                let r = ir::result(op, i);
                if is_token(r) {
                    // SAFETY: every token of the kernel becomes i32, its producers and users
                    // included (the Axe ones are lowered to i32 arithmetic and erased).
                    unsafe { ir::set_value_type(r, i32t) };
                }
            }
        }
        for blk in ir::region_blocks(op) {
            for arg in ir::block_arguments(blk) {
                if is_token(arg) {
                    // SAFETY: as for results: every token of the kernel becomes i32.
                    unsafe { ir::set_value_type(arg, i32t) };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(l: &str, tile: &[i64]) -> Vec<i64> {
        shared_offsets(&Layout::parse(l).unwrap(), tile).unwrap()
    }

    /// Boxes of a tile whose TMA dimensions are its logical dimensions in order.
    fn boxes(tile: &[i64], shared: &str, elt_bytes: i64, span: i64) -> Result<Boxes, AxeError> {
        let offs = offsets(shared, tile);
        let t = tile.to_vec();
        tile_boxes(
            tile,
            &|c: &[i64]| offs[flatten(c, &t).unwrap() as usize],
            elt_bytes,
            span,
        )
    }

    #[test]
    fn k_major_a_tile_is_one_box() {
        // A 128x64 f16 tile, rows of 64 (128 B): one 128-row box of the 128B mode.
        let (bx, b) = boxes(&[128, 64], "(128, 64) : (64, 1)", 2, 128).unwrap();
        assert_eq!(bx, vec![128, 64]);
        assert_eq!(b, vec![(vec![0, 0], 0)]);
    }

    #[test]
    fn n_major_b_tile_is_two_column_blocks() {
        // 64x128 (K x N) stored as two 64-column blocks of 64 rows each.
        let (bx, b) = boxes(&[64, 128], "(64, 2, 64) : (64, 4096, 1)", 2, 128).unwrap();
        assert_eq!(bx, vec![64, 64]);
        assert_eq!(b, vec![(vec![0, 0], 0), (vec![0, 64], 4096)]);
    }

    #[test]
    fn row_major_wide_tile_cannot_use_128b_boxes() {
        // 64x128 row-major f16: a 64-element run starts every 128 elements, so boxes are one
        // row high and the second one starts 128 bytes in: not on a 1024-byte swizzle period.
        let e = boxes(&[64, 128], "(64, 128) : (128, 1)", 2, 128).unwrap_err();
        assert!(
            e.to_string()
                .contains("the box [1, 64] at [0, 64] starts 128 bytes into the buffer, not a multiple of 1024"),
            "{e}"
        );
    }

    #[test]
    fn unswizzled_row_major_tile_is_one_box() {
        let (bx, b) = boxes(&[64, 32], "(64, 32) : (32, 1)", 4, 0).unwrap();
        assert_eq!(bx, vec![64, 32]);
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn boxes_cover_the_tile_exactly_once() {
        // Oracle: the union of the boxes' elements is the tile, each element once, at the
        // offset the layout gives.
        let tile = [64, 128];
        let offs = offsets("(64, 2, 64) : (64, 4096, 1)", &tile);
        let (bx, b) = boxes(&tile, "(64, 2, 64) : (64, 4096, 1)", 2, 128).unwrap();
        let mut seen = vec![0; 64 * 128];
        for (o, off) in &b {
            for i in 0..bx[0] {
                for j in 0..bx[1] {
                    let x = ((o[0] + i) * 128 + o[1] + j) as usize;
                    seen[x] += 1;
                    assert_eq!(offs[x], off + i * bx[1] + j);
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }

    fn dims(l: &str, shape: &[i64]) -> Vec<(usize, i64, i64, i64)> {
        tensor_map_dims(&Layout::parse(l).unwrap(), shape, 2)
            .unwrap()
            .iter()
            .map(|t| (t.dim, t.weight, t.extent, t.stride))
            .collect()
    }

    #[test]
    fn column_major_root_orders_dimensions_by_stride() {
        assert_eq!(
            dims("(4096, 1024) : (1, 4096)", &[4096, 1024]),
            vec![(1, 1, 1024, 4096), (0, 1, 4096, 1)]
        );
    }

    #[test]
    fn a_dimension_of_two_iters_is_two_tma_dimensions() {
        // 512 rows in 8 blocks of 64, the blocks 8192 elements apart (not mergeable).
        let d = dims("(8, 64, 64) : (8192, 64, 1)", &[512, 64]);
        assert_eq!(d, vec![(0, 64, 8, 8192), (0, 1, 64, 64), (1, 1, 64, 1)]);
        let t = tensor_map_dims(&Layout::parse("(8, 64, 64) : (8192, 64, 1)").unwrap(), &[512, 64], 2).unwrap();
        // A 64-row tile is the whole inner iter and one block: a suffix product.
        assert_eq!(tile_extents(&t, &[64, 64]).unwrap(), vec![1, 64, 64]);
        // 128 rows: two blocks.
        assert_eq!(tile_extents(&t, &[128, 64]).unwrap(), vec![2, 64, 64]);
        // 96 rows are not whole iters of 64.
        assert!(tile_extents(&t, &[96, 64])
            .unwrap_err()
            .to_string()
            .contains("not whole iters of 64"));
    }

    #[test]
    fn unaligned_strides_are_refused() {
        let l = Layout::parse("(100, 100) : (100, 1)").unwrap();
        let e = tensor_map_dims(&l, &[100, 100], 2).unwrap_err();
        assert!(e.to_string().contains("multiple of 16"), "{e}");
    }
}
