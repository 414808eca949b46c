//! The reference semantics: every op on logical arrays, global tensors through their views'
//! layouts (`axe_layout::Layout::eval_set_flat`: a write reaches every replica address).
//! Returns the expected contents of every output buffer.

use std::collections::HashMap;

use axe_layout::{Axis, Layout};

use super::program::*;

/// Where a logical element of a tensor lives.
enum Loc {
    /// Addresses in buffer `b` (every replica).
    Mem(usize, Vec<i64>),
    /// Element `flat` of the per-CTA storage of allocated tensor `t`.
    Local(usize, usize),
    /// Past a clipped or windowed slice's end: reads as 0, never written.
    Absent,
}

pub struct Oracle<'a> {
    p: &'a Program,
    layouts: HashMap<usize, Layout>,
    bufs: Vec<Vec<f64>>,
    locals: HashMap<usize, Vec<Option<f64>>>,
    cta: i64,
}

/// The start of the oracle's error for a program whose result is undefined (a float outside
/// i32's range cast to i32): such a program is skipped, not run.
pub const UNDEFINED: &str = "undefined";

/// Whether an oracle error says the program's result is undefined (see [`UNDEFINED`]).
pub fn is_undefined(e: &str) -> bool {
    e.starts_with(UNDEFINED)
}

/// The expected outputs of a generated program, or why it has none (its result is undefined:
/// [`UNDEFINED`]). Any other failure of the oracle is a generator bug, and panics.
pub fn expected_of_generated(p: &Program) -> Result<Vec<Option<Vec<f64>>>, String> {
    match Oracle::run(p) {
        Err(e) if !is_undefined(&e) => panic!("generated programs are valid: {e}"),
        r => r,
    }
}

/// Round `v` to the element type (f16: 11 significant bits, ties to even).
pub fn round(v: f64, elt: Elt) -> f64 {
    match elt {
        Elt::F32 => v as f32 as f64,
        Elt::I32 => v.trunc(),
        Elt::F16 => {
            if v == 0.0 || !v.is_finite() {
                return v;
            }
            let e = v.abs().log2().floor() as i32;
            let q = 2f64.powi(e - 10);
            let r = (v / q).round_ties_even() * q;
            if r.abs() > 65504.0 {
                f64::INFINITY.copysign(v)
            } else {
                r
            }
        }
    }
}

fn unflatten(mut x: i64, shape: &[i64]) -> Vec<i64> {
    let mut out = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        out[d] = x % shape[d];
        x /= shape[d];
    }
    out
}

fn flatten(idx: &[i64], shape: &[i64]) -> i64 {
    idx.iter().zip(shape).fold(0, |acc, (i, s)| acc * s + i)
}

impl<'a> Oracle<'a> {
    /// The expected output buffers (`None` for inputs), or why the program is not one the
    /// oracle can judge (an uninitialized read, an unparsable layout).
    pub fn run(p: &'a Program) -> Result<Vec<Option<Vec<f64>>>, String> {
        let mut layouts = HashMap::new();
        for (i, t) in p.tensors.iter().enumerate() {
            if let (Src::Buffer(_), Some(l)) = (&t.src, &t.layout) {
                let lay = Layout::parse(&l.to_string()).map_err(|e| format!("layout {l}: {e:?}"))?;
                layouts.insert(i, lay);
            }
        }
        let bufs = p
            .buffers
            .iter()
            .enumerate()
            .map(|(b, buf)| {
                (0..buf.len)
                    .map(|i| {
                        if buf.output {
                            SENTINEL
                        } else {
                            input_value(buf.elt, b, i)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut o = Oracle {
            p,
            layouts,
            bufs,
            locals: HashMap::new(),
            cta: 0,
        };
        let runs = if p.per_cta { p.grid } else { 1 };
        for cta in 0..runs {
            o.cta = cta;
            o.locals.clear();
            for op in &p.ops {
                o.step(op)?;
            }
        }
        Ok(o.bufs
            .into_iter()
            .zip(&p.buffers)
            .map(|(v, b)| if b.output { Some(v) } else { None })
            .collect())
    }

    fn loc(&self, t: usize, idx: &[i64]) -> Result<Loc, String> {
        let tensor = &self.p.tensors[t];
        match &tensor.src {
            Src::Buffer(b) => {
                let lay = &self.layouts[&t];
                let flat = flatten(idx, &tensor.shape);
                let pts = lay.eval_set_flat(flat).map_err(|e| format!("{e:?}"))?;
                let m = Axis::memory();
                let addrs: Vec<i64> = pts.iter().map(|p| p.get(&m).copied().unwrap_or(0)).collect();
                if addrs.iter().any(|&a| a < 0 || a >= self.p.buffers[*b].len) {
                    return Err(format!("address out of buffer {b}: {addrs:?}"));
                }
                Ok(Loc::Mem(*b, addrs))
            }
            Src::Alloc => Ok(Loc::Local(t, flatten(idx, &tensor.shape) as usize)),
            Src::Slice { parent, dims, clip } => {
                let pshape = &self.p.tensors[*parent].shape;
                let mut pidx = Vec::with_capacity(idx.len());
                for (k, d) in dims.iter().enumerate() {
                    let i = match d {
                        Dim::Static(lo, _) => lo + idx[k],
                        Dim::Dyn { origin, end, .. } => {
                            let i = origin.value(self.cta) + idx[k];
                            if let Some(e) = end {
                                if i >= (*e).min(pshape[k]) {
                                    return Ok(Loc::Absent);
                                }
                            }
                            i
                        }
                    };
                    if i >= pshape[k] {
                        if *clip {
                            return Ok(Loc::Absent);
                        }
                        return Err(format!("slice of %t{t} out of its parent"));
                    }
                    pidx.push(i);
                }
                self.loc(*parent, &pidx)
            }
        }
    }

    fn read(&self, t: usize, idx: &[i64]) -> Result<f64, String> {
        match self.loc(t, idx)? {
            Loc::Absent => Ok(0.0),
            Loc::Mem(b, a) => Ok(self.bufs[b][a[0] as usize]),
            Loc::Local(r, f) => self
                .locals
                .get(&r)
                .and_then(|v| v[f])
                .ok_or_else(|| format!("read of uninitialized %t{t}")),
        }
    }

    fn write(&mut self, t: usize, idx: &[i64], v: f64) -> Result<(), String> {
        let v = round(v, self.p.tensors[t].elt);
        match self.loc(t, idx)? {
            Loc::Absent => {}
            Loc::Mem(b, addrs) => {
                for a in addrs {
                    self.bufs[b][a as usize] = v;
                }
            }
            Loc::Local(r, f) => {
                let n = self.p.tensors[r].numel() as usize;
                self.locals.entry(r).or_insert_with(|| vec![None; n])[f] = Some(v);
            }
        }
        Ok(())
    }

    fn each(&self, t: usize) -> Vec<Vec<i64>> {
        let shape = &self.p.tensors[t].shape;
        let n: i64 = shape.iter().product();
        (0..n).map(|x| unflatten(x, shape)).collect()
    }

    fn step(&mut self, op: &Op) -> Result<(), String> {
        match *op {
            Op::Barrier => {}
            Op::Copy(a, b) | Op::Convert(a, b) | Op::Cast(a, b) => {
                let vals: Vec<_> = self
                    .each(b)
                    .into_iter()
                    .map(|i| self.read(a, &i).map(|v| (i, v)))
                    .collect();
                let to_int = matches!(op, Op::Cast(..))
                    && self.p.tensors[b].elt == Elt::I32
                    && self.p.tensors[a].elt != Elt::I32;
                for r in vals {
                    let (i, v) = r?;
                    // A float outside i32's range cast to i32 is undefined (LLVM's `fptosi` gives
                    // poison; PTX saturates): the program has no expected output.
                    if to_int && !(v.is_finite() && v.trunc() >= i32::MIN as f64 && v.trunc() <= i32::MAX as f64) {
                        return Err(format!("{UNDEFINED}: {v} cast to i32"));
                    }
                    self.write(b, &i, v)?;
                }
            }
            Op::Fill(a, v) => {
                for i in self.each(a) {
                    self.write(a, &i, v)?;
                }
            }
            Op::Unary(k, a, b) => {
                let mut vals = Vec::new();
                for i in self.each(b) {
                    let x = self.read(a, &i)?;
                    let y = match k {
                        Unary::Neg => -x,
                        Unary::Abs => x.abs(),
                        Unary::Relu => x.max(0.0),
                    };
                    vals.push((i, y));
                }
                for (i, v) in vals {
                    self.write(b, &i, v)?;
                }
            }
            Op::Binary(k, a, b, c) => {
                let (sa, sb) = (self.p.tensors[a].shape.clone(), self.p.tensors[b].shape.clone());
                let bc = |i: &[i64], s: &[i64]| -> Vec<i64> {
                    i.iter().zip(s).map(|(&x, &e)| if e == 1 { 0 } else { x }).collect()
                };
                let mut vals = Vec::new();
                for i in self.each(c) {
                    let x = self.read(a, &bc(&i, &sa))?;
                    let y = self.read(b, &bc(&i, &sb))?;
                    let z = match k {
                        Binary::Add => x + y,
                        Binary::Sub => x - y,
                        Binary::Mul => x * y,
                        Binary::Max => x.max(y),
                        Binary::Min => x.min(y),
                    };
                    vals.push((i, z));
                }
                for (i, v) in vals {
                    self.write(c, &i, v)?;
                }
            }
            Op::Reduce(k, a, b, d) => {
                let sa = self.p.tensors[a].shape.clone();
                let keep = self.p.tensors[b].shape.len() == sa.len();
                let mut vals = Vec::new();
                for i in self.each(b) {
                    let mut src = i.clone();
                    if !keep {
                        src.insert(d, 0);
                    }
                    let mut acc: Option<f64> = None;
                    for j in 0..sa[d] {
                        src[d] = j;
                        let x = self.read(a, &src)?;
                        acc = Some(match (k, acc) {
                            (_, None) => x,
                            (Reduce::Sum, Some(s)) => s + x,
                            (Reduce::Max, Some(s)) => s.max(x),
                            (Reduce::Min, Some(s)) => s.min(x),
                        });
                    }
                    vals.push((i, acc.unwrap_or(0.0)));
                }
                for (i, v) in vals {
                    self.write(b, &i, v)?;
                }
            }
        }
        Ok(())
    }
}

/// Whether an actual printed value matches the expected one for the element type (f32 is
/// printed with 6 significant digits; f16 arithmetic and sum orders round differently).
pub fn close(expected: f64, actual: f64, elt: Elt) -> bool {
    if expected.is_nan() || actual.is_nan() {
        return expected.is_nan() && actual.is_nan();
    }
    if expected == actual {
        return true;
    }
    let tol = match elt {
        Elt::I32 => return false,
        Elt::F32 => 2e-5,
        Elt::F16 => 4e-3,
    };
    (expected - actual).abs() <= tol * expected.abs().max(1.0)
}
