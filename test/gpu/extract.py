#!/usr/bin/env python3
"""Extract what a GPU runtime needs from `axe-opt --axe-to-nvvm-pipeline` output.

    extract.py KERNEL.mlir LOWERED.mlir OUTDIR OUTLINED.mlir

writes OUTDIR/<entry>.ptx (the PTX text held by the gpu.binary) and OUTDIR/<entry>.json
(the entry point, its grid and block from the source's axe.kernel, and the kernel's
parameters, read off the `gpu.launch_func` of OUTLINED.mlir — the same lowering stopped after
kernel outlining: a bare pointer per memref argument the kernel uses, and for each TMA copy
source a pointer to a tensor map, described by its `nvgpu.tma.create.descriptor`).
Exits 1 with a message when something is missing, so CI notices a kernel that stops lowering.
"""
import json
import re
import sys


def unescape(s):
    # MLIR prints string attributes with \XX hex escapes for non-printable bytes and quotes.
    out = bytearray()
    i = 0
    while i < len(s):
        if s[i] == "\\" and i + 2 < len(s) + 1 and re.match(r"[0-9A-Fa-f]{2}", s[i + 1:i + 3]):
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        elif s[i] == "\\" and i + 1 < len(s):
            out += s[i + 1].encode()
            i += 2
        else:
            out += s[i].encode()
            i += 1
    return out.decode()


def kernel_args(outlined, entry):
    """The launch's parameters: {"kind": "ptr", "arg": k} for the function's k-th argument, or
    {"kind": "tensor_map", "arg": k, dims, strides (elements, outermost first), box, swizzle
    (bytes), dtype} for a tensor map over it."""
    launch = re.search(r"gpu\.launch_func\s+@\w+::@" + entry + r"\b.*?args\((.*?)\)\s*$", outlined, re.M)
    if not launch:
        sys.exit(f"{entry}: no gpu.launch_func in the outlined IR")
    args = []
    for value, _ty in re.findall(r"(%[\w.]+) : ([^,]+(?:<[^>]*>)?)", launch.group(1)):
        m = re.fullmatch(r"%arg(\d+)", value)
        if m:
            args.append({"kind": "ptr", "arg": int(m.group(1))})
            continue
        cast = re.search(re.escape(value) + r" = builtin\.unrealized_conversion_cast (%[\w.]+) : !nvgpu\.tensormap\.descriptor<tensor = memref<([\dx]+)x(\w+), 3>, swizzle = (\w+)", outlined)
        if not cast:
            sys.exit(f"{entry}: kernel parameter {value} is neither a function argument nor a tensor map")
        desc = re.search(re.escape(cast.group(1)) + r" = nvgpu\.tma\.create\.descriptor (%[\w.]+) ", outlined)
        unranked = re.search(re.escape(desc.group(1)) + r" = memref\.cast (%[\w.]+) ", outlined)
        rc = re.search(re.escape(unranked.group(1)) + r" = memref\.reinterpret_cast %arg(\d+) to offset: \[0\], sizes: \[([\d, ]+)\], strides: \[([\d, ]+)\]", outlined)
        if not (desc and unranked and rc):
            sys.exit(f"{entry}: cannot read the tensor map behind {value}")
        swz = cast.group(4)
        args.append({
            "kind": "tensor_map", "arg": int(rc.group(1)),
            "dims": [int(v) for v in rc.group(2).split(",")],
            "strides": [int(v) for v in rc.group(3).split(",")],
            "box": [int(v) for v in cast.group(2).split("x")],
            "dtype": cast.group(3),
            "swizzle": 0 if swz == "none" else int(swz[len("swizzle_"):-1]),
        })
    return args


def main():
    src, lowered, outdir, outlined = sys.argv[1:5]
    source = open(src).read()
    text = open(lowered).read()
    kernel = re.search(r"axe\.kernel grid \[([\d, ]+)\] threads \[([\d, ]+)\]", source)
    if not kernel:
        sys.exit(f"{src}: no axe.kernel")
    grid = [int(v) for v in kernel.group(1).split(",")]
    block = [int(v) for v in kernel.group(2).split(",")]
    grid += [1] * (3 - len(grid))
    block += [1] * (3 - len(block))
    func_args = re.search(r"func\.func @\w+\((.*?)\)\s*(?:->[^{]*)?\{", source, re.S).group(1)
    memrefs = len(re.findall(r"memref<", func_args))
    # The base alignment each memref argument declares ({axe.align = N}): the lowering relied
    # on it, so the launcher must check it (1: nothing declared).
    aligns = [int(a.group(1)) if a else 1 for a in
              (re.search(r"axe\.align = (\d+)", arg) for arg in re.split(r",\s*(?=%)", func_args))]
    m = re.search(r'gpu\.binary @(\w+)\s*\[#gpu\.object<.*?(?:assembly = )?"((?:[^"\\]|\\.)*)">\]', text, re.S)
    if not m:
        sys.exit(f"{lowered}: no gpu.binary with PTX")
    ptx = unescape(m.group(2))
    entries = re.findall(r"\.visible \.entry (\w+)\(([^)]*)\)", ptx)
    if len(entries) != 1:
        sys.exit(f"{lowered}: expected one .entry, found {len(entries)}")
    entry, params = entries[0]
    nparams = len(re.findall(r"\.param", params))
    pointers = len(re.findall(r"\.param \.u64 \.ptr", params))
    if pointers != nparams:
        sys.exit(f"{entry}: {nparams - pointers} kernel parameter(s) are not bare pointers (memref descriptors?)")
    args = kernel_args(open(outlined).read(), entry)
    if nparams != len(args):
        sys.exit(f"{entry}: {nparams} PTX parameters but {len(args)} gpu.launch_func arguments")
    if any(a["kind"] == "ptr" and a["arg"] >= memrefs for a in args):
        sys.exit(f"{entry}: a kernel parameter is not one of the {memrefs} memref arguments")
    if "__nv_" in ptx:
        call = re.search(r"__nv_\w+", ptx).group(0)
        sys.exit(f"{entry}: the PTX calls libdevice ({call})")
    with open(f"{outdir}/{entry}.ptx", "w") as f:
        f.write(ptx)
    # Dynamic shared memory the launch asks for (0 when the kernel uses only static shared).
    shared = 0
    launch = re.search(r"gpu\.launch_func [^\n]*dynamic_shared_memory_size (%\w+)", text)
    if launch:
        const = re.search(re.escape(launch.group(1)) + r" = llvm\.mlir\.constant\((\d+) : i32\)", text)
        if not const:
            sys.exit(f"{entry}: cannot read the dynamic shared memory size")
        shared = int(const.group(1))
    spec = {"entry": entry, "grid": grid, "block": block, "params": nparams, "args": args, "align": aligns}
    if shared:
        spec["shared_bytes"] = shared
    with open(f"{outdir}/{entry}.json", "w") as f:
        json.dump(spec, f)
    print(json.dumps(spec))


if __name__ == "__main__":
    main()
