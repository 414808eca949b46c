//! Small, safe-to-call helpers over raw MLIR handles for the pass bodies.
//!
//! Pass bodies first collect the operations they rewrite (a walk must not mutate what it
//! walks), then mutate them; raw handles (`MlirOperation`, `MlirValue`) are `Copy` and carry
//! no borrow, which keeps that two-phase structure simple. Every function here requires the
//! handles to belong to the IR the running pass owns (the pass manager guarantees it for the
//! duration of the pass).

use std::ffi::c_void;

use axe_layout::Layout;
use melior::ir::r#type::Type;
use melior::ir::TypeLike;
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
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef { data: s.as_ptr() as *const _, length: s.len() }
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
    unsafe extern "C" fn visit(op: MlirOperation, data: *mut c_void) -> MlirWalkResult {
        let acc = &mut *(data as *mut Acc);
        if (acc.keep)(&name(op)) {
            acc.out.push(op);
        }
        MlirWalkResult_MlirWalkResultAdvance
    }
    let mut acc = Acc { keep: &keep, out: Vec::new() };
    unsafe {
        mlirOperationWalk(root, Some(visit), &mut acc as *mut Acc as *mut c_void, MlirWalkOrder_MlirWalkPreOrder)
    };
    acc.out
}

/// The operation's name, e.g. `axe.slice`.
pub fn name(op: MlirOperation) -> String {
    unsafe { string(mlirIdentifierStr(mlirOperationGetName(op))) }
}

pub fn operand(op: MlirOperation, i: usize) -> MlirValue {
    unsafe { mlirOperationGetOperand(op, i as isize) }
}

pub fn num_operands(op: MlirOperation) -> usize {
    unsafe { mlirOperationGetNumOperands(op) as usize }
}

pub fn set_operand(op: MlirOperation, i: usize, v: MlirValue) {
    unsafe { mlirOperationSetOperand(op, i as isize, v) }
}

pub fn result(op: MlirOperation, i: usize) -> MlirValue {
    unsafe { mlirOperationGetResult(op, i as isize) }
}

pub fn value_type(v: MlirValue) -> MlirType {
    unsafe { mlirValueGetType(v) }
}

pub fn set_value_type(v: MlirValue, t: MlirType) {
    unsafe { mlirValueSetType(v, t) }
}

/// The operation defining `v`, if `v` is an operation result.
pub fn defining_op(v: MlirValue) -> Option<MlirOperation> {
    unsafe {
        if mlirValueIsAOpResult(v) {
            Some(mlirOpResultGetOwner(v))
        } else {
            None
        }
    }
}

pub fn has_uses(v: MlirValue) -> bool {
    unsafe { !mlirOpOperandIsNull(mlirValueGetFirstUse(v)) }
}

/// The operations using `v` (one entry per use).
pub fn users(v: MlirValue) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    unsafe {
        let mut u = mlirValueGetFirstUse(v);
        while !mlirOpOperandIsNull(u) {
            out.push(mlirOpOperandGetOwner(u));
            u = mlirOpOperandGetNextUse(u);
        }
    }
    out
}

pub fn erase(op: MlirOperation) {
    unsafe { mlirOperationDestroy(op) }
}

/// A `DenseI64ArrayAttr` named `attr` on `op` (empty when absent).
pub fn i64_array(op: MlirOperation, attr: &str) -> Vec<i64> {
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(attr));
        if a.ptr.is_null() || !mlirAttributeIsADenseI64Array(a) {
            return Vec::new();
        }
        (0..mlirDenseArrayGetNumElements(a)).map(|i| mlirDenseI64ArrayGetElement(a, i)).collect()
    }
}

pub fn set_i64_array(op: MlirOperation, attr: &str, values: &[i64]) {
    unsafe {
        let ctx = mlirOperationGetContext(op);
        let a = mlirDenseI64ArrayGet(ctx, values.len() as isize, values.as_ptr());
        mlirOperationSetAttributeByName(op, string_ref(attr), a);
    }
}

/// The shape of a shaped type (an `!axe.tensor` implements ShapedTypeInterface).
pub fn shape(t: MlirType) -> Vec<i64> {
    unsafe {
        if !mlirTypeIsAShaped(t) {
            return Vec::new();
        }
        (0..mlirShapedTypeGetRank(t)).map(|i| mlirShapedTypeGetDimSize(t, i as isize)).collect()
    }
}

/// The layout of an `!axe.tensor` type; None for `?` or other types.
pub fn tensor_layout(t: MlirType) -> Option<Layout> {
    dialect::tensor_layout(unsafe { Type::from_raw(t) })
}

pub fn is_tensor(t: MlirType) -> bool {
    dialect::is_tensor_type(unsafe { Type::from_raw(t) })
}

/// The `!axe.tensor` type `t` with its layout replaced by `layout`.
pub fn with_layout(t: MlirType, layout: &Layout) -> MlirType {
    unsafe {
        let ctx = mlirTypeGetContext(t);
        let text = layout.to_string();
        let attr = dialect::ffi::axeLayoutAttrGet(ctx, string_ref(&text));
        dialect::ffi::axeTensorTypeWithLayout(t, attr)
    }
}

/// The printed form of a type (for diagnostics).
pub fn type_to_string(t: MlirType) -> String {
    unsafe { Type::from_raw(t) }.to_string()
}

/// Emits `error: message` at `op`'s location.
pub fn error(op: MlirOperation, message: &str) {
    crate::diagnostics::emit_error_raw(op, message);
}

/// Emits `warning: message` at `op`'s location.
pub fn warning(op: MlirOperation, message: &str) {
    let c = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { dialect::ffi::axeEmitWarning(mlirOperationGetLocation(op), c.as_ptr()) }
}

/// Emits `remark: message` at `op`'s location.
pub fn remark(op: MlirOperation, message: &str) {
    let c = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { dialect::ffi::axeEmitRemark(mlirOperationGetLocation(op), c.as_ptr()) }
}

/// Silences "unused" for TypeLike in builds that use only part of this module.
#[allow(dead_code)]
fn _type_like(t: Type) -> MlirType {
    t.to_raw()
}

// ----- Operation structure, attributes and creation (used by axe-infer-layout). -----

/// The operation's parent operation, if any.
pub fn parent(op: MlirOperation) -> Option<MlirOperation> {
    let p = unsafe { mlirOperationGetParentOperation(op) };
    (!p.ptr.is_null()).then_some(p)
}

/// An integer (or integer-backed enum) attribute's value.
pub fn int_attr(op: MlirOperation, attr: &str) -> Option<i64> {
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(attr));
        (!a.ptr.is_null() && mlirAttributeIsAInteger(a)).then(|| mlirIntegerAttrGetValueInt(a))
    }
}

/// The enum attribute `attr` of `op` as the ODS enum `E`: None when `op` does not carry it, an
/// error located at `op` when its value is not one of `E`'s cases (never silently another
/// case).
pub fn enum_attr<E: OdsEnum>(op: MlirOperation, attr: &str) -> crate::error::Result<Option<E>> {
    let Some(v) = int_attr(op, attr) else { return Ok(None) };
    E::from_i64(v).map(Some).ok_or_else(|| {
        let cases: Vec<String> = E::ALL.iter().map(|c| format!("{} ({})", c.as_str(), c.as_i64())).collect();
        crate::error::AxeError::at(op, format!("attribute '{attr}' is {v}, not a {} (one of {})", E::NAME, cases.join(", ")))
    })
}

/// The schedule of an `axe.copy`: its ODS default when the op does not carry one, None for a
/// value ODS does not declare (which `ir::enum_attr` reports as an error where one can be
/// returned).
pub fn copy_schedule(op: MlirOperation) -> Option<CopySchedule> {
    enum_attr(op, ods::copy::SCHEDULE).ok().map(|s| s.unwrap_or(ods::copy::SCHEDULE_DEFAULT))
}

/// The byte alignment a function argument declares for its buffer (`{axe.align = N}`, checked
/// by the dialect's argument-attribute verifier), when `v` is such an argument.
pub fn declared_alignment(v: MlirValue) -> Option<i64> {
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
        if arg_attrs.ptr.is_null() || !mlirAttributeIsAArray(arg_attrs) || index >= mlirArrayAttrGetNumElements(arg_attrs) {
            return None;
        }
        let dict = mlirArrayAttrGetElement(arg_attrs, index);
        if !mlirAttributeIsADictionary(dict) {
            return None;
        }
        let a = mlirDictionaryAttrGetElementByName(dict, string_ref("axe.align"));
        (!a.ptr.is_null() && mlirAttributeIsAInteger(a)).then(|| mlirIntegerAttrGetValueInt(a))
    }
}

/// The name of the target (`#axe.target<"...">`) on the nearest enclosing op that carries
/// `axe.target`, if any.
pub fn target_name(op: MlirOperation) -> Option<String> {
    let mut p = Some(op);
    while let Some(o) = p {
        let a = unsafe { mlirOperationGetAttributeByName(o, string_ref("axe.target")) };
        if !a.ptr.is_null() && unsafe { dialect::ffi::axeAttributeIsATarget(a) } {
            return Some(string(unsafe { dialect::ffi::axeTargetAttrGetName(a) }));
        }
        p = parent(o);
    }
    None
}

/// Whether `op` carries the attribute `attr` (e.g. a unit attribute).
pub fn has_attr(op: MlirOperation, attr: &str) -> bool {
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
    MemoryScope::from_i64(unsafe { dialect::ffi::axeTensorTypeGetScope(t) }.into())
}

/// The bit width of a shaped type's element type (0 when not an int or float).
pub fn element_bits(t: MlirType) -> u32 {
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
    unsafe { Type::from_raw(mlirShapedTypeGetElementType(t)) }.to_string()
}

/// Creates `name(operands) -> results` right before `before` and returns it.
pub fn create_before(
    before: MlirOperation,
    name: &str,
    operands: &[MlirValue],
    results: &[MlirType],
) -> MlirOperation {
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
    unsafe { mlirOperationGetNumResults(op) as usize }
}

/// The operation after `op` in its block.
pub fn next_in_block(op: MlirOperation) -> Option<MlirOperation> {
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
pub fn replace_all_uses(from: MlirValue, to: MlirValue) {
    unsafe { mlirValueReplaceAllUsesOfWith(from, to) }
}

/// The block holding `op`.
pub fn block_of(op: MlirOperation) -> Option<MlirBlock> {
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
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            out.push(op);
            op = mlirOperationGetNextInBlock(op);
        }
    }
    out
}

/// The first block of `op`'s `i`-th region.
pub fn region_block(op: MlirOperation, i: usize) -> MlirBlock {
    unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i as isize)) }
}

/// The swizzle of an `!axe.tensor` type, if it has one.
pub fn tensor_swizzle(t: MlirType) -> Option<axe_layout::swizzle::Swizzle> {
    if !is_tensor(t) {
        return None;
    }
    let (mut b, mut m, mut s) = (0i32, 0i32, 0i32);
    unsafe { dialect::ffi::axeTensorTypeGetSwizzle(t, &mut b, &mut m, &mut s) }
        .then_some(axe_layout::swizzle::Swizzle { bits: b as u32, base: m as u32, shift: s })
}

/// The `!axe.tensor` type `t` with swizzle `s` (None: no swizzle).
pub fn with_swizzle(t: MlirType, s: Option<&axe_layout::swizzle::Swizzle>) -> MlirType {
    let (b, m, sh) = s.map(|s| (s.bits as i32, s.base as i32, s.shift)).unwrap_or((0, 0, 0));
    unsafe { dialect::ffi::axeTensorTypeWithSwizzle(t, b, m, sh) }
}

/// The printed form of `op`'s attribute `name` (e.g. `"foo"` for a string, `3 : i64`), if set.
/// The value of a string attribute (e.g. `sym_name`).
pub fn string_attr(op: MlirOperation, name: &str) -> Option<String> {
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(name));
        (!a.ptr.is_null() && mlirAttributeIsAString(a)).then(|| string(mlirStringAttrGetValue(a)))
    }
}

pub fn attr_text(op: MlirOperation, name: &str) -> Option<String> {
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(name));
        (!a.ptr.is_null()).then(|| melior::ir::attribute::Attribute::from_raw(a).to_string())
    }
}
