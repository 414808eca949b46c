//! Tiles and loop nests from layouts: the common grouping of several layouts over the same
//! logical dimensions, and the copy / fill / pointwise schedules built on it.
//!
//! Grouping (paper Alg. 1, `Layout::group`) splits each logical dimension into *positions* so
//! that every operand has exactly one iter per position. A copy then takes as its tile the
//! position whose iters are `1@P` in every on-chip operand (the tile's partition extent) and
//! one whose iters are `1@F` (its free extent); every other position becomes an
//! `nl.affine_range` loop that moves each operand by its own stride on its own axis.

use crate::error::AxeError;
use axe_layout::{Iter, Layout};
use mlir_sys::MlirOperation;

use super::emit::{dtype, Affine};
use super::{buffer_shape, diag, Kernel, Pointwise, Res, Scope, Tensor};
use crate::dialect::ods::{self, BinaryKind, ReduceKind, UnaryKind};

/// Per global dimension, its factorization into the extents every operand's iters share.
type Factorizations = Vec<Vec<i64>>;
/// Per operand and logical dimension, the iters.
type OperandIters = Vec<Vec<Vec<Iter>>>;

/// Refines the factorization `s[g]` of each global logical dimension `g` until every operand,
/// grouped by its dimensions' factorizations, has exactly one iter per factor. `operands[i]`
/// is a layout and, for each of its logical dimensions in order, the global dimension it is.
/// Returns the factorizations and, per operand and logical dimension, the iters.
pub fn common_grouping(
    op: MlirOperation,
    sizes: &[i64],
    operands: &[(&Layout, Vec<usize>, String)],
) -> Res<(Factorizations, OperandIters)> {
    let mut s: Vec<Vec<i64>> = sizes.iter().map(|&n| if n > 1 { vec![n] } else { vec![] }).collect();
    'outer: for _round in 0..64 {
        let mut result = Vec::new();
        for (layout, dims, what) in operands {
            let shape: Vec<i64> = dims.iter().flat_map(|&g| s[g].clone()).collect();
            let shape = if shape.is_empty() { vec![1] } else { shape };
            let grouped = layout.group(&shape).map_err(|e| {
                AxeError::at(
                    op,
                    format!("axe-to-nki: cannot group the layout {layout} of {what} by {shape:?}: {e}"),
                )
            })?;
            let mut per_dim = Vec::new();
            let mut block = 0usize;
            for &g in dims {
                let mut iters = Vec::new();
                for (j, _) in s[g].clone().iter().enumerate() {
                    let range = grouped.groups[block].clone();
                    block += 1;
                    let its: Vec<Iter> = grouped.layout.shard[range]
                        .iter()
                        .filter(|i| i.extent > 1)
                        .cloned()
                        .collect();
                    if its.len() > 1 {
                        // Split this factor into the block's extents and start over.
                        let mut next = s[g][..j].to_vec();
                        next.extend(its.iter().map(|i| i.extent));
                        next.extend_from_slice(&s[g][j + 1..]);
                        s[g] = next;
                        continue 'outer;
                    }
                    iters.push(its.into_iter().next().unwrap_or(Iter::new(1, 1, "F")));
                }
                per_dim.push(iters);
            }
            result.push(per_dim);
        }
        return Ok((s, result));
    }
    diag(op, "axe-to-nki: grouping the operand layouts did not converge")
}

/// HBM tensors are kernel arguments, which NKI lays out row-major.
pub fn check_hbm_layout(op: MlirOperation, t: &Tensor, what: &str) -> Res<()> {
    let rm = Layout::row_major(&t.shape).map_err(|e| AxeError::at(op, format!("axe-to-nki: {e}")))?;
    let canon = |l: &Layout| l.group(&t.shape).map(|g| g.layout);
    let same = t.layout.replica.is_empty()
        && t.layout.offset.is_empty()
        && t.layout.shard.iter().all(|i| i.axis.is_memory())
        && matches!((canon(&t.layout), canon(&rm)), (Ok(a), Ok(b)) if a.shard == b.shard);
    if !same {
        return diag(op, format!(
            "axe-to-nki: {what} has layout {}; HBM tensors must be row-major ({rm}), the layout NKI gives kernel arguments",
            t.layout));
    }
    Ok(())
}

/// One position of a common grouping: logical dimension, extent, stride within the dimension.
#[derive(Clone, Debug)]
struct Pos {
    dim: usize,
    extent: i64,
    logical_stride: i64,
    /// The iter of each on-chip operand at this position.
    iters: Vec<Iter>,
}

fn positions(s: &[Vec<i64>], per_operand: &[Vec<Vec<Iter>>]) -> Vec<Pos> {
    let mut out = Vec::new();
    for (d, f) in s.iter().enumerate() {
        for j in 0..f.len() {
            let ls: i64 = f[j + 1..].iter().product();
            out.push(Pos {
                dim: d,
                extent: f[j],
                logical_stride: ls,
                iters: per_operand.iter().map(|o| o[d][j].clone()).collect(),
            });
        }
    }
    out
}

fn is_unit(i: &Iter, axis: &str) -> bool {
    i.axis.name() == axis && i.stride == 1
}

/// The start of an operand's tile on `axis` inside the loops: offset + Σ var·stride.
fn start(layout: &Layout, axis: &str, loops: &[(String, usize)], pos: &[Pos], which: usize) -> Affine {
    let mut a = Affine::constant(
        layout
            .offset
            .iter()
            .find(|(ax, _)| ax.name() == axis)
            .map(|(_, v)| *v)
            .unwrap_or(0),
    );
    for (var, p) in loops {
        let it = &pos[*p].iters[which];
        if it.axis.name() == axis {
            a.add_term(var, it.stride);
        }
    }
    a
}

/// A schedule over the on-chip operands of a copy or fill.
struct Schedule {
    pos: Vec<Pos>,
    p_atom: Option<usize>,
    f_atom: Option<usize>,
    loops: Vec<(String, usize)>,
}

impl Schedule {
    fn ep(&self) -> i64 {
        self.p_atom.map(|p| self.pos[p].extent).unwrap_or(1)
    }
    fn ef(&self) -> i64 {
        self.f_atom.map(|p| self.pos[p].extent).unwrap_or(1)
    }
    fn tile(&self, t: &Tensor, which: usize) -> String {
        let p = start(&t.layout, "P", &self.loops, &self.pos, which);
        let f = start(&t.layout, "F", &self.loops, &self.pos, which);
        format!("{}[{}, {}]", t.buf, p.range(self.ep()), f.range(self.ef()))
    }
    fn open(&mut self, k: &mut Kernel) {
        let loop_pos: Vec<usize> = (0..self.pos.len())
            .filter(|&i| Some(i) != self.p_atom && Some(i) != self.f_atom && self.pos[i].extent > 1)
            .collect();
        for p in loop_pos {
            let v = k.fresh_var();
            k.py.line(&format!("for {v} in nl.affine_range({}):", self.pos[p].extent));
            k.py.indent += 1;
            self.loops.push((v, p));
        }
    }
    fn close(&self, k: &mut Kernel) {
        k.py.indent -= self.loops.len();
    }
}

/// Groups the on-chip operands and picks the tile positions. With `hbm`, the tile must also
/// be a rectangular slice of the row-major HBM tensor: its P and F positions must be the
/// innermost factors of two different logical dimensions.
fn schedule(op: MlirOperation, onchip: &[&Tensor], hbm: bool) -> Res<Schedule> {
    let shape = &onchip[0].shape;
    let dims: Vec<usize> = (0..shape.len()).collect();
    let operands: Vec<(&Layout, Vec<usize>, String)> = onchip
        .iter()
        .map(|t| (&t.layout, dims.clone(), format!("the {} tensor", t.scope.name())))
        .collect();
    let (s, per) = common_grouping(op, shape, &operands)?;
    let pos = positions(&s, &per);
    let p_atom = (0..pos.len()).find(|&i| {
        pos[i].extent > 1 && pos[i].iters.iter().all(|it| is_unit(it, "P")) && (!hbm || pos[i].logical_stride == 1)
    });
    let f_atom = (0..pos.len()).find(|&i| {
        Some(i) != p_atom
            && pos[i].extent > 1
            && pos[i].iters.iter().all(|it| is_unit(it, "F"))
            && (!hbm || (pos[i].logical_stride == 1 && p_atom.map(|p| pos[p].dim) != Some(pos[i].dim)))
    });
    Ok(Schedule {
        pos,
        p_atom,
        f_atom,
        loops: Vec::new(),
    })
}

pub fn emit_copy(k: &mut Kernel, op: MlirOperation, src: &Tensor, dst: &Tensor) -> Res<()> {
    use Scope::*;
    match (src.scope, dst.scope) {
        (Hbm, Sbuf) | (Sbuf, Hbm) | (Psum, Sbuf) | (Sbuf, Psum) | (Sbuf, Sbuf) => {}
        (Hbm, Hbm) => {
            return diag(
                op,
                "axe-to-nki: HBM-to-HBM copies are not supported; stage through SBUF",
            )
        }
        (s, d) => {
            return diag(
                op,
                format!(
            "axe-to-nki: cannot copy {} to {} (nl.load/nl.store move HBM<->SBUF; PSUM is read by nl.copy into SBUF)",
            s.name(), d.name()),
            )
        }
    }
    let onchip: Vec<&Tensor> = [src, dst].into_iter().filter(|t| t.scope != Hbm).collect();
    for t in &onchip {
        buffer_shape(op, t, &format!("the {} operand", t.scope.name()))?;
    }
    let hbm = [src, dst].into_iter().find(|t| t.scope == Hbm);
    let mut sch = schedule(op, &onchip, hbm.is_some())?;
    k.py.line(&format!(
        "# axe.copy {} -> {}: tile [{}, {}]",
        src.scope.name(),
        dst.scope.name(),
        sch.ep(),
        sch.ef()
    ));
    sch.open(k);
    let stmt = if let Some(h) = hbm {
        let rank = h.shape.len();
        if rank < 2 {
            return diag(
                op,
                "axe-to-nki: copies of rank-1 HBM tensors are not supported (tiles are 2-D)",
            );
        }
        let mut dp = sch.p_atom.map(|p| sch.pos[p].dim);
        let mut df = sch.f_atom.map(|p| sch.pos[p].dim);
        if dp.is_none() {
            dp = (0..rank).find(|d| Some(*d) != df);
        }
        if df.is_none() {
            df = (0..rank).rev().find(|d| Some(*d) != dp);
        }
        let (dp, df) = (dp.unwrap_or(0), df.unwrap_or(1));
        let mut idx = Vec::new();
        for d in 0..rank {
            let mut a = Affine::constant(0);
            for (var, p) in &sch.loops {
                if sch.pos[*p].dim == d {
                    a.add_term(var, sch.pos[*p].logical_stride);
                }
            }
            idx.push(if d == dp {
                a.range(sch.ep())
            } else if d == df {
                a.range(sch.ef())
            } else {
                a.print()
            });
        }
        let hbm_ref = format!("{}[{}]", h.buf, idx.join(", "));
        let transposed = dp > df;
        let chip = sch.tile(onchip[0], 0);
        if src.scope == Hbm {
            let f = if transposed { "nl.load_transpose2d" } else { "nl.load" };
            format!("{chip} = {f}({hbm_ref})")
        } else {
            if transposed {
                return diag(op, format!(
                    "axe-to-nki: storing {} needs a transposed store (its partition axis holds HBM dimension {dp}, its free axis dimension {df}); NKI documents only nl.load_transpose2d",
                    src.layout));
            }
            format!("nl.store({hbm_ref}, value={chip})")
        }
    } else {
        format!("{} = nl.copy({})", sch.tile(dst, 1), sch.tile(src, 0))
    };
    k.py.line(&stmt);
    sch.close(k);
    Ok(())
}

pub fn emit_fill(k: &mut Kernel, op: MlirOperation, dst: &Tensor, value: &str) -> Res<()> {
    if dst.scope == Scope::Hbm {
        return diag(
            op,
            "axe-to-nki: fill an SBUF/PSUM tensor and store it; HBM tensors cannot be filled directly",
        );
    }
    buffer_shape(op, dst, "the filled tensor")?;
    let mut sch = schedule(op, &[dst], false)?;
    sch.open(k);
    k.py.line(&format!(
        "{} = nl.full(({}, {}), {value}, dtype={}, buffer=nl.{})",
        sch.tile(dst, 0),
        sch.ep(),
        sch.ef(),
        dtype(dst.elem),
        dst.scope.name()
    ));
    sch.close(k);
    Ok(())
}

/// The tile of a rank-2 on-chip tensor laid out as rows on `1@P` and columns on `1@F` (a size-1
/// dimension may be absent), which is what NKI's elementwise and free-axis reduce APIs take.
fn plain_tile(op: MlirOperation, t: &Tensor, what: &str) -> Res<String> {
    if t.scope == Scope::Hbm {
        return diag(op, format!("axe-to-nki: {what} is in HBM; compute on SBUF/PSUM tiles"));
    }
    buffer_shape(op, t, what)?;
    let bad = || {
        AxeError::at(
        op,
        format!(
            "axe-to-nki: {what} has layout {}; elementwise and reduce ops need a rank-2 tile with rows on 1@P and columns on 1@F",
            t.layout),
    )
    };
    if t.shape.len() != 2 {
        return Err(bad());
    }
    let g = t.layout.group(&t.shape).map_err(|_| bad())?;
    for (d, axis) in [(0usize, "P"), (1, "F")] {
        let its: Vec<&Iter> = g.layout.shard[g.groups[d].clone()]
            .iter()
            .filter(|i| i.extent > 1)
            .collect();
        if !(its.is_empty() || (its.len() == 1 && is_unit(its[0], axis))) {
            return Err(bad());
        }
    }
    let off = |a: &str| {
        t.layout
            .offset
            .iter()
            .find(|(x, _)| x.name() == a)
            .map(|(_, v)| *v)
            .unwrap_or(0)
    };
    Ok(format!(
        "{}[{}, {}]",
        t.buf,
        Affine::constant(off("P")).range(t.shape[0]),
        Affine::constant(off("F")).range(t.shape[1])
    ))
}

pub fn emit_pointwise(k: &mut Kernel, op: MlirOperation, name: &str, kind: Pointwise) -> Res<()> {
    let n = super::ir::num_operands(op);
    let ts: Vec<Tensor> = (0..n)
        .map(|i| k.tensor(op, super::ir::operand(op, i)))
        .collect::<Res<_>>()?;
    let tiles: Vec<String> = ts
        .iter()
        .enumerate()
        .map(|(i, t)| plain_tile(op, t, &format!("operand #{i}")))
        .collect::<Res<_>>()?;
    let dst = tiles.last().cloned().unwrap_or_default();
    let expr = match kind {
        Pointwise::Unary(UnaryKind::Exp) => format!("nl.exp({})", tiles[0]),
        Pointwise::Binary(BinaryKind::Add) => format!("nl.add({}, {})", tiles[0], tiles[1]),
        Pointwise::Binary(BinaryKind::Sub) => format!("nl.subtract({}, {})", tiles[0], tiles[1]),
        Pointwise::Binary(BinaryKind::Mul) => format!("nl.multiply({}, {})", tiles[0], tiles[1]),
        // x / y as x · (1/y): both APIs are documented for NeuronCore-v2.
        Pointwise::Binary(BinaryKind::Div) => format!("nl.multiply({}, nl.reciprocal({}))", tiles[0], tiles[1]),
        // `nl.max` / `nl.sum`: the kind's ODS string is the NKI function's name.
        Pointwise::Reduce(reduction @ (ReduceKind::Max | ReduceKind::Sum)) => {
            let dims = super::ir::i64_array(op, ods::reduce::DIMS);
            if dims != [1] {
                return diag(op, format!(
                    "axe-to-nki: reductions run along the free axis only (dims [1]); dims {dims:?} would reduce across partitions"));
            }
            if ts[1].shape != [ts[0].shape[0], 1] {
                return diag(op, "axe-to-nki: the reduce destination must keep the reduced dimension as size 1 ([rows, 1])");
            }
            format!("nl.{reduction}({}, axis=1, keepdims=True)", tiles[0])
        }
        _ => {
            return diag(op, format!(
                "axe-to-nki: '{name}' kind '{}' is not in the supported NKI subset (unary exp; binary add/sub/mul/div; reduce max/sum)", kind.as_str()))
        }
    };
    k.py.line(&format!("{dst} = {expr}"));
    Ok(())
}
