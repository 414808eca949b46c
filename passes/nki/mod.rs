//! `axe-to-nki`: emit an NKI (Neuron Kernel Interface) Python kernel for AWS Trainium 1.
//!
//! Input: a module with `axe.target = #axe.target<"trn1">` whose `func.func` kernels take
//! `!axe.tensor<..., global, ...>` HBM tensors (row-major: the layout NKI gives kernel arguments)
//! and use `axe.alloc` (sbuf/psum), `axe.slice` (a view of an on-chip tensor with a given
//! layout), `axe.copy` (HBM↔SBUF, PSUM→SBUF), `axe.fill`, `axe.gemm` (TensorE, dispatched as
//! in the Axe paper §3.4: [`dispatch`]) and the pointwise/reduce ops softmax needs.
//!
//! Every SBUF/PSUM tensor becomes one 2-D NKI buffer `(partitions, free)`; its layout (over the
//! axes `P` and `F`) says where each logical element lives in that buffer. Copies and the
//! matmul dispatch derive rectangular tiles and `nl.affine_range` loop nests from the layouts
//! ([`plan`]); [`emit`] prints the Python. What the generated code relies on from NKI is the
//! documented API recorded in `test/Target/NKI/check_nki_api.py`.
//!
//! Refusals (layouts TensorE cannot use, tile or memory limits, ops outside the supported
//! subset) are located diagnostics; the translation then fails (exit code 1).

pub mod dispatch;
pub mod emit;
pub mod plan;

use std::collections::HashMap;

use axe_layout::{Axis, Layout};
use axe_upstream_ods::{arith, func};
use melior::ir::operation::OperationRefMut;
use mlir_sys::*;

use crate::dialect::ods::{self, BinaryKind, MemoryScope, OdsEnum, ReduceKind, UnaryKind};
use crate::error::AxeError;
pub(crate) use crate::ir;

/// Trainium 1 (NeuronCore-v2) facts used by the emitter; see check_nki_api.py for sources.
pub mod hw {
    /// SBUF/PSUM partitions (`nl.tile_size.pmax`).
    pub const PARTITIONS: i64 = 128;
    /// nc_matmul: stationary free size ≤ 128 (the instruction's M).
    pub const STATIONARY_FMAX: i64 = 128;
    /// nc_matmul: moving free size ≤ 512 (the instruction's N).
    pub const MOVING_FMAX: i64 = 512;
    /// One PSUM bank holds 2 KiB per partition (512 fp32); matmul output stays in one bank.
    pub const PSUM_BANK_BYTES: i64 = 2048;
    /// 8 PSUM banks: 16 KiB per partition (2 MiB PSUM / 128 partitions).
    pub const PSUM_BYTES_PER_PARTITION: i64 = 16384;
}

/// A translation result; a failure is a diagnostic located at an operation.
pub type Res<T> = crate::error::Result<T>;

/// Fails with `msg` located at `op`.
pub fn diag<T>(op: MlirOperation, msg: impl Into<String>) -> Res<T> {
    Err(AxeError::at(op, msg))
}

/// Entry point (passes/lib.rs): the Python text, or None after emitting diagnostics.
pub fn translate(op: OperationRefMut) -> Option<String> {
    let raw = op.to_raw();
    match translate_module(raw) {
        Ok(text) => Some(text),
        Err(e) => {
            e.emit(raw);
            None
        }
    }
}

/// The memory scope of an `!axe.tensor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Hbm,
    Sbuf,
    Psum,
}

impl Scope {
    /// The Axe memory scope NKI's memory is.
    pub fn memory_scope(self) -> MemoryScope {
        match self {
            Scope::Hbm => MemoryScope::Global,
            Scope::Sbuf => MemoryScope::SBuf,
            Scope::Psum => MemoryScope::PSum,
        }
    }

    /// The scope's name in Axe's syntax (`global`, `sbuf`, `psum`).
    pub fn name(self) -> &'static str {
        self.memory_scope().as_str()
    }
}

/// An Axe tensor as the emitter sees it.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// The Python name of its buffer (HBM argument or on-chip `nl.ndarray`).
    pub buf: String,
    pub shape: Vec<i64>,
    /// The element type.
    pub elem: Elem,
    pub scope: Scope,
    pub layout: Layout,
}

impl Tensor {
    pub fn elem_bytes(&self) -> i64 {
        self.elem.bytes()
    }
}

/// The element types NKI kernels are emitted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F16,
    BF16,
    F32,
}

impl Elem {
    /// The element type of the shaped type `t`, when it is one NKI kernels are emitted for.
    fn of_shaped(t: MlirType) -> Option<Elem> {
        // SAFETY: `t` is a live type (module contract); the element type is read only from a
        // shaped type, and each predicate only inspects the (live) type it is given.
        unsafe {
            if !mlirTypeIsAShaped(t) {
                return None;
            }
            let e = mlirShapedTypeGetElementType(t);
            if mlirTypeIsAF16(e) {
                Some(Elem::F16)
            } else if mlirTypeIsABF16(e) {
                Some(Elem::BF16)
            } else if mlirTypeIsAF32(e) {
                Some(Elem::F32)
            } else {
                None
            }
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> i64 {
        match self {
            Elem::F32 => 4,
            Elem::F16 | Elem::BF16 => 2,
        }
    }

    /// The MLIR spelling (`f16`, `bf16`, `f32`).
    pub fn name(self) -> &'static str {
        match self {
            Elem::F16 => "f16",
            Elem::BF16 => "bf16",
            Elem::F32 => "f32",
        }
    }
}

impl std::fmt::Display for Elem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The printed form of a type, for diagnostics only.
fn type_text(t: MlirType) -> String {
    ir::type_to_string(t)
}

/// The function a unary, binary or reduce op applies: its ODS kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pointwise {
    Unary(UnaryKind),
    Binary(BinaryKind),
    Reduce(ReduceKind),
}

impl Pointwise {
    /// The kind's ODS string (`exp`, `add`, `sum`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Pointwise::Unary(k) => k.as_str(),
            Pointwise::Binary(k) => k.as_str(),
            Pointwise::Reduce(k) => k.as_str(),
        }
    }
}

/// The kind of a unary/binary/reduce op; a value ODS does not declare is an error.
fn pointwise_kind(op: MlirOperation, op_name: &str) -> Res<Pointwise> {
    fn kind<E: OdsEnum>(op: MlirOperation, attr: &str, wrap: fn(E) -> Pointwise) -> Res<Option<Pointwise>> {
        Ok(ir::enum_attr::<E>(op, attr)?.map(wrap))
    }
    let kind = match op_name {
        ods::ops::UNARY => kind(op, ods::unary::KIND, Pointwise::Unary),
        ods::ops::BINARY => kind(op, ods::binary::KIND, Pointwise::Binary),
        _ => kind(op, ods::reduce::KIND, Pointwise::Reduce),
    };
    match kind {
        Ok(Some(k)) => Ok(k),
        Ok(None) => diag(op, format!("axe-to-nki: {op_name} has no kind")),
        Err(e) => diag(op, format!("axe-to-nki: {e}")),
    }
}

/// The NKI memory of an `!axe.tensor` type (None for any other type, or a scope NKI lacks).
fn scope_of(t: MlirType) -> Option<Scope> {
    match ir::tensor_scope(t)? {
        MemoryScope::Global => Some(Scope::Hbm),
        MemoryScope::SBuf => Some(Scope::Sbuf),
        MemoryScope::PSum => Some(Scope::Psum),
        _ => None,
    }
}

use crate::ir::{block_ops, key};

/// The value of an `arith.constant` float/int operand, printed as a Python literal (None for
/// any other value, and for a float that is not finite).
fn constant_literal(v: MlirValue) -> Option<String> {
    let def = ir::defining_op(v)?;
    if ir::name(def) != arith::ConstantOperation::name() {
        return None;
    }
    let x = ir::float_or_int_attr(def, "value")?;
    x.is_finite().then(|| format!("{x:?}"))
}

// ----- the module walk -----

fn translate_module(module: MlirOperation) -> Res<String> {
    check_target(module)?;
    let funcs = ir::collect(module, &[func::FuncOperation::name()]);
    if funcs.is_empty() {
        return diag(module, "axe-to-nki: the module has no func.func kernel to emit");
    }
    let mut out = emit::header();
    for f in funcs {
        out.push_str(&translate_func(f)?);
    }
    Ok(out)
}

/// Checks that `module` targets a chip NKI kernels run on (`axe.target = #axe.target<"trn1">`),
/// read through the typed `#axe.target` attribute and the target table.
fn check_target(module: MlirOperation) -> Res<()> {
    let attr = ods::discardable_attrs::TARGET;
    let wanted = crate::target::TARGETS
        .iter()
        .filter(|t| t.nki)
        .map(|t| format!("#axe.target<\"{}\">", t.name))
        .collect::<Vec<_>>()
        .join(" or ");
    match ir::own_target_name(module) {
        Ok(Some(name)) if crate::target::lookup(&name).is_some_and(|t| t.nki) => Ok(()),
        Ok(Some(name)) => diag(
            module,
            format!(
                "axe-to-nki emits NKI for Trainium 1: the module's {attr} must be {wanted}, got #axe.target<\"{name}\">"
            ),
        ),
        Ok(None) => diag(
            module,
            format!("axe-to-nki needs the module attribute {attr} = {wanted}"),
        ),
        Err(e) => diag(
            module,
            format!("axe-to-nki needs the module attribute {attr} = {wanted}: {e}"),
        ),
    }
}

/// Per-kernel state: the tensors bound to SSA values, and the Python being built.
pub struct Kernel {
    pub values: HashMap<usize, Tensor>,
    pub py: emit::Py,
    next_buf: usize,
    next_var: usize,
}

impl Kernel {
    pub fn fresh_var(&mut self) -> String {
        self.next_var += 1;
        format!("i{}", self.next_var - 1)
    }

    pub fn tensor(&self, op: MlirOperation, v: MlirValue) -> Res<Tensor> {
        match self.values.get(&key(v)) {
            Some(t) => Ok(t.clone()),
            None => diag(
                op,
                "axe-to-nki: operand is not a kernel argument, axe.alloc or axe.slice result",
            ),
        }
    }
}

fn tensor_from_type(op: MlirOperation, t: MlirType, buf: String, what: &str) -> Res<Tensor> {
    if !ir::is_tensor(t) {
        return diag(
            op,
            format!("axe-to-nki: {what} must be an !axe.tensor, got {}", type_text(t)),
        );
    }
    let Some(layout) = ir::tensor_layout(t) else {
        return diag(
            op,
            format!("axe-to-nki: {what} has no layout (`?`); run axe-infer-layout first"),
        );
    };
    let Some(scope) = scope_of(t) else {
        return diag(
            op,
            format!(
                "axe-to-nki: {what} must be in global, sbuf or psum memory, got {}",
                type_text(t)
            ),
        );
    };
    let Some(elem) = Elem::of_shaped(t) else {
        // SAFETY: `t` is a live `!axe.tensor` (checked above), a shaped type.
        let elem = type_text(unsafe { mlirShapedTypeGetElementType(t) });
        return diag(
            op,
            format!("axe-to-nki: element type {elem} is not supported (f16, bf16, f32)"),
        );
    };
    Ok(Tensor {
        buf,
        shape: ir::shape(t),
        elem,
        scope,
        layout,
    })
}

fn translate_func(f: MlirOperation) -> Res<String> {
    let name = ir::string_attr(f, "sym_name").unwrap_or_else(|| "kernel".into());
    let block = ir::region_block(f, 0);
    if block.ptr.is_null() {
        return diag(f, "axe-to-nki: kernel has no body (declarations cannot be emitted)");
    }
    let mut k = Kernel {
        values: HashMap::new(),
        py: emit::Py::default(),
        next_buf: 0,
        next_var: 0,
    };
    // SAFETY: `block` is the live, non-null entry block of `f` (checked above).
    let nargs = unsafe { mlirBlockGetNumArguments(block) };
    let mut args = Vec::new();
    for i in 0..nargs {
        // SAFETY: `block` is live and `i` is below its number of arguments.
        let v = unsafe { mlirBlockGetArgument(block, i) };
        let argname = format!("arg{i}");
        let t = tensor_from_type(f, ir::value_type(v), argname.clone(), &format!("argument #{i}"))?;
        if t.scope != Scope::Hbm {
            return diag(
                f,
                format!(
                    "axe-to-nki: kernel argument #{i} must be a global (HBM) tensor, got {}",
                    t.scope.name()
                ),
            );
        }
        plan::check_hbm_layout(f, &t, &format!("kernel argument #{i}"))?;
        k.values.insert(key(v), t);
        args.push(argname);
    }
    k.py.line(&format!(
        "# Generated by axe-translate --axe-to-nki from @{name} (target trn1, NeuronCore-v2)."
    ));
    k.py.line("# HBM arguments are passed in and written in place (destination-passing style).");
    k.py.line("@nki.jit");
    k.py.line(&format!("def {name}({}):", args.join(", ")));
    k.py.indent += 1;
    for op in block_ops(block) {
        translate_op(&mut k, op)?;
    }
    k.py.line("return None");
    k.py.indent -= 1;
    k.py.line("");
    Ok(k.py.text)
}

fn translate_op(k: &mut Kernel, op: MlirOperation) -> Res<()> {
    let name = ir::name(op);
    match name.as_str() {
        "func.return" => {
            if ir::num_operands(op) != 0 {
                return diag(op, "axe-to-nki: kernels return nothing; outputs are HBM arguments");
            }
            Ok(())
        }
        "arith.constant" => Ok(()),
        ods::ops::ALLOC => alloc(k, op),
        ods::ops::SLICE => slice(k, op),
        ods::ops::COPY => {
            if ir::has_attr(op, ods::copy::ASYNC) {
                return diag(op, "axe-to-nki: asynchronous copies are not supported (NKI schedules DMA itself)");
            }
            if ir::has_attr(op, ods::copy::REDUCE) {
                return diag(op, "axe-to-nki: reducing copies (`reduce`) are not supported");
            }
            let src = k.tensor(op, ir::operand(op, ods::copy::operands::SOURCE))?;
            let dst = k.tensor(op, ir::operand(op, ods::copy::operands::DEST))?;
            plan::emit_copy(k, op, &src, &dst)
        }
        ods::ops::FILL => {
            let dst = k.tensor(op, ir::operand(op, ods::fill::operands::DEST))?;
            let Some(value) = constant_literal(ir::operand(op, ods::fill::operands::VALUE)) else {
                return diag(op, "axe-to-nki: the fill value must be an arith.constant");
            };
            plan::emit_fill(k, op, &dst, &value)
        }
        ods::ops::GEMM => dispatch::emit_gemm(k, op),
        ods::ops::UNARY | ods::ops::BINARY | ods::ops::REDUCE => {
            let kind = pointwise_kind(op, &name)?;
            plan::emit_pointwise(k, op, &name, kind)
        }
        other => diag(op, format!("axe-to-nki: '{other}' is not supported (supported: axe.alloc, axe.slice, axe.copy, axe.fill, axe.gemm, axe.unary, axe.binary, axe.reduce)")),
    }
}

/// The buffer shape `(partitions, free)` an on-chip layout needs, after checking it only uses
/// `P` and `F`, has no replica and stays in bounds.
pub fn buffer_shape(op: MlirOperation, t: &Tensor, what: &str) -> Res<(i64, i64)> {
    let l = &t.layout;
    if !l.replica.is_empty() {
        return diag(
            op,
            format!("axe-to-nki: {what} has a replicated layout {l}; SBUF/PSUM tensors must be unreplicated"),
        );
    }
    let mut hi = [0i64, 0i64];
    for (a, v) in &l.offset {
        let idx = axis_index(op, a, l, what)?;
        if *v < 0 {
            return diag(op, format!("axe-to-nki: {what} layout {l} has a negative {a} offset"));
        }
        hi[idx] += v;
    }
    for it in &l.shard {
        let idx = axis_index(op, &it.axis, l, what)?;
        if it.stride < 0 {
            return diag(
                op,
                format!("axe-to-nki: {what} layout {l} has a negative stride on {}", it.axis),
            );
        }
        hi[idx] = hi[idx].saturating_add((it.extent - 1).saturating_mul(it.stride));
    }
    if hi[0] >= hw::PARTITIONS {
        return diag(
            op,
            format!(
                "axe-to-nki: {what} layout {l} reaches partition {}, but SBUF/PSUM have {} partitions",
                hi[0],
                hw::PARTITIONS
            ),
        );
    }
    Ok((hi[0] + 1, hi[1] + 1))
}

fn axis_index(op: MlirOperation, a: &Axis, l: &Layout, what: &str) -> Res<usize> {
    match a.name() {
        "P" => Ok(0),
        "F" => Ok(1),
        other => diag(op, format!("axe-to-nki: {what} layout {l} uses axis '{other}'; SBUF/PSUM layouts use only P (partition) and F (free)")),
    }
}

fn alloc(k: &mut Kernel, op: MlirOperation) -> Res<()> {
    let v = ir::result(op, 0);
    k.next_buf += 1;
    let t = tensor_from_type(op, ir::value_type(v), String::new(), "the allocated tensor")?;
    let prefix = match t.scope {
        Scope::Sbuf => "sb",
        Scope::Psum => "ps",
        Scope::Hbm => {
            return diag(
                op,
                "axe-to-nki: HBM tensors are kernel arguments; allocate only sbuf or psum tensors",
            )
        }
    };
    let buf = format!("{prefix}{}", k.next_buf - 1);
    let (p, f) = buffer_shape(op, &t, "the allocated tensor")?;
    if t.scope == Scope::Psum && f * t.elem_bytes() > hw::PSUM_BYTES_PER_PARTITION {
        return diag(
            op,
            format!(
            "axe-to-nki: PSUM tensor with layout {} needs {} bytes per partition, but PSUM has {} (8 banks of 2 KiB)",
            t.layout, f * t.elem_bytes(), hw::PSUM_BYTES_PER_PARTITION),
        );
    }
    let t = Tensor { buf: buf.clone(), ..t };
    k.py.line(&format!(
        "# {} : {}x{} {} {}",
        buf,
        dims(&t.shape),
        t.elem,
        t.scope.name(),
        t.layout
    ));
    k.py.line(&format!(
        "{buf} = nl.ndarray(({p}, {f}), dtype={}, buffer=nl.{})",
        emit::dtype(t.elem),
        t.scope.name()
    ));
    k.values.insert(key(v), t);
    Ok(())
}

fn normalize(points: Vec<axe_layout::Point>) -> Vec<Vec<(String, i64)>> {
    let mut out: Vec<Vec<(String, i64)>> = points
        .into_iter()
        .map(|p| {
            p.into_iter()
                .filter(|(_, v)| *v != 0)
                .map(|(a, v)| (a.name().to_string(), v))
                .collect()
        })
        .collect();
    out.sort();
    out
}

fn dims(s: &[i64]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x")
}

/// `axe.slice` of an on-chip tensor with an explicit result layout: a view of the same
/// buffer. The given layout must place every element where the parent's layout does.
fn slice(k: &mut Kernel, op: MlirOperation) -> Res<()> {
    let parent = k.tensor(op, ir::operand(op, ods::slice::operands::SOURCE))?;
    let v = ir::result(op, ods::slice::results::RESULT);
    let t = tensor_from_type(op, ir::value_type(v), parent.buf.clone(), "the slice")?;
    if parent.scope == Scope::Hbm {
        return diag(
            op,
            "axe-to-nki: slices of HBM tensors are not supported; copy the whole tensor or slice on chip",
        );
    }
    buffer_shape(op, &t, "the slice")?;
    let lo = ir::i64_array(op, ods::slice::LOWER);
    if lo.contains(&crate::slice::DYNAMIC) {
        return diag(op, "axe-to-nki: slices with run-time origins are not supported");
    }
    let n: i64 = t.shape.iter().product();
    let pshape = &parent.shape;
    for x in 0..n {
        let local = axe_layout::eval::unflatten(x, &t.shape);
        let global: Vec<i64> = local.iter().zip(&lo).map(|(a, b)| a + b).collect();
        let gx =
            axe_layout::eval::flatten(&global, pshape).map_err(|e| AxeError::at(op, format!("axe-to-nki: {e}")))?;
        let want = parent
            .layout
            .eval_set_flat(gx)
            .map_err(|e| AxeError::at(op, format!("axe-to-nki: {e}")))?;
        let got = t
            .layout
            .eval_set_flat(x)
            .map_err(|e| AxeError::at(op, format!("axe-to-nki: {e}")))?;
        if normalize(want.clone()) != normalize(got.clone()) {
            return diag(op, format!(
                "axe-to-nki: the slice layout {} does not match the source layout {} at slice index {:?} (source places it at {:?}, the slice at {:?})",
                t.layout, parent.layout, local, want, got));
        }
    }
    k.values.insert(key(v), t);
    Ok(())
}
