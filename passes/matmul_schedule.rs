//! `axe-matmul-schedule`: chooses the `#axe.matmul_schedule` of every `axe.matmul` from its
//! problem (M, N, K, element types) and the target, keeping the fields the op already carries
//! (the user's override). [`choose`] is the heuristic; [`check`] what the expansion
//! (`axe-expand-matmul`) can build on the target, applied to chosen and given fields alike.
//!
//! The heuristic estimates the time of the whole GEMM for every candidate (tile, stages) and
//! keeps the fastest. It is a model of the kernel `axe-expand-matmul` builds, its constants
//! fitted to 197 timings of that kernel on one H100 SXM (f16, bf16 and e4m3 at M = 1 to 8192,
//! Llama-3.1 and ragged shapes, 4 to 12 stages; root-mean-square error of the log time 0.13;
//! bench/RESULTS.md). Its terms, and why:
//! * **waves**: a persistent grid of at most one CTA per SM walks `ceil(tiles / grid)` tiles
//!   per CTA, so a grid that leaves SMs idle (few wide tiles at small M) or a last wave that is
//!   mostly empty costs whole tile times;
//! * **a K step** takes the longest of: its MMAs at the SM's tensor-core rate, derated for
//!   narrow tiles (a 64-row tile runs one consumer warpgroup; N = 64 re-reads A from shared
//!   memory for little work); its bytes from L2 at the SM's share of L2 bandwidth (halved where
//!   the rows of A or B do not start on 128-byte lines); the load latency over the stages in
//!   flight (Little's law: with few stages a memory-bound tile waits on every load); and a
//!   fixed cost (barrier round trips, wgmma issue and wait);
//! * **a tile** adds its epilogue: a fixed cost and its output bytes through shared memory;
//! * **DRAM**: the whole GEMM moves A, B and C through DRAM at least once.
//!
//! The rates are per SM and in SM clocks; the grid is the target's SM count (`Target::sm_count`,
//! or the pass's `sm-count`). Ties keep the candidate seen first: wider tiles, more stages.

use crate::dialect::ffi;
use crate::error::{AxeError, Result};
use crate::ir;
use crate::target::{self, Target};
use mlir_sys::{MlirAttribute, MlirOperation, MlirValue};

/// One `axe.matmul`'s problem: what the schedule depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    /// Bits of an A / B element (16 or 8).
    pub in_bits: i64,
    /// Bits of a C element (16 or 32).
    pub out_bits: i64,
    /// Whether the op has a workspace (partial sums and flags), which split-K needs.
    pub workspace: bool,
    /// A gated product (`gate`): N counts both halves of B (gate and up), C has N / 2
    /// columns and each tile computes matching columns of both.
    pub gated: bool,
    /// A gathered A (`gather`): the mesh's device count; each device's rows of A are one shard
    /// of M / devices, which a row tile must not straddle.
    pub gather: Option<i64>,
    /// FP8 with per-block scales (A's 1x128, B's 128x128): each 128-deep slab of a tile's
    /// product is scaled before it is summed, so a tile's columns lie in one block of B.
    pub block_scaled: bool,
}

impl Problem {
    pub fn fp8(&self) -> bool {
        self.in_bits == 8
    }
}

/// A complete schedule (every field of `#axe.matmul_schedule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub tile_m: i64,
    pub tile_n: i64,
    pub tile_k: i64,
    pub stages: i64,
    pub cluster: i64,
    pub group: i64,
    pub grid: i64,
    /// CTAs that share one output tile's K (1: no split).
    pub split_k: i64,
    pub persistent: bool,
    /// With a gathered A: the producer warpgroup's warps that push this device's rows (1 to 3);
    /// 0 without one.
    pub pushers: i64,
    /// Two consumer warpgroups on alternate 64-row tiles, mainloops in turn (the epilogue of one
    /// under the MMAs of the other).
    pub pingpong: bool,
}

/// The fields an attribute gives (None: to be chosen).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Partial {
    pub tile_m: Option<i64>,
    pub tile_n: Option<i64>,
    pub tile_k: Option<i64>,
    pub stages: Option<i64>,
    pub cluster: Option<i64>,
    pub group: Option<i64>,
    pub grid: Option<i64>,
    pub split_k: Option<i64>,
    pub persistent: Option<bool>,
    pub pushers: Option<i64>,
    pub pingpong: Option<bool>,
}

impl Partial {
    pub fn complete(&self) -> Option<Schedule> {
        Some(Schedule {
            tile_m: self.tile_m?,
            tile_n: self.tile_n?,
            tile_k: self.tile_k?,
            stages: self.stages?,
            cluster: self.cluster?,
            group: self.group?,
            grid: self.grid?,
            split_k: self.split_k?,
            persistent: self.persistent?,
            // Absent where there is nothing to push (no gathered A).
            pushers: self.pushers.unwrap_or(0),
            pingpong: self.pingpong.unwrap_or(false),
        })
    }
}

/// The rows one consumer warpgroup computes (wgmma's M).
const WGMMA_ROWS: i64 = target::WGMMA_M;
/// The row tiles wgmma consumers can take: one warpgroup (64 rows) or two (128).
pub const TILE_M: [i64; 2] = [128, 64];
/// Column tiles: whole 64-column blocks of B's 128-byte swizzle rows, up to wgmma's N of 256.
pub const TILE_N: [i64; 4] = [256, 192, 128, 64];
/// Most stages the expansion unrolls (each stage is a copy of the K step's ops); memory-bound
/// tiles want many (Little's law), compute-bound ones are capped by shared memory first.
pub const MAX_STAGES: i64 = 12;
/// Fewest stages chosen: with two, a stage's refill waits for the MMAs of the other (a user's
/// `stages = 2` is still built).
pub const MIN_STAGES: i64 = 3;
/// Shared memory the kernel keeps beside its stages and staging tiles: the mbarriers (two per
/// stage, 8 bytes each) rounded up, and the runtime's reserve.
const SHARED_RESERVE: i64 = 1024;
/// Bytes a consumer warpgroup stages its output through per part: 64 rows of 256 bytes.
pub const STAGING_ROW_BYTES: i64 = 256;
/// The grouped raster's width, as Triton's GROUP_M (L2 reuse of A's rows and B's columns).
pub const RASTER_GROUP: i64 = 8;
/// Clusters of two pay off only for GEMMs of at least this many flops (bench/RESULTS.md: below
/// it the pairs won nothing and FP8 lost up to 7 %).
const CLUSTER_MIN_FLOPS: f64 = 1e12;
/// Pusher warps of a gathered A: on 4 H100s one was as fast as three or faster at every
/// Llama-3.1 shape measured (more pushers moved the pieces sooner but slowed the GEMM more:
/// bench/RESULTS.md, "The tensor-parallel MLP block").
const GATHER_PUSHERS: i64 = 1;
/// The most pusher warps: the producer warpgroup's warps 1-3 (warp 0 issues the TMA loads).
pub const MAX_PUSHERS: i64 = 3;

/// The cost model's constants, in SM clocks (fitted on the H100 SXM, see the module's
/// documentation): dense 16-bit tensor-core flops per clock per SM (twice for FP8), bytes per
/// clock per SM from L2 and the fraction of that left when rows start off 128-byte lines, the
/// load latency, a K step's fixed cost, a tile's epilogue (fixed, and bytes per clock through
/// shared memory to C), DRAM bytes per clock for the chip, and a launch's fixed cost.
const MMA_FLOPS_PER_CLOCK_16: f64 = 4096.0;
const L2_BYTES_PER_CLOCK_PER_SM: f64 = 64.0;
const MISALIGNED_L2_FRACTION: f64 = 0.49;
const LOAD_LATENCY_CLOCKS: f64 = 2180.0;
const STEP_OVERHEAD_CLOCKS: f64 = 386.0;
const TILE_OVERHEAD_CLOCKS: f64 = 2710.0;
const EPILOGUE_BYTES_PER_CLOCK: f64 = 8.4;
const DRAM_BYTES_PER_CLOCK: f64 = 1272.0;
const LAUNCH_CLOCKS: f64 = 5680.0;
/// Split-K's fix-up of a work item: the flag round trip, the f32 partial sums read and written
/// from registers, and each earlier part's turn in the chain a tile's parts add up in (fitted
/// to 71 timings with 1, 2, 4 and 8 parts on one H200; 8 parts never paid).
const FIXUP_CLOCKS: f64 = 1760.0;
const PARTIAL_BYTES_PER_CLOCK: f64 = 18.0;
const CHAIN_CLOCKS: f64 = 2550.0;
/// The K splits `axe-matmul-schedule` weighs where the op has a workspace.
pub const SPLITS: [i64; 4] = [1, 2, 3, 4];
/// Rows of A and B start on 128-byte lines when their strides are multiples of this.
const LINE_BYTES: i64 = 128;

/// The fraction of the SM's MMA rate a tile sustains: one consumer warpgroup (64 rows) stalls
/// on its own wgmma groups; N = 64 reads A from shared memory once per 64 columns.
fn mma_efficiency(tile_m: i64, tile_n: i64) -> f64 {
    let m = if tile_m >= 128 { 1.0 } else { 0.86 };
    let n = match tile_n {
        64 => 0.70,
        128 => 0.88,
        192 => 0.98,
        _ => 1.0,
    };
    m * n
}

/// The most stages the schedule gives block-scaled FP8 (see `choose`).
const BLOCK_SCALED_STAGES: i64 = 2;

/// The side of a scale block of block-scaled FP8 (A's 1x128, B's 128x128), which FP8's
/// `tile_k` equals: each stage is one block of K.
pub const BLOCK_SCALE: i64 = 128;

/// K per stage: one 128-byte swizzle row of A and B.
pub fn tile_k(p: &Problem) -> i64 {
    1024 / p.in_bits
}

/// Bytes one stage holds (A's and B's tiles).
pub fn stage_bytes(p: &Problem, tile_m: i64, tile_n: i64, tile_k: i64) -> i64 {
    (tile_m + tile_n) * tile_k * p.in_bits / 8
}

/// Columns of one staged output part: 256 bytes of a row, no wider than the tile, halved
/// until the parts tile it (N = 192 in 16-bit: three parts of 64).
pub fn staging_columns(p: &Problem, tile_n: i64) -> i64 {
    let out = output_columns(p, tile_n);
    let mut w = (STAGING_ROW_BYTES * 8 / p.out_bits).min(out);
    while w > 1 && out % w != 0 {
        w /= 2;
    }
    w
}

/// Columns of C a tile of `tile_n` columns of B stores: half of them in a gated product.
pub fn output_columns(p: &Problem, tile_n: i64) -> i64 {
    if p.gated {
        tile_n / 2
    } else {
        tile_n
    }
}

/// Bytes of the consumers' output staging tiles (one per warpgroup).
pub fn staging_bytes(p: &Problem, tile_m: i64, tile_n: i64) -> i64 {
    (tile_m / 64) * 64 * staging_columns(p, tile_n) * p.out_bits / 8
}

/// The most stages (up to [`MAX_STAGES`]) that fit the target's shared memory.
fn stages_that_fit(p: &Problem, t: &Target, tile_m: i64, tile_n: i64, tile_k: i64) -> i64 {
    let room = t.max_shared_bytes - SHARED_RESERVE - staging_bytes(p, tile_m, tile_n);
    (room / stage_bytes(p, tile_m, tile_n, tile_k)).min(MAX_STAGES)
}

/// Tiles of the grid: (row tiles, column tiles).
pub fn tiles(p: &Problem, tile_m: i64, tile_n: i64) -> (i64, i64) {
    (target::ceil_div(p.m, tile_m), target::ceil_div(p.n, tile_n))
}

/// The estimated clocks of the whole GEMM with these tiles and stages on `sms` SMs (see the
/// module's documentation for the terms).
pub fn estimate(p: &Problem, tile_m: i64, tile_n: i64, stages: i64, split_k: i64, sms: i64) -> f64 {
    let (grid_time, dram_time) = estimate_parts(p, tile_m, tile_n, stages, split_k, sms);
    LAUNCH_CLOCKS + grid_time.max(dram_time)
}

/// The two bounds of [`estimate`]: the grid's time (waves of tiles) and DRAM's.
fn estimate_parts(p: &Problem, tile_m: i64, tile_n: i64, stages: i64, split_k: i64, sms: i64) -> (f64, f64) {
    let (tm, tn) = tiles(p, tile_m, tile_n);
    // Split-K: each tile's K is shared by `split_k` work items.
    let count = tm * tn * split_k;
    let grid = count.min(sms).max(1);
    let waves = target::ceil_div(count, grid) as f64;
    let tile_k = tile_k(p);
    // K is walked in whole rounds of the stages (the steps past K read TMA's zeros), each
    // split taking the same number of rounds.
    let steps = (target::ceil_div(p.k, tile_k * stages * split_k) * stages) as f64;
    let in_bytes = p.in_bits / 8;
    let rate = MMA_FLOPS_PER_CLOCK_16 * (16 / p.in_bits) as f64 * mma_efficiency(tile_m, tile_n);
    let mma = 2.0 * (tile_m * tile_n * tile_k) as f64 / rate;
    // Rows of A past M are TMA's zero fill: they cost no L2 bandwidth.
    let loaded = ((tile_m.min(p.m) + tile_n) * tile_k * in_bytes) as f64;
    let aligned = (p.k * in_bytes) % LINE_BYTES == 0 && (p.n * in_bytes) % LINE_BYTES == 0;
    let l2 = L2_BYTES_PER_CLOCK_PER_SM * if aligned { 1.0 } else { MISALIGNED_L2_FRACTION };
    let load = (loaded / l2).max(LOAD_LATENCY_CLOCKS / stages as f64);
    let step = mma.max(load).max(STEP_OVERHEAD_CLOCKS);
    let out_tile = tile_m * output_columns(p, tile_n) * p.out_bits / 8;
    let epilogue = TILE_OVERHEAD_CLOCKS + out_tile as f64 / EPILOGUE_BYTES_PER_CLOCK;
    // A split tile's fix-up: every split but the first reads the running f32 sums, every
    // split but the last writes them, in turn (the last one waits for the others' chain).
    let partial_bytes = (tile_m * tile_n * 4) as f64;
    let fixup = if split_k > 1 {
        FIXUP_CLOCKS + 2.0 * partial_bytes / PARTIAL_BYTES_PER_CLOCK + (split_k - 1) as f64 * CHAIN_CLOCKS
    } else {
        0.0
    };
    let tile = steps * step + epilogue + fixup;
    let dram_bytes = ((p.m * p.k + p.k * p.n) * in_bytes + p.m * output_columns(p, p.n) * p.out_bits / 8) as f64;
    (waves * tile, dram_bytes / DRAM_BYTES_PER_CLOCK)
}

/// Clusters of two CTAs sharing B by TMA multicast, or none: pairs halve B's traffic from L2
/// but couple the pair's stages, which pays only for large GEMMs with two row tiles and two
/// waves of tiles (bench/RESULTS.md, the H100 measurements of §4.1's kernel).
fn choose_cluster(p: &Problem, t: &Target, tile_m: i64, tile_n: i64, sms: i64) -> i64 {
    let (tm, tn) = tiles(p, tile_m, tile_n);
    let flops = 2.0 * p.m as f64 * p.n as f64 * p.k as f64;
    // A gathered A's row tiles wait for their shard's pieces one by one; pairs would couple
    // two tiles' waits (not built).
    if p.gather.is_none() && t.max_cluster_ctas >= 2 && tm >= 2 && tm * tn >= 2 * sms && flops >= CLUSTER_MIN_FLOPS {
        2
    } else {
        1
    }
}

/// The largest raster group (up to [`RASTER_GROUP`]) that divides the row tiles of the walk
/// (a cluster's row tiles count once): a group that does not divide them walks row-major.
fn choose_group(row_tiles: i64) -> i64 {
    [RASTER_GROUP, 4, 2, 1]
        .into_iter()
        .find(|g| row_tiles % g == 0)
        .unwrap_or(1)
}

/// Completes `given` for `p` on `t` with `sms` SMs: each field the user gave is kept, each
/// other one chosen (see the module's documentation), then the whole schedule is checked.
pub fn choose(p: &Problem, t: &Target, sms: i64, given: &Partial) -> std::result::Result<Schedule, String> {
    let tile_k = given.tile_k.unwrap_or_else(|| tile_k(p));
    let mut best: Option<(f64, f64, i64, i64, i64, i64)> = None;
    // Why the first candidate was refused: the error when none is left.
    let mut rejected: Option<String> = None;
    // A batch of at most 64 rows takes 64-row tiles: a 128-row tile would compute (and have
    // TMA zero-fill) rows that do not exist, with a second consumer warpgroup to wait for at
    // every stage (measured 1.2-2x slower at M <= 64 on the H100, bench/RESULTS.md).
    let rows: Vec<i64> = if p.m <= WGMMA_ROWS {
        vec![WGMMA_ROWS]
    } else {
        TILE_M.to_vec()
    };
    // A ping-pong schedule the user asks for has 64-row tiles (one per consumer warpgroup).
    let rows = if given.pingpong == Some(true) {
        vec![WGMMA_ROWS]
    } else {
        rows
    };
    for tile_m in given.tile_m.map_or(rows, |v| vec![v]) {
        for tile_n in given.tile_n.map_or(TILE_N.to_vec(), |v| vec![v]) {
            let most = stages_that_fit(p, t, tile_m, tile_n, tile_k);
            // Block-scaled FP8 holds a second accumulator (the block's slab) besides the tile's;
            // from 4 stages up ptxas (CUDA 13) spilled it (1.4 KB at 4 stages, 3 KB at 6, 128 x
            // 128 tiles) and serialized the wgmmas (C7512), and it ran at a third of 2 stages'
            // speed on an H200 (bench/RESULTS.md).
            let most = if p.block_scaled {
                most.min(BLOCK_SCALED_STAGES)
            } else {
                most
            };
            let fewest = if p.block_scaled { most } else { MIN_STAGES };
            let candidates: Vec<i64> = given.stages.map_or((fewest..=most).rev().collect(), |v| vec![v]);
            let splits: Vec<i64> = match given.split_k {
                Some(v) => vec![v],
                None if p.workspace => SPLITS.to_vec(),
                None => vec![1],
            };
            for (stages, split_k) in candidates.iter().flat_map(|&st| splits.iter().map(move |&sk| (st, sk))) {
                // A candidate the expansion cannot build (say N = 192 with 128-column output
                // parts) is skipped; a user's field that cannot be built fails the check.
                let candidate = Schedule {
                    tile_m,
                    tile_n,
                    tile_k,
                    stages,
                    cluster: 1,
                    group: 1,
                    grid: 1,
                    split_k,
                    persistent: true,
                    pushers: p.gather.map_or(0, |_| GATHER_PUSHERS),
                    pingpong: false,
                };
                if let Err(why) = check(p, t, &candidate) {
                    rejected.get_or_insert(why);
                    continue;
                }
                // Where DRAM bounds every candidate alike (small batches), the one whose grid
                // has the most slack under that bound wins: it has the most loads in flight
                // (the model's DRAM rate is the best case, which few CTAs do not reach).
                let (grid_time, dram_time) = estimate_parts(p, tile_m, tile_n, stages, split_k, sms);
                let time = grid_time.max(dram_time);
                // Strictly faster by a margin: ties keep the candidate seen first.
                // (Splitting K is no tie-breaker: its fix-ups cost more than the model sees.)
                let better = best.is_none_or(|(b, slack, _, _, _, split)| {
                    time < b * 0.999 || (time <= b * 1.001 && grid_time < slack * 0.9 && split_k <= split)
                });
                if better {
                    best = Some((time, grid_time, tile_m, tile_n, stages, split_k));
                }
            }
        }
    }
    let (_, _, tile_m, tile_n, stages, split_k) = best.ok_or_else(|| {
        rejected.unwrap_or_else(|| "no tile of the given fields fits the target's shared memory".to_string())
    })?;
    // Pairs share B between two row tiles of one K range; split tiles and ping-pong tiles do
    // not pair.
    let cluster = given.cluster.unwrap_or_else(|| {
        if split_k > 1 || given.pingpong == Some(true) {
            1
        } else {
            choose_cluster(p, t, tile_m, tile_n, sms)
        }
    });
    // Ping-pong consumers only where asked for: on the H100 they hid a bias + GELU epilogue at
    // 4096 x 14336 x 4096 (964 -> 873 us) but lost 7-15 % at 128-1024 rows and on gated
    // products (bench/RESULTS.md, "Ping-pong consumers"): 64-row tiles read B twice as often.
    let pingpong = given.pingpong.unwrap_or(false);
    let (tm, tn) = tiles(p, tile_m, tile_n);
    let walk_rows = target::ceil_div(tm, cluster.max(1));
    // A gathered A: the raster group divides a device's row tiles, so the walk covers this
    // device's own rows (which wait for no pushes) before any peer's.
    let group_rows = p.gather.map_or(walk_rows, |devices| walk_rows / devices);
    let group = given.group.unwrap_or_else(|| choose_group(group_rows));
    let persistent = given.persistent.unwrap_or(true);
    let walk = walk_rows * tn * split_k;
    let grid = given.grid.unwrap_or_else(|| {
        if persistent {
            walk.min(sms / cluster.max(1)) * cluster
        } else {
            walk * cluster
        }
    });
    let pushers = given.pushers.unwrap_or_else(|| p.gather.map_or(0, |_| GATHER_PUSHERS));
    let s = Schedule {
        tile_m,
        tile_n,
        tile_k,
        stages,
        cluster,
        group,
        grid,
        split_k,
        persistent,
        pushers,
        pingpong,
    };
    check(p, t, &s)?;
    Ok(s)
}

/// What `axe-expand-matmul` can build on `t`: a message naming the field otherwise.
pub fn check(p: &Problem, t: &Target, s: &Schedule) -> std::result::Result<(), String> {
    if !t.has_wgmma || !t.has_tma || !t.has_mbarrier {
        return Err(format!(
            "target '{}' has no wgmma with TMA and mbarriers: axe.matmul expands to sm_90a's warp-specialized GEMM",
            t.name
        ));
    }
    if !TILE_M.contains(&s.tile_m) {
        return Err(format!(
            "tile_m = {} (expected 64 or 128: one or two consumer warpgroups)",
            s.tile_m
        ));
    }
    if s.tile_n < 64 || s.tile_n > target::WGMMA_MAX_N || s.tile_n % 64 != 0 {
        return Err(format!(
            "tile_n = {} (expected a multiple of 64 from 64 to {}: whole swizzle blocks, wgmma's largest N)",
            s.tile_n,
            target::WGMMA_MAX_N
        ));
    }
    if p.block_scaled && (s.tile_n > BLOCK_SCALE || BLOCK_SCALE % s.tile_n != 0) {
        return Err(format!(
            "tile_n = {} (block-scaled FP8 takes 64 or {BLOCK_SCALE}: a tile's columns lie in one {BLOCK_SCALE}-column block of B's scales)",
            s.tile_n
        ));
    }
    if s.tile_k != tile_k(p) {
        return Err(format!(
            "tile_k = {} (expected {}: one 128-byte swizzle row of {}-bit elements)",
            s.tile_k,
            tile_k(p),
            p.in_bits
        ));
    }
    if s.tile_n % staging_columns(p, s.tile_n) != 0 {
        return Err(format!(
            "tile_n = {} is not a whole number of {}-column output parts",
            s.tile_n,
            staging_columns(p, s.tile_n)
        ));
    }
    if s.stages < 1 {
        return Err(format!("stages = {} (expected at least 1)", s.stages));
    }
    let shared =
        s.stages * stage_bytes(p, s.tile_m, s.tile_n, s.tile_k) + staging_bytes(p, s.tile_m, s.tile_n) + SHARED_RESERVE;
    if shared > t.max_shared_bytes {
        return Err(format!(
            "{} stages of {}x{}x{} need {} bytes of shared memory with the output staging, more than the {} a CTA of '{}' may have",
            s.stages, s.tile_m, s.tile_n, s.tile_k, shared, t.max_shared_bytes, t.name
        ));
    }
    if s.cluster != 1 && (s.cluster != 2 || t.max_cluster_ctas < 2) {
        return Err(format!(
            "cluster = {} (expected 1, or 2 where the target has clusters: B is multicast to a pair)",
            s.cluster
        ));
    }
    if s.group < 1 {
        return Err(format!("group = {} (expected at least 1)", s.group));
    }
    if s.grid < 1 || s.grid % s.cluster != 0 {
        return Err(format!(
            "grid = {} (expected a positive multiple of the cluster size {})",
            s.grid, s.cluster
        ));
    }
    if s.split_k < 1 {
        return Err(format!("split_k = {} (expected at least 1)", s.split_k));
    }
    if p.gated && (s.tile_n / 2) % 64 != 0 {
        return Err(format!(
            "tile_n = {} in a gated product (expected 128 or 256: each half, gate and up, whole 64-column blocks)",
            s.tile_n
        ));
    }
    if let Some(devices) = p.gather {
        let shard = p.m / devices;
        if shard % s.tile_m != 0 {
            return Err(format!(
                "tile_m = {} does not divide a device's {shard} rows of the gathered A (a row tile waits for one device's rows)",
                s.tile_m
            ));
        }
        if s.cluster != 1 || s.split_k != 1 || !s.persistent {
            return Err(format!(
                "a gathered A needs cluster = 1, split_k = 1 and a persistent grid (got cluster = {}, split_k = {}, persistent = {})",
                s.cluster, s.split_k, s.persistent
            ));
        }
        if !(1..=MAX_PUSHERS).contains(&s.pushers) {
            return Err(format!(
                "pushers = {} (expected 1 to {MAX_PUSHERS}: the producer warpgroup's spare warps)",
                s.pushers
            ));
        }
    } else if s.pushers != 0 {
        return Err(format!(
            "pushers = {} without a gathered A (`gather(...)`): there is nothing to push",
            s.pushers
        ));
    }
    if s.split_k > 1 {
        if !p.workspace {
            return Err(format!(
                "split_k = {} needs the op's workspace(%partials, %flags : ...) for the running sums",
                s.split_k
            ));
        }
        if s.cluster != 1 || !s.persistent {
            return Err(format!(
                "split_k = {} needs cluster = 1 and a persistent grid (each tile's splits wait for each other)",
                s.split_k
            ));
        }
        let rounds = target::ceil_div(p.k, s.tile_k * s.stages);
        if s.split_k > rounds {
            return Err(format!(
                "split_k = {} exceeds the {rounds} rounds of {} stages that K = {} has",
                s.split_k, s.stages, p.k
            ));
        }
    }
    let (tm, tn) = tiles(p, s.tile_m, s.tile_n);
    let walk = target::ceil_div(tm, s.cluster) * tn * s.split_k;
    if !s.persistent && s.grid != walk * s.cluster {
        return Err(format!(
            "grid = {} without persistence must launch one CTA per tile: {}",
            s.grid,
            walk * s.cluster
        ));
    }
    if s.pingpong {
        let why = if s.tile_m != WGMMA_ROWS {
            Some(format!(
                "tile_m = {} (a ping-pong warpgroup computes 64-row tiles)",
                s.tile_m
            ))
        } else if s.cluster > 1 {
            Some("cluster > 1 (the ping-pong consumers do not share B across CTAs)".to_string())
        } else if s.split_k > 1 {
            Some("split_k > 1 (split tiles' fix-ups are not ordered between ping-pong warpgroups)".to_string())
        } else if p.gather.is_some() {
            Some("a gathered A (its pushes use the producer warpgroup's spare warps)".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            return Err(format!("pingpong = true with {why}"));
        }
    }
    Ok(())
}

/// The fields of a `#axe.matmul_schedule` attribute.
pub fn read_attr(a: MlirAttribute) -> Partial {
    let mut f = [0i64; 11];
    // SAFETY: `a` is a live `#axe.matmul_schedule` (the caller checked), and `f` has the
    // eleven fields the C API writes.
    unsafe { ffi::axeMatmulScheduleAttrGetFields(a, f.as_mut_ptr()) };
    let some = |v: i64| (v != 0).then_some(v);
    Partial {
        tile_m: some(f[0]),
        tile_n: some(f[1]),
        tile_k: some(f[2]),
        stages: some(f[3]),
        cluster: some(f[4]),
        group: some(f[5]),
        grid: some(f[6]),
        persistent: (f[7] >= 0).then_some(f[7] == 1),
        split_k: some(f[8]),
        pushers: some(f[9]),
        pingpong: (f[10] >= 0).then_some(f[10] == 1),
    }
}

/// The `#axe.matmul_schedule` of `s`, in `op`'s context.
pub fn schedule_attr(op: MlirOperation, s: &Schedule) -> MlirAttribute {
    let f = [
        s.tile_m,
        s.tile_n,
        s.tile_k,
        s.stages,
        s.cluster,
        s.group,
        s.grid,
        i64::from(s.persistent),
        s.split_k,
        s.pushers,
        i64::from(s.pingpong),
    ];
    // SAFETY: `op` is live (module contract); the attribute is owned by its context.
    unsafe { ffi::axeMatmulScheduleAttrGet(mlir_sys::mlirOperationGetContext(op), f.as_ptr()) }
}

/// The problem of an `axe.matmul` (its verifier has checked the shapes and types).
pub fn problem(op: MlirOperation) -> Problem {
    use crate::dialect::ods::matmul::operands;
    let a = ir::value_type(ir::operand(op, operands::A));
    let c = ir::value_type(ir::operand(op, operands::C));
    let (sa, sc) = (ir::shape(a), ir::shape(c));
    let gated = ir::attr(op, crate::dialect::ods::matmul::GATE).is_some();
    let optional = optional_operands(op);
    Problem {
        m: sa[0],
        n: if gated { 2 * sc[1] } else { sc[1] },
        k: sa[1],
        in_bits: i64::from(ir::element_bits(a)),
        out_bits: i64::from(ir::element_bits(c)),
        workspace: optional.workspace.is_some(),
        gated,
        gather: optional.gather.map(|g| ir::shape(ir::value_type(g.buffer))[0]),
        block_scaled: optional
            .scales
            .is_some_and(|(sa, _)| ir::shape(ir::value_type(sa)) != [1, 1]),
    }
}

/// The optional operands of an `axe.matmul`: FP8's scales, the workspace and the gather.
pub struct Optional {
    pub scales: Option<(MlirValue, MlirValue)>,
    pub workspace: Option<(MlirValue, MlirValue)>,
    pub gather: Option<GatherOperands>,
    /// The epilogue's bias row ([1, N]) and residual ([M, N]).
    pub bias: Option<MlirValue>,
    pub residual: Option<MlirValue>,
    /// A gated product's up weights, when separate from B.
    pub b_up: Option<MlirValue>,
}

/// `gather(%G, %F, %epoch)`: the symmetric gather buffer, its flags and the launch's epoch.
#[derive(Clone, Copy)]
pub struct GatherOperands {
    pub buffer: MlirValue,
    pub flags: MlirValue,
    pub epoch: MlirValue,
}

/// Reads them from the op's operand segments (A, B, C, scale_a, scale_b, partials, flags,
/// gathered, gather_flags, epoch).
pub fn optional_operands(op: MlirOperation) -> Optional {
    let groups = ir::operand_groups(op).unwrap_or_default();
    let one = |i: usize| match groups.get(i) {
        Some(x) if x.len() == 1 => Some(x[0]),
        _ => None,
    };
    let pair = |i: usize| Some((one(i)?, one(i + 1)?));
    Optional {
        scales: pair(3),
        workspace: pair(5),
        gather: (|| {
            Some(GatherOperands {
                buffer: one(7)?,
                flags: one(8)?,
                epoch: one(9)?,
            })
        })(),
        bias: one(10),
        residual: one(11),
        b_up: one(12),
    }
}

/// The schedule fields `op` carries (all None without a `schedule` attribute).
pub fn given(op: MlirOperation) -> Result<Partial> {
    use crate::dialect::ods::matmul::SCHEDULE;
    let Some(a) = ir::attr(op, SCHEDULE) else {
        return Ok(Partial::default());
    };
    // SAFETY: `a` is a live attribute of `op`.
    if !unsafe { ffi::axeAttributeIsAMatmulSchedule(a) } {
        return Err(AxeError::at(
            op,
            "'schedule' must be an #axe.matmul_schedule".to_string(),
        ));
    }
    Ok(read_attr(a))
}

/// The target of `op`'s module, which must be a GPU target.
pub fn target_of(op: MlirOperation) -> Result<&'static Target> {
    target::of(op).ok_or_else(|| {
        AxeError::at(
            op,
            "axe.matmul needs the module's #axe.target (e.g. #axe.target<\"sm_90a\">) to choose its schedule"
                .to_string(),
        )
    })
}

/// The pass body: every `axe.matmul` under `root` gets its complete schedule.
pub fn run(
    root: melior::ir::operation::OperationRefMut,
    options: &crate::dialect::ods::passes::AxeMatmulScheduleOptions,
) -> bool {
    crate::error::for_each_op(root.to_raw(), crate::dialect::ods::ops::MATMUL, |op| {
        let t = target_of(op)?;
        let sms = if options.sm_count > 0 {
            options.sm_count
        } else {
            t.sm_count
        };
        let p = problem(op);
        let s = choose(&p, t, sms, &given(op)?).map_err(|why| {
            AxeError::at(
                op,
                format!("axe.matmul {}x{}x{}: cannot schedule: {why}", p.m, p.n, p.k),
            )
        })?;
        // SAFETY: `op` is live and owned by the pass; `schedule` is declared as an
        // `#axe.matmul_schedule`, which the attribute is.
        unsafe { ir::set_attr(op, crate::dialect::ods::matmul::SCHEDULE, schedule_attr(op, &s)) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16(m: i64, n: i64, k: i64) -> Problem {
        Problem {
            m,
            n,
            k,
            in_bits: 16,
            out_bits: 16,
            workspace: false,
            gated: false,
            gather: None,
            block_scaled: false,
        }
    }

    fn h100() -> &'static Target {
        target::lookup("sm_90a").unwrap()
    }

    #[test]
    fn figure10_shapes_keep_the_measured_configuration() {
        // M = 8192, Llama-3.1-8B's up projection (0.96e12 flops: no pairs) and 70B's (pairs):
        // 128x256 tiles, 4 stages, persistent on 132 SMs, grouped raster of 8.
        let s = choose(&f16(8192, 14336, 4096), h100(), 132, &Partial::default()).unwrap();
        assert_eq!((s.tile_m, s.tile_n, s.tile_k, s.stages, s.grid), (128, 256, 64, 4, 132));
        assert_eq!((s.cluster, s.group, s.persistent), (1, 8, true));
        let s = choose(&f16(8192, 28672, 8192), h100(), 132, &Partial::default()).unwrap();
        assert_eq!((s.tile_m, s.tile_n, s.cluster, s.grid), (128, 256, 2, 132));
    }

    #[test]
    fn small_batches_fill_the_sms() {
        // M = 128: 128x256 tiles would be 32 CTAs on 132 SMs.
        let s = choose(&f16(128, 8192, 8192), h100(), 132, &Partial::default()).unwrap();
        let (tm, tn) = tiles(&f16(128, 8192, 8192), s.tile_m, s.tile_n);
        assert!(tm * tn >= 100, "{s:?}");
        assert_eq!(s.cluster, 1);
    }

    #[test]
    fn pingpong_is_an_override_only() {
        // Never chosen: measured slower than one 128-row tile's two warpgroups except at the
        // largest bias + GELU (bench/RESULTS.md).
        let s = choose(&f16(4096, 14336, 4096), h100(), 132, &Partial::default()).unwrap();
        assert!(!s.pingpong);
        // Asked for: 64-row tiles, no pairs (a user's cluster > 1 is refused by the check).
        let given = Partial {
            pingpong: Some(true),
            ..Partial::default()
        };
        let s = choose(&f16(8192, 28672, 8192), h100(), 132, &given).unwrap();
        assert_eq!((s.tile_m, s.cluster, s.split_k, s.pingpong), (64, 1, 1, true));
        let paired = Partial {
            cluster: Some(2),
            ..given
        };
        assert!(choose(&f16(8192, 28672, 8192), h100(), 132, &paired)
            .unwrap_err()
            .contains("pingpong = true with cluster > 1"));
    }

    #[test]
    fn given_fields_win_and_are_checked() {
        let given = Partial {
            tile_n: Some(128),
            ..Partial::default()
        };
        let s = choose(&f16(4096, 4096, 4096), h100(), 132, &given).unwrap();
        assert_eq!(s.tile_n, 128);
        let bad = Partial {
            tile_n: Some(320),
            ..Partial::default()
        };
        assert!(choose(&f16(4096, 4096, 4096), h100(), 132, &bad)
            .unwrap_err()
            .contains("tile_n = 320"));
        let big = Partial {
            stages: Some(8),
            tile_m: Some(128),
            tile_n: Some(256),
            ..Partial::default()
        };
        assert!(choose(&f16(4096, 4096, 4096), h100(), 132, &big)
            .unwrap_err()
            .contains("shared memory"));
    }

    #[test]
    fn every_choice_passes_its_own_check() {
        for m in [1, 16, 64, 100, 128, 256, 1000, 1024, 4096, 8192] {
            for (n, k) in [(6144, 4096), (4096, 4096), (28672, 8192), (1000, 3000)] {
                for (i, o) in [(16, 16), (16, 32), (8, 16)] {
                    let p = Problem {
                        m,
                        n,
                        k,
                        in_bits: i,
                        out_bits: o,
                        workspace: true,
                        gated: false,
                        gather: None,
                        block_scaled: false,
                    };
                    let s = choose(&p, h100(), 132, &Partial::default()).unwrap();
                    check(&p, h100(), &s).unwrap();
                    assert!(s.grid <= 132, "{p:?} {s:?}");
                    if i == 8 {
                        // Block scales: a tile's columns in one block of B's, two stages.
                        let p = Problem {
                            block_scaled: true,
                            ..p
                        };
                        let s = choose(&p, h100(), 132, &Partial::default()).unwrap();
                        check(&p, h100(), &s).unwrap();
                        assert!(
                            s.tile_n <= BLOCK_SCALE && s.stages == BLOCK_SCALED_STAGES,
                            "{p:?} {s:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn split_k_where_tiles_cannot_fill_the_gpu() {
        // Llama-3.1-8B's down projection at M = 64: 32 tiles; with a workspace, K is split.
        let p = Problem {
            workspace: true,
            ..f16(64, 4096, 14336)
        };
        let s = choose(&p, h100(), 132, &Partial::default()).unwrap();
        assert!(s.split_k > 1, "{s:?}");
        // Without one it is not, and an override asking for it is refused.
        let s = choose(&f16(64, 4096, 14336), h100(), 132, &Partial::default()).unwrap();
        assert_eq!(s.split_k, 1);
        let ask = Partial {
            split_k: Some(2),
            ..Partial::default()
        };
        assert!(choose(&f16(64, 4096, 14336), h100(), 132, &ask)
            .unwrap_err()
            .contains("workspace"));
        // Large GEMMs fill the GPU without it.
        let p = Problem {
            workspace: true,
            ..f16(8192, 8192, 8192)
        };
        assert_eq!(choose(&p, h100(), 132, &Partial::default()).unwrap().split_k, 1);
    }

    #[test]
    fn gated_and_gathered_products_get_buildable_tiles() {
        // SwiGLU's up/gate projection of Llama-3.1-8B on 4 devices: B is [4096, 2 x 3584].
        for m in [64, 256, 2048, 8192] {
            let p = Problem {
                gated: true,
                ..f16(m, 2 * 3584, 4096)
            };
            let s = choose(&p, h100(), 132, &Partial::default()).unwrap();
            assert!(s.tile_n == 128 || s.tile_n == 256, "{p:?} {s:?}");
            // With the all-gather: a row tile never straddles two devices' rows, no pairs.
            let p = Problem { gather: Some(4), ..p };
            if let Ok(s) = choose(&p, h100(), 132, &Partial::default()) {
                assert_eq!((m / 4) % s.tile_m, 0, "{p:?} {s:?}");
                assert_eq!((s.cluster, s.split_k), (1, 1), "{p:?} {s:?}");
                // The raster group stays inside a device's row tiles (own rows walked first).
                assert_eq!((m / 4 / s.tile_m) % s.group, 0, "{p:?} {s:?}");
            } else {
                assert!(m / 4 < 64, "{p:?}");
            }
        }
        let given = Partial {
            tile_n: Some(192),
            ..Partial::default()
        };
        let p = Problem {
            gated: true,
            ..f16(1024, 2048, 1024)
        };
        assert!(choose(&p, h100(), 132, &given).unwrap_err().contains("gated"));
    }

    #[test]
    fn targets_without_wgmma_are_refused() {
        let e = choose(
            &f16(256, 256, 256),
            target::lookup("sm_90").unwrap(),
            132,
            &Partial::default(),
        )
        .unwrap_err();
        assert!(e.contains("no wgmma"), "{e}");
    }
}
