"""Fake `nki.isa` (NumPy oracle): nc_matmul only."""
import numpy as np

from .language import PMAX, NkiError, Tensor, psum, sbuf

STATIONARY_FMAX = 128  # nl.tile_size.gemm_stationary_fmax
MOVING_FMAX = 512      # nl.tile_size.gemm_moving_fmax


def nc_matmul(stationary, moving, *, is_stationary_onezero=False, is_moving_onezero=False,
              is_transpose=False, mask=None, **kwargs):
    """stationary.T @ moving on TensorE: SBUF inputs, fp32 PSUM result."""
    for name, t in (("stationary", stationary), ("moving", moving)):
        if not isinstance(t, Tensor) or t.buffer != sbuf:
            raise NkiError(f"nc_matmul: {name} must be an SBUF tile")
        if t.data.ndim != 2:
            raise NkiError(f"nc_matmul: {name} must be 2-D")
    kp, m = stationary.shape
    kp2, n = moving.shape
    if kp != kp2 or kp > PMAX:
        raise NkiError(f"nc_matmul: partition sizes {kp} and {kp2} must be equal and <= {PMAX}")
    if m > STATIONARY_FMAX:
        raise NkiError(f"nc_matmul: stationary free size {m} > {STATIONARY_FMAX}")
    if n > MOVING_FMAX:
        raise NkiError(f"nc_matmul: moving free size {n} > {MOVING_FMAX}")
    out = stationary.data.astype(np.float32).T @ moving.data.astype(np.float32)
    return Tensor(out.astype(np.float32), psum, from_matmul=True)
