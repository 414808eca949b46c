//! `axe-infer-layout{check-only}`: verify, without rewriting, that the layouts present are
//! consistent with every op — the same relations the inference establishes (phase 2 and the
//! gemm anchors), checked with the algebra's equivalence.

use axe_layout::Layout;
use mlir_sys::{MlirOperation, MlirValue};

use super::{equal, gemm, project, scope, shape, threads_of, OPS};
use crate::dialect::ods;
use crate::ir::{self, MemoryScope};

fn layout(v: MlirValue) -> Option<Layout> {
    ir::tensor_layout(ir::value_type(v))
}

/// Reports `op`'s inconsistency; false.
fn bad(op: MlirOperation, message: String) -> bool {
    ir::error(op, &message);
    false
}

fn check_pointwise(op: MlirOperation, inputs: &[usize], dst: usize) -> bool {
    let d = ir::operand(op, dst);
    let Some(dl) = layout(d) else { return true };
    let dshape = shape(d);
    let mut ok = true;
    for &i in inputs {
        let v = ir::operand(op, i);
        let Some(vl) = layout(v) else { continue };
        let vs = shape(v);
        let broadcast: Vec<usize> = (0..dshape.len()).filter(|&k| vs[k] == 1 && dshape[k] != 1).collect();
        let want = if broadcast.is_empty() {
            Ok(dl.clone())
        } else {
            project::project(&dl, &dshape, &broadcast)
        };
        match want {
            Ok(w) if !equal(&vl, &w) => {
                ok &= bad(
                    op,
                    format!("operand #{i} has layout {vl}, but the destination's distribution needs {w}"),
                )
            }
            Err(e) => ok &= bad(op, format!("cannot project the destination's layout {dl}: {e}")),
            _ => {}
        }
    }
    ok
}

fn check_gemm(op: MlirOperation) -> bool {
    let (a, b, c) = (
        ir::operand(op, ods::gemm::operands::A),
        ir::operand(op, ods::gemm::operands::B),
        ir::operand(op, ods::gemm::operands::C),
    );
    if scope(c) != Some(MemoryScope::Register) {
        return true;
    }
    let Some(cl) = layout(c) else { return true };
    let (ta, tb) = (
        ir::has_attr(op, ods::gemm::TRANSPOSE_A),
        ir::has_attr(op, ods::gemm::TRANSPOSE_B),
    );
    let (sa, sc) = (shape(a), shape(c));
    let (m, n) = (sc[0], sc[1]);
    let k = if ta { sa[0] } else { sa[1] };
    let Some(threads) = threads_of(op) else { return true };
    let warps = threads.warps;
    let tiling = (0..=warps.trailing_zeros())
        .map(|t| (1i64 << t, warps >> t))
        .filter(|&(wm, wn)| {
            wm * wn == warps && m % 16 == 0 && n % 8 == 0 && k % 16 == 0 && (m / 16) % wm == 0 && (n / 8) % wn == 0
        })
        .filter_map(|(wm, wn)| gemm::mma_layouts(m, n, k, wm, wn).ok())
        .find(|l| equal(&l.c, &cl));
    let Some(t) = tiling else {
        return bad(op, format!("the accumulator's layout {cl} is not the mma.sync m16n8k16 fragment tiled over the {warps} warps of this scope"));
    };
    let mut ok = true;
    for (idx, v, frag, logical, trans) in [(0, a, &t.a, [m, k], ta), (1, b, &t.b, [k, n], tb)] {
        if scope(v) != Some(MemoryScope::Register) {
            continue;
        }
        let Some(vl) = layout(v) else { continue };
        let want = if trans {
            gemm::transpose(frag, &logical).unwrap_or_else(|_| frag.clone())
        } else {
            frag.clone()
        };
        if !equal(&vl, &want) {
            ok &= bad(
                op,
                format!("operand #{idx} has layout {vl}, not the mma.sync fragment layout {want} of this tiling"),
            );
        }
    }
    ok
}

/// Whether a slice whose source and result both state a layout states the result's right:
/// `L[R:S]` of the source's (reported at the slice when not).
pub fn check_slice(op: MlirOperation) -> bool {
    let (s, r) = (
        ir::operand(op, ods::slice::operands::SOURCE),
        ir::result(op, ods::slice::results::RESULT),
    );
    match (layout(s), layout(r)) {
        (Some(sl), Some(rl)) => match crate::slice::sliced_layout(&sl, &shape(s), op) {
            Ok(w) if !equal(&rl, &w) => bad(op, format!("the slice's layout {rl} is not L[R:S] = {w}")),
            Err(e) => bad(op, format!("the region admits no slice layout: {e}")),
            _ => true,
        },
        _ => true,
    }
}

/// The check; false when anything is inconsistent (each reported at its op).
pub fn run(root: MlirOperation) -> bool {
    let mut ok = true;
    for op in ir::collect(root, OPS) {
        for i in 0..ir::num_operands(op) {
            let v = ir::operand(op, i);
            if ir::is_tensor(ir::value_type(v)) && layout(v).is_none() {
                ok &= bad(op, format!("operand #{i} still has layout '?' (run axe-infer-layout)"));
            }
        }
        ok &= match ir::name(op).as_str() {
            ods::ops::UNARY | ods::ops::CAST => {
                check_pointwise(op, &[ods::cast::operands::SOURCE], ods::cast::operands::DEST)
            }
            ods::ops::BINARY => check_pointwise(
                op,
                &[ods::binary::operands::LHS, ods::binary::operands::RHS],
                ods::binary::operands::DEST,
            ),
            ods::ops::REDUCE => {
                let (s, d) = (
                    ir::operand(op, ods::reduce::operands::SOURCE),
                    ir::operand(op, ods::reduce::operands::DEST),
                );
                match (layout(s), layout(d)) {
                    (Some(sl), Some(dl)) => {
                        let dims: Vec<usize> = ir::i64_array(op, ods::reduce::DIMS)
                            .iter()
                            .map(|&x| x as usize)
                            .collect();
                        match project::project(&sl, &shape(s), &dims) {
                            Ok(w) if !equal(&dl, &w) => bad(
                                op,
                                format!("the result's layout {dl} is not the projection {w} of the source's layout"),
                            ),
                            Err(e) => bad(op, format!("cannot project {sl}: {e}")),
                            _ => true,
                        }
                    }
                    _ => true,
                }
            }
            ods::ops::SLICE => check_slice(op),
            ods::ops::GEMM => check_gemm(op),
            _ => true,
        };
    }
    ok
}
