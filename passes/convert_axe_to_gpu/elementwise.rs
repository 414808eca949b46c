//! Fill, unary, binary (numpy broadcasting) and cast on register tensors: thread-bound
//! loops driven by the destination; each thread computes the elements it owns, one
//! register at a time (straight-line code with constant register indices, which LLVM keeps
//! in registers). A fill of a global/shared tensor is distributed over the unit's threads.

use crate::error::{AtOp, AxeError};
use mlir_sys::*;

use super::address::{self, check_schedule, combos, plan_threads, refine, static_part, Operand};
use super::builder::{math, ops, ArithBinary, ArithCast, Ix, MathUnary, B};
use super::context::{coords, Ctx, R};
use super::distribute::{distributed, ownership_refusal, RegIndex};
use super::tensor::{store, tensor, Mem, Tensor};
use super::types::{bit_width, is_float};
use crate::dialect::ods::{self, BinaryKind, OdsEnum, UnaryKind};
use crate::ir;
use crate::target::ScopeKind;
use melior::dialect::arith;

pub fn fill(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    let b = B::before(op);
    let dst = tensor(ctx, op, ir::operand(op, ods::fill::operands::DEST))?;
    let value = ir::operand(op, ods::fill::operands::VALUE);
    let n = dst.size();
    let ops = [Operand {
        layout: &dst.layout,
        shape: vec![n],
        dim_map: vec![Some(0)],
    }];
    let factors = refine(&[n], &ops).at(op)?;
    if dst.mem != Mem::Register {
        return distributed(
            &b,
            op,
            ctx,
            scope,
            &factors,
            None,
            &dst,
            Some(value),
            bit_width(dst.elt),
            false,
        );
    }
    per_element(&b, op, ctx, scope, &[n], &ops, &dst, &[], |_, _| Ok(value))
}

/// `axe.iota`: each element of the register tensor becomes its coordinate along `dim`.
pub fn iota(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    let b = B::before(op);
    let dst = tensor(ctx, op, ir::operand(op, ods::iota::operands::DEST))?;
    let dim = ir::int_attr(op, ods::iota::DIM).unwrap_or(0) as usize;
    let space = dst.shape.clone();
    let ops = [Operand {
        layout: &dst.layout,
        shape: dst.shape.clone(),
        dim_map: (0..space.len()).map(Some).collect(),
    }];
    let i32t = b.int_type(32);
    per_element_at(&b, op, ctx, scope, &space, &ops, &dst, &[], |g, _, at| {
        let index = g.ix(at(dim));
        cast(g, g.index_cast(index, i32t), i32t, dst.elt)
    })
}

/// Runs `compute` for every element the thread owns in the register tensor `dst` (operand
/// 0 of `ops`), with the sources `srcs` (operands 1..) loaded from their registers, and
/// stores the result in every register replica of the element.
#[allow(clippy::too_many_arguments)]
pub fn per_element(
    b: &B,
    op: MlirOperation,
    ctx: &Ctx,
    scope: ScopeKind,
    space: &[i64],
    ops: &[Operand],
    dst: &Tensor,
    srcs: &[&Tensor],
    compute: impl Fn(&B, &[MlirValue]) -> Result<MlirValue, AxeError>,
) -> R<()> {
    per_element_at(b, op, ctx, scope, space, ops, dst, srcs, |g, vals, _| compute(g, vals))
}

/// [`per_element`], with `compute` also given the element's coordinate along each dimension
/// of `space` (`at(d)`): the sum of the factors' digits of that dimension, each by its weight
/// over the dimension's stride — constants for a thread's registers, its lane and warp digits
/// for the rest.
#[allow(clippy::too_many_arguments)]
fn per_element_at(
    b: &B,
    op: MlirOperation,
    ctx: &Ctx,
    scope: ScopeKind,
    space: &[i64],
    ops: &[Operand],
    dst: &Tensor,
    srcs: &[&Tensor],
    compute: impl Fn(&B, &[MlirValue], &dyn Fn(usize) -> Ix) -> Result<MlirValue, AxeError>,
) -> R<()> {
    for s in srcs {
        if s.mem != Mem::Register {
            return Err(AxeError::at(
                op,
                format!(
                    "elementwise operands must be register tensors (got a {:?} tensor): copy it into registers first",
                    s.mem
                )
                .to_lowercase(),
            ));
        }
    }
    if dst.mem != Mem::Register {
        return Err(AxeError::at(
            op,
            "the destination of an elementwise op must be a register tensor",
        ));
    }
    let c = coords(b, ctx, scope);
    if let Some(why) = srcs.iter().find_map(|s| ownership_refusal(dst, s, &c)) {
        return Err(AxeError::at(op, why));
    }
    let factors = refine(space, ops).at(op)?;
    let mut written = vec![false; ops.len()];
    written[0] = true;
    check_schedule(&factors, ops, 0, &written).at(op)?;
    let plan = plan_threads(b, &c, &factors, 0, &dst.layout, &dst.pinned).at(op)?;
    let statics: Vec<usize> = (0..factors.len()).filter(|&k| plan.digits[k].is_none()).collect();
    b.guarded(plan.valid, |g| {
        let extents: Vec<i64> = statics.iter().map(|&k| factors[k].extent).collect();
        for combo in combos(&extents, &vec![1; extents.len()]) {
            let mut digits = vec![0i64; factors.len()];
            for (&k, d) in statics.iter().zip(&combo) {
                digits[k] = *d;
            }
            let vals: Vec<MlirValue> = srcs
                .iter()
                .enumerate()
                .map(|(i, s)| RegIndex::of(&plan, &factors, i + 1, &s.layout, &digits).load(&g, ctx, s, 0))
                .collect();
            let at = |d: usize| -> Ix {
                let stride: i64 = space[d + 1..].iter().product();
                let mut acc = Ix::C(0);
                for (k, f) in factors.iter().enumerate() {
                    if f.dim != d {
                        continue;
                    }
                    let w = f.weight / stride;
                    acc = match plan.digits[k] {
                        Some(digit) => g.add(acc, g.mul(digit, w)),
                        None => g.add(acc, Ix::C(digits[k] * w)),
                    };
                }
                acc
            };
            let out = compute(&g, &vals, &at)?;
            let reg = static_part(&plan, &factors, 0, &dst.layout, "reg", &digits);
            for r in address::replica_offsets(&dst.layout, "reg") {
                store(&g, ctx, dst, out, Ix::C(reg + r), 1, 1);
            }
        }
        Ok::<(), AxeError>(())
    })
    .at(op)
}

fn zero(b: &B, t: MlirType) -> MlirValue {
    if is_float(t) {
        b.cfloat(0.0, t)
    } else {
        // SAFETY: `t` is a live integer or index type (module contract); the attribute is owned
        // by its context.
        b.constant_attr(unsafe { mlirIntegerAttrGet(t, 0) })
    }
}

/// `exp`, `exp2`, `log`, `sqrt`, `rsqrt` on f32 without libdevice. On the GPU the `math`
/// ops (and `llvm.intr.exp2`, which convert-gpu-to-nvvm rewrites the same way) become calls
/// into CUDA's libdevice (`__nv_expf`), which PTX loaded without linking libdevice cannot
/// resolve; the NVVM intrinsics `llvm.nvvm.ex2.approx.ftz` / `lg2.approx` are the PTX
/// instructions `ex2.approx.ftz.f32` / `lg2.approx.f32` (about 2 ulp). When the threads are
/// emulated on the CPU, the LLVM intrinsics lower to libm.
fn f32_intrinsic(b: &B, kind: UnaryKind, x: MlirValue, t: MlirType, gpu: bool) -> Option<MlirValue> {
    // SAFETY: `t` is a live type (module contract).
    if !unsafe { mlirTypeIsAF32(t) } {
        return None;
    }
    // By name, not through `axe_upstream_ods`: `llvm.call_intrinsic` has
    // `AttrSizedOperandSegments`, which the generated builders never set (see [`B::op`]), and a
    // variadic-of-variadic operand (`op_bundle_operands`) that melior's generator skips.
    let call = |name: &str, v: MlirValue| {
        b.val(
            "llvm.call_intrinsic",
            &[v],
            t,
            &[
                ("intrin", b.str_attr(name)),
                ("op_bundle_sizes", b.i32_array(&[])),
                ("operandSegmentSizes", b.i32_array(&[1, 0])),
            ],
        )
    };
    // `ex2.approx.ftz.f32`: one MUFU.EX2. Without `.ftz` ptxas wraps every one in a scaling
    // of denormal inputs and results (three more instructions on a softmax's critical path);
    // what `.ftz` changes is only results below 2^-126, which become 0.
    let exp2 = |v: MlirValue| {
        if gpu {
            call("llvm.nvvm.ex2.approx.ftz.f32", v)
        } else {
            b.llvm_exp2(v)
        }
    };
    // The divisions inside these functions' formulas need no IEEE rounding: on the GPU
    // `div.approx.f32` (2 ulp; one MUFU.RCP and a multiply, no branch), where `div.rn.f32`'s
    // slow-path branch around every element kept ptxas from interleaving them (a bias + GELU
    // epilogue ran at 0.56 of the GEMM alone).
    let div = |n: MlirValue, d: MlirValue| {
        if gpu {
            b.val(
                "llvm.call_intrinsic",
                &[n, d],
                t,
                &[
                    ("intrin", b.str_attr("llvm.nvvm.div.approx.f")),
                    ("op_bundle_sizes", b.i32_array(&[])),
                    ("operandSegmentSizes", b.i32_array(&[2, 0])),
                ],
            )
        } else {
            b.divf(n, d)
        }
    };
    // sqrt.rn.f32 on the GPU (convert-gpu-to-nvvm leaves `llvm.intr.sqrt` illegal); libm's
    // sqrtf when emulated.
    let sqrt = |v: MlirValue| {
        if gpu {
            call("llvm.nvvm.sqrt.rn.f", v)
        } else {
            b.llvm_sqrt(v)
        }
    };
    let mul = |v: MlirValue, c: f64| b.mulf(v, b.cfloat(c, t));
    Some(match kind {
        // e^x = 2^(x log2 e)
        UnaryKind::Exp => exp2(mul(x, std::f64::consts::LOG2_E)),
        UnaryKind::Exp2 => exp2(x),
        // ln x = log2(x) ln 2
        UnaryKind::Log if gpu => mul(call("llvm.nvvm.lg2.approx.f", x), std::f64::consts::LN_2),
        UnaryKind::Sqrt => sqrt(x),
        UnaryKind::Rsqrt => b.divf(b.cfloat(1.0, t), sqrt(x)),
        // sigmoid x = 1 / (1 + e^-x); silu x = x sigmoid x (the gate of SwiGLU MLPs).
        UnaryKind::Sigmoid | UnaryKind::Silu => {
            let e = exp2(mul(x, -std::f64::consts::LOG2_E));
            let one = b.cfloat(1.0, t);
            let den = b.addf(one, e);
            let num = if kind == UnaryKind::Silu { x } else { one };
            div(num, den)
        }
        UnaryKind::Tanh => tanh(b, x, t, &exp2, &div),
        UnaryKind::Erf => erf(b, x, t, &exp2, &div),
        // gelu x = x (1 + erf(x / sqrt 2)) / 2 (ONNX's Gelu, PyTorch's default).
        UnaryKind::Gelu => {
            let e = erf(b, mul(x, std::f64::consts::FRAC_1_SQRT_2), t, &exp2, &div);
            b.mulf(mul(x, 0.5), b.addf(b.cfloat(1.0, t), e))
        }
        // gelu_tanh x = x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2.
        UnaryKind::GeluTanh => {
            let cube = b.mulf(b.mulf(x, x), x);
            let inner = mul(b.addf(x, mul(cube, 0.044715)), (2.0 / std::f64::consts::PI).sqrt());
            let th = tanh(b, inner, t, &exp2, &div);
            b.mulf(mul(x, 0.5), b.addf(b.cfloat(1.0, t), th))
        }
        _ => return None,
    })
}

/// A function of values, built into the IR (the exp2 and division of [`f32_intrinsic`]).
type Unary<'a> = dyn Fn(MlirValue) -> MlirValue + 'a;
type Binary<'a> = dyn Fn(MlirValue, MlirValue) -> MlirValue + 'a;

/// tanh x = 1 - 2 / (e^(2x) + 1): exact at both infinities (e^(2x) overflows to inf, or
/// reaches 0), absolute error a few ulp of 1 near 0.
fn tanh(b: &B, x: MlirValue, t: MlirType, exp2: &Unary<'_>, div: &Binary<'_>) -> MlirValue {
    let e = exp2(b.mulf(x, b.cfloat(2.0 * std::f64::consts::LOG2_E, t)));
    let one = b.cfloat(1.0, t);
    b.arith_binary(arith::subf, one, div(b.cfloat(2.0, t), b.addf(e, one)))
}

/// erf on f32 without libdevice: Abramowitz and Stegun 7.1.26 on |x| (absolute error below
/// 1.5e-7, under an f32 ulp of 1), the sign of x put back on the result's bits.
fn erf(b: &B, x: MlirValue, t: MlirType, exp2: &Unary<'_>, div: &Binary<'_>) -> MlirValue {
    const P: f64 = 0.327_591_1;
    const A: [f64; 5] = [
        0.254_829_592,
        -0.284_496_736,
        1.421_413_741,
        -1.453_152_027,
        1.061_405_429,
    ];
    let i32t = b.int_type(32);
    let bits = b.arith_cast(arith::bitcast, x, i32t);
    let sign = b.andi(bits, b.cint(i64::from(i32::MIN), 32));
    let magnitude = b.andi(bits, b.cint(i64::from(i32::MAX), 32));
    let ax = b.arith_cast(arith::bitcast, magnitude, t);
    let one = b.cfloat(1.0, t);
    let tt = div(one, b.addf(one, b.mulf(ax, b.cfloat(P, t))));
    // Horner: t (a1 + t (a2 + t (a3 + t (a4 + t a5)))).
    let mut poly = b.cfloat(A[4], t);
    for &a in A[..4].iter().rev() {
        poly = b.addf(b.cfloat(a, t), b.mulf(tt, poly));
    }
    poly = b.mulf(tt, poly);
    // e^(-x^2) = 2^(-x^2 log2 e)
    let g = exp2(b.mulf(b.mulf(ax, ax), b.cfloat(-std::f64::consts::LOG2_E, t)));
    let y = b.arith_binary(arith::subf, one, b.mulf(poly, g));
    let ybits = b.arith_cast(arith::bitcast, y, i32t);
    b.arith_cast(arith::bitcast, b.ori(ybits, sign), t)
}

pub fn unary(b: &B, kind: UnaryKind, x: MlirValue, t: MlirType, gpu: bool) -> Result<MlirValue, AxeError> {
    if let Some(v) = f32_intrinsic(b, kind, x, t, gpu) {
        return Ok(v);
    }
    let f = is_float(t);
    use UnaryKind::*;
    // The functions defined only through f32 arithmetic: narrower floats go through f32 and
    // are rounded once.
    if f && matches!(kind, Tanh | Erf | Gelu | GeluTanh) {
        let f32t = b.f32_type();
        let wide = b.extf(x, f32t);
        let y = f32_intrinsic(b, kind, wide, f32t, gpu).ok_or_else(|| {
            AxeError::Message(format!("unary kind {kind} is not defined on {}", ir::type_to_string(t)))
        })?;
        return Ok(b.truncf(y, t));
    }
    let build: MathUnary = match (kind, f) {
        (Neg, true) => return Ok(b.negf(x)),
        (Exp, true) => math::exp,
        (Exp2, true) => math::exp2,
        (Log, true) => math::log,
        (Sqrt, true) => math::sqrt,
        (Rsqrt, true) => math::rsqrt,
        // |x| without math.absf / math.absi: on the GPU those become calls into libdevice
        // (`__nv_fabsf`, `__nv_abs`), which PTX loaded without linking libdevice cannot resolve
        // (found by `axe-fuzz lowering-gpu`). A float's sign bit cleared is exact for every
        // value (NaN, -0.0); an integer's is max(x, -x) (C's abs: INT_MIN stays INT_MIN).
        (Abs, true) => {
            let bits = b.int_type(bit_width(t) as u32);
            let as_int = b.arith_cast(arith::bitcast, x, bits);
            let magnitude = b.andi(as_int, b.cint(!(1i64 << (bit_width(t) - 1)), bit_width(t) as u32));
            return Ok(b.arith_cast(arith::bitcast, magnitude, t));
        }
        // max(x, -x) is recognized as `llvm.abs` and selected as `abs.s32`, so no min/max
        // reaches ptxas (see `signed_min_max`).
        (Abs, false) => return Ok(b.maxsi(x, b.subi(zero(b, t), x))),
        (Relu, true) => return Ok(b.maximumf(x, zero(b, t))),
        (Relu, false) => return Ok(signed_min_max(b, BinaryKind::Max, x, zero(b, t), t)),
        (Neg, false) => return Ok(b.subi(zero(b, t), x)),
        (Sigmoid | Silu, true) => {
            let e = b.math_unary(math::exp, b.negf(x));
            let one = b.cfloat(1.0, t);
            let den = b.addf(one, e);
            let num = if kind == Silu { x } else { one };
            return Ok(b.divf(num, den));
        }
        (Exp | Exp2 | Log | Sqrt | Rsqrt | Sigmoid | Silu, false) | (Tanh | Erf | Gelu | GeluTanh, _) => {
            return Err(AxeError::Message(format!(
                "unary kind {kind} is not defined on {}",
                ir::type_to_string(t)
            )))
        }
    };
    Ok(b.math_unary(build, x))
}

/// `fastmath`: the op's `#arith.fastmath<...>` flags, given to the arith op of a float kind
/// (`contract` lets LLVM fuse a multiply and the add that consumes it: see `axe.binary`).
pub fn binary(
    b: &B,
    kind: BinaryKind,
    x: MlirValue,
    y: MlirValue,
    t: MlirType,
    fastmath: Option<MlirAttribute>,
) -> MlirValue {
    use BinaryKind::*;
    let build: ArithBinary = match (kind, is_float(t)) {
        (Add, true) => arith::addf,
        (Add, false) => arith::addi,
        (Sub, true) => arith::subf,
        (Sub, false) => arith::subi,
        (Mul, true) => arith::mulf,
        (Mul, false) => arith::muli,
        (Div, true) => arith::divf,
        (Div, false) => arith::divsi,
        (Max, true) => ops::maximumf,
        (Min, true) => ops::minimumf,
        (Max | Min, false) => return signed_min_max(b, kind, x, y, t),
    };
    let v = b.arith_binary(build, x, y);
    if let (Some(flags), Some(op), true) = (fastmath, ir::defining_op(v), is_float(t)) {
        // SAFETY: `op` was just built here (a float arith op, which has `fastmath`); the
        // attribute is the source op's, owned by the same context.
        unsafe { ir::set_attr(op, "fastmath", flags) };
    }
    v
}

/// The signed minimum or maximum of two integers, computed as the unsigned one of the operands
/// with their sign bits flipped (flipping the sign bit maps the signed order onto the unsigned
/// one), then flipped back.
///
/// Why not `arith.maxsi`/`minsi`: ptxas (CUDA 13.0, -O1 and above) fuses two signed 32-bit
/// min/max into `VIMNMX3` and folds the negation of its middle operand into the instruction,
/// where it is lost: `max(-a, -b, -c)` becomes `max(-a, b, -c)` (`fuzz/gpu/repros/README.md`).
/// It does not fold negations into the unsigned form, and LLVM keeps the unsigned form (it
/// cancels the flips between chained min/max, so a reduction pays two `xor`s in all).
fn signed_min_max(b: &B, kind: BinaryKind, x: MlirValue, y: MlirValue, t: MlirType) -> MlirValue {
    let width = bit_width(t);
    let sign = b.cint(i64::MIN >> (64 - width), width as u32);
    let (x, y) = (b.xori(x, sign), b.xori(y, sign));
    let unsigned = match kind {
        BinaryKind::Max => arith::maxui,
        BinaryKind::Min => arith::minui,
        _ => unreachable!("signed_min_max is called for Max and Min only"),
    };
    b.xori(b.arith_binary(unsigned, x, y), sign)
}

fn cast(b: &B, x: MlirValue, from: MlirType, to: MlirType) -> Result<MlirValue, AxeError> {
    let (fw, tw) = (bit_width(from), bit_width(to));
    let build: ArithCast = match (is_float(from), is_float(to)) {
        (true, true) if fw < tw => arith::extf,
        (true, true) if fw > tw => arith::truncf,
        (false, false) if fw < tw => arith::extsi,
        (false, false) if fw > tw => arith::trunci,
        (false, true) => arith::sitofp,
        (true, false) => arith::fptosi,
        // SAFETY: both types are live (module contract); they are only compared.
        _ if unsafe { mlirTypeEqual(from, to) } => return Ok(x),
        _ => {
            return Err(AxeError::Message(format!(
                "cannot cast {} to {}",
                ir::type_to_string(from),
                ir::type_to_string(to)
            )))
        }
    };
    Ok(b.arith_cast(build, x, to))
}

pub fn lower(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    let b = B::before(op);
    let name = ir::name(op);
    // The kind of a unary or binary op (a cast has none); a value ODS does not declare is an
    // error, never another kind.
    let (unary_kind, binary_kind) = match name.as_str() {
        ods::ops::UNARY => (Some(kind_of::<UnaryKind>(op, ods::unary::KIND)?), None),
        ods::ops::BINARY => (None, Some(kind_of::<BinaryKind>(op, ods::binary::KIND)?)),
        _ => (None, None),
    };
    let n_src = if name == ods::ops::BINARY { 2 } else { 1 };
    let srcs: Vec<Tensor> = (0..n_src)
        .map(|i| tensor(ctx, op, ir::operand(op, i)))
        .collect::<R<_>>()?;
    let dst = tensor(ctx, op, ir::operand(op, n_src))?;
    let space = dst.shape.clone();
    let ident: Vec<Option<usize>> = (0..space.len()).map(Some).collect();
    let mut ops = vec![Operand {
        layout: &dst.layout,
        shape: dst.shape.clone(),
        dim_map: ident.clone(),
    }];
    for s in &srcs {
        if s.shape.len() != space.len() {
            return Err(AxeError::at(op, "internal: an operand of another rank than the destination's (the unary, binary and cast verifiers require it)"));
        }
        ops.push(Operand {
            layout: &s.layout,
            shape: s.shape.clone(),
            dim_map: ident.clone(),
        });
    }
    let refs: Vec<&Tensor> = srcs.iter().collect();
    let (st, dt) = (srcs[0].elt, dst.elt);
    let gpu = !ctx.emulate;
    let fastmath = ir::attr(op, "fastmath");
    per_element(&b, op, ctx, scope, &space, &ops, &dst, &refs, |g, v| {
        match (unary_kind, binary_kind) {
            (Some(k), _) => unary(g, k, v[0], dt, gpu),
            (_, Some(k)) => Ok(binary(g, k, v[0], v[1], dt, fastmath)),
            _ => cast(g, v[0], st, dt),
        }
    })
}

/// The `kind` attribute `attr` of a unary, binary or reduce op (the first case, as before,
/// when absent, which the verifier does not allow).
pub fn kind_of<E: OdsEnum>(op: MlirOperation, attr: &str) -> R<E> {
    let kind = ir::enum_attr::<E>(op, attr)?;
    Ok(kind.unwrap_or(E::ALL[0]))
}
