//! Findings and the in-process harness: a silent panic hook that records the panic message and
//! location, `catch_unwind` around every call, a wall-clock hang check, deduplication by
//! signature, and the reproducer files under the findings directory.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A single call slower than this is a hang finding (it cannot be interrupted in-process).
pub const HANG_LIMIT: Duration = Duration::from_secs(1);

/// How many findings are echoed to stderr in full; the rest only go to files.
const PRINT_LIMIT: usize = 5;

/// What kind of bug a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The subprocess died on a signal or aborted (exit 101/134).
    Crash,
    /// A Rust panic (overflow checks included), in-process or reported by the tool.
    Panic,
    /// A call or subprocess ran past its time limit.
    Hang,
    /// An oracle was violated: a wrong answer, a missing diagnostic, a round-trip mismatch.
    Oracle,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Crash => "crash",
            Kind::Panic => "panic",
            Kind::Hang => "hang",
            Kind::Oracle => "oracle",
        })
    }
}

/// One failed check. `signature` identifies the bug for deduplication (panic location, or the
/// oracle's name plus the error class); `reproducer` is the exact input to replay it.
pub struct Finding {
    pub kind: Kind,
    pub signature: String,
    pub message: String,
    pub reproducer: String,
}

/// Per-target counters and the set of distinct signatures seen, shared between workers.
pub struct Report {
    pub target: &'static str,
    dir: PathBuf,
    inner: Mutex<Counts>,
}

#[derive(Default)]
struct Counts {
    executions: u64,
    crashes: u64,
    panics: u64,
    hangs: u64,
    signatures: BTreeSet<String>,
}

impl Report {
    pub fn new(target: &'static str, dir: PathBuf) -> Arc<Self> {
        Arc::new(Report {
            target,
            dir,
            inner: Mutex::new(Counts::default()),
        })
    }

    pub fn executed(&self) {
        self.inner.lock().unwrap().executions += 1;
    }

    pub fn executions(&self) -> u64 {
        self.inner.lock().unwrap().executions
    }

    pub fn findings(&self) -> usize {
        self.inner.lock().unwrap().signatures.len()
    }

    /// Count a finding; the first one of each signature is saved and (the first few) printed.
    pub fn record(&self, f: Finding) {
        let mut c = self.inner.lock().unwrap();
        match f.kind {
            Kind::Crash => c.crashes += 1,
            Kind::Panic => c.panics += 1,
            Kind::Hang => c.hangs += 1,
            Kind::Oracle => {}
        }
        if !c.signatures.insert(f.signature.clone()) {
            return;
        }
        let n = c.signatures.len();
        drop(c);
        let path = self
            .dir
            .join(format!("{}-{:016x}.txt", self.target, fnv1a(&f.signature)));
        let body = format!(
            "target: {}\nkind: {}\nsignature: {}\nmessage:\n{}\n--- reproducer ---\n{}\n",
            self.target, f.kind, f.signature, f.message, f.reproducer
        );
        let saved = std::fs::create_dir_all(&self.dir).and_then(|_| std::fs::write(&path, body));
        if n <= PRINT_LIMIT {
            eprintln!(
                "[{}] {} finding #{n}: {}\n  message: {}\n  reproducer:\n{}\n  saved: {}",
                self.target,
                f.kind,
                f.signature,
                f.message.lines().take(6).collect::<Vec<_>>().join("\n    "),
                indent(&f.reproducer),
                match saved {
                    Ok(()) => path.display().to_string(),
                    Err(e) => format!("(not saved: {e})"),
                }
            );
        }
    }

    /// The one summary line per target.
    pub fn summary(&self) -> String {
        let c = self.inner.lock().unwrap();
        format!(
            "target={} executions={} crashes={} panics={} hangs={} findings={}",
            self.target,
            c.executions,
            c.crashes,
            c.panics,
            c.hangs,
            c.signatures.len()
        )
    }
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

/// FNV-1a, for stable finding file names.
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

thread_local! {
    /// The last panic on this thread: (message, "file:line:col").
    static LAST_PANIC: RefCell<Option<(String, String)>> = const { RefCell::new(None) };
    /// Whether this thread is inside [`guarded`]; a panic elsewhere is a bug of the fuzzer
    /// itself and is reported by the default hook.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Replace the default hook (which prints to stderr) with one that, inside [`guarded`], records
/// the panic silently for it to report.
pub fn install_silent_panic_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !GUARDED.with(|g| g.get()) {
            return default(info);
        }
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "<non-string panic payload>".to_string()
        };
        let loc = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_else(|| "<unknown location>".to_string());
        LAST_PANIC.with(|p| *p.borrow_mut() = Some((msg, loc)));
    }));
}

/// Run `f` (the call named `call`) under `catch_unwind` and the hang clock. A panic or a hang
/// is recorded with `reproducer()` and yields `None`.
pub fn guarded<T>(
    report: &Report,
    call: &str,
    reproducer: impl FnOnce() -> String,
    f: impl FnOnce() -> T,
) -> Option<T> {
    let start = Instant::now();
    GUARDED.with(|g| g.set(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(false));
    let took = start.elapsed();
    match r {
        Ok(v) => {
            if took > HANG_LIMIT {
                report.record(Finding {
                    kind: Kind::Hang,
                    signature: format!("hang in {call}"),
                    message: format!("{call} took {took:?} (limit {HANG_LIMIT:?})"),
                    reproducer: reproducer(),
                });
            }
            Some(v)
        }
        Err(_) => {
            let (msg, loc) = LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| ("<no message>".into(), "<unknown location>".into()));
            // Overflow messages are stable; other messages may embed values, so the location
            // alone identifies the bug.
            report.record(Finding {
                kind: Kind::Panic,
                signature: format!("panic in {call} at {loc}"),
                message: format!("{msg} (at {loc})"),
                reproducer: reproducer(),
            });
            None
        }
    }
}

/// Record an oracle violation: `signature` names the check, `message` the evidence.
pub fn oracle(report: &Report, signature: String, message: String, reproducer: String) {
    report.record(Finding {
        kind: Kind::Oracle,
        signature,
        message,
        reproducer,
    });
}

/// A deduplication key for a diagnostic line: the file name `file` replaced, digit runs
/// collapsed to `N`, quoted text (user values) elided — an apostrophe inside a word ("lane's")
/// is text, not a quote — and at most `max` characters kept.
pub fn diagnostic_signature(line: &str, file: &str, max: usize) -> String {
    let line = line.replace(file, "<file>");
    let mut out = String::new();
    let mut quoted = false;
    let mut prev = ' ';
    for c in line.chars() {
        let word = std::mem::replace(&mut prev, c).is_alphanumeric();
        match c {
            '\'' if word && !quoted => out.push(c),
            '\'' | '"' => {
                quoted = !quoted;
                out.push(c);
            }
            _ if quoted => {}
            c if c.is_ascii_digit() => {
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            c => out.push(c),
        }
    }
    out.chars().take(max).collect()
}
