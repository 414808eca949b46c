//! Helpers over raw MLIR handles for the pass bodies.
//!
//! Pass bodies first collect the operations they rewrite (a walk must not mutate what it
//! walks), then mutate them; raw handles (`MlirOperation`, `MlirValue`) are `Copy` and carry
//! no borrow, which keeps that two-phase structure simple.
//!
//! # The contract
//!
//! * **Queries** (safe functions): every handle passed in must be live, non-null and belong
//!   to the IR the running pass owns (the pass manager guarantees that for the operation it
//!   hands the pass and everything nested in it, for the duration of the pass). Handles are
//!   plain `Copy` values, so the type system cannot check this: it is the invariant of the
//!   whole crate, and every `unsafe` block below relies on it (and says what else it relies
//!   on). Indices are checked: an out-of-range operand or result is a panic (caught at the FFI
//!   boundary and reported), never an out-of-bounds access.
//! * **Mutations** that can invalidate handles held elsewhere or break the invariants the C++
//!   side relies on (erasing an operation, rewiring operands and uses, retyping values,
//!   replacing attributes, inserting operations) are `unsafe fn`s, each with a `# Safety`
//!   section saying what the caller must guarantee.

use std::ffi::c_void;

use axe_layout::Layout;
use axe_upstream_ods::func;
use melior::ir::r#type::Type;
use mlir_sys::*;

use crate::dialect;
use crate::dialect::ods::{self, CopySchedule, OdsEnum};

/// A null-terminated-free view of an MlirStringRef.
pub fn string_of(s: MlirStringRef) -> String {
    string(s)
}

fn string(s: MlirStringRef) -> String {
    if s.length == 0 {
        return String::new();
    }
    // SAFETY: a non-empty MlirStringRef returned by MLIR points to `length` readable bytes
    // owned by the context (identifiers, attribute storage), which outlives this call.
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// A borrowed MlirStringRef of `s` (valid while `s` is; MLIR copies what it keeps).
pub(crate) fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const _,
        length: s.len(),
    }
}

/// Every operation nested in `root` (pre-order, `root` included) whose name is in `names`.
pub fn collect(root: MlirOperation, names: &[&str]) -> Vec<MlirOperation> {
    collect_where(root, |n| names.contains(&n))
}

/// Every operation nested in `root` (pre-order, `root` included) whose name satisfies `keep`.
pub fn collect_where(root: MlirOperation, keep: impl Fn(&str) -> bool) -> Vec<MlirOperation> {
    struct Acc<'a> {
        keep: &'a dyn Fn(&str) -> bool,
        out: Vec<MlirOperation>,
    }
    /// The walk's callback: records `op` when its name is kept.
    ///
    /// # Safety
    /// `op` is a live op of the walk and `data` the `&mut Acc` the walk below was given.
    unsafe extern "C" fn visit(op: MlirOperation, data: *mut c_void) -> MlirWalkResult {
        // SAFETY: `data` is the `&mut Acc` passed to mlirOperationWalk below, alive and not
        // otherwise borrowed while the walk runs.
        let acc = unsafe { &mut *(data as *mut Acc) };
        if (acc.keep)(&name(op)) {
            acc.out.push(op);
        }
        MlirWalkResult_MlirWalkResultAdvance
    }
    let mut acc = Acc {
        keep: &keep,
        out: Vec::new(),
    };
    // SAFETY: `root` is live (module contract); the callback only reads the visited ops and
    // pushes them into `acc`, so the walk never sees the IR mutated.
    unsafe {
        mlirOperationWalk(
            root,
            Some(visit),
            &mut acc as *mut Acc as *mut c_void,
            MlirWalkOrder_MlirWalkPreOrder,
        )
    };
    acc.out
}

/// The operation's name, e.g. `axe.slice`.
pub fn name(op: MlirOperation) -> String {
    // SAFETY: `op` is live (module contract); its name identifier is owned by the context.
    unsafe { string(mlirIdentifierStr(mlirOperationGetName(op))) }
}

/// The `i`-th operand of `op` (panics when `op` has no such operand).
pub fn operand(op: MlirOperation, i: usize) -> MlirValue {
    let n = num_operands(op);
    assert!(i < n, "operand {i} of '{}', which has {n}", name(op));
    // SAFETY: `op` is live (module contract) and `i` is in range (checked above).
    unsafe { mlirOperationGetOperand(op, i as isize) }
}

pub fn num_operands(op: MlirOperation) -> usize {
    // SAFETY: `op` is live (module contract).
    unsafe { mlirOperationGetNumOperands(op) as usize }
}

/// Makes `v` the `i`-th operand of `op` (panics when `op` has no such operand).
///
/// # Safety
/// `op` and `v` are live handles of the IR the running pass owns, `v` is visible at `op`
/// (defined in a dominating position or an enclosing block), and its type is one `op`
/// accepts for that operand: C++ code (verifiers, folders, later passes) casts operand types
/// without checking them.
pub unsafe fn set_operand(op: MlirOperation, i: usize, v: MlirValue) {
    let n = num_operands(op);
    assert!(i < n, "operand {i} of '{}', which has {n}", name(op));
    // SAFETY: the caller's guarantees; `i` is in range (checked above).
    unsafe { mlirOperationSetOperand(op, i as isize, v) }
}

/// The `i`-th result of `op` (panics when `op` has no such result).
pub fn result(op: MlirOperation, i: usize) -> MlirValue {
    let n = num_results(op);
    assert!(i < n, "result {i} of '{}', which has {n}", name(op));
    // SAFETY: `op` is live (module contract) and `i` is in range (checked above).
    unsafe { mlirOperationGetResult(op, i as isize) }
}

pub fn value_type(v: MlirValue) -> MlirType {
    // SAFETY: `v` is live (module contract).
    unsafe { mlirValueGetType(v) }
}

/// Changes the type of `v` in place.
///
/// # Safety
/// `v` and `t` are live handles of the running pass's context, and every user of `v` (and
/// the op or block defining it) accepts `t` there, or is rewritten before anything else
/// (C++ verifiers, folders, printers) looks at it: C++ casts value types without checking.
pub unsafe fn set_value_type(v: MlirValue, t: MlirType) {
    // SAFETY: the caller's guarantees.
    unsafe { mlirValueSetType(v, t) }
}

/// The operation defining `v`, if `v` is an operation result.
pub fn defining_op(v: MlirValue) -> Option<MlirOperation> {
    // SAFETY: `v` is live (module contract); the owner is read only for an op result.
    unsafe {
        if mlirValueIsAOpResult(v) {
            Some(mlirOpResultGetOwner(v))
        } else {
            None
        }
    }
}

pub fn has_uses(v: MlirValue) -> bool {
    // SAFETY: `v` is live (module contract).
    unsafe { !mlirOpOperandIsNull(mlirValueGetFirstUse(v)) }
}

/// The operations using `v` (one entry per use).
pub fn users(v: MlirValue) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    // SAFETY: `v` is live (module contract); the use list is only read, and each use is
    // followed only while non-null.
    unsafe {
        let mut u = mlirValueGetFirstUse(v);
        while !mlirOpOperandIsNull(u) {
            out.push(mlirOpOperandGetOwner(u));
            u = mlirOpOperandGetNextUse(u);
        }
    }
    out
}

/// Erases `op` (removing it from its block) and frees it, with its regions.
///
/// # Safety
/// `op` is a live operation of the IR the running pass owns, is not the operation the pass
/// runs on, and none of its results has uses left. After the call, `op`, its results and
/// every handle into its regions dangle: the caller must not use any of them (nor have them
/// in a list it will still walk, erase or rewrite).
pub unsafe fn erase(op: MlirOperation) {
    // SAFETY: the caller's guarantees.
    unsafe { mlirOperationDestroy(op) }
}

/// A `DenseI64ArrayAttr` named `attr` on `op` (empty when absent).
pub fn i64_array(op: MlirOperation, attr: &str) -> Vec<i64> {
    // SAFETY: `op` is live (module contract); `string_ref` borrows `attr` for the call only;
    // the elements are read only after checking the attribute is a DenseI64ArrayAttr, at
    // indices below its length.
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(attr));
        if a.ptr.is_null() || !mlirAttributeIsADenseI64Array(a) {
            return Vec::new();
        }
        (0..mlirDenseArrayGetNumElements(a))
            .map(|i| mlirDenseI64ArrayGetElement(a, i))
            .collect()
    }
}

/// Sets the `DenseI64ArrayAttr` `attr` of `op` to `values`.
///
/// # Safety
/// `op` is live and owned by the running pass, and `attr` is an attribute that `op`'s C++
/// accessors read as a `DenseI64ArrayAttr` (or none at all): they cast without checking.
pub unsafe fn set_i64_array(op: MlirOperation, attr: &str, values: &[i64]) {
    // SAFETY: the caller's guarantees; `values` and `attr` are borrowed for the call only
    // (MLIR copies them into the context).
    unsafe {
        let ctx = mlirOperationGetContext(op);
        let a = mlirDenseI64ArrayGet(ctx, values.len() as isize, values.as_ptr());
        mlirOperationSetAttributeByName(op, string_ref(attr), a);
    }
}

/// The shape of a shaped type (an `!axe.tensor` implements ShapedTypeInterface).
/// Whether `t` is a memref in the default memory space with the identity layout (its
/// elements row-major and contiguous, as one-shot-bufferize's identity-layout functions take
/// them).
pub fn is_identity_memref(t: MlirType) -> bool {
    // SAFETY: `t` is live (module contract); the layout and memory space are read only for a
    // memref, and the affine map only from an affine map attribute.
    unsafe {
        if !mlirTypeIsAMemRef(t) || !mlirMemRefTypeGetMemorySpace(t).ptr.is_null() {
            return false;
        }
        let layout = mlirMemRefTypeGetLayout(t);
        layout.ptr.is_null()
            || (mlirAttributeIsAAffineMap(layout) && mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(layout)))
    }
}

pub fn shape(t: MlirType) -> Vec<i64> {
    // SAFETY: `t` is live (module contract); dimensions are read only for a shaped type, at
    // indices below its rank.
    unsafe {
        if !mlirTypeIsAShaped(t) {
            return Vec::new();
        }
        (0..mlirShapedTypeGetRank(t))
            .map(|i| mlirShapedTypeGetDimSize(t, i as isize))
            .collect()
    }
}

/// The layout of an `!axe.tensor` type; None for `?` or other types.
pub fn tensor_layout(t: MlirType) -> Option<Layout> {
    // SAFETY: `t` is a live type (module contract); types are owned by the context.
    dialect::tensor_layout(unsafe { Type::from_raw(t) })
}

pub fn is_tensor(t: MlirType) -> bool {
    // SAFETY: `t` is a live type (module contract).
    dialect::is_tensor_type(unsafe { Type::from_raw(t) })
}

/// The `!axe.tensor` type `t` with its layout replaced by `layout` (any other type unchanged).
pub fn with_layout(t: MlirType, layout: &Layout) -> MlirType {
    if !is_tensor(t) {
        return t;
    }
    // SAFETY: `t` is a live `!axe.tensor` (module contract, checked above), which the C++
    // casts to; the layout attribute is built from canonical text (it always parses) in `t`'s
    // context, where the dialect is loaded (`t` is one of its types).
    unsafe {
        let ctx = mlirTypeGetContext(t);
        let text = layout.to_string();
        let attr = dialect::ffi::axeLayoutAttrGet(ctx, string_ref(&text));
        dialect::ffi::axeTensorTypeWithLayout(t, attr)
    }
}

/// The printed form of a type (for diagnostics).
pub fn type_to_string(t: MlirType) -> String {
    // SAFETY: `t` is a live type (module contract).
    unsafe { Type::from_raw(t) }.to_string()
}

/// Emits `error: message` at `op`'s location.
pub fn error(op: MlirOperation, message: &str) {
    crate::diagnostics::emit_error_raw(op, message);
}

/// Emits `warning: message` at `op`'s location.
pub fn warning(op: MlirOperation, message: &str) {
    let c = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `op` is live (module contract); `c` is a NUL-terminated string alive for the call.
    unsafe { dialect::ffi::axeEmitWarning(mlirOperationGetLocation(op), c.as_ptr()) }
}

/// Emits `remark: message` at `op`'s location.
pub fn remark(op: MlirOperation, message: &str) {
    let c = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `op` is live (module contract); `c` is a NUL-terminated string alive for the call.
    unsafe { dialect::ffi::axeEmitRemark(mlirOperationGetLocation(op), c.as_ptr()) }
}

// ----- Operation structure, attributes and creation (used by axe-infer-layout). -----

/// The operation's parent operation, if any.
pub fn parent(op: MlirOperation) -> Option<MlirOperation> {
    // SAFETY: `op` is live (module contract); a null parent is mapped to None.
    let p = unsafe { mlirOperationGetParentOperation(op) };
    (!p.ptr.is_null()).then_some(p)
}

/// An integer (or integer-backed enum) attribute's value.
pub fn int_attr(op: MlirOperation, attr: &str) -> Option<i64> {
    // SAFETY: `op` is live (module contract); the value is read only from a non-null
    // IntegerAttr.
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(attr));
        (!a.ptr.is_null() && mlirAttributeIsAInteger(a)).then(|| mlirIntegerAttrGetValueInt(a))
    }
}

/// A `BoolAttr`'s value (`persistent = false`).
pub fn bool_attr(op: MlirOperation, attr: &str) -> Option<bool> {
    // SAFETY: `op` is live (module contract); the value is read only from a non-null BoolAttr.
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(attr));
        (!a.ptr.is_null() && mlirAttributeIsABool(a)).then(|| mlirBoolAttrGetValue(a))
    }
}

/// The enum attribute `attr` of `op` as the ODS enum `E`: None when `op` does not carry it, an
/// error located at `op` when its value is not one of `E`'s cases (never silently another
/// case).
pub fn enum_attr<E: OdsEnum>(op: MlirOperation, attr: &str) -> crate::error::Result<Option<E>> {
    let Some(v) = int_attr(op, attr) else { return Ok(None) };
    E::from_i64(v).map(Some).ok_or_else(|| {
        let cases: Vec<String> = E::ALL
            .iter()
            .map(|c| format!("{} ({})", c.as_str(), c.as_i64()))
            .collect();
        crate::error::AxeError::at(
            op,
            format!(
                "attribute '{attr}' is {v}, not a {} (one of {})",
                E::NAME,
                cases.join(", ")
            ),
        )
    })
}

/// The schedule of an `axe.copy`: its ODS default when the op does not carry one, None for a
/// value ODS does not declare (which `ir::enum_attr` reports as an error where one can be
/// returned).
pub fn copy_schedule(op: MlirOperation) -> Option<CopySchedule> {
    enum_attr(op, ods::copy::SCHEDULE)
        .ok()
        .map(|s| s.unwrap_or(ods::copy::SCHEDULE_DEFAULT))
}

/// The byte alignment a function argument declares for its buffer (`{axe.align = N}`, checked
/// by the dialect's argument-attribute verifier), when `v` is such an argument.
pub fn declared_alignment(v: MlirValue) -> Option<i64> {
    declared_int(v, ods::discardable_attrs::ALIGN)
}

/// The attribute `name` a function argument carries in the function's `arg_attrs`, when `v`
/// is such an argument.
fn argument_attr(v: MlirValue, name: &str) -> Option<MlirAttribute> {
    // SAFETY: `v` is live (module contract); every handle read from it is checked (block
    // argument, non-null owner, array attribute and index in range, dictionary) before it is
    // used.
    unsafe {
        if !mlirValueIsABlockArgument(v) {
            return None;
        }
        let index = mlirBlockArgumentGetArgNumber(v);
        let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
        if owner.ptr.is_null() {
            return None;
        }
        let arg_attrs = mlirOperationGetAttributeByName(owner, string_ref("arg_attrs"));
        if arg_attrs.ptr.is_null()
            || !mlirAttributeIsAArray(arg_attrs)
            || index >= mlirArrayAttrGetNumElements(arg_attrs)
        {
            return None;
        }
        let dict = mlirArrayAttrGetElement(arg_attrs, index);
        if !mlirAttributeIsADictionary(dict) {
            return None;
        }
        let a = mlirDictionaryAttrGetElementByName(dict, string_ref(name));
        (!a.ptr.is_null()).then_some(a)
    }
}

/// The base alignment (bytes) a memref value is known to have when it is a function argument:
/// what it declares (`axe.align`), at least the element's natural alignment.
pub fn argument_alignment(v: MlirValue) -> i64 {
    let natural = (i64::from(element_bits(value_type(v))) / 8).max(1);
    declared_alignment(v).unwrap_or(natural).max(natural)
}

/// An integer argument attribute (`{axe.align = 16}`, `{axe.peers_of = 0}`).
pub fn declared_int(v: MlirValue, name: &str) -> Option<i64> {
    let a = argument_attr(v, name)?;
    // SAFETY: `a` is a live attribute of the argument's dictionary.
    unsafe { mlirAttributeIsAInteger(a).then(|| mlirIntegerAttrGetValueInt(a)) }
}

/// Whether a function argument carries the (unit) attribute `name` (`{axe.mesh_rank}`).
pub fn declared_flag(v: MlirValue, name: &str) -> bool {
    argument_attr(v, name).is_some()
}

/// Appends an argument of type `ty` with the argument attributes `attrs` to the `func.func`
/// `func`: its entry block, function type and `arg_attrs` together.
pub fn append_function_argument(func: MlirOperation, ty: MlirType, attrs: &[(&str, MlirAttribute)]) -> MlirValue {
    // SAFETY: `func` is a live func.func of the IR this pass owns; its type, entry block and
    // argument attributes are updated together, so they stay consistent.
    unsafe {
        let ctx = mlirOperationGetContext(func);
        let entry = region_block(func, 0);
        let loc = mlirOperationGetLocation(func);
        let arg = mlirBlockAddArgument(entry, ty, loc);
        let fty = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(func, string_ref("function_type")));
        let mut inputs: Vec<MlirType> = (0..mlirFunctionTypeGetNumInputs(fty))
            .map(|i| mlirFunctionTypeGetInput(fty, i))
            .collect();
        let results: Vec<MlirType> = (0..mlirFunctionTypeGetNumResults(fty))
            .map(|i| mlirFunctionTypeGetResult(fty, i))
            .collect();
        inputs.push(ty);
        let new = mlirFunctionTypeGet(
            ctx,
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        );
        mlirOperationSetAttributeByName(func, string_ref("function_type"), mlirTypeAttrGet(new));
        // Argument attributes: one dictionary per argument.
        let old = mlirOperationGetAttributeByName(func, string_ref("arg_attrs"));
        let mut dicts: Vec<MlirAttribute> = if !old.ptr.is_null() && mlirAttributeIsAArray(old) {
            (0..mlirArrayAttrGetNumElements(old))
                .map(|i| mlirArrayAttrGetElement(old, i))
                .collect()
        } else {
            Vec::new()
        };
        while dicts.len() + 1 < inputs.len() {
            dicts.push(mlirDictionaryAttrGet(ctx, 0, std::ptr::null()));
        }
        let named: Vec<MlirNamedAttribute> = attrs
            .iter()
            .map(|(k, v)| mlirNamedAttributeGet(mlirIdentifierGet(ctx, string_ref(k)), *v))
            .collect();
        dicts.push(mlirDictionaryAttrGet(ctx, named.len() as isize, named.as_ptr()));
        mlirOperationSetAttributeByName(
            func,
            string_ref("arg_attrs"),
            mlirArrayAttrGet(ctx, dicts.len() as isize, dicts.as_ptr()),
        );
        arg
    }
}

/// The function (`func.func`) around `op`.
pub fn enclosing_function(op: MlirOperation) -> Option<MlirOperation> {
    let mut p = parent(op);
    while let Some(o) = p {
        if name(o) == func::FuncOperation::name() {
            return Some(o);
        }
        p = parent(o);
    }
    None
}

/// The name of the target (`#axe.target<"...">`) on the nearest enclosing op that carries
/// `axe.target` as an `#axe.target`, if any.
pub fn target_name(op: MlirOperation) -> Option<String> {
    let mut p = Some(op);
    while let Some(o) = p {
        if let Ok(Some(name)) = own_target_name(o) {
            return Some(name);
        }
        p = parent(o);
    }
    None
}

/// The name of the target `op` itself carries in `axe.target` (the dialect's discardable
/// attribute `target`): None when it carries none, an error located at `op` when the
/// attribute is not an `#axe.target<"NAME">`.
pub fn own_target_name(op: MlirOperation) -> crate::error::Result<Option<String>> {
    let attr_name = ods::discardable_attrs::TARGET;
    // SAFETY: `op` is live (module contract); `string_ref` borrows `attr_name` for the call.
    let a = unsafe { mlirOperationGetAttributeByName(op, string_ref(attr_name)) };
    if a.ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: `a` is a live, non-null attribute of `op`.
    if unsafe { dialect::ffi::axeAttributeIsATarget(a) } {
        // SAFETY: `a` is an `#axe.target` (checked above); its name is owned by the context.
        return Ok(Some(string(unsafe { dialect::ffi::axeTargetAttrGetName(a) })));
    }
    // SAFETY: `a` is a live, non-null attribute (printed for the diagnostic only).
    let printed = unsafe { melior::ir::attribute::Attribute::from_raw(a) }.to_string();
    Err(crate::error::AxeError::at(
        op,
        format!("'{attr_name}' must be an #axe.target<\"NAME\">, got {printed}"),
    ))
}

/// Sets `op`'s discardable attribute `name` (one named by a dialect, `dialect.name`, that no
/// C++ accessor of `op` reads with an unchecked cast) to `a`.
pub fn set_discardable_attr(op: MlirOperation, name: &str, a: MlirAttribute) {
    // SAFETY: `op` and `a` are live (module contract); no accessor of `op` casts a
    // discardable attribute unchecked, so replacing it cannot break a C++ invariant.
    unsafe { mlirOperationSetAttributeByName(op, string_ref(name), a) }
}

/// Removes `op`'s discardable attribute `name`, if it has one.
pub fn remove_discardable_attr(op: MlirOperation, name: &str) {
    // SAFETY: `op` is live (module contract); a discardable attribute is read by no C++
    // accessor, so removing it cannot break an invariant of the op.
    unsafe {
        mlirOperationRemoveAttributeByName(op, string_ref(name));
    }
}

/// A signless integer attribute of `bits` bits holding `v` (which the caller keeps in range).
pub fn integer_attr(ctx: MlirContext, bits: u32, v: i64) -> MlirAttribute {
    // SAFETY: `ctx` is live (module contract); the attribute is owned by it.
    unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, bits), v) }
}

/// Whether `op` carries the attribute `attr` (e.g. a unit attribute).
pub fn has_attr(op: MlirOperation, attr: &str) -> bool {
    // SAFETY: `op` is live (module contract).
    unsafe { !mlirOperationGetAttributeByName(op, string_ref(attr)).ptr.is_null() }
}

/// Memory scopes of `!axe.tensor` (generated from ODS `Axe_MemoryScope`).
pub use crate::dialect::ods::MemoryScope;

/// The memory scope of an `!axe.tensor` type (None for any other type; the C++ type holds
/// only values ODS declares, so every scope it reports has a case here).
pub fn tensor_scope(t: MlirType) -> Option<MemoryScope> {
    if !is_tensor(t) {
        return None;
    }
    // SAFETY: `t` is an `!axe.tensor` (checked above).
    MemoryScope::from_i64(unsafe { dialect::ffi::axeTensorTypeGetScope(t) }.into())
}

/// The bit width of a shaped type's element type (0 when not an int or float).
pub fn element_bits(t: MlirType) -> u32 {
    // SAFETY: `t` is a live type (module contract).
    if !unsafe { mlirTypeIsAShaped(t) } {
        return 0;
    }
    // SAFETY: `t` is a live shaped type (module contract, checked above); widths are read
    // only from integer and float types.
    unsafe {
        let e = mlirShapedTypeGetElementType(t);
        if mlirTypeIsAInteger(e) {
            mlirIntegerTypeGetWidth(e)
        } else if mlirTypeIsAFloat(e) {
            mlirFloatTypeGetWidth(e)
        } else {
            0
        }
    }
}

/// The printed element type of a shaped type (e.g. "f16").
pub fn element_type_name(t: MlirType) -> String {
    assert!(
        // SAFETY: `t` is a live type (module contract).
        unsafe { mlirTypeIsAShaped(t) },
        "element type of the unshaped type {}",
        type_to_string(t)
    );
    // SAFETY: `t` is a live shaped type (module contract, checked above).
    unsafe { Type::from_raw(mlirShapedTypeGetElementType(t)) }.to_string()
}

/// Creates `name(operands) -> results` right before `before` and returns it.
///
/// # Safety
/// `before` is a live operation in a block of the IR the running pass owns; `operands` and
/// `results` are live handles visible at `before`; and `name(operands) -> results` is a
/// valid form of a registered operation (it is not verified here, and C++ accessors cast
/// operands without checking).
pub unsafe fn create_before(
    before: MlirOperation,
    name: &str,
    operands: &[MlirValue],
    results: &[MlirType],
) -> MlirOperation {
    // SAFETY: the caller's guarantees; the state borrows `name`, `operands` and `results`
    // only until mlirOperationCreate copies them, and the new op is owned by the block.
    unsafe {
        let loc = mlirOperationGetLocation(before);
        let mut state = mlirOperationStateGet(string_ref(name), loc);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let op = mlirOperationCreate(&mut state);
        let block = mlirOperationGetBlock(before);
        mlirBlockInsertOwnedOperationBefore(block, before, op);
        op
    }
}

/// A stable key for a value (for maps keyed by SSA value).
pub fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

pub fn num_results(op: MlirOperation) -> usize {
    // SAFETY: `op` is live (module contract).
    unsafe { mlirOperationGetNumResults(op) as usize }
}

/// The operation after `op` in its block.
pub fn next_in_block(op: MlirOperation) -> Option<MlirOperation> {
    // SAFETY: `op` is live (module contract); a null successor is mapped to None.
    let n = unsafe { mlirOperationGetNextInBlock(op) };
    (!n.ptr.is_null()).then_some(n)
}

/// Whether `ancestor` (properly) contains `op`.
pub fn is_ancestor(ancestor: MlirOperation, op: MlirOperation) -> bool {
    let mut p = parent(op);
    while let Some(o) = p {
        if o.ptr == ancestor.ptr {
            return true;
        }
        p = parent(o);
    }
    false
}

/// Replaces every use of `from` by `to`.
///
/// # Safety
/// `from` and `to` are live values of the IR the running pass owns, `to` is visible at every
/// use of `from`, and every user accepts `to`'s type there (C++ casts operand types without
/// checking). Handles of `from`'s uses held elsewhere now refer to uses of `to`.
pub unsafe fn replace_all_uses(from: MlirValue, to: MlirValue) {
    // SAFETY: the caller's guarantees.
    unsafe { mlirValueReplaceAllUsesOfWith(from, to) }
}

/// The block holding `op`.
pub fn block_of(op: MlirOperation) -> Option<MlirBlock> {
    // SAFETY: `op` is live (module contract); a null block is mapped to None.
    let b = unsafe { mlirOperationGetBlock(op) };
    (!b.ptr.is_null()).then_some(b)
}

/// Whether `op` is nested in an operation that precedes `before` in `before`'s block (so it
/// runs before it).
pub fn is_ancestor_block(before: MlirOperation, op: MlirOperation) -> bool {
    let Some(block) = block_of(before) else { return false };
    let mut p = Some(op);
    while let Some(o) = p {
        if block_of(o).map(|b| b.ptr) == Some(block.ptr) {
            // `o` is in the same block: does it come before `before`?
            let mut n = next_in_block(o);
            while let Some(x) = n {
                if x.ptr == before.ptr {
                    return true;
                }
                n = next_in_block(x);
            }
            return false;
        }
        p = parent(o);
    }
    false
}

/// The operations of `block`, in order.
pub fn block_ops(block: MlirBlock) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    // SAFETY: `block` is live (module contract); the list is only read, each op followed
    // only while non-null.
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            out.push(op);
            op = mlirOperationGetNextInBlock(op);
        }
    }
    out
}

/// The number of regions of `op`.
pub fn num_regions(op: MlirOperation) -> usize {
    // SAFETY: `op` is live (module contract); the count is only read.
    unsafe { mlirOperationGetNumRegions(op) as usize }
}

/// Every block of every region of `op`, in order.
pub fn region_blocks(op: MlirOperation) -> Vec<MlirBlock> {
    let mut out = Vec::new();
    for r in 0..num_regions(op) {
        // SAFETY: `op` is live and `r` in range; the block list is only read, each block
        // followed only while non-null.
        unsafe {
            let mut blk = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r as isize));
            while !blk.ptr.is_null() {
                out.push(blk);
                blk = mlirBlockGetNextInRegion(blk);
            }
        }
    }
    out
}

/// The arguments of `block`.
pub fn block_arguments(block: MlirBlock) -> Vec<MlirValue> {
    // SAFETY: `block` is live (module contract); its arguments are only read, by index in range.
    unsafe {
        (0..mlirBlockGetNumArguments(block))
            .map(|a| mlirBlockGetArgument(block, a))
            .collect()
    }
}

/// The terminator of `block`, if it has one.
pub fn terminator(block: MlirBlock) -> Option<MlirOperation> {
    // SAFETY: `block` is live (module contract); a null terminator is mapped to None.
    let t = unsafe { mlirBlockGetTerminator(block) };
    (!t.ptr.is_null()).then_some(t)
}

/// The first block of `op`'s `i`-th region (null when the region is empty; panics when `op`
/// has no such region).
pub fn region_block(op: MlirOperation, i: usize) -> MlirBlock {
    // SAFETY: `op` is live (module contract).
    let n = unsafe { mlirOperationGetNumRegions(op) } as usize;
    assert!(i < n, "region {i} of '{}', which has {n}", name(op));
    // SAFETY: `op` is live and `i` is in range (checked above).
    unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i as isize)) }
}

/// The swizzle of an `!axe.tensor` type, if it has one.
pub fn tensor_swizzle(t: MlirType) -> Option<axe_layout::swizzle::Swizzle> {
    if !is_tensor(t) {
        return None;
    }
    let (mut b, mut m, mut s) = (0i32, 0i32, 0i32);
    // SAFETY: `t` is an `!axe.tensor` (checked above); the out-pointers are live locals.
    unsafe { dialect::ffi::axeTensorTypeGetSwizzle(t, &mut b, &mut m, &mut s) }.then_some(
        axe_layout::swizzle::Swizzle {
            bits: b as u32,
            base: m as u32,
            shift: s,
        },
    )
}

/// The `!axe.tensor` type `t` with swizzle `s` (None: no swizzle; any other type unchanged).
pub fn with_swizzle(t: MlirType, s: Option<&axe_layout::swizzle::Swizzle>) -> MlirType {
    if !is_tensor(t) {
        return t;
    }
    let (b, m, sh) = s.map(|s| (s.bits as i32, s.base as i32, s.shift)).unwrap_or((0, 0, 0));
    // SAFETY: `t` is a live `!axe.tensor` (module contract, checked above), which the C++
    // casts to.
    unsafe { dialect::ffi::axeTensorTypeWithSwizzle(t, b, m, sh) }
}

/// The value of a string attribute (e.g. `sym_name`).
pub fn string_attr(op: MlirOperation, name: &str) -> Option<String> {
    // SAFETY: `op` is live (module contract); the value is read only from a non-null
    // StringAttr.
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(name));
        (!a.ptr.is_null() && mlirAttributeIsAString(a)).then(|| string(mlirStringAttrGetValue(a)))
    }
}

/// The printed form of `op`'s attribute `name` (e.g. `"foo"` for a string, `3 : i64`), if set.
/// For diagnostics: code that decides on an attribute reads it through a typed accessor.
pub fn attr_text(op: MlirOperation, name: &str) -> Option<String> {
    // SAFETY: `op` is live (module contract); the attribute is wrapped only when non-null.
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(name));
        (!a.ptr.is_null()).then(|| melior::ir::attribute::Attribute::from_raw(a).to_string())
    }
}

/// The value of a float or integer attribute (e.g. an `arith.constant`'s `value`) as an `f64`
/// (None for any other attribute, and for an `i1`). A float is the shortest decimal that
/// denotes the same value in the attribute's type, as MLIR prints it (`0.1 : f16` is 0.1, not
/// the f16's exact binary value 0.0999755859375).
pub fn float_or_int_attr(op: MlirOperation, name: &str) -> Option<f64> {
    // SAFETY: `op` is live (module contract); the value is read only from a non-null
    // FloatAttr or IntegerAttr; candidate attributes are built in the attribute's own context
    // and type.
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(name));
        if a.ptr.is_null() {
            None
        } else if mlirAttributeIsAFloat(a) {
            let x = mlirFloatAttrGetValueDouble(a);
            let (ctx, t) = (mlirAttributeGetContext(a), mlirAttributeGetType(a));
            let shortest = x
                .is_finite()
                .then(|| {
                    (1..=17).find_map(|digits| {
                        let y: f64 = format!("{:.*e}", digits - 1, x).parse().ok()?;
                        mlirAttributeEqual(mlirFloatAttrDoubleGet(ctx, t, y), a).then_some(y)
                    })
                })
                .flatten();
            Some(shortest.unwrap_or(x))
        } else if mlirAttributeIsAInteger(a) {
            // An i1 is a boolean (`true`), not a number.
            let t = mlirAttributeGetType(a);
            let boolean = mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1;
            (!boolean).then(|| mlirIntegerAttrGetValueInt(a) as f64)
        } else {
            None
        }
    }
}

/// `op`'s attribute `name`, if set.
pub fn attr(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    // SAFETY: `op` is live (module contract); `string_ref` borrows `name` for the call.
    let a = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    (!a.ptr.is_null()).then_some(a)
}

/// Sets `op`'s attribute `name` to `a`.
///
/// # Safety
/// `op` is live and owned by the running pass, `a` is an attribute of its context, and `name`
/// is an attribute that `op`'s C++ accessors read as `a`'s kind (or none at all): they cast
/// without checking.
pub unsafe fn set_attr(op: MlirOperation, name: &str, a: MlirAttribute) {
    // SAFETY: the caller's guarantee; `string_ref` borrows `name` for the call.
    unsafe { mlirOperationSetAttributeByName(op, string_ref(name), a) }
}

/// The operands of an op with `AttrSizedOperandSegments`, one group per ODS operand (empty for
/// an absent optional one); None when the op carries no segment sizes or they do not add up.
pub fn operand_groups(op: MlirOperation) -> Option<Vec<Vec<MlirValue>>> {
    let seg = attr(op, "operandSegmentSizes")?;
    // SAFETY: `seg` is a live attribute of `op`; it is read as a DenseI32Array only after the
    // check, at indices below its length.
    if !unsafe { mlirAttributeIsADenseI32Array(seg) } {
        return None;
    }
    // SAFETY: as above.
    let sizes: Vec<usize> = (0..unsafe { mlirDenseArrayGetNumElements(seg) })
        // SAFETY: as above.
        .map(|i| unsafe { mlirDenseI32ArrayGetElement(seg, i) }.max(0) as usize)
        .collect();
    if sizes.iter().sum::<usize>() != num_operands(op) {
        return None;
    }
    let mut next = 0;
    Some(
        sizes
            .into_iter()
            .map(|n| {
                let group = (next..next + n).map(|i| operand(op, i)).collect();
                next += n;
                group
            })
            .collect(),
    )
}
