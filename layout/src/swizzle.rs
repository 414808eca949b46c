//! CuTe swizzles `Swizzle<B, M, S>` (the CuTe paper; the ISL paper models them as relations) as a
//! layout-level transform.
//!
//! `Swizzle<B, M, S>` XORs the `B` bits starting at bit `M + max(0, S)` into the `B` bits starting
//! at bit `M - min(0, S)` (a right shift by `S`, a left shift for negative `S`):
//! `f(o) = o ^ ((o & yyy) >> S)`. With `B = 0` it is the identity.
//!
//! * it is a bijection on the integers whenever `S ≠ 0` (the map is unipotent over `F_2`), and it
//!   permutes every aligned block of `2^(M + B + |S|)` offsets;
//! * it is an involution only when `|S| ≥ B` (source and target bits disjoint); the ISL paper's
//!   claim of an involution in general is wrong (an erratum), e.g. `Swizzle<2,0,1>`.
//!
//! A [`SwizzledLayout`] applies the swizzle to the memory-axis coordinate of every point of an
//! Axe layout (after shard, replica and offset: CuTe's `Swizzle ∘ offset ∘ Layout`).

use std::fmt;

use crate::error::{LayoutError, ParseError};
use crate::layout::{Axis, Layout, Point};

/// `Swizzle<bits, base, shift>` = CuTe `Swizzle<B, M, S>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    pub bits: u32,
    pub base: u32,
    pub shift: i32,
}

impl Swizzle {
    /// Build and validate (see [`Swizzle::validate`]).
    pub fn new(bits: u32, base: u32, shift: i32) -> Result<Self, LayoutError> {
        let s = Swizzle { bits, base, shift };
        s.validate()?;
        Ok(s)
    }

    /// `S ≠ 0` unless `B = 0` (a zero shift clears bits instead of permuting), and every mask bit
    /// below bit 62.
    pub fn validate(&self) -> Result<(), LayoutError> {
        if self.bits == 0 {
            return Ok(());
        }
        if self.shift == 0 {
            return Err(LayoutError::Unsupported(format!(
                "{self}: a zero shift is not a bijection"
            )));
        }
        let top = self.base as u64 + self.bits as u64 + self.shift.unsigned_abs() as u64;
        if top > 62 {
            return Err(LayoutError::Overflow);
        }
        Ok(())
    }

    /// The mask of the bits read (`yyy`).
    pub fn src_mask(&self) -> i64 {
        mask(self.bits, self.base as u64 + self.shift.max(0) as u64)
    }

    /// The mask of the bits written (`zzz`).
    pub fn dst_mask(&self) -> i64 {
        mask(self.bits, self.base as u64 + self.shift.min(0).unsigned_abs() as u64)
    }

    /// `y >> S` (or `<< -S`), bits shifted past the word dropped (never a panic).
    fn shift_bits(&self, y: i64) -> i64 {
        let k = self.shift.unsigned_abs();
        if self.shift > 0 {
            y.checked_shr(k).unwrap_or(0)
        } else {
            y.checked_shl(k).unwrap_or(0)
        }
    }

    /// `f(o) = o ^ ((o & yyy) >> S)` (left shift for negative `S`). Meaningful for validated
    /// swizzles; never panics (bits beyond the word are dropped).
    pub fn apply(&self, offset: i64) -> i64 {
        if self.bits == 0 {
            return offset;
        }
        offset ^ self.shift_bits(offset & self.src_mask())
    }

    /// The inverse map. For `|S| ≥ B` it is `apply` itself; otherwise the XOR is undone from the
    /// highest source bit down (each written bit depends only on bits further from the base).
    pub fn invert(&self, offset: i64) -> i64 {
        if self.bits == 0 {
            return offset;
        }
        // f = I + N with N nilpotent over F_2 (N^k = 0 for k·|S| ≥ B + |S|), so
        // f^{-1} = I + N + N^2 + … ; iterate x ← o ^ N(x) to the fixed point.
        let mut x = offset;
        for _ in 0..=self.bits {
            x = offset ^ self.shift_bits(x & self.src_mask());
        }
        x
    }

    /// The smallest power of two `P` past every bit the swizzle reads or writes: adding a
    /// multiple of `P` commutes with it, `apply(o + k P) = apply(o) + k P`, so addresses that
    /// differ by such multiples share one swizzled value plus a constant.
    pub fn period(&self) -> i64 {
        if self.bits == 0 {
            return 1;
        }
        let top = (self.src_mask() | self.dst_mask()) as u64;
        1i64 << (64 - top.leading_zeros())
    }

    /// Whether `apply ∘ apply = id`: exactly when the source and target bits are disjoint.
    pub fn is_involution(&self) -> bool {
        self.bits == 0 || self.shift.unsigned_abs() >= self.bits
    }

    /// Parse `Swizzle<B,M,S>` (spaces allowed).
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let t = text.trim();
        let err = |m: &str| ParseError {
            offset: 0,
            message: m.to_string(),
        };
        let inner = t
            .strip_prefix("Swizzle")
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix('<'))
            .and_then(|r| r.strip_suffix('>'))
            .ok_or_else(|| err("expected 'Swizzle<B,M,S>'"))?;
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        if parts.len() != 3 {
            return Err(err("Swizzle takes three parameters <B,M,S>"));
        }
        let b: u32 = parts[0].parse().map_err(|_| err("B must be a non-negative integer"))?;
        let m: u32 = parts[1].parse().map_err(|_| err("M must be a non-negative integer"))?;
        let s: i32 = parts[2].parse().map_err(|_| err("S must be an integer"))?;
        Swizzle::new(b, m, s).map_err(|e| err(&e.to_string()))
    }
}

/// `bits` ones starting at bit `at` (bits past the word dropped).
fn mask(bits: u32, at: u64) -> i64 {
    let ones = if bits >= 64 {
        -1i64
    } else {
        (1i64 << bits).wrapping_sub(1)
    };
    if at >= 64 {
        0
    } else {
        ones.checked_shl(at as u32).unwrap_or(0)
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Swizzle<{},{},{}>", self.bits, self.base, self.shift)
    }
}

impl std::str::FromStr for Swizzle {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        Swizzle::parse(s)
    }
}

/// An Axe layout whose memory-axis coordinate is swizzled: `L_sw(x) = { sw(p) | p ∈ L(x) }`
/// where `sw` applies the swizzle to `p[m]` and leaves other axes alone.
/// Printed and parsed as `Swizzle<3,4,3> o (8, 64) : (64, 1)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwizzledLayout {
    pub layout: Layout,
    pub swizzle: Swizzle,
}

impl SwizzledLayout {
    pub fn new(layout: Layout, swizzle: Swizzle) -> Result<Self, LayoutError> {
        layout.validate()?;
        swizzle.validate()?;
        Ok(SwizzledLayout { layout, swizzle })
    }

    fn swizzle_point(&self, mut p: Point) -> Point {
        let m = Axis::memory();
        if let Some(v) = p.get(&m).copied() {
            let w = self.swizzle.apply(v);
            if w == 0 {
                p.remove(&m);
            } else {
                p.insert(m, w);
            }
        }
        p
    }

    /// The set of points of flat logical index `x` (sorted, deduplicated).
    pub fn eval_set_flat(&self, x: i64) -> Result<Vec<Point>, LayoutError> {
        let mut v: Vec<Point> = self
            .layout
            .eval_set_flat(x)?
            .into_iter()
            .map(|p| self.swizzle_point(p))
            .collect();
        v.sort();
        v.dedup();
        Ok(v)
    }

    /// The memory offset of flat index `x` for a layout entirely on the memory axis without
    /// replica (the common shared-memory case).
    pub fn offset_of(&self, x: i64) -> Result<i64, LayoutError> {
        let pts = self.layout.eval_flat(x)?;
        if pts.len() != 1 || pts[0].keys().any(|a| !a.is_memory()) {
            return Err(LayoutError::Unsupported(
                "offset_of needs a layout on the memory axis only, without replica".into(),
            ));
        }
        Ok(self.swizzle.apply(pts[0].get(&Axis::memory()).copied().unwrap_or(0)))
    }

    /// The full table, as [`Layout::table`].
    pub fn table(&self) -> Result<Vec<Vec<Point>>, LayoutError> {
        (0..self.layout.size()).map(|x| self.eval_set_flat(x)).collect()
    }

    /// Parse `Swizzle<B,M,S> o <layout>`.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let close = text.find('>').ok_or(ParseError {
            offset: 0,
            message: "expected 'Swizzle<B,M,S> o <layout>'".into(),
        })?;
        let sw = Swizzle::parse(&text[..=close])?;
        let rest = text[close + 1..].trim_start();
        let rest_off = text.len() - rest.len();
        let body = rest.strip_prefix('o').ok_or(ParseError {
            offset: rest_off,
            message: "expected 'o' after the swizzle".into(),
        })?;
        let body_off = text.len() - body.len();
        let layout = Layout::parse(body).map_err(|e| ParseError {
            offset: e.offset + body_off,
            message: e.message,
        })?;
        SwizzledLayout::new(layout, sw).map_err(|e| ParseError {
            offset: 0,
            message: e.to_string(),
        })
    }
}

impl fmt::Display for SwizzledLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {}", self.swizzle, self.layout)
    }
}
