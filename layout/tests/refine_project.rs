//! Property tests of the operator-level layout math — the common refinement (`refine`) and the
//! projection a reduction or broadcast leaves (`project`) — against brute force: every answer
//! is checked point by point against the layouts' definition (`Layout::eval_set_flat`,
//! `Layout::shard_point`, Def. 2.3), never against the function's own output.

mod common;

use std::collections::BTreeMap;

use axe_layout::eval::{flatten, unflatten};
use axe_layout::refine::{combos, offset, replica_offsets, suffix_products};
use axe_layout::{project, refine, Axis, Factor, Iter, Layout, LayoutError, Operand, Point};
use common::{arb_layout_and_shape, cases, primes, Gen, AXES};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

fn l(s: &str) -> Layout {
    Layout::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Every point of the replica `R` (with zeros kept), by enumeration of its digits.
fn replica_points(l: &Layout) -> Vec<Point> {
    let mut pts = vec![Point::new()];
    for it in &l.replica {
        pts = pts
            .iter()
            .flat_map(|p| {
                (0..it.extent).map(move |j| {
                    let mut q = p.clone();
                    *q.entry(it.axis.clone()).or_insert(0) += j * it.stride;
                    q
                })
            })
            .collect();
    }
    pts
}

/// `{ base + r + O | r ∈ R }` as a sorted set without zero coordinates (the form of
/// `eval_set_flat`).
fn with_replica_and_offset(l: &Layout, base: &Point) -> Vec<Point> {
    let mut out: Vec<Point> = replica_points(l)
        .into_iter()
        .map(|r| {
            let mut p = base.clone();
            for (a, v) in r.iter().chain(&l.offset) {
                *p.entry(a.clone()).or_insert(0) += v;
            }
            p.retain(|_, v| *v != 0);
            p
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

// ---------------------------------------------------------------- refine: generators

/// How an operand follows one iteration-space dimension.
#[derive(Clone, Copy, Debug)]
enum Follow {
    /// The operand has the dimension with its full extent.
    Full,
    /// The operand has the dimension with extent 1 (a broadcast).
    One,
    /// The operand lacks the dimension.
    Absent,
}

/// One generated operand: the layout, its shape and its `dim_map`.
#[derive(Clone, Debug)]
struct GenOperand {
    layout: Layout,
    shape: Vec<i64>,
    dim_map: Vec<Option<usize>>,
}

#[derive(Clone, Debug)]
struct RefineCase {
    space: Vec<i64>,
    operands: Vec<GenOperand>,
}

impl RefineCase {
    fn operands(&self) -> Vec<Operand<'_>> {
        self.operands
            .iter()
            .map(|o| Operand {
                layout: &o.layout,
                shape: o.shape.clone(),
                dim_map: o.dim_map.clone(),
            })
            .collect()
    }
}

/// A deterministic little generator driven by a vector of random words (drawn by proptest),
/// so that the structure of a case can depend on earlier choices.
struct Words<'a>(&'a [u32], usize);

impl Words<'_> {
    fn next(&mut self, n: usize) -> usize {
        let w = self.0[self.1 % self.0.len()];
        self.1 += 1;
        (w as usize) % n.max(1)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.next(xs.len())]
    }
}

/// A shard of extents `digits` (most significant first): consecutive digits merged at random
/// (up to extent 8, or beyond where needed to stay within 4 iters), an extent-1 iter inserted now and then, and a random axis and
/// non-zero stride in ±8 per iter.
fn shard_from_digits(digits: &[i64], w: &mut Words) -> Vec<Iter> {
    let mut extents: Vec<i64> = Vec::new();
    for (k, &d) in digits.iter().enumerate() {
        let forced = digits.len() - k + extents.len() > 4;
        let small = extents.last().is_some_and(|e| e * d <= 8);
        match extents.last_mut() {
            Some(e) if forced || (small && w.next(2) == 0) => *e *= d,
            _ => extents.push(d),
        }
    }
    if extents.is_empty() || w.next(6) == 0 {
        let at = w.next(extents.len() + 1);
        extents.insert(at, 1);
    }
    extents
        .into_iter()
        .map(|e| {
            let s = 1 + w.next(8) as i64;
            let s = if w.next(4) == 0 { -s } else { s };
            Iter::new(e, s, w.pick(AXES))
        })
        .collect()
}

/// The prime factors of `n` in a random order: one random mixed-radix digit chain of `n`.
fn chain_of(n: i64, w: &mut Words) -> Vec<i64> {
    let mut ps = primes(n);
    for i in (1..ps.len()).rev() {
        ps.swap(i, w.next(i + 1));
    }
    ps
}

/// The extents of iteration-space dimensions: small, and composite often enough that digit
/// orders can disagree.
const EXTENTS: [i64; 12] = [1, 2, 3, 4, 6, 8, 12, 12, 16, 18, 24, 36];

/// A random refinement case from `words`: an iteration space of rank 1–3 (extents in
/// [`EXTENTS`]),
/// 1–3 operands following each dimension fully, as a broadcast (extent 1) or not at all, and
/// for each a layout of 1–4 (plus possibly one extent-1) iters with a random replica and
/// offset. With `aligned`, every operand's shard is cut from one random digit chain per
/// dimension (so a common refinement exists); otherwise each operand orders its dimensions'
/// prime factors on its own (and often admits none with the others).
fn refine_case(words: &[u32], aligned: bool) -> RefineCase {
    let mut w = Words(words, 0);
    let rank = 1 + w.next(3);
    let mut space: Vec<i64> = Vec::new();
    for _ in 0..rank {
        let e = w.pick(&EXTENTS);
        // Keep the space small enough to enumerate (at most 576 indices).
        space.push(if space.iter().product::<i64>() * e > 576 { 1 } else { e });
    }
    // One chain of digits per dimension: its prime factors in a random order.
    let chains: Vec<Vec<i64>> = space.iter().map(|&n| chain_of(n, &mut w)).collect();
    let n_ops = 1 + w.next(3);
    let mut operands = Vec::new();
    for _ in 0..n_ops {
        let mut shape = Vec::new();
        let mut dim_map = Vec::new();
        let mut digits = Vec::new();
        for (d, &n) in space.iter().enumerate() {
            let follow = match w.next(8) {
                0 => Follow::One,
                1 => Follow::Absent,
                _ => Follow::Full,
            };
            match follow {
                Follow::Full => {
                    dim_map.push(Some(shape.len()));
                    shape.push(n);
                    if aligned {
                        digits.extend(&chains[d]);
                    } else {
                        digits.extend(chain_of(n, &mut w));
                    }
                }
                Follow::One => {
                    dim_map.push(Some(shape.len()));
                    shape.push(1);
                }
                Follow::Absent => dim_map.push(None),
            }
        }
        let shard = shard_from_digits(&digits, &mut w);
        let replica: Vec<Iter> = (0..w.next(2))
            .map(|_| Iter::new(2 + w.next(2) as i64, 1 + w.next(8) as i64, w.pick(AXES)))
            .collect();
        let mut off = BTreeMap::new();
        if w.next(3) == 0 {
            off.insert(Axis::from(w.pick(AXES)), 1 + w.next(8) as i64);
        }
        let layout = Layout::new(shard, replica, off).expect("generated layouts are valid");
        operands.push(GenOperand { layout, shape, dim_map });
    }
    RefineCase { space, operands }
}

fn arb_refine_case() -> impl Strategy<Value = RefineCase> {
    (prop::collection::vec(any::<u32>(), 64), any::<bool>()).prop_map(|(w, aligned)| refine_case(&w, aligned))
}

// ---------------------------------------------------------------- refine: the oracle

/// Checks `factors` against the definition: enumerating the iteration space through the
/// factors' digits visits every index once, and at each index every operand's coordinates
/// `Σ d_k·stride_k + offset` (plus its replica) are exactly its layout's points at the
/// operand's own logical index.
fn check_factors(case: &RefineCase, factors: &[Factor]) -> Result<(), String> {
    let space = &case.space;
    let total: i64 = space.iter().product();
    let full_w = suffix_products(space);
    let extents: Vec<i64> = factors.iter().map(|f| f.extent).collect();
    if extents.iter().product::<i64>() != total {
        return Err(format!("factor extents {extents:?} do not multiply to {total}"));
    }
    let mut seen = vec![false; total as usize];
    for digits in combos(&extents, &vec![1; extents.len()]) {
        let x: i64 = factors.iter().zip(&digits).map(|(f, d)| d * f.weight).sum();
        if x < 0 || x >= total || std::mem::replace(&mut seen[x as usize], true) {
            return Err(format!("digits {digits:?} reach index {x} out of range or twice"));
        }
        let idx = unflatten(x, space);
        // Each factor moves the dimension it claims.
        for (d, &i) in idx.iter().enumerate() {
            let by_dim: i64 = factors
                .iter()
                .zip(&digits)
                .filter(|(f, _)| f.dim == d)
                .map(|(f, dg)| dg * f.weight / full_w[d])
                .sum();
            if by_dim != i {
                return Err(format!("dimension {d}: factors give {by_dim}, the index {i}"));
            }
        }
        for (o, op) in case.operands.iter().enumerate() {
            // The operand's own index, from the iteration-space index by its dim_map.
            let mut coord = vec![0i64; op.shape.len()];
            for (d, m) in op.dim_map.iter().enumerate() {
                if let Some(od) = *m {
                    if op.shape[od] == space[d] {
                        coord[od] = idx[d];
                    }
                }
            }
            let own = flatten(&coord, &op.shape).map_err(|e| e.to_string())?;
            let mut base = Point::new();
            let mut own_by_factors = 0;
            for (f, &dg) in factors.iter().zip(&digits) {
                let follows = op.dim_map[f.dim].is_some_and(|od| op.shape[od] > 1);
                match &f.places[o] {
                    Some(p) if follows => {
                        *base.entry(p.axis.clone()).or_insert(0) += dg * p.stride;
                        own_by_factors += dg * p.own_weight;
                    }
                    None if !follows => {}
                    p => return Err(format!("operand {o}, factor on dim {}: place {p:?}", f.dim)),
                }
            }
            if own_by_factors != own {
                return Err(format!(
                    "operand {o}: own weights give {own_by_factors}, the index {own}"
                ));
            }
            let got = with_replica_and_offset(&op.layout, &base);
            let want = op.layout.eval_set_flat(own).map_err(|e| e.to_string())?;
            if got != want {
                return Err(format!(
                    "operand {o} ({}) at {idx:?} (own index {own}): factors give {got:?}, the layout {want:?}",
                    op.layout
                ));
            }
        }
    }
    Ok(())
}

/// Whether the shard of `l` (of size `n`) is `Σ digit_k · v_k` on the mixed-radix chain
/// `radices` (least significant first), each `v_k` non-zero on exactly one axis: the
/// definition of "refines along this chain".
fn linear_on_chain(l: &Layout, radices: &[i64]) -> bool {
    let n = l.size();
    let mut weights = vec![1i64];
    for r in radices {
        weights.push(weights.last().unwrap() * r);
    }
    let vs: Vec<Point> = weights[..radices.len()]
        .iter()
        .map(|&w| {
            let mut p = l.shard_point(w);
            p.retain(|_, v| *v != 0);
            p
        })
        .collect();
    if vs.iter().any(|v| v.len() != 1) {
        return false;
    }
    (0..n).all(|x| {
        let mut want = Point::new();
        for (k, v) in vs.iter().enumerate() {
            let d = x / weights[k] % radices[k];
            for (a, s) in v {
                *want.entry(a.clone()).or_insert(0) += d * s;
            }
        }
        want.retain(|_, v| *v != 0);
        let mut got = l.shard_point(x);
        got.retain(|_, v| *v != 0);
        got == want
    })
}

/// Every distinct ordering of `ps` (a multiset).
fn orderings(ps: &[i64]) -> Vec<Vec<i64>> {
    if ps.is_empty() {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    let mut firsts = ps.to_vec();
    firsts.sort_unstable();
    firsts.dedup();
    for f in firsts {
        let mut rest = ps.to_vec();
        rest.remove(rest.iter().position(|&p| p == f).unwrap());
        for mut tail in orderings(&rest) {
            tail.insert(0, f);
            out.push(tail);
        }
    }
    out
}

/// Brute force over every maximal chain of a 1-D space of size `n` (the orderings of its
/// prime factors): whether one refines every layout. A chain that refines a layout keeps
/// refining it when cut finer, so looking at maximal chains is enough.
fn brute_common_refinement(n: i64, layouts: &[&Layout]) -> bool {
    orderings(&primes(n))
        .iter()
        .any(|chain| layouts.iter().all(|l| linear_on_chain(l, chain)))
}

// ---------------------------------------------------------------- refine: tests

#[test]
fn refine_golden_two_operands() {
    // A 4x8 space; the first operand spreads rows over warps and columns over lanes x regs,
    // the second is a row vector (its columns a broadcast).
    let a = l("(4, 4, 2) : (1@warp, 1@lane, 1@reg)");
    let b = l("(2, 2) : (1@warp, 2@warp) + [(4) : (1@lane)]");
    let case = RefineCase {
        space: vec![4, 8],
        operands: vec![
            GenOperand {
                layout: a.clone(),
                shape: vec![4, 8],
                dim_map: vec![Some(0), Some(1)],
            },
            GenOperand {
                layout: b.clone(),
                shape: vec![4, 1],
                dim_map: vec![Some(0), Some(1)],
            },
        ],
    };
    let f = refine(&case.space, &case.operands()).unwrap();
    check_factors(&case, &f).unwrap();
    let ext: Vec<(i64, usize, i64)> = f.iter().map(|f| (f.extent, f.dim, f.weight)).collect();
    assert_eq!(ext, vec![(2, 0, 16), (2, 0, 8), (4, 1, 2), (2, 1, 1)]);
    assert!(f[2].places[1].is_none() && f[3].places[1].is_none());
}

#[test]
fn refine_refuses_4x3_against_3x4() {
    for (a, b) in [
        ("(4, 3) : (1@lane, 1@reg)", "(3, 4) : (1@lane, 1@reg)"),
        ("(4, 3) : (1@warp, 1@lane)", "(3, 4) : (1@lane, 1@warp)"),
        ("(2, 6) : (1@warp, 1@lane)", "(3, 4) : (1@reg, 1@lane)"),
    ] {
        let (a, b) = (l(a), l(b));
        let ops = [
            Operand {
                layout: &a,
                shape: vec![12],
                dim_map: vec![Some(0)],
            },
            Operand {
                layout: &b,
                shape: vec![12],
                dim_map: vec![Some(0)],
            },
        ];
        let e = refine(&[12], &ops).unwrap_err();
        assert!(
            matches!(&e, LayoutError::Unsupported(m) if m.contains("admit no common mixed-radix refinement")),
            "{a} / {b}: {e}"
        );
        assert!(
            !brute_common_refinement(12, &[&a, &b]),
            "{a} / {b}: brute force finds one"
        );
    }
}

#[test]
fn refine_error_cases() {
    let a = l("(4, 3) : (1@lane, 1@reg)");
    let op = |shape: Vec<i64>, dim_map: Vec<Option<usize>>| Operand {
        layout: &a,
        shape,
        dim_map,
    };
    let msg = |r: Result<Vec<Factor>, LayoutError>| match r {
        Err(LayoutError::Unsupported(m)) => m,
        r => panic!("expected a refusal, got {r:?}"),
    };
    // Size mismatch.
    assert!(msg(refine(&[10], &[op(vec![10], vec![Some(0)])])).contains("has 12 elements, but its tensor has 10"));
    // The shard does not split along the shape: (4, 3) by (6, 2) cuts the 3 at 2.
    assert!(msg(refine(&[6, 2], &[op(vec![6, 2], vec![Some(0), Some(1)])])).contains("does not split along"));
    // An operand's dimension of another extent than the space's.
    assert!(msg(refine(&[3, 4], &[op(vec![4, 3], vec![Some(0), Some(1)])])).contains("dimension 0 has extent 3"));
    // The refusal is the layout's own error type, and the old message is kept.
    let (b, c) = (l("(4, 3) : (1@lane, 1@reg)"), l("(3, 4) : (1@lane, 1@reg)"));
    let ops = [
        Operand {
            layout: &b,
            shape: vec![12],
            dim_map: vec![Some(0)],
        },
        Operand {
            layout: &c,
            shape: vec![12],
            dim_map: vec![Some(0)],
        },
    ];
    assert_eq!(
        refine(&[12], &ops).unwrap_err().to_string(),
        "layouts (4, 3) : (1@lane, 1@reg) and (3, 4) : (1@lane, 1@reg) admit no common mixed-radix refinement along dimension 0"
    );
}

#[test]
fn refine_cuts_the_shard_as_written() {
    // `(4, 3) : (3, 1)` is `(12) : (1)`: its canonical form refines with `(3, 4) : (4, 1)`,
    // the shard as written does not (refine does not merge iters first).
    let (a, b) = (l("(4, 3) : (3, 1)"), l("(3, 4) : (4, 1)"));
    let run = |a: &Layout, b: &Layout| {
        refine(
            &[12],
            &[
                Operand {
                    layout: a,
                    shape: vec![12],
                    dim_map: vec![Some(0)],
                },
                Operand {
                    layout: b,
                    shape: vec![12],
                    dim_map: vec![Some(0)],
                },
            ],
        )
    };
    assert!(run(&a, &b).is_err());
    assert!(brute_common_refinement(12, &[&a, &b]));
    assert!(run(&a.canonical(), &b.canonical()).is_ok());
}

/// The sweep behind the refine properties: `n` deterministic random cases; returns
/// (successes, refusals).
fn refine_sweep(n: usize) -> (usize, usize) {
    let mut runner = TestRunner::deterministic();
    let strat = arb_refine_case();
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..n {
        let case = strat.new_tree(&mut runner).unwrap().current();
        match refine(&case.space, &case.operands()) {
            Ok(f) => {
                ok += 1;
                check_factors(&case, &f).unwrap_or_else(|e| panic!("{case:?}: {e}"));
            }
            Err(LayoutError::Unsupported(_)) => refused += 1,
            Err(e) => panic!("{case:?}: unexpected error {e:?}"),
        }
    }
    (ok, refused)
}

/// Whenever `refine` answers, enumerating the space through its factors gives every operand
/// exactly its layout's points; the sweep exercises both answers and refusals.
#[test]
fn refine_agrees_with_the_definition() {
    let (ok, refused) = refine_sweep(cases(3000) as usize);
    eprintln!("refine sweep: ok {ok}, refused {refused}");
    assert!(ok > 1500 && refused > 150, "ok {ok}, refused {refused}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(500)))]

    /// Aligned cases (every operand cut from one digit chain) always refine, and agree with
    /// the definition.
    #[test]
    fn prop_aligned_cases_refine(words in prop::collection::vec(any::<u32>(), 64)) {
        let case = refine_case(&words, true);
        let f = refine(&case.space, &case.operands());
        prop_assert!(f.is_ok(), "{:?}: {:?}", case, f);
        let r = check_factors(&case, &f.unwrap());
        prop_assert!(r.is_ok(), "{:?}: {:?}", case, r);
    }

    /// 1-D spaces with canonical shards (no mergeable neighbours): `refine` answers exactly
    /// when brute force over every maximal digit chain finds one that refines all layouts.
    /// (On shards as written it may refuse more: see `refine_cuts_the_shard_as_written`.)
    #[test]
    fn prop_refine_is_complete_on_canonical_shards(words in prop::collection::vec(any::<u32>(), 64)) {
        // A 1-D space of composite size, 2–3 operands whose shards order its prime factors
        // each their own way (canonicalized: no mergeable neighbours).
        let mut w = Words(&words, 0);
        let n = w.pick(&[4i64, 6, 8, 12, 12, 16, 18, 24, 36]);
        let layouts: Vec<Layout> = (0..2 + w.next(2))
            .map(|_| {
                let digits = chain_of(n, &mut w);
                let shard = shard_from_digits(&digits, &mut w);
                Layout::from_shard(shard).unwrap().canonical()
            })
            .collect();
        let ops: Vec<Operand> = layouts
            .iter()
            .map(|l| Operand { layout: l, shape: vec![n], dim_map: vec![Some(0)] })
            .collect();
        let refs: Vec<&Layout> = layouts.iter().collect();
        let got = refine(&[n], &ops);
        let brute = brute_common_refinement(n, &refs);
        prop_assert_eq!(got.is_ok(), brute, "{:?}: {:?}", refs, got);
    }
}

#[test]
fn refine_helpers_against_enumeration() {
    // combos: every digit combination, first digit slowest, with steps.
    assert_eq!(
        combos(&[2, 3], &[1, 2]),
        vec![vec![0, 0], vec![0, 2], vec![1, 0], vec![1, 2]]
    );
    assert_eq!(combos(&[], &[]), vec![Vec::<i64>::new()]);
    // replica_offsets / offset against the replica's points.
    for text in [
        "(2) : (1@reg) + [(2, 3) : (4@reg, 1@lane)] + 3@reg",
        "(4) : (1) + [(2, 2) : (1, 1)]",
        "(2) : (1@warp)",
    ] {
        let lay = l(text);
        for axis in ["m", "reg", "lane"] {
            let mut got = replica_offsets(&lay, axis);
            let mut want: Vec<i64> = replica_points(&lay)
                .iter()
                .map(|p| p.get(&Axis::from(axis)).copied().unwrap_or(0))
                .collect();
            // Only the iters on `axis` count: the others' combinations collapse.
            let per_combo = lay
                .replica
                .iter()
                .filter(|i| i.axis.name() != axis)
                .map(|i| i.extent)
                .product::<i64>() as usize;
            got.sort();
            want.sort();
            assert_eq!(got.len() * per_combo, replica_points(&lay).len(), "{text} {axis}");
            let mut got_rep: Vec<i64> = got.iter().flat_map(|&g| std::iter::repeat_n(g, per_combo)).collect();
            got_rep.sort();
            assert_eq!(got_rep, want, "{text} {axis}");
        }
        let p0 = lay.eval_flat(0).unwrap()[0].clone();
        let s0 = lay.shard_point(0);
        for axis in ["m", "reg", "lane", "warp"] {
            let a = Axis::from(axis);
            let want = p0.get(&a).copied().unwrap_or(0) - s0.get(&a).copied().unwrap_or(0);
            // The first replica combination is all zeros: the first point is D(0) + O.
            assert_eq!(offset(&lay, axis), want, "{text} {axis}");
        }
    }
}

// ---------------------------------------------------------------- project

const THREADS: &[&str] = &["lane", "warp", "cta", "cluster", "gpuid"];

/// The projection by its definition: for a kept index `y`, the points
/// `nonthread(D(y, 0)) + thread(D(y, z)) + r + O` for every value `z` of the reduced dims and
/// every replica point `r` (the reduced dims' thread iters become replicas, their other iters
/// vanish), evaluated on the original shard (`Layout::shard_point`).
fn brute_project(l: &Layout, shape: &[i64], reduced: &[usize], threads: &[&str], y: &[i64]) -> Vec<Point> {
    let is_thread = |a: &Axis| threads.contains(&a.name());
    let rshape: Vec<i64> = (0..shape.len())
        .map(|d| if reduced.contains(&d) { shape[d] } else { 1 })
        .collect();
    let rsize: i64 = rshape.iter().product();
    let at = |z: &[i64]| -> Point {
        let x: Vec<i64> = (0..shape.len())
            .map(|d| if reduced.contains(&d) { z[d] } else { y[d] })
            .collect();
        l.shard_point(flatten(&x, shape).unwrap())
    };
    let base0 = at(&vec![0; shape.len()]);
    let mut out = Vec::new();
    for zf in 0..rsize {
        let z = unflatten(zf, &rshape);
        let mut p: Point = base0
            .iter()
            .filter(|(a, _)| !is_thread(a))
            .map(|(a, v)| (a.clone(), *v))
            .collect();
        for (a, v) in at(&z).into_iter().filter(|(a, _)| is_thread(a)) {
            *p.entry(a).or_insert(0) += v;
        }
        out.extend(with_replica_and_offset(l, &p));
    }
    out.sort();
    out.dedup();
    out
}

fn check_project(l: &Layout, shape: &[i64], reduced: &[usize], threads: &[&str], p: &Layout) -> Result<(), String> {
    let kept: Vec<i64> = (0..shape.len())
        .map(|d| if reduced.contains(&d) { 1 } else { shape[d] })
        .collect();
    p.check_admits(&kept)
        .map_err(|e| format!("{p} does not admit {kept:?}: {e}"))?;
    let without: Vec<i64> = (0..shape.len())
        .filter(|d| !reduced.contains(d))
        .map(|d| shape[d])
        .collect();
    p.check_admits(&without)
        .map_err(|e| format!("{p} does not admit {without:?}: {e}"))?;
    for yf in 0..p.size() {
        let y = unflatten(yf, &kept);
        let want = brute_project(l, shape, reduced, threads, &y);
        let got = p.eval_set_flat(yf).map_err(|e| e.to_string())?;
        if got != want {
            return Err(format!(
                "{l} by {shape:?} reducing {reduced:?} -> {p}: at {y:?} got {got:?}, want {want:?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn project_golden() {
    let lay = l("(4, 8, 4) : (1@warp, 1@lane, 1@reg) + 2@reg");
    let p = project(&lay, &[32, 4], &[1], THREADS).unwrap();
    assert_eq!(p.to_string(), "(4, 8) : (1@warp, 1@lane) + 2@reg");
    check_project(&lay, &[32, 4], &[1], THREADS, &p).unwrap();
    let q = project(&lay, &[32, 4], &[0], THREADS).unwrap();
    assert_eq!(q.to_string(), "(4) : (1@reg) + [(8, 4) : (1@lane, 1@warp)] + 2@reg");
    check_project(&lay, &[32, 4], &[0], THREADS, &q).unwrap();
    // Reducing everything: one element, held by every thread.
    let r = project(&lay, &[32, 4], &[0, 1], THREADS).unwrap();
    check_project(&lay, &[32, 4], &[0, 1], THREADS, &r).unwrap();
    assert_eq!(r.size(), 1);
    // The thread axes are the caller's: with none, reduced iters all vanish.
    let s = project(&lay, &[32, 4], &[0], &[]).unwrap();
    assert_eq!(s.to_string(), "(4) : (1@reg) + 2@reg");
    check_project(&lay, &[32, 4], &[0], &[], &s).unwrap();
}

#[test]
fn project_error_cases() {
    let lay = l("(4, 3) : (1@lane, 1@reg)");
    // A shape that is not admitted.
    assert!(matches!(
        project(&lay, &[5, 2], &[0], THREADS),
        Err(LayoutError::ShapeNotAdmitted { .. })
    ));
    assert!(matches!(
        project(&lay, &[0, 12], &[0], THREADS),
        Err(LayoutError::ShapeNotAdmitted { .. })
    ));
    // A shard that does not group by the shape: (4, 3) by (3, 4).
    assert!(matches!(
        project(&lay, &[3, 4], &[0], THREADS),
        Err(LayoutError::Unsupported(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// For random layouts, admitted shapes, reduced dims and thread axes, the projection
    /// evaluated at every kept index equals the brute-force projection of the original.
    #[test]
    fn prop_project_matches_definition(
        (lay, shape) in arb_layout_and_shape(Gen::default().shard(1..=4), 1..=3),
        mask in prop::collection::vec(any::<bool>(), 3),
        threads in prop::sample::subsequence(vec!["lane", "warp", "reg"], 0..=3),
    ) {
        let reduced: Vec<usize> = (0..shape.len()).filter(|&d| mask[d]).collect();
        let p = project(&lay, &shape, &reduced, &threads);
        prop_assert!(p.is_ok(), "{} by {:?}: {:?}", lay, shape, p);
        let r = check_project(&lay, &shape, &reduced, &threads, &p.unwrap());
        prop_assert!(r.is_ok(), "{:?}", r);
    }

    /// On shapes that may not group, `project` either answers correctly or refuses with
    /// `Unsupported` exactly when the shard does not group by the shape.
    #[test]
    fn prop_project_refuses_only_ungroupable(
        (lay, shape) in (common::arb_layout_with(Gen::default().shard(1..=4)), 1usize..=3)
            .prop_flat_map(|(l, r)| { let s = common::arb_shape_of_size(l.size(), r); (Just(l), s) }),
        mask in prop::collection::vec(any::<bool>(), 3),
    ) {
        let reduced: Vec<usize> = (0..shape.len()).filter(|&d| mask[d]).collect();
        match project(&lay, &shape, &reduced, THREADS) {
            Ok(p) => {
                let r = check_project(&lay, &shape, &reduced, THREADS, &p);
                prop_assert!(r.is_ok(), "{:?}", r);
            }
            Err(LayoutError::Unsupported(_)) => prop_assert!(lay.group(&shape).is_err()),
            Err(e) => prop_assert!(false, "{} by {:?}: unexpected {:?}", lay, shape, e),
        }
    }
}
