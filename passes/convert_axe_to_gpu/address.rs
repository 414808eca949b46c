//! Symbolic evaluation of layouts: the iteration space an operator runs over, and the
//! hardware coordinates (memory addresses, register indices, lane/warp ownership) of each
//! element as index arithmetic.
//!
//! The common refinement of the operands ([`refine`]: every operand's shard cut into factors,
//! one digit each, that all operands and the logical dimensions agree on) is layout math and
//! lives in `axe_layout::refine`, and the check of a schedule against the layouts' definitions
//! in `axe_layout::schedule`; this module builds the IR from them: a thread's dynamic part (its
//! lane/warp digits) is computed once and every register's static part folds to a constant.

use crate::error::AxeError;
use melior::dialect::arith::CmpiPredicate;

use axe_layout::schedule::ThreadAxes;
use axe_layout::{equivalent, Layout, LayoutError};
use mlir_sys::MlirValue;

pub use axe_layout::refine::{combos, offset, refine, replica_offsets, suffix_products, Factor, Operand};

use super::builder::{Ix, B};

/// The thread coordinates of the executing unit (a CTA, warpgroup, warp or thread).
#[derive(Clone, Copy)]
pub struct Coords {
    pub lane: Option<Ix>,
    pub warp: Option<Ix>,
    /// Lanes and warps a unit spans.
    pub lanes: i64,
    pub warps: i64,
    /// The CTA in the grid and the grid's size (the `cta` axis).
    pub cta: Option<Ix>,
    pub ctas: i64,
}

/// How a thread finds the elements of the driving register tensor it owns.
pub struct ThreadPlan {
    /// Digit of each factor that lives on a thread axis in the driver (None: static).
    pub digits: Vec<Option<Ix>>,
    /// Whether this thread owns anything (None: every thread does).
    pub valid: Option<MlirValue>,
}

/// Solves the driver's thread-axis digits from the thread's lane/warp: on each axis the
/// driver's iters (shard factors and replica iters) must form a non-overlapping digit
/// system; a thread whose coordinate it does not reach owns nothing.
///
/// `pinned`: thread axes the driver lies at coordinate 0 of without naming them (a register
/// slice of a tensor that spans them, `Tensor::pinned`): guarded like a named axis, so only
/// the threads at that coordinate run.
pub fn plan_threads(
    b: &B,
    coords: &Coords,
    factors: &[Factor],
    driver: usize,
    layout: &Layout,
    pinned: &[&str],
) -> Result<ThreadPlan, AxeError> {
    let mut digits: Vec<Option<Ix>> = vec![None; factors.len()];
    let mut valid: Option<MlirValue> = None;
    for axis in ["lane", "warp", "cta"] {
        // (extent, stride, factor index or None for a replica iter)
        let mut iters: Vec<(i64, i64, Option<usize>)> = Vec::new();
        for (k, f) in factors.iter().enumerate() {
            if let Some(p) = &f.places[driver] {
                if p.axis.name() == axis {
                    iters.push((f.extent, p.stride, Some(k)));
                }
            }
        }
        for it in &layout.replica {
            if it.axis.name() == axis && it.extent > 1 {
                iters.push((it.extent, it.stride, None));
            }
        }
        let off = offset(layout, axis);
        if iters.is_empty() && off == 0 && !pinned.contains(&axis) {
            continue;
        }
        let (coord, count) = match axis {
            "lane" => (coords.lane, coords.lanes),
            "warp" => (coords.warp, coords.warps),
            _ => (coords.cta, coords.ctas),
        };
        let Some(coord) = coord else {
            return Err(AxeError::Message(format!(
                "layout {layout} uses axis '{axis}', which the executing scope does not span"
            )));
        };
        iters.sort_by_key(|i| i.1);
        let mut reach = 1i64;
        let mut compact = true;
        // The largest coordinate the iters and the offset reach: Σ (extent − 1)·stride + offset.
        let mut highest = off;
        for &(e, s, _) in &iters {
            if s < 0 || s < reach {
                return Err(AxeError::Message(format!(
                    "layout {layout}: the iters on axis '{axis}' overlap or have negative strides (not a digit system)"
                )));
            }
            compact &= s == reach;
            reach = s.saturating_mul(e);
            highest = highest.saturating_add((e - 1).saturating_mul(s));
        }
        let full = compact && off == 0 && reach == count;
        if off < 0 || highest >= count {
            return Err(AxeError::Message(format!(
                "layout {layout} reaches {axis} {highest} but the executing scope spans {count}"
            )));
        }
        let c = b.sub(coord, Ix::C(off));
        // The digits. Where every stride is a multiple of the reach below it (a mixed radix,
        // possibly with whole gaps: s_{j+1} a multiple of s_j · e_j), digit j is
        // (c / s_j) mod e_j. Otherwise (e.g. (3, 2) : (1@lane, 4@lane), where lane 4 would wrap
        // to digit 1) they are peeled off from the largest stride down — d_j = r / s_j, then
        // r = r mod s_j — each checked against its extent. Each stride is at least the reach
        // of the iters below it (checked above), so every coordinate the iters reach
        // decomposes this way, and only those.
        let radix = iters.windows(2).all(|w| w[1].1 % (w[0].1 * w[0].0) == 0);
        let mut range_ok: Option<MlirValue> = None;
        let mut recon = Ix::C(0);
        let mut rest = c;
        let n = iters.len();
        // (A mixed radix takes its digits smallest stride first; peeling goes largest first.)
        let order: Vec<usize> = if radix {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        for j in order {
            let (e, s, k) = iters[j];
            let d = if full && j + 1 == n {
                b.div(c, s)
            } else if radix {
                b.rem(b.div(c, s), e)
            } else {
                let d = b.div(rest, s);
                rest = b.rem(rest, s);
                let lt = b.cmp(CmpiPredicate::Ult, d, Ix::C(e));
                range_ok = Some(range_ok.map_or(lt, |r| b.and(r, lt)));
                d
            };
            if let Some(k) = k {
                digits[k] = Some(d);
            }
            if !full {
                recon = b.add(recon, b.mul(d, s));
            }
        }
        if !full {
            // Owned: the coordinate is exactly what the digits spell (nothing below the lowest
            // stride, nothing past the top iter's reach, no digit in a gap) and at or past
            // the offset.
            let mut ok = b.cmp(CmpiPredicate::Eq, c, recon);
            if let Some(r) = range_ok {
                ok = b.and(ok, r);
            }
            if off > 0 {
                let ge = b.cmp(CmpiPredicate::Uge, coord, Ix::C(off));
                ok = b.and(ge, ok);
            }
            valid = Some(match valid {
                None => ok,
                Some(v) => b.and(v, ok),
            });
        }
    }
    Ok(ThreadPlan { digits, valid })
}

/// A layout's replica iters on `axis` (stride, extent), extent 1 left out.
pub fn replica_iters(layout: &Layout, axis: &str) -> Vec<(i64, i64)> {
    layout
        .replica
        .iter()
        .filter(|it| it.axis.name() == axis && it.extent > 1)
        .map(|it| (it.stride, it.extent))
        .collect()
}

/// Whether iters (stride, extent) form one compact digit system of exactly `count`
/// coordinates: every coordinate 0..count, each once.
pub fn covers_exactly(mut iters: Vec<(i64, i64)>, count: i64) -> bool {
    iters.sort_unstable();
    let mut reach = 1;
    for (s, e) in iters {
        if s != reach {
            return false;
        }
        reach *= e;
    }
    reach == count
}

/// The dynamic part of operand `o`'s coordinate on `axis`: Σ over the thread-bound factors.
pub fn dynamic_part(b: &B, plan: &ThreadPlan, factors: &[Factor], o: usize, axis: &str) -> Ix {
    let mut acc = Ix::C(0);
    for (k, f) in factors.iter().enumerate() {
        if let (Some(d), Some(p)) = (plan.digits[k], &f.places[o]) {
            if p.axis.name() == axis {
                acc = b.add(acc, b.mul(d, p.stride));
            }
        }
    }
    acc
}

/// The thread-bound factors that place operand `o` on `axis` (its digit, extent and
/// stride there): in a register operand other than the driver, a factor the driver holds on
/// a thread axis may sit on `reg` (the operand holds it through a replica, or at another
/// register of each thread), so the register to access depends on the thread.
pub fn thread_bound_terms(plan: &ThreadPlan, factors: &[Factor], o: usize, axis: &str) -> Vec<(Ix, i64, i64)> {
    factors
        .iter()
        .enumerate()
        .filter_map(|(k, f)| {
            let d = plan.digits[k]?;
            let p = f.places[o].as_ref().filter(|p| p.axis.name() == axis)?;
            Some((d, f.extent, p.stride))
        })
        .collect()
}

/// The static part of operand `o`'s coordinate on `axis` for digits `digits` (one per
/// factor; thread-bound factors ignored), offset included.
pub fn static_part(
    plan: &ThreadPlan,
    factors: &[Factor],
    o: usize,
    layout: &Layout,
    axis: &str,
    digits: &[i64],
) -> i64 {
    let mut acc = offset(layout, axis);
    for (k, f) in factors.iter().enumerate() {
        if plan.digits[k].is_some() {
            continue;
        }
        if let Some(p) = &f.places[o] {
            if p.axis.name() == axis {
                acc += digits[k] * p.stride;
            }
        }
    }
    acc
}

/// The axes that distribute elements over threads on a GPU, and the axis of a thread's
/// registers.
const GPU_THREADS: ThreadAxes<'static> = ThreadAxes {
    threads: &["lane", "warp", "cta"],
    register: "reg",
};

/// Checks the schedule against the layouts' definitions (`axe_layout::schedule::check_schedule`
/// with this target's thread axes).
pub fn check_schedule(
    factors: &[Factor],
    operands: &[Operand],
    driver: usize,
    written: &[bool],
) -> Result<(), LayoutError> {
    axe_layout::schedule::check_schedule(factors, operands, driver, written, GPU_THREADS)
}

/// The memory offset (unswizzled) of each of a layout's first `n` elements in flat
/// (row-major) order; refused where an element has several addresses (replicas) or a
/// coordinate on another axis. TMA planning places a tile's boxes with it, and bulk stores
/// their runs (both sides).
pub fn memory_offsets(layout: &Layout, n: i64) -> Result<Vec<i64>, AxeError> {
    let m = axe_layout::Axis::memory();
    (0..n)
        .map(|x| {
            let pts = layout.eval_flat(x)?;
            match pts.as_slice() {
                [p] if p.keys().all(|a| *a == m) => Ok(p.get(&m).copied().unwrap_or(0)),
                _ => Err(AxeError::Message(
                    "it replicates elements or uses a non-memory axis".into(),
                )),
            }
        })
        .collect()
}

/// Whether two layouts are the same map (equal, or equivalent as functions).
pub fn same(a: &Layout, b: &Layout) -> bool {
    a == b || equivalent(a, b).map(|e| e.equal).unwrap_or(false)
}
