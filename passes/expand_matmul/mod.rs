//! `axe-expand-matmul`: replaces each `axe.matmul` by the warp-specialized Hopper GEMM of its
//! `#axe.matmul_schedule` (Axe paper §4.1), as scoped Axe IR built through the dialect's typed
//! builders ([`crate::axe_ops`]). The schedule itself is `axe-matmul-schedule`'s
//! ([`crate::matmul_schedule`]).
//!
//! The kernel, per CTA of `tile_m / 64 + 1` warpgroups:
//! * **producer** (warp 0 of warpgroup 0, which gives registers up with `setmaxnreg`): for each
//!   of its tiles and K steps, waits until stage s is empty and fills it with two TMA copies
//!   that complete on the stage's full barrier (B multicast to the cluster's pair);
//! * **consumers** (warpgroups 1.., 64 rows of the tile each): wait until the stage is full,
//!   start its wgmma, wait until only that one is in flight and release the previous stage;
//!   after the tile's last step, scale (FP8), convert and store their rows through a swizzled
//!   shared tile with TMA, part by part, while the producer already loads the next tile.
//!
//! Barrier phases are computed, not tracked: the g-th use of a stage (counted over the CTA's
//! tiles) waits for parity g & 1 on its full barrier, the producer for (g & 1) ^ 1 on the
//! empty one (a fresh barrier passes parity 1). K is walked in whole rounds of the stages; a
//! shape that is not whole tiles (or rounds) uses `{clip}` slices: TMA fills what lies past A
//! and B with zeros (adding nothing) and stores only what lies inside C.

pub mod gather;

use arith::CmpiPredicate;
use axe_layout::{Iter, Layout};
use melior::dialect::arith;
use melior::ir::operation::OperationRefMut;
use mlir_sys::*;

use crate::axe_ops::{self, CopyOptions, Dim, FastMath};
use crate::convert_axe_to_gpu::builder::{Ix, B};
use crate::convert_axe_to_gpu::types::element_type;
use crate::dialect::ods::{self, BinaryKind, CopySchedule, MemoryScope, ScopeKind, UnaryKind};
use crate::error::{AxeError, Result};
use crate::ir;
use crate::matmul_schedule::{self as schedule, Problem, Schedule};
use crate::target::{self, TMA_GLOBAL_ALIGN};

/// Registers per thread after `setmaxnreg` in a CTA of two consumer warpgroups: the producer
/// warpgroup keeps 40, the consumers get 232 (128 x 40 + 256 x 232 = 64,512 of the 65,536; at
/// launch each of the 384 threads has 168), room for a 64x256 f32 accumulator without spills.
const PRODUCER_REGISTERS: i64 = 40;
const CONSUMER_REGISTERS: i64 = 232;

/// The pass body.
pub fn run(root: OperationRefMut) -> bool {
    crate::error::for_each_op(root.to_raw(), ods::ops::MATMUL, expand)
}

/// The row stride of a global operand `[rows, cols]` whose layout must be `(rows, cols) :
/// (ld, 1)` with `ld >= cols` and `ld` elements a multiple of 16 bytes (what a TMA tensor map
/// addresses); `what` names the operand in the error.
pub(crate) fn row_stride(op: MlirOperation, v: MlirValue, what: &str) -> Result<i64> {
    let t = ir::value_type(v);
    let shape = ir::shape(t);
    let bits = i64::from(ir::element_bits(t));
    let accepted = format!(
        "a row-major layout ({r}, {c}) : (ld, 1) with ld >= {c} and ld * {bytes} bytes a multiple of {align}",
        r = shape[0],
        c = shape[1],
        bytes = bits as f64 / 8.0,
        align = TMA_GLOBAL_ALIGN
    );
    let layout = ir::tensor_layout(t).ok_or_else(|| {
        AxeError::at(
            op,
            format!("{}: {what} has no layout; TMA needs {accepted}", ir::name(op)),
        )
    })?;
    let given = layout.canonical();
    // The candidate row stride: the stride of the iter that steps rows (any unit-extent iters
    // are dropped by canonicalization).
    let ld = given
        .shard
        .iter()
        .find(|i| i.stride != 1)
        .map_or(shape[1], |i| i.stride);
    let expected = Layout::from_shard(vec![Iter::mem(shape[0], ld), Iter::mem(shape[1], 1)])
        .map(|l| l.canonical())
        .ok();
    if expected.as_ref() != Some(&given) || ld < shape[1] || (ld * bits / 8) % TMA_GLOBAL_ALIGN != 0 {
        return Err(AxeError::at(
            op,
            format!(
                "{}: {what} has layout {}, which TMA cannot load; expected {accepted}",
                ir::name(op),
                ir::type_to_string(t)
            ),
        ));
    }
    Ok(ld)
}

/// Everything the kernel's construction reads: the problem, its schedule, the derived
/// counts and the types.
struct Plan {
    p: Problem,
    s: Schedule,
    fp8: bool,
    /// B given as [N, K] (`transpose_b`: FP8's only form, and a Linear layer's weights), its
    /// stages K-major; else [K, N], its stages N-major.
    b_k_major: bool,
    consumers: i64,
    tiles_n: i64,
    /// Tiles of the walk (a cluster's row tiles count once).
    walk_rows: i64,
    walk: i64,
    /// Work items: every tile's `split_k` parts of K, split-major (all first parts first).
    items: i64,
    rounds: i64,
    ragged: bool,
    /// Columns of one staged output part.
    part: i64,
    /// Columns of C one tile stores (half of `tile_n` in a gated product).
    out_cols: i64,
}

impl Plan {
    fn new(p: Problem, s: Schedule, transpose_b: bool) -> Plan {
        let (tiles_m, tiles_n) = schedule::tiles(&p, s.tile_m, s.tile_n);
        let walk_rows = target::ceil_div(tiles_m, s.cluster);
        // Each of the split_k work items of a tile walks the same number of rounds.
        let rounds = target::ceil_div(p.k, s.tile_k * s.stages * s.split_k);
        let ragged = p.m % s.tile_m != 0
            || p.n % s.tile_n != 0
            || p.k % (s.tile_k * s.stages * s.split_k) != 0
            || tiles_m % s.cluster != 0;
        Plan {
            p,
            s,
            fp8: p.fp8(),
            b_k_major: transpose_b,
            // Ping-pong: two consumer warpgroups, each on whole 64-row tiles of its own.
            consumers: if s.pingpong { 2 } else { s.tile_m / 64 },
            tiles_n,
            walk_rows,
            walk: walk_rows * tiles_n,
            items: walk_rows * tiles_n * s.split_k,
            rounds,
            ragged,
            part: schedule::staging_columns(&p, s.tile_n),
            out_cols: schedule::output_columns(&p, s.tile_n),
        }
    }

    /// The 128-byte swizzle of the operand stages: 8 rows of 128 bytes, 16-byte chunks
    /// (`#axe.swizzle<3, 4, 3>` for FP8, `<3, 3, 3>` for 16-bit elements).
    fn operand_swizzle(&self) -> (i32, i32, i32) {
        if self.fp8 {
            (3, 4, 3)
        } else {
            (3, 3, 3)
        }
    }
}

/// The operands of one `axe.matmul`.
struct Operands {
    a: MlirValue,
    b: MlirValue,
    c: MlirValue,
    scales: Option<(MlirValue, MlirValue)>,
    /// Split-K's running sums (f32, C's shape) and flags (one per 64x64 block of C).
    workspace: Option<(MlirValue, MlirValue)>,
    /// A gated product's activation (`gate`): C = act(A B_gate) * (A B_up).
    gate: Option<UnaryKind>,
    /// Its up weights when given apart from B (`up(...)`).
    b_up: Option<MlirValue>,
    /// The fused all-gather of A's rows (`gather`).
    gather: Option<gather::Gather>,
    /// The epilogue: C = act(A B + bias) + residual.
    bias: Option<MlirValue>,
    activation: Option<UnaryKind>,
    residual: Option<MlirValue>,
    e: MlirType,
    o: MlirType,
}

fn expand(op: MlirOperation) -> Result<()> {
    use ods::matmul::operands;
    let t = schedule::target_of(op)?;
    let p = schedule::problem(op);
    let s = schedule::given(op)?.complete().ok_or_else(|| {
        AxeError::at(
            op,
            "axe.matmul has no complete #axe.matmul_schedule: run axe-matmul-schedule first".to_string(),
        )
    })?;
    schedule::check(&p, t, &s)
        .map_err(|why| AxeError::at(op, format!("axe.matmul {}x{}x{}: cannot expand: {why}", p.m, p.n, p.k)))?;
    let optional = schedule::optional_operands(op);
    let b = B::before(op);
    let e = element_type(ir::value_type(ir::operand(op, operands::A)));
    let gather = match optional.gather {
        Some(g) => Some(gather::views(op, &b, ir::operand(op, operands::A), g, e, s.pushers)?),
        None => None,
    };
    let x = Operands {
        a: ir::operand(op, operands::A),
        b: ir::operand(op, operands::B),
        c: ir::operand(op, operands::C),
        scales: optional.scales,
        workspace: optional.workspace,
        gate: ir::enum_attr::<UnaryKind>(op, ods::matmul::GATE)?,
        b_up: optional.b_up,
        gather,
        bias: optional.bias,
        activation: ir::enum_attr::<UnaryKind>(op, ods::matmul::ACTIVATION)?,
        residual: optional.residual,
        e,
        o: element_type(ir::value_type(ir::operand(op, operands::C))),
    };
    if x.gather.is_none() {
        row_stride(op, x.a, "A")?;
    }
    row_stride(op, x.b, "B")?;
    if let Some(up) = x.b_up {
        row_stride(op, up, "the up weights")?;
    }
    row_stride(op, x.c, "C")?;
    let plan = Plan::new(p, s, ir::attr(op, ods::matmul::TRANSPOSE_B).is_some());
    build_kernel(&b, &plan, &x);
    // SAFETY: `op` is live, owned by the pass, has no results, and is not walked again.
    unsafe { ir::erase(op) };
    Ok(())
}

/// The kernel's values every role reads.
struct Shared {
    cta: MlirValue,
    /// The CTA's rank in its cluster.
    rank: Option<MlirValue>,
    /// The device's rank in the mesh (a gathered A).
    device: Option<MlirValue>,
    tiles: MlirValue,
    grid: MlirValue,
    rounds: MlirValue,
    truth: MlirValue,
    stages_a: Vec<MlirValue>,
    stages_b: Vec<MlirValue>,
    full: Vec<MlirValue>,
    empty: Vec<MlirValue>,
    /// Ping-pong: each consumer warpgroup's turn to run its mainloop (the other one arrives
    /// when its own mainloop has issued every MMA).
    turns: Vec<MlirValue>,
}

fn build_kernel(b: &B, plan: &Plan, x: &Operands) {
    let s = &plan.s;
    let threads = (plan.consumers + 1) * target::WARPGROUP_THREADS;
    let cluster = (s.cluster > 1).then_some(s.cluster);
    // Split tiles wait for each other's parts: every CTA must be resident (a cooperative
    // launch, refused by the driver rather than deadlocking where the grid does not fit).
    // A gathered A's row tiles wait for pushes by every peer's CTAs: all must be resident too.
    let cooperative = s.split_k > 1 || x.gather.is_some();
    axe_ops::kernel(b, s.grid, threads, cluster, cooperative, |k| {
        let (cta, rank) = if s.cluster > 1 {
            (
                axe_ops::unit_id(&k, ScopeKind::Cluster, false),
                Some(axe_ops::unit_id(&k, ScopeKind::Cta, true)),
            )
        } else {
            (axe_ops::unit_id(&k, ScopeKind::Cta, false), None)
        };
        let sa = stage_a_type(&k, plan, x);
        let sb = stage_b_type(&k, plan, x);
        let mut shared = Shared {
            cta,
            rank,
            device: x.gather.as_ref().map(|_| axe_ops::device_id(&k)),
            tiles: k.cidx(plan.items),
            grid: k.cidx(s.grid / s.cluster),
            rounds: k.cidx(plan.rounds),
            truth: k.cbool(true),
            stages_a: vec![],
            stages_b: vec![],
            full: vec![],
            empty: vec![],
            turns: vec![],
        };
        for _ in 0..s.stages {
            shared.stages_a.push(axe_ops::alloc(&k, sa));
            shared.stages_b.push(axe_ops::alloc(&k, sb));
        }
        // Full: the two TMA copies of a stage landed. Empty: every consumer thread is done
        // reading it (with clusters, one lane per consumer warp of each CTA of the pair).
        let empty_arrivals = if s.cluster > 1 {
            plan.consumers * target::WARPGROUP_WARPS * s.cluster
        } else if s.pingpong {
            // Each stage use belongs to one warpgroup's tile.
            target::WARPGROUP_THREADS
        } else {
            plan.consumers * target::WARPGROUP_THREADS
        };
        // Full: A's copy and B's (both halves of a gated product's B: two copies).
        let copies = if x.gate.is_some() { 3 } else { 2 };
        for _ in 0..s.stages {
            shared.full.push(axe_ops::mbarrier(&k, copies));
            shared.empty.push(axe_ops::mbarrier(&k, empty_arrivals));
        }
        if s.pingpong {
            for _ in 0..2 {
                shared.turns.push(axe_ops::mbarrier(&k, target::WARPGROUP_THREADS));
            }
        }
        let split_registers = plan.consumers == 2;
        axe_ops::scope(&k, ScopeKind::Warpgroup, 0, 1, |wg| {
            if split_registers {
                axe_ops::set_max_registers(&wg, PRODUCER_REGISTERS);
            }
            axe_ops::scope(&wg, ScopeKind::Warp, 0, 1, |w| {
                tile_loop(&w, plan, &shared, 0, 1, |j, item| produce(j, plan, x, &shared, item));
            });
            if let (Some(g), Some(device)) = (&x.gather, shared.device) {
                for p in 1..=g.pushers {
                    axe_ops::scope(&wg, ScopeKind::Warp, p, p + 1, |w| {
                        gather::pusher(&w, g, shared.cta, s.grid, p, device);
                    });
                }
            }
        });
        for w in 1..=plan.consumers {
            axe_ops::scope(&k, ScopeKind::Warpgroup, w, w + 1, |wg| {
                if split_registers {
                    axe_ops::set_max_registers(&wg, CONSUMER_REGISTERS);
                }
                if s.pingpong {
                    consumer(&wg, plan, x, &shared, 0, Some(w - 1));
                } else {
                    consumer(&wg, plan, x, &shared, (w - 1) * 64, None);
                }
            });
        }
    });
}

/// A's stage: `tile_m x tile_k`, row-major, 128-byte swizzled.
fn stage_a_type(b: &B, plan: &Plan, x: &Operands) -> MlirType {
    let (bm, bk) = (plan.s.tile_m, plan.s.tile_k);
    let l = Layout::from_shard(vec![Iter::mem(bm, bk), Iter::mem(bk, 1)]).expect("a valid stage layout");
    axe_ops::tensor_type(
        b,
        &[bm, bk],
        x.e,
        MemoryScope::Shared,
        Some(&l),
        Some(plan.operand_swizzle()),
    )
}

/// B's stage: FP8 `tile_n x tile_k` K-major; 16-bit `tile_k x tile_n` as 64-column blocks of
/// 128-byte rows (what wgmma reads N-major), each block swizzled.
fn stage_b_type(b: &B, plan: &Plan, x: &Operands) -> MlirType {
    let (bn, bk) = (plan.s.tile_n, plan.s.tile_k);
    let (shape, l) = if plan.b_k_major {
        ([bn, bk], Layout::from_shard(vec![Iter::mem(bn, bk), Iter::mem(bk, 1)]))
    } else {
        (
            [bk, bn],
            Layout::from_shard(vec![Iter::mem(bk, 64), Iter::mem(bn / 64, bk * 64), Iter::mem(64, 1)]),
        )
    };
    let l = l.expect("a valid stage layout");
    axe_ops::tensor_type(
        b,
        &shape,
        x.e,
        MemoryScope::Shared,
        Some(&l),
        Some(plan.operand_swizzle()),
    )
}

/// The CTA's tiles: `t = cta, cta + grid, ...` from its `first`-th, every `every`-th (a
/// ping-pong consumer's); `body(b, it, om, on)` with `it` the number of tiles this CTA did
/// before (for the barrier phases) and `om`, `on` the tile's origin in C.
fn tile_loop(b: &B, plan: &Plan, sh: &Shared, first: i64, every: i64, body: impl FnOnce(&B, Item)) {
    let s = &plan.s;
    let start = if first == 0 {
        sh.cta
    } else {
        b.addi(sh.cta, b.muli(sh.grid, b.cidx(first)))
    };
    let step = if every == 1 {
        sh.grid
    } else {
        b.muli(sh.grid, b.cidx(every))
    };
    b.for_::<()>(Ix::V(start), Ix::V(sh.tiles), Ix::V(step), |j, t| {
        let tl = j.subi(t, sh.cta);
        let it = j.arith_binary(arith::divui, tl, sh.grid);
        // Split-K: item t is part t / walk of tile t % walk.
        let (split, tile) = if s.split_k > 1 {
            let walk = j.cidx(plan.walk);
            (
                Some(j.arith_binary(arith::divui, t, walk)),
                j.arith_binary(arith::remui, t, walk),
            )
        } else {
            (None, t)
        };
        let (bm, bn) = raster(&j, tile, plan);
        // A gathered A: this device's own row tiles first (they need no pushes), then device
        // r + 1's, ...: rotated by a device's row tiles.
        let bm = match (plan.p.gather, sh.device) {
            (Some(devices), Some(device)) => {
                let shift = j.muli(device, j.cidx(plan.walk_rows / devices));
                j.arith_binary(arith::remui, j.addi(bm, shift), j.cidx(plan.walk_rows))
            }
            _ => bm,
        };
        let om = match sh.rank {
            // This CTA's row tile of its cluster's.
            Some(rank) => {
                let first = j.muli(bm, j.cidx(s.cluster));
                let row = j.addi(first, rank);
                j.muli(row, j.cidx(s.tile_m))
            }
            None => j.muli(bm, j.cidx(s.tile_m)),
        };
        let on = j.muli(bn, j.cidx(plan.out_cols));
        body(&j, Item { it, om, on, split });
        Ok(())
    })
    .expect("the tile loop's body does not fail");
}

/// One work item of a CTA's walk: how many it did before (for the barrier phases), the
/// tile's origin in C, and with split-K which part of K it is.
#[derive(Clone, Copy)]
struct Item {
    it: MlirValue,
    om: MlirValue,
    on: MlirValue,
    split: Option<MlirValue>,
}

/// Tile `t`'s row and column tile of the walk. Grouped raster (as Triton's GROUP_M) where the
/// group divides the walk's row tiles: consecutive tiles walk `group` row tiles of A down one
/// column tile of B before moving right, so both stay in L2; else row-major.
fn raster(b: &B, t: MlirValue, plan: &Plan) -> (MlirValue, MlirValue) {
    let g = plan.s.group;
    if g > 1 && plan.walk_rows % g == 0 {
        let per_group = b.cidx(g * plan.tiles_n);
        let cg = b.cidx(g);
        let gid = b.arith_binary(arith::divui, t, per_group);
        let first = b.muli(gid, cg);
        let in_group = b.arith_binary(arith::remui, t, per_group);
        let row = b.arith_binary(arith::remui, in_group, cg);
        (b.addi(first, row), b.arith_binary(arith::divui, in_group, cg))
    } else {
        let tn = b.cidx(plan.tiles_n);
        (b.arith_binary(arith::divui, t, tn), b.arith_binary(arith::remui, t, tn))
    }
}

/// The parity of round `r`'s phase on a stage: `(it * rounds + r) & 1`, as an i1.
fn phase(b: &B, sh: &Shared, it: MlirValue, r: MlirValue) -> MlirValue {
    let g = b.muli(it, sh.rounds);
    let used = b.addi(g, r);
    let bit = b.andi(used, b.cidx(1));
    b.cmpi(CmpiPredicate::Ne, bit, b.cidx(0))
}

/// B's region `[n : +bn, k : +bk]` (B given as [N, K]) or `[k : +bk, n : +bn]`.
fn b_dims(plan: &Plan, n: Dim, k: Dim) -> [Dim; 2] {
    if plan.b_k_major {
        [n, k]
    } else {
        [k, n]
    }
}

/// The producer warp's part of one tile: every K step of it, stage by stage.
fn produce(b: &B, plan: &Plan, x: &Operands, sh: &Shared, item: Item) {
    let Item { it, om, on, split } = item;
    let s = &plan.s;
    let k = plan.p.k;
    let (bm, bn, bk) = (s.tile_m, s.tile_n, s.tile_k);
    let global = |b: &B, shape: &[i64]| axe_ops::tensor_type(b, shape, x.e, MemoryScope::Global, None, None);
    let b_shape = |rows_n: i64, cols_k: i64| {
        if plan.b_k_major {
            [rows_n, cols_k]
        } else {
            [cols_k, rows_n]
        }
    };
    // Where the tile's rows of A come from: A itself, or with a gathered A this device's rows
    // of it (own row tiles) or its gather buffer (after the pieces of those rows arrived).
    let a_sources: Vec<(Option<MlirValue>, MlirValue, MlirValue)> = match (&x.gather, sh.device) {
        (Some(g), Some(device)) => {
            let (own, source) = gather::owner(b, g, om, device);
            let other = b.xori(own, sh.truth);
            b.if_::<()>(other, |t| {
                gather::wait_rows(&t, g, om, source, device, bm);
                Ok(())
            })
            .expect("the wait does not fail");
            let local_row = b.subi(om, b.muli(device, b.cidx(g.shard_rows)));
            vec![(Some(own), g.a_local, local_row), (Some(other), g.g_local, om)]
        }
        _ => vec![(None, x.a, om)],
    };
    // B's columns for the tile (source, first column, width, where it lands in the stage): a
    // gated product loads the matching columns of both halves (gate at `on`, up at N/2 + `on`
    // of B, or at `on` of the separate up weights).
    let b_parts: Vec<(MlirValue, MlirValue, i64, i64)> = match (x.gate, x.b_up) {
        (Some(_), Some(up)) => {
            let half = bn / 2;
            vec![(x.b, on, half, 0), (up, on, half, half)]
        }
        (Some(_), None) => {
            let half = bn / 2;
            vec![(x.b, on, half, 0), (x.b, b.addi(on, b.cidx(plan.p.n / 2)), half, half)]
        }
        _ => vec![(x.b, on, bn, 0)],
    };
    // Whole tiles: the tile's rows of A and columns of B once, each K step a slice of them.
    // Ragged: a two-dimensional `{clip}` slice per K step.
    let a_panels: Vec<Option<MlirValue>> = a_sources
        .iter()
        .map(|&(_, root, row)| {
            (!plan.ragged).then(|| {
                axe_ops::slice(
                    b,
                    root,
                    &[Dim::At(row, bm), Dim::Static(0, k)],
                    false,
                    global(b, &[bm, k]),
                )
            })
        })
        .collect();
    let b_panels: Vec<Option<MlirValue>> = b_parts
        .iter()
        .map(|&(source, col, w, _)| {
            (!plan.ragged).then(|| {
                axe_ops::slice(
                    b,
                    source,
                    &b_dims(plan, Dim::At(col, w), Dim::Static(0, k)),
                    false,
                    global(b, &b_shape(w, k)),
                )
            })
        })
        .collect();
    // A stage's part of B for each of `b_parts` (the whole stage, or its halves).
    let stage_b_parts = |q: &B, st: usize| -> Vec<MlirValue> {
        if b_parts.len() == 1 {
            return vec![sh.stages_b[st]];
        }
        b_parts
            .iter()
            .map(|&(_, _, w, at)| {
                let t = axe_ops::tensor_type(
                    q,
                    &b_shape(w, bk),
                    x.e,
                    MemoryScope::Shared,
                    None,
                    Some(plan.operand_swizzle()),
                );
                axe_ops::slice(
                    q,
                    sh.stages_b[st],
                    &b_dims(plan, Dim::Static(at, at + w), Dim::Static(0, bk)),
                    false,
                    t,
                )
            })
            .collect()
    };
    b.for_::<()>(Ix::C(0), Ix::V(sh.rounds), Ix::C(1), |q, r| {
        let full = phase(&q, sh, it, r);
        let empty = q.xori(full, sh.truth);
        // This item's first round: split-K's part `split` starts `split * rounds` rounds in.
        let round = match split {
            Some(part) => q.addi(q.muli(part, sh.rounds), r),
            None => r,
        };
        let k0 = q.muli(round, q.cidx(s.stages * bk));
        for st in 0..s.stages as usize {
            axe_ops::mbarrier_wait(&q, sh.empty[st], empty);
            let ks = if st == 0 {
                k0
            } else {
                q.addi(k0, q.cidx(st as i64 * bk))
            };
            let tma = CopyOptions {
                schedule: CopySchedule::Tma,
                async_: true,
                barrier: Some(sh.full[st]),
                multicast: None,
            };
            for (&(cond, root, row), &panel) in a_sources.iter().zip(&a_panels) {
                let load = |t: &B| {
                    let at = match panel {
                        Some(ar) => axe_ops::slice(
                            t,
                            ar,
                            &[Dim::Static(0, bm), Dim::At(ks, bk)],
                            false,
                            global(t, &[bm, bk]),
                        ),
                        None => axe_ops::slice(
                            t,
                            root,
                            &[Dim::At(row, bm), Dim::At(ks, bk)],
                            true,
                            global(t, &[bm, bk]),
                        ),
                    };
                    axe_ops::copy(t, at, sh.stages_a[st], tma);
                };
                match cond {
                    Some(c) => {
                        q.if_::<()>(c, |t| {
                            load(&t);
                            Ok(())
                        })
                        .expect("the load does not fail");
                    }
                    None => load(&q),
                }
            }
            let multicast = (s.cluster > 1).then_some(0);
            for ((&(source, col, w, _), &panel), dest) in b_parts.iter().zip(&b_panels).zip(stage_b_parts(&q, st)) {
                let bt = match panel {
                    Some(bc) => axe_ops::slice(
                        &q,
                        bc,
                        &b_dims(plan, Dim::Static(0, w), Dim::At(ks, bk)),
                        false,
                        global(&q, &b_shape(w, bk)),
                    ),
                    None => axe_ops::slice(
                        &q,
                        source,
                        &b_dims(plan, Dim::At(col, w), Dim::At(ks, bk)),
                        true,
                        global(&q, &b_shape(w, bk)),
                    ),
                };
                axe_ops::copy(&q, bt, dest, CopyOptions { multicast, ..tma });
            }
        }
        Ok(())
    })
    .expect("the producer's loop body does not fail");
}

/// The consumer warpgroup of rows `row0 .. row0 + 64` of every tile; in a ping-pong schedule,
/// `turn` is its place (0 or 1): it takes every other tile of the CTA, whole, and runs its
/// mainloop when the other warpgroup's has issued its MMAs.
fn consumer(b: &B, plan: &Plan, x: &Operands, sh: &Shared, row0: i64, turn: Option<i64>) {
    let s = &plan.s;
    let (bn, bk) = (s.tile_n, s.tile_k);
    let f32 = b.f32_type();
    let reg = |b: &B, shape: &[i64], e: MlirType| axe_ops::tensor_type(b, shape, e, MemoryScope::Register, None, None);
    // This warpgroup's 64 rows of each A stage (the whole stage for one consumer).
    let rows: Vec<MlirValue> = if plan.consumers == 1 || turn.is_some() {
        sh.stages_a.clone()
    } else {
        let sah = axe_ops::tensor_type(
            b,
            &[64, bk],
            x.e,
            MemoryScope::Shared,
            None,
            Some(plan.operand_swizzle()),
        );
        sh.stages_a
            .iter()
            .map(|&st| axe_ops::slice(b, st, &[Dim::Static(row0, row0 + 64), Dim::Static(0, bk)], false, sah))
            .collect()
    };
    let acc_t = reg(b, &[64, bn], f32);
    let acc = axe_ops::alloc(b, acc_t);
    let (staging_t, part_w) = staging_type(b, plan, x);
    let staging = axe_ops::alloc(b, staging_t);
    let zero = b.cfloat(0.0, f32);
    // FP8: the product of the per-tensor scales, once per warpgroup.
    let scale = x.scales.filter(|_| !plan.p.block_scaled).map(|(ga, gb)| {
        let sr = reg(b, &[1, 1], f32);
        let (ra, rb) = (axe_ops::alloc(b, sr), axe_ops::alloc(b, sr));
        axe_ops::copy(b, ga, ra, CopyOptions::AUTO);
        axe_ops::copy(b, gb, rb, CopyOptions::AUTO);
        axe_ops::binary(b, BinaryKind::Mul, ra, rb, ra, FastMath::Contract);
        ra
    });
    // Block-scaled FP8: each stage is one 128-deep block of K. Its product goes into `slab`,
    // which is scaled by A's row scales (this warpgroup's 64 of them) and B's block scale,
    // then added to the accumulator. A round's scales (one block per stage) are loaded at its
    // start, from one address: per-stage addresses would be loop invariants that LLVM hoists
    // out of the round loop, a few registers per stage, and ptxas then spilled and serialized
    // the wgmmas from 4 stages up (measured: 1.4 KB of spills at 4 stages, none at 2).
    let blocks = x.scales.filter(|_| plan.p.block_scaled).map(|(sa, sb)| {
        let (rows, block) = round_scale_layouts(s.stages);
        BlockScales {
            sa,
            sb,
            slab: axe_ops::alloc(b, acc_t),
            rows: axe_ops::alloc(
                b,
                axe_ops::tensor_type(b, &[64, s.stages], f32, MemoryScope::Register, Some(&rows), None),
            ),
            block: axe_ops::alloc(
                b,
                axe_ops::tensor_type(b, &[1, s.stages], f32, MemoryScope::Register, Some(&block), None),
            ),
        }
    });
    // Clusters: lane r of each warp releases the stage of the pair's CTA r.
    let signal = (s.cluster > 1).then(|| {
        let tid = axe_ops::unit_id(b, ScopeKind::Thread, false);
        let lane = b.arith_binary(arith::remui, tid, b.cidx(target::WARP_THREADS));
        let is_signal = b.cmpi(CmpiPredicate::Ult, lane, b.cidx(s.cluster));
        (lane, is_signal)
    });
    let release = |q: &B, st: usize| match signal {
        None => axe_ops::mbarrier_arrive(q, sh.empty[st], None),
        Some((lane, is_signal)) => {
            q.if_::<()>(is_signal, |t| {
                axe_ops::mbarrier_arrive(&t, sh.empty[st], Some(lane));
                Ok(())
            })
            .expect("the release does not fail");
        }
    };
    let (first, every) = turn.map_or((0, 1), |w| (w, 2));
    tile_loop(b, plan, sh, first, every, |j, item| {
        let Item { it, om, on, split } = item;
        // Ping-pong: wait for this warpgroup's turn. Its n-th tile (n = it / 2) follows the
        // other's n-th (turn 1) or (n - 1)-th (turn 0; its first passes a fresh barrier's
        // parity 1): the parity of that arrival's phase.
        if let Some(w) = turn {
            let n = j.arith_binary(arith::divui, it, j.cidx(2));
            let bit = j.cmpi(CmpiPredicate::Ne, j.andi(n, j.cidx(1)), j.cidx(0));
            let parity = if w == 0 { j.xori(bit, sh.truth) } else { bit };
            axe_ops::mbarrier_wait(j, sh.turns[w as usize], parity);
        }
        axe_ops::fill(j, acc, zero);
        j.for_::<()>(Ix::C(0), Ix::V(sh.rounds), Ix::C(1), |q, r| {
            if let Some(bl) = &blocks {
                load_round_scales(&q, plan, bl, block_index(&q, plan, split, sh.rounds, r), (om, on, row0));
            }
            let full = phase(&q, sh, it, r);
            let not_first = q.cmpi(CmpiPredicate::Ne, r, q.cidx(0));
            for (st, (&a, &bs)) in rows.iter().zip(&sh.stages_b).enumerate() {
                axe_ops::mbarrier_wait(&q, sh.full[st], full);
                if let Some(bl) = &blocks {
                    // This block's MMAs into the zeroed slab, waited for; its stage released,
                    // then the slab scaled and summed.
                    axe_ops::fill(&q, bl.slab, zero);
                    let g = axe_ops::gemm_async(&q, a, bs, bl.slab, plan.b_k_major);
                    if st == 0 {
                        // The round's scales (loaded at its start) combined under the MMAs:
                        // each block's A row scales times its B block scale.
                        axe_ops::binary(&q, BinaryKind::Mul, bl.rows, bl.block, bl.rows, FastMath::Contract);
                    }
                    axe_ops::wait(&q, &[g], 0);
                    release(&q, st);
                    sum_block(&q, bl, st as i64, acc);
                    continue;
                }
                let g = axe_ops::gemm_async(&q, a, bs, acc, plan.b_k_major);
                axe_ops::wait(&q, &[g], 1);
                // The previous K step's gemm is done: its stage may be refilled (at a tile's
                // first step, that stage was released after the previous tile).
                if st > 0 {
                    release(&q, st - 1);
                } else {
                    q.if_::<()>(not_first, |t| {
                        release(&t, s.stages as usize - 1);
                        Ok(())
                    })
                    .expect("the release does not fail");
                }
            }
            Ok(())
        })
        .expect("the consumer's loop body does not fail");
        // Every MMA of the tile is issued: the other warpgroup's turn.
        if let Some(w) = turn {
            axe_ops::mbarrier_arrive(j, sh.turns[1 - w as usize], None);
        }
        axe_ops::wait(j, &[], 0);
        // (Block-scaled stages were released as their slabs were summed.)
        if blocks.is_none() {
            release(j, s.stages as usize - 1);
        }
        if let Some(scale) = scale {
            axe_ops::binary(j, BinaryKind::Mul, acc, scale, acc, FastMath::Contract);
        }
        match (split, x.workspace) {
            (Some(part), Some(workspace)) => {
                fixup(j, plan, acc, part, workspace, om, on, row0, |last| {
                    epilogue(last, plan, x, acc, staging, part_w, om, on, row0)
                });
            }
            _ => epilogue(j, plan, x, acc, staging, part_w, om, on, row0),
        }
    });
}

/// A block-scaled FP8 consumer's operands: A's and B's scales, the slab a block's MMAs add
/// into, and a round's scales: this warpgroup's 64 of A's rows and B's one for the tile's
/// columns, per block of the round (`[64, stages]`, `[1, stages]`).
struct BlockScales {
    sa: MlirValue,
    sb: MlirValue,
    slab: MlirValue,
    rows: MlirValue,
    block: MlirValue,
}

/// The register layouts of a round's scales, given rather than inferred (inference would lay
/// the stages across lanes, which the accumulator's rows then reach only through shared
/// memory): A's `[64, stages]` on the threads that hold those rows of a wgmma m64nN
/// accumulator (warp w rows 16w.., lane l rows l/4 and l/4 + 8, replicated over l % 4), the
/// stages in registers; B's `[1, stages]` in registers of every thread.
fn round_scale_layouts(stages: i64) -> (Layout, Layout) {
    let rows = Layout::new(
        vec![
            Iter::new(4, 1, "warp"),
            Iter::new(2, stages, "reg"),
            Iter::new(8, 4, "lane"),
            Iter::new(stages, 1, "reg"),
        ],
        vec![Iter::new(4, 1, "lane")],
        Default::default(),
    )
    .expect("a valid layout of a round's row scales");
    let block = Layout::new(
        vec![Iter::new(stages, 1, "reg")],
        vec![Iter::new(target::WARP_THREADS, 1, "lane"), Iter::new(4, 1, "warp")],
        Default::default(),
    )
    .expect("a valid layout of a round's block scales");
    (rows, block)
}

/// The first block of K (of 128) of round `r`, split-K's offset included.
fn block_index(q: &B, plan: &Plan, split: Option<MlirValue>, rounds: MlirValue, r: MlirValue) -> MlirValue {
    let round = match split {
        Some(part) => q.addi(q.muli(part, rounds), r),
        None => r,
    };
    q.muli(round, q.cidx(plan.s.stages))
}

/// Loads the scales of the round whose first block of K is `kb`: A's for this warpgroup's 64
/// rows of the tile, B's for the tile's columns (which lie in one 128-column block: `tile_n`
/// is 64 or 128), one per stage. The slices are clipped and the registers zeroed first: a
/// round's blocks past K (TMA zero-filled) lie past the scales' ends, as may a ragged tile's
/// rows.
fn load_round_scales(q: &B, plan: &Plan, bl: &BlockScales, kb: MlirValue, at: (MlirValue, MlirValue, i64)) {
    let (om, on, row0) = at;
    let stages = plan.s.stages;
    let f32 = q.f32_type();
    let global = |shape: &[i64]| axe_ops::tensor_type(q, shape, f32, MemoryScope::Global, None, None);
    let row = q.addi(om, q.cidx(row0));
    let column_block = q.arith_binary(arith::divui, on, q.cidx(schedule::BLOCK_SCALE));
    let zero = q.cfloat(0.0, f32);
    axe_ops::fill(q, bl.rows, zero);
    axe_ops::fill(q, bl.block, zero);
    // A's rows of the tile and B's block of its columns, by the round's blocks of K.
    for (source, origin, rows, dest) in [(bl.sa, row, 64, bl.rows), (bl.sb, column_block, 1, bl.block)] {
        let tile = axe_ops::slice(
            q,
            source,
            &[Dim::At(origin, rows), Dim::At(kb, stages)],
            true,
            global(&[rows, stages]),
        );
        axe_ops::copy(q, tile, dest, CopyOptions::AUTO);
    }
}

/// acc += slab · scales of the round's block `st` (A's row scales times B's block scale,
/// combined at the round's first block), in f32, one fma per element (the slab's MMAs are
/// complete).
fn sum_block(q: &B, bl: &BlockScales, st: i64, acc: MlirValue) {
    let f32 = q.f32_type();
    let reg = |shape: &[i64]| axe_ops::tensor_type(q, shape, f32, MemoryScope::Register, None, None);
    let rows = axe_ops::slice(
        q,
        bl.rows,
        &[Dim::Static(0, 64), Dim::Static(st, st + 1)],
        false,
        reg(&[64, 1]),
    );
    axe_ops::binary(q, BinaryKind::Mul, bl.slab, rows, bl.slab, FastMath::Contract);
    axe_ops::binary(q, BinaryKind::Add, acc, bl.slab, acc, FastMath::Contract);
}

/// Split-K's fix-up of this warpgroup's 64 rows: the parts of a tile add up in turn through
/// the workspace. Part `s` waits until the 64x64 block's flag says `s` parts are summed
/// (`axe.signal_wait`, acquire), adds the running sums into its accumulator; all but the last
/// part store the sums back and publish `s + 1` (`axe.signal`, release), the last stores C
/// through `store` and resets the flag to 0 for the next launch. Items are split-major, so a
/// part waits only for parts that come earlier in every CTA's walk (no cycles).
#[allow(clippy::too_many_arguments)]
fn fixup(
    b: &B,
    plan: &Plan,
    acc: MlirValue,
    part: MlirValue,
    (partials, flags): (MlirValue, MlirValue),
    om: MlirValue,
    on: MlirValue,
    row0: i64,
    store: impl FnOnce(&B),
) {
    let bn = plan.s.tile_n;
    let f32 = b.f32_type();
    let i32 = b.int_type(32);
    let omw = b.addi(om, b.cidx(row0));
    let block_row = b.arith_binary(arith::divui, omw, b.cidx(64));
    let block_col = b.arith_binary(arith::divui, on, b.cidx(64));
    let flag_t = axe_ops::tensor_type(b, &[1, 1], i32, MemoryScope::Global, None, None);
    let flag = axe_ops::slice(b, flags, &[Dim::At(block_row, 1), Dim::At(block_col, 1)], false, flag_t);
    let sums_t = axe_ops::tensor_type(b, &[64, bn], f32, MemoryScope::Global, None, None);
    let sums = axe_ops::slice(b, partials, &[Dim::At(omw, 64), Dim::At(on, bn)], plan.ragged, sums_t);
    let done = b.index_cast(part, i32);
    let first = b.cmpi(CmpiPredicate::Eq, part, b.cidx(0));
    let not_first = b.xori(first, b.cbool(true));
    b.if_::<()>(not_first, |t| {
        axe_ops::signal_wait(&t, flag, done);
        let reg_t = axe_ops::tensor_type(&t, &[64, bn], f32, MemoryScope::Register, None, None);
        let running = axe_ops::alloc(&t, reg_t);
        axe_ops::copy(&t, sums, running, CopyOptions::AUTO);
        axe_ops::binary(&t, BinaryKind::Add, acc, running, acc, FastMath::Contract);
        Ok(())
    })
    .expect("the fix-up does not fail");
    let last = b.cmpi(CmpiPredicate::Eq, part, b.cidx(plan.s.split_k - 1));
    let not_last = b.xori(last, b.cbool(true));
    b.if_::<()>(not_last, |t| {
        axe_ops::copy(&t, acc, sums, CopyOptions::AUTO);
        let next = t.addi(done, t.cint(1, 32));
        axe_ops::signal(&t, flag, next);
        Ok(())
    })
    .expect("the fix-up does not fail");
    b.if_::<()>(last, |t| {
        store(&t);
        axe_ops::signal(&t, flag, t.cint(0, 32));
        Ok(())
    })
    .expect("the fix-up does not fail");
}

/// The consumers' shared tile for the epilogue: 64 rows of `part` columns (256 bytes of a
/// row, or the whole tile if narrower) as 128-byte blocks, swizzled as wgmma's B
/// (conflict-free fragment writes); returns its type and width.
fn staging_type(b: &B, plan: &Plan, x: &Operands) -> (MlirType, i64) {
    let ob = plan.p.out_bits / 8;
    let w = plan.part;
    let row = 128 / ob; // elements of one 128-byte block row
    let l = Layout::from_shard(vec![
        Iter::mem(64, row),
        Iter::mem(w / row, 64 * row),
        Iter::mem(row, 1),
    ])
    .expect("a valid staging layout");
    // 8 rows of 128 bytes, 16-byte chunks: M is log2 of the elements per chunk.
    let m = (16 / ob).trailing_zeros() as i32;
    let t = axe_ops::tensor_type(b, &[64, w], x.o, MemoryScope::Shared, Some(&l), Some((3, m, 3)));
    (t, w)
}

/// This warpgroup's 64 rows of the tile, part by part (of a gated product, the activation of
/// the gate columns times the up columns): each part of the accumulator is
/// converted right before it goes to shared memory (with the whole tile converted after the
/// wait, ptxas (CUDA 13.0) hoisted conversions above `wgmma.wait_group 0` in kernels with one
/// tile per CTA), then stored to C by TMA (`{clip}`: only what lies inside C).
#[allow(clippy::too_many_arguments)]
fn epilogue(
    b: &B,
    plan: &Plan,
    x: &Operands,
    acc: MlirValue,
    staging: MlirValue,
    w: i64,
    om: MlirValue,
    on: MlirValue,
    row0: i64,
) {
    let f32 = b.f32_type();
    let out_f32 = plan.p.out_bits == 32;
    let omw = b.addi(om, b.cidx(row0));
    let part_acc_t = axe_ops::tensor_type(b, &[64, w], f32, MemoryScope::Register, None, None);
    let part_t = axe_ops::tensor_type(b, &[64, w], x.o, MemoryScope::Register, None, None);
    let part_c_t = axe_ops::tensor_type(b, &[64, w], x.o, MemoryScope::Global, None, None);
    for c in 0..plan.out_cols / w {
        let pacc = axe_ops::slice(
            b,
            acc,
            &[Dim::Static(0, 64), Dim::Static(c * w, (c + 1) * w)],
            false,
            part_acc_t,
        );
        // A gated product: act(gate) * up, the up columns half a tile to the right.
        if let Some(gate) = x.gate {
            let up = plan.out_cols + c * w;
            let uacc = axe_ops::slice(
                b,
                acc,
                &[Dim::Static(0, 64), Dim::Static(up, up + w)],
                false,
                part_acc_t,
            );
            axe_ops::unary(b, gate, pacc, pacc);
            axe_ops::binary(b, BinaryKind::Mul, pacc, uacc, pacc, FastMath::Contract);
        }
        let onc = b.addi(on, b.cidx(c * w));
        // The epilogue's terms, in f32 before C's rounding: act(acc + bias) + residual. Each
        // is read from global memory straight into registers in the accumulator part's layout
        // (a bias row broadcast over the rows), clipped to C like the store.
        let load_f32 = |source: MlirValue, rows: i64, row: MlirValue| {
            let e = element_type(ir::value_type(source));
            let global_t = axe_ops::tensor_type(b, &[rows, w], e, MemoryScope::Global, None, None);
            let window = axe_ops::slice(b, source, &[Dim::At(row, rows), Dim::At(onc, w)], plan.ragged, global_t);
            let wide_t = axe_ops::tensor_type(b, &[rows, w], f32, MemoryScope::Register, None, None);
            let wide = axe_ops::alloc(b, wide_t);
            if ir::element_bits(ir::value_type(source)) == 32 {
                axe_ops::copy(b, window, wide, CopyOptions::AUTO);
            } else {
                let narrow_t = axe_ops::tensor_type(b, &[rows, w], e, MemoryScope::Register, None, None);
                let narrow = axe_ops::alloc(b, narrow_t);
                axe_ops::copy(b, window, narrow, CopyOptions::AUTO);
                axe_ops::cast(b, narrow, wide);
            }
            wide
        };
        if let Some(bias) = x.bias {
            let row = load_f32(bias, 1, b.cidx(0));
            axe_ops::binary(b, BinaryKind::Add, pacc, row, pacc, FastMath::Contract);
        }
        if let Some(act) = x.activation {
            axe_ops::unary(b, act, pacc, pacc);
        }
        if let Some(residual) = x.residual {
            let r = load_f32(residual, 64, omw);
            axe_ops::binary(b, BinaryKind::Add, pacc, r, pacc, FastMath::Contract);
        }
        let src = if out_f32 {
            pacc
        } else {
            let part = axe_ops::alloc(b, part_t);
            axe_ops::cast(b, pacc, part);
            part
        };
        let dst = axe_ops::slice(b, x.c, &[Dim::At(omw, 64), Dim::At(onc, w)], plan.ragged, part_c_t);
        axe_ops::copy(b, src, staging, CopyOptions::AUTO);
        axe_ops::copy(
            b,
            staging,
            dst,
            CopyOptions {
                schedule: CopySchedule::Tma,
                ..CopyOptions::AUTO
            },
        );
    }
}
