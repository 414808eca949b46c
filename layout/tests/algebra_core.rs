//! Golden and property tests for span, canonicalize, equivalence, group, tile, tile-of and the
//! ISL export. Every property is checked against brute-force enumeration of the induced map
//! (`Layout::table`); every worked example of the Axe paper on these operations and every
//! counterexample to an erratum of the paper that concerns them has a golden test.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use axe_layout::eval::{flatten, unflatten};
use axe_layout::tile::tiled_shape;
use axe_layout::{equivalent, tile, tile_of, Axis, EquivMethod, Iter, Layout, LayoutError, Point};
use common::{arb_layout, arb_layout_and_shape, arb_layout_with, arb_shape_of_size, maps_equal, Gen};
use proptest::prelude::*;

fn l(s: &str) -> Layout {
    Layout::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn spans(pairs: &[(&str, i64)]) -> BTreeMap<Axis, i64> {
    pairs.iter().map(|&(a, v)| (Axis::from(a), v)).collect()
}

fn is_unsupported<T: std::fmt::Debug>(r: &Result<T, LayoutError>) -> bool {
    matches!(r, Err(LayoutError::Unsupported(_)))
}

/// Brute-force span: `max − min + 1` per axis over every point of the image (absent = 0).
fn brute_span(l: &Layout) -> BTreeMap<Axis, i64> {
    let axes = l.axes();
    let mut lo: BTreeMap<Axis, i64> = BTreeMap::new();
    let mut hi: BTreeMap<Axis, i64> = BTreeMap::new();
    for pts in l.table() {
        for p in pts {
            for a in &axes {
                let v = p.get(a).copied().unwrap_or(0);
                let e = lo.entry(a.clone()).or_insert(v);
                *e = (*e).min(v);
                let e = hi.entry(a.clone()).or_insert(v);
                *e = (*e).max(v);
            }
        }
    }
    axes.into_iter().map(|a| (a.clone(), hi[&a] - lo[&a] + 1)).collect()
}

/// Check the Kronecker formula pointwise: `f_T(x‖y) = f_A(x) ⊙ span(B) + f_B(y)` as sets.
fn check_tile_formula(a: &Layout, sa: &[i64], b: &Layout, sb: &[i64], t: &Layout) {
    let st = tiled_shape(sa, sb).unwrap();
    assert_eq!(t.size(), a.size() * b.size());
    let sigma = b.span().unwrap();
    let ta = a.table();
    let tb = b.table();
    let tt = t.table();
    for (u_flat, got) in tt.iter().enumerate() {
        let u = unflatten(u_flat as i64, &st);
        let x: Vec<i64> = u.iter().zip(sb).map(|(&u, &s)| u / s).collect();
        let y: Vec<i64> = u.iter().zip(sb).map(|(&u, &s)| u % s).collect();
        let fa = &ta[flatten(&x, sa).unwrap() as usize];
        let fb = &tb[flatten(&y, sb).unwrap() as usize];
        let mut want: BTreeSet<Point> = BTreeSet::new();
        for p in fa {
            for q in fb {
                let mut r: Point = q.clone();
                for (ax, v) in p {
                    *r.entry(ax.clone()).or_insert(0) += v * sigma.get(ax).copied().unwrap_or(1);
                }
                r.retain(|_, v| *v != 0);
                want.insert(r);
            }
        }
        let got: BTreeSet<Point> = got.iter().cloned().collect();
        assert_eq!(got, want, "T = {t} at logical {u:?}; A = {a} {sa:?}, B = {b} {sb:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// span (Lemma C.1)

#[test]
fn span_golden_paper_examples() {
    // §3.3: the inner tile of the tiling example spans 64 addresses.
    assert_eq!(l("(8, 8) : (8, 1)").span().unwrap(), spans(&[("m", 64)]));
    // §2.2 tensor-core tile: lanes 0..32, warps {0,1} + {0,4}, two registers.
    let tc = l("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp");
    assert_eq!(tc.span().unwrap(), spans(&[("lane", 32), ("reg", 2), ("warp", 6)]));
    // §2.2 TMEM example: 224 columns (errata: not 256 + 256).
    let tmem = l("(2, 128, 112) : (112@Col, 1@Lane, 1@Col)");
    assert_eq!(tmem.span().unwrap(), spans(&[("Col", 224), ("Lane", 128)]));
    // Negative strides count by magnitude; an offset-only axis has span 1.
    assert_eq!(
        l("(4) : (-3) + [(2) : (-5@warp)] + 7@reg").span().unwrap(),
        spans(&[("m", 10), ("reg", 1), ("warp", 6)])
    );
}

#[test]
fn span_overflow_is_an_error() {
    let big = Layout {
        shard: vec![Iter::mem(3, i64::MAX / 2), Iter::mem(3, i64::MAX / 2)],
        ..Default::default()
    };
    assert_eq!(big.span(), Err(LayoutError::Overflow));
}

// ---------------------------------------------------------------------------------------------
// canonicalize (Appendix A)

#[test]
fn canon_golden_d_rules() {
    // D0 drops unit iters, D1 merges chains across them.
    assert_eq!(
        l("(2, 1, 3, 4) : (12, 7@warp, 4, 1)").canonical().to_string(),
        "(24) : (1)"
    );
    // Paper §2.2 layouts are already canonical.
    for s in [
        "(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp",
        "(2, 32, 2, 64) : (1@gpuid, 128, 2@gpuid, 1)",
        "(2, 128, 512) : (512@F, 1@P, 1@F)",
    ] {
        let c = l(s).canonicalize();
        assert_eq!(c.layout.to_string(), s);
        assert!(c.gap_condition);
    }
    // §2.2 "shard with replication": the row blocks (32) : (128) and (128) : (1) are one
    // contiguous run of 4096 addresses.
    assert_eq!(
        l("(2, 32, 128) : (1@gpuid, 128, 1) + [(2) : (2@gpuid)]")
            .canonical()
            .to_string(),
        "(2, 4096) : (1@gpuid, 1) + [(2) : (2@gpuid)]"
    );
    // One element: the shard canonicalizes to empty.
    assert_eq!(l("(1, 1) : (3, 4@lane) + 2").canonical().to_string(), "() : () + 2");
    // Negative shard strides merge like positive ones.
    assert_eq!(l("(2, 4) : (-4, -1)").canonical().to_string(), "(8) : (-1)");
}

#[test]
fn canon_golden_replica_rules() {
    // C0 + C1: unit replica dropped, negative stride made positive with the offset moved.
    assert_eq!(
        l("(2) : (1) + [(1, 4) : (9, -2@warp)]").canonical().to_string(),
        "(2) : (1) + [(4) : (2@warp)] + -6@warp"
    );
    // C2 with equal strides.
    assert_eq!(
        l("(2) : (1) + [(2, 3) : (1@warp, 1@warp)]").canonical().to_string(),
        "(2) : (1) + [(4) : (1@warp)]"
    );
}

#[test]
fn canon_errata_c2_uses_q_le_extent() {
    // q = 2 = E_i: the typeset `q < e_i` would not merge and leave a GC-violating list.
    let c = l("(2) : (1) + [(2, 2) : (1, 2)]").canonicalize();
    assert_eq!(c.layout.to_string(), "(2) : (1) + [(4) : (1)]");
    assert!(c.gap_condition);
    let e = equivalent(&l("(2) : (1) + [(2, 2) : (1, 2)]"), &l("(2) : (1) + [(4) : (1)]")).unwrap();
    assert_eq!(
        e,
        axe_layout::Equivalence {
            equal: true,
            method: EquivMethod::CanonicalForm
        }
    );
}

#[test]
fn canon_errata_replica_not_confluent_without_gc() {
    // [(3, 2, 2) : (2, 3, 6)] reduces to [(6, 2) : (2, 3)] or [(3, 4) : (2, 3)]: we pick one
    // deterministically, report that GC fails, and equivalence falls back to enumeration.
    let x = l("(1) : (1) + [(3, 2, 2) : (2, 3, 6)]");
    let y = l("(1) : (1) + [(3, 4) : (2, 3)]");
    let z = l("(1) : (1) + [(6, 2) : (2, 3)]");
    let cx = x.canonicalize();
    assert_eq!(cx.layout.to_string(), "() : () + [(6, 2) : (2, 3)]");
    assert!(!cx.gap_condition);
    assert!(maps_equal(&x, &y) && maps_equal(&x, &z));
    assert_ne!(y.canonical(), z.canonical());
    for (p, q) in [(&x, &y), (&y, &z), (&x, &z)] {
        let e = equivalent(p, q).unwrap();
        assert!(e.equal);
        assert_eq!(e.method, EquivMethod::Enumeration);
    }
    // A different replica set is told apart.
    assert!(!equivalent(&x, &l("(1) : (1) + [(3, 4) : (2, 4)]")).unwrap().equal);
}

#[test]
fn canon_errata_aliasing_replica_point_count() {
    // Def. 2.3's |f_L(x)| = E_R fails when replica points alias: [(2, 2) : (1, 1)] gives 3
    // points. The canonical replica [(3) : (1)] has E_R = 3 = the true count.
    let x = l("(1) : (1) + [(2, 2) : (1, 1)]");
    assert_eq!(x.eval_set_flat(0).unwrap().len(), 3);
    let c = x.canonicalize();
    assert_eq!(c.layout.to_string(), "() : () + [(3) : (1)]");
    assert_eq!(c.layout.replica_size(), 3);
    assert!(c.gap_condition);
}

/// Theorems A.8 and A.14 checked exhaustively on a small space: layouts with the same map
/// and gap-condition canonical forms have identical canonical forms.
#[test]
fn canon_unique_exhaustive_small_space() {
    let mut shard_opts = vec![];
    for axis in ["m", "lane"] {
        for e in [2, 3, 4] {
            for s in [-3, -2, -1, 1, 2, 3] {
                shard_opts.push(Iter::new(e, s, axis));
            }
        }
    }
    let mut shards: Vec<Vec<Iter>> = shard_opts.iter().map(|i| vec![i.clone()]).collect();
    for x in &shard_opts {
        for y in &shard_opts {
            shards.push(vec![x.clone(), y.clone()]);
        }
    }
    let mut reps: Vec<Vec<Iter>> = vec![vec![]];
    for e in [2, 3] {
        for s in [-3, -2, -1, 1, 2, 3] {
            reps.push(vec![Iter::mem(e, s)]);
        }
    }
    reps.push(vec![Iter::mem(2, 1), Iter::mem(2, 3)]);
    reps.push(vec![Iter::mem(3, 2), Iter::mem(2, 3)]);
    let mut buckets: HashMap<Vec<Vec<Point>>, Vec<(Layout, bool)>> = HashMap::new();
    for d in &shards {
        for r in &reps {
            let lay = Layout::new(d.clone(), r.clone(), BTreeMap::new()).unwrap();
            let c = lay.canonicalize();
            assert!(maps_equal(&lay, &c.layout), "{lay} vs {}", c.layout);
            buckets
                .entry(lay.table())
                .or_default()
                .push((c.layout, c.gap_condition));
        }
    }
    let mut merged = 0;
    for members in buckets.values() {
        let gc: BTreeSet<String> = members.iter().filter(|m| m.1).map(|m| m.0.to_string()).collect();
        assert!(gc.len() <= 1, "same map, different GC canonical forms: {gc:?}");
        if let Some(form) = gc.first() {
            // Theorem A.14 as stated: every saturated form of a GC-representable map is that one.
            let all: BTreeSet<String> = members.iter().map(|m| m.0.to_string()).collect();
            assert_eq!(all.len(), 1, "GC form {form} but also {all:?}");
        }
        if members.len() > 1 {
            merged += 1;
        }
    }
    assert!(
        merged > 100,
        "the space should contain many equivalent layouts, found {merged}"
    );
}

/// Theorem A.12/A.14 on the replica alone, exhaustively: multisets of up to three replica
/// iters on one axis, bucketed by their point set. Where one saturated form has GC, every
/// form of that set canonicalizes to it; different sets never share a canonical form.
#[test]
fn canon_replica_unique_exhaustive() {
    let mut opts = vec![];
    for e in [2, 3, 4] {
        for s in [-6, -4, -3, -2, -1, 1, 2, 3, 4, 6] {
            opts.push(Iter::mem(e, s));
        }
    }
    let n = opts.len();
    let mut buckets: HashMap<Vec<Vec<Point>>, Vec<(Layout, bool)>> = HashMap::new();
    for i in 0..n {
        for j in i..=n {
            for k in j..=n {
                let mut r = vec![opts[i].clone()];
                r.extend(opts.get(j).cloned());
                r.extend(opts.get(k).cloned());
                let lay = Layout::new(vec![], r, BTreeMap::new()).unwrap();
                let c = lay.canonicalize();
                assert!(maps_equal(&lay, &c.layout), "{lay} vs {}", c.layout);
                buckets
                    .entry(lay.table())
                    .or_default()
                    .push((c.layout, c.gap_condition));
            }
        }
    }
    let mut forms: HashMap<String, usize> = HashMap::new();
    for members in buckets.values() {
        let all: BTreeSet<String> = members.iter().map(|m| m.0.to_string()).collect();
        if members.iter().any(|m| m.1) {
            assert_eq!(all.len(), 1, "a GC form exists but saturation also gives {all:?}");
        }
        for f in all {
            *forms.entry(f).or_default() += 1;
        }
    }
    assert!(
        forms.values().all(|&c| c == 1),
        "one canonical form for two different sets"
    );
}

/// Map-preserving rewrites used to produce equivalent layouts: split a shard or replica iter
/// (Lemma B.1), insert unit iters, flip a replica sign into the offset, split a replica iter
/// into two overlapping runs of the same stride, rotate the replica list.
fn perturb(lay: &Layout, ops: &[(u8, usize, usize)]) -> Layout {
    let mut x = lay.clone();
    for &(op, k, v) in ops {
        match op % 6 {
            0 | 2 => {
                let list = if op % 6 == 0 { &mut x.shard } else { &mut x.replica };
                if list.is_empty() {
                    continue;
                }
                let k = k % list.len();
                let it = list[k].clone();
                let fs: Vec<i64> = (2..it.extent).filter(|f| it.extent % f == 0).collect();
                if fs.is_empty() {
                    continue;
                }
                let f = fs[v % fs.len()];
                list[k] = Iter::new(f, it.stride * (it.extent / f), it.axis.name());
                list.insert(k + 1, Iter::new(it.extent / f, it.stride, it.axis.name()));
            }
            1 => {
                let pos = k % (x.shard.len() + 1);
                x.shard.insert(
                    pos,
                    Iter::new(1, (v % 7) as i64 + 1, common::AXES[v % common::AXES.len()]),
                );
            }
            3 => {
                if x.replica.is_empty() {
                    continue;
                }
                let k = k % x.replica.len();
                let it = x.replica[k].clone();
                *x.offset.entry(it.axis.clone()).or_insert(0) += (it.extent - 1) * it.stride;
                x.offset.retain(|_, o| *o != 0);
                x.replica[k].stride = -it.stride;
            }
            4 => {
                if x.replica.is_empty() {
                    continue;
                }
                let k = k % x.replica.len();
                let it = x.replica[k].clone();
                let a = (v as i64 % it.extent) + 1; // 1..=e
                x.replica[k] = Iter::new(a, it.stride, it.axis.name());
                x.replica.push(Iter::new(it.extent - a + 1, it.stride, it.axis.name()));
            }
            _ => {
                if !x.replica.is_empty() {
                    let n = x.replica.len();
                    x.replica.rotate_left(k % n);
                }
            }
        }
    }
    x
}

fn arb_ops() -> impl Strategy<Value = Vec<(u8, usize, usize)>> {
    prop::collection::vec((0u8..6, 0usize..8, 0usize..8), 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(384), ..ProptestConfig::default() })]

    #[test]
    fn prop_compiled_evaluation_is_the_definition(lay in arb_layout()) {
        let c = axe_layout::compiled::Compiled::new(&lay).unwrap();
        for x in 0..lay.size() {
            let mut got = Vec::new();
            c.for_each_point(x, |p| got.push(c.to_point(p)));
            got.sort();
            got.dedup();
            prop_assert_eq!(got, lay.eval_set_flat(x).unwrap(), "{} at {}", lay, x);
        }
    }

    #[test]
    fn prop_span_is_image_width(lay in arb_layout()) {
        prop_assert_eq!(lay.span().unwrap(), brute_span(&lay));
    }

    #[test]
    fn prop_canonicalize_preserves_map_and_is_idempotent(lay in arb_layout()) {
        let c = lay.canonicalize();
        prop_assert!(maps_equal(&lay, &c.layout), "{} vs {}", lay, c.layout);
        prop_assert_eq!(c.layout.canonicalize(), c.clone());
        prop_assert!(c.layout.validate().is_ok());
        prop_assert!(c.layout.shard.iter().all(|i| i.extent > 1));
        prop_assert!(c.layout.replica.iter().all(|i| i.extent > 1 && i.stride > 0));
        // Deterministic: independent of the order of the replica multiset.
        let mut rev = lay.clone();
        rev.replica.reverse();
        prop_assert_eq!(rev.canonicalize(), c);
    }

    #[test]
    fn prop_canonical_form_is_unique_under_gc(lay in arb_layout(), ops in arb_ops()) {
        let other = perturb(&lay, &ops);
        prop_assert!(maps_equal(&lay, &other));
        let (c1, c2) = (lay.canonicalize(), other.canonicalize());
        if c1.gap_condition && c2.gap_condition {
            prop_assert_eq!(&c1.layout, &c2.layout, "{} and {}", lay, other);
        }
        let e = equivalent(&lay, &other).unwrap();
        prop_assert!(e.equal);
    }

    #[test]
    fn prop_equivalent_matches_enumeration(
        a in arb_layout_with(Gen::default().shard(1..=3).axes(&["m", "lane"]).max_stride(2).max_extent(3)),
        b in arb_layout_with(Gen::default().shard(1..=3).axes(&["m", "lane"]).max_stride(2).max_extent(3)),
    ) {
        let e = equivalent(&a, &b).unwrap();
        prop_assert_eq!(e.equal, maps_equal(&a, &b), "{} vs {} ({:?})", a, b, e.method);
    }
}

#[test]
fn equivalence_refuses_huge_enumeration() {
    // GC fails on the replica, so the 2^23-element shards would have to be enumerated.
    let a = l("(8388608) : (1@lane) + [(3, 2, 2) : (2, 3, 6)]");
    let b = l("(8388608) : (1@lane) + [(3, 4) : (2, 3)]");
    assert!(is_unsupported(&equivalent(&a, &b)));
    // Under GC the same sizes are decided structurally, without enumerating.
    let e = equivalent(&l("(8388608) : (1@lane)"), &l("(4096, 2048) : (2048@lane, 1@lane)")).unwrap();
    assert_eq!(
        e,
        axe_layout::Equivalence {
            equal: true,
            method: EquivMethod::CanonicalForm
        }
    );
    // Different sizes are never equal.
    assert!(!equivalent(&l("(4) : (1)"), &l("(2) : (1)")).unwrap().equal);
}

// ---------------------------------------------------------------------------------------------
// group (Appendix B, Algorithm 1)

fn check_grouped(lay: &Layout, shape: &[i64], g: &axe_layout::Grouped) {
    assert!(maps_equal(lay, &g.layout), "{lay} grouped as {}", g.layout);
    assert_eq!(g.groups.len(), shape.len());
    let mut next = 0;
    for (range, &dim) in g.groups.iter().zip(shape) {
        assert_eq!(range.start, next);
        next = range.end;
        let p: i64 = g.layout.shard[range.clone()].iter().map(|i| i.extent).product();
        assert_eq!(p, dim, "{} groups {:?} by {shape:?}", g.layout, g.groups);
    }
    assert_eq!(next, g.layout.shard.len());
    assert!(
        g.layout.shard.iter().all(|i| i.extent > 1),
        "no unit iters in {}",
        g.layout
    );
}

#[test]
fn group_golden() {
    // §2.2 tensor-core tile by its 8×16 shape: row on lane, column split warp/lane/reg.
    let tc = l("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp");
    let g = tc.group(&[8, 16]).unwrap();
    assert_eq!(g.layout, tc);
    assert_eq!(g.groups, vec![0..1, 1..4]);
    // §2.2 mesh and Trainium examples by their logical shapes.
    let mesh = l("(2, 32, 2, 64) : (1@gpuid, 128, 2@gpuid, 1)");
    assert_eq!(mesh.group(&[64, 128]).unwrap().groups, vec![0..2, 2..4]);
    let trn = l("(2, 128, 512) : (512@F, 1@P, 1@F)");
    assert_eq!(trn.group(&[256, 512]).unwrap().groups, vec![0..2, 2..3]);
    // A split through the middle of an iter.
    let g = l("(16) : (1)").group(&[2, 4, 2]).unwrap();
    assert_eq!(g.layout.to_string(), "(2, 4, 2) : (8, 2, 1)");
    assert_eq!(g.groups, vec![0..1, 1..2, 2..3]);
    // Unit dims get empty groups.
    let g = l("(4, 2) : (1@lane, 1)").group(&[1, 4, 1, 2]).unwrap();
    assert_eq!(g.groups, vec![0..0, 0..1, 1..1, 1..2]);
    check_grouped(&l("(4, 2) : (1@lane, 1)"), &[1, 4, 1, 2], &g);
}

#[test]
fn group_errata_unit_iters() {
    // Algorithm 1 as typeset fails here: gcd(1, rem) = 1.
    let lay = l("(2, 1, 2) : (2, 5@warp, 1)");
    let g = lay.group(&[4]).unwrap();
    assert_eq!(g.layout.to_string(), "(4) : (1)");
    assert_eq!(g.groups, vec![0..1]);
}

#[test]
fn group_errata_needs_d1_merge() {
    // (2, 3) : (3, 1) by (3, 2): only the merged (6) : (1) splits as 3 × 2.
    let lay = l("(2, 3) : (3, 1)");
    let g = lay.group(&[3, 2]).unwrap();
    assert_eq!(g.layout.to_string(), "(3, 2) : (2, 1)");
    check_grouped(&lay, &[3, 2], &g);
}

#[test]
fn group_failures_are_typed() {
    // 6 on lane cannot end a block of 4.
    assert!(is_unsupported(&l("(6, 2) : (1@lane, 1)").group(&[4, 3])));
    assert!(is_unsupported(&l("(2, 3) : (1@lane, 1)").group(&[3, 2])));
    assert!(matches!(
        l("(4) : (1)").group(&[3]),
        Err(LayoutError::ShapeNotAdmitted { .. })
    ));
    assert!(matches!(
        l("(4) : (1)").group(&[-2, -2]),
        Err(LayoutError::ShapeNotAdmitted { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(384), ..ProptestConfig::default() })]

    #[test]
    fn prop_group_by_cut_shape_succeeds((lay, shape) in arb_layout_and_shape(Gen::default(), 1..=4)) {
        let g = lay.group(&shape).unwrap();
        check_grouped(&lay, &shape, &g);
        // Grouping a grouped layout by the same shape is a fixpoint.
        prop_assert_eq!(g.layout.group(&shape).unwrap(), g);
    }

    #[test]
    fn prop_group_any_shape_is_sound(
        (lay, shape) in arb_layout_with(Gen::default()).prop_flat_map(|l| {
            let size = l.size();
            (Just(l), (1usize..=3).prop_flat_map(move |r| arb_shape_of_size(size, r)))
        })
    ) {
        match lay.group(&shape) {
            Ok(g) => check_grouped(&lay, &shape, &g),
            Err(e) => prop_assert!(matches!(e, LayoutError::Unsupported(_)), "{e:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// tile (Appendix C, Algorithm 2)

#[test]
fn tile_golden_paper_example() {
    // §3.3: (2, 3) : (3, 1) ⊗ (8, 8) : (8, 1) = (2, 8, 3, 8) : (192, 8, 64, 1) over 16 × 24.
    let a = l("(2, 3) : (3, 1)");
    let b = l("(8, 8) : (8, 1)");
    let t = tile(&a, &[2, 3], &b, &[8, 8]).unwrap();
    assert_eq!(t.to_string(), "(2, 8, 3, 8) : (192, 8, 64, 1)");
    let want = l("(2, 8, 3, 8) : (192, 8, 64, 1)");
    assert!(equivalent(&t, &want).unwrap().equal);
    assert!(t.check_admits(&[16, 24]).is_ok());
    check_tile_formula(&a, &[2, 3], &b, &[8, 8], &t);
    // Logical (9, 13): tile (1, 1) of A at 192 + 64, element (1, 5) of B at 8 + 5.
    assert_eq!(
        t.eval_set(&[9, 13], &[16, 24]).unwrap(),
        vec![axe_layout::eval::point(&[("m", 192 + 64 + 8 + 5)])]
    );
}

#[test]
fn tile_with_replica_offset_and_axes() {
    // A warp grid of lane tiles, replicated on warps: B's replica widens the span on warp.
    let a = l("(2) : (1@warp) + [(2) : (1@gpuid)] + 1@warp");
    let b = l("(4, 8) : (8@lane, 1@lane) + [(2) : (1@warp)] + 3");
    let t = tile(&a, &[2], &b, &[32]).unwrap();
    // B's shard is grouped (merged) to (32) : (1@lane); span(B) = 32@lane + 2@warp + 1@m.
    assert_eq!(
        t.to_string(),
        "(2, 32) : (2@warp, 1@lane) + [(2, 2) : (1@gpuid, 1@warp)] + 3 + 2@warp"
    );
    check_tile_formula(&a, &[2], &b, &[32], &t);
}

#[test]
fn tile_errors() {
    let a = l("(2, 3) : (3, 1)");
    assert!(is_unsupported(&tile(&a, &[6], &a, &[2, 3])));
    assert!(is_unsupported(&tile(&l("(2, 3) : (1@lane, 1)"), &[3, 2], &a, &[2, 3])));
    assert!(matches!(
        tile(&a, &[5], &a, &[6]),
        Err(LayoutError::ShapeNotAdmitted { .. })
    ));
    let big = l("(2) : (4611686018427387903)");
    assert_eq!(tile(&big, &[2], &l("(4) : (1)"), &[4]), Err(LayoutError::Overflow));
}

fn small() -> Gen {
    Gen::default().shard(1..=3).replica(0..=2)
}

/// Two layouts with admitted, grouping shapes of one common rank.
fn arb_pair() -> impl Strategy<Value = (Layout, Vec<i64>, Layout, Vec<i64>)> {
    (1usize..=2).prop_flat_map(|r| {
        (
            arb_layout_and_shape(small(), r..=r),
            arb_layout_and_shape(small(), r..=r),
        )
            .prop_map(|((a, sa), (b, sb))| (a, sa, b, sb))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: common::cases(256), ..ProptestConfig::default() })]

    #[test]
    fn prop_tile_formula((a, sa, b, sb) in arb_pair()) {
        let t = tile(&a, &sa, &b, &sb).unwrap();
        check_tile_formula(&a, &sa, &b, &sb, &t);
        // T is grouped by the interleaved shape (Prop. C.3).
        let inter: Vec<i64> = sa.iter().zip(&sb).flat_map(|(&x, &y)| [x, y]).collect();
        let g = t.group(&inter).unwrap();
        check_grouped(&t, &inter, &g);
    }

    #[test]
    fn prop_tile_of_inverts_tile((c, sc, b, sb) in arb_pair()) {
        let a = tile(&c, &sc, &b, &sb).unwrap();
        let sa = tiled_shape(&sc, &sb).unwrap();
        let got = tile_of(&a, &sa, &b, &sb);
        prop_assert!(got.is_ok(), "tile_of({a}, {sa:?}, {b}, {sb:?}) = {got:?} (C = {c})");
        let c2 = got.unwrap();
        prop_assert!(maps_equal(&tile(&c2, &sc, &b, &sb).unwrap(), &a));
        // B's span separates the tiles, so C itself is determined by A and B.
        prop_assert!(maps_equal(&c2, &c), "{} vs {}", c2, c);
    }

    #[test]
    fn prop_tile_of_sees_through_equivalent_forms((c, sc, b, sb) in arb_pair(), ops in arb_ops()) {
        // A given in another form (split, unit iters, flipped replica signs, canonical).
        let t = tile(&c, &sc, &b, &sb).unwrap();
        let sa = tiled_shape(&sc, &sb).unwrap();
        let b2 = perturb(&b, &ops);
        for (a, b) in [(perturb(&t, &ops), &b), (t.canonical(), &b2)] {
            let got = tile_of(&a, &sa, b, &sb);
            prop_assert!(got.is_ok(), "tile_of({a}, {sa:?}, {b}, {sb:?}) = {got:?} (C = {c})");
            prop_assert!(maps_equal(&got.unwrap(), &c));
        }
    }

    #[test]
    fn prop_tile_of_is_never_wrong(
        (a, sa) in arb_layout_and_shape(small(), 1..=1),
        b in arb_layout_with(Gen::default().shard(1..=2).replica(0..=1).max_extent(2).max_stride(2)),
    ) {
        let sb = [b.size()];
        match tile_of(&a, &sa, &b, &sb) {
            Ok(c) => {
                let sc = [sa[0] / sb[0]];
                prop_assert!(maps_equal(&tile(&c, &sc, &b, &sb).unwrap(), &a));
            }
            Err(e) => prop_assert!(matches!(e, LayoutError::Unsupported(_)), "{e:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// tile_of (Appendix D, Algorithm 3 + D.4)

#[test]
fn tile_of_golden_paper_example() {
    let a = l("(2, 8, 3, 8) : (192, 8, 64, 1)");
    let b = l("(8, 8) : (8, 1)");
    let c = tile_of(&a, &[16, 24], &b, &[8, 8]).unwrap();
    assert_eq!(c.to_string(), "(2, 3) : (3, 1)");
    // The canonical (merged) form of A is recognized too.
    let c = tile_of(&a.canonical(), &[16, 24], &b, &[8, 8]).unwrap();
    assert!(maps_equal(&c, &l("(2, 3) : (3, 1)")));
}

#[test]
fn tile_of_errata_interleaving_rejected() {
    // The subsequence match would return C = (2, 2) : (2@lane, 2@warp), but C ⊗ B ≠ A:
    // B's block must be the trailing part of A's block.
    let a = l("(2, 2, 2) : (2@lane, 1, 2@warp)");
    let b = l("(2) : (1)");
    let wrong_c = l("(2, 2) : (2@lane, 2@warp)");
    assert!(!maps_equal(&tile(&wrong_c, &[4], &b, &[2]).unwrap(), &a));
    assert!(is_unsupported(&tile_of(&a, &[8], &b, &[2])));
}

#[test]
fn tile_of_errata_merged_iters() {
    // (8) : (1) = (2) : (1) ⊗ (4) : (1), missed by iter matching once D1 merged the iters.
    let c = tile_of(&l("(8) : (1)"), &[8], &l("(4) : (1)"), &[4]).unwrap();
    assert_eq!(c.to_string(), "(2) : (1)");
}

#[test]
fn tile_of_replica_and_offset() {
    // D.4 leaves C's replica open when B has one: here C's and B's replicas merge in A's
    // canonical form ([(2):(2@warp)] ∪ [(2):(1@warp)] = [(4):(1@warp)]).
    let c = l("(2) : (1) + [(2) : (1@warp)] + 3 + 1@warp");
    let b = l("(4) : (1) + [(2) : (1@warp)] + 1");
    let a = tile(&c, &[2], &b, &[4]).unwrap();
    assert_eq!(a.canonical().to_string(), "(8) : (1) + [(4) : (1@warp)] + 13 + 2@warp");
    let got = tile_of(&a.canonical(), &[8], &b, &[4]).unwrap();
    assert_eq!(got.to_string(), "(2) : (1) + [(2) : (1@warp)] + 3 + 1@warp");
    // An offset that is not a multiple of B's span is refused.
    assert!(is_unsupported(&tile_of(
        &l("(8) : (1) + 1"),
        &[8],
        &l("(4) : (1)"),
        &[4]
    )));
    // So is a replica that is not B's plus a span-scaled one.
    assert!(is_unsupported(&tile_of(
        &l("(8) : (1) + [(3) : (1@warp)]"),
        &[8],
        &l("(4) : (1) + [(2) : (1@warp)]"),
        &[4]
    )));
}

#[test]
fn tile_of_shape_errors() {
    let a = l("(8) : (1)");
    assert!(is_unsupported(&tile_of(&a, &[8], &l("(3) : (1)"), &[3])));
    assert!(is_unsupported(&tile_of(&a, &[8], &l("(2, 2) : (2, 1)"), &[2, 2])));
    assert!(matches!(
        tile_of(&a, &[4], &l("(2) : (1)"), &[2]),
        Err(LayoutError::ShapeNotAdmitted { .. })
    ));
    // B does not tile A at all (different axis).
    assert!(is_unsupported(&tile_of(&a, &[8], &l("(2) : (1@lane)"), &[2])));
}

// ---------------------------------------------------------------------------------------------
// ISL export (the ISL paper, Bhaskaracharya et al.)

#[test]
fn isl_golden() {
    let lay = l("(2, 2) : (1@lane, 2) + [(2) : (1@warp)] + 1@warp");
    assert_eq!(
        lay.to_isl(&[2, 2]).unwrap(),
        "{ [i0, i1] -> [lane, m, warp] : exists (d0, d1, r0 : 0 <= i0 < 2 and 0 <= i1 < 2 and \
         0 <= d0 < 2 and 0 <= d1 < 2 and 0 <= r0 < 2 and 2*i0 + i1 = 2*d0 + d1 and lane = d0 and \
         m = 2*d1 and warp = r0 + 1) }"
    );
    assert_eq!(
        l("(4) : (-3)").to_isl(&[4]).unwrap(),
        "{ [i0] -> [m] : exists (d0 : 0 <= i0 < 4 and 0 <= d0 < 4 and i0 = d0 and m = -3*d0) }"
    );
    // One element, no iters: no existentials.
    assert_eq!(l("() : () + 5").to_isl(&[]).unwrap(), "{ [] -> [m] : m = 5 }");
    // Variable names never collide with axis names.
    let s = l("(2) : (1@d0)").to_isl(&[2]).unwrap();
    assert_eq!(
        s,
        "{ [i0] -> [d0] : exists (_d0 : 0 <= i0 < 2 and 0 <= _d0 < 2 and i0 = _d0 and d0 = _d0) }"
    );
    assert!(matches!(
        l("(2) : (1)").to_isl(&[3]),
        Err(LayoutError::ShapeNotAdmitted { .. })
    ));
    assert!(is_unsupported(&l("(2) : (1@exists)").to_isl(&[2])));
}

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Enumerate exported relations with islpy (tests/isl_check.py) and compare them to the
/// brute-force tables. Skipped (with a note) when python3 or islpy is unavailable.
#[test]
fn isl_relations_match_brute_force_with_islpy() {
    let mut cases = vec![
        (
            l("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp"),
            vec![8, 16],
        ),
        (l("(2, 3) : (1@lane, 1) + [(3, 2) : (2, 3)]"), vec![3, 2]),
        (l("(4, 3) : (-2, 5@warp) + [(2) : (-1@reg)] + -3"), vec![2, 6]),
        (l("(2, 8, 3, 8) : (192, 8, 64, 1)"), vec![16, 24]),
    ];
    // A deterministic sweep of random layouts.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strat = arb_layout_and_shape(Gen::default().shard(1..=4), 1..=3);
    for _ in 0..40 {
        cases.push(strat.new_tree(&mut runner).unwrap().current());
    }
    let mut json = String::from("[");
    for (k, (lay, shape)) in cases.iter().enumerate() {
        if k > 0 {
            json.push(',');
        }
        let axes = lay.axes();
        let table: Vec<String> = lay
            .table()
            .iter()
            .map(|pts| {
                let ps: Vec<String> = pts
                    .iter()
                    .map(|p| {
                        let kv: Vec<String> = p.iter().map(|(a, v)| format!("{}: {v}", json_str(a.name()))).collect();
                        format!("{{{}}}", kv.join(", "))
                    })
                    .collect();
                format!("[{}]", ps.join(", "))
            })
            .collect();
        json.push_str(&format!(
            "{{\"isl\": {}, \"shape\": {:?}, \"axes\": [{}], \"table\": [{}]}}",
            json_str(&lay.to_isl(shape).unwrap()),
            shape,
            axes.iter().map(|a| json_str(a.name())).collect::<Vec<_>>().join(", "),
            table.join(", ")
        ));
    }
    json.push(']');
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/isl_check.py");
    let child = std::process::Command::new("python3")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("skipped: python3 not available");
        return;
    };
    use std::io::Write;
    // The script exits at once (code 77) where islpy is missing, without reading its input:
    // a broken pipe here is that, and its exit code below says so.
    match child.stdin.take().expect("piped stdin").write_all(json.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("write to isl_check.py"),
    }
    let out = child.wait_with_output().expect("isl_check.py runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => eprintln!("{}", String::from_utf8_lossy(&out.stdout)),
        Some(77) => eprintln!("skipped: {stderr}"),
        _ => panic!("ISL check failed:\n{}\n{stderr}", String::from_utf8_lossy(&out.stdout)),
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-built invalid layouts: typed errors, never a panic.

#[test]
fn invalid_layouts_are_errors_not_panics() {
    let zero = Layout {
        shard: vec![Iter::mem(0, 1)],
        ..Default::default()
    };
    let huge = Layout {
        shard: vec![Iter::mem(1 << 40, 1), Iter::new(1 << 40, 1, "lane")],
        ..Default::default()
    };
    let ok = l("(4) : (1)");
    for bad in [&zero, &huge] {
        let _ = bad.canonicalize(); // total: must not panic
        assert!(bad.span().is_err());
        assert!(bad.group(&[4]).is_err());
        assert!(equivalent(bad, &ok).is_err());
        assert!(equivalent(&ok, bad).is_err());
        assert!(tile(bad, &[4], &ok, &[4]).is_err());
        assert!(tile(&ok, &[4], bad, &[4]).is_err());
        assert!(tile_of(bad, &[4], &ok, &[4]).is_err());
        assert!(bad.to_isl(&[4]).is_err());
    }
    assert_eq!(huge.span(), Err(LayoutError::Overflow));
    assert_eq!(zero.span(), Err(LayoutError::NonPositiveExtent(0)));
}

/// Fuzzer finding: canonicalization moved about -4.6e18 of replica strides into the offset,
/// and the result failed `validate()` (which bounded |offset| + Σ|(e-1)·s| instead of the
/// coordinates actually reached), so `axe-canonicalize` could print a layout that does not
/// parse back.
#[test]
fn canonical_form_of_huge_negative_replica_validates() {
    let a = Layout::parse(
        "(8192, 2, 262144) : (-33554432@gpuid, -4194304@gpuid, -2147483648@gpuid) \
         + [(262144, 2147483648) : (-1048576@gpuid, -2147483648@gpuid)] + 15@gpuid",
    )
    .unwrap();
    let c = a.canonical();
    c.validate().unwrap();
    assert_eq!(Layout::parse(&c.to_string()).unwrap(), c);
    // Same reachable range on the axis before and after.
    let range = |l: &Layout| {
        let (mut lo, mut hi) = (0i128, 0i128);
        for it in l.shard.iter().chain(&l.replica) {
            let c = (it.extent as i128 - 1) * it.stride as i128;
            if c < 0 {
                lo += c
            } else {
                hi += c
            }
        }
        let o = l.offset.values().sum::<i64>() as i128;
        (lo + o, hi + o)
    };
    assert_eq!(range(&a), range(&c));
}
