//! `convert-axe-to-gpu`: Axe kernels to `gpu.launch` with per-thread schedules.
//!
//! This file is the pass entry only: options, the module-level checks, then the walk that
//! dispatches boundaries, meshes and kernels to their modules. No module imports from this
//! file, and the modules are layered: each imports only from the layers before its own (and
//! within a layer only as stated), so the dependency graph is a DAG. Why this order:
//!
//! 1. **Leaves**: [`builder`] (`B`, `Ix`: op construction; its core and control flow in
//!    `builder/mod.rs`, one file of further `impl B` builders per dialect) and [`types`]
//!    (element-type queries). Everything builds IR or asks about types; these need nothing of
//!    the pass.
//! 2. **Analyses and plans**, from the Axe IR alone, before any code is built (no lowering
//!    state): [`address`] (layouts evaluated symbolically: factors, thread digits, addresses,
//!    layout equivalence), [`tma_plan`] (TMA tensor maps, boxes, byte counts, swizzle modes,
//!    multicast groups, mbarrier numbering, and which TMA copies become bulk copies; it uses
//!    [`address`]), [`tokens`] (what each async token comes from, analysed before anything is
//!    rewritten, and tokens' retyping to `i32`; it asks [`tma_plan`] which copies are TMA's),
//!    [`peers`] (a symmetric buffer's peer table and a peer's buffer) and [`shared`]
//!    (shared-memory buffers and alignment). They cannot depend on how the lowering is
//!    organized, so they can be tested and reused on their own.
//! 3. **[`context`]**: `Ctx`, the per-kernel lowering state, and what derives from it alone
//!    (unit thread coordinates, the CTA's cluster rank). It holds the results of layer 2
//!    (the token kinds, the TMA plan), hence sits above it.
//! 4. **[`tensor`]**: `Tensor`, an Axe tensor resolved to storage through `Ctx`'s allocations,
//!    and the element accesses (`load`, `store`, `swizzled`) every schedule is made of.
//! 5. **Shared schedules**, used by several op lowerings, so below all of them:
//!    [`distribute`] (how a unit's threads share a copy-like op's elements: thread-bound and
//!    distributed loops, vector widths), [`barrier`] (first: [`bulk`], [`signal`] and [`tma`]
//!    synchronize through it), [`ldmatrix`], [`wgmma`], [`signal`], [`bulk`] (TMA stores into
//!    a peer's memory and reducing stores, as one-dimensional bulk copies) and [`tma`] (TMA
//!    emission from the plan, handing bulk stores to [`bulk`]).
//! 6. **Op lowerings**: [`copy`], [`elementwise`], [`gemm`] (dispatching to [`wgmma`]), and
//!    [`reduce`], which takes its combining ops from [`elementwise`] (the one import within
//!    this layer). A helper two op lowerings share belongs in layer 5, not in one of them.
//! 7. **Pass steps**: [`boundaries`], [`kernel`] (`axe.kernel` → `gpu.launch`: grid and
//!    threads, linear thread id, shared tensors as workgroup attributions, register tensors
//!    as per-thread `memref.alloca`, `axe.scope` (sliced ones guarded by `scf.if`), the CPU
//!    emulation mode (`emulate-threads-on-cpu=1`: the launch becomes loops over block and
//!    thread ids), and the per-op dispatch to layers 5 and 6), and [`mesh`] (`axe.mesh`,
//!    whose generated kernels launch through [`kernel`]). What they need of the pass options
//!    is passed in as plain values, so they do not import this file either.
//!
//! The unit test `imports_follow_the_layers` reads every module's source and fails on an
//! import from a later layer, or within a layer other than those named above. The modules are
//! the crate's own (`pub(crate)`): only [`builder`] and [`types`] serve other passes
//! (`axe-expand-matmul` builds IR with them), and nothing outside the crate reaches into the
//! lowering.
//!
//! Every refusal is a located error naming what is missing.

pub(crate) mod address;
pub(crate) mod barrier;
pub(crate) mod boundaries;
pub(crate) mod builder;
pub(crate) mod bulk;
pub(crate) mod context;
pub(crate) mod copy;
pub(crate) mod distribute;
pub(crate) mod elementwise;
pub(crate) mod gemm;
pub(crate) mod kernel;
pub(crate) mod ldmatrix;
pub(crate) mod mesh;
pub(crate) mod peers;
pub(crate) mod reduce;
pub(crate) mod shared;
pub(crate) mod signal;
pub(crate) mod tensor;
pub(crate) mod tma;
pub(crate) mod tma_plan;
pub(crate) mod tokens;
pub(crate) mod types;
pub(crate) mod wgmma;

use axe_upstream_ods::func;
use melior::ir::operation::OperationRefMut;

use crate::dialect::ods;
use crate::error::AxeError;
use crate::ir;
use mlir_sys::MlirOperation;

/// The pass's options, generated from `AxePasses.td` (read by [`crate::run_pass`]).
pub type Options = ods::passes::ConvertAxeToGPUOptions;

impl Options {
    /// The chip the code is compiled for (`chip=`), when the pipeline says (empty: not given).
    pub fn chip(&self) -> Option<&str> {
        Some(self.chip.as_str()).filter(|c| !c.is_empty())
    }
}

/// The pass body.
pub fn run(root: OperationRefMut, opts: &Options) -> bool {
    let root = root.to_raw();
    if let Some(chip) = opts
        .chip()
        .filter(|c| crate::target::lookup(c).is_none_or(|t| !t.is_gpu()))
    {
        ir::error(
            root,
            &format!(
                "{}: chip '{chip}' is not a GPU target ({})",
                ods::passes::CONVERT_AXE_TO_GPU,
                crate::target::known_targets()
            ),
        );
        return false;
    }
    // The lowering addresses a slice through the layout its result states; one that is not
    // L[R:S] of the source's (the algebra's slice) would lower to silently wrong addresses.
    // (axe-infer-layout checks this too, but this pass may run on IR with pinned layouts.)
    let mut slices_ok = true;
    for op in ir::collect(root, &[ods::ops::SLICE]) {
        slices_ok &= crate::infer_layout::check::check_slice(op);
    }
    if !slices_ok {
        return false;
    }
    // An arch-specific target (sm_90a: its gemms become wgmma) must be compiled for exactly
    // that chip: NVPTX aborts on instructions a chip lacks. (Other targets may be compiled for
    // an older chip when they use nothing it lacks; what needs sm_90, mbarriers for TMA and
    // split barriers, is checked per kernel.)
    if let (Some(chip), Some(target)) = (opts.chip(), crate::target::of(root)) {
        if !target.is_gpu() {
            ir::error(
                root,
                &format!(
                    "the module targets {} (#axe.target), not a GPU: it cannot be compiled for {chip}",
                    target.name
                ),
            );
            return false;
        }
        if target.name.ends_with('a') && !crate::target::runs_on(target.name, chip) {
            ir::error(
                root,
                &format!(
                    "the module targets {} (#axe.target), which does not run on {chip}: compile with chip={}",
                    target.name, target.name
                ),
            );
            return false;
        }
    }
    // The functions that launch kernels (their axe.kernel ops and axe.mesh regions).
    let launching: Vec<MlirOperation> = ir::collect(root, &[func::FuncOperation::name()])
        .into_iter()
        .filter(|f| !ir::collect(*f, &[ods::ops::KERNEL, ods::ops::MESH]).is_empty())
        .collect();
    if let Err(e) = boundaries::lower(root) {
        e.emit(root);
        return false;
    }
    // Device meshes first: they add the rank and peer-table arguments.
    if let Err(e) = mesh::lower(root, opts.emulate_threads_on_cpu) {
        e.emit(root);
        return false;
    }
    // The launch contract: what each launching function's arguments must be (read back by
    // `axe-translate --axe-to-launch-manifest` after the whole pipeline).
    if !opts.emulate_threads_on_cpu {
        for &f in &launching {
            // A launcher runs the manifest's kernels only: computation left on the host side of
            // such a function (a linalg op the front door did not convert) would never run, and
            // the kernels would read buffers it was meant to write.
            if let Some(&op) = ir::collect_where(f, |n| n.starts_with("linalg.")).first() {
                AxeError::at(
                    op,
                    "is left in a function that launches Axe kernels; a launch manifest runs kernels only, so it would never run (convert it, or compute it outside this function)".to_string(),
                )
                .emit(op);
                return false;
            }
            crate::launch_manifest::record_arguments(f);
        }
    }
    for k in ir::collect(root, &[ods::ops::KERNEL]) {
        if let Err(e) = kernel::lower(root, k, opts.emulate_threads_on_cpu, opts.chip()) {
            e.emit(k);
            return false;
        }
    }
    // Views and slices outside kernels are dead now; anything else left is not lowerable.
    let left = ir::collect_where(root, ods::is_axe_op);
    for &op in left.iter().rev() {
        let n = ir::name(op);
        let dead = (n == ods::ops::VIEW || n == ods::ops::SLICE || n == ods::ops::ALLOC)
            && (0..ir::num_results(op)).all(|i| !ir::has_uses(ir::result(op, i)));
        if dead {
            // SAFETY: none of its results has uses (checked above); `left` is visited last
            // first, so ops nested in or using it are gone already.
            unsafe { ir::erase(op) };
        } else {
            ir::error(
                op,
                &format!("'{n}' outside an axe.kernel is not lowered by convert-axe-to-gpu: move it into an axe.kernel (outside kernels only views, slices, allocations and meshes are lowered)"),
            );
            return false;
        }
    }
    // The emulated module is plain upstream IR running on the host: nothing after this pass
    // reads the module's #axe.target (the GPU path's axe-lower-to-nvvm does), and without it
    // mlir-runner and other upstream tools parse the result with no Axe dialect loaded.
    if opts.emulate_threads_on_cpu {
        ir::remove_discardable_attr(root, "axe.target");
    }
    true
}

#[cfg(test)]
mod layering {
    /// Each module's layer (the module documentation's numbering) and its source.
    const MODULES: &[(&str, u32, &str)] = &[
        ("builder", 1, include_str!("builder/mod.rs")),
        ("types", 1, include_str!("types.rs")),
        ("address", 2, include_str!("address.rs")),
        ("tma_plan", 2, include_str!("tma_plan.rs")),
        ("tokens", 2, include_str!("tokens.rs")),
        ("peers", 2, include_str!("peers.rs")),
        ("shared", 2, include_str!("shared.rs")),
        ("context", 3, include_str!("context.rs")),
        ("tensor", 4, include_str!("tensor.rs")),
        ("distribute", 5, include_str!("distribute.rs")),
        ("barrier", 5, include_str!("barrier.rs")),
        ("ldmatrix", 5, include_str!("ldmatrix.rs")),
        ("wgmma", 5, include_str!("wgmma.rs")),
        ("signal", 5, include_str!("signal.rs")),
        ("bulk", 5, include_str!("bulk.rs")),
        ("tma", 5, include_str!("tma.rs")),
        ("copy", 6, include_str!("copy.rs")),
        ("elementwise", 6, include_str!("elementwise.rs")),
        ("gemm", 6, include_str!("gemm.rs")),
        ("reduce", 6, include_str!("reduce.rs")),
        ("boundaries", 7, include_str!("boundaries.rs")),
        ("kernel", 7, include_str!("kernel.rs")),
        ("mesh", 7, include_str!("mesh.rs")),
    ];
    /// The imports within a layer that the module documentation names.
    const WITHIN: &[(&str, &str)] = &[
        ("tma_plan", "address"),
        ("tokens", "tma_plan"),
        ("bulk", "barrier"),
        ("signal", "barrier"),
        ("tma", "barrier"),
        ("tma", "bulk"),
        ("reduce", "elementwise"),
        ("mesh", "kernel"),
    ];

    /// The sibling modules `src` names through `super::` (in paths and `use super::{...}`
    /// lists), outside its unit tests.
    fn imports(src: &str) -> Vec<String> {
        let code = src.split("#[cfg(test)]").next().unwrap_or(src);
        let mut out = Vec::new();
        let mut rest = code;
        while let Some(i) = rest.find("super::") {
            rest = &rest[i + "super::".len()..];
            if let Some(list) = rest.strip_prefix('{') {
                let end = list.find('}').unwrap_or(list.len());
                out.extend(
                    list[..end]
                        .split(',')
                        .map(|x| x.trim().split("::").next().unwrap_or("").to_string()),
                );
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                out.push(rest[..end].to_string());
            }
        }
        out
    }

    #[test]
    fn imports_follow_the_layers() {
        let layer = |m: &str| MODULES.iter().find(|(n, _, _)| *n == m).map(|(_, l, _)| *l);
        let mut bad = Vec::new();
        for &(name, own, src) in MODULES {
            for used in imports(src) {
                let Some(theirs) = layer(&used) else { continue };
                if used == name {
                    continue;
                }
                if theirs > own || (theirs == own && !WITHIN.contains(&(name, used.as_str()))) {
                    bad.push(format!("{name} (layer {own}) imports {used} (layer {theirs})"));
                }
            }
        }
        bad.sort();
        bad.dedup();
        assert!(
            bad.is_empty(),
            "imports against the documented layering:\n{}",
            bad.join("\n")
        );
    }

    #[test]
    fn every_module_has_a_layer() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("passes/convert_axe_to_gpu");
        for entry in std::fs::read_dir(dir).expect("the pass's sources") {
            let name = entry
                .expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .to_string();
            // A module is a file `m.rs` or a directory `m/` (its `mod.rs`).
            let m = name.strip_suffix(".rs").unwrap_or(&name);
            if m != "mod" {
                assert!(
                    MODULES.iter().any(|(n, _, _)| *n == m),
                    "{m} has no layer in MODULES (and the documentation)"
                );
            }
        }
    }
}
