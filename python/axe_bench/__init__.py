"""What the GPU runners and benchmarks of test/gpu and bench/gpu share (they run on the GPU
machine; nothing here is imported by `axe_runtime` or `axe_gen`):

* `axe_bench.timing`: CUDA-event timing (`time_ms`) and paired ratios (`ratio_stats`);
* `axe_bench.kernels`: the shipped kernels of test/gpu/kernels (and the generated TMA GEMMs):
  inputs, NumPy references, tolerances, the baseline a user would run instead;
* `axe_bench.gemm`: the typed GEMMs' inputs and oracle tolerances;
* `axe_bench.triton_matmul`: the tuned Triton matmul baseline;
* `axe_bench.dist`: launching mesh kernels (the calling convention of `axe.mesh` functions, the
  fused GEMM + reduce-scatter and the gathered GEMM on real or simulated ranks).

The package imports none of its modules: each needs what it says (torch, NumPy, Triton), which
only the GPU machine has. Scripts import the modules with `python/` on PYTHONPATH.
"""
