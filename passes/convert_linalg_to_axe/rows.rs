//! Row programs: a run of bufferized `linalg` ops that all work row by row (softmax, RMSNorm,
//! LayerNorm, and the elementwise ops around them, as torch-mlir emits them) becomes one Axe
//! kernel that reads each input once and writes each output once: one CTA per row, the row in
//! registers, every generic's body applied to whole register tensors (`axe.unary`,
//! `axe.binary` with broadcasting, `axe.cast`), every reduction along the row an `axe.reduce`.
//!
//! Each generic's loops are at most two that are not of extent 1: the rows (parallel) and the
//! columns (parallel, or the reduction). Each operand is then a whole tile ([M, N]), one value
//! per row ([M, 1]), one per column ([1, N]: a norm's weight) or a scalar. Buffers are followed
//! through `memref.expand_shape` / `collapse_shape` to the allocation or function argument they
//! view; a function argument read before anything writes it is loaded, one written is stored at
//! the end; temporaries live in registers only, so a temporary read after the run refuses it.
//!
//! The full tiles are laid out `(M, reps, W, 32, V) : (1@cta, V@reg, 1@warp, 1@lane, 1@reg)`:
//! V contiguous elements per lane (16-byte f16 accesses where the row allows), W warps; the
//! per-row and per-column tensors take the projections `axe-infer-layout` gives them.

use std::collections::HashMap;

use axe_layout::{Iter, Layout};
use mlir_sys::*;

use crate::axe_ops::{self, CopyOptions, FastMath};
use crate::convert_axe_to_gpu::builder::B;
use crate::convert_axe_to_gpu::types::element_type;
use crate::dialect::ods::{BinaryKind, MemoryScope, ReduceKind, UnaryKind};
use crate::ir;

use super::buffers::{self, root};

/// The ops a run may hold besides generics and fills (views and allocations of its buffers).
const HOUSEKEEPING: &[&str] = &[
    "memref.alloc",
    "memref.dealloc",
    "memref.expand_shape",
    "memref.collapse_shape",
    "arith.constant",
];

/// The most elements of a row one thread holds per tile (registers).
const MAX_PER_THREAD: i64 = 64;

/// What an operand holds of the row iteration space.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
enum Class {
    Full,
    Row,
    Col,
    Scalar,
}

impl Class {
    fn join(self, o: Class) -> Class {
        match (self, o) {
            (Class::Scalar, x) | (x, Class::Scalar) => x,
            (a, b) if a == b => a,
            _ => Class::Full,
        }
    }

    fn shape(self, m: i64, n: i64) -> [i64; 2] {
        match self {
            Class::Full => [m, n],
            Class::Row => [m, 1],
            Class::Col => [1, n],
            Class::Scalar => [1, 1],
        }
    }
}

struct Tensor {
    class: Class,
    elt: MlirType,
}

enum Step {
    Load {
        memref: MlirValue,
        dst: usize,
    },
    Fill {
        value: f64,
        dst: usize,
    },
    Unary {
        kind: UnaryKind,
        src: usize,
        dst: usize,
    },
    Binary {
        kind: BinaryKind,
        lhs: usize,
        rhs: usize,
        dst: usize,
        /// The body op's own `fastmath` (`contract` or `fast` carry over; torch-mlir sets none).
        fm: FastMath,
    },
    Cast {
        src: usize,
        dst: usize,
    },
    Reduce {
        kind: ReduceKind,
        src: usize,
        dst: usize,
    },
    Store {
        src: usize,
        memref: MlirValue,
    },
}

/// A run's kernel, ready to build: rows M of N elements, its register tensors and steps.
#[derive(Default)]
struct Program {
    m: Option<i64>,
    n: Option<i64>,
    tensors: Vec<Tensor>,
    steps: Vec<Step>,
    /// The current register tensor of each buffer (by the root memref value).
    version: HashMap<usize, usize>,
    /// The root memref value of each buffer written, in order.
    written: Vec<MlirValue>,
    /// Function arguments already loaded, per access.
    loaded: HashMap<(usize, Class), usize>,
    /// The value each filled tensor holds (a fill's constant).
    filled: HashMap<usize, f64>,
    /// The linalg ops the kernel replaces.
    taken: Vec<MlirOperation>,
}

impl Program {
    fn tensor(&mut self, class: Class, elt: MlirType) -> usize {
        self.tensors.push(Tensor { class, elt });
        self.tensors.len() - 1
    }
}

fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

fn is_argument(v: MlirValue) -> bool {
    // SAFETY: `v` is a live value (module contract).
    unsafe { mlirValueIsABlockArgument(v) }
}

/// Converts every run of row operations in `func`'s body it can; remarks on the generics of
/// the others.
pub fn run(func: MlirOperation, threads_per_row: i64) {
    let block = ir::region_block(func, 0);
    if block.ptr.is_null() {
        return;
    }
    let ops = ir::block_ops(block);
    let mut runs: Vec<Vec<MlirOperation>> = vec![];
    let mut current = vec![];
    for &op in &ops {
        let name = ir::name(op);
        if matches!(name.as_str(), "linalg.generic" | "linalg.fill" | "memref.copy")
            || HOUSEKEEPING.contains(&name.as_str())
        {
            current.push(op);
        } else if !current.is_empty() {
            runs.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        runs.push(current);
    }
    for run in runs {
        let generics: Vec<MlirOperation> = run
            .iter()
            .copied()
            .filter(|&o| ir::name(o) == "linalg.generic")
            .collect();
        if generics.is_empty() {
            continue;
        }
        match analyse(&run) {
            Ok(p) => emit(&run, &p, threads_per_row),
            Err(why) => {
                for g in generics {
                    ir::remark(g, &format!("linalg.generic not converted: {why}"));
                }
            }
        }
    }
}

/// The program of `run`, or why there is none.
fn analyse(run: &[MlirOperation]) -> Result<Program, String> {
    let mut p = Program::default();
    for &op in run {
        match ir::name(op).as_str() {
            "linalg.fill" => {
                // A fill no generic of the run reads belongs to something else (a matmul's
                // accumulator): it stays.
                let buffer = root(ir::operand(op, 1));
                if !read_in(buffer, run, op) {
                    continue;
                }
                p.taken.push(op);
                let value = ir::defining_op(ir::operand(op, 0))
                    .filter(|&c| ir::name(c) == "arith.constant")
                    .and_then(|c| ir::float_or_int_attr(c, "value"))
                    .ok_or("a linalg.fill of a value that is not a constant")?;
                let elt = memref_element(buffer);
                let t = p.tensor(Class::Scalar, elt);
                p.steps.push(Step::Fill { value, dst: t });
                p.filled.insert(t, value);
                write(&mut p, buffer, t);
            }
            "linalg.generic" => {
                generic(&mut p, op)?;
                p.taken.push(op);
            }
            // A copy between buffers of the run (a reduction's initial value, the result into
            // the output argument) is the same register tensor under another name.
            "memref.copy" => {
                let (src, dst) = (root(ir::operand(op, 0)), root(ir::operand(op, 1)));
                let t = *p
                    .version
                    .get(&key(src))
                    .ok_or("it copies a buffer the run did not compute (a copy alone is not a row kernel)")?;
                write(&mut p, dst, t);
                p.taken.push(op);
            }
            _ => {}
        }
    }
    if p.m.is_none() {
        return Err("it has no loop over rows".into());
    }
    // Temporaries live in registers: none may be read after the run.
    for &w in &p.written {
        let last = *run.last().expect("a run is not empty");
        if !is_argument(w) && !buffers::uses_after(last, w).is_empty() {
            return Err(format!(
                "its temporary {} is read after the row operations (only function arguments are stored)",
                ir::type_to_string(ir::value_type(w))
            ));
        }
    }
    // The final version of each argument written is stored.
    for w in p.written.clone() {
        if is_argument(w) {
            let t = p.version[&key(w)];
            if p.tensors[t].class == Class::Scalar {
                return Err("it fills an argument with a constant (a broadcast store is not converted)".into());
            }
            p.steps.push(Step::Store { src: t, memref: w });
        }
    }
    Ok(p)
}

fn write(p: &mut Program, buffer: MlirValue, t: usize) {
    p.version.insert(key(buffer), t);
    if !p.written.iter().any(|w| w.ptr == buffer.ptr) {
        p.written.push(buffer);
    }
}

fn memref_element(v: MlirValue) -> MlirType {
    element_type(ir::value_type(v))
}

/// Whether a generic of `run` after `from` reads `buffer` (a view of it as an operand).
fn read_in(buffer: MlirValue, run: &[MlirOperation], from: MlirOperation) -> bool {
    run.iter()
        .skip_while(|o| o.ptr != from.ptr)
        .filter(|&&o| ir::name(o) == "linalg.generic")
        .any(|&g| (0..ir::num_operands(g)).any(|j| root(ir::operand(g, j)).ptr == buffer.ptr))
}

/// The loops of `op` as (row loop, column loop, whether the column loop reduces), and each
/// operand's class; or why it is not a row operation.
fn loops(p: &mut Program, op: MlirOperation, operands: &[MlirValue]) -> Result<(Option<bool>, Vec<Class>), String> {
    let maps = ir::attr(op, "indexing_maps").ok_or("no indexing_maps")?;
    let iterators = ir::attr_text(op, "iterator_types").unwrap_or_default();
    let reduction: Vec<bool> = iterators.split(',').map(|s| s.contains("reduction")).collect();
    // Each map's loop count and results: a loop (Some), the constant 0 (None), or anything
    // else (Err).
    type Results = (usize, Vec<Result<Option<usize>, ()>>);
    // SAFETY: `maps` is a live array attribute of affine maps (linalg.generic's verifier); its
    // elements, their results and the results' kinds are read within their counts, each
    // expression's position or value only after its kind is tested.
    let maps: Vec<Results> = unsafe {
        (0..mlirArrayAttrGetNumElements(maps))
            .map(|i| {
                let m = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
                let rs = (0..mlirAffineMapGetNumResults(m))
                    .map(|j| {
                        let e = mlirAffineMapGetResult(m, j);
                        if mlirAffineExprIsADim(e) {
                            Ok(Some(mlirAffineDimExprGetPosition(e) as usize))
                        } else if mlirAffineExprIsAConstant(e) && mlirAffineConstantExprGetValue(e) == 0 {
                            Ok(None)
                        } else {
                            Err(())
                        }
                    })
                    .collect();
                (mlirAffineMapGetNumDims(m) as usize, rs)
            })
            .collect()
    };
    let dims = maps.first().map_or(0, |m| m.0);
    // Each loop's extent, from the operands' shapes.
    let mut extent = vec![1i64; dims];
    let mut results: Vec<Vec<Option<usize>>> = vec![];
    for (v, (_, rs)) in operands.iter().zip(&maps) {
        let shape = ir::shape(ir::value_type(*v));
        let mut out = vec![];
        for (j, r) in rs.iter().enumerate() {
            let r = r.map_err(|()| "an indexing map that is not a projection of the loops".to_string())?;
            if let Some(d) = r {
                extent[d] = shape[j];
            }
            out.push(r);
        }
        results.push(out);
    }
    // The rows are the first loop (of any extent: a batch of one row too); the columns the one
    // other loop longer than 1, if any.
    if dims == 0 {
        return Err("it has no loops".into());
    }
    let row = 0;
    let others: Vec<usize> = (1..dims).filter(|&d| extent[d] != 1).collect();
    let col = match others.as_slice() {
        [] => None,
        [c] => Some(*c),
        _ => {
            return Err(format!(
                "{} loops besides the rows are longer than 1 (a row operation has rows and columns)",
                others.len()
            ))
        }
    };
    if reduction.get(row).copied().unwrap_or(false) {
        return Err("it reduces across rows".into());
    }
    match p.m {
        Some(m) if m != extent[row] => return Err(format!("its {} rows are not the run's {m}", extent[row])),
        _ => p.m = Some(extent[row]),
    }
    if let Some(c) = col {
        match p.n {
            Some(n) if n != extent[c] => return Err(format!("its rows of {} are not the run's {n}", extent[c])),
            _ => p.n = Some(extent[c]),
        }
    }
    let classes = results
        .iter()
        .map(|rs| {
            let used: Vec<usize> = rs
                .iter()
                .flatten()
                .copied()
                .filter(|&d| d == row || Some(d) == col)
                .collect();
            match (used.contains(&row), col.is_some_and(|c| used.contains(&c))) {
                (true, true) if used == [row, col.expect("a column loop")] => Ok(Class::Full),
                (true, true) => Err("an operand indexed by columns before rows (a transpose)".to_string()),
                (true, false) => Ok(Class::Row),
                (false, true) => Ok(Class::Col),
                (false, false) => Ok(Class::Scalar),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((col.map(|c| reduction.get(c).copied().unwrap_or(false)), classes))
}

/// The register tensor of `buffer` as read with `class`: its current version, or a load of a
/// function argument.
fn read(p: &mut Program, buffer: MlirValue, class: Class) -> Result<usize, String> {
    let r = root(buffer);
    if let Some(&t) = p.version.get(&key(r)) {
        return Ok(t);
    }
    if !is_argument(r) {
        return Err("it reads a temporary written outside the run (by an op not converted to Axe)".into());
    }
    if !ir::is_identity_memref(ir::value_type(r)) || ir::shape(ir::value_type(r)).iter().any(|&d| d < 0) {
        return Err(format!(
            "argument {} is not a static row-major memref",
            ir::type_to_string(ir::value_type(r))
        ));
    }
    if let Some(&t) = p.loaded.get(&(key(r), class)) {
        return Ok(t);
    }
    let t = p.tensor(class, memref_element(r));
    p.steps.push(Step::Load { memref: r, dst: t });
    p.loaded.insert((key(r), class), t);
    Ok(t)
}

fn generic(p: &mut Program, op: MlirOperation) -> Result<(), String> {
    let groups = ir::operand_groups(op).ok_or("its operands are not ins and outs")?;
    let [ins, outs] = groups.as_slice() else {
        return Err("its operands are not ins and outs".into());
    };
    let [out] = outs.as_slice() else {
        return Err("it has more than one output".into());
    };
    let operands: Vec<MlirValue> = ins.iter().chain(outs).copied().collect();
    let (col, classes) = loops(p, op, &operands)?;
    let reduces = col == Some(true);
    let out_class = classes[ins.len()];
    let want = if col == Some(false) { Class::Full } else { Class::Row };
    if out_class != want {
        return Err("its output is not indexed by its parallel loops".into());
    }
    let block = ir::region_block(op, 0);
    let args = ir::block_arguments(block);
    let body = ir::block_ops(block);
    let yield_op = *body.last().ok_or("its body is empty")?;
    let yielded = ir::operand(yield_op, 0);
    let mut val: HashMap<usize, usize> = HashMap::new();
    for (i, &v) in ins.iter().enumerate() {
        let t = read(p, v, classes[i])?;
        val.insert(key(args[i]), t);
    }
    let out_arg = args[ins.len()];
    // A reduction: the yield is combine(x, out); everything else computes x.
    let combine = if reduces {
        let d = ir::defining_op(yielded).ok_or("a reduction that yields no combination")?;
        let kind = match ir::name(d).as_str() {
            "arith.addf" => ReduceKind::Sum,
            "arith.maximumf" | "arith.maxnumf" => ReduceKind::Max,
            "arith.minimumf" | "arith.minnumf" => ReduceKind::Min,
            other => return Err(format!("a reduction by '{other}' (sum, max and min are converted)")),
        };
        let (x, o) = (ir::operand(d, 0), ir::operand(d, 1));
        let x = match (x.ptr == out_arg.ptr, o.ptr == out_arg.ptr) {
            (false, true) => x,
            (true, false) => o,
            _ => return Err("a reduction whose combination does not take the running value once".into()),
        };
        Some((d, kind, x))
    } else {
        None
    };
    for &b in &body[..body.len() - 1] {
        if combine.is_some_and(|(d, _, _)| d.ptr == b.ptr) {
            continue;
        }
        let t = body_op(p, b, &val, out_arg, *out)?;
        val.insert(key(ir::result(b, 0)), t);
    }
    let lookup = |val: &HashMap<usize, usize>, v: MlirValue| val.get(&key(v)).copied();
    let result = match combine {
        Some((d, kind, x)) => {
            let src = lookup(&val, x).ok_or("a reduction of a value from outside its body")?;
            if p.tensors[src].class != Class::Full {
                return Err("a reduction of a value that does not vary along the row".into());
            }
            let elt = ir::value_type(ir::result(d, 0));
            let reduced = p.tensor(Class::Row, elt);
            p.steps.push(Step::Reduce {
                kind,
                src,
                dst: reduced,
            });
            let init = p.version.get(&key(root(*out))).copied();
            let identity = match kind {
                ReduceKind::Sum => 0.0,
                ReduceKind::Max => f64::NEG_INFINITY,
                ReduceKind::Min => f64::INFINITY,
            };
            match init {
                Some(i) if p.filled.get(&i) == Some(&identity) => reduced,
                Some(i) => {
                    let bin = match kind {
                        ReduceKind::Sum => BinaryKind::Add,
                        ReduceKind::Max => BinaryKind::Max,
                        ReduceKind::Min => BinaryKind::Min,
                    };
                    let t = p.tensor(Class::Row, elt);
                    p.steps.push(Step::Binary {
                        kind: bin,
                        lhs: reduced,
                        rhs: i,
                        dst: t,
                        fm: FastMath::None,
                    });
                    t
                }
                None => return Err("a reduction into a buffer nothing initialized".into()),
            }
        }
        None => lookup(&val, yielded).ok_or("it yields a value from outside its body")?,
    };
    if p.tensors[result].class != out_class {
        return Err("its result does not vary as its output does (a broadcast store is not converted)".into());
    }
    write(p, root(*out), result);
    Ok(())
}

/// The register tensor computed by the body op `b` (operands already in `val`).
fn body_op(
    p: &mut Program,
    b: MlirOperation,
    val: &HashMap<usize, usize>,
    out_arg: MlirValue,
    out: MlirValue,
) -> Result<usize, String> {
    let name = ir::name(b);
    let result_type = ir::value_type(ir::result(b, 0));
    let operand = |p: &mut Program, i: usize| -> Result<usize, String> {
        let v = ir::operand(b, i);
        if v.ptr == out_arg.ptr {
            return p
                .version
                .get(&key(root(out)))
                .copied()
                .ok_or_else(|| "it reads its output before anything wrote it".to_string());
        }
        if let Some(&t) = val.get(&key(v)) {
            return Ok(t);
        }
        // A constant from outside the body: a filled scalar.
        let c = ir::defining_op(v)
            .filter(|&c| ir::name(c) == "arith.constant")
            .and_then(|c| ir::float_or_int_attr(c, "value"))
            .ok_or("its body reads a value from outside that is not a constant")?;
        let t = p.tensor(Class::Scalar, ir::value_type(v));
        p.steps.push(Step::Fill { value: c, dst: t });
        Ok(t)
    };
    let binary = match name.as_str() {
        "arith.addf" => Some(BinaryKind::Add),
        "arith.subf" => Some(BinaryKind::Sub),
        "arith.mulf" => Some(BinaryKind::Mul),
        "arith.divf" => Some(BinaryKind::Div),
        "arith.maximumf" | "arith.maxnumf" => Some(BinaryKind::Max),
        "arith.minimumf" | "arith.minnumf" => Some(BinaryKind::Min),
        _ => None,
    };
    let unary = match name.as_str() {
        "arith.negf" => Some(UnaryKind::Neg),
        "math.exp" => Some(UnaryKind::Exp),
        "math.exp2" => Some(UnaryKind::Exp2),
        "math.log" => Some(UnaryKind::Log),
        "math.sqrt" => Some(UnaryKind::Sqrt),
        "math.rsqrt" => Some(UnaryKind::Rsqrt),
        "math.tanh" => Some(UnaryKind::Tanh),
        "math.erf" => Some(UnaryKind::Erf),
        "math.absf" => Some(UnaryKind::Abs),
        _ => None,
    };
    if name == "arith.constant" {
        let c = ir::float_or_int_attr(b, "value").ok_or("a constant that is not a scalar")?;
        let t = p.tensor(Class::Scalar, result_type);
        p.steps.push(Step::Fill { value: c, dst: t });
        return Ok(t);
    }
    if let Some(kind) = binary {
        let (l, r) = (operand(p, 0)?, operand(p, 1)?);
        let class = p.tensors[l].class.join(p.tensors[r].class);
        let t = p.tensor(class, result_type);
        let contract = ir::attr_text(b, "fastmath").is_some_and(|f| f.contains("contract") || f.contains("fast>"));
        p.steps.push(Step::Binary {
            kind,
            lhs: l,
            rhs: r,
            dst: t,
            fm: if contract { FastMath::Contract } else { FastMath::None },
        });
        return Ok(t);
    }
    if let Some(kind) = unary {
        let s = operand(p, 0)?;
        let t = p.tensor(p.tensors[s].class, result_type);
        p.steps.push(Step::Unary { kind, src: s, dst: t });
        return Ok(t);
    }
    if matches!(name.as_str(), "arith.extf" | "arith.truncf") {
        let s = operand(p, 0)?;
        let t = p.tensor(p.tensors[s].class, result_type);
        p.steps.push(Step::Cast { src: s, dst: t });
        return Ok(t);
    }
    Err(format!("its body uses '{name}', which a row kernel does not compute"))
}

/// The row tile's layout over one CTA: (V, W, reps) with N = reps W 32 V; with
/// `threads_per_row` 1 the whole row in one thread (no lanes: the CPU emulation's form).
fn row_shape(n: i64, threads_per_row: i64) -> Option<(i64, i64, i64)> {
    if threads_per_row == 1 {
        return Some((n, 1, 1));
    }
    let v = [8, 4, 2, 1].into_iter().find(|v| n % (32 * v) == 0)?;
    let w = [8, 4, 2, 1].into_iter().find(|w| n % (32 * v * w) == 0)?;
    let reps = n / (32 * v * w);
    (reps * v <= MAX_PER_THREAD).then_some((v, w, reps))
}

fn emit(run: &[MlirOperation], p: &Program, threads_per_row: i64) {
    let (m, n) = (p.m.expect("analysed"), p.n.unwrap_or(1));
    let first = run[0];
    let b = B::before(first).with_loc_of(first);
    let Some((v, w, reps)) = row_shape(n, threads_per_row) else {
        for &g in run.iter().filter(|&&o| ir::name(o) == "linalg.generic") {
            ir::remark(
                g,
                &format!(
                    "linalg.generic not converted: rows of {n} elements are not a multiple of 32 or exceed {} per row",
                    32 * 8 * MAX_PER_THREAD
                ),
            );
        }
        return;
    };
    // Global views of the arguments loaded and stored, shaped as they are accessed.
    let mut views: HashMap<(usize, Class), MlirValue> = HashMap::new();
    for s in &p.steps {
        let (memref, t) = match s {
            Step::Load { memref, dst } => (*memref, *dst),
            Step::Store { memref, src } => (*memref, *src),
            _ => continue,
        };
        let class = p.tensors[t].class;
        views.entry((key(memref), class)).or_insert_with(|| {
            let shape = class.shape(m, n);
            let l = Layout::from_shard(vec![Iter::mem(shape[0], shape[1]), Iter::mem(shape[1], 1)])
                .expect("a row-major layout");
            let t = axe_ops::tensor_type(&b, &shape, memref_element(memref), MemoryScope::Global, Some(&l), None);
            if class == Class::Full {
                super::declare_alignment(memref, super::BUFFER_ALIGN);
            }
            axe_ops::view(&b, memref, t)
        });
    }
    let lanes = if threads_per_row == 1 { 1 } else { 32 };
    let mut shard = vec![Iter::new(m, 1, "cta")];
    if reps > 1 {
        shard.push(Iter::new(reps, v, "reg"));
    }
    if lanes > 1 {
        if w > 1 {
            shard.push(Iter::new(w, 1, "warp"));
        }
        shard.push(Iter::new(32, 1, "lane"));
    }
    shard.push(Iter::new(v, 1, "reg"));
    let full = Layout::from_shard(shard).expect("a valid row layout");
    // Tensors nothing reads (a reduction's identity fill) are not built: a register tensor
    // no op constrains has no layout to infer.
    let mut read = vec![false; p.tensors.len()];
    for s in &p.steps {
        match *s {
            Step::Unary { src, .. } | Step::Cast { src, .. } | Step::Reduce { src, .. } | Step::Store { src, .. } => {
                read[src] = true
            }
            Step::Binary { lhs, rhs, .. } => {
                read[lhs] = true;
                read[rhs] = true;
            }
            Step::Load { .. } | Step::Fill { .. } => {}
        }
    }
    axe_ops::kernel(&b, m, w * lanes, None, false, |k| {
        let regs: Vec<Option<MlirValue>> = p
            .tensors
            .iter()
            .zip(&read)
            .map(|(t, &r)| {
                let needed = r || t.class == Class::Full;
                needed.then(|| {
                    let layout = (t.class == Class::Full).then_some(&full);
                    let ty = axe_ops::tensor_type(&k, &t.class.shape(m, n), t.elt, MemoryScope::Register, layout, None);
                    axe_ops::alloc(&k, ty)
                })
            })
            .collect();
        let regs: Vec<MlirValue> = regs
            .into_iter()
            .map(|r| r.unwrap_or(MlirValue { ptr: std::ptr::null() }))
            .collect();
        for s in &p.steps {
            if let Step::Fill { dst, .. } = *s {
                if regs[dst].ptr.is_null() {
                    continue;
                }
            }
            match *s {
                Step::Load { memref, dst } => {
                    let view = views[&(key(memref), p.tensors[dst].class)];
                    axe_ops::copy(&k, view, regs[dst], CopyOptions::AUTO);
                }
                Step::Store { src, memref } => {
                    let view = views[&(key(memref), p.tensors[src].class)];
                    axe_ops::copy(&k, regs[src], view, CopyOptions::AUTO);
                }
                Step::Fill { value, dst } => axe_ops::fill(&k, regs[dst], k.cfloat(value, p.tensors[dst].elt)),
                Step::Unary { kind, src, dst } => axe_ops::unary(&k, kind, regs[src], regs[dst]),
                Step::Binary {
                    kind,
                    lhs,
                    rhs,
                    dst,
                    fm,
                } => axe_ops::binary(&k, kind, regs[lhs], regs[rhs], regs[dst], fm),
                Step::Cast { src, dst } => axe_ops::cast(&k, regs[src], regs[dst]),
                Step::Reduce { kind, src, dst } => axe_ops::reduce(&k, kind, regs[src], regs[dst], &[1]),
            }
        }
    });
    // The run's linalg ops go; then whatever only they used.
    // SAFETY: the generics and fills taken are the run's, replaced by the kernel; the views,
    // allocations and deallocations erased have no other users left (checked per op, in
    // reverse order, users before definitions).
    unsafe {
        for &op in p.taken.iter().rev() {
            ir::erase(op);
        }
        for &op in run.iter().rev() {
            let name = ir::name(op);
            if matches!(name.as_str(), "memref.expand_shape" | "memref.collapse_shape")
                && ir::users(ir::result(op, 0)).is_empty()
            {
                ir::erase(op);
            }
        }
        for &op in run.iter().rev() {
            if ir::name(op) == "memref.alloc" {
                let users = ir::users(ir::result(op, 0));
                if users.iter().all(|&u| ir::name(u) == "memref.dealloc") {
                    for u in users {
                        ir::erase(u);
                    }
                    ir::erase(op);
                }
            }
        }
    }
}
