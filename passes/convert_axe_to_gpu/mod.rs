//! `convert-axe-to-gpu`: Axe kernels to `gpu.launch` with per-thread schedules.
//!
//! * [`kernel`]: `axe.kernel` → `gpu.launch` (grid/threads, linear thread id, shared tensors
//!   as workgroup attributions, register tensors as per-thread `memref.alloca`), scopes
//!   (`axe.scope`, sliced ones guarded by `scf.if`), and the CPU emulation mode
//!   (`emulate-threads-on-cpu=1`: the launch becomes loops over block and thread ids);
//! * [`address`]: layouts evaluated symbolically (factors, thread digits, addresses);
//! * [`copy`], [`elementwise`], [`reduce`], [`barrier`]: one schedule family each.
//!
//! Every refusal is a located error naming what is missing.

pub mod address;
pub mod barrier;
pub mod boundaries;
pub mod builder;
pub mod copy;
pub mod elementwise;
pub mod gemm;
pub mod kernel;
pub mod ldmatrix;
pub mod mesh;
pub mod reduce;
pub mod shared;
pub mod signal;
pub mod tma;
pub mod wgmma;

use crate::error::AxeError;
use std::collections::HashMap;

use axe_layout::swizzle::Swizzle;
use axe_layout::Layout;
use axe_upstream_ods::func;
use melior::ir::operation::OperationRefMut;
use mlir_sys::*;

use crate::dialect::ods;
use crate::ir::{self, MemoryScope};
use crate::target::{ScopeKind, WARPGROUP_THREADS, WARPGROUP_WARPS, WARP_THREADS};
use address::Coords;
use builder::{Ix, B};

/// A lowering result; a failure is located at an operation.
pub type R<T> = crate::error::Result<T>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    Global,
    Shared,
    Register,
}

/// An Axe tensor resolved to its storage.
#[derive(Clone)]
pub struct Tensor {
    pub buf: MlirValue,
    pub mem: Mem,
    pub layout: Layout,
    pub shape: Vec<i64>,
    pub elt: MlirType,
    /// Emulation: register storage is `memref<threads x N>`, indexed by the thread id first.
    pub per_thread: bool,
    /// A shared tensor's XOR swizzle, applied to every element offset it is accessed at.
    pub swizzle: Option<Swizzle>,
    /// The run-time part of the element offset (slices with run-time origins), added to every
    /// memory offset before the swizzle.
    pub dyn_offset: Ix,
    /// The proven byte alignment of the buffer's base: what the allocation guarantees, what a
    /// function argument declares (`axe.align`), else the element's natural alignment.
    pub base_align: i64,
    /// A `{clip}` slice's bounds: per dimension where the last tile may be partial, the
    /// number of the tile's rows that exist (the tensor's extent minus the tile origin, a
    /// run-time value) and the tensor's extent; empty for every other tensor. Elements at or
    /// past a bound are not accessed: TMA fills them with zeros, register-to-global copies
    /// skip them.
    pub clip: Vec<Option<(Ix, i64)>>,
    /// Whether `buf` is a peer device's buffer (a slice of a distributed tensor at one
    /// device, in a mesh): addressed like any global buffer, through the peer's address.
    pub remote: bool,
}

impl Tensor {
    pub fn size(&self) -> i64 {
        self.shape.iter().product()
    }
}

/// Per-kernel lowering state.
pub struct Ctx {
    pub emulate: bool,
    /// Linear thread id in the CTA (the loop variable when emulating).
    pub tid: MlirValue,
    pub threads: i64,
    /// Linear CTA id in the grid (the grid loop's variable when emulating): the `cta` axis.
    pub bid: MlirValue,
    pub ctas: i64,
    /// The grid and, for a clustered kernel (`axe.kernel ... cluster [...]`), the cluster
    /// shape, each padded to 3 dimensions (x fastest).
    pub grid: [i64; 3],
    pub cluster: Option<[i64; 3]>,
    /// `axe.alloc` result → storage.
    pub allocs: HashMap<usize, (MlirValue, bool)>,
    /// Lowered Axe ops, erased (in reverse) once the kernel is done.
    pub dead: Vec<MlirOperation>,
    /// TMA copies: tensor maps, mbarriers, per-thread phase bits.
    pub tma: tma::State,
    /// Async gemms lowered to wgmma groups left in flight (their tokens are waited with
    /// `wgmma.wait_group`).
    pub wgmma_async: std::collections::HashSet<usize>,
    /// The accumulators of the async wgmma gemms lowered so far (buffer, register indices,
    /// the sliced scope they were lowered in): a wait for all gemms fences them.
    pub async_accumulators: Vec<(MlirValue, Vec<i64>, usize)>,
    /// The sliced scope (`axe.scope warp [lo : hi]`) being lowered, 0 outside any, and the
    /// last id given to one. Only some of the CTA's threads run a sliced scope, so a CTA
    /// barrier there would never complete.
    pub scope_id: usize,
    pub scope_ids: usize,
    /// Whether any gemm of the kernel is async (a plain `axe.wait` then also waits for gemms).
    pub has_async_gemm: bool,
    /// Whether the kernel issues cp.async copies (waits then also wait for their groups).
    pub has_cp_async: bool,
}

pub fn element_type(t: MlirType) -> MlirType {
    // SAFETY: `t` is a live shaped type (every caller passes a tensor or memref type).
    unsafe { mlirShapedTypeGetElementType(t) }
}

/// Bit width of a scalar int/float type (0 for anything else).
pub fn bit_width(t: MlirType) -> i64 {
    // SAFETY: `t` is a live type (module contract); the width is read only after the kind
    // check that makes the accessor valid.
    unsafe {
        if mlirTypeIsAFloat(t) {
            mlirFloatTypeGetWidth(t) as i64
        } else if mlirTypeIsAInteger(t) {
            mlirIntegerTypeGetWidth(t) as i64
        } else {
            0
        }
    }
}

pub fn is_float(t: MlirType) -> bool {
    // SAFETY: `t` is a live type (module contract).
    unsafe { mlirTypeIsAFloat(t) }
}

use crate::ir::key;

/// A distributed tensor of a mesh not yet narrowed to one device: its buffer's peer table
/// (every rank's address of the symmetric buffer) and the device index that the slices taken
/// so far select (`gpuid` digits of their run-time origins).
#[derive(Clone, Copy)]
struct Spread {
    peers: MlirValue,
    device: Ix,
}

/// Resolves an Axe tensor value (a view, an allocation, or a slice of either) to its
/// storage and layout. A distributed tensor (a layout over `gpuid`, in a mesh) must be
/// sliced down to one device: its storage is then that device's buffer, addressed through
/// the peer table (paper §3.2: element `x` lives at `m(x)` on device `gpuid(x)`).
pub fn tensor(ctx: &Ctx, user: MlirOperation, v: MlirValue) -> R<Tensor> {
    let (t, spread) = resolve(ctx, user, v)?;
    if spread.is_some() {
        return Err(AxeError::at(
            user,
            format!(
                "this operand is a distributed tensor spread over several devices (layout {}): slice it to one device first (extent 1 along its gpuid-sharded dimension, e.g. `axe.slice %t [%peer : +1, ...]`)",
                t.layout
            ),
        ));
    }
    Ok(t)
}

fn resolve(ctx: &Ctx, user: MlirOperation, v: MlirValue) -> R<(Tensor, Option<Spread>)> {
    let t = ir::value_type(v);
    let Some(layout) = ir::tensor_layout(t) else {
        return Err(AxeError::at(
            user,
            format!(
                "operand of type {} has layout '?': run axe-infer-layout first",
                ir::type_to_string(t)
            ),
        ));
    };
    // (Only a tensor has a layout, hence a scope.)
    let scope = ir::tensor_scope(t).map_or("", MemoryScope::as_str);
    let mem = match ir::tensor_scope(t) {
        Some(MemoryScope::Global) => Mem::Global,
        Some(MemoryScope::Shared) => Mem::Shared,
        Some(MemoryScope::Register) => Mem::Register,
        _ => {
            return Err(AxeError::at(
                user,
                format!("tensors in memory scope '{scope}' are not lowered to gpu"),
            ))
        }
    };
    let allowed: &[&str] = match mem {
        Mem::Register => &["reg", "lane", "warp", "cta"],
        // Distributed tensors of a mesh (checked to be one below).
        Mem::Global => &["m", "gpuid"],
        Mem::Shared => &["m"],
    };
    if let Some(a) = layout.axes().into_iter().find(|a| !allowed.contains(&a.name())) {
        return Err(AxeError::at(user, format!(
            "layout {layout} of a {scope} tensor uses axis '{a}'; convert-axe-to-gpu lowers {scope} tensors on axes {} only",
            allowed.join(", ")
        )));
    }
    let mut swizzle = ir::tensor_swizzle(t);
    let mut dyn_offset = Ix::C(0);
    // Allocations are laid out 16-byte aligned (shared globals, dynamic shared memory offsets,
    // emulation allocas with an explicit alignment): see `kernel.rs`.
    let mut base_align = shared::ALLOCATION_ALIGN;
    let mut clip = Vec::new();
    let mut spread = None;
    let mut remote = false;
    let mut layout = layout;
    let (buf, per_thread) = match ir::defining_op(v) {
        Some(d) if ir::name(d) == ods::ops::VIEW => {
            let m = ir::operand(d, ods::view::operands::SOURCE);
            let mt = ir::value_type(m);
            if ir::shape(mt).len() != 1 {
                return Err(AxeError::at(d, format!(
                    "convert-axe-to-gpu lowers views of rank-1 memrefs only (got {}); layouts address elements linearly",
                    ir::type_to_string(mt)
                )));
            }
            // A user's buffer is aligned as its argument declares; otherwise only element-aligned.
            base_align = ir::argument_alignment(m);
            if layout.axes().iter().any(|a| a.name() == "gpuid") {
                let peers = mesh::peer_table(m).ok_or_else(|| {
                    AxeError::at(
                        d,
                        format!(
                            "layout {layout} distributes this tensor over devices (gpuid): view it inside an axe.mesh, of a function argument (a symmetric buffer every rank passes)"
                        ),
                    )
                })?;
                spread = Some(Spread {
                    peers,
                    device: Ix::C(0),
                });
            }
            (m, false)
        }
        Some(d) if ir::name(d) == ods::ops::SLICE => {
            // A slice addresses its source's storage, swizzle included.
            let (src, src_spread) = resolve(ctx, user, ir::operand(d, ods::slice::operands::SOURCE))?;
            swizzle = src.swizzle;
            dyn_offset = src.dyn_offset;
            base_align = src.base_align;
            remote = src.remote;
            spread = src_spread;
            if crate::slice::region_sizes(d).1 {
                let b = B::before(user);
                let (own, device) = tile_origin_offset(&b, d, &src)?;
                dyn_offset = b.add(dyn_offset, own);
                if let Some(s) = spread.as_mut() {
                    s.device = b.add(s.device, device);
                }
            }
            if !src.clip.is_empty() {
                return Err(AxeError::at(
                    d,
                    "a slice of a {clip} slice is not lowered: slice the tensor itself",
                ));
            }
            if crate::slice::is_clipped(d) {
                if ir::name(user) != ods::ops::COPY {
                    return Err(AxeError::at(user, format!(
                        "a {{clip}} slice (a tile that may reach past its tensor) is lowered as an axe.copy operand only (TMA copies and register-to-global stores), not of '{}'",
                        ir::name(user)
                    )));
                }
                clip = clip_bounds(&B::before(user), d, &src);
            }
            (src.buf, src.per_thread)
        }
        Some(d) if ir::name(d) == ods::ops::ALLOC => match ctx.allocs.get(&key(v)) {
            Some(&(buf, pt)) => (buf, pt),
            None => return Err(AxeError::at(d, "allocation outside the kernel being lowered")),
        },
        _ => {
            return Err(AxeError::at(
                user,
                "tensor operand is not an axe.view, axe.alloc or axe.slice result",
            ))
        }
    };
    let mut buf = buf;
    let elt = element_type(t);
    if let Some(s) = spread {
        let gpuid = axe_layout::Axis::new("gpuid");
        let spans = layout.shard.iter().any(|it| it.axis == gpuid && it.extent > 1);
        if !spans && layout.replica.iter().any(|it| it.axis == gpuid) {
            // Replicated over the devices: every device reads and writes its own copy.
            layout.replica.retain(|it| it.axis != gpuid);
            layout.shard.retain(|it| it.axis != gpuid);
            spread = None;
        } else if !spans {
            // One device: a static device index is the layout's gpuid offset (a static slice),
            // and what is left addresses that device's buffer like any global tensor.
            let b = B::before(user);
            let device = b.add(s.device, Ix::C(layout.offset.get(&gpuid).copied().unwrap_or(0)));
            layout.offset.remove(&gpuid);
            layout.shard.retain(|it| it.axis != gpuid);
            layout.replica.retain(|it| it.axis != gpuid);
            buf = mesh::peer_buffer(&b, s.peers, device, ir::value_type(buf));
            spread = None;
            remote = true;
        }
    }
    Ok((
        Tensor {
            buf,
            mem,
            layout,
            shape: ir::shape(t),
            elt,
            per_thread,
            swizzle,
            dyn_offset,
            base_align,
            clip,
            remote,
        },
        spread,
    ))
}

/// The bounds of a `{clip}` slice's tile: for each run-time-origin dimension that its tile
/// size does not divide, the rows of the tile inside the tensor (`extent - origin`, at most the
/// tile size: only the last tile is partial, and it is bounded by this value).
fn clip_bounds(b: &B, slice: MlirOperation, src: &Tensor) -> Vec<Option<(Ix, i64)>> {
    let (sizes, _) = crate::slice::region_sizes(slice);
    crate::slice::run_time_origins(slice)
        .into_iter()
        .enumerate()
        .map(|(d, origin)| {
            let origin = origin.filter(|_| src.shape[d] % sizes[d] != 0)?;
            let extent = b.cidx(src.shape[d]);
            Some((Ix::V(b.subi(extent, origin)), src.shape[d]))
        })
        .collect()
}

/// The memory offset of a slice's run-time tile origin: the tile index of each dynamic
/// dimension (origin / size) through the tiling's outer iters (`Layout::tiled_region`); and
/// the device index, for the outer iters on `gpuid` (a distributed tensor sliced at a device).
fn tile_origin_offset(b: &B, slice: MlirOperation, src: &Tensor) -> R<(Ix, Ix)> {
    let (sizes, _) = crate::slice::region_sizes(slice);
    let origins = crate::slice::run_time_origins(slice);
    let tiled = crate::slice::tiling(&src.layout, &src.shape, slice).map_err(|e| {
        AxeError::at(
            slice,
            format!(
                "the tiles of this slice are not separable in layout {}: {e}",
                src.layout
            ),
        )
    })?;
    let mut off = Ix::C(0);
    let mut device = Ix::C(0);
    for (d, outer) in tiled.outer.iter().enumerate() {
        let Some(origin) = origins[d].map(Ix::V) else {
            continue;
        };
        let mut t = b.div(origin, sizes[d]);
        // Unflatten the tile index over the outer iters (slowest first).
        for (i, it) in outer.iter().enumerate().rev() {
            if it.axis.name() == "gpuid" {
                let digit = if i == 0 { t } else { b.rem(t, it.extent) };
                device = b.add(device, b.mul(digit, it.stride));
                t = b.div(t, it.extent);
                continue;
            }
            if !it.axis.is_memory() {
                return Err(AxeError::at(
                    slice,
                    format!(
                        "run-time origins address memory, but layout {} tiles dimension {d} on axis '{}'",
                        src.layout, it.axis
                    ),
                ));
            }
            let digit = if i == 0 { t } else { b.rem(t, it.extent) };
            off = b.add(off, b.mul(digit, it.stride));
            t = b.div(t, it.extent);
        }
    }
    Ok((off, device))
}

fn vec_type(b: &B, elt: MlirType, v: i64) -> MlirType {
    // `v` is a vector width (2, 4 or 8), positive.
    b.vector_type(elt, &[v as u64])
}

/// `o ^ (((o >> (M + S)) & (2^B - 1)) << M)`: the swizzled element offset.
pub fn swizzled(b: &B, s: &Swizzle, idx: Ix) -> Ix {
    if let Ix::C(c) = idx {
        return Ix::C(s.apply(c));
    }
    let x = b.ix(idx);
    let c = |v: i64| b.cidx(v);
    let hi = b.shrui(x, c((s.base as i64) + s.shift as i64));
    let bits = b.andi(hi, c((1i64 << s.bits) - 1));
    let moved = b.shli(bits, c(s.base as i64));
    Ix::V(b.xori(x, moved))
}

fn indices(b: &B, ctx: &Ctx, t: &Tensor, idx: Ix) -> Vec<MlirValue> {
    let idx = b.add(idx, t.dyn_offset);
    let idx = match &t.swizzle {
        Some(s) => swizzled(b, s, idx),
        None => idx,
    };
    let i = b.ix(idx);
    if t.per_thread {
        vec![ctx.tid, i]
    } else {
        vec![i]
    }
}

/// Loads `v` consecutive elements (a scalar when `v == 1`) at element index `idx`; `align`
/// is the proven byte alignment of a vector access.
pub fn load(b: &B, ctx: &Ctx, t: &Tensor, idx: Ix, v: i64, align: i64) -> MlirValue {
    let ops = indices(b, ctx, t, idx);
    if v == 1 {
        b.load(t.buf, &ops)
    } else if t.mem == Mem::Register {
        // Register storage is accessed element-wise (a vector is assembled from scalars):
        // mixing vector and scalar accesses to one alloca keeps LLVM's SROA from promoting
        // it to registers, which spills it to local memory.
        let Ix::C(base) = idx else {
            return b.vector_load(t.buf, &ops, vec_type(b, t.elt, v), None);
        };
        let elems: Vec<MlirValue> = (0..v)
            .map(|i| b.load(t.buf, &indices(b, ctx, t, Ix::C(base + i))))
            .collect();
        b.vector_from_elements(&elems, vec_type(b, t.elt, v))
    } else {
        b.vector_load(t.buf, &ops, vec_type(b, t.elt, v), Some(align))
    }
}

pub fn store(b: &B, ctx: &Ctx, t: &Tensor, value: MlirValue, idx: Ix, v: i64, align: i64) {
    let ops = indices(b, ctx, t, idx);
    if v == 1 {
        b.store(value, t.buf, &ops);
    } else if t.mem == Mem::Register {
        // Element-wise, as in `load`.
        let Ix::C(base) = idx else {
            b.vector_store(value, t.buf, &ops, None);
            return;
        };
        for i in 0..v {
            let e = b.vector_extract(value, &[i]);
            b.store(e, t.buf, &indices(b, ctx, t, Ix::C(base + i)));
        }
    } else {
        b.vector_store(value, t.buf, &ops, Some(align));
    }
}

/// The executing unit's thread coordinates (lane, warp within the unit).
pub fn coords(b: &B, ctx: &Ctx, scope: ScopeKind) -> Coords {
    let tid = Ix::V(ctx.tid);
    let warps = (ctx.threads + WARP_THREADS - 1) / WARP_THREADS;
    // Every unit lives in exactly one CTA, so the `cta` coordinate is known at every scope.
    let (cta, ctas) = (Some(Ix::V(ctx.bid)), ctx.ctas);
    match scope {
        ScopeKind::Thread => Coords {
            lane: None,
            warp: None,
            lanes: 1,
            warps: 1,
            cta,
            ctas,
        },
        ScopeKind::Warp => Coords {
            lane: Some(b.rem(tid, WARP_THREADS)),
            warp: None,
            lanes: WARP_THREADS.min(ctx.threads),
            warps: 1,
            cta,
            ctas,
        },
        ScopeKind::Warpgroup => Coords {
            lane: Some(b.rem(tid, WARP_THREADS)),
            warp: Some(b.rem(b.div(tid, WARP_THREADS), WARPGROUP_WARPS)),
            lanes: WARP_THREADS,
            warps: WARPGROUP_WARPS,
            cta,
            ctas,
        },
        ScopeKind::Cta | ScopeKind::Cluster => Coords {
            lane: Some(b.rem(tid, WARP_THREADS)),
            warp: Some(b.div(tid, WARP_THREADS)),
            lanes: WARP_THREADS.min(ctx.threads),
            warps,
            cta,
            ctas,
        },
    }
}

/// The executing unit's linear thread index and thread count.
pub fn unit_linear(b: &B, ctx: &Ctx, scope: ScopeKind) -> (Ix, i64) {
    let tid = Ix::V(ctx.tid);
    match scope {
        ScopeKind::Thread => (Ix::C(0), 1),
        ScopeKind::Warp => (b.rem(tid, WARP_THREADS), WARP_THREADS.min(ctx.threads)),
        ScopeKind::Warpgroup => (b.rem(tid, WARPGROUP_THREADS), WARPGROUP_THREADS.min(ctx.threads)),
        ScopeKind::Cta | ScopeKind::Cluster => (tid, ctx.threads),
    }
}

/// The pass's options, generated from `AxePasses.td` (read by [`crate::run_pass`]).
pub type Options = ods::passes::ConvertAxeToGPUOptions;

impl Options {
    /// The chip the code is compiled for (`chip=`), when the pipeline says (empty: not given).
    pub fn chip(&self) -> Option<&str> {
        Some(self.chip.as_str()).filter(|c| !c.is_empty())
    }
}

/// The pass body.
pub fn run(root: OperationRefMut, opts: &Options) -> bool {
    let root = root.to_raw();
    if let Some(chip) = opts
        .chip()
        .filter(|c| crate::target::lookup(c).is_none_or(|t| !t.is_gpu()))
    {
        ir::error(
            root,
            &format!(
                "{}: chip '{chip}' is not a GPU target ({})",
                ods::passes::CONVERT_AXE_TO_GPU,
                crate::target::known_targets()
            ),
        );
        return false;
    }
    // An arch-specific target (sm_90a: its gemms become wgmma) must be compiled for exactly
    // that chip: NVPTX aborts on instructions a chip lacks. (Other targets may be compiled for
    // an older chip when they use nothing it lacks; what needs sm_90, mbarriers for TMA and
    // split barriers, is checked per kernel.)
    if let (Some(chip), Some(target)) = (opts.chip(), crate::target::of(root)) {
        if !target.is_gpu() {
            ir::error(
                root,
                &format!(
                    "the module targets {} (#axe.target), not a GPU: it cannot be compiled for {chip}",
                    target.name
                ),
            );
            return false;
        }
        if target.name.ends_with('a') && !crate::target::runs_on(target.name, chip) {
            ir::error(
                root,
                &format!(
                    "the module targets {} (#axe.target), which does not run on {chip}: compile with chip={}",
                    target.name, target.name
                ),
            );
            return false;
        }
    }
    // The functions that launch kernels (their axe.kernel ops and axe.mesh regions).
    let launching: Vec<MlirOperation> = ir::collect(root, &[func::FuncOperation::name()])
        .into_iter()
        .filter(|f| !ir::collect(*f, &[ods::ops::KERNEL, ods::ops::MESH]).is_empty())
        .collect();
    if let Err(e) = boundaries::lower(root) {
        e.emit(root);
        return false;
    }
    // Device meshes first: they add the rank and peer-table arguments.
    if let Err(e) = mesh::lower(root, opts) {
        e.emit(root);
        return false;
    }
    // The launch contract: what each launching function's arguments must be (read back by
    // `axe-translate --axe-to-launch-manifest` after the whole pipeline).
    if !opts.emulate_threads_on_cpu {
        for &f in &launching {
            crate::launch_manifest::record_arguments(f);
        }
    }
    for k in ir::collect(root, &[ods::ops::KERNEL]) {
        if let Err(e) = kernel::lower(root, k, opts) {
            e.emit(k);
            return false;
        }
    }
    // Views and slices outside kernels are dead now; anything else left is not lowerable.
    let left = ir::collect_where(root, ods::is_axe_op);
    for &op in left.iter().rev() {
        let n = ir::name(op);
        let dead = (n == ods::ops::VIEW || n == ods::ops::SLICE || n == ods::ops::ALLOC)
            && (0..ir::num_results(op)).all(|i| !ir::has_uses(ir::result(op, i)));
        if dead {
            // SAFETY: none of its results has uses (checked above); `left` is visited last
            // first, so ops nested in or using it are gone already.
            unsafe { ir::erase(op) };
        } else {
            ir::error(
                op,
                &format!("'{n}' outside an axe.kernel is not lowered by convert-axe-to-gpu"),
            );
            return false;
        }
    }
    true
}
