//! The kernels of the `lowering` target: a small program model (buffers, tensors, ops) that
//! prints as a self-contained `.mlir` file (the kernel `@k` plus a `@main` harness that fills
//! the inputs, sets the outputs to a sentinel, calls `@k` and prints every output).

use std::fmt::Write;

/// Element types of the generated tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elt {
    F32,
    F16,
    I32,
}

impl Elt {
    pub fn mlir(self) -> &'static str {
        match self {
            Elt::F32 => "f32",
            Elt::F16 => "f16",
            Elt::I32 => "i32",
        }
    }
    pub fn is_float(self) -> bool {
        self != Elt::I32
    }
}

/// The output sentinel: elements no copy writes keep it.
pub const SENTINEL: f64 = -7.0;

/// The value `@main` stores at element `i` of input buffer `b` (exact in every element type).
pub fn input_value(elt: Elt, b: usize, i: i64) -> f64 {
    match elt {
        Elt::F32 => (b as i64 * 5000 + i) as f64 + 0.5,
        Elt::F16 => ((b as i64 * 300 + i) % 1000) as f64 + 0.5,
        Elt::I32 => (b as i64 * 5000 + i) as f64 - 20.0,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
    Register,
}

impl Space {
    pub fn mlir(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Register => "register",
        }
    }
}

/// An iter `extent : stride@axis`; axis `""` is the memory axis.
pub type It = (i64, i64, &'static str);

/// A layout, kept structured so that the minimiser can simplify it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Lay {
    pub shard: Vec<It>,
    pub replica: Vec<It>,
    pub offset: Vec<(i64, &'static str)>,
}

fn iters_text(its: &[It]) -> String {
    let e: Vec<String> = its.iter().map(|i| i.0.to_string()).collect();
    let s: Vec<String> = its
        .iter()
        .map(|i| {
            if i.2.is_empty() {
                i.1.to_string()
            } else {
                format!("{}@{}", i.1, i.2)
            }
        })
        .collect();
    format!("({}) : ({})", e.join(", "), s.join(", "))
}

impl std::fmt::Display for Lay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&iters_text(&self.shard))?;
        if !self.replica.is_empty() {
            write!(f, " + [{}]", iters_text(&self.replica))?;
        }
        for &(o, a) in &self.offset {
            if o != 0 {
                if a.is_empty() {
                    write!(f, " + {o}")?;
                } else {
                    write!(f, " + {o}@{a}")?;
                }
            }
        }
        Ok(())
    }
}

/// A run-time slice origin: a constant, or `unit_id cta * size` (a CTA's tile).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Const(i64),
    Cta(i64),
}

impl Origin {
    pub fn value(&self, cta: i64) -> i64 {
        match *self {
            Origin::Const(k) => k,
            Origin::Cta(size) => cta * size,
        }
    }
}

/// One dimension of a slice: static `lo : hi`, or run-time `%o : +size (until %end)?`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    Static(i64, i64),
    Dyn {
        origin: Origin,
        size: i64,
        end: Option<i64>,
    },
}

#[derive(Clone, Debug)]
pub enum Src {
    /// A view of kernel argument `b`.
    Buffer(usize),
    Alloc,
    Slice {
        parent: usize,
        dims: Vec<Dim>,
        clip: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Tensor {
    pub src: Src,
    pub shape: Vec<i64>,
    pub space: Space,
    pub elt: Elt,
    /// `None` prints `?`.
    pub layout: Option<Lay>,
    pub swizzle: Option<(u32, u32, u32)>,
}

impl Tensor {
    pub fn ty(&self) -> String {
        let mut s = String::from("!axe.tensor<");
        for d in &self.shape {
            write!(s, "{d}x").unwrap();
        }
        write!(s, "{}, {}, ", self.elt.mlir(), self.space.mlir()).unwrap();
        match &self.layout {
            Some(l) => write!(s, "#axe.layout<{l}>").unwrap(),
            None => s.push('?'),
        }
        if let Some((b, m, sh)) = self.swizzle {
            write!(s, ", #axe.swizzle<{b}, {m}, {sh}>").unwrap();
        }
        s.push('>');
        s
    }
    pub fn numel(&self) -> i64 {
        self.shape.iter().product()
    }
}

#[derive(Clone, Debug)]
pub struct Buffer {
    pub len: i64,
    pub elt: Elt,
    pub output: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    Neg,
    Abs,
    Relu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Max,
    Min,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Max,
    Min,
}

#[derive(Clone, Debug)]
pub enum Op {
    Copy(usize, usize),
    Convert(usize, usize),
    Fill(usize, f64),
    Unary(Unary, usize, usize),
    Binary(Binary, usize, usize, usize),
    /// `reduce kind src, dst dims [d]`.
    Reduce(Reduce, usize, usize, usize),
    Cast(usize, usize),
    Barrier,
}

impl Op {
    pub fn tensors(&self) -> Vec<usize> {
        match *self {
            Op::Copy(a, b) | Op::Convert(a, b) | Op::Unary(_, a, b) | Op::Reduce(_, a, b, _) | Op::Cast(a, b) => {
                vec![a, b]
            }
            Op::Fill(a, _) => vec![a],
            Op::Binary(_, a, b, c) => vec![a, b, c],
            Op::Barrier => vec![],
        }
    }
}

#[derive(Clone, Debug)]
pub struct Program {
    pub grid: i64,
    pub threads: i64,
    pub buffers: Vec<Buffer>,
    pub tensors: Vec<Tensor>,
    /// Ops in order; tensors are defined (allocated, viewed, sliced) before their first use.
    pub ops: Vec<Op>,
    /// Oracle runs: the program once per CTA with per-CTA tensors reset (`true`: CTA-tiled
    /// kernels, whose slices move with `unit_id cta`), or once for the whole grid.
    pub per_cta: bool,
}

impl Program {
    /// Tensors used by some op, and the parents of those (transitively).
    pub fn used(&self) -> Vec<bool> {
        let mut used = vec![false; self.tensors.len()];
        for op in &self.ops {
            for t in op.tensors() {
                used[t] = true;
            }
        }
        for t in (0..self.tensors.len()).rev() {
            if used[t] {
                if let Src::Slice { parent, .. } = self.tensors[t].src {
                    used[parent] = true;
                }
            }
        }
        used
    }

    pub fn uses_cta_id(&self) -> bool {
        self.tensors.iter().any(|t| match &t.src {
            Src::Slice { dims, .. } => dims.iter().any(|d| {
                matches!(
                    d,
                    Dim::Dyn {
                        origin: Origin::Cta(_),
                        ..
                    }
                )
            }),
            _ => false,
        })
    }

    /// The whole `.mlir` file: kernel `@k` and harness `@main`.
    pub fn to_mlir(&self, header: &str) -> String {
        let mut s = self.module_head(header);
        s.push_str(&self.kernel_function());
        s.push_str("  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}\n");
        s.push_str("  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}\n");
        s.push_str(&self.main());
        s.push_str("}\n");
        s
    }

    /// The module with kernel `@k` alone (what the GPU mode lowers and launches).
    pub fn to_mlir_kernel(&self, header: &str) -> String {
        let mut s = self.module_head(header);
        s.push_str(&self.kernel_function());
        s.push_str("}\n");
        s
    }

    /// The header comment lines and the module's first line.
    fn module_head(&self, header: &str) -> String {
        let mut s = String::new();
        for l in header.lines() {
            writeln!(s, "// {l}").unwrap();
        }
        s.push_str("module attributes {axe.target = #axe.target<\"sm_90\">} {\n");
        s
    }

    /// `func.func @k(...)`: the buffers viewed as tensors, and the kernel.
    fn kernel_function(&self) -> String {
        let used = self.used();
        let mut s = String::new();
        let args: Vec<String> = self
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| format!("%b{i}: memref<{}x{}>", b.len, b.elt.mlir()))
            .collect();
        writeln!(s, "  func.func @k({}) {{", args.join(", ")).unwrap();
        for (i, t) in self.tensors.iter().enumerate() {
            if let (Src::Buffer(b), true) = (&t.src, used[i]) {
                let buf = &self.buffers[*b];
                writeln!(
                    s,
                    "    %t{i} = axe.view %b{b} : memref<{}x{}> to {}",
                    buf.len,
                    buf.elt.mlir(),
                    t.ty()
                )
                .unwrap();
            }
        }
        writeln!(s, "    axe.kernel grid [{}] threads [{}] {{", self.grid, self.threads).unwrap();
        if self.uses_cta_id() {
            s.push_str("      %cta = axe.unit_id cta\n");
        }
        // Define each tensor right before the first op that uses it (parents first).
        let mut defined: Vec<bool> = self.tensors.iter().map(|t| matches!(t.src, Src::Buffer(_))).collect();
        let mut consts = 0;
        for op in &self.ops {
            for t in op.tensors() {
                self.define(t, &mut defined, &mut s, &mut consts);
            }
            let ty = |t: usize| self.tensors[t].ty();
            let line = match op {
                Op::Copy(a, b) => format!("axe.copy %t{a}, %t{b} : {}, {}", ty(*a), ty(*b)),
                Op::Convert(a, b) => format!("axe.convert_layout %t{a}, %t{b} : {}, {}", ty(*a), ty(*b)),
                Op::Fill(a, v) => {
                    let elt = self.tensors[*a].elt;
                    let lit = if elt.is_float() {
                        format!("{v:?}")
                    } else {
                        format!("{}", *v as i64)
                    };
                    writeln!(s, "      %k{consts} = arith.constant {lit} : {}", elt.mlir()).unwrap();
                    consts += 1;
                    format!("axe.fill %t{a}, %k{} : {}, {}", consts - 1, ty(*a), elt.mlir())
                }
                Op::Unary(k, a, b) => format!(
                    "axe.unary {} %t{a}, %t{b} : {}, {}",
                    format!("{k:?}").to_lowercase(),
                    ty(*a),
                    ty(*b)
                ),
                Op::Binary(k, a, b, c) => format!(
                    "axe.binary {} %t{a}, %t{b}, %t{c} : {}, {}, {}",
                    format!("{k:?}").to_lowercase(),
                    ty(*a),
                    ty(*b),
                    ty(*c)
                ),
                Op::Reduce(k, a, b, d) => format!(
                    "axe.reduce {} %t{a}, %t{b} dims [{d}] : {}, {}",
                    format!("{k:?}").to_lowercase(),
                    ty(*a),
                    ty(*b)
                ),
                Op::Cast(a, b) => format!("axe.cast %t{a}, %t{b} : {}, {}", ty(*a), ty(*b)),
                Op::Barrier => "axe.barrier cta".to_string(),
            };
            writeln!(s, "      {line}").unwrap();
        }
        s.push_str("    }\n    return\n  }\n");
        s
    }

    fn define(&self, t: usize, defined: &mut [bool], s: &mut String, consts: &mut usize) {
        if defined[t] {
            return;
        }
        let tensor = &self.tensors[t];
        match &tensor.src {
            Src::Buffer(_) => {}
            Src::Alloc => writeln!(s, "      %t{t} = axe.alloc : {}", tensor.ty()).unwrap(),
            Src::Slice { parent, dims, clip } => {
                self.define(*parent, defined, s, consts);
                let mut bounds = Vec::new();
                for (k, d) in dims.iter().enumerate() {
                    match d {
                        Dim::Static(lo, hi) => bounds.push(format!("{lo} : {hi}")),
                        Dim::Dyn { origin, size, end } => {
                            let o = format!("%o{t}_{k}");
                            match origin {
                                Origin::Const(v) => writeln!(s, "      {o} = arith.constant {v} : index").unwrap(),
                                Origin::Cta(size) => {
                                    writeln!(s, "      {o}s = arith.constant {size} : index").unwrap();
                                    writeln!(s, "      {o} = arith.muli %cta, {o}s : index").unwrap();
                                }
                            }
                            match end {
                                Some(e) => {
                                    writeln!(s, "      %e{t}_{k} = arith.constant {e} : index").unwrap();
                                    bounds.push(format!("{o} : +{size} until %e{t}_{k}"));
                                }
                                None => bounds.push(format!("{o} : +{size}")),
                            }
                        }
                    }
                }
                writeln!(
                    s,
                    "      %t{t} = axe.slice %t{parent} [{}]{} : {} to {}",
                    bounds.join(", "),
                    if *clip { " {clip}" } else { "" },
                    self.tensors[*parent].ty(),
                    tensor.ty()
                )
                .unwrap();
            }
        }
        let _ = consts;
        defined[t] = true;
    }

    /// `@main`: inputs get `input_value`, outputs the sentinel; outputs are printed in order
    /// (f16 ones through an f32 copy).
    fn main(&self) -> String {
        let mut s = String::from("  func.func @main() {\n");
        s.push_str("    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n");
        let mut args = Vec::new();
        for (i, b) in self.buffers.iter().enumerate() {
            let ty = format!("memref<{}x{}>", b.len, b.elt.mlir());
            writeln!(s, "    %m{i} = memref.alloc() {{alignment = 64 : i64}} : {ty}").unwrap();
            writeln!(s, "    %n{i} = arith.constant {} : index", b.len).unwrap();
            writeln!(s, "    scf.for %i{i} = %c0 to %n{i} step %c1 {{").unwrap();
            writeln!(s, "      %ii{i} = arith.index_cast %i{i} : index to i32").unwrap();
            if b.output {
                match b.elt {
                    Elt::I32 => writeln!(s, "      %v{i} = arith.constant -7 : i32").unwrap(),
                    e => writeln!(s, "      %v{i} = arith.constant -7.0 : {}", e.mlir()).unwrap(),
                }
            } else {
                match b.elt {
                    Elt::F32 => {
                        writeln!(s, "      %a{i} = arith.constant {} : i32", i * 5000).unwrap();
                        writeln!(s, "      %j{i} = arith.addi %ii{i}, %a{i} : i32").unwrap();
                        writeln!(s, "      %f{i} = arith.sitofp %j{i} : i32 to f32").unwrap();
                        writeln!(s, "      %h{i} = arith.constant 0.5 : f32").unwrap();
                        writeln!(s, "      %v{i} = arith.addf %f{i}, %h{i} : f32").unwrap();
                    }
                    Elt::F16 => {
                        writeln!(s, "      %a{i} = arith.constant {} : i32", i * 300).unwrap();
                        writeln!(s, "      %j{i} = arith.addi %ii{i}, %a{i} : i32").unwrap();
                        writeln!(s, "      %q{i} = arith.constant 1000 : i32").unwrap();
                        writeln!(s, "      %r{i} = arith.remsi %j{i}, %q{i} : i32").unwrap();
                        writeln!(s, "      %f{i} = arith.sitofp %r{i} : i32 to f32").unwrap();
                        writeln!(s, "      %h{i} = arith.constant 0.5 : f32").unwrap();
                        writeln!(s, "      %g{i} = arith.addf %f{i}, %h{i} : f32").unwrap();
                        writeln!(s, "      %v{i} = arith.truncf %g{i} : f32 to f16").unwrap();
                    }
                    Elt::I32 => {
                        writeln!(s, "      %a{i} = arith.constant {} : i32", i as i64 * 5000 - 20).unwrap();
                        writeln!(s, "      %v{i} = arith.addi %ii{i}, %a{i} : i32").unwrap();
                    }
                }
            }
            writeln!(s, "      memref.store %v{i}, %m{i}[%i{i}] : {ty}").unwrap();
            s.push_str("    }\n");
            args.push((format!("%m{i}"), ty));
        }
        let names: Vec<&str> = args.iter().map(|a| a.0.as_str()).collect();
        let tys: Vec<&str> = args.iter().map(|a| a.1.as_str()).collect();
        writeln!(s, "    call @k({}) : ({}) -> ()", names.join(", "), tys.join(", ")).unwrap();
        for (i, b) in self.buffers.iter().enumerate() {
            if !b.output {
                continue;
            }
            let ty = format!("memref<{}x{}>", b.len, b.elt.mlir());
            match b.elt {
                Elt::F32 => {
                    writeln!(s, "    %u{i} = memref.cast %m{i} : {ty} to memref<*xf32>").unwrap();
                    writeln!(s, "    call @printMemrefF32(%u{i}) : (memref<*xf32>) -> ()").unwrap();
                }
                Elt::I32 => {
                    writeln!(s, "    %u{i} = memref.cast %m{i} : {ty} to memref<*xi32>").unwrap();
                    writeln!(s, "    call @printMemrefI32(%u{i}) : (memref<*xi32>) -> ()").unwrap();
                }
                Elt::F16 => {
                    let ty32 = format!("memref<{}xf32>", b.len);
                    writeln!(s, "    %w{i} = memref.alloc() : {ty32}").unwrap();
                    writeln!(s, "    scf.for %p{i} = %c0 to %n{i} step %c1 {{").unwrap();
                    writeln!(s, "      %x{i} = memref.load %m{i}[%p{i}] : {ty}").unwrap();
                    writeln!(s, "      %y{i} = arith.extf %x{i} : f16 to f32").unwrap();
                    writeln!(s, "      memref.store %y{i}, %w{i}[%p{i}] : {ty32}").unwrap();
                    s.push_str("    }\n");
                    writeln!(s, "    %u{i} = memref.cast %w{i} : {ty32} to memref<*xf32>").unwrap();
                    writeln!(s, "    call @printMemrefF32(%u{i}) : (memref<*xf32>) -> ()").unwrap();
                }
            }
        }
        s.push_str("    return\n  }\n");
        s
    }
}
