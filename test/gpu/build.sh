#!/usr/bin/env bash
# Lowers every kernel in test/gpu/kernels (and the generated GEMMs) to PTX with
# axe-to-nvvm-pipeline and writes, per kernel, its launch manifest (axe-translate
# --axe-to-launch-manifest: entry, grid, block, shared memory, parameters, the PTX itself) as
# target/gpu/<chip>/<entry>.json, plus the PTX alone as <entry>.ptx (for ptxas checks).
# target/gpu/ then holds everything the GPU machine needs: the manifests, the runner scripts
# (flat, from test/gpu and bench/gpu) and, beside them, the Python packages they import
# (python/'s axe_runtime, axe_gen and axe_bench). There the scripts run as
# `python3 target/gpu/run.py target/gpu/sm_90`: Python puts a script's own directory first on
# sys.path, so target/gpu/ is the PYTHONPATH the packages need; in the repository they run with
# PYTHONPATH=python (python/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
# The generators are modules of python/axe_gen.
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
OPT=${AXE_OPT:-target/debug/axe-opt}
TRANSLATE=${AXE_TRANSLATE:-$(dirname "$OPT")/axe-translate}
# lower KERNEL OUTDIR PIPELINE-OPTIONS: the lowered module, its manifest, its PTX.
lower() {
  local k=$1 out=$2 opts=$3 name
  name=$(basename "$k" .mlir)
  "$OPT" --axe-to-nvvm-pipeline="$opts" "$k" -o "$out/$name.lowered.mlir" 2> "$out/$name.remarks"
  "$TRANSLATE" --axe-to-launch-manifest "$out/$name.lowered.mlir" -o "$out/$name.manifest.json"
  python3 - "$out/$name.manifest.json" "$out" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
for kernel in manifest["kernels"]:
    with open(f"{sys.argv[2]}/{kernel['entry']}.json", "w") as f:
        json.dump({"version": manifest["version"], "kernels": [kernel]}, f)
    with open(f"{sys.argv[2]}/{kernel['entry']}.ptx", "w") as f:
        f.write(kernel["ptx"])
PY
  rm "$out/$name.manifest.json"
}
# sm_90 PTX is what runs; sm_80 PTX is also built so ptxas can check it on the GPU machine.
# The paper's LLM GEMM shapes, generated (not committed: they are one template).
mkdir -p target/gpu/gen
for shape in "8192 14336 4096" "8192 4096 14336"; do
  set -- $shape
  python3 -m axe_gen.gemm_mma "$1" "$2" "$3" > "target/gpu/gen/gemm_$1x$2x$3.mlir"
  python3 -m axe_gen.gemm_mma "$1" "$2" "$3" 64 > "target/gpu/gen/gemm_$1x$2x$3_bk64.mlir"
done
python3 -m axe_gen.gemm_mma 4096 4096 4096 64 > target/gpu/gen/gemm_4096x4096x4096_bk64.mlir
# The mesh kernels of mesh_dist.py, one per device count.
for r in 1 2 4 8; do
  python3 test/gpu/gen_mesh.py "$r" reduce_scatter > "target/gpu/gen/mesh_reduce_scatter_r$r.mlir"
  python3 test/gpu/gen_mesh.py "$r" all_gather > "target/gpu/gen/mesh_all_gather_r$r.mlir"
  python3 test/gpu/gen_mesh.py "$r" ring_shift > "target/gpu/gen/mesh_ring_shift_r$r.mlir"
done
# Multi-stage TMA + wgmma GEMMs (sm_90a): the variants of axe_gen.gemm_tma, 8B and 70B shapes too.
rm -f target/gpu/gen/*_tma*.mlir
python3 -m axe_gen.gemm_tma --all target/gpu/gen
# The fused GEMM + reduce-scatter (sm_90a): the Llama shapes for R = 1, 2, 4, 8, and the small
# shapes that mesh_sim.py runs with simulated ranks.
rm -f target/gpu/gen/gemm_rs_*.mlir
python3 -m axe_gen.gemm_rs --all target/gpu/gen
python3 -m axe_gen.gemm_rs 2048 1024 4096 2 > target/gpu/gen/gemm_rs_2048x1024x4096_r2.mlir
python3 -m axe_gen.gemm_rs 4096 256 4096 4 > target/gpu/gen/gemm_rs_4096x256x4096_r4.mlir
for r in 1 2 4 8; do
  python3 -m axe_gen.gemm_rs 8192 1024 4096 "$r" > "target/gpu/gen/gemm_rs_8192x1024x4096_r$r.mlir"
  python3 -m axe_gen.gemm_rs --ws 8192 1024 4096 "$r" 132 1 > "target/gpu/gen/gemm_rs_8192x1024x4096_r${r}_ws.mlir"
  python3 -m axe_gen.gemm_rs --ws 8192 1024 4096 "$r" 132 1 defer > "target/gpu/gen/gemm_rs_8192x1024x4096_r${r}_ws_d.mlir"
  python3 -m axe_gen.gemm_rs --ws 8192 1024 4096 "$r" 132 1 bulk > "target/gpu/gen/gemm_rs_8192x1024x4096_r${r}_ws_b.mlir"
  python3 -m axe_gen.gemm_rs --ws 8192 1024 4096 "$r" 132 1 reduce > "target/gpu/gen/gemm_rs_8192x1024x4096_r${r}_ws_r.mlir"
  python3 -m axe_gen.gemm_rs --ws 8192 1024 4096 "$r" 132 1 async > "target/gpu/gen/gemm_rs_8192x1024x4096_r${r}_ws_b_a1.mlir"
  python3 -m axe_gen.gemm_rs --ws 8192 1024 4096 "$r" 132 1 pushers > "target/gpu/gen/gemm_rs_8192x1024x4096_r${r}_ws_w.mlir"
done
# The warp-specialized, persistent GEMMs (sm_90a).
# (Only axe_gen.gemm_ws's own files: the gemm_rs_*_ws* kernels above stay.)
rm -f target/gpu/gen/gemm_[0-9]*_ws_*.mlir
python3 -m axe_gen.gemm_ws --all target/gpu/gen
# The warp-specialized form with ranks simulated on one GPU: 16 CTAs per rank, not cooperative.
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 defer > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_d_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 defer > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_d_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 bulk > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_b_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 bulk > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_b_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 reduce > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_r_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 reduce > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_r_sm16_nc.mlir
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 async > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_b_sm16_nc_a1.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 async > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_b_sm16_nc_a1.mlir
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 async2 > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_b_sm16_nc_a2.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 async2 > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_b_sm16_nc_a2.mlir
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 pushers > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_sm16_nc_w.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 pushers > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_sm16_nc_w.mlir
python3 -m axe_gen.gemm_rs --ws 2048 1024 4096 2 16 0 comm2 > target/gpu/gen/gemm_rs_2048x1024x4096_r2_ws_sm16_nc_c2.mlir
python3 -m axe_gen.gemm_rs --ws 4096 256 4096 4 16 0 comm2 > target/gpu/gen/gemm_rs_4096x256x4096_r4_ws_sm16_nc_c2.mlir
# The MoE layer's kernels are built per model by bench/gpu/build_moe.py (see docs/gpu.md).
rm -f
for chip in sm_90 sm_80; do
  mkdir -p "target/gpu/$chip"
  for k in test/gpu/kernels/*.mlir target/gpu/gen/*.mlir test/Examples/gemm-kernel.mlir test/Examples/reduce-scatter.mlir; do
    name=$(basename "$k" .mlir)
    [[ $name == *wgmma* || $name == *_tma* || $name == *_ws_* || $name == gemm_rs_* ]] && continue
    lower "$k" "target/gpu/$chip" "chip=$chip"
  done
done
# wgmma and TMA kernels (#axe.target<"sm_90a">) need chip=sm_90a; their PTX runs with the sm_90 set.
for k in test/gpu/kernels/*wgmma*.mlir test/gpu/kernels/*_tma*.mlir target/gpu/gen/*_tma*.mlir target/gpu/gen/gemm_*_ws_*.mlir target/gpu/gen/gemm_rs_*.mlir; do
  lower "$k" target/gpu/sm_90 "chip=sm_90a features=+ptx80"
done
cp test/gpu/run.py test/gpu/gemm_typed.py test/gpu/moe.py test/gpu/mesh_sim.py test/gpu/mesh_dist.py test/gpu/profile_one.py test/gpu/profile_gemm.py bench/gpu/bench.py bench/gpu/ws_raster_sweep.py bench/gpu/dist_gemm_rs.py bench/gpu/cluster_occupancy.py bench/gpu/mma_sync_ceiling.py bench/gpu/mma_sync_gemm.py bench/gpu/mma_sync_mainloop.py bench/gpu/power_pair.py target/gpu/
# The Python packages beside the scripts: the launcher, the generators and the runners' shared
# helpers (so that target/gpu runs on a machine that has only it).
rm -rf target/gpu/axe_runtime target/gpu/axe_gen target/gpu/axe_bench
cp -r python/axe_runtime python/axe_gen python/axe_bench target/gpu/
rm -rf target/gpu/axe_runtime/__pycache__ target/gpu/axe_gen/__pycache__ target/gpu/axe_bench/__pycache__
ls target/gpu/sm_90/*.json
