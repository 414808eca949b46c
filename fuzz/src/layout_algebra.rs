//! `layout-algebra`: random *valid* layouts through every public operation of `axe-layout`.
//!
//! Oracles: no panic (run in a profile with overflow checks, so a silent wrap is a panic too),
//! no call over [`crate::report::HANG_LIMIT`], and brute-force cross-checks against the
//! definitions in `eval.rs` wherever the layouts are small enough to enumerate
//! ([`ENUM_LIMIT`] points).

use std::collections::BTreeMap;

use axe_layout::cute::{self, CuteLayout, IntTuple};
use axe_layout::span::span_on;
use axe_layout::sum::direct_sum;
use axe_layout::swizzle::{Swizzle, SwizzledLayout};
use axe_layout::{equivalent, tile, tile_of, Axis, Layout, Point};

use crate::gen::{self, Rng};
use crate::report::{guarded, oracle, Report};
use crate::Budget;

/// Brute-force checks only run when the domain times the replica has at most this many points.
const ENUM_LIMIT: i64 = 4096;

pub fn run(report: &Report, seed: u64, budget: &Budget) {
    let mut i = 0u64;
    while budget.more(i) {
        let mut rng = Rng::for_execution(seed, i);
        let mut ex = Exec {
            report,
            inputs: String::new(),
        };
        match rng.below(8) {
            0 => ex.cute_ops(&mut rng),
            1 => ex.swizzle_ops(&mut rng),
            _ => ex.layout_ops(&mut rng),
        }
        report.executed();
        i += 1;
    }
}

/// One execution: the inputs generated so far (the reproducer) and the report.
struct Exec<'a> {
    report: &'a Report,
    inputs: String,
}

/// The induced map as a value (per flat index, the sorted point set), when small enough.
fn table(l: &Layout) -> Option<Vec<Vec<Point>>> {
    let points = l.size().checked_mul(l.replica_size())?;
    (points <= ENUM_LIMIT).then(|| l.table())
}

fn checked_size(l: &Layout) -> Option<i64> {
    l.shard.iter().try_fold(1i64, |a, it| a.checked_mul(it.extent))
}

impl Exec<'_> {
    /// Name an input layout in the reproducer (`let a = "…";`).
    fn input(&mut self, name: &str, value: &dyn std::fmt::Display, debug: &dyn std::fmt::Debug) {
        self.inputs
            .push_str(&format!("{name} = {:?}   // {debug:?}\n", value.to_string()));
    }

    /// Run one call under the harness; the reproducer is the inputs plus the call.
    fn call<T>(&self, call: &str, f: impl FnOnce() -> T) -> Option<T> {
        let name = call.split('(').next().unwrap_or(call);
        guarded(self.report, name, || format!("{}{call}", self.inputs), f)
    }

    fn fail(&self, check: &str, call: &str, evidence: String) {
        oracle(
            self.report,
            check.to_string(),
            evidence,
            format!("{}{call}", self.inputs),
        );
    }

    fn layout_ops(&mut self, rng: &mut Rng) {
        let small = !rng.one_in(3);
        let a = gen::valid_layout(rng, small);
        self.input("a", &a, &a);
        let size = checked_size(&a).unwrap_or(1);
        let ta = table(&a);

        // Printing round-trips for every valid layout.
        if let Some(p) = self.call("Layout::parse(&a.to_string())", || Layout::parse(&a.to_string())) {
            if p.as_ref() != Ok(&a) {
                self.fail(
                    "valid layout does not round-trip through text",
                    "Layout::parse(&a.to_string())",
                    format!("{p:?}"),
                );
            }
        }

        // canonicalize: same induced map, idempotent, still valid.
        if let Some(c) = self.call("a.canonicalize()", || a.canonicalize()) {
            let cl = c.layout;
            if cl.validate().is_err() {
                self.fail(
                    "canonical form is invalid",
                    "a.canonical().validate()",
                    format!("{cl:?}"),
                );
            }
            if let Some(cc) = self.call("a.canonical().canonical()", || cl.canonical()) {
                if cc != cl {
                    self.fail(
                        "canonicalize is not idempotent",
                        "a.canonical().canonical()",
                        format!("{cl} -> {cc}"),
                    );
                }
            }
            if let Some(ta) = &ta {
                if let Some(tc) = self.call("a.canonical().table()", || cl.table()) {
                    if &tc != ta {
                        self.fail(
                            "canonical form changes the induced map",
                            "a.canonical()",
                            format!("canonical {cl}"),
                        );
                    }
                }
            }
            if let Some(r) = self.call("equivalent(&a, &a.canonical())", || equivalent(&a, &cl)) {
                if matches!(r, Ok(e) if !e.equal) {
                    self.fail(
                        "a layout is not equivalent to its canonical form",
                        "equivalent(&a, &a.canonical())",
                        format!("{r:?}, canonical {cl}"),
                    );
                }
            }
        }

        // equivalent against a random or related second layout, cross-checked by enumeration.
        let b = match rng.below(3) {
            0 => gen::valid_layout(rng, small),
            1 => {
                let mut b = a.clone();
                if b.shard.len() > 1 {
                    let k = rng.below(b.shard.len() - 1);
                    b.shard.swap(k, k + 1);
                }
                b
            }
            _ => {
                let mut b = a.clone();
                b.replica.reverse();
                b
            }
        };
        self.input("b", &b, &b);
        if let Some(r) = self.call("equivalent(&a, &b)", || equivalent(&a, &b)) {
            if let (Ok(e), Some(ta), Some(tb)) = (&r, &ta, table(&b)) {
                if e.equal != (*ta == tb) {
                    self.fail(
                        "equivalent disagrees with enumeration",
                        "equivalent(&a, &b)",
                        format!("{r:?}, enumeration says {}", *ta == tb),
                    );
                }
            }
        }

        // Shapes: mostly admitted factorizations of the size, sometimes junk.
        let honest = !rng.one_in(5);
        let shape = gen::shape_of(rng, size, honest);
        self.inputs.push_str(&format!("shape = {shape:?}\n"));
        self.call("a.check_admits(&shape)", || a.check_admits(&shape));
        self.call("a.to_isl(&shape)", || a.to_isl(&shape));
        if let Some(Ok(g)) = self.call("a.group(&shape)", || a.group(&shape)) {
            if let (Some(ta), Some(tg)) = (&ta, table(&g.layout)) {
                if *ta != tg {
                    self.fail(
                        "group changes the induced map",
                        "a.group(&shape)",
                        format!("grouped {}", g.layout),
                    );
                }
            }
            for (k, r) in g.groups.iter().enumerate() {
                let p: i64 = g.layout.shard[r.clone()].iter().map(|it| it.extent).product();
                if Some(&p) != shape.get(k) {
                    self.fail(
                        "group block extents do not multiply to the shape",
                        "a.group(&shape)",
                        format!("{g:?}"),
                    );
                }
            }
        }

        self.slice_ops(rng, &a, &shape, &ta);
        self.binary_ops(rng, &a, &shape, small);
        self.eval_ops(rng, &a, &ta);

        if let Some(Ok(span)) = self.call("a.span()", || a.span()) {
            if let Some(ta) = &ta {
                for ax in a.axes() {
                    let vals = ta.iter().flatten().map(|p| p.get(&ax).copied().unwrap_or(0));
                    let (lo, hi) = vals.fold((i64::MAX, i64::MIN), |(l, h), v| (l.min(v), h.max(v)));
                    if ta.iter().flatten().next().is_some() && hi - lo + 1 != span_on(&span, &ax) {
                        self.fail(
                            "span differs from max - min + 1 of the image",
                            "a.span()",
                            format!("axis {ax}: span {span:?}, image [{lo}, {hi}]"),
                        );
                    }
                }
            }
        }

        // CuTe export/import round trip.
        if let Some(Ok(c)) = self.call("cute::export(&a)", || cute::export(&a)) {
            if let Some(Ok(back)) = self.call("cute::import(&cute::export(&a))", || cute::import(&c)) {
                if let (Some(ta), Some(tb)) = (&ta, table(&back)) {
                    if *ta != tb {
                        self.fail(
                            "cute export/import changes the induced map",
                            "cute::import(&cute::export(&a))",
                            format!("export {c}, import {back}"),
                        );
                    }
                }
            }
        }
    }

    /// slice and tiled_region under `shape`; slices are checked against `f(u + lo)`.
    fn slice_ops(&mut self, rng: &mut Rng, a: &Layout, shape: &[i64], ta: &Option<Vec<Vec<Point>>>) {
        let region: Vec<(i64, i64)> = shape
            .iter()
            .map(|&s| {
                if rng.one_in(8) {
                    (gen::int(rng), gen::int(rng))
                } else {
                    let lo = rng.range(0, s.saturating_sub(1).clamp(0, 64));
                    let hi = rng.range(lo + 1, s.min(lo + 65).max(lo + 1));
                    (lo, hi)
                }
            })
            .collect();
        self.inputs.push_str(&format!("region = {region:?}\n"));
        if let (Some(Ok(s)), Some(_)) = (self.call("a.slice(&shape, &region)", || a.slice(shape, &region)), ta) {
            let sub: Vec<i64> = region.iter().map(|&(l, h)| h - l).collect();
            let n: i64 = sub.iter().product();
            if s.size() != n {
                self.fail(
                    "slice has the wrong size",
                    "a.slice(&shape, &region)",
                    format!("slice {s}, region shape {sub:?}"),
                );
            } else if let Some(ts) = table(&s) {
                for (u, got) in ts.iter().enumerate() {
                    let coord: Vec<i64> = axe_layout::eval::unflatten(u as i64, &sub)
                        .iter()
                        .zip(&region)
                        .map(|(c, &(l, _))| c + l)
                        .collect();
                    let want = a.eval_set(&coord, shape);
                    if want.as_ref() != Ok(got) {
                        self.fail(
                            "slice differs from the sliced layout",
                            "a.slice(&shape, &region)",
                            format!("slice {s}: at {coord:?} got {got:?}, want {want:?}"),
                        );
                        break;
                    }
                }
            }
        }
        let sizes: Vec<i64> = shape
            .iter()
            .map(|&s| {
                if rng.one_in(8) {
                    gen::int(rng)
                } else {
                    gen::divisor(rng, s.max(1))
                }
            })
            .collect();
        self.inputs.push_str(&format!("sizes = {sizes:?}\n"));
        self.call("a.tiled_region(&shape, &sizes)", || a.tiled_region(shape, &sizes));
    }

    /// tile, tile_of and direct_sum with a second layout `b`.
    fn binary_ops(&mut self, rng: &mut Rng, a: &Layout, shape: &[i64], small: bool) {
        let small_b = small || rng.one_in(2);
        let b = gen::valid_layout(rng, small_b);
        self.input("t", &b, &b);
        let rank = shape.len();
        let bshape = {
            let bsize = checked_size(&b).unwrap_or(1);
            let mut s = gen::shape_of(rng, bsize, true);
            // Same rank as `shape` when possible: pad with 1s or fold the tail.
            while s.len() < rank {
                s.push(1);
            }
            while s.len() > rank.max(1) {
                let last = s.pop().unwrap();
                *s.last_mut().unwrap() *= last;
            }
            s
        };
        self.inputs.push_str(&format!("tshape = {bshape:?}\n"));
        if let Some(Ok(t)) = self.call("tile(&a, &shape, &t, &tshape)", || tile(a, shape, &b, &bshape)) {
            if checked_size(&t) != checked_size(a).and_then(|x| x.checked_mul(checked_size(&b)?)) {
                self.fail(
                    "tile has the wrong size",
                    "tile(&a, &shape, &t, &tshape)",
                    format!("{t}"),
                );
            }
            let tshape: Vec<i64> = shape.iter().zip(&bshape).map(|(x, y)| x.saturating_mul(*y)).collect();
            // A tile of `t` must be recognised as one, and the quotient must rebuild it.
            if let Some(Ok(c)) = self.call("tile_of(&tile(..), &full, &t, &tshape)", || {
                tile_of(&t, &tshape, &b, &bshape)
            }) {
                if let Some(Ok(re)) = self.call("tile(&tile_of(..), ..)", || tile(&c, shape, &b, &bshape)) {
                    if let (Some(x), Some(y)) = (table(&t), table(&re)) {
                        if x != y {
                            self.fail(
                                "tile_of does not invert tile",
                                "tile(&tile_of(&tile(&a,&shape,&t,&tshape), ..), &shape, &t, &tshape)",
                                format!("tile {t}, quotient {c}, rebuilt {re}"),
                            );
                        }
                    }
                }
            }
        }
        self.call("tile_of(&a, &shape, &t, &tshape)", || tile_of(a, shape, &b, &bshape));
        if let Some(Ok(s)) = self.call("direct_sum(&a, &shape, &t, &tshape)", || {
            direct_sum(a, shape, &b, &bshape)
        }) {
            if checked_size(&s) != checked_size(a).and_then(|x| x.checked_mul(checked_size(&b)?)) {
                self.fail(
                    "direct_sum has the wrong size",
                    "direct_sum(&a, &shape, &t, &tshape)",
                    format!("{s}"),
                );
            }
        }
    }

    /// eval_flat / eval_set_flat / preimage / backward on in-range, out-of-range and negative
    /// indices; every point of `L(x)` must have `x` in its preimage.
    fn eval_ops(&mut self, rng: &mut Rng, a: &Layout, ta: &Option<Vec<Vec<Point>>>) {
        if a.replica
            .iter()
            .try_fold(1i64, |p, it| p.checked_mul(it.extent))
            .is_none_or(|r| r > ENUM_LIMIT)
        {
            return; // eval_flat materializes every replica combination
        }
        let size = a.size();
        for _ in 0..4 {
            let x = match rng.below(4) {
                0 => gen::int(rng),
                1 => size,
                _ => rng.range(0, size - 1),
            };
            let call = format!("a.eval_flat({x})");
            let Some(r) = self.call(&call, || a.eval_flat(x)) else {
                continue;
            };
            match r {
                Ok(v) if x < 0 || x >= size => {
                    self.fail("eval_flat accepts an out-of-range index", &call, format!("{v:?}"))
                }
                Err(e) if (0..size).contains(&x) => {
                    self.fail("eval_flat rejects an in-range index", &call, e.to_string())
                }
                Ok(v) if v.len() as i64 != a.replica_size() => self.fail(
                    "eval_flat returns the wrong number of points",
                    &call,
                    format!("{} points", v.len()),
                ),
                _ => {}
            }
            let call = format!("a.eval_set_flat({x})");
            let Some(Ok(set)) = self.call(&call, || a.eval_set_flat(x)) else {
                continue;
            };
            if let (Some(ta), Some(p)) = (ta, set.first()) {
                if ta.get(x as usize) != Some(&set) {
                    self.fail("eval_set_flat disagrees with table", &call, format!("{set:?}"));
                }
                let call = format!("a.preimage(&{p:?})");
                if let Some(pre) = self.call(&call, || a.preimage(p)) {
                    if !pre.contains(&x) {
                        self.fail(
                            "preimage misses an index that maps to the point",
                            &call,
                            format!("preimage {pre:?}, x = {x}"),
                        );
                    }
                }
                self.call(&format!("a.backward(&{p:?})"), || a.backward(p));
            }
        }
        if ta.is_some() {
            let mut p: Point = BTreeMap::new();
            for ax in a.axes() {
                p.insert(ax, gen::int(rng));
            }
            p.insert(Axis::new(gen::axis(rng)), gen::int(rng));
            self.call(&format!("a.backward(&{p:?})"), || a.backward(&p));
        }
    }

    fn cute_ops(&mut self, rng: &mut Rng) {
        let a = cute_layout(rng);
        let b = cute_layout(rng);
        self.input("a", &a, &a);
        self.input("b", &b, &b);
        let Some(Ok(a)) = self.call("CuteLayout::new(a.shape, a.stride)", || {
            CuteLayout::new(a.shape.clone(), a.stride.clone())
        }) else {
            return;
        };
        let b_valid = self.call("CuteLayout::new(b.shape, b.stride)", || {
            CuteLayout::new(b.shape.clone(), b.stride.clone())
        });
        if let Some(Ok(p)) = self.call("CuteLayout::parse(&a.to_string())", || {
            CuteLayout::parse(&a.to_string())
        }) {
            if p != a {
                self.fail(
                    "CuTe layout does not round-trip through text",
                    "CuteLayout::parse(&a.to_string())",
                    format!("{p}"),
                );
            }
        }
        let small = a.size() <= ENUM_LIMIT;
        self.call("a.cosize()", || a.cosize());
        if let Some(c) = self.call("a.coalesce()", || a.coalesce()) {
            if small && c.size() != a.size() {
                self.fail("coalesce changes the size", "a.coalesce()", format!("{c}"));
            } else if small {
                for i in 0..a.size() {
                    if c.eval(i) != a.eval(i) {
                        self.fail(
                            "coalesce changes the map",
                            "a.coalesce()",
                            format!("{c}: at {i}: {:?} != {:?}", c.eval(i), a.eval(i)),
                        );
                        break;
                    }
                }
            }
        }
        for x in [gen::int(rng), rng.range(0, a.size().saturating_sub(1))] {
            self.call(&format!("a.eval({x})"), || a.eval(x));
        }
        let random = gen::int(rng);
        let cot = *rng.pick(&[i64::MAX, i64::MIN, 0, 1, a.size(), a.size().saturating_mul(4), random]);
        self.call(&format!("a.complement({cot})"), || a.complement(cot));
        if let Some(Ok(r)) = self.call("a.right_inverse()", || a.right_inverse()) {
            if r.size() <= ENUM_LIMIT {
                for i in 0..r.size() {
                    let back = r.eval(i).and_then(|j| a.eval(j));
                    if back != Ok(i) {
                        self.fail(
                            "right_inverse is not a right inverse",
                            "a.right_inverse()",
                            format!("R = {r}: a(R({i})) = {back:?}"),
                        );
                        break;
                    }
                }
            }
        }
        if let Some(Ok(l)) = self.call("a.left_inverse()", || a.left_inverse()) {
            if small {
                // The definition (cute.rs): L(L†(L(k))) = L(k) for every k < |L|.
                for i in 0..a.size() {
                    let back = a.eval(i).and_then(|j| l.eval(j)).and_then(|k| a.eval(k));
                    if back != a.eval(i) {
                        self.fail(
                            "left_inverse violates L(L'(L(k))) = L(k)",
                            "a.left_inverse()",
                            format!("L' = {l}: at k = {i}: {back:?} != {:?}", a.eval(i)),
                        );
                        break;
                    }
                }
            }
        }
        self.call("cute::import(&a)", || cute::import(&a));
        if let Some(Ok(b)) = b_valid {
            if let Some(Ok(c)) = self.call("a.compose(&b)", || a.compose(&b)) {
                if b.size() <= ENUM_LIMIT {
                    for i in 0..b.size() {
                        let want = b.eval(i).and_then(|j| a.eval(j));
                        if c.eval(i) != want {
                            self.fail(
                                "compose differs from a(b(i))",
                                "a.compose(&b)",
                                format!("{c}: at {i}: {:?} != {want:?}", c.eval(i)),
                            );
                            break;
                        }
                    }
                }
            }
            self.call("a.logical_divide(&b)", || a.logical_divide(&b));
            self.call("a.logical_product(&b)", || a.logical_product(&b));
        }
    }

    fn swizzle_ops(&mut self, rng: &mut Rng) {
        let bits = if rng.one_in(8) {
            rng.next_u64() as u32
        } else {
            rng.range(0, 8) as u32
        };
        let base = if rng.one_in(8) {
            rng.next_u64() as u32
        } else {
            rng.range(0, 64) as u32
        };
        let shift = if rng.one_in(8) {
            rng.next_u64() as i32
        } else {
            rng.range(-64, 64) as i32
        };
        let call = format!("Swizzle::new({bits}, {base}, {shift})");
        let Some(Ok(sw)) = self.call(&call, || Swizzle::new(bits, base, shift)) else {
            return;
        };
        self.inputs.push_str(&format!("sw = {call}\n"));
        for _ in 0..4 {
            let o = if rng.one_in(2) {
                gen::int(rng)
            } else {
                rng.next_u64() as i64
            };
            let call = format!("sw.invert(sw.apply({o}))");
            if let Some(back) = self.call(&call, || sw.invert(sw.apply(o))) {
                if back != o {
                    self.fail("Swizzle::invert does not invert apply", &call, format!("got {back}"));
                }
            }
            if sw.is_involution() && sw.apply(sw.apply(o)) != o {
                self.fail(
                    "is_involution but apply twice is not the identity",
                    &format!("sw.apply(sw.apply({o}))"),
                    String::new(),
                );
            }
        }
        if let Some(p) = self.call("Swizzle::parse(&sw.to_string())", || Swizzle::parse(&sw.to_string())) {
            if p != Ok(sw) {
                self.fail(
                    "Swizzle does not round-trip through text",
                    "Swizzle::parse(&sw.to_string())",
                    format!("{p:?}"),
                );
            }
        }
        let small = !rng.one_in(3);
        let l = gen::valid_layout(rng, small);
        self.input("a", &l, &l);
        let Some(Ok(s)) = self.call("SwizzledLayout::new(a, sw)", || SwizzledLayout::new(l.clone(), sw)) else {
            return;
        };
        if let Some(p) = self.call("SwizzledLayout::parse(&s.to_string())", || {
            SwizzledLayout::parse(&s.to_string())
        }) {
            if p.as_ref() != Ok(&s) {
                self.fail(
                    "SwizzledLayout does not round-trip through text",
                    "SwizzledLayout::parse(&s.to_string())",
                    format!("{p:?}"),
                );
            }
        }
        if table(&l).is_some() {
            self.call("s.table()", || s.table());
            for x in [gen::int(rng), rng.range(0, l.size() - 1)] {
                self.call(&format!("s.eval_set_flat({x})"), || s.eval_set_flat(x));
                self.call(&format!("s.offset_of({x})"), || s.offset_of(x));
            }
        }
    }
}

/// A random CuTe layout: flat or nested one level, shapes and strides small or at the edges
/// (strides may be zero or negative; shapes are sometimes non-positive, to test validation).
fn cute_layout(rng: &mut Rng) -> CuteLayout {
    let huge = rng.one_in(4);
    let leaf = |rng: &mut Rng| -> (IntTuple, IntTuple) {
        let s = if huge && rng.one_in(2) {
            gen::int(rng).max(1)
        } else {
            *rng.pick(&[1, 2, 3, 4, 8])
        };
        let d = if huge && rng.one_in(2) {
            gen::int(rng)
        } else {
            *rng.pick(&[0, 1, 2, 4, 8, 16, -1])
        };
        let s = if rng.one_in(40) { gen::int(rng) } else { s };
        (IntTuple::Int(s), IntTuple::Int(d))
    };
    let n = 1 + rng.below(3);
    let mut shape = Vec::new();
    let mut stride = Vec::new();
    for _ in 0..n {
        if rng.one_in(4) {
            let (s, d): (Vec<_>, Vec<_>) = (0..1 + rng.below(2)).map(|_| leaf(rng)).unzip();
            shape.push(IntTuple::Tuple(s));
            stride.push(IntTuple::Tuple(d));
        } else {
            let (s, d) = leaf(rng);
            shape.push(s);
            stride.push(d);
        }
    }
    if n == 1 && rng.one_in(2) {
        CuteLayout {
            shape: shape.pop().unwrap(),
            stride: stride.pop().unwrap(),
        }
    } else {
        CuteLayout {
            shape: IntTuple::Tuple(shape),
            stride: IntTuple::Tuple(stride),
        }
    }
}
