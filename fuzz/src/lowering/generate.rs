//! Random valid kernels: a source tensor (a global view, a static sub-box, a run-time tile, a
//! clipped tile or a window) is loaded into registers (directly, through shared memory, or
//! through the two halves of a shared tensor), goes through 0–4 random steps (elementwise
//! ops, broadcasts, reductions, conversions, casts, partial updates through slices, a bounce
//! through shared memory) and is stored to an output view (or a slice of one). Kernels are
//! one of: one CTA; a grid of CTAs each working on its tile (`unit_id cta` origins); a grid
//! over which register tensors are distributed (`@cta`).

use crate::gen::Rng;

use super::program::*;

const DIMS: &[i64] = &[1, 2, 2, 3, 4, 4, 5, 6, 8, 8, 12, 16, 32];

pub struct Gen<'r> {
    rng: &'r mut Rng,
    p: Program,
    warps: i64,
    /// > 1: register layouts may be distributed over this many CTAs.
    ctas: i64,
    no_shared: bool,
}

fn next_pow2(x: i64) -> i64 {
    let mut p = 1;
    while p < x {
        p *= 2;
    }
    p
}

/// `l` (a layout of `shape` whose iters split each dimension in order) with dimension `dim`
/// broadcast: its thread iters become replicas, its register iters go; `keep` leaves an
/// extent-1 iter in its place. `None` where the iters do not split the dimensions.
pub fn project(l: &Lay, shape: &[i64], dim: usize, keep: bool) -> Option<Lay> {
    let mut out = Lay {
        shard: vec![],
        replica: l.replica.clone(),
        offset: l.offset.clone(),
    };
    let mut k = 0;
    for (d, &e) in shape.iter().enumerate() {
        let mut prod = 1;
        let mut first = true;
        while first || prod < e {
            first = false;
            let it = *l.shard.get(k)?;
            k += 1;
            prod *= it.0;
            if d == dim {
                if it.2 != "reg" && it.0 > 1 {
                    out.replica.push(it);
                }
            } else {
                out.shard.push(it);
            }
        }
        if prod != e {
            return None;
        }
        if d == dim && keep {
            out.shard.push((1, 1, "reg"));
        }
    }
    if k != l.shard.len() {
        return None;
    }
    // Compact the registers, keeping their order of strides.
    let mut regs: Vec<usize> = (0..out.shard.len()).filter(|&i| out.shard[i].2 == "reg").collect();
    regs.sort_by_key(|&i| out.shard[i].1);
    let mut run = 1;
    for i in regs {
        out.shard[i].1 = run;
        run *= out.shard[i].0;
    }
    Some(out)
}

fn span(its: &[It], axis: &str) -> i64 {
    1 + its.iter().filter(|i| i.2 == axis).map(|i| (i.0 - 1) * i.1).sum::<i64>()
}

pub fn generate(rng: &mut Rng) -> Program {
    loop {
        let mut g = Gen::new(rng);
        g.program();
        if super::oracle::Oracle::run(&g.p).is_ok() {
            return g.p;
        }
    }
}

impl<'r> Gen<'r> {
    fn new(rng: &'r mut Rng) -> Self {
        let warps = *rng.pick(&[1, 1, 1, 2, 4]);
        Gen {
            rng,
            p: Program {
                grid: 1,
                threads: 32 * warps,
                buffers: vec![],
                tensors: vec![],
                ops: vec![],
                per_cta: false,
            },
            warps,
            ctas: 1,
            no_shared: false,
        }
    }

    fn shape(&mut self, max: i64) -> Vec<i64> {
        loop {
            let rank = *self.rng.pick(&[1, 2, 2, 2, 3]);
            let s: Vec<i64> = (0..rank).map(|_| *self.rng.pick(DIMS)).collect();
            let n: i64 = s.iter().product();
            if n >= 2 && n <= max {
                return s;
            }
        }
    }

    fn add(&mut self, t: Tensor) -> usize {
        self.p.tensors.push(t);
        self.p.tensors.len() - 1
    }

    fn op(&mut self, op: Op) {
        self.p.ops.push(op);
    }

    /// A global layout for `shape`: row-, column- or randomly-ordered strides, padding, an
    /// element stride of 2, a negative stride, an offset; outputs may get a replica.
    fn global_lay(&mut self, shape: &[i64], output: bool) -> (Lay, i64) {
        let r = shape.len();
        let mut order: Vec<usize> = (0..r).rev().collect();
        match self.rng.below(10) {
            0..=4 => {}
            5..=7 => order.reverse(),
            _ => {
                for i in (1..r).rev() {
                    let j = self.rng.below(i + 1);
                    order.swap(i, j);
                }
            }
        }
        let mut running = if self.rng.one_in(8) { 2 } else { 1 };
        let mut strides = vec![0; r];
        for &d in &order {
            strides[d] = running;
            running = running * shape[d] + if self.rng.one_in(3) { self.rng.range(1, 4) } else { 0 };
        }
        if self.rng.one_in(7) {
            let d = self.rng.below(r);
            if shape[d] > 1 {
                strides[d] = -strides[d];
            }
        }
        let lo: i64 = shape.iter().zip(&strides).map(|(e, s)| ((e - 1) * s).min(0)).sum();
        let hi: i64 = shape.iter().zip(&strides).map(|(e, s)| ((e - 1) * s).max(0)).sum();
        let off = -lo + if self.rng.one_in(3) { self.rng.range(1, 5) } else { 0 };
        let mut lay = Lay {
            shard: shape.iter().zip(&strides).map(|(&e, &s)| (e, s, "")).collect(),
            replica: vec![],
            offset: vec![(off, "")],
        };
        let mut len = off + hi + 1;
        if output && self.rng.one_in(5) {
            let rs = len + self.rng.range(0, 2);
            lay.replica.push((2, rs, ""));
            len += rs;
        }
        (lay, len)
    }

    fn view(&mut self, shape: &[i64], elt: Elt, output: bool) -> usize {
        let (lay, len) = self.global_lay(shape, output);
        self.p.buffers.push(Buffer { len, elt, output });
        let b = self.p.buffers.len() - 1;
        self.add(Tensor {
            src: Src::Buffer(b),
            shape: shape.to_vec(),
            space: Space::Global,
            elt,
            layout: Some(lay),
            swizzle: None,
        })
    }

    /// A register layout: each dimension split into one or two iters, each on `reg`, `lane`,
    /// `warp` or `cta`, with compact or gapped strides per axis; lane/warp replicas (a row
    /// broadcast to all lanes among them) and lane/warp offsets.
    pub fn reg_lay(&mut self, shape: &[i64]) -> Lay {
        let mut factors = Vec::new();
        for &d in shape {
            let divs: Vec<i64> = (2..d).filter(|k| d % k == 0).collect();
            if !divs.is_empty() && self.rng.one_in(3) {
                let a = *self.rng.pick(&divs);
                factors.push(a);
                factors.push(d / a);
            } else {
                factors.push(d);
            }
        }
        let caps = [("lane", 32), ("warp", self.warps), ("cta", self.ctas)];
        let mut used = [1i64; 3];
        let mut axes = Vec::new();
        for &e in &factors {
            let mut ax = "reg";
            if e > 1 {
                let mut cands = vec![("reg", 3)];
                for (k, &(name, cap)) in caps.iter().enumerate() {
                    if used[k] * e <= cap {
                        cands.push((name, [4, 2, 3][k]));
                    }
                }
                let total: usize = cands.iter().map(|c| c.1).sum();
                let mut pick = self.rng.below(total);
                for c in &cands {
                    if pick < c.1 {
                        ax = c.0;
                        break;
                    }
                    pick -= c.1;
                }
                if let Some(k) = caps.iter().position(|c| c.0 == ax) {
                    used[k] *= e;
                }
            }
            axes.push(ax);
        }
        let mut shard: Vec<It> = factors.iter().zip(&axes).map(|(&e, &a)| (e, 1, a)).collect();
        for (ax, cap) in [
            ("reg", i64::MAX),
            ("lane", 32),
            ("warp", self.warps),
            ("cta", self.ctas),
        ] {
            let mut idx: Vec<usize> = (0..shard.len())
                .filter(|&k| shard[k].2 == ax && shard[k].0 > 1)
                .collect();
            for i in (1..idx.len()).rev() {
                let j = self.rng.below(i + 1);
                idx.swap(i, j);
            }
            for gaps in [true, false] {
                let mut running = 1;
                for &k in &idx {
                    if gaps && running > 1 && self.rng.one_in(if ax == "reg" { 10 } else { 4 }) {
                        running = if next_pow2(running) != running {
                            next_pow2(running)
                        } else {
                            running * 2
                        };
                    }
                    shard[k].1 = running;
                    running *= shard[k].0;
                }
                if span(&shard, ax) <= cap {
                    break;
                }
            }
        }
        let mut lay = Lay {
            shard,
            replica: vec![],
            offset: vec![],
        };
        // Replicas on lanes / warps beyond the shard's span.
        let sl = span(&lay.shard, "lane");
        if sl == 1 && self.rng.one_in(3) {
            lay.replica.push((32, 1, "lane"));
        } else if self.rng.one_in(4) {
            let p = if self.rng.one_in(2) { sl } else { next_pow2(sl) };
            if p * 2 <= 32 {
                let k = self.rng.range(2, 32 / p);
                lay.replica.push((k, p, "lane"));
            }
        }
        let sw = span(&lay.shard, "warp");
        if self.warps >= 2 && sw * 2 <= self.warps && self.rng.one_in(6) {
            lay.replica.push((self.warps / sw, sw, "warp"));
        }
        for (ax, cap, n) in [("lane", 32, 8), ("warp", self.warps, 6)] {
            let total = span(&lay.shard, ax)
                + lay
                    .replica
                    .iter()
                    .filter(|i| i.2 == ax)
                    .map(|i| (i.0 - 1) * i.1)
                    .sum::<i64>();
            if total < cap && self.rng.one_in(n) {
                let o = self.rng.range(1, cap - total);
                lay.offset.push((o, ax));
            }
        }
        lay
    }

    fn shared_lay(&mut self, shape: &[i64], elt: Elt) -> (Option<Lay>, Option<(u32, u32, u32)>) {
        if self.rng.one_in(4) {
            return (None, None);
        }
        let r = shape.len();
        let mut order: Vec<usize> = (0..r).rev().collect();
        if self.rng.one_in(3) {
            order.reverse();
        }
        let mut running = 1;
        let mut strides = vec![0; r];
        for &d in &order {
            strides[d] = running;
            running = running * shape[d] + if self.rng.one_in(5) { self.rng.range(1, 4) } else { 0 };
        }
        let lay = Lay {
            shard: shape.iter().zip(&strides).map(|(&e, &s)| (e, s, "")).collect(),
            ..Lay::default()
        };
        let n: i64 = shape.iter().product();
        let mut swz = None;
        if running == n && (n as u64).is_power_of_two() && n >= 8 && self.rng.one_in(3) {
            let l = n.trailing_zeros();
            let b = self.rng.range(1, 3) as u32;
            let s = b + self.rng.range(0, 1) as u32;
            if b + s <= l {
                let m = self.rng.range(0, (l - b - s) as i64) as u32;
                swz = Some((b, m, s));
            }
        }
        let _ = elt;
        (Some(lay), swz)
    }

    fn alloc(&mut self, space: Space, shape: &[i64], elt: Elt) -> usize {
        let (layout, swizzle) = match space {
            Space::Register => {
                if self.rng.one_in(5) {
                    (None, None)
                } else {
                    (Some(self.reg_lay(shape)), None)
                }
            }
            Space::Shared => self.shared_lay(shape, elt),
            Space::Global => unreachable!(),
        };
        self.add(Tensor {
            src: Src::Alloc,
            shape: shape.to_vec(),
            space,
            elt,
            layout,
            swizzle,
        })
    }

    /// A static sub-box of `shape` at a random place in a larger global view (up to 2 more
    /// elements per dimension), an input or an output.
    fn sub_box(&mut self, shape: &[i64], elt: Elt, output: bool) -> usize {
        let big: Vec<i64> = shape.iter().map(|&e| e + self.rng.range(0, 3)).collect();
        let x = self.view(&big, elt, output);
        let dims = big
            .iter()
            .zip(shape)
            .map(|(&b, &e)| {
                let lo = self.rng.range(0, b - e);
                Dim::Static(lo, lo + e)
            })
            .collect();
        self.slice(x, dims, false)
    }

    fn slice(&mut self, parent: usize, dims: Vec<Dim>, clip: bool) -> usize {
        let p = &self.p.tensors[parent];
        let shape = dims
            .iter()
            .map(|d| match d {
                Dim::Static(lo, hi) => hi - lo,
                Dim::Dyn { size, .. } => *size,
            })
            .collect();
        let t = Tensor {
            src: Src::Slice { parent, dims, clip },
            shape,
            layout: None,
            ..p.clone()
        };
        self.add(t)
    }

    /// A random sub-box of `shape` (origin 0 often, on the first dimension especially).
    fn region(&mut self, shape: &[i64]) -> Vec<Dim> {
        shape
            .iter()
            .enumerate()
            .map(|(k, &e)| {
                if e == 1 || self.rng.one_in(3) {
                    return Dim::Static(0, e);
                }
                let lo = if self.rng.one_in(if k == 0 { 2 } else { 3 }) {
                    0
                } else {
                    self.rng.range(0, e - 1)
                };
                let hi = self.rng.range(lo + 1, e);
                Dim::Static(lo, hi)
            })
            .collect()
    }

    /// Each CTA's tile of a global view (`output`: written) whose first dimension is `grid`
    /// tiles of `shape[0]` rows, the last one sometimes partial (a `{clip}` slice at the
    /// CTA's run-time origin).
    fn cta_tile(&mut self, shape: &[i64], elt: Elt, output: bool) -> usize {
        let s0 = shape[0];
        let r = if s0 >= 2 && self.rng.one_in(3) {
            self.rng.range(1, s0 - 1)
        } else {
            0
        };
        let mut whole = shape.to_vec();
        whole[0] = self.p.grid * s0 - r;
        let view = self.view(&whole, elt, output);
        let mut dims = Self::full(shape);
        dims[0] = Dim::Dyn {
            origin: Origin::Cta(s0),
            size: s0,
            end: None,
        };
        self.slice(view, dims, r > 0)
    }

    fn full(shape: &[i64]) -> Vec<Dim> {
        shape.iter().map(|&e| Dim::Static(0, e)).collect()
    }

    fn program(&mut self) {
        let mut elt = match self.rng.below(10) {
            0..=5 => Elt::F32,
            6 | 7 => Elt::F16,
            _ => Elt::I32,
        };
        let mode = self.rng.below(10);
        let tiled = mode < 2;
        if tiled {
            self.p.grid = self.rng.range(2, 4);
            self.p.per_cta = true;
        } else if mode < 4 {
            self.p.grid = self.rng.range(2, 4);
            self.ctas = self.p.grid;
            self.no_shared = true;
        }
        let shape = self.shape(256);
        // The source tensor.
        let src = if tiled {
            self.cta_tile(&shape, elt, false)
        } else {
            match self.rng.below(10) {
                0..=4 => self.view(&shape, elt, false),
                5 | 6 => self.sub_box(&shape, elt, false),
                7 => {
                    let m = self.rng.range(2, 4);
                    let mut xs = shape.clone();
                    xs[0] *= m;
                    let x = self.view(&xs, elt, false);
                    let mut dims = Self::full(&shape);
                    dims[0] = Dim::Dyn {
                        origin: Origin::Const(shape[0] * self.rng.range(0, m - 1)),
                        size: shape[0],
                        end: None,
                    };
                    self.slice(x, dims, false)
                }
                8 => {
                    // The last, partial tile of a clipped slice.
                    let s0 = shape[0];
                    let mut xs = shape.clone();
                    xs[0] = s0 * self.rng.range(1, 3) + if s0 > 1 { self.rng.range(1, s0 - 1) } else { 0 };
                    let x = self.view(&xs, elt, false);
                    let mut dims = Self::full(&shape);
                    dims[0] = Dim::Dyn {
                        origin: Origin::Const((xs[0] / s0) * s0),
                        size: s0,
                        end: None,
                    };
                    let clip = xs[0] % s0 != 0;
                    if !clip {
                        dims[0] = Dim::Dyn {
                            origin: Origin::Const(0),
                            size: s0,
                            end: None,
                        };
                    }
                    self.slice(x, dims, clip)
                }
                _ => {
                    let mut xs = shape.clone();
                    xs[0] += self.rng.range(0, 4);
                    let x = self.view(&xs, elt, false);
                    let o = self.rng.range(0, xs[0] - shape[0]);
                    let end = self.rng.range(o, xs[0] + 1);
                    let mut dims = Self::full(&shape);
                    dims[0] = Dim::Dyn {
                        origin: Origin::Const(o),
                        size: shape[0],
                        end: Some(end),
                    };
                    self.slice(x, dims, false)
                }
            }
        };
        // Load.
        let mut cur;
        let mut in_shared = false;
        let half_dim = shape.iter().position(|&e| e % 2 == 0);
        let r = self.rng.below(10);
        if self.no_shared || r < 6 {
            cur = self.alloc(Space::Register, &shape, elt);
            self.op(Op::Copy(src, cur));
        } else if r < 9 || half_dim.is_none() {
            let sh = self.alloc(Space::Shared, &shape, elt);
            self.op(Op::Copy(src, sh));
            self.op(Op::Barrier);
            if self.rng.one_in(4) {
                cur = sh;
                in_shared = true;
            } else {
                cur = self.alloc(Space::Register, &shape, elt);
                self.op(Op::Copy(sh, cur));
            }
        } else {
            // A shared tensor written through its two halves (slices of a maybe-`?` tensor).
            let d = half_dim.unwrap();
            let sh = self.alloc(Space::Shared, &shape, elt);
            if self.rng.one_in(2) {
                self.p.tensors[sh].layout = None;
                self.p.tensors[sh].swizzle = None;
            }
            for h in 0..2 {
                let mut dims = Self::full(&shape);
                dims[d] = Dim::Static(h * shape[d] / 2, (h + 1) * shape[d] / 2);
                let a = self.slice(src, dims.clone(), false);
                let b = self.slice(sh, dims, false);
                self.op(Op::Copy(a, b));
            }
            self.op(Op::Barrier);
            cur = self.alloc(Space::Register, &shape, elt);
            self.op(Op::Copy(sh, cur));
        }
        // Steps.
        let steps = if in_shared { 0 } else { self.rng.range(0, 4) };
        for _ in 0..steps {
            let (c, e) = self.step(cur, elt);
            cur = c;
            elt = e;
        }
        // Store.
        let shape = self.p.tensors[cur].shape.clone();
        let mut val = cur;
        if !in_shared && !self.no_shared && self.rng.one_in(6) {
            let sh = self.alloc(Space::Shared, &shape, elt);
            self.op(Op::Copy(cur, sh));
            self.op(Op::Barrier);
            val = sh;
        }
        if tiled {
            let dst = self.cta_tile(&shape, elt, true);
            self.op(Op::Copy(val, dst));
            return;
        }
        match self.rng.below(10) {
            0..=5 => {
                let y = self.view(&shape, elt, true);
                self.op(Op::Copy(val, y));
            }
            6 => {
                // A slice of the value to a whole output.
                let reg = self.region(&shape);
                let sv = self.slice(val, reg.clone(), false);
                let rs = self.p.tensors[sv].shape.clone();
                let y = self.view(&rs, elt, true);
                self.op(Op::Copy(sv, y));
            }
            7 | 8 => {
                // The value into a static sub-box of a larger output.
                let dst = self.sub_box(&shape, elt, true);
                self.op(Op::Copy(val, dst));
            }
            _ => {
                // A window: only the elements before `end` are written.
                let mut ys = shape.clone();
                ys[0] += self.rng.range(0, 4);
                let y = self.view(&ys, elt, true);
                let o = self.rng.range(0, ys[0] - shape[0]);
                let end = self.rng.range(o, ys[0] + 1);
                let mut dims = Self::full(&shape);
                dims[0] = Dim::Dyn {
                    origin: Origin::Const(o),
                    size: shape[0],
                    end: Some(end),
                };
                let dst = self.slice(y, dims, false);
                self.op(Op::Copy(val, dst));
            }
        }
    }

    /// A new register destination like `cur` (same shape), or `cur` itself (in place).
    fn dest(&mut self, cur: usize, shape: &[i64], elt: Elt) -> usize {
        if self.rng.one_in(2) {
            cur
        } else {
            self.alloc_like(cur, shape, elt)
        }
    }

    /// A register tensor whose layout is often `like`'s (elementwise ops then stay in each
    /// thread), or `like`'s with its registers reordered (a thread-local conversion), or any.
    fn alloc_like(&mut self, like: usize, shape: &[i64], elt: Elt) -> usize {
        let t = self.alloc(Space::Register, shape, elt);
        let l = self.p.tensors[like].layout.clone();
        if self.p.tensors[like].shape != shape || self.p.tensors[like].space != Space::Register {
            return t;
        }
        match (self.rng.below(10), l) {
            (0..=2, Some(l)) => self.p.tensors[t].layout = Some(l),
            (3..=5, Some(mut l)) => {
                let mut idx: Vec<usize> = (0..l.shard.len()).filter(|&k| l.shard[k].2 == "reg").collect();
                for i in (1..idx.len()).rev() {
                    let j = self.rng.below(i + 1);
                    idx.swap(i, j);
                }
                let mut run = 1;
                for k in idx {
                    l.shard[k].1 = run;
                    run *= l.shard[k].0;
                }
                self.p.tensors[t].layout = Some(l);
            }
            _ => {}
        }
        t
    }

    /// One random step on register tensor `cur`; returns the new current tensor and type.
    fn step(&mut self, cur: usize, elt: Elt) -> (usize, Elt) {
        let shape = self.p.tensors[cur].shape.clone();
        let rank = shape.len();
        match self.rng.below(11) {
            0 => {
                let k = *self.rng.pick(&[Unary::Neg, Unary::Abs, Unary::Relu]);
                let d = self.dest(cur, &shape, elt);
                self.op(Op::Unary(k, cur, d));
                (d, elt)
            }
            1 | 2 => {
                let d = self.alloc_like(cur, &shape, elt);
                if self.p.tensors[d].layout.is_none() || self.rng.one_in(3) {
                    self.op(Op::Copy(cur, d));
                } else {
                    self.op(Op::Convert(cur, d));
                }
                (d, elt)
            }
            3 | 4 => {
                // A loaded operand, broadcast along one dimension or not.
                let mut bs = shape.clone();
                if self.rng.one_in(3) {
                    // keep full shape
                } else {
                    let k = self.rng.below(rank);
                    bs[k] = 1;
                }
                let bv = self.view(&bs, elt, false);
                let b = self.alloc_like(cur, &bs, elt);
                let bdim = bs.iter().zip(&shape).position(|(a, b)| a != b);
                if let (Some(d), Some(l), false) = (bdim, self.p.tensors[cur].layout.clone(), self.rng.one_in(4)) {
                    self.p.tensors[b].layout = project(&l, &shape, d, true);
                } else if self.rng.one_in(3) {
                    // A row/column replicated over every lane.
                    let n: i64 = bs.iter().product();
                    self.p.tensors[b].layout = Some(Lay {
                        shard: bs.iter().map(|&e| (e, 1, "reg")).collect::<Vec<_>>(),
                        replica: vec![(32, 1, "lane")],
                        offset: vec![],
                    });
                    let mut run = 1;
                    if let Some(l) = self.p.tensors[b].layout.as_mut() {
                        for it in l.shard.iter_mut().rev() {
                            it.1 = run;
                            run *= it.0;
                        }
                    }
                    let _ = n;
                }
                self.op(Op::Copy(bv, b));
                let k = *self
                    .rng
                    .pick(&[Binary::Add, Binary::Sub, Binary::Mul, Binary::Max, Binary::Min]);
                let d = self.dest(cur, &shape, elt);
                if self.rng.one_in(4) && bs == shape {
                    self.op(Op::Binary(k, b, cur, d));
                } else {
                    self.op(Op::Binary(k, cur, b, d));
                }
                (d, elt)
            }
            5 => {
                // x - reduce(x) broadcast back (the softmax pattern).
                let dim = self.rng.below(rank);
                let mut ms = shape.clone();
                ms[dim] = 1;
                let m = self.alloc(Space::Register, &ms, elt);
                match (self.rng.below(3), self.p.tensors[cur].layout.clone()) {
                    (0, _) => self.p.tensors[m].layout = None,
                    (1, Some(l)) => self.p.tensors[m].layout = project(&l, &shape, dim, true),
                    _ => {}
                }
                let k = *self.rng.pick(&[Reduce::Max, Reduce::Sum, Reduce::Min]);
                self.op(Op::Reduce(k, cur, m, dim));
                let d = self.dest(cur, &shape, elt);
                self.op(Op::Binary(Binary::Sub, cur, m, d));
                (d, elt)
            }
            6 | 7 => {
                // A partial update through a static slice.
                let reg = self.region(&shape);
                let sl = self.slice(cur, reg, false);
                let rs = self.p.tensors[sl].shape.clone();
                match self.rng.below(3) {
                    0 => {
                        let v = 3.0;
                        self.op(Op::Fill(sl, v));
                    }
                    1 => {
                        let x = self.view(&rs, elt, false);
                        self.op(Op::Copy(x, sl));
                    }
                    _ => self.op(Op::Unary(Unary::Neg, sl, sl)),
                }
                (cur, elt)
            }
            8 => {
                let dim = self.rng.below(rank);
                let mut ds = shape.clone();
                if rank > 1 && self.rng.one_in(2) {
                    ds.remove(dim);
                } else {
                    ds[dim] = 1;
                }
                let d = self.alloc(Space::Register, &ds, elt);
                match (self.rng.below(3), self.p.tensors[cur].layout.clone()) {
                    (0, _) => self.p.tensors[d].layout = None,
                    (1, Some(l)) => self.p.tensors[d].layout = project(&l, &shape, dim, ds.len() == rank),
                    _ => {}
                }
                let k = *self.rng.pick(&[Reduce::Sum, Reduce::Max, Reduce::Min]);
                self.op(Op::Reduce(k, cur, d, dim));
                (d, elt)
            }
            9 => {
                if self.no_shared {
                    let d = self.alloc(Space::Register, &shape, elt);
                    self.op(Op::Copy(cur, d));
                    return (d, elt);
                }
                let sh = self.alloc(Space::Shared, &shape, elt);
                self.op(Op::Copy(cur, sh));
                self.op(Op::Barrier);
                let d = self.alloc(Space::Register, &shape, elt);
                self.op(Op::Copy(sh, d));
                (d, elt)
            }
            _ => {
                if self.rng.one_in(2) {
                    // Read a slice of the registers into a new tensor.
                    let reg = self.region(&shape);
                    let sl = self.slice(cur, reg, false);
                    let rs = self.p.tensors[sl].shape.clone();
                    let d = self.alloc(Space::Register, &rs, elt);
                    self.op(Op::Copy(sl, d));
                    (d, elt)
                } else {
                    let e2 = *self.rng.pick(&[Elt::F32, Elt::F16, Elt::I32]);
                    if e2 == elt {
                        return (cur, elt);
                    }
                    let d = self.alloc_like(cur, &shape, e2);
                    self.op(Op::Cast(cur, d));
                    (d, e2)
                }
            }
        }
    }
}
