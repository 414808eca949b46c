//! Hardware targets: which axes exist and their bounds, and (in [`mma`]) the tensor-core
//! instruction atoms. One place for these facts, so that
//! verifiers and passes never hard-code them (selected by the module's `axe.target`).

use std::collections::BTreeMap;

use axe_layout::{Axis, Layout};

use crate::dialect::ods::MemoryScope;
use crate::error::{AxeError, Result};

pub mod mma;

/// A target's description.
#[derive(Debug)]
pub struct Target {
    pub name: &'static str,
    /// Every axis the target offers, with the exclusive upper bound of its coordinate
    /// (`None`: bounded only by memory size, e.g. `m`, or by the launch, e.g. `cta`).
    pub axes: &'static [(&'static str, Option<i64>)],
    /// Threads per warp (GPU) — 0 on accelerators without warps.
    pub warp_size: i64,
    /// The most shared memory one CTA can use, in bytes (the opt-in maximum of the CUDA
    /// programming guide's "Technical Specifications per Compute Capability"); 0 where the
    /// target has no shared memory.
    pub max_shared_bytes: i64,
    /// Whether the target has warpgroup MMA (`wgmma.mma_async`, PTX ISA "sm_90a"), on which
    /// `axe.gemm` with A and B in shared memory lowers to `wgmma`.
    pub has_wgmma: bool,
    /// Whether warpgroups can hand registers to each other (`setmaxnreg`, PTX ISA "sm_90a"):
    /// `axe.set_max_registers`.
    pub has_setmaxnreg: bool,
    /// 32-bit registers per SM, shared by the CTA's threads at launch (CUDA programming guide,
    /// "Technical Specifications per Compute Capability"); 0 without a register file.
    pub registers_per_sm: i64,
    /// The memories the target has (an `axe.alloc` of any other scope is refused).
    pub memories: &'static [MemoryScope],
    /// Whether the target has the Tensor Memory Accelerator (bulk tensor copies).
    pub has_tma: bool,
    /// Whether the target has mbarriers (shared-memory barriers with phases and transaction
    /// counts: TMA completion, split barriers, warp-specialized stages).
    pub has_mbarrier: bool,
    /// The most CTAs a cluster may have (the portable cluster size, CUDA programming guide,
    /// "Thread Block Clusters"); 0 where the target has no clusters.
    pub max_cluster_ctas: i64,
    /// Whether `axe-to-nki` emits NKI (Neuron Kernel Interface) kernels for the target.
    pub nki: bool,
    /// Streaming multiprocessors of the part the target names by default (what a persistent
    /// grid fills; `axe-matmul-schedule{sm-count=N}` for another part): sm_80 the A100 SXM
    /// (108), sm_90/sm_90a the H100 SXM (132), sm_100 the B200 (148); 0 without SMs.
    pub sm_count: i64,
}

/// Threads of a warp, on every NVIDIA GPU target (the PTX ISA's `WARP_SZ`).
pub const WARP_THREADS: i64 = 32;
/// Warps of a warpgroup: the unit of sm_90's wgmma and setmaxnreg, and of `axe.scope warpgroup`.
pub const WARPGROUP_WARPS: i64 = 4;
/// Threads of a warpgroup.
pub const WARPGROUP_THREADS: i64 = WARP_THREADS * WARPGROUP_WARPS;
/// The most 32-bit registers a thread may have (PTX ISA, `.maxnreg`), and the granule in which
/// they are allocated and `setmaxnreg` counts them.
pub const MAX_REGISTERS_PER_THREAD: i64 = 255;
pub const REGISTER_GRANULE: i64 = 8;
/// The `wgmma.mma_async` atom of sm_90a: each warpgroup issues m64nNkK, N a multiple of 8 up to
/// 256 (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate").
pub const WGMMA_M: i64 = 64;
pub const WGMMA_MAX_N: i64 = 256;
/// TMA: the alignment of a tensor map's global address (CUDA driver API,
/// `cuTensorMapEncodeTiled`), the bytes one mbarrier phase can expect (its transaction count is
/// below 2^20), and the most CTAs one multicast copy reaches (its 16-bit CTA mask).
pub const TMA_GLOBAL_ALIGN: i64 = 16;
pub const MBARRIER_MAX_TX_BYTES: i64 = (1 << 20) - 1;
pub const TMA_MAX_MULTICAST_CTAS: i64 = 16;

/// CUDA's launch limits, the same on every GPU target: threads per CTA and per CTA
/// dimension, CTAs per grid dimension.
pub const MAX_THREADS_PER_CTA: i64 = 1024;
pub const MAX_CTA_DIMS: [i64; 3] = [1024, 1024, 64];
pub const MAX_GRID_DIMS: [i64; 3] = [(1 << 31) - 1, 65535, 65535];

const GPU_AXES: &[(&str, Option<i64>)] = &[
    ("m", None),
    ("reg", Some(255)),
    ("lane", Some(32)),
    ("warp", Some(32)), // 1024 threads per CTA
    ("cta", None),
    ("gpuid", None),
];
const HOPPER_AXES: &[(&str, Option<i64>)] = &[
    ("m", None),
    ("reg", Some(255)),
    ("lane", Some(32)),
    ("warp", Some(32)),
    ("cta", None),
    ("cluster", Some(16)),
    ("gpuid", None),
];
const BLACKWELL_AXES: &[(&str, Option<i64>)] = &[
    ("m", None),
    ("reg", Some(255)),
    ("lane", Some(32)),
    ("warp", Some(32)),
    ("cta", None),
    ("cluster", Some(16)),
    ("gpuid", None),
    ("tmem_lane", Some(128)),
    ("tmem_col", Some(512)),
];
const GPU_MEMORIES: &[MemoryScope] = &[MemoryScope::Global, MemoryScope::Shared, MemoryScope::Register];
/// Blackwell adds tensor memory (TMEM), the accumulator store of its tensor cores.
const BLACKWELL_MEMORIES: &[MemoryScope] = &[
    MemoryScope::Global,
    MemoryScope::Shared,
    MemoryScope::Register,
    MemoryScope::TMem,
];
/// Trainium's on-chip memories: the state buffer (SBUF) and the matmul accumulators (PSUM).
const TRN1_MEMORIES: &[MemoryScope] = &[MemoryScope::Global, MemoryScope::SBuf, MemoryScope::PSum];
/// Trainium 1: SBUF/PSUM are 2-D with 128 partitions (`P`) and a free axis (`F`).
const TRN1_AXES: &[(&str, Option<i64>)] = &[("m", None), ("P", Some(128)), ("F", None), ("gpuid", None)];

pub static TARGETS: &[Target] = &[
    Target {
        name: "sm_80",
        axes: GPU_AXES,
        warp_size: 32,
        max_shared_bytes: 163 * 1024,
        has_wgmma: false,
        has_setmaxnreg: false,
        registers_per_sm: 65536,
        memories: GPU_MEMORIES,
        has_tma: false,
        has_mbarrier: false,
        max_cluster_ctas: 0,
        sm_count: 108,
        nki: false,
    },
    Target {
        name: "sm_90",
        axes: HOPPER_AXES,
        warp_size: 32,
        max_shared_bytes: 227 * 1024,
        has_wgmma: false,
        has_setmaxnreg: false,
        registers_per_sm: 65536,
        memories: GPU_MEMORIES,
        has_tma: true,
        has_mbarrier: true,
        max_cluster_ctas: 8,
        sm_count: 132,
        nki: false,
    },
    Target {
        name: "sm_90a",
        axes: HOPPER_AXES,
        warp_size: 32,
        max_shared_bytes: 227 * 1024,
        has_wgmma: true,
        has_setmaxnreg: true,
        registers_per_sm: 65536,
        memories: GPU_MEMORIES,
        has_tma: true,
        has_mbarrier: true,
        max_cluster_ctas: 8,
        sm_count: 132,
        nki: false,
    },
    Target {
        name: "sm_100",
        axes: BLACKWELL_AXES,
        warp_size: 32,
        max_shared_bytes: 227 * 1024,
        has_wgmma: false,
        has_setmaxnreg: false,
        registers_per_sm: 65536,
        memories: BLACKWELL_MEMORIES,
        has_tma: true,
        has_mbarrier: true,
        max_cluster_ctas: 8,
        sm_count: 148,
        nki: false,
    },
    Target {
        name: "trn1",
        axes: TRN1_AXES,
        warp_size: 0,
        max_shared_bytes: 0,
        has_wgmma: false,
        has_setmaxnreg: false,
        registers_per_sm: 0,
        memories: TRN1_MEMORIES,
        has_tma: false,
        has_mbarrier: false,
        max_cluster_ctas: 0,
        sm_count: 0,
        nki: true,
    },
];

/// The target called `name`.
pub fn lookup(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The target of the module around `op` (its `axe.target` attribute), if it names one.
pub fn of(op: mlir_sys::MlirOperation) -> Option<&'static Target> {
    crate::ir::target_name(op).as_deref().and_then(lookup)
}

/// Whether code for `target` runs on `chip`: the same or a newer architecture, and an
/// arch-specific target (`sm_90a`: wgmma, TMA multicast) only on exactly that chip.
pub fn runs_on(target: &str, chip: &str) -> bool {
    let version = |s: &str| {
        s.strip_prefix("sm_")
            .map(|v| v.trim_end_matches('a'))
            .and_then(|v| v.parse::<u32>().ok())
    };
    match (version(target), version(chip)) {
        (Some(t), Some(c)) if target.ends_with('a') => target == chip || (t == c && chip.ends_with('a')),
        (Some(t), Some(c)) => c >= t,
        _ => target == chip,
    }
}

/// The names of all targets, comma separated (for diagnostics).
pub fn known_targets() -> String {
    TARGETS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
}

/// The smallest and largest coordinate the layout reaches on each axis.
pub fn coordinate_range(layout: &Layout) -> BTreeMap<Axis, (i64, i64)> {
    let mut range: BTreeMap<Axis, (i64, i64)> = BTreeMap::new();
    for it in layout.shard.iter().chain(layout.replica.iter()) {
        let r = range.entry(it.axis.clone()).or_insert((0, 0));
        // validate() guarantees (extent - 1) * stride fits; sums saturate rather than wrap.
        let reach = (it.extent - 1).saturating_mul(it.stride);
        if reach > 0 {
            r.1 = r.1.saturating_add(reach);
        } else {
            r.0 = r.0.saturating_add(reach);
        }
    }
    for (axis, &o) in &layout.offset {
        let r = range.entry(axis.clone()).or_insert((0, 0));
        r.0 = r.0.saturating_add(o);
        r.1 = r.1.saturating_add(o);
    }
    range
}

impl Target {
    /// Checks that every axis of `layout` exists on this target and stays in `[0, bound)`.
    /// `num_warps`/`num_devices` (when known) tighten the bounds of `warp`/`gpuid`; zero
    /// devices means the tensor is used outside any device mesh.
    pub fn check_layout(&self, layout: &Layout, num_warps: Option<i64>, num_devices: Option<i64>) -> Result<()> {
        for (axis, (lo, hi)) in coordinate_range(layout) {
            let Some(&(_, bound)) = self.axes.iter().find(|(a, _)| *a == axis.name()) else {
                let names: Vec<&str> = self.axes.iter().map(|(a, _)| *a).collect();
                return Err(AxeError::Message(format!(
                    "axis '{axis}' does not exist on {} (axes: {})",
                    self.name,
                    names.join(", ")
                )));
            };
            if axis.name() == "gpuid" && num_devices == Some(0) {
                return Err(AxeError::Message(
                    "the layout distributes over devices (gpuid), but the tensor is used outside an axe.mesh".into(),
                ));
            }
            let bound = match axis.name() {
                "warp" => num_warps.or(bound),
                "gpuid" => num_devices.or(bound),
                _ => bound,
            };
            if lo < 0 {
                return Err(AxeError::Message(format!(
                    "axis '{axis}' reaches the negative coordinate {lo}"
                )));
            }
            if let Some(b) = bound {
                if hi >= b {
                    return Err(AxeError::Message(format!(
                        "axis '{axis}' reaches coordinate {hi}, beyond its bound {b}"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// `⌈a / b⌉` for `a ≥ 0`, `b > 0`, without the overflow of `(a + b - 1) / b`.
pub fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

/// The bytes a shared allocation with `layout` (and a swizzle block of `2^swizzle_log2`
/// elements, when it has one) occupies: every memory offset it reaches, rounded up to whole
/// swizzle blocks, times the element size, in 16-byte units (how the lowering lays shared
/// buffers out). Errors when the layout reaches a negative offset or the size overflows i64.
pub fn shared_footprint(layout: &Layout, element_bits: i64, swizzle_log2: Option<u32>) -> Result<i64> {
    let (lo, hi) = coordinate_range(layout).get(&Axis::new("m")).copied().unwrap_or((0, 0));
    if lo < 0 {
        return Err(AxeError::Message(format!(
            "its layout reaches the negative memory offset {lo}"
        )));
    }
    let too_big = || "its size in bytes does not fit a 64-bit integer".to_string();
    let mut elements = hi.checked_add(1).ok_or_else(too_big)?;
    if let Some(log2) = swizzle_log2 {
        let block = 1i64.checked_shl(log2).filter(|b| *b > 0).ok_or_else(too_big)?;
        elements = ceil_div(elements, block).checked_mul(block).ok_or_else(too_big)?;
    }
    let bits = elements.checked_mul(element_bits).ok_or_else(too_big)?;
    let bytes = ceil_div(bits, 8);
    Ok(ceil_div(bytes, 16).checked_mul(16).ok_or_else(too_big)?)
}

impl Target {
    /// Checks that a shared allocation of `bytes` fits one CTA's shared memory.
    pub fn check_shared_bytes(&self, bytes: i64) -> Result<()> {
        if self.max_shared_bytes == 0 {
            return Err(AxeError::Message(format!(
                "target '{}' has no shared memory",
                self.name
            )));
        }
        if bytes > self.max_shared_bytes {
            return Err(AxeError::Message(format!(
                "it needs {bytes} bytes of shared memory, more than the {} bytes a CTA can use on {}",
                self.max_shared_bytes, self.name
            )));
        }
        Ok(())
    }

    /// Checks a launch shape (`grid`, `threads`, 1 to 3 positive dimensions) against CUDA's limits.
    /// Whether the GPU lowering compiles for the target (it has warps, shared memory, PTX).
    pub fn is_gpu(&self) -> bool {
        self.warp_size > 0
    }

    pub fn check_launch(&self, grid: &[i64], threads: &[i64], cluster: &[i64]) -> Result<()> {
        let mut total = 1i64;
        for (d, (&t, max)) in threads.iter().zip(MAX_CTA_DIMS).enumerate() {
            if t > max {
                return Err(AxeError::Message(format!(
                    "threads dimension {d} is {t}, beyond the limit of {max}"
                )));
            }
            total = total.saturating_mul(t);
        }
        if total > MAX_THREADS_PER_CTA {
            return Err(AxeError::Message(format!(
                "a CTA has at most {MAX_THREADS_PER_CTA} threads, got {total}"
            )));
        }
        for (d, (&g, max)) in grid.iter().zip(MAX_GRID_DIMS).enumerate() {
            if g > max {
                return Err(AxeError::Message(format!(
                    "grid dimension {d} is {g}, beyond the limit of {max}"
                )));
            }
        }
        if cluster.is_empty() {
            return Ok(());
        }
        if self.max_cluster_ctas == 0 {
            return Err(AxeError::Message(format!(
                "'{}' has no thread-block clusters",
                self.name
            )));
        }
        let ctas = cluster.iter().fold(1i64, |n, &c| n.saturating_mul(c));
        if ctas > self.max_cluster_ctas {
            return Err(AxeError::Message(format!(
                "a cluster has at most {} CTAs, got {ctas}",
                self.max_cluster_ctas
            )));
        }
        for (d, &c) in cluster.iter().enumerate() {
            let g = grid.get(d).copied().unwrap_or(1);
            if g % c != 0 {
                return Err(AxeError::Message(format!(
                    "grid dimension {d} ({g}) is not a whole number of clusters of {c}"
                )));
            }
        }
        Ok(())
    }
}

/// Execution scopes, coarse to fine (generated from ODS `Axe_ScopeKind`, whose values order
/// them).
pub use crate::dialect::ods::ScopeKind;

impl ScopeKind {
    /// The thread-distribution axes a unit of this scope spans: a thread owns only its
    /// registers, a warp also its 32 lanes, a warpgroup 4 warps; a CTA or cluster spans all.
    fn visible_axes(self) -> Option<&'static [(&'static str, Option<i64>)]> {
        match self {
            ScopeKind::Thread => Some(&[("reg", None)]),
            ScopeKind::Warp => Some(&[("reg", None), ("lane", None)]),
            ScopeKind::Warpgroup => Some(&[("reg", None), ("lane", None), ("warp", Some(4))]),
            ScopeKind::Cta | ScopeKind::Cluster => None,
        }
    }
}

/// Checks that a register tensor with `layout` can be used by an op executing at `scope`.
pub fn check_register_layout_in_scope(layout: &Layout, scope: ScopeKind) -> Result<()> {
    let Some(visible) = scope.visible_axes() else {
        return Ok(());
    };
    for (axis, (_, hi)) in coordinate_range(layout) {
        match visible.iter().find(|(a, _)| *a == axis.name()) {
            None => {
                let names: Vec<&str> = visible.iter().map(|(a, _)| *a).collect();
                return Err(AxeError::Message(
                    format!(
                        "its layout uses axis '{axis}', but a {scope:?} unit only spans {}",
                        names.join(", ")
                    )
                    .to_lowercase(),
                ));
            }
            Some((_, Some(bound))) if hi >= *bound => {
                return Err(AxeError::Message(
                    format!("axis '{axis}' reaches {hi}, but a {scope:?} unit spans {bound}").to_lowercase(),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The facts of the table agree with each other: TMA completes on mbarriers, GPUs have
    /// shared memory and registers and Trainium has neither, tensor memory is Blackwell's, a
    /// chip that runs another's code has what that one has.
    #[test]
    fn target_facts_are_consistent() {
        for t in TARGETS {
            assert!(!t.has_tma || t.has_mbarrier, "{}", t.name);
            assert!(t.memories.contains(&MemoryScope::Global), "{}", t.name);
            assert_eq!(t.memories.contains(&MemoryScope::Shared), t.is_gpu(), "{}", t.name);
            assert_eq!(t.memories.contains(&MemoryScope::SBuf), t.nki, "{}", t.name);
            assert_eq!(
                t.memories.contains(&MemoryScope::TMem),
                t.name == "sm_100",
                "{}",
                t.name
            );
            assert_eq!(t.max_cluster_ctas > 0, t.has_mbarrier, "{}", t.name);
            for u in TARGETS
                .iter()
                .filter(|u| u.is_gpu() && t.is_gpu() && runs_on(t.name, u.name))
            {
                assert!(
                    u.has_tma >= t.has_tma && u.has_mbarrier >= t.has_mbarrier,
                    "{} on {}",
                    t.name,
                    u.name
                );
                assert!(
                    t.memories.iter().all(|m| u.memories.contains(m)),
                    "{} on {}",
                    t.name,
                    u.name
                );
            }
        }
    }

    #[test]
    fn which_targets_run_on_which_chips() {
        assert!(
            runs_on("sm_80", "sm_80")
                && runs_on("sm_80", "sm_90")
                && runs_on("sm_80", "sm_90a")
                && runs_on("sm_80", "sm_100")
        );
        assert!(!runs_on("sm_90", "sm_80") && runs_on("sm_90", "sm_90a") && runs_on("sm_90", "sm_100"));
        assert!(
            runs_on("sm_90a", "sm_90a")
                && !runs_on("sm_90a", "sm_90")
                && !runs_on("sm_90a", "sm_100")
                && !runs_on("sm_90a", "sm_80")
        );
    }

    #[test]
    fn register_visibility() {
        let frag = Layout::parse("(8, 4, 2) : (4@lane, 1@lane, 1@reg)").unwrap();
        assert!(check_register_layout_in_scope(&frag, ScopeKind::Warp).is_ok());
        assert!(check_register_layout_in_scope(&frag, ScopeKind::Thread)
            .unwrap_err()
            .to_string()
            .contains("axis 'lane'"));
        let cta = Layout::parse("(8, 32) : (1@warp, 1@lane)").unwrap();
        assert!(check_register_layout_in_scope(&cta, ScopeKind::Cta).is_ok());
        assert!(check_register_layout_in_scope(&cta, ScopeKind::Warpgroup)
            .unwrap_err()
            .to_string()
            .contains("reaches 7"));
    }

    #[test]
    fn bounds_and_axes() {
        let sm80 = lookup("sm_80").unwrap();
        let tile = Layout::parse("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp").unwrap();
        // Warps 5..=10 are used: fits 32 warps, not a 4-warp CTA.
        assert!(sm80.check_layout(&tile, None, None).is_ok());
        assert!(sm80
            .check_layout(&tile, Some(4), None)
            .unwrap_err()
            .to_string()
            .contains("bound 4"));
        let lanes = Layout::parse("(64) : (1@lane)").unwrap();
        assert!(sm80
            .check_layout(&lanes, None, None)
            .unwrap_err()
            .to_string()
            .contains("coordinate 63"));
        let sbuf = Layout::parse("(128, 4) : (1@P, 1@F)").unwrap();
        assert!(sm80
            .check_layout(&sbuf, None, None)
            .unwrap_err()
            .to_string()
            .contains("'F' does not exist on sm_80"));
        assert!(lookup("trn1").unwrap().check_layout(&sbuf, None, None).is_ok());
        let neg = Layout::parse("(4) : (-1@lane)").unwrap();
        assert!(sm80
            .check_layout(&neg, None, None)
            .unwrap_err()
            .to_string()
            .contains("negative"));
    }
}
