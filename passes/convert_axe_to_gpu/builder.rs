//! A small IR builder over raw MLIR handles: generic operation creation (types and
//! attributes given as text, parsed once by MLIR), index arithmetic that folds constants
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
//! builds only forms of registered ops that it knows to be valid.

use melior::dialect::{arith, memref, scf};
use melior::ir::block::BlockLike;
use melior::ir::operation::Operation;
use melior::ir::{Attribute, Block, Location, Region, RegionLike, Type, Value};
use melior::{Context, ContextRef};
use mlir_sys::*;

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

    pub fn ty(&self, s: &str) -> MlirType {
        // SAFETY: `ctx` is live (builder contract); the text is borrowed for the call; a parse
        // failure is a null type, checked below.
        let t = unsafe { mlirTypeParseGet(self.ctx, sref(s)) };
        assert!(!t.ptr.is_null(), "internal: bad type text {s}");
        t
    }

    pub fn attr(&self, s: &str) -> MlirAttribute {
        // SAFETY: as for `ty`.
        let a = unsafe { mlirAttributeParseGet(self.ctx, sref(s)) };
        assert!(!a.ptr.is_null(), "internal: bad attribute text {s}");
        a
    }

    /// An `i64` integer attribute (built, not parsed: any value is representable).
    pub fn i64_attr(&self, v: i64) -> MlirAttribute {
        // SAFETY: `ctx` is live (builder contract); the attribute is owned by it.
        unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(self.ctx, 64), v) }
    }

    /// An `i32` integer attribute; `None` when `v` does not fit 32 bits.
    pub fn i32_attr(&self, v: i64) -> Option<MlirAttribute> {
        let v = i32::try_from(v).ok()?;
        // SAFETY: `ctx` is live (builder contract); the attribute is owned by it.
        Some(unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(self.ctx, 32), i64::from(v)) })
    }

    pub fn index(&self) -> MlirType {
        // SAFETY: `ctx` is live (builder contract).
        unsafe { mlirIndexTypeGet(self.ctx) }
    }

    /// Creates and inserts a generic operation.
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

    /// `arith.constant value_attr` (the attribute text carries the type, `t`).
    pub fn constant(&self, value_attr: &str, t: MlirType) -> MlirValue {
        let a = self.attr(value_attr);
        // SAFETY: `a` was just parsed in `ctx`; the attribute's type is the constant's.
        debug_assert!(unsafe { mlirTypeEqual(mlirAttributeGetType(a), t) });
        // SAFETY: `ctx` is live for the whole pass (builder contract), and the `&Context` view
        // borrows `context_ref`, alive for this call only; `a` is an attribute of `ctx`.
        let op = unsafe {
            let context_ref = ContextRef::from_raw(self.ctx);
            let context: &Context = context_ref.to_ref();
            arith::constant(context, Attribute::from_raw(a), self.location())
        };
        Self::first_result(self.insert_built(op))
    }

    pub fn cidx(&self, v: i64) -> MlirValue {
        self.constant(&format!("{v} : index"), self.index())
    }

    pub fn ci32(&self, v: i64) -> MlirValue {
        // SAFETY: `ctx` is live (builder contract).
        self.constant(&format!("{v} : i32"), unsafe { mlirIntegerTypeGet(self.ctx, 32) })
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

    /// `arith.cmpi` with predicate number `pred` (eq 0, ne 1, slt 2, sle 3, sgt 4, sge 5,
    /// ult 6, ule 7, ugt 8, uge 9).
    pub fn cmp(&self, pred: i64, a: Ix, b: Ix) -> MlirValue {
        use arith::CmpiPredicate::*;
        let (a, b) = (self.ix(a), self.ix(b));
        let predicate = [Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge]
            .into_iter()
            .find(|&p| p as i64 == pred);
        match predicate {
            Some(p) => self.cmpi(p, a, b),
            // Not a predicate: built as given, for the verifier to report.
            None => {
                // SAFETY: `ctx` is live (builder contract).
                let i1 = unsafe { mlirIntegerTypeGet(self.ctx, 1) };
                let p = self.attr(&format!("{pred} : i64"));
                self.val("arith.cmpi", &[a, b], i1, &[("predicate", p)])
            }
        }
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
    fn owned_region<'c>(&self, types: &[MlirType]) -> (Region<'c>, MlirBlock) {
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

    /// `fence.proxy.async.shared::cta`: this thread's generic-proxy writes to shared memory
    /// become visible to the async proxy (TMA, wgmma) that reads them next.
    pub fn fence_proxy_async_shared(&self) {
        self.op(
            "nvvm.fence.proxy",
            &[],
            &[],
            &[
                ("kind", self.attr("#nvvm.proxy_kind<async.shared>")),
                ("space", self.attr("#nvvm.shared_space<cta>")),
            ],
            vec![],
        );
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

    /// Runs `body` directly, or inside `scf.if %cond` when a condition is given.
    pub fn guarded<E>(&self, cond: Option<MlirValue>, body: impl FnOnce(B) -> Result<(), E>) -> Result<(), E> {
        match cond {
            None => body(*self),
            Some(c) => self.if_(c, body).map(|_| ()),
        }
    }
}

/// `arith` and `memref` ops melior's typed modules lack, built as melior builds its own (fixed
/// operand and result shapes, no hand-written attributes).
pub mod ops {
    use melior::ir::operation::OperationBuilder;
    use melior::ir::{Location, Operation, Type, Value};

    /// `arith.maximumf`: result type inferred (`SameOperandsAndResultType`).
    pub fn maximumf<'c>(lhs: Value<'c, '_>, rhs: Value<'c, '_>, location: Location<'c>) -> Operation<'c> {
        OperationBuilder::new("arith.maximumf", location)
            .add_operands(&[lhs, rhs])
            .enable_result_type_inference()
            .build()
            .expect("valid operation")
    }

    /// `arith.minimumf`: result type inferred (`SameOperandsAndResultType`).
    pub fn minimumf<'c>(lhs: Value<'c, '_>, rhs: Value<'c, '_>, location: Location<'c>) -> Operation<'c> {
        OperationBuilder::new("arith.minimumf", location)
            .add_operands(&[lhs, rhs])
            .enable_result_type_inference()
            .build()
            .expect("valid operation")
    }

    /// `memref.cast` to any memref type (melior's `memref::cast` takes only ranked ones).
    pub fn memref_cast<'c>(value: Value<'c, '_>, to: Type<'c>, location: Location<'c>) -> Operation<'c> {
        OperationBuilder::new("memref.cast", location)
            .add_operands(&[value])
            .add_results(&[to])
            .build()
            .expect("valid operation")
    }

    /// `memref.extract_aligned_pointer_as_index`: an `index` result.
    pub fn extract_aligned_pointer_as_index<'c>(
        memref: Value<'c, '_>,
        index: Type<'c>,
        location: Location<'c>,
    ) -> Operation<'c> {
        OperationBuilder::new("memref.extract_aligned_pointer_as_index", location)
            .add_operands(&[memref])
            .add_results(&[index])
            .build()
            .expect("valid operation")
    }

    /// `memref.view` with no dynamic sizes (melior's `memref::view` adds an
    /// `operand_segment_sizes` attribute that `memref.view` does not have).
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

/// The unary `math` ops used here (melior has no `math` module), built as melior builds its
/// own unary ops.
pub mod math {
    use melior::ir::operation::OperationBuilder;
    use melior::ir::{Location, Operation, Value, ValueLike};

    macro_rules! math_unary {
        ($($name:ident),*) => {$(
            #[doc = concat!("`math.", stringify!($name), "`: the result type is the operand's.")]
            pub fn $name<'c>(value: Value<'c, '_>, location: Location<'c>) -> Operation<'c> {
                OperationBuilder::new(concat!("math.", stringify!($name)), location)
                    .add_operands(&[value])
                    .add_results(&[value.r#type()])
                    .build()
                    .expect("valid operation")
            }
        )*};
    }
    math_unary!(exp, exp2, log, sqrt, rsqrt, absf, absi);
}

/// A unary op of [`math`] ([`math::exp`], ...).
pub type MathUnary = for<'c, 'a> fn(Value<'c, 'a>, Location<'c>) -> Operation<'c>;

pub use crate::ir::{block_ops, region_block};

/// Moves `op` right before `anchor`.
///
/// The callers move operand-free, region-free ops of other dialects (constants) out of an
/// `axe.mesh` to before it, which keeps every use dominated.
pub fn move_before(op: MlirOperation, anchor: MlirOperation) {
    // SAFETY: `op` and `anchor` are live ops of the IR the pass owns (module contract), `op`
    // not an ancestor of `anchor`; MLIR unlinks `op` and relinks it in `anchor`'s block.
    unsafe { mlirOperationMoveBefore(op, anchor) }
}

pub fn type_str(t: MlirType) -> String {
    crate::ir::type_to_string(t)
}

pub use crate::ir::{has_attr, int_attr};
