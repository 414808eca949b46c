//! Axe as a dialect and pass plugin for stock `mlir-opt`:
//! `mlir-opt --load-dialect-plugin=libaxe_plugin.so --load-pass-plugin=libaxe_plugin.so`.
//! The same Rust + C++ code as `axe-opt`, linked against the same `libMLIR.so`, so the plugin
//! shares MLIR's global state with `mlir-opt`.

use axe::plugin::*;

#[no_mangle]
pub extern "C" fn mlirGetDialectPluginInfo() -> DialectPluginLibraryInfo {
    DialectPluginLibraryInfo {
        api_version: API_VERSION,
        plugin_name: NAME.as_ptr() as *const _,
        plugin_version: VERSION.as_ptr() as *const _,
        register_dialect_registry_callbacks: register_dialects,
    }
}

#[no_mangle]
pub extern "C" fn mlirGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: API_VERSION,
        plugin_name: NAME.as_ptr() as *const _,
        plugin_version: VERSION.as_ptr() as *const _,
        register_pass_registry_callbacks: register_passes,
    }
}
