//! The elementwise consumer of a matmul that `convert-linalg-to-axe` folds into the
//! `axe.matmul`'s epilogue: a `linalg.generic` (after upstream's elementwise fusion, one generic
//! holds the whole chain: narrowing, bias, activation, residual) whose body computes
//! `act(acc + bias) + residual` from the accumulator, a bias row and a residual.
//!
//! The body is read as an expression over its inputs (casts between float types looked
//! through: the epilogue computes in f32 and rounds once, to the output's type). The bias and
//! the residual are found by structure (the additions of an input broadcast along rows and of
//! an input of the output's shape); the activation, a function of one variable, by its values:
//! evaluated at points over [-6, 6] and compared with each `axe.unary` kind's definition, so
//! that any algebraic form of it (torch-mlir's erf GELU, `x * sigmoid(x)` or `x / (1 + e^-x)`)
//! is recognized, and a function that matches none is refused.

use mlir_sys::*;

use crate::dialect::ods::UnaryKind;
use crate::ir;

/// What the generic's body adds to the accumulator: input positions of the generic.
#[derive(Debug, Default, PartialEq)]
pub struct Epilogue {
    pub bias: Option<usize>,
    pub activation: Option<UnaryKind>,
    pub residual: Option<usize>,
}

/// How an input of the generic is indexed over the output's (row, column) loops.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Access {
    /// `(d0, d1) -> (d0, d1)`: the output's shape (the accumulator, a residual).
    Elementwise,
    /// `(d0, d1) -> (d1)`: one value per column, broadcast along rows (a bias).
    Row,
}

/// A body value: a generic input, a constant, or an op on values. `VAR` stands for the
/// pre-activation value once it is found.
#[derive(Clone, PartialEq, Debug)]
enum Expr {
    Input(usize),
    Const(f64),
    Op(String, Vec<Expr>),
}

const VAR: usize = usize::MAX;

/// The ops a body may use (the arithmetic torch-mlir's elementwise lowerings emit).
const OPS: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.negf",
    "arith.maximumf",
    "arith.maxnumf",
    "arith.minimumf",
    "arith.minnumf",
    "math.exp",
    "math.exp2",
    "math.log",
    "math.sqrt",
    "math.rsqrt",
    "math.tanh",
    "math.erf",
    "math.absf",
    "arith.select",
];

/// Bodies larger than this (in expression nodes, shared values counted at each use) are
/// refused rather than analysed.
const MAX_NODES: usize = 4096;

/// The access of each input of `generic`, or why one is neither.
pub fn accesses(generic: MlirOperation, inputs: usize) -> Result<Vec<Access>, String> {
    let maps = ir::attr(generic, "indexing_maps").ok_or("it has no indexing_maps")?;
    // SAFETY: `maps` is a live attribute of `generic`; elements are read within bounds, each
    // checked to be an affine map before its value is read, and each map's results within its
    // result count.
    unsafe {
        if !mlirAttributeIsAArray(maps) || (mlirArrayAttrGetNumElements(maps) as usize) != inputs + 1 {
            return Err("its indexing_maps do not match its operands".into());
        }
        (0..=inputs)
            .map(|i| {
                let a = mlirArrayAttrGetElement(maps, i as isize);
                if !mlirAttributeIsAAffineMap(a) {
                    return Err("an indexing map is not an affine map".into());
                }
                let m = mlirAffineMapAttrGetValue(a);
                if mlirAffineMapGetNumDims(m) != 2 {
                    return Err("it is not a two-dimensional loop nest".into());
                }
                if mlirAffineMapIsIdentity(m) {
                    return Ok(Access::Elementwise);
                }
                if mlirAffineMapGetNumResults(m) == 1 {
                    let e = mlirAffineMapGetResult(m, 0);
                    if mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == 1 {
                        return Ok(Access::Row);
                    }
                }
                Err(format!(
                    "operand {i}'s indexing map is neither the output's (d0, d1) nor a row broadcast (d1)"
                ))
            })
            .collect()
    }
}

/// The epilogue `generic`'s body computes from its input `acc` (the matmul's result), with
/// its inputs accessed as `access` says; or why it is not one the `axe.matmul` epilogue
/// computes.
pub fn analyse(generic: MlirOperation, acc: usize, access: &[Access]) -> Result<Epilogue, String> {
    let top = body_expression(generic, access.len())?;
    let uses_of = |e: &Expr, i: usize| count(e, &|x| *x == Expr::Input(i));
    // The residual: the last addition, of an input of the output's shape used nowhere else.
    let mut residual = None;
    let mut body = top.clone();
    if let Expr::Op(name, xs) = &top {
        if name == "arith.addf" {
            for (r, other) in [(&xs[1], &xs[0]), (&xs[0], &xs[1])] {
                if let Expr::Input(i) = *r {
                    if i != acc && access[i] == Access::Elementwise && uses_of(other, i) == 0 {
                        residual = Some(i);
                        body = other.clone();
                        break;
                    }
                }
            }
        }
    }
    // The bias: one row-broadcast input, added to the accumulator (in either order).
    let rows: Vec<usize> = (0..access.len())
        .filter(|&i| access[i] == Access::Row && uses_of(&body, i) > 0)
        .collect();
    let bias = match rows.as_slice() {
        [] => None,
        [i] => Some(*i),
        _ => return Err("it adds more than one row-broadcast operand".into()),
    };
    let pre = |e: &Expr| match (e, bias) {
        (Expr::Op(name, xs), Some(bi)) if name == "arith.addf" => {
            (xs[0] == Expr::Input(acc) && xs[1] == Expr::Input(bi))
                || (xs[1] == Expr::Input(acc) && xs[0] == Expr::Input(bi))
        }
        (Expr::Input(i), None) => *i == acc,
        _ => false,
    };
    let f = substitute(&body, &pre);
    if count(&f, &|e| matches!(e, Expr::Input(i) if *i != VAR)) > 0 {
        return Err(match bias {
            Some(_) => "it is not act(acc + bias) + residual: an operand is used other than in acc + bias or a final residual addition".into(),
            None => "it is not act(acc) + residual: an operand is used other than in a final residual addition".into(),
        });
    }
    if count(&f, &|e| *e == Expr::Input(VAR)) == 0 {
        return Err("its result does not depend on the matmul's".into());
    }
    let activation = if f == Expr::Input(VAR) {
        None
    } else {
        Some(identify(&f).ok_or("its activation is none of axe.unary's functions")?)
    };
    Ok(Epilogue {
        bias,
        activation,
        residual,
    })
}

/// A gated pair's consumer: `generic` multiplies an activation of its input `x` by its input
/// `y` (SwiGLU's silu(A W_gate) * (A W_up)), elementwise. Returns which of the two is the gate
/// and the activation, or why it is not such a product.
pub fn gated(generic: MlirOperation, x: usize, y: usize, inputs: usize) -> Result<(usize, UnaryKind), String> {
    let top = body_expression(generic, inputs)?;
    let Expr::Op(name, xs) = &top else {
        return Err("it is not a product of the two matmuls' results".into());
    };
    if name != "arith.mulf" {
        return Err("it is not a product of the two matmuls' results".into());
    }
    for (gate, up) in [(x, y), (y, x)] {
        for (f, u) in [(&xs[0], &xs[1]), (&xs[1], &xs[0])] {
            if *u != Expr::Input(up) || count(f, &|e| *e == Expr::Input(up)) > 0 {
                continue;
            }
            let g = substitute(f, &|e| *e == Expr::Input(gate));
            if count(&g, &|e| matches!(e, Expr::Input(i) if *i != VAR)) > 0 {
                continue;
            }
            if let Some(kind) = identify(&g) {
                return Ok((gate, kind));
            }
        }
    }
    Err("it is not act(one matmul's result) * the other's, with act one of axe.unary's functions".into())
}

/// The expression `generic`'s body yields (one value), over its `inputs` inputs.
fn body_expression(generic: MlirOperation, inputs: usize) -> Result<Expr, String> {
    let block = ir::region_block(generic, 0);
    let args = ir::block_arguments(block);
    let yield_op = *ir::block_ops(block).last().ok_or("its body is empty")?;
    if ir::name(yield_op) != "linalg.yield" || ir::num_operands(yield_op) != 1 {
        return Err("its body does not yield one value".into());
    }
    let mut nodes = 0;
    build(ir::operand(yield_op, 0), &args, inputs, &mut nodes)
}

/// The expression of `v` in a generic body with block arguments `args` (the first `inputs`
/// are its inputs, the last its output).
fn build(v: MlirValue, args: &[MlirValue], inputs: usize, nodes: &mut usize) -> Result<Expr, String> {
    *nodes += 1;
    if *nodes > MAX_NODES {
        return Err(format!("its body is larger than {MAX_NODES} expression nodes"));
    }
    if let Some(i) = args.iter().position(|a| a.ptr == v.ptr) {
        return if i < inputs {
            Ok(Expr::Input(i))
        } else {
            Err("its body reads the output's previous value".into())
        };
    }
    let d = ir::defining_op(v).ok_or("its body reads a value from outside that is not a constant")?;
    let name = ir::name(d);
    match name.as_str() {
        // Rounding between float types is looked through: the epilogue computes in f32.
        "arith.truncf" | "arith.extf" => build(ir::operand(d, 0), args, inputs, nodes),
        // A comparison keeps its predicate in the name (ReLU is `cmpf ugt` + `select` in
        // torch-mlir's lowering).
        "arith.cmpf" => {
            let predicate = ir::float_or_int_attr(d, "predicate").ok_or("a cmpf without a predicate")?;
            Ok(Expr::Op(
                format!("arith.cmpf:{predicate}"),
                vec![
                    build(ir::operand(d, 0), args, inputs, nodes)?,
                    build(ir::operand(d, 1), args, inputs, nodes)?,
                ],
            ))
        }
        "arith.constant" => ir::float_or_int_attr(d, "value")
            .map(Expr::Const)
            .ok_or_else(|| "its body uses a constant that is not a scalar float".into()),
        n if OPS.contains(&n) => Ok(Expr::Op(
            name.clone(),
            (0..ir::num_operands(d))
                .map(|i| build(ir::operand(d, i), args, inputs, nodes))
                .collect::<Result<_, _>>()?,
        )),
        _ => Err(format!("its body uses '{name}', which the epilogue does not compute")),
    }
}

/// The number of subexpressions of `e` (itself included) that satisfy `p`.
fn count(e: &Expr, p: &dyn Fn(&Expr) -> bool) -> usize {
    let inner = match e {
        Expr::Op(_, xs) => xs.iter().map(|x| count(x, p)).sum(),
        _ => 0,
    };
    inner + usize::from(p(e))
}

/// `e` with every subexpression that satisfies `p` replaced by the variable.
fn substitute(e: &Expr, p: &dyn Fn(&Expr) -> bool) -> Expr {
    if p(e) {
        return Expr::Input(VAR);
    }
    match e {
        Expr::Op(n, xs) => Expr::Op(n.clone(), xs.iter().map(|x| substitute(x, p)).collect()),
        _ => e.clone(),
    }
}

/// The value of `e` with the variable at `x`, in f64.
fn eval(e: &Expr, x: f64) -> f64 {
    match e {
        Expr::Input(_) => x,
        Expr::Const(c) => *c,
        Expr::Op(n, xs) => {
            let a: Vec<f64> = xs.iter().map(|y| eval(y, x)).collect();
            match n.as_str() {
                "arith.addf" => a[0] + a[1],
                "arith.subf" => a[0] - a[1],
                "arith.mulf" => a[0] * a[1],
                "arith.divf" => a[0] / a[1],
                "arith.negf" => -a[0],
                "arith.maximumf" | "arith.maxnumf" => a[0].max(a[1]),
                "arith.minimumf" | "arith.minnumf" => a[0].min(a[1]),
                "math.exp" => a[0].exp(),
                "math.exp2" => a[0].exp2(),
                "math.log" => a[0].ln(),
                "math.sqrt" => a[0].sqrt(),
                "math.rsqrt" => 1.0 / a[0].sqrt(),
                "math.tanh" => a[0].tanh(),
                "math.erf" => erf(a[0]),
                "math.absf" => a[0].abs(),
                "arith.select" => {
                    if a[0] != 0.0 {
                        a[1]
                    } else {
                        a[2]
                    }
                }
                _ => match n.strip_prefix("arith.cmpf:").and_then(|p| p.parse::<f64>().ok()) {
                    Some(p) => f64::from(u8::from(compare(p as i64, a[0], a[1]))),
                    None => f64::NAN,
                },
            }
        }
    }
}

/// `arith.cmpf`'s predicate `p` (its enum value: 1 oeq ... 6 one, 7 ord, 8 ueq ... 13 une,
/// 14 uno, 0 false, 15 true) on `x`, `y`; the unordered ones hold where either is NaN.
fn compare(p: i64, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    let holds = |rel: i64| match rel {
        1 => x == y,
        2 => x > y,
        3 => x >= y,
        4 => x < y,
        5 => x <= y,
        6 => x != y,
        _ => true,
    };
    match p {
        0 => false,
        15 => true,
        7 => !unordered,
        14 => unordered,
        1..=6 => !unordered && holds(p),
        8..=13 => unordered || holds(p - 7),
        _ => false,
    }
}

/// erf by its Maclaurin series (|x| <= 6 here; beyond 6 it is +-1 to f64's precision).
pub fn erf(x: f64) -> f64 {
    if x.abs() > 6.0 {
        return x.signum();
    }
    let (mut term, mut sum) = (x, x);
    for n in 1..400 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
        if term.abs() < 1e-18 {
            break;
        }
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// The definition of each `axe.unary` kind an activation may be, in f64.
pub fn definition(kind: UnaryKind, x: f64) -> f64 {
    let sigmoid = 1.0 / (1.0 + (-x).exp());
    match kind {
        UnaryKind::Neg => -x,
        UnaryKind::Exp => x.exp(),
        UnaryKind::Exp2 => x.exp2(),
        UnaryKind::Log => x.ln(),
        UnaryKind::Sqrt => x.sqrt(),
        UnaryKind::Rsqrt => 1.0 / x.sqrt(),
        UnaryKind::Abs => x.abs(),
        UnaryKind::Relu => x.max(0.0),
        UnaryKind::Sigmoid => sigmoid,
        UnaryKind::Silu => x * sigmoid,
        UnaryKind::Tanh => x.tanh(),
        UnaryKind::Erf => erf(x),
        UnaryKind::Gelu => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
        UnaryKind::GeluTanh => {
            0.5 * x * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x)).tanh())
        }
    }
}

/// The kind whose definition `f` follows at 241 points over [-6, 6], within 1e-3 of
/// 1 + |value| (the body's own f16 constants and roundings are about that close), the
/// closest where several do (GELU and its tanh form differ by up to 5e-4). Kinds not defined
/// on all of [-6, 6] (log, sqrt, rsqrt) are not candidates.
fn identify(f: &Expr) -> Option<UnaryKind> {
    let points: Vec<f64> = (0..=240).map(|i| -6.0 + f64::from(i) * 0.05).collect();
    let values: Vec<f64> = points.iter().map(|&x| eval(f, x)).collect();
    UnaryKind::ALL
        .iter()
        .filter(|k| !matches!(k, UnaryKind::Log | UnaryKind::Sqrt | UnaryKind::Rsqrt))
        .filter_map(|&k| {
            let worst = points
                .iter()
                .zip(&values)
                .map(|(&x, &v)| {
                    let want = definition(k, x);
                    let err = (v - want).abs() / (1.0 + want.abs());
                    if err.is_nan() {
                        f64::INFINITY
                    } else {
                        err
                    }
                })
                .fold(0.0, f64::max);
            (worst <= 1e-3).then_some((k, worst))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var() -> Expr {
        Expr::Input(VAR)
    }
    fn op(n: &str, xs: Vec<Expr>) -> Expr {
        Expr::Op(n.into(), xs)
    }
    fn c(v: f64) -> Expr {
        Expr::Const(v)
    }

    /// torch-mlir's exact GELU (x * ((erf(x / sqrt 2) + 1) * 0.5)), its tanh form with f16's
    /// rounded constants, SiLU written two ways and ReLU: each identified; a function that is
    /// none of the kinds, and the identity, are not.
    #[test]
    fn activations_are_recognized_by_their_values() {
        let x = var;
        let gelu = op(
            "arith.mulf",
            vec![
                x(),
                op(
                    "arith.mulf",
                    vec![
                        op(
                            "arith.addf",
                            vec![
                                op(
                                    "math.erf",
                                    vec![op("arith.divf", vec![x(), op("math.sqrt", vec![c(2.0)])])],
                                ),
                                c(1.0),
                            ],
                        ),
                        c(0.5),
                    ],
                ),
            ],
        );
        assert_eq!(identify(&gelu), Some(UnaryKind::Gelu));
        // 0.044715 and sqrt(2 / pi) as f16 rounds them.
        let inner = op(
            "arith.mulf",
            vec![
                c(0.797_851_562_5),
                op(
                    "arith.addf",
                    vec![
                        x(),
                        op(
                            "arith.mulf",
                            vec![
                                c(0.044_708_251_953_125),
                                op("arith.mulf", vec![x(), op("arith.mulf", vec![x(), x()])]),
                            ],
                        ),
                    ],
                ),
            ],
        );
        let gelu_tanh = op(
            "arith.mulf",
            vec![
                op("arith.mulf", vec![x(), c(0.5)]),
                op("arith.addf", vec![c(1.0), op("math.tanh", vec![inner])]),
            ],
        );
        assert_eq!(identify(&gelu_tanh), Some(UnaryKind::GeluTanh));
        let sigmoid = op(
            "arith.divf",
            vec![
                c(1.0),
                op(
                    "arith.addf",
                    vec![c(1.0), op("math.exp", vec![op("arith.negf", vec![x()])])],
                ),
            ],
        );
        assert_eq!(
            identify(&op("arith.mulf", vec![x(), sigmoid.clone()])),
            Some(UnaryKind::Silu)
        );
        assert_eq!(identify(&sigmoid), Some(UnaryKind::Sigmoid));
        assert_eq!(
            identify(&op("arith.maximumf", vec![x(), c(0.0)])),
            Some(UnaryKind::Relu)
        );
        // torch-mlir's ReLU: select(x > 0 (ugt: 9), x, 0).
        let relu = op("arith.select", vec![op("arith.cmpf:9", vec![x(), c(0.0)]), x(), c(0.0)]);
        assert_eq!(identify(&relu), Some(UnaryKind::Relu));
        // 2x, x^2 and a shifted ReLU are no kind.
        assert_eq!(identify(&op("arith.mulf", vec![x(), c(2.0)])), None);
        assert_eq!(identify(&op("arith.mulf", vec![x(), x()])), None);
        assert_eq!(identify(&op("arith.maximumf", vec![x(), c(0.01)])), None);
    }

    /// The series erf against values from tables (Abramowitz and Stegun, Table 7.1).
    #[test]
    fn erf_series_matches_tables() {
        for (x, want) in [
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (2.0, 0.995_322_265_0),
            (-1.5, -0.966_105_146_5),
        ] {
            assert!((erf(x) - want).abs() < 1e-9, "erf({x}) = {}", erf(x));
        }
    }
}
