#!/usr/bin/env python3
"""Extract what a GPU runtime needs from `axe-opt --axe-to-nvvm-pipeline` output.

    extract.py KERNEL.mlir LOWERED.mlir OUTDIR

writes OUTDIR/<entry>.ptx (the PTX text held by the gpu.binary) and OUTDIR/<entry>.json
(the entry point, its grid and block from the source's axe.kernel, and the number of kernel
parameters: one bare pointer per memref argument, in the function's argument order).
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


def main():
    src, lowered, outdir = sys.argv[1:4]
    source = open(src).read()
    text = open(lowered).read()
    kernel = re.search(r"axe\.kernel grid \[([\d, ]+)\] threads \[([\d, ]+)\]", source)
    if not kernel:
        sys.exit(f"{src}: no axe.kernel")
    grid = [int(v) for v in kernel.group(1).split(",")]
    block = [int(v) for v in kernel.group(2).split(",")]
    grid += [1] * (3 - len(grid))
    block += [1] * (3 - len(block))
    func_args = re.search(r"func\.func @\w+\(([^)]*)\)", source).group(1)
    memrefs = len(re.findall(r"memref<", func_args))
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
    if nparams != memrefs:
        sys.exit(f"{entry}: {nparams} kernel parameters but {memrefs} memref arguments")
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
    spec = {"entry": entry, "grid": grid, "block": block, "params": nparams}
    if shared:
        spec["shared_bytes"] = shared
    with open(f"{outdir}/{entry}.json", "w") as f:
        json.dump(spec, f)
    print(json.dumps(spec))


if __name__ == "__main__":
    main()
