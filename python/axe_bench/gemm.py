"""The typed GEMMs' inputs and oracle tolerances, shared by test/gpu/gemm_typed.py (which checks
and times the generated TMA and warp-specialized GEMMs), test/gpu/profile_gemm.py,
bench/gpu/gemm_grid.py and bench/gpu/ws_raster_sweep.py."""
import torch

TORCH = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
         "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
# Relative error bound (of the largest |entry|) per output type: its rounding, plus slack for
# the summation order of K products in f32. FP8 wgmma accumulates with less than f32's
# precision (Hopper's FP8 tensor cores keep about 14 mantissa bits per partial sum: the
# "fast accumulation" of cuBLASLt, torch._scaled_mm(use_fast_accum=True), shows the same
# error), so an FP8 kernel's f32 output is held to 4e-3.
RTOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}
RTOL_FP8_F32 = 4e-3


def inputs(m, n, k, dtype, out):
    g = torch.Generator(device="cuda").manual_seed(0)
    fp8 = dtype in ("e4m3", "e5m2")
    a = torch.randn(m, k, device="cuda", generator=g)
    b = torch.randn(n, k, device="cuda", generator=g) if fp8 else torch.randn(k, n, device="cuda", generator=g)
    a, b = a.to(TORCH[dtype]), b.to(TORCH[dtype])
    # The output sits at the start of a larger buffer: the tail (NaN) must stay untouched, which
    # checks that the partial tiles of a ragged shape store nothing past the tensor.
    storage = torch.full((m * n + 65536,), float("nan"), device="cuda", dtype=TORCH[out])
    c = storage[: m * n].view(m, n)
    scales = [torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")] if fp8 else []
    return a, b, c, scales, storage
