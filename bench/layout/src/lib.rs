//! Inputs shared by the criterion benchmarks and the pycute comparison driver.

use std::collections::BTreeMap;

use axe_layout::{Axis, Iter, Layout};

const AXES: [&str; 4] = ["lane", "warp", "reg", "m"];

/// A layout of `n` shard iters of extent 2 cycling over lane/warp/reg/m (adjacent iters are on
/// different axes, so nothing merges and every operation sees all `n` iters), plus a replica
/// of two warp iters (one aliasing, so canonicalization has C2 work) and a warp offset.
pub fn layout(n: usize) -> Layout {
    let shard: Vec<Iter> = (0..n)
        .map(|k| Iter::new(2, 1i64 << (k / 4), Axis::new(AXES[k % 4])))
        .collect();
    let replica = vec![Iter::new(2, 64, "warp"), Iter::new(3, 32, "warp")];
    let offset = BTreeMap::from([(Axis::new("warp"), 1)]);
    Layout::new(shard, replica, offset).expect("valid benchmark layout")
}

/// The same shard without replica and offset (tiling inputs).
pub fn shard_only(n: usize) -> Layout {
    Layout::from_shard(layout(n).shard).expect("valid")
}

/// A 2-D shape admitted by `layout(n)`: `(2^(n/2), 2^(n - n/2))`.
pub fn shape2(n: usize) -> Vec<i64> {
    vec![1i64 << (n / 2), 1i64 << (n - n / 2)]
}

/// The iter counts benchmarked.
pub const SIZES: [usize; 6] = [2, 4, 6, 8, 10, 12];
