#!/usr/bin/env python3
"""The mesh kernels of mesh_dist.py for R devices: Figure 8's reduce-scatter of an
(R, 64, 64) f16 tensor sharded over the devices into a (64, 64) one sharded by rows, and an
all-gather of a (64, 64) f16 tensor sharded by rows into a replicated one, and a ring shift
inside a kernel (remote stores, flags).

    python3 gen_mesh.py R reduce_scatter > mesh_reduce_scatter_rR.mlir
    python3 gen_mesh.py R all_gather > mesh_all_gather_rR.mlir
    python3 gen_mesh.py R ring_shift > mesh_ring_shift_rR.mlir
"""
import sys


def reduce_scatter(r):
    x = f"!axe.tensor<{r}x64x64xf16, global, #axe.layout<({r}, 64, 64) : (1@gpuid, 64, 1)>>"
    y = f"!axe.tensor<64x64xf16, global, #axe.layout<({r}, {64 // r}, 64) : (1@gpuid, 64, 1)>>"
    return f"""module attributes {{axe.target = #axe.target<"sm_90">}} {{
  func.func @mesh_reduce_scatter_r{r}(%xbuf: memref<4096xf16>, %ybuf: memref<{64 // r * 64}xf16>) {{
    axe.mesh [{r}] {{
      %X = axe.view %xbuf : memref<4096xf16> to {x}
      %Y = axe.view %ybuf : memref<{64 // r * 64}xf16> to {y}
      axe.reduce sum %X, %Y dims [0] : {x}, {y}
    }}
    return
  }}
}}
"""


def all_gather(r):
    x = f"!axe.tensor<64x64xf16, global, #axe.layout<({r}, {64 // r}, 64) : (1@gpuid, 64, 1)>>"
    y = f"!axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1) + [({r}) : (1@gpuid)]>>"
    return f"""module attributes {{axe.target = #axe.target<"sm_90">}} {{
  func.func @mesh_all_gather_r{r}(%xbuf: memref<{64 // r * 64}xf16>, %ybuf: memref<4096xf16>) {{
    axe.mesh [{r}] {{
      %X = axe.view %xbuf : memref<{64 // r * 64}xf16> to {x}
      %Y = axe.view %ybuf : memref<4096xf16> to {y}
      axe.copy %X, %Y : {x}, {y}
    }}
    return
  }}
}}
"""


def ring_shift(r):
    """Point-to-point inside a kernel: rank g pushes its 64x64 X into its right neighbour's P
    (remote stores through P's peer table), sets that neighbour's flag (`axe.signal`), waits for
    its own flag (`axe.signal_wait`: the left neighbour's data has arrived) and copies what it
    received into Y: Y on rank g = X on rank g - 1. One CTA per 16 rows; flags per CTA hold
    the launch's epoch."""
    loc = "!axe.tensor<1x64x64xf16, global, #axe.layout<(1, 64, 64) : (4096, 64, 1)>>"
    tp = f"!axe.tensor<{r}x64x64xf16, global, #axe.layout<({r}, 64, 64) : (1@gpuid, 64, 1)>>"
    tf = f"!axe.tensor<{r}x4xi32, global, #axe.layout<({r}, 4) : (1@gpuid, 1)>>"
    tile = "!axe.tensor<1x16x64xf16, global, ?>"
    reg = "!axe.tensor<1x16x64xf16, register, ?>"
    flag = "!axe.tensor<1x1xi32, global, ?>"
    return f"""module attributes {{axe.target = #axe.target<"sm_90">}} {{
  func.func @mesh_ring_shift_r{r}(%x: memref<4096xf16> {{axe.align = 16 : i64}}, %p: memref<4096xf16> {{axe.align = 16 : i64}}, %y: memref<4096xf16> {{axe.align = 16 : i64}}, %flags: memref<4xi32>, %epoch: i32) {{
    axe.mesh [{r}] {{
      %X = axe.view %x : memref<4096xf16> to {loc}
      %P = axe.view %p : memref<4096xf16> to {tp}
      %F = axe.view %flags : memref<4xi32> to {tf}
      %Y = axe.view %y : memref<4096xf16> to {loc}
      axe.kernel grid [4] threads [128] {{
        %rank = axe.device_id
        %c1 = arith.constant 1 : index
        %cr = arith.constant {r} : index
        %c16 = arith.constant 16 : index
        %r1 = arith.addi %rank, %c1 : index
        %next = arith.remui %r1, %cr : index
        %cta = axe.unit_id cta
        %om = arith.muli %cta, %c16 : index
        %xs = axe.slice %X [0 : 1, %om : +16, 0 : 64] : {loc} to {tile}
        %out = axe.alloc : {reg}
        axe.copy %xs, %out : {tile}, {reg}
        %there = axe.slice %P [%next : +1, %om : +16, 0 : 64] : {tp} to {tile}
        axe.copy %out, %there : {reg}, {tile}
        %fnext = axe.slice %F [%next : +1, %cta : +1] : {tf} to {flag}
        axe.signal %fnext, %epoch : {flag}, i32
        %fmine = axe.slice %F [%rank : +1, %cta : +1] : {tf} to {flag}
        axe.signal_wait %fmine, %epoch : {flag}, i32
        %here = axe.slice %P [%rank : +1, %om : +16, 0 : 64] : {tp} to {tile}
        %in = axe.alloc : {reg}
        axe.copy %here, %in : {tile}, {reg}
        %ys = axe.slice %Y [0 : 1, %om : +16, 0 : 64] : {loc} to {tile}
        axe.copy %in, %ys : {reg}, {tile}
      }}
    }}
    return
  }}
}}
"""


if __name__ == "__main__":
    r = int(sys.argv[1])
    kind = sys.argv[2] if len(sys.argv) > 2 else "reduce_scatter"
    if r < 1 or 64 % r:
        sys.exit("R must divide 64")
    kinds = {"reduce_scatter": reduce_scatter, "all_gather": all_gather, "ring_shift": ring_shift}
    if kind not in kinds:
        sys.exit(f"the kernel is one of {', '.join(kinds)}")
    print(kinds[kind](r), end="")
