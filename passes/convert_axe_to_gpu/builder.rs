//! A small IR builder over raw MLIR handles: generic operation creation (types and
//! attributes built by typed constructors, text only for those without one: see [`B::attr`]),
//! index arithmetic that folds constants
//! while building (so static register offsets never materialize as ops), and structured
//! control flow (`scf.for`, `scf.if`).
//!
//! # The builder contract
//!
//! A [`B`] holds handles of the IR the running pass owns (the module contract of
//! [`crate::ir`]): `ctx` its context, `loc` a location of that context, `block` a live block and
//! `before` null or a live op of `block`. [`B::before`] builds one from a live op, and
//! `at_end`/`at_start`/`with_loc_of` derive one from another with a live block or op of the
//! same IR; every `unsafe` block below relies on that. Operations are created unverified (the
//! pass manager verifies the IR after the pass, before any other pass reads it); the lowering
//! builds only forms of registered ops that it knows to be valid. Creating and inserting new
//! operations is safe under this contract; moving an existing one ([`move_before`]) can
//! invalidate the IR's structure and is an `unsafe fn`, like the mutations of [`crate::ir`].

use axe_upstream_ods::{builtin, gpu, llvm, memref as memref_ods, nvgpu, nvvm, vector};
use melior::dialect::{arith, memref, scf};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::Operation;
use melior::ir::r#type::{MemRefType, TypeLike};
use melior::ir::{Attribute, Block, Location, Region, RegionLike, Type, Value};
use melior::{Context, ContextRef};
use mlir_sys::*;

use crate::ir;
use crate::ir::string_ref as sref;

/// melior's view of a raw value, for melior's typed dialect builders.
///
/// # Safety
/// `v` is a live value of the IR the running pass owns (the module contract of [`crate::ir`]),
/// and the view is used only to build one operation, right away.
unsafe fn value<'c, 'a>(v: MlirValue) -> Value<'c, 'a> {
    // SAFETY: the caller's guarantee.
    unsafe { Value::from_raw(v) }
}

/// [`value`] of each of `vs`.
///
/// # Safety
/// As for [`value`], for every element.
unsafe fn values<'c, 'a>(vs: &[MlirValue]) -> Vec<Value<'c, 'a>> {
    // SAFETY: the caller's guarantee.
    vs.iter().map(|&v| unsafe { value(v) }).collect()
}

/// A binary op of melior's `arith` module (`arith::addi`, ...), or of [`ops`] for those it lacks.
pub type ArithBinary = for<'c, 'a, 'b> fn(Value<'c, 'a>, Value<'c, 'b>, Location<'c>) -> Operation<'c>;

/// A typed unary op of melior's `arith` module (`arith::index_cast`, ...).
pub type ArithCast = for<'c, 'a> fn(Value<'c, 'a>, melior::ir::Type<'c>, Location<'c>) -> Operation<'c>;

/// An index value: a compile-time constant or an SSA value of type `index`.
#[derive(Clone, Copy, Debug)]
pub enum Ix {
    C(i64),
    V(MlirValue),
}

impl Ix {
    pub fn as_const(self) -> Option<i64> {
        match self {
            Ix::C(c) => Some(c),
            Ix::V(_) => None,
        }
    }
}

/// Where new operations go: before `before` in `block`, or at the block's end when
/// `before` is null.
#[derive(Clone, Copy)]
pub struct B {
    pub ctx: MlirContext,
    pub loc: MlirLocation,
    pub block: MlirBlock,
    pub before: MlirOperation,
}

impl B {
    /// Inserts before `op`, with `op`'s location.
    pub fn before(op: MlirOperation) -> B {
        // SAFETY: `op` is live (module contract); its context, location and block are read.
        unsafe {
            B {
                ctx: mlirOperationGetContext(op),
                loc: mlirOperationGetLocation(op),
                block: mlirOperationGetBlock(op),
                before: op,
            }
        }
    }

    /// Inserts at the end of `block`.
    pub fn at_end(&self, block: MlirBlock) -> B {
        B {
            block,
            before: MlirOperation {
                ptr: std::ptr::null_mut(),
            },
            ..*self
        }
    }

    /// Inserts at the start of `block`.
    pub fn at_start(&self, block: MlirBlock) -> B {
        // SAFETY: `block` is a live block of the IR (builder contract); a null first op (an empty
        // block) makes the builder append.
        let first = unsafe { mlirBlockGetFirstOperation(block) };
        B {
            block,
            before: first,
            ..*self
        }
    }

    pub fn with_loc_of(&self, op: MlirOperation) -> B {
        B {
            // SAFETY: `op` is live (module contract).
            loc: unsafe { mlirOperationGetLocation(op) },
            ..*self
        }
    }

    fn insert(&self, op: MlirOperation) {
        // SAFETY: `op` was just created and is owned by no block; `block` is live and `before`
        // null or one of its ops (builder contract); the block takes ownership.
        unsafe {
            if self.before.ptr.is_null() {
                mlirBlockAppendOwnedOperation(self.block, op);
            } else {
                mlirBlockInsertOwnedOperationBefore(self.block, self.before, op);
            }
        }
    }

    /// A type parsed from text. Only for types that neither melior nor the MLIR C API can
    /// build (`!nvgpu.tensormap.descriptor<...>`); every other type has a constructor below.
    pub fn ty(&self, s: &str) -> MlirType {
        // SAFETY: `ctx` is live (builder contract); the text is borrowed for the call; a parse
        // failure is a null type, checked below.
        let t = unsafe { mlirTypeParseGet(self.ctx, sref(s)) };
        assert!(!t.ptr.is_null(), "internal: bad type text {s}");
        t
    }

    /// An attribute parsed from text. Only for attributes that neither melior nor the MLIR C
    /// API can build: the dialect enum and parameter attributes of `nvvm` and `gpu`
    /// (`#nvvm.proxy_kind<...>`, `#nvvm.shared_space<...>`, `#nvvm<action ...>`,
    /// `#nvvm.wgmma_type<...>`, `#nvvm.shape<...>`, `#nvvm.mma_layout<...>`,
    /// `#gpu<shuffle_mode ...>`, `#gpu.address_space<...>`, ...) have no C constructor. Integer,
    /// float, string and dense-array attributes are built by the typed helpers below.
    pub fn attr(&self, s: &str) -> MlirAttribute {
        // SAFETY: as for `ty`.
        let a = unsafe { mlirAttributeParseGet(self.ctx, sref(s)) };
        assert!(!a.ptr.is_null(), "internal: bad attribute text {s}");
        a
    }

    /// An `i64` integer attribute (built, not parsed: any value is representable).
    pub fn i64_attr(&self, v: i64) -> MlirAttribute {
        ir::integer_attr(self.ctx, 64, v)
    }

    /// An `i32` integer attribute; `None` when `v` does not fit 32 bits.
    pub fn i32_attr(&self, v: i64) -> Option<MlirAttribute> {
        let v = i32::try_from(v).ok()?;
        Some(ir::integer_attr(self.ctx, 32, i64::from(v)))
    }

    pub fn index(&self) -> MlirType {
        // SAFETY: `ctx` is live (builder contract).
        unsafe { mlirIndexTypeGet(self.ctx) }
    }

    /// Creates and inserts a generic operation, by name.
    ///
    /// Upstream ops are built through the typed `axe_upstream_ods` builders below, except
    /// those with `AttrSizedOperandSegments` (`gpu.launch`, `nvvm.barrier`, the TMA copies,
    /// `llvm.call_intrinsic`): melior's generated builders (melior-macro 0.20.8) add the
    /// operands but never the `operandSegmentSizes` attribute that splits them into groups
    /// (and their accessors read the pre-LLVM-18 name `operand_segment_sizes`), so an op built
    /// with one would carry no segments. Those are built here, by name, with their segment
    /// sizes spelled at the call site.
    pub fn op(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: &[MlirType],
        attrs: &[(&str, MlirAttribute)],
        regions: Vec<MlirRegion>,
    ) -> MlirOperation {
        // SAFETY: `ctx` and `loc` are live and the operands, result types, attributes and
        // regions are live handles of the same context (builder contract); the state borrows
        // the slices only until `mlirOperationCreate` copies them, and takes ownership of the
        // regions (moved in by value). The new op is checked non-null and handed to `insert`.
        unsafe {
            let mut st = mlirOperationStateGet(sref(name), self.loc);
            mlirOperationStateAddOperands(&mut st, operands.len() as isize, operands.as_ptr());
            mlirOperationStateAddResults(&mut st, results.len() as isize, results.as_ptr());
            let named: Vec<MlirNamedAttribute> = attrs
                .iter()
                .map(|(n, a)| mlirNamedAttributeGet(mlirIdentifierGet(self.ctx, sref(n)), *a))
                .collect();
            mlirOperationStateAddAttributes(&mut st, named.len() as isize, named.as_ptr());
            mlirOperationStateAddOwnedRegions(&mut st, regions.len() as isize, regions.as_ptr());
            let op = mlirOperationCreate(&mut st);
            assert!(!op.ptr.is_null(), "internal: could not create {name}");
            self.insert(op);
            op
        }
    }

    /// Creates an operation with one result and returns that result.
    pub fn val(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: MlirType,
        attrs: &[(&str, MlirAttribute)],
    ) -> MlirValue {
        let op = self.op(name, operands, &[result], attrs, vec![]);
        // SAFETY: `op` is live and was created with exactly one result.
        unsafe { mlirOperationGetResult(op, 0) }
    }

    /// `arith.constant a` (a typed attribute of the builder's context).
    pub fn constant_attr(&self, a: MlirAttribute) -> MlirValue {
        // SAFETY: `ctx` is live for the whole pass (builder contract), and the `&Context` view
        // borrows `context_ref`, alive for this call only; `a` is an attribute of `ctx`.
        let op = unsafe {
            let context_ref = ContextRef::from_raw(self.ctx);
            let context: &Context = context_ref.to_ref();
            arith::constant(context, Attribute::from_raw(a), self.location())
        };
        Self::first_result(self.insert_built(op))
    }

    /// `arith.constant v : index`.
    pub fn cidx(&self, v: i64) -> MlirValue {
        // SAFETY: `ctx` is live (builder contract); the attribute is owned by it.
        self.constant_attr(unsafe { mlirIntegerAttrGet(self.index(), v) })
    }

    /// `arith.constant v : i<bits>` (`v` two's-complement truncated to `bits`, as the
    /// attribute parser reads `-1 : i32`).
    pub fn cint(&self, v: i64, bits: u32) -> MlirValue {
        let t = self.int_type(bits);
        // The low `bits` bits, as an unsigned number: the value the signless attribute holds.
        let v = if bits >= 64 { v } else { v & ((1i64 << bits) - 1) };
        // SAFETY: `ctx` is live (builder contract); the attribute is owned by it.
        self.constant_attr(unsafe { mlirIntegerAttrGet(t, v) })
    }

    /// `arith.constant v : i32`.
    pub fn ci32(&self, v: i64) -> MlirValue {
        self.cint(v, 32)
    }

    /// `arith.constant v : i64`.
    pub fn ci64(&self, v: i64) -> MlirValue {
        self.cint(v, 64)
    }

    /// `arith.constant v : t` for a float type `t` (`v` rounded to `t`).
    pub fn cfloat(&self, v: f64, t: MlirType) -> MlirValue {
        // SAFETY: `ctx` and `t` are live (builder contract); the attribute is owned by `ctx`.
        self.constant_attr(unsafe { mlirFloatAttrDoubleGet(self.ctx, t, v) })
    }

    /// `arith.constant 0 : t` for a float, integer or vector-of-either type `t` (the value a
    /// predicated load gives for elements that do not exist).
    pub fn zero(&self, t: MlirType) -> MlirValue {
        // SAFETY: `ctx` and `t` are live (builder contract); the attributes are owned by `ctx`;
        // a vector type is a shaped type, whose element type is a float or an integer here.
        let a = unsafe {
            let scalar = |e: MlirType| {
                if mlirTypeIsAFloat(e) {
                    mlirFloatAttrDoubleGet(self.ctx, e, 0.0)
                } else {
                    mlirIntegerAttrGet(e, 0)
                }
            };
            if mlirTypeIsAVector(t) {
                mlirDenseElementsAttrSplatGet(t, scalar(mlirShapedTypeGetElementType(t)))
            } else {
                scalar(t)
            }
        };
        self.constant_attr(a)
    }

    /// `arith.constant false`/`true` (`i1`).
    pub fn cbool(&self, v: bool) -> MlirValue {
        // SAFETY: `ctx` is live (builder contract); the attribute is owned by it.
        self.constant_attr(unsafe { mlirBoolAttrGet(self.ctx, i32::from(v)) })
    }

    pub fn ix(&self, i: Ix) -> MlirValue {
        match i {
            Ix::C(c) => self.cidx(c),
            Ix::V(v) => v,
        }
    }

    fn bin(&self, build: ArithBinary, a: Ix, b: Ix) -> Ix {
        let (a, b) = (self.ix(a), self.ix(b));
        Ix::V(self.arith_binary(build, a, b))
    }

    pub fn add(&self, a: Ix, b: Ix) -> Ix {
        match (a, b) {
            (Ix::C(x), Ix::C(y)) => Ix::C(x + y),
            (x, Ix::C(0)) | (Ix::C(0), x) => x,
            (x, y) => self.bin(arith::addi, x, y),
        }
    }

    pub fn sub(&self, a: Ix, b: Ix) -> Ix {
        match (a, b) {
            (Ix::C(x), Ix::C(y)) => Ix::C(x - y),
            (x, Ix::C(0)) => x,
            (x, y) => self.bin(arith::subi, x, y),
        }
    }

    pub fn mul(&self, a: Ix, c: i64) -> Ix {
        match a {
            Ix::C(x) => Ix::C(x * c),
            _ if c == 0 => Ix::C(0),
            x if c == 1 => x,
            x => self.bin(arith::muli, x, Ix::C(c)),
        }
    }

    /// Unsigned division by a positive constant.
    pub fn div(&self, a: Ix, c: i64) -> Ix {
        match a {
            Ix::C(x) => Ix::C(x / c),
            x if c == 1 => x,
            x => self.bin(arith::divui, x, Ix::C(c)),
        }
    }

    /// Unsigned remainder by a positive constant.
    pub fn rem(&self, a: Ix, c: i64) -> Ix {
        match a {
            Ix::C(x) => Ix::C(x % c),
            _ if c == 1 => Ix::C(0),
            x => self.bin(arith::remui, x, Ix::C(c)),
        }
    }

    /// `arith.cmpi predicate, a, b` on index values.
    pub fn cmp(&self, predicate: arith::CmpiPredicate, a: Ix, b: Ix) -> MlirValue {
        let (a, b) = (self.ix(a), self.ix(b));
        self.cmpi(predicate, a, b)
    }

    pub fn and(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.andi(a, b)
    }

    /// A region holding one block with arguments of `types`.
    pub fn region(&self, types: &[MlirType]) -> (MlirRegion, MlirBlock) {
        // SAFETY: `loc` and the argument types are live (builder contract); `types` and `locs`
        // have the same length and are borrowed for the call; the new block is moved into the
        // new region, which the caller hands to an op (or drops with the op state).
        unsafe {
            let locs = vec![self.loc; types.len()];
            let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locs.as_ptr());
            let region = mlirRegionCreate();
            mlirRegionAppendOwnedBlock(region, block);
            (region, block)
        }
    }

    /// A melior-owned region holding one block with arguments of `types`, and that block
    /// (which stays valid while the region, or the op it moves into, lives).
    pub(crate) fn owned_region<'c>(&self, types: &[MlirType]) -> (Region<'c>, MlirBlock) {
        let arguments: Vec<_> = types
            .iter()
            // SAFETY: the types are live (builder contract).
            .map(|&t| (unsafe { melior::ir::Type::from_raw(t) }, self.location()))
            .collect();
        let region = Region::new();
        let block = region.append_block(Block::new(&arguments)).to_raw();
        (region, block)
    }

    /// `scf.for %iv = lb to ub step step { body }`; `body` builds at the end of the loop
    /// block, before its `scf.yield`. Returns the loop.
    pub fn for_<E>(
        &self,
        lb: Ix,
        ub: Ix,
        step: Ix,
        body: impl FnOnce(B, MlirValue) -> Result<(), E>,
    ) -> Result<MlirOperation, E> {
        let (lb, ub, step) = (self.ix(lb), self.ix(ub), self.ix(step));
        let (region, block) = self.owned_region(&[self.index()]);
        let inner = self.at_end(block);
        let yield_ = inner.yield_(&[]);
        // SAFETY: `block` was just created with one (index) argument.
        let iv = unsafe { mlirBlockGetArgument(block, 0) };
        body(
            B {
                before: yield_,
                ..inner
            },
            iv,
        )?;
        // SAFETY: `lb`, `ub` and `step` are live index values visible here; the region's
        // ownership moves into the loop.
        let op = unsafe { scf::r#for(value(lb), value(ub), value(step), region, self.location()) };
        Ok(self.insert_built(op))
    }

    /// `scf.if %cond { then }` (no results, empty else). `then` builds before the yield.
    pub fn if_<E>(&self, cond: MlirValue, then: impl FnOnce(B) -> Result<(), E>) -> Result<MlirOperation, E> {
        let (region, block) = self.owned_region(&[]);
        let inner = self.at_end(block);
        let yield_ = inner.yield_(&[]);
        then(B {
            before: yield_,
            ..inner
        })?;
        // SAFETY: `cond` is a live i1 value visible here; the region's ownership moves into the
        // `scf.if`, with a new, empty else region.
        let op = unsafe { scf::r#if(value(cond), &[], region, Region::new(), self.location()) };
        Ok(self.insert_built(op))
    }

    /// `scf.if %cond -> (t) { then } else { otherwise }`: each closure builds its branch and
    /// returns the value the branch yields. Returns the `scf.if`'s result.
    pub fn if_value(
        &self,
        cond: MlirValue,
        t: MlirType,
        then: impl FnOnce(&B) -> MlirValue,
        otherwise: impl FnOnce(&B) -> MlirValue,
    ) -> MlirValue {
        let then_region = self.yielding_region(then);
        let else_region = self.yielding_region(otherwise);
        // SAFETY: `cond` is a live i1 value and `t` a live type (builder contract); the
        // regions' ownership moves into the `scf.if`, each ending in a yield of a `t` value.
        let op = unsafe {
            scf::r#if(
                value(cond),
                &[melior::ir::Type::from_raw(t)],
                then_region,
                else_region,
                self.location(),
            )
        };
        Self::first_result(self.insert_built(op))
    }

    /// A melior-owned region of one block that `build` fills and that yields its value.
    fn yielding_region<'c>(&self, build: impl FnOnce(&B) -> MlirValue) -> Region<'c> {
        let (region, block) = self.owned_region(&[]);
        let inner = self.at_end(block);
        let v = build(&inner);
        inner.yield_(&[v]);
        region
    }

    /// `scf.while` that repeats `cond` (built in the loop's "before" region) as long as the
    /// `i1` it returns is true: a spin loop.
    pub fn spin_while(&self, cond: impl FnOnce(B) -> MlirValue) -> MlirOperation {
        let (before, before_block) = self.owned_region(&[]);
        let c = cond(self.at_end(before_block));
        // SAFETY: `c` is a live i1 built in the before block, which the condition terminates.
        let condition = unsafe { scf::condition(value(c), &[], self.location()) };
        self.at_end(before_block).insert_built(condition);
        let (after, after_block) = self.owned_region(&[]);
        self.at_end(after_block).yield_(&[]);
        let op = scf::r#while(&[], &[], before, after, self.location());
        self.insert_built(op)
    }

    // ----- Upstream ops through melior's typed dialect builders -----

    /// The builder's location, as melior's.
    fn location<'c>(&self) -> Location<'c> {
        // SAFETY: `loc` is a live location (builder contract); the view is used only to build
        // one operation.
        unsafe { Location::from_raw(self.loc) }
    }

    /// Inserts `op`, just built by one of melior's typed builders, and returns its handle.
    fn insert_built(&self, op: Operation<'_>) -> MlirOperation {
        // melior gives up ownership; the block takes it in `insert`.
        let raw = op.into_raw();
        self.insert(raw);
        raw
    }

    /// The first result of `op`, just built with at least one.
    fn first_result(op: MlirOperation) -> MlirValue {
        // SAFETY: `op` is live, built by the caller with at least one result.
        unsafe { mlirOperationGetResult(op, 0) }
    }

    /// The binary op `build` (`arith::addi`, ...) of `a` and `b`; its result type is theirs.
    pub fn arith_binary(&self, build: ArithBinary, a: MlirValue, b: MlirValue) -> MlirValue {
        // SAFETY: `a` and `b` are live values visible here (module and builder contracts).
        let op = unsafe { build(value(a), value(b), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// The cast `build` (`arith::extf`, ...) of `v` to `to`.
    pub fn arith_cast(&self, build: ArithCast, v: MlirValue, to: MlirType) -> MlirValue {
        // SAFETY: `v` and `to` are live (module and builder contracts).
        let op = unsafe { build(value(v), melior::ir::Type::from_raw(to), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// `arith.addi %a, %b` (no folding; see [`B::add`] for index arithmetic that folds).
    pub fn addi(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::addi, a, b)
    }

    /// `arith.addf %a, %b`.
    pub fn addf(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::addf, a, b)
    }

    /// `arith.andi %a, %b`.
    pub fn andi(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::andi, a, b)
    }

    /// `arith.cmpi predicate, %a, %b`.
    pub fn cmpi(&self, predicate: arith::CmpiPredicate, a: MlirValue, b: MlirValue) -> MlirValue {
        // SAFETY: `ctx` is live for the whole pass (builder contract), and the `&Context` view
        // borrows `context_ref`, alive for this call only; `a` and `b` are live values.
        let op = unsafe {
            let context_ref = ContextRef::from_raw(self.ctx);
            let context: &Context = context_ref.to_ref();
            arith::cmpi(context, predicate, value(a), value(b), self.location())
        };
        Self::first_result(self.insert_built(op))
    }

    /// `arith.select %cond, %a, %b`.
    pub fn select(&self, cond: MlirValue, a: MlirValue, b: MlirValue) -> MlirValue {
        // SAFETY: live values visible here (module and builder contracts).
        let op = unsafe { arith::select(value(cond), value(a), value(b), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// `arith.subi %a, %b` (no folding; see [`B::sub`]).
    pub fn subi(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::subi, a, b)
    }

    /// `arith.minsi %a, %b`.
    pub fn minsi(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::minsi, a, b)
    }

    /// `arith.muli %a, %b` (no folding; see [`B::mul`]).
    pub fn muli(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::muli, a, b)
    }

    /// `arith.mulf %a, %b`.
    pub fn mulf(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::mulf, a, b)
    }

    /// `arith.divf %a, %b`.
    pub fn divf(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::divf, a, b)
    }

    /// `arith.maximumf %a, %b` (NaN-propagating; not `arith.maxnumf`).
    pub fn maximumf(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(ops::maximumf, a, b)
    }

    /// `arith.maxsi %a, %b`.
    pub fn maxsi(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::maxsi, a, b)
    }

    /// `arith.ori %a, %b`.
    pub fn ori(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::ori, a, b)
    }

    /// `arith.xori %a, %b`.
    pub fn xori(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::xori, a, b)
    }

    /// `arith.shli %a, %b`.
    pub fn shli(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::shli, a, b)
    }

    /// `arith.shrui %a, %b`.
    pub fn shrui(&self, a: MlirValue, b: MlirValue) -> MlirValue {
        self.arith_binary(arith::shrui, a, b)
    }

    /// `arith.negf %v`.
    pub fn negf(&self, v: MlirValue) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        let op = unsafe { arith::negf(value(v), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// The unary `math` op `build` ([`math::exp`], ...) of `v`; its result type is `v`'s.
    pub fn math_unary(&self, build: MathUnary, v: MlirValue) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        let op = unsafe { build(value(v), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// `arith.extui %v : ... to to`.
    pub fn extui(&self, v: MlirValue, to: MlirType) -> MlirValue {
        self.arith_cast(arith::extui, v, to)
    }

    /// `arith.trunci %v : ... to to`.
    pub fn trunci(&self, v: MlirValue, to: MlirType) -> MlirValue {
        self.arith_cast(arith::trunci, v, to)
    }

    /// `arith.index_cast %v : ... to to`.
    pub fn index_cast(&self, v: MlirValue, to: MlirType) -> MlirValue {
        self.arith_cast(arith::index_cast, v, to)
    }

    /// `arith.extf %v : ... to to`.
    pub fn extf(&self, v: MlirValue, to: MlirType) -> MlirValue {
        self.arith_cast(arith::extf, v, to)
    }

    /// `arith.truncf %v : ... to to`.
    pub fn truncf(&self, v: MlirValue, to: MlirType) -> MlirValue {
        self.arith_cast(arith::truncf, v, to)
    }

    /// `memref.cast %v : ... to to` (ranked or unranked `to`).
    pub fn memref_cast(&self, v: MlirValue, to: MlirType) -> MlirValue {
        // SAFETY: `v` and `to` are live (module and builder contracts).
        let op = unsafe { ops::memref_cast(value(v), Type::from_raw(to), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// `memref.extract_aligned_pointer_as_index %memref`.
    pub fn extract_aligned_pointer_as_index(&self, memref: MlirValue) -> MlirValue {
        // SAFETY: `memref` is a live value visible here (module and builder contracts).
        let op = unsafe {
            ops::extract_aligned_pointer_as_index(value(memref), Type::from_raw(self.index()), self.location())
        };
        Self::first_result(self.insert_built(op))
    }

    /// `memref.view %source[%byte_shift][] : ... to to` (a static-shaped result).
    pub fn view(&self, source: MlirValue, byte_shift: MlirValue, to: MlirType) -> MlirValue {
        // SAFETY: live values and type of the IR (module and builder contracts).
        let op = unsafe { ops::view(value(source), value(byte_shift), Type::from_raw(to), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// `memref.load %memref[%indices]`.
    pub fn load(&self, memref: MlirValue, indices: &[MlirValue]) -> MlirValue {
        // SAFETY: live values visible here (module and builder contracts).
        let op = unsafe { memref::load(value(memref), &values(indices), self.location()) };
        Self::first_result(self.insert_built(op))
    }

    /// `memref.store %value, %memref[%indices]`.
    pub fn store(&self, v: MlirValue, memref: MlirValue, indices: &[MlirValue]) -> MlirOperation {
        // SAFETY: live values visible here (module and builder contracts).
        let op = unsafe { memref::store(value(v), value(memref), &values(indices), self.location()) };
        self.insert_built(op)
    }

    /// `scf.yield %values`.
    pub fn yield_(&self, values_: &[MlirValue]) -> MlirOperation {
        // SAFETY: live values visible here (module and builder contracts).
        let op = unsafe { scf::r#yield(&values(values_), self.location()) };
        self.insert_built(op)
    }

    // ----- Upstream ops through the ODS-generated builders of `axe_upstream_ods` -----
    //
    // Each builds one op of the gpu, llvm, nvvm or vector dialect through the typed builder
    // that melior's `dialect!` macro generated from LLVM 22's ODS (operand, result and
    // attribute names and their presence checked by the compiler), and inserts it. Attributes
    // of those dialects' own enums (`#nvvm.proxy_kind<...>`, ...) have no typed constructor in
    // melior or the C API and are still parsed from their text.

    /// Builds one op with melior's views of the context and location (`build` gets them) and
    /// inserts it.
    pub(crate) fn build<'c, O: Into<Operation<'c>>>(
        &self,
        build: impl FnOnce(&'c Context, Location<'c>) -> O,
    ) -> MlirOperation {
        // SAFETY: `ctx` is live for the whole pass (builder contract), and the `&Context` view
        // borrows `context_ref`, alive until the op is built and inserted below.
        let context_ref = unsafe { ContextRef::from_raw(self.ctx) };
        // SAFETY: as above.
        let context: &'c Context = unsafe { context_ref.to_ref() };
        let op = build(context, self.location()).into();
        self.insert_built(op)
    }

    /// [`B::build`] of an op with one result, which it returns.
    pub(crate) fn build_value<'c, O: Into<Operation<'c>>>(
        &self,
        build: impl FnOnce(&'c Context, Location<'c>) -> O,
    ) -> MlirValue {
        Self::first_result(self.build(build))
    }

    /// melior's view of `a`, an attribute of the builder's context.
    pub(crate) fn attribute<'c>(a: MlirAttribute) -> Attribute<'c> {
        // SAFETY: `a` is live (builder contract); the view is used only to build one operation.
        unsafe { Attribute::from_raw(a) }
    }

    /// melior's view of `t`, a type of the builder's context.
    pub(crate) fn type_<'c>(t: MlirType) -> Type<'c> {
        // SAFETY: `t` is live (builder contract); the view is used only to build one operation.
        unsafe { Type::from_raw(t) }
    }

    /// A `DenseI64ArrayAttr` of `values` (`array<i64: ...>`).
    pub fn i64_array(&self, values: &[i64]) -> MlirAttribute {
        // SAFETY: `ctx` is live (builder contract); `values` is borrowed for the call.
        unsafe { mlirDenseI64ArrayGet(self.ctx, values.len() as isize, values.as_ptr()) }
    }

    /// A `DenseI32ArrayAttr` of `values` (`array<i32: ...>`), as `operandSegmentSizes` is.
    pub fn i32_array(&self, values: &[i32]) -> MlirAttribute {
        // SAFETY: `ctx` is live (builder contract); `values` is borrowed for the call.
        unsafe { mlirDenseI32ArrayGet(self.ctx, values.len() as isize, values.as_ptr()) }
    }

    /// `f32`.
    pub fn f32_type(&self) -> MlirType {
        // SAFETY: `ctx` is live (builder contract).
        unsafe { mlirF32TypeGet(self.ctx) }
    }

    /// The signless integer type of `bits` bits.
    pub fn int_type(&self, bits: u32) -> MlirType {
        // SAFETY: `ctx` is live (builder contract).
        unsafe { mlirIntegerTypeGet(self.ctx, bits) }
    }

    /// `!llvm.ptr<address_space>` (`!llvm.ptr` for 0).
    pub fn llvm_ptr(&self, address_space: u32) -> MlirType {
        self.build_type(|c| melior::dialect::llvm::r#type::pointer(c, address_space))
    }

    /// `!llvm.struct<(fields)>` (a literal, unpacked struct).
    pub fn llvm_struct(&self, fields: &[MlirType]) -> MlirType {
        let fields: Vec<Type> = fields.iter().map(|&t| Self::type_(t)).collect();
        self.build_type(|c| melior::dialect::llvm::r#type::r#struct(c, &fields, false))
    }

    /// `!llvm.array<len x element>`.
    pub fn llvm_array(&self, element: MlirType, len: u32) -> MlirType {
        melior::dialect::llvm::r#type::array(Self::type_(element), len).to_raw()
    }

    /// `vector<shape x element>`.
    pub fn vector_type(&self, element: MlirType, shape: &[u64]) -> MlirType {
        Type::vector(shape, Self::type_(element)).to_raw()
    }

    /// `memref<shape x element>` (identity layout, default memory space).
    pub fn memref_type(&self, element: MlirType, shape: &[i64]) -> MlirType {
        MemRefType::new(Self::type_(element), shape, None, None).to_raw()
    }

    /// `memref<shape x element, strided<[strides]>>` (offset 0, default memory space).
    pub fn strided_memref_type(&self, element: MlirType, shape: &[i64], strides: &[i64]) -> MlirType {
        // SAFETY: `ctx` is live (builder contract); `strides` is borrowed for the call.
        let layout = unsafe { mlirStridedLayoutAttrGet(self.ctx, 0, strides.len() as isize, strides.as_ptr()) };
        MemRefType::new(Self::type_(element), shape, Some(Self::attribute(layout)), None).to_raw()
    }

    /// `memref<*x element>` (default memory space).
    pub fn unranked_memref_type(&self, element: MlirType) -> MlirType {
        // SAFETY: `element` is live (builder contract); a null memory space is the default one.
        unsafe { mlirUnrankedMemRefTypeGet(element, MlirAttribute { ptr: std::ptr::null() }) }
    }

    /// `memref<size x element, 3>`: a rank-1 buffer in shared memory (address space 3, an
    /// `i64` attribute as the memref syntax's bare `3` is).
    pub fn shared_memref_type(&self, element: MlirType, size: i64) -> MlirType {
        let i64t = self.int_type(64);
        let space: Attribute = IntegerAttribute::new(Self::type_(i64t), 3).into();
        MemRefType::new(Self::type_(element), &[size], None, Some(space)).to_raw()
    }

    /// A string attribute of `s`.
    pub fn str_attr(&self, s: &str) -> MlirAttribute {
        // SAFETY: `ctx` is live (builder contract); the text is borrowed for the call and copied.
        unsafe { mlirStringAttrGet(self.ctx, sref(s)) }
    }

    /// A type built by one of melior's type constructors, which need the context.
    fn build_type<'c>(&self, build: impl FnOnce(&'c Context) -> Type<'c>) -> MlirType {
        // SAFETY: as in `build`: the view borrows `context_ref`, alive for this call.
        let context_ref = unsafe { ContextRef::from_raw(self.ctx) };
        // SAFETY: as above.
        let context: &'c Context = unsafe { context_ref.to_ref() };
        build(context).to_raw()
    }

    /// `gpu.barrier`.
    pub fn gpu_barrier(&self) -> MlirOperation {
        self.build(gpu::barrier)
    }

    /// `gpu.terminator`.
    pub fn gpu_terminator(&self) -> MlirOperation {
        self.build(gpu::terminator)
    }

    /// `gpu.shuffle xor %value, %offset, %width`: the shuffled value and its `i1` validity.
    pub fn gpu_shuffle_xor(&self, value_: MlirValue, offset: MlirValue, width: MlirValue) -> (MlirValue, MlirValue) {
        let t = ir::value_type(value_);
        let i1 = self.int_type(1);
        let mode = self.attr("#gpu<shuffle_mode xor>");
        let op = self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (v, o, w) = unsafe { (value(value_), value(offset), value(width)) };
            gpu::shuffle(c, Self::type_(t), Self::type_(i1), v, o, w, Self::attribute(mode), l)
        });
        // SAFETY: `op` was just built with two results.
        unsafe { (mlirOperationGetResult(op, 0), mlirOperationGetResult(op, 1)) }
    }

    /// `llvm.inttoptr %v : ... to t`.
    pub fn inttoptr(&self, v: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::inttoptr(c, Self::type_(t), unsafe { value(v) }, l))
    }

    /// `llvm.addrspacecast %v : ... to t`.
    pub fn addrspacecast(&self, v: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::addrspacecast(c, Self::type_(t), unsafe { value(v) }, l))
    }

    /// `llvm.load %ptr : ... -> t`, atomic with `ordering` (an `i64` attribute holding an
    /// `llvm::AtomicOrdering`) and `alignment` bytes when given.
    pub fn llvm_load(&self, ptr: MlirValue, t: MlirType, atomic: Option<(MlirAttribute, i64)>) -> MlirValue {
        self.llvm_load_scoped(ptr, t, atomic, None)
    }

    /// `llvm.load` as [`B::llvm_load`], an atomic one at synchronization scope `syncscope`
    /// (LLVM's name: `"device"` is the GPU, NVPTX's `.gpu`; `None` is the system, `.sys`).
    pub fn llvm_load_scoped(
        &self,
        ptr: MlirValue,
        t: MlirType,
        atomic: Option<(MlirAttribute, i64)>,
        syncscope: Option<&str>,
    ) -> MlirValue {
        let i64t = self.int_type(64);
        self.build_value(|c, l| {
            // SAFETY: `ptr` is a live value visible here (module and builder contracts).
            let op = llvm::LoadOperation::builder(c, l)
                .res(Self::type_(t))
                .addr(unsafe { value(ptr) });
            match (atomic, syncscope) {
                (None, _) => op.build(),
                (Some((ordering, alignment)), None) => op
                    .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                    .ordering(Self::attribute(ordering))
                    .build(),
                (Some((ordering, alignment)), Some(scope)) => op
                    .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                    .ordering(Self::attribute(ordering))
                    .syncscope(StringAttribute::new(c, scope))
                    .build(),
            }
        })
    }

    /// `llvm.store %v, %ptr`, atomic with `ordering` and `alignment` bytes, at
    /// synchronization scope `syncscope` (as for [`B::llvm_load_scoped`]).
    pub fn llvm_store_atomic(
        &self,
        v: MlirValue,
        ptr: MlirValue,
        ordering: MlirAttribute,
        alignment: i64,
        syncscope: Option<&str>,
    ) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (v, ptr) = unsafe { (value(v), value(ptr)) };
            let op = llvm::StoreOperation::builder(c, l)
                .value(v)
                .addr(ptr)
                .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                .ordering(Self::attribute(ordering));
            match syncscope {
                None => op.build(),
                Some(scope) => op.syncscope(StringAttribute::new(c, scope)).build(),
            }
        });
    }

    /// `llvm.fence` with `ordering` (an `i64` attribute holding an `llvm::AtomicOrdering`) at
    /// synchronization scope `syncscope` (as for [`B::llvm_load_scoped`]).
    pub fn llvm_fence(&self, ordering: MlirAttribute, syncscope: Option<&str>) {
        self.build(|c, l| {
            let op = llvm::FenceOperation::builder(c, l).ordering(Self::attribute(ordering));
            match syncscope {
                None => op.build(),
                Some(scope) => op.syncscope(StringAttribute::new(c, scope)).build(),
            }
        });
    }

    /// `llvm.mlir.poison : t`.
    pub fn poison(&self, t: MlirType) -> MlirValue {
        self.build_value(|c, l| llvm::mlir_poison(c, Self::type_(t), l))
    }

    /// `llvm.mlir.undef : t`.
    pub fn undef(&self, t: MlirType) -> MlirValue {
        self.build_value(|c, l| llvm::mlir_undef(c, Self::type_(t), l))
    }

    /// `llvm.insertvalue %v, %container[position]`.
    pub fn insertvalue(&self, container: MlirValue, v: MlirValue, position: &[i64]) -> MlirValue {
        let t = ir::value_type(container);
        let position = self.i64_array(position);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (container, v) = unsafe { (value(container), value(v)) };
            llvm::insertvalue(c, Self::type_(t), container, v, Self::attribute(position), l)
        })
    }

    /// `llvm.extractvalue %container[position] : t`.
    pub fn extractvalue(&self, container: MlirValue, position: &[i64], t: MlirType) -> MlirValue {
        let position = self.i64_array(position);
        self.build_value(|c, l| {
            // SAFETY: `container` is a live value visible here (module and builder contracts).
            let container = unsafe { value(container) };
            llvm::extractvalue(c, Self::type_(t), container, Self::attribute(position), l)
        })
    }

    /// `llvm.intr.exp2 %v`.
    pub fn llvm_exp2(&self, v: MlirValue) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::intr_exp_2(c, unsafe { value(v) }, l))
    }

    /// `llvm.intr.sqrt %v`.
    pub fn llvm_sqrt(&self, v: MlirValue) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::intr_sqrt(c, unsafe { value(v) }, l))
    }

    /// `llvm.inline_asm has_side_effects asm_string, constraints (%operands) -> t`.
    pub fn inline_asm_side_effects(
        &self,
        asm: &str,
        constraints: &str,
        operands: &[MlirValue],
        t: MlirType,
    ) -> MlirValue {
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let operands = unsafe { values(operands) };
            llvm::InlineAsmOperation::builder(c, l)
                .res(Self::type_(t))
                .operands(&operands)
                .asm_string(StringAttribute::new(c, asm))
                .constraints(StringAttribute::new(c, constraints))
                .has_side_effects(Attribute::unit(c))
                .build()
        })
    }

    /// `llvm.inline_asm has_side_effects asm_string, constraints (%operands)` with no result:
    /// an instruction the NVVM dialect has no op for.
    pub fn inline_asm_void(&self, asm: &str, constraints: &str, operands: &[MlirValue]) {
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let operands = unsafe { values(operands) };
            llvm::InlineAsmOperation::builder(c, l)
                .operands(&operands)
                .asm_string(StringAttribute::new(c, asm))
                .constraints(StringAttribute::new(c, constraints))
                .has_side_effects(Attribute::unit(c))
                .build()
        });
    }

    /// `cp.reduce.async.bulk.global.shared::cta.bulk_group{op} [dst], [src], bytes`: the TMA
    /// unit reads `bytes` from the shared address `src` (i32, the shared window) and combines
    /// them into global memory at `dst` (i64); `op` is the PTX reduction suffix
    /// (`.add.noftz.f16`, `.add.f32`, ...). Inline PTX: the NVVM dialect has only the tensor
    /// form (`nvvm.cp.async.bulk.tensor.reduce`), which needs a tensor map.
    pub fn cp_reduce_async_bulk_shared_to_global(&self, op: &str, dst: MlirValue, src: MlirValue, bytes: i64) {
        let asm = format!("cp.reduce.async.bulk.global.shared::cta.bulk_group{op} [$0], [$1], {bytes};");
        self.inline_asm_void(&asm, "l,r,~{memory}", &[dst, src]);
    }

    /// `nvvm.fence.proxy` of kind `async.shared` in the CTA's shared space
    /// (`fence.proxy.async.shared::cta`): this thread's generic-proxy writes to shared memory
    /// become visible to the async proxy (TMA, wgmma) that reads them next.
    pub fn fence_proxy_async_shared(&self) {
        let kind = self.attr("#nvvm.proxy_kind<async.shared>");
        let space = self.attr("#nvvm.shared_space<cta>");
        self.build(|c, l| {
            nvvm::FenceProxyOperation::builder(c, l)
                .kind(Self::attribute(kind))
                .space(Self::attribute(space))
                .build()
        });
    }

    /// `nvvm.fence.proxy` of kind `async.global` (`fence.proxy.async.global`): orders this
    /// thread's generic-proxy accesses to global memory (an acquire that made another CTA's
    /// writes visible) before the async-proxy accesses (TMA loads) it issues next.
    pub fn fence_proxy_async_global(&self) {
        let kind = self.attr("#nvvm.proxy_kind<async.global>");
        self.build(|c, l| {
            nvvm::FenceProxyOperation::builder(c, l)
                .kind(Self::attribute(kind))
                .build()
        });
    }

    /// `nvvm.fence.mbarrier.init`.
    pub fn fence_mbarrier_init(&self) {
        self.build(nvvm::fence_mbarrier_init);
    }

    /// `nvvm.mbarrier.init %bar, %count`.
    pub fn mbarrier_init(&self, bar: MlirValue, count: MlirValue) {
        // SAFETY: live values visible here (module and builder contracts).
        self.build(|c, l| unsafe { nvvm::mbarrier_init(c, value(bar), value(count), l) });
    }

    /// `nvvm.mbarrier.arrive %bar` (no result: the arrival's state is not used).
    pub fn mbarrier_arrive(&self, bar: MlirValue) {
        // SAFETY: `bar` is a live value visible here (module and builder contracts).
        self.build(|c, l| nvvm::mbarrier_arrive(c, unsafe { value(bar) }, l));
    }

    /// `nvvm.cluster.arrive` (barrier.cluster.arrive: release).
    pub fn cluster_arrive(&self) {
        self.build(nvvm::cluster_arrive);
    }

    /// `nvvm.cluster.wait` (barrier.cluster.wait: acquire).
    pub fn cluster_wait(&self) {
        self.build(nvvm::cluster_wait);
    }

    /// `nvvm.mapa %ptr, %rank : ... -> t`: the address of `ptr`'s bytes in the shared memory
    /// of the cluster's CTA of rank `rank` (an i32).
    pub fn mapa(&self, ptr: MlirValue, rank: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: live values visible here (module and builder contracts).
        self.build_value(|c, l| unsafe { nvvm::mapa(c, Self::type_(t), value(ptr), value(rank), l) })
    }

    /// `nvvm.mbarrier.arrive.expect_tx %bar, %bytes` (no result).
    pub fn mbarrier_arrive_expect_tx(&self, bar: MlirValue, bytes: MlirValue) {
        // SAFETY: live values visible here (module and builder contracts).
        self.build(|c, l| unsafe { nvvm::mbarrier_arrive_expect_tx(c, value(bar), value(bytes), l) });
    }

    /// `nvvm.mbarrier.try_wait %bar, %phase, %ticks -> i1`.
    pub fn mbarrier_try_wait(&self, bar: MlirValue, phase: MlirValue, ticks: MlirValue) -> MlirValue {
        let i1 = self.int_type(1);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (bar, phase, ticks) = unsafe { (value(bar), value(phase), value(ticks)) };
            nvvm::MBarrierTryWaitOperation::builder(c, l)
                .res(Self::type_(i1))
                .addr(bar)
                .state_or_phase(phase)
                .ticks(ticks)
                .build()
        })
    }

    /// `nvvm.mbarrier.try_wait.parity %bar, %phase, %ticks` (a loop until the phase completes).
    pub fn mbarrier_try_wait_parity(&self, bar: MlirValue, phase: MlirValue, ticks: MlirValue) {
        // SAFETY: live values visible here (module and builder contracts).
        self.build(|c, l| unsafe { nvvm::mbarrier_try_wait_parity(c, value(bar), value(phase), value(ticks), l) });
    }

    /// `nvvm.prefetch tensormap, %ptr`.
    pub fn prefetch_tensormap(&self, ptr: MlirValue) {
        self.build(|c, l| {
            // SAFETY: `ptr` is a live value visible here (module and builder contracts).
            nvvm::PrefetchOperation::builder(c, l)
                .addr(unsafe { value(ptr) })
                .tensormap(Attribute::unit(c))
                .build()
        });
    }

    /// `nvvm.bar.warp.sync %mask`.
    pub fn bar_warp_sync(&self, mask: MlirValue) {
        // SAFETY: `mask` is a live value visible here (module and builder contracts).
        self.build(|c, l| nvvm::bar_warp_sync(c, unsafe { value(mask) }, l));
    }

    /// `nvvm.cp.async.shared.global %dst, %src, size, cache = modifier[, %src_bytes]`: with
    /// `src_bytes` (an `i32`), only that many bytes are read and the rest of the `size` bytes
    /// are zero-filled (PTX's `src-size`: 0 reads nothing, a predicated-off access).
    pub fn cp_async_shared_global(
        &self,
        dst: MlirValue,
        src: MlirValue,
        size: i64,
        modifier: MlirAttribute,
        src_bytes: Option<MlirValue>,
    ) {
        let i32t = self.int_type(32);
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (dst, src) = unsafe { (value(dst), value(src)) };
            let size = IntegerAttribute::new(Self::type_(i32t), size);
            let b = nvvm::CpAsyncOperation::builder(c, l)
                .dst(dst)
                .src(src)
                .size(size)
                .modifier(Self::attribute(modifier));
            match src_bytes {
                // SAFETY: as above.
                Some(n) => b.cp_size(unsafe { value(n) }).build(),
                None => b.build(),
            }
        });
    }

    /// `nvvm.cp.async.commit.group`.
    pub fn cp_async_commit_group(&self) {
        self.build(nvvm::cp_async_commit_group);
    }

    /// `nvvm.cp.async.wait.group n`.
    pub fn cp_async_wait_group(&self, n: i64) {
        // An `n` beyond `i32` (the verifier bounds it to [0, 2^31)) is built as an `i64`, for
        // the op's verifier to report, not truncated.
        let t = self.int_type(if i32::try_from(n).is_ok() { 32 } else { 64 });
        self.build(|c, l| nvvm::cp_async_wait_group(c, IntegerAttribute::new(Self::type_(t), n), l));
    }

    /// `nvvm.cp.async.bulk.commit.group`.
    pub fn cp_async_bulk_commit_group(&self) {
        self.build(nvvm::cp_async_bulk_commit_group);
    }

    /// `nvvm.cp.async.bulk.wait_group group`.
    pub fn cp_async_bulk_wait_group(&self, group: i32) {
        let i32t = self.int_type(32);
        self.build(|c, l| {
            nvvm::cp_async_bulk_wait_group(c, IntegerAttribute::new(Self::type_(i32t), i64::from(group)), l)
        });
    }

    /// `nvvm.cp.async.bulk.wait_group group {read}`: waits until at most `group` of the
    /// thread's bulk async-groups are still reading their source (the shared tile is free
    /// again); their writes may still be in flight.
    pub fn cp_async_bulk_wait_group_read(&self, group: i32) {
        let i32t = self.int_type(32);
        self.build(|c, l| {
            nvvm::CpAsyncBulkWaitGroupOperation::builder(c, l)
                .group(IntegerAttribute::new(Self::type_(i32t), i64::from(group)))
                .read(melior::ir::attribute::Attribute::unit(c))
                .build()
        });
    }

    /// `nvvm.cp.async.bulk.global.shared.cta %dst, %src, %bytes`: a one-dimensional bulk copy
    /// (the TMA unit) of `bytes` (an `i32`, a multiple of 16) from shared memory (`ptr<3>`) to
    /// global memory (`ptr<1>`, any device's address the GPU can reach). By name, not through
    /// `axe_upstream_ods`: an op with `AttrSizedOperandSegments` (see [`B::op`]).
    pub fn cp_async_bulk_shared_to_global(&self, dst: MlirValue, src: MlirValue, bytes: MlirValue) {
        let seg = self.i32_array(&[1, 1, 1, 0, 0]);
        self.op(
            "nvvm.cp.async.bulk.global.shared.cta",
            &[dst, src, bytes],
            &[],
            &[("operandSegmentSizes", seg)],
            vec![],
        );
    }

    /// `nvvm.setmaxregister action regCount` (`action` is `increase` or `decrease`).
    pub fn setmaxregister(&self, action: &str, count: i64) {
        let i32t = self.int_type(32);
        let action = self.attr(&format!("#nvvm<action {action}>"));
        self.build(|c, l| {
            let count = IntegerAttribute::new(Self::type_(i32t), count);
            nvvm::setmaxregister(c, count, Self::attribute(action), l)
        });
    }

    /// `nvvm.wgmma.fence.aligned`.
    pub fn wgmma_fence_aligned(&self) {
        self.build(nvvm::wgmma_fence_aligned);
    }

    /// `nvvm.wgmma.commit.group.sync.aligned`.
    pub fn wgmma_commit_group_sync_aligned(&self) {
        self.build(nvvm::wgmma_commit_group_sync_aligned);
    }

    /// `nvvm.wgmma.wait.group.sync.aligned group`.
    pub fn wgmma_wait_group_sync_aligned(&self, group: i64) {
        let i64t = self.int_type(64);
        self.build(|c, l| nvvm::wgmma_wait_group_sync_aligned(c, IntegerAttribute::new(Self::type_(i64t), group), l));
    }

    /// `nvvm.wgmma.mma_async %inouts, %descriptor_a, %descriptor_b` with `attrs`: the
    /// accumulator struct after one warpgroup MMA.
    pub fn wgmma_mma_async(
        &self,
        inouts: MlirValue,
        descriptor_a: MlirValue,
        descriptor_b: MlirValue,
        attrs: &WgmmaAttrs,
    ) -> MlirValue {
        let t = ir::value_type(inouts);
        let a = |x: MlirAttribute| Self::attribute(x);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (inouts, da, db) = unsafe { (value(inouts), value(descriptor_a), value(descriptor_b)) };
            nvvm::WgmmaMmaAsyncOperation::builder(c, l)
                .results(Self::type_(t))
                .inouts(inouts)
                .descriptor_a(da)
                .descriptor_b(db)
                .shape(a(attrs.shape))
                .type_a(a(attrs.type_a))
                .type_b(a(attrs.type_b))
                .type_d(a(attrs.type_d))
                .scale_d(a(attrs.scale_d))
                .scale_a(a(attrs.scale_a))
                .scale_b(a(attrs.scale_b))
                .layout_a(a(attrs.layout_a))
                .layout_b(a(attrs.layout_b))
                .build()
        })
    }

    /// `memref.alloca() : t` (static shape), with `alignment` bytes when given. By name, not
    /// through `axe_upstream_ods`: an op with `AttrSizedOperandSegments` (see [`B::op`]).
    pub fn alloca(&self, t: MlirType, alignment: Option<i64>) -> MlirValue {
        let mut attrs = vec![("operandSegmentSizes", self.i32_array(&[0, 0]))];
        if let Some(a) = alignment {
            attrs.push(("alignment", self.i64_attr(a)));
        }
        self.val("memref.alloca", &[], t, &attrs)
    }

    /// `memref.global @name : t {alignment}` with no initial value and public visibility: a
    /// declaration of storage defined elsewhere (LLVM: an external global).
    pub fn memref_global_declaration(&self, name: &str, t: MlirType, alignment: i64) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            memref_ods::GlobalOperation::builder(c, l)
                .sym_name(StringAttribute::new(c, name))
                .r#type(TypeAttribute::new(Self::type_(t)))
                .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                .build()
        });
    }

    /// `memref.global "private" @name : t` with no initial value (the attribute `unit`, as
    /// the generic form spells an uninitialized global) and `alignment` bytes.
    pub fn memref_global_uninitialized(&self, name: &str, t: MlirType, alignment: i64) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            memref_ods::GlobalOperation::builder(c, l)
                .sym_name(StringAttribute::new(c, name))
                .sym_visibility(StringAttribute::new(c, "private"))
                .r#type(TypeAttribute::new(Self::type_(t)))
                .initial_value(Attribute::unit(c))
                .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                .build()
        });
    }

    /// `memref.get_global @name : t`.
    pub fn memref_get_global(&self, name: &str, t: MlirType) -> MlirValue {
        self.build_value(|c, l| memref_ods::get_global(c, Self::type_(t), FlatSymbolRefAttribute::new(c, name), l))
    }

    /// `builtin.unrealized_conversion_cast %v : ... to t`.
    pub fn unrealized_conversion_cast(&self, v: MlirValue, t: MlirType) -> MlirValue {
        self.build_value(|c, l| {
            // SAFETY: `v` is a live value visible here (module and builder contracts).
            let v = unsafe { value(v) };
            builtin::unrealized_conversion_cast(c, &[Self::type_(t)], &[v], l)
        })
    }

    /// `nvgpu.ldmatrix %memref[%indices] {transpose, numTiles} : ... -> t`.
    pub fn nvgpu_ldmatrix(
        &self,
        memref: MlirValue,
        indices: &[MlirValue],
        t: MlirType,
        transpose: bool,
        num_tiles: i64,
    ) -> MlirValue {
        let i32t = self.int_type(32);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (memref, indices) = unsafe { (value(memref), values(indices)) };
            let tiles = IntegerAttribute::new(Self::type_(i32t), num_tiles);
            let transpose = BoolAttribute::new(c, transpose).into();
            nvgpu::ldmatrix(c, Self::type_(t), memref, &indices, transpose, tiles, l)
        })
    }

    /// `nvgpu.mma.sync(%a, %b, %c) {mmaShape = shape} : ... -> t`.
    pub fn nvgpu_mma_sync(&self, a: MlirValue, b: MlirValue, c_: MlirValue, t: MlirType, shape: [i64; 3]) -> MlirValue {
        let i64t = self.int_type(64);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (a, b, c_) = unsafe { (value(a), value(b), value(c_)) };
            let shape: Vec<Attribute> = shape
                .iter()
                .map(|&x| IntegerAttribute::new(Self::type_(i64t), x).into())
                .collect();
            nvgpu::mma_sync(c, Self::type_(t), a, b, c_, ArrayAttribute::new(c, &shape), l)
        })
    }

    /// `nvgpu.tma.create.descriptor %tensor box[%box] : ... -> t`.
    pub fn nvgpu_tma_create_descriptor(
        &self,
        tensor: MlirValue,
        box_dimensions: &[MlirValue],
        t: MlirType,
    ) -> MlirValue {
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (tensor, box_dimensions) = unsafe { (value(tensor), values(box_dimensions)) };
            nvgpu::tma_create_descriptor(c, Self::type_(t), tensor, &box_dimensions, l)
        })
    }

    /// `vector.load %memref[%indices] : ... , t`, with `alignment` bytes when given.
    pub fn vector_load(
        &self,
        memref: MlirValue,
        indices: &[MlirValue],
        t: MlirType,
        alignment: Option<i64>,
    ) -> MlirValue {
        let i64t = self.int_type(64);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (memref, indices) = unsafe { (value(memref), values(indices)) };
            let op = vector::LoadOperation::builder(c, l)
                .result(Self::type_(t))
                .base(memref)
                .indices(&indices);
            match alignment {
                None => op.build(),
                Some(a) => op.alignment(IntegerAttribute::new(Self::type_(i64t), a)).build(),
            }
        })
    }

    /// `vector.store %v, %memref[%indices]`, with `alignment` bytes when given.
    pub fn vector_store(&self, v: MlirValue, memref: MlirValue, indices: &[MlirValue], alignment: Option<i64>) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (v, memref, indices) = unsafe { (value(v), value(memref), values(indices)) };
            let op = vector::StoreOperation::builder(c, l)
                .value_to_store(v)
                .base(memref)
                .indices(&indices);
            match alignment {
                None => op.build(),
                Some(a) => op.alignment(IntegerAttribute::new(Self::type_(i64t), a)).build(),
            }
        });
    }

    /// `vector.extract %v[position]` (static positions).
    pub fn vector_extract(&self, v: MlirValue, position: &[i64]) -> MlirValue {
        let position = self.i64_array(position);
        self.build_value(|c, l| {
            // SAFETY: `v` is a live value visible here (module and builder contracts).
            let v = unsafe { value(v) };
            vector::ExtractOperation::builder(c, l)
                .source(v)
                .dynamic_position(&[])
                .static_position(Self::attribute(position))
                .build()
        })
    }

    /// `vector.from_elements %elements : t`.
    pub fn vector_from_elements(&self, elements: &[MlirValue], t: MlirType) -> MlirValue {
        // SAFETY: live values visible here (module and builder contracts).
        self.build_value(|c, l| vector::from_elements(c, Self::type_(t), &unsafe { values(elements) }, l))
    }

    /// `vector.broadcast %v : ... to t`.
    pub fn vector_broadcast(&self, v: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| vector::broadcast(c, Self::type_(t), unsafe { value(v) }, l))
    }

    /// Runs `body` directly, or inside `scf.if %cond` when a condition is given.
    pub fn guarded<E>(&self, cond: Option<MlirValue>, body: impl FnOnce(B) -> Result<(), E>) -> Result<(), E> {
        match cond {
            None => body(*self),
            Some(c) => self.if_(c, body).map(|_| ()),
        }
    }
}

/// The attributes of one `nvvm.wgmma.mma_async` (its shape, operand types, scales and
/// layouts): values of NVVM's enum and struct attributes, which have no typed constructors.
pub struct WgmmaAttrs {
    pub shape: MlirAttribute,
    pub type_a: MlirAttribute,
    pub type_b: MlirAttribute,
    pub type_d: MlirAttribute,
    pub scale_d: MlirAttribute,
    pub scale_a: MlirAttribute,
    pub scale_b: MlirAttribute,
    pub layout_a: MlirAttribute,
    pub layout_b: MlirAttribute,
}

/// `arith` and `memref` ops that melior's hand-written modules lack (or build with an outdated
/// attribute), through melior's ODS-generated ones. Their signature is that of melior's
/// hand-written builders (no context: it is the location's), so that [`ArithBinary`] and the
/// builder's call sites take either.
pub mod ops {
    use axe_upstream_ods::{arith, memref};
    use melior::ir::operation::OperationBuilder;
    use melior::ir::{Location, Operation, Type, Value};

    /// Runs `build` with melior's view of `location`'s context.
    pub(super) fn with_context<'c, O: Into<Operation<'c>>>(
        location: Location<'c>,
        build: impl FnOnce(&'c melior::Context) -> O,
    ) -> Operation<'c> {
        let context_ref = location.context();
        // SAFETY: the location's context is live (it owns the location), and the `&Context` view
        // borrows `context_ref`, alive until the op is built.
        let context = unsafe { context_ref.to_ref() };
        build(context).into()
    }

    /// `arith.maximumf`: result type inferred (`SameOperandsAndResultType`).
    pub fn maximumf<'c>(lhs: Value<'c, '_>, rhs: Value<'c, '_>, location: Location<'c>) -> Operation<'c> {
        with_context(location, |c| arith::maximumf(c, lhs, rhs, location))
    }

    /// `arith.minimumf`: result type inferred (`SameOperandsAndResultType`).
    pub fn minimumf<'c>(lhs: Value<'c, '_>, rhs: Value<'c, '_>, location: Location<'c>) -> Operation<'c> {
        with_context(location, |c| arith::minimumf(c, lhs, rhs, location))
    }

    /// `memref.cast` to any memref type (melior's hand-written `memref::cast` takes only ranked
    /// ones).
    pub fn memref_cast<'c>(value: Value<'c, '_>, to: Type<'c>, location: Location<'c>) -> Operation<'c> {
        with_context(location, |c| memref::cast(c, to, value, location))
    }

    /// `memref.extract_aligned_pointer_as_index`: an `index` result.
    pub fn extract_aligned_pointer_as_index<'c>(
        memref: Value<'c, '_>,
        index: Type<'c>,
        location: Location<'c>,
    ) -> Operation<'c> {
        with_context(location, |c| {
            memref::extract_aligned_pointer_as_index(c, index, memref, location)
        })
    }

    /// `memref.view` with no dynamic sizes, by name: melior's hand-written `memref::view` adds
    /// an `operand_segment_sizes` attribute that `memref.view` does not have, and the generated
    /// one cannot set the result type (the op's ODS result is unnamed, and melior's generator
    /// makes setters for named results only).
    pub fn view<'c>(
        source: Value<'c, '_>,
        byte_shift: Value<'c, '_>,
        result: Type<'c>,
        location: Location<'c>,
    ) -> Operation<'c> {
        OperationBuilder::new("memref.view", location)
            .add_operands(&[source, byte_shift])
            .add_results(&[result])
            .build()
            .expect("valid operation")
    }
}

/// The unary `math` ops used here (melior has no hand-written `math` module), through melior's
/// ODS-generated one, with the signature of melior's hand-written unary builders.
pub mod math {
    use axe_upstream_ods::math as ods;
    use melior::ir::{Location, Operation, Value};

    // `op => generated`: the generated constructors are the op names in snake case (`exp2`
    // becomes `exp_2`).
    macro_rules! math_unary {
        ($($name:ident => $ods:ident),*) => {$(
            #[doc = concat!("`math.", stringify!($name), "`: the result type is the operand's.")]
            pub fn $name<'c>(value: Value<'c, '_>, location: Location<'c>) -> Operation<'c> {
                super::ops::with_context(location, |c| ods::$ods(c, value, location))
            }
        )*};
    }
    math_unary!(exp => exp, exp2 => exp_2, log => log, sqrt => sqrt, rsqrt => rsqrt);
}

/// A unary op of [`math`] ([`math::exp`], ...).
pub type MathUnary = for<'c, 'a> fn(Value<'c, 'a>, Location<'c>) -> Operation<'c>;

pub use crate::ir::{block_ops, region_block};

/// Moves `op` right before `anchor` (unlinking it from its block and relinking it in
/// `anchor`'s; the handles of `op`, its results and its regions stay valid).
///
/// The callers hoist constants (operand- and region-free ops of other dialects), views and
/// kernels out of an `axe.mesh`, the body of an `axe.kernel` or `axe.scope` (`NoTerminator`
/// regions) into the op that replaces it, and a kernel's phases into its emulation loops.
///
/// # Safety
/// * `op` and `anchor` are live operations of the IR the running pass owns (the module
///   contract of [`crate::ir`]), and `anchor` is in a block;
/// * `op` is neither `anchor` nor an ancestor of it (nor the operation the pass runs on):
///   moving an op into its own region makes a cycle that MLIR's walks and destructors follow
///   forever or free twice;
/// * `op` is not a terminator: moving one leaves its block without the terminator C++ code
///   reads as the block's last op (with an unchecked cast), and puts one mid-block;
/// * no MLIR iterator over `op`'s old block is in use across the call (the callers iterate
///   over a collected `Vec`, such as [`block_ops`]).
///
/// Not a safety condition but the caller's duty for valid IR (the verifier checks it after
/// the pass): the new position is dominated by `op`'s operands and dominates its results'
/// uses, and it is not inside an `IsolatedFromAbove` op when `op` uses values from outside.
pub unsafe fn move_before(op: MlirOperation, anchor: MlirOperation) {
    // SAFETY: the caller's guarantees.
    unsafe { mlirOperationMoveBefore(op, anchor) }
}

pub use crate::ir::{has_attr, int_attr};
