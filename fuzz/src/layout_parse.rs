//! `layout-parse`: grammar-generated and byte-mutated layout texts into `Layout::parse`.
//!
//! Oracles: no panic; on `Ok`, the printed form re-parses to an equal layout and printing is
//! idempotent; on `Err`, the error offset lies within the input.

use axe_layout::Layout;

use crate::gen::{self, Rng};
use crate::report::{guarded, oracle, Report};
use crate::Budget;

/// Texts every run starts from (mutation also splices them), besides any `--corpus` lines.
const SEEDS: &[&str] = &[
    "(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp",
    "(16, 8) : (8, 1)",
    "(4) : (-1)",
    "() : ()",
    "(2) : (1) + 3 + 2@warp",
    "(9223372036854775807) : (1)",
    "(2) : (9223372036854775807@lane)",
    "(1) : (1) + -9223372036854775808@m",
];

pub fn run(report: &Report, seed: u64, budget: &Budget, corpus: &[String]) {
    let mut pool: Vec<String> = SEEDS.iter().map(|s| s.to_string()).collect();
    pool.extend(corpus.iter().cloned());
    let mut i = 0u64;
    while budget.more(i) {
        let mut rng = Rng::for_execution(seed, i);
        let text = match rng.below(3) {
            0 => gen::layout_text(&mut rng),
            1 => {
                let base = gen::layout_text(&mut rng);
                let other = rng.pick(&pool).clone();
                gen::mutate_bytes(&mut rng, &base, &other)
            }
            _ => {
                let base = rng.pick(&pool).clone();
                let other = gen::layout_text(&mut rng);
                gen::mutate_bytes(&mut rng, &base, &other)
            }
        };
        check(report, &text);
        // Keep a few parseable texts as further mutation material (bounded pool).
        if pool.len() < 256 && Layout::parse(&text).is_ok() && rng.one_in(8) {
            pool.push(text);
        }
        report.executed();
        i += 1;
    }
}

/// Parse `text` and apply the oracles.
fn check(report: &Report, text: &str) {
    let repro = || format!("Layout::parse({text:?})");
    let Some(parsed) = guarded(report, "Layout::parse", repro, || Layout::parse(text)) else {
        return;
    };
    match parsed {
        Err(e) => {
            if e.offset > text.len() {
                oracle(
                    report,
                    "parse error offset beyond input".into(),
                    format!("offset {} > length {}: {}", e.offset, text.len(), e.message),
                    repro(),
                );
            }
        }
        Ok(l) => {
            let Some(printed) = guarded(report, "Layout::to_string", repro, || l.to_string()) else {
                return;
            };
            let Some(again) = guarded(report, "Layout::parse(printed)", repro, || Layout::parse(&printed)) else {
                return;
            };
            match again {
                Err(e) => oracle(
                    report,
                    "printed layout does not re-parse".into(),
                    format!("printed {printed:?}; re-parse error at {}: {}", e.offset, e.message),
                    repro(),
                ),
                Ok(l2) if l2 != l => oracle(
                    report,
                    "printed layout re-parses to a different layout".into(),
                    format!("printed {printed:?}; {l:?} != {l2:?}"),
                    repro(),
                ),
                Ok(l2) if l2.to_string() != printed => oracle(
                    report,
                    "printing is not idempotent".into(),
                    format!("{printed:?} then {:?}", l2.to_string()),
                    repro(),
                ),
                Ok(_) => {}
            }
        }
    }
}
