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

use mlir_sys::*;
use serde_json::{json, Map, Value};

use crate::ir;

/// The manifest format's version; bump it when a field changes meaning.
pub const MANIFEST_VERSION: i64 = 1;

/// The attribute names the recording half leaves on a launching function.
pub const ARGUMENTS_ATTR: &str = "axe.arguments";
pub const TENSOR_MAPS_ATTR: &str = "axe.tensor_maps";

/// The upstream runtime function a `nvgpu.tma.create.descriptor` becomes on the host.
const TENSOR_MAP_ENCODER: &str = "mgpuTensorMapEncodeTiledMemref";

// ---------------------------------------------------------------------------------------------
// Recording.

fn context_of(op: MlirOperation) -> MlirContext {
    unsafe { mlirOperationGetContext(op) }
}

fn str_attr(ctx: MlirContext, s: &str) -> MlirAttribute {
    unsafe { mlirStringAttrGet(ctx, ir::string_ref(s)) }
}

fn i64_attr(ctx: MlirContext, v: i64) -> MlirAttribute {
    unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), v) }
}

fn i64s_attr(ctx: MlirContext, v: &[i64]) -> MlirAttribute {
    unsafe { mlirDenseI64ArrayGet(ctx, v.len() as isize, v.as_ptr()) }
}

fn dict_attr(ctx: MlirContext, entries: &[(&str, MlirAttribute)]) -> MlirAttribute {
    let named: Vec<MlirNamedAttribute> = entries
        .iter()
        .map(|(k, v)| unsafe { mlirNamedAttributeGet(mlirIdentifierGet(ctx, ir::string_ref(k)), *v) })
        .collect();
    unsafe { mlirDictionaryAttrGet(ctx, named.len() as isize, named.as_ptr()) }
}

fn array_attr(ctx: MlirContext, items: &[MlirAttribute]) -> MlirAttribute {
    unsafe { mlirArrayAttrGet(ctx, items.len() as isize, items.as_ptr()) }
}

/// Records `axe.arguments` on `func`: per argument, a buffer (memref: element type, static
/// extent, rank, declared or natural base alignment) or a scalar (its type).
pub fn record_arguments(func: MlirOperation) {
    let ctx = context_of(func);
    let entry = ir::region_block(func, 0);
    let n = unsafe { mlirBlockGetNumArguments(entry) };
    let items: Vec<MlirAttribute> = (0..n)
        .map(|i| {
            let arg = unsafe { mlirBlockGetArgument(entry, i) };
            let t = ir::value_type(arg);
            // The arguments a device mesh adds: the rank and the peer tables.
            if ir::declared_flag(arg, "axe.mesh_rank") {
                return dict_attr(
                    ctx,
                    &[
                        ("kind", str_attr(ctx, "rank")),
                        ("type", str_attr(ctx, &ir::type_to_string(t))),
                    ],
                );
            }
            if let Some(of) = ir::declared_int(arg, "axe.peers_of") {
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
            if unsafe { mlirTypeIsAMemRef(t) } {
                let shape = ir::shape(t);
                let extent = if shape.iter().all(|&d| d >= 0) {
                    shape.iter().product()
                } else {
                    -1
                };
                let align = ir::argument_alignment(arg);
                let elt = unsafe { mlirShapedTypeGetElementType(t) };
                dict_attr(
                    ctx,
                    &[
                        ("kind", str_attr(ctx, "buffer")),
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
    let arg = if unsafe { mlirValueIsABlockArgument(map.memref) }
        && unsafe { mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(map.memref)) }.ptr == func.ptr
    {
        unsafe { mlirBlockArgumentGetArgNumber(map.memref) }
    } else {
        -1
    };
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

fn set_attr(op: MlirOperation, name: &str, a: MlirAttribute) {
    unsafe { mlirOperationSetAttributeByName(op, ir::string_ref(name), a) }
}

fn attr_array(op: MlirOperation, name: &str) -> Vec<MlirAttribute> {
    let a = unsafe { mlirOperationGetAttributeByName(op, ir::string_ref(name)) };
    if a.ptr.is_null() || !unsafe { mlirAttributeIsAArray(a) } {
        return Vec::new();
    }
    (0..unsafe { mlirArrayAttrGetNumElements(a) })
        .map(|i| unsafe { mlirArrayAttrGetElement(a, i) })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The manifest.

use crate::error::{AxeError, Result as R};

/// An attribute as JSON (the recorded dictionaries: strings, integers, i64 arrays).
fn to_json(a: MlirAttribute) -> Value {
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
        Some(c) if matches!(ir::name(d).as_str(), "llvm.mlir.constant" | "arith.constant") => Ok(c),
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
    for bin in ir::collect(root, &["gpu.binary"]) {
        let name = ir::string_attr(bin, "sym_name").unwrap_or_default();
        let objects = unsafe { mlirOperationGetAttributeByName(bin, ir::string_ref("objects")) };
        let first = (!objects.ptr.is_null()
            && unsafe { mlirAttributeIsAArray(objects) }
            && unsafe { mlirArrayAttrGetNumElements(objects) } > 0)
            .then(|| unsafe { mlirArrayAttrGetElement(objects, 0) })
            .filter(|o| unsafe { mlirAttributeIsAGPUObjectAttr(*o) })
            .ok_or_else(|| AxeError::at(bin, "gpu.binary without a #gpu.object".to_string()))?;
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
    let seg = unsafe { mlirOperationGetAttributeByName(launch, ir::string_ref("operandSegmentSizes")) };
    if seg.ptr.is_null() || !unsafe { mlirAttributeIsADenseI32Array(seg) } {
        return Err(AxeError::at(launch, "gpu.launch_func without operand segments"));
    }
    let sizes: Vec<usize> = (0..unsafe { mlirDenseArrayGetNumElements(seg) })
        .map(|i| unsafe { mlirDenseI32ArrayGetElement(seg, i) } as usize)
        .collect();
    // asyncDependencies, grid x/y/z, block x/y/z, cluster x/y/z, dynamicSharedMemorySize,
    // kernelOperands, asyncObject.
    if sizes.len() != 13 {
        return Err(AxeError::at(
            launch,
            format!(
                "gpu.launch_func with {} operand segments; this manifest reader knows LLVM 22's 13",
                sizes.len()
            ),
        ));
    }
    let mut next = sizes[0];
    let mut take = |n: usize| -> Vec<MlirValue> {
        let v = (next..next + n).map(|i| ir::operand(launch, i)).collect();
        next += n;
        v
    };
    let three = |v: Vec<MlirValue>| -> Option<[MlirValue; 3]> { v.try_into().ok() };
    let grid = (0..3).flat_map(|k| take(sizes[1 + k])).collect::<Vec<_>>();
    let block = (0..3).flat_map(|k| take(sizes[4 + k])).collect::<Vec<_>>();
    let cluster = (0..3).flat_map(|k| take(sizes[7 + k])).collect::<Vec<_>>();
    let shared = take(sizes[10]).first().copied();
    let kernel = take(sizes[11]);
    Ok(Operands {
        grid: three(grid).ok_or_else(|| AxeError::at(launch, "a grid of other than 3 sizes".to_string()))?,
        block: three(block).ok_or_else(|| AxeError::at(launch, "a block of other than 3 sizes".to_string()))?,
        cluster: three(cluster),
        shared,
        kernel,
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
            Some("buffer") | Some("peer_table") => {
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
    for launch in ir::collect(root, &["gpu.launch_func"]) {
        let host =
            ir::parent(launch).ok_or_else(|| AxeError::at(launch, "a launch outside any function".to_string()))?;
        let mut host = host;
        while ir::name(host) != "llvm.func" && ir::name(host) != "func.func" {
            host = ir::parent(host).ok_or_else(|| AxeError::at(launch, "a launch outside any function".to_string()))?;
        }
        let arguments = match to_json(unsafe { mlirOperationGetAttributeByName(host, ir::string_ref(ARGUMENTS_ATTR)) }) {
            Value::Array(a) => a,
            _ => return Err(AxeError::at(launch, format!("the launching function has no '{ARGUMENTS_ATTR}': only kernels lowered by convert-axe-to-gpu have a manifest"))),
        };
        let maps = match to_json(unsafe { mlirOperationGetAttributeByName(host, ir::string_ref(TENSOR_MAPS_ATTR)) }) {
            Value::Array(a) => a,
            _ => Vec::new(),
        };
        let positions = host_positions(&arguments);
        let encoders: Vec<MlirOperation> = ir::collect(host, &["llvm.call"])
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
    let a = unsafe { mlirOperationGetAttributeByName(call, ir::string_ref("callee")) };
    (!a.ptr.is_null() && unsafe { mlirAttributeIsAFlatSymbolRef(a) })
        .then(|| ir::string_of(unsafe { mlirFlatSymbolRefAttrGetValue(a) }))
}

/// `@module::@kernel` of a launch.
fn kernel_symbol(launch: MlirOperation) -> R<(String, String)> {
    let a = unsafe { mlirOperationGetAttributeByName(launch, ir::string_ref("kernel")) };
    if a.ptr.is_null()
        || !unsafe { mlirAttributeIsASymbolRef(a) }
        || unsafe { mlirSymbolRefAttrGetNumNestedReferences(a) } != 1
    {
        return Err(AxeError::at(
            launch,
            "gpu.launch_func without a @module::@kernel symbol",
        ));
    }
    let module = ir::string_of(unsafe { mlirSymbolRefAttrGetRootReference(a) });
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
    let is_host_arg = unsafe { mlirValueIsABlockArgument(v) }
        && unsafe { mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v)) }.ptr == host.ptr;
    if is_host_arg {
        let pos = unsafe { mlirBlockArgumentGetArgNumber(v) } as usize;
        let Some(arg) = positions.iter().position(|p| *p == pos) else {
            return Err(AxeError::at(
                launch,
                format!("kernel parameter {k} is host argument {pos}, which is no argument's buffer or value"),
            ));
        };
        let a = &arguments[arg];
        return Ok(match a["kind"].as_str() {
            Some("buffer") => json!({
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
