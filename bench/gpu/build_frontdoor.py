#!/usr/bin/env python3
"""Builds the front door's GPU checks and benchmarks (run by frontdoor.py on the GPU machine):

* **model entries**: the ONNX graphs of test/Conversion/LinalgToAxe/Inputs/make_models.py
  (linear + bias + GELU; linear + residual) at LLM shapes, imported by torch-mlir, brought in
  by `axe-from-linalg-pipeline` (one `axe.matmul` with the fused epilogue per graph) and
  lowered by `axe-to-nvvm-pipeline`; at small shapes also onnxruntime's output on the CPU for
  seeded inputs (OUTDIR/<entry>.npz), the oracle nobody here wrote;
* **block entries**: the Llama-3.1-8B MLP block graph, one program of three kernels (the
  RMSNorm row kernel, the gated GEMM with SiLU, the down GEMM into the residual);
* **row entries**: softmax and RMSNorm graphs at LLM widths, each one Axe row kernel;
* **epilogue entries**: `axe.matmul` modules of axe_gen.matmul with a bias, an activation and a
  residual, one per schedule family (64-row {clip} tiles, 128-row tiles of two consumer
  warpgroups, 256-column tiles, clusters, split-K with its workspace, bf16).

    PYTHONPATH=python python3 bench/gpu/build_frontdoor.py OUTDIR [--only SUBSTR,...]

writes OUTDIR/<entry>.json (launch manifests), OUTDIR/index.json and the .npz files. Needs
`pip install onnx onnxruntime torch-mlir` here (not on the GPU machine).
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from axe_gen import matmul

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def _load_make_models():
    """test/Conversion/LinalgToAxe/Inputs/make_models.py (the lit tests' model builder, a script
    of its own directory, not a package) loaded from its path."""
    path = os.path.join(ROOT, "test", "Conversion", "LinalgToAxe", "Inputs", "make_models.py")
    spec = importlib.util.spec_from_file_location("make_models", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_models = _load_make_models()

OPT = os.environ.get("AXE_OPT", os.path.join(ROOT, "target/release/axe-opt"))
TRANSLATE = os.environ.get("AXE_TRANSLATE", os.path.join(os.path.dirname(OPT), "axe-translate"))
LOWER = "--axe-to-nvvm-pipeline=chip=sm_90a features=+ptx80"

# (model, M, K, N): GPT-style up projections with GELU at Llama-3.1-8B's widths (4096 ->
# 14336), down projections into the residual (14336 -> 4096), serving batches and ragged ones.
BATCHES = [1, 16, 77, 128, 1024, 4096]
MODEL_ENTRIES = ([("linear_gelu", m, 4096, 14336) for m in BATCHES]
                 + [("gemm_bias", m, 4096, 14336) for m in (16, 1024, 4096)]
                 + [("linear_residual", m, 14336, 4096) for m in BATCHES])
# The Llama-3.1-8B MLP block (RMSNorm, gate/up, SiLU x up, down, residual; hidden 4096,
# intermediate 14336) at the token counts of the torch.compile anchors.
BLOCK_TOKENS = [1, 16, 128, 1024, 4096, 8192]
# Llama-3.1-70B's (hidden 8192, intermediate 28672).
BLOCK_70B_TOKENS = [1, 128, 1024, 4096]
# (model, M, N): row kernels, at Llama-3.1-8B's and -70B's hidden sizes, serving and prefill
# token counts; a ragged-width softmax too.
ROW_ENTRIES = ([("rmsnorm", m, n) for m in (1, 128, 4096, 16384) for n in (4096, 8192)]
               + [("softmax", m, n) for m, n in ((4096, 4096), (32768, 4096), (8192, 8192), (4096, 1000))]
               + [("layernorm", m, n) for m, n in ((128, 4096), (4096, 4096), (16384, 8192))])
# Small ones checked against onnxruntime (its f16 MatMul on the CPU is slow at LLM sizes).
ORT_ENTRIES = [("gemm_bias", 64, 512, 1024), ("gemm_bias", 77, 1000, 1000),
               ("linear_gelu", 64, 512, 1024), ("linear_gelu", 77, 1000, 1000),
               ("linear_residual", 64, 512, 1024), ("linear_residual", 77, 1000, 1000)]

# (M, N, K, dtype, options, schedule override): each schedule family with an epilogue.
EPILOGUE_ENTRIES = [
    (200, 1000, 512, "f16", dict(bias=True, activation="gelu", residual=True), None),
    (1024, 4096, 4096, "f16", dict(bias=True, activation="silu"), None),
    (512, 4096, 4096, "f16", dict(bias=True, activation="gelu", residual=True), "tile_m = 128, tile_n = 256, stages = 4"),
    (4096, 14336, 4096, "f16", dict(bias=True, activation="gelu_tanh", residual=True), None),
    (8192, 8192, 8192, "f16", dict(residual=True), "cluster = 2"),
    (16, 4096, 14336, "f16", dict(bias=True, residual=True, workspace=True), "split_k = 2"),
    (2048, 6144, 4096, "bf16", dict(bias=True, activation="relu", residual=True), None),
    # Ping-pong consumers (chosen for per-element epilogues of 128-row tiles; forced here on a
    # ragged shape too), and a gated product with separate up weights.
    (200, 1000, 512, "f16", dict(bias=True, activation="gelu", residual=True), "pingpong = true"),
    (2048, 6144, 4096, "bf16", dict(bias=True, activation="silu"), "pingpong = true"),
    (4096, 14336, 4096, "f16", dict(gate="silu", up=True, residual=True), None),
    (1024, 14336, 4096, "f16", dict(gate="silu", up=True), "pingpong = false"),
    # The same GEMMs both ways, timed against each other (frontdoor.py --time-epilogues).
    (4096, 14336, 4096, "f16", dict(bias=True, activation="gelu"), "pingpong = false"),
    (4096, 14336, 4096, "f16", dict(bias=True, activation="gelu"), "pingpong = true"),
    (1024, 14336, 4096, "f16", dict(bias=True, activation="gelu"), "pingpong = false"),
    (1024, 14336, 4096, "f16", dict(bias=True, activation="gelu"), "pingpong = true"),
    (8192, 14336, 4096, "f16", dict(gate="silu", up=True), "pingpong = false"),
    (8192, 14336, 4096, "f16", dict(gate="silu", up=True), "pingpong = true"),
]


def run(cmd, data=None):
    p = subprocess.run(cmd, input=data, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd[:2])}: {p.stderr.strip()[:3000]}")
    return p.stdout


def lower(outdir, entry, src, input_flag=None):
    """The launch manifest of module `src` (Axe IR; or linalg with `input_flag`)."""
    if input_flag:
        src = run([OPT, "-", input_flag], src)
    schedules = re.findall(r"#axe\.matmul_schedule<([^>]*)>", run([OPT, "-", "--axe-matmul-schedule"], src))
    data = json.loads(run([TRANSLATE, "-", "--axe-to-launch-manifest"], run([OPT, "-", LOWER], src)))
    with open(os.path.join(outdir, f"{entry}.json"), "w") as f:
        json.dump(data, f)
    return [k["entry"] for k in data["kernels"]], schedules, src


def ort_reference(onnx_path, entry, outdir, seed):
    """Seeded inputs and onnxruntime's output on the CPU, in the graph's argument order."""
    import onnx
    import onnxruntime as ort
    model = onnx.load(onnx_path)
    rng = np.random.default_rng(seed)
    feeds = {}
    for i in model.graph.input:
        shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
        feeds[i.name] = (rng.standard_normal(shape) * (0.5 if i.name == "X" else 0.05)).astype(np.float16)
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, feeds)
    names = [i.name for i in model.graph.input]
    np.savez(os.path.join(outdir, f"{entry}.npz"), names=np.array(names), output=out,
             **{f"in_{k}": v for k, v in feeds.items()})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--only", help="build the entries whose name contains one of these (comma-separated)")
    a = ap.parse_args()
    only = a.only.split(",") if a.only else None
    os.makedirs(a.outdir, exist_ok=True)
    models = os.path.join(a.outdir, "models")
    os.makedirs(models, exist_ok=True)
    index = []
    for i, (model, m, k, n) in enumerate(ORT_ENTRIES + MODEL_ENTRIES):
        entry = f"{model}_{m}x{k}x{n}"
        if only and not any(o in entry for o in only):
            continue
        onnx_path = os.path.join(models, f"{entry}.onnx")
        linalg_path = os.path.join(models, f"{entry}.mlir")
        onnx.save(make_models.build(model, m, k, n, 0), onnx_path)
        make_models.import_linalg(onnx_path, linalg_path)
        with open(linalg_path) as f:
            kernels, scheds, axe_ir = lower(a.outdir, entry, f.read(), "--axe-from-linalg-pipeline")
        line = re.search(r"axe\.matmul .*", axe_ir).group(0)
        act = re.search(r" activation (\w+)", line)
        fused = " + ".join(x for x, there in (("bias", " bias(" in line), (act and act.group(1), act),
                                                ("residual", " residual(" in line)) if there) or "none"
        ort = i < len(ORT_ENTRIES)
        if ort:
            ort_reference(onnx_path, entry, a.outdir, seed=i)
        # The same GEMM without the epilogue, as axe.matmul (with split-K's workspace, which
        # the schedule uses where it pays): what the fused kernel should cost no more than.
        plain = f"plain_{m}x{n}x{k}"
        if not ort and not os.path.exists(os.path.join(a.outdir, plain + ".json")):
            lower(a.outdir, plain, matmul.module(m, n, k, name=plain, workspace=True))
        index.append({"entry": entry, "kind": "model", "model": model, "m": m, "k": k, "n": n,
                      "kernels": kernels, "schedules": scheds, "ort": ort,
                      "fused": fused, "plain": None if ort else plain})
        print(f"{entry}: {scheds} | {index[-1]['fused']}", flush=True)
    for model, m, n in ROW_ENTRIES:
        entry = f"{model}_{m}x{n}"
        if only and not any(o in entry for o in only):
            continue
        onnx_path = os.path.join(models, f"{entry}.onnx")
        linalg_path = os.path.join(models, f"{entry}.mlir")
        onnx.save(make_models.build(model, m, n, 0, 0), onnx_path)
        make_models.import_linalg(onnx_path, linalg_path)
        with open(linalg_path) as f:
            try:
                kernels, _, axe_ir = lower(a.outdir, entry, f.read(), "--axe-from-linalg-pipeline")
            except RuntimeError as err:
                print(f"{entry}: not built: {str(err)[:300]}", flush=True)
                continue
        block = re.search(r"axe\.kernel grid \[(\d+)\] threads \[(\d+)\]", axe_ir)
        if not block:
            print(f"{entry}: not converted: {run([OPT, '-', '--axe-from-linalg-pipeline'], open(linalg_path).read())[:0]}"
                  "no row kernel (see the remarks of axe-from-linalg-pipeline)", flush=True)
            continue
        index.append({"entry": entry, "kind": "row", "model": model, "m": m, "n": n, "kernels": kernels,
                      "launch": f"grid {block.group(1)} x {block.group(2)} threads" if block else "?"})
        print(f"{entry}: {index[-1]['launch']}", flush=True)
    blocks = ([("8b", t, 4096, 14336) for t in BLOCK_TOKENS]
              + [("70b", t, 8192, 28672) for t in BLOCK_70B_TOKENS])
    for size, t, hidden, inter in blocks:
        entry = f"llama_mlp_{size}_{t}"
        if only and not any(o in entry for o in only):
            continue
        onnx_path = os.path.join(models, f"{entry}.onnx")
        linalg_path = os.path.join(models, f"{entry}.mlir")
        onnx.save(make_models.build("llama_mlp", t, hidden, 0, inter), onnx_path)
        make_models.import_linalg(onnx_path, linalg_path)
        with open(linalg_path) as f:
            kernels, scheds, axe_ir = lower(a.outdir, entry, f.read(), "--axe-from-linalg-pipeline")
        index.append({"entry": entry, "kind": "block", "m": t, "hidden": hidden, "inter": inter,
                      "kernels": kernels, "schedules": scheds})
        print(f"{entry}: {len(kernels)} kernels, {scheds}", flush=True)
    for m, n, k, dtype, opts, sched in EPILOGUE_ENTRIES:
        parts = [f"{m}x{n}x{k}", dtype] + [o if v is True else f"{o}_{v}" for o, v in opts.items()]
        if sched:
            parts.append(re.sub(r"\W+", "_", sched))
        entry = "epilogue_" + "_".join(parts).replace("activation_", "")
        if only and not any(o in entry for o in only):
            continue
        src = matmul.module(m, n, k, dtype, dtype, name=entry, schedule=sched, **opts)
        kernels, scheds, _ = lower(a.outdir, entry, src)
        index.append({"entry": entry, "kind": "epilogue", "m": m, "n": n, "k": k, "dtype": dtype, **opts,
                      "kernels": kernels, "schedules": scheds})
        print(f"{entry}: {scheds}", flush=True)
    with open(os.path.join(a.outdir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
