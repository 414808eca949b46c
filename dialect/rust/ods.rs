//! Rust's view of the dialect, generated from its ODS (`dialect/include/Axe/*.td`) by
//! `build.rs`: one source of truth for names and enum values, so that a rename or a new case in
//! ODS is a compile error here rather than a silent mismatch at run time.
//!
//! * [`ops`]: every op's full name (`ops::COPY == "axe.copy"`), and [`ops::ALL`];
//! * one module per op (`copy`, `reduce`, ...): its attribute names (`copy::SCHEDULE`), the
//!   positions of its operands and results (`copy::operands::DEST`) and their counts
//!   (`NUM_OPERANDS` where fixed, else `MIN_OPERANDS`);
//! * [`attrs`], [`types`]: the full names of the dialect's attributes and types;
//! * [`discardable_attrs`]: the full names of the attributes the dialect defines on operations
//!   and function arguments of other dialects (`discardable_attrs::TARGET == "axe.target"`,
//!   `discardable_attrs::ALIGN`), declared once in `AxeDialect.td`'s `discardableAttrs`;
//! * one Rust enum per ODS `I32EnumAttr` ([`MemoryScope`], [`ScopeKind`], [`CopySchedule`],
//!   [`UnaryKind`], [`BinaryKind`], [`ReduceKind`]) with the ODS values and strings.

/// An enum generated from an ODS `I32EnumAttr`: its cases carry the attribute's integer value
/// and its printed string.
pub trait OdsEnum: Copy + Sized + 'static {
    /// The enum's ODS class name (`CopySchedule`).
    const NAME: &'static str;
    /// Every case, in ODS order.
    const ALL: &'static [Self];
    /// The case with ODS value `v`, None for a value ODS does not declare.
    fn from_i64(v: i64) -> Option<Self>;
    /// The ODS value.
    fn as_i64(self) -> i64;
    /// The ODS string.
    fn as_str(self) -> &'static str;
}

include!(concat!(env!("OUT_DIR"), "/axe_ods.rs"));

/// Whether `op_name` is in the dialect's namespace (`axe.` and a name), registered or not.
pub fn is_axe_op(op_name: &str) -> bool {
    op_name.strip_prefix(DIALECT).is_some_and(|rest| rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<E: OdsEnum + PartialEq + std::fmt::Debug>() {
        assert!(!E::ALL.is_empty(), "{} has no cases", E::NAME);
        for &c in E::ALL {
            assert_eq!(E::from_i64(c.as_i64()), Some(c), "{}::{c:?}", E::NAME);
            assert!(!c.as_str().is_empty());
        }
        let max = E::ALL.iter().map(|c| c.as_i64()).max().unwrap();
        assert_eq!(E::from_i64(max + 1), None);
        assert_eq!(E::from_i64(-1), None);
    }

    #[test]
    fn enums_round_trip() {
        round_trips::<MemoryScope>();
        round_trips::<ScopeKind>();
        round_trips::<CopySchedule>();
        round_trips::<UnaryKind>();
        round_trips::<BinaryKind>();
        round_trips::<ReduceKind>();
        for &c in CopySchedule::ALL {
            assert_eq!(CopySchedule::from_name(c.as_str()), Some(c));
        }
        // Spot checks against AxeAttrs.td.
        assert_eq!(CopySchedule::Tma.as_i64(), 3);
        assert_eq!(CopySchedule::CpAsync.as_str(), "cp_async");
        assert_eq!(MemoryScope::PSum.as_str(), "psum");
        assert_eq!(ReduceKind::from_i64(2), Some(ReduceKind::Min));
        assert!(
            ScopeKind::Cluster < ScopeKind::Thread,
            "scopes are ordered coarse to fine"
        );
    }

    #[test]
    fn op_names_are_registered() {
        let context = melior::Context::new();
        context.append_dialect_registry(&crate::dialect::registry_with_everything());
        crate::dialect::load_dialect(&context);
        // SAFETY: the context is alive for the test, and the string borrowed for the call.
        let registered = |name: &str| unsafe {
            mlir_sys::mlirContextIsRegisteredOperation(
                context.to_raw(),
                mlir_sys::MlirStringRef {
                    data: name.as_ptr() as *const _,
                    length: name.len(),
                },
            )
        };
        assert_eq!(ops::ALL.len(), 25);
        for name in ops::ALL {
            assert!(registered(name), "{name} is not a registered operation");
            assert!(name.starts_with(&format!("{DIALECT}.")));
        }
        assert!(!registered("axe.no_such_op"), "the check must be able to fail");
        assert_eq!(copy::NAME, "axe.copy");
        assert_eq!(copy::SCHEDULE, "schedule");
        assert_eq!(
            (copy::operands::SOURCE, copy::operands::DEST, copy::MIN_OPERANDS),
            (0, 1, 2)
        );
        assert_eq!(binary::NUM_OPERANDS, 3);
        assert_eq!(kernel::NUM_REGIONS, 1);
        assert_eq!(types::TENSOR, "axe.tensor");
        assert_eq!(attrs::LAYOUT, "axe.layout");
        assert_eq!(discardable_attrs::TARGET, "axe.target");
        assert_eq!(discardable_attrs::ALIGN, "axe.align");
        assert_eq!(discardable_attrs::ALL.len(), 6);
        for name in discardable_attrs::ALL {
            assert!(name.starts_with(&format!("{DIALECT}.")), "{name}");
        }
        assert!(is_axe_op(ops::COPY) && is_axe_op("axe.unknown"));
        assert!(!is_axe_op("axe") && !is_axe_op("axes.copy") && !is_axe_op("arith.addf"));
    }
}
