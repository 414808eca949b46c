#!/usr/bin/env python3
"""Builds the attention benchmark grid through the compiler: for each configuration the
user-level module (one `axe.attention` on views of the function's buffers, as a user or a front
end writes it), lowered with `axe-to-nvvm-pipeline` (which expands the op with
`axe-expand-attention`) and written as a launch manifest OUTDIR/<entry>.json; plus
OUTDIR/index.json, the list attention.py reads on the GPU.

    build_attention.py OUTDIR [--grid full|small] [--only SUBSTR] [--suffix S] [--stages N]
                              [--no-persistent | --persistent]

(`--suffix` appends S to every entry's name, and the index keeps the entries of earlier builds
into OUTDIR under other names: kernels built from two versions of the compiler, or with and
without an override — `--stages N`, `--no-persistent` / `--persistent`: one CTA per query
tile, or the persistent grid, instead of the compiler's choice — then share one directory and
one run.)

The grid (16k tokens per batch, as FlashAttention-3's paper measures): head dim 64 (32 heads)
and 128 (16 heads), causal and not, sequence 512 ... 16384, f16 and bf16; head dim 256 (8
heads) at sequence 1024, 4096 and 16384; grouped-query
attention (32 query heads over 8 key/value heads, head dim 128) at sequence 4096 and 8192;
batches of other sizes than the grid's (seq 2048 x 3, 768 x 5) that nothing was tuned on; and
ragged batches: sequences of a length 128 does not divide (16 x 1000), and batches of
sequences of different lengths (`cu_seqlens`, an entry's `lens`).
"""
import argparse
import concurrent.futures
import json
import os
import sys

from lowering import lower  # noqa: E402

MLIR = {"f16": "f16", "bf16": "bf16"}


def module(name, tokens, heads, kv_heads, d, seq, causal, dtype, lse=True, lens=None, stages=None,
           persistent=None):
    """The user-level module: Q, K, V, O (and the log-sum-exp, [tokens, heads] f32 stored
    head-major as FlashAttention's [heads, tokens]) as bare 16-byte-aligned buffers; with
    `lens`, the sequences' cumulative offsets as a last i32 argument (`seq` is then the
    longest)."""
    e = MLIR[dtype]
    nq, nkv = tokens * heads * d, tokens * kv_heads * d
    tq = f"!axe.tensor<{tokens}x{heads * d}x{e}, global, #axe.layout<({tokens}, {heads * d}) : ({heads * d}, 1)>>"
    tkv = f"!axe.tensor<{tokens}x{kv_heads * d}x{e}, global, #axe.layout<({tokens}, {kv_heads * d}) : ({kv_heads * d}, 1)>>"
    tl = f"!axe.tensor<{tokens}x{heads}xf32, global, #axe.layout<({tokens}, {heads}) : (1, {tokens})>>"
    arg = lambda n, c, t: f"%{n}: memref<{c}x{t}> {{axe.align = 16 : i64}}"  # noqa: E731
    args = [arg("q", nq, e), arg("k", nkv, e), arg("v", nkv, e), arg("o", nq, e)]
    if lse:
        args.append(arg("l", tokens * heads, "f32"))
    if lens:
        args.append(f"%cu: memref<{len(lens) + 1}xi32>")
    attrs = f"heads = {heads}, kv_heads = {kv_heads}, seq_len = {seq}" + (", causal" if causal else "")
    if stages:
        attrs += f", stages = {stages}"
    if persistent is not None:
        attrs += f", persistent = {'true' if persistent else 'false'}"
    lines = [
        'module attributes {axe.target = #axe.target<"sm_90a">} {',
        f"  func.func @{name}({', '.join(args)}) {{",
        f"    %Q = axe.view %q : memref<{nq}x{e}> to {tq}",
        f"    %K = axe.view %k : memref<{nkv}x{e}> to {tkv}",
        f"    %V = axe.view %v : memref<{nkv}x{e}> to {tkv}",
        f"    %O = axe.view %o : memref<{nq}x{e}> to {tq}",
    ]
    if lse:
        lines.append(f"    %L = axe.view %l : memref<{tokens * heads}xf32> to {tl}")
    lse_part = f" lse(%L : {tl})" if lse else ""
    if lens:
        lse_part += f" cu_seqlens(%cu : memref<{len(lens) + 1}xi32>)"
    lines += [
        f"    axe.attention %Q, %K, %V, %O{lse_part} {{{attrs}}} : {tq}, {tkv}, {tkv}, {tq}",
        "    return",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def grid(kind):
    out = []
    seqs = [512, 1024, 2048, 4096, 8192, 16384] if kind == "full" else [1024, 4096]
    dtypes = ["f16", "bf16"] if kind == "full" else ["f16"]
    for dtype in dtypes:
        for d in (64, 128):
            for causal in (False, True):
                for seq in seqs:
                    out.append(dict(tokens=16384, heads=2048 // d, kv_heads=2048 // d, d=d, seq=seq,
                                    causal=causal, dtype=dtype))
    for seq in ([4096, 8192] if kind == "full" else [4096]):
        for causal in (False, True):
            out.append(dict(tokens=16384, heads=32, kv_heads=8, d=128, seq=seq, causal=causal, dtype="bf16"))
    # Head dim 256 (8 heads of 2048 columns), f16 and bf16.
    for dtype in dtypes:
        for causal in (False, True):
            for seq in ([1024, 4096, 16384] if kind == "full" else [4096]):
                out.append(dict(tokens=16384, heads=8, kv_heads=8, d=256, seq=seq, causal=causal, dtype=dtype))
    # Other batch sizes: 3 sequences of 2048, 5 of 768.
    for tokens, seq in ([(6144, 2048), (3840, 768)] if kind == "full" else [(3840, 768)]):
        out.append(dict(tokens=tokens, heads=16, kv_heads=16, d=128, seq=seq, causal=True, dtype="f16"))
    # Ragged: 16 sequences of 1000 tokens; batches of sequences of different lengths.
    for causal in (False, True):
        out.append(dict(tokens=16000, heads=16, kv_heads=16, d=128, seq=1000, causal=causal, dtype="bf16"))
        for d, heads, kv_heads, lens in RAGGED if kind == "full" else RAGGED[:1]:
            out.append(dict(tokens=sum(lens), heads=heads, kv_heads=kv_heads, d=d, seq=max(lens),
                            causal=causal, dtype="bf16", lens=lens))
    return out


# Packed batches (as serving and training with packing see them): head dim, heads, KV heads,
# the sequences' lengths (some of one token, some not a multiple of 128, one long).
RAGGED = [
    (128, 16, 16, [4096, 1, 300, 2048, 129, 7000, 1500, 900, 384, 64]),
    (128, 32, 8, [3000, 5000, 17, 2500, 1000, 4767]),
    (64, 32, 32, [8192, 511, 2000, 3333, 1, 2347]),
]


def entry_name(c):
    return (f"attn_t{c['tokens']}_h{c['heads']}x{c['kv_heads']}_d{c['d']}_s{c['seq']}"
            f"{'_varlen' + str(len(c['lens'])) if c.get('lens') else ''}"
            f"{'_causal' if c['causal'] else ''}_{c['dtype']}")


def build(outdir, c, suffix=""):
    name = entry_name(c) + suffix
    src = module(name, c["tokens"], c["heads"], c["kv_heads"], c["d"], c["seq"], c["causal"], c["dtype"],
                 lens=c.get("lens"), stages=c.get("stages"), persistent=c.get("persistent"))
    err = lower(outdir, name, src)
    return (None, err) if err else (dict(c, entry=name), None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--grid", default="full", choices=["small", "full"])
    ap.add_argument("--only")
    ap.add_argument("--suffix", default="")
    ap.add_argument("--stages", type=int, help="override the compiler's K/V stages (the op's `stages`)")
    ap.add_argument("--no-persistent", action="store_true",
                    help="one CTA per query tile (the op's `persistent = false`)")
    ap.add_argument("--persistent", action="store_true",
                    help="the persistent grid wherever the kernel has one (the op's `persistent = true`)")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    overrides = {}
    if a.stages:
        overrides["stages"] = a.stages
    if a.no_persistent:
        overrides["persistent"] = False
    if a.persistent:
        overrides["persistent"] = True
    items = [dict(c, **overrides) for c in grid(a.grid) if not a.only or a.only in entry_name(c)]
    index_path = os.path.join(a.outdir, "index.json")
    names = {entry_name(c) + a.suffix for c in items}
    earlier = json.load(open(index_path)) if os.path.exists(index_path) else []
    index = [e for e in earlier if e["entry"] not in names]
    kept = len(index)
    errors = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for rec, err in pool.map(lambda c: build(a.outdir, c, a.suffix), items):
            if err:
                errors.append(err)
            else:
                index.append(rec)
    with open(index_path, "w") as f:
        json.dump(index, f, indent=1)
    print(f"built {len(index) - kept} of {len(items)}")
    for e in errors:
        print("ERROR", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
