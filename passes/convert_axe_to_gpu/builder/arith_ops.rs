//! [`B`]'s builders of melior's typed builders: `arith`, `math`, `memref` and `scf.yield` (constant folding lives in the builder's core).

use super::*;
use melior::dialect::{arith, memref, scf};
use melior::ir::Type;
use melior::{Context, ContextRef};

impl B {
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
}
