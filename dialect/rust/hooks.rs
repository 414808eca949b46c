//! The functions the C++ dialect calls through `AxeRustHooks`. Each one catches panics so
//! that no unwinding ever crosses the C ABI: a bug becomes a diagnostic, not an abort.

use std::os::raw::{c_char, c_void};

use axe_layout::Layout;
use mlir_sys::MlirOperation;

use super::ffi::{AxeRustHooks, AxeStringSink};
use super::guard::guarded;
use super::ods::MemoryScope;

/// The table `axeInstallRustHooks` receives (its fields as the C header names them).
pub(super) static HOOKS: AxeRustHooks = AxeRustHooks {
    parseLayout: Some(parse_layout),
    layoutSize: Some(layout_size),
    checkLayoutOnTarget: Some(check_layout_on_target),
    checkRegisterLayoutInScope: Some(check_register_layout_in_scope),
    checkAllocation: Some(check_allocation),
    checkLaunch: Some(check_launch),
    isKnownTarget: Some(is_known_target),
    isGpuTarget: Some(is_gpu_target),
    targetHasFeature: Some(target_has_feature),
    targetHasMemory: Some(target_has_memory),
    runPass: Some(run_pass),
    translate: Some(translate),
};

/// The UTF-8 text of a hook's (pointer, length) argument; None when it is not UTF-8.
///
/// # Safety
/// `ptr` points to `len` readable bytes that stay unchanged for `'a` (or `len` is 0). The C++
/// side passes a `StringRef` it owns for the duration of the hook call, and the hooks use the
/// text only within the call.
unsafe fn text<'a>(ptr: *const c_char, len: usize) -> Option<&'a str> {
    if len == 0 {
        return Some("");
    }
    // SAFETY: the caller's guarantee (`len` > 0 readable bytes at `ptr`).
    std::str::from_utf8(unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }).ok()
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: every (pointer, length) pair is a string it
/// owns for the call (as for [`text`]), and `sink`/`user` are its sink and that sink's data,
/// valid for the call.
unsafe extern "C" fn parse_layout(
    ptr: *const c_char,
    len: usize,
    error_offset: *mut usize,
    sink: AxeStringSink,
    user: *mut c_void,
) -> bool {
    let result = guarded(|| match text(ptr, len) {
        None => Err((0, "layout text is not valid UTF-8".to_string())),
        Some(t) => Layout::parse(t)
            .map(|l| l.to_string())
            .map_err(|e| (e.offset, e.message)),
    });
    let (ok, out, offset) = match result {
        Ok(Ok(canonical)) => (true, canonical, 0),
        Ok(Err((offset, message))) => (false, message, offset),
        Err(panic) => (
            false,
            format!("internal error in the Axe layout parser (please report it): {panic}"),
            0,
        ),
    };
    // SAFETY: the C++ caller passes a pointer to its own `size_t`, writable for the call.
    *error_offset = offset;
    send(sink, user, &out);
    ok
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: `ptr`/`len` is a string it owns for the call
/// (as for [`text`]).
unsafe extern "C" fn layout_size(ptr: *const c_char, len: usize) -> i64 {
    guarded(|| match text(ptr, len).map(Layout::parse) {
        Some(Ok(l)) => l.size(),
        _ => -1,
    })
    .unwrap_or(-1)
}

/// The target named by a hook's (pointer, length) argument.
///
/// # Safety
/// As for [`text`]: `p` points to `len` readable bytes (or `len` is 0).
unsafe fn target_arg(p: *const c_char, len: usize) -> crate::error::Result<&'static crate::target::Target> {
    // SAFETY: the caller's guarantee.
    unsafe { text(p, len) }
        .and_then(crate::target::lookup)
        .ok_or_else(|| "unknown target".into())
}

/// The layout printed in a hook's (pointer, length) argument.
///
/// # Safety
/// As for [`text`]: `p` points to `len` readable bytes (or `len` is 0).
unsafe fn layout_arg(p: *const c_char, len: usize) -> crate::error::Result<Layout> {
    // SAFETY: the caller's guarantee.
    unsafe { text(p, len) }
        .and_then(super::parse_canonical)
        .ok_or_else(|| "invalid layout".into())
}

/// Sends `s` to the C++ caller's sink (a null sink, which the C++ side never passes, drops it).
fn send(sink: AxeStringSink, user: *mut c_void, s: &str) {
    if let Some(sink) = sink {
        // SAFETY: the C++ caller passes a sink valid for this call and its own `user` pointer.
        unsafe { sink(s.as_ptr() as *const c_char, s.len(), user) }
    }
}

/// Runs a check, catching panics; on failure sends the reason to the sink and returns false.
fn report(sink: AxeStringSink, user: *mut c_void, check: impl FnOnce() -> crate::error::Result<()>) -> bool {
    match guarded(check) {
        Ok(Ok(())) => true,
        Ok(Err(reason)) => {
            send(sink, user, &reason.to_string());
            false
        }
        Err(panic) => {
            send(
                sink,
                user,
                &format!("internal error while checking the layout (please report it): {panic}"),
            );
            false
        }
    }
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: every (pointer, length) pair is a string it
/// owns for the call (as for [`text`]), and `sink`/`user` are its sink and that sink's data,
/// valid for the call.
unsafe extern "C" fn check_layout_on_target(
    target: *const c_char,
    target_len: usize,
    layout: *const c_char,
    layout_len: usize,
    num_warps: i64,
    num_devices: i64,
    sink: AxeStringSink,
    user: *mut c_void,
) -> bool {
    report(sink, user, || {
        let target = target_arg(target, target_len)?;
        let layout = layout_arg(layout, layout_len)?;
        let known = |n: i64| (n >= 0).then_some(n);
        target.check_layout(&layout, known(num_warps), known(num_devices))
    })
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: every (pointer, length) pair is a string it
/// owns for the call (as for [`text`]), and `sink`/`user` are its sink and that sink's data,
/// valid for the call.
unsafe extern "C" fn check_register_layout_in_scope(
    layout: *const c_char,
    len: usize,
    scope_kind: i32,
    sink: AxeStringSink,
    user: *mut c_void,
) -> bool {
    report(sink, user, || {
        let layout = layout_arg(layout, len)?;
        let scope = crate::target::ScopeKind::from_i64(scope_kind.into())
            .ok_or_else(|| format!("unknown scope kind {scope_kind}"))?;
        crate::target::check_register_layout_in_scope(&layout, scope)
    })
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: every (pointer, length) pair is a string it
/// owns for the call (as for [`text`]), and `sink`/`user` are its sink and that sink's data,
/// valid for the call.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn check_allocation(
    target: *const c_char,
    target_len: usize,
    layout: *const c_char,
    layout_len: usize,
    scope: i32,
    element_bits: i64,
    swizzle_log2: i32,
    sink: AxeStringSink,
    user: *mut c_void,
) -> bool {
    report(sink, user, || {
        let target = target_arg(target, target_len)?;
        let layout = layout_arg(layout, layout_len)?;
        if MemoryScope::from_i64(scope.into()) != Some(MemoryScope::Shared) {
            return Ok(());
        }
        let swizzle = u32::try_from(swizzle_log2).ok();
        let bytes = crate::target::shared_footprint(&layout, element_bits, swizzle)?;
        target.check_shared_bytes(bytes)
    })
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: `target`/`len` is a string it owns for the call
/// (as for [`text`]).
unsafe extern "C" fn is_gpu_target(target: *const c_char, len: usize) -> bool {
    text(target, len)
        .and_then(crate::target::lookup)
        .is_some_and(|t| t.is_gpu())
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: `target`/`len` is a string it owns for the call
/// (as for [`text`]).
unsafe extern "C" fn target_has_feature(target: *const c_char, len: usize, feature: i32) -> bool {
    let Some(t) = text(target, len).and_then(crate::target::lookup) else {
        return false;
    };
    match feature as u32 {
        super::ffi::AxeTargetFeature_AxeTargetFeatureTma => t.has_tma,
        super::ffi::AxeTargetFeature_AxeTargetFeatureMBarrier => t.has_mbarrier,
        _ => false,
    }
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: `target`/`len` is a string it owns for the call
/// (as for [`text`]).
unsafe extern "C" fn target_has_memory(target: *const c_char, len: usize, scope: i32) -> bool {
    let (Some(t), Some(scope)) = (
        text(target, len).and_then(crate::target::lookup),
        MemoryScope::from_i64(scope.into()),
    ) else {
        return false;
    };
    t.memories.contains(&scope)
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: `target`/`target_len` is a string it owns for
/// the call (as for [`text`]), `grid`, `threads` and `cluster` point to `grid_rank`,
/// `threads_rank` and `cluster_rank` readable `i64`s (or the rank is 0), and `sink`/`user` are its sink and that sink's data.
unsafe extern "C" fn check_launch(
    target: *const c_char,
    target_len: usize,
    grid: *const i64,
    grid_rank: usize,
    threads: *const i64,
    threads_rank: usize,
    cluster: *const i64,
    cluster_rank: usize,
    sink: AxeStringSink,
    user: *mut c_void,
) -> bool {
    report(sink, user, || {
        let target = target_arg(target, target_len)?;
        let slice = |p: *const i64, n: usize| {
            if n == 0 {
                &[][..]
            } else {
                // SAFETY: the caller's guarantee: `p` points to `n` readable `i64`s.
                unsafe { std::slice::from_raw_parts(p, n) }
            }
        };
        target.check_launch(
            slice(grid, grid_rank),
            slice(threads, threads_rank),
            slice(cluster, cluster_rank),
        )
    })
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: every (pointer, length) pair is a string it
/// owns for the call (as for [`text`]), and `sink`/`user` are its sink and that sink's data,
/// valid for the call.
unsafe extern "C" fn is_known_target(
    target: *const c_char,
    len: usize,
    sink: AxeStringSink,
    user: *mut c_void,
) -> bool {
    if text(target, len).and_then(crate::target::lookup).is_some() {
        return true;
    }
    send(sink, user, &crate::target::known_targets());
    false
}

/// # Safety
/// Called by the C++ pass shells through [`HOOKS`]: `pass`/`pass_len` and
/// `options`/`options_len` are strings they own for the call (as for [`text`]), and `op` is
/// the live operation the pass runs on, owned by the pass manager for the call (the module
/// contract of `crate::ir`).
unsafe extern "C" fn run_pass(
    pass: *const c_char,
    pass_len: usize,
    op: MlirOperation,
    options: *const c_char,
    options_len: usize,
) -> bool {
    let (Some(pass), Some(options)) = (text(pass, pass_len), text(options, options_len)) else {
        return false;
    };
    match guarded(|| crate::run_pass(pass, op, options)) {
        Ok(ok) => ok,
        Err(panic) => {
            crate::diagnostics::emit_error_raw(
                op,
                &format!("internal error in pass '{pass}' (please report it): {panic}"),
            );
            false
        }
    }
}

/// # Safety
/// Called by the C++ dialect through [`HOOKS`]: every (pointer, length) pair is a string it
/// owns for the call (as for [`text`]), and `sink`/`user` are its sink and that sink's data,
/// valid for the call.
unsafe extern "C" fn translate(
    name: *const c_char,
    name_len: usize,
    op: MlirOperation,
    sink: AxeStringSink,
    user: *mut c_void,
) -> bool {
    let Some(name) = text(name, name_len) else { return false };
    match guarded(|| crate::translate(name, op)) {
        Ok(Some(out)) => {
            send(sink, user, &out);
            true
        }
        Ok(None) => false,
        Err(panic) => {
            crate::diagnostics::emit_error_raw(
                op,
                &format!("internal error in translation '{name}' (please report it): {panic}"),
            );
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use melior::ir::Module;
    use std::sync::{Arc, Mutex};

    /// A context with every dialect loaded whose diagnostics are collected as
    /// `"<location>: <message>"` strings instead of printed.
    fn context_recording_diagnostics() -> (melior::Context, Arc<Mutex<Vec<String>>>) {
        let context = melior::Context::new();
        context.append_dialect_registry(&crate::dialect::registry_with_everything());
        context.load_all_available_dialects();
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = seen.clone();
        context.attach_diagnostic_handler(move |d| {
            sink.lock().unwrap().push(format!("{}: {d}", d.location()));
            true
        });
        (context, seen)
    }

    /// Runs the Rust body of `pass` with option text `opts` on `module` through the hook the
    /// C++ pass shells call; whether it succeeded.
    fn run(module: &Module, pass: &str, opts: &str) -> bool {
        // SAFETY: both strings are borrowed for the call, and the module is alive.
        unsafe {
            super::run_pass(
                pass.as_ptr() as _,
                pass.len(),
                module.as_operation().to_raw(),
                opts.as_ptr() as _,
                opts.len(),
            )
        }
    }

    /// A panic inside a pass body is an MLIR error at the operation the pass runs on, carrying
    /// the panic's message and location, and the pass fails (no abort, no unwinding into C++).
    #[test]
    fn a_panicking_pass_fails_with_a_located_error() {
        let (context, seen) = context_recording_diagnostics();
        let module = Module::parse(&context, "module {}").unwrap();
        assert!(!run(&module, "axe-test-panic", ""));
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(seen[0].contains("internal error in pass 'axe-test-panic' (please report it): attempt to multiply with overflow at passes/lib.rs:"), "{}", seen[0]);
        assert!(
            seen[0].starts_with("loc(\"-\":1:1)"),
            "located at the module: {}",
            seen[0]
        );
    }

    /// Option text the pass's options struct cannot read (what the C++ shell would hand over
    /// if it drifted from AxePasses.td) fails the pass with an error at the operation naming
    /// the pass and the option, and the pass body does not run.
    #[test]
    fn unreadable_options_fail_the_pass_with_a_located_error() {
        let (context, seen) = context_recording_diagnostics();
        let module = Module::parse(&context, "module {}").unwrap();
        let pass = crate::dialect::ods::passes::CONVERT_AXE_TO_GPU;
        for opts in ["emulate-threads-on-cpu=yes chip=", "chip=sm_90 bogus=1"] {
            assert!(!run(&module, pass, opts), "{opts}");
        }
        assert_eq!(
            *seen.lock().unwrap(),
            [
                "loc(\"-\":1:1): convert-axe-to-gpu: option 'emulate-threads-on-cpu' expects a boolean (true or false), got 'yes'",
                "loc(\"-\":1:1): convert-axe-to-gpu: unknown option 'bogus' (its options: emulate-threads-on-cpu, chip)",
            ]
        );
    }
}
