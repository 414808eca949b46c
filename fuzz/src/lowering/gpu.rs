//! `lowering-gpu`: the differential tester's GPU mode. The same random kernels as `lowering`
//! (the same generator and seed: case K here is case K there) are lowered for the GPU with
//! `axe-to-nvvm-pipeline{chip=sm_90}` and written with their launch manifests, inputs and
//! expected outputs (the layouts' definition, `oracle`) into one directory, which
//! `fuzz/gpu/run_cases.py` runs on a GPU and checks. What the CPU emulation cannot run is
//! exactly what this mode exists for: conversions that move data between threads (warp
//! shuffles, exchanges through shared memory), reductions across lanes and warps, TMA.
//!
//! Files: `DIR/index.json` (seed, and per lowered case its number, manifest file, buffers and
//! the expected contents of every output buffer the oracle defines), `DIR/case-K.json` (the
//! manifest). Cases `axe-opt` refuses with a located error are counted per message; anything
//! else (a crash, an unlocated error) is a finding, as in `lowering`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread;

use serde_json::{json, Value};

use super::program::Program;
use super::{generate, oracle, refusal_key, run_with_timeout, signature_of, Summary, WORKERS};
use crate::gen::Rng;
use crate::Budget;

pub struct Options {
    pub axe_opt: PathBuf,
    pub export: PathBuf,
    pub findings: PathBuf,
}

/// What lowering one case for the GPU gave.
enum Lowered {
    /// The manifest's JSON text.
    Manifest(String),
    Refused(String),
    Crash(String),
}

/// The translator beside `axe-opt`.
fn translator(axe_opt: &Path) -> PathBuf {
    axe_opt.with_file_name("axe-translate")
}

/// Lowers `text` (case files `<stem>.*`) to PTX and its launch manifest.
fn lower(opts: &Options, stem: &Path, text: &str) -> Lowered {
    let input = stem.with_extension("mlir");
    let lowered = stem.with_extension("gpu.mlir");
    let (out, err) = (stem.with_extension("out"), stem.with_extension("err"));
    if std::fs::write(&input, text).is_err() {
        return Lowered::Crash("cannot write the input".into());
    }
    let file = input.display().to_string();
    let mut cmd = Command::new(&opts.axe_opt);
    cmd.arg(&input)
        .arg("--axe-to-nvvm-pipeline=chip=sm_90")
        .arg("-o")
        .arg(&lowered);
    let Some(status) = run_with_timeout(cmd, &out, &err) else {
        return Lowered::Crash("axe-opt timeout".into());
    };
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    for bad in ["panicked", "internal error", "Assertion", "LLVM ERROR", "Stack dump"] {
        if let Some(l) = stderr.lines().find(|l| l.contains(bad)) {
            return Lowered::Crash(format!("axe-opt '{bad}': {}", signature_of(l, &file)));
        }
    }
    let first_error = stderr.lines().find(|l| l.contains("error:")).unwrap_or("");
    match status.code() {
        Some(0) => {}
        Some(1) if first_error.starts_with(&format!("{file}:")) => {
            let msg = first_error.split_once(" error: ").map_or("", |x| x.1);
            return Lowered::Refused(refusal_key(msg, &file));
        }
        c => {
            return Lowered::Crash(format!(
                "axe-opt exit {c:?} without a located error: {}",
                signature_of(first_error, &file)
            ))
        }
    }
    let mut cmd = Command::new(translator(&opts.axe_opt));
    cmd.arg("--axe-to-launch-manifest").arg(&lowered);
    let Some(status) = run_with_timeout(cmd, &out, &err) else {
        return Lowered::Crash("axe-translate timeout".into());
    };
    if !status.success() {
        let e = std::fs::read_to_string(&err).unwrap_or_default();
        let l = e.lines().find(|l| l.contains("error")).unwrap_or("");
        return Lowered::Crash(format!("axe-translate failed: {}", signature_of(l, "")));
    }
    Lowered::Manifest(std::fs::read_to_string(&out).unwrap_or_default())
}

/// The index entry of a lowered case: its buffers (length, element type, whether an output)
/// and, per output the oracle defines, the expected contents.
fn entry(case: u64, prog: &Program, expected: &[Option<Vec<f64>>], features: &str) -> Value {
    let buffers: Vec<Value> = prog
        .buffers
        .iter()
        .enumerate()
        .map(|(b, buf)| {
            json!({
                "len": buf.len,
                "elt": buf.elt.mlir(),
                "output": buf.output,
                // Null where the oracle defines none; JSON has no NaN or infinity, so those are
                // strings ("nan", "inf", "-inf").
                "expected": expected.get(b).cloned().flatten().map(|v| v.iter().map(|&x| number(x)).collect::<Vec<_>>()),
            })
        })
        .collect();
    json!({ "case": case, "manifest": format!("case-{case}.json"), "features": features, "buffers": buffers })
}

/// A value as JSON: a number, or "nan" / "inf" / "-inf".
fn number(x: f64) -> Value {
    if x.is_nan() {
        json!("nan")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(x)
    }
}

pub fn export(seed: u64, budget: &Budget, opts: &Options) -> Summary {
    let _ = std::fs::create_dir_all(&opts.export);
    let _ = std::fs::create_dir_all(&opts.findings);
    let work = std::env::temp_dir().join("axe-fuzz-gpu");
    let _ = std::fs::create_dir_all(&work);
    if !opts.axe_opt.exists() || !translator(&opts.axe_opt).exists() {
        eprintln!(
            "lowering-gpu: {} (and axe-translate beside it) must exist; build them or pass --axe-opt",
            opts.axe_opt.display()
        );
        return Summary {
            line: "target=lowering-gpu executions=0 (no axe-opt or axe-translate)".into(),
            executions: 0,
            // Nothing exported is a failure, not a clean run.
            findings: 1,
        };
    }
    let next = AtomicU64::new(0);
    let cases = Mutex::new(BTreeMap::<u64, Value>::new());
    let refusals = Mutex::new(BTreeMap::<String, u64>::new());
    let crashes = Mutex::new(Vec::<String>::new());
    thread::scope(|s| {
        for w in 0..WORKERS {
            let (next, cases, refusals, crashes, work) = (&next, &cases, &refusals, &crashes, &work);
            s.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if !budget.more(k) {
                    break;
                }
                let prog = generate::generate(&mut Rng::for_execution(seed, k));
                // A program whose result is undefined has nothing to check: not exported.
                let Ok(expected) = oracle::expected_of_generated(&prog) else {
                    let why = "undefined result: a float outside i32's range cast to i32 (not exported)";
                    *refusals.lock().unwrap().entry(why.to_string()).or_default() += 1;
                    continue;
                };
                let feats = super::features(&prog);
                let header = format!("axe-fuzz lowering-gpu --seed {seed} (case {k})\nfeatures: {feats}");
                let text = prog.to_mlir_kernel(&header);
                let stem = work.join(format!("gpu-{}-{w}", std::process::id()));
                match lower(opts, &stem, &text) {
                    Lowered::Manifest(m) => {
                        let _ = std::fs::write(opts.export.join(format!("case-{k}.json")), m);
                        cases.lock().unwrap().insert(k, entry(k, &prog, &expected, &feats));
                    }
                    Lowered::Refused(sig) => *refusals.lock().unwrap().entry(sig).or_default() += 1,
                    Lowered::Crash(sig) => {
                        let name = format!("lowering-gpu-{:016x}", crate::report::fnv1a(&sig));
                        let _ = std::fs::write(
                            opts.findings.join(format!("{name}.mlir")),
                            prog.to_mlir_kernel(&format!("{header}\n{sig}")),
                        );
                        crashes.lock().unwrap().push(format!("case {k}: {sig}"));
                    }
                }
            });
        }
    });
    let cases = cases.into_inner().unwrap();
    let refusals = refusals.into_inner().unwrap();
    let crashes = crashes.into_inner().unwrap();
    let index = json!({ "seed": seed, "cases": cases.values().collect::<Vec<_>>() });
    let _ = std::fs::write(opts.export.join("index.json"), index.to_string());
    let refused: u64 = refusals.values().sum();
    for (sig, n) in &refusals {
        eprintln!("  refused {n:5}  {sig}");
    }
    for c in &crashes {
        eprintln!("  CRASH {c}");
    }
    let executions = cases.len() as u64 + refused + crashes.len() as u64;
    Summary {
        line: format!(
            "target=lowering-gpu executions={executions} lowered={} refused={refused} crashes={} export={}",
            cases.len(),
            crashes.len(),
            opts.export.display()
        ),
        executions,
        findings: crashes.len(),
    }
}
