//! The launch contract of lowered Axe kernels, stated by the compiler.
//!
//! Two halves:
//!
//! * **recording** (during `convert-axe-to-gpu`): every function that launches kernels gets
//!   `axe.arguments` — for each argument, the buffer a launcher must pass (element type,
//!   extent, declared base alignment) — and `axe.tensor_maps`, one entry per TMA tensor map the
//!   host code builds, in the order it builds them (global tensor, dims, strides, box, swizzle).
//!   Both are discardable attributes that upstream's lowering carries to the `llvm.func`.
//! * **`axe-translate --axe-to-launch-manifest`** reads a module lowered by
//!   `axe-to-nvvm-pipeline` (host `llvm.func`s with `gpu.launch_func`, `gpu.binary` with PTX)
//!   and prints the manifest as JSON: per launch, the PTX (entry, target, ISA version and the
//!   text itself), grid, block, dynamic shared memory, and each kernel parameter in order — a
//!   buffer (which function argument) or a tensor map (built from which argument, how). The
//!   parameters are traced through the lowered host code, not re-derived: the launch operand
//!   is the aligned pointer of an argument's memref descriptor, or the result of the n-th
//!   `mgpuTensorMapEncodeTiledMemref` call (the n-th recorded map).

use axe_upstream_ods::{arith, func, gpu, llvm};
use mlir_sys::*;
use serde_json::{json, Map, Value};

use crate::dialect::ods;
use crate::ir;

/// The manifest format's version; bump it when a field changes meaning.
pub const MANIFEST_VERSION: i64 = 1;

/// The attribute names the recording half leaves on a launching function (the dialect's
/// discardable attributes `arguments` and `tensor_maps`).
pub const ARGUMENTS_ATTR: &str = ods::discardable_attrs::ARGUMENTS;
pub const TENSOR_MAPS_ATTR: &str = ods::discardable_attrs::TENSOR_MAPS;

/// The upstream runtime function a `nvgpu.tma.create.descriptor` becomes on the host.
const TENSOR_MAP_ENCODER: &str = "mgpuTensorMapEncodeTiledMemref";

// ---------------------------------------------------------------------------------------------
// Recording.
//
// Every handle here is a live handle of the IR the running pass (or translation) owns: the
// module contract of `crate::ir`, on which each `unsafe` block relies. Attribute constructors
// copy what they are given into the context, so borrowed slices and strings need only live for
// the call.

fn context_of(op: MlirOperation) -> MlirContext {
    // SAFETY: `op` is live (module contract).
    unsafe { mlirOperationGetContext(op) }
}

fn str_attr(ctx: MlirContext, s: &str) -> MlirAttribute {
    // SAFETY: `ctx` is live; `s` is borrowed for the call (copied into the context).
    unsafe { mlirStringAttrGet(ctx, ir::string_ref(s)) }
}

fn i64_attr(ctx: MlirContext, v: i64) -> MlirAttribute {
    ir::integer_attr(ctx, 64, v)
}

fn i64s_attr(ctx: MlirContext, v: &[i64]) -> MlirAttribute {
    // SAFETY: `ctx` is live; `v` (pointer and length of one slice) is copied for the call.
    unsafe { mlirDenseI64ArrayGet(ctx, v.len() as isize, v.as_ptr()) }
}

fn dict_attr(ctx: MlirContext, entries: &[(&str, MlirAttribute)]) -> MlirAttribute {
    let named: Vec<MlirNamedAttribute> = entries
        .iter()
        // SAFETY: `ctx` and the attributes are live; the key is copied into an identifier.
        .map(|(k, v)| unsafe { mlirNamedAttributeGet(mlirIdentifierGet(ctx, ir::string_ref(k)), *v) })
        .collect();
    // SAFETY: `ctx` is live; `named` (pointer and length of one vector) is copied for the call.
    unsafe { mlirDictionaryAttrGet(ctx, named.len() as isize, named.as_ptr()) }
}

fn array_attr(ctx: MlirContext, items: &[MlirAttribute]) -> MlirAttribute {
    // SAFETY: `ctx` and the items are live; `items` is copied for the call.
    unsafe { mlirArrayAttrGet(ctx, items.len() as isize, items.as_ptr()) }
}

/// Records `axe.arguments` on `func`: per argument, a buffer (memref: element type, static
/// extent, rank, declared or natural base alignment) or a scalar (its type).
pub fn record_arguments(func: MlirOperation) {
    let ctx = context_of(func);
    let entry = ir::region_block(func, 0);
    let n = if entry.ptr.is_null() {
        0 // a declaration: no body
    } else {
        // SAFETY: `entry` is the live, non-null entry block of `func`.
        unsafe { mlirBlockGetNumArguments(entry) }
    };
    let items: Vec<MlirAttribute> = (0..n)
        .map(|i| {
            // SAFETY: `entry` is live and non-null (`n` > 0), and `i` < `n`.
            let arg = unsafe { mlirBlockGetArgument(entry, i) };
            let t = ir::value_type(arg);
            // The arguments a device mesh adds: the rank and the peer tables.
            if ir::declared_flag(arg, ods::discardable_attrs::MESH_RANK) {
                return dict_attr(
                    ctx,
                    &[
                        ("kind", str_attr(ctx, "rank")),
                        ("type", str_attr(ctx, &ir::type_to_string(t))),
                    ],
                );
            }
            if let Some(of) = ir::declared_int(arg, ods::discardable_attrs::PEERS_OF) {
                let devices = ir::shape(t).first().copied().unwrap_or(0);
                return dict_attr(
                    ctx,
                    &[
                        ("kind", str_attr(ctx, "peer_table")),
                        ("of", i64_attr(ctx, of)),
                        ("devices", i64_attr(ctx, devices)),
                        ("align", i64_attr(ctx, 8)),
                    ],
                );
            }
            // SAFETY: `t` is a live type; the test only reads it.
            if unsafe { mlirTypeIsAMemRef(t) } {
                let shape = ir::shape(t);
                let extent = if shape.iter().all(|&d| d >= 0) {
                    shape.iter().product()
                } else {
                    -1
                };
                let align = ir::argument_alignment(arg);
                // SAFETY: `t` is a memref (checked above), a shaped type.
                let elt = unsafe { mlirShapedTypeGetElementType(t) };
                // A workspace: the launcher allocates it (zeroed, once) instead of the caller.
                let kind = if ir::declared_flag(arg, ods::discardable_attrs::WORKSPACE) {
                    "workspace"
                } else {
                    "buffer"
                };
                dict_attr(
                    ctx,
                    &[
                        ("kind", str_attr(ctx, kind)),
                        ("dtype", str_attr(ctx, &ir::type_to_string(elt))),
                        ("extent", i64_attr(ctx, extent)),
                        ("rank", i64_attr(ctx, shape.len() as i64)),
                        ("align", i64_attr(ctx, align)),
                    ],
                )
            } else {
                dict_attr(
                    ctx,
                    &[
                        ("kind", str_attr(ctx, "scalar")),
                        ("type", str_attr(ctx, &ir::type_to_string(t))),
                    ],
                )
            }
        })
        .collect();
    set_attr(func, ARGUMENTS_ATTR, array_attr(ctx, &items));
}

/// One tensor map the host builds, as recorded in `axe.tensor_maps`.
pub struct RecordedMap<'a> {
    /// The global buffer it describes (a function argument).
    pub memref: MlirValue,
    pub dtype: &'a str,
    pub dims: &'a [i64],
    pub strides: &'a [i64],
    pub boxes: &'a [i64],
    /// Swizzle span in bytes (0: none).
    pub swizzle: i64,
}

/// Appends `map` to `axe.tensor_maps` of the function the host code `at` is in.
pub fn record_tensor_map(at: MlirOperation, map: &RecordedMap) {
    let Some(func) = ir::enclosing_function(at) else { return };
    let ctx = context_of(func);
    let arg = argument_number(map.memref, func).unwrap_or(-1);
    let entry = dict_attr(
        ctx,
        &[
            ("arg", i64_attr(ctx, arg as i64)),
            ("dtype", str_attr(ctx, map.dtype)),
            ("dims", i64s_attr(ctx, map.dims)),
            ("strides", i64s_attr(ctx, map.strides)),
            ("box", i64s_attr(ctx, map.boxes)),
            ("swizzle", i64_attr(ctx, map.swizzle)),
        ],
    );
    let mut items = attr_array(func, TENSOR_MAPS_ATTR);
    items.push(entry);
    set_attr(func, TENSOR_MAPS_ATTR, array_attr(ctx, &items));
}

/// Sets one of the recording's attributes (`axe.arguments`, `axe.tensor_maps`) on `op`.
/// The position of `v` among the arguments of `func`'s body, when it is one.
fn argument_number(v: MlirValue, func: MlirOperation) -> Option<isize> {
    // SAFETY: `v` is live (module contract); its owner block and argument number are read
    // only after the test says it is a block argument.
    unsafe {
        let is_argument =
            mlirValueIsABlockArgument(v) && mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v)).ptr == func.ptr;
        is_argument.then(|| mlirBlockArgumentGetArgNumber(v))
    }
}

fn set_attr(op: MlirOperation, name: &str, a: MlirAttribute) {
    // Only this module reads these attributes back, checking their kinds.
    ir::set_discardable_attr(op, name, a)
}

fn attr_array(op: MlirOperation, name: &str) -> Vec<MlirAttribute> {
    // SAFETY: `op` is live; the attribute is tested (non-null, then an array) before its
    // elements are read, at indices below their number.
    let a = unsafe { mlirOperationGetAttributeByName(op, ir::string_ref(name)) };
    // SAFETY: as above.
    if a.ptr.is_null() || !unsafe { mlirAttributeIsAArray(a) } {
        return Vec::new();
    }
    // SAFETY: as above.
    (0..unsafe { mlirArrayAttrGetNumElements(a) })
        // SAFETY: as above.
        .map(|i| unsafe { mlirArrayAttrGetElement(a, i) })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The manifest.

use crate::error::{AxeError, Result as R};

/// An attribute as JSON (the recorded dictionaries: strings, integers, i64 arrays).
fn to_json(a: MlirAttribute) -> Value {
    // SAFETY: `a` is null or a live attribute (module contract); each accessor is called only
    // after the test of the attribute's kind it needs, at indices below the element counts.
    unsafe {
        if a.ptr.is_null() {
            Value::Null
        } else if mlirAttributeIsAString(a) {
            json!(ir::string_of(mlirStringAttrGetValue(a)))
        } else if mlirAttributeIsAInteger(a) {
            json!(mlirIntegerAttrGetValueInt(a))
        } else if mlirAttributeIsADenseI64Array(a) {
            json!((0..mlirDenseArrayGetNumElements(a))
                .map(|i| mlirDenseI64ArrayGetElement(a, i))
                .collect::<Vec<_>>())
        } else if mlirAttributeIsADictionary(a) {
            let mut m = Map::new();
            for i in 0..mlirDictionaryAttrGetNumElements(a) {
                let named = mlirDictionaryAttrGetElement(a, i);
                m.insert(ir::string_of(mlirIdentifierStr(named.name)), to_json(named.attribute));
            }
            Value::Object(m)
        } else if mlirAttributeIsAArray(a) {
            json!((0..mlirArrayAttrGetNumElements(a))
                .map(|i| to_json(mlirArrayAttrGetElement(a, i)))
                .collect::<Vec<_>>())
        } else {
            Value::Null
        }
    }
}

/// The integer an `llvm.mlir.constant` (or `arith.constant`) defines.
fn constant(user: MlirOperation, v: MlirValue, what: &str) -> R<i64> {
    let Some(d) = ir::defining_op(v) else {
        return Err(AxeError::at(
            user,
            format!(
                "the {what} is a function argument, not a constant; the manifest records constant launch shapes only"
            ),
        ));
    };
    match ir::int_attr(d, "value") {
        Some(c)
            if [llvm::ConstantOperation::name(), arith::ConstantOperation::name()].contains(&ir::name(d).as_str()) =>
        {
            Ok(c)
        }
        _ => Err(AxeError::at(
            user,
            format!(
                "the {what} is computed at run time ('{}'); the manifest records constant launch shapes only",
                ir::name(d)
            ),
        )),
    }
}

/// The PTX in `gpu.binary @name` and what its header says (target, ISA version).
struct Ptx {
    text: String,
    target: String,
    version: String,
}

fn binaries(root: MlirOperation) -> R<Vec<(String, Ptx)>> {
    let mut out = Vec::new();
    for bin in ir::collect(root, &[gpu::BinaryOperation::name()]) {
        let name = ir::string_attr(bin, "sym_name").unwrap_or_default();
        // SAFETY: `bin` is live; `objects` is read as an array only when non-null and an array,
        // its first element only when it has one, and that element is tested before it is
        // read as a `#gpu.object` (below).
        let first = unsafe {
            let objects = mlirOperationGetAttributeByName(bin, ir::string_ref("objects"));
            let has_one =
                !objects.ptr.is_null() && mlirAttributeIsAArray(objects) && mlirArrayAttrGetNumElements(objects) > 0;
            has_one
                .then(|| mlirArrayAttrGetElement(objects, 0))
                .filter(|o| mlirAttributeIsAGPUObjectAttr(*o))
        }
        .ok_or_else(|| AxeError::at(bin, "gpu.binary without a #gpu.object".to_string()))?;
        // SAFETY: `first` is a `#gpu.object` (checked above); its object string is owned by the
        // context.
        let text = ir::string_of(unsafe { mlirGPUObjectAttrGetObject(first) });
        let header = |key: &str| {
            text.lines().find_map(|l| {
                l.trim()
                    .strip_prefix(key)
                    .map(|r| r.trim().trim_end_matches(';').to_string())
            })
        };
        let (Some(target), Some(version)) = (header(".target"), header(".version")) else {
            return Err(AxeError::at(bin, "the gpu.binary does not hold PTX: lower with gpu-module-to-binary{format=isa} (axe-to-nvvm-pipeline does)"));
        };
        out.push((name, Ptx { target, version, text }));
    }
    Ok(out)
}

/// The launch's operands by role (`gpu.launch_func`'s operand segments).
struct Operands {
    grid: [MlirValue; 3],
    block: [MlirValue; 3],
    cluster: Option<[MlirValue; 3]>,
    shared: Option<MlirValue>,
    kernel: Vec<MlirValue>,
}

fn launch_operands(launch: MlirOperation) -> R<Operands> {
    let groups =
        ir::operand_groups(launch).ok_or_else(|| AxeError::at(launch, "gpu.launch_func without operand segments"))?;
    // asyncDependencies, grid x/y/z, block x/y/z, cluster x/y/z, dynamicSharedMemorySize,
    // kernelOperands, asyncObject.
    if groups.len() != 13 {
        return Err(AxeError::at(
            launch,
            format!(
                "gpu.launch_func with {} operand segments; this manifest reader knows LLVM 22's 13",
                groups.len()
            ),
        ));
    }
    let three = |first: usize| -> Option<[MlirValue; 3]> { groups[first..first + 3].concat().try_into().ok() };
    Ok(Operands {
        grid: three(1).ok_or_else(|| AxeError::at(launch, "a grid of other than 3 sizes".to_string()))?,
        block: three(4).ok_or_else(|| AxeError::at(launch, "a block of other than 3 sizes".to_string()))?,
        cluster: three(7),
        shared: groups[10].first().copied(),
        kernel: groups[11].clone(),
    })
}

/// Where each argument sits among the `llvm.func`'s arguments: a memref of rank r (a buffer,
/// a peer table) expands to 3 + 2r values (allocated, aligned, offset, sizes, strides) and is
/// passed to kernels as its aligned pointer; anything else is one value.
fn host_positions(arguments: &[Value]) -> Vec<usize> {
    let mut pos = 0usize;
    let mut out = Vec::with_capacity(arguments.len());
    for a in arguments {
        match a["kind"].as_str() {
            Some("buffer") | Some("workspace") | Some("peer_table") => {
                let rank = a["rank"].as_i64().unwrap_or(1).max(0) as usize;
                out.push(pos + 1);
                pos += 3 + 2 * rank;
            }
            _ => {
                out.push(pos);
                pos += 1;
            }
        }
    }
    out
}

/// The manifest of every launch in `root` (a module lowered by `axe-to-nvvm-pipeline`).
pub fn manifest(root: MlirOperation) -> R<Value> {
    let ptx = binaries(root)?;
    let mut kernels = Vec::new();
    for launch in ir::collect(root, &[gpu::LaunchFuncOperation::name()]) {
        let host =
            ir::parent(launch).ok_or_else(|| AxeError::at(launch, "a launch outside any function".to_string()))?;
        let mut host = host;
        while ![llvm::LLVMFuncOperation::name(), func::FuncOperation::name()].contains(&ir::name(host).as_str()) {
            host = ir::parent(host).ok_or_else(|| AxeError::at(launch, "a launch outside any function".to_string()))?;
        }
        // SAFETY: `host` is live (module contract); a missing attribute is null, which
        // `to_json` maps to `Null`.
        let arguments = match to_json(unsafe { mlirOperationGetAttributeByName(host, ir::string_ref(ARGUMENTS_ATTR)) }) {
            Value::Array(a) => a,
            _ => return Err(AxeError::at(launch, format!("the launching function has no '{ARGUMENTS_ATTR}': only kernels lowered by convert-axe-to-gpu have a manifest"))),
        };
        // SAFETY: as above.
        let maps = match to_json(unsafe { mlirOperationGetAttributeByName(host, ir::string_ref(TENSOR_MAPS_ATTR)) }) {
            Value::Array(a) => a,
            _ => Vec::new(),
        };
        let positions = host_positions(&arguments);
        let encoders: Vec<MlirOperation> = ir::collect(host, &[llvm::CallOperation::name()])
            .into_iter()
            .filter(|c| callee(*c).as_deref() == Some(TENSOR_MAP_ENCODER))
            .collect();
        if encoders.len() != maps.len() {
            return Err(AxeError::at(
                launch,
                format!(
                    "the host builds {} tensor maps but {} are recorded",
                    encoders.len(),
                    maps.len()
                ),
            ));
        }
        let ops = launch_operands(launch)?;
        let (module, entry) = kernel_symbol(launch)?;
        // `axe.kernel ... cooperative`: convert-axe-to-gpu recorded the launch's position
        // among its function's launches.
        let position = ir::collect(host, &[gpu::LaunchFuncOperation::name()])
            .iter()
            .position(|l| l.ptr == launch.ptr);
        let cooperative = position
            .is_some_and(|p| ir::i64_array(host, ods::discardable_attrs::COOPERATIVE_LAUNCHES).contains(&(p as i64)));
        let Some((_, code)) = ptx.iter().find(|(n, _)| *n == module) else {
            return Err(AxeError::at(launch, format!("no gpu.binary @{module} for this launch")));
        };
        let mut params = Vec::new();
        for (k, &v) in ops.kernel.iter().enumerate() {
            params.push(parameter(launch, k, v, host, &positions, &arguments, &encoders, &maps)?);
        }
        let sizes = |vals: &[MlirValue; 3], what: &str| -> R<Vec<i64>> {
            vals.iter().map(|v| constant(launch, *v, what)).collect()
        };
        let mut k = Map::new();
        k.insert(
            "function".into(),
            json!(ir::string_attr(host, "sym_name").unwrap_or_default()),
        );
        k.insert("entry".into(), json!(entry));
        // Outlining puts each launch's kernel in a gpu.module (and binary) of its own; entries
        // of different launches can share a name, the binary's name is unique.
        k.insert("binary".into(), json!(module));
        k.insert("target".into(), json!(code.target));
        k.insert("ptx_version".into(), json!(code.version));
        k.insert("grid".into(), json!(sizes(&ops.grid, "grid size")?));
        k.insert("block".into(), json!(sizes(&ops.block, "block size")?));
        if let Some(c) = &ops.cluster {
            k.insert("cluster".into(), json!(sizes(c, "cluster size")?));
        }
        if cooperative {
            k.insert("cooperative".into(), json!(true));
        }
        let shared = match ops.shared {
            Some(v) => constant(launch, v, "dynamic shared memory size")?,
            None => 0,
        };
        k.insert("dynamic_shared_bytes".into(), json!(shared));
        k.insert("arguments".into(), Value::Array(arguments.clone()));
        k.insert("params".into(), Value::Array(params));
        k.insert("ptx".into(), json!(code.text));
        kernels.push(Value::Object(k));
    }
    Ok(json!({ "version": MANIFEST_VERSION, "kernels": kernels }))
}

/// The callee of an `llvm.call`.
fn callee(call: MlirOperation) -> Option<String> {
    // SAFETY: `call` is live; `a` is read as a FlatSymbolRefAttr only when non-null and one.
    let a = unsafe { mlirOperationGetAttributeByName(call, ir::string_ref("callee")) };
    // SAFETY: as above.
    (!a.ptr.is_null() && unsafe { mlirAttributeIsAFlatSymbolRef(a) })
        // SAFETY: as above.
        .then(|| ir::string_of(unsafe { mlirFlatSymbolRefAttrGetValue(a) }))
}

/// `@module::@kernel` of a launch.
fn kernel_symbol(launch: MlirOperation) -> R<(String, String)> {
    // SAFETY: `launch` is live; `a` is read as a SymbolRefAttr only when non-null and one
    // (short-circuit).
    let (a, nested) = unsafe {
        let a = mlirOperationGetAttributeByName(launch, ir::string_ref("kernel"));
        let nested =
            (!a.ptr.is_null() && mlirAttributeIsASymbolRef(a)).then(|| mlirSymbolRefAttrGetNumNestedReferences(a));
        (a, nested)
    };
    if nested != Some(1) {
        return Err(AxeError::at(
            launch,
            "gpu.launch_func without a @module::@kernel symbol",
        ));
    }
    // SAFETY: `a` is a SymbolRefAttr (checked above); the names are owned by the context.
    let module = ir::string_of(unsafe { mlirSymbolRefAttrGetRootReference(a) });
    // SAFETY: as above.
    let entry = ir::string_of(unsafe { mlirSymbolRefAttrGetLeafReference(a) });
    Ok((module, entry))
}

/// Kernel parameter `k`: an argument's buffer or a recorded tensor map.
#[allow(clippy::too_many_arguments)]
fn parameter(
    launch: MlirOperation,
    k: usize,
    v: MlirValue,
    host: MlirOperation,
    positions: &[usize],
    arguments: &[Value],
    encoders: &[MlirOperation],
    maps: &[Value],
) -> R<Value> {
    if let Some(pos) = argument_number(v, host) {
        let pos = pos as usize;
        let Some(arg) = positions.iter().position(|p| *p == pos) else {
            return Err(AxeError::at(
                launch,
                format!("kernel parameter {k} is host argument {pos}, which is no argument's buffer or value"),
            ));
        };
        let a = &arguments[arg];
        return Ok(match a["kind"].as_str() {
            // A kernel parameter is a buffer whoever allocates it (the caller, or the launcher
            // for a workspace argument).
            Some("buffer") | Some("workspace") => json!({
                "kind": "buffer", "arg": arg, "dtype": a["dtype"], "extent": a["extent"], "align": a["align"],
            }),
            Some("peer_table") => json!({"kind": "peer_table", "arg": arg, "of": a["of"], "devices": a["devices"]}),
            Some("rank") => json!({"kind": "rank", "arg": arg}),
            _ => json!({"kind": "scalar", "arg": arg, "type": a["type"]}),
        });
    }
    if let Some(d) = ir::defining_op(v) {
        if let Some(n) = encoders.iter().position(|e| e.ptr == d.ptr) {
            let mut m = maps[n].as_object().cloned().unwrap_or_default();
            m.insert("kind".into(), json!("tensor_map"));
            let arg = m.get("arg").and_then(Value::as_i64).unwrap_or(-1);
            if arg < 0 {
                return Err(AxeError::at(
                    launch,
                    format!("kernel parameter {k} is a tensor map of a buffer that is not a function argument"),
                ));
            }
            return Ok(Value::Object(m));
        }
        return Err(AxeError::at(
            launch,
            format!(
                "kernel parameter {k} comes from '{}': neither an argument's buffer nor a tensor map",
                ir::name(d)
            ),
        ));
    }
    Err(AxeError::at(
        launch,
        format!("kernel parameter {k} is not an argument of the launching function"),
    ))
}

/// `axe-translate --axe-to-launch-manifest`: the manifest as pretty-printed JSON.
pub fn translate(root: MlirOperation) -> Option<String> {
    match manifest(root) {
        Ok(m) => Some(serde_json::to_string_pretty(&m).unwrap_or_default() + "\n"),
        Err(e) => {
            e.emit(root);
            None
        }
    }
}
