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
//!   [`UnaryKind`], [`BinaryKind`], [`ReduceKind`]) with the ODS values and strings;
//! * [`passes`], from `AxePasses.td`: every pass argument (`passes::CONVERT_AXE_TO_GPU ==
//!   "convert-axe-to-gpu"`) and per pass a struct of its typed options with the ODS defaults
//!   (`passes::ConvertAxeToGPUOptions`), read strictly by [`PassOptions::parse`] from the
//!   `key=value` words the C++ pass shells hand over.

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

/// Every Axe pass, generated from `dialect/include/Axe/AxePasses.td`: a constant per pass
/// argument, [`passes::ALL`], and per pass its options (`<ODS record>Options`, implementing
/// [`PassOptions`]).
pub mod passes {
    include!(concat!(env!("OUT_DIR"), "/axe_passes.rs"));
}

/// A pass's options, generated from its ODS `Option`s: one typed field per option, the ODS
/// defaults as [`Default`], and a strict parser of the C++ shell's option text.
pub trait PassOptions: Default {
    /// The pass argument (`convert-axe-to-gpu`).
    const PASS: &'static str;
    /// The option arguments, in ODS order.
    const OPTIONS: &'static [&'static str];

    /// Sets `option` from its text (None: the word had no `=`).
    fn set(&mut self, option: &str, value: Option<&str>) -> Result<(), OptionProblem>;

    /// Reads the option text the C++ pass shell hands over: the inside of the pass's textual
    /// pipeline form `arg{key=value ...}` (what `Pass::printAsTextualPipeline` prints: every
    /// option, sorted, `true`/`false` for booleans, a string with a space as `{...}`, an empty
    /// string as nothing after `=`). Options not given keep their ODS defaults. An unknown
    /// option, a repeated one, or a missing or ill-typed value is an error naming the pass and
    /// the option.
    fn parse(text: &str) -> Result<Self, OptionError> {
        let mut options = Self::default();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in option_words(text) {
            let error = |problem| OptionError {
                pass: Self::PASS,
                option: key.to_string(),
                known: Self::OPTIONS,
                problem,
            };
            if seen.contains(&key) {
                return Err(error(OptionProblem::Repeated));
            }
            seen.push(key);
            options.set(key, value).map_err(error)?;
        }
        Ok(options)
    }
}

/// What is wrong with one option word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionProblem {
    /// The pass declares no such option.
    Unknown,
    /// The option is given more than once.
    Repeated,
    /// `key` without `=value`; what the value should be.
    Missing(&'static str),
    /// The value is not what the option's type reads: what it should be, and the value.
    Invalid(&'static str, String),
}

/// An option the pass cannot take, with the pass and option it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    pub pass: &'static str,
    pub option: String,
    /// The pass's options.
    pub known: &'static [&'static str],
    pub problem: OptionProblem,
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (pass, option) = (self.pass, &self.option);
        match &self.problem {
            OptionProblem::Unknown if self.known.is_empty() => {
                write!(f, "{pass}: unknown option '{option}' (the pass has no options)")
            }
            OptionProblem::Unknown => write!(
                f,
                "{pass}: unknown option '{option}' (its options: {})",
                self.known.join(", ")
            ),
            OptionProblem::Repeated => write!(f, "{pass}: option '{option}' is given more than once"),
            OptionProblem::Missing(what) => write!(f, "{pass}: option '{option}' has no value: it expects {what}"),
            OptionProblem::Invalid(what, got) => write!(f, "{pass}: option '{option}' expects {what}, got '{got}'"),
        }
    }
}

impl std::error::Error for OptionError {}

/// The `key=value` words of an option text, as MLIR's pass-option parser splits them
/// (`parseNextArg` in `mlir/lib/Pass/PassRegistry.cpp`): words end at a space outside quotes
/// and braces; a key ends at the first `=`; a value wrapped whole in `'...'`, `"..."` or one
/// `{...}` is unwrapped; a word without `=` has no value.
fn option_words(text: &str) -> Vec<(&str, Option<&str>)> {
    let mut words = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let bytes = rest.as_bytes();
        let mut i = 0;
        let mut eq = None;
        while i < bytes.len() && bytes[i] != b' ' {
            match bytes[i] {
                b'=' if eq.is_none() => eq = Some(i),
                // Quotes and braces only group within the value.
                b'\'' | b'"' if eq.is_some() => {
                    if let Some(close) = rest[i + 1..].find(bytes[i] as char) {
                        i += 1 + close;
                    }
                }
                b'{' if eq.is_some() => {
                    let mut depth = 1;
                    let mut j = i + 1;
                    while j < bytes.len() && depth > 0 {
                        match bytes[j] {
                            b'\'' | b'"' => {
                                if let Some(close) = rest[j + 1..].find(bytes[j] as char) {
                                    j += 1 + close;
                                }
                            }
                            b'{' => depth += 1,
                            b'}' => depth -= 1,
                            _ => {}
                        }
                        j += 1;
                    }
                    // On the closing brace (or the end, when it is missing).
                    i = j - 1;
                }
                _ => {}
            }
            i += 1;
        }
        let word = &rest[..i];
        words.push(match eq {
            Some(e) => (word[..e].trim(), Some(unwrap_value(word[e + 1..].trim()))),
            None => (word.trim(), None),
        });
        rest = rest[i..].trim_start();
    }
    words
}

/// A value without the quotes or the one pair of braces wrapping it whole.
fn unwrap_value(v: &str) -> &str {
    if v.len() < 2 {
        return v;
    }
    for q in ['\'', '"'] {
        if v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].trim();
        }
    }
    if v.starts_with('{') && v.ends_with('}') && brace_end(v) == Some(v.len() - 1) {
        return v[1..v.len() - 1].trim();
    }
    v
}

/// The position of the brace closing the one `v` opens at 0.
fn brace_end(v: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in v.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A `bool` option's value: what LLVM's `cl::opt<bool>` reads (`true`/`false`, `1`/`0`).
fn option_bool(value: Option<&str>) -> Result<bool, OptionProblem> {
    const WHAT: &str = "a boolean (true or false)";
    match value.ok_or(OptionProblem::Missing(WHAT))? {
        "true" | "True" | "TRUE" | "1" => Ok(true),
        "false" | "False" | "FALSE" | "0" => Ok(false),
        v => Err(OptionProblem::Invalid(WHAT, v.to_string())),
    }
}

/// An `int` option's value, in decimal.
fn option_int(value: Option<&str>) -> Result<i64, OptionProblem> {
    const WHAT: &str = "an integer";
    let v = value.ok_or(OptionProblem::Missing(WHAT))?;
    v.parse().map_err(|_| OptionProblem::Invalid(WHAT, v.to_string()))
}

/// A `std::string` option's value (possibly empty).
fn option_string(value: Option<&str>) -> Result<String, OptionProblem> {
    Ok(value
        .ok_or(OptionProblem::Missing("a string, possibly empty"))?
        .to_string())
}

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
        assert_eq!(ops::ALL.len(), 28);
        assert_eq!(attention::NAME, "axe.attention");
        assert_eq!(iota::NAME, "axe.iota");
        assert_eq!(matmul::NAME, "axe.matmul");
        assert_eq!(matmul::SCHEDULE, "schedule");
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
        assert_eq!(discardable_attrs::COOPERATIVE_LAUNCHES, "axe.cooperative_launches");
        assert_eq!(discardable_attrs::WORKSPACE, "axe.workspace");
        assert_eq!(discardable_attrs::ALL.len(), 8);
        for name in discardable_attrs::ALL {
            assert!(name.starts_with(&format!("{DIALECT}.")), "{name}");
        }
        assert!(is_axe_op(ops::COPY) && is_axe_op("axe.unknown"));
        assert!(!is_axe_op("axe") && !is_axe_op("axes.copy") && !is_axe_op("arith.addf"));
    }

    #[test]
    fn pass_arguments_and_defaults_come_from_ods() {
        assert_eq!(passes::CONVERT_AXE_TO_GPU, "convert-axe-to-gpu");
        assert_eq!(passes::AXE_INFER_LAYOUT, "axe-infer-layout");
        assert_eq!(passes::ALL.len(), 9);
        assert_eq!(passes::AXE_EXPAND_ATTENTION, "axe-expand-attention");
        assert_eq!(passes::CONVERT_LINALG_TO_AXE, "convert-linalg-to-axe");
        assert_eq!(passes::AXE_MATMUL_SCHEDULE, "axe-matmul-schedule");
        assert_eq!(passes::AXE_EXPAND_MATMUL, "axe-expand-matmul");
        assert_eq!(passes::AxeMatmulScheduleOptions::default().sm_count, 0);
        assert_eq!(
            <passes::ConvertAxeToGPUOptions as PassOptions>::PASS,
            passes::CONVERT_AXE_TO_GPU
        );
        let c = passes::ConvertAxeToGPUOptions::default();
        assert!(!c.emulate_threads_on_cpu && c.chip.is_empty());
        assert!(!passes::AxeInferLayoutOptions::default().check_only);
        let n = passes::AxeLowerToNVVMOptions::default();
        assert_eq!(
            (n.chip.as_str(), n.features.as_str(), n.bare_ptr_call_conv, n.opt_level),
            ("", "+ptx80", true, 2)
        );
        // Every argument is a pass in MLIR's registry.
        let context = melior::Context::new();
        context.append_dialect_registry(&crate::dialect::registry_with_everything());
        crate::dialect::load_dialect(&context);
        for pass in passes::ALL {
            let pm = melior::pass::PassManager::new(&context);
            let pipeline = format!("builtin.module({pass})");
            assert!(
                melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), &pipeline).is_ok(),
                "{pass} is not a registered pass"
            );
        }
    }

    /// What `printAsTextualPipeline` prints (every option, sorted; booleans as true/false; a
    /// string with a space in braces; an empty one as nothing) reads back into the options.
    #[test]
    fn option_text_reads_into_typed_options() {
        type Gpu = passes::ConvertAxeToGPUOptions;
        type Nvvm = passes::AxeLowerToNVVMOptions;
        assert_eq!(Gpu::parse("").unwrap(), Gpu::default());
        assert_eq!(
            Gpu::parse("chip= emulate-threads-on-cpu=false").unwrap(),
            Gpu::default()
        );
        let o = Gpu::parse("chip=sm_90a emulate-threads-on-cpu=true").unwrap();
        assert!(o.emulate_threads_on_cpu);
        assert_eq!(o.chip, "sm_90a");
        assert_eq!(
            Gpu::parse("chip={sm 90} emulate-threads-on-cpu=1").unwrap().chip,
            "sm 90"
        );
        assert_eq!(Gpu::parse("chip='a b'").unwrap().chip, "a b");
        assert_eq!(Gpu::parse("chip=\"{x\" ").unwrap().chip, "{x");
        assert_eq!(Gpu::parse("chip={a}b").unwrap().chip, "{a}b");
        let n = Nvvm::parse("bare-ptr-call-conv=false chip=sm_80 features=+ptx80 opt-level=-1").unwrap();
        assert_eq!(
            (n.chip.as_str(), n.features.as_str(), n.bare_ptr_call_conv, n.opt_level),
            ("sm_80", "+ptx80", false, -1)
        );
        assert!(
            passes::AxeInferLayoutOptions::parse("check-only=true")
                .unwrap()
                .check_only
        );
        assert_eq!(
            passes::AxeCanonicalizeOptions::parse("  ").unwrap(),
            passes::AxeCanonicalizeOptions::default()
        );
    }

    #[test]
    fn bad_option_text_names_the_pass_and_option() {
        type Gpu = passes::ConvertAxeToGPUOptions;
        let err = |r: Result<_, OptionError>| r.map(|_: Gpu| ()).unwrap_err().to_string();
        assert_eq!(
            err(Gpu::parse("emulate-threads-on-cpu=maybe")),
            "convert-axe-to-gpu: option 'emulate-threads-on-cpu' expects a boolean (true or false), got 'maybe'"
        );
        assert_eq!(
            err(Gpu::parse("emulate-threads-on-cpu")),
            "convert-axe-to-gpu: option 'emulate-threads-on-cpu' has no value: it expects a boolean (true or false)"
        );
        assert_eq!(
            err(Gpu::parse("chip=sm_90 bogus=1")),
            "convert-axe-to-gpu: unknown option 'bogus' (its options: emulate-threads-on-cpu, chip)"
        );
        assert_eq!(
            err(Gpu::parse("chip=sm_80 chip=sm_90")),
            "convert-axe-to-gpu: option 'chip' is given more than once"
        );
        assert_eq!(
            err(Gpu::parse("chip")),
            "convert-axe-to-gpu: option 'chip' has no value: it expects a string, possibly empty"
        );
        assert_eq!(
            passes::AxeLowerToNVVMOptions::parse("opt-level=fast")
                .unwrap_err()
                .to_string(),
            "axe-lower-to-nvvm: option 'opt-level' expects an integer, got 'fast'"
        );
        assert_eq!(
            passes::AxeInferLayoutOptions::parse("check-only=yes")
                .unwrap_err()
                .to_string(),
            "axe-infer-layout: option 'check-only' expects a boolean (true or false), got 'yes'"
        );
        assert_eq!(
            passes::AxeSliceOptions::parse("x=1").unwrap_err().to_string(),
            "axe-slice: unknown option 'x' (the pass has no options)"
        );
    }
}
