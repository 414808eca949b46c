#!/usr/bin/env python3
"""The front door's test models: ONNX graphs built in code, imported to linalg-on-tensors by
torch-mlir (PyPI; its ONNX importer needs no PyTorch), as a user of an existing MLIR pipeline
gets them. Weights are graph inputs (function arguments), as a serving engine passes them.

    make_models.py [OUTDIR] [--onnx-only] [--shapes M,K,N,F]

writes OUTDIR/<model>.onnx and OUTDIR/<model>.mlir (the linalg module), by default into this
directory (the lit inputs of test/Conversion/LinalgToAxe/, checked in: regenerate them with
`python3 test/Conversion/LinalgToAxe/Inputs/make_models.py`, which needs
`pip install onnx torch-mlir`). The models, f16:
  linear_gelu      Y = Gelu(X W + b)                          (a GPT-style MLP's up projection)
  linear_residual  Y = X W + R                                (a down projection into the residual)
  softmax          Y = Softmax(X) over rows
  llama_mlp        H = RMSNorm(X) (in f32), Y = X + (SiLU(H Wg) * (H Wu)) Wd   (Llama's MLP block)
"""
import argparse
import os
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


def linear_residual(m, k, n, _f):
    nodes = [h.make_node("MatMul", ["X", "W"], ["XW"]), h.make_node("Add", ["XW", "R"], ["Y"])]
    return nodes, [io("X", [m, k]), io("W", [k, n]), io("R", [m, n])], [io("Y", [m, n])]


def softmax(m, _k, n, _f):
    return [h.make_node("Softmax", ["X"], ["Y"], axis=-1)], [io("X", [m, n])], [io("Y", [m, n])]


def llama_mlp(m, k, _n, f):
    eps = h.make_tensor("eps", T.FLOAT, [], [1e-5])
    nodes = [
        h.make_node("Cast", ["X"], ["Xf"], to=T.FLOAT),
        h.make_node("Mul", ["Xf", "Xf"], ["X2"]),
        h.make_node("ReduceMean", ["X2", "axes"], ["MS"], keepdims=1),
        h.make_node("Add", ["MS", "eps"], ["MSe"]),
        h.make_node("Sqrt", ["MSe"], ["RMS"]),
        h.make_node("Div", ["Xf", "RMS"], ["Nf"]),
        h.make_node("Cast", ["Nf"], ["N16"], to=F16),
        h.make_node("Mul", ["N16", "g"], ["Hn"]),
        h.make_node("MatMul", ["Hn", "Wg"], ["G"]),
        h.make_node("MatMul", ["Hn", "Wu"], ["U"]),
        h.make_node("Sigmoid", ["G"], ["SG"]),
        h.make_node("Mul", ["G", "SG"], ["SiLU"]),
        h.make_node("Mul", ["SiLU", "U"], ["A"]),
        h.make_node("MatMul", ["A", "Wd"], ["D"]),
        h.make_node("Add", ["X", "D"], ["Y"]),
    ]
    axes = h.make_tensor("axes", T.INT64, [1], [-1])
    inputs = [io("X", [m, k]), io("g", [k]), io("Wg", [k, f]), io("Wu", [k, f]), io("Wd", [f, k])]
    return nodes, inputs, [io("Y", [m, k])], [eps, axes]


MODELS = {"linear_gelu": linear_gelu, "linear_residual": linear_residual, "softmax": softmax,
          "llama_mlp": llama_mlp}


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
    # The importer leaves a scratch directory in its working directory: run it in a temporary one.
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["torch-mlir-import-onnx", os.path.abspath(onnx_path), "-o", torch_ir], check=True,
                       cwd=scratch)
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
        onnx.save(build(name, m, k, n, f), path)
        if not a.onnx_only:
            import_linalg(path, os.path.join(a.outdir, name + ".mlir"))
            # The lit inputs keep the linalg only; the ONNX graphs are rebuilt by this script.
            if a.outdir == HERE:
                os.remove(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
