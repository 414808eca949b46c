//! TMA copies (`axe.copy ... schedule tma`, sm_90+) and their mbarrier completion: the code
//! emitted from the plan of `tma_plan.rs` (tensor maps, boxes, barriers).
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

use mlir_sys::*;

use super::builder::{has_attr, Ix, B};
use super::context::{cluster_coords, unit_linear, Ctx, R};
use super::tensor::tensor;
use super::tma_plan::{
    copy_after, err, explicit_index, group_pattern, is_async_store, is_store, Multicast, Site, State,
};
use super::tokens::Token;
use super::{barrier, shared};
use crate::dialect::ods;
use crate::ir;
use crate::target::ScopeKind;
use melior::dialect::arith::CmpiPredicate;

/// `mbarrier.try_wait` suspend-time hint (ns), as CUTLASS uses.
const TRY_WAIT_TICKS: i64 = 0x989680;

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
            format!(
                "axe.arrive counts every thread of the CTA; this one executes at {} scope: arrive at CTA scope (outside any axe.scope), or arrive on an axe.mbarrier of one role with axe.mbarrier_arrive",
                scope.as_str()
            ),
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
        let bars_ref = shared::shared_global_aligned(b, module, "__axe_mbarriers", i64t, n, 8);
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
        barrier::cluster(b);
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
    if is_async_store(op) {
        // Its token is waited for in the same unit (`wait_stores`).
        ctx.store_scopes.insert(op.ptr as usize, scope);
    }
    if ctx.tma.bulk_stores.contains(&(op.ptr as usize)) {
        super::bulk::lower_bulk_store(op, ctx, scope)?;
        return Ok(B::before(op).ci32(-1));
    }
    let explicit = ctx.tma.sites.get(&(op.ptr as usize)).is_some_and(|s| s.explicit);
    // A store synchronizes the threads of its unit around the issue: a CTA, or a warpgroup
    // (its named barrier), e.g. one consumer role of a warp-specialized kernel.
    let store_ok = is_store(op) && scope == ScopeKind::Warpgroup;
    if scope != ScopeKind::Cta && !explicit && !store_ok {
        return err(
            op,
            format!(
                "a TMA copy is issued for the whole CTA (a TMA store also for a warpgroup); this one executes at {} scope: issue it at CTA scope, or give it an axe.mbarrier of its own (`barrier %b`) to issue it from one role",
                scope.as_str()
            ),
        );
    }
    let b = B::before(op);
    // The shared operand: the destination of a load, the source of a store.
    let dst = tensor(ctx, op, ir::operand(op, if is_store(op) { 0 } else { 1 }))?;
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
        shared::align_buffer(&b, op, dst.buf, 8 * map.span)?;
    } else {
        shared::align_buffer(&b, op, dst.buf, 128)?;
    }
    if site.store {
        lower_store(&b, ctx, site, dst.buf, scope, is_async_store(op));
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
        unit_linear(&b, ctx, scope).0
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
    // `axe.arrive` and block: later copies after the same token follow in program order).
    // Which axe.arrive %r comes from is the token analysis's (it refused any other producer);
    // %r itself is what that arrive was lowered to, its barrier index.
    let release = copy_after(op);
    let block = ir::block_of(op).map_or(0, |b| b.ptr as usize);
    let wait_release = match release {
        Some(_) => {
            let arrive = ctx
                .tokens
                .after(op)
                .ok_or_else(|| AxeError::at(op, "internal: a TMA copy's 'after' the token analysis did not see"))?;
            ctx.tma.released.insert((block, arrive))
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
        if site.proxy_fence {
            ib.fence_proxy_async_shared();
        }
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
    if !has_attr(op, ods::copy::ASYNC) {
        wait(&b, ctx, id);
    }
    Ok(id)
}

/// The executing CTA's index in the multicast group `m` (index, the group's first dimension
/// fastest) and the group's CTA mask (i16, bit r for the CTA of cluster rank r).
fn multicast_member(b: &B, ctx: &Ctx, m: &Multicast) -> (MlirValue, MlirValue) {
    let cl = ctx.cluster.unwrap_or([1; 3]);
    let stride = [1, cl[0], cl[0] * cl[1]];
    let rank = cluster_coords(b, ctx).0;
    let (mut member, mut base) = (Ix::C(0), rank);
    let mut w = 1;
    for &d in &m.dims {
        let c = b.rem(b.div(rank, stride[d]), cl[d]);
        member = b.add(member, b.mul(c, w));
        base = b.sub(base, b.mul(c, stride[d]));
        w *= cl[d];
    }
    // The group's ranks relative to its member 0.
    let bits = group_pattern(cl, &m.dims);
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
/// shared buffer free when the op ends. An async store (`asynchronous`) stops after the
/// commit: its token's wait (`wait_stores`) frees the buffer, and the writes are complete at
/// the unit's next `axe.signal` or the kernel's end.
fn lower_store(b: &B, ctx: &Ctx, site: &Site, smem: MlirValue, scope: ScopeKind, asynchronous: bool) {
    let (i64t, i32t) = (b.int_type(64), b.int_type(32));
    let sync = |g: &B| barrier::store_unit(g, ctx, scope);
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
    let tid0 = b.cmp(CmpiPredicate::Eq, unit_linear(b, ctx, scope).0, Ix::C(0));
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
        if !asynchronous {
            ib.cp_async_bulk_wait_group(0);
        }
        Ok::<(), AxeError>(())
    });
    debug_assert!(issued.is_ok(), "the store's body cannot fail");
    if !asynchronous {
        sync(b);
    }
}

/// `axe.wait` for async TMA stores, in the unit that issued them: its first thread waits until
/// at most `outstanding` of its bulk groups (the most recent) have not yet been read from
/// shared memory (`cp.async.bulk.wait_group.read`), then the unit synchronizes, so each of
/// its threads may write the stores' shared sources again. Their writes to global memory are
/// complete at the unit's next `axe.signal` or the kernel's end.
pub fn wait_stores(b: &B, ctx: &Ctx, scope: ScopeKind, outstanding: i64) {
    let first = b.cmp(CmpiPredicate::Eq, unit_linear(b, ctx, scope).0, Ix::C(0));
    b.if_(first, |ib| {
        ib.cp_async_bulk_wait_group_read(outstanding as i32);
        Ok::<(), AxeError>(())
    })
    .expect("static body");
    barrier::store_unit(b, ctx, scope);
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

/// `axe.wait` on `token` (an `i32`), which the token analysis says can come from a TMA copy
/// (`t`). A TMA copy's own token (`t.producer`: that copy, waited for directly, not through
/// a loop or branch) is its site's barrier index, a constant: the wait is on that barrier. A
/// token carried through `scf.for`/`scf.if` is only known at run time, and may also come
/// from producers without a barrier (-1 for another copy, [`super::tokens::GEMM_TOKEN`] for a
/// gemm): its wait is guarded by `scf.if (id >= 0)`.
pub fn wait_token(b: &B, ctx: &Ctx, op: MlirOperation, token: MlirValue, t: Token) -> R<()> {
    match t.producer {
        Some(copy) => {
            // Store tokens are waited for by `wait_stores`, and a copy on an explicit barrier has no
            // token: the site owns a barrier, and `token` is the constant index `lower`
            // returned for it.
            let site = ctx.tma.sites.get(&copy);
            if site.is_none_or(|s| s.store || s.explicit) {
                return err(
                    op,
                    "internal: a wait on a TMA copy's token without a barrier of its own",
                );
            }
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
