//! The per-kernel lowering state ([`Ctx`]) and what every lowering derives from it alone: the
//! executing unit's thread coordinates and the CTA's place in its cluster.

use std::collections::{HashMap, HashSet};

use mlir_sys::*;

use super::address::Coords;
use super::builder::{Ix, B};
use super::tma_plan;
use super::tokens::Tokens;
use crate::target::{ScopeKind, WARPGROUP_THREADS, WARPGROUP_WARPS, WARP_THREADS};

/// A lowering result; a failure is located at an operation.
pub type R<T> = crate::error::Result<T>;

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
    pub tma: tma_plan::State,
    /// What each `axe.wait` operand's token can come from (analysed before any rewriting).
    pub tokens: Tokens,
    /// Async gemms lowered to wgmma groups left in flight (their tokens are waited with
    /// `wgmma.wait_group`).
    pub wgmma_async: HashSet<usize>,
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
    /// Whether the kernel has async TMA stores (plain waits at CTA or warpgroup scope then
    /// also wait for the unit's bulk groups to be read, and the kernel's exit for them all).
    pub has_async_store: bool,
    /// The async TMA stores lowered so far and the scope of the unit whose first thread
    /// issued each (holding its bulk group): a wait on one's token must run in that unit.
    pub store_scopes: HashMap<usize, ScopeKind>,
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

/// The executing CTA's rank in its cluster and its cluster's index in the grid (both x
/// fastest), from the linear CTA id: a cluster is a box of `cluster` CTAs of the grid. A
/// kernel without clusters has clusters of one CTA.
pub fn cluster_coords(b: &B, ctx: &Ctx) -> (Ix, Ix) {
    let Some(cl) = ctx.cluster else {
        return (Ix::C(0), Ix::V(ctx.bid));
    };
    let g = ctx.grid;
    let bid = Ix::V(ctx.bid);
    let (mut rank, mut id) = (Ix::C(0), Ix::C(0));
    let (mut rank_w, mut id_w, mut below) = (1, 1, 1);
    for d in 0..3 {
        // The CTA's coordinate along d, then its place within and among the clusters.
        let c = match g[d] {
            1 => Ix::C(0),
            _ if g[d + 1..].iter().all(|&x| x == 1) => b.div(bid, below),
            n => b.rem(b.div(bid, below), n),
        };
        rank = b.add(rank, b.mul(b.rem(c, cl[d]), rank_w));
        id = b.add(id, b.mul(b.div(c, cl[d]), id_w));
        rank_w *= cl[d];
        id_w *= g[d] / cl[d];
        below *= g[d];
    }
    (rank, id)
}
