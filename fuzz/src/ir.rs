//! `ir`: structure-aware mutation of the `.mlir` tests, run through `axe-opt` as a subprocess.
//!
//! Seeds are the `.mlir` files under `test/` (split on `// -----` when their RUN lines use
//! `--split-input-file`), plus any `--corpus` directory. Mutations are token-aware: integer
//! literals, `#axe.layout<…>` texts, axis names, memory spaces, scopes, schedules, targets,
//! lines and launch sizes. Each mutant runs one random pipeline under a 10 s timeout.
//!
//! Oracles: exit 0 or 1 (no signal, no 101/134); no `panicked`, `internal error`, `internal:`
//! (a broken invariant of the lowering), `Assertion`, `LLVM ERROR` or `Stack dump` on stderr; exit 1 comes with a located
//! `<file>:<line>:<col>: error:` and no diagnostic at `loc(unknown)` or `-:`; a successful
//! NVVM lowering has no negative `wait_group` count and no negative shared memory size.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::gen::{self, Rng};
use crate::report::{Finding, Kind, Report};
use crate::Budget;

/// Per-run timeout of `axe-opt`.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Parallel `axe-opt` processes.
const WORKERS: u64 = 2;
/// `test/gpu/` files larger than this are skipped as seeds (too slow to run often).
const MAX_GPU_SEED: u64 = 200 * 1024;

const PIPELINES: &[&str] = &[
    "--axe-canonicalize",
    "--axe-slice",
    "--axe-infer-layout",
    "--pass-pipeline=builtin.module(axe-slice,axe-infer-layout,axe-canonicalize,convert-axe-to-gpu)",
    "--convert-axe-to-gpu=emulate-threads-on-cpu=1",
    "--axe-to-nvvm-pipeline=chip=sm_90a",
    "--axe-to-nvvm-pipeline=chip=sm_80",
];

/// Interchangeable keyword families: a mutation swaps one word for another of its family.
const KEYWORD_SETS: &[&[&str]] = &[
    &["shared", "global", "register", "tmem"],
    &["cta", "warp", "warpgroup", "thread", "cluster"],
    &["tma", "cp_async", "ldmatrix", "vectorized"],
    &["sm_80", "sm_90", "sm_90a", "sm_100", "trn1"],
];

/// The frame of an upstream op's parser when `stderr` is a crash inside MLIR's parser with no
/// Axe code on the stack (no frame naming `axe`): e.g. LLVM 22's `linalg.transpose` parser,
/// which stores the null attribute of a permutation it failed to parse and then dereferences
/// it. Such crashes are upstream bugs no change here can fix.
fn upstream_parser_crash(stderr: &str) -> Option<String> {
    if !stderr.contains("Stack dump") {
        return None;
    }
    let frames: Vec<&str> = stderr
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('#') && l[1..].starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    // The frames from the crash up to the parser's entry (its callers, axe-opt's main among
    // them, do not matter).
    let entry = frames
        .iter()
        .position(|f| f.contains("mlir::parseSourceFile") || f.contains("mlir::parseAsmSourceFile"))?;
    let inner = &frames[..entry];
    let ours = inner.iter().any(|f| f.contains("axe"));
    let op_parse = inner.iter().find(|f| f.contains("::parse(mlir::OpAsmParser"))?;
    (!ours).then(|| {
        let name = op_parse.split_whitespace().nth(2).unwrap_or(op_parse);
        name.split('(').next().unwrap_or(name).to_string()
    })
}

/// Markers of an internal failure on stderr.
/// What on stderr is a finding whatever the exit code: a panic, a broken invariant of the
/// passes (their messages start with `internal error` or `internal:`), an LLVM assertion or
/// crash.
pub const BAD_STDERR: &[&str] = &[
    "panicked",
    "internal error",
    "internal:",
    "Assertion",
    "LLVM ERROR",
    "Stack dump",
];

/// One seed input: where it came from, its text and the extra flags its RUN lines need.
struct Seed {
    name: String,
    text: String,
    flags: Vec<&'static str>,
}

pub struct Options {
    pub axe_opt: PathBuf,
    pub corpus: Option<PathBuf>,
    pub work_dir: PathBuf,
}

pub fn run(report: &Arc<Report>, seed: u64, budget: &Budget, opts: &Options) {
    let mut seeds = Vec::new();
    collect_seeds(Path::new("test"), &mut seeds);
    if let Some(c) = &opts.corpus {
        collect_seeds(c, &mut seeds);
    }
    if seeds.is_empty() {
        eprintln!("ir: no .mlir seeds found (run from the repository root)");
        return;
    }
    if !opts.axe_opt.exists() {
        eprintln!(
            "ir: {} does not exist; build it or pass --axe-opt",
            opts.axe_opt.display()
        );
        return;
    }
    let _ = std::fs::create_dir_all(&opts.work_dir);
    let seeds = Arc::new(seeds);
    let next = Arc::new(AtomicU64::new(0));
    thread::scope(|s| {
        for w in 0..WORKERS {
            let (seeds, next, report) = (seeds.clone(), next.clone(), report.clone());
            let input = opts.work_dir.join(format!("mutant-{}-{w}.mlir", std::process::id()));
            s.spawn(move || loop {
                // Mutant k is a pure function of (seed, k), whichever worker runs it.
                let k = next.fetch_add(1, Ordering::Relaxed);
                if !budget.more(k) {
                    break;
                }
                let mut rng = Rng::for_execution(seed, k);
                let s = &seeds[rng.below(seeds.len())];
                let mut text = s.text.clone();
                let mut applied = Vec::new();
                for _ in 0..=rng.below(3) {
                    applied.push(mutate(&mut rng, &mut text, &seeds));
                }
                let pipeline = *rng.pick(PIPELINES);
                let roundtrip = rng.one_in(2);
                let case = Case {
                    seed: &s.name,
                    flags: &s.flags,
                    pipeline,
                    roundtrip,
                    mutations: &applied,
                };
                execute(&report, opts, &input, &text, &case);
                report.executed();
            });
        }
    });
}

/// Every `.mlir` under `dir` (recursively), split into its `// -----` cases when it uses
/// `--split-input-file`.
fn collect_seeds(dir: &Path, out: &mut Vec<Seed>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort(); // deterministic seed order
    for p in paths {
        if p.is_dir() {
            collect_seeds(&p, out);
            continue;
        }
        if p.extension().is_none_or(|e| e != "mlir") {
            continue;
        }
        let big = std::fs::metadata(&p).map(|m| m.len() > MAX_GPU_SEED).unwrap_or(true);
        if big && p.starts_with("test/gpu") && !p.starts_with("test/gpu/kernels") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let run_lines: String = text.lines().filter(|l| l.contains("RUN:")).collect();
        let mut flags = Vec::new();
        if run_lines.contains("--allow-unregistered-dialect") {
            flags.push("--allow-unregistered-dialect");
        }
        let name = p.display().to_string();
        if run_lines.contains("split-input-file") {
            for (k, part) in text.split("// -----").enumerate() {
                out.push(Seed {
                    name: format!("{name} (case {k})"),
                    text: part.to_string(),
                    flags: flags.clone(),
                });
            }
        } else {
            out.push(Seed { name, text, flags });
        }
    }
}

/// Byte ranges of the integer literals of `text` that are values, shape dimensions
/// (`64x64xf16`) or attribute numbers, not parts of names (`%0`, `f16`, `sm_90`, `#map1`).
fn integer_tokens(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let name_char = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'%' | b'#' | b'^' | b'@' | b'.' | b'$');
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
            let mut end = i;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            let prev = if start > 0 { b[start - 1] } else { b' ' };
            let next = b.get(end).copied().unwrap_or(b' ');
            let prev_ok = !name_char(prev) || prev == b'x';
            let next_ok = !(next.is_ascii_alphanumeric() || next == b'_' || next == b'.') || next == b'x';
            if prev_ok && next_ok {
                out.push((start, end));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Byte ranges of the bodies of `#axe.layout<…>` (between the angle brackets).
fn layout_bodies(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find("#axe.layout<") {
        let start = from + k + "#axe.layout<".len();
        let mut depth = 1;
        let mut end = None;
        for (j, c) in text[start..].char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(start + j);
                        break;
                    }
                }
                '\n' => break,
                _ => {}
            }
        }
        match end {
            Some(e) => {
                out.push((start, e));
                from = e;
            }
            None => from = start,
        }
    }
    out
}

/// Byte ranges of whole-word occurrences of `word`.
fn word_tokens(text: &str, word: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    text.match_indices(word)
        .map(|(k, _)| (k, k + word.len()))
        .filter(|&(s, e)| (s == 0 || !is_word(b[s - 1])) && (e == b.len() || !is_word(b[e])))
        .collect()
}

/// Apply one random mutation to `text`; returns its description (for the reproducer).
fn mutate(rng: &mut Rng, text: &mut String, seeds: &[Seed]) -> String {
    for _ in 0..8 {
        if let Some(d) = try_mutate(rng, text, seeds) {
            return d;
        }
    }
    "none applied".to_string()
}

fn try_mutate(rng: &mut Rng, text: &mut String, seeds: &[Seed]) -> Option<String> {
    match rng.below(9) {
        0 => {
            let toks = integer_tokens(text);
            let &(s, e) = toks.get(rng.below(toks.len().max(1)))?;
            let v = gen::int_text(rng);
            let d = format!("integer {} at byte {s} -> {v}", &text[s..e]);
            text.replace_range(s..e, &v);
            Some(d)
        }
        1 => {
            let bodies = layout_bodies(text);
            if bodies.len() < 2 {
                return None;
            }
            let (i, j) = (rng.below(bodies.len()), rng.below(bodies.len()));
            let (a, b) = (bodies[i.min(j)], bodies[i.max(j)]);
            if a == b {
                return None;
            }
            let (ta, tb) = (text[a.0..a.1].to_string(), text[b.0..b.1].to_string());
            text.replace_range(b.0..b.1, &ta);
            text.replace_range(a.0..a.1, &tb);
            Some(format!("swap layouts {ta:?} <-> {tb:?}"))
        }
        2 => {
            let bodies = layout_bodies(text);
            let &(s, e) = bodies.get(rng.below(bodies.len().max(1)))?;
            let new = if rng.one_in(2) {
                gen::layout_text(rng)
            } else {
                let other = gen::layout_text(rng);
                gen::mutate_bytes(rng, &text[s..e], &other)
            };
            // A '>' or newline would end the attribute early; keep the mutant on one token.
            let new: String = new.chars().filter(|&c| c != '>' && c != '\n').collect();
            let d = format!("layout {:?} -> {new:?}", &text[s..e]);
            text.replace_range(s..e, &new);
            Some(d)
        }
        3 => {
            let bodies = layout_bodies(text);
            let &(s, e) = bodies.get(rng.below(bodies.len().max(1)))?;
            let at = text[s..e]
                .match_indices('@')
                .map(|(k, _)| s + k + 1)
                .collect::<Vec<_>>();
            let &a = at.get(rng.below(at.len().max(1)))?;
            let end = axe_layout::parse::scan_identifier(text, a);
            let new = gen::axis(rng);
            let d = format!("axis {} -> {new}", &text[a..end]);
            text.replace_range(a..end, new);
            Some(d)
        }
        4 | 5 => {
            let set = rng.pick(KEYWORD_SETS);
            let from = rng.pick(set);
            let toks = word_tokens(text, from);
            let &(s, e) = toks.get(rng.below(toks.len().max(1)))?;
            let to = rng.pick(set);
            text.replace_range(s..e, to);
            Some(format!("keyword {from} at byte {s} -> {to}"))
        }
        6 => {
            let lines: Vec<&str> = text.lines().collect();
            let k = rng.below(lines.len().max(1));
            let line = lines.get(k)?.to_string();
            let mut new: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            let d = if rng.one_in(2) {
                new.remove(k);
                format!("delete line {}: {line:?}", k + 1)
            } else {
                new.insert(k, line.clone());
                format!("duplicate line {}: {line:?}", k + 1)
            };
            *text = new.join("\n");
            Some(d)
        }
        7 => {
            // Launch sizes: the numbers inside `grid [..]` / `threads [..]`.
            let kw = *rng.pick(&["grid", "threads"]);
            let toks = word_tokens(text, kw);
            let &(_, e) = toks.get(rng.below(toks.len().max(1)))?;
            let close = e + text[e..].find(']')?;
            let nums: Vec<_> = integer_tokens(&text[e..close]);
            let &(s2, e2) = nums.get(rng.below(nums.len().max(1)))?;
            let v = *rng.pick(&[
                "0",
                "1",
                "3",
                "32",
                "33",
                "96",
                "1024",
                "1025",
                "65536",
                "-1",
                "4294967296",
            ]);
            let d = format!("{kw} size {} -> {v}", &text[e + s2..e + e2]);
            text.replace_range(e + s2..e + e2, v);
            Some(d)
        }
        _ => {
            // Transplant a layout from another seed.
            let donor = &seeds[rng.below(seeds.len())].text;
            let db = layout_bodies(donor);
            let &(ds, de) = db.get(rng.below(db.len().max(1)))?;
            let bodies = layout_bodies(text);
            let &(s, e) = bodies.get(rng.below(bodies.len().max(1)))?;
            let d = format!("layout {:?} -> {:?} (from another seed)", &text[s..e], &donor[ds..de]);
            text.replace_range(s..e, &donor[ds..de]);
            Some(d)
        }
    }
}

/// How one mutant was run, for the reproducer.
struct Case<'a> {
    seed: &'a str,
    flags: &'a [&'static str],
    pipeline: &'static str,
    roundtrip: bool,
    mutations: &'a [String],
}

/// Run `axe-opt` on the mutant and apply the oracles.
fn execute(report: &Report, opts: &Options, input: &Path, text: &str, case: &Case) {
    if std::fs::write(input, text).is_err() {
        return;
    }
    let out_path = input.with_extension("out");
    let err_path = input.with_extension("err");
    let (Ok(out), Ok(err)) = (std::fs::File::create(&out_path), std::fs::File::create(&err_path)) else {
        return;
    };
    let mut cmd = Command::new(&opts.axe_opt);
    cmd.arg(input).args(case.flags).arg(case.pipeline);
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    if case.roundtrip {
        cmd.env("AXE_OPT_CHECK_IR_ROUNDTRIP", "1");
    }
    let Ok(mut child) = cmd.spawn() else { return };
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(_) => return,
        }
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let file = input.display().to_string();
    let finding = |kind: Kind, signature: String, message: String| Finding {
        kind,
        signature,
        message,
        reproducer: format!(
            "# seed: {}\n# mutations: {}\n# command: {}axe-opt mutant.mlir {} {}\n{text}",
            case.seed,
            case.mutations.join("; "),
            if case.roundtrip {
                "AXE_OPT_CHECK_IR_ROUNDTRIP=1 "
            } else {
                ""
            },
            case.flags.join(" "),
            case.pipeline
        ),
    };
    let Some(status) = status else {
        report.record(finding(
            Kind::Hang,
            format!("timeout in {}", case.pipeline),
            format!("no exit after {TIMEOUT:?}"),
        ));
        return;
    };
    let tail: String = stderr
        .lines()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    let code = status.code();
    if let Some(frame) = upstream_parser_crash(&stderr) {
        // Not Axe's: upstream MLIR crashed while parsing the mutant, before any Axe code ran.
        // Shown, not counted as a finding (nothing in this repository can fix it).
        eprintln!(
            "[ir] upstream MLIR parser crash (not an Axe finding), in {frame}; seed {}",
            case.seed
        );
        return;
    }
    if let Some(m) = BAD_STDERR.iter().find(|m| stderr.contains(**m)) {
        // Deduplicate by the line that names the failure (paths and values stripped of digits).
        let line = stderr.lines().find(|l| l.contains(m)).unwrap_or("");
        let kind = if *m == "panicked" { Kind::Panic } else { Kind::Crash };
        report.record(finding(
            kind,
            format!("stderr '{m}': {}", signature_of(line, &file)),
            tail,
        ));
        return;
    }
    match code {
        None | Some(101) | Some(134) => {
            report.record(finding(
                Kind::Crash,
                format!("exit {code:?} in {}", case.pipeline),
                tail,
            ));
        }
        Some(0) => {
            if case.pipeline.contains("axe-to-nvvm-pipeline") {
                for bad in ["wait_group -", "shared_memory_size -", "[-"] {
                    if stdout.contains(bad) {
                        let at = stdout.find(bad).unwrap_or(0);
                        let ctx = &stdout[at.saturating_sub(80)..(at + 80).min(stdout.len())];
                        report.record(finding(
                            Kind::Oracle,
                            format!("output contains '{bad}'"),
                            ctx.to_string(),
                        ));
                    }
                }
            }
        }
        Some(1) => {
            let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
            let located = errors.iter().any(|l| is_located(l, &file));
            if !located {
                let sig = errors
                    .first()
                    .map(|l| signature_of(l, &file))
                    .unwrap_or_else(|| "no error line".into());
                report.record(finding(
                    Kind::Oracle,
                    format!("exit 1 without a located error: {sig}"),
                    tail.clone(),
                ));
            }
            if let Some(l) = errors
                .iter()
                .find(|l| l.contains("loc(unknown)") || l.starts_with("-:"))
            {
                report.record(finding(
                    Kind::Oracle,
                    format!("unlocated diagnostic: {}", signature_of(l, &file)),
                    tail,
                ));
            }
        }
        Some(c) => report.record(finding(
            Kind::Crash,
            format!("exit code {c} in {}", case.pipeline),
            tail,
        )),
    }
}

/// `<file>:<line>:<col>: error:` for the mutant file.
fn is_located(line: &str, file: &str) -> bool {
    let Some(rest) = line.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
        return false;
    };
    let mut parts = rest.splitn(3, ':');
    let num = |p: Option<&str>| p.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    num(parts.next()) && num(parts.next()) && parts.next().is_some_and(|r| r.starts_with(" error:"))
}

/// A deduplication key for a diagnostic line ([`crate::report::diagnostic_signature`]).
fn signature_of(line: &str, file: &str) -> String {
    crate::report::diagnostic_signature(line, file, 160)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crash inside an upstream op's parser with no Axe frame is upstream's; one with an Axe
    /// frame, or outside parsing, is a finding.
    #[test]
    fn upstream_parser_crashes_are_told_apart() {
        let upstream = "Stack dump:\n #4 0x1 mlir::Attribute::getContext() const (libMLIR.so)\n #8 0x2 mlir::linalg::TransposeOp::parse(mlir::OpAsmParser&, mlir::OperationState&) (libMLIR.so)\n#20 0x3 mlir::parseAsmSourceFile(llvm::SourceMgr const&) (libMLIR.so)";
        assert_eq!(
            upstream_parser_crash(upstream).as_deref(),
            Some("mlir::linalg::TransposeOp::parse")
        );
        let ours = upstream.replace("#4 0x1 mlir::Attribute", "#4 0x1 mlir::axe::LayoutAttr");
        assert_eq!(upstream_parser_crash(&ours), None);
        let not_parsing = upstream.replace("mlir::parseAsmSourceFile", "mlir::PassManager::run");
        assert_eq!(upstream_parser_crash(&not_parsing), None);
        // axe-opt's own frames above the parser's entry do not make it Axe's.
        let caller = format!("{upstream}\n#30 0x4 main (/repo/target/release/axe-opt+0x5)");
        assert_eq!(
            upstream_parser_crash(&caller).as_deref(),
            Some("mlir::linalg::TransposeOp::parse")
        );
        assert_eq!(upstream_parser_crash("panicked at foo"), None);
    }
}
