//! End-to-end tests of the `axe-layout` binary: exit codes, JSON shape, the contract's golden
//! values, and agreement of `table --json` with a brute-force evaluator written here from the
//! definition `L(x) = { D(x) + r + O | r ∈ R }` (lexicographic unflatten), independent of the
//! crate's parser and evaluator.

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Output};

use serde_json::Value;

const TILE: &str = "(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_axe-layout"))
        .args(args)
        .output()
        .expect("spawn axe-layout")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited with a code, not a signal")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run with `--json`, require exit 0 and one JSON object on stdout.
fn json(args: &[&str]) -> Value {
    let mut v: Vec<&str> = args.to_vec();
    v.push("--json");
    let o = run(&v);
    assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out.trim_end().lines().count(), 1, "one JSON line: {out}");
    let j: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
    assert!(j.is_object());
    j
}

// ---------------------------------------------------------------------------------------------
// The independent oracle.

type Pt = BTreeMap<String, i64>;

/// A layout as plain data: iters `(extent, stride, axis)`, offsets `(axis, value)`.
struct Spec {
    shard: Vec<(i64, i64, &'static str)>,
    replica: Vec<(i64, i64, &'static str)>,
    offset: Vec<(&'static str, i64)>,
}

impl Spec {
    fn text(&self) -> String {
        let iters = |v: &[(i64, i64, &str)]| {
            let e: Vec<String> = v.iter().map(|i| i.0.to_string()).collect();
            let s: Vec<String> = v.iter().map(|i| format!("{}@{}", i.1, i.2)).collect();
            format!("({}) : ({})", e.join(", "), s.join(", "))
        };
        let mut t = iters(&self.shard);
        if !self.replica.is_empty() {
            t += &format!(" + [{}]", iters(&self.replica));
        }
        for (a, v) in &self.offset {
            t += &format!(" + {v}@{a}");
        }
        t
    }

    fn axes(&self) -> BTreeSet<String> {
        let mut s: BTreeSet<String> = self
            .shard
            .iter()
            .chain(&self.replica)
            .map(|i| i.2.to_string())
            .collect();
        s.extend(self.offset.iter().map(|o| o.0.to_string()));
        s
    }

    /// Lexicographic digits of `x` over `extents` (first slowest).
    fn digits(mut x: i64, extents: &[i64]) -> Vec<i64> {
        let mut d = vec![0; extents.len()];
        for k in (0..extents.len()).rev() {
            d[k] = x % extents[k];
            x /= extents[k];
        }
        d
    }

    /// `L(x)` as a set of points with every axis present.
    fn eval(&self, x: i64) -> BTreeSet<Pt> {
        let mut base: Pt = self.axes().into_iter().map(|a| (a, 0)).collect();
        let de: Vec<i64> = self.shard.iter().map(|i| i.0).collect();
        for (it, d) in self.shard.iter().zip(Self::digits(x, &de)) {
            *base.get_mut(it.2).unwrap() += d * it.1;
        }
        for (a, v) in &self.offset {
            *base.get_mut(*a).unwrap() += v;
        }
        let re: Vec<i64> = self.replica.iter().map(|i| i.0).collect();
        let nr: i64 = re.iter().product();
        (0..nr)
            .map(|r| {
                let mut p = base.clone();
                for (it, d) in self.replica.iter().zip(Self::digits(r, &re)) {
                    *p.get_mut(it.2).unwrap() += d * it.1;
                }
                p
            })
            .collect()
    }

    fn size(&self) -> i64 {
        self.shard.iter().map(|i| i.0).product()
    }
}

fn points_of(v: &Value) -> BTreeSet<Pt> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p.as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
                .collect()
        })
        .collect()
}

fn check_table_against_oracle(spec: &Spec, shape: &[i64]) {
    let text = spec.text();
    let shape_arg = shape.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(",");
    let j = json(&["table", &text, "--shape", &shape_arg]);
    let entries = j["entries"].as_array().unwrap();
    assert_eq!(entries.len() as i64, spec.size(), "{text}");
    for (x, e) in entries.iter().enumerate() {
        let coord: Vec<i64> = e[0].as_array().unwrap().iter().map(|c| c.as_i64().unwrap()).collect();
        // Row-major order: entry x is the lexicographic unflatten of x under the shape.
        assert_eq!(coord, Spec::digits(x as i64, shape), "{text}: entry {x}");
        let got = points_of(&e[1]);
        assert_eq!(got, spec.eval(x as i64), "{text} at {coord:?}");
        // Every point maps every axis of the layout.
        for p in &got {
            assert_eq!(p.keys().cloned().collect::<BTreeSet<_>>(), spec.axes(), "{text}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Contract golden values.

#[test]
fn contract_tensor_core_tile_at_2_9() {
    let j = json(&["table", TILE, "--shape", "8,16"]);
    let e = j["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e[0] == serde_json::json!([2, 9]))
        .unwrap();
    let want: BTreeSet<Pt> = [6, 10]
        .iter()
        .map(|&w| {
            [("lane", 8), ("reg", 1), ("warp", w)]
                .iter()
                .map(|(a, v)| (a.to_string(), *v))
                .collect()
        })
        .collect();
    assert_eq!(points_of(&e[1]), want);
    assert_eq!(j["layout"], TILE);
}

#[test]
fn contract_tile_example() {
    let j = json(&[
        "tile",
        "(2, 3) : (3, 1)",
        "--shape",
        "2,3",
        "(8, 8) : (8, 1)",
        "--shape",
        "8,8",
    ]);
    assert_eq!(j["layout"], "(2, 8, 3, 8) : (192, 8, 64, 1)");
    assert_eq!(j["shape"], serde_json::json!([16, 24]));
    // The definition: T(x ‖ y) = A(x)·span(B) + B(y), span(B) = 64 on m.
    let t = json(&["table", "(2, 8, 3, 8) : (192, 8, 64, 1)", "--shape", "16,24"]);
    for e in t["entries"].as_array().unwrap() {
        let (i, k) = (e[0][0].as_i64().unwrap(), e[0][1].as_i64().unwrap());
        let a = (i / 8) * 3 + (k / 8);
        let b = (i % 8) * 8 + (k % 8);
        assert_eq!(e[1], serde_json::json!([{ "m": a * 64 + b }]));
    }
}

#[test]
fn contract_malformed_layouts_exit_2_with_located_error() {
    for (bad, col) in [
        ("(0) : (1)", 2),
        ("(4 : (1)", 4),
        ("(9223372036854775807, 4) : (1, 1)", 23),
    ] {
        let o = run(&["canon", bad]);
        assert_eq!(code(&o), 2, "{bad}");
        let err = stderr(&o);
        let lines: Vec<&str> = err.lines().collect();
        assert!(
            lines[0].starts_with(&format!("error: at column {col}: ")),
            "{bad}: {err}"
        );
        assert_eq!(lines[1].trim(), bad);
        // The caret sits under the offending character.
        assert_eq!(lines[2].find('^'), Some(2 + col - 1), "{bad}: {err}");
        assert!(o.stdout.is_empty());
    }
    let o = run(&["canon", "(0) : (1)"]);
    assert!(stderr(&o).starts_with("error: at column 2: extent must be positive"));
}

// ---------------------------------------------------------------------------------------------
// The table against the oracle.

#[test]
fn table_agrees_with_brute_force() {
    let cases: Vec<(Spec, Vec<i64>)> = vec![
        (
            Spec {
                shard: vec![(8, 4, "lane"), (2, 1, "warp"), (4, 1, "lane"), (2, 1, "reg")],
                replica: vec![(2, 4, "warp")],
                offset: vec![("warp", 5)],
            },
            vec![8, 16],
        ),
        (
            Spec {
                shard: vec![(4, 6, "m"), (6, 1, "m")],
                replica: vec![],
                offset: vec![],
            },
            vec![2, 12],
        ),
        // Negative strides, offsets on two axes, a 3-D shape.
        (
            Spec {
                shard: vec![(3, -2, "m"), (2, 1, "lane"), (4, 3, "m")],
                replica: vec![],
                offset: vec![("m", 7), ("lane", -1)],
            },
            vec![3, 2, 4],
        ),
        // Aliasing replica: [(2, 2) : (1, 1)] gives 3 points, not 4 (a set).
        (
            Spec {
                shard: vec![(2, 1, "lane")],
                replica: vec![(2, 1, "warp"), (2, 1, "warp")],
                offset: vec![],
            },
            vec![2],
        ),
        // Replica on two axes with a negative stride, 1-D default shape.
        (
            Spec {
                shard: vec![(4, 2, "reg"), (2, 1, "reg")],
                replica: vec![(2, -3, "gpuid"), (3, 1, "warp")],
                offset: vec![("gpuid", 3)],
            },
            vec![8],
        ),
    ];
    for (spec, shape) in &cases {
        check_table_against_oracle(spec, shape);
    }
}

#[test]
fn eval_forward_and_backward_agree_with_oracle() {
    let spec = Spec {
        shard: vec![(8, 4, "lane"), (2, 1, "warp"), (4, 1, "lane"), (2, 1, "reg")],
        replica: vec![(2, 4, "warp")],
        offset: vec![("warp", 5)],
    };
    let text = spec.text();
    for x in [0i64, 1, 41, 127] {
        let coord = Spec::digits(x, &[8, 16]);
        let c = format!("{},{}", coord[0], coord[1]);
        let j = json(&["eval", &text, "--shape", "8,16", "--coord", &c]);
        let pts = points_of(&j["points"]);
        assert_eq!(pts, spec.eval(x));
        // Every point maps back to exactly this coordinate (the layout is injective).
        for p in &pts {
            let ptxt = p.iter().map(|(a, v)| format!("{a}={v}")).collect::<Vec<_>>().join(",");
            let b = json(&["eval", &text, "--shape", "8,16", "--point", &ptxt]);
            assert_eq!(b["coords"], serde_json::json!([coord]));
            assert_eq!(b["unique"], true);
        }
    }
    // A point no logical index reaches: exit 1, with the reason.
    let o = run(&["eval", &text, "--shape", "8,16", "--point", "lane=99"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("no logical coordinate"));
    // Non-unique backward map: both preimages are listed.
    let b = json(&["eval", "(2) : (1@lane) + [(2) : (1@lane)]", "--point", "lane=1"]);
    assert_eq!(b["coords"], serde_json::json!([[0], [1]]));
    assert_eq!(b["unique"], false);
}

// ---------------------------------------------------------------------------------------------
// Every verb: JSON shape and exit codes.

#[test]
fn every_verb_prints_json_with_layout() {
    let cases: Vec<Vec<&str>> = vec![
        vec!["canon", "(2, 1, 3, 4) : (12, 7@warp, 4, 1)"],
        vec!["span", TILE],
        vec!["group", TILE, "--shape", "8,16"],
        vec![
            "tile",
            "(2) : (1@warp)",
            "--shape",
            "2",
            "(4) : (1@lane)",
            "--shape",
            "4",
        ],
        vec![
            "tile-of",
            "(2, 8, 3, 8) : (192, 8, 64, 1)",
            "--shape",
            "16,24",
            "(8, 8) : (8, 1)",
            "--shape",
            "8,8",
        ],
        vec!["slice", TILE, "--shape", "8,16", "--region", "0:8,8:16"],
        vec![
            "sum",
            "(2) : (1@warp)",
            "--shape",
            "2",
            "(4) : (1@lane)",
            "--shape",
            "4",
        ],
        vec!["cute", "import", "(4,(2,3)):(1,(8,16))"],
        vec!["cute", "export", "(3, 2, 4) : (16, 8, 1)"],
        vec!["isl", "(2, 2) : (1@lane, 2)", "--shape", "2,2"],
        vec!["table", "(4) : (1)"],
        vec!["eval", TILE, "--shape", "8,16", "--coord", "2,9"],
        vec!["equiv", "(24) : (1)", "(2, 3, 4) : (12, 4, 1)"],
        vec!["draw", TILE, "--shape", "8,16"],
    ];
    for c in &cases {
        let j = json(c);
        assert!(j["layout"].is_string(), "{c:?}: {j}");
    }
}

#[test]
fn golden_results() {
    assert_eq!(
        json(&["canon", "(2, 1, 3, 4) : (12, 7@warp, 4, 1)"])["layout"],
        "(24) : (1)"
    );
    let c = json(&["canon", "(1) : (1) + [(3, 2, 2) : (2, 3, 6)]"]);
    assert_eq!(c["gap_condition"], false);
    let e = json(&["equiv", "(24) : (1)", "(2, 3, 4) : (12, 4, 1)"]);
    assert_eq!(
        (e["equal"].clone(), e["method"].clone()),
        (true.into(), "canonical-form".into())
    );
    let e = json(&[
        "equiv",
        "(1) : (1) + [(3, 2, 2) : (2, 3, 6)]",
        "(1) : (1) + [(6, 2) : (2, 3)]",
    ]);
    assert_eq!(
        (e["equal"].clone(), e["method"].clone()),
        (true.into(), "enumeration".into())
    );
    let e = json(&["equiv", "(4) : (1)", "(4) : (2)"]);
    assert_eq!(e["equal"], false);
    assert_eq!(
        json(&["span", TILE])["span"],
        serde_json::json!({"lane": 32, "reg": 2, "warp": 6})
    );
    let t = json(&[
        "tile-of",
        "(2, 8, 3, 8) : (192, 8, 64, 1)",
        "--shape",
        "16,24",
        "(8, 8) : (8, 1)",
        "--shape",
        "8,8",
    ]);
    assert_eq!(
        (t["layout"].clone(), t["shape"].clone()),
        ("(2, 3) : (3, 1)".into(), serde_json::json!([2, 3]))
    );
    assert_eq!(
        json(&["cute", "import", "(4,(2,3)):(1,(8,16))"])["layout"],
        "(3, 2, 4) : (16, 8, 1)"
    );
    assert_eq!(
        json(&["cute", "export", "(3, 2, 4) : (16, 8, 1)"])["cute"],
        "(4,2,3):(1,8,16)"
    );
    assert_eq!(
        json(&["cute", "complement", "(4,8):(1,4)", "--cotarget", "1"])["cute"],
        "1:32"
    );
    let g = json(&["group", "(2, 3) : (3, 1)", "--shape", "3,2"]);
    assert_eq!(g["layout"], "(3, 2) : (2, 1)");
}

#[test]
fn operations_without_result_exit_1() {
    let cases: Vec<Vec<&str>> = vec![
        // Not a tile: 3 does not divide 4.
        vec!["tile-of", "(4) : (1)", "--shape", "4", "(3) : (1)", "--shape", "3"],
        // No grouping of (2, 3) : (3, 1) by (3, 2)? It exists (merged); (3,2):(1,3) by (2,3) does not.
        vec!["group", "(3, 2) : (1, 3)", "--shape", "2,3"],
        // CuTe layouts live on the memory axis only.
        vec!["cute", "export", "(4) : (1@lane)"],
        vec!["cute", "import", "(4,2):(0,1)"],
        // The slice of Lemma E.2's counter-example needs a stride on two axes.
        vec!["slice", "(2, 4) : (1@warp, 1)", "--shape", "8", "--region", "2:6"],
        vec!["draw", "(1048576) : (1)"],
    ];
    for c in &cases {
        let o = run(c);
        assert_eq!(code(&o), 1, "{c:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("error: "), "{c:?}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn malformed_arguments_exit_2() {
    let cases: Vec<Vec<&str>> = vec![
        vec!["table", "(4, 6) : (6, 1)", "--shape", "5,5"],
        vec!["table", "(4, 6) : (6, 1)", "--shape", "4,x"],
        vec!["eval", "(4, 6) : (6, 1)", "--shape", "4,6", "--coord", "4,0"],
        vec!["eval", "(4, 6) : (6, 1)", "--point", "lane=1"],
        vec!["slice", "(4, 6) : (6, 1)", "--shape", "4,6", "--region", "0:5,0:6"],
        vec!["tile", "(4) : (1)", "--shape", "4", "(4) : (1)", "--shape", "2,2"],
        vec!["tile", "(4) : (1)", "--shape", "4", "--shape", "4", "(4) : (1)"],
        vec!["tile", "(4) : (1)"],
        vec!["draw", "(4) : (1@lane)", "--color-by", "warp"],
        vec!["cute", "import", "(4,2):(1"],
        vec!["cute", "complement", "4:1", "--cotarget", "0"],
        vec!["nonsense"],
        vec![],
        vec!["canon", "(4) : (1) $"],
        vec!["canon", "(4) : (1@)"],
    ];
    for c in &cases {
        let o = run(c);
        assert_eq!(code(&o), 2, "{c:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("error"), "{c:?}: {}", stderr(&o));
    }
    // Argument errors are located like layout errors.
    let o = run(&["table", "(4, 6) : (6, 1)", "--shape", "4,x"]);
    assert!(stderr(&o).starts_with("error: at column 3: "), "{}", stderr(&o));
}

#[test]
fn never_panics_on_odd_input() {
    let odd = [
        "",
        " ",
        "(",
        ")",
        "() : ()",
        "(1) : (1)",
        "(-1) : (1)",
        "(4) : (9223372036854775807)",
        "(2, 2) : (4611686018427387904, 4611686018427387904)",
        "(4) : (1) + [",
        "(4) : (1) + [() : ()]",
        "(4) : (1) + 9223372036854775807 + 1",
        "(4) : (1@é)",
        "é",
        "(4)\t:\n(1)",
        "(3037000500, 3037000500) : (1, 3037000500)",
    ];
    for t in odd {
        for verb in [
            vec!["canon", t],
            vec!["table", t],
            vec!["span", t],
            vec!["draw", t],
            vec!["isl", t],
        ] {
            let o = run(&verb);
            let c = code(&o);
            assert!((0..=2).contains(&c), "{verb:?} exited {c}: {}", stderr(&o));
            assert!(!stderr(&o).contains("panicked"), "{verb:?}: {}", stderr(&o));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// draw.

#[test]
fn draw_is_well_formed_svg() {
    let o = run(&["draw", TILE, "--shape", "8,16", "--color-by", "warp"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let svg = String::from_utf8(o.stdout).unwrap();
    assert!(svg.starts_with("<?xml"));
    assert_eq!(svg.matches("<g class=\"cell\"").count(), 128);
    // Each replicated cell shows both points.
    assert!(svg.contains(">lane=8 reg=1 warp=6<") && svg.contains(">lane=8 reg=1 warp=10<"));
    // Parse it as XML where python3 is available (the lit suite requires it anyway).
    if let Ok(mut child) = Command::new("python3")
        .args(["-c", "import sys, xml.etree.ElementTree as E; r = E.fromstring(sys.stdin.buffer.read()); assert r.tag.endswith('svg'); print(len(r.findall('.//{http://www.w3.org/2000/svg}g')))"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(svg.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "128");
    }
    // -o writes the same picture to a file.
    let dir = std::env::temp_dir().join(format!("axe-layout-draw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tile.svg");
    let o = run(&[
        "draw",
        TILE,
        "--shape",
        "8,16",
        "--color-by",
        "warp",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), svg);
    std::fs::remove_dir_all(&dir).ok();
}
