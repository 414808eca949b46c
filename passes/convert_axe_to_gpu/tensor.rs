//! Axe tensors resolved to their storage ([`Tensor`]: a view, an allocation, or a slice of
//! either, down to a buffer, a layout and a swizzle) and the element accesses every schedule
//! is made of ([`load`], [`store`], at a layout-given element index, swizzled).

use crate::error::AxeError;

use axe_layout::gcd;
use axe_layout::swizzle::Swizzle;
use axe_layout::Layout;
use mlir_sys::*;

use super::builder::{Ix, B};
use super::context::{Ctx, R};
use super::types::element_type;
use super::{peers, shared};
use crate::dialect::ods;
use crate::ir::{self, key, MemoryScope};

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
    /// A divisor of every value `dyn_offset` can take (elements): the gcd of the memory
    /// strides its tile digits move by; 0 when it is 0.
    pub dyn_align: i64,
    /// The proven byte alignment of the buffer's base: what the allocation guarantees, what a
    /// function argument declares (`axe.align`), else the element's natural alignment.
    pub base_align: i64,
    /// The bounds of a tile that may be partial (a `{clip}` slice, or one with run-time ends,
    /// `until %end`): per dimension where it may be, the number of the tile's indices that
    /// exist (the tensor's extent or the run-time end, minus the tile origin: a run-time
    /// value, at most the tile size, possibly negative) and a known divisor of that number;
    /// empty for every other tensor. Elements at or past a bound are not accessed: loads give
    /// zero (TMA's fill, predicated loads, cp.async's zero fill), stores skip them.
    pub bounds: Vec<Option<(Ix, i64)>>,
    /// Whether `buf` is a peer device's buffer (a slice of a distributed tensor at one
    /// device, in a mesh): addressed like any global buffer, through the peer's address.
    pub remote: bool,
    /// A register slice's thread axes (`lane`, `warp`, `cta`) that the tensor it is sliced
    /// from spans and its own layout does not name: the slice lies at coordinate 0 of each
    /// (an axis a layout does not name is coordinate 0, Def. 2.3), so only those threads hold
    /// it. (A register tensor that never spanned an axis is every thread's own, instead.)
    pub pinned: Vec<&'static str>,
    /// A register slice: the registers its layout does not use belong to the tensor it is
    /// sliced from, so no schedule may write them.
    pub sliced: bool,
}

impl Tensor {
    pub fn size(&self) -> i64 {
        self.shape.iter().product()
    }

    /// A buffer the lowering allocates for itself (a scratch tensor, a fragment): whole,
    /// unswizzled, at a static offset, aligned as allocations are.
    pub fn scratch(buf: MlirValue, mem: Mem, layout: Layout, shape: Vec<i64>, elt: MlirType) -> Tensor {
        Tensor {
            buf,
            mem,
            layout,
            shape,
            elt,
            per_thread: false,
            swizzle: None,
            dyn_offset: Ix::C(0),
            dyn_align: 0,
            base_align: shared::ALLOCATION_ALIGN,
            bounds: Vec::new(),
            remote: false,
            pinned: Vec::new(),
            sliced: false,
        }
    }
}

/// Refuses a register slice held by only some of the executing threads (`Tensor::pinned`)
/// as the `what` operand of a collective instruction (mma.sync, wgmma, ldmatrix), which
/// every thread of the scope executes with its own registers.
pub fn refuse_pinned(op: MlirOperation, t: &Tensor, what: &str) -> R<()> {
    match t.pinned.first() {
        None => Ok(()),
        Some(axis) => Err(AxeError::at(
            op,
            format!(
                "the {what} operand (layout {}) is a register slice held only by {axis} 0 of the tensor it is sliced from, but this instruction runs on every {axis} of the scope with its own registers: use the whole tensor, or run the op in a scope of those threads",
                t.layout
            ),
        )),
    }
}

/// The thread axes on which a register layout lives: an axis it names (an iter of extent > 1,
/// shard or replica, or a nonzero offset).
pub fn spans_thread_axis(layout: &Layout, axis: &str) -> bool {
    layout
        .shard
        .iter()
        .chain(&layout.replica)
        .any(|it| it.axis.name() == axis && it.extent > 1)
        || layout.offset.get(&axe_layout::Axis::new(axis)).is_some_and(|&o| o != 0)
}

/// The thread axes of a GPU register tensor.
pub const THREAD_AXES: [&str; 3] = ["lane", "warp", "cta"];

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
    let mut dyn_align = 0;
    // Allocations are laid out 16-byte aligned (shared globals, dynamic shared memory offsets,
    // emulation allocas with an explicit alignment): see `kernel.rs`.
    let mut base_align = shared::ALLOCATION_ALIGN;
    let mut bounds = Vec::new();
    let mut spread = None;
    let mut remote = false;
    let mut pinned = Vec::new();
    let mut sliced = false;
    let mut layout = layout;
    let (buf, per_thread) = match ir::defining_op(v) {
        Some(d) if ir::name(d) == ods::ops::VIEW => {
            let m = ir::operand(d, ods::view::operands::SOURCE);
            let mt = ir::value_type(m);
            let dims = ir::shape(mt);
            if dims.len() != 1 && !ir::is_identity_memref(mt) {
                return Err(AxeError::at(d, format!(
                    "convert-axe-to-gpu lowers views of rank-1 memrefs, or of memrefs with the identity layout (row-major, contiguous), only (got {}); layouts address elements linearly",
                    ir::type_to_string(mt)
                )));
            }
            if dims.iter().any(|&n| n < 0) {
                return Err(AxeError::at(d, format!(
                    "convert-axe-to-gpu lowers views of statically sized memrefs only (got {}): a kernel takes its buffers as bare pointers, and the launch manifest states each one's extent",
                    ir::type_to_string(mt)
                )));
            }
            // A user's buffer is aligned as its argument declares; otherwise only element-aligned.
            base_align = ir::argument_alignment(m);
            if layout.axes().iter().any(|a| a.name() == "gpuid") {
                let peers = peers::peer_table(m).ok_or_else(|| {
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
            // A row-major buffer of any rank is addressed as its elements in a row: the same
            // memory, reinterpreted as rank 1 where it is used (the kernel still takes the
            // function's argument).
            let m = if dims.len() == 1 {
                m
            } else {
                let b = B::before(user);
                let flat = b.memref_type(element_type(mt), &[dims.iter().product()]);
                b.val(
                    "memref.reinterpret_cast",
                    &[m],
                    flat,
                    &[
                        ("static_offsets", b.i64_array(&[0])),
                        ("static_sizes", b.i64_array(&[dims.iter().product()])),
                        ("static_strides", b.i64_array(&[1])),
                        ("operandSegmentSizes", b.i32_array(&[1, 0, 0, 0])),
                    ],
                )
            };
            (m, false)
        }
        Some(d) if ir::name(d) == ods::ops::SLICE => {
            // A slice addresses its source's storage, swizzle included.
            let (src, src_spread) = resolve(ctx, user, ir::operand(d, ods::slice::operands::SOURCE))?;
            swizzle = src.swizzle;
            dyn_offset = src.dyn_offset;
            dyn_align = src.dyn_align;
            base_align = src.base_align;
            remote = src.remote;
            spread = src_spread;
            if mem == Mem::Register {
                sliced = true;
                pinned = THREAD_AXES
                    .into_iter()
                    .filter(|a| {
                        (src.pinned.contains(a) || spans_thread_axis(&src.layout, a)) && !spans_thread_axis(&layout, a)
                    })
                    .collect();
                // Named in the layout at coordinate 0, so that the schedule checks see where
                // the slice lies (an axis a layout does not name is every thread's own there).
                for a in &pinned {
                    layout.offset.entry(axe_layout::Axis::new(*a)).or_insert(0);
                }
            }
            if !src.bounds.is_empty() {
                return Err(AxeError::at(
                    d,
                    "a slice of a partial tile ({clip} or 'until') is not lowered: slice the tensor itself",
                ));
            }
            if crate::slice::region_sizes(d).1 {
                let b = B::before(user);
                let (own, device, own_align) = tile_origin_offset(&b, d, &src)?;
                dyn_offset = b.add(dyn_offset, own);
                dyn_align = gcd(dyn_align, own_align);
                if let Some(s) = spread.as_mut() {
                    s.device = b.add(s.device, device);
                }
            }
            let ends = crate::slice::has_run_time_end(d);
            if crate::slice::is_clipped(d) || ends {
                if ir::name(user) != ods::ops::COPY {
                    let what = if ends {
                        "a slice with a run-time end ('until', a window whose last elements may not exist)"
                    } else {
                        "a {clip} slice (a tile that may reach past its tensor)"
                    };
                    return Err(AxeError::at(user, format!(
                        "{what} is lowered as an axe.copy operand only (its partial accesses are predicated), not of '{}'",
                        ir::name(user)
                    )));
                }
                bounds = tile_bounds(&B::before(user), d, &src);
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
            buf = peers::peer_buffer(&b, s.peers, device, ir::value_type(buf));
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
            dyn_align,
            base_align,
            bounds,
            remote,
            pinned,
            sliced,
        },
        spread,
    ))
}

/// The bounds of a partial tile: for each run-time-origin dimension that ends at run time
/// (`until %end`), the indices of the window before `min(end, extent)`; for each other one of
/// a `{clip}` slice that its tile size does not divide, the indices inside the tensor
/// (`extent - origin`: only the last tile is partial). With a known divisor of that count
/// (a window's is 1; a tile origin is a multiple of the tile size, so a clipped count is a
/// multiple of `gcd(extent, size)`).
fn tile_bounds(b: &B, slice: MlirOperation, src: &Tensor) -> Vec<Option<(Ix, i64)>> {
    let (sizes, _) = crate::slice::region_sizes(slice);
    let clipped = crate::slice::is_clipped(slice);
    let ends = crate::slice::run_time_ends(slice);
    crate::slice::run_time_origins(slice)
        .into_iter()
        .enumerate()
        .map(|(d, origin)| {
            let origin = origin?;
            let extent = b.cidx(src.shape[d]);
            if let Some(end) = ends[d] {
                let end = b.minsi(end, extent);
                return Some((Ix::V(b.subi(end, origin)), 1));
            }
            if !clipped || src.shape[d] % sizes[d] == 0 {
                return None;
            }
            Some((Ix::V(b.subi(extent, origin)), axe_layout::gcd(src.shape[d], sizes[d])))
        })
        .collect()
}

/// A slice's run-time tile origins as a memory offset (the tile index of each dynamic
/// dimension, origin / size, through the tiling's outer iters: `Layout::tiled_region`) and a
/// device index (the outer iters on `gpuid`: a distributed tensor sliced at a device), and a
/// divisor of every offset they can give (the gcd of the memory strides of their digits).
fn tile_origin_offset(b: &B, slice: MlirOperation, src: &Tensor) -> R<(Ix, Ix, i64)> {
    let (sizes, _) = crate::slice::region_sizes(slice);
    let origins = crate::slice::run_time_origins(slice);
    let tiled = crate::slice::tiling(&src.layout, &src.shape, slice).map_err(|e| {
        AxeError::at(
            slice,
            format!(
                "internal: the tiles of this slice are not separable in layout {}: {e} (the pass checks every slice at its start)",
                src.layout
            ),
        )
    })?;
    let windows = crate::slice::window_strides(&src.layout, &src.shape, slice).map_err(|e| {
        AxeError::at(
            slice,
            format!(
                "internal: a window with a run-time end ('until') over layout {}: {e} (the pass checks every slice at its start)",
                src.layout
            ),
        )
    })?;
    let mut off = Ix::C(0);
    let mut device = Ix::C(0);
    let mut align = 0;
    for (d, outer) in tiled.outer.iter().enumerate() {
        let Some(origin) = origins[d].map(Ix::V) else {
            continue;
        };
        if let Some(stride) = windows[d] {
            // A window at any origin: the dimension is one progression of memory.
            off = b.add(off, b.mul(origin, stride));
            align = gcd(align, stride);
            continue;
        }
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
            align = gcd(align, it.stride);
            t = b.div(t, it.extent);
        }
    }
    Ok((off, device, align))
}

fn vec_type(b: &B, elt: MlirType, v: i64) -> MlirType {
    // `v` is a vector width (2, 4 or 8), positive.
    b.vector_type(elt, &[v as u64])
}

/// The type of what `load` gives for `v` elements of `elt`: the element, or a vector of them.
pub fn loaded_type(b: &B, elt: MlirType, v: i64) -> MlirType {
    if v == 1 {
        elt
    } else {
        vec_type(b, elt, v)
    }
}

/// `o ^ (((o >> (M + S)) & (2^B - 1)) << M)`: the swizzled element offset, what
/// `Swizzle::apply` computes for the swizzles a tensor type admits (its verifier asks S >= B >= 1;
/// a negative S, which the layout algebra allows, would read other bits here).
pub fn swizzled(b: &B, s: &Swizzle, idx: Ix) -> Ix {
    if let Ix::C(c) = idx {
        return Ix::C(s.apply(c));
    }
    debug_assert!(
        s.shift > 0,
        "swizzled: {s} has a non-positive shift, which tensor types refuse"
    );
    let x = b.ix(idx);
    let c = |v: i64| b.cidx(v);
    let hi = b.shrui(x, c((s.base as i64) + s.shift as i64));
    let bits = b.andi(hi, c((1i64 << s.bits) - 1));
    let moved = b.shli(bits, c(s.base as i64));
    Ix::V(b.xori(x, moved))
}

/// `swizzled(var + constant)`, with the multiple of the swizzle's period that `constant`
/// holds added after the swizzle: the swizzle reads and writes only the bits below
/// `2^(M + S + B)`, so adding a multiple of that commutes with it. Addresses that differ by such
/// multiples (the same fragment in another stage or another row block of a tile) then share
/// one swizzled value and differ by an immediate offset. See `Swizzle::period`.
pub fn swizzled_plus(b: &B, s: &Swizzle, var: Ix, constant: i64) -> Ix {
    let low = constant.rem_euclid(s.period());
    b.add(swizzled(b, s, b.add(var, Ix::C(low))), Ix::C(constant - low))
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
