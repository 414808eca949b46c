//! Criterion benchmarks of the layout algebra on layouts of 2–12 iters
//! (`bench/layout/RESULTS.md` records the numbers).

use axe_layout::{tile, Layout};
use axe_layout_bench::{layout, shape2, shard_only, SIZES};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("canonicalize");
    for n in SIZES {
        let l = layout(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &l, |b, l| {
            b.iter(|| black_box(l).canonicalize())
        });
    }
    g.finish();

    let mut g = c.benchmark_group("group");
    for n in SIZES {
        let (l, s) = (layout(n), shape2(n));
        l.group(&s).expect("groups");
        g.bench_with_input(BenchmarkId::from_parameter(n), &(l, s), |b, (l, s)| {
            b.iter(|| black_box(l).group(s).unwrap())
        });
    }
    g.finish();

    // A of n/2 iters tiled by B of n - n/2 iters, both 2-D.
    let mut g = c.benchmark_group("tile");
    for n in SIZES {
        let (a, b_) = (shard_only(n / 2), layout(n - n / 2));
        let (sa, sb) = (shape2(n / 2), shape2(n - n / 2));
        tile(&a, &sa, &b_, &sb).expect("tiles");
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| tile(black_box(&a), &sa, black_box(&b_), &sb).unwrap())
        });
    }
    g.finish();

    // The first half of dim 0, all of dim 1 (a no-wrap slice; verified by enumeration inside
    // `slice` for these sizes, which is part of what is measured).
    let mut g = c.benchmark_group("slice");
    for n in SIZES {
        let (l, s) = (layout(n), shape2(n));
        let region = vec![(0, (s[0] / 2).max(1)), (0, s[1])];
        l.slice(&s, &region).expect("slices");
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| black_box(&l).slice(&s, &region).unwrap())
        });
    }
    g.finish();

    // Forward map of one logical index (all 6 replica points, deduplicated).
    let mut g = c.benchmark_group("eval");
    for n in SIZES {
        let l: Layout = layout(n);
        let x = l.size() / 2 + 1;
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| black_box(&l).eval_set_flat(black_box(x)).unwrap())
        });
    }
    g.finish();

    // Parsing the text form (what every tool invocation pays).
    let mut g = c.benchmark_group("parse");
    for n in SIZES {
        let text = layout(n).to_string();
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| Layout::parse(black_box(&text)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
