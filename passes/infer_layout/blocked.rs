//! Coalesced register layouts for copies (Hexcute §5: without a gemm, anchor on the copy):
//! each thread owns `vec` consecutive elements along the memory-contiguous dimension (one
//! vectorized access), lanes then warps sweep the contiguous dimension first, and what is left
//! repeats in registers. Threads left over when the tensor is small hold replicas.

use axe_layout::gcd;
use axe_layout::{Iter, Layout, LayoutError};

/// The threads that execute a copy: 32 lanes × `warps` (a single thread has 1 lane, 1 warp).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threads {
    pub lanes: i64,
    pub warps: i64,
}

/// The logical dimensions of `shape` ordered fastest-first by `memory`'s strides (a dim whose
/// innermost iter has stride ±1 on `m` is the contiguous one), and the contiguous run length
/// of the fastest dim (elements adjacent in memory).
pub fn memory_order(memory: &Layout, shape: &[i64]) -> Result<(Vec<usize>, i64), LayoutError> {
    let grouped = memory.group(shape)?;
    let mut keyed: Vec<(i64, usize)> = Vec::new();
    let mut run = 1;
    for (d, range) in grouped.groups.iter().enumerate() {
        let inner = range.clone().last().map(|i| &grouped.layout.shard[i]);
        let key = match inner {
            Some(it) if it.axis.is_memory() => it.stride.abs(),
            Some(_) => i64::MAX / 2, // not on memory: never contiguous
            None => i64::MAX,        // size-1 dim: slowest
        };
        keyed.push((key, d));
    }
    keyed.sort();
    let order: Vec<usize> = keyed.iter().map(|&(_, d)| d).collect();
    if let Some(&(1, d)) = keyed.first() {
        if let Some(i) = grouped.groups[d].clone().last() {
            run = grouped.layout.shard[i].extent;
        }
    }
    Ok((order, run))
}

/// The blocked register layout of `shape`: `vec` elements per access along `order[0]`, then
/// lanes and warps along `order`, register repeats for the rest, replicas for idle threads.
pub fn blocked(shape: &[i64], order: &[usize], vec: i64, threads: Threads) -> Result<Layout, LayoutError> {
    let rank = shape.len();
    let (mut lanes_left, mut warps_left) = (threads.lanes, threads.warps);
    let mut per_dim = vec![(1i64, 1i64, 1i64, 1i64); rank]; // (rep, warp, lane, vec)
    for (k, &d) in order.iter().enumerate() {
        let v = if k == 0 { gcd(vec, shape[d]) } else { 1 };
        let mut avail = shape[d] / v;
        let l = gcd(lanes_left, avail);
        lanes_left /= l;
        avail /= l;
        let w = gcd(warps_left, avail);
        warps_left /= w;
        avail /= w;
        per_dim[d] = (avail, w, l, v);
    }
    // Strides: lanes and warps number the fastest dim first; registers put the vector first,
    // then the repeats of each dim in order.
    let (mut lane_stride, mut warp_stride, mut reg_stride) = (1i64, 1i64, 1i64);
    let mut strides = vec![(0i64, 0i64, 0i64, 0i64); rank];
    if let Some(&d0) = order.first() {
        strides[d0].3 = 1;
        reg_stride = per_dim[d0].3;
    }
    for &d in order {
        let (rep, w, l, _) = per_dim[d];
        strides[d].2 = lane_stride;
        lane_stride *= l;
        strides[d].1 = warp_stride;
        warp_stride *= w;
        strides[d].0 = reg_stride;
        reg_stride *= rep;
    }
    let mut shard = Vec::new();
    for d in 0..rank {
        let (rep, w, l, v) = per_dim[d];
        let (rs, ws, ls, vs) = strides[d];
        for (e, s, axis) in [(rep, rs, "reg"), (w, ws, "warp"), (l, ls, "lane"), (v, vs, "reg")] {
            if e > 1 {
                shard.push(Iter::new(e, s, axis));
            }
        }
    }
    let mut replica = Vec::new();
    if lanes_left > 1 {
        replica.push(Iter::new(lanes_left, lane_stride, "lane"));
    }
    if warps_left > 1 {
        replica.push(Iter::new(warps_left, warp_stride, "warp"));
    }
    let l = Layout::new(shard, replica, Default::default())?;
    Ok(l.canonical())
}

/// The vector width for `elem_bits`-bit elements over a contiguous run: at most 16 bytes,
/// a power of two dividing the run.
pub fn vector_width(run: i64, elem_bits: u32) -> i64 {
    let max = (128 / elem_bits.max(1) as i64).max(1);
    let mut v = 1;
    while v * 2 <= max && run % (v * 2) == 0 {
        v *= 2;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every (lane, warp, reg) slot holds at most one element, every element is owned, and
    /// each thread's `vec` registers are memory-contiguous.
    fn check(shape: &[i64], memory: &Layout, threads: Threads, bits: u32) -> Layout {
        let (order, run) = memory_order(memory, shape).unwrap();
        let vec = vector_width(run, bits);
        let l = blocked(shape, &order, vec, threads).unwrap();
        l.check_admits(shape).unwrap();
        let mut seen = BTreeSet::new();
        for x in 0..l.size() {
            for p in l.eval_set_flat(x).unwrap() {
                assert!(seen.insert(p.clone()), "slot {p:?} used twice in {l}");
                for (a, v) in &p {
                    let bound = match a.name() {
                        "lane" => threads.lanes,
                        "warp" => threads.warps,
                        _ => i64::MAX,
                    };
                    assert!(*v < bound, "{a} = {v} out of range in {l}");
                }
            }
        }
        l
    }

    #[test]
    fn row_major_is_vectorized_along_columns() {
        let mem = Layout::parse("(64, 64) : (64, 1)").unwrap();
        let l = check(&[64, 64], &mem, Threads { lanes: 32, warps: 4 }, 16);
        // 8 f16 per 16-byte access, 8 lanes across a row of 64, 4 lanes x 4 warps down rows:
        // (4, 4, 4, 8, 8) : (8@reg, 1@warp, 8@lane, 1@lane, 1@reg), whose two lane iters
        // chain into one (D1).
        assert_eq!(l.to_string(), "(4, 4, 32, 8) : (8@reg, 1@warp, 1@lane, 1@reg)");
    }

    #[test]
    fn column_major_sweeps_rows() {
        let mem = Layout::parse("(64, 64) : (1, 64)").unwrap();
        let l = check(&[64, 64], &mem, Threads { lanes: 32, warps: 4 }, 32);
        // Contiguous along dim 0: vec 4 f32 on rows; lanes along rows first.
        let p = l.eval_set(&[1, 0], &[64, 64]).unwrap();
        let q = l.eval_set(&[0, 0], &[64, 64]).unwrap();
        assert_eq!(
            p[0].get(&"lane".into()),
            q[0].get(&"lane".into()),
            "rows 0..4 share a thread"
        );
    }

    #[test]
    fn small_tensor_replicates_idle_threads() {
        let mem = Layout::parse("(16) : (1)").unwrap();
        let l = check(&[16], &mem, Threads { lanes: 32, warps: 1 }, 32);
        assert_eq!(l.to_string(), "(4, 4) : (1@lane, 1@reg) + [(8) : (4@lane)]");
    }

    #[test]
    fn single_thread_owns_everything() {
        let mem = Layout::parse("(8, 8) : (8, 1)").unwrap();
        let l = check(&[8, 8], &mem, Threads { lanes: 1, warps: 1 }, 32);
        assert_eq!(l.to_string(), "(64) : (1@reg)");
    }
}
