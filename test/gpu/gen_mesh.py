#!/usr/bin/env python3
"""The mesh kernels of mesh_dist.py for R devices: Figure 8's reduce-scatter of an
(R, 64, 64) f16 tensor sharded over the devices into a (64, 64) one sharded by rows, and an
all-gather of a (64, 64) f16 tensor sharded by rows into a replicated one.

    python3 gen_mesh.py R reduce_scatter > mesh_reduce_scatter_rR.mlir
    python3 gen_mesh.py R all_gather > mesh_all_gather_rR.mlir
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


if __name__ == "__main__":
    r = int(sys.argv[1])
    kind = sys.argv[2] if len(sys.argv) > 2 else "reduce_scatter"
    if r < 1 or 64 % r:
        sys.exit("R must divide 64")
    if kind not in ("reduce_scatter", "all_gather"):
        sys.exit("the kernel is reduce_scatter or all_gather")
    print({"reduce_scatter": reduce_scatter, "all_gather": all_gather}[kind](r), end="")
