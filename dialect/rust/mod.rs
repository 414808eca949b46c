//! The Rust side of the `axe` dialect: registration through melior's `DialectHandle`,
//! the hooks through which the C++ dialect reaches the Rust layout grammar and pass bodies,
//! and conversion between `#axe.layout` attributes and `axe_layout::Layout`.

pub mod ffi;
pub mod guard;
mod hooks;
pub mod ods;

use std::sync::Once;

use axe_layout::Layout;
use melior::dialect::{DialectHandle, DialectRegistry};
use melior::ir::attribute::Attribute;
use melior::ir::r#type::Type;
use melior::ir::AttributeLike;
use melior::ir::TypeLike;
use melior::Context;
use mlir_sys::MlirStringRef;

static INSTALL: Once = Once::new();

/// Installs the Rust hooks the C++ dialect calls (layout grammar, pass bodies) and registers
/// Axe's passes in MLIR's pass registry. Idempotent; every entry point calls it first.
pub fn install() {
    // SAFETY: `HOOKS` is a static table of functions with the signatures the header declares
    // (bindgen generated both from it), alive for the whole program; registering the passes
    // only adds entries to MLIR's global pass registry, and `Once` runs both exactly once.
    INSTALL.call_once(|| unsafe {
        ffi::axeInstallRustHooks(&hooks::HOOKS);
        ffi::axeRegisterPasses();
    });
}

/// The `axe` dialect handle (for `DialectRegistry`/`Context` registration).
pub fn dialect_handle() -> DialectHandle {
    install();
    // SAFETY: the handle is a static descriptor produced by MLIR's registration macro.
    unsafe { DialectHandle::from_raw(ffi::mlirGetDialectHandle__axe__()) }
}

/// Registers the Axe dialect (and installs the hooks) in `registry`.
pub fn register_dialect(registry: &DialectRegistry) {
    dialect_handle().insert_dialect(registry);
}

/// A registry with every upstream dialect and Axe, upstream's and Axe's passes registered by
/// name: what a Rust host (or a test) builds its melior `Context` from.
pub fn registry_with_everything() -> DialectRegistry {
    let registry = DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    melior::utility::register_all_passes();
    register_dialect(&registry);
    registry
}

/// Loads the Axe dialect into `context`.
pub fn load_dialect(context: &Context) {
    dialect_handle().load_dialect(context);
}

fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const _,
        length: s.len(),
    }
}

/// A copy of a string MLIR returns (attribute storage: valid while its context lives).
fn string_of(s: MlirStringRef) -> String {
    if s.length == 0 {
        return String::new();
    }
    // SAFETY: a non-empty MlirStringRef returned by MLIR points to `length` readable bytes
    // owned by the context, which outlives this call; the bytes are copied before returning.
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether `attr` is an `#axe.layout`.
pub fn is_layout_attr(attr: Attribute) -> bool {
    // SAFETY: melior's `Attribute` is a live, non-null attribute of its context; the C++ only
    // tests its class.
    unsafe { ffi::axeAttributeIsALayout(attr.to_raw()) }
}

/// The layout carried by an `#axe.layout` attribute (None for any other attribute).
pub fn layout_of_attr(attr: Attribute) -> Option<Layout> {
    if !is_layout_attr(attr) {
        return None;
    }
    // SAFETY: `attr` is a live `#axe.layout` (checked above), which the C++ casts to.
    let text = string_of(unsafe { ffi::axeLayoutAttrGetText(attr.to_raw()) });
    // The attribute's verifier guarantees the text parses.
    parse_canonical(&text)
}

/// Parses the canonical text of a layout attribute, once per text and thread: verifiers and
/// rewrites ask for the same few layouts again and again (one op's layout used to be parsed
/// up to four times in its verification). Keyed by the text itself, not by the uniqued
/// attribute's address, which a later context may reuse for another attribute.
pub fn parse_canonical(text: &str) -> Option<Layout> {
    /// Distinct layouts kept per thread; past it the cache starts over.
    const CAPACITY: usize = 4096;
    thread_local! {
        static PARSED: std::cell::RefCell<std::collections::HashMap<Box<str>, Option<Layout>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    PARSED.with(|cache| {
        if let Some(hit) = cache.borrow().get(text) {
            return hit.clone();
        }
        let parsed = Layout::parse(text).ok();
        let mut cache = cache.borrow_mut();
        if cache.len() >= CAPACITY {
            cache.clear();
        }
        cache.insert(text.into(), parsed.clone());
        parsed
    })
}

/// Builds the `#axe.layout` attribute of `layout` in `context` (loading the dialect when it is
/// not loaded yet, which only a context outside multi-threaded execution may do; within a pass
/// on Axe IR it is loaded).
pub fn layout_attr<'c>(context: &'c Context, layout: &Layout) -> Attribute<'c> {
    let text = layout.to_string();
    // SAFETY: `context` is live; after loading the dialect the C++ builds the attribute from
    // the canonical text, which always parses (it is printed from a `Layout`), so the result
    // is a non-null attribute owned by `context` ('c).
    unsafe {
        mlir_sys::mlirContextGetOrLoadDialect(context.to_raw(), string_ref(ods::DIALECT));
        Attribute::from_raw(ffi::axeLayoutAttrGet(context.to_raw(), string_ref(&text)))
    }
}

/// Whether `ty` is an `!axe.tensor`.
pub fn is_tensor_type(ty: Type) -> bool {
    // SAFETY: melior's `Type` is a live, non-null type of its context; the C++ only tests its
    // class.
    unsafe { ffi::axeTypeIsATensor(ty.to_raw()) }
}

/// The layout of an `!axe.tensor` type (None for `?` or a non-Axe type).
pub fn tensor_layout(ty: Type) -> Option<Layout> {
    if !is_tensor_type(ty) {
        return None;
    }
    // SAFETY: `ty` is a live `!axe.tensor` (checked above), which the C++ casts to; a `?`
    // layout is a null attribute, mapped to None.
    let attr = unsafe { Attribute::from_option_raw(ffi::axeTensorTypeGetLayout(ty.to_raw())) }?;
    layout_of_attr(attr)
}
