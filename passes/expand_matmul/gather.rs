//! The all-gather fused into `axe.matmul`'s kernel (`gather(%G, %F, %epoch)`, the
//! tensor-parallel MLP's up/gate projection): device r of R holds rows r M/R .. of A and
//! computes C from all M rows.
//!
//! * **Pushers** (the schedule's `pushers` warps of the producer warpgroup, 1 to 3, idle
//!   otherwise; `axe-matmul-schedule` chooses one: on 4 H100s three slowed the GEMM by more
//!   than they sped the gather, bench/RESULTS.md): A's rows of this device
//!   are cut into pieces of [`PIECE_ROWS`] x [`PIECE_COLS`]; piece by piece, each pusher warp
//!   copies one from this device's A (local loads) into a peer's gather buffer G (remote
//!   stores over NVLink), then publishes it on the peer's flag of that piece (`axe.signal`,
//!   release at system scope). The pieces go to device r - 1 first, then r - 2, ...: the
//!   device each one's GEMM reaches first after its own rows.
//! * **Producer** (warp 0): the walk's row tiles are rotated so that this device's own rows
//!   come first (loaded from A itself); before the first K step of another device's row tile,
//!   it waits until every piece of those rows holds the epoch (`axe.signal_wait`, acquire) and
//!   loads them from its own G.
//! * **Start**: a pusher writes into a peer's G only once that peer's launch of the same
//!   epoch has begun (the peer's CTA 0 signals its start in each device's row of start flags):
//!   the peer's previous launch, which read G, is then over. Consecutive launches need no
//!   host barrier; flags hold epochs and are never reset.

use axe_layout::{Iter, Layout};
use melior::dialect::arith;
use mlir_sys::*;

use crate::axe_ops::{self, CopyOptions, Dim};
use crate::convert_axe_to_gpu::builder::{Ix, B};
use crate::dialect::ods::MemoryScope;
use crate::error::{AxeError, Result};
use crate::ir;
use crate::matmul_schedule::GatherOperands;
use crate::target::ceil_div;

/// Rows of A in one pushed piece (one flag each, with [`PIECE_COLS`]): the op's contract,
/// which its verifier checks the flags' shape against.
pub const PIECE_ROWS: i64 = 64;
/// Columns of A in one pushed piece.
pub const PIECE_COLS: i64 = 512;
/// Rows x columns a pusher warp moves per copy: 8 contiguous elements (16 bytes) per lane,
/// row and 256 columns; two rows of a whole piece's width (four 16-byte loads per lane in
/// flight before the stores: the loads' latency, not NVLink, bounds a warp's pushes), or of
/// half of it where K ends half a piece in. The producer warpgroup keeps 40 registers per
/// thread.
const COPY_ROWS: i64 = 2;
const COPY_COLS: i64 = 256;

/// What the kernel reads of the gather.
pub struct Gather {
    pub devices: i64,
    /// Rows of A per device.
    pub shard_rows: i64,
    /// 64-row blocks per device's rows and 512-column slabs of K: a piece is one of each.
    pub blocks: i64,
    pub slabs: i64,
    /// K (the last slab may be half a piece wide).
    pub k: i64,
    /// This device's rows of A, [M/R, K] (the TMA source of its own row tiles) and the same
    /// as [1, M/R, K] (the pushers' source, shaped like a slice of G).
    pub a_local: MlirValue,
    pub a_rows: MlirValue,
    /// This device's G, [M, K] (the TMA source of the other devices' row tiles).
    pub g_local: MlirValue,
    /// G and the flags as distributed tensors (pushes and flags reach peers through them).
    pub g: MlirValue,
    pub f: MlirValue,
    pub epoch: MlirValue,
    /// Pusher warps per CTA (warps 1..=pushers of the producer warpgroup).
    pub pushers: i64,
}

/// Slots of a row of the flags: the pieces of a device's rows, rounded up to a multiple of
/// them that holds the `devices` start flags (the op's contract). A row tile's wait reads
/// whole blocks of a row at a run-time origin, which must divide the row.
fn flag_slots(pieces: i64, devices: i64) -> i64 {
    pieces * ceil_div(devices, pieces)
}

/// The memref an `axe.view` made `v` from: the expansion views the same buffer locally.
fn viewed_memref(op: MlirOperation, v: MlirValue, what: &str) -> Result<MlirValue> {
    match ir::defining_op(v) {
        Some(d) if ir::name(d) == crate::dialect::ods::ops::VIEW => Ok(ir::operand(d, 0)),
        _ => Err(AxeError::at(
            op,
            format!("axe.matmul: the gathered product's {what} must be an axe.view of a function argument (a symmetric buffer), which the kernel also reads locally"),
        )),
    }
}

/// Checks that `v`'s layout is `expected` (up to canonical form).
fn expect_layout(op: MlirOperation, v: MlirValue, expected: Vec<Iter>, what: &str) -> Result<()> {
    let t = ir::value_type(v);
    let want = Layout::from_shard(expected).expect("a valid layout").canonical();
    match ir::tensor_layout(t) {
        Some(l) if l.canonical() == want => Ok(()),
        _ => Err(AxeError::at(
            op,
            format!(
                "axe.matmul: the gathered product's {what} has type {}; expected layout {want}",
                ir::type_to_string(t)
            ),
        )),
    }
}

/// Checks the gather's operands and views A and G locally, before `op`.
pub fn views(op: MlirOperation, b: &B, a: MlirValue, x: GatherOperands, e: MlirType, pushers: i64) -> Result<Gather> {
    let sa = ir::shape(ir::value_type(a));
    let (m, k) = (sa[0], sa[1]);
    let devices = ir::shape(ir::value_type(x.buffer))[0];
    let shard_rows = m / devices;
    let gpu = |n: i64| Iter::new(n, 1, "gpuid");
    expect_layout(
        op,
        a,
        vec![gpu(devices), Iter::mem(shard_rows, k), Iter::mem(k, 1)],
        "A (rows distributed over the mesh)",
    )?;
    expect_layout(
        op,
        x.buffer,
        vec![gpu(devices), Iter::mem(m, k), Iter::mem(k, 1)],
        "gather buffer",
    )?;
    let blocks = ceil_div(shard_rows, PIECE_ROWS);
    let slabs = ceil_div(k, PIECE_COLS);
    let per = flag_slots(blocks * slabs, devices);
    expect_layout(
        op,
        x.flags,
        vec![gpu(devices), Iter::mem(devices + 1, per), Iter::mem(per, 1)],
        "gather flags",
    )?;
    if k % COPY_COLS != 0 || shard_rows % PIECE_ROWS != 0 {
        return Err(AxeError::at(
            op,
            format!("axe.matmul: a gathered A needs K a multiple of {COPY_COLS} and whole {PIECE_ROWS}-row blocks per device (K = {k}, {shard_rows} rows per device)"),
        ));
    }
    let a_mem = viewed_memref(op, a, "A")?;
    let g_mem = viewed_memref(op, x.buffer, "gather buffer")?;
    let plain = |rows: i64| Layout::from_shard(vec![Iter::mem(rows, k), Iter::mem(k, 1)]).expect("a valid layout");
    let global = |shape: &[i64], l: &Layout| axe_ops::tensor_type(b, shape, e, MemoryScope::Global, Some(l), None);
    let a_local = axe_ops::view(b, a_mem, global(&[shard_rows, k], &plain(shard_rows)));
    let a_rows = axe_ops::view(b, a_mem, global(&[1, shard_rows, k], &plain(shard_rows)));
    let g_local = axe_ops::view(b, g_mem, global(&[m, k], &plain(m)));
    Ok(Gather {
        devices,
        shard_rows,
        blocks,
        slabs,
        k,
        a_local,
        a_rows,
        g_local,
        g: x.buffer,
        f: x.flags,
        epoch: x.epoch,
        pushers,
    })
}

/// The one-element flag `[device, row, slot]` of F (or `n` consecutive slots); row `s < R`
/// holds source s's pieces, row R the start flags.
fn flag(b: &B, g: &Gather, device: MlirValue, source: MlirValue, slot: MlirValue, n: i64) -> MlirValue {
    let i32t = b.int_type(32);
    let t = axe_ops::tensor_type(b, &[1, 1, n], i32t, MemoryScope::Global, None, None);
    axe_ops::slice(
        b,
        g.f,
        &[Dim::At(device, 1), Dim::At(source, 1), Dim::At(slot, n)],
        false,
        t,
    )
}

/// Whether the row tile at `om` holds this device's own rows, and the device whose rows it
/// holds.
pub fn owner(b: &B, g: &Gather, om: MlirValue, rank: MlirValue) -> (MlirValue, MlirValue) {
    let source = b.arith_binary(arith::divui, om, b.cidx(g.shard_rows));
    (b.cmpi(arith::CmpiPredicate::Eq, source, rank), source)
}

/// The producer's wait before the first K step of a row tile of device `source` (not this
/// one): every piece of the tile's `tile_m` rows from that device holds the epoch.
pub fn wait_rows(b: &B, g: &Gather, om: MlirValue, source: MlirValue, rank: MlirValue, tile_m: i64) {
    let in_shard = b.arith_binary(arith::remui, om, b.cidx(g.shard_rows));
    let block = b.arith_binary(arith::divui, in_shard, b.cidx(PIECE_ROWS));
    let first = b.muli(block, b.cidx(g.slabs));
    let f = flag(b, g, rank, source, first, tile_m / PIECE_ROWS * g.slabs);
    axe_ops::signal_wait(b, f, g.epoch);
}

/// CTA `cta`'s pusher warp `w` (1-based) of `g.pushers`: its start signal (CTA 0's warp 1
/// tells every peer that this device's launch has begun), then pieces
/// `(cta * pushers + w - 1) + i * grid * pushers`.
pub fn pusher(b: &B, g: &Gather, cta: MlirValue, grid: i64, w: i64, rank: MlirValue) {
    let r = g.devices;
    // The start flags: row R of each device's flags, a slot per source.
    let starts = b.cidx(r);
    if w == 1 {
        let first_cta = b.cmpi(arith::CmpiPredicate::Eq, cta, b.cidx(0));
        b.if_::<()>(first_cta, |t| {
            for off in 1..r {
                let peer = t.arith_binary(arith::remui, t.addi(rank, t.cidx(off)), t.cidx(r));
                let f = flag(&t, g, peer, starts, rank, 1);
                axe_ops::signal(&t, f, g.epoch);
            }
            Ok(())
        })
        .expect("the start signal does not fail");
    }
    let per_peer = g.blocks * g.slabs;
    let pieces = (r - 1) * per_peer;
    if pieces == 0 {
        return;
    }
    let elem = crate::convert_axe_to_gpu::types::element_type(ir::value_type(g.a_local));
    let first = b.addi(b.muli(cta, b.cidx(g.pushers)), b.cidx(w - 1));
    // One copy's columns: the whole piece, or half of it where K ends half a piece in.
    let width = if g.k % PIECE_COLS == 0 { PIECE_COLS } else { COPY_COLS };
    let chunks = width / COPY_COLS;
    let reg_layout = Layout::from_shard(vec![
        Iter::new(COPY_ROWS, chunks * 8, "reg"),
        Iter::new(chunks, 8, "reg"),
        Iter::new(32, 1, "lane"),
        Iter::new(8, 1, "reg"),
    ])
    .expect("a valid register layout");
    let reg_t = axe_ops::tensor_type(
        b,
        &[1, COPY_ROWS, width],
        elem,
        MemoryScope::Register,
        Some(&reg_layout),
        None,
    );
    let part_t = axe_ops::tensor_type(b, &[1, COPY_ROWS, width], elem, MemoryScope::Global, None, None);
    let staged = axe_ops::alloc(b, reg_t);
    b.for_::<()>(Ix::V(first), Ix::C(pieces), Ix::C(grid * g.pushers), |q, p| {
        // Piece p: peer offset (1..R-1, outermost), then 64-row block, then 512-column slab.
        let off = q.addi(q.arith_binary(arith::divui, p, q.cidx(per_peer)), q.cidx(1));
        let within = q.arith_binary(arith::remui, p, q.cidx(per_peer));
        let block = q.arith_binary(arith::divui, within, q.cidx(g.slabs));
        let slab = q.arith_binary(arith::remui, within, q.cidx(g.slabs));
        // Device r - off (mod R): the one that reaches this device's rows first.
        let peer = q.arith_binary(arith::remui, q.subi(q.addi(rank, q.cidx(r)), off), q.cidx(r));
        // The peer's launch of this epoch has begun: its G is free.
        let started = flag(&q, g, rank, starts, peer, 1);
        axe_ops::signal_wait(&q, started, g.epoch);
        let row0 = q.muli(block, q.cidx(PIECE_ROWS));
        let col0 = q.muli(slab, q.cidx(PIECE_COLS));
        let dest_row0 = q.addi(q.muli(rank, q.cidx(g.shard_rows)), row0);
        q.for_::<()>(Ix::C(0), Ix::C(PIECE_ROWS), Ix::C(COPY_ROWS), |c, i| {
            for j in 0..PIECE_COLS / width {
                let col = c.addi(col0, c.cidx(j * width));
                let copy_part = |c: &B| {
                    let src = axe_ops::slice(
                        c,
                        g.a_rows,
                        &[
                            Dim::Static(0, 1),
                            Dim::At(c.addi(row0, i), COPY_ROWS),
                            Dim::At(col, width),
                        ],
                        false,
                        part_t,
                    );
                    let dst = axe_ops::slice(
                        c,
                        g.g,
                        &[
                            Dim::At(peer, 1),
                            Dim::At(c.addi(dest_row0, i), COPY_ROWS),
                            Dim::At(col, width),
                        ],
                        false,
                        part_t,
                    );
                    axe_ops::copy(c, src, staged, CopyOptions::AUTO);
                    axe_ops::copy(c, staged, dst, CopyOptions::AUTO);
                };
                // The last slab of a K that is not whole pieces is half a piece wide.
                if j > 0 && g.k % PIECE_COLS != 0 {
                    let inside = c.cmpi(arith::CmpiPredicate::Ult, col, c.cidx(g.k));
                    c.if_::<()>(inside, |t| {
                        copy_part(&t);
                        Ok(())
                    })
                    .expect("the copy does not fail");
                } else {
                    copy_part(&c);
                }
            }
            Ok(())
        })
        .expect("the piece's copy does not fail");
        let slot = q.addi(q.muli(block, q.cidx(g.slabs)), slab);
        let done = flag(&q, g, peer, rank, slot, 1);
        axe_ops::signal(&q, done, g.epoch);
        Ok(())
    })
    .expect("the pusher's loop does not fail");
}
