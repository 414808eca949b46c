//! `axe.gemm` → `nvgpu.mma.sync` (m16n8k16, f16/bf16 → f32), which upstream
//! `convert-nvgpu-to-nvvm` turns into the PTX `mma.sync.aligned.m16n8k16` instruction; on
//! sm_90a, shared A and B with the wgmma accumulator layout go to `wgmma` instead (`wgmma.rs`).
//!
//! The accumulator must be laid out as the m16n8k16 C fragment tiled over a `wm × wn` warp
//! grid (what `axe-infer-layout` produces; recognised here by comparing with every warp grid
//! of the executing scope). A and B take the matching fragment layouts: register operands
//! must already have them; shared or global operands are first copied into per-thread
//! fragment registers (layout-driven loads, see `distribute.rs`). The layouts are warp-uniform —
//! every warp holds its atoms at the same register offsets — which is checked by enumeration,
//! so one straight-line sequence of `mma.sync` over register offsets serves every warp.
//!
//! That sequence goes k16 step by k16 step, each step's fragments loaded before the previous
//! step's `mma.sync` (see `lower`), and a fragment address that is a constant away from an
//! earlier one for every warp and lane (checked by evaluating both) is emitted as that sum.

use crate::error::{AtOp, AxeError};
use melior::dialect::arith::CmpiPredicate;
use std::collections::{BTreeMap, BTreeSet};

use axe_layout::{Axis, Layout};
use mlir_sys::*;

use super::address::same;
use super::builder::{has_attr, Ix, B};
use super::context::{coords, Ctx, R};
use super::distribute::into_registers;
use super::tensor::{swizzled, tensor, Mem, Tensor};
use super::types::{bit_width, is_float};
use crate::dialect::ods;
use crate::infer_layout::gemm::{fragments_for, mma_layouts, transpose, warp_grid, WgmmaInput};
use crate::ir;
use crate::target::{mma, ScopeKind};

/// For each warp, the register offset at which it holds the atom starting at `origin` (only
/// warps that hold it), over a 2-D `shape`.
fn atom_regs(l: &Layout, shape: &[i64], origin: [i64; 2]) -> Vec<(i64, i64)> {
    let (warp, reg) = (Axis::from("warp"), Axis::from("reg"));
    let mut out: Vec<(i64, i64)> = l
        .eval_set(&origin, shape)
        .unwrap_or_default()
        .iter()
        .map(|p| (p.get(&warp).copied().unwrap_or(0), p.get(&reg).copied().unwrap_or(0)))
        .collect();
    out.sort();
    out
}

/// One mma.sync of the warp-uniform schedule: the (A, B, C) register offsets, and the atom
/// `(mi, ni, ki)` it computes on each warp.
struct Step {
    regs: Triple,
    atoms: Vec<Triple>,
}

/// An atom `(mi, ni, ki)` of the gemm's grid, or a step's `(A, B, C)` register offsets.
type Triple = (i64, i64, i64);

/// The mma.sync steps one warp issues; errors when warps differ.
fn schedule(a: &Layout, b: &Layout, c: &Layout, m: i64, n: i64, k: i64, warps: i64) -> Result<Vec<Step>, AxeError> {
    let mut per_warp: Vec<std::collections::BTreeMap<Triple, Triple>> = vec![Default::default(); warps as usize];
    for mi in 0..m / mma::M {
        for ni in 0..n / mma::N {
            let cs = atom_regs(c, &[m, n], [mi * mma::M, ni * mma::N]);
            let &[(w, creg)] = cs.as_slice() else {
                return Err(AxeError::Message(format!(
                    "internal: the accumulator element ({}, {}) is not held exactly once (fragments_for refuses replicated accumulators)",
                    mi * 16,
                    ni * 8
                )));
            };
            for ki in 0..k / mma::K {
                let areg = atom_regs(a, &[m, k], [mi * mma::M, ki * mma::K])
                    .into_iter()
                    .find(|x| x.0 == w);
                let breg = atom_regs(b, &[k, n], [ki * mma::K, ni * mma::N])
                    .into_iter()
                    .find(|x| x.0 == w);
                let (Some((_, ar)), Some((_, br))) = (areg, breg) else {
                    return Err(AxeError::Message(format!(
                        "internal: warp {w} lacks the A or B fragment of atom ({mi}, {ni}, {ki}) (fragments_for builds A and B from C)"
                    )));
                };
                per_warp[w as usize].insert((ar, br, creg), (mi, ni, ki));
            }
        }
    }
    let keys = |s: &std::collections::BTreeMap<Triple, Triple>| s.keys().copied().collect::<BTreeSet<_>>();
    if per_warp.iter().any(|s| keys(s) != keys(&per_warp[0])) {
        return Err(AxeError::Message("the mma tiling is not the same on every warp".into()));
    }
    Ok(per_warp[0]
        .keys()
        .map(|r| Step {
            regs: *r,
            atoms: per_warp.iter().map(|s| s[r]).collect(),
        })
        .collect())
}

/// How an operand's fragments are loaded with `ldmatrix`: whether `.trans` is needed, and how
/// many 8x8 matrices (x4 for A; x2 for one B fragment, x4 for two, see [`BLoad`]).
struct Ldmatrix {
    transpose: bool,
    tiles: i64,
}

/// The stored (row, col) of the address lane `l` supplies for the fragment of the atom at
/// logical origin `(o0, o1)` (in the operand's logical mma coordinates: A is (m, k), B is (k, n)).
/// `transposed_storage`: B stored as [N, K] (else [K, N]). `pair` (B only): `Some(dn)` for an
/// `.x4` load of the atom and the atom `dn` columns of n further on (the same warp's next n8
/// atom), lanes 16-31 addressing the second (its fragment lands in registers 2 and 3).
fn lane_address(op_is_a: bool, transposed_storage: bool, pair: Option<i64>, o0: Ix, o1: Ix, l: Ix, g: &B) -> (Ix, Ix) {
    let r = g.rem(l, 8);
    let j = g.rem(g.div(l, 8), 2);
    let hi = g.div(l, 16);
    if op_is_a {
        // A (m, k) stored [M, K]: matrices 0..3 = (rows +0|+8) x (cols +0|+8), row-major.
        return (g.add(g.add(o0, g.mul(j, 8)), r), g.add(o1, g.mul(hi, 8)));
    }
    let n0 = match pair {
        Some(dn) => g.add(o1, g.mul(hi, dn)),
        None => o1,
    };
    if !transposed_storage {
        // B (k, n) stored [K, N]: rows k0 + 8 j + r, column n0; loaded with .trans.
        (g.add(g.add(o0, g.mul(j, 8)), r), n0)
    } else {
        // B stored [N, K]: rows n0 + r, columns k0 + 8 j.
        (g.add(n0, r), g.add(o0, g.mul(j, 8)))
    }
}

/// How a B fragment is loaded: alone (`ldmatrix.x2`); or by one `ldmatrix.x4` together with
/// the warp's next n8 atom at the same k16 step (`Low`: that atom's index, register offset and
/// distance in columns of n); or as that next atom (`High`, with the first one's index).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BLoad {
    Single,
    Low { partner: i64, reg: i64, dn: i64 },
    High { low: i64 },
}

/// Checks, for every step, warp and lane, that what `ldmatrix` delivers from the addresses
/// `lane_address` computes (evaluated with constants, through the same code) is exactly the
/// fragment the layout says the lane holds in those registers: the compile-time oracle for the
/// addressing (the PTX ISA's ldmatrix semantics against the fragment layout).
#[allow(clippy::too_many_arguments)]
fn check_ldmatrix(
    g: &B,
    frag: &Layout,
    logical: [i64; 2],
    is_a: bool,
    stored_transposed: bool,
    sched: &[Step],
    origin: &dyn Fn(&Triple) -> (i64, i64),
    reg_of: &dyn Fn(&Step) -> i64,
    role: &dyn Fn(&Step) -> BLoad,
    first_warp_origin: &dyn Fn(&Step, usize) -> (i64, i64),
) -> Result<(), AxeError> {
    let c = |x: Ix| match x {
        Ix::C(v) => Ok(v),
        Ix::V(_) => Err(AxeError::Message(
            "internal: the ldmatrix self-check's addresses did not fold to constants".into(),
        )),
    };
    // Evaluated once per element of every step: compiled, not through the map-valued definition.
    frag.check_admits(&logical)?;
    let compiled = axe_layout::compiled::Compiled::new(frag)?;
    for st in sched {
        // A `High` fragment arrives with its `Low` partner's load, checked there.
        let (pair, partner) = match role(st) {
            BLoad::High { .. } => continue,
            BLoad::Low { reg, dn, .. } => (Some(dn), Some(reg)),
            BLoad::Single => (None, None),
        };
        for (w, atom) in st.atoms.iter().enumerate() {
            let (o0, o1) = origin(atom);
            if first_warp_origin(st, w) != (o0, o1) {
                return Err(AxeError::Message(format!(
                    "internal: the ldmatrix self-check: warp {w}'s atom origin ({o0}, {o1}) is not what the warp offsets give"
                )));
            }
            for t in 0..32i64 {
                let (gq, q) = (t / 4, t % 4);
                let matrices = if is_a || pair.is_some() { 4 } else { 2 };
                for j in 0..matrices {
                    // Matrix j fills this fragment's register pair j, or (j >= 2 of a pair)
                    // the partner's pair j - 2.
                    let reg = match partner {
                        Some(r) if j >= 2 => r + 2 * (j - 2),
                        _ => reg_of(st) + 2 * j,
                    };
                    for bit in 0..2 {
                        // The stored element ldmatrix hands thread t in register pair j: row
                        // t / 4 of matrix j, column pair t % 4 (without .trans: the row comes
                        // from lane 8 j + t / 4); or, transposed, row 2 (t % 4) + bit, column
                        // t / 4 (the row from lane 8 j + 2 (t % 4) + bit).
                        let (from_lane, col_shift) = if is_a || stored_transposed {
                            (8 * j + gq, 2 * q + bit)
                        } else {
                            (8 * j + 2 * q + bit, gq)
                        };
                        let (r, col) =
                            lane_address(is_a, stored_transposed, pair, Ix::C(o0), Ix::C(o1), Ix::C(from_lane), g);
                        let (sr, sc) = (c(r)?, c(col)? + col_shift);
                        let logical_coord = if !is_a && stored_transposed { [sc, sr] } else { [sr, sc] };
                        let x = axe_layout::eval::flatten(&logical_coord, &logical)?;
                        let want = [("warp", w as i64), ("lane", t), ("reg", reg + bit)];
                        if !compiled.contains(x, &want) {
                            return Err(AxeError::Message(format!(
                                "internal: the ldmatrix self-check: ldmatrix gives lane {t} of warp {w} element {logical_coord:?}, which the fragment layout {frag} does not put in register {}",
                                reg + bit
                            )));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks by enumeration that every 8-element chunk ldmatrix would read from `t` (stored shape
/// `shape`, chunk along the stored column) is contiguous and 16-byte aligned.
fn ldmatrix_ok(t: &Tensor, shape: &[i64]) -> bool {
    let m = Axis::memory();
    if shape.len() != 2 || shape[1] % 8 != 0 || t.mem != Mem::Shared || bit_width(t.elt) != 16 {
        return false;
    }
    if t.swizzle.is_some_and(|s| s.base < 3) {
        return false;
    }
    if t.layout.check_admits(shape).is_err() {
        return false;
    }
    let Ok(compiled) = axe_layout::compiled::Compiled::new(&t.layout) else {
        return false;
    };
    let mem = compiled.axis(m.name());
    let mut point = vec![0i64; compiled.axes.len()];
    // The memory offset of element (r, c) when it has exactly one point, on the memory axis only.
    let mut at = |r: i64, c: i64| -> Option<i64> {
        let mut count = 0;
        compiled.for_each_point(r * shape[1] + c, |p| {
            count += 1;
            point.copy_from_slice(p);
        });
        let off = mem.map_or(0, |k| point[k]);
        (count == 1 && point.iter().enumerate().all(|(k, v)| Some(k) == mem || *v == 0)).then_some(off)
    };
    (0..shape[0]).all(|r| {
        (0..shape[1] / 8).all(|cc| {
            let Some(base) = at(r, 8 * cc) else { return false };
            base % 8 == 0 && (1..8).all(|i| at(r, 8 * cc + i) == Some(base + i))
        })
    })
}

/// Evaluates `layout` over `shape` at a dynamic coordinate: each dimension's iters (grouped by
/// the shape) unflatten its coordinate; returns the memory offset.
fn eval_dynamic(g: &B, layout: &Layout, shape: &[i64], coord: &[Ix]) -> Result<Ix, AxeError> {
    let grouped = layout.group(shape)?;
    let mut off = Ix::C(super::address::offset(layout, "m"));
    for (d, range) in grouped.groups.iter().enumerate() {
        let mut inner = 1i64;
        for i in range.clone().rev() {
            let it = &grouped.layout.shard[i];
            if !it.axis.is_memory() {
                return Err(AxeError::Message(format!("internal: shared layout {layout} is not on the memory axis (shared tensors are refused on other axes first)")));
            }
            let digit = if inner == 1 && range.len() == 1 {
                coord[d]
            } else {
                g.rem(g.div(coord[d], inner), it.extent)
            };
            off = g.add(off, g.mul(digit, it.stride));
            inner *= it.extent;
        }
    }
    Ok(off)
}

/// A per-thread register buffer holding a fragment layout.
fn fragment_registers(b: &B, layout: &Layout, shape: Vec<i64>, elt: MlirType) -> Tensor {
    let span = layout
        .span()
        .ok()
        .and_then(|s| s.get(&Axis::from("reg")).copied())
        .unwrap_or(1);
    let buf = b.alloca(b.memref_type(elt, &[span]), None);
    Tensor::scratch(buf, Mem::Register, layout.clone(), shape, elt)
}

pub fn lower(op: MlirOperation, ctx: &mut Ctx, scope: ScopeKind) -> R<()> {
    if ctx.emulate {
        return Err(AxeError::at(
            op,
            "emulate-threads-on-cpu cannot run mma.sync (a warp-collective instruction)",
        ));
    }
    let b = B::before(op);
    let (ta, tb) = (
        has_attr(op, ods::gemm::TRANSPOSE_A),
        has_attr(op, ods::gemm::TRANSPOSE_B),
    );
    let a = tensor(ctx, op, ir::operand(op, ods::gemm::operands::A))?;
    let bt = tensor(ctx, op, ir::operand(op, ods::gemm::operands::B))?;
    let c = tensor(ctx, op, ir::operand(op, ods::gemm::operands::C))?;
    for (what, t) in [("A", &a), ("B", &bt), ("C", &c)] {
        super::tensor::refuse_pinned(op, t, what)?;
    }
    let (m, n) = (c.shape[0], c.shape[1]);
    let k = if ta { a.shape[0] } else { a.shape[1] };
    // wgmma (sm_90a, shared A and B, the D-fragment accumulator) checks its own types: it
    // also takes FP8.
    if let Some(wg) = super::wgmma::selected(op, ctx, scope, &a, &bt, &c) {
        return super::wgmma::lower(op, ctx, wg, &a, &bt, &c, ta, tb);
    }
    // `overwrite` on mma.sync: C zeroed first (wgmma's scale-d 0 has no mma.sync form).
    if has_attr(op, ods::gemm::OVERWRITE) && c.mem == Mem::Register {
        let zero = b.cfloat(0.0, c.elt);
        for r in 0..ir::shape(ir::value_type(c.buf)).iter().product::<i64>() {
            b.store(zero, c.buf, &[b.cidx(r)]);
        }
    }
    let sixteen_bit = matches!(WgmmaInput::of(a.elt), Some(WgmmaInput::F16 | WgmmaInput::BF16));
    let f32_acc = is_float(c.elt) && bit_width(c.elt) == 32;
    if !sixteen_bit || WgmmaInput::of(bt.elt) != WgmmaInput::of(a.elt) || !f32_acc || c.mem != Mem::Register {
        let fp8 = matches!(WgmmaInput::of(a.elt), Some(WgmmaInput::E4M3 | WgmmaInput::E5M2));
        return Err(AxeError::at(op, format!(
            "mma.sync m16n8k16 takes f16/bf16 A and B and a register f32 accumulator (got {}, {} and a {} {:?} accumulator){}",
            ir::type_to_string(a.elt),
            ir::type_to_string(bt.elt),
            ir::type_to_string(c.elt),
            c.mem,
            if fp8 { "; FP8 gemms lower only to wgmma: an sm_90a target, A and B in shared memory, a register accumulator with the wgmma layout" } else { "" }
        )));
    }
    if m % mma::M != 0 || n % mma::N != 0 || k % mma::K != 0 {
        return Err(AxeError::at(
            op,
            format!("a {m}x{n}x{k} gemm is not a multiple of the m16n8k16 atom"),
        ));
    }
    let warps = coords(&b, ctx, scope).warps;
    // The fragments of A and B follow from the accumulator's layout, whatever tiling of the
    // atom over warps and registers it is (paper §3.4); where it is none, the error names the
    // tiling axe-infer-layout would choose.
    let frags = fragments_for(&c.layout, m, n, k).map_err(|e| {
        let nearest = warp_grid(m, n, warps)
            .and_then(|(wm, wn)| mma_layouts(m, n, k, wm, wn).ok())
            .map(|l| format!("; the nearest tiling over the {warps} warps of this scope is {}", l.c))
            .unwrap_or_default();
        AxeError::at(op, format!(
            "the accumulator layout {} is not a tiling of the mma.sync m16n8k16 fragment over warps and registers ({e}){nearest}",
            c.layout
        ))
    })?;
    let sched = schedule(&frags.a, &frags.b, &frags.c, m, n, k, warps).at(op)?;
    // A and B fragments: the operand itself when it is in registers with the fragment layout,
    // otherwise registers filled from memory through the (transposed) fragment layout.
    let operand = |t: &Tensor, frag: &Layout, logical: [i64; 2], trans: bool, what: &str| -> R<Tensor> {
        let want = if trans {
            transpose(frag, &logical).at(op)?
        } else {
            frag.clone()
        };
        if t.mem == Mem::Register {
            if !same(&t.layout, &want) {
                return Err(AxeError::at(
                    op,
                    format!(
                        "register operand {what} has layout {}, not the mma.sync fragment layout {want}",
                        t.layout
                    ),
                ));
            }
            return Ok(Tensor {
                bounds: Vec::new(),
                ..t.clone()
            });
        }
        let regs = fragment_registers(&b, &want, t.shape.clone(), t.elt);
        into_registers(&b, op, ctx, scope, t, &regs)?;
        Ok(regs)
    };
    // ldmatrix for 16-bit shared operands whose 8-element chunks are contiguous and aligned
    // (A stored [M, K]; B stored [K, N] with .trans or [N, K]); otherwise fragments are copied
    // into registers by their layouts.
    let a_ld = (!ta && ldmatrix_ok(&a, &a.shape)).then_some(Ldmatrix {
        transpose: false,
        tiles: 4,
    });
    let b_ld = ldmatrix_ok(&bt, &bt.shape).then_some(Ldmatrix {
        transpose: !tb,
        tiles: 2,
    });
    let ra = if a_ld.is_none() {
        Some(operand(&a, &frags.a, [m, k], ta, "A")?)
    } else {
        None
    };
    let rb = if b_ld.is_none() {
        Some(operand(&bt, &frags.b, [k, n], tb, "B")?)
    } else {
        None
    };
    // The mma.sync fragment vectors: A 4x2, B 2x2 of the input type, C and D 2x2 of f32.
    let (a_vty, b_vty, f32_vty) = (
        b.vector_type(a.elt, &[4, 2]),
        b.vector_type(a.elt, &[2, 2]),
        b.vector_type(b.f32_type(), &[2, 2]),
    );
    // The warp's atom offsets relative to warp 0 (the schedule is warp-uniform): a select chain
    // over the warp's index in the executing scope (in a warpgroup scope, 0-3 whichever
    // warpgroup runs it: the CTA's warp id left warpgroups other than the first computing the
    // first warp's rows), shared by every step.
    let warp = coords(&b, ctx, scope).warp.unwrap_or(Ix::C(0));
    let shifts = |f: &dyn Fn(&Triple) -> i64| -> R<(Ix, Vec<i64>)> {
        let first = &sched[0];
        let delta: Vec<i64> = (0..warps as usize)
            .map(|w| f(&first.atoms[w]) - f(&first.atoms[0]))
            .collect();
        if sched
            .iter()
            .any(|st| (0..warps as usize).any(|w| f(&st.atoms[w]) - f(&st.atoms[0]) != delta[w]))
        {
            return Err(AxeError::at(
                op,
                "internal: the mma atoms of the warps are not translates of one another (fragments_for tiles one atom grid over the warps)",
            ));
        }
        let mut v = Ix::C(0);
        for (w, d) in delta.iter().enumerate().skip(1) {
            if *d != 0 {
                let is_w = b.cmp(CmpiPredicate::Eq, warp, Ix::C(w as i64));
                v = Ix::V(b.select(is_w, b.ix(Ix::C(*d)), b.ix(v)));
            }
        }
        Ok((v, delta))
    };
    if sched.iter().any(|st| st.atoms.iter().any(|t| t.2 != st.atoms[0].2)) {
        return Err(AxeError::at(
            op,
            "internal: the warps of this mma tiling split K (fragments_for tiles M and N over the warps only)",
        ));
    }
    // In elements: m atoms are 16 rows, n atoms 8 columns.
    let ((dm, delta_m), (dn, delta_n)) = if a_ld.is_some() || b_ld.is_some() {
        (shifts(&|t| t.0 * mma::M)?, shifts(&|t| t.1 * mma::N)?)
    } else {
        ((Ix::C(0), vec![0; warps as usize]), (Ix::C(0), vec![0; warps as usize]))
    };
    // A warp's B fragments at one k16 step, taken two by two in its own n order (warp 0's
    // atoms; every warp's are translates, so the distance between the two is the same on every
    // warp), come from one `ldmatrix.x4` each: half the B load instructions. With the warps
    // innermost along n (what axe-infer-layout chooses) a warp's consecutive atoms are `wn`
    // atoms apart.
    let b_roles: BTreeMap<(i64, i64), BLoad> = if b_ld.is_some() {
        let mut per_k: BTreeMap<i64, BTreeMap<i64, i64>> = BTreeMap::new();
        for st in &sched {
            per_k.entry(st.atoms[0].2).or_default().insert(st.atoms[0].1, st.regs.1);
        }
        let mut roles = BTreeMap::new();
        for (ki, atoms) in per_k {
            let atoms: Vec<(i64, i64)> = atoms.into_iter().collect();
            for two in atoms.chunks(2) {
                if let [(na, _), (nb, rb)] = *two {
                    roles.insert(
                        (na, ki),
                        BLoad::Low {
                            partner: nb,
                            reg: rb,
                            dn: (nb - na) * mma::N,
                        },
                    );
                    roles.insert((nb, ki), BLoad::High { low: na });
                }
            }
        }
        roles
    } else {
        BTreeMap::new()
    };
    let b_role = |ni: i64, ki: i64| b_roles.get(&(ni, ki)).copied().unwrap_or(BLoad::Single);
    // The compile-time oracle for the ldmatrix addressing (see check_ldmatrix): the origins the
    // emitted code computes (warp 0's atom plus the warp offset table) against the atoms. A
    // brute-force self-check of this lowering, so it runs in debug builds (every test of the
    // suite), not in release builds (issue 13: no enumeration on release code paths).
    let self_check = cfg!(debug_assertions);
    if self_check && a_ld.is_some() {
        check_ldmatrix(
            &b,
            &frags.a,
            [m, k],
            true,
            false,
            &sched,
            &|t| (t.0 * mma::M, t.2 * mma::K),
            &|st| st.regs.0,
            &|_| BLoad::Single,
            &|st, w| (st.atoms[0].0 * mma::M + delta_m[w], st.atoms[0].2 * mma::K),
        )
        .map_err(|e| AxeError::at(op, format!("internal error: {e}")))?;
    }
    if self_check && b_ld.is_some() {
        check_ldmatrix(
            &b,
            &frags.b,
            [k, n],
            false,
            tb,
            &sched,
            &|t| (t.2 * mma::K, t.1 * mma::N),
            &|st| st.regs.1,
            &|st| b_role(st.atoms[0].1, st.atoms[0].2),
            &|st, w| (st.atoms[0].2 * mma::K, st.atoms[0].1 * mma::N + delta_n[w]),
        )
        .map_err(|e| AxeError::at(op, format!("internal error: {e}")))?;
    }
    let lane = b.rem(Ix::V(ctx.tid), crate::target::WARP_THREADS);
    let gather = |t: &Tensor, base: i64, count: i64, ty: MlirType| {
        let elems: Vec<MlirValue> = (0..count).map(|i| b.load(t.buf, &[b.cidx(base + i)])).collect();
        b.vector_from_elements(&elems, ty)
    };
    // Each fragment address as a constant away from an earlier one where it can be: the
    // offsets every (warp, lane) of the scope would use, evaluated at compile time (the warp
    // table, the lane pattern, the layout and the swizzle are all static when the tensor's
    // run-time offset is zero), compared with those of the addresses already emitted. With the
    // 128-byte swizzle the 48 fragment addresses of a 64x64 warp tile fall into about 12 such
    // classes; a constant difference becomes an immediate offset of the ldmatrix, and the
    // registers left free let ptxas keep the next k16 step's fragments in flight.
    // An enumeration on the release path, unlike the self-checks below (issue 13): bounded by
    // the gemm's fragments times its warps times 32 lanes (about 12 000 points for a 128x256x64
    // gemm of 8 warps), not by any tensor's size.
    let static_offsets =
        |t: &Tensor, is_a: bool, stored_transposed: bool, pair: Option<i64>, origin: &dyn Fn(usize) -> (i64, i64)| {
            let Ix::C(base) = t.dyn_offset else { return None };
            let mut offsets = Vec::with_capacity(warps as usize * 32);
            for w in 0..warps as usize {
                let (o0, o1) = origin(w);
                for l in 0..crate::target::WARP_THREADS {
                    let (row, col) = lane_address(is_a, stored_transposed, pair, Ix::C(o0), Ix::C(o1), Ix::C(l), &b);
                    let Ok(Ix::C(e)) = eval_dynamic(&b, &t.layout, &t.shape, &[row, col]) else {
                        return None;
                    };
                    offsets.push(t.swizzle.as_ref().map_or(e + base, |s| s.apply(e + base)));
                }
            }
            Some(offsets)
        };
    // Address classes per load form (operand, x2 / x4): tables of different forms never match.
    // (load form, per-(warp, lane) offsets, the emitted address).
    type AddressClass = ((bool, i64, Option<i64>), Vec<i64>, Ix);
    let emitted: std::cell::RefCell<Vec<AddressClass>> = Default::default();
    #[allow(clippy::too_many_arguments)]
    let ldmatrix = |t: &Tensor,
                    ld: &Ldmatrix,
                    is_a: bool,
                    stored_transposed: bool,
                    o0: Ix,
                    o1: Ix,
                    ty: MlirType,
                    pair: Option<i64>,
                    offsets: Option<Vec<i64>>|
     -> R<MlirValue> {
        let form = (is_a, ld.tiles, pair);
        let near = offsets.as_ref().and_then(|want| {
            emitted.borrow().iter().find_map(|(f, have, off)| {
                let d = want[0] - have[0];
                (*f == form && want.iter().zip(have).all(|(x, y)| x - y == d)).then(|| b.add(*off, Ix::C(d)))
            })
        });
        let off = match near {
            Some(off) => off,
            None => {
                let (row, col) = lane_address(is_a, stored_transposed, pair, o0, o1, lane, &b);
                let mut off = b.add(eval_dynamic(&b, &t.layout, &t.shape, &[row, col]).at(op)?, t.dyn_offset);
                if let Some(s) = &t.swizzle {
                    off = swizzled(&b, s, off);
                }
                if let Some(have) = offsets {
                    emitted.borrow_mut().push((form, have, off));
                }
                off
            }
        };
        Ok(b.nvgpu_ldmatrix(t.buf, &[b.ix(off)], ty, ld.transpose, ld.tiles))
    };
    // Emission order, for the latency of shared memory: k16 steps outer. The live fragments
    // are then one step's A and B (not every k step's B fragments for a row of atoms), and each
    // step's fragments are loaded before the previous step's mma.sync are issued, so the
    // ldmatrix latency of step s + 1 overlaps the tensor work of step s (the fragment double
    // buffering of CUTLASS's sm80 mainloops). Each distinct fragment is loaded once; within a
    // step the atoms go in serpentine order (row by row, alternating column direction).
    let mut by_k: BTreeMap<i64, Vec<&Step>> = BTreeMap::new();
    for st in &sched {
        by_k.entry(st.atoms[0].2).or_default().push(st);
    }
    for steps in by_k.values_mut() {
        steps.sort_by_key(|st| {
            let (mi, ni, _) = st.atoms[0];
            (mi, if mi % 2 == 0 { ni } else { -ni })
        });
    }
    // One k16 step's fragments, keyed by warp 0's atom: A by (mi, ki), B by (ni, ki).
    type Frags = (BTreeMap<(i64, i64), MlirValue>, BTreeMap<(i64, i64), MlirValue>);
    let load = |steps: &[&Step]| -> R<Frags> {
        let (mut fa, mut fb) = (BTreeMap::new(), BTreeMap::new());
        for st in steps {
            let (ar, br, _) = st.regs;
            let (mi, ni, ki) = st.atoms[0];
            if let std::collections::btree_map::Entry::Vacant(e) = fa.entry((mi, ki)) {
                e.insert(match (&a_ld, &ra) {
                    (Some(ld), _) => ldmatrix(
                        &a,
                        ld,
                        true,
                        false,
                        b.add(dm, Ix::C(mi * mma::M)),
                        Ix::C(ki * mma::K),
                        a_vty,
                        None,
                        static_offsets(&a, true, false, None, &|w| (mi * mma::M + delta_m[w], ki * mma::K)),
                    )?,
                    (None, Some(r)) => gather(r, ar, 8, a_vty),
                    _ => unreachable!(),
                });
            }
            if fb.contains_key(&(ni, ki)) {
                continue;
            }
            match (&b_ld, &rb, b_role(ni, ki)) {
                (Some(ld), _, BLoad::Single) => {
                    let v = ldmatrix(
                        &bt,
                        ld,
                        false,
                        tb,
                        Ix::C(ki * mma::K),
                        b.add(dn, Ix::C(ni * mma::N)),
                        b_vty,
                        None,
                        static_offsets(&bt, false, tb, None, &|w| (ki * mma::K, ni * mma::N + delta_n[w])),
                    )?;
                    fb.insert((ni, ki), v);
                }
                (Some(ld), _, role) => {
                    // One x4 load for the warp's two atoms n0 and n1; its registers 0-1 are
                    // n0's fragment, 2-3 n1's (what check_ldmatrix verifies).
                    let n0 = match role {
                        BLoad::High { low } => low,
                        _ => ni,
                    };
                    let BLoad::Low {
                        partner: n1, dn: step, ..
                    } = b_role(n0, ki)
                    else {
                        unreachable!("a High atom's partner is Low")
                    };
                    let x4 = Ldmatrix {
                        transpose: ld.transpose,
                        tiles: 4,
                    };
                    // The x4 result has A's fragment type: four 8x8 matrices of the same
                    // 16-bit element (A and B were checked to share it).
                    let v = ldmatrix(
                        &bt,
                        &x4,
                        false,
                        tb,
                        Ix::C(ki * mma::K),
                        b.add(dn, Ix::C(n0 * mma::N)),
                        a_vty,
                        Some(step),
                        static_offsets(&bt, false, tb, Some(step), &|w| (ki * mma::K, n0 * mma::N + delta_n[w])),
                    )?;
                    for (half, atom) in [(0, n0), (1, n1)] {
                        let elems: Vec<MlirValue> = (0..4)
                            .map(|i| b.vector_extract(v, &[2 * half + i / 2, i % 2]))
                            .collect();
                        fb.insert((atom, ki), b.vector_from_elements(&elems, b_vty));
                    }
                }
                (None, Some(r), _) => {
                    fb.insert((ni, ki), gather(r, br, 4, b_vty));
                }
                _ => unreachable!(),
            }
        }
        Ok((fa, fb))
    };
    let groups: Vec<&Vec<&Step>> = by_k.values().collect();
    let mut current = match groups.first() {
        Some(g) => load(g)?,
        None => return Ok(()),
    };
    for (i, steps) in groups.iter().enumerate() {
        let next = match groups.get(i + 1) {
            Some(g) => Some(load(g)?),
            None => None,
        };
        for st in steps.iter() {
            let (_, _, cr) = st.regs;
            let (mi, ni, ki) = st.atoms[0];
            let c2 = gather(&c, cr, 4, f32_vty);
            let d2 = b.nvgpu_mma_sync(current.0[&(mi, ki)], current.1[&(ni, ki)], c2, f32_vty, [16, 8, 16]);
            for i in 0..4i64 {
                let e = b.vector_extract(d2, &[i / 2, i % 2]);
                b.store(e, c.buf, &[b.cidx(cr + i)]);
            }
        }
        if let Some(n) = next {
            current = n;
        }
    }
    Ok(())
}
