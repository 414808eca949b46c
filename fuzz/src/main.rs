//! `axe-fuzz`: a self-contained, stable-Rust fuzzer for the Axe layout algebra and `axe-opt`.
//!
//! ```text
//! axe-fuzz <layout-parse|layout-algebra|ir|lowering|all> [--seconds N] [--iterations N] [--seed S]
//!          [--corpus DIR] [--axe-opt PATH] [--findings DIR] [--case K]
//! axe-fuzz lowering-gpu --export DIR [--iterations N] [--seed S] [--axe-opt PATH]
//! ```
//! Prints one summary line per target and exits non-zero when anything was found. See
//! `fuzz/README.md`.

mod gen;
mod ir;
mod layout_algebra;
mod layout_parse;
mod lowering;
mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use report::Report;

/// When a target stops: after a deadline, after a number of executions, or both.
pub struct Budget {
    deadline: Option<Instant>,
    iterations: Option<u64>,
}

impl Budget {
    /// Whether the execution with index `done` (0-based) may still run.
    pub fn more(&self, done: u64) -> bool {
        self.iterations.is_none_or(|n| done < n) && self.deadline.is_none_or(|d| Instant::now() < d)
    }
}

struct Args {
    target: String,
    seconds: Option<f64>,
    iterations: Option<u64>,
    seed: u64,
    corpus: Option<PathBuf>,
    axe_opt: Option<PathBuf>,
    findings: PathBuf,
    case: Option<u64>,
    export: PathBuf,
}

const USAGE: &str = "usage: axe-fuzz <layout-parse|layout-algebra|ir|lowering|all> [--seconds N] [--iterations N] \
[--seed S] [--corpus DIR] [--axe-opt PATH] [--findings DIR] [--case K]
       axe-fuzz lowering-gpu --export DIR [--iterations N] [--seconds N] [--seed S] [--axe-opt PATH]";

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let target = it.next().ok_or(USAGE)?;
    let mut a = Args {
        target,
        seconds: None,
        iterations: None,
        seed: 0xA8E,
        corpus: None,
        axe_opt: None,
        findings: PathBuf::from("target/fuzz-findings"),
        case: None,
        export: PathBuf::from("target/fuzz-gpu"),
    };
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
        let bad = |v: &str| format!("bad value '{v}' for {flag}");
        match flag.as_str() {
            "--seconds" => {
                let v = value()?;
                a.seconds = Some(v.parse().map_err(|_| bad(&v))?);
            }
            "--iterations" => {
                let v = value()?;
                a.iterations = Some(v.parse().map_err(|_| bad(&v))?);
            }
            "--seed" => {
                let v = value()?;
                a.seed = v.parse().map_err(|_| bad(&v))?;
            }
            "--corpus" => a.corpus = Some(value()?.into()),
            "--axe-opt" => a.axe_opt = Some(value()?.into()),
            "--findings" => a.findings = value()?.into(),
            "--export" => a.export = value()?.into(),
            "--case" => {
                let v = value()?;
                a.case = Some(v.parse().map_err(|_| bad(&v))?);
            }
            _ => return Err(format!("unknown argument '{flag}'\n{USAGE}")),
        }
    }
    if !matches!(
        a.target.as_str(),
        "layout-parse" | "layout-algebra" | "ir" | "lowering" | "lowering-gpu" | "all"
    ) {
        return Err(format!("unknown target '{}'\n{USAGE}", a.target));
    }
    Ok(a)
}

/// Lines of every file in the corpus directory: extra layout texts for `layout-parse`.
fn corpus_lines(dir: Option<&Path>) -> Vec<String> {
    let Some(Ok(entries)) = dir.map(std::fs::read_dir) else {
        return vec![];
    };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

fn default_axe_opt() -> PathBuf {
    let release = PathBuf::from("target/release/axe-opt");
    if release.exists() {
        release
    } else {
        PathBuf::from("target/debug/axe-opt")
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if !overflow_checks_on() {
        eprintln!(
            "warning: built without overflow checks: integer overflow in the layout algebra \
             wraps silently instead of being found (set overflow-checks = true in the profile)"
        );
    }
    report::install_silent_panic_hook();
    if args.target == "lowering-gpu" {
        // Not part of `all`: it exports cases for a GPU run (fuzz/gpu/run_cases.py).
        let budget = Budget {
            deadline: args.seconds.map(|s| Instant::now() + Duration::from_secs_f64(s)),
            iterations: args.iterations,
        };
        let opts = lowering::gpu::Options {
            axe_opt: args.axe_opt.clone().unwrap_or_else(default_axe_opt),
            export: args.export.clone(),
            findings: args.findings.clone(),
        };
        let summary = lowering::gpu::export(args.seed, &budget, &opts);
        println!("{}", summary.line);
        return if summary.findings > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    }
    let targets: Vec<&'static str> = match args.target.as_str() {
        "all" => vec!["layout-parse", "layout-algebra", "ir", "lowering"],
        "lowering" => vec!["lowering"],
        "layout-parse" => vec!["layout-parse"],
        "layout-algebra" => vec!["layout-algebra"],
        _ => vec!["ir"],
    };
    // `all` splits the time (and iteration) budget evenly between the targets.
    let share = targets.len() as f64;
    let mut findings = 0;
    for target in targets {
        let budget = Budget {
            deadline: args
                .seconds
                .map(|s| Instant::now() + Duration::from_secs_f64(s / share)),
            iterations: args.iterations.map(|n| (n as f64 / share).ceil() as u64),
        };
        let report = Report::new(target, args.findings.clone());
        let start = Instant::now();
        if target == "lowering" {
            let opts = lowering::Options {
                axe_opt: args.axe_opt.clone().unwrap_or_else(default_axe_opt),
                work_dir: std::env::temp_dir().join("axe-fuzz"),
                findings: args.findings.clone(),
                case: args.case,
            };
            let summary = lowering::run(args.seed, &budget, &opts);
            let secs = start.elapsed().as_secs_f64();
            println!("{}", summary.line);
            eprintln!(
                "  ({:.1} s, {:.1} executions/s)",
                secs,
                summary.executions as f64 / secs.max(1e-9)
            );
            findings += summary.findings;
            continue;
        }
        match target {
            "layout-parse" => layout_parse::run(&report, args.seed, &budget, &corpus_lines(args.corpus.as_deref())),
            "layout-algebra" => layout_algebra::run(&report, args.seed, &budget),
            _ => {
                let opts = ir::Options {
                    axe_opt: args.axe_opt.clone().unwrap_or_else(default_axe_opt),
                    corpus: args.corpus.clone(),
                    work_dir: std::env::temp_dir().join("axe-fuzz"),
                };
                ir::run(&report, args.seed, &budget, &opts);
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!("{}", report.summary());
        eprintln!(
            "  ({:.1} s, {:.0} executions/s)",
            secs,
            report.executions() as f64 / secs.max(1e-9)
        );
        findings += report.findings();
    }
    if findings > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Whether this build panics on integer overflow (the dev profile, or a profile with
/// `overflow-checks = true`): probed, since no `cfg` tells it.
fn overflow_checks_on() -> bool {
    let max = std::hint::black_box(i64::MAX);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let wrapped = std::panic::catch_unwind(|| std::hint::black_box(max) + std::hint::black_box(1)).is_ok();
    std::panic::set_hook(hook);
    !wrapped
}
