//! Typed constructors of the Axe ops the passes that build Axe IR create (`axe-expand-matmul`,
//! `axe-expand-attention`, `convert-linalg-to-axe`), over melior's builders
//! generated from the dialect's ODS (`axe_ods_builders::axe`): an operand, attribute or
//! region renamed in ODS is a compile error here. Each takes the insertion point
//! ([`B`]) and returns what the op defines.
//!
//! melior's generated builders add the operands of an op with `AttrSizedOperandSegments` but
//! not the `operandSegmentSizes` attribute that splits them (melior-macro 0.20.8), so
//! [`slice`] and [`copy`] set it themselves.

use axe_layout::Layout;
use axe_ods_builders::axe;
use melior::ir::attribute::{AttributeLike, IntegerAttribute};
use melior::ir::{Block, Region, RegionLike};
use mlir_sys::*;

use crate::convert_axe_to_gpu::builder::B;
use crate::dialect::ods::{BinaryKind, CopySchedule, MemoryScope, OdsEnum, ReduceKind, ScopeKind, UnaryKind};
use crate::dialect::{self, ffi};
use crate::ir;

/// melior's view of a live value of the IR being built.
fn v<'c, 'a>(x: MlirValue) -> melior::ir::Value<'c, 'a> {
    // SAFETY: every value handed to these constructors is a live value of the IR the pass owns,
    // visible at the insertion point, and the view is used only to build one op right away.
    unsafe { melior::ir::Value::from_raw(x) }
}

/// The result of a just-built op with one result.
fn result(op: MlirOperation) -> MlirValue {
    ir::result(op, 0)
}

/// An `!axe.tensor<shape x element, scope, layout | ?>` (`swizzle`: its 128-byte swizzle's
/// B, M, S, or none).
pub fn tensor_type(
    b: &B,
    shape: &[i64],
    element: MlirType,
    scope: MemoryScope,
    layout: Option<&Layout>,
    swizzle: Option<(i32, i32, i32)>,
) -> MlirType {
    // SAFETY: the context is live (builder contract); the layout attribute is built in it.
    let context = unsafe { melior::ContextRef::from_raw(b.ctx) };
    let layout = layout.map_or(MlirAttribute { ptr: std::ptr::null() }, |l| {
        // SAFETY: as above: the context outlives the attribute built in it.
        dialect::layout_attr(unsafe { context.to_ref() }, l).to_raw()
    });
    // SAFETY: `shape` is borrowed for the call; `element` and `layout` (or null: `?`) are of the
    // builder's context; the scope is an ODS value of MemoryScope.
    let t = unsafe {
        ffi::axeTensorTypeGet(
            b.ctx,
            shape.len() as isize,
            shape.as_ptr(),
            element,
            scope.as_i64() as i32,
            layout,
        )
    };
    match swizzle {
        // SAFETY: `t` is the `!axe.tensor` just built.
        Some((bits, base, shift)) => unsafe { ffi::axeTensorTypeWithSwizzle(t, bits, base, shift) },
        None => t,
    }
}

pub fn token_type(b: &B) -> MlirType {
    // SAFETY: the context is live (builder contract).
    unsafe { ffi::axeTokenTypeGet(b.ctx) }
}

pub fn mbarrier_type(b: &B) -> MlirType {
    // SAFETY: the context is live (builder contract).
    unsafe { ffi::axeMBarrierTypeGet(b.ctx) }
}

/// The i32 attribute of an ODS enum case.
fn enum_attr<'c, E: OdsEnum>(b: &B, e: E) -> melior::ir::Attribute<'c> {
    B::attribute(ir::integer_attr(b.ctx, 32, e.as_i64()))
}

fn i64_attr<'c>(b: &B, x: i64) -> IntegerAttribute<'c> {
    IntegerAttribute::try_from(B::attribute(ir::integer_attr(b.ctx, 64, x))).expect("an integer attribute")
}

fn unit<'c>(b: &B) -> melior::ir::Attribute<'c> {
    // SAFETY: the context is live (builder contract).
    B::attribute(unsafe { mlirUnitAttrGet(b.ctx) })
}

fn dense<'c>(b: &B, xs: &[i64]) -> melior::ir::Attribute<'c> {
    B::attribute(b.i64_array(xs))
}

/// Sets the `operandSegmentSizes` of a just-built op (see the module's documentation).
fn segments(b: &B, op: MlirOperation, sizes: &[i32]) {
    // SAFETY: `op` was just built with exactly these operand groups; the attribute is the
    // dense i32 array its C++ accessors read.
    unsafe { ir::set_attr(op, "operandSegmentSizes", b.i32_array(sizes)) };
}

/// A new region of one empty block (a kernel's or scope's body) and that block.
fn body_region<'c>() -> (Region<'c>, MlirBlock) {
    let region = Region::new();
    let block = region.append_block(Block::new(&[])).to_raw();
    (region, block)
}

/// `axe.kernel grid [grid] threads [threads] (cluster [cluster])? (cooperative)? { body }`.
pub fn kernel(
    b: &B,
    grid: i64,
    threads: i64,
    cluster: Option<i64>,
    cooperative: bool,
    body: impl FnOnce(B),
) -> MlirOperation {
    let (region, block) = body_region();
    body(b.at_end(block));
    b.build(|c, l| {
        let mut k = axe::KernelOperation::builder(c, l)
            .grid(dense(b, &[grid]))
            .threads(dense(b, &[threads]))
            .body(region);
        if let Some(n) = cluster {
            k = k.cluster(dense(b, &[n]));
        }
        if cooperative {
            k = k.cooperative(unit(b));
        }
        k.build()
    })
}

/// `axe.scope <kind> [lo : hi] { body }`.
pub fn scope(b: &B, kind: ScopeKind, lo: i64, hi: i64, body: impl FnOnce(B)) -> MlirOperation {
    let (region, block) = body_region();
    body(b.at_end(block));
    b.build(|c, l| {
        axe::ScopeOperation::builder(c, l)
            .kind(enum_attr(b, kind))
            .lo(i64_attr(b, lo))
            .hi(i64_attr(b, hi))
            .body(region)
            .build()
    })
}

/// `axe.unit_id <kind> (in_cluster)?`.
pub fn unit_id(b: &B, kind: ScopeKind, in_cluster: bool) -> MlirValue {
    let index = b.index();
    result(b.build(|c, l| {
        let u = axe::UnitIdOperation::builder(c, l)
            .result(B::type_(index))
            .kind(enum_attr(b, kind));
        if in_cluster {
            u.in_cluster(unit(b)).build()
        } else {
            u.build()
        }
    }))
}

/// `axe.alloc : t`.
pub fn alloc(b: &B, t: MlirType) -> MlirValue {
    result(b.build(|c, l| axe::AllocOperation::builder(c, l).result(B::type_(t)).build()))
}

/// One dimension of an `axe.slice` region: `lo : hi` (static), `%origin : +size` (a tile), or
/// `%origin : +size until %end` (a window at any origin whose elements at or past `%end` do
/// not exist).
#[derive(Clone, Copy)]
pub enum Dim {
    Static(i64, i64),
    At(MlirValue, i64),
    Until(MlirValue, i64, MlirValue),
}

/// `axe.slice %source [dims] ({clip})? : source to t`.
pub fn slice(b: &B, source: MlirValue, dims: &[Dim], clip: bool, t: MlirType) -> MlirValue {
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    let mut origins = Vec::new();
    let mut ends = Vec::new();
    let mut bounded = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        match *d {
            Dim::Static(lo, hi) => {
                lower.push(lo);
                upper.push(hi);
            }
            Dim::At(origin, size) | Dim::Until(origin, size, _) => {
                lower.push(i64::MIN); // ShapedType::kDynamic: a run-time origin
                upper.push(size);
                origins.push(v(origin));
            }
        }
        if let Dim::Until(_, _, end) = *d {
            ends.push(v(end));
            bounded.push(i as i64);
        }
    }
    let op = b.build(|c, l| {
        let s = axe::SliceOperation::builder(c, l)
            .result(B::type_(t))
            .source(v(source))
            .origins(&origins)
            .ends(&ends)
            .lower(dense(b, &lower))
            .upper(dense(b, &upper));
        let s = if bounded.is_empty() {
            s
        } else {
            s.bounded(dense(b, &bounded))
        };
        if clip {
            s.clip(unit(b)).build()
        } else {
            s.build()
        }
    });
    segments(b, op, &[1, origins.len() as i32, ends.len() as i32]);
    result(op)
}

/// How an `axe.copy` runs: its schedule and the async/barrier/multicast/reduce options.
#[derive(Clone, Copy)]
pub struct CopyOptions {
    pub schedule: CopySchedule,
    pub async_: bool,
    pub barrier: Option<MlirValue>,
    pub multicast: Option<i64>,
}

impl CopyOptions {
    pub const AUTO: CopyOptions = CopyOptions {
        schedule: CopySchedule::Auto,
        async_: false,
        barrier: None,
        multicast: None,
    };
}

/// `axe.copy (async)? %source, %dest schedule ... (barrier %b)? (multicast [d])?`.
pub fn copy(b: &B, source: MlirValue, dest: MlirValue, o: CopyOptions) {
    let op = b.build(|c, l| {
        let mut x = axe::CopyOperation::builder(c, l)
            .source(v(source))
            .dest(v(dest))
            .schedule(enum_attr(b, o.schedule));
        if o.async_ {
            x = x.r#async(unit(b));
        }
        if let Some(bar) = o.barrier {
            x = x.barrier(v(bar));
        }
        if let Some(d) = o.multicast {
            x = x.multicast(dense(b, &[d]));
        }
        x.build()
    });
    segments(b, op, &[1, 1, 0, i32::from(o.barrier.is_some())]);
}

/// `%bar = axe.mbarrier arrivals n`.
pub fn mbarrier(b: &B, arrivals: i64) -> MlirValue {
    let t = mbarrier_type(b);
    result(b.build(|c, l| {
        axe::MBarrierOperation::builder(c, l)
            .barrier(B::type_(t))
            .arrivals(i64_attr(b, arrivals))
            .build()
    }))
}

/// `axe.mbarrier_wait %bar, %parity`.
pub fn mbarrier_wait(b: &B, bar: MlirValue, parity: MlirValue) {
    b.build(|c, l| {
        axe::MBarrierWaitOperation::builder(c, l)
            .barrier(v(bar))
            .parity(v(parity))
            .build()
    });
}

/// `axe.mbarrier_arrive %bar (cta %cta)?`.
pub fn mbarrier_arrive(b: &B, bar: MlirValue, cta: Option<MlirValue>) {
    b.build(|c, l| {
        let x = axe::MBarrierArriveOperation::builder(c, l).barrier(v(bar));
        match cta {
            Some(cta) => x.cta(v(cta)).build(),
            None => x.build(),
        }
    });
}

/// `axe.set_max_registers n`.
pub fn set_max_registers(b: &B, n: i64) {
    b.build(|c, l| {
        axe::SetMaxRegistersOperation::builder(c, l)
            .count(i64_attr(b, n))
            .build()
    });
}

/// `axe.fill %dest, %value`.
pub fn fill(b: &B, dest: MlirValue, value: MlirValue) {
    b.build(|c, l| axe::FillOperation::builder(c, l).dest(v(dest)).value(v(value)).build());
}

/// `axe.iota %dest dim d`.
pub fn iota(b: &B, dest: MlirValue, dim: i64) {
    b.build(|c, l| {
        axe::IotaOperation::builder(c, l)
            .dest(v(dest))
            .dim(i64_attr(b, dim))
            .build()
    });
}

/// `%tok = axe.gemm async %a, %b, %c ({transpose_b})?`.
pub fn gemm_async(b: &B, a: MlirValue, bt: MlirValue, acc: MlirValue, transpose_b: bool) -> MlirValue {
    gemm_async_into(b, a, bt, acc, transpose_b, false)
}

/// `%tok = axe.gemm async %a, %b, %c ({transpose_b, overwrite})?`: with `overwrite`, C = A B
/// (C's prior contents not read).
pub fn gemm_async_into(
    b: &B,
    a: MlirValue,
    bt: MlirValue,
    acc: MlirValue,
    transpose_b: bool,
    overwrite: bool,
) -> MlirValue {
    let t = token_type(b);
    result(b.build(|c, l| {
        let g = axe::GemmOperation::builder(c, l)
            .a(v(a))
            .b(v(bt))
            .c(v(acc))
            .r#async(unit(b))
            .token(B::type_(t));
        let g = if transpose_b { g.transpose_b(unit(b)) } else { g };
        if overwrite {
            g.overwrite(unit(b)).build()
        } else {
            g.build()
        }
    }))
}

/// `axe.wait (%tokens)? (outstanding n)?`.
pub fn wait(b: &B, tokens: &[MlirValue], outstanding: i64) {
    let tokens: Vec<_> = tokens.iter().map(|&t| v(t)).collect();
    b.build(|c, l| {
        let w = axe::WaitOperation::builder(c, l).tokens(&tokens);
        if outstanding > 0 {
            w.outstanding(i64_attr(b, outstanding)).build()
        } else {
            w.build()
        }
    });
}

/// How an `axe.binary`'s float results may be computed (its `fastmath` flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastMath {
    /// Each result rounded on its own (no flags), as `arith` means by default.
    None,
    /// `#arith.fastmath<contract>`: a product may be fused with the add that consumes it.
    Contract,
}

/// `axe.binary <kind> %lhs, %rhs, %dest`, with `fastmath = #arith.fastmath<contract>` for
/// [`FastMath::Contract`].
pub fn binary(b: &B, kind: BinaryKind, lhs: MlirValue, rhs: MlirValue, dest: MlirValue, fm: FastMath) {
    b.build(|c, l| {
        let op = axe::BinaryOperation::builder(c, l)
            .kind(enum_attr(b, kind))
            .lhs(v(lhs))
            .rhs(v(rhs))
            .dest(v(dest));
        match fm {
            FastMath::None => op.build(),
            // arith's flags have no C constructor (see `B::attr`).
            FastMath::Contract => op.fastmath(B::attribute(b.attr("#arith.fastmath<contract>"))).build(),
        }
    });
}

/// `axe.reduce <kind> %source, %dest dims [dims]`.
pub fn reduce(b: &B, kind: ReduceKind, source: MlirValue, dest: MlirValue, dims: &[i64]) {
    b.build(|c, l| {
        axe::ReduceOperation::builder(c, l)
            .kind(enum_attr(b, kind))
            .source(v(source))
            .dest(v(dest))
            .dims(dense(b, dims))
            .build()
    });
}

/// `axe.unary <kind> %source, %dest`.
pub fn unary(b: &B, kind: UnaryKind, source: MlirValue, dest: MlirValue) {
    b.build(|c, l| {
        axe::UnaryOperation::builder(c, l)
            .kind(enum_attr(b, kind))
            .source(v(source))
            .dest(v(dest))
            .build()
    });
}

/// An `axe.matmul`'s optional parts: its epilogue, C = activation(A B + bias) + residual, and
/// split-K's workspace (partial sums, flags).
#[derive(Clone, Copy, Default)]
pub struct MatmulParts {
    pub bias: Option<MlirValue>,
    pub activation: Option<UnaryKind>,
    pub residual: Option<MlirValue>,
    pub workspace: Option<(MlirValue, MlirValue)>,
    /// A gated product: its gate activation, and its up weights (apart from B).
    pub gate: Option<UnaryKind>,
    pub b_up: Option<MlirValue>,
    /// B (and the up weights) given as [N, K].
    pub transpose_b: bool,
}

/// `axe.matmul %a, %b, %c` with `parts` (no scales or gather; the schedule left to
/// `axe-matmul-schedule`).
pub fn matmul(b: &B, a: MlirValue, bm: MlirValue, c: MlirValue, parts: MatmulParts) -> MlirOperation {
    let op = b.build(|ctx, l| {
        let mut m = axe::MatmulOperation::builder(ctx, l).a(v(a)).b(v(bm)).c(v(c));
        if let Some((p, f)) = parts.workspace {
            m = m.partials(v(p)).flags(v(f));
        }
        if let Some(x) = parts.bias {
            m = m.bias(v(x));
        }
        if let Some(x) = parts.residual {
            m = m.residual(v(x));
        }
        if let Some(k) = parts.activation {
            m = m.activation(enum_attr(b, k));
        }
        if let Some(k) = parts.gate {
            m = m.gate(enum_attr(b, k));
        }
        if let Some(x) = parts.b_up {
            m = m.b_up(v(x));
        }
        if parts.transpose_b {
            m = m.transpose_b(unit(b));
        }
        m.build()
    });
    let present = |x: Option<MlirValue>| i32::from(x.is_some());
    let workspace = i32::from(parts.workspace.is_some());
    // A, B, C, scale_a, scale_b, partials, flags, gathered, gather_flags, epoch, bias, residual,
    // b_up.
    segments(
        b,
        op,
        &[
            1,
            1,
            1,
            0,
            0,
            workspace,
            workspace,
            0,
            0,
            0,
            present(parts.bias),
            present(parts.residual),
            present(parts.b_up),
        ],
    );
    op
}

/// `%t = axe.view %memref : memref to t`.
pub fn view(b: &B, memref: MlirValue, t: MlirType) -> MlirValue {
    result(b.build(|c, l| {
        axe::ViewOperation::builder(c, l)
            .result(B::type_(t))
            .source(v(memref))
            .build()
    }))
}

/// `%r = axe.device_id`: the executing device's rank in the enclosing mesh.
pub fn device_id(b: &B) -> MlirValue {
    let index = b.index();
    result(b.build(|c, l| axe::DeviceIdOperation::builder(c, l).result(B::type_(index)).build()))
}

/// `axe.cast %source, %dest`.
pub fn cast(b: &B, source: MlirValue, dest: MlirValue) {
    b.build(|c, l| {
        axe::CastOperation::builder(c, l)
            .source(v(source))
            .dest(v(dest))
            .build()
    });
}

/// `axe.signal %flag, %value`: publish `value` after the executing unit's writes (release).
pub fn signal(b: &B, flag: MlirValue, value: MlirValue) {
    b.build(|c, l| {
        axe::SignalOperation::builder(c, l)
            .flag(v(flag))
            .value(v(value))
            .build()
    });
}

/// `axe.signal_wait %flag, %value`: wait until the flag holds `value` (acquire).
pub fn signal_wait(b: &B, flag: MlirValue, value: MlirValue) {
    b.build(|c, l| {
        axe::SignalWaitOperation::builder(c, l)
            .flag(v(flag))
            .value(v(value))
            .build()
    });
}
