//! Whether a schedule gives every thread what it needs: after [`refine`](crate::refine::refine),
//! one operand (the *driver*) decides which thread handles which element; every other operand
//! that lives on threads or registers must hold that element at the thread that handles it, at
//! the coordinate the factors compute. Checked against the layouts' definitions (Def. 2.3,
//! replicas included): proven from the iters when they agree, otherwise by enumeration.
//!
//! Which axes name threads and which names a thread's registers is a fact of the target, so
//! the caller passes them in ([`ThreadAxes`]).

use std::collections::{BTreeMap, HashSet};

use crate::error::LayoutError;
use crate::layout::{Axis, Layout, Point};
use crate::refine::{combos, offset, Factor, Operand};

/// The axes of a target that name threads, and the axis of a thread's own registers: a fact
/// of the target, given by the caller.
#[derive(Clone, Copy, Debug)]
pub struct ThreadAxes<'a> {
    /// Axes whose coordinates name a thread (on a GPU: `lane`, `warp`, `cta`).
    pub threads: &'a [&'a str],
    /// The axis of a thread's registers (on a GPU: `reg`).
    pub register: &'a str,
}

/// The most points [`check_schedule`] compares one by one.
pub const ENUMERATION_LIMIT: i64 = 1 << 16;

/// Whether, from the iters alone, every thread that holds an element in the driver holds it in
/// every other register operand too: each factor the driver places on a thread axis sits on the
/// same axis with the same stride in the operand, no other factor moves the operand's threads,
/// thread-axis offsets agree, and the driver's thread-axis replica iters are among the
/// operand's. Sufficient, and cheap (linear in the iters); [`check_schedule`] falls back to
/// enumeration when it does not hold.
///
/// A `written` operand must moreover be written at every thread that holds an element: its
/// thread replicas must be exactly the driver's iters it does not follow.
fn threads_agree(factors: &[Factor], operands: &[Operand], driver: usize, written: &[bool], axes: ThreadAxes) -> bool {
    let is_thread = |axis: &Axis| axes.threads.contains(&axis.name());
    let thread_replicas = |l: &Layout| -> Vec<ThreadIter> {
        l.replica
            .iter()
            .filter(|i| is_thread(&i.axis))
            .map(|i| (i.axis.name().to_string(), i.stride, i.extent))
            .collect()
    };
    let d = operands[driver].layout;
    operands.iter().enumerate().all(|(o, op)| {
        let on_regs = op
            .layout
            .axes()
            .iter()
            .any(|a| a.name() == axes.register || is_thread(a));
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
        let offsets_agree = axes.threads.iter().all(|a| offset(d, a) == offset(op.layout, a));
        let (held, needed) = (merged(thread_replicas(op.layout)), merged(unmatched));
        // A written operand must also have every replica written: its thread replicas must
        // be among the driver's threads that compute the element.
        offsets_agree && contains(&held, &needed) && (!written[o] || contains(&needed, &held))
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
    axes: ThreadAxes,
) -> Result<(), LayoutError> {
    if threads_agree(factors, operands, driver, written, axes) {
        return Ok(());
    }
    // Not provable from the iters: decide by enumeration where that is cheap (every point of
    // every operand, replicas included), and refuse otherwise.
    let points = operands.iter().try_fold(0i64, |acc, o| {
        acc.checked_add(o.layout.size().checked_mul(o.layout.replica_size())?)
    });
    if points.is_none_or(|p| p > ENUMERATION_LIMIT) {
        return Err(LayoutError::Unsupported(format!(
            "cannot show that the threads of {} hold what the schedule needs: the thread iters of the operands differ and their {} points are too many to compare one by one",
            operands[driver].layout,
            points.map_or("2^63+".to_string(), |p| p.to_string())
        )));
    }
    check_by_enumeration(factors, operands, driver, written, axes)
}

/// [`check_schedule`]'s definition, point by point.
fn check_by_enumeration(
    factors: &[Factor],
    operands: &[Operand],
    driver: usize,
    written: &[bool],
    axes: ThreadAxes,
) -> Result<(), LayoutError> {
    let (thread_axes, register) = (axes.threads, axes.register);
    let proj = |p: &Point| -> BTreeMap<String, i64> {
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
    // The points the schedule writes, per written register operand: every image point of
    // its elements must be among them (a replica on a thread no driver thread reaches would
    // keep a stale value).
    let mut wrote: Vec<HashSet<BTreeMap<String, i64>>> = vec![HashSet::new(); operands.len()];
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
                let on_regs = axes.iter().any(|a| a == register || thread_axes.contains(&a.as_str()));
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
                if written[o] && on_regs {
                    // The lowering stores every register replica of the element.
                    for r in crate::refine::replica_offsets(op.layout, register) {
                        let mut at = want.clone();
                        let reg = at.get(register).copied().unwrap_or(0) + r;
                        at.insert(register.to_string(), reg);
                        at.retain(|_, v| *v != 0);
                        wrote[o].insert(at);
                    }
                }
                let holds = images[o][xo as usize].contains(&want);
                if !holds && (!written[o] || used[o].contains(&want)) {
                    return Err(LayoutError::Unsupported(format!(
                        "operand layout {} does not hold element {xo} at {:?}, where the thread that owns it in {} needs it (add replicas or use matching thread axes)",
                        op.layout, want, operands[driver].layout
                    )));
                }
            }
        }
    }
    for (o, op) in operands.iter().enumerate() {
        if o == driver || !written[o] {
            continue;
        }
        let on_regs = op
            .layout
            .axes()
            .iter()
            .any(|a| a.0 == register || thread_axes.contains(&a.0.as_str()));
        if !on_regs {
            continue;
        }
        for (x, points) in images[o].iter().enumerate() {
            if let Some(p) = points.iter().find(|p| !wrote[o].contains(*p)) {
                return Err(LayoutError::Unsupported(format!(
                    "the threads that compute element {x} in {} do not include every thread that holds it in {} (it is also at {p:?}): the result would need to move between threads",
                    operands[driver].layout, op.layout
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refine::refine;

    const GPU: ThreadAxes<'static> = ThreadAxes {
        threads: &["lane", "warp", "cta"],
        register: "reg",
    };

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
            if threads_agree(&factors, &ops, 0, &[false, false], GPU) {
                agreed += 1;
                check_by_enumeration(&factors, &ops, 0, &[false, false], GPU)
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
            let by_iters = threads_agree(&factors, &ops, 0, &[false, false], GPU);
            let by_points = check_by_enumeration(&factors, &ops, 0, &[false, false], GPU);
            assert!(
                !by_iters || by_points.is_ok(),
                "threads_agree holds for {dl} / {ol}, the definition does not: {by_points:?}"
            );
            agreed += usize::from(by_iters);
        }
        assert!(agreed >= 7, "the cases exercise the proof ({agreed} agreed)");
    }

    /// A written operand replicated over threads that do not compute its elements is refused
    /// (row r summed on lane r cannot fill a result every lane holds whole); one whose
    /// replicas are those threads is accepted.
    #[test]
    fn written_replicas_must_all_be_written() {
        let src = Layout::parse("(4, 8) : (1@lane, 1@reg)").unwrap();
        let whole = Layout::parse("(4) : (1@reg) + [(4) : (1@lane)]").unwrap();
        let rows = Layout::parse("(4) : (1@lane)").unwrap();
        for (dst, ok) in [(&whole, false), (&rows, true)] {
            let ops = [
                Operand {
                    layout: &src,
                    shape: vec![4, 8],
                    dim_map: vec![Some(0), Some(1)],
                },
                Operand {
                    layout: dst,
                    shape: vec![4],
                    dim_map: vec![Some(0), None],
                },
            ];
            let factors = refine(&[4, 8], &ops).unwrap();
            let r = check_schedule(&factors, &ops, 0, &[false, true], GPU);
            assert_eq!(r.is_ok(), ok, "{dst}: {r:?}");
        }
        // Reduced over the lanes (a butterfly leaves the total on every lane): every replica
        // is written.
        let src = Layout::parse("(8, 4) : (1@reg, 1@lane)").unwrap();
        let all = Layout::parse("(8) : (1@reg) + [(4) : (1@lane)]").unwrap();
        let ops = [
            Operand {
                layout: &src,
                shape: vec![8, 4],
                dim_map: vec![Some(0), Some(1)],
            },
            Operand {
                layout: &all,
                shape: vec![8],
                dim_map: vec![Some(0), None],
            },
        ];
        let factors = refine(&[8, 4], &ops).unwrap();
        assert!(check_schedule(&factors, &ops, 0, &[false, true], GPU).is_ok());
    }

    /// A random pair of register layouts of `2^k` elements: the driver's shard extents (2 or
    /// 4) from `splits`, its iters on lane/warp/reg from `picks` (each axis's strides a compact
    /// digit system), maybe one warp replica iter; the other operand the same with its register
    /// strides reversed, then one `mutate`-chosen change (none, replica dropped, a lane replica
    /// added, two iters' axes swapped, a thread stride doubled).
    fn random_pair(splits: &[u32], picks: &[usize], mutate: usize) -> (Layout, Layout) {
        use crate::layout::Iter;
        let extents: Vec<i64> = splits.iter().map(|&s| 1i64 << (1 + s % 2)).collect();
        let axes = ["lane", "warp", "reg"];
        let mut next = std::collections::BTreeMap::from([("lane", 1i64), ("warp", 1), ("reg", 1)]);
        let mut shard = Vec::new();
        for (k, &e) in extents.iter().enumerate() {
            let a = axes[picks[k % picks.len()] % 3];
            let s = next[a];
            next.insert(a, s * e);
            shard.push(Iter::new(e, s, a));
        }
        let replica = if picks[0].is_multiple_of(2) {
            vec![Iter::new(2, next["warp"], "warp")]
        } else {
            vec![]
        };
        let d = Layout::new(shard.clone(), replica.clone(), Default::default()).unwrap();
        // The other operand: the same threads, the registers reversed; then one mutation.
        let mut oshard: Vec<Iter> = shard.clone();
        let regs: Vec<usize> = (0..oshard.len()).filter(|&i| oshard[i].axis.name() == "reg").collect();
        let rstrides: Vec<i64> = regs.iter().rev().map(|&i| shard[i].stride).collect();
        for (&i, s) in regs.iter().zip(rstrides) {
            oshard[i].stride = s;
        }
        let mut oreplica = replica;
        match mutate % 5 {
            0 => {}
            1 => oreplica.clear(),
            2 => oreplica.push(Iter::new(2, next["lane"], "lane")),
            3 => {
                // Swap the axes of the first two iters.
                if oshard.len() > 1 {
                    let a = oshard[0].axis.clone();
                    oshard[0].axis = oshard[1].axis.clone();
                    oshard[1].axis = a;
                }
            }
            _ => {
                if let Some(it) = oshard.iter_mut().find(|i| i.axis.name() != "reg") {
                    it.stride *= 2;
                }
            }
        }
        let o = Layout::new(oshard, oreplica, Default::default()).unwrap();
        (d, o)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// `threads_agree` is sound on random pairs of register layouts: whenever it holds,
        /// the point-by-point definition holds too.
        #[test]
        fn prop_threads_agree_is_sound(
            splits in proptest::collection::vec(0u32..4, 1..=5),
            picks in proptest::collection::vec(0usize..6, 5),
            mutate in 0usize..5,
        ) {
            let (d, o) = random_pair(&splits, &picks, mutate);
            let n = d.size();
            let ops = [
                Operand { layout: &d, shape: vec![n], dim_map: vec![Some(0)] },
                Operand { layout: &o, shape: vec![n], dim_map: vec![Some(0)] },
            ];
            if let Ok(factors) = refine(&[n], &ops) {
                for written in [[false, false], [false, true]] {
                    if threads_agree(&factors, &ops, 0, &written, GPU) {
                        let by_points = check_by_enumeration(&factors, &ops, 0, &written, GPU);
                        proptest::prop_assert!(by_points.is_ok(), "{} / {} (written {:?}): {:?}", d, o, written, by_points);
                    }
                }
            }
        }
    }
}
