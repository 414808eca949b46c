//! TMA stores into a peer device's memory (`axe.copy %shared, %peer_tile schedule tma`, where
//! the destination is a distributed tensor sliced to one device of a mesh): the TMA unit's
//! one-dimensional bulk copies (`cp.async.bulk.global.shared::cta`), which take a plain
//! address, so a peer's buffer (its address from the peer table) needs no tensor map.
//!
//! **Dispatch from the layouts.** Every element of the tile is placed on both sides (the shared
//! offset, swizzle applied; the destination's memory offset); walked in shared order, maximal
//! runs that are consecutive on both sides become one bulk copy each. Every run must be a
//! multiple of 16 bytes and start 16-byte aligned on both sides (the instruction's rule): a
//! layout pair without such runs is a located error naming the first run that breaks it. A
//! tile that is contiguous on both sides in one order (the fused GEMM + reduce-scatter lays
//! its partial-tile slots out so) is one copy.
//!
//! **Completion.** The unit's threads make their writes of the shared tile visible to the async
//! proxy (`fence.proxy.async.shared::cta`) and synchronize; the unit's first thread issues the
//! runs and commits them as one bulk group, then waits only until the group has *read* the
//! shared tile (`cp.async.bulk.wait_group.read 0`), and the unit synchronizes again: the
//! shared tile is free when the op ends, while the writes travel over NVLink behind the
//! unit's next work. They are complete where something needs them: any `axe.signal` of the
//! kernel (every thread of the signalling unit waits for its own bulk groups before the
//! unit's barrier and release fence: whoever acquires the flag sees the data, whichever
//! thread issued it) and the kernel's exit (every thread waits for its groups). An async
//! store (`axe.copy async ... schedule tma`) returns after the commit, without waiting for the
//! read or synchronizing again: its token's `axe.wait` in the same unit frees the shared tile
//! (`tma::wait_stores`), so a unit can fill a second tile while the first one travels.
//!
//! **Reducing stores** (`axe.copy ... schedule tma reduce sum`, into a peer's memory or a local
//! buffer) are the same runs, each a bulk *reduction* (`cp.reduce.async.bulk ... .add`): the
//! TMA unit reads the shared run and adds it into the destination at its memory (the owner's
//! L2 for a peer). PTX gives each element's add relaxed, GPU-scope atomicity, so the CTAs of
//! one device may add into one tile unordered; adds from several devices into one element
//! rely on the reductions being performed at the destination's memory (what the fused
//! GEMM + reduce-scatter's reduce form does, checked on 2 and 4 GPUs), which the PTX memory
//! model does not state. Into a local buffer the op waits for the group to complete (a local TMA store
//! is complete when the op ends); into a peer's memory it completes as a copy does.
//!
//! The peer's buffer is taken to be aligned as the function argument declares (`axe.align`):
//! every rank's symmetric buffer is allocated alike (PyTorch's symmetric memory, NVSHMEM), so
//! the local declaration stands for the peer table's addresses.

use crate::error::AxeError;

use mlir_sys::*;

use super::address::memory_offsets;
use super::builder::{Ix, B};
use super::context::{unit_linear, Ctx, R};
use super::tensor::{tensor, Mem, Tensor};
use super::types::bit_width;
use super::{barrier, shared};
use crate::dialect::ods::{self, ReduceKind};
use crate::ir;
use crate::target::ScopeKind;

/// The bulk copy's granularity: sizes and both addresses are multiples of 16 bytes.
const BULK_ALIGN: i64 = 16;

/// At most this many bulk copies per store (each is an instruction of the issuing thread,
/// unrolled): more means the layouts share only short runs, which threads' vector stores
/// move better.
const MAX_RUNS: usize = 256;

/// The PTX reduction suffix of `cp.reduce.async.bulk` for `kind` over elements of type `elt`
/// (the instruction's table: `.add` of f16/bf16 only as `.add.noftz`; integers' `.add` is the
/// same for signed and unsigned), or why there is none.
pub fn reduction_suffix(kind: ReduceKind, elt: &str) -> Result<&'static str, String> {
    match (kind, elt) {
        (ReduceKind::Sum, "f16") => Ok(".add.noftz.f16"),
        (ReduceKind::Sum, "bf16") => Ok(".add.noftz.bf16"),
        (ReduceKind::Sum, "f32") => Ok(".add.f32"),
        (ReduceKind::Sum, "f64") => Ok(".add.f64"),
        (ReduceKind::Sum, "i32") => Ok(".add.u32"),
        (ReduceKind::Sum, "i64") => Ok(".add.u64"),
        (ReduceKind::Sum, _) => Err(format!(
            "a reducing TMA store sums f16, bf16, f32, f64, i32 or i64 elements, not {elt}"
        )),
        (k, _) => Err(format!(
            "a reducing TMA store is lowered for 'sum' only, not '{}'",
            k.as_str()
        )),
    }
}

/// One bulk copy: element offsets of its first element on the shared and global sides, and
/// its length in elements.
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub shared: i64,
    pub global: i64,
    pub len: i64,
}

/// The runs of a tile whose elements sit at `placed[x] = (shared offset, global offset)`:
/// maximal stretches, in shared order, that are consecutive on both sides; each checked
/// against the 16-byte rule (`elt_bytes` per element). The error names the offending run.
pub fn runs(mut placed: Vec<(i64, i64)>, elt_bytes: i64) -> Result<Vec<Run>, String> {
    placed.sort_unstable();
    let mut out: Vec<Run> = Vec::new();
    for (s, g) in placed {
        match out.last_mut() {
            Some(r) if s == r.shared + r.len && g == r.global + r.len => r.len += 1,
            _ => out.push(Run {
                shared: s,
                global: g,
                len: 1,
            }),
        }
    }
    for r in &out {
        let (bytes, sb, gb) = (r.len * elt_bytes, r.shared * elt_bytes, r.global * elt_bytes);
        if bytes % BULK_ALIGN != 0 || sb % BULK_ALIGN != 0 || gb % BULK_ALIGN != 0 {
            return Err(format!(
                "a run of {} elements consecutive on both sides ({bytes} bytes at shared byte {sb}, global byte {gb}) is not a whole number of 16-byte units at 16-byte aligned offsets, which the bulk copy needs",
                r.len
            ));
        }
    }
    Ok(out)
}

/// The tile's elements placed on both sides: (shared element offset, swizzled; destination
/// memory offset, static part).
fn placements(op: MlirOperation, src: &Tensor, dst: &Tensor) -> R<Vec<(i64, i64)>> {
    let offsets = |t: &Tensor, what: &str| {
        memory_offsets(&t.layout, t.size())
            .map_err(|e| AxeError::at(op, format!("the {what}'s layout {}: {e}", t.layout)))
    };
    let shared = offsets(src, "shared source")?;
    let global = offsets(dst, "destination")?;
    Ok(shared
        .into_iter()
        .map(|s| src.swizzle.map_or(s, |z| z.apply(s)))
        .zip(global)
        .collect())
}

/// Lowers a store of a shared tile into a peer's memory, or a reducing store (see the module
/// documentation), executed by the unit of `scope` (the CTA or a warpgroup).
pub fn lower_bulk_store(op: MlirOperation, ctx: &Ctx, scope: ScopeKind) -> R<()> {
    if !matches!(scope, ScopeKind::Cta | ScopeKind::Warpgroup) {
        return Err(AxeError::at(
            op,
            format!(
                "a TMA store is issued by a CTA or a warpgroup; this one executes at {} scope",
                format!("{scope:?}").to_lowercase()
            ),
        ));
    }
    let asynchronous = super::tma_plan::is_async_store(op);
    let src = tensor(ctx, op, ir::operand(op, ods::copy::operands::SOURCE))?;
    let dst = tensor(ctx, op, ir::operand(op, ods::copy::operands::DEST))?;
    if src.mem != Mem::Shared {
        return Err(AxeError::at(op, "internal: a bulk store's source is a shared tile"));
    }
    let peer = super::tma_plan::is_peer_store(op);
    if peer && !dst.remote {
        // Name the destination's declared layout: the resolved one has its gpuid replica dropped.
        let declared = ir::tensor_layout(ir::value_type(ir::operand(op, ods::copy::operands::DEST)))
            .map_or_else(|| dst.layout.to_string(), |l| l.to_string());
        return Err(AxeError::at(
            op,
            format!("a TMA store into a distributed tensor replicated over the devices (layout {declared}) is not lowered: each device writes its own copy; copy it without `schedule tma` (or, reducing, into one device's slice)"),
        ));
    }
    if src.shape != dst.shape {
        return Err(AxeError::at(
            op,
            format!(
                "internal: a TMA store between shapes {:?} and {:?} (the axe.copy verifier requires one shape)",
                src.shape, dst.shape
            ),
        ));
    }
    if src.dyn_offset.as_const() != Some(0) {
        return Err(AxeError::at(
            op,
            "a TMA copy's shared tile with a run-time offset is not supported",
        ));
    }
    if crate::slice::is_window_inside(ir::operand(op, ods::copy::operands::DEST)) {
        return Err(AxeError::at(op, super::tma_plan::tma_window_refusal("destination")));
    }
    if dst.bounds.iter().any(Option::is_some) {
        let into = if peer {
            "of a peer's memory is not stored by TMA"
        } else {
            "is not reduced into by TMA"
        };
        return Err(AxeError::at(
            op,
            format!("a {{clip}} tile {into} (the bulk copy writes whole runs)"),
        ));
    }
    let reduction = ir::enum_attr::<ReduceKind>(op, ods::copy::REDUCE)?
        .map(|k| reduction_suffix(k, &ir::type_to_string(src.elt)).map_err(|e| AxeError::at(op, e)))
        .transpose()?;
    let bits = bit_width(src.elt);
    if bits % 8 != 0 {
        return Err(AxeError::at(
            op,
            "TMA stores whole bytes: the element type is narrower than a byte",
        ));
    }
    let eb = bits / 8;
    let what = if peer {
        "a TMA store into a peer's memory"
    } else {
        "a reducing TMA store"
    };
    if dst.base_align < BULK_ALIGN {
        return Err(AxeError::at(op, format!(
            "{what} needs a {BULK_ALIGN}-byte aligned buffer: declare it on the function argument ({{axe.align = {BULK_ALIGN} : i64}})"
        )));
    }
    // The destination's run-time offset (tile origins) moves every run by a multiple of it.
    if (dst.dyn_align * eb) % BULK_ALIGN != 0 {
        return Err(AxeError::at(op, format!(
            "the destination tile's run-time origin moves it by multiples of {} bytes in layout {}, which does not keep a bulk copy or reduction 16-byte aligned",
            dst.dyn_align * eb, dst.layout
        )));
    }
    let runs = runs(placements(op, &src, &dst)?, eb)
        .map_err(|e| AxeError::at(op, format!("shared layout {} into {}: {e}", src.layout, dst.layout)))?;
    if runs.len() > MAX_RUNS {
        return Err(AxeError::at(op, format!(
            "shared layout {} into {} shares runs of {} bytes at most: {} bulk operations (more than {MAX_RUNS}); lay one of the two out in the other's order{}",
            src.layout, dst.layout, runs.iter().map(|r| r.len * eb).max().unwrap_or(0), runs.len(),
            if reduction.is_some() { "" } else { ", or copy it without `schedule tma`" }
        )));
    }
    let b = B::before(op);
    shared::align_buffer(&b, op, src.buf, BULK_ALIGN)?;
    let sync = |g: &B| barrier::store_unit(g, ctx, scope);
    b.fence_proxy_async_shared();
    sync(&b);
    let i64t = b.int_type(64);
    let sbase = b.index_cast(b.extract_aligned_pointer_as_index(src.buf), i64t);
    let gbase = b.extract_aligned_pointer_as_index(dst.buf);
    let first = b.cmp(
        melior::dialect::arith::CmpiPredicate::Eq,
        unit_linear(&b, ctx, scope).0,
        Ix::C(0),
    );
    b.if_(first, |ib| -> R<()> {
        for r in &runs {
            let s = ib.addi(sbase, ib.index_cast(ib.cidx(r.shared * eb), i64t));
            let g = ib.add(Ix::V(gbase), ib.mul(ib.add(Ix::C(r.global), dst.dyn_offset), eb));
            let g = ib.index_cast(ib.ix(g), i64t);
            match reduction {
                // The shared window's addresses are 32-bit.
                Some(red) => {
                    ib.cp_reduce_async_bulk_shared_to_global(red, g, ib.trunci(s, ib.int_type(32)), r.len * eb)
                }
                None => ib.cp_async_bulk_shared_to_global(
                    ib.inttoptr(g, ib.llvm_ptr(1)),
                    ib.inttoptr(s, ib.llvm_ptr(3)),
                    ib.ci32(r.len * eb),
                ),
            }
        }
        ib.cp_async_bulk_commit_group();
        if asynchronous {
            // Read when the token's wait returns (`tma::wait_stores`).
        } else if peer {
            // Complete at the unit's next signal or the kernel's exit.
            ib.cp_async_bulk_wait_group_read(0);
        } else {
            ib.cp_async_bulk_wait_group(0);
        }
        Ok(())
    })?;
    if !asynchronous {
        sync(&b);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tile_contiguous_on_both_sides_is_one_run() {
        // 4 x 8 f16, row-major on both sides, the destination at element 64.
        let placed = (0..32).map(|x| (x, 64 + x)).collect();
        assert_eq!(
            runs(placed, 2).unwrap(),
            vec![Run {
                shared: 0,
                global: 64,
                len: 32
            }]
        );
    }

    #[test]
    fn rows_apart_in_global_memory_are_one_run_each() {
        // 4 rows of 8 f16 (16 bytes), global rows 104 elements apart (208 bytes: 16-aligned).
        let placed: Vec<(i64, i64)> = (0..32).map(|x| (x, (x / 8) * 104 + x % 8)).collect();
        let r = runs(placed, 2).unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(
            r[1],
            Run {
                shared: 8,
                global: 104,
                len: 8
            }
        );
    }

    #[test]
    fn runs_off_the_16_byte_grid_are_refused() {
        let placed: Vec<(i64, i64)> = (0..32).map(|x| (x, (x / 8) * 100 + x % 8)).collect();
        let e = runs(placed, 2).unwrap_err();
        assert!(e.contains("global byte 200"), "{e}");
        // A transposed destination: runs of one element (2 bytes).
        let placed: Vec<(i64, i64)> = (0..32).map(|x| (x, (x % 8) * 4 + x / 8)).collect();
        assert!(runs(placed, 2).unwrap_err().contains("2 bytes"));
    }
}
