//! `axe.mesh`: device-distributed tensors (paper §3.2, Figure 8), lowered SPMD — every rank
//! runs the same code on its own device.
//!
//! A distributed tensor is a view, with a layout over `gpuid` and `m`, of a *symmetric* buffer:
//! a function argument that every rank passes, each its own local shard. Element `x` of the
//! tensor lives on device `gpuid(x)` at local offset `m(x)`, both read off the layout, so a
//! remote access is the same layout-driven address code as a local one, through a table of
//! the peers' base addresses. The lowering gives the function, per symmetric buffer that the
//! mesh reads remotely, an argument `memref<R x i64>` with the device addresses of that buffer
//! on every rank (`{axe.peers_of = k}`, k the buffer's argument), and one `index` argument, the
//! rank (`{axe.mesh_rank}`): what symmetric-memory engines (PyTorch's symmetric memory
//! `buffer_ptrs`, NVSHMEM) provide; the launch manifest records both.
//!
//! Operators, dispatched from the layouts:
//! * `axe.reduce sum` over a `gpuid`-sharded dimension: each rank computes the elements of
//!   the destination its `gpuid` coordinate owns (reduce-scatter when the destination is
//!   sharded over `gpuid`, all-reduce when it is replicated), loading every contribution from
//!   the rank that holds it (peer-to-peer loads) and summing in f32.
//!
//! Ordering contract: the mesh region's inputs must be complete on every rank when the
//! kernel starts, and its outputs are complete when every rank's kernel has finished (the
//! host orders ranks, e.g. with a process-group barrier around the launch); the reduction
//! itself needs no cross-device flags because no rank writes what another reads.

use melior::dialect::arith::CmpiPredicate;
use std::collections::HashMap;

use axe_layout::{Axis, Layout};
use mlir_sys::*;

use super::builder::{Ix, B};
use super::context::R;
use super::types::{bit_width, element_type};
use crate::dialect::ods::{self, ReduceKind};
use crate::error::AxeError;
use crate::ir;

/// Most values summed per element (the reduced dimension is unrolled).
const MAX_REDUCED_EXTENT: i64 = 64;
/// Threads per CTA of the generated kernels.
const THREADS: i64 = 256;

/// The arguments the lowering added to one function: the rank, and per symmetric buffer (by
/// argument number) its peer table.
#[derive(Default)]
struct MeshArgs {
    rank: Option<MlirValue>,
    peers: HashMap<usize, MlirValue>,
}

/// Lowers every `axe.mesh` under `root`.
pub fn lower(root: MlirOperation, emulate: bool) -> R<()> {
    let mut added: HashMap<usize, MeshArgs> = HashMap::new();
    for mesh in ir::collect(root, &[ods::ops::MESH]) {
        let func = ir::enclosing_function(mesh).ok_or_else(|| AxeError::at(mesh, "an axe.mesh outside a function"))?;
        let devices: i64 = ir::i64_array(mesh, "shape").iter().product();
        let args = added.entry(func.ptr as usize).or_default();
        // The rank: `axe.device_id` anywhere in the mesh (its kernels too) reads it.
        let ids = ir::collect(mesh, &[ods::ops::DEVICE_ID]);
        if !ids.is_empty() {
            let rank = rank_arg(func, args);
            for id in ids {
                // SAFETY: the rank argument is an index, like the op's result, and dominates
                // the whole function body; the op has no other effect.
                unsafe {
                    ir::replace_all_uses(ir::result(id, 0), rank);
                    ir::erase(id);
                }
            }
        }
        let body = ir::region_block(mesh, 0);
        for op in ir::block_ops(body) {
            let name = ir::name(op);
            // Constants (operand- and region-free ops of other dialects) move out of the mesh.
            // SAFETY: `op` is a live op of the mesh body (module contract).
            let regions = unsafe { mlirOperationGetNumRegions(op) };
            if !ods::is_axe_op(&name) && ir::num_operands(op) == 0 && regions == 0 {
                // SAFETY: `op` (live, in the mesh's body, so not an ancestor of the mesh, and
                // no terminator: the body has none) moves before the live `mesh`, which is in
                // the function's body; `block_ops` collected the body beforehand. Operand-free,
                // it is valid anywhere before its uses, all in the mesh.
                unsafe { super::builder::move_before(op, mesh) };
                continue;
            }
            match name.as_str() {
                // Views move out of the mesh (kernels below use them); the unused ones are
                // erased after the lowering.
                // SAFETY: as for the constants above. The view's source, a memref, is defined
                // outside the mesh or by a non-Axe op of the body hoisted above (the body is
                // visited in order, and a non-Axe op with operands is refused when reached).
                ods::ops::VIEW => unsafe { super::builder::move_before(op, mesh) },
                ods::ops::REDUCE => reduce(op, func, mesh, devices, args, emulate)?,
                ods::ops::COPY => copy(op, func, mesh, devices, args, emulate)?,
                ods::ops::KERNEL => {
                    kernel_in_mesh(op, func, devices, args)?;
                    // SAFETY: as for the views: a live body op, not an ancestor of the mesh,
                    // moved before it; the values it uses are defined outside the mesh or
                    // hoisted above.
                    unsafe { super::builder::move_before(op, mesh) };
                }
                other => {
                    return Err(AxeError::at(op, format!(
                        "'{other}' in an axe.mesh is not lowered yet: convert-axe-to-gpu lowers views, kernels, copies between distributed layouts and axe.reduce sum over the gpuid axis in a mesh"
                    )))
                }
            }
        }
        // The views inside the mesh are dead now; the mesh goes with its body.
        // SAFETY: the mesh belongs to the IR this pass owns, and nothing uses its values.
        unsafe { ir::erase(mesh) };
    }
    Ok(())
}

/// An `axe.kernel` in a mesh: every rank launches it (SPMD). Its distributed tensors (views
/// over `gpuid` that it uses, sliced there to one device) are addressed through their
/// buffers' peer tables, added here; the kernel itself is lowered with the others
/// (`kernel.rs`, which finds the tables with [`super::peers::peer_table`]).
fn kernel_in_mesh(kernel: MlirOperation, func: MlirOperation, devices: i64, args: &mut MeshArgs) -> R<()> {
    // Peer tables in the order of their buffers' arguments (a stable calling convention).
    let mut buffers = std::collections::BTreeSet::new();
    let mut seen = std::collections::HashSet::new();
    for inner in ir::collect_where(kernel, |_| true) {
        for i in 0..ir::num_operands(inner) {
            let v = ir::operand(inner, i);
            let Some(view) = ir::defining_op(v).filter(|d| ir::name(*d) == ods::ops::VIEW) else {
                continue;
            };
            let spread = ir::tensor_layout(ir::value_type(v))
                .is_some_and(|l| l.shard.iter().any(|it| it.axis.name() == "gpuid" && it.extent > 1));
            if !spread || !seen.insert(view.ptr as usize) {
                continue;
            }
            buffers.insert(distributed(inner, func, v)?.arg);
        }
    }
    for arg in buffers {
        peers_arg(func, args, arg, devices);
    }
    Ok(())
}

/// A distributed operand: its symmetric buffer (a function argument), layout and shape.
struct Distributed {
    arg: usize,
    buf: MlirValue,
    layout: Layout,
    shape: Vec<i64>,
    elt: MlirType,
}

fn distributed(user: MlirOperation, func: MlirOperation, v: MlirValue) -> R<Distributed> {
    let t = ir::value_type(v);
    let layout = ir::tensor_layout(t)
        .ok_or_else(|| AxeError::at(user, "a distributed operand has layout '?': run axe-infer-layout first"))?;
    let view = ir::defining_op(v).filter(|d| ir::name(*d) == ods::ops::VIEW).ok_or_else(|| {
        AxeError::at(user, "a distributed operand must be an axe.view of a function argument (a symmetric buffer every rank passes)")
    })?;
    let buf = ir::operand(view, ods::view::operands::SOURCE);
    // SAFETY: `buf` is a live value of the function being lowered.
    let is_arg = unsafe {
        mlirValueIsABlockArgument(buf) && mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(buf)).ptr == func.ptr
    };
    if !is_arg {
        return Err(AxeError::at(
            user,
            "a distributed tensor must view a function argument: every rank passes its own shard of that buffer",
        ));
    }
    if let Some(a) = layout.axes().into_iter().find(|a| !matches!(a.name(), "m" | "gpuid")) {
        return Err(AxeError::at(
            user,
            format!("the distributed layout {layout} uses axis '{a}'; in a mesh, tensors live on gpuid and m"),
        ));
    }
    // SAFETY: as above.
    let arg = unsafe { mlirBlockArgumentGetArgNumber(buf) } as usize;
    Ok(Distributed {
        arg,
        buf,
        layout,
        shape: ir::shape(t),
        elt: element_type(t),
    })
}

fn rank_arg(func: MlirOperation, args: &mut MeshArgs) -> MlirValue {
    *args.rank.get_or_insert_with(|| {
        let b = B::before(func);
        ir::append_function_argument(
            func,
            b.index(),
            &[(
                ods::discardable_attrs::MESH_RANK,
                // SAFETY: `func` is live (module contract); the unit attribute is owned by its
                // context.
                unsafe { mlirUnitAttrGet(mlirOperationGetContext(func)) },
            )],
        )
    })
}

fn peers_arg(func: MlirOperation, args: &mut MeshArgs, arg: usize, devices: i64) -> MlirValue {
    *args.peers.entry(arg).or_insert_with(|| {
        let b = B::before(func);
        ir::append_function_argument(
            func,
            b.memref_type(b.int_type(64), &[devices]),
            &[(ods::discardable_attrs::PEERS_OF, b.i64_attr(arg as i64))],
        )
    })
}

/// The per-dimension iters of `layout` grouped by `shape`: (iter, weight within its dimension).
fn dims_of(layout: &Layout, shape: &[i64]) -> Result<Vec<Vec<(axe_layout::Iter, i64)>>, AxeError> {
    let g = layout.group(shape)?;
    Ok(g.groups
        .iter()
        .map(|r| {
            let its = &g.layout.shard[r.clone()];
            let mut w = 1i64;
            let mut out: Vec<(axe_layout::Iter, i64)> = its
                .iter()
                .rev()
                .map(|it| {
                    let x = (it.clone(), w);
                    w *= it.extent;
                    x
                })
                .collect();
            out.reverse();
            out
        })
        .collect())
}

/// `axe.reduce sum %X, %Y dims [d]` in a mesh.
fn reduce(
    op: MlirOperation,
    func: MlirOperation,
    mesh: MlirOperation,
    devices: i64,
    args: &mut MeshArgs,
    emulate: bool,
) -> R<()> {
    match ir::enum_attr::<ReduceKind>(op, ods::reduce::KIND)? {
        Some(ReduceKind::Sum) => {}
        other => {
            return Err(AxeError::at(
                op,
                format!(
                    "a mesh reduction lowers for sum only, not {}",
                    other.map_or("?", |k| k.as_str())
                ),
            ))
        }
    }
    let x = distributed(op, func, ir::operand(op, ods::reduce::operands::SOURCE))?;
    let y = distributed(op, func, ir::operand(op, ods::reduce::operands::DEST))?;
    let dims = ir::i64_array(op, ods::reduce::DIMS);
    let &[d] = dims.as_slice() else {
        return Err(AxeError::at(
            op,
            "a mesh reduction over several dimensions is not lowered yet",
        ));
    };
    let d = d as usize;
    let rx = *x.shape.get(d).ok_or_else(|| {
        AxeError::at(
            op,
            "internal: the reduced dimension is out of the source's range (the axe.reduce verifier checks it)",
        )
    })?;
    if rx > MAX_REDUCED_EXTENT {
        return Err(AxeError::at(
            op,
            format!("the reduced dimension has {rx} entries; a mesh reduction sums at most {MAX_REDUCED_EXTENT}"),
        ));
    }
    // Y's shape is X's without dimension d, or with it as 1.
    let mut kept = x.shape.clone();
    let dropped = y.shape.len() + 1 == x.shape.len();
    if dropped {
        kept.remove(d);
    } else {
        kept[d] = 1;
    }
    if kept != y.shape {
        return Err(AxeError::at(
            op,
            format!(
                "internal: the destination's shape {:?} is not the source's {:?} reduced over dimension {d} (the axe.reduce verifier checks it)",
                y.shape, x.shape
            ),
        ));
    }
    let bits = bit_width(y.elt);
    // SAFETY: `y.elt` is a live type (module contract); the test only reads it.
    if bits % 8 != 0 || bit_width(x.elt) != bits || !unsafe { mlirTypeIsAFloat(y.elt) } {
        return Err(AxeError::at(
            op,
            "a mesh reduction sums floating-point tensors of one element type",
        ));
    }
    pull(
        op,
        func,
        mesh,
        devices,
        args,
        emulate,
        &x,
        &y,
        Some(Reduced {
            dim: d,
            extent: rx,
            dropped,
        }),
    )
}

/// `axe.copy %X, %Y` in a mesh between distributed layouts: every rank pulls the elements of
/// Y it holds from the rank that holds them in X (all-gather when Y is replicated over the
/// devices, a re-sharding or a point-to-point exchange otherwise; X replicated: a local copy).
fn copy(
    op: MlirOperation,
    func: MlirOperation,
    mesh: MlirOperation,
    devices: i64,
    args: &mut MeshArgs,
    emulate: bool,
) -> R<()> {
    if ir::has_attr(op, ods::copy::ASYNC) {
        return Err(AxeError::at(op, "an async copy in a mesh is not lowered yet"));
    }
    if ir::has_attr(op, ods::copy::REDUCE) {
        return Err(AxeError::at(op, "a reducing copy between distributed tensors of a mesh is not lowered: reduce a shared tile into a peer's tile inside the kernel (`schedule tma reduce sum`)"));
    }
    let x = distributed(op, func, ir::operand(op, ods::copy::operands::SOURCE))?;
    let y = distributed(op, func, ir::operand(op, ods::copy::operands::DEST))?;
    // SAFETY: live types (module contract); comparing them only reads them.
    if x.shape != y.shape || !unsafe { mlirTypeEqual(x.elt, y.elt) } {
        return Err(AxeError::at(
            op,
            "internal: a copy in a mesh between tensors of different shapes or element types (the axe.copy verifier refuses it)",
        ));
    }
    let bits = bit_width(y.elt);
    if bits % 8 != 0 || bits == 0 {
        return Err(AxeError::at(op, "a copy in a mesh moves whole-byte elements"));
    }
    pull(op, func, mesh, devices, args, emulate, &x, &y, None)
}

/// The dimension a mesh reduction sums over.
struct Reduced {
    dim: usize,
    extent: i64,
    /// Whether the destination drops the dimension (else it keeps it with extent 1).
    dropped: bool,
}

/// Every rank computes the elements of `y` it holds, each the sum over `reduced` (or the one
/// element) of `x`'s elements at the same coordinates, loaded from the rank that holds them.
#[allow(clippy::too_many_arguments)]
fn pull(
    op: MlirOperation,
    func: MlirOperation,
    mesh: MlirOperation,
    devices: i64,
    args: &mut MeshArgs,
    emulate: bool,
    x: &Distributed,
    y: &Distributed,
    reduced: Option<Reduced>,
) -> R<()> {
    let bits = bit_width(y.elt);
    let (d, rx, dropped) = match &reduced {
        Some(r) => (r.dim, r.extent, r.dropped),
        None => (0, 1, false),
    };
    let summing = reduced.is_some();

    // The destination elements this rank owns: Y's shard iters on gpuid are fixed by the rank,
    // the others enumerate the local index space (row-major, in shard order).
    let ydims = dims_of(&y.layout, &y.shape).map_err(|e| e.located(op))?;
    let xdims = dims_of(&x.layout, &x.shape).map_err(|e| e.located(op))?;
    let gpuid = Axis::new("gpuid");
    let local: Vec<(usize, usize)> = ydims
        .iter()
        .enumerate()
        .flat_map(|(k, its)| {
            its.iter()
                .enumerate()
                .filter(|(_, (it, _))| it.axis != gpuid)
                .map(move |(i, _)| (k, i))
        })
        .collect();
    let count: i64 = local.iter().map(|&(k, i)| ydims[k][i].0.extent).product();
    let owner_iters: Vec<(usize, usize)> = ydims
        .iter()
        .enumerate()
        .flat_map(|(k, its)| {
            its.iter()
                .enumerate()
                .filter(|(_, (it, _))| it.axis == gpuid)
                .map(move |(i, _)| (k, i))
        })
        .collect();
    if y.layout.offset.get(&gpuid).copied().unwrap_or(0) != 0 || x.layout.offset.get(&gpuid).copied().unwrap_or(0) != 0
    {
        return Err(AxeError::at(
            op,
            "a gpuid offset in a mesh reduction is not lowered yet",
        ));
    }
    let x_sharded = x.layout.shard.iter().any(|it| it.axis == gpuid);
    if x.layout.replica.iter().any(|it| it.axis == gpuid) && x_sharded {
        return Err(AxeError::at(
            op,
            format!(
                "the source layout {} is both sharded and replicated over gpuid; not lowered yet",
                x.layout
            ),
        ));
    }
    let peers = peers_arg(func, args, x.arg, devices);
    let rank = rank_arg(func, args);

    let b = B::before(mesh);
    let ptr_ty = b.llvm_ptr(if emulate { 0 } else { 1 });
    let f32t = b.f32_type();
    let i64t = b.int_type(64);
    let elt_bytes = bits / 8;
    // Per owned element u (0 <= u < count): its Y coordinates, its local Y offset, and the sum.
    let body = |g: &B, u: Ix| -> R<()> {
        let rank = Ix::V(rank);
        let mut coord: Vec<Ix> = vec![Ix::C(0); y.shape.len()];
        let mut m_y = Ix::C(y.layout.offset.get(&Axis::memory()).copied().unwrap_or(0));
        // Local digits: row-major over the non-gpuid iters, last fastest.
        let mut rest = u;
        for &(k, i) in local.iter().rev() {
            let (it, w) = &ydims[k][i];
            let digit = g.rem(rest, it.extent);
            rest = g.div(rest, it.extent);
            coord[k] = g.add(coord[k], g.mul(digit, *w));
            m_y = g.add(m_y, g.mul(digit, it.stride));
        }
        for &(k, i) in &owner_iters {
            let (it, w) = &ydims[k][i];
            if it.stride <= 0 {
                return Err(AxeError::at(
                    op,
                    format!("the destination layout {} has a negative gpuid stride", y.layout),
                ));
            }
            let digit = g.rem(g.div(rank, it.stride), it.extent);
            coord[k] = g.add(coord[k], g.mul(digit, *w));
        }
        let mut acc: Option<MlirValue> = None;
        for r in 0..rx {
            // X's coordinates: Y's with the reduced index inserted.
            let mut xc = coord.clone();
            if summing && dropped {
                xc.insert(d, Ix::C(r));
            } else if summing {
                xc[d] = Ix::C(r);
            }
            let (mut dev, mut m_x) = (
                Ix::C(0),
                Ix::C(x.layout.offset.get(&Axis::memory()).copied().unwrap_or(0)),
            );
            for (k, its) in xdims.iter().enumerate() {
                for (it, w) in its {
                    let digit = g.rem(g.div(xc[k], *w), it.extent);
                    if it.axis == gpuid {
                        dev = g.add(dev, g.mul(digit, it.stride));
                    } else {
                        m_x = g.add(m_x, g.mul(digit, it.stride));
                    }
                }
            }
            // A source replicated over the devices (no gpuid in its shard) is read locally.
            let dev = if x_sharded { dev } else { rank };
            let base = g.load(peers, &[g.ix(dev)]);
            let off = g.index_cast(g.ix(g.mul(m_x, elt_bytes)), i64t);
            let addr = g.addi(base, off);
            let ptr = g.inttoptr(addr, ptr_ty);
            let v = g.llvm_load(ptr, y.elt, None);
            let v = if summing && bits < 32 { g.extf(v, f32t) } else { v };
            acc = Some(match acc {
                None => v,
                Some(a) => g.addf(a, v),
            });
        }
        // The reduced extent is at least 1 (the tensor type's verifier).
        let sum = acc.ok_or_else(|| {
            AxeError::at(
                op,
                "internal: a mesh reduction over an empty dimension (tensor dimensions are positive)",
            )
        })?;
        let sum = if summing && bits < 32 {
            g.truncf(sum, y.elt)
        } else {
            sum
        };
        let idx = g.ix(m_y);
        g.store(sum, y.buf, &[idx]);
        Ok(())
    };
    if emulate {
        b.for_(Ix::C(0), Ix::C(count), Ix::C(1), |g, u| body(&g, Ix::V(u)))?;
    } else {
        let ctas = crate::target::ceil_div(count, THREADS);
        super::kernel::launch(&b, [ctas, 1, 1], [THREADS, 1, 1], |g, tid, bid| {
            let u = g.add(g.mul(Ix::V(bid), THREADS), Ix::V(tid));
            let inside = g.cmp(CmpiPredicate::Ult, u, Ix::C(count));
            g.if_(inside, |t| body(&t, u))?;
            Ok(())
        })?;
    }
    Ok(())
}
