//! The FFI boundary's panic guard. No unwinding may cross the C ABI, and a bug in a pass body
//! must reach the user as an MLIR error at the operation, not as an abort: every hook the C++
//! side calls runs its Rust body through [`guarded`]. While a guarded body runs, the panic hook
//! records the message and where it was raised instead of printing them, so the diagnostic
//! carries both; panics elsewhere (tests, tools) print as usual.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many guarded calls are running on this thread (hooks can nest: a pass parses IR).
    static DEPTH: Cell<usize> = const { Cell::new(0) };
    /// The last panic raised inside a guarded call: message and location.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) == 0 {
                return previous(info);
            }
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_string());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST.with(|l| *l.borrow_mut() = Some(format!("{message}{at}")));
        }));
    });
}

/// Runs `body`; a panic inside it becomes `Err("<message> at <file>:<line>")`.
pub fn guarded<T>(body: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(body));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.map_err(|_| {
        LAST.with(|l| l.borrow_mut().take())
            .unwrap_or_else(|| "(no message)".to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_with_its_message_and_location() {
        let err = guarded(|| -> i32 { panic!("attempt to add with overflow") }).unwrap_err();
        assert!(err.starts_with("attempt to add with overflow at "), "{err}");
        assert!(err.contains("guard.rs:"), "{err}");
        assert_eq!(guarded(|| 7).unwrap(), 7);
        // Nested guards: the inner panic is reported by the inner guard only.
        let outer = guarded(|| guarded(|| -> () { panic!("inner {}", 1) }).unwrap_err());
        assert!(outer.unwrap().starts_with("inner 1 at "));
    }
}
