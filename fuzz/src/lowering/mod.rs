//! `lowering`: differential testing of the lowering. Random valid kernels (`generate`) are
//! lowered by `axe-opt` with `convert-axe-to-gpu{emulate-threads-on-cpu=1}` and the upstream
//! CPU pipeline, run by LLVM's `mlir-runner`, and their printed outputs compared element by
//! element with the reference semantics (`oracle`), which follows the layouts' definition.
//!
//! Outcomes: `ok`; `refused` (exit 1 with a located error: counted per message, printed as a
//! histogram); `mismatch` (wrong output: a finding); `crash` (signal, panic, timeout, an
//! unlocated error, a failure of `mlir-runner`: a finding). Findings are written as
//! self-contained `.mlir` files, then minimised (greedy) and written again.

pub mod generate;
pub mod gpu;
pub mod oracle;
pub mod program;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use crate::gen::Rng;
use crate::Budget;
use program::*;

/// axe-opt's registered CPU pipeline: the Axe passes with the threads emulated as loops, then
/// upstream's lowering to the LLVM dialect (its output names no Axe attribute, so
/// `mlir-runner` parses it).
pub const PIPELINE: &str = "--axe-emulate-on-cpu-pipeline";
const RUNNER: &str = "/usr/lib/llvm-22/bin/mlir-runner";
const LIBS: &str = "/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so";
const TIMEOUT: Duration = Duration::from_secs(20);
pub(crate) const WORKERS: u64 = 2;
/// Findings minimised per run at most (each costs dozens of executions).
const MAX_MINIMISED: usize = 30;
/// Executions one minimisation may spend.
const MINIMISE_BUDGET: usize = 60;

pub struct Options {
    pub axe_opt: PathBuf,
    pub work_dir: PathBuf,
    pub findings: PathBuf,
    /// Replay only this case (print it, its expected and actual outputs).
    pub case: Option<u64>,
}

#[derive(Clone, Debug)]
pub enum Outcome {
    Ok,
    Refused(String),
    Mismatch(String),
    Crash(String, String),
}

#[derive(Default)]
struct Tally {
    executions: u64,
    /// Generated programs whose result is undefined (skipped, not run; see `oracle::UNDEFINED`).
    undefined: u64,
    ok: u64,
    refused: u64,
    mismatches: u64,
    crashes: u64,
    refusals: BTreeMap<String, u64>,
    /// Signatures already saved (raw), and distinct minimised ones.
    raw: BTreeSet<String>,
    minimised: BTreeSet<String>,
    findings: BTreeSet<String>,
}

pub struct Summary {
    pub line: String,
    pub executions: u64,
    pub findings: usize,
}

pub(crate) fn run_with_timeout(mut cmd: Command, out: &Path, err: &Path) -> Option<std::process::ExitStatus> {
    let (Ok(o), Ok(e)) = (std::fs::File::create(out), std::fs::File::create(err)) else {
        return None;
    };
    cmd.stdin(Stdio::null()).stdout(o).stderr(e);
    let mut child = cmd.spawn().ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => thread::sleep(Duration::from_millis(3)),
            Err(_) => return None,
        }
    }
}

/// A refusal's histogram key: layouts, regions and coordinates elided (`L`, `[]`, `{}`),
/// digits collapsed, quoted text elided.
pub fn refusal_key(msg: &str, file: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in msg.chars() {
        match c {
            '(' | '[' | '{' | '<' => {
                if depth == 0 {
                    out.push(c);
                }
                depth += 1;
            }
            ')' | ']' | '}' | '>' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(c);
                }
            }
            _ if depth > 0 => {}
            c => out.push(c),
        }
    }
    let mut s = signature_of(&out, file);
    for (from, to) in [("() : ()", "L"), (" + []", ""), ("#axe.layout<>", "L")] {
        s = s.replace(from, to);
    }
    for ax in ["@lane", "@warp", "@cta", "@reg", ""] {
        s = s.replace(&format!("L + N{ax}"), "L");
    }
    s
}

/// A deduplication key for a diagnostic ([`crate::report::diagnostic_signature`]).
pub fn signature_of(line: &str, file: &str) -> String {
    crate::report::diagnostic_signature(line, file, 140)
}

/// The numbers printed by `printMemref*`, one vector per printed memref.
pub fn parse_output(stdout: &str) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for block in stdout.split("Unranked Memref").skip(1) {
        let Some(at) = block.find("data =") else { continue };
        let mut v = Vec::new();
        for tok in block[at + 6..].split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace()) {
            if tok.is_empty() {
                continue;
            }
            let x = match tok {
                "nan" | "-nan" => f64::NAN,
                t => match t.parse::<f64>() {
                    Ok(x) => x,
                    Err(_) => continue,
                },
            };
            v.push(x);
        }
        out.push(v);
    }
    out
}

/// Lower and run `prog` (its text `text`) in files `<stem>.*`; compare with `expected`.
pub fn execute(
    opts: &Options,
    stem: &Path,
    prog: &Program,
    text: &str,
    expected: &[Option<Vec<f64>>],
) -> (Outcome, String) {
    let input = stem.with_extension("mlir");
    let lowered = stem.with_extension("ll.mlir");
    let (out, err) = (stem.with_extension("out"), stem.with_extension("err"));
    if std::fs::write(&input, text).is_err() {
        return (
            Outcome::Crash("cannot write the input".into(), String::new()),
            String::new(),
        );
    }
    let mut cmd = Command::new(&opts.axe_opt);
    cmd.arg(&input).arg(PIPELINE).arg("-o").arg(&lowered);
    let status = run_with_timeout(cmd, &out, &err);
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    let file = input.display().to_string();
    let Some(status) = status else {
        return (Outcome::Crash("axe-opt timeout".into(), String::new()), String::new());
    };
    let first_error = stderr.lines().find(|l| l.contains("error:")).unwrap_or("").to_string();
    for bad in crate::ir::BAD_STDERR {
        if stderr.contains(bad) {
            let l = stderr.lines().find(|l| l.contains(bad)).unwrap_or("");
            return (
                Outcome::Crash(format!("axe-opt '{bad}': {}", signature_of(l, &file)), stderr),
                String::new(),
            );
        }
    }
    match status.code() {
        Some(0) => {}
        Some(1) => {
            let located = first_error.strip_prefix(&file).is_some_and(|r| {
                let mut p = r.splitn(4, ':');
                p.next() == Some("")
                    && p.next().is_some_and(|s| s.parse::<u64>().is_ok())
                    && p.next().is_some_and(|s| s.parse::<u64>().is_ok())
                    && p.next().is_some_and(|s| s.starts_with(" error:"))
            });
            if located {
                let msg = first_error.split_once(" error: ").map_or("", |x| x.1);
                // Every slice is generated with `?`: a slice layout that axe-slice /
                // axe-infer-layout chose and then rejects is their inconsistency, not the input's.
                if msg.starts_with("the slice's layout") {
                    return (
                        Outcome::Crash(format!("inconsistent refusal: {}", refusal_key(msg, &file)), stderr),
                        String::new(),
                    );
                }
                // The op the error is at, e.g. `axe.copy R->R`.
                let line_no: usize = first_error[file.len() + 1..]
                    .split(':')
                    .next()
                    .and_then(|l| l.parse().ok())
                    .unwrap_or(0);
                let op = text
                    .lines()
                    .nth(line_no.saturating_sub(1))
                    .map(|l| op_tag(l, prog))
                    .unwrap_or_default();
                return (Outcome::Refused(format!("[{op}] {}", refusal_key(msg, &file))), stderr);
            }
            return (
                Outcome::Crash(
                    format!(
                        "axe-opt exit 1 without a located error: {}",
                        signature_of(&first_error, &file)
                    ),
                    stderr,
                ),
                String::new(),
            );
        }
        c => return (Outcome::Crash(format!("axe-opt exit {c:?}"), stderr), String::new()),
    }
    let mut cmd = Command::new(RUNNER);
    cmd.args(["-e", "main", "-entry-point-result=void"])
        .arg(format!("-shared-libs={LIBS}"))
        .arg(&lowered);
    let status = run_with_timeout(cmd, &out, &err);
    let stdout = std::fs::read_to_string(&out).unwrap_or_default();
    let rerr = std::fs::read_to_string(&err).unwrap_or_default();
    match status.map(|s| s.code()) {
        None => return (Outcome::Crash("mlir-runner timeout".into(), rerr), stdout),
        Some(Some(0)) => {}
        Some(c) => {
            let l = rerr.lines().find(|l| l.contains("error")).unwrap_or("");
            return (
                Outcome::Crash(format!("mlir-runner exit {c:?}: {}", signature_of(l, "")), rerr),
                stdout,
            );
        }
    }
    let actual = parse_output(&stdout);
    let outputs: Vec<(usize, &Vec<f64>)> = expected
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.as_ref().map(|e| (i, e)))
        .collect();
    if actual.len() != outputs.len() {
        return (
            Outcome::Crash("unparsable mlir-runner output".into(), stdout.clone()),
            stdout,
        );
    }
    let mut diffs = Vec::new();
    for ((b, want), got) in outputs.iter().zip(&actual) {
        let elt = prog.buffers[*b].elt;
        if got.len() != want.len() {
            diffs.push(format!("b{b}: {} values printed, {} expected", got.len(), want.len()));
            continue;
        }
        let bad: Vec<usize> = (0..want.len())
            .filter(|&i| !oracle::close(want[i], got[i], elt))
            .collect();
        if !bad.is_empty() {
            diffs.push(format!(
                "b{b}: {} of {} elements differ, first at [{}]: expected {} got {}",
                bad.len(),
                want.len(),
                bad[0],
                want[bad[0]],
                got[bad[0]]
            ));
        }
    }
    if diffs.is_empty() {
        (Outcome::Ok, stdout)
    } else {
        (Outcome::Mismatch(diffs.join("; ")), stdout)
    }
}

/// `axe.copy R->S` for the op on `line` (spaces of the `%tN` operands, when they are).
fn op_tag(line: &str, prog: &Program) -> String {
    let Some(at) = line.find("axe.") else {
        return String::new();
    };
    let name: String = line[at..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
        .collect();
    let spaces: Vec<&str> = line[at..]
        .split(':')
        .next()
        .unwrap_or("")
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(|w| w.strip_prefix("%t").and_then(|n| n.parse::<usize>().ok()))
        .filter_map(|t| prog.tensors.get(t))
        .map(|t| match t.space {
            Space::Global => "G",
            Space::Shared => "S",
            Space::Register => "R",
        })
        .collect();
    if name == "axe.slice" || name == "axe.alloc" || name == "axe.view" {
        return name;
    }
    format!("{name} {}", spaces.join("->"))
}

fn fmt_vals(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x}")).collect::<Vec<_>>().join(" ")
}

/// The header of a finding: how to replay it and what was expected and printed.
fn header(what: &str, seed: u64, case: u64, expected: &[Option<Vec<f64>>], actual: &str, detail: &str) -> String {
    let mut h = format!(
        "axe-fuzz lowering finding: {what}\nreplay: axe-fuzz lowering --seed {seed} --case {case}, or:\n  \
         axe-opt THIS {PIPELINE} | mlir-runner -e main -entry-point-result=void -shared-libs=... \n{detail}\n"
    );
    for (b, e) in expected.iter().enumerate() {
        if let Some(e) = e {
            h.push_str(&format!("expected b{b}: {}\n", fmt_vals(e)));
        }
    }
    for (k, v) in parse_output(actual).iter().enumerate() {
        h.push_str(&format!("actual output #{k}: {}\n", fmt_vals(v)));
    }
    h
}

/// Structural tags of a program: what a finding is about (its deduplication key once
/// minimised).
pub fn features(p: &Program) -> String {
    let mut f = BTreeSet::new();
    let used = p.used();
    let sp = |t: usize| match p.tensors[t].space {
        Space::Global => "G",
        Space::Shared => "S",
        Space::Register => "R",
    };
    for op in &p.ops {
        let tag = match *op {
            Op::Copy(a, b) => format!("copy{}{}", sp(a), sp(b)),
            Op::Convert(..) => "convert".into(),
            Op::Fill(..) => "fill".into(),
            Op::Unary(..) => "unary".into(),
            Op::Binary(_, a, b, c) => {
                let bc = p.tensors[a].shape != p.tensors[c].shape || p.tensors[b].shape != p.tensors[c].shape;
                if bc {
                    "binary-bcast".into()
                } else {
                    "binary".into()
                }
            }
            Op::Reduce(..) => "reduce".into(),
            Op::Cast(..) => "cast".into(),
            Op::Barrier => continue,
        };
        f.insert(tag);
    }
    for (i, t) in p.tensors.iter().enumerate() {
        if !used[i] {
            continue;
        }
        if let Some(l) = &t.layout {
            for it in &l.replica {
                f.insert(format!("replica@{}", if it.2.is_empty() { "m" } else { it.2 }));
            }
            for &(o, a) in &l.offset {
                if o != 0 && !a.is_empty() {
                    f.insert(format!("offset@{a}"));
                }
            }
            for ax in ["lane", "warp", "cta"] {
                let mut its: Vec<&It> = l.shard.iter().filter(|i| i.2 == ax && i.0 > 1).collect();
                its.sort_by_key(|i| i.1);
                let mut run = 1;
                for it in its {
                    if it.1 != run {
                        f.insert(format!("gap@{ax}"));
                    }
                    run = it.1 * it.0;
                }
            }
            if l.shard.iter().any(|i| i.2 == "cta") {
                f.insert("cta".into());
            }
            if l.shard.iter().any(|i| i.1 < 0) {
                f.insert("neg-stride".into());
            }
        } else if t.space != Space::Global && matches!(t.src, Src::Alloc) {
            f.insert(format!("infer-{}", sp(i)));
        }
        if t.swizzle.is_some() {
            f.insert("swizzle".into());
        }
        if let Src::Slice { parent, dims, clip } = &t.src {
            f.insert(format!("slice-{}", sp(*parent)));
            if *clip {
                f.insert("clip".into());
            }
            for d in dims {
                match d {
                    Dim::Dyn { end: Some(_), .. } => f.insert("window".into()),
                    Dim::Dyn { .. } => f.insert("dyn-origin".into()),
                    _ => false,
                };
            }
        }
    }
    f.into_iter().collect::<Vec<_>>().join(",")
}

fn outcome_key(o: &Outcome) -> Option<String> {
    match o {
        Outcome::Mismatch(_) => Some("mismatch".into()),
        Outcome::Crash(s, _) => Some(format!("crash: {s}")),
        _ => None,
    }
}

/// Greedy minimisation: drop ops, simplify layouts (`?`, no replica, no offset, no swizzle,
/// a row-major global view), shrink the launch, while the outcome stays the same.
pub fn minimise(opts: &Options, stem: &Path, p: &Program, key: &str) -> Program {
    let mut best = p.clone();
    let mut spent = 0;
    let still = |q: &Program, spent: &mut usize| -> bool {
        *spent += 1;
        let Ok(exp) = oracle::Oracle::run(q) else { return false };
        let (o, _) = execute(opts, stem, q, &q.to_mlir(""), &exp);
        outcome_key(&o).as_deref() == Some(key)
    };
    let mut progress = true;
    while progress && spent < MINIMISE_BUDGET {
        progress = false;
        let mut cands: Vec<Program> = Vec::new();
        // Drop one op (never a barrier: the kernel would race).
        for i in (0..best.ops.len()).rev() {
            if matches!(best.ops[i], Op::Barrier) {
                continue;
            }
            let mut q = best.clone();
            q.ops.remove(i);
            cands.push(q);
        }
        for t in 0..best.tensors.len() {
            let tensor = &best.tensors[t];
            let Some(l) = &tensor.layout else { continue };
            let mut simpler = Vec::new();
            if tensor.space != Space::Global {
                simpler.push(None);
            }
            if !l.replica.is_empty() {
                simpler.push(Some(Lay {
                    replica: vec![],
                    ..l.clone()
                }));
            }
            if l.offset.iter().any(|o| o.0 != 0) && tensor.space != Space::Global {
                simpler.push(Some(Lay {
                    offset: vec![],
                    ..l.clone()
                }));
            }
            if tensor.space == Space::Global {
                let mut run = 1;
                let mut shard: Vec<It> = tensor.shape.iter().map(|&e| (e, 1, "")).collect();
                for it in shard.iter_mut().rev() {
                    it.1 = run;
                    run *= it.0;
                }
                let rm = Lay {
                    shard,
                    replica: vec![],
                    offset: vec![],
                };
                if &rm != l {
                    simpler.push(Some(rm));
                }
            }
            for s in simpler {
                let mut q = best.clone();
                q.tensors[t].layout = s;
                if q.tensors[t].layout.is_none() {
                    q.tensors[t].swizzle = None;
                }
                cands.push(q);
            }
            if tensor.swizzle.is_some() {
                let mut q = best.clone();
                q.tensors[t].swizzle = None;
                // Slices keep their source's swizzle.
                for u in 0..q.tensors.len() {
                    if matches!(q.tensors[u].src, Src::Slice { parent, .. } if parent == t) {
                        q.tensors[u].swizzle = None;
                    }
                }
                cands.push(q);
            }
        }
        if best.threads > 32 {
            let mut q = best.clone();
            q.threads = 32;
            cands.push(q);
        }
        if best.grid > 1 {
            let mut q = best.clone();
            q.grid = 1;
            cands.push(q);
        }
        for q in cands {
            if spent >= MINIMISE_BUDGET {
                break;
            }
            if still(&q, &mut spent) {
                best = q;
                progress = true;
                break;
            }
        }
    }
    best
}

pub fn run(seed: u64, budget: &Budget, opts: &Options) -> Summary {
    let tally = Mutex::new(Tally::default());
    let _ = std::fs::create_dir_all(&opts.work_dir);
    let _ = std::fs::create_dir_all(&opts.findings);
    if !opts.axe_opt.exists() {
        eprintln!(
            "lowering: {} does not exist; build it or pass --axe-opt",
            opts.axe_opt.display()
        );
        return Summary {
            line: "target=lowering executions=0 (no axe-opt)".into(),
            executions: 0,
            findings: 0,
        };
    }
    if let Some(case) = opts.case {
        let prog = generate::generate(&mut Rng::for_execution(seed, case));
        let expected = match oracle::expected_of_generated(&prog) {
            Ok(e) => e,
            Err(e) => {
                return Summary {
                    line: format!("target=lowering case={case} outcome=skipped ({e})"),
                    executions: 0,
                    findings: 0,
                };
            }
        };
        let text = prog.to_mlir(&format!(
            "axe-fuzz lowering --seed {seed} --case {case}\nfeatures: {}",
            features(&prog)
        ));
        println!("{text}");
        let stem = opts.work_dir.join(format!("case-{}", std::process::id()));
        let (o, out) = execute(opts, &stem, &prog, &text, &expected);
        println!("{}", header(&format!("{o:?}"), seed, case, &expected, &out, ""));
        let bad = matches!(o, Outcome::Mismatch(_) | Outcome::Crash(..));
        return Summary {
            line: format!("target=lowering case={case} outcome={o:?}"),
            executions: 1,
            findings: bad as usize,
        };
    }
    let next = AtomicU64::new(0);
    let minimised_count = AtomicU64::new(0);
    thread::scope(|s| {
        for w in 0..WORKERS {
            let (tally, next, minimised_count) = (&tally, &next, &minimised_count);
            s.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if !budget.more(k) {
                    break;
                }
                let prog = generate::generate(&mut Rng::for_execution(seed, k));
                let Ok(expected) = oracle::expected_of_generated(&prog) else {
                    tally.lock().unwrap().undefined += 1;
                    continue;
                };
                let feats = features(&prog);
                let text = prog.to_mlir(&format!(
                    "axe-fuzz lowering --seed {seed} --case {k}\nfeatures: {feats}"
                ));
                let _ = std::fs::write(opts.findings.join("lowering-last.mlir"), &text);
                let stem = opts.work_dir.join(format!("lowering-{}-{w}", std::process::id()));
                let (o, out) = execute(opts, &stem, &prog, &text, &expected);
                let mut t = tally.lock().unwrap();
                t.executions += 1;
                let (key, detail) = match &o {
                    Outcome::Ok => {
                        t.ok += 1;
                        continue;
                    }
                    Outcome::Refused(sig) => {
                        t.refused += 1;
                        *t.refusals.entry(sig.clone()).or_default() += 1;
                        continue;
                    }
                    Outcome::Mismatch(d) => {
                        t.mismatches += 1;
                        ("mismatch".to_string(), d.clone())
                    }
                    Outcome::Crash(sig, d) => {
                        t.crashes += 1;
                        (
                            format!("crash: {sig}"),
                            d.lines().take(8).collect::<Vec<_>>().join("\n"),
                        )
                    }
                };
                // Deduplicate by outcome and features before spending a minimisation.
                let raw_sig = format!("{key} [{feats}]");
                if !t.raw.insert(raw_sig.clone()) {
                    continue;
                }
                drop(t);
                let name = format!("lowering-{:016x}", crate::report::fnv1a(&raw_sig));
                let h = header(&key, seed, k, &expected, &out, &detail);
                let _ = std::fs::write(opts.findings.join(format!("{name}.mlir")), prog.to_mlir(&h));
                let (sig, min_prog) = if minimised_count.fetch_add(1, Ordering::Relaxed) < MAX_MINIMISED as u64 {
                    let m = minimise(opts, &stem, &prog, &key);
                    (format!("{key} [{}]", features(&m)), Some(m))
                } else {
                    (raw_sig.clone(), None)
                };
                let mut t = tally.lock().unwrap();
                let new = t.findings.insert(sig.clone());
                if let Some(m) = min_prog {
                    t.minimised.insert(sig.clone());
                    drop(t);
                    let exp = oracle::Oracle::run(&m).unwrap_or_default();
                    let text = m.to_mlir("");
                    let (o, out) = execute(opts, &stem, &m, &text, &exp);
                    let d = match &o {
                        Outcome::Mismatch(d) => d.clone(),
                        Outcome::Crash(s, d) => format!("{s}\n{}", d.lines().take(8).collect::<Vec<_>>().join("\n")),
                        o => format!("{o:?}"),
                    };
                    let h = header(
                        &format!("{key} (minimised from {name}.mlir)\nfeatures: {}", features(&m)),
                        seed,
                        k,
                        &exp,
                        &out,
                        &d,
                    );
                    let _ = std::fs::write(opts.findings.join(format!("{name}.min.mlir")), m.to_mlir(&h));
                }
                if new {
                    eprintln!(
                        "[lowering] finding: {sig}\n  case {k}: {}\n  saved: {}",
                        detail.lines().next().unwrap_or(""),
                        opts.findings.join(format!("{name}.min.mlir")).display()
                    );
                }
            });
        }
    });
    let t = tally.into_inner().unwrap();
    let mut refusals: Vec<(&String, &u64)> = t.refusals.iter().collect();
    refusals.sort_by(|a, b| b.1.cmp(a.1));
    eprintln!("lowering refusals by message:");
    for (m, n) in refusals {
        eprintln!("  {n:6}  {m}");
    }
    Summary {
        line: format!(
            "target=lowering executions={} ok={} refused={} mismatches={} crashes={} findings={} undefined-skipped={}",
            t.executions,
            t.ok,
            t.refused,
            t.mismatches,
            t.crashes,
            t.findings.len(),
            t.undefined
        ),
        executions: t.executions,
        findings: t.findings.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::generate::{generate, project};
    use super::oracle::{round, Oracle};
    use super::program::*;
    use super::*;

    fn view(b: usize, shape: &[i64], lay: Lay) -> Tensor {
        Tensor {
            src: Src::Buffer(b),
            shape: shape.to_vec(),
            space: Space::Global,
            elt: Elt::F32,
            layout: Some(lay),
            swizzle: None,
        }
    }

    fn reg(shape: &[i64], shard: Vec<It>) -> Tensor {
        Tensor {
            src: Src::Alloc,
            shape: shape.to_vec(),
            space: Space::Register,
            elt: Elt::F32,
            layout: Some(Lay {
                shard,
                ..Lay::default()
            }),
            swizzle: None,
        }
    }

    /// `slice-at-lane-zero-store.mlir` of the shared repros: the oracle gives its expected
    /// output `[0.5, 1.5, 3, 3, 3, 3, 3, 3]`.
    #[test]
    fn oracle_slice_at_lane_zero() {
        let rm = Lay {
            shard: vec![(4, 2, ""), (2, 1, "")],
            ..Lay::default()
        };
        let p = Program {
            grid: 1,
            threads: 32,
            buffers: vec![
                Buffer {
                    len: 8,
                    elt: Elt::F32,
                    output: false,
                },
                Buffer {
                    len: 8,
                    elt: Elt::F32,
                    output: true,
                },
            ],
            tensors: vec![
                view(0, &[4, 2], rm.clone()),
                view(1, &[4, 2], rm),
                reg(&[4, 2], vec![(4, 1, "lane"), (2, 1, "reg")]),
                Tensor {
                    src: Src::Slice {
                        parent: 0,
                        dims: vec![Dim::Static(0, 1), Dim::Static(0, 2)],
                        clip: false,
                    },
                    shape: vec![1, 2],
                    layout: None,
                    ..view(0, &[1, 2], Lay::default())
                },
                Tensor {
                    src: Src::Slice {
                        parent: 2,
                        dims: vec![Dim::Static(0, 1), Dim::Static(0, 2)],
                        clip: false,
                    },
                    shape: vec![1, 2],
                    layout: None,
                    ..reg(&[1, 2], vec![])
                },
            ],
            ops: vec![Op::Fill(2, 3.0), Op::Copy(3, 4), Op::Copy(2, 1)],
            per_cta: false,
        };
        let out = Oracle::run(&p).unwrap();
        assert_eq!(out[1].as_deref(), Some(&[0.5, 1.5, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0][..]));
        assert!(out[0].is_none());
        // The printed kernel has the slices and the copy in it.
        let text = p.to_mlir("");
        assert!(text.contains("axe.slice %t2 [0 : 1, 0 : 2]"), "{text}");
    }

    /// Replicas of an output layout are all written; uncovered elements keep the sentinel;
    /// a window writes only before its end; broadcasting and reductions.
    #[test]
    fn oracle_replicas_windows_broadcast_reduce() {
        let p = Program {
            grid: 1,
            threads: 32,
            buffers: vec![
                Buffer {
                    len: 4,
                    elt: Elt::F32,
                    output: false,
                },
                Buffer {
                    len: 9,
                    elt: Elt::F32,
                    output: true,
                },
                Buffer {
                    len: 2,
                    elt: Elt::F32,
                    output: false,
                },
            ],
            tensors: vec![
                view(
                    0,
                    &[2, 2],
                    Lay {
                        shard: vec![(2, 2, ""), (2, 1, "")],
                        ..Lay::default()
                    },
                ),
                // Y: column-major, a replica 4 further, offset 1: 9 elements, element 0 unused.
                view(
                    1,
                    &[2, 2],
                    Lay {
                        shard: vec![(2, 1, ""), (2, 2, "")],
                        replica: vec![(2, 4, "")],
                        offset: vec![(1, "")],
                    },
                ),
                reg(&[2, 2], vec![(2, 1, "lane"), (2, 1, "reg")]),
                view(
                    2,
                    &[1, 2],
                    Lay {
                        shard: vec![(1, 2, ""), (2, 1, "")],
                        ..Lay::default()
                    },
                ),
                reg(&[1, 2], vec![(1, 1, "reg"), (2, 1, "reg")]),
                reg(&[2, 1], vec![(2, 1, "lane"), (1, 1, "reg")]),
            ],
            // r = x + bias (row broadcast); m = max over dim 1 of r (kept); r = r - m.
            ops: vec![
                Op::Copy(0, 2),
                Op::Copy(3, 4),
                Op::Binary(Binary::Add, 2, 4, 2),
                Op::Reduce(Reduce::Max, 2, 5, 1),
                Op::Binary(Binary::Sub, 2, 5, 2),
                Op::Copy(2, 1),
            ],
            per_cta: false,
        };
        let out = Oracle::run(&p).unwrap();
        // x = [[0.5, 1.5], [2.5, 3.5]], bias = [5000.5, 5001.5]: r = [[5001, 5003], [5003, 5005]],
        // minus row max: [[-2, 0], [-2, 0]]; Y[i][j] at 1 + i + 2j and 5 + i + 2j.
        assert_eq!(
            out[1].as_deref(),
            Some(&[SENTINEL, -2.0, -2.0, 0.0, 0.0, -2.0, -2.0, 0.0, 0.0][..])
        );

        let mut w = p.clone();
        w.tensors.push(Tensor {
            src: Src::Slice {
                parent: 1,
                dims: vec![
                    Dim::Dyn {
                        origin: Origin::Const(0),
                        size: 2,
                        end: Some(1),
                    },
                    Dim::Static(0, 2),
                ],
                clip: false,
            },
            layout: None,
            ..view(1, &[2, 2], Lay::default())
        });
        w.ops = vec![Op::Copy(0, 2), Op::Copy(2, 6)];
        let out = Oracle::run(&w).unwrap();
        assert_eq!(
            out[1].as_deref(),
            Some(&[SENTINEL, 0.5, SENTINEL, 1.5, SENTINEL, 0.5, SENTINEL, 1.5, SENTINEL][..])
        );
        // Reading an allocated tensor before writing it is not a program the oracle judges.
        let mut bad = p.clone();
        bad.ops.remove(0);
        assert!(Oracle::run(&bad).is_err());
    }

    /// A float outside i32's range cast to i32 has no defined result (LLVM's `fptosi` gives
    /// poison; PTX saturates, as a GPU run of a generated kernel whose f16 product overflowed
    /// showed): the oracle refuses such a program, and the drivers skip it.
    #[test]
    fn an_out_of_range_cast_to_i32_has_no_expected_output() {
        let program = |fill: f64| Program {
            grid: 1,
            threads: 32,
            buffers: vec![Buffer {
                len: 32,
                elt: Elt::I32,
                output: true,
            }],
            tensors: vec![
                Tensor {
                    elt: Elt::I32,
                    ..view(
                        0,
                        &[32],
                        Lay {
                            shard: vec![(32, 1, "")],
                            ..Lay::default()
                        },
                    )
                },
                reg(&[32], vec![(32, 1, "lane")]),
                Tensor {
                    elt: Elt::I32,
                    ..reg(&[32], vec![(32, 1, "lane")])
                },
            ],
            ops: vec![Op::Fill(1, fill), Op::Cast(1, 2), Op::Copy(2, 0)],
            per_cta: false,
        };
        for bad in [f64::INFINITY, -f64::INFINITY, f64::NAN, 3e9, -3e9] {
            let e = Oracle::run(&program(bad)).expect_err("an undefined cast");
            assert!(super::oracle::is_undefined(&e), "{e}");
        }
        let out = Oracle::run(&program(-7.5)).expect("a defined cast");
        assert_eq!(out[0].as_deref(), Some(&[-7.0; 32][..]));
    }

    #[test]
    fn rounding() {
        assert_eq!(round(1023.5, Elt::F16), 1023.5);
        assert_eq!(round(2049.0, Elt::F16), 2048.0);
        assert_eq!(round(-2.7, Elt::I32), -2.0);
        assert_eq!(round(16777217.0, Elt::F32), 16777216.0);
    }

    #[test]
    fn projection_of_a_layout() {
        // (2, 32) : (1@reg, 1@lane), dimension 1 broadcast: the lanes become a replica.
        let l = Lay {
            shard: vec![(2, 1, "reg"), (32, 1, "lane")],
            ..Lay::default()
        };
        let p = project(&l, &[2, 32], 1, true).unwrap();
        assert_eq!(p.to_string(), "(2, 1) : (1@reg, 2@reg) + [(32) : (1@lane)]");
        let p = project(&l, &[2, 32], 0, false).unwrap();
        assert_eq!(p.to_string(), "(32) : (1@lane)");
    }

    /// Generated programs are deterministic, valid for the oracle, and parse as layouts.
    #[test]
    fn generator_is_deterministic_and_valid() {
        for k in 0..300 {
            let a = generate(&mut Rng::for_execution(7, k));
            let b = generate(&mut Rng::for_execution(7, k));
            assert_eq!(a.to_mlir(""), b.to_mlir(""));
            assert!(Oracle::run(&a).is_ok());
            for t in &a.tensors {
                if let Some(l) = &t.layout {
                    let parsed = axe_layout::Layout::parse(&l.to_string()).unwrap();
                    assert_eq!(parsed.size(), t.numel(), "{l} for {:?}", t.shape);
                }
            }
            assert!(a.threads >= 32 && a.threads <= 128);
        }
    }

    #[test]
    fn output_parsing_and_keys() {
        let out =
            "Unranked Memref base@ = 0x1 rank = 1 offset = 0 sizes = [3] strides = [1] data = \n[0.5,  -7,  1e+06]\n\
                   Unranked Memref base@ = 0x2 rank = 1 offset = 0 sizes = [1] strides = [1] data = \n[nan]\n";
        let v = parse_output(out);
        assert_eq!(v[0], vec![0.5, -7.0, 1e6]);
        assert!(v[1][0].is_nan());
        assert_eq!(
            refusal_key("the slice's layout (4) : (1) is not L[R:S] = (2, 2) : (4, 1) + 3", "f"),
            "the slice's layout L is not L[] = L"
        );
    }
}
