//! Shared proptest generators and brute-force oracles for the `axe-layout` integration tests.
//!
//! Include it from a test file with `mod common;`. Layouts are small on purpose (a few axes,
//! extents 1..=4, strides in -8..=8 without 0) so that every property can be checked against
//! full enumeration of the induced map ([`Layout::table`]).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use axe_layout::{Axis, Iter, Layout};
use proptest::prelude::*;

/// The axes random layouts draw from.
pub const AXES: &[&str] = &["m", "lane", "warp", "reg"];

/// Knobs for [`arb_layout_with`].
#[derive(Clone, Debug)]
pub struct Gen {
    /// Number of shard iters.
    pub shard: RangeInclusive<usize>,
    /// Number of replica iters (0 for none).
    pub replica: RangeInclusive<usize>,
    /// Extents are drawn from `1..=max_extent`.
    pub max_extent: i64,
    /// Strides are drawn from `-max_stride..=max_stride` without 0.
    pub max_stride: i64,
    /// Draw a random offset (in -8..=8) per axis.
    pub offsets: bool,
    /// Axes to draw from.
    pub axes: &'static [&'static str],
}

impl Default for Gen {
    fn default() -> Self {
        Gen {
            shard: 1..=6,
            replica: 0..=2,
            max_extent: 4,
            max_stride: 8,
            offsets: true,
            axes: AXES,
        }
    }
}

impl Gen {
    /// Shard only: no replica, no offset.
    pub fn shard_only() -> Self {
        Gen {
            replica: 0..=0,
            offsets: false,
            ..Gen::default()
        }
    }
    /// Builder-style setters.
    pub fn shard(mut self, r: RangeInclusive<usize>) -> Self {
        self.shard = r;
        self
    }
    pub fn replica(mut self, r: RangeInclusive<usize>) -> Self {
        self.replica = r;
        self
    }
    pub fn offsets(mut self, on: bool) -> Self {
        self.offsets = on;
        self
    }
    pub fn axes(mut self, axes: &'static [&'static str]) -> Self {
        self.axes = axes;
        self
    }
    pub fn max_stride(mut self, s: i64) -> Self {
        self.max_stride = s;
        self
    }
    pub fn max_extent(mut self, e: i64) -> Self {
        self.max_extent = e;
        self
    }
}

/// A random iter: extent in `1..=max_extent`, non-zero stride in `±max_stride`, axis from `axes`.
pub fn arb_iter(g: &Gen) -> impl Strategy<Value = Iter> {
    let axes = g.axes;
    let ms = g.max_stride;
    (1..=g.max_extent, 1..=ms, any::<bool>(), 0..axes.len())
        .prop_map(move |(e, s, neg, a)| Iter::new(e, if neg { -s } else { s }, axes[a]))
}

/// A random valid layout drawn according to `g`.
pub fn arb_layout_with(g: Gen) -> BoxedStrategy<Layout> {
    let shard = prop::collection::vec(arb_iter(&g), g.shard.clone());
    let replica = prop::collection::vec(arb_iter(&g), g.replica.clone());
    let axes = g.axes;
    let offsets = if g.offsets {
        prop::collection::vec(-8i64..=8, axes.len()).boxed()
    } else {
        Just(vec![0i64; axes.len()]).boxed()
    };
    (shard, replica, offsets)
        .prop_map(move |(shard, replica, offs)| {
            let offset: BTreeMap<Axis, i64> = axes
                .iter()
                .zip(offs)
                .filter(|(_, o)| *o != 0)
                .map(|(a, o)| (Axis::from(*a), o))
                .collect();
            Layout::new(shard, replica, offset).expect("small random layouts are valid")
        })
        .boxed()
}

/// A random layout with the default knobs (1–6 shard iters, 0–2 replica iters, offsets).
pub fn arb_layout() -> BoxedStrategy<Layout> {
    arb_layout_with(Gen::default())
}

/// Cut the shard of `l` into `rank` consecutive runs at the (sorted) positions `cuts`; each
/// logical dim is the product of its run's extents (1 for an empty run). Such a shape is
/// always admitted and always groups.
pub fn shape_from_cuts(l: &Layout, cuts: &[usize]) -> Vec<i64> {
    let mut bounds: Vec<usize> = cuts.iter().map(|&c| c.min(l.shard.len())).collect();
    bounds.sort();
    let mut shape = Vec::with_capacity(bounds.len() + 1);
    let mut start = 0;
    for &b in bounds.iter().chain(std::iter::once(&l.shard.len())) {
        shape.push(l.shard[start..b].iter().map(|i| i.extent).product());
        start = b;
    }
    shape
}

/// A random layout with a random admitted shape of rank in `rank` that groups it.
pub fn arb_layout_and_shape(g: Gen, rank: RangeInclusive<usize>) -> BoxedStrategy<(Layout, Vec<i64>)> {
    (arb_layout_with(g), rank)
        .prop_flat_map(|(l, r)| {
            let n = l.shard.len();
            (Just(l), prop::collection::vec(0..=n, r.saturating_sub(1)))
        })
        .prop_map(|(l, cuts)| {
            let s = shape_from_cuts(&l, &cuts);
            (l, s)
        })
        .boxed()
}

/// The prime factors of `n`, smallest first (none for `n` <= 1).
pub fn primes(mut n: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let mut p = 2;
    while n > 1 {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += 1;
    }
    out
}

/// Every factorization-respecting shape of rank `rank` for `size` is hard to enumerate; this
/// draws a random shape of that size by distributing its prime factors over `rank` dims.
pub fn arb_shape_of_size(size: i64, rank: usize) -> BoxedStrategy<Vec<i64>> {
    let primes = primes(size);
    let rank = rank.max(1);
    prop::collection::vec(0..rank, primes.len())
        .prop_map(move |slots| {
            let mut shape = vec![1i64; rank];
            for (pr, s) in primes.iter().zip(slots) {
                shape[s] *= pr;
            }
            shape
        })
        .boxed()
}

/// `default` proptest cases, or `PROPTEST_CASES` from the environment when set (for long
/// soak runs: `PROPTEST_CASES=20000 cargo test --release`).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Brute-force equality of induced maps: same size and the same set of points per flat index.
pub fn maps_equal(a: &Layout, b: &Layout) -> bool {
    a.size() == b.size() && a.table() == b.table()
}
