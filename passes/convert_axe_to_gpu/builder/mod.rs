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

use melior::dialect::{arith, scf};
use melior::ir::block::BlockLike;
use melior::ir::operation::Operation;
use melior::ir::{Attribute, Block, Location, Region, RegionLike, Type, Value};
use melior::{Context, ContextRef};
use mlir_sys::*;

use crate::ir;
use crate::ir::string_ref as sref;

// The builders of each dialect, as further `impl B` blocks.
mod arith_ops;
mod attributes;
mod gpu_ops;
mod llvm_ops;
mod memref_ops;
mod nvgpu_ops;
mod nvvm_ops;
mod vector_ops;

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

    /// `scf.for %iv = lb to ub step step iter_args(init)`: `body` builds at the end of the loop
    /// block from the induction variable and the carried values, and returns the values it
    /// yields (of the types of `init`). Returns the loop's results.
    pub fn for_carrying(
        &self,
        lb: Ix,
        ub: Ix,
        step: Ix,
        init: &[MlirValue],
        body: impl FnOnce(&B, MlirValue, &[MlirValue]) -> Vec<MlirValue>,
    ) -> Vec<MlirValue> {
        let (lb, ub, step) = (self.ix(lb), self.ix(ub), self.ix(step));
        let types: Vec<MlirType> = init.iter().map(|&v| ir::value_type(v)).collect();
        let mut arg_types = vec![self.index()];
        arg_types.extend(&types);
        let (region, block) = self.region(&arg_types);
        let inner = self.at_end(block);
        // SAFETY: `block` was just created with 1 + init.len() arguments.
        let args: Vec<MlirValue> = (0..arg_types.len())
            .map(|i| unsafe { mlirBlockGetArgument(block, i as isize) })
            .collect();
        let yielded = body(&inner, args[0], &args[1..]);
        assert_eq!(yielded.len(), init.len(), "internal: a loop yields what it carries");
        inner.yield_(&yielded);
        let mut operands = vec![lb, ub, step];
        operands.extend_from_slice(init);
        let op = self.op("scf.for", &operands, &types, &[], vec![region]);
        // SAFETY: `op` is live and was created with `types.len()` results.
        (0..types.len())
            .map(|i| unsafe { mlirOperationGetResult(op, i as isize) })
            .collect()
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
