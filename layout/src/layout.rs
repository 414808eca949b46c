//! The layout type `(D, R, O)` over named axes and its canonical printing.
//!
//! Printing is canonical (one fixed spacing), so FileCheck lines stay stable:
//! `(8, 2) : (4@lane, 1@warp) + [(2) : (4@warp)] + 5@warp`. A stride or offset on the
//! memory axis `m` prints without `@m`; zero offsets and an empty replica are omitted.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::LayoutError;

/// The memory axis; strides and offsets written without `@axis` are on it.
pub const MEMORY_AXIS: &str = "m";

/// A named hardware axis (`m`, `lane`, `warp`, `reg`, `gpuid`, `P`, `F`, ...).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Axis(pub String);

impl Axis {
    pub fn new(name: impl Into<String>) -> Self {
        Axis(name.into())
    }
    pub fn memory() -> Self {
        Axis(MEMORY_AXIS.to_string())
    }
    pub fn name(&self) -> &str {
        &self.0
    }
    pub fn is_memory(&self) -> bool {
        self.0 == MEMORY_AXIS
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Axis {
    fn from(s: &str) -> Self {
        Axis(s.to_string())
    }
}

/// One iter: an extent, a (non-zero) stride and the axis the stride lives on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Iter {
    pub extent: i64,
    pub stride: i64,
    pub axis: Axis,
}

impl Iter {
    pub fn new(extent: i64, stride: i64, axis: impl Into<Axis>) -> Self {
        Iter {
            extent,
            stride,
            axis: axis.into(),
        }
    }
    /// An iter on the memory axis.
    pub fn mem(extent: i64, stride: i64) -> Self {
        Iter {
            extent,
            stride,
            axis: Axis::memory(),
        }
    }
}

/// A hardware coordinate: one integer per axis. Axes absent from the map are 0.
pub type Point = BTreeMap<Axis, i64>;

/// An Axe layout `L = (D, R, O)`: `L(x) = { D(x) + r + O | r ∈ R }` (paper Def. 2.3).
///
/// `shard` is ordered and unflattened lexicographically (first iter slowest);
/// `replica` is a multiset (its order carries no meaning); `offset` holds one integer per
/// axis (zero entries are never stored, so derived equality is structural equality).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Layout {
    pub shard: Vec<Iter>,
    pub replica: Vec<Iter>,
    pub offset: BTreeMap<Axis, i64>,
}

impl Layout {
    /// Build and validate a layout (extents > 0, strides ≠ 0, no i64 overflow).
    pub fn new(shard: Vec<Iter>, replica: Vec<Iter>, offset: BTreeMap<Axis, i64>) -> Result<Self, LayoutError> {
        let mut l = Layout { shard, replica, offset };
        l.offset.retain(|_, v| *v != 0);
        l.validate()?;
        Ok(l)
    }

    /// A shard-only layout.
    pub fn from_shard(shard: Vec<Iter>) -> Result<Self, LayoutError> {
        Self::new(shard, vec![], BTreeMap::new())
    }

    /// A row-major (lexicographic) memory layout of the given shape: strides are suffix products.
    pub fn row_major(shape: &[i64]) -> Result<Self, LayoutError> {
        let mut strides = vec![0i64; shape.len()];
        let mut acc: i64 = 1;
        for i in (0..shape.len()).rev() {
            strides[i] = acc;
            acc = acc.checked_mul(shape[i]).ok_or(LayoutError::Overflow)?;
        }
        Self::from_shard(shape.iter().zip(strides).map(|(&e, s)| Iter::mem(e, s)).collect())
    }

    /// Check the structural invariants every layout must satisfy.
    pub fn validate(&self) -> Result<(), LayoutError> {
        for it in self.shard.iter().chain(self.replica.iter()) {
            if it.extent <= 0 {
                return Err(LayoutError::NonPositiveExtent(it.extent));
            }
            if it.stride == 0 {
                return Err(LayoutError::ZeroStride);
            }
            if !is_identifier(it.axis.name()) {
                return Err(LayoutError::BadAxis(it.axis.name().to_string()));
            }
            // The largest coordinate an iter contributes must fit in i64.
            (it.extent - 1).checked_mul(it.stride).ok_or(LayoutError::Overflow)?;
        }
        checked_product(self.shard.iter().map(|i| i.extent))?;
        checked_product(self.replica.iter().map(|i| i.extent))?;
        // Every reachable coordinate on every axis must fit in i64, and so must every partial
        // sum evaluation forms: per axis, the sums of the negative and of the positive
        // contributions, their difference (the axis' width), and each sum plus the offset.
        // (Not |offset| + Σ|contribution|: canonicalization moves replica strides into the
        // offset, which can push that bound past i64 while every coordinate still fits.)
        let mut per_axis: BTreeMap<&Axis, (i64, i64)> = BTreeMap::new();
        for it in self.shard.iter().chain(self.replica.iter()) {
            let c = (it.extent - 1).checked_mul(it.stride).ok_or(LayoutError::Overflow)?;
            let (neg, pos) = per_axis.entry(&it.axis).or_insert((0, 0));
            if c < 0 {
                *neg = neg.checked_add(c).ok_or(LayoutError::Overflow)?;
            } else {
                *pos = pos.checked_add(c).ok_or(LayoutError::Overflow)?;
            }
            pos.checked_sub(*neg).ok_or(LayoutError::Overflow)?;
        }
        for (a, o) in &self.offset {
            if !is_identifier(a.name()) {
                return Err(LayoutError::BadAxis(a.name().to_string()));
            }
            let (neg, pos) = per_axis.get(a).copied().unwrap_or((0, 0));
            o.checked_add(neg).ok_or(LayoutError::Overflow)?;
            o.checked_add(pos).ok_or(LayoutError::Overflow)?;
        }
        Ok(())
    }

    /// `E_D`: the number of logical elements (product of the shard extents).
    pub fn size(&self) -> i64 {
        self.shard.iter().map(|i| i.extent).product()
    }

    /// `E_R`: the number of replica combinations (product of the replica extents).
    pub fn replica_size(&self) -> i64 {
        self.replica.iter().map(|i| i.extent).product()
    }

    /// The shard extents, in order.
    pub fn shape(&self) -> Vec<i64> {
        self.shard.iter().map(|i| i.extent).collect()
    }

    /// Every axis the layout mentions (shard, replica or offset), sorted by name.
    pub fn axes(&self) -> Vec<Axis> {
        let mut v: Vec<Axis> = self
            .shard
            .iter()
            .chain(self.replica.iter())
            .map(|i| i.axis.clone())
            .chain(self.offset.keys().cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Parse the layout text (the grammar of [`crate::parse`], without the `#axe.layout<…>` wrapper).
    pub fn parse(text: &str) -> Result<Self, crate::ParseError> {
        crate::parse::parse_layout(text)
    }
}

impl std::str::FromStr for Layout {
    type Err = crate::ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Layout::parse(s)
    }
}

pub(crate) fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    match c.next() {
        Some(ch) if ch.is_ascii_alphabetic() || ch == '_' => {}
        _ => return false,
    }
    c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Product of extents, or `Overflow`.
pub fn checked_product(it: impl IntoIterator<Item = i64>) -> Result<i64, LayoutError> {
    it.into_iter()
        .try_fold(1i64, |acc, e| acc.checked_mul(e).ok_or(LayoutError::Overflow))
}

fn write_scaled(f: &mut fmt::Formatter<'_>, value: i64, axis: &Axis) -> fmt::Result {
    if axis.is_memory() {
        write!(f, "{value}")
    } else {
        write!(f, "{value}@{axis}")
    }
}

fn write_iters(f: &mut fmt::Formatter<'_>, iters: &[Iter]) -> fmt::Result {
    f.write_str("(")?;
    for (k, it) in iters.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{}", it.extent)?;
    }
    f.write_str(") : (")?;
    for (k, it) in iters.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write_scaled(f, it.stride, &it.axis)?;
    }
    f.write_str(")")
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_iters(f, &self.shard)?;
        if !self.replica.is_empty() {
            f.write_str(" + [")?;
            write_iters(f, &self.replica)?;
            f.write_str("]")?;
        }
        for (axis, &v) in &self.offset {
            if v != 0 {
                f.write_str(" + ")?;
                write_scaled(f, v, axis)?;
            }
        }
        Ok(())
    }
}
