//! CuTe layouts (Cecka, *CuTe Layout Representation and Algebra*: "the CuTe paper") and their
//! conversion to and from Axe layouts.
//!
//! A CuTe layout is a hierarchical shape with a congruent hierarchical stride, e.g.
//! `(4,(2,3)):(1,(8,16))`. An integer index is unflattened **colexicographically** (first mode
//! fastest) over the flattened leaves, the last leaf being unbounded (CuTe's extended domain),
//! and the digits are dotted with the strides. Axe unflattens lexicographically, so
//! [`import`] reverses the leaf order.
//!
//! Operations follow the CuTe paper's §3 (checked against brute-force evaluation in the tests):
//! [`CuteLayout::coalesce`], [`CuteLayout::compose`] (with the stride and shape divisibility
//! conditions (20)/(21), truncation of the left operand, and the distributivity condition (23)),
//! [`CuteLayout::complement`], [`CuteLayout::right_inverse`], [`CuteLayout::left_inverse`],
//! [`CuteLayout::logical_divide`] and [`CuteLayout::logical_product`]. Only integer strides are
//! modelled (no coordinate strides `e_i`, no `F_2` strides: swizzles are in `swizzle.rs`).
//!
//! Internally the operations work on flat `(shape, stride)` mode lists kept inline (`Small`):
//! the operands' trees are flattened once, and only the result is built as `IntTuple`s. The
//! tree-based implementation this replaced is kept in `cute/reference.rs` (tests only), and a
//! differential test checks that both return the same layouts and the same errors.

use std::fmt;

use crate::error::{LayoutError, ParseError};
use crate::layout::{Iter, Layout};

/// Compositions whose domain has at most this many elements are re-checked by enumeration.
pub const VERIFY_LIMIT: i64 = 1 << 16;

/// A hierarchical integer tuple: a leaf or a (possibly nested) tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntTuple {
    Int(i64),
    Tuple(Vec<IntTuple>),
}

/// A CuTe shape (leaves are positive).
pub type CuteShape = IntTuple;
/// A CuTe stride, congruent with its shape.
pub type CuteStride = IntTuple;

impl IntTuple {
    /// The leaves in order (depth-first, left to right).
    pub fn leaves(&self) -> Vec<i64> {
        let mut v = Vec::new();
        self.each_leaf(&mut |x| v.push(x));
        v
    }
    /// Calls `f` on each leaf in order (depth-first, left to right).
    fn each_leaf<F: FnMut(i64)>(&self, f: &mut F) {
        match self {
            IntTuple::Int(x) => f(*x),
            IntTuple::Tuple(t) => t.iter().for_each(|e| e.each_leaf(f)),
        }
    }
    /// Same tree structure.
    pub fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }
    /// A flat tuple of the given leaves (a bare integer when there is exactly one).
    pub fn flat(v: &[i64]) -> IntTuple {
        if v.len() == 1 {
            IntTuple::Int(v[0])
        } else {
            IntTuple::Tuple(v.iter().map(|&x| IntTuple::Int(x)).collect())
        }
    }
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Int(x) => write!(f, "{x}"),
            IntTuple::Tuple(t) => {
                f.write_str("(")?;
                for (i, e) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A CuTe layout `shape : stride`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CuteLayout {
    pub shape: CuteShape,
    pub stride: CuteStride,
}

impl fmt::Display for CuteLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl std::str::FromStr for CuteLayout {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        CuteLayout::parse(s)
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, msg: impl Into<String>) -> ParseError {
        ParseError {
            offset: self.pos,
            message: msg.into(),
        }
    }
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.pos < self.s.len() && self.s[self.pos] == c {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn int(&mut self) -> Result<i64, ParseError> {
        self.ws();
        let start = self.pos;
        if self.pos < self.s.len() && (self.s[self.pos] == b'-' || self.s[self.pos] == b'+') {
            self.pos += 1;
        }
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
        if text.is_empty() || text == "-" || text == "+" {
            self.pos = start;
            return Err(self.err("expected an integer or '('"));
        }
        text.parse::<i64>().map_err(|_| ParseError {
            offset: start,
            message: format!("integer '{text}' out of range"),
        })
    }
    fn tuple(&mut self, depth: usize) -> Result<IntTuple, ParseError> {
        if depth > 64 {
            return Err(self.err("nesting too deep"));
        }
        if self.eat(b'(') {
            let mut v = vec![self.tuple(depth + 1)?];
            while self.eat(b',') {
                v.push(self.tuple(depth + 1)?);
            }
            if !self.eat(b')') {
                return Err(self.err("expected ',' or ')'"));
            }
            Ok(IntTuple::Tuple(v))
        } else {
            Ok(IntTuple::Int(self.int()?))
        }
    }
}

fn to_parse_error(e: LayoutError) -> ParseError {
    ParseError {
        offset: 0,
        message: e.to_string(),
    }
}

/// A vector of `Copy` values kept inline up to `N` elements and on the heap beyond: the mode
/// lists the algebra works on between parsing and building its result, so that operations on
/// layouts of ordinary rank allocate nothing but the result's tuples.
#[derive(Clone)]
struct Small<T: Copy + Default, const N: usize> {
    len: usize,
    inline: [T; N],
    /// All the elements once there are more than `N` (empty otherwise).
    heap: Vec<T>,
}

impl<T: Copy + Default, const N: usize> Small<T, N> {
    fn new() -> Self {
        Small {
            len: 0,
            inline: [T::default(); N],
            heap: Vec::new(),
        }
    }
    fn push(&mut self, x: T) {
        if self.len < N {
            self.inline[self.len] = x;
        } else {
            if self.len == N {
                self.heap.reserve(2 * N);
                self.heap.extend_from_slice(&self.inline);
            }
            self.heap.push(x);
        }
        self.len += 1;
    }
    fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        if self.len > N {
            if n <= N {
                self.inline[..n].copy_from_slice(&self.heap[..n]);
                self.heap.clear();
            } else {
                self.heap.truncate(n);
            }
        }
        self.len = n;
    }
    fn clear(&mut self) {
        self.truncate(0);
    }
    fn extend_from_slice(&mut self, xs: &[T]) {
        xs.iter().for_each(|&x| self.push(x));
    }
}

impl<T: Copy + Default, const N: usize> std::ops::Deref for Small<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if self.len <= N {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }
}

impl<T: Copy + Default, const N: usize> std::ops::DerefMut for Small<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        if self.len <= N {
            &mut self.inline[..self.len]
        } else {
            &mut self.heap
        }
    }
}

/// Flattened `(shape, stride)` leaves.
type Modes = Small<(i64, i64), 8>;

/// The flat layout of `m` (non-empty), unvalidated: one mode gives a bare `s:d`.
fn layout_of(m: &[(i64, i64)]) -> CuteLayout {
    let (shape, stride) = tuples_of(m);
    CuteLayout { shape, stride }
}

/// The flat shape and stride tuples of `m` (non-empty): bare integers for one mode.
fn tuples_of(m: &[(i64, i64)]) -> (IntTuple, IntTuple) {
    if let [(s, d)] = m {
        (IntTuple::Int(*s), IntTuple::Int(*d))
    } else {
        (
            IntTuple::Tuple(m.iter().map(|&(s, _)| IntTuple::Int(s)).collect()),
            IntTuple::Tuple(m.iter().map(|&(_, d)| IntTuple::Int(d)).collect()),
        )
    }
}

/// The leaves of `s` and `d` as `(shape, stride)` pairs appended to `m`, in one walk; `false`
/// (with `m` partly filled) when the two are not congruent.
fn pair_leaves(s: &IntTuple, d: &IntTuple, m: &mut Modes) -> bool {
    match (s, d) {
        (IntTuple::Int(s), IntTuple::Int(d)) => {
            m.push((*s, *d));
            true
        }
        (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
            if a.len() != b.len() {
                return false;
            }
            for (x, y) in a.iter().zip(b) {
                // Leaf children without a call: most tuples are flat.
                if let (IntTuple::Int(s), IntTuple::Int(d)) = (x, y) {
                    m.push((*s, *d));
                } else if !pair_leaves(x, y, m) {
                    return false;
                }
            }
            true
        }
        _ => false,
    }
}

/// A checked result, or `Overflow`. (Unlike `ok_or(LayoutError::Overflow)`, which builds and
/// drops an error value on every success, out of line: measurable in operations of ~100 ns.)
#[inline]
fn ovf<T>(x: Option<T>) -> Result<T, LayoutError> {
    match x {
        Some(v) => Ok(v),
        None => Err(LayoutError::Overflow),
    }
}

/// The invariants of [`CuteLayout::new`] on the modes of a congruent layout: positive shapes,
/// size and reach within i64.
fn check_modes(m: &[(i64, i64)]) -> Result<(), LayoutError> {
    let mut size: i64 = 1;
    let mut reach: i64 = 0;
    for &(s, d) in m {
        if s <= 0 {
            return Err(LayoutError::NonPositiveExtent(s));
        }
        size = ovf(size.checked_mul(s))?;
        let r = ovf((s - 1).checked_mul(d).and_then(i64::checked_abs))?;
        reach = ovf(reach.checked_add(r))?;
    }
    Ok(())
}

/// `CuteLayout::from_modes` on modes, in place: `(1, 0)` for none, then validated.
fn validate_flat(m: &mut Modes) -> Result<(), LayoutError> {
    if m.is_empty() {
        m.push((1, 0));
    }
    check_modes(m)
}

/// The product of the shapes, saturating.
fn size_of(m: &[(i64, i64)]) -> i64 {
    m.iter().fold(1i64, |a, &(s, _)| a.saturating_mul(s))
}

/// [`CuteLayout::eval`] on the modes of a layout of size `size()`.
fn eval_modes(modes: &[(i64, i64)], i: i64, size: impl FnOnce() -> i64) -> Result<i64, LayoutError> {
    if i < 0 {
        return Err(LayoutError::OutOfBounds {
            coord: vec![i],
            shape: vec![size()],
        });
    }
    if let Some(&(s, _)) = modes.iter().find(|m| m.0 <= 0) {
        return Err(LayoutError::NonPositiveExtent(s));
    }
    // `rest` stays in 0..=i and the shapes are positive, so the digits are i64 divisions; the
    // dot product is accumulated in i128 and checked at the end.
    let mut rest = i;
    let mut acc: i128 = 0;
    for (k, &(s, d)) in modes.iter().enumerate() {
        let c = if k + 1 == modes.len() { rest } else { rest % s };
        rest /= s;
        acc += c as i128 * d as i128;
    }
    i64::try_from(acc).map_err(|_| LayoutError::Overflow)
}

/// Coalesce (CuTe paper §3.2) on flat modes, appended to `out`: shape-1 modes dropped, adjacent modes
/// with `s_i·d_i = d_{i+1}` merged, `(1, 0)` when nothing is left.
fn coalesce_into(modes: &[(i64, i64)], out: &mut Modes) {
    // The mode being merged into, pushed once the next one does not merge.
    let mut run: Option<(i64, i64)> = None;
    for &(s, d) in modes {
        if s == 1 {
            continue;
        }
        if let Some((ls, ld)) = run {
            if ls.checked_mul(ld) == Some(d) {
                if let Some(merged) = ls.checked_mul(s) {
                    run = Some((merged, ld));
                    continue;
                }
            }
            out.push((ls, ld));
        }
        run = Some((s, d));
    }
    out.push(run.unwrap_or((1, 0)));
}

/// Coalesce keeping the extended-domain function (composition evaluates the left operand
/// beyond its size), into the empty `out`: a dropped trailing shape-1 leaf `(1, d)` still sets
/// the stride of the extension, so it is re-appended unless the last merged mode already
/// extends with `d`.
fn coalesce_ext(m: &[(i64, i64)], out: &mut Modes) {
    coalesce_into(m, out);
    if let Some(&(1, d_last)) = m.last() {
        let extends = match out.last() {
            Some(&(s, d)) if s > 1 => s.checked_mul(d) == Some(d_last),
            _ => false,
        };
        if !extends {
            if **out == [(1, 0)] {
                out.clear();
            }
            out.push((1, d_last));
        }
    }
}

/// Base case of composition (CuTe paper Eq. (19)–(21)): the modes of the coalesced `a ∘ s:d`, for a
/// coalesced flat `a` (as [`coalesce_ext`] gives it: non-empty), appended to `out`; `scratch`
/// holds the modes before coalescing.
fn compose_leaf(a: &[(i64, i64)], s: i64, d: i64, scratch: &mut Modes, out: &mut Modes) -> Result<(), LayoutError> {
    if s == 1 {
        out.push((1, 0));
        return Ok(());
    }
    if d == 0 {
        check_modes(&[(s, 0)])?;
        out.push((s, 0));
        return Ok(());
    }
    if d < 0 {
        return Err(LayoutError::Unsupported(
            "composition with a negative right-hand stride".into(),
        ));
    }
    // Truncate `a` after the first mode r with Π_{k≤r} S_k > (s-1)·d: later modes never
    // contribute, and the kept last mode becomes the extended one. (`s:d` is a leaf of a
    // validated layout, so the span fits; a product past i64 exceeds it.)
    let span = ovf((s - 1).checked_mul(d))?;
    let mut prod: i64 = 1;
    let mut keep = a.len();
    for (r, &(sr, _)) in a.iter().enumerate() {
        match prod.checked_mul(sr) {
            Some(p) if p <= span => prod = p,
            _ => {
                keep = r + 1;
                break;
            }
        }
    }
    let a = &a[..keep];
    let modes = scratch;
    modes.clear();
    let (mut rest_shape, mut rest_stride) = (s, d);
    for &(cs, cd) in &a[..a.len() - 1] {
        if cs % rest_stride != 0 && rest_stride % cs != 0 {
            return Err(LayoutError::Unsupported(format!(
                "composition violates the stride divisibility condition: stride {d} against a \
                 mode boundary {cs} of the coalesced left layout"
            )));
        }
        let next_shape = ceil_div(cs, rest_stride);
        let next_stride = ceil_div(rest_stride, cs);
        if next_shape == 1 || rest_shape == 1 {
            rest_stride = next_stride;
            continue;
        }
        let new_shape = next_shape.min(rest_shape);
        if rest_shape % new_shape != 0 {
            return Err(LayoutError::Unsupported(format!(
                "composition violates the shape divisibility condition: {new_shape} does not divide {rest_shape}"
            )));
        }
        modes.push((new_shape, ovf(rest_stride.checked_mul(cd))?));
        rest_shape /= new_shape;
        rest_stride = next_stride;
    }
    let last = a[a.len() - 1].1;
    modes.push((rest_shape, ovf(rest_stride.checked_mul(last))?));
    check_modes(modes)?;
    coalesce_into(modes, out);
    Ok(())
}

/// Scratch space of a composition: the coalesced left operand, the modes of one leaf before
/// coalescing, and the flat modes of the result.
struct Work<'m> {
    a: Modes,
    scratch: Modes,
    all: &'m mut Modes,
}

impl Work<'_> {
    /// One leaf of the right operand composed: its (coalesced) modes appended to `all`, its
    /// tuples returned.
    fn one(&mut self, s: i64, d: i64) -> Result<(IntTuple, IntTuple), LayoutError> {
        let start = self.all.len();
        compose_leaf(&self.a, s, d, &mut self.scratch, self.all)?;
        Ok(tuples_of(&self.all[start..]))
    }

    /// `a ∘ (bs:bd)` with `bs:bd`'s hierarchy, each leaf composed by [`compose_leaf`].
    fn tree(&mut self, bs: &IntTuple, bd: &IntTuple) -> Result<(IntTuple, IntTuple), LayoutError> {
        match (bs, bd) {
            (IntTuple::Int(s), IntTuple::Int(d)) => self.one(*s, *d),
            (IntTuple::Tuple(ss), IntTuple::Tuple(dd)) => {
                let n = ss.len().min(dd.len());
                let mut shape = Vec::with_capacity(n);
                let mut stride = Vec::with_capacity(n);
                for (s, d) in ss.iter().zip(dd) {
                    let (s, d) = self.tree(s, d)?;
                    shape.push(s);
                    stride.push(d);
                }
                Ok((IntTuple::Tuple(shape), IntTuple::Tuple(stride)))
            }
            _ => Err(LayoutError::Unsupported("shape and stride are not congruent".into())),
        }
    }

    /// `a ∘` the flat layout of `m` (non-empty): a bare leaf for one mode, else a tuple of leaves.
    fn flat(&mut self, m: &[(i64, i64)]) -> Result<(IntTuple, IntTuple), LayoutError> {
        if let [(s, d)] = m {
            return self.one(*s, *d);
        }
        let mut shape = Vec::with_capacity(m.len());
        let mut stride = Vec::with_capacity(m.len());
        for &(s, d) in m {
            let (s, d) = self.one(s, d)?;
            shape.push(s);
            stride.push(d);
        }
        Ok((IntTuple::Tuple(shape), IntTuple::Tuple(stride)))
    }
}

/// The right operand of a composition.
#[derive(Clone, Copy)]
enum Rhs<'a> {
    /// A layout, composed with its hierarchy.
    Layout(&'a CuteLayout),
    /// `logical_divide`'s tiler `(B, B*)`: the layout `B` and the modes of the flat `B*`.
    Tiler(&'a CuteLayout, &'a [(i64, i64)]),
}

/// Composition (see [`CuteLayout::compose`]) of the validated left operand of modes `lhs` with
/// the validated right operand `rhs` of modes `rhs_modes`; the flat modes of the result are
/// left in `all` (empty on entry). `describe` names the operands (`A ∘ B`) for the errors.
fn compose_modes(
    lhs: &[(i64, i64)],
    rhs: Rhs<'_>,
    rhs_modes: &[(i64, i64)],
    describe: &dyn Fn() -> String,
    all: &mut Modes,
) -> Result<CuteLayout, LayoutError> {
    let mut w = Work {
        a: Modes::new(),
        scratch: Modes::new(),
        all,
    };
    coalesce_ext(lhs, &mut w.a);
    let r = match rhs {
        Rhs::Layout(b) => {
            let (shape, stride) = w.tree(&b.shape, &b.stride)?;
            CuteLayout { shape, stride }
        }
        Rhs::Tiler(b, comp) => {
            let (s0, d0) = w.tree(&b.shape, &b.stride)?;
            let (s1, d1) = w.flat(comp)?;
            CuteLayout {
                shape: IntTuple::Tuple(vec![s0, s1]),
                stride: IntTuple::Tuple(vec![d0, d1]),
            }
        }
    };
    let (a, all) = (&w.a, &*w.all);
    check_modes(all)?;
    let live = &mut w.scratch;
    live.clear();
    for &(s, d) in rhs_modes {
        if s > 1 && d != 0 {
            live.push((s, d));
        }
    }
    let provably = distributes(a, live);
    let n = size_of(rhs_modes);
    // Where the leaves provably distribute, enumeration is only a self-check (debug builds
    // and tests); otherwise it decides, for right operands small enough to enumerate.
    if (!provably || cfg!(debug_assertions)) && n <= VERIFY_LIMIT {
        for i in 0..n {
            let x = eval_modes(all, i, || size_of(all))?;
            let bi = eval_modes(rhs_modes, i, || n)?;
            if x != eval_modes(lhs, bi, || size_of(lhs))? {
                return Err(LayoutError::Unsupported(format!(
                    "composition {} does not distribute over the right operand's modes",
                    describe()
                )));
            }
        }
    } else if !provably {
        return Err(LayoutError::Unsupported(format!(
            "composition {}: the right operand's modes may carry into each other in the left operand's modes (CuTe paper Eq. 23), and it is too large to check element by element",
            describe()
        )));
    }
    Ok(r)
}

/// Complement (see [`CuteLayout::complement`]) of the validated layout `l` of modes `m`; the
/// modes of the result, validated, in `out` (empty on entry).
fn complement_modes(l: &CuteLayout, m: &[(i64, i64)], cotarget: i64, out: &mut Modes) -> Result<(), LayoutError> {
    let mut modes = Modes::new();
    for &(s, d) in m {
        if s > 1 && d != 0 {
            if d < 0 {
                return Err(LayoutError::Unsupported("complement needs non-negative strides".into()));
            }
            modes.push((s, d));
        }
    }
    modes.sort_unstable_by_key(|&(s, d)| (d, s));
    let mut current: i64 = 1;
    for &(s, d) in modes.iter() {
        let gap = d / current;
        if gap == 0 {
            return Err(LayoutError::Unsupported(format!(
                "complement of {l}: the layout is not injective (modes overlap at stride {d})"
            )));
        }
        if gap > 1 {
            out.push((gap, current));
        }
        current = ovf(s.checked_mul(d))?;
    }
    // ⌈cotarget / current⌉ without the overflow of `cotarget + current - 1`.
    let last = if cotarget > current {
        cotarget / current + i64::from(cotarget % current != 0)
    } else {
        1
    };
    out.push((last, current));
    validate_flat(out)
}

/// `cosize` on the modes of a validated layout.
fn cosize_modes(m: &[(i64, i64)]) -> Result<i64, LayoutError> {
    let mut c: i64 = 0;
    for &(s, d) in m {
        if d < 0 {
            return Err(LayoutError::Unsupported("cosize needs non-negative strides".into()));
        }
        c = ovf(c.checked_add(ovf((s - 1).checked_mul(d))?))?;
    }
    ovf(c.checked_add(1))
}

impl CuteLayout {
    /// Build and validate: congruent shape/stride, positive shape leaves, size and every value
    /// on the domain within i64.
    pub fn new(shape: CuteShape, stride: CuteStride) -> Result<Self, LayoutError> {
        let l = CuteLayout { shape, stride };
        l.validate()?;
        Ok(l)
    }

    /// A flat (depth ≤ 1) layout; one mode gives a bare `s:d`.
    pub fn flat(shape: &[i64], stride: &[i64]) -> Result<Self, LayoutError> {
        if shape.len() != stride.len() || shape.is_empty() {
            return Err(LayoutError::Unsupported(
                "flat CuTe layout needs equally many (≥ 1) shapes and strides".into(),
            ));
        }
        Self::new(IntTuple::flat(shape), IntTuple::flat(stride))
    }

    #[cfg(test)]
    fn from_modes(modes: &[(i64, i64)]) -> Result<Self, LayoutError> {
        let mut m = Modes::new();
        m.extend_from_slice(modes);
        validate_flat(&mut m)?;
        Ok(layout_of(&m))
    }

    /// The flattened leaves as `(shape, stride)` pairs (as [`CuteLayout::modes_flat`]: zipped,
    /// so an incongruent layout gives as many as the shorter of the two has), without allocating.
    fn modes_small(&self) -> Modes {
        let mut m = Modes::new();
        self.modes_into(&mut m);
        m
    }

    /// [`CuteLayout::modes_small`] into the empty `m`.
    fn modes_into(&self, m: &mut Modes) {
        if pair_leaves(&self.shape, &self.stride, m) {
            return;
        }
        m.clear();
        self.shape.each_leaf(&mut |s| m.push((s, 0)));
        let mut k = 0;
        self.stride.each_leaf(&mut |d| {
            if k < m.len() {
                m[k].1 = d;
            }
            k += 1;
        });
        m.truncate(k);
    }

    /// [`CuteLayout::validate`], leaving the modes in the empty `m`.
    fn validate_into(&self, m: &mut Modes) -> Result<(), LayoutError> {
        if !pair_leaves(&self.shape, &self.stride, m) {
            return Err(LayoutError::Unsupported(format!(
                "shape {} and stride {} are not congruent",
                self.shape, self.stride
            )));
        }
        check_modes(m)
    }

    /// Check the invariants of [`CuteLayout::new`].
    pub fn validate(&self) -> Result<(), LayoutError> {
        self.validate_into(&mut Modes::new())
    }

    /// Parse CuTe syntax: `8:1`, `(4,(2,3)):(1,(8,16))`, `((2,2),4):((1,4),2)`.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
        };
        let shape = p.tuple(0)?;
        if !p.eat(b':') {
            return Err(p.err("expected ':' between shape and stride"));
        }
        let stride = p.tuple(0)?;
        p.ws();
        if p.pos != p.s.len() {
            return Err(p.err("unexpected trailing input"));
        }
        if !shape.congruent(&stride) {
            return Err(ParseError {
                offset: 0,
                message: format!("shape {shape} and stride {stride} are not congruent"),
            });
        }
        CuteLayout::new(shape, stride).map_err(to_parse_error)
    }

    /// The flattened `(shape, stride)` leaves, in colexicographic order (first fastest).
    pub fn modes_flat(&self) -> Vec<(i64, i64)> {
        self.modes_small().to_vec()
    }

    /// The top-level modes as layouts.
    pub fn modes(&self) -> Vec<CuteLayout> {
        match (&self.shape, &self.stride) {
            (IntTuple::Tuple(s), IntTuple::Tuple(d)) => s
                .iter()
                .zip(d)
                .map(|(s, d)| CuteLayout {
                    shape: s.clone(),
                    stride: d.clone(),
                })
                .collect(),
            _ => vec![self.clone()],
        }
    }

    /// The number of top-level modes.
    pub fn rank(&self) -> usize {
        match &self.shape {
            IntTuple::Tuple(t) => t.len(),
            IntTuple::Int(_) => 1,
        }
    }

    /// `|L|`, the domain size.
    /// Saturates at `i64::MAX` for an unvalidated layout whose size overflows.
    pub fn size(&self) -> i64 {
        let mut n = 1i64;
        self.shape.each_leaf(&mut |s| n = n.saturating_mul(s));
        n
    }

    /// `cosize(L) = max L + 1` over the domain (non-negative strides only).
    pub fn cosize(&self) -> Result<i64, LayoutError> {
        cosize_modes(&self.modes_small())
    }

    /// `L(i)` for an integer index `i ≥ 0`; indices beyond `|L|` use the extended domain (the
    /// last leaf is unbounded), as composition and complement require.
    pub fn eval(&self, i: i64) -> Result<i64, LayoutError> {
        eval_modes(&self.modes_small(), i, || self.size())
    }

    /// Coalesce (CuTe paper §3.2): the minimal-rank flat layout with the same integral evaluation.
    /// Shape-1 modes are dropped; adjacent modes with `s_i·d_i = d_{i+1}` merge.
    pub fn coalesce(&self) -> CuteLayout {
        let (mut m, mut c) = (Modes::new(), Modes::new());
        self.modes_into(&mut m);
        coalesce_into(&m, &mut c);
        layout_of(&c)
    }

    /// Group composition `R = self ∘ b` (CuTe paper §3.3): `R` has `b`'s shape hierarchy and
    /// `R(i) = self(b(i))` for every `i < |b|` (with `self`'s extended domain).
    ///
    /// Each leaf of `b` is composed by the base case (after coalescing and truncating `self`);
    /// `Unsupported` when a divisibility condition fails. Distributing over `b`'s leaves (CuTe
    /// Eq. (23)) is proved when the leaves add without carries in `self`'s mixed radix
    /// (`distributes`); otherwise the result is checked by enumeration (when
    /// `|b| ≤ VERIFY_LIMIT`) and refused if it differs. Debug builds also re-check proved results.
    pub fn compose(&self, b: &CuteLayout) -> Result<CuteLayout, LayoutError> {
        let (mut am, mut bm, mut all) = (Modes::new(), Modes::new(), Modes::new());
        self.validate_into(&mut am)?;
        b.validate_into(&mut bm)?;
        compose_modes(&am, Rhs::Layout(b), &bm, &|| format!("{self} ∘ {b}"), &mut all)
    }

    /// Complement with respect to `cotarget` (CuTe paper §3.5): a layout `L*` whose images are
    /// disjoint from `L`'s (except at 0), strictly increasing, and whose size reaches `cotarget`:
    /// the modes of `L` sorted by stride, each gap `d_i / current` filled by a mode of stride
    /// `current`, then a final mode `(⌈cotarget / current⌉, current)`. Shape-1 gap modes are
    /// dropped; the final mode is kept (so `complement((4,8):(1,4), 1) = 1:32`, as in Table 7).
    ///
    /// `Unsupported` for negative strides or a non-injective `L` (overlapping modes).
    pub fn complement(&self, cotarget: i64) -> Result<CuteLayout, LayoutError> {
        let (mut m, mut out) = (Modes::new(), Modes::new());
        self.validate_into(&mut m)?;
        complement_modes(self, &m, cotarget, &mut out)?;
        Ok(layout_of(&out))
    }

    /// Right inverse (CuTe paper §3.4.1, Table 5): the largest `R` with `L(R(k)) = k` for `k < |R|`,
    /// built by following the strides 1, `s_0·d_0`, … of the coalesced layout; `1:0` when no
    /// mode has stride 1.
    pub fn right_inverse(&self) -> Result<CuteLayout, LayoutError> {
        let (mut m, mut c) = (Modes::new(), Modes::new());
        self.validate_into(&mut m)?;
        coalesce_into(&m, &mut c);
        // (shape, stride, logical weight) of each mode; a used mode's shape is set to 0.
        let mut modes: Small<(i64, i64, i64), 8> = Small::new();
        let mut w: i64 = 1;
        for &(s, d) in c.iter() {
            modes.push((s, d, w));
            w = ovf(w.checked_mul(s))?;
        }
        let mut out = Modes::new();
        let mut current: i64 = 1;
        while let Some(x) = modes.iter_mut().find(|x| x.0 > 1 && x.1 == current) {
            out.push((x.0, x.2));
            current = ovf(x.0.checked_mul(x.1))?;
            x.0 = 0;
        }
        validate_flat(&mut out)?;
        Ok(layout_of(&out))
    }

    /// Left inverse (CuTe paper §3.4.3, Table 6): `L†` with `L(L†(L(k))) = L(k)` for all `k < |L|`.
    /// The offsets are unflattened in the radix of `L`'s modes sorted by stride
    /// (`d_0, d_1/d_0, …, s_last`); each digit is sent to its mode's logical weight. A leading
    /// mode `d_0 : 0` absorbs a first stride above 1; stride-0 modes are skipped.
    ///
    /// `Unsupported` when the sorted strides do not divide each other or a mode overlaps the next
    /// (`d_{j+1} / d_j < s_j`), or for negative strides.
    pub fn left_inverse(&self) -> Result<CuteLayout, LayoutError> {
        let (mut m, mut c) = (Modes::new(), Modes::new());
        self.validate_into(&mut m)?;
        coalesce_into(&m, &mut c);
        let mut modes: Small<(i64, i64, i64), 8> = Small::new();
        let mut w: i64 = 1;
        for &(s, d) in c.iter() {
            if d < 0 {
                return Err(LayoutError::Unsupported(
                    "left inverse needs non-negative strides".into(),
                ));
            }
            if s > 1 && d != 0 {
                modes.push((s, d, w));
            }
            w = ovf(w.checked_mul(s))?;
        }
        let mut out = Modes::new();
        if modes.is_empty() {
            out.push((1, 0));
            validate_flat(&mut out)?;
            return Ok(layout_of(&out));
        }
        // Stable: modes of equal (stride, shape) keep their order (and so their weights').
        modes.sort_by_key(|&(s, d, _)| (d, s));
        if modes[0].1 > 1 {
            out.push((modes[0].1, 0));
        }
        for j in 0..modes.len() - 1 {
            let (s, d, w) = modes[j];
            let dn = modes[j + 1].1;
            if dn % d != 0 || dn / d < s {
                return Err(LayoutError::Unsupported(format!(
                    "no left inverse for {self}: strides {d} and {dn} do not nest"
                )));
            }
            out.push((dn / d, w));
        }
        let (s, _, w) = modes[modes.len() - 1];
        out.push((s, w));
        validate_flat(&mut out)?;
        Ok(layout_of(&out))
    }

    /// Logical divide `A ⊘ B = A ∘ (B, B*_{|A|})` (CuTe paper §3.5.2), a rank-2 layout (tile, rest).
    pub fn logical_divide(&self, b: &CuteLayout) -> Result<CuteLayout, LayoutError> {
        let (mut am, mut tm, mut bc, mut comp) = (Modes::new(), Modes::new(), Modes::new(), Modes::new());
        self.validate_into(&mut am)?;
        b.validate_into(&mut tm)?;
        // Coalescing B* is safe here: the tiler (B, B*) is only evaluated inside its domain.
        complement_modes(b, &tm, size_of(&am), &mut bc)?;
        coalesce_into(&bc, &mut comp);
        // The tiler's modes (B's, then B*'s), validated as `CuteLayout::new` would the tiler.
        tm.extend_from_slice(&comp);
        check_modes(&tm)?;
        let describe = || {
            let (cs, cd) = tuples_of(&comp);
            let tiler = CuteLayout {
                shape: IntTuple::Tuple(vec![b.shape.clone(), cs]),
                stride: IntTuple::Tuple(vec![b.stride.clone(), cd]),
            };
            format!("{self} ∘ {tiler}")
        };
        compose_modes(&am, Rhs::Tiler(b, &comp), &tm, &describe, &mut Modes::new())
    }

    /// Logical product `A ⊗ B = (A, A* ∘ B)` with `A* = complement(A, |A|·cosize(B))`
    /// (CuTe paper §3.5.1), a rank-2 layout (tile, grid).
    pub fn logical_product(&self, b: &CuteLayout) -> Result<CuteLayout, LayoutError> {
        let (mut am, mut bm, mut cm) = (Modes::new(), Modes::new(), Modes::new());
        self.validate_into(&mut am)?;
        b.validate_into(&mut bm)?;
        let target = ovf(size_of(&am).checked_mul(cosize_modes(&bm)?))?;
        // Not coalesced: B's image may exceed |A*|, and the extension stride of A*'s last mode
        // is what keeps the copies of A disjoint.
        complement_modes(self, &am, target, &mut cm)?;
        let describe = || format!("{} ∘ {b}", layout_of(&cm));
        let mut gm = Modes::new();
        let grid = compose_modes(&cm, Rhs::Layout(b), &bm, &describe, &mut gm)?;
        // The result's modes (A's, then the grid's), validated as `CuteLayout::new` would the
        // result.
        am.extend_from_slice(&gm);
        check_modes(&am)?;
        Ok(CuteLayout {
            shape: IntTuple::Tuple(vec![self.shape.clone(), grid.shape]),
            stride: IntTuple::Tuple(vec![self.stride.clone(), grid.stride]),
        })
    }

    /// CuTe → Axe on the memory axis ([`import`]).
    pub fn to_axe(&self) -> Result<Layout, LayoutError> {
        import(self)
    }

    /// Axe → CuTe ([`export`]).
    pub fn from_axe(l: &Layout) -> Result<CuteLayout, LayoutError> {
        export(l)
    }
}

/// Import a CuTe layout as an Axe layout on the memory axis: the leaves, flattened, in reverse
/// order (colexicographic → lexicographic), so that the Axe forward map of flat index `i` equals
/// the CuTe layout function at `i` (and a CuTe natural coordinate `(c_0, …, c_k)` is the Axe
/// coordinate `(c_k, …, c_0)`). Shape-1 leaves are dropped (an empty result is `(1) : (1)`).
///
/// `Unsupported` for a stride-0 leaf of shape > 1: Axe shard strides are non-zero (a broadcast of
/// many logical indices to one address has no Axe shard form).
pub fn import(c: &CuteLayout) -> Result<Layout, LayoutError> {
    let mut m = Modes::new();
    c.validate_into(&mut m)?;
    let mut shard = Vec::new();
    for &(s, d) in m.iter().rev() {
        if s == 1 {
            continue;
        }
        if d == 0 {
            return Err(LayoutError::Unsupported(format!(
                "CuTe layout {c} has a stride-0 mode of size {s}; Axe shard strides are non-zero"
            )));
        }
        shard.push(Iter::mem(s, d));
    }
    if shard.is_empty() {
        shard.push(Iter::mem(1, 1));
    }
    Layout::from_shard(shard)
}
/// Export an Axe layout as a flat CuTe layout (modes reversed). Only for shard-only layouts whose
/// iters are all on the memory axis, without replica or offset; otherwise `Unsupported`.
pub fn export(l: &Layout) -> Result<CuteLayout, LayoutError> {
    l.validate()?;
    if !l.replica.is_empty() {
        return Err(LayoutError::Unsupported(format!(
            "{l} has a replica; CuTe layouts have none"
        )));
    }
    if !l.offset.is_empty() {
        return Err(LayoutError::Unsupported(format!(
            "{l} has an offset; CuTe layouts have none"
        )));
    }
    if let Some(it) = l.shard.iter().find(|i| !i.axis.is_memory()) {
        return Err(LayoutError::Unsupported(format!(
            "{l} uses axis '{}'; CuTe layouts map to the memory axis only",
            it.axis
        )));
    }
    if l.shard.is_empty() {
        return CuteLayout::flat(&[1], &[0]);
    }
    let s: Vec<i64> = l.shard.iter().rev().map(|i| i.extent).collect();
    let d: Vec<i64> = l.shard.iter().rev().map(|i| i.stride).collect();
    CuteLayout::flat(&s, &d)
}

/// `⌈a / b⌉` for `a ≥ 0`, `b > 0`, without the overflow of `(a + b - 1) / b`.
fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

/// Whether composing the coalesced flat layout `a` with the right operand's leaves (`live`:
/// shape > 1, stride ≠ 0) distributes over them: `a(Σ i_k d_k) = Σ a(i_k d_k)`. `a` is linear
/// in the digits of its mixed radix (the last mode unbounded, the extended domain), so it
/// distributes when the leaves' values add without carries: for every bounded digit `j`, the
/// largest digit `j` of any value `i · d_k` (`i < s_k`), summed over the leaves, stays below the
/// mode's size. (Segregated images alone are not enough: `(3,8,8):(1,1,0) ∘ ((2,2)):((1,2))`
/// carries out of the first mode at index 3.) Leaves of more than [`DISTRIBUTE_LIMIT`] values
/// are not examined: then only a single leaf is proved.
///
/// The digits of `i · d_k` are those of a mixed-radix counter that adds the digits of `d_k` (with
/// carries) at each step, so no value is divided: only the bounded digits `j < n - 1` are kept
/// (what carries out of them is the unbounded last digit, never checked). Each digit is below
/// its mode's size (≤ `i64::MAX`), so a digit sum plus a carry fits in `u64`.
fn distributes(a: &[(i64, i64)], live: &[(i64, i64)]) -> bool {
    if live.len() <= 1 {
        return true;
    }
    if live.iter().any(|&(s, d)| d < 0 || s > DISTRIBUTE_LIMIT) {
        return false;
    }
    // Per bounded digit: the radix, the digit of the step `d_k`, the counter, the largest digit
    // of the current leaf, the total over the leaves so far.
    let n = a.len().saturating_sub(1);
    let mut inline = [[0u64; 5]; 8];
    let mut heap = Vec::new();
    let digits: &mut [[u64; 5]] = if n <= inline.len() {
        &mut inline[..n]
    } else {
        heap.resize(n, [0u64; 5]);
        &mut heap
    };
    for (g, &(s, _)) in digits.iter_mut().zip(a) {
        // Shapes of a validated layout are positive.
        g[0] = s.max(1) as u64;
    }
    for &(s, d) in live {
        // The digits of d, and the range lo..=hi of the non-zero ones.
        let mut q = d as u64;
        let (mut lo, mut hi) = (n, 0);
        for (j, g) in digits.iter_mut().enumerate() {
            (g[1], g[2], g[3]) = (0, 0, 0);
            if q != 0 {
                g[1] = q % g[0];
                q /= g[0];
                if g[1] != 0 {
                    lo = lo.min(j);
                    hi = j;
                }
            }
        }
        if lo == n {
            // Every bounded digit of every i·d is 0.
            continue;
        }
        for _ in 1..s {
            // Digits below lo stay 0; above hi, only a carry changes them.
            let mut carry = 0;
            let mut j = lo;
            while j < n && (j <= hi || carry != 0) {
                let g = &mut digits[j];
                let v = g[2] + g[1] + carry;
                (g[2], carry) = if v >= g[0] { (v - g[0], 1) } else { (v, 0) };
                g[3] = g[3].max(g[2]);
                j += 1;
            }
        }
        for g in digits.iter_mut() {
            g[4] += g[3];
            if g[4] >= g[0] {
                return false;
            }
        }
    }
    true
}

/// The most values of one leaf [`distributes`] examines.
const DISTRIBUTE_LIMIT: i64 = 1 << 12;

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::reference::RefLayout;
    use super::*;

    /// `distributes` is sufficient: whenever it holds for small operands, composing leaf by
    /// leaf agrees with `a(b(i))` at every `i` (checked here without the debug self-check).
    #[test]
    fn distributes_implies_composition_by_leaves() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as i64
        };
        let mut proved = 0;
        for _ in 0..20000 {
            let ra = 1 + next(3) as usize;
            let rb = 1 + next(3) as usize;
            let a: Vec<(i64, i64)> = (0..ra).map(|_| (1 + next(4), next(9))).collect();
            let b: Vec<(i64, i64)> = (0..rb).map(|_| (1 + next(4), next(13))).collect();
            let (Ok(a), Ok(b)) = (CuteLayout::from_modes(&a), CuteLayout::from_modes(&b)) else {
                continue;
            };
            let mut all = Modes::new();
            let mut w = Work {
                a: Modes::new(),
                scratch: Modes::new(),
                all: &mut all,
            };
            coalesce_ext(&a.modes_small(), &mut w.a);
            let Ok((shape, stride)) = w.tree(&b.shape, &b.stride) else {
                continue;
            };
            let flat = w.a;
            let r = CuteLayout { shape, stride };
            let live: Vec<(i64, i64)> = b.modes_flat().into_iter().filter(|&(s, d)| s > 1 && d != 0).collect();
            if !distributes(&flat, &live) {
                continue;
            }
            proved += 1;
            for i in 0..b.size() {
                assert_eq!(
                    r.eval(i).unwrap(),
                    a.eval(b.eval(i).unwrap()).unwrap(),
                    "{a} ∘ {b} at {i}"
                );
            }
        }
        assert!(proved > 1000, "{proved} cases proved");
    }

    /// Fuzzer findings: leaves with segregated images that still carry; a stride near i64::MAX.
    #[test]
    fn compose_findings() {
        let a = CuteLayout::parse("(3,8,8):(1,1,0)").unwrap();
        let b = CuteLayout::parse("((2,2)):((1,2))").unwrap();
        match a.compose(&b) {
            Ok(r) => (0..b.size()).for_each(|i| assert_eq!(r.eval(i).unwrap(), a.eval(b.eval(i).unwrap()).unwrap())),
            Err(e) => assert!(matches!(e, LayoutError::Unsupported(_)), "{e}"),
        }
        let a = CuteLayout::parse("(2,3,2):(4,4,4)").unwrap();
        let b = CuteLayout::parse("(1,2):(12,9223372036854775806)").unwrap();
        let _ = a.compose(&b);
    }

    /// The inline vector: pushes past the inline capacity, truncation back into it.
    #[test]
    fn small_vector_spills_and_returns() {
        let mut v: Small<i64, 4> = Small::new();
        for k in 0..10 {
            v.push(k);
            assert_eq!(&*v, &(0..=k).collect::<Vec<_>>()[..]);
        }
        v[7] = 70;
        v.truncate(8);
        assert_eq!(&*v, &[0, 1, 2, 3, 4, 5, 6, 70]);
        v.truncate(3);
        assert_eq!(&*v, &[0, 1, 2]);
        v.extend_from_slice(&[3, 4, 5]);
        assert_eq!(&*v, &[0, 1, 2, 3, 4, 5]);
        v.clear();
        assert!(v.is_empty());
        v.push(9);
        assert_eq!(&*v, &[9]);
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self, m: u64) -> i64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % m) as i64
        }
        /// A shape leaf: mostly small or a power of two, sometimes 0, negative or huge.
        fn shape(&mut self) -> i64 {
            match self.next(40) {
                0 => 0,
                1 => -2,
                2 => 1 << 40,
                3 => i64::MAX / 3,
                4..=15 => 1 << self.next(4),
                _ => 1 + self.next(6),
            }
        }
        /// A stride leaf: mostly small or a power of two, sometimes 0, negative or huge.
        fn stride(&mut self) -> i64 {
            match self.next(40) {
                0 => -1 - self.next(4),
                1 => 1 << 40,
                2 => i64::MAX - 1,
                3..=6 => 0,
                7..=22 => 1 << self.next(7),
                _ => self.next(40),
            }
        }
        /// A shape/stride pair of trees, rarely incongruent.
        fn tree(&mut self, depth: u32) -> (IntTuple, IntTuple) {
            if depth == 0 || self.next(3) == 0 {
                return (IntTuple::Int(self.shape()), IntTuple::Int(self.stride()));
            }
            let n = 1 + self.next(3) as usize;
            let (s, d): (Vec<_>, Vec<_>) = (0..n).map(|_| self.tree(depth - 1)).unzip();
            let mut d = IntTuple::Tuple(d);
            if self.next(60) == 0 {
                d = IntTuple::Int(self.stride());
            }
            (IntTuple::Tuple(s), d)
        }
        fn layout(&mut self) -> (CuteLayout, RefLayout) {
            let (shape, stride) = self.tree(2);
            let r = RefLayout {
                shape: shape.clone(),
                stride: stride.clone(),
            };
            (CuteLayout { shape, stride }, r)
        }
    }

    fn show<L: fmt::Display>(r: Result<L, LayoutError>) -> String {
        match r {
            Ok(l) => format!("Ok({l})"),
            Err(e) => format!("Err({e:?})"),
        }
    }

    /// The flat rewrite returns exactly what the tree-based implementation (`reference.rs`)
    /// returned: the same layouts (printed) and the same errors (messages included), for every
    /// operation, on random nested layouts including invalid and overflowing ones.
    #[test]
    fn same_results_as_the_reference() {
        let mut rng = Rng(0x2545f4914f6cdd1d);
        let mut ok = [0usize; 7];
        for _ in 0..40000 {
            let (a, ra) = rng.layout();
            let (b, rb) = rng.layout();
            let ctx = format!("A = {a}, B = {b}");
            assert_eq!(show(a.validate().map(|_| 0)), show(ra.validate().map(|_| 0)), "{ctx}");
            assert_eq!(a.modes_flat(), ra.modes_flat(), "{ctx}");
            assert_eq!(a.size(), ra.size(), "{ctx}");
            assert_eq!(show(a.cosize()), show(ra.cosize()), "{ctx}");
            for i in [-1, 0, 1, 5, 1000] {
                assert_eq!(show(a.eval(i)), show(ra.eval(i)), "{ctx}, i = {i}");
            }
            assert_eq!(a.coalesce().to_string(), ra.coalesce().to_string(), "{ctx}");
            let t = match rng.next(4) {
                0 => 1,
                1 => rng.next(300),
                2 => 1 << rng.next(12),
                _ => i64::MAX - rng.next(3),
            };
            let pairs = [
                (show(a.compose(&b)), show(ra.compose(&rb))),
                (show(a.complement(t)), show(ra.complement(t))),
                (show(a.right_inverse()), show(ra.right_inverse())),
                (show(a.left_inverse()), show(ra.left_inverse())),
                (show(a.logical_divide(&b)), show(ra.logical_divide(&rb))),
                (show(a.logical_product(&b)), show(ra.logical_product(&rb))),
                (show(b.compose(&a)), show(rb.compose(&ra))),
            ];
            for (k, (new, old)) in pairs.into_iter().enumerate() {
                assert_eq!(new, old, "{ctx}, operation {k}, cotarget {t}");
                ok[k] += usize::from(new.starts_with("Ok"));
            }
        }
        // Every operation succeeds often enough for the comparison to mean something.
        assert!(ok.iter().all(|&n| n > 1500), "{ok:?}");
    }

    /// `distributes` decides exactly as the division-based original, including huge strides
    /// and shapes whose products exceed i128.
    #[test]
    fn distributes_same_as_the_reference() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        let mut yes = 0;
        for _ in 0..200000 {
            let ra = 1 + rng.next(5) as usize;
            let a: Vec<(i64, i64)> = (0..ra)
                .map(|_| match rng.next(10) {
                    0 => (i64::MAX - rng.next(2), 1),
                    1 => (1 << (30 + rng.next(32)), 1),
                    _ => (1 + rng.next(8), 1),
                })
                .collect();
            let rb = rng.next(4) as usize;
            let live: Vec<(i64, i64)> = (0..rb)
                .map(|_| {
                    let s = match rng.next(20) {
                        0 => DISTRIBUTE_LIMIT + 1,
                        1 => 1 + rng.next(DISTRIBUTE_LIMIT as u64),
                        _ => 2 + rng.next(7),
                    };
                    let d = match rng.next(12) {
                        0 => -1,
                        1 => i64::MAX / (s - 1),
                        2 => 1 << (30 + rng.next(33)),
                        _ => 1 + rng.next(64),
                    };
                    (s, d)
                })
                .collect();
            let new = distributes(&a, &live);
            assert_eq!(new, reference::distributes(&a, &live), "{a:?} {live:?}");
            yes += usize::from(new && live.len() > 1);
        }
        assert!(yes > 5000, "{yes}");
    }
}
