//! `axe-layout`: inspect and transform Axe layouts from the command line.
//!
//! A thin driver over the `axe-layout` crate: every verb parses its inputs (layouts in the
//! syntax of `#axe.layout<…>` without the wrapper, shapes, regions, points), calls one operation
//! of the algebra and prints the result as text or, with `--json`, as one JSON object. The exit
//! code is part of the contract other checks rely on: 0 success, 1 no result for these inputs,
//! 2 malformed input.

mod args;
mod draw;
mod error;

use std::io::Write as _;

use axe_layout::cute::{self, CuteLayout};
use axe_layout::{Axis, Layout, Point};
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{json, Map, Value};

use crate::error::{CliError, CliResult};

/// The most points (`E_D · E_R`) a verb that enumerates the layout visits.
const ENUMERATION_LIMIT: i64 = 1 << 20;
/// The most coordinates (points × axes) a verb prints.
const OUTPUT_LIMIT: i64 = 1 << 22;
/// The most cells `draw` puts in one picture.
const DRAW_LIMIT: i64 = 1 << 14;

const AFTER_HELP: &str = "\
Layouts use the syntax of #axe.layout<...> without the wrapper, e.g.
  '(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp'
Shapes are written --shape 16,24 (default: the 1-D shape of the layout's size), regions
--region 0:8,8:24 (half-open), points --point lane=8,warp=6. Binary verbs take each
layout followed by its own shape: axe-layout tile A --shape 2,3 B --shape 8,8.

Exit status: 0 success; 1 the operation has no result for these inputs (reason on
stderr); 2 malformed input (located error on stderr).";

#[derive(Parser)]
#[command(name = "axe-layout", version, about = "Inspect and transform Axe layouts", after_help = AFTER_HELP)]
struct Cli {
    /// Print one JSON object (always with "layout" when the result is a layout).
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    verb: Verb,
}

#[derive(Subcommand)]
enum Verb {
    /// Forward map of one logical coordinate (--coord), or backward map of a point (--point).
    Eval(EvalArgs),
    /// Every logical coordinate (row-major) with its set of hardware points.
    Table(ShapedArgs),
    /// Canonical form (D0, D1, C0–C2) and whether the gap condition holds.
    Canon(LayoutArg),
    /// Whether two layouts induce the same map, and how that was decided.
    Equiv(PairArgs),
    /// Axis-wise span (max − min + 1 of the image on each axis).
    Span(LayoutArg),
    /// Group the shard by a logical shape (Algorithm 1).
    Group(GroupArgs),
    /// Tile A by B: the Kronecker product A ⊗ B (Algorithm 2).
    Tile(BinaryArgs),
    /// Find C with A = C ⊗ B (Algorithm 3): `tile-of A --shape SA B --shape SB`.
    #[command(name = "tile-of")]
    TileOf(BinaryArgs),
    /// The layout of a sub-tensor L[region] (Algorithm 4).
    Slice(SliceArgs),
    /// Direct sum A + B on the interleaved shape (Appendix F).
    Sum(BinaryArgs),
    /// CuTe interop: import/export and the CuTe layout operations.
    Cute {
        #[command(subcommand)]
        op: CuteOp,
    },
    /// Export the layout under a shape as an ISL relation.
    Isl(ShapedArgs),
    /// Render the mapping as an SVG picture.
    Draw(DrawArgs),
}

#[derive(Args)]
struct LayoutArg {
    /// The layout, e.g. '(16, 8) : (8, 1)'.
    layout: String,
}

#[derive(Args)]
struct ShapedArgs {
    layout: String,
    /// Logical shape admitted by the layout (product = its size), e.g. 16,24.
    #[arg(long, allow_hyphen_values = true)]
    shape: Option<String>,
}

#[derive(Args)]
struct GroupArgs {
    layout: String,
    #[arg(long, allow_hyphen_values = true)]
    shape: String,
}

#[derive(Args)]
struct EvalArgs {
    layout: String,
    #[arg(long, allow_hyphen_values = true)]
    shape: Option<String>,
    /// A logical coordinate under --shape, e.g. 2,9.
    #[arg(
        long,
        conflicts_with = "point",
        required_unless_present = "point",
        allow_hyphen_values = true
    )]
    coord: Option<String>,
    /// A hardware point, e.g. lane=8,warp=6,reg=1 (unlisted axes are 0).
    #[arg(long, allow_hyphen_values = true)]
    point: Option<String>,
}

#[derive(Args)]
struct PairArgs {
    a: String,
    b: String,
}

#[derive(Args)]
struct BinaryArgs {
    /// The layouts A and B, each optionally followed by its --shape.
    #[arg(value_names = ["A", "B"], required = true)]
    layouts: Vec<String>,
    /// The shape of the layout written before it.
    #[arg(long, allow_hyphen_values = true)]
    shape: Vec<String>,
}

#[derive(Args)]
struct SliceArgs {
    layout: String,
    #[arg(long, allow_hyphen_values = true)]
    shape: Option<String>,
    /// Half-open range per dimension, e.g. 0:8,8:24.
    #[arg(long, allow_hyphen_values = true)]
    region: String,
}

#[derive(Args)]
struct DrawArgs {
    layout: String,
    #[arg(long, allow_hyphen_values = true)]
    shape: Option<String>,
    /// Write the SVG to this file instead of stdout.
    #[arg(short = 'o', long = "output")]
    output: Option<std::path::PathBuf>,
    /// The axis whose value colours the cells (default: the first non-memory axis, else m).
    #[arg(long = "color-by")]
    color_by: Option<String>,
}

#[derive(Subcommand)]
enum CuteOp {
    /// CuTe layout text (e.g. '(4,(2,3)):(1,(8,16))') to an Axe layout on the memory axis.
    Import { cute: String },
    /// An Axe layout (memory axis only, no replica/offset) to a flat CuTe layout.
    Export { layout: String },
    /// Coalesce a CuTe layout.
    Coalesce { cute: String },
    /// Composition A ∘ B.
    Compose { a: String, b: String },
    /// Complement with respect to a cotarget size.
    Complement {
        cute: String,
        #[arg(long, allow_hyphen_values = true)]
        cotarget: i64,
    },
    /// Right inverse.
    #[command(name = "right-inverse")]
    RightInverse { cute: String },
    /// Left inverse.
    #[command(name = "left-inverse")]
    LeftInverse { cute: String },
    /// Logical divide A ⊘ B.
    #[command(name = "logical-divide")]
    LogicalDivide { a: String, b: String },
    /// Logical product A ⊗ B.
    #[command(name = "logical-product")]
    LogicalProduct { a: String, b: String },
}

/// A verb's result: the text form and the JSON form.
struct Output {
    text: String,
    json: Value,
}

fn main() {
    std::process::exit(run(std::env::args_os().collect()));
}

fn run(argv: Vec<std::ffi::OsString>) -> i32 {
    let matches = match Cli::command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => {
            // Usage errors exit 2, --help/--version exit 0 (clap's convention = ours).
            let _ = e.print();
            return e.exit_code();
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return error::EXIT_MALFORMED;
        }
    };
    let sub = matches.subcommand().map(|(_, m)| m);
    match execute(cli.verb, sub) {
        Ok(out) => {
            let body = if cli.json { format!("{}\n", out.json) } else { out.text };
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(body.as_bytes()).and_then(|_| stdout.flush()) {
                Ok(()) => 0,
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
                Err(e) => {
                    eprintln!("error: cannot write the output: {e}");
                    error::EXIT_NO_RESULT
                }
            }
        }
        Err(e) => {
            eprint!("{}", e.render());
            e.exit_code()
        }
    }
}

fn execute(verb: Verb, sub: Option<&ArgMatches>) -> CliResult<Output> {
    match verb {
        Verb::Eval(a) => eval(a),
        Verb::Table(a) => table(a),
        Verb::Canon(a) => canon(a),
        Verb::Equiv(a) => equiv(a),
        Verb::Span(a) => span(a),
        Verb::Group(a) => group(a),
        Verb::Tile(a) => binary(a, sub, Binary::Tile),
        Verb::TileOf(a) => binary(a, sub, Binary::TileOf),
        Verb::Sum(a) => binary(a, sub, Binary::Sum),
        Verb::Slice(a) => slice(a),
        Verb::Cute { op } => cute_op(op),
        Verb::Isl(a) => isl(a),
        Verb::Draw(a) => draw_verb(a),
    }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers.

fn parse_layout(text: &str) -> CliResult<Layout> {
    Layout::parse(text).map_err(|e| CliError::from_parse(text, e))
}

fn parse_cute(text: &str) -> CliResult<CuteLayout> {
    CuteLayout::parse(text).map_err(|e| CliError::from_parse(text, e))
}

/// The shape given with `--shape`, checked against the layout; default: `(size)`.
fn shape_for(l: &Layout, shape: Option<&str>) -> CliResult<Vec<i64>> {
    let s = match shape {
        Some(t) => args::parse_shape(t)?,
        None => vec![l.size()],
    };
    l.check_admits(&s)?;
    Ok(s)
}

fn fmt_tuple(v: &[i64]) -> String {
    format!("({})", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
}

/// A point with every axis of `axes` (zeros included), as text `{lane=8, reg=1, warp=6}`.
fn fmt_point(p: &Point, axes: &[Axis]) -> String {
    let parts: Vec<String> = axes
        .iter()
        .map(|a| format!("{a}={}", p.get(a).copied().unwrap_or(0)))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// A point with every axis of `axes` (zeros included), as a JSON object.
fn json_point(p: &Point, axes: &[Axis]) -> Value {
    let mut m = Map::new();
    for a in axes {
        m.insert(a.name().to_string(), json!(p.get(a).copied().unwrap_or(0)));
    }
    Value::Object(m)
}

/// Refuse to enumerate more than [`ENUMERATION_LIMIT`] points, or to print more than
/// [`OUTPUT_LIMIT`] coordinates (points × axes: every point carries one value per axis).
fn check_enumerable(l: &Layout, what: &str) -> CliResult<()> {
    let points = l
        .size()
        .checked_mul(l.replica_size())
        .filter(|n| *n <= ENUMERATION_LIMIT);
    let Some(points) = points else {
        return Err(CliError::NoResult(format!(
            "{what} would enumerate {} × {} points, more than the limit of {ENUMERATION_LIMIT}",
            l.size(),
            l.replica_size()
        )));
    };
    let axes = l.axes().len().max(1) as i64;
    if points.saturating_mul(axes) > OUTPUT_LIMIT {
        return Err(CliError::NoResult(format!(
            "{what} would print {points} points of {axes} coordinates, more than the limit of {OUTPUT_LIMIT} coordinates"
        )));
    }
    Ok(())
}

/// The point set of every flat logical index (`L(x)` as a set).
fn full_table(l: &Layout) -> CliResult<Vec<Vec<Point>>> {
    (0..l.size())
        .map(|x| l.eval_set_flat(x).map_err(CliError::from))
        .collect()
}

fn layout_output(l: &Layout, shape: Option<&[i64]>, extra: Map<String, Value>) -> Output {
    let mut text = format!("{l}\n");
    let mut m = Map::new();
    m.insert("layout".into(), json!(l.to_string()));
    if let Some(s) = shape {
        text.push_str(&format!("shape: {}\n", fmt_tuple(s)));
        m.insert("shape".into(), json!(s));
    }
    m.extend(extra);
    Output {
        text,
        json: Value::Object(m),
    }
}

// ---------------------------------------------------------------------------------------------
// Verbs.

fn eval(a: EvalArgs) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let shape = shape_for(&l, a.shape.as_deref())?;
    let axes = l.axes();
    if let Some(c) = &a.coord {
        let coord = args::parse_coord(c, &shape)?;
        if l.replica_size() > ENUMERATION_LIMIT {
            return Err(CliError::NoResult(format!(
                "the replica has {} combinations, more than the limit of {ENUMERATION_LIMIT}",
                l.replica_size()
            )));
        }
        let pts = l.eval_set(&coord, &shape)?;
        let text = format!(
            "{} -> {}\n",
            fmt_tuple(&coord),
            pts.iter().map(|p| fmt_point(p, &axes)).collect::<Vec<_>>().join(", ")
        );
        let json = json!({
            "layout": l.to_string(),
            "shape": shape,
            "coord": coord,
            "points": pts.iter().map(|p| json_point(p, &axes)).collect::<Vec<_>>(),
        });
        return Ok(Output { text, json });
    }
    let ptext = a.point.as_deref().unwrap_or_default();
    let point = args::parse_point(ptext, &l)?;
    check_enumerable(&l, "the backward map")?;
    let coords: Vec<Vec<i64>> = l
        .preimage(&point)
        .into_iter()
        .map(|x| axe_layout::eval::unflatten(x, &shape))
        .collect();
    if coords.is_empty() {
        return Err(CliError::NoResult(format!(
            "no logical coordinate of {l} maps to {}",
            fmt_point(&point, &axes)
        )));
    }
    let text = format!(
        "{} <- {}{}\n",
        fmt_point(&point, &axes),
        coords.iter().map(|c| fmt_tuple(c)).collect::<Vec<_>>().join(", "),
        if coords.len() > 1 { " (not unique)" } else { "" }
    );
    let json = json!({
        "layout": l.to_string(),
        "shape": shape,
        "point": json_point(&point, &axes),
        "coords": coords,
        "unique": coords.len() == 1,
    });
    Ok(Output { text, json })
}

fn table(a: ShapedArgs) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let shape = shape_for(&l, a.shape.as_deref())?;
    check_enumerable(&l, "the table")?;
    let axes = l.axes();
    let rows = full_table(&l)?;
    let mut text = String::new();
    let mut entries = Vec::with_capacity(rows.len());
    for (x, pts) in rows.iter().enumerate() {
        let coord = axe_layout::eval::unflatten(x as i64, &shape);
        text.push_str(&format!(
            "{} -> {}\n",
            fmt_tuple(&coord),
            pts.iter().map(|p| fmt_point(p, &axes)).collect::<Vec<_>>().join(", ")
        ));
        entries.push(json!([
            coord,
            pts.iter().map(|p| json_point(p, &axes)).collect::<Vec<_>>()
        ]));
    }
    let json = json!({
        "layout": l.to_string(),
        "shape": shape,
        "axes": axes.iter().map(|a| a.name()).collect::<Vec<_>>(),
        "entries": entries,
    });
    Ok(Output { text, json })
}

fn canon(a: LayoutArg) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let c = l.canonicalize();
    let gc = if c.gap_condition { "holds" } else { "fails" };
    Ok(Output {
        text: format!("{}\ngap condition: {gc}\n", c.layout),
        json: json!({ "layout": c.layout.to_string(), "gap_condition": c.gap_condition }),
    })
}

fn equiv(a: PairArgs) -> CliResult<Output> {
    let la = parse_layout(&a.a)?;
    let lb = parse_layout(&a.b)?;
    let e = axe_layout::equivalent(&la, &lb)?;
    let method = match e.method {
        axe_layout::EquivMethod::CanonicalForm => "canonical-form",
        axe_layout::EquivMethod::Enumeration => "enumeration",
    };
    let verdict = if e.equal { "equivalent" } else { "not equivalent" };
    Ok(Output {
        text: format!("{verdict} (decided by {method})\n"),
        json: json!({
            "layout": la.canonical().to_string(),
            "other": lb.canonical().to_string(),
            "equal": e.equal,
            "method": method,
        }),
    })
}

fn span(a: LayoutArg) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let s = l.span()?;
    let text = s.iter().map(|(k, v)| format!("{k}: {v}\n")).collect::<String>();
    let mut m = Map::new();
    for (k, v) in &s {
        m.insert(k.name().to_string(), json!(v));
    }
    Ok(Output {
        text,
        json: json!({ "layout": l.to_string(), "span": m }),
    })
}

fn group(a: GroupArgs) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let shape = args::parse_shape(&a.shape)?;
    let g = l.group(&shape)?;
    let mut text = format!("{}\n", g.layout);
    let mut blocks = Vec::new();
    for (i, r) in g.groups.iter().enumerate() {
        let block = Layout {
            shard: g.layout.shard[r.clone()].to_vec(),
            ..Layout::default()
        };
        text.push_str(&format!("dim {i} ({}): {block}\n", shape[i]));
        blocks.push(json!({ "dim": i, "extent": shape[i], "iters": [r.start, r.end], "block": block.to_string() }));
    }
    Ok(Output {
        text,
        json: json!({ "layout": g.layout.to_string(), "shape": shape, "groups": blocks }),
    })
}

#[derive(Clone, Copy)]
enum Binary {
    Tile,
    TileOf,
    Sum,
}

/// Pair each `--shape` with the layout written before it (`A --shape SA B --shape SB`); a
/// layout without one gets its 1-D shape.
fn binary_operands(a: &BinaryArgs, sub: Option<&ArgMatches>) -> CliResult<[(Layout, Vec<i64>); 2]> {
    if a.layouts.len() != 2 {
        return Err(CliError::Malformed(format!(
            "expected two layouts A and B, got {}",
            a.layouts.len()
        )));
    }
    let lidx: Vec<usize> = sub
        .and_then(|m| m.indices_of("layouts"))
        .map(|i| i.collect())
        .unwrap_or_default();
    let sidx: Vec<usize> = sub
        .and_then(|m| m.indices_of("shape"))
        .map(|i| i.collect())
        .unwrap_or_default();
    let mut shapes: [Option<&str>; 2] = [None, None];
    for (k, text) in a.shape.iter().enumerate() {
        // Without indices (not expected) fall back to pairing in order.
        let owner = match (sidx.get(k), lidx.len()) {
            (Some(&si), 2) => lidx.iter().rposition(|&li| li < si),
            _ => Some(k),
        };
        let Some(o) = owner.filter(|&o| o < 2) else {
            return Err(CliError::Malformed(format!(
                "--shape {text} comes before any layout; write it after the layout it describes"
            )));
        };
        if shapes[o].is_some() {
            return Err(CliError::Malformed(format!(
                "layout {} has two --shape options",
                if o == 0 { "A" } else { "B" }
            )));
        }
        shapes[o] = Some(text);
    }
    let la = parse_layout(&a.layouts[0])?;
    let lb = parse_layout(&a.layouts[1])?;
    let sa = shape_for(&la, shapes[0])?;
    let sb = shape_for(&lb, shapes[1])?;
    if sa.len() != sb.len() {
        return Err(CliError::Malformed(format!(
            "the shapes {} and {} have different ranks",
            fmt_tuple(&sa),
            fmt_tuple(&sb)
        )));
    }
    Ok([(la, sa), (lb, sb)])
}

fn binary(a: BinaryArgs, sub: Option<&ArgMatches>, op: Binary) -> CliResult<Output> {
    let [(la, sa), (lb, sb)] = binary_operands(&a, sub)?;
    let (result, shape) = match op {
        Binary::Tile => {
            let t = axe_layout::tile(&la, &sa, &lb, &sb)?;
            (t, axe_layout::tile::tiled_shape(&sa, &sb)?)
        }
        Binary::TileOf => {
            let c = axe_layout::tile_of(&la, &sa, &lb, &sb)?;
            (c, sa.iter().zip(&sb).map(|(x, y)| x / y).collect())
        }
        Binary::Sum => {
            let s = axe_layout::sum::direct_sum(&la, &sa, &lb, &sb)?;
            (s, axe_layout::sum::interleaved_shape(&sa, &sb)?)
        }
    };
    Ok(layout_output(&result, Some(&shape), Map::new()))
}

fn slice(a: SliceArgs) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let shape = shape_for(&l, a.shape.as_deref())?;
    let region = args::parse_region(&a.region, &shape)?;
    let s = l.slice(&shape, &region)?;
    let rshape: Vec<i64> = region.iter().map(|&(lo, hi)| hi - lo).collect();
    Ok(layout_output(&s, Some(&rshape), Map::new()))
}

fn isl(a: ShapedArgs) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let shape = shape_for(&l, a.shape.as_deref())?;
    let rel = l.to_isl(&shape)?;
    Ok(Output {
        text: format!("{rel}\n"),
        json: json!({ "layout": l.to_string(), "shape": shape, "isl": rel }),
    })
}

fn draw_verb(a: DrawArgs) -> CliResult<Output> {
    let l = parse_layout(&a.layout)?;
    let shape = shape_for(&l, a.shape.as_deref())?;
    check_enumerable(&l, "drawing")?;
    if l.size() > DRAW_LIMIT {
        return Err(CliError::NoResult(format!(
            "the picture would have {} cells, more than the limit of {DRAW_LIMIT}; draw a slice",
            l.size()
        )));
    }
    let color_by = match &a.color_by {
        Some(name) => {
            let axis = Axis::new(name.clone());
            if !l.axes().contains(&axis) && !axis.is_memory() {
                let known: Vec<String> = l.axes().iter().map(|a| a.to_string()).collect();
                return Err(CliError::Malformed(format!(
                    "--color-by {name}: the layout has no such axis (its axes: {})",
                    known.join(", ")
                )));
            }
            axis
        }
        None => draw::default_color_axis(&l),
    };
    let svg = draw::render(&l, &shape, &full_table(&l)?, &color_by);
    match &a.output {
        Some(path) => {
            std::fs::write(path, &svg)
                .map_err(|e| CliError::NoResult(format!("cannot write {}: {e}", path.display())))?;
            Ok(Output {
                text: format!("wrote {}\n", path.display()),
                json: json!({ "layout": l.to_string(), "shape": shape, "file": path.display().to_string(), "color_by": color_by.name() }),
            })
        }
        None => Ok(Output {
            json: json!({ "layout": l.to_string(), "shape": shape, "svg": svg, "color_by": color_by.name() }),
            text: svg,
        }),
    }
}

fn cute_output(c: &CuteLayout) -> Output {
    // The Axe form, when there is one (a stride-0 mode has none).
    let axe = cute::import(c).ok();
    let mut json = json!({ "cute": c.to_string() });
    if let Some(l) = &axe {
        json["layout"] = json!(l.to_string());
    }
    Output {
        text: format!("{c}\n"),
        json,
    }
}

fn cute_op(op: CuteOp) -> CliResult<Output> {
    let out = match op {
        CuteOp::Import { cute: t } => {
            let c = parse_cute(&t)?;
            let l = cute::import(&c)?;
            Output {
                text: format!("{l}\n"),
                json: json!({ "layout": l.to_string(), "cute": c.to_string() }),
            }
        }
        CuteOp::Export { layout } => {
            let l = parse_layout(&layout)?;
            let c = cute::export(&l)?;
            Output {
                text: format!("{c}\n"),
                json: json!({ "layout": l.to_string(), "cute": c.to_string() }),
            }
        }
        CuteOp::Coalesce { cute: t } => cute_output(&parse_cute(&t)?.coalesce()),
        CuteOp::Compose { a, b } => cute_output(&parse_cute(&a)?.compose(&parse_cute(&b)?)?),
        CuteOp::Complement { cute: t, cotarget } => {
            if cotarget <= 0 {
                return Err(CliError::Malformed(format!(
                    "--cotarget must be positive, got {cotarget}"
                )));
            }
            cute_output(&parse_cute(&t)?.complement(cotarget)?)
        }
        CuteOp::RightInverse { cute: t } => cute_output(&parse_cute(&t)?.right_inverse()?),
        CuteOp::LeftInverse { cute: t } => cute_output(&parse_cute(&t)?.left_inverse()?),
        CuteOp::LogicalDivide { a, b } => cute_output(&parse_cute(&a)?.logical_divide(&parse_cute(&b)?)?),
        CuteOp::LogicalProduct { a, b } => cute_output(&parse_cute(&a)?.logical_product(&parse_cute(&b)?)?),
    };
    Ok(out)
}
