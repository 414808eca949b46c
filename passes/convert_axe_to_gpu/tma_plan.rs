//! TMA copy planning (`axe.copy ... schedule tma`, sm_90+): everything about a kernel's TMA
//! copies that is decided before any code is built — the tensor maps, each copy site's
//! boxes, byte count, swizzle mode and multicast group, and the mbarrier each completes on.
//! Nothing here builds IR (it reads the Axe ops); `tma.rs` emits from the plan ([`State`]).
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

use crate::error::AxeError;
use std::collections::HashMap;

use axe_layout::{eval::flatten, Layout};
use mlir_sys::*;

use super::address::memory_offsets;
use super::types::{bit_width, element_type};
use crate::dialect::ods::{self, CopySchedule, MemoryScope};
use crate::error::Result as R;
use crate::ir;
use crate::slice::DYNAMIC;
use crate::target::{MBARRIER_MAX_TX_BYTES, TMA_GLOBAL_ALIGN, TMA_MAX_MULTICAST_CTAS};

/// At most this many TMA copy sites and `axe.arrive` ops per kernel (one mbarrier, one phase
/// bit and one pending bit each in an `i32`). 31, not 32: on an H100, every kernel tested
/// with 32 or more sites (multi-stage GEMMs of 5, 6 and 7 stages, with and without
/// `axe.arrive`) failed at launch ("unspecified launch failure"; compute-sanitizer: errors at
/// the mbarrier arrivals), while the same kernels with up to 31 sites ran correctly; widening
/// the phase/pending words to `i64` did not change that. Until the cause is found, more sites
/// are refused here rather than lowered to a kernel that faults.
pub const MAX_BARRIERS: usize = 31;

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
    /// A load whose shared tensor threads may also write (see [`generic_writes`]): its
    /// issuing thread fences the proxies first.
    pub proxy_fence: bool,
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
    /// TMA stores into a peer's memory and reducing TMA stores: one-dimensional bulk copies
    /// or reductions, no tensor map (`bulk.rs`).
    pub bulk_stores: std::collections::HashSet<usize>,
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

/// Why a TMA copy of a window with a run-time end is refused (its GPU lowering and the
/// emulation say the same).
pub fn tma_window_refusal(role: &str) -> String {
    format!(
        "the {role} of this TMA copy ends at run time ('until'): TMA fills zeros and clips stores only at the tensor's own bounds; copy the window with schedule cp_async or through registers (predicated accesses)"
    )
}

/// Whether `op` (a `schedule tma` copy) is lowered as bulk copies (`bulk.rs`): a store into a peer's memory, or a
/// reducing store (`reduce`, into any global tensor).
pub fn is_bulk_store(op: MlirOperation) -> bool {
    is_peer_store(op) || ir::has_attr(op, ods::copy::REDUCE)
}

/// Whether `op` (a `schedule tma` copy) is a store into a peer's memory: shared source, and a
/// global destination whose root view is a distributed tensor (a layout over `gpuid`).
pub fn is_peer_store(op: MlirOperation) -> bool {
    let scope = |i: usize| ir::tensor_scope(ir::value_type(ir::operand(op, i)));
    if scope(0) != Some(MemoryScope::Shared) || scope(1) != Some(MemoryScope::Global) {
        return false;
    }
    let mut v = ir::operand(op, ods::copy::operands::DEST);
    while let Some(d) = ir::defining_op(v).filter(|&d| ir::name(d) == ods::ops::SLICE) {
        v = ir::operand(d, ods::slice::operands::SOURCE);
    }
    ir::tensor_layout(ir::value_type(v)).is_some_and(|l| l.axes().iter().any(|a| a.name() == "gpuid"))
}

pub fn err<T>(op: MlirOperation, msg: impl Into<String>) -> R<T> {
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
        let arrivals = ir::int_attr(op, ods::mbarrier::ARRIVALS)
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
        if !arrive && is_bulk_store(op) {
            st.bulk_stores.insert(op.ptr as usize);
            continue;
        }
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
                    return err(u, "the TMA copies after one axe.arrive must be in one block: issue them in one block, or give each block's copies an axe.arrive of their own");
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
pub fn copy_after(op: MlirOperation) -> Option<MlirValue> {
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
pub fn explicit_index(explicit: &HashMap<usize, usize>, op: MlirOperation, v: MlirValue) -> R<usize> {
    ir::defining_op(v)
        .and_then(|d| explicit.get(&(d.ptr as usize)).copied())
        .ok_or_else(|| AxeError::at(op, "internal: the barrier is not an axe.mbarrier of this kernel (the verifier requires one in the kernel's body to define it)"))
}

/// The swizzle span (bytes) of a destination's `#axe.swizzle`, as TMA's 32/64/128B modes (0:
/// unswizzled); an error names the modes for the element size.
pub fn swizzle_span(s: Option<axe_layout::swizzle::Swizzle>, elt_bytes: i64) -> Result<i64, String> {
    let Some(s) = s else { return Ok(0) };
    let log2e = elt_bytes.trailing_zeros() as i64;
    if s.base as i64 + log2e == 4 && s.shift == 3 && (1..=3).contains(&s.bits) {
        return Ok(16 << s.bits);
    }
    Err(format!(
        "#axe.swizzle<{}, {}, {}> is not a TMA swizzle mode: for {}-byte elements TMA swizzles are #axe.swizzle<1|2|3, {}, 3> (32, 64, 128 bytes)",
        s.bits, s.base, s.shift, elt_bytes, 4 - log2e
    ))
}

/// Whether a TMA copy is a store (shared → global).
pub fn is_store(op: MlirOperation) -> bool {
    let scope = |i: usize| ir::tensor_scope(ir::value_type(ir::operand(op, i)));
    scope(0) == Some(MemoryScope::Shared) && scope(1) == Some(MemoryScope::Global)
}

/// Whether a TMA copy is an async store (it returns a token, waited for by `tma::wait_stores`).
pub fn is_async_store(op: MlirOperation) -> bool {
    is_store(op) && ir::num_results(op) == 1
}

fn plan_site(op: MlirOperation, kernel: MlirOperation, maps: &mut Vec<TensorMap>, barrier: usize) -> R<Site> {
    let store = is_store(op);
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
    if !store && ir::num_results(op) == 1 && !ir::has_uses(ir::result(op, 0)) {
        return err(op, "the token of this async TMA copy is never waited for (axe.wait, or carried to one); its mbarrier's phases would fall out of step");
    }
    let (st, dt) = (ir::value_type(src), ir::value_type(dst));
    if ir::tensor_scope(st) != Some(MemoryScope::Global) || ir::tensor_scope(dt) != Some(MemoryScope::Shared) {
        return err(
            op,
            "internal: a TMA copy that is neither a global-to-shared load nor a shared-to-global store (the axe.copy verifier refuses it)",
        );
    }
    let tile = ir::shape(st);
    if ir::shape(dt) != tile {
        return err(
            op,
            format!(
                "internal: a TMA copy between shapes {:?} and {:?} (the axe.copy verifier requires one shape)",
                tile,
                ir::shape(dt)
            ),
        );
    }
    let elt = element_type(st);
    let bits = bit_width(elt);
    if ![8, 16, 32, 64].contains(&bits) {
        return err(op, "TMA copies 8-, 16-, 32- or 64-bit elements");
    }
    let elt_bytes = bits / 8;

    // The source: slices down to the root view; origins summed per dimension.
    let rank = tile.len();
    let mut origin: Vec<(i64, Vec<MlirValue>)> = vec![(0, Vec::new()); rank];
    // Dimensions of windows at any origin (ending at the tensor's end).
    let mut windows: Vec<usize> = Vec::new();
    let mut v = src;
    let view = loop {
        match ir::defining_op(v) {
            Some(d) if ir::name(d) == ods::ops::SLICE => {
                if crate::slice::has_run_time_end(d) {
                    if !crate::slice::ends_at_tensor(d) {
                        return err(op, tma_window_refusal(if store { "destination" } else { "source" }));
                    }
                    windows.extend(crate::slice::run_time_ends(d).iter().enumerate().filter_map(|(i, e)| e.map(|_| i)));
                }
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
            "a TMA load of a distributed tensor (layout {root}, over gpuid) is not lowered: the host builds tensor maps of local buffers only (TMA stores into a peer's memory are bulk copies); copy it without `schedule tma`"
        ));
    }
    let tdims = tensor_map_dims(&root, &root_shape, elt_bytes)
        .map_err(|e| AxeError::at(op, format!("the TMA source's layout {root} is not a tensor map: {e}")))?;
    // A window's origin is any element of its dimension: the tensor map must address that
    // dimension by one coordinate (its tiles' coordinates are origin / weight otherwise).
    for &d in &windows {
        if tdims.iter().filter(|t| t.dim == d).count() != 1 {
            return err(
                op,
                format!("internal: a window at any origin ('until') along dimension {d} of layout {root} is not one dimension of the tensor map (the pass's slice check at its start makes a window's dimension one stride of memory)"),
            );
        }
    }
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
    let span = swizzle_span(ir::tensor_swizzle(ir::value_type(ir::result(alloc, 0))), elt_bytes)
        .map_err(|e| AxeError::at(op, e))?;
    let Some(ls) = ir::tensor_layout(dt) else {
        return err(op, "the TMA destination has layout '?': run axe-infer-layout first");
    };
    let offsets = memory_offsets(&ls, tile.iter().product())
        .map_err(|e| AxeError::at(op, format!("TMA destination layout {ls}: {e}")))?;
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
        proxy_fence: !store && generic_writes(dst),
    })
}

/// Whether the shared tensor `dst` of a TMA load may be written through the generic proxy
/// (threads' stores) anywhere in the kernel: every use of its `axe.alloc`, through slices, is
/// checked, and anything not recognised as a read counts as a write. Only then does the load's
/// issuing thread run `fence.proxy.async.shared::cta` first, ordering those writes before the
/// async proxy's. Reads by threads (ldmatrix, register copies) of a tile that a TMA load then
/// overwrites are left to the barrier or mbarrier the program already has to put between the
/// readers and the refill (without one the refill races the reads, fence or not); that this
/// ordering also covers the async proxy's write is what CUTLASS's TMA pipelines rely on in
/// practice (no proxy fence before their loads), not something the PTX memory model states.
/// The fence is a `MEMBAR.ALL.CTA` in SASS; paid at every refill by a thread that also
/// computes, removing it sped the 128x256 split-barrier mma.sync GEMM of 4096^3 up by 1.07
/// (hand-patched PTX) and 1.03 (this lowering) in two paired runs (`bench/gpu/mma_sync_gemm.py`).
fn generic_writes(dst: MlirValue) -> bool {
    let mut root = dst;
    while let Some(d) = ir::defining_op(root).filter(|&d| ir::name(d) == ods::ops::SLICE) {
        root = ir::operand(d, ods::slice::operands::SOURCE);
    }
    if ir::defining_op(root).is_none_or(|d| ir::name(d) != ods::ops::ALLOC) {
        return true;
    }
    let same = |a: MlirValue, b: MlirValue| ir::key(a) == ir::key(b);
    let mut pending = vec![root];
    while let Some(v) = pending.pop() {
        for u in ir::users(v) {
            let name = ir::name(u);
            let is = |i: usize| same(ir::operand(u, i), v);
            let read = if name == ods::ops::SLICE {
                pending.push(ir::result(u, 0));
                true
            } else if name == ods::ops::GEMM {
                !is(ods::gemm::operands::C)
            } else if name == ods::ops::COPY {
                let tma_load = ir::copy_schedule(u) == Some(CopySchedule::Tma) && !is_store(u);
                !is(ods::copy::operands::DEST) || tma_load
            } else {
                false
            };
            if !read {
                return true;
            }
        }
    }
    false
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
            .ok_or_else(|| AxeError::at(op, format!("internal: multicast dimension {d} is not a dimension of the cluster (the axe.copy verifier checks it)")))?;
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

/// The CTA mask bits of a multicast group relative to its member 0 (bit p for the CTA p ranks
/// past it): every combination of the group's coordinates along `dims` of `cluster` (x
/// fastest). The executing CTA's mask is these bits shifted by member 0's rank.
pub fn group_pattern(cluster: [i64; 3], dims: &[usize]) -> i64 {
    let stride = [1, cluster[0], cluster[0] * cluster[1]];
    let mut pattern: Vec<i64> = vec![0];
    for &d in dims {
        pattern = (0..cluster[d])
            .flat_map(|k| pattern.iter().map(move |p| p + k * stride[d]))
            .collect();
    }
    pattern.iter().map(|p| 1i64 << p).sum()
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
    // A dimension of size 1 (one row of A at batch 1) has no iter; it still is a dimension
    // of the box (a `{clip}` tile of 64 rows), so it gets one of extent 1, its stride past
    // everything the layout reaches (rounded up to TMA's 16 bytes: only coordinate 0 is in
    // bounds, so the stride never addresses an element).
    let reach = g
        .layout
        .shard
        .iter()
        .map(|i| i.extent.saturating_mul(i.stride.abs()))
        .max()
        .unwrap_or(1);
    let granule = (16 / elt_bytes.max(1)).max(1);
    let past = crate::target::ceil_div(reach, granule).saturating_mul(granule);
    let mut ds: Vec<TmaDim> = Vec::new();
    for (d, r) in g.groups.iter().enumerate() {
        let its: Vec<_> = g.layout.shard[r.clone()].iter().filter(|i| i.extent > 1).collect();
        if its.is_empty() && shape[d] == 1 {
            ds.push(TmaDim {
                dim: d,
                weight: 1,
                extent: 1,
                stride: past,
                outermost: true,
            });
            continue;
        }
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
/// [`choose_box`]). Boxes and their origins are in TMA coordinates. (The lowering chooses and
/// lists in two steps; the unit tests check both at once.)
#[cfg(test)]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(l: &str, tile: &[i64]) -> Vec<i64> {
        memory_offsets(&Layout::parse(l).unwrap(), tile.iter().product()).unwrap()
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

    #[test]
    fn swizzle_modes_follow_the_element_size() {
        use axe_layout::swizzle::Swizzle;
        let s = |bits, base, shift| Some(Swizzle { bits, base, shift });
        assert_eq!(swizzle_span(None, 2), Ok(0));
        // f16: 2^3 elements = 16 bytes; 32, 64, 128-byte modes.
        assert_eq!(swizzle_span(s(1, 3, 3), 2), Ok(32));
        assert_eq!(swizzle_span(s(3, 3, 3), 2), Ok(128));
        // f32: 2^2 elements.
        assert_eq!(swizzle_span(s(2, 2, 3), 4), Ok(64));
        let e = swizzle_span(s(3, 3, 3), 4).unwrap_err();
        assert!(e.contains("#axe.swizzle<1|2|3, 2, 3>"), "{e}");
    }

    #[test]
    fn multicast_groups_are_the_cluster_lines_along_their_dimensions() {
        // A 2x2 cluster: along x the CTAs 0 and 1 apart, along y 0 and 2, along both all four.
        assert_eq!(group_pattern([2, 2, 1], &[0]), 0b11);
        assert_eq!(group_pattern([2, 2, 1], &[1]), 0b101);
        assert_eq!(group_pattern([2, 2, 1], &[0, 1]), 0b1111);
        assert_eq!(group_pattern([4, 1, 1], &[0]), 0b1111);
    }
}
