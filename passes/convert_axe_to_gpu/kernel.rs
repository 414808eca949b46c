//! `axe.kernel` → `gpu.launch`, scopes, and the CPU emulation of a launch.

use crate::error::{AtOp, AxeError};
use melior::dialect::arith::CmpiPredicate;
use std::collections::HashMap;

use axe_upstream_ods::gpu;
use mlir_sys::*;

use super::builder::{block_ops, int_attr, move_before, region_block, Ix, B};
use super::context::{cluster_coords, Ctx, R};
use super::tokens::{Kinds, Token, Tokens, GEMM_TOKEN};
use super::types::{bit_width, element_type};
use super::{barrier, copy, elementwise, gemm, reduce, shared, signal, tma, tma_plan, tokens, wgmma};
use crate::dialect::ods::{self, CopySchedule, MemoryScope};
use crate::ir;
use crate::target::{
    coordinate_range, ScopeKind, MAX_REGISTERS_PER_THREAD, REGISTER_GRANULE, WARPGROUP_THREADS, WARP_THREADS,
};

use shared::ALLOCATION_ALIGN;

/// A `gpu.launch` of `grid` CTAs of `threads` threads (x only: y and z are 1) before `b`'s
/// insertion point; `body` builds the launch body with the thread and CTA ids (x).
pub fn launch(b: &B, grid: [i64; 3], threads: [i64; 3], body: impl FnOnce(B, MlirValue, MlirValue) -> R<()>) -> R<()> {
    let idx = b.index();
    let sizes: Vec<MlirValue> = grid.iter().chain(threads.iter()).map(|&n| b.cidx(n)).collect();
    let (region, block) = b.region(&[idx; 12]);
    // By name, not through `axe_upstream_ods`: an op with `AttrSizedOperandSegments`, and the
    // generated builders never set `operandSegmentSizes` (see [`B::op`]).
    b.op(
        "gpu.launch",
        &sizes,
        &[],
        &[("operandSegmentSizes", b.i32_array(&[0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]))],
        vec![region],
    );
    let term = b.at_end(block).gpu_terminator();
    // SAFETY: `block` is the launch body just built; its arguments are the ids and sizes.
    let (bid, tid) = unsafe { (mlirBlockGetArgument(block, 0), mlirBlockGetArgument(block, 3)) };
    body(B::before(term), tid, bid)
}

/// An allocation hoisted to the kernel's entry: its result, memory scope, element count,
/// element type.
struct Alloc {
    op: MlirOperation,
    shared: bool,
    size: i64,
    elt: MlirType,
    /// Bytes taken, rounded up to 16 (`crate::target::shared_footprint`).
    bytes: i64,
}

fn allocations(kernel: MlirOperation) -> R<Vec<Alloc>> {
    let mut out = Vec::new();
    for op in ir::collect(kernel, &[ods::ops::ALLOC]) {
        let t = ir::value_type(ir::result(op, 0));
        let Some(layout) = ir::tensor_layout(t) else {
            return Err(AxeError::at(
                op,
                format!(
                    "allocation of type {} has layout '?': run axe-infer-layout first",
                    ir::type_to_string(t)
                ),
            ));
        };
        let scope = ir::tensor_scope(t);
        let axis = match scope {
            Some(MemoryScope::Shared) => "m",
            Some(MemoryScope::Register) => "reg",
            other => {
                let other = other.map_or("", MemoryScope::as_str);
                return Err(AxeError::at(
                    op,
                    format!("allocations in memory scope '{other}' are not lowered to gpu"),
                ));
            }
        };
        let range = coordinate_range(&layout);
        let (lo, hi) = range.get(&axe_layout::Axis::new(axis)).copied().unwrap_or((0, 0));
        if lo < 0 {
            return Err(AxeError::at(
                op,
                format!("layout {layout} reaches the negative {axis} coordinate {lo}"),
            ));
        }
        // The XOR of a swizzle moves offsets within blocks of 2^(M + B + S) elements: whole
        // blocks are allocated.
        let swizzle_log2 = ir::tensor_swizzle(t).map(|s| s.base + s.bits + s.shift as u32);
        let elt = element_type(t);
        let shared = scope == Some(MemoryScope::Shared);
        let bytes = if shared {
            crate::target::shared_footprint(&layout, bit_width(elt), swizzle_log2)
                .map_err(|e| AxeError::at(op, format!("cannot lay out this shared tensor: {e}")))?
        } else {
            0
        };
        // `shared_footprint` succeeded, so these element counts fit i64.
        let mut size = hi + 1;
        if let Some(log2) = swizzle_log2 {
            let block = 1i64 << log2;
            size = crate::target::ceil_div(size, block) * block;
        }
        out.push(Alloc {
            op,
            shared,
            size,
            elt,
            bytes,
        });
    }
    Ok(out)
}

/// The most elements one emulation alloca may hold (a CPU stack frame, not a GPU).
const MAX_EMULATED_ELEMENTS: i64 = 1 << 26;

/// An alloca aligned like every other allocation ([`ALLOCATION_ALIGN`]), so that the vector
/// accesses the lowering proves aligned relative to the base are aligned on the CPU too.
fn aligned_alloca(b: &B, t: MlirType) -> MlirValue {
    b.alloca(t, Some(ALLOCATION_ALIGN))
}

/// The bytes of shared memory the kernel's allocations take, checked against the target.
fn shared_total(kernel: MlirOperation, allocs: &[Alloc]) -> R<i64> {
    let mut total = 0i64;
    for a in allocs.iter().filter(|a| a.shared) {
        total = total
            .checked_add(a.bytes)
            .ok_or_else(|| AxeError::at(kernel, "the kernel's shared memory size overflows a 64-bit integer"))?;
    }
    if let Some(target) = crate::target::of(kernel) {
        target
            .check_shared_bytes(total)
            .or_else(|e| if total == 0 { Ok(()) } else { Err(e) })
            .map_err(|e| {
                AxeError::at(
                    kernel,
                    format!("the kernel's shared tensors do not fit in one CTA: {e}"),
                )
            })?;
    }
    Ok(total)
}

fn padded3(v: &[i64]) -> [i64; 3] {
    let mut out = [1i64; 3];
    for (o, x) in out.iter_mut().zip(v) {
        *o = *x;
    }
    out
}

/// Lowers one kernel.
/// `emulate`: the CPU emulation (`emulate-threads-on-cpu`); `chip`: the chip compiled for,
/// when the pipeline says.
pub fn lower(module: MlirOperation, kernel: MlirOperation, emulate: bool, chip: Option<&str>) -> R<()> {
    let cluster_dims = ir::i64_array(kernel, ods::kernel::CLUSTER);
    let cluster = (!cluster_dims.is_empty()).then(|| padded3(&cluster_dims));
    let grid = padded3(&ir::i64_array(kernel, ods::kernel::GRID));
    let threads = padded3(&ir::i64_array(kernel, ods::kernel::THREADS));
    if grid.len() > 3
        || ir::i64_array(kernel, ods::kernel::GRID).len() > 3
        || ir::i64_array(kernel, ods::kernel::THREADS).len() > 3
    {
        return Err(AxeError::at(
            kernel,
            "internal: more than 3 grid or thread dimensions (the axe.kernel verifier allows 1 to 3)",
        ));
    }
    let num_threads: i64 = threads.iter().product();
    let allocs = allocations(kernel)?;
    let has_mbarriers = !ir::collect(kernel, &[ods::ops::MBARRIER]).is_empty();
    // What each wait's tokens come from, read off the Axe ops before any is rewritten (only
    // a GPU kernel's waits do anything). Then tokens flow as i32 (TMA barrier indices; -1 for
    // other copies) once lowered.
    let tokens = if emulate {
        Tokens::default()
    } else {
        Tokens::analyze(kernel)?
    };
    tokens::retype_tokens(kernel);
    if emulate {
        if let Some(&a) = ir::collect(kernel, &[ods::ops::ARRIVE]).first() {
            return Err(AxeError::at(a, "emulate-threads-on-cpu runs threads one after another; axe.arrive (a split CTA barrier) cannot be emulated"));
        }
    }
    let tma_state = if emulate {
        tma_plan::State::default()
    } else {
        tma_plan::plan(kernel, num_threads)?
    };
    let body = region_block(kernel, 0);
    let b = B::before(kernel);
    // Set once the launch (or the emulation loops) gives the thread and block ids.
    let null = MlirValue {
        ptr: std::ptr::null_mut(),
    };
    let grid_size: i64 = grid.iter().product();
    let mut ctx = Ctx {
        emulate,
        tid: null,
        threads: num_threads,
        bid: null,
        ctas: grid_size,
        grid,
        cluster,
        allocs: HashMap::new(),
        dead: Vec::new(),
        tma: tma_state,
        tokens,
        wgmma_async: Default::default(),
        async_accumulators: Vec::new(),
        scope_id: 0,
        scope_ids: 0,
        has_async_gemm: crate::infer_layout::gemm::has_wgmma(kernel)
            && ir::collect(kernel, &[ods::ops::GEMM])
                .iter()
                .any(|g| ir::has_attr(*g, ods::gemm::ASYNC)),
        has_cp_async: !emulate
            && ir::collect(kernel, &[ods::ops::COPY])
                .iter()
                .any(|c| ir::copy_schedule(*c) == Some(CopySchedule::CpAsync)),
        has_async_store: !emulate
            && ir::collect(kernel, &[ods::ops::COPY])
                .iter()
                .any(|c| ir::copy_schedule(*c) == Some(CopySchedule::Tma) && tma_plan::is_async_store(*c)),
        store_scopes: HashMap::new(),
    };

    if !emulate {
        // Tensor maps are built on the host, before the launch.
        let map_ptrs = tma::build_maps(&b, &ctx.tma);
        let idx = b.index();
        // Grid, CTA and (for a clustered kernel) cluster sizes: gpu.launch's operand order.
        let mut sizes: Vec<MlirValue> = grid
            .iter()
            .chain(threads.iter())
            .chain(cluster.iter().flatten())
            .map(|&n| b.cidx(n))
            .collect();
        // Shared tensors beyond the 48 KiB of static shared memory go to dynamic shared memory
        // (the launch asks for it; a runtime must allow it for the kernel).
        let shared_bytes = |a: &Alloc| a.bytes;
        let total = shared_total(kernel, &allocs)?;
        let dynamic = total > 48 * 1024;
        if dynamic {
            sizes.push(b.ci32(total));
        }
        // The body's arguments: block ids, thread ids, grid and CTA sizes, then (clustered)
        // cluster ids and cluster sizes.
        let (region, block) = b.region(&[idx; 18][..if cluster.is_some() { 18 } else { 12 }]);
        let (c, d) = (i32::from(cluster.is_some()), i32::from(dynamic));
        let segments = b.i32_array(&[0, 1, 1, 1, 1, 1, 1, c, c, c, d]);
        // By name, not through `axe_upstream_ods`: an op with `AttrSizedOperandSegments`, and the
        // generated builders never set `operandSegmentSizes` (see [`B::op`]).
        let launch = b.op(
            "gpu.launch",
            &sizes,
            &[],
            &[("operandSegmentSizes", segments)],
            vec![region],
        );
        if ir::has_attr(kernel, ods::kernel::COOPERATIVE) {
            record_cooperative(kernel, launch)?;
        }
        let term = b.at_end(block).gpu_terminator();
        for op in block_ops(body) {
            // SAFETY: each op of the kernel's body (collected beforehand; `NoTerminator`, so none
            // is a terminator) moves, in order, before the new launch's terminator, which is
            // in a block of the launch and so not inside `op`. The launch is not isolated from
            // above: values from outside the kernel stay visible.
            unsafe { move_before(op, term) };
        }
        // A clustered kernel with barriers: peers multicast into this CTA's shared memory and
        // arrive on its barriers, so no CTA may leave while a peer can still do so.
        if cluster.is_some() && has_mbarriers {
            barrier::cluster(&B::before(term));
        }
        // TMA stores into peers' memory and async TMA stores complete behind the unit's next
        // work (`bulk.rs`, `tma.rs`): every thread waits for its bulk groups before the
        // kernel ends.
        if !ctx.tma.bulk_stores.is_empty() || ctx.has_async_store {
            B::before(term).cp_async_bulk_wait_group(0);
        }
        let lb = b.at_start(block);
        let args = ir::block_arguments(block);
        let arg = |i: usize| args[i];
        // Linear thread id: x fastest.
        let mut tid = Ix::V(arg(3));
        if threads[1] > 1 {
            tid = lb.add(tid, lb.mul(Ix::V(arg(4)), threads[0]));
        }
        if threads[2] > 1 {
            tid = lb.add(tid, lb.mul(Ix::V(arg(5)), threads[0] * threads[1]));
        }
        ctx.tid = lb.ix(tid);
        // Linear CTA id: x fastest (the `cta` axis).
        let mut bid = Ix::V(arg(0));
        if grid[1] > 1 {
            bid = lb.add(bid, lb.mul(Ix::V(arg(1)), grid[0]));
        }
        if grid[2] > 1 {
            bid = lb.add(bid, lb.mul(Ix::V(arg(2)), grid[0] * grid[1]));
        }
        ctx.bid = lb.ix(bid);
        // Shared tensors: module-level workgroup globals (address space 3), 16-byte aligned
        // so that vector accesses proven aligned relative to the base are aligned; above 48 KiB
        // all of them are views at static offsets of the dynamic shared memory, which starts
        // 1024-aligned (`shared::dynamic_shared`).
        let dyn_base = dynamic.then(|| shared::dynamic_shared(&lb, module));
        let mut dyn_offset = 0i64;
        for a in &allocs {
            let v = if a.shared && dynamic {
                let ty = lb.shared_memref_type(a.elt, a.size);
                let off = lb.cidx(dyn_offset);
                dyn_offset += shared_bytes(a);
                lb.view(dyn_base.expect("dynamic"), off, ty)
            } else if a.shared {
                shared::shared_global(&lb, module, "__axe_shared", a.elt, a.size)
            } else {
                // Registers: accessed element by element (`tensor::load`), so no alignment is
                // needed, and SROA promotes the alloca to registers.
                lb.alloca(lb.memref_type(a.elt, &[a.size]), None)
            };
            ctx.allocs.insert(ir::result(a.op, 0).ptr as usize, (v, false));
        }
        // After the allocas: the prologue's scf.if splits the entry block, and LLVM promotes
        // only entry-block allocas to registers.
        if ctx.tma.active() {
            // TMA copies and split barriers complete on mbarriers, which need sm_90 (NVPTX
            // aborts on them for older chips instead of reporting an error).
            if let Some(chip) = chip.filter(|c| !crate::target::runs_on("sm_90", c)) {
                return Err(AxeError::at(kernel, format!(
                    "this kernel's TMA copies or axe.arrive barriers need mbarriers (sm_90 or newer), but the pipeline compiles for {chip}: compile for sm_90 or newer, or copy without `schedule tma` and synchronize with axe.barrier"
                )));
            }
            tma::prologue(&lb, module, &mut ctx, map_ptrs);
        }
        lower_block(block, &mut ctx, ScopeKind::Cta)?;
    } else {
        // Emulation: storage hoisted before the loops (shared memory is reused by the
        // sequential CTAs, as a GPU reuses it: uninitialized at CTA start).
        for a in &allocs {
            let (t, pt) = if a.shared {
                (b.memref_type(a.elt, &[a.size]), false)
            } else {
                let per_thread = num_threads.checked_mul(a.size).filter(|n| *n <= MAX_EMULATED_ELEMENTS).ok_or_else(|| {
                AxeError::at(a.op, format!("emulating {num_threads} threads' registers of this tensor needs more than {MAX_EMULATED_ELEMENTS} elements: emulate a kernel of fewer threads, or give each thread fewer registers"))
            })?;
                let _ = per_thread;
                (b.memref_type(a.elt, &[num_threads, a.size]), true)
            };
            let v = aligned_alloca(&b, t);
            ctx.allocs.insert(ir::result(a.op, 0).ptr as usize, (v, pt));
        }
        // Operand-free, region-free ops (constants) are hoisted: they are shared by phases.
        let mut phases: Vec<Vec<MlirOperation>> = vec![Vec::new()];
        for op in block_ops(body) {
            let n = ir::name(op);
            let no_operands = ir::num_operands(op) == 0 && ir::num_regions(op) == 0;
            if n == ods::ops::BARRIER && int_attr(op, ods::barrier::KIND) == Some(ScopeKind::Cta.as_i64()) {
                phases.push(Vec::new());
                ctx.dead.push(op);
            } else if no_operands && !ods::is_axe_op(&n) {
                // SAFETY: a live, operand- and region-free op of the kernel's body (collected
                // beforehand; the body has no terminator) moves before the live `kernel`, its
                // ancestor, never the other way round; its uses are all in the kernel.
                unsafe { move_before(op, kernel) };
            } else {
                phases.last_mut().unwrap().push(op);
            }
        }
        recompute_across_phases(&mut phases)?;
        let mut yields: Vec<(MlirOperation, MlirValue, MlirValue)> = Vec::new();
        b.for_(Ix::C(0), Ix::C(grid_size), Ix::C(1), |gb, bid| {
            for _ in &phases {
                gb.for_(Ix::C(0), Ix::C(num_threads), Ix::C(1), |tb, tid| {
                    yields.push((tb.before, tid, bid));
                    Ok::<(), String>(())
                })?;
            }
            Ok::<(), String>(())
        })
        .at(kernel)?;
        for (ops, (y, tid, bid)) in phases.iter().zip(yields) {
            for &op in ops {
                // SAFETY: the ops of this phase, live body ops collected in order (no terminator:
                // the body has none), move before the yield of the phase's innermost loop,
                // which was built before the kernel, outside every one of them.
                unsafe { move_before(op, y) };
            }
            ctx.tid = tid;
            ctx.bid = bid;
            let block =
                ir::block_of(y).ok_or_else(|| AxeError::at(kernel, "internal: emulation loop without a body"))?;
            lower_block(block, &mut ctx, ScopeKind::Cta)?;
        }
    }
    // SAFETY: the lowered Axe ops are erased last-first, so each one's users (later ops, or
    // ops nested in it) are gone or rewired before it; nothing else holds them; the kernel's
    // body has been moved into the launch.
    for &op in ctx.dead.iter().rev() {
        // SAFETY: see above: `op` is dead, its users gone or rewired.
        unsafe { ir::erase(op) };
    }
    // SAFETY: as above; the kernel's body is empty and the kernel has no results.
    unsafe { ir::erase(kernel) };
    Ok(())
}

/// Whether the emulation may recompute `op` in a later phase (a clone computes the same value
/// for the same thread): arithmetic, unit and device ids, slices.
fn recomputable(op: MlirOperation) -> bool {
    let n = ir::name(op);
    ir::num_regions(op) == 0
        && (["arith.", "index.", "math."].iter().any(|d| n.starts_with(d))
            || [ods::ops::UNIT_ID, ods::ops::DEVICE_ID, ods::ops::SLICE].contains(&n.as_str()))
}

/// The emulation runs each phase (the code between two CTA barriers) as its own loop over the
/// threads, so a value an op computes in one phase is out of scope in the next. A later phase
/// that uses such a value (directly, or through a slice it reads) gets its own copy of the
/// ops that compute it, which per thread give the same value; storage (`axe.alloc`, hoisted
/// before the loops) needs none, nor do the tokens that waits read (an emulated wait does
/// nothing); a token carried on in a later phase (a loop's iter_args) is -1 there, as every
/// emulated token is. A value that cannot be recomputed so (e.g. a result of a loop that a
/// later phase computes with) is a located error.
fn recompute_across_phases(phases: &mut [Vec<MlirOperation>]) -> R<()> {
    let mut phase_of: HashMap<usize, usize> = phases
        .iter()
        .enumerate()
        .flat_map(|(p, ops)| ops.iter().map(move |op| (op.ptr as usize, p)))
        .collect();
    for p in 1..phases.len() {
        let Some(&first) = phases[p].first() else { continue };
        let users: Vec<MlirOperation> = phases[p]
            .iter()
            .flat_map(|&op| ir::collect_where(op, |_| true))
            .collect();
        // The earlier-phase ops this phase needs, found from its operands, then theirs.
        let mut needed: Vec<MlirOperation> = Vec::new();
        // Tokens of Axe ops (i32 by now) used in this phase other than by waits.
        let mut tokens: Vec<MlirValue> = Vec::new();
        let mut work: Vec<(MlirOperation, MlirValue)> = users
            .iter()
            .flat_map(|&u| (0..ir::num_operands(u)).map(move |i| (u, ir::operand(u, i))))
            .collect();
        while let Some((user, v)) = work.pop() {
            // An emulated wait does nothing (nothing completes asynchronously on the CPU) and
            // is erased: its tokens need not reach it.
            if ir::name(user) == ods::ops::WAIT {
                continue;
            }
            let Some(d) = ir::defining_op(v) else { continue };
            let Some(&dp) = phase_of.get(&(d.ptr as usize)) else {
                continue;
            };
            if dp >= p || needed.iter().any(|n| n.ptr == d.ptr) {
                continue;
            }
            let n = ir::name(d);
            if n == ods::ops::ALLOC {
                continue;
            }
            if !recomputable(d) {
                if ods::is_axe_op(&n) && !ir::is_tensor(ir::value_type(v)) {
                    // A token carried on (a loop's iter_args): every emulated token is -1.
                    if !tokens.iter().any(|t| ir::key(*t) == ir::key(v)) {
                        tokens.push(v);
                    }
                    continue;
                }
                return Err(AxeError::at(user, format!(
                    "this op uses a value computed by '{n}' before a CTA barrier; emulate-threads-on-cpu runs the code between barriers as separate loops over the threads and recomputes only arithmetic, unit and device ids and slices there: compute it after the barrier"
                )));
            }
            needed.push(d);
            work.extend((0..ir::num_operands(d)).map(|i| (d, ir::operand(d, i))));
        }
        // Clones in the original order (operands before users), before the phase's first op.
        needed.sort_by_key(|op| {
            let dp = phase_of[&(op.ptr as usize)];
            (dp, phases[dp].iter().position(|o| o.ptr == op.ptr).unwrap_or(0))
        });
        let mut map: HashMap<usize, MlirValue> = HashMap::new();
        let mut clones = Vec::new();
        for d in needed {
            // SAFETY: `d` is a live, region-free op of the kernel body; its clone is inserted
            // into the block of `first` (the body) before it, and owned by that block.
            let c = unsafe {
                let c = mlirOperationClone(d);
                mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(first), first, c);
                c
            };
            for r in 0..ir::num_results(d) {
                map.insert(ir::key(ir::result(d, r)), ir::result(c, r));
            }
            // A later phase that needs the clone's value recomputes it in turn.
            phase_of.insert(c.ptr as usize, p);
            clones.push(c);
        }
        for &u in clones.iter().chain(users.iter()) {
            for i in 0..ir::num_operands(u) {
                if let Some(&nv) = map.get(&ir::key(ir::operand(u, i))) {
                    // SAFETY: `nv` is the clone's result of the same type, defined before every
                    // op of this phase (the clones precede it, in dependency order).
                    unsafe { ir::set_operand(u, i, nv) };
                }
            }
        }
        if !tokens.is_empty() {
            let minus_one = B::before(first).ci32(-1);
            let def =
                ir::defining_op(minus_one).ok_or_else(|| AxeError::at(first, "internal: a constant without its op"))?;
            for &u in &users {
                for i in 0..ir::num_operands(u) {
                    if tokens.iter().any(|t| ir::key(*t) == ir::key(ir::operand(u, i))) {
                        // SAFETY: an i32 defined before every op of this phase (tokens are
                        // i32 once retyped).
                        unsafe { ir::set_operand(u, i, minus_one) };
                    }
                }
            }
            clones.insert(0, def);
        }
        let mut ops = clones;
        ops.extend(phases[p].iter().copied());
        phases[p] = ops;
    }
    Ok(())
}

/// Records that `launch` (lowered from the `cooperative` `kernel`) must be launched
/// cooperatively: its position among its function's `gpu.launch` ops, in order, joins the
/// function's `axe.cooperative_launches`, which the launch manifest reads back (outlining
/// drops the `gpu.launch`'s own attributes; the launches keep their order).
fn record_cooperative(kernel: MlirOperation, launch: MlirOperation) -> R<()> {
    let func = ir::enclosing_function(kernel)
        .ok_or_else(|| AxeError::at(kernel, "a cooperative kernel outside any function"))?;
    let position = ir::collect(func, &[gpu::LaunchOperation::name()])
        .iter()
        .position(|l| l.ptr == launch.ptr)
        .ok_or_else(|| AxeError::at(kernel, "internal: the kernel's gpu.launch is not in its function"))?;
    let mut recorded = ir::i64_array(func, ods::discardable_attrs::COOPERATIVE_LAUNCHES);
    recorded.push(position as i64);
    // SAFETY: `func` is the live func.func around the kernel, owned by this pass; the attribute
    // is the dialect's discardable `axe.cooperative_launches` (a DenseI64ArrayAttr).
    unsafe { ir::set_i64_array(func, ods::discardable_attrs::COOPERATIVE_LAUNCHES, &recorded) };
    Ok(())
}

/// Lowers every Axe op in `block` in place, for units of `scope`.
pub fn lower_block(block: MlirBlock, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    for op in block_ops(block) {
        let name = ir::name(op);
        match name.as_str() {
            ods::ops::SCOPE => lower_scope(op, ctx, scope)?,
            ods::ops::COPY | ods::ops::CONVERT_LAYOUT => {
                let token =
                    if name == ods::ops::COPY && ir::copy_schedule(op) == Some(CopySchedule::Tma) && !ctx.emulate {
                        Some(tma::lower(op, ctx, scope)?)
                    } else {
                        copy::lower(op, ctx, scope)?;
                        None
                    };
                // The token: the TMA barrier index, or -1 (completion through cp.async groups,
                // or already complete) where it flows on (loops); `axe.wait` reads a token
                // still defined by its non-TMA copy as -1.
                let flows = ir::num_results(op) == 1
                    && ir::users(ir::result(op, 0))
                        .iter()
                        .any(|u| ir::name(*u) != ods::ops::WAIT);
                if (token.is_some() || flows) && ir::num_results(op) == 1 {
                    let t = token.unwrap_or_else(|| B::before(op).ci32(-1));
                    // SAFETY: tokens become i32 (retype_tokens); `t` is an i32 defined before the op.
                    unsafe { ir::replace_all_uses(ir::result(op, 0), t) };
                }
                ctx.dead.push(op);
            }
            ods::ops::FILL => {
                elementwise::fill(op, ctx, scope)?;
                ctx.dead.push(op);
            }
            ods::ops::IOTA => {
                elementwise::iota(op, ctx, scope)?;
                ctx.dead.push(op);
            }
            ods::ops::UNARY | ods::ops::BINARY | ods::ops::CAST => {
                elementwise::lower(op, ctx, scope)?;
                ctx.dead.push(op);
            }
            ods::ops::REDUCE => {
                reduce::lower(op, ctx, scope)?;
                ctx.dead.push(op);
            }
            ods::ops::BARRIER => {
                barrier::lower(op, ctx)?;
                ctx.dead.push(op);
            }
            ods::ops::SIGNAL => {
                signal::signal(op, ctx, scope)?;
                ctx.dead.push(op);
            }
            ods::ops::SIGNAL_WAIT => {
                signal::wait(op, ctx, scope)?;
                ctx.dead.push(op);
            }
            // cp.async copies committed groups; other copies are synchronous.
            // TMA copies complete on their mbarriers (through their tokens, or all pending ones
            // for a plain wait); cp.async copies through committed groups.
            ods::ops::WAIT => {
                if !ctx.emulate {
                    let b = B::before(op);
                    let outstanding = int_attr(op, ods::wait::OUTSTANDING).unwrap_or(0);
                    let tokens: Vec<MlirValue> = (0..ir::num_operands(op)).map(|i| ir::operand(op, i)).collect();
                    let token_kinds = ctx.tokens.of_wait(op)?;
                    for t in token_kinds.iter().filter(|t| t.kinds.store) {
                        check_store_token(op, ctx, t, scope)?;
                    }
                    if ctx.tma.active() {
                        for (&t, k) in tokens.iter().zip(token_kinds) {
                            if k.kinds.tma {
                                tma::wait_token(&b, ctx, op, t, *k)?;
                            }
                        }
                        if tokens.is_empty() && outstanding == 0 {
                            tma::wait_all(&b, ctx);
                        }
                    }
                    // What each token can come from decides which completion mechanisms the
                    // wait uses (a loop-carried token: everything it can come from).
                    let kinds = token_kinds.iter().fold(Kinds::default(), |k, t| k.union(t.kinds));
                    if kinds.release {
                        return Err(AxeError::at(
                            op,
                            "internal: a wait on an axe.arrive's token (the TMA planning refuses an arrive token that is not only TMA copies' 'after')",
                        ));
                    }
                    let all = tokens.is_empty();
                    if ctx.has_async_gemm && (all || kinds.gemm) {
                        wgmma::wait_groups(&b, outstanding);
                        if outstanding == 0 {
                            wgmma::fence_accumulators(&b, ctx);
                        } else {
                            // A waited token whose gemm has at least `outstanding` async gemms
                            // issued after it (in this block, before the wait) is complete: its
                            // accumulator may be read next, so it is fenced like a full wait's.
                            for t in token_kinds {
                                let producer = t.producer.map(|p| MlirOperation { ptr: p as *mut _ });
                                if let Some(g) = producer.and_then(|g| wgmma::completed_by(op, g, outstanding)) {
                                    let c = super::tensor::tensor(ctx, g, ir::operand(g, ods::gemm::operands::C))?;
                                    wgmma::fence_accumulator(&b, ctx, c.buf);
                                }
                            }
                        }
                    }
                    if ctx.has_cp_async && (all || kinds.copy) {
                        copy::wait_groups(&b, outstanding);
                    }
                    // The unit's bulk groups (a plain wait: where a unit issues TMA stores).
                    let store_unit = matches!(scope, ScopeKind::Cta | ScopeKind::Warpgroup);
                    if ctx.has_async_store && (kinds.store || (all && store_unit)) {
                        tma::wait_stores(&b, ctx, scope, outstanding);
                    }
                }
                ctx.dead.push(op);
            }
            ods::ops::MBARRIER | ods::ops::MBARRIER_ARRIVE | ods::ops::MBARRIER_WAIT => {
                if ctx.emulate {
                    // The threads of an emulated CTA run one after another between CTA
                    // barriers: a role waiting for another's arrival would never return.
                    return Err(AxeError::at(
                        op,
                        format!("'{name}' cannot be emulated on the CPU (emulated threads run one after another, so a wait for another role's arrival never returns)"),
                    ));
                }
                if name == ods::ops::MBARRIER_ARRIVE {
                    tma::mbarrier_arrive(op, ctx)?;
                } else if name == ods::ops::MBARRIER_WAIT {
                    tma::mbarrier_wait(op, ctx)?;
                }
                // An axe.mbarrier is erased after its users (dead ops go in reverse order).
                ctx.dead.push(op);
            }
            ods::ops::SET_MAX_REGISTERS => {
                // Registers are not a resource when emulating on the CPU.
                if !ctx.emulate {
                    set_max_registers(op, ctx)?;
                }
                ctx.dead.push(op);
            }
            ods::ops::ARRIVE => {
                let t = tma::arrive(op, ctx, scope)?;
                // SAFETY: tokens become i32 (retype_tokens); `t` is an i32 defined before the op.
                unsafe { ir::replace_all_uses(ir::result(op, 0), t) };
                ctx.dead.push(op);
            }
            ods::ops::ALLOC | ods::ops::VIEW | ods::ops::SLICE => {}
            ods::ops::UNIT_ID => {
                let b = B::before(op);
                let tid = Ix::V(ctx.tid);
                let in_cluster = ir::has_attr(op, ods::unit_id::IN_CLUSTER);
                let v = match int_attr(op, ods::unit_id::KIND).and_then(ScopeKind::from_i64) {
                    Some(ScopeKind::Cta) if in_cluster => cluster_coords(&b, ctx).0,
                    Some(ScopeKind::Cta) => Ix::V(ctx.bid),
                    Some(ScopeKind::Cluster) => cluster_coords(&b, ctx).1,
                    Some(ScopeKind::Warpgroup) => b.div(tid, WARPGROUP_THREADS),
                    Some(ScopeKind::Warp) => b.div(tid, WARP_THREADS),
                    Some(ScopeKind::Thread) => tid,
                    None => return Err(AxeError::at(op, "internal: axe.unit_id without a kind")),
                };
                // SAFETY: the unit id is an index, computed right before the op.
                unsafe { ir::replace_all_uses(ir::result(op, 0), b.ix(v)) };
                ctx.dead.push(op);
            }
            ods::ops::GEMM => {
                gemm::lower(op, ctx, scope)?;
                // An async gemm's token: -2 (a wgmma group, waited with wgmma.wait_group) on
                // sm_90a's wgmma schedule; other schedules are synchronous (-1).
                if ir::num_results(op) == 1 {
                    let b = B::before(op);
                    let t = if ctx.wgmma_async.contains(&(op.ptr as usize)) {
                        b.ci32(GEMM_TOKEN)
                    } else {
                        b.ci32(-1)
                    };
                    // SAFETY: tokens become i32 (retype_tokens); `t` is an i32 defined before the op.
                    unsafe { ir::replace_all_uses(ir::result(op, 0), t) };
                }
                ctx.dead.push(op);
            }
            n if ods::is_axe_op(n) => {
                return Err(AxeError::at(
                    op,
                    format!("internal: '{n}' inside an axe.kernel reached no lowering (every op a kernel may hold is dispatched; meshes are lowered before kernels)"),
                ))
            }
            _ => {
                for blk in ir::region_blocks(op) {
                    lower_block(blk, ctx, scope)?;
                }
            }
        }
    }
    Ok(())
}

/// A wait on an async TMA store's token runs in the unit that issued the store: its first
/// thread holds the bulk group (PTX bulk groups are per thread). A token that can also come
/// from another kind of producer would need both mechanisms on one run-time value.
fn check_store_token(op: MlirOperation, ctx: &Ctx, t: &Token, scope: ScopeKind) -> R<()> {
    let others = Kinds {
        store: false,
        ..t.kinds
    };
    if others != Kinds::default() {
        return Err(AxeError::at(
            op,
            format!("this wait's token can come from a TMA store or from {others}: wait for the store's token apart"),
        ));
    }
    let name = |s: ScopeKind| format!("{s:?}").to_lowercase();
    if !matches!(scope, ScopeKind::Cta | ScopeKind::Warpgroup) {
        return Err(AxeError::at(
            op,
            format!("a TMA store's token is waited for by the CTA or warpgroup that issued the store; this wait executes at {} scope", name(scope)),
        ));
    }
    if let Some(issued) = t.producer.and_then(|p| ctx.store_scopes.get(&p)) {
        if *issued != scope {
            return Err(AxeError::at(
                op,
                format!(
                    "this wait executes at {} scope, but the TMA store it waits for was issued by a {} (whose first thread holds the store's bulk group)",
                    name(scope),
                    name(*issued)
                ),
            ));
        }
    }
    Ok(())
}

/// `axe.set_max_registers N` → `setmaxnreg.{inc,dec}.sync.aligned.u32 N`: an increase when N
/// is at least what every thread may hold at launch (the register file over the CTA's threads,
/// in whole warps, rounded down to a multiple of 8, at most 255: what ptxas allocates under
/// the kernel's `.maxntid`), else a decrease.
fn set_max_registers(op: MlirOperation, ctx: &Ctx) -> R<()> {
    let target = crate::target::of(op);
    if !target.is_some_and(|t| t.has_setmaxnreg) {
        return Err(AxeError::at(
            op,
            format!(
                "axe.set_max_registers needs setmaxnreg (sm_90a); the module targets {}",
                target.map_or("no GPU", |t| t.name)
            ),
        ));
    }
    let count = int_attr(op, ods::set_max_registers::COUNT).ok_or_else(|| {
        AxeError::at(
            op,
            "internal: axe.set_max_registers without its count (a required attribute)",
        )
    })?;
    let per_sm = target.map_or(0, |t| t.registers_per_sm);
    let warps = (ctx.threads + WARP_THREADS - 1) / WARP_THREADS;
    let at_launch =
        (per_sm / (warps * WARP_THREADS)).min(MAX_REGISTERS_PER_THREAD) / REGISTER_GRANULE * REGISTER_GRANULE;
    let action = if count >= at_launch { "increase" } else { "decrease" };
    let b = B::before(op);
    b.setmaxregister(action, count);
    Ok(())
}

/// `axe.scope kind [lo : hi] { body }`: the body's ops run at `kind` granularity; a slice
/// becomes an `scf.if` on the unit's index within the enclosing scope's unit (`outer`: warps
/// [0 : 1] of a warpgroup scope is the first warp of each warpgroup).
fn lower_scope(op: MlirOperation, ctx: &mut Ctx, outer: ScopeKind) -> R<()> {
    let kind = ir::enum_attr::<ScopeKind>(op, ods::scope::KIND)?
        .ok_or_else(|| AxeError::at(op, "internal: axe.scope without its kind (a required attribute)"))?;
    let inner = region_block(op, 0);
    let (lo, hi) = (int_attr(op, ods::scope::LO), int_attr(op, ods::scope::HI));
    if let (Some(lo), Some(hi)) = (lo, hi) {
        let b = B::before(op);
        let per = match kind {
            ScopeKind::Thread => 1,
            ScopeKind::Warp => WARP_THREADS,
            ScopeKind::Warpgroup => WARPGROUP_THREADS,
            _ => {
                return Err(AxeError::at(
                    op,
                    format!(
                        "a slice of {} scopes is not lowered (a kernel runs one CTA per launch block): slice threads, warps or warpgroups (`axe.scope warp [lo : hi]`), or branch on `axe.unit_id cta`",
                        kind.as_str()
                    ),
                ))
            }
        };
        let within = match outer {
            ScopeKind::Thread => Ix::C(0),
            ScopeKind::Warp => b.rem(Ix::V(ctx.tid), WARP_THREADS),
            ScopeKind::Warpgroup => b.rem(Ix::V(ctx.tid), WARPGROUP_THREADS),
            ScopeKind::Cta | ScopeKind::Cluster => Ix::V(ctx.tid),
        };
        let unit = b.div(within, per);
        let ge = b.cmp(CmpiPredicate::Uge, unit, Ix::C(lo));
        let lt = b.cmp(CmpiPredicate::Ult, unit, Ix::C(hi));
        let cond = b.and(ge, lt);
        let mut then_yield = None;
        b.if_(cond, |ib| {
            then_yield = Some(ib.before);
            Ok::<(), String>(())
        })
        .at(op)?;
        let y = then_yield.unwrap();
        for o in block_ops(inner) {
            // SAFETY: the scope's body ops (collected beforehand; `NoTerminator`, so none is a
            // terminator) move in order before the yield of the `scf.if` built before the
            // scope, so outside every one of them.
            unsafe { move_before(o, y) };
        }
        ctx.scope_ids += 1;
        let outer_id = std::mem::replace(&mut ctx.scope_id, ctx.scope_ids);
        let lowered = match ir::block_of(y) {
            Some(block) => lower_block(block, ctx, kind),
            None => Err(AxeError::at(op, "internal: a sliced scope's branch without a body")),
        };
        ctx.scope_id = outer_id;
        lowered?;
    } else {
        lower_block(inner, ctx, kind)?;
        for o in block_ops(inner) {
            // SAFETY: the lowered body's ops (collected after lowering; no terminator, as the
            // scope is `NoTerminator`) move in order before the live scope `op`, their
            // ancestor, which is in a block.
            unsafe { move_before(o, op) };
        }
    }
    // SAFETY: an axe.scope has no results, its body has been moved out (or lowered in
    // place), and it is not in `ctx.dead`.
    unsafe { ir::erase(op) };
    Ok(())
}
