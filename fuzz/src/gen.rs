//! Generators shared by every target: a deterministic PRNG, "interesting" integers, axis
//! names, a grammar-based layout-text generator, byte-level mutations and a generator of
//! *valid* layouts (small ones for brute-force cross-checks, huge ones near i64 overflow).

use std::collections::BTreeMap;

use axe_layout::{Axis, Iter, Layout};

/// SplitMix64: tiny, fast, and good enough to drive a fuzzer. Every run is a pure function of
/// the seed, so any finding can be replayed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// An independent stream for the `index`-th execution of a run seeded with `seed`, so an
    /// execution can be replayed without replaying the ones before it.
    pub fn for_execution(seed: u64, index: u64) -> Self {
        let mut r = Rng(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (self.next_u64() as u128 % span) as i128) as i64
    }

    /// True with probability `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Integers at the edges of the arithmetic: 0, ±1, powers of two around 32 and 64 bits.
pub const INTERESTING: &[i64] = &[
    0,
    1,
    -1,
    2,
    3,
    4,
    8,
    16,
    32,
    -2,
    i32::MAX as i64,
    1 << 31,
    1 << 32,
    (1 << 32) + 1,
    1 << 62,
    (1 << 62) + 1,
    i64::MAX,
    i64::MAX - 1,
    i64::MIN,
    i64::MIN + 1,
    3037000499, // floor(sqrt(i64::MAX)): squares just fit
    3037000500, // squares just overflow
];

/// Integer literals as text, including ones no 64-bit integer can hold.
const INTERESTING_TEXT: &[&str] = &[
    "100000000000000000000",
    "-100000000000000000000",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "00000000000000000000001",
    "-0",
];

/// A small positive integer or an interesting one.
pub fn int(rng: &mut Rng) -> i64 {
    match rng.below(4) {
        0 => *rng.pick(INTERESTING),
        _ => rng.range(-4, 16),
    }
}

/// An integer literal for a layout text: usually a plausible value, sometimes an edge case,
/// sometimes a literal beyond 64 bits.
pub fn int_text(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => rng.pick(INTERESTING_TEXT).to_string(),
        1..=3 => rng.pick(INTERESTING).to_string(),
        _ => (1i64 << rng.below(7)).to_string(),
    }
}

/// Axis names the hardware uses, plus a few odd but legal identifiers.
pub const AXES: &[&str] = &[
    "m",
    "reg",
    "lane",
    "warp",
    "cta",
    "gpuid",
    "P",
    "F",
    "_",
    "x1",
    "lane_",
    "WarpGroup",
    "and",
    "or",
];

pub fn axis(rng: &mut Rng) -> &'static str {
    AXES[rng.below(AXES.len())]
}

/// A layout text from the grammar of `layout/src/parse.rs`, with random whitespace and
/// occasional grammar violations (missing or extra tokens) for the error paths.
pub fn layout_text(rng: &mut Rng) -> String {
    let mut s = String::new();
    let rank = rng.below(5);
    iters_text(rng, &mut s, rank);
    if rng.one_in(3) {
        s.push_str(" + [");
        let rank = rng.below(3) + usize::from(!rng.one_in(8));
        iters_text(rng, &mut s, rank);
        s.push(']');
    }
    for _ in 0..rng.below(3) {
        s.push_str(" + ");
        scaled_text(rng, &mut s);
    }
    if rng.one_in(10) {
        const JUNK: &[&str] = &[" ", "+", ")", "]", "@", ",", " + [(2) : (1)]", "\u{00e9}", "\t"];
        s.push_str(JUNK[rng.below(JUNK.len())]);
    }
    s
}

fn ws(rng: &mut Rng, s: &mut String) {
    match rng.below(12) {
        0 => {}
        1 => s.push_str("  "),
        2 => s.push('\n'),
        _ => s.push(' '),
    }
}

fn iters_text(rng: &mut Rng, s: &mut String, rank: usize) {
    // Mostly matching ranks; sometimes one stride too many or too few.
    let strides = match rng.below(12) {
        0 => rank + 1,
        1 => rank.saturating_sub(1),
        _ => rank,
    };
    s.push('(');
    for k in 0..rank {
        if k > 0 {
            s.push(',');
            ws(rng, s);
        }
        s.push_str(&int_text(rng));
    }
    s.push(')');
    ws(rng, s);
    s.push(':');
    ws(rng, s);
    s.push('(');
    for k in 0..strides {
        if k > 0 {
            s.push(',');
            ws(rng, s);
        }
        scaled_text(rng, s);
    }
    s.push(')');
}

fn scaled_text(rng: &mut Rng, s: &mut String) {
    s.push_str(&int_text(rng));
    if !rng.one_in(3) {
        s.push('@');
        s.push_str(axis(rng));
    }
}

/// A byte-level mutation of `text`: insert, delete, flip, duplicate or splice with `other`.
/// The result may be invalid UTF-8; it is converted lossily, as any `&str` caller would see.
pub fn mutate_bytes(rng: &mut Rng, text: &str, other: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    for _ in 0..=rng.below(3) {
        let len = b.len();
        match rng.below(6) {
            0 => {
                let at = rng.below(len + 1);
                const BYTES: &[u8] = b"()[]:,@+- 0123456789mlwx_\xff\xc3";
                let byte = *rng.pick(BYTES);
                b.insert(at, byte);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(8));
                b.drain(at..at + n);
            }
            2 if len > 0 => {
                let at = rng.below(len);
                b[at] ^= 1 << rng.below(8);
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(16));
                let chunk = b[at..at + n].to_vec();
                let to = rng.below(len + 1);
                b.splice(to..to, chunk);
            }
            4 => {
                // Splice: a prefix of this text and a suffix of the other.
                let o = other.as_bytes();
                let cut = rng.below(len + 1);
                let from = rng.below(o.len() + 1);
                b.truncate(cut);
                b.extend_from_slice(&o[from..]);
            }
            _ => {
                // Replace a digit run with an interesting literal.
                if let Some(at) = (0..len).find(|&i| b[i].is_ascii_digit() && rng.one_in(4)) {
                    let end = (at..len).find(|&i| !b[i].is_ascii_digit()).unwrap_or(len);
                    b.splice(at..end, int_text(rng).into_bytes());
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// A random *valid* layout. `small` keeps the size and replica count low enough to enumerate;
/// otherwise extents and strides may sit right at the i64 limits (retrying until
/// [`Layout::validate`] accepts).
pub fn valid_layout(rng: &mut Rng, small: bool) -> Layout {
    loop {
        let l = raw_layout(rng, small);
        if l.validate().is_ok() {
            return l;
        }
    }
}

fn raw_layout(rng: &mut Rng, small: bool) -> Layout {
    let axes: Vec<&str> = (0..1 + rng.below(3)).map(|_| axis(rng)).collect();
    let iter = |rng: &mut Rng| {
        let (extent, stride) = if small {
            let e = *rng.pick(&[1, 2, 2, 3, 4, 4, 8]);
            let s = *rng.pick(&[1, 1, 2, 3, 4, 8, 16, -1, -2, 32]);
            (e, s)
        } else {
            let e = match rng.below(3) {
                0 => *rng.pick(&[1, 2, 3, 1 << 31, 1 << 32, 3037000499, i64::MAX / 2 + 1]),
                _ => 1 << rng.below(63),
            };
            let s = match rng.below(3) {
                0 => *rng.pick(&[1, -1, i64::MAX, i64::MIN + 1, 1 << 62, -(1 << 31)]),
                _ => (1i64 << rng.below(63)) * if rng.one_in(4) { -1 } else { 1 },
            };
            (e, s)
        };
        Iter::new(extent, stride, *rng.pick(&axes))
    };
    let shard: Vec<Iter> = (0..rng.below(if small { 5 } else { 4 })).map(|_| iter(rng)).collect();
    let replica: Vec<Iter> = (0..if rng.one_in(3) { 1 + rng.below(2) } else { 0 })
        .map(|_| iter(rng))
        .collect();
    let mut offset = BTreeMap::new();
    if rng.one_in(3) {
        let v = if small { rng.range(-8, 8) } else { int(rng) };
        if v != 0 {
            offset.insert(Axis::new(*rng.pick(&axes)), v);
        }
    }
    Layout { shard, replica, offset }
}

/// A random factorization of `n` into `rank` positive factors (`n > 0`), or a random, likely
/// unadmitted shape when `honest` is false.
pub fn shape_of(rng: &mut Rng, n: i64, honest: bool) -> Vec<i64> {
    if !honest {
        return (0..rng.below(4)).map(|_| int(rng)).collect();
    }
    let rank = rng.below(4);
    if rank == 0 {
        return if n == 1 { vec![] } else { vec![n] };
    }
    let mut rest = n;
    let mut out = Vec::with_capacity(rank);
    for _ in 1..rank {
        let d = divisor(rng, rest);
        out.push(d);
        rest /= d;
    }
    out.push(rest);
    out
}

/// A random divisor of `n > 0`: a power of two it contains, a small factor, or 1 or `n`.
pub fn divisor(rng: &mut Rng, n: i64) -> i64 {
    let candidates: Vec<i64> = [1, 2, 3, 4, 5, 8, 16, 1 << 20, 1 << 31, n]
        .into_iter()
        .filter(|&d| n % d == 0)
        .collect();
    *rng.pick(&candidates)
}
