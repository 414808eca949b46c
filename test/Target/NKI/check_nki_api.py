#!/usr/bin/env python3
"""Checks an emitted NKI kernel against the documented NKI API.

    check_nki_api.py KERNEL.py

Parses the file with `ast` and checks every `nki.*`, `nl.*` and `nisa.*` reference: the name
must be in DOCUMENTED below, calls must pass at most the documented positional parameters and
only documented keywords, and every kernel must be decorated with `@nki.jit`. Prints
`OK <n> calls` or the violations (exit 1).

DOCUMENTED records what was verified in the AWS Neuron documentation (NKI "Beta 1" API, the
one documented as relevant for Trn1 / NeuronCore-v2). Base URL:
https://awsdocs-neuron.readthedocs-hosted.com/en/
  nki.jit(func=None, mode='auto', **kwargs)          latest/nki/api/generated/nki.jit.html
  nl.ndarray(shape, dtype, buffer=None, name='')     latest/nki/api/generated/nki.language.ndarray.html
      buffer: sbuf, psum, hbm; defaults to sbuf
  nl.full(shape, fill_value, dtype, *, buffer=None, name='', **kwargs)
                                                     latest/nki/api/generated/nki.language.full.html
  nl.load(src, *, mask=None, dtype=None, **kwargs)   general/nki/api/generated/nki.language.load.html
      HBM -> new SBUF tile; partition dim <= nl.tile_size.pmax; partition dim first
  nl.load_transpose2d(src, *, mask=None, dtype=None, **kwargs)
                                                     latest/nki/api/generated/nki.language.load_transpose2d.html
      loads in_tensor[F, P] from HBM and 2D-transposes into an SBUF tile [P, F]
  nl.store(dst, value, *, mask=None, **kwargs)       latest/nki/api/generated/nki.language.store.html
  nl.copy(src, *, mask=None, dtype=None, **kwargs)   latest/nki/api/generated/nki.language.copy.html
      src in SBUF or PSUM; result in SBUF (may be assigned to a PSUM tensor)
  nl.affine_range(start, stop=None, step=1)          latest/nki/api/generated/nki.language.affine_range.html
      associative reductions (nc_matmul accumulation into one PSUM buffer) are allowed
  nl.exp(x, *, dtype=None, mask=None, **kwargs)      latest/nki/api/generated/nki.language.exp.html
  nl.add(x, y, *, dtype=None, mask=None, **kwargs)   latest/nki/api/generated/nki.language.add.html
      broadcasting: a [128, 1] tile broadcasts along the free dimension
  nl.subtract(x, y, dtype=None)                      en/v2.30.0/nki/api/generated/nki.language.subtract.html
  nl.multiply(x, y, dtype=None)                      general/nki/api/generated/nki.language.multiply.html
      (subtract/multiply pages found were the Trn2/Trn3 versions; same (x, y, dtype) shape as add)
  nl.reciprocal(x, *, dtype=None, mask=None, **kwargs)
                                                     latest/nki/api/generated/nki.language.reciprocal.html
  nl.max(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs)
  nl.sum(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs)
                                                     latest/nki/api/generated/nki.language.sum.html
      axis must be free dimensions, not the partition dimension (0)
  nisa.nc_matmul(stationary, moving, *, is_stationary_onezero=False, is_moving_onezero=False,
                 is_transpose=False, mask=None, **kwargs)
                                                     v2.21.0.beta/general/nki/api/generated/nki.isa.nc_matmul.html
      stationary.T @ moving; inputs SBUF, result PSUM, accumulation and result fp32;
      partition sizes equal and <= 128; stationary free <= 128; moving free <= 512;
      K > 128: accumulate several nc_matmul outputs into the same PSUM tile
  tile sizes: nl.tile_size.{pmax, psum_fmax, gemm_stationary_fmax, gemm_moving_fmax}
                                                     latest/nki/api/nki.language.tile_size.html
  PSUM: a tile's free size per partition cannot exceed 2 KiB (= 512 fp32);
        nki.compiler.psum.alloc page (en/latest/general/nki/api/generated/nki.compiler.psum.alloc.html);
        PSUM is 2 MiB (Trainium2 guide: "PSUM capacity remains the same at 2MiB"); 8 banks
        (nl.tile_size.psum_num_banks "Otherwise returns 8").
Not verified: the exact snippet of `psum[...] += nisa.nc_matmul(...)` (the nc_matmul page
states accumulation into one PSUM tile; the snippet itself was not in the retrieved text),
and whether kernel arguments may be written in place (the emitter uses destination passing).
"""
import ast
import sys

# name -> (positional parameters, keyword-only/optional parameter names, accepts **kwargs)
DOCUMENTED = {
    "nki.jit": (["func"], {"func", "mode"}, True),
    "nl.ndarray": (["shape", "dtype", "buffer", "name"], {"shape", "dtype", "buffer", "name"}, False),
    "nl.full": (["shape", "fill_value", "dtype"], {"buffer", "name", "shape", "fill_value", "dtype"}, True),
    "nl.load": (["src"], {"src", "mask", "dtype"}, True),
    "nl.load_transpose2d": (["src"], {"src", "mask", "dtype"}, True),
    "nl.store": (["dst", "value"], {"dst", "value", "mask"}, True),
    "nl.copy": (["src"], {"src", "mask", "dtype"}, True),
    "nl.affine_range": (["start", "stop", "step"], {"start", "stop", "step"}, False),
    "nl.exp": (["x"], {"x", "dtype", "mask"}, True),
    "nl.reciprocal": (["x"], {"x", "dtype", "mask"}, True),
    "nl.add": (["x", "y"], {"x", "y", "dtype", "mask"}, True),
    "nl.subtract": (["x", "y", "dtype"], {"x", "y", "dtype"}, False),
    "nl.multiply": (["x", "y", "dtype"], {"x", "y", "dtype"}, False),
    "nl.max": (["x", "axis"], {"x", "axis", "dtype", "mask", "keepdims"}, True),
    "nl.sum": (["x", "axis"], {"x", "axis", "dtype", "mask", "keepdims"}, True),
    "nisa.nc_matmul": (["stationary", "moving"],
                       {"stationary", "moving", "is_stationary_onezero", "is_moving_onezero",
                        "is_transpose", "mask"}, True),
}
# Non-call attributes (dtypes, buffers).
CONSTANTS = {"nl.float16", "nl.float32", "nl.bfloat16", "nl.sbuf", "nl.psum", "nl.hbm"}
MODULES = {"nki", "nl", "nisa"}


def dotted(node):
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in MODULES:
        return f"{node.value.id}.{node.attr}"
    return None


def main():
    tree = ast.parse(open(sys.argv[1]).read(), sys.argv[1])
    errors, calls = [], 0
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = dotted(node.func)
            if name is None:
                continue
            called.add(id(node.func))
            calls += 1
            if name not in DOCUMENTED:
                errors.append(f"line {node.lineno}: {name} is not in the documented API table")
                continue
            pos, kws, var_kw = DOCUMENTED[name]
            if len(node.args) > len(pos):
                errors.append(f"line {node.lineno}: {name} takes at most {len(pos)} positional arguments")
            for kw in node.keywords:
                if kw.arg not in kws and not var_kw:
                    errors.append(f"line {node.lineno}: {name} has no documented keyword '{kw.arg}'")
                if kw.arg not in kws and var_kw:
                    errors.append(f"line {node.lineno}: {name}: keyword '{kw.arg}' is not documented")
    for node in ast.walk(tree):
        name = dotted(node) if isinstance(node, ast.Attribute) else None
        if name and id(node) not in called and name not in CONSTANTS and name not in DOCUMENTED:
            errors.append(f"line {node.lineno}: {name} is not a documented constant")
    kernels = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    for f in kernels:
        if not any(dotted(d) == "nki.jit" or (isinstance(d, ast.Call) and dotted(d.func) == "nki.jit")
                   for d in f.decorator_list):
            errors.append(f"line {f.lineno}: kernel {f.name} is not decorated with @nki.jit")
    if not kernels:
        errors.append("no kernel function")
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    print(f"OK {calls} calls in {len(kernels)} kernel(s)")


if __name__ == "__main__":
    main()
