//! `axe.gemm` → `wgmma.mma_async` (sm_90a): `nvvm.wgmma.mma_async` m64nNk16 for f16/bf16 A
//! and B, m64nNk32 for FP8 (e4m3/e5m2, in any pairing), A and B in shared memory, an f32
//! accumulator in registers; upstream `convert-nvvm-to-llvm` turns it into the PTX
//! `wgmma.mma_async.sync.aligned.m64nNkK.f32.{f16,bf16,e4m3,e5m2}` instruction. One
//! instruction reads 32 bytes of K per row whatever the type, so the descriptor model below is
//! written in bytes; FP8 operands must be K-major (the ISA transposes only 16-bit types).
//!
//! Selected when the module targets sm_90a, A and B are shared, and the accumulator has the
//! wgmma D-fragment layout ([`wgmma_accumulator`], what `axe-infer-layout` gives such a gemm
//! there). Each warpgroup `g` of the scope computes the 64-row blocks `wg i + g` of C, over the
//! full N (in instructions of at most 256 columns) and K (16 per instruction).
//!
//! **Descriptors.** A and B are read by the tensor cores through 64-bit shared-memory matrix
//! descriptors (PTX ISA, "Matrix Descriptor Format"): start address, leading and stride byte
//! offsets (all `>> 4`), and the swizzle mode, which must be the tensor's `#axe.swizzle`: the
//! byte swizzle `Swizzle<1|2|3, 4, 3>` in elements, i.e. `<b, 3, 3>` on 16-bit elements and
//! `<b, 4, 3>` on 8-bit ones (b = 1, 2, 3 for 32B, 64B, 128B), or none. The
//! offsets are read off the layout; then, for every instruction and every element of its tile,
//! the address the hardware computes from the descriptor (the PTX ISA's canonical K-major and
//! MN-major layouts, as CUTLASS's `GmmaDescriptor` documents them) is checked by enumeration
//! against the address the Axe layout and swizzle give — the compile-time oracle. A layout with
//! no such descriptor is a located error. The hardware applies the swizzle to absolute shared
//! addresses, so swizzled operands need their buffer aligned to the swizzle's period (1024 B
//! for 128B): the lowering raises the alignment of a static shared buffer's `memref.global` and
//! checks the offset of a dynamic one.
//!
//! **Sequence.** `fence.proxy.async.shared::cta` (the tiles were written through the generic
//! proxy; wgmma reads them through the async proxy), the accumulator registers packed into one
//! `!llvm.struct` per instruction tile, `wgmma.fence`, every `wgmma.mma_async` (K innermost,
//! chained through the structs), `wgmma.commit_group`, `wgmma.wait_group 0`, a CTA-scope fence
//! that keeps ptxas from reading the accumulators above the wait ([`order_after_wait`]), and the
//! structs stored back: the gemm is complete when the op's lowering ends, as `axe.gemm` promises.

use crate::error::{AtOp, AxeError};
use axe_layout::swizzle::Swizzle;
use axe_layout::Axis;
use melior::dialect::arith::CmpiPredicate;
use mlir_sys::*;

use super::address::same;
use super::builder::{Ix, WgmmaAttrs, B};
use super::context::{Ctx, R};
use super::tensor::{Mem, Tensor};
use super::types::{bit_width, is_float};
use crate::dialect::ods;
use crate::infer_layout::gemm::{has_wgmma, wgmma_accumulator, wgmma_n, WgmmaInput, WGMMA_M};
use crate::ir;
use crate::target::ScopeKind;

/// The number of warpgroups when this gemm lowers to wgmma, else `None` (mma.sync).
pub fn selected(op: MlirOperation, ctx: &Ctx, scope: ScopeKind, a: &Tensor, b: &Tensor, c: &Tensor) -> Option<i64> {
    // A in shared memory (a descriptor) or, 16-bit, in registers (P of attention: the previous
    // gemm's accumulator, converted); B always shared.
    let a_ok = a.mem == Mem::Shared || (a.mem == Mem::Register && bit_width(a.elt) == 16);
    if !has_wgmma(op) || !a_ok || b.mem != Mem::Shared || c.mem != Mem::Register || c.shape.len() != 2 {
        return None;
    }
    let wg = match scope {
        ScopeKind::Warpgroup => 1,
        ScopeKind::Cta if ctx.threads % 128 == 0 => ctx.threads / 128,
        _ => return None,
    };
    let l = wgmma_accumulator(c.shape[0], c.shape[1], wg).ok()?;
    same(&l, &c.layout).then_some(wg)
}

/// The swizzle modes of a matrix descriptor (bits 62–63).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Interleave,
    B128,
    B64,
    B32,
}

impl Mode {
    fn bits(self) -> i64 {
        match self {
            Mode::Interleave => 0,
            Mode::B128 => 1,
            Mode::B64 => 2,
            Mode::B32 => 3,
        }
    }
    /// Bytes per swizzled row (16 for the unswizzled 8x8 core matrices).
    fn width(self) -> i64 {
        match self {
            Mode::Interleave => 16,
            Mode::B128 => 128,
            Mode::B64 => 64,
            Mode::B32 => 32,
        }
    }
    /// The alignment the buffer needs for the absolute-address XOR to match the Axe swizzle.
    fn period(self) -> i64 {
        match self {
            Mode::Interleave => 16,
            m => 8 * m.width(),
        }
    }
    /// The hardware's XOR on a byte address (CuTe's Swizzle<3|2|1, 4, 3>).
    fn swizzle(self, a: i64) -> i64 {
        match self {
            Mode::Interleave => a,
            Mode::B128 => a ^ (((a >> 7) & 7) << 4),
            Mode::B64 => a ^ (((a >> 7) & 3) << 4),
            Mode::B32 => a ^ (((a >> 7) & 1) << 4),
        }
    }
    /// The mode of an element swizzle on `eb`-byte elements: the byte XOR above is
    /// `Swizzle<bits, 4 - log2(eb), 3>` on element offsets.
    fn of(s: Option<&Swizzle>, eb: i64) -> Option<Mode> {
        let base = 4 - eb.trailing_zeros() as i64;
        match s {
            None => Some(Mode::Interleave),
            Some(s) if s.base as i64 == base && s.shift == 3 => match s.bits {
                3 => Some(Mode::B128),
                2 => Some(Mode::B64),
                1 => Some(Mode::B32),
                _ => None,
            },
            Some(_) => None,
        }
    }
}

/// A matrix descriptor's constant fields (byte offsets, not yet `>> 4`).
#[derive(Clone, Copy, Debug)]
struct Desc {
    mode: Mode,
    k_major: bool,
    lbo: i64,
    sbo: i64,
    /// Bytes per element.
    eb: i64,
}

impl Desc {
    /// The descriptor word for a tile starting `start` bytes after a buffer at address 0.
    fn word(&self, start: i64) -> i64 {
        ((start >> 4) & 0x3fff)
            | ((self.lbo >> 4) & 0x3fff) << 16
            | ((self.sbo >> 4) & 0x3fff) << 32
            | self.mode.bits() << 62
    }

    /// The byte address the tensor cores read element `(x, kk)` (x along M or N, kk along the
    /// 32 bytes of K of one instruction) from, for a tile starting at byte `start`: the PTX
    /// ISA's canonical layouts, in CuTe's notation with T = 16 bytes of elements (8 of 16 bits,
    /// 16 of 8 bits), in bytes:
    /// K-major   none: ((8,m),(T,2)):((16,SBO),(eb,LBO));  32/64/128B: ((8,m),(2T)):((W,SBO),(eb))
    /// MN-major  none: ((T,1,m),(8,2)):((eb,T,SBO),(16,LBO)); swizzled: ((W/eb,m),(8,2)):((eb,LBO),(W,SBO))
    /// (W the swizzle's row width), then the mode's XOR on the address.
    fn hw_address(&self, start: i64, x: i64, kk: i64) -> i64 {
        let (w, eb) = (self.mode.width(), self.eb);
        let t = 16 / eb;
        let pre = match (self.k_major, self.mode) {
            (true, Mode::Interleave) => start + (x % 8) * 16 + (x / 8) * self.sbo + (kk % t) * eb + (kk / t) * self.lbo,
            (true, _) => start + (x % 8) * w + (x / 8) * self.sbo + kk * eb,
            (false, Mode::Interleave) => {
                start + (x % t) * eb + (x / t) * self.sbo + (kk % 8) * 16 + (kk / 8) * self.lbo
            }
            (false, _) => start + (x % (w / eb)) * eb + (x / (w / eb)) * self.lbo + (kk % 8) * w + (kk / 8) * self.sbo,
        };
        self.mode.swizzle(pre)
    }
}

/// One shared operand seen as the (x, kk) matrix of the instructions: `kx` maps a logical
/// (x, k) to the tensor's coordinates.
struct Operand<'a> {
    t: &'a Tensor,
    kx: &'a dyn Fn(i64, i64) -> [i64; 2],
    /// The constant part of the tensor's offset (a slice at a static origin).
    offset: i64,
    /// Bytes per element, and elements of K per instruction.
    eb: i64,
    k_inst: i64,
    what: &'static str,
}

impl Operand<'_> {
    /// The unswizzled element offset of logical (x, k).
    fn offset(&self, x: i64, k: i64) -> Result<i64, AxeError> {
        let m = Axis::memory();
        let pts = self.t.layout.eval_set(&(self.kx)(x, k), &self.t.shape)?;
        match pts.as_slice() {
            [p] => Ok(p.get(&m).copied().unwrap_or(0) + self.offset),
            _ => Err(AxeError::Message(format!(
                "{} element ({x}, {k}) is not stored exactly once",
                self.what
            ))),
        }
    }

    /// The byte address the Axe layout and swizzle give logical (x, k) (buffer at address 0).
    fn address(&self, x: i64, k: i64) -> Result<i64, AxeError> {
        let o = self.offset(x, k)?;
        Ok(self.eb * self.t.swizzle.map(|s| s.apply(o)).unwrap_or(o))
    }

    /// The descriptor of this operand's tiles, `rows` (64 for A, the instruction N for B) by
    /// the instruction's K, starting at each of `origins`; checked on every element of every
    /// tile.
    fn descriptor(&self, rows: i64, origins: &[(i64, i64)]) -> Result<Desc, AxeError> {
        let layout = &self.t.layout;
        let eb = self.eb;
        let mode = Mode::of(self.t.swizzle.as_ref(), eb).ok_or_else(|| {
            format!(
                "{} has {}, which no wgmma descriptor swizzle mode matches for {}-bit elements (none, #axe.swizzle<1|2|3, {}, 3>)",
                self.what,
                show(self.t.swizzle.as_ref()),
                8 * eb,
                4 - eb.trailing_zeros()
            )
        })?;
        let at = |x: i64, k: i64| self.offset(x, k);
        let (x0, k0) = origins[0];
        let base = at(x0, k0)?;
        let k_major = at(x0, k0 + 1)? == base + 1;
        if !k_major && at(x0 + 1, k0)? != base + 1 {
            return Err(AxeError::Message(format!(
                "{} ({layout}) is contiguous neither along K nor along M/N, as wgmma needs",
                self.what
            )));
        }
        if !k_major && eb != 2 {
            return Err(AxeError::Message(format!(
                "{} ({layout}) is contiguous along M/N; wgmma reads {}-bit operands only K-major (contiguous along K)",
                self.what,
                8 * eb
            )));
        }
        let d = |x: i64, k: i64| -> Result<i64, AxeError> { Ok(eb * (at(x0 + x, k0 + k)? - base)) };
        let e = mode.width() / eb;
        let (lbo, sbo) = match (k_major, mode) {
            (true, Mode::Interleave) => (d(0, 16 / eb)?, if rows > 8 { d(8, 0)? } else { 0 }),
            (true, _) => (16, if rows > 8 { d(8, 0)? } else { 0 }),
            (false, Mode::Interleave) => (d(0, 8)?, if rows > 8 { d(8, 0)? } else { 0 }),
            (false, _) => (if rows > e { d(e, 0)? } else { 0 }, d(0, 8)?),
        };
        for v in [lbo, sbo] {
            if v < 0 || v % 16 != 0 || (v >> 4) >= 1 << 14 {
                return Err(format!(
                    "{} ({layout}) needs a descriptor byte offset of {v}, not a multiple of 16 in [0, 2^18)",
                    self.what
                )
                .into());
            }
        }
        let desc = Desc {
            mode,
            k_major,
            lbo,
            sbo,
            eb,
        };
        for &(ox, ok) in origins {
            let start = eb * at(ox, ok)?;
            if start % 16 != 0 {
                return Err(AxeError::Message(format!(
                    "{} tile at ({ox}, {ok}) starts at byte {start}, not 16-byte aligned",
                    self.what
                )));
            }
            for x in 0..rows {
                for k in 0..self.k_inst {
                    let (hw, axe) = (desc.hw_address(start, x, k), self.address(ox + x, ok + k)?);
                    if hw != axe {
                        return Err(AxeError::Message(format!(
                            "{} ({layout}, {}) is not a wgmma canonical layout: the {} descriptor (leading offset {lbo} B, stride offset {sbo} B) reads element ({}, {}) at byte {hw}, the layout stores it at byte {axe}",
                            self.what,
                            show(self.t.swizzle.as_ref()),
                            if k_major { "K-major" } else { "MN-major" },
                            ox + x,
                            ok + k
                        )));
                    }
                }
            }
        }
        Ok(desc)
    }
}

fn show(s: Option<&Swizzle>) -> String {
    s.map(|s| format!("#axe.swizzle<{}, {}, {}>", s.bits, s.base, s.shift))
        .unwrap_or_else(|| "no swizzle".into())
}

#[allow(clippy::too_many_arguments)]
pub fn lower(
    op: MlirOperation,
    ctx: &mut Ctx,
    wg: i64,
    a: &Tensor,
    bt: &Tensor,
    c: &Tensor,
    ta: bool,
    tb: bool,
) -> R<()> {
    let b = B::before(op);
    let (m, n) = (c.shape[0], c.shape[1]);
    let k = if ta { a.shape[0] } else { a.shape[1] };
    let types = (WgmmaInput::of(a.elt), WgmmaInput::of(bt.elt));
    let (ia, ib) = match types {
        (Some(ia), Some(ib)) if ia.bytes() == ib.bytes() && (ia == ib || ia.bytes() == 1) && bit_width(c.elt) == 32 && is_float(c.elt) => (ia, ib),
        _ => {
            return Err(AxeError::at(
                op,
                format!(
                    "wgmma lowers f16 or bf16 A and B of the same type, or FP8 (f8E4M3FN, f8E5M2) A and B, into an f32 accumulator (got {}, {}, {})",
                    ir::type_to_string(a.elt),
                    ir::type_to_string(bt.elt),
                    ir::type_to_string(c.elt)
                ),
            ))
        }
    };
    let (eb, k_inst) = (ia.bytes(), ia.k());
    if k % k_inst != 0 {
        return Err(AxeError::at(
            op,
            format!("a {m}x{n}x{k} gemm is not a multiple of the wgmma m64nNk{k_inst} atom"),
        ));
    }
    let Some(ni_n) = wgmma_n(n) else {
        return Err(AxeError::at(op, format!("internal: no wgmma instruction N divides N = {n} (the wgmma accumulator layout needs N % 8 == 0, and N = 8 divides it)")));
    };
    let konst = |t: &Tensor, what: &str| -> R<i64> {
        t.dyn_offset.as_const().ok_or_else(|| {
            AxeError::at(
                op,
                format!("{what} is a slice at a run-time origin; wgmma descriptors need static shared tiles"),
            )
        })
    };
    let (oa, ob, oc) = (konst(a, "A")?, konst(bt, "B")?, konst(c, "the accumulator")?);
    let rm = m / (WGMMA_M * wg);
    let (kn, nn) = (k / k_inst, n / ni_n);
    let a_kx = move |x: i64, kk: i64| if ta { [kk, x] } else { [x, kk] };
    let b_kx = move |x: i64, kk: i64| if tb { [x, kk] } else { [kk, x] };
    let opa = Operand {
        t: a,
        kx: &a_kx,
        offset: oa,
        eb,
        k_inst,
        what: "A",
    };
    let opb = Operand {
        t: bt,
        kx: &b_kx,
        offset: ob,
        eb,
        k_inst,
        what: "B",
    };
    // Tile origins: A's (row block, k) per warpgroup g, B's (n block, k).
    let a_origin = |i: i64, g: i64, ki: i64| (WGMMA_M * (wg * i + g), k_inst * ki);
    let b_origin = |j: i64, ki: i64| (ni_n * j, k_inst * ki);
    let a_origins: Vec<(i64, i64)> = (0..rm)
        .flat_map(|i| (0..wg).flat_map(move |g| (0..kn).map(move |ki| a_origin(i, g, ki))))
        .collect();
    let b_origins: Vec<(i64, i64)> = (0..nn).flat_map(|j| (0..kn).map(move |ki| b_origin(j, ki))).collect();
    let da = if a.mem == Mem::Shared {
        let d = opa.descriptor(WGMMA_M, &a_origins).at(op)?;
        super::shared::align_buffer(&b, op, a.buf, d.mode.period())?;
        Some(d)
    } else {
        None
    };
    let db = opb.descriptor(ni_n, &b_origins).at(op)?;
    super::shared::align_buffer(&b, op, bt.buf, db.mode.period())?;
    // The accumulator register of D element r of instruction tile (i, j), from the layout.
    let regs = fragment_registers(op, c, wg, rm, nn, ni_n, oc, "the accumulator")?;
    // A in registers: its fragment for instruction (i, ki) has the D fragment's shape over 16
    // columns of K (PTX ISA, "Register Fragments and Shared Memory Matrix Layouts", wgmma
    // .m64nNk16 A): the registers are read off A's layout and checked the same way — an A whose
    // layout is not that fragment (a conversion would be needed) is refused here.
    let a_regs = if a.mem == Mem::Register {
        if ta {
            return Err(AxeError::at(
                op,
                "wgmma reads a register A only as [M, K] (transpose_a needs A in shared memory)",
            ));
        }
        Some(fragment_registers(op, a, wg, rm, kn, k_inst, oa, "A")?)
    } else {
        None
    };

    // Emission.
    let i64t = b.int_type(64);
    let c64 = |v: i64| b.ci64(v);
    b.fence_proxy_async_shared();
    // Shared addresses >> 4 of the two buffers (the descriptors' start fields add the tile's),
    // cut to the start field's 14 bits: in a cluster launch a CTA's shared addresses carry more
    // than its offset above bit 18 (seen on an H100: unmasked, the bits of CTAs of odd rank
    // spilled into the leading byte offset, and N-major B tiles read wrong column blocks).
    // The start field is passed through an empty side-effecting `mov` at the gemm: without it
    // LLVM hoists every descriptor of a loop's gemms (one 64-bit value per instruction tile
    // and stage, all loop invariant) above the loop, where they stay live in registers — 80
    // registers of an attention consumer's 240 at D = 128, and ptxas spilled.
    let base = |t: &Tensor| {
        let p = b.extract_aligned_pointer_as_index(t.buf);
        let p = b.index_cast(p, i64t);
        let field = b.andi(b.shrui(p, c64(4)), c64(0x3fff));
        b.inline_asm_side_effects("mov.b64 $0, $1;", "=l,l", &[field], i64t)
    };
    let base_a = da.map(|_| base(a));
    let base_b = base(bt);
    // The warpgroup index within the scope (a select chain; warpgroups differ only in A's rows).
    let g = if wg > 1 { Some(b.div(Ix::V(ctx.tid), 128)) } else { None };
    let desc = |basev: MlirValue, words: &[i64]| -> MlirValue {
        let mut w = c64(words[0]);
        if let Some(gv) = g {
            for (gi, word) in words.iter().enumerate().skip(1) {
                if *word != words[0] {
                    let is_g = b.cmp(CmpiPredicate::Eq, gv, Ix::C(gi as i64));
                    w = b.select(is_g, c64(*word), w);
                }
            }
        }
        b.addi(basev, w)
    };
    let sty = b.llvm_struct(&vec![b.f32_type(); (ni_n / 2) as usize]);
    // `overwrite`: the first K step's instructions start from scale-d 0, so C is not read.
    let overwrite = super::builder::has_attr(op, ods::gemm::OVERWRITE);
    let mut acc: Vec<Vec<MlirValue>> = Vec::new();
    for row in &regs {
        let mut v = Vec::new();
        for tile in row {
            let mut s = b.undef(sty);
            if !overwrite {
                for (r, &reg) in tile.iter().enumerate() {
                    let e = b.load(c.buf, &[b.cidx(reg)]);
                    s = b.insertvalue(s, e, &[r as i64]);
                }
            }
            v.push(s);
        }
        acc.push(v);
    }
    // A register A's fragments, packed before `wgmma.fence`: registers written after the
    // fence and read by a wgmma make ptxas inject a `warpgroup.arrive` before each such
    // instruction (C7519), serializing the chain.
    let packed: Vec<Vec<Vec<MlirValue>>> = match &a_regs {
        Some(regs) => regs
            .iter()
            .map(|row| row.iter().map(|frag| pack_pairs(&b, a, frag)).collect())
            .collect(),
        None => vec![],
    };
    b.wgmma_fence_aligned();
    let layout_attr = |k_major: bool, is_a: bool| {
        // A: row = K-major (no transpose); B: col = K-major.
        let row = k_major == is_a;
        b.attr(if row {
            "#nvvm.mma_layout<row>"
        } else {
            "#nvvm.mma_layout<col>"
        })
    };
    let attrs = WgmmaAttrs {
        shape: b.attr(&format!("#nvvm.shape<m = 64, n = {ni_n}, k = {k_inst}>")),
        type_a: b.attr(&format!("#nvvm.wgmma_type<{}>", ia.nvvm())),
        type_b: b.attr(&format!("#nvvm.wgmma_type<{}>", ib.nvvm())),
        type_d: b.attr("#nvvm.wgmma_type<f32>"),
        scale_d: b.attr("#nvvm.wgmma_scale_out<one>"),
        scale_a: b.attr("#nvvm.wgmma_scale_in<one>"),
        scale_b: b.attr("#nvvm.wgmma_scale_in<one>"),
        layout_a: layout_attr(da.is_none_or(|d| d.k_major), true),
        layout_b: layout_attr(db.k_major, false),
    };
    let first_attrs = WgmmaAttrs {
        scale_d: b.attr("#nvvm.wgmma_scale_out<zero>"),
        ..attrs
    };
    for ki in 0..kn {
        let zero_d = overwrite && ki == 0;
        for i in 0..rm {
            // A: a descriptor per warpgroup (shared), or this thread's fragment (registers).
            let a_operand = match (da, base_a, &a_regs) {
                (Some(da), Some(base_a), _) => {
                    let words: Vec<i64> = (0..wg)
                        .map(|gi| {
                            let (x, kk) = a_origin(i, gi, ki);
                            da.word(eb * opa.offset(x, kk).unwrap_or(0))
                        })
                        .collect();
                    AOperand::Descriptor(desc(base_a, &words))
                }
                (_, _, Some(_)) => AOperand::Registers(packed[i as usize][ki as usize].clone()),
                _ => unreachable!("A is shared (a descriptor) or in registers"),
            };
            for j in 0..nn {
                let (x, kk) = b_origin(j, ki);
                let dbv = desc(base_b, &[db.word(eb * opb.offset(x, kk).unwrap_or(0))]);
                let s = acc[i as usize][j as usize];
                acc[i as usize][j as usize] = match &a_operand {
                    AOperand::Descriptor(dav) => {
                        b.wgmma_mma_async(s, *dav, dbv, if zero_d { &first_attrs } else { &attrs })
                    }
                    AOperand::Registers(frag) => register_a_mma(
                        &b,
                        s,
                        frag,
                        dbv,
                        ni_n,
                        ia.nvvm(),
                        !db.k_major,
                        (ni_n / 2) as usize,
                        zero_d,
                    ),
                };
            }
        }
    }
    b.wgmma_commit_group_sync_aligned();
    // An async gemm leaves its group in flight: `axe.wait` on its token waits for it. The
    // accumulator values stored below are then only renamed registers until that wait.
    let is_async = super::builder::has_attr(op, ods::gemm::ASYNC);
    if is_async {
        ctx.wgmma_async.insert(op.ptr as usize);
        let all: Vec<i64> = regs.iter().flatten().flatten().copied().collect();
        if !ctx
            .async_accumulators
            .iter()
            .any(|(buf, _, id)| buf.ptr == c.buf.ptr && *id == ctx.scope_id)
        {
            ctx.async_accumulators.push((c.buf, all, ctx.scope_id));
        }
    } else {
        wait_groups(&b, 0);
    }
    for (i, row) in regs.iter().enumerate() {
        for (j, tile) in row.iter().enumerate() {
            for (r, &reg) in tile.iter().enumerate() {
                let mut e = b.extractvalue(acc[i][j], &[r as i64], c.elt);
                if !is_async {
                    e = fence(&b, e);
                }
                b.store(e, c.buf, &[b.cidx(reg)]);
            }
        }
    }
    Ok(())
}

/// Operand A of one wgmma instruction: a shared-memory matrix descriptor, or the four 32-bit
/// registers of a register fragment.
enum AOperand {
    Descriptor(MlirValue),
    Registers(Vec<MlirValue>),
}

/// The register of element r of every `width`-column instruction tile (i, j) of the
/// warpgroup-distributed fragment `t` (an m64nN D fragment, or an m64k16 A fragment, which has
/// the same shape over its 16 columns): by the PTX ISA's fragment formula, for thread t of warp
/// w of warpgroup g, row = 64 (wg i + g) + 16 w + t / 4 + 8 ((r / 2) % 2) and col = width j +
/// 8 (r / 4) + 2 (t % 4) + r % 2. The layout must give each such element to that warp and lane, at
/// the same register for every warp and lane (else a located error: the tensor is not the
/// fragment wgmma reads or writes).
#[allow(clippy::too_many_arguments)]
fn fragment_registers(
    op: MlirOperation,
    t: &Tensor,
    wg: i64,
    rm: i64,
    tiles: i64,
    width: i64,
    offset: i64,
    what: &str,
) -> R<Vec<Vec<Vec<i64>>>> {
    let (warp_ax, lane_ax, reg_ax) = (Axis::from("warp"), Axis::from("lane"), Axis::from("reg"));
    let mut regs = vec![vec![vec![0i64; (width / 2) as usize]; tiles as usize]; rm as usize];
    let not_fragment = |why: String| {
        AxeError::at(
            op,
            format!(
                "{what}'s layout {} is not the wgmma m64nNk16 fragment layout ({why}); give it the fragment's layout (e.g. the accumulator's of a previous gemm, cast) or stage it in shared memory",
                t.layout
            ),
        )
    };
    for i in 0..rm {
        for j in 0..tiles {
            for r in 0..width / 2 {
                let mut reg: Option<i64> = None;
                for g in 0..wg {
                    for w in 0..4 {
                        for lane in 0..32 {
                            let row = WGMMA_M * (wg * i + g) + 16 * w + lane / 4 + 8 * ((r / 2) % 2);
                            let col = width * j + 8 * (r / 4) + 2 * (lane % 4) + r % 2;
                            let pts = t.layout.eval_set(&[row, col], &t.shape).at(op)?;
                            let held = pts.iter().find(|p| {
                                p.get(&warp_ax).copied().unwrap_or(0) == 4 * g + w
                                    && p.get(&lane_ax).copied().unwrap_or(0) == lane
                            });
                            let Some(p) = held else {
                                return Err(not_fragment(format!(
                                    "({row}, {col}) is not on warp {} lane {lane}",
                                    4 * g + w
                                )));
                            };
                            let rg = p.get(&reg_ax).copied().unwrap_or(0);
                            if *reg.get_or_insert(rg) != rg {
                                return Err(not_fragment(format!(
                                    "element {r} of tile ({i}, {j}) sits at different registers on different threads"
                                )));
                            }
                        }
                    }
                }
                regs[i as usize][j as usize][r as usize] = reg.unwrap_or(0) + offset;
            }
        }
    }
    Ok(regs)
}

/// A register fragment's 8 16-bit elements as the four `.b32` registers wgmma reads (element
/// pairs (2p, 2p + 1), the lower one in the low half).
fn pack_pairs(b: &B, a: &Tensor, regs: &[i64]) -> Vec<MlirValue> {
    let pair = b.vector_type(a.elt, &[2]);
    let i32t = b.int_type(32);
    regs.chunks(2)
        .map(|p| {
            let lo = b.load(a.buf, &[b.cidx(p[0])]);
            let hi = b.load(a.buf, &[b.cidx(p[1])]);
            let v = b.vector_from_elements(&[lo, hi], pair);
            b.llvm_bitcast(v, i32t)
        })
        .collect()
}

/// `wgmma.mma_async` m64nNk16 with A from registers. The NVVM dialect's op takes A only as a
/// descriptor, so this is the PTX instruction as inline assembly (as the NVVM op itself is
/// lowered): the accumulators are tied outputs (`=f` ... with inputs `0` ...), A the four
/// `.b32` registers, B's descriptor, scale-d 1 (accumulate; 0 where `zero_d`: D = A B), A and
/// B unscaled, B transposed when it is MN-major.
#[allow(clippy::too_many_arguments)]
fn register_a_mma(
    b: &B,
    acc: MlirValue,
    frag: &[MlirValue],
    desc_b: MlirValue,
    n: i64,
    ty: &str,
    trans_b: bool,
    count: usize,
    zero_d: bool,
) -> MlirValue {
    let d: Vec<String> = (0..count).map(|r| format!("${r}")).collect();
    let a: Vec<String> = (count..count + 4).map(|r| format!("${r}")).collect();
    let asm = format!(
        "{{\n.reg .pred p;\nsetp.ne.b32 p, {}, 0;\nwgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{{}}}, {{{}}}, ${}, p, 1, 1, {};\n}}",
        u8::from(!zero_d),
        d.join(", "),
        a.join(", "),
        count + 4,
        u8::from(trans_b)
    );
    let mut constraints: Vec<String> = vec!["=f".into(); count];
    constraints.extend(std::iter::repeat_n("r".to_string(), 4));
    constraints.push("l".into());
    constraints.extend((0..count).map(|r| r.to_string()));
    let f32t = b.f32_type();
    let mut operands: Vec<MlirValue> = frag.to_vec();
    operands.push(desc_b);
    operands.extend((0..count).map(|r| b.extractvalue(acc, &[r as i64], f32t)));
    b.inline_asm_side_effects(&asm, &constraints.join(","), &operands, ir::value_type(acc))
}

/// An accumulator register after `wgmma.wait_group`: passed through an empty side-effecting
/// inline asm that reads and redefines it (CUTLASS's `warpgroup_fence_operand`). The wgmma
/// results are ordinary SSA values to LLVM, which may otherwise schedule their uses — the
/// epilogue's conversions — above the wait, reading registers the tensor cores are still
/// writing. This orders LLVM only; ptxas schedules the SASS itself: see [`order_after_wait`].
fn fence(b: &B, v: MlirValue) -> MlirValue {
    let t = ir::value_type(v);
    b.inline_asm_side_effects("", "=f,0", &[v], t)
}

/// After a wait for every gemm (`axe.wait ... outstanding 0`): fences the accumulators of the
/// async gemms lowered so far in the current scope, so that nothing reads them before the wait.
pub fn fence_accumulators(b: &B, ctx: &Ctx) {
    for (buf, regs, id) in &ctx.async_accumulators {
        if *id != ctx.scope_id {
            continue;
        }
        for &r in regs {
            let v = b.load(*buf, &[b.cidx(r)]);
            let f = fence(b, v);
            b.store(f, *buf, &[b.cidx(r)]);
        }
    }
}

/// `g` (the Axe op a waited token comes from, still in place: lowered ops are erased at the
/// kernel's end) when it is an async gemm that `wait` (an `axe.wait ... outstanding n`) is sure
/// to find complete: it is in `wait`'s block and at least `n` async gemms are issued after it
/// before the wait (groups complete in order, and at most `n` are left running).
pub fn completed_by(wait: MlirOperation, g: MlirOperation, n: i64) -> Option<MlirOperation> {
    if ir::name(g) != ods::ops::GEMM || ir::block_of(g).map(|b| b.ptr) != ir::block_of(wait).map(|b| b.ptr) {
        return None;
    }
    let mut later = 0;
    let mut next = ir::next_in_block(g);
    while let Some(o) = next {
        if o.ptr == wait.ptr {
            return (later >= n).then_some(g);
        }
        if ir::name(o) == ods::ops::GEMM && super::builder::has_attr(o, ods::gemm::ASYNC) {
            later += 1;
        }
        next = ir::next_in_block(o);
    }
    None
}

/// [`fence_accumulators`] for one accumulator buffer (an async gemm known to be complete).
pub fn fence_accumulator(b: &B, ctx: &Ctx, buf: MlirValue) {
    for (held, regs, id) in &ctx.async_accumulators {
        if *id != ctx.scope_id || held.ptr != buf.ptr {
            continue;
        }
        for &r in regs {
            let v = b.load(*held, &[b.cidx(r)]);
            let f = fence(b, v);
            b.store(f, *held, &[b.cidx(r)]);
        }
    }
}

/// After a `wgmma.wait_group 0` whose accumulators are read next: a CTA-scope acq_rel fence
/// (`fence.acq_rel.cta`), which ptxas (CUDA 13) was seen not to hoist the reads across (an
/// observation, not a documented guarantee: the fence orders memory). Without it, ptxas
/// (CUDA 13) was seen to place the epilogue's f32 -> f16 conversions of the accumulator
/// registers (`F2FP`) above the `WARPGROUP.DEPBAR` of the wait, reading registers the last
/// `HGMMA` group was still writing: the one-launch swapped MoE kernel
/// (axe_gen.moe_ws) lost part of its last K steps on the H100 — depending on code
/// elsewhere in the kernel, since the same loop in a kernel of its own was scheduled correctly.
/// The PTX was in order (wait, then the conversions); with the fence, ptxas kept it so
/// (`wgmma.fence` and `bar.warp.sync` did not). Waits that leave groups in flight
/// (`outstanding` > 0, the mainloops') are not fenced: the generators read no accumulator
/// after them, only the next wgmma chains on it (nor are the accumulators LLVM-fenced there,
/// see `fence_accumulators`).
fn order_after_wait(b: &B) {
    // llvm::AtomicOrdering::AcquireRelease; "block" is NVPTX's CTA scope.
    b.llvm_fence(b.i64_attr(6), Some("block"));
}

/// `wgmma.wait_group N`: at most N of this warpgroup's committed wgmma groups in flight; a wait
/// for all of them is followed by [`order_after_wait`].
pub fn wait_groups(b: &B, outstanding: i64) {
    b.wgmma_wait_group_sync_aligned(outstanding);
    if outstanding == 0 {
        order_after_wait(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 128B K-major canonical layout is the row-major 64-element-wide tile with
    /// Swizzle<3, 3, 3> (on f16 elements): check the model against that directly.
    #[test]
    fn k_major_128b_is_row_major_swizzle_333() {
        let s = Swizzle {
            bits: 3,
            base: 3,
            shift: 3,
        };
        let d = Desc {
            mode: Mode::B128,
            k_major: true,
            lbo: 16,
            sbo: 1024,
            eb: 2,
        };
        for k0 in [0, 16, 32, 48] {
            for x in 0..64 {
                for kk in 0..16 {
                    let off = x * 64 + k0 + kk;
                    assert_eq!(d.hw_address(2 * k0, x, kk), 2 * s.apply(off));
                }
            }
        }
    }

    /// FP8, K-major 128B: rows of 128 one-byte elements with Swizzle<3, 4, 3> (the same byte
    /// XOR as <3, 3, 3> on 16-bit elements); an instruction reads 32 of K.
    #[test]
    fn fp8_k_major_128b_is_row_major_swizzle_343() {
        let s = Swizzle {
            bits: 3,
            base: 4,
            shift: 3,
        };
        assert_eq!(Mode::of(Some(&s), 1), Some(Mode::B128));
        assert_eq!(Mode::of(Some(&s), 2), None);
        let d = Desc {
            mode: Mode::B128,
            k_major: true,
            lbo: 16,
            sbo: 1024,
            eb: 1,
        };
        for k0 in [0, 32, 64, 96] {
            for x in 0..64 {
                for kk in 0..32 {
                    let off = x * 128 + k0 + kk;
                    assert_eq!(d.hw_address(k0, x, kk), s.apply(off));
                }
            }
        }
    }

    /// MN-major 128B: 64-wide column blocks of 8 K rows (1024 B atoms), K groups `sbo` apart,
    /// N blocks `lbo` apart.
    #[test]
    fn mn_major_128b_is_blocked_swizzle_333() {
        let s = Swizzle {
            bits: 3,
            base: 3,
            shift: 3,
        };
        // B [K = 64, N = 128] stored as (64, 2, 64) : (64, 4096, 1).
        let d = Desc {
            mode: Mode::B128,
            k_major: false,
            lbo: 8192,
            sbo: 1024,
            eb: 2,
        };
        for k0 in [0, 16, 32, 48] {
            for x in 0..128 {
                for kk in 0..16 {
                    let off = (k0 + kk) * 64 + (x / 64) * 4096 + x % 64;
                    assert_eq!(d.hw_address(2 * k0 * 64, x, kk), 2 * s.apply(off));
                }
            }
        }
        assert_eq!(d.word(0) as u64 >> 62, 1);
    }
}
