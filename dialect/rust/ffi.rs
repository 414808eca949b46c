//! Raw declarations of the C API in `dialect/include/Axe-c/Dialects.h`.

use mlir_sys::{
    MlirAttribute, MlirContext, MlirDialectHandle, MlirLocation, MlirOperation, MlirStringRef,
    MlirType,
};
use std::os::raw::{c_char, c_int, c_void};

pub type AxeStringSink = unsafe extern "C" fn(data: *const c_char, len: usize, user: *mut c_void);

/// Mirrors `AxeRustHooks`.
#[repr(C)]
pub struct AxeRustHooks {
    pub parse_layout: unsafe extern "C" fn(
        text: *const c_char,
        len: usize,
        error_offset: *mut usize,
        sink: AxeStringSink,
        user: *mut c_void,
    ) -> bool,
    pub layout_size: unsafe extern "C" fn(text: *const c_char, len: usize) -> i64,
    pub check_layout_on_target: unsafe extern "C" fn(
        target: *const c_char,
        target_len: usize,
        layout: *const c_char,
        layout_len: usize,
        num_warps: i64,
        num_devices: i64,
        sink: AxeStringSink,
        user: *mut c_void,
    ) -> bool,
    pub check_register_layout_in_scope: unsafe extern "C" fn(
        layout: *const c_char,
        len: usize,
        scope_kind: i32,
        sink: AxeStringSink,
        user: *mut c_void,
    ) -> bool,
    pub check_allocation: unsafe extern "C" fn(
        target: *const c_char,
        target_len: usize,
        layout: *const c_char,
        layout_len: usize,
        scope: i32,
        element_bits: i64,
        swizzle_log2: i32,
        sink: AxeStringSink,
        user: *mut c_void,
    ) -> bool,
    pub check_launch: unsafe extern "C" fn(
        target: *const c_char,
        target_len: usize,
        grid: *const i64,
        grid_rank: usize,
        threads: *const i64,
        threads_rank: usize,
        sink: AxeStringSink,
        user: *mut c_void,
    ) -> bool,
    pub is_known_target: unsafe extern "C" fn(
        target: *const c_char,
        len: usize,
        sink: AxeStringSink,
        user: *mut c_void,
    ) -> bool,
    pub run_pass: unsafe extern "C" fn(
        pass: *const c_char,
        pass_len: usize,
        op: MlirOperation,
        options: *const c_char,
        options_len: usize,
    ) -> bool,
    pub translate: unsafe extern "C" fn(
        name: *const c_char,
        name_len: usize,
        op: MlirOperation,
        sink: AxeStringSink,
        user: *mut c_void,
    ) -> bool,
}

extern "C" {
    pub fn mlirGetDialectHandle__axe__() -> MlirDialectHandle;
    pub fn axeInstallRustHooks(hooks: *const AxeRustHooks);
    pub fn axeRegisterPasses();
    pub fn axeOptMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
    pub fn axeTranslateMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
    pub fn axeRegisterDialectPlugin(registry: *mut c_void);
    pub fn axeAttributeIsALayout(attr: MlirAttribute) -> bool;
    pub fn axeLayoutAttrGet(ctx: MlirContext, text: MlirStringRef) -> MlirAttribute;
    pub fn axeLayoutAttrGetText(attr: MlirAttribute) -> MlirStringRef;
    pub fn axeAttributeIsATarget(attr: MlirAttribute) -> bool;
    pub fn axeTargetAttrGetName(attr: MlirAttribute) -> MlirStringRef;
    pub fn axeTypeIsATensor(ty: MlirType) -> bool;
    pub fn axeTensorTypeGetLayout(ty: MlirType) -> MlirAttribute;
    pub fn axeTensorTypeGetScope(ty: MlirType) -> i32;
    pub fn axeTensorTypeGetSwizzle(ty: MlirType, bits: *mut i32, base: *mut i32, shift: *mut i32) -> bool;
    pub fn axeTensorTypeWithSwizzle(ty: MlirType, bits: i32, base: i32, shift: i32) -> MlirType;
    pub fn axeTensorTypeWithLayout(ty: MlirType, layout: MlirAttribute) -> MlirType;
    pub fn axeEmitWarning(loc: MlirLocation, message: *const c_char);
    pub fn axeEmitRemark(loc: MlirLocation, message: *const c_char);
    pub fn axeReplaceLayoutsIn(
        op: MlirOperation,
        replace: unsafe extern "C" fn(MlirAttribute, *mut c_void) -> MlirAttribute,
        user: *mut c_void,
    );
}
