//! Symbolic evaluation of layouts: the iteration space an operator runs over, and the
//! hardware coordinates (memory addresses, register indices, lane/warp ownership) of each
//! element as index arithmetic.
//!
//! The common refinement of the operands ([`refine`]: every operand's shard cut into factors,
//! one digit each, that all operands and the logical dimensions agree on) is layout math and
//! lives in `axe_layout::refine`; this module builds the IR from it: a thread's dynamic part
//! (its lane/warp digits) is computed once and every register's static part folds to a
//! constant, and the schedule is checked against the layouts' definitions.

use crate::error::AxeError;
use std::collections::{BTreeMap, HashSet};

use axe_layout::{Axis, Layout};
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
pub fn plan_threads(
    b: &B,
    coords: &Coords,
    factors: &[Factor],
    driver: usize,
    layout: &Layout,
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
        if iters.is_empty() && off == 0 {
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
        let mut recon = Ix::C(0);
        let n = iters.len();
        for (j, &(e, s, k)) in iters.iter().enumerate() {
            let q = b.div(c, s);
            let d = if full && j + 1 == n { q } else { b.rem(q, e) };
            if let Some(k) = k {
                digits[k] = Some(d);
            }
            if !full {
                recon = b.add(recon, b.mul(d, s));
            }
        }
        if !full {
            let mut ok = b.cmp(0, c, recon);
            if off > 0 {
                let ge = b.cmp(9, coord, Ix::C(off));
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

/// The axes that distribute elements over threads.
const THREAD_AXES: [&str; 3] = ["lane", "warp", "cta"];

/// The most points [`check_schedule`] compares one by one.
const ENUMERATION_LIMIT: i64 = 1 << 16;

/// Whether, from the iters alone, every thread that holds an element in the driver holds it in
/// every other register operand too: each factor the driver places on a thread axis sits on the
/// same axis with the same stride in the operand, no other factor moves the operand's threads,
/// thread-axis offsets agree, and the driver's thread-axis replica iters are among the
/// operand's. Sufficient, and cheap (linear in the iters); [`check_schedule`] falls back to
/// enumeration when it does not hold.
fn threads_agree(factors: &[Factor], operands: &[Operand], driver: usize) -> bool {
    let is_thread = |axis: &Axis| THREAD_AXES.contains(&axis.name());
    let thread_replicas = |l: &Layout| -> Vec<ThreadIter> {
        l.replica
            .iter()
            .filter(|i| is_thread(&i.axis))
            .map(|i| (i.axis.name().to_string(), i.stride, i.extent))
            .collect()
    };
    let d = operands[driver].layout;
    operands.iter().enumerate().all(|(o, op)| {
        let on_regs = op.layout.axes().iter().any(|a| a.name() == "reg" || is_thread(a));
        if o == driver || !on_regs {
            return true;
        }
        // Thread iters of the driver the operand does not follow digit by digit: the operand
        // must be replicated over them.
        let mut unmatched = thread_replicas(d);
        for f in factors.iter().filter(|f| f.extent > 1) {
            let dp = f.places[driver].as_ref().filter(|p| is_thread(&p.axis));
            match (dp, &f.places[o]) {
                (Some(dp), Some(p)) if is_thread(&p.axis) => {
                    if dp.axis != p.axis || dp.stride != p.stride {
                        return false;
                    }
                }
                // The operand does not depend on this digit (a broadcast dimension).
                (Some(dp), None) => unmatched.push((dp.axis.name().to_string(), dp.stride, f.extent)),
                (Some(_), Some(_)) => return false,
                (None, Some(p)) if is_thread(&p.axis) => return false,
                (None, _) => {}
            }
        }
        let offsets_agree = THREAD_AXES.iter().all(|a| offset(d, a) == offset(op.layout, a));
        offsets_agree && contains(&merged(thread_replicas(op.layout)), &merged(unmatched))
    })
}

/// A thread-axis iter: (axis, stride, extent).
type ThreadIter = (String, i64, i64);

/// Iters sorted by axis and stride, chains (`s·e = s'` on one axis) merged into one.
fn merged(mut iters: Vec<ThreadIter>) -> Vec<ThreadIter> {
    iters.retain(|i| i.2 > 1);
    iters.sort();
    let mut out: Vec<ThreadIter> = Vec::new();
    for it in iters {
        match out.last_mut() {
            Some(last) if last.0 == it.0 && last.1.checked_mul(last.2) == Some(it.1) => {
                last.2 = last.2.saturating_mul(it.2);
            }
            _ => out.push(it),
        }
    }
    out
}

/// Whether the multiset `small` is part of the multiset `big`.
fn contains(big: &[ThreadIter], small: &[ThreadIter]) -> bool {
    let mut rest = big.to_vec();
    small.iter().all(|it| match rest.iter().position(|x| x == it) {
        Some(k) => {
            rest.swap_remove(k);
            true
        }
        None => false,
    })
}

/// Checks the schedule against the layouts' definitions: for every element and every thread
/// that owns it in the driver, each other operand must hold it at the coordinate the schedule
/// computes (`reads`: strictly; a written register operand may instead use a slot no element
/// maps to at that thread). Proven from the iters when they agree ([`threads_agree`]),
/// otherwise by enumeration when there are at most [`ENUMERATION_LIMIT`] points.
pub fn check_schedule(
    factors: &[Factor],
    operands: &[Operand],
    driver: usize,
    written: &[bool],
) -> Result<(), AxeError> {
    if threads_agree(factors, operands, driver) {
        return Ok(());
    }
    // Not provable from the iters: decide by enumeration where that is cheap (every point of
    // every operand, replicas included), and refuse otherwise.
    let points = operands.iter().try_fold(0i64, |acc, o| {
        acc.checked_add(o.layout.size().checked_mul(o.layout.replica_size())?)
    });
    if points.is_none_or(|p| p > ENUMERATION_LIMIT) {
        return Err(AxeError::Message(format!(
            "cannot show that the threads of {} hold what the schedule needs: the thread iters of the operands differ and their {} points are too many to compare one by one",
            operands[driver].layout,
            points.map_or("2^63+".to_string(), |p| p.to_string())
        )));
    }
    check_by_enumeration(factors, operands, driver, written)
}

/// [`check_schedule`]'s definition, point by point.
fn check_by_enumeration(
    factors: &[Factor],
    operands: &[Operand],
    driver: usize,
    written: &[bool],
) -> Result<(), AxeError> {
    let thread_axes = THREAD_AXES;
    let proj = |p: &axe_layout::layout::Point| -> BTreeMap<String, i64> {
        p.iter()
            .filter(|(_, v)| **v != 0)
            .map(|(a, v)| (a.0.clone(), *v))
            .collect()
    };
    let images: Vec<Vec<Vec<BTreeMap<String, i64>>>> = operands
        .iter()
        .map(|o| {
            (0..o.layout.size())
                .map(|x| o.layout.eval_set_flat(x).unwrap_or_default().iter().map(proj).collect())
                .collect()
        })
        .collect();
    let used: Vec<HashSet<BTreeMap<String, i64>>> =
        images.iter().map(|im| im.iter().flatten().cloned().collect()).collect();
    let extents: Vec<i64> = factors.iter().map(|f| f.extent).collect();
    for digits in combos(&extents, &vec![1; extents.len()]) {
        let flat = |o: usize| -> i64 {
            factors
                .iter()
                .zip(&digits)
                .filter_map(|(f, d)| f.places[o].as_ref().map(|p| d * p.own_weight))
                .sum()
        };
        let xd = flat(driver);
        for dp in &images[driver][xd as usize] {
            let thread: BTreeMap<String, i64> = dp
                .iter()
                .filter(|(a, _)| thread_axes.contains(&a.as_str()))
                .map(|(a, v)| (a.clone(), *v))
                .collect();
            for (o, op) in operands.iter().enumerate() {
                if o == driver {
                    continue;
                }
                let xo = flat(o);
                let mut want: BTreeMap<String, i64> = BTreeMap::new();
                let axes: Vec<String> = op.layout.axes().iter().map(|a| a.0.clone()).collect();
                let on_regs = axes.iter().any(|a| a == "reg" || thread_axes.contains(&a.as_str()));
                if on_regs {
                    for (a, v) in &thread {
                        want.insert(a.clone(), *v);
                    }
                }
                for a in &axes {
                    if thread_axes.contains(&a.as_str()) {
                        continue;
                    }
                    let mut v = offset(op.layout, a);
                    for (f, d) in factors.iter().zip(&digits) {
                        if let Some(p) = &f.places[o] {
                            if &p.axis.0 == a {
                                v += d * p.stride;
                            }
                        }
                    }
                    want.insert(a.clone(), v);
                }
                want.retain(|_, v| *v != 0);
                let holds = images[o][xo as usize].contains(&want);
                if !holds && (!written[o] || used[o].contains(&want)) {
                    return Err(AxeError::Message(format!(
                        "operand layout {} does not hold element {xo} at {:?}, where the thread that owns it in {} needs it (add replicas or use matching thread axes)",
                        op.layout, want, operands[driver].layout
                    )));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `threads_agree` is sufficient: whenever it holds, the definition (enumeration) agrees.
    /// Pairs of register layouts of one 2-D shape, driver first, the second possibly a
    /// broadcast (its second dimension of size 1).
    #[test]
    fn threads_agree_implies_the_definition() {
        let cases: &[(&str, &str, &str)] = &[
            // (shape, driver layout, other layout (shape rows x cols or rows x 1))
            (
                "64x8",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
            ),
            (
                "64x8",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
                "(2, 32, 8) : (1@warp, 1@lane, 2@reg) + [(2) : (1@reg)]",
            ),
            (
                "64x8",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
                "(2, 32, 8) : (1@lane, 2@lane, 1@reg)",
            ),
            (
                "64x8",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
                "(64, 8) : (1@reg, 64@reg) + [(32, 2) : (1@lane, 1@warp)]",
            ),
            (
                "64x8",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg) + [(2) : (2@warp)]",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
            ),
            (
                "64x8",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg) + [(2) : (2@warp)]",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg) + [(2) : (2@warp)]",
            ),
            (
                "64x8",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg) + 1@warp",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
            ),
            (
                "64x8",
                "(2, 4, 8, 8) : (1@warp, 8@lane, 1@reg, 1@lane)",
                "(2, 4, 8, 8) : (1@warp, 8@lane, 1@reg, 1@lane)",
            ),
            (
                "64x8",
                "(2, 4, 8, 8) : (1@warp, 8@lane, 1@reg, 1@lane)",
                "(2, 32, 8) : (1@warp, 1@lane, 1@reg)",
            ),
            (
                "64x1",
                "(2, 32) : (1@warp, 1@lane)",
                "(64) : (1@reg) + [(2, 32) : (1@warp, 1@lane)]",
            ),
            (
                "64x1",
                "(2, 32) : (1@warp, 1@lane) + [(2) : (2@warp)]",
                "(2, 32) : (1@warp, 1@lane) + [(4) : (2@warp)]",
            ),
            (
                "64x1",
                "(2, 32) : (1@warp, 1@lane) + [(4, 2) : (1@lane, 2@warp)]",
                "(2, 32) : (1@warp, 1@lane) + [(2, 4) : (2@warp, 1@lane)]",
            ),
        ];
        let mut agreed = 0;
        for &(shape, dl, ol) in cases {
            let (rows, cols) = shape.split_once('x').unwrap();
            let (rows, cols): (i64, i64) = (rows.parse().unwrap(), cols.parse().unwrap());
            let d = Layout::parse(dl).unwrap();
            let o = Layout::parse(ol).unwrap();
            let ops = [
                Operand {
                    layout: &d,
                    shape: vec![rows * cols],
                    dim_map: vec![Some(0)],
                },
                Operand {
                    layout: &o,
                    shape: vec![rows * cols],
                    dim_map: vec![Some(0)],
                },
            ];
            let Ok(factors) = refine(&[rows * cols], &ops) else {
                continue;
            };
            if threads_agree(&factors, &ops, 0) {
                agreed += 1;
                check_by_enumeration(&factors, &ops, 0, &[false, false])
                    .unwrap_or_else(|e| panic!("threads_agree holds for {dl} / {ol}, the definition does not: {e}"));
            }
        }
        // Broadcasts: the second operand is 64x1 under a 64x8 iteration space (its factor on
        // the columns has no place), as `axe.binary` with a row vector sees it.
        let bcast: &[(&str, &str)] = &[
            ("(2, 32, 8) : (1@warp, 1@lane, 1@reg)", "(2, 32) : (1@warp, 1@lane)"),
            (
                "(2, 8, 4, 4, 2) : (1@warp, 4@lane, 2@reg, 1@lane, 1@reg)",
                "(2, 8, 4) : (1@warp, 4@lane, 1@reg) + [(4) : (1@lane)]",
            ),
            (
                "(2, 8, 4, 4, 2) : (1@warp, 4@lane, 2@reg, 1@lane, 1@reg)",
                "(2, 8, 4) : (1@warp, 4@lane, 1@reg) + [(2, 2) : (2@lane, 1@lane)]",
            ),
            (
                "(2, 8, 4, 4, 2) : (1@warp, 4@lane, 2@reg, 1@lane, 1@reg)",
                "(2, 8, 4) : (1@warp, 4@lane, 1@reg) + [(2) : (2@lane)]",
            ),
            (
                "(2, 8, 4, 4, 2) : (1@warp, 4@lane, 2@reg, 1@lane, 1@reg)",
                "(2, 8, 4) : (1@warp, 4@lane, 1@reg)",
            ),
            (
                "(2, 8, 4, 4, 2) : (1@warp, 4@lane, 2@reg, 1@lane, 1@reg)",
                "(2, 8, 4) : (1@warp, 4@lane, 1@reg) + [(4) : (1@lane)] + 1@lane",
            ),
        ];
        for &(dl, ol) in bcast {
            let d = Layout::parse(dl).unwrap();
            let o = Layout::parse(ol).unwrap();
            let ops = [
                Operand {
                    layout: &d,
                    shape: vec![64, 8],
                    dim_map: vec![Some(0), Some(1)],
                },
                Operand {
                    layout: &o,
                    shape: vec![64, 1],
                    dim_map: vec![Some(0), Some(1)],
                },
            ];
            let Ok(factors) = refine(&[64, 8], &ops) else { continue };
            let by_iters = threads_agree(&factors, &ops, 0);
            let by_points = check_by_enumeration(&factors, &ops, 0, &[false, false]);
            assert!(
                !by_iters || by_points.is_ok(),
                "threads_agree holds for {dl} / {ol}, the definition does not: {by_points:?}"
            );
            agreed += usize::from(by_iters);
        }
        assert!(agreed >= 7, "the cases exercise the proof ({agreed} agreed)");
    }
}
