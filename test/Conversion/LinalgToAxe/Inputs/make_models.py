#!/usr/bin/env python3
"""The front door's test models: ONNX graphs built in code, imported to linalg-on-tensors by
torch-mlir (PyPI; its ONNX importer needs no PyTorch), as a user of an existing MLIR pipeline
gets them. Weights are graph inputs (function arguments), as a serving engine passes them.

    make_models.py [OUTDIR] [--onnx-only] [--shapes M,K,N,F]

writes OUTDIR/<model>.onnx and OUTDIR/<model>.mlir (the linalg module), by default into this
directory (the lit inputs of test/Conversion/LinalgToAxe/, checked in: regenerate them with
`python3 test/Conversion/LinalgToAxe/Inputs/make_models.py`, which needs
`pip install onnx onnxruntime torch-mlir`), and for the models of ORT_MODELS onnxruntime's
output on the CPU for the inputs of `test_input` (<model>.ort). The models, f16:
  linear_gelu      Y = Gelu(X W + b)                          (a GPT-style MLP's up projection)
  gemm_bias        Y = X W^T + b, W [N, K]                    (ONNX Gemm with transB: PyTorch's Linear)
  linear_residual  Y = X W + R                                (a down projection into the residual)
  softmax          Y = Softmax(X) over rows
  rmsnorm          Y = RMSNorm(X) (in f32) * g
  layernorm        Y = LayerNorm(X) * g + b
  llama_mlp        H = RMSNorm(X) (in f32), Y = X + (SiLU(H Wg) * (H Wu)) Wd   (Llama's MLP block)
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto as T
from onnx import helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
F16 = T.FLOAT16


def io(name, shape, t=F16):
    return h.make_tensor_value_info(name, t, shape)


def linear_gelu(m, k, n, _f):
    nodes = [h.make_node("MatMul", ["X", "W"], ["XW"]), h.make_node("Add", ["XW", "b"], ["Z"]),
             h.make_node("Gelu", ["Z"], ["Y"])]
    return nodes, [io("X", [m, k]), io("W", [k, n]), io("b", [n])], [io("Y", [m, n])]


def gemm_bias(m, k, n, _f):
    """ONNX Gemm with transB (PyTorch's Linear: weights [N, K]) and a bias."""
    nodes = [h.make_node("Gemm", ["X", "W", "b"], ["Y"], transB=1)]
    return nodes, [io("X", [m, k]), io("W", [n, k]), io("b", [n])], [io("Y", [m, n])]


def linear_residual(m, k, n, _f):
    nodes = [h.make_node("MatMul", ["X", "W"], ["XW"]), h.make_node("Add", ["XW", "R"], ["Y"])]
    return nodes, [io("X", [m, k]), io("W", [k, n]), io("R", [m, n])], [io("Y", [m, n])]


def softmax(m, k, _n, _f):
    return [h.make_node("Softmax", ["X"], ["Y"], axis=-1)], [io("X", [m, k])], [io("Y", [m, k])]


def rms_norm_nodes(x, g, out):
    """Llama's RMSNorm as Hugging Face computes it: in f32, the weight applied in f16."""
    return [
        h.make_node("Cast", [x], ["Xf"], to=T.FLOAT),
        h.make_node("Mul", ["Xf", "Xf"], ["X2"]),
        h.make_node("ReduceMean", ["X2", "axes"], ["MS"], keepdims=1),
        h.make_node("Add", ["MS", "eps"], ["MSe"]),
        h.make_node("Sqrt", ["MSe"], ["RMS"]),
        h.make_node("Div", ["Xf", "RMS"], ["Nf"]),
        h.make_node("Cast", ["Nf"], ["N16"], to=F16),
        h.make_node("Mul", ["N16", g], [out]),
    ]


def norm_constants():
    return [h.make_tensor("eps", T.FLOAT, [], [1e-5]), h.make_tensor("axes", T.INT64, [1], [-1])]


def rmsnorm(m, k, _n, _f):
    return rms_norm_nodes("X", "g", "Y"), [io("X", [m, k]), io("g", [k])], [io("Y", [m, k])], norm_constants()


def layernorm(m, k, _n, _f):
    """ONNX's LayerNormalization over rows (in f32 inside torch-mlir's lowering), scale and bias."""
    nodes = [h.make_node("LayerNormalization", ["X", "g", "b"], ["Y"], axis=-1, epsilon=1e-5)]
    return nodes, [io("X", [m, k]), io("g", [k]), io("b", [k])], [io("Y", [m, k])]


def llama_mlp(m, k, _n, f):
    nodes = rms_norm_nodes("X", "g", "Hn") + [
        h.make_node("MatMul", ["Hn", "Wg"], ["G"]),
        h.make_node("MatMul", ["Hn", "Wu"], ["U"]),
        h.make_node("Sigmoid", ["G"], ["SG"]),
        h.make_node("Mul", ["G", "SG"], ["SiLU"]),
        h.make_node("Mul", ["SiLU", "U"], ["A"]),
        h.make_node("MatMul", ["A", "Wd"], ["D"]),
        h.make_node("Add", ["X", "D"], ["Y"]),
    ]
    inputs = [io("X", [m, k]), io("g", [k]), io("Wg", [k, f]), io("Wu", [k, f]), io("Wd", [f, k])]
    return nodes, inputs, [io("Y", [m, k])], norm_constants()


MODELS = {"linear_gelu": linear_gelu, "gemm_bias": gemm_bias, "linear_residual": linear_residual, "softmax": softmax,
          "rmsnorm": rmsnorm, "layernorm": layernorm, "llama_mlp": llama_mlp}

# The models the CPU execution test runs (tests/frontdoor_cpu.rs), with onnxruntime's output
# for the inputs of `test_input` kept beside them (<model>.ort: f16 bits in hex).
ORT_MODELS = ["softmax", "rmsnorm", "layernorm"]
# Their rows are 128 long in the lit inputs: the CPU test keeps a row in one thread's
# registers (at most 255; the emulation runs no cross-lane exchange).
ORT_ROW = 128


def test_input(name, shape):
    """Inputs every test computes the same way, exact in f16: multiples of 1/256 in
    [-3.9, 3.9] for activations, (32..95)/64 for a norm's weight, (-16..16)/32 for a bias."""
    import numpy as np
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    if name == "g":
        v = ((i * 31) % 64 + 32) / 64.0
    elif name == "b":
        v = ((i * 13) % 33 - 16) / 32.0
    else:
        v = ((i * 7919) % 2001 - 1000) / 256.0
    return v.reshape(shape).astype(np.float16)


def ort_output(onnx_path, model):
    import onnxruntime as ort
    feeds = {i.name: test_input(i.name, [d.dim_value for d in i.type.tensor_type.shape.dim])
             for i in model.graph.input}
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, feeds)
    return out.astype("float16").view("uint16").ravel()


def build(name, m, k, n, f):
    parts = MODELS[name](m, k, n, f)
    nodes, inputs, outputs = parts[:3]
    inits = parts[3] if len(parts) > 3 else []
    g = h.make_graph(nodes, name, inputs, outputs, inits)
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 20)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model


def import_linalg(onnx_path, out_path):
    torch_ir = os.path.abspath(out_path + ".torch")
    # The importer leaves a scratch directory beside its input: import a copy in a temporary one.
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, os.path.basename(onnx_path))
        shutil.copy(onnx_path, copy)
        subprocess.run(["torch-mlir-import-onnx", copy, "-o", torch_ir], check=True, cwd=scratch)
    subprocess.run(["torch-mlir-opt", "--torch-onnx-to-torch-backend-pipeline",
                    "--torch-backend-to-linalg-on-tensors-backend-pipeline", torch_ir, "-o", out_path], check=True)
    os.remove(torch_ir)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir", nargs="?", default=HERE)
    ap.add_argument("--onnx-only", action="store_true")
    ap.add_argument("--shapes", default="64,256,512,768", help="M,K,N,F (rows, hidden, linear width, MLP width)")
    ap.add_argument("--only")
    a = ap.parse_args()
    m, k, n, f = map(int, a.shapes.split(","))
    os.makedirs(a.outdir, exist_ok=True)
    for name in MODELS:
        if a.only and a.only != name:
            continue
        path = os.path.join(a.outdir, name + ".onnx")
        model = build(name, m, min(k, ORT_ROW) if name in ORT_MODELS and a.outdir == HERE else k, n, f)
        onnx.save(model, path)
        if not a.onnx_only:
            import_linalg(path, os.path.join(a.outdir, name + ".mlir"))
        if name in ORT_MODELS and a.outdir == HERE:
            with open(os.path.join(a.outdir, name + ".ort"), "w") as out:
                out.write("".join(f"{x:04x}" for x in ort_output(path, model)) + "\n")
        # The lit inputs keep the linalg only; the ONNX graphs are rebuilt by this script.
        if a.outdir == HERE:
            os.remove(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
