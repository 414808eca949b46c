//! Export a layout as an ISL integer relation (as Bhaskaracharya et al., *Modeling Layout
//! Abstractions Using Integer Set Relations*, "the ISL paper", do), so a Presburger solver can
//! check layout operations independently of this crate.
//!
//! The ISL paper writes the coordinate map of a shape with floor/mod expressions; we state the
//! same thing with existential digits, which keeps the relation affine and easy to read:
//!
//! ```text
//! { [i0, i1] -> [lane, m, warp] : exists (d0, d1, r0 :
//!     0 <= i0 < 2 and 0 <= i1 < 2 and 0 <= d0 < 2 and 0 <= d1 < 2 and 0 <= r0 < 2
//!     and 2*i0 + i1 = 2*d0 + d1                 -- row-major flat index = lexicographic digits
//!     and lane = d0 and m = 2*d1 and warp = r0 + 1) }
//! ```
//!
//! The input tuple is the logical coordinate under the given shape, the output tuple has one
//! variable per axis the layout mentions (sorted by name), shard digits `d*` unflatten the
//! flat index lexicographically, and replica digits `r*` range freely, so one input relates to
//! every point of `L(x)` (Def. 2.3).

use crate::error::LayoutError;
use crate::layout::{checked_product, Layout};

/// Words the ISL parser reserves; an axis with one of these names cannot be an ISL variable.
const ISL_KEYWORDS: &[&str] = &[
    "exists", "and", "or", "not", "implies", "mod", "min", "max", "floor", "ceil", "floord", "ceild", "infty", "NaN",
    "true", "false", "rat", "domain", "range", "params",
];

/// A linear expression `Σ c·v + k` printed in ISL syntax.
fn linear(terms: &[(i64, String)], constant: i64) -> String {
    let mut s = String::new();
    for (c, v) in terms.iter().filter(|(c, _)| *c != 0) {
        let (neg, mag) = (*c < 0, c.unsigned_abs());
        if s.is_empty() {
            if neg {
                s.push('-');
            }
        } else {
            s.push_str(if neg { " - " } else { " + " });
        }
        if mag != 1 {
            s.push_str(&format!("{mag}*"));
        }
        s.push_str(v);
    }
    if s.is_empty() {
        return constant.to_string();
    }
    if constant != 0 {
        s.push_str(if constant < 0 { " - " } else { " + " });
        s.push_str(&constant.unsigned_abs().to_string());
    }
    s
}

impl Layout {
    /// The layout under the admitted logical `shape` as an ISL relation string
    /// `{ [i0, …] -> [axis, …] : … }` (see the module docs for the form).
    ///
    /// Errors: `ShapeNotAdmitted`; `Unsupported` when an axis name is an ISL keyword;
    /// `Overflow` when a coefficient leaves i64.
    pub fn to_isl(&self, shape: &[i64]) -> Result<String, LayoutError> {
        self.validate()?;
        self.check_admits(shape)?;
        let axes = self.axes();
        if let Some(a) = axes.iter().find(|a| ISL_KEYWORDS.contains(&a.name())) {
            return Err(LayoutError::Unsupported(format!(
                "axis '{a}' is an ISL keyword and cannot name a variable of the relation"
            )));
        }
        // Variable prefixes that no axis name can be confused with.
        let clashes = |p: &str| {
            axes.iter().any(|a| {
                a.name()
                    .strip_prefix(p)
                    .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit()))
            })
        };
        let pick = |base: &str| {
            let mut p = base.to_string();
            while clashes(&p) {
                p.insert(0, '_');
            }
            p
        };
        let (pi, pd, pr) = (pick("i"), pick("d"), pick("r"));
        let ivars: Vec<String> = (0..shape.len()).map(|k| format!("{pi}{k}")).collect();
        let dvars: Vec<String> = (0..self.shard.len()).map(|k| format!("{pd}{k}")).collect();
        let rvars: Vec<String> = (0..self.replica.len()).map(|k| format!("{pr}{k}")).collect();

        let mut cons: Vec<String> = Vec::new();
        for (v, e) in ivars.iter().zip(shape) {
            cons.push(format!("0 <= {v} < {e}"));
        }
        for (v, it) in dvars.iter().zip(&self.shard) {
            cons.push(format!("0 <= {v} < {}", it.extent));
        }
        for (v, it) in rvars.iter().zip(&self.replica) {
            cons.push(format!("0 <= {v} < {}", it.extent));
        }
        // Row-major flat index of the logical coordinate = lexicographic value of the digits.
        let suffix = |ext: &[i64]| -> Result<Vec<i64>, LayoutError> {
            (0..ext.len())
                .map(|k| checked_product(ext[k + 1..].iter().copied()))
                .collect()
        };
        let lhs: Vec<(i64, String)> = suffix(shape)?.into_iter().zip(ivars.iter().cloned()).collect();
        let rhs: Vec<(i64, String)> = suffix(&self.shape())?.into_iter().zip(dvars.iter().cloned()).collect();
        if !lhs.is_empty() || !rhs.is_empty() {
            cons.push(format!("{} = {}", linear(&lhs, 0), linear(&rhs, 0)));
        }
        for axis in &axes {
            let terms: Vec<(i64, String)> = self
                .shard
                .iter()
                .zip(&dvars)
                .chain(self.replica.iter().zip(&rvars))
                .filter(|(it, _)| &it.axis == axis)
                .map(|(it, v)| (it.stride, v.clone()))
                .collect();
            let off = self.offset.get(axis).copied().unwrap_or(0);
            cons.push(format!("{axis} = {}", linear(&terms, off)));
        }
        let body = if cons.is_empty() {
            "true".to_string()
        } else {
            cons.join(" and ")
        };
        let exists: Vec<&String> = dvars.iter().chain(rvars.iter()).collect();
        let out_tuple = axes.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
        let constraint = if exists.is_empty() {
            body
        } else {
            let names = exists.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
            format!("exists ({names} : {body})")
        };
        Ok(format!("{{ [{}] -> [{out_tuple}] : {constraint} }}", ivars.join(", ")))
    }
}
