//! `convert-linalg-to-axe`: the front door for bufferized `linalg` IR. Each `linalg.matmul` on
//! memrefs that overwrites its output (a zero `linalg.fill` of that output right before it)
//! becomes an `axe.matmul` on views of the same buffers; a matmul into a fresh buffer whose
//! one reader is an elementwise `linalg.generic` computing `act(acc + bias) + residual`
//! ([`epilogue`]: a narrowing, a bias row, an activation, a residual, any of them) becomes one
//! `axe.matmul` with that epilogue, into the generic's output. What is not converted stays,
//! with a remark saying why. The pass's description in `AxePasses.td` has the contract.

pub mod buffers;
pub mod epilogue;
pub mod rows;

use axe_layout::{Iter, Layout};
use mlir_sys::*;

use crate::axe_ops;
use crate::convert_axe_to_gpu::builder::B;
use crate::convert_axe_to_gpu::types::element_type;
use crate::dialect;
use crate::dialect::ods::{self, passes::ConvertLinalgToAxeOptions, MemoryScope};
use crate::error::AxeError;
use crate::ir;
use crate::matmul_schedule as schedule;
use crate::target;
use epilogue::Access;

/// What TMA needs of a global buffer's address, which the converted buffers promise
/// (`{axe.align = 16}`; the launcher checks it).
const BUFFER_ALIGN: i64 = 16;

/// The pass body: sets the module's target if asked to, then converts what it can; fails only
/// on an unknown `target` (the rest keeps its remarks).
pub fn run(root: melior::ir::operation::OperationRefMut, options: &ConvertLinalgToAxeOptions) -> bool {
    let root = root.to_raw();
    if !options.target.is_empty() && ir::own_target_name(root).ok().flatten().is_none() {
        if target::lookup(&options.target).is_none() {
            AxeError::at(
                root,
                format!(
                    "convert-linalg-to-axe: unknown target '{}' (known: {})",
                    options.target,
                    target::known_targets()
                ),
            )
            .emit(root);
            return false;
        }
        // SAFETY: `root` is live (module contract); the attribute is built in its context
        // from a name borrowed for the call.
        unsafe {
            let a = dialect::ffi::axeTargetAttrGet(mlirOperationGetContext(root), ir::string_ref(&options.target));
            mlirOperationSetAttributeByName(root, ir::string_ref(ods::discardable_attrs::TARGET), a);
        }
    }
    // Gated pairs first (two matmuls of one A whose results one generic multiplies, one through
    // an activation: SwiGLU), then every other matmul with its epilogue.
    for g in ir::collect(root, &["linalg.generic"]) {
        if let Some(pair) = gated_pair(g) {
            convert_gated(&pair);
        }
    }
    for op in ir::collect(root, &["linalg.matmul"]) {
        match plan(op) {
            Ok(p) => convert(op, &p),
            Err(why) => ir::remark(op, &format!("linalg.matmul not converted to axe.matmul: {why}")),
        }
    }
    for func in ir::collect(root, &["func.func"]) {
        // The fills and copies that only fed converted matmuls go before the row operations
        // around them (softmax, norms, elementwise chains) become kernels, or get remarks.
        buffers::clean_up(func);
        rows::run(func, options.threads_per_row);
        buffers::clean_up(func);
        // What the kernels pass each other: buffers the launcher allocates.
        buffers::promote_temporaries(func);
    }
    true
}

/// A matmul the pass converts: its operands, and the elementwise consumer fused into it.
struct Plan {
    a: MlirValue,
    b: MlirValue,
    /// B given as [N, K] (`transpose_b`).
    transpose_b: bool,
    /// The buffer the `axe.matmul` writes: the matmul's output, or the narrowing's.
    out: MlirValue,
    /// The fused elementwise consumer, if any.
    fused: Option<Fused>,
}

/// A matmul's elementwise consumer folded into the `axe.matmul`: the `linalg.generic` (erased;
/// the accumulator it read goes in `buffers::clean_up`) and what the epilogue reads (buffers of
/// the function).
struct Fused {
    generic: MlirOperation,
    bias: Option<MlirValue>,
    activation: Option<ods::UnaryKind>,
    residual: Option<MlirValue>,
}

/// Whether `t` is a memref of static shape with the identity (row-major contiguous) layout.
fn static_row_major(t: MlirType) -> bool {
    ir::is_identity_memref(t) && ir::shape(t).iter().all(|&d| d >= 0)
}

/// The element type's name (`f16`, ...).
fn elt(v: MlirValue) -> String {
    ir::element_type_name(ir::value_type(v))
}

/// Whether `v` is an argument of the function that holds `op` (the buffers a launch passes).
fn function_argument(v: MlirValue, op: MlirOperation) -> bool {
    // SAFETY: `v` is live (module contract); the owner block is read only of a block argument.
    let owner = unsafe {
        if !mlirValueIsABlockArgument(v) {
            return false;
        }
        mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))
    };
    ir::enclosing_function(op).is_some_and(|f| f.ptr == owner.ptr)
}

/// Whether `v` is a buffer of the function that holds `op`: an argument, or an allocation
/// (which becomes a buffer the launcher allocates).
fn buffer_of_function(v: MlirValue, op: MlirOperation) -> bool {
    function_argument(v, op) || (buffers::is_alloc(v) && buffers::root(v).ptr == v.ptr)
}

/// Why `op` cannot be converted, or its plan.
fn plan(op: MlirOperation) -> Result<Plan, String> {
    if ir::num_operands(op) != 3 {
        return Err(format!(
            "{} operands (expected A, B and the output)",
            ir::num_operands(op)
        ));
    }
    let (a, c) = (ir::operand(op, 0), ir::operand(op, 2));
    // SAFETY: a live type (module contract).
    if !unsafe { mlirTypeIsAMemRef(ir::value_type(a)) } {
        return Err("its operands are tensors: bufferize first (one-shot-bufferize)".into());
    }
    let Some((b, transpose_b)) = b_operand(op) else {
        return Err(
            "its indexing_maps transpose A or broadcast an operand (A[M, K] with B[K, N] or B[N, K] is converted)"
                .into(),
        );
    };
    for (v, what) in [(a, "A"), (b, "B"), (c, "the output")] {
        if !static_row_major(ir::value_type(v)) {
            return Err(format!(
                "{what} is {}, not a static row-major contiguous memref",
                ir::type_to_string(ir::value_type(v))
            ));
        }
    }
    if !buffers::zero_before(op, c) {
        return Err(
            "it accumulates into its output (no zero linalg.fill of it, or copy of zeros, before it), which axe.matmul overwrites"
                .into(),
        );
    }
    let e = elt(a);
    if elt(b) != e || !matches!(e.as_str(), "f16" | "bf16") {
        return Err(format!(
            "A and B are {e} and {} (axe.matmul takes f16 or bf16 here)",
            elt(b)
        ));
    }
    // An accumulator read once, by an elementwise generic: fused into the epilogue.
    let fused = match ir::defining_op(c) {
        Some(alloc) if ir::name(alloc) == "memref.alloc" => {
            let readers = buffers::uses_after(op, c);
            match readers.as_slice() {
                [g] if ir::name(*g) == "linalg.generic" => Some(fuse(op, *g, c)?),
                [] => return Err("its output is a buffer nothing reads".into()),
                _ => {
                    return Err(
                        "its output is a temporary buffer read by other than one elementwise linalg.generic".into(),
                    )
                }
            }
        }
        _ => None,
    };
    let out = match &fused {
        Some(f) => ir::operand(f.generic, ir::num_operands(f.generic) - 1),
        None => c,
    };
    if !matches!(elt(out).as_str(), "f16" | "bf16" | "f32") {
        return Err(format!(
            "the output is {} (axe.matmul writes f16, bf16 or f32)",
            elt(out)
        ));
    }
    if fused.is_some() && !static_row_major(ir::value_type(out)) {
        return Err("the epilogue's output is not a static row-major contiguous memref".into());
    }
    for (v, what) in [(a, "A"), (b, "B"), (out, "the output")] {
        if !buffer_of_function(v, op) {
            return Err(format!(
                "{what} is neither an argument nor an allocation of the function (a launch passes its buffers)"
            ));
        }
    }
    Ok(Plan {
        a,
        b,
        transpose_b,
        out,
        fused,
    })
}

/// The matmul `op`'s accumulator `acc` (a temporary) read by `generic`: the epilogue
/// it computes, with its operands checked, or why it cannot be fused.
fn fuse(op: MlirOperation, generic: MlirOperation, acc: MlirValue) -> Result<Fused, String> {
    let why = |w: String| format!("its result feeds a linalg.generic that is not an epilogue axe.matmul computes: {w}");
    let groups = ir::operand_groups(generic).ok_or_else(|| why("its operands are not ins and outs".into()))?;
    let (ins, outs) = match groups.as_slice() {
        [ins, outs] if outs.len() == 1 => (ins, outs),
        _ => return Err(why("it has more than one output".into())),
    };
    if ir::attr_text(generic, "iterator_types")
        .unwrap_or_default()
        .contains("reduction")
    {
        return Err(why("it reduces".into()));
    }
    let positions: Vec<usize> = (0..ins.len()).filter(|&i| ins[i].ptr == acc.ptr).collect();
    let [acc_index] = positions.as_slice() else {
        return Err(why("it reads the matmul's result more than once".into()));
    };
    let access = epilogue::accesses(generic, ins.len()).map_err(why)?;
    if access[*acc_index] != Access::Elementwise || access[ins.len()] != Access::Elementwise {
        return Err(why(
            "it does not read the matmul's result and write its output elementwise".into(),
        ));
    }
    let e = epilogue::analyse(generic, *acc_index, &access[..ins.len()]).map_err(why)?;
    let shape = ir::shape(ir::value_type(outs[0]));
    let operand = |i: Option<usize>, what: &str, want: &[i64]| -> Result<Option<MlirValue>, String> {
        let Some(i) = i else { return Ok(None) };
        let v = ins[i];
        let t = ir::value_type(v);
        if !static_row_major(t) || ir::shape(t) != want || !matches!(elt(v).as_str(), "f16" | "bf16" | "f32") {
            return Err(why(format!(
                "the {what} is {}, not a static row-major memref<{}xf16, bf16 or f32>",
                ir::type_to_string(t),
                want.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x")
            )));
        }
        if !buffer_of_function(v, op) {
            return Err(why(format!(
                "the {what} is neither an argument nor an allocation of the function"
            )));
        }
        Ok(Some(v))
    };
    Ok(Fused {
        generic,
        bias: operand(e.bias, "bias", &shape[1..])?,
        activation: e.activation,
        residual: operand(e.residual, "residual", &shape)?,
    })
}

/// A gated pair: two matmuls of one A, each into a zero-filled temporary, whose results one
/// elementwise generic combines as act(gate) * up.
struct GatedPair {
    gate_mm: MlirOperation,
    up_mm: MlirOperation,
    generic: MlirOperation,
    activation: ods::UnaryKind,
    out: MlirValue,
}

/// `generic` as the consumer of a gated pair, if it is one (no remark otherwise: its matmuls
/// are then tried one by one).
fn gated_pair(generic: MlirOperation) -> Option<GatedPair> {
    let groups = ir::operand_groups(generic)?;
    let [ins, outs] = groups.as_slice() else { return None };
    let ([x, y], [out]) = (ins.as_slice(), outs.as_slice()) else {
        return None;
    };
    let access = epilogue::accesses(generic, 2).ok()?;
    if access.iter().any(|&a| a != Access::Elementwise)
        || ir::attr_text(generic, "iterator_types")
            .unwrap_or_default()
            .contains("reduction")
    {
        return None;
    }
    // The matmul that last wrote each input before the generic.
    let writer = |v: MlirValue| -> Option<MlirOperation> {
        if !buffers::is_alloc(v) {
            return None;
        }
        let ops = ir::block_ops(ir::block_of(generic)?);
        let at = ops.iter().position(|o| o.ptr == generic.ptr)?;
        let w = *ops[..at]
            .iter()
            .rev()
            .find(|&&o| buffers::use_of(o, buffers::root(v)) != buffers::Use::None && ir::name(o) != "memref.copy")?;
        let readers = buffers::uses_after(w, v);
        let only_generic = matches!(readers.as_slice(), [r] if r.ptr == generic.ptr);
        (ir::name(w) == "linalg.matmul" && plan_operands(w).is_some() && only_generic).then_some(w)
    };
    let (mx, my) = (writer(*x)?, writer(*y)?);
    let (ox, oy) = (plan_operands(mx)?, plan_operands(my)?);
    let same_a = buffers::root(ox.0).ptr == buffers::root(oy.0).ptr;
    let same_b = ir::value_type(ox.1).ptr == ir::value_type(oy.1).ptr && ox.2 == oy.2;
    if !same_a || !same_b || !buffers::zero_before(mx, *x) || !buffers::zero_before(my, *y) {
        return None;
    }
    let (gate, activation) = epilogue::gated(generic, 0, 1, 2).ok()?;
    let (gate_mm, up_mm) = if gate == 0 { (mx, my) } else { (my, mx) };
    if !static_row_major(ir::value_type(*out)) || !buffer_of_function(*out, generic) {
        return None;
    }
    Some(GatedPair {
        gate_mm,
        up_mm,
        generic,
        activation,
        out: *out,
    })
}

/// A matmul's A, B and whether B is given as [N, K], when they are what `axe.matmul` takes
/// (f16/bf16, static row-major, buffers of the function).
fn plan_operands(op: MlirOperation) -> Option<(MlirValue, MlirValue, bool)> {
    if ir::num_operands(op) != 3 {
        return None;
    }
    let a = ir::operand(op, 0);
    let (b, transpose_b) = b_operand(op)?;
    let ok = |v: MlirValue| {
        static_row_major(ir::value_type(v)) && matches!(elt(v).as_str(), "f16" | "bf16") && buffer_of_function(v, op)
    };
    (ok(a) && ok(b) && elt(a) == elt(b)).then_some((a, b, transpose_b))
}

/// The B `op` multiplies by and whether it is given as [N, K]: the matmul's own B under the
/// default maps ([K, N]) or maps that read it transposed ([N, K]); and where the default maps
/// read a temporary that a `linalg.transpose` of an [N, K] buffer wrote (torch-mlir's Linear
/// and ONNX `Gemm` with `transB`), that buffer itself. None for other maps.
fn b_operand(op: MlirOperation) -> Option<(MlirValue, bool)> {
    let b = ir::operand(op, 1);
    let maps = ir::attr_text(op, "indexing_maps").map(|t| t.replace(' ', ""));
    const TRANSPOSED_B: &str =
        "[affine_map<(d0,d1,d2)->(d0,d2)>,affine_map<(d0,d1,d2)->(d1,d2)>,affine_map<(d0,d1,d2)->(d0,d1)>]";
    match maps.as_deref() {
        Some(TRANSPOSED_B) => return Some((b, true)),
        Some(_) if !default_matmul_maps(op) => return None,
        _ => {}
    }
    // (Into a temporary, or into any buffer the bufferization reused: the function's output.)
    let transposed = buffers::last_write_before(op, b)
        .filter(|&w| {
            ir::name(w) == "linalg.transpose" && ir::attr_text(w, "permutation").is_some_and(|p| p.contains("1, 0"))
        })
        .map(|w| ir::operand(w, 0))
        .filter(|&src| {
            static_row_major(ir::value_type(src)) && buffers::root(src).ptr == src.ptr && buffer_of_function(src, op)
        });
    Some(match transposed {
        Some(src) => (src, true),
        None => (b, false),
    })
}

/// One `axe.matmul ... gate act up(...)` for the pair; the matmuls and the generic go.
fn convert_gated(p: &GatedPair) {
    let b = B::before(p.generic).with_loc_of(p.generic);
    let (a, wg, transpose_b) = plan_operands(p.gate_mm).expect("checked by gated_pair");
    let (_, wu, _) = plan_operands(p.up_mm).expect("checked by gated_pair");
    let (va, vg, vu, vc) = (view(&b, a), view(&b, wg), view(&b, wu), view(&b, p.out));
    let parts = axe_ops::MatmulParts {
        gate: Some(p.activation),
        b_up: Some(vu),
        transpose_b,
        ..Default::default()
    };
    axe_ops::matmul(&b, va, vg, vc, parts);
    for v in [a, wg, wu, p.out] {
        declare_alignment(v, BUFFER_ALIGN);
    }
    // SAFETY: the generic and the two matmuls have no results; what they leave (fills, copies,
    // temporaries) goes in `buffers::clean_up`.
    unsafe {
        ir::erase(p.generic);
        ir::erase(p.gate_mm);
        ir::erase(p.up_mm);
    }
}

/// Whether `op`'s explicit `indexing_maps` are the default ones of a matmul:
/// (m, k), (k, n), (m, n) over (m, n, k).
fn default_matmul_maps(op: MlirOperation) -> bool {
    ir::attr_text(op, "indexing_maps").is_some_and(|t| {
        t.replace(' ', "")
            == "[affine_map<(d0,d1,d2)->(d0,d2)>,affine_map<(d0,d1,d2)->(d2,d1)>,affine_map<(d0,d1,d2)->(d0,d1)>]"
    })
}

/// The global view of the memref `v`, shaped as it is, row-major (a vector as one row).
fn view(b: &B, v: MlirValue) -> MlirValue {
    let t = ir::value_type(v);
    let mut shape = ir::shape(t);
    if shape.len() == 1 {
        shape.insert(0, 1);
    }
    let l = Layout::from_shard(vec![Iter::mem(shape[0], shape[1]), Iter::mem(shape[1], 1)]).expect("a valid layout");
    let tt = axe_ops::tensor_type(b, &shape, element_type(t), MemoryScope::Global, Some(&l), None);
    axe_ops::view(b, v, tt)
}

fn convert(op: MlirOperation, p: &Plan) {
    // The transpose that fed B, where the matmul was its only reader: B is read K-major now
    // (found before the views are built, which use its buffer too).
    let transpose = p
        .transpose_b
        .then(|| buffers::last_write_before(op, ir::operand(op, 1)))
        .flatten()
        .filter(|&w| ir::name(w) == "linalg.transpose")
        .filter(|&w| matches!(buffers::uses_after(w, ir::operand(w, 1)).as_slice(), [r] if r.ptr == op.ptr));
    let b = B::before(op).with_loc_of(op);
    let (va, vb, vc) = (view(&b, p.a), view(&b, p.b), view(&b, p.out));
    let mut parts = axe_ops::MatmulParts::default();
    if let Some(f) = &p.fused {
        parts = axe_ops::MatmulParts {
            bias: f.bias.map(|v| view(&b, v)),
            activation: f.activation,
            residual: f.residual.map(|v| view(&b, v)),
            ..Default::default()
        };
    }
    parts.transpose_b = p.transpose_b;
    let (sa, sc) = (ir::shape(ir::value_type(p.a)), ir::shape(ir::value_type(p.out)));
    let (m, n) = (sc[0], sc[1]);
    let bits = |v: MlirValue| ir::element_bits(ir::value_type(v));
    if splits_k(op, m, n, sa[1], bits(p.a), bits(p.out)) {
        // The workspace split-K needs: arguments the launcher allocates (zeroed, once).
        let func = ir::enclosing_function(op).expect("a converted matmul is in a function");
        let rows = target::ceil_div(m, 64);
        let cols = target::ceil_div(n, 64);
        let partials = add_workspace_argument(func, b.memref_type(b.f32_type(), &[m * n]));
        let flags = add_workspace_argument(func, b.memref_type(b.int_type(32), &[rows * cols]));
        let as_tensor = |v: MlirValue, shape: [i64; 2], e: MlirType| {
            let l = Layout::from_shard(vec![Iter::mem(shape[0], shape[1]), Iter::mem(shape[1], 1)])
                .expect("a valid layout");
            axe_ops::view(
                &b,
                v,
                axe_ops::tensor_type(&b, &shape, e, MemoryScope::Global, Some(&l), None),
            )
        };
        parts.workspace = Some((
            as_tensor(partials, [m, n], b.f32_type()),
            as_tensor(flags, [rows, cols], b.int_type(32)),
        ));
    }
    axe_ops::matmul(&b, va, vb, vc, parts);
    for v in [p.a, p.b, p.out] {
        declare_alignment(v, BUFFER_ALIGN);
    }
    // SAFETY: the ops erased are the converted matmul, its fused consumer and the transpose only
    // it read, which have no results; the fills, copies and temporaries they leave go in
    // `buffers::clean_up`.
    unsafe {
        ir::erase(op);
        if let Some(f) = &p.fused {
            ir::erase(f.generic);
        }
        if let Some(t) = transpose {
            ir::erase(t);
        }
    }
}

/// Whether the schedule `axe-matmul-schedule` would choose for this product, given a
/// workspace, splits K (small batches over a long K: too few output tiles for the SMs).
fn splits_k(op: MlirOperation, m: i64, n: i64, k: i64, in_bits: u32, out_bits: u32) -> bool {
    let Some(t) = target::of(op) else { return false };
    let p = schedule::Problem {
        m,
        n,
        k,
        in_bits: i64::from(in_bits),
        out_bits: i64::from(out_bits),
        workspace: true,
        gated: false,
        gather: None,
        block_scaled: false,
    };
    schedule::choose(&p, t, t.sm_count, &schedule::Partial::default()).is_ok_and(|s| s.split_k > 1)
}

/// Appends an argument of memref type `t` to `func`, marked `{axe.workspace, axe.align = 16}`
/// (the launch manifest lists it as a workspace, which the launcher allocates zeroed); returns
/// it.
fn add_workspace_argument(func: MlirOperation, t: MlirType) -> MlirValue {
    // SAFETY: `func` is live (module contract); the attributes are owned by its context.
    let ctx = unsafe { mlirOperationGetContext(func) };
    ir::append_function_argument(
        func,
        t,
        &[
            (ods::discardable_attrs::ALIGN, ir::integer_attr(ctx, 64, BUFFER_ALIGN)),
            // SAFETY: as above.
            (ods::discardable_attrs::WORKSPACE, unsafe { mlirUnitAttrGet(ctx) }),
        ],
    )
}

/// Adds `{axe.align = align}` to the function argument `v` unless it declares at least that
/// (an allocation gets it when it becomes an argument).
fn declare_alignment(v: MlirValue, align: i64) {
    // SAFETY: `v` is live (module contract).
    if !unsafe { mlirValueIsABlockArgument(v) } || ir::declared_alignment(v).is_some_and(|a| a >= align) {
        return;
    }
    // SAFETY: `v` is a function argument (checked by `plan`, or just added).
    let ctx = unsafe { mlirOperationGetContext(mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))) };
    set_argument_attribute(v, ods::discardable_attrs::ALIGN, ir::integer_attr(ctx, 64, align));
}

/// Sets the argument attribute `key` of the function argument `v` to `value`.
fn set_argument_attribute(v: MlirValue, key: &str, value: MlirAttribute) {
    // SAFETY: `v` is a function argument (checked by `plan`, or just added); the function's
    // `arg_attrs` is rebuilt with one dictionary per argument, each of the function's context.
    unsafe {
        let index = mlirBlockArgumentGetArgNumber(v);
        let block = mlirBlockArgumentGetOwner(v);
        let func = mlirBlockGetParentOperation(block);
        let ctx = mlirOperationGetContext(func);
        let n = mlirBlockGetNumArguments(block);
        let old = mlirOperationGetAttributeByName(func, ir::string_ref("arg_attrs"));
        let dicts: Vec<MlirAttribute> = (0..n)
            .map(|i| {
                let d = if !old.ptr.is_null() && mlirAttributeIsAArray(old) && i < mlirArrayAttrGetNumElements(old) {
                    mlirArrayAttrGetElement(old, i)
                } else {
                    mlirDictionaryAttrGet(ctx, 0, std::ptr::null())
                };
                if i != index {
                    return d;
                }
                let mut named: Vec<MlirNamedAttribute> = (0..mlirDictionaryAttrGetNumElements(d))
                    .map(|j| mlirDictionaryAttrGetElement(d, j))
                    .filter(|na| ir::string_of(mlirIdentifierStr(na.name)) != key)
                    .collect();
                named.push(mlirNamedAttributeGet(
                    mlirIdentifierGet(ctx, ir::string_ref(key)),
                    value,
                ));
                mlirDictionaryAttrGet(ctx, named.len() as isize, named.as_ptr())
            })
            .collect();
        let array = mlirArrayAttrGet(ctx, dicts.len() as isize, dicts.as_ptr());
        mlirOperationSetAttributeByName(func, ir::string_ref("arg_attrs"), array);
    }
}
