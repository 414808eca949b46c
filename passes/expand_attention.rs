//! `axe-expand-attention`: replaces each `axe.attention` by a FlashAttention-style Hopper
//! kernel (FlashAttention-3's structure: a TMA producer warp and wgmma consumer warpgroups with
//! register-sourced P) as scoped Axe IR, built through the dialect's typed builders
//! ([`crate::axe_ops`], shared with the GEMM expansion and the linalg front door).
//!
//! The kernel, per work item (128 query rows of one head of one sequence; three warpgroups
//! per CTA):
//! * **producer** (warp 0 of warpgroup 0, registers given up with `setmaxnreg`): loads every K
//!   and V tile of the rows' keys into a ring of `stages` stages, each copy completing on its
//!   own full barrier (K's and V's apart, so that S = Q Kᵀ starts before V lands), K after the
//!   consumers released the stage's K, V after they released its V; and the Q tile after the
//!   first K, once the consumers released the previous item's Q;
//! * **consumers** (warpgroups 1 and 2, 64 query rows each): S = Q Kᵀ (wgmma, A and B from
//!   shared memory); on tiles that cross the causal diagonal, keys after the query get -1e30
//!   added (`axe.iota` rows and columns); the online softmax (row max and sum as `axe.reduce`
//!   along the accumulator's rows, exp2 with scale · log2 e folded in, the running O and sum
//!   rescaled); P = S cast to 16 bits, which has S's register layout — the wgmma A fragment
//!   (`axe-infer-layout` derives it, `convert-axe-to-gpu` checks it) — so O += P V reads A
//!   from registers. Tile j's Q Kᵀ and tile j - 1's P V are issued as one burst; the wait for
//!   the Q Kᵀ alone (`outstanding 1`) lets tile j's softmax run while that P V does (and
//!   releases K), the wait for both releases V. The two warpgroups take turns issuing their
//!   bursts (ping-pong). At the end O / sum is cast, staged in the rows' part of a tile of its
//!   own (or of the Q tile, where shared memory has no room for one) and stored by TMA; the
//!   log-sum-exp (scale · max + ln sum) is stored when asked for.
//!
//! The grid ([`persistent_by_default`], or the op's `persistent`): persistent, at most one CTA
//! per SM, each walking items cta, cta + grid, ... (causal: pairs of query tiles whose K/V
//! tiles add up to the same count, the last with the first, ...), so that the next item's K,
//! V and Q load during this one's last gemms and epilogue; or one CTA per item. Items are
//! numbered query tile by query tile; for `causal` from the last tile (most keys) to the
//! first: the longest work starts first.
//!
//! Barrier phases are computed: each item starts its K/V tiles at stage 0, and the walk
//! carries the parity of each stage's uses so far, of the items done and of the ping-pong
//! turns taken ([`Ring`]); the n-th use of a stage waits for parity n & 1 on its full barriers,
//! the producer for (n & 1) ^ 1 on the empty ones (a fresh barrier passes parity 1).
//!
//! Sequences of any length (`cu_seqlens`, or a `seq_len` that 128 does not divide): a
//! sequence then starts at any row, so Q, K, V and O are windows at any origin that end at
//! the tensor's end (`until` the token count: TMA copies them, its zero fill past the
//! tensor). Keys past the sequence's end are masked like the causal diagonal's, on the last
//! K tile only; a query tile that reaches past the end stores its rows by predicated stores
//! (a window ending at the sequence's end) instead of TMA. With `cu_seqlens` the grid covers
//! the longest sequence (`seq_len`); the items of a shorter one's missing tiles do nothing.

use arith::CmpiPredicate;
use axe_layout::{Iter, Layout};
use melior::dialect::arith;
use mlir_sys::*;

use crate::axe_ops::{self, CopyOptions, Dim, FastMath};
use crate::convert_axe_to_gpu::builder::{Ix, B};
use crate::convert_axe_to_gpu::types::element_type;
use crate::dialect::ods::{self, BinaryKind, CopySchedule, MemoryScope, ReduceKind, ScopeKind, UnaryKind};
use crate::error::{AxeError, Result};
use crate::ir;
use crate::target;

/// Query rows per CTA: one 64-row wgmma tile per consumer warpgroup.
const BLOCK_M: i64 = 128;
const CONSUMERS: i64 = 2;
/// `setmaxnreg`: the producer warpgroup keeps 24 registers, the consumers get 240 (128 x 24 +
/// 256 x 240 = 64,512 of 65,536): S, O and P of a 64 x 128 tile live in registers.
const PRODUCER_REGISTERS: i64 = 24;
const CONSUMER_REGISTERS: i64 = 240;
/// What a masked score gets added: exp2 of (scaled) -1e30 below any row maximum is 0.
const MASKED: f64 = -1.0e30;
/// Columns of S masked at a time at D = 64 (register slices; see [`mask`]).
const MASK_COLUMNS: i64 = 32;

/// The pass body.
pub fn run(root: melior::ir::operation::OperationRefMut) -> bool {
    crate::error::for_each_op(root.to_raw(), ods::ops::ATTENTION, expand)
}

/// The compiler's schedule for head dimension `d`: key rows per stage and stages. A CTA's
/// shared memory holds the Q tile and `stages` K and V tiles: at D = 128, 32 KiB + 2 x 64 KiB;
/// at D = 64, 16 KiB + 3 x 32 KiB (within the 227 KiB a Hopper CTA may use; one CTA per SM,
/// as the register split needs). 128 keys per stage measured faster than 64 with 4 stages at
/// D = 128 (bench/RESULTS.md, "Fused attention forward").
pub fn schedule(d: i64) -> (i64, i64) {
    match d {
        64 => (128, 3),
        128 => (128, 2),
        // D = 256: 64 KiB of Q and 2 x 64 KiB per stage pair; O alone is 128 registers of a
        // consumer thread, so S is 64 keys wide.
        _ => (64, 2),
    }
}

/// Whether the compiler makes the grid persistent (at most one CTA per SM, each walking items
/// or, causal, pairs of tiles of equal work: [`Walk`]), from measurements on one H200
/// (bench/RESULTS.md, "Fused attention forward: a persistent grid"), each against one CTA per
/// item in the same run:
/// * not causal, every sequence `seq_len` long, D <= 128: the walk 1-3 % faster at D = 128,
///   within 2 % at D = 64; at D = 256 2 % slower (its registers made ptxas spill 280 bytes);
/// * causal, D = 64, sequences of at most 1024 tokens (at most 8 query tiles, whose per-item
///   prologue and epilogue the walk overlaps): the paired walk 1.04-1.12x; from 2048 tokens
///   0.91-1.00x; at D = 128 and 256 0.80-1.00x (ptxas spilled 740-1000 bytes there against
///   96-180);
/// * sequences of different lengths: uneven items, which the hardware's dispatch of one CTA
///   per item, longest first, balances better than a static walk (0.80-0.98x).
pub fn persistent_by_default(d: i64, seq_len: i64, causal: bool, varying_lengths: bool) -> bool {
    match (causal, varying_lengths) {
        (_, true) => false,
        (false, false) => d <= 128,
        (true, false) => d == 64 && seq_len <= 1024,
    }
}

/// Everything the kernel's construction reads.
struct Plan {
    q: MlirValue,
    k: MlirValue,
    v: MlirValue,
    o: MlirValue,
    lse: Option<MlirValue>,
    /// The cumulative sequence offsets (`memref<(batches + 1)xi32>`), if lengths vary.
    cu: Option<MlirValue>,
    batches: i64,
    e: MlirType,
    tokens: i64,
    heads: i64,
    group: i64,
    d: i64,
    seq: i64,
    causal: bool,
    scale: f64,
    block_n: i64,
    stages: i64,
    /// A grid of at most one CTA per SM, each walking several items (else one CTA per item).
    persistent: bool,
    sm_count: i64,
    /// Whether O is staged in a tile of its own (shared memory has room for it).
    stage_o_apart: bool,
}

impl Plan {
    /// Query tiles of the longest sequence.
    fn tiles_q(&self) -> i64 {
        (self.seq + BLOCK_M - 1) / BLOCK_M
    }
    /// Whether a sequence may start at a row that is not a multiple of the tiles' rows, and
    /// its last query tile reach past its end: rows are then windows at any origin.
    fn ragged(&self) -> bool {
        self.cu.is_some() || self.seq % BLOCK_M != 0
    }
    /// Whether a sequence's last K tile may reach past its end (its keys then masked).
    fn ragged_keys(&self) -> bool {
        self.cu.is_some() || self.seq % self.block_n != 0
    }
}

fn expand(op: MlirOperation) -> Result<()> {
    use ods::attention::{operands, BLOCK_N, CAUSAL, HEADS, KV_HEADS, PERSISTENT, SCALE, SEQ_LEN, STAGES};
    let t = target::of(op).ok_or_else(|| {
        AxeError::at(
            op,
            "axe.attention needs the module's #axe.target (e.g. #axe.target<\"sm_90a\">)".to_string(),
        )
    })?;
    if !t.has_wgmma {
        return Err(AxeError::at(
            op,
            format!(
                "axe.attention expands to a wgmma kernel, which target {} does not have (sm_90a)",
                t.name
            ),
        ));
    }
    // The optional operands: groups 4 (lse) and 5 (cu_seqlens).
    let groups = ir::operand_groups(op).unwrap_or_default();
    let optional = |i: usize| groups.get(i).and_then(|g| g.first().copied());
    let (lse, cu) = (optional(4), optional(5));
    let q = ir::operand(op, operands::Q);
    let qshape = ir::shape(ir::value_type(q));
    let seq = ir::int_attr(op, SEQ_LEN).unwrap_or(qshape[0]);
    let heads = ir::int_attr(op, HEADS).unwrap_or(1);
    let kv_heads = ir::int_attr(op, KV_HEADS).unwrap_or(heads);
    let d = qshape[1] / heads;
    let (block_n_default, stages_default) = schedule(d);
    let plan = Plan {
        q,
        k: ir::operand(op, operands::K),
        v: ir::operand(op, operands::V),
        o: ir::operand(op, operands::O),
        lse,
        cu,
        batches: match cu {
            Some(c) => ir::shape(ir::value_type(c))[0] - 1,
            None => qshape[0] / seq,
        },
        e: element_type(ir::value_type(q)),
        tokens: qshape[0],
        heads,
        group: heads / kv_heads,
        d,
        seq,
        causal: ir::attr(op, CAUSAL).is_some(),
        scale: ir::float_or_int_attr(op, SCALE).unwrap_or(1.0 / (d as f64).sqrt()),
        block_n: ir::int_attr(op, BLOCK_N).unwrap_or(block_n_default),
        stages: ir::int_attr(op, STAGES).unwrap_or(stages_default),
        persistent: ir::bool_attr(op, PERSISTENT).unwrap_or(persistent_by_default(
            d,
            seq,
            ir::attr(op, CAUSAL).is_some(),
            cu.is_some(),
        )),
        sm_count: t.sm_count,
        stage_o_apart: false,
    };
    let fail = |why: String| Err(AxeError::at(op, format!("axe.attention: cannot expand: {why}")));
    if ![64, 128, 256].contains(&d) {
        return fail(format!("head dimension {d} (the kernel has 64, 128 and 256)"));
    }
    if !matches!(plan.block_n, 64 | 128) {
        return fail(format!("block_n {} must be 64 or 128", plan.block_n));
    }
    if !(1..=4).contains(&plan.stages) {
        return fail(format!("stages {} (1 to 4)", plan.stages));
    }
    let smem = 2 * d * (BLOCK_M + 2 * plan.block_n * plan.stages);
    if smem > t.max_shared_bytes {
        return fail(format!(
            "the Q tile and {} K/V stages need {smem} bytes of shared memory; the target has {}",
            plan.stages, t.max_shared_bytes
        ));
    }
    let plan = Plan {
        stage_o_apart: smem + 2 * d * BLOCK_M <= t.max_shared_bytes,
        ..plan
    };
    for (v, what) in [(plan.q, "Q"), (plan.k, "K"), (plan.v, "V"), (plan.o, "O")] {
        crate::expand_matmul::row_stride(op, v, what)?;
    }
    build_kernel(&B::before(op), &plan);
    // SAFETY: `op` is live, owned by the pass, has no results, and is not walked again.
    unsafe { ir::erase(op) };
    Ok(())
}

/// A `[rows, d]` shared tile: 64-column blocks of 128-byte rows, 128-byte swizzled — what TMA
/// writes and wgmma reads K-major (Q, K) or MN-major (V) alike.
fn tile_type(b: &B, plan: &Plan, rows: i64) -> MlirType {
    let mut shard = vec![Iter::mem(rows, 64)];
    if plan.d > 64 {
        shard.push(Iter::mem(plan.d / 64, rows * 64));
    }
    shard.push(Iter::mem(64, 1));
    let l = Layout::from_shard(shard).expect("a valid tile layout");
    axe_ops::tensor_type(
        b,
        &[rows, plan.d],
        plan.e,
        MemoryScope::Shared,
        Some(&l),
        Some((3, 3, 3)),
    )
}

/// The kernel's allocations and the values every role reads.
struct Shared {
    /// The CTA's index, the grid, and how the CTAs share the items ([`Walk`]): the CTA takes
    /// units (items, or pairs of them) cta, cta + grid, ... of `units`.
    cta: MlirValue,
    grid: i64,
    units: i64,
    walk: Walk,
    sq: MlirValue,
    /// Where O is staged for its TMA store: a tile of its own where shared memory has room
    /// (the next item's Q then loads during the epilogue), else the Q tile.
    so: Option<MlirValue>,
    sk: Vec<MlirValue>,
    sv: Vec<MlirValue>,
    q_full: MlirValue,
    /// The consumers are done with the Q tile (its last Q Kᵀ, or the O staged in it).
    q_empty: MlirValue,
    k_full: Vec<MlirValue>,
    v_full: Vec<MlirValue>,
    /// A stage's K is released once the Q Kᵀ that reads it is done, its V once the P V is:
    /// the producer refills K a softmax earlier than a stage-wide release would let it.
    k_empty: Vec<MlirValue>,
    v_empty: Vec<MlirValue>,
    /// The two consumer warpgroups' turns (ping-pong).
    turns: Vec<MlirValue>,
    truth: MlirValue,
}

/// How the CTAs share the work items.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// One CTA per item (the hardware dispatches them as SMs free up).
    OnePerCta,
    /// Items cta, cta + grid, ...: every item the same work.
    Cyclic,
    /// Causal: pairs of query tiles of equal total work (the last with the first, ...), pairs
    /// cta, cta + grid, ..., each pair's long tile first.
    Paired,
}

/// One work item: 128 query rows of one head of one sequence.
struct Item {
    /// The first row of the query tile, the sequence's first row, the row after its last and
    /// its length.
    row0: MlirValue,
    seq0: MlirValue,
    seq_end: MlirValue,
    len: MlirValue,
    /// The tile's index in its sequence.
    qt: MlirValue,
    /// Query head and its key/value head.
    h: MlirValue,
    hk: MlirValue,
    /// The item's K/V tiles.
    n_kv: MlirValue,
    /// With varying lengths, whether the tile starts inside its sequence (a shorter sequence
    /// than the longest has no work in its missing tiles).
    live: Option<MlirValue>,
}

/// Work item `it`. Item i is query tile i / (heads · batches) of (batch, head) i % (heads ·
/// batches): every head's first tiles come before any head's next ones. Causal: tiles from the
/// last (most keys) down, so that the longest work starts first and the short tiles fill the
/// tail.
fn item(k: &B, plan: &Plan, it: MlirValue) -> Item {
    let (x, bh) = tile_and_head(k, plan, it);
    let qt = if plan.causal {
        k.subi(k.cidx(plan.tiles_q() - 1), x)
    } else {
        x
    };
    item_at(k, plan, qt, bh)
}

/// Unit `u` of a walk numbered tile by tile: (u / (heads · batches), u % (heads · batches)).
fn tile_and_head(k: &B, plan: &Plan, u: MlirValue) -> (MlirValue, MlirValue) {
    let per_tile = k.cidx(plan.heads * plan.batches);
    (
        k.arith_binary(arith::divui, u, per_tile),
        k.arith_binary(arith::remui, u, per_tile),
    )
}

/// Causal pair `p`'s member `m` (0 or 1): pair p holds query tiles T - 1 - x and x of (batch,
/// head) bh, x = p / (heads · batches), bh = p % (heads · batches), T the query tiles: the two
/// have T + 1 K/V tiles together, so that every pair is the same work. With T odd the middle
/// tile is a pair alone (its member 1 has no work).
fn paired_item(k: &B, plan: &Plan, p: MlirValue, m: MlirValue) -> Item {
    let last = k.cidx(plan.tiles_q() - 1);
    let (x, bh) = tile_and_head(k, plan, p);
    let first = k.cmpi(CmpiPredicate::Eq, m, k.cidx(0));
    let long = k.subi(last, x);
    let qt = k.select(first, long, x);
    let mut it = item_at(k, plan, qt, bh);
    let distinct = k.ori(first, k.cmpi(CmpiPredicate::Ne, long, x));
    it.live = Some(match it.live {
        Some(l) => k.andi(l, distinct),
        None => distinct,
    });
    it
}

/// Query tile `qt` of (batch, head) `bh` = batch · heads + head.
fn item_at(k: &B, plan: &Plan, qt: MlirValue, bh: MlirValue) -> Item {
    let h = k.arith_binary(arith::remui, bh, k.cidx(plan.heads));
    let batch = k.arith_binary(arith::divui, bh, k.cidx(plan.heads));
    let hk = k.arith_binary(arith::divui, h, k.cidx(plan.group));
    let (seq0, seq_end, len) = match plan.cu {
        Some(cu) => {
            let at = |i: MlirValue| k.index_cast(k.load(cu, &[i]), k.index());
            let (seq0, seq_end) = (at(batch), at(k.addi(batch, k.cidx(1))));
            (seq0, seq_end, k.subi(seq_end, seq0))
        }
        None => {
            let seq0 = k.muli(batch, k.cidx(plan.seq));
            let len = k.cidx(plan.seq);
            (seq0, k.addi(seq0, len), len)
        }
    };
    let row0 = k.addi(seq0, k.muli(qt, k.cidx(BLOCK_M)));
    let bn = plan.block_n;
    let ceil_div = |x: MlirValue| k.arith_binary(arith::divui, k.addi(x, k.cidx(bn - 1)), k.cidx(bn));
    // Causal: the keys up to the tile's last query row; else the whole sequence.
    let n_kv = match (plan.causal, plan.ragged_keys()) {
        (true, _) => {
            let last = k.muli(k.addi(qt, k.cidx(1)), k.cidx(BLOCK_M));
            let last = if plan.ragged() {
                k.arith_binary(arith::minui, last, len)
            } else {
                last
            };
            ceil_div(last)
        }
        (false, true) => ceil_div(len),
        (false, false) => k.cidx(plan.seq / bn),
    };
    let live = plan
        .cu
        .map(|_| k.cmpi(CmpiPredicate::Ult, k.muli(qt, k.cidx(BLOCK_M)), len));
    Item {
        row0,
        seq0,
        seq_end,
        len,
        qt,
        h,
        hk,
        n_kv,
        live,
    }
}

fn build_kernel(b: &B, plan: &Plan) {
    let items = plan.tiles_q() * plan.heads * plan.batches;
    let walk = match (plan.persistent, plan.causal) {
        (false, _) => Walk::OnePerCta,
        (true, false) => Walk::Cyclic,
        (true, true) => Walk::Paired,
    };
    // A paired walk hands out pairs of tiles.
    let units = match walk {
        Walk::Paired => (plan.tiles_q() + 1) / 2 * plan.heads * plan.batches,
        _ => items,
    };
    let grid = match walk {
        Walk::OnePerCta => items,
        _ => units.min(plan.sm_count),
    };
    let threads = (CONSUMERS + 1) * target::WARPGROUP_THREADS;
    axe_ops::kernel(b, grid, threads, None, false, |k| {
        let bn = plan.block_n;
        let q_t = tile_type(&k, plan, BLOCK_M);
        let sq = axe_ops::alloc(&k, q_t);
        let kv_t = tile_type(&k, plan, bn);
        let mut sh = Shared {
            cta: axe_ops::unit_id(&k, ScopeKind::Cta, false),
            grid,
            units,
            walk,
            sq,
            so: plan.stage_o_apart.then(|| axe_ops::alloc(&k, q_t)),
            sk: vec![],
            sv: vec![],
            q_full: axe_ops::mbarrier(&k, 1),
            q_empty: axe_ops::mbarrier(&k, CONSUMERS * target::WARPGROUP_THREADS),
            k_full: vec![],
            v_full: vec![],
            k_empty: vec![],
            v_empty: vec![],
            turns: vec![],
            truth: k.cbool(true),
        };
        for _ in 0..plan.stages {
            sh.sk.push(axe_ops::alloc(&k, kv_t));
            sh.sv.push(axe_ops::alloc(&k, kv_t));
            sh.k_full.push(axe_ops::mbarrier(&k, 1));
            sh.v_full.push(axe_ops::mbarrier(&k, 1));
            sh.k_empty
                .push(axe_ops::mbarrier(&k, CONSUMERS * target::WARPGROUP_THREADS));
            sh.v_empty
                .push(axe_ops::mbarrier(&k, CONSUMERS * target::WARPGROUP_THREADS));
        }
        for _ in 0..CONSUMERS {
            sh.turns.push(axe_ops::mbarrier(&k, target::WARPGROUP_THREADS));
        }
        axe_ops::scope(&k, ScopeKind::Warpgroup, 0, 1, |wg| {
            axe_ops::set_max_registers(&wg, PRODUCER_REGISTERS);
            axe_ops::scope(&wg, ScopeKind::Warp, 0, 1, |w| produce(&w, plan, &sh));
        });
        for w in 1..=CONSUMERS {
            axe_ops::scope(&k, ScopeKind::Warpgroup, w, w + 1, |wg| {
                axe_ops::set_max_registers(&wg, CONSUMER_REGISTERS);
                consume(&wg, plan, &sh, (w - 1) as usize);
            });
        }
    });
}

/// The parity of round `r` (an index) as an i1.
fn parity(b: &B, r: MlirValue) -> MlirValue {
    b.cmpi(CmpiPredicate::Ne, b.andi(r, b.cidx(1)), b.cidx(0))
}

/// Where a CTA's walk stands before an item, as parities (all a barrier's wait needs): of the
/// items it has done, of the ping-pong turns taken (n_kv + 1 bursts of gemms per item) and of
/// each stage's uses so far. Every item starts its K/V tiles at stage 0 (tile j in stage j %
/// stages), so that the first tile's stage is static.
struct Ring {
    done: MlirValue,
    turn0: MlirValue,
    uses: Vec<MlirValue>,
}

impl Ring {
    /// The parity that stage `st`'s barriers complete in the item's round `r`.
    fn phase(&self, b: &B, st: usize, r: MlirValue) -> MlirValue {
        b.xori(self.uses[st], parity(b, r))
    }
    /// The parity of the item's burst of gemms `k` (an index) among the CTA's.
    fn turn(&self, b: &B, k: MlirValue) -> MlirValue {
        b.xori(self.turn0, parity(b, k))
    }
}

/// Runs `body(b, item, ring)` for each of the CTA's work items ([`Walk`]). One item per CTA
/// needs no loop (nor values carried through it).
fn for_items(b: &B, plan: &Plan, sh: &Shared, body: impl Fn(&B, &Item, &Ring)) {
    let stages = plan.stages as usize;
    let fresh = b.cbool(false);
    let run = |l: &B, x: &Item, ring: &Ring| match x.live {
        Some(c) => {
            l.if_::<()>(c, |t| {
                body(&t, x, ring);
                Ok(())
            })
            .expect("the item's work does not fail");
        }
        None => body(l, x, ring),
    };
    if sh.walk == Walk::OnePerCta {
        let ring = Ring {
            done: fresh,
            turn0: fresh,
            uses: vec![fresh; stages],
        };
        run(b, &item(b, plan, sh.cta), &ring);
        return;
    }
    // Cyclic: the loop walks items cta, cta + grid, ..; paired: k = 0, 1, .. 2 · (the CTA's
    // pairs) - 1, member k % 2 of pair cta + (k / 2) grid.
    let (lb, ub, step) = match sh.walk {
        Walk::Paired => {
            let pairs = b.arith_binary(
                arith::divui,
                b.addi(b.subi(b.cidx(sh.units), sh.cta), b.cidx(sh.grid - 1)),
                b.cidx(sh.grid),
            );
            (Ix::C(0), Ix::V(b.muli(pairs, b.cidx(2))), Ix::C(1))
        }
        _ => (Ix::V(sh.cta), Ix::C(sh.units), Ix::C(sh.grid)),
    };
    b.for_carrying(lb, ub, step, &vec![fresh; 2 + stages], |l, it, carried| {
        let ring = Ring {
            done: carried[0],
            turn0: carried[1],
            uses: carried[2..].to_vec(),
        };
        let x = match sh.walk {
            Walk::Paired => {
                let p = l.addi(
                    sh.cta,
                    l.muli(l.arith_binary(arith::divui, it, l.cidx(2)), l.cidx(sh.grid)),
                );
                paired_item(l, plan, p, l.arith_binary(arith::remui, it, l.cidx(2)))
            }
            _ => item(l, plan, it),
        };
        // The parities after the item: one more item, n_kv + 1 more turns, and in stage st
        // ceil((n_kv - st) / stages) more uses (none if n_kv <= st); nothing for an item with
        // no work.
        let live = x.live.unwrap_or(sh.truth);
        let flip = |p: MlirValue, by: MlirValue| l.xori(p, l.andi(live, by));
        let mut next = vec![
            flip(ring.done, sh.truth),
            flip(ring.turn0, parity(l, l.addi(x.n_kv, l.cidx(1)))),
        ];
        for st in 0..stages {
            let more = l.cmpi(CmpiPredicate::Ugt, x.n_kv, l.cidx(st as i64));
            let n = l.arith_binary(
                arith::divui,
                l.addi(l.subi(x.n_kv, l.cidx(st as i64)), l.cidx(plan.stages - 1)),
                l.cidx(plan.stages),
            );
            next.push(flip(ring.uses[st], l.andi(more, parity(l, n))));
        }
        run(l, &x, &ring);
        next
    });
}

/// Runs `body(b, round, stage, j)` for the item's K/V tiles j = `from` .. n_kv - 1: tile j is
/// in stage j % stages, round j / stages. Stage buffers are separate allocations, so the
/// stages are unrolled in each round and the stage is static.
fn for_tiles(b: &B, plan: &Plan, x: &Item, from: i64, body: impl Fn(&B, MlirValue, usize, MlirValue)) {
    let rounds = b.arith_binary(
        arith::divui,
        b.addi(x.n_kv, b.cidx(plan.stages - 1)),
        b.cidx(plan.stages),
    );
    b.for_::<()>(Ix::C(from / plan.stages), Ix::V(rounds), Ix::C(1), |q, r| {
        for st in 0..plan.stages as usize {
            let j = q.addi(q.muli(r, q.cidx(plan.stages)), q.cidx(st as i64));
            let mut live = q.cmpi(CmpiPredicate::Ult, j, x.n_kv);
            if from > 0 {
                live = q.andi(live, q.cmpi(CmpiPredicate::Uge, j, q.cidx(from)));
            }
            q.if_::<()>(live, |t| {
                body(&t, r, st, j);
                Ok(())
            })
            .expect("the stage's body does not fail");
        }
        Ok(())
    })
    .expect("the K/V loop's body does not fail");
}

/// Runs `body(b, round, stage)` in the branch of the stage that the item's K/V tile `j` (a
/// run-time index) uses: one branch per stage.
fn at_stage(b: &B, plan: &Plan, j: MlirValue, body: impl Fn(&B, MlirValue, usize)) {
    let stage = b.arith_binary(arith::remui, j, b.cidx(plan.stages));
    let round = b.arith_binary(arith::divui, j, b.cidx(plan.stages));
    for st in 0..plan.stages as usize {
        let here = b.cmpi(CmpiPredicate::Eq, stage, b.cidx(st as i64));
        b.if_::<()>(here, |u| {
            body(&u, round, st);
            Ok(())
        })
        .expect("the stage's branch does not fail");
    }
}

/// `n` rows of Q, K, V or O from row `at`: a tile (`at` is a multiple of `n` where every
/// sequence starts at a multiple of the query tile), else a window at any origin that ends at
/// the tensor's end (which TMA copies: its zero fill past the tensor).
fn rows(b: &B, plan: &Plan, at: MlirValue, n: i64) -> Dim {
    if plan.ragged() {
        Dim::Until(at, n, b.cidx(plan.tokens))
    } else {
        Dim::At(at, n)
    }
}

/// A register tensor of `shape` and element type `e`, its layout left to `axe-infer-layout`.
fn register(b: &B, shape: &[i64], e: MlirType) -> MlirValue {
    axe_ops::alloc(b, axe_ops::tensor_type(b, shape, e, MemoryScope::Register, None, None))
}

/// An index (a position in a sequence) as an f32 value.
fn index_to_f32(b: &B, x: MlirValue) -> MlirValue {
    b.arith_cast(arith::sitofp, b.index_cast(x, b.int_type(32)), b.f32_type())
}

fn global(b: &B, plan: &Plan, rows: i64, cols: i64) -> MlirType {
    axe_ops::tensor_type(b, &[rows, cols], plan.e, MemoryScope::Global, None, None)
}

fn tma(bar: MlirValue) -> CopyOptions {
    CopyOptions {
        schedule: CopySchedule::Tma,
        async_: true,
        barrier: Some(bar),
        multicast: None,
    }
}

/// The producer warp: per item, K and V tile by tile, and the Q tile after the first K.
fn produce(b: &B, plan: &Plan, sh: &Shared) {
    let (d, bn) = (plan.d, plan.block_n);
    for_items(b, plan, sh, |p, x, ring| {
        let kcol = p.muli(x.hk, p.cidx(d));
        for_tiles(p, plan, x, 0, |t, r, st, j| {
            let empty = t.xori(ring.phase(t, st, r), sh.truth);
            let row = t.addi(x.seq0, t.muli(j, t.cidx(bn)));
            for (is_k, source, dest, bar, free) in [
                (true, plan.k, sh.sk[st], sh.k_full[st], sh.k_empty[st]),
                (false, plan.v, sh.sv[st], sh.v_full[st], sh.v_empty[st]),
            ] {
                axe_ops::mbarrier_wait(t, free, empty);
                let win = axe_ops::slice(
                    t,
                    source,
                    &[rows(t, plan, row, bn), Dim::At(kcol, d)],
                    false,
                    global(t, plan, bn, d),
                );
                axe_ops::copy(t, win, dest, tma(bar));
                if is_k && st == 0 {
                    // The Q tile once the consumers are done with the previous item's (its
                    // `done`-th use; a fresh barrier passes parity 1): after the first K, whose
                    // stage they released earlier, so that K loads while they finish.
                    let first = t.cmpi(CmpiPredicate::Eq, j, t.cidx(0));
                    t.if_::<()>(first, |u| {
                        axe_ops::mbarrier_wait(&u, sh.q_empty, u.xori(ring.done, sh.truth));
                        let qwin = axe_ops::slice(
                            &u,
                            plan.q,
                            &[rows(&u, plan, x.row0, BLOCK_M), Dim::At(u.muli(x.h, u.cidx(d)), d)],
                            false,
                            global(&u, plan, BLOCK_M, d),
                        );
                        axe_ops::copy(&u, qwin, sh.sq, tma(sh.q_full));
                        Ok(())
                    })
                    .expect("the Q load does not fail");
                }
            }
        });
    });
}

/// A consumer warpgroup's registers: S (scores, then P in f32), P (16 bits: the P V gemm's
/// A), O, and per row the running max `m` (between tiles; `alpha` within one), the running sum
/// `l`, the new max `mt`, `ms` and the row sums `rs`; `c` is scale · log2 e.
struct Rows {
    q_rows: MlirValue,
    /// These rows of the tile O is staged in.
    o_rows: MlirValue,
    s: MlirValue,
    p: MlirValue,
    o: MlirValue,
    m: MlirValue,
    l: MlirValue,
    mt: MlirValue,
    ms: MlirValue,
    rs: MlirValue,
    c: MlirValue,
}

/// The online softmax of tile `j`'s scores in S, up to what may run while the previous
/// tile's P V still reads P and writes O: masks the diagonal, m_new = max(m, rowmax S),
/// alpha = exp2(c (m - m_new)) into `m`, the sum rescaled, P = exp2(c S - c m_new) in S and
/// its row sums added.
fn softmax(b: &B, plan: &Plan, it: &Item, x: &Rows, q_first: MlirValue, j: MlirValue) {
    let bn = plan.block_n;
    let last_key = b.addi(b.muli(j, b.cidx(bn)), b.cidx(bn - 1));
    // Tiles whose last key comes after the CTA's first query cross the diagonal; the one
    // whose last key is past the sequence's end holds keys that do not exist.
    let crosses = plan.causal.then(|| {
        let first_query = b.muli(it.qt, b.cidx(BLOCK_M));
        b.cmpi(CmpiPredicate::Ugt, last_key, first_query)
    });
    let past_end = plan.ragged_keys().then(|| b.cmpi(CmpiPredicate::Uge, last_key, it.len));
    let masked = match (crosses, past_end) {
        (Some(c), Some(p)) => Some(b.ori(c, p)),
        (c, p) => c.or(p),
    };
    if let Some(m) = masked {
        b.if_::<()>(m, |u| {
            mask(&u, plan, it, x.s, q_first, j);
            Ok(())
        })
        .expect("the mask does not fail");
    }
    axe_ops::reduce(b, ReduceKind::Max, x.s, x.mt, &[1]);
    axe_ops::binary(b, BinaryKind::Max, x.m, x.mt, x.mt, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Sub, x.m, x.mt, x.m, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Mul, x.m, x.c, x.m, FastMath::Contract);
    axe_ops::unary(b, UnaryKind::Exp2, x.m, x.m);
    axe_ops::binary(b, BinaryKind::Mul, x.l, x.m, x.l, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Mul, x.mt, x.c, x.ms, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Mul, x.s, x.c, x.s, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Sub, x.s, x.ms, x.s, FastMath::Contract);
    axe_ops::unary(b, UnaryKind::Exp2, x.s, x.s);
    axe_ops::reduce(b, ReduceKind::Sum, x.s, x.rs, &[1]);
    axe_ops::binary(b, BinaryKind::Add, x.l, x.rs, x.l, FastMath::Contract);
}

/// The rest of tile j's softmax, once the previous P V is done: O rescaled by alpha, the new
/// max kept. (P is cast to 16 bits right before the gemms that read it — S's register layout,
/// the wgmma A fragment — so that its 16-bit copy is live only while they run.)
fn rescale(b: &B, x: &Rows) {
    axe_ops::binary(b, BinaryKind::Mul, x.o, x.m, x.o, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Max, x.mt, x.mt, x.m, FastMath::Contract);
}

/// Ping-pong between the two consumer warpgroups (FlashAttention-3's): warpgroup `w` issues
/// its k-th burst of gemms after the other one issued its (k - 1)-th (w = 0) or k-th (w = 1),
/// so that one's softmax runs while the other's gemms do. `turns[w]` completes a phase when
/// the other warpgroup arrives on it: burst k (`bit`, the parity of k) waits for parity (k &
/// 1) ^ 1 (w = 0; its first passes a fresh barrier's parity 1) or k & 1 (w = 1).
fn take_turn(b: &B, sh: &Shared, w: usize, bit: MlirValue) {
    let p = if w == 0 { b.xori(bit, sh.truth) } else { bit };
    axe_ops::mbarrier_wait(b, sh.turns[w], p);
}

fn pass_turn(b: &B, sh: &Shared, w: usize) {
    axe_ops::mbarrier_arrive(b, sh.turns[1 - w], None);
}

/// A consumer warpgroup (`w`: 0 or 1): query rows `64 w .. 64 w + 64` of each item's tile.
///
/// Tile 0: S = Q K₀ᵀ, its softmax, P. Tile j > 0, in one burst of gemms: S = Q Kⱼᵀ and O +=
/// Pⱼ₋₁ Vⱼ₋₁; the wait for the first (the second still running) lets tile j's softmax overlap
/// the previous P V; after the wait for both, the previous stage's V is released, O rescaled
/// and P rewritten. The last tile's P V closes the item; then the epilogue.
fn consume(b: &B, plan: &Plan, sh: &Shared, w: usize) {
    let r0 = 64 * w as i64;
    let (d, bn) = (plan.d, plan.block_n);
    let f32 = b.f32_type();
    let reg = |shape: &[i64], e: MlirType| register(b, shape, e);
    let scalar = |v: f64| {
        let t = reg(&[1, 1], f32);
        axe_ops::fill(b, t, b.cfloat(v, f32));
        t
    };
    let rows_t = axe_ops::tensor_type(b, &[64, d], plan.e, MemoryScope::Shared, None, Some((3, 3, 3)));
    let these_rows =
        |tile: MlirValue| axe_ops::slice(b, tile, &[Dim::Static(r0, r0 + 64), Dim::Static(0, d)], false, rows_t);
    let x = Rows {
        q_rows: these_rows(sh.sq),
        o_rows: these_rows(sh.so.unwrap_or(sh.sq)),
        s: reg(&[64, bn], f32),
        p: reg(&[64, bn], plan.e),
        o: reg(&[64, d], f32),
        m: reg(&[64, 1], f32),
        l: reg(&[64, 1], f32),
        mt: reg(&[64, 1], f32),
        ms: reg(&[64, 1], f32),
        rs: reg(&[64, 1], f32),
        // exp(scale x) = exp2(scale log2(e) x).
        c: scalar(plan.scale * std::f64::consts::LOG2_E),
    };
    let stages = plan.stages as usize;
    for_items(b, plan, sh, |t, it, ring| {
        let zero = t.cfloat(0.0, f32);
        let q_first = t.addi(t.muli(it.qt, t.cidx(BLOCK_M)), t.cidx(r0));
        axe_ops::fill(t, x.m, t.cfloat(f64::NEG_INFINITY, f32));
        axe_ops::fill(t, x.l, zero);
        axe_ops::fill(t, x.o, zero);
        axe_ops::mbarrier_wait(t, sh.q_full, ring.done);
        // Tile 0 (stage 0, round 0). S = Q Kᵀ overwrites S (wgmma's scale-d 0): no zeroing of
        // its 64 registers per tile.
        let first = t.cidx(0);
        axe_ops::mbarrier_wait(t, sh.k_full[0], ring.phase(t, 0, first));
        take_turn(t, sh, w, ring.turn0);
        let g = axe_ops::gemm_async_into(t, x.q_rows, sh.sk[0], x.s, true, true);
        pass_turn(t, sh, w);
        axe_ops::wait(t, &[g], 0);
        axe_ops::mbarrier_arrive(t, sh.k_empty[0], None);
        softmax(t, plan, it, &x, q_first, first);
        rescale(t, &x);
        // Tiles 1 .. n_kv - 1.
        for_tiles(t, plan, it, 1, |u, r, st, j| {
            let prev = (st + stages - 1) % stages;
            let prev_round = if st == 0 { u.subi(r, u.cidx(1)) } else { r };
            axe_ops::mbarrier_wait(u, sh.k_full[st], ring.phase(u, st, r));
            axe_ops::mbarrier_wait(u, sh.v_full[prev], ring.phase(u, prev, prev_round));
            axe_ops::cast(u, x.s, x.p);
            take_turn(u, sh, w, ring.turn(u, j));
            let g = axe_ops::gemm_async_into(u, x.q_rows, sh.sk[st], x.s, true, true);
            axe_ops::gemm_async(u, x.p, sh.sv[prev], x.o, false);
            pass_turn(u, sh, w);
            axe_ops::wait(u, &[g], 1);
            axe_ops::mbarrier_arrive(u, sh.k_empty[st], None);
            softmax(u, plan, it, &x, q_first, j);
            axe_ops::wait(u, &[], 0);
            axe_ops::mbarrier_arrive(u, sh.v_empty[prev], None);
            rescale(u, &x);
        });
        // The last tile's P V, from its run-time stage; its V released for the next item.
        at_stage(t, plan, t.subi(it.n_kv, t.cidx(1)), |u, r, st| {
            axe_ops::mbarrier_wait(u, sh.v_full[st], ring.phase(u, st, r));
            axe_ops::cast(u, x.s, x.p);
            take_turn(u, sh, w, ring.turn(u, it.n_kv));
            axe_ops::gemm_async(u, x.p, sh.sv[st], x.o, false);
            pass_turn(u, sh, w);
            axe_ops::wait(u, &[], 0);
            axe_ops::mbarrier_arrive(u, sh.v_empty[st], None);
        });
        // Q is free once every gemm of the item is done, unless O is staged in it.
        if sh.so.is_some() {
            axe_ops::mbarrier_arrive(t, sh.q_empty, None);
        }
        epilogue(t, plan, it, &x, r0);
        if sh.so.is_none() {
            axe_ops::mbarrier_arrive(t, sh.q_empty, None);
        }
    });
}

/// O / sum, rounded once; staged in these rows of the O tile (or of the Q tile, every Q Kᵀ
/// that read them done) and stored by TMA; the log-sum-exp when asked for.
fn epilogue(b: &B, plan: &Plan, it: &Item, x: &Rows, r0: i64) {
    let d = plan.d;
    let f32 = b.f32_type();
    // O / sum as O times 1 / sum: two divisions per thread (its rows) instead of one per
    // element (`div.rn.f32`, a dozen instructions each).
    let inv = register(b, &[64, 1], f32);
    let one = register(b, &[1, 1], f32);
    axe_ops::fill(b, one, b.cfloat(1.0, f32));
    axe_ops::binary(b, BinaryKind::Div, one, x.l, inv, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Mul, x.o, inv, x.o, FastMath::Contract);
    let out = register(b, &[64, d], plan.e);
    axe_ops::cast(b, x.o, out);
    let row = b.addi(it.row0, b.cidx(r0));
    let ocol = b.muli(it.h, b.cidx(d));
    let by_tma = |t: &B| {
        axe_ops::copy(t, out, x.o_rows, CopyOptions::AUTO);
        let owin = axe_ops::slice(
            t,
            plan.o,
            &[rows(t, plan, row, 64), Dim::At(ocol, d)],
            false,
            global(t, plan, 64, d),
        );
        axe_ops::copy(
            t,
            x.o_rows,
            owin,
            CopyOptions {
                schedule: CopySchedule::Tma,
                ..CopyOptions::AUTO
            },
        );
    };
    if plan.ragged() {
        // Rows that reach past the sequence's end are stored by predicated stores (a window
        // ending there), the others by TMA.
        let end = b.addi(row, b.cidx(64));
        let whole = b.cmpi(CmpiPredicate::Ule, end, it.seq_end);
        let partial = b.cmpi(CmpiPredicate::Ugt, end, it.seq_end);
        b.if_::<()>(whole, |t| {
            by_tma(&t);
            Ok(())
        })
        .expect("the TMA store does not fail");
        b.if_::<()>(partial, |t| {
            let owin = axe_ops::slice(
                &t,
                plan.o,
                &[Dim::Until(row, 64, it.seq_end), Dim::At(ocol, d)],
                false,
                global(&t, plan, 64, d),
            );
            axe_ops::copy(&t, out, owin, CopyOptions::AUTO);
            Ok(())
        })
        .expect("the predicated store does not fail");
    } else {
        by_tma(b);
    }
    if let Some(lse) = plan.lse {
        // ln(sum) + scale · max: the log-sum-exp of the scaled scores.
        axe_ops::unary(b, UnaryKind::Log, x.l, x.l);
        let sc = register(b, &[1, 1], f32);
        axe_ops::fill(b, sc, b.cfloat(plan.scale, f32));
        axe_ops::binary(b, BinaryKind::Mul, x.m, sc, x.m, FastMath::Contract);
        axe_ops::binary(b, BinaryKind::Add, x.l, x.m, x.l, FastMath::Contract);
        let t = axe_ops::tensor_type(b, &[64, 1], f32, MemoryScope::Global, None, None);
        let rows = if plan.ragged() {
            Dim::Until(row, 64, it.seq_end)
        } else {
            Dim::At(row, 64)
        };
        let win = axe_ops::slice(b, lse, &[rows, Dim::At(it.h, 1)], false, t);
        axe_ops::copy(b, x.l, win, CopyOptions::AUTO);
    }
}

/// Adds -1e30 to the scores of keys that a query does not see: S[i, c] += min(q - k, 0) ·
/// 1e30, with q = `q_first` + i and k = j · block_n + c (positions in the sequence). Causal:
/// q is the query's position, capped at the sequence's last (so that a row past the end still
/// sees a key); else q is the sequence's last position (the keys past its end masked).
fn mask(b: &B, plan: &Plan, it: &Item, s: MlirValue, q_first: MlirValue, j: MlirValue) {
    // At D = 64 the mask is built MASK_COLUMNS columns at a time: a whole-tile temporary made
    // ptxas spill 212 bytes there, the chunks none, and the causal kernels ran 1-5 % faster
    // (one H200, bench/RESULTS.md). At D = 128 the chunks spilled more than the whole tile
    // (372 against 156-180 bytes) and were no faster, so the tile is masked at once.
    if plan.d <= 64 {
        mask_in_chunks(b, plan, it, s, q_first, j)
    } else {
        mask_tile(b, plan, it, s, q_first, j)
    }
}

fn mask_tile(b: &B, plan: &Plan, it: &Item, s: MlirValue, q_first: MlirValue, j: MlirValue) {
    let f32 = b.f32_type();
    let bn = plan.block_n;
    let reg = |shape: &[i64]| register(b, shape, f32);
    let as_f32 = |x: MlirValue| index_to_f32(b, x);
    let last = || b.subi(it.len, b.cidx(1));
    let key0 = || b.muli(j, b.cidx(bn));
    let cols = reg(&[64, bn]);
    let rows = plan.causal.then(|| reg(&[64, 1]));
    let off = reg(&[1, 1]);
    let big = reg(&[1, 1]);
    axe_ops::iota(b, cols, 1);
    match rows {
        Some(rows) if !plan.ragged_keys() => {
            // q - k = (i - c) + (q_first - j block_n).
            axe_ops::iota(b, rows, 0);
            axe_ops::fill(b, off, as_f32(b.subi(q_first, key0())));
            axe_ops::fill(b, big, b.cfloat(-MASKED, f32));
            axe_ops::binary(b, BinaryKind::Sub, rows, cols, cols, FastMath::Contract);
            axe_ops::binary(b, BinaryKind::Add, cols, off, cols, FastMath::Contract);
        }
        Some(rows) => {
            // min(q_first + i, last) - (j block_n + c).
            let cap = reg(&[1, 1]);
            axe_ops::iota(b, rows, 0);
            axe_ops::fill(b, off, as_f32(q_first));
            axe_ops::fill(b, cap, as_f32(last()));
            axe_ops::fill(b, big, b.cfloat(-MASKED, f32));
            axe_ops::binary(b, BinaryKind::Add, rows, off, rows, FastMath::Contract);
            axe_ops::binary(b, BinaryKind::Min, rows, cap, rows, FastMath::Contract);
            axe_ops::fill(b, off, as_f32(key0()));
            axe_ops::binary(b, BinaryKind::Add, cols, off, cols, FastMath::Contract);
            axe_ops::binary(b, BinaryKind::Sub, rows, cols, cols, FastMath::Contract);
        }
        None => {
            // (last - j block_n) - c.
            axe_ops::fill(b, off, as_f32(b.subi(last(), key0())));
            axe_ops::fill(b, big, b.cfloat(-MASKED, f32));
            axe_ops::binary(b, BinaryKind::Sub, off, cols, cols, FastMath::Contract);
        }
    }
    axe_ops::fill(b, off, b.cfloat(0.0, f32));
    axe_ops::binary(b, BinaryKind::Min, cols, off, cols, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Mul, cols, big, cols, FastMath::Contract);
    axe_ops::binary(b, BinaryKind::Add, s, cols, s, FastMath::Contract);
}

fn mask_in_chunks(b: &B, plan: &Plan, it: &Item, s: MlirValue, q_first: MlirValue, j: MlirValue) {
    let f32 = b.f32_type();
    let bn = plan.block_n;
    let reg = |shape: &[i64]| register(b, shape, f32);
    let as_f32 = |x: MlirValue| index_to_f32(b, x);
    let last = || b.subi(it.len, b.cidx(1));
    // The mask is built and added MASK_COLUMNS columns at a time, on register slices of S: a
    // temporary of the whole tile held 64 more registers beside S, P and O (ptxas spilled).
    // Every temporary is the chunk's own, so that each takes its chunk's register layout.
    let st = axe_ops::tensor_type(b, &[64, MASK_COLUMNS], f32, MemoryScope::Register, None, None);
    for c0 in (0..bn).step_by(MASK_COLUMNS as usize) {
        let part = axe_ops::slice(
            b,
            s,
            &[Dim::Static(0, 64), Dim::Static(c0, c0 + MASK_COLUMNS)],
            false,
            st,
        );
        let (cols, off, big) = (reg(&[64, MASK_COLUMNS]), reg(&[1, 1]), reg(&[1, 1]));
        // The chunk's first key: j block_n + c0.
        let key0 = b.addi(b.muli(j, b.cidx(bn)), b.cidx(c0));
        axe_ops::iota(b, cols, 1);
        axe_ops::fill(b, big, b.cfloat(-MASKED, f32));
        if plan.causal {
            let rows = reg(&[64, 1]);
            axe_ops::iota(b, rows, 0);
            if plan.ragged_keys() {
                // min(q_first + i, last) - (key0 + c).
                let cap = reg(&[1, 1]);
                axe_ops::fill(b, off, as_f32(q_first));
                axe_ops::fill(b, cap, as_f32(last()));
                axe_ops::binary(b, BinaryKind::Add, rows, off, rows, FastMath::Contract);
                axe_ops::binary(b, BinaryKind::Min, rows, cap, rows, FastMath::Contract);
                axe_ops::fill(b, off, as_f32(key0));
                axe_ops::binary(b, BinaryKind::Add, cols, off, cols, FastMath::Contract);
                axe_ops::binary(b, BinaryKind::Sub, rows, cols, cols, FastMath::Contract);
            } else {
                // q - k = (i - c) + (q_first - key0).
                axe_ops::fill(b, off, as_f32(b.subi(q_first, key0)));
                axe_ops::binary(b, BinaryKind::Sub, rows, cols, cols, FastMath::Contract);
                axe_ops::binary(b, BinaryKind::Add, cols, off, cols, FastMath::Contract);
            }
        } else {
            // (last - key0) - c.
            axe_ops::fill(b, off, as_f32(b.subi(last(), key0)));
            axe_ops::binary(b, BinaryKind::Sub, off, cols, cols, FastMath::Contract);
        }
        axe_ops::fill(b, off, b.cfloat(0.0, f32));
        axe_ops::binary(b, BinaryKind::Min, cols, off, cols, FastMath::Contract);
        axe_ops::binary(b, BinaryKind::Mul, cols, big, cols, FastMath::Contract);
        axe_ops::binary(b, BinaryKind::Add, part, cols, part, FastMath::Contract);
    }
}
