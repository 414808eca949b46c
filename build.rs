//! Builds the dialect's C++ (ODS → mlir-tblgen → static library, plus libMLIR-C.so) through
//! the CMake preset and links it into the `axe` crate. Cargo reruns this script only when the
//! C++ or ODS sources change, so a Rust-only change never rebuilds the C++.
//!
//! It also generates `$OUT_DIR/axe_ods.rs`, Rust's view of the dialect's names and enums, from
//! the ODS records (`llvm-tblgen --dump-json`), and `$OUT_DIR/axe_passes.rs`, the pass arguments
//! and typed options, from the pass declarations: see [`generate_ods`] and [`generate_passes`].

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const LLVM_PREFIX: &str = "/usr/lib/llvm-22";
const APT_PACKAGES: &str = "libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 \
     libpolly-22-dev libzstd-dev libz3-dev libxml2-dev zlib1g-dev cmake ninja-build";

fn fail(message: &str) -> ! {
    eprintln!("\nerror: {message}\n");
    std::process::exit(1);
}

fn check_llvm() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| LLVM_PREFIX.into());
    let config = Path::new(&prefix).join("bin/llvm-config");
    let version = Command::new(&config).arg("--version").output();
    match version {
        Ok(out) if String::from_utf8_lossy(&out.stdout).starts_with("22.") => {}
        Ok(out) => fail(&format!(
            "Axe needs LLVM/MLIR 22, but {} reports {}. Install it with:\n  apt-get install {APT_PACKAGES}",
            config.display(),
            String::from_utf8_lossy(&out.stdout).trim()
        )),
        Err(_) => fail(&format!(
            "LLVM/MLIR 22 was not found at {prefix}. On Debian 12 install it with:\n  \
             apt-get update && apt-get install {APT_PACKAGES}"
        )),
    }
    for tool in ["cmake", "ninja"] {
        if Command::new(tool).arg("--version").output().is_err() {
            fail(&format!(
                "`{tool}` was not found. Install it with:\n  apt-get install {APT_PACKAGES}"
            ));
        }
    }
}

/// A variable Cargo sets for every build script.
fn cargo_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| fail(&format!("{name} is not set: run this build script through cargo")))
}

fn out_dir() -> PathBuf {
    PathBuf::from(cargo_env("OUT_DIR"))
}

fn run(cmd: &mut Command, what: &str) {
    let status = cmd.status().unwrap_or_else(|e| fail(&format!("{what}: {e}")));
    if !status.success() {
        fail(&format!("{what} failed ({status}); see the output above"));
    }
}

fn rerun_if_changed_dir(dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                rerun_if_changed_dir(&p);
            } else {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
}

fn main() {
    check_llvm();
    let root = PathBuf::from(cargo_env("CARGO_MANIFEST_DIR"));
    // The C++ builds under OUT_DIR, never in the source tree: read-only or shared checkouts,
    // `cargo package` and two profiles building at once all work.
    let build = out_dir().join("cmake");
    // Covers every .td file under dialect/include (the C++ and the generated Rust read them).
    rerun_if_changed_dir(&root.join("dialect"));
    generate_ods(&root);
    generate_passes(&root);
    generate_ffi(&root);
    println!("cargo:rerun-if-changed={}", root.join("CMakePresets.json").display());
    println!("cargo:rerun-if-changed={}", root.join("CMakeLists.txt").display());

    if !build.join("build.ninja").exists() {
        run(
            Command::new("cmake")
                .arg("--preset")
                .arg("axe")
                .arg("-B")
                .arg(&build)
                .current_dir(&root),
            "cmake configure",
        );
    }
    let jobs = std::env::var("NUM_JOBS").unwrap_or_else(|_| "2".into());
    run(
        Command::new("cmake")
            .arg("--build")
            .arg(&build)
            .args(["--parallel", &jobs])
            .current_dir(&root),
        "cmake build of dialect/",
    );

    let lib = build.join("lib");
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=static=AxeCpp");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    // Dependents (the plugin, a host crate's binaries) find libMLIR-C.so through this path: their
    // build scripts read it as DEP_AXE_LIB_DIR and give their binaries an rpath to it (link
    // arguments of this script reach this package's own binaries and tests only).
    println!("cargo:lib_dir={}", lib.display());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    println!("cargo:rustc-link-arg=-Wl,-rpath,{LLVM_PREFIX}/lib");
}

// ----- The FFI from the C API header -----

/// Writes `$OUT_DIR/axe_capi.rs`: Rust declarations of everything `Axe-c/Dialects.h` declares
/// (the functions, the hook table, the string sink), generated by bindgen so that the header
/// is the one source of the FFI. MLIR's C types come from `mlir_sys`.
fn generate_ffi(root: &Path) {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| LLVM_PREFIX.into());
    let header = root.join("dialect/include/Axe-c/Dialects.h");
    let out = out_dir().join("axe_capi.rs");
    bindgen::builder()
        .header(header.to_string_lossy())
        .clang_arg(format!("-I{prefix}/include"))
        .allowlist_function("axe.*|mlirGetDialectHandle__axe__")
        .allowlist_type("Axe.*")
        .blocklist_type("Mlir.*")
        .raw_line("use mlir_sys::*;")
        .layout_tests(false)
        .generate()
        .unwrap_or_else(|e| fail(&format!("bindgen on {}: {e}", header.display())))
        .write_to_file(&out)
        .unwrap_or_else(|e| fail(&format!("writing {}: {e}", out.display())));
}

// ----- Rust from ODS -----

/// The ODS file whose records (with everything it includes: the dialect, attributes, enums,
/// types) describe the dialect.
const ODS_ROOT: &str = "dialect/include/Axe/AxeOps.td";

/// Writes `$OUT_DIR/axe_ods.rs` from the TableGen records of [`ODS_ROOT`]: the dialect's op,
/// attribute and type names, the names of its discardable attributes, each op's attribute
/// names, operand/result indices and counts, and every `I32EnumAttr` as a Rust enum.
/// `mlir-tblgen` has no JSON backend, so this runs the TableGen front end shared by every
/// backend, `llvm-tblgen --dump-json`, on the same sources and include path as the C++ build.
fn generate_ods(root: &Path) {
    let records = dump_json(root, ODS_ROOT);
    let code = Ods { records: &records }.render();
    write_if_changed(&out_dir().join("axe_ods.rs"), &code);
}

/// The records of `file` (and what it includes), as `llvm-tblgen --dump-json` prints them.
fn dump_json(root: &Path, file: &str) -> Value {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| LLVM_PREFIX.into());
    let out = Command::new(Path::new(&prefix).join("bin/llvm-tblgen"))
        .arg("--dump-json")
        .arg("-I")
        .arg(root.join("dialect/include"))
        .arg("-I")
        .arg(Path::new(&prefix).join("include"))
        .arg(root.join(file))
        .output()
        .unwrap_or_else(|e| fail(&format!("llvm-tblgen --dump-json: {e}")));
    if !out.status.success() {
        fail(&format!(
            "llvm-tblgen --dump-json {file} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| fail(&format!("llvm-tblgen --dump-json {file} printed invalid JSON: {e}")))
}

/// Writes `code` to `path` only when it changes, so that an unchanged dialect does not
/// recompile the crate.
fn write_if_changed(path: &Path, code: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(code) {
        std::fs::write(path, code).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    }
}

/// The JSON records of `llvm-tblgen --dump-json`: every record by name, and `!instanceof`
/// listing the records of each class.
struct Ods<'a> {
    records: &'a Value,
}

/// One argument, result or region of an op.
struct Operand {
    name: String,
    /// `Optional<...>` or `Variadic<...>`: the op's count of these is not fixed.
    variable: bool,
}

impl<'a> Ods<'a> {
    fn record(&self, name: &str) -> &'a Value {
        self.records
            .get(name)
            .unwrap_or_else(|| fail(&format!("ODS: no record '{name}'")))
    }

    /// The names of the records of class `class` (sorted, as TableGen lists them).
    fn instances(&self, class: &str) -> Vec<&'a str> {
        self.records["!instanceof"][class]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    fn is_a(record: &Value, class: &str) -> bool {
        record["!superclasses"]
            .as_array()
            .is_some_and(|s| s.iter().any(|c| c == class))
    }

    /// The record a `{"def": NAME}` reference names.
    fn deref(&self, v: &Value) -> &'a Value {
        self.record(
            v["def"]
                .as_str()
                .unwrap_or_else(|| fail(&format!("ODS: not a def: {v}"))),
        )
    }

    fn str_field(record: &Value, field: &str) -> String {
        record[field]
            .as_str()
            .unwrap_or_else(|| fail(&format!("ODS: record {} has no string '{field}'", record["!name"])))
            .to_string()
    }

    /// The arguments of a dag (`(ins ...)`, `(outs ...)`, `(region ...)`) with their records.
    fn dag_args(&self, dag: &Value) -> Vec<(&'a Value, String)> {
        let Some(args) = dag["args"].as_array() else {
            return Vec::new();
        };
        args.iter()
            .map(|a| (self.deref(&a[0]), a[1].as_str().unwrap_or_default().to_string()))
            .collect()
    }

    /// The dialect's namespace (`axe`).
    fn dialect(&self) -> String {
        let dialects = self.instances("Dialect");
        let axe: Vec<_> = dialects.iter().filter(|d| d.starts_with("Axe")).collect();
        let [d] = axe.as_slice() else {
            fail(&format!("ODS: expected one Axe dialect, found {axe:?}"))
        };
        Self::str_field(self.record(d), "name")
    }

    fn render(&self) -> String {
        let dialect = self.dialect();
        let mut s = String::new();
        s.push_str(&format!(
            "// @generated by build.rs from {ODS_ROOT} (llvm-tblgen --dump-json). Do not edit.\n\n\
             /// The dialect's namespace.\npub const DIALECT: &str = {dialect:?};\n\n"
        ));
        self.render_ops(&mut s, &dialect);
        self.render_discardable_attrs(&mut s, &dialect);
        self.render_defs(&mut s, "attrs", "AttrDef", "attrName", "attribute");
        self.render_defs(&mut s, "types", "TypeDef", "typeName", "type");
        for e in self.instances("EnumAttrInfo") {
            let r = self.record(e);
            if r["cppNamespace"] == "::mlir::axe" {
                self.render_enum(&mut s, r);
            }
        }
        s
    }

    /// The Axe ops, by record name and mnemonic, sorted by mnemonic.
    fn ops(&self, dialect: &str) -> Vec<(&'a Value, String)> {
        let mut ops: Vec<_> = self
            .instances("Op")
            .into_iter()
            .map(|o| self.record(o))
            .filter(|r| self.deref(&r["opDialect"])["name"] == dialect)
            .map(|r| (r, Self::str_field(r, "opName")))
            .collect();
        ops.sort_by(|a, b| a.1.cmp(&b.1));
        ops
    }

    fn render_ops(&self, s: &mut String, dialect: &str) {
        let ops = self.ops(dialect);
        s.push_str("/// The full name of every Axe op.\npub mod ops {\n");
        for (r, name) in &ops {
            let summary = r["summary"].as_str().unwrap_or_default();
            let _ = writeln!(s, "    /// `{dialect}.{name}`: {summary}.");
            let _ = writeln!(s, "    pub const {}: &str = \"{dialect}.{name}\";", name.to_uppercase());
        }
        s.push_str("\n    /// Every Axe op name.\n    pub const ALL: &[&str] = &[");
        for (_, name) in &ops {
            let _ = write!(s, "{}, ", name.to_uppercase());
        }
        s.push_str("];\n}\n\n");

        for (r, name) in &ops {
            let (mut operands, mut attributes): (_, Vec<(String, &Value)>) = (Vec::new(), Vec::new());
            for (arg, arg_name) in self.dag_args(&r["arguments"]) {
                // `Arg<C, ...>` wraps the constraint `C` with a description and effects.
                let c = if Self::is_a(arg, "OpVariable") {
                    self.deref(&arg["constraint"])
                } else {
                    arg
                };
                if Self::is_a(c, "TypeConstraint") {
                    let variable = Self::is_a(c, "Optional") || Self::is_a(c, "Variadic");
                    operands.push(Operand {
                        name: arg_name,
                        variable,
                    });
                } else if Self::is_a(c, "Attr") {
                    attributes.push((arg_name, c));
                } else {
                    fail(&format!(
                        "ODS: argument '{arg_name}' of {dialect}.{name} is neither an operand nor an attribute"
                    ));
                }
            }
            let results: Vec<_> = self
                .dag_args(&r["results"])
                .into_iter()
                .map(|(c, n)| Operand {
                    name: n,
                    variable: Self::is_a(c, "Optional") || Self::is_a(c, "Variadic"),
                })
                .collect();
            let regions = self.dag_args(&r["regions"]);

            let _ = writeln!(
                s,
                "/// `{dialect}.{name}`: its attribute names, operand and result positions."
            );
            let _ = writeln!(s, "pub mod {name} {{");
            let _ = writeln!(
                s,
                "    /// The op's full name.\n    pub const NAME: &str = super::ops::{};",
                name.to_uppercase()
            );
            for (a, c) in &attributes {
                let _ = writeln!(s, "    /// The name of attribute `{a}`{}.", self.attr_doc(c));
                let _ = writeln!(s, "    pub const {}: &str = {a:?};", a.to_uppercase());
                if let Some((ty, case)) = self.enum_default(c) {
                    let _ = writeln!(s, "    /// The value of `{a}` when the op does not carry it.");
                    let _ = writeln!(
                        s,
                        "    pub const {}_DEFAULT: super::{ty} = super::{ty}::{case};",
                        a.to_uppercase()
                    );
                }
            }
            Self::render_positions(s, "operands", "operand", &operands);
            Self::render_positions(s, "results", "result", &results);
            let _ = writeln!(
                s,
                "    /// The number of regions.\n    pub const NUM_REGIONS: usize = {};",
                regions.len()
            );
            s.push_str("}\n\n");
        }
    }

    /// The attribute's ODS constraint, for a doc comment: its def name, or that of the
    /// attribute it wraps (`DefaultValuedAttr<Axe_CopySchedule, ...>`).
    fn attr_doc(&self, c: &Value) -> String {
        let name = c["!name"].as_str().unwrap_or_default();
        if !name.starts_with("anonymous_") {
            return format!(" (`{name}`)");
        }
        match c["baseAttr"].get("def").and_then(Value::as_str) {
            Some(base) if Self::is_a(c, "DefaultValuedAttr") => format!(" (`{base}`, with a default)"),
            Some(base) if Self::is_a(c, "OptionalAttr") => format!(" (optional `{base}`)"),
            Some(base) => format!(" (`{base}`)"),
            None => String::new(),
        }
    }

    /// For a `DefaultValuedAttr` of an Axe enum: the enum's class and default case.
    fn enum_default(&self, c: &Value) -> Option<(String, String)> {
        if !Self::is_a(c, "DefaultValuedAttr") {
            return None;
        }
        let base = self.record(c["baseAttr"].get("def")?.as_str()?);
        if !Self::is_a(base, "EnumAttrInfo") || base["cppNamespace"] != "::mlir::axe" {
            return None;
        }
        let class = Self::str_field(base, "className");
        let default = c["defaultValue"].as_str()?;
        let case = default
            .strip_prefix(&format!("::mlir::axe::{class}::"))
            .unwrap_or_else(|| fail(&format!("ODS: cannot read the default {default} of a {class}")));
        Some((class, case.to_string()))
    }

    /// Index constants for the operands (or results) before the first variable one, and their
    /// count when fixed.
    fn render_positions(s: &mut String, module: &str, what: &str, items: &[Operand]) {
        if let Some(first) = items.iter().position(|o| o.variable) {
            let _ = writeln!(
                s,
                "    /// The least number of {module} (`{}` is optional or variadic).\n    pub const MIN_{}: usize = {};",
                items[first].name,
                module.to_uppercase(),
                items.iter().filter(|o| !o.variable).count()
            );
        } else {
            let _ = writeln!(
                s,
                "    /// The number of {module}.\n    pub const NUM_{}: usize = {};",
                module.to_uppercase(),
                items.len()
            );
        }
        let fixed: Vec<_> = items.iter().take_while(|o| !o.variable).collect();
        if !fixed.is_empty() {
            let _ = writeln!(
                s,
                "    /// The position of each {what} (those before any optional or variadic one)."
            );
            let _ = writeln!(s, "    pub mod {module} {{");
            for (i, o) in fixed.iter().enumerate() {
                let _ = writeln!(s, "        pub const {}: usize = {i};", o.name.to_uppercase());
            }
            s.push_str("    }\n");
        }
    }

    /// `pub mod discardable_attrs`: the full name (`axe.target`) of each attribute the dialect's
    /// `discardableAttrs` declares, the attributes it defines on operations and function
    /// arguments it does not own. The C++ reaches the same names through the helpers ODS
    /// generates (`AxeDialect::getTargetAttrHelper()`).
    fn render_discardable_attrs(&self, s: &mut String, dialect: &str) {
        let dialects = self.instances("Dialect");
        let record = dialects
            .iter()
            .map(|d| self.record(d))
            .find(|r| r["name"] == dialect)
            .unwrap_or_else(|| fail(&format!("ODS: no dialect named {dialect}")));
        let args = record["discardableAttrs"]["args"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "/// The full name of every discardable attribute the dialect declares (ODS `discardableAttrs`):\n\
             /// attributes it defines on operations and function arguments of other dialects."
        );
        s.push_str("pub mod discardable_attrs {\n");
        let mut names = Vec::new();
        for a in &args {
            let (Some(class), Some(name)) = (a[0].as_str(), a[1].as_str()) else {
                fail(&format!(
                    "ODS: discardable attribute {a} of {dialect} is not \"Class\":$name"
                ))
            };
            let _ = writeln!(s, "    /// `{dialect}.{name}`, a `{class}`.");
            let _ = writeln!(s, "    pub const {}: &str = \"{dialect}.{name}\";", name.to_uppercase());
            names.push(name.to_uppercase());
        }
        let _ = writeln!(
            s,
            "\n    /// Every discardable attribute name.\n    pub const ALL: &[&str] = &[{}];",
            names.join(", ")
        );
        s.push_str("}\n\n");
    }

    /// `pub mod attrs`/`types`: the full name of each attribute or type the dialect defines.
    fn render_defs(&self, s: &mut String, module: &str, class: &str, field: &str, what: &str) {
        let _ = writeln!(s, "/// The full name of every {what} the dialect defines.");
        let _ = writeln!(s, "pub mod {module} {{");
        for d in self.instances(class) {
            let r = self.record(d);
            let Some(full) = r[field].as_str() else { continue };
            let Some((_, short)) = full.split_once('.') else {
                continue;
            };
            let summary = r["summary"].as_str().unwrap_or_default();
            let _ = writeln!(s, "    /// `{full}`: {summary}.");
            let _ = writeln!(s, "    pub const {}: &str = {full:?};", short.to_uppercase());
        }
        s.push_str("}\n\n");
    }

    /// An `I32EnumAttr` as a Rust enum with the ODS values and strings.
    fn render_enum(&self, s: &mut String, r: &Value) {
        let name = Self::str_field(r, "className");
        let summary = r["summary"].as_str().unwrap_or_default();
        let cases: Vec<(String, i64, String)> = r["enumerants"]
            .as_array()
            .unwrap_or_else(|| fail(&format!("ODS: enum {name} has no enumerants")))
            .iter()
            .map(|c| {
                let c = self.deref(c);
                let value = c["value"]
                    .as_i64()
                    .unwrap_or_else(|| fail(&format!("ODS: a case of {name} has no value")));
                (Self::str_field(c, "symbol"), value, Self::str_field(c, "str"))
            })
            .collect();
        let def = r["!name"].as_str().unwrap_or_default();
        let _ = writeln!(s, "/// ODS `{def}`: {summary}.");
        s.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[repr(i64)]\n");
        let _ = writeln!(s, "pub enum {name} {{");
        for (sym, v, text) in &cases {
            let _ = writeln!(s, "    /// `{text}`\n    {sym} = {v},");
        }
        s.push_str("}\n\n");
        let _ = writeln!(s, "impl {name} {{");
        s.push_str("    /// Every case, in ODS order.\n    pub const ALL: &'static [Self] = &[");
        for (sym, _, _) in &cases {
            let _ = write!(s, "Self::{sym}, ");
        }
        s.push_str("];\n\n");
        s.push_str("    /// The case with ODS value `v`.\n    pub const fn from_i64(v: i64) -> Option<Self> {\n        match v {\n");
        for (sym, v, _) in &cases {
            let _ = writeln!(s, "            {v} => Some(Self::{sym}),");
        }
        s.push_str("            _ => None,\n        }\n    }\n\n");
        s.push_str("    /// The ODS value (what the attribute stores).\n    pub const fn as_i64(self) -> i64 {\n        self as i64\n    }\n\n");
        s.push_str("    /// The ODS string (what the assembly format prints).\n    pub const fn as_str(self) -> &'static str {\n        match self {\n");
        for (sym, _, text) in &cases {
            let _ = writeln!(s, "            Self::{sym} => {text:?},");
        }
        s.push_str("        }\n    }\n\n");
        s.push_str("    /// The case whose ODS string is `text`.\n    pub fn from_name(text: &str) -> Option<Self> {\n        Self::ALL.iter().copied().find(|c| c.as_str() == text)\n    }\n}\n\n");
        let _ = writeln!(
            s,
            "impl OdsEnum for {name} {{\n    const NAME: &'static str = {name:?};\n    const ALL: &'static [Self] = Self::ALL;\n    \
             fn from_i64(v: i64) -> Option<Self> {{\n        Self::from_i64(v)\n    }}\n    \
             fn as_i64(self) -> i64 {{\n        self as i64\n    }}\n    \
             fn as_str(self) -> &'static str {{\n        Self::as_str(self)\n    }}\n}}\n"
        );
        let _ = writeln!(
            s,
            "impl std::fmt::Display for {name} {{\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{\n        \
             f.write_str(self.as_str())\n    }}\n}}\n"
        );
    }
}

// ----- Rust from the pass declarations -----

/// The ODS file declaring every Axe pass (flag, summary, options).
const PASSES_ROOT: &str = "dialect/include/Axe/AxePasses.td";

/// Writes `$OUT_DIR/axe_passes.rs` from the `Pass` records of [`PASSES_ROOT`]: a constant per
/// pass argument (`CONVERT_AXE_TO_GPU == "convert-axe-to-gpu"`), [`ALL`] of them, and per
/// pass an options struct (`ConvertAxeToGPUOptions`, named as ODS names the C++ one) with a
/// typed field per ODS `Option` and the ODS defaults, implementing `PassOptions` (whose
/// parser, written by hand in `dialect/rust/ods.rs`, reads the `key=value` words the C++
/// pass shells print).
fn generate_passes(root: &Path) {
    let records = dump_json(root, PASSES_ROOT);
    let ods = Ods { records: &records };
    let mut s = format!("// @generated by build.rs from {PASSES_ROOT} (llvm-tblgen --dump-json). Do not edit.\n\n");
    let passes: Vec<_> = ods.instances("Pass").into_iter().map(|p| ods.record(p)).collect();
    let mut names = Vec::new();
    for r in &passes {
        let def = r["!name"].as_str().unwrap_or_default();
        let argument = Ods::str_field(r, "argument");
        let summary = Ods::str_field(r, "summary");
        let constant = rust_const(&argument);
        let _ = writeln!(s, "/// `{argument}` (ODS `{def}`): {}.", one_line(&summary));
        let _ = writeln!(s, "pub const {constant}: &str = {argument:?};");
        names.push(constant);
    }
    let _ = writeln!(
        s,
        "\n/// Every pass argument, sorted by ODS record name.\npub const ALL: &[&str] = &[{}];\n",
        names.join(", ")
    );
    for r in &passes {
        render_pass_options(&mut s, &ods, r);
    }
    write_if_changed(&out_dir().join("axe_passes.rs"), &s);
}

/// `convert-axe-to-gpu` → `CONVERT_AXE_TO_GPU`.
fn rust_const(argument: &str) -> String {
    rust_field(argument).to_uppercase()
}

/// `emulate-threads-on-cpu` → `emulate_threads_on_cpu`, refusing what is no Rust identifier.
fn rust_field(argument: &str) -> String {
    let f = argument.replace('-', "_");
    let ok = f.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    // Keywords an option could plausibly be named after.
    const KEYWORDS: &[&str] = &[
        "type", "match", "mod", "use", "fn", "self", "super", "crate", "ref", "move",
    ];
    if !ok || KEYWORDS.contains(&f.as_str()) {
        fail(&format!("{PASSES_ROOT}: '{argument}' does not make a Rust identifier"));
    }
    f
}

/// A TableGen string as one line of a doc comment.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One ODS pass `Option`: its argument, Rust field and type, and default as a Rust expression.
struct PassOption {
    argument: String,
    field: String,
    /// `bool`, `String` or `i64`.
    rust_type: &'static str,
    /// The parser of a value (a function of `dialect/rust/ods.rs`).
    reader: &'static str,
    default: String,
    /// Whether the default is the Rust type's `Default`.
    default_is_zero: bool,
    cpp_default: String,
    description: String,
}

fn pass_option(pass: &str, o: &Value) -> PassOption {
    let argument = Ods::str_field(o, "argument");
    let cpp_type = Ods::str_field(o, "type");
    let cpp_default = Ods::str_field(o, "defaultValue");
    let bad_default = || -> ! {
        fail(&format!(
            "{PASSES_ROOT}: option '{argument}' of {pass}: cannot read the {cpp_type} default {cpp_default}"
        ))
    };
    let (rust_type, reader, default, default_is_zero) = match cpp_type.as_str() {
        "bool" => match cpp_default.as_str() {
            "true" | "false" => ("bool", "option_bool", cpp_default.clone(), cpp_default == "false"),
            _ => bad_default(),
        },
        "std::string" => {
            let Some(text) = cpp_default.strip_prefix('"').and_then(|d| d.strip_suffix('"')) else {
                bad_default()
            };
            if text.contains(['"', '\\']) {
                bad_default();
            }
            (
                "String",
                "option_string",
                format!("String::from({text:?})"),
                text.is_empty(),
            )
        }
        "int" | "int64_t" | "long" => match cpp_default.parse::<i64>() {
            Ok(v) => ("i64", "option_int", v.to_string(), v == 0),
            Err(_) => bad_default(),
        },
        other => fail(&format!(
            "{PASSES_ROOT}: option '{argument}' of {pass} has C++ type {other}; build.rs reads bool, \
             std::string and int options (extend generate_passes for more)"
        )),
    };
    PassOption {
        field: rust_field(&argument),
        argument,
        rust_type,
        reader,
        default,
        default_is_zero,
        cpp_default,
        description: one_line(o["description"].as_str().unwrap_or_default()),
    }
}

/// The options struct of one pass and its `PassOptions` implementation.
fn render_pass_options(s: &mut String, ods: &Ods, r: &Value) {
    let def = Ods::str_field(r, "!name");
    let argument = Ods::str_field(r, "argument");
    let constant = rust_const(&argument);
    if r["options"]
        .as_array()
        .is_some_and(|a| a.iter().any(|o| Ods::is_a(ods.deref(o), "ListOption")))
    {
        fail(&format!(
            "{PASSES_ROOT}: {def} has a ListOption, which build.rs does not read"
        ));
    }
    let options: Vec<PassOption> = r["options"]
        .as_array()
        .map(|a| a.iter().map(|o| pass_option(&def, ods.deref(o))).collect())
        .unwrap_or_default();
    let name = format!("{def}Options");
    let derive_default = options.iter().all(|o| o.default_is_zero);
    let _ = writeln!(
        s,
        "/// The options of `{argument}` (ODS `{def}`), with their ODS defaults{}.",
        if options.is_empty() { " (it has none)" } else { "" }
    );
    let _ = writeln!(
        s,
        "#[derive(Clone, Debug, PartialEq, Eq{})]",
        if derive_default { ", Default" } else { "" }
    );
    let _ = writeln!(s, "pub struct {name} {{");
    for o in &options {
        let _ = writeln!(
            s,
            "    /// `{}` (default `{}`): {}",
            o.argument, o.cpp_default, o.description
        );
        let _ = writeln!(s, "    pub {}: {},", o.field, o.rust_type);
    }
    s.push_str("}\n\n");
    if !derive_default {
        let _ = writeln!(
            s,
            "impl Default for {name} {{\n    fn default() -> Self {{\n        Self {{"
        );
        for o in &options {
            let _ = writeln!(s, "            {}: {},", o.field, o.default);
        }
        s.push_str("        }\n    }\n}\n\n");
    }
    let _ = writeln!(s, "impl super::PassOptions for {name} {{");
    let _ = writeln!(s, "    const PASS: &'static str = {constant};");
    let _ = writeln!(
        s,
        "    const OPTIONS: &'static [&'static str] = &[{}];",
        options
            .iter()
            .map(|o| format!("{:?}", o.argument))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if options.is_empty() {
        s.push_str(
            "    fn set(&mut self, _option: &str, _value: Option<&str>) -> Result<(), super::OptionProblem> {\n        \
             Err(super::OptionProblem::Unknown)\n    }\n}\n\n",
        );
        return;
    }
    s.push_str(
        "    fn set(&mut self, option: &str, value: Option<&str>) -> Result<(), super::OptionProblem> {\n        \
         match option {\n",
    );
    for o in &options {
        let _ = writeln!(
            s,
            "            {:?} => self.{} = super::{}(value)?,",
            o.argument, o.field, o.reader
        );
    }
    s.push_str("            _ => return Err(super::OptionProblem::Unknown),\n        }\n        Ok(())\n    }\n}\n\n");
}
