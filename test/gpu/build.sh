#!/usr/bin/env bash
# Lowers every kernel in test/gpu/kernels to PTX with axe-to-nvvm-pipeline and extracts the
# runner's inputs (PTX + entry/grid/block JSON) into target/gpu/ (carried to the GPU machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
OPT=${AXE_OPT:-target/debug/axe-opt}
# The pipeline's first passes, stopped after kernel outlining: extract.py reads the kernel's
# parameters (memref arguments, TMA tensor maps) off its gpu.launch_func.
outlined() {
  "$OPT" --pass-pipeline='builtin.module(axe-slice,axe-infer-layout,axe-canonicalize,convert-axe-to-gpu,canonicalize,gpu-launch-sink-index-computations,gpu-kernel-outlining)' "$1" -o "$2"
}
# sm_90 PTX is what runs; sm_80 PTX is also built so ptxas can check it on the GPU machine.
# The paper's LLM GEMM shapes, generated (not committed: they are one template).
mkdir -p target/gpu/gen
for shape in "8192 14336 4096" "8192 4096 14336"; do
  set -- $shape
  python3 bench/gpu/gen_gemm.py "$1" "$2" "$3" > "target/gpu/gen/gemm_$1x$2x$3.mlir"
  python3 bench/gpu/gen_gemm.py "$1" "$2" "$3" 64 > "target/gpu/gen/gemm_$1x$2x$3_bk64.mlir"
done
python3 bench/gpu/gen_gemm.py 4096 4096 4096 64 > target/gpu/gen/gemm_4096x4096x4096_bk64.mlir
# Multi-stage TMA + wgmma GEMMs (sm_90a): the variants of gen_gemm_tma.py, 8B and 70B shapes too.
rm -f target/gpu/gen/*_tma*.mlir
python3 bench/gpu/gen_gemm_tma.py --all target/gpu/gen
for chip in sm_90 sm_80; do
  out=target/gpu/$chip
  mkdir -p "$out"
  for k in test/gpu/kernels/*.mlir target/gpu/gen/*.mlir; do
    name=$(basename "$k" .mlir)
    [[ $name == *wgmma* || $name == *_tma* ]] && continue
    "$OPT" --axe-to-nvvm-pipeline="chip=$chip" "$k" -o "$out/$name.lowered.mlir" 2> "$out/$name.remarks"
    outlined "$k" "$out/$name.outlined.mlir" 2> /dev/null
    python3 test/gpu/extract.py "$k" "$out/$name.lowered.mlir" "$out" "$out/$name.outlined.mlir" > /dev/null
  done
done
# wgmma and TMA kernels (#axe.target<"sm_90a">) need chip=sm_90a; their PTX runs with the sm_90 set.
for k in test/gpu/kernels/*wgmma*.mlir test/gpu/kernels/*_tma*.mlir target/gpu/gen/*_tma*.mlir; do
  name=$(basename "$k" .mlir)
  "$OPT" --axe-to-nvvm-pipeline="chip=sm_90a features=+ptx80" "$k" -o "target/gpu/sm_90/$name.lowered.mlir" 2> "target/gpu/sm_90/$name.remarks"
  outlined "$k" "target/gpu/sm_90/$name.outlined.mlir"
  python3 test/gpu/extract.py "$k" "target/gpu/sm_90/$name.lowered.mlir" target/gpu/sm_90 "target/gpu/sm_90/$name.outlined.mlir" > /dev/null
done
cp test/gpu/run.py test/gpu/kernels.py test/gpu/axe_launch.py test/gpu/profile.py bench/gpu/bench.py bench/gpu/gen_gemm_tma.py target/gpu/
ls target/gpu/sm_90/*.ptx
