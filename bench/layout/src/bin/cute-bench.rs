//! Times the CuTe operations axe-layout shares with pycute, in-process, for
//! `pycute_compare.py`. Input on stdin, one case per line, tab-separated:
//! `op <TAB> A [<TAB> B | cotarget]`; output per case: `op <TAB> ns/op <TAB> result`.
//! Each case runs for at least `--min-ms` (default 200) milliseconds after one warm-up call, or
//! exactly `--iters N` times (for counting instructions with `perf stat`, which a shared
//! machine's load does not disturb).

use std::hint::black_box;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use axe_layout::cute::CuteLayout;

fn run_op(op: &str, a: &CuteLayout, b: Option<&CuteLayout>, n: i64) -> Result<CuteLayout, String> {
    let need_b = || b.ok_or_else(|| format!("{op} needs a second layout"));
    let r = match op {
        "coalesce" => Ok(a.coalesce()),
        "composition" => a.compose(need_b()?),
        "complement" => a.complement(n),
        "right_inverse" => a.right_inverse(),
        "left_inverse" => a.left_inverse(),
        "logical_divide" => a.logical_divide(need_b()?),
        "logical_product" => a.logical_product(need_b()?),
        _ => return Err(format!("unknown op {op}")),
    };
    r.map_err(|e| e.to_string())
}

fn flag(name: &str) -> Option<u64> {
    std::env::args()
        .skip_while(|a| a != name)
        .nth(1)
        .and_then(|v| v.parse().ok())
}

fn main() {
    let min_ms: u64 = flag("--min-ms").unwrap_or(200);
    let fixed_iters = flag("--iters");
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let op = f[0];
        let a = match CuteLayout::parse(f[1]) {
            Ok(a) => a,
            Err(e) => {
                writeln!(out, "{op}\tnan\terror: {e}").unwrap();
                continue;
            }
        };
        let (b, n) = match f.get(2) {
            Some(t) if op == "complement" => (None, t.parse::<i64>().unwrap_or(1)),
            Some(t) => (CuteLayout::parse(t).ok(), 1),
            None => (None, 1),
        };
        let first = run_op(op, &a, b.as_ref(), n);
        let result = match &first {
            Ok(r) => r.to_string(),
            Err(e) => format!("error: {e}"),
        };
        let budget = Duration::from_millis(min_ms);
        let start = Instant::now();
        let mut iters: u64 = 0;
        while fixed_iters.map_or(start.elapsed() < budget, |n| iters < n) {
            for _ in 0..64 {
                let _ = black_box(run_op(op, black_box(&a), black_box(b.as_ref()), n));
            }
            iters += 64;
        }
        let ns = start.elapsed().as_nanos() as f64 / iters as f64;
        writeln!(out, "{op}\t{ns:.1}\t{result}").unwrap();
    }
}
