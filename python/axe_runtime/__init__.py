"""Running Axe kernels from PyTorch (or CuPy): a launch manifest (`axe-translate
--axe-to-launch-manifest`, docs/launch-manifest.md) becomes callable kernels that check their
arguments, build the TMA tensor maps, load the PTX and launch on the current stream.

    import axe_runtime
    softmax = axe_runtime.load("softmax_f16.json")
    softmax(x, y)
"""
from .compiler import CompileError, compile, pipeline_options
from .dtypes import DTYPES, element_bytes, numpy_dtype, tensor_map_dtype, torch_dtype
from .kernel import Kernel, Program
from .manifest import VERSION, Manifest, ManifestError, load, program, validate
from .tensormap import tensor_map_fields

__all__ = [
    "CompileError", "DTYPES", "Kernel", "Manifest", "ManifestError", "Program", "VERSION", "compile",
    "element_bytes", "load", "numpy_dtype", "pipeline_options", "program", "tensor_map_dtype",
    "tensor_map_fields", "torch_dtype", "validate",
]
__version__ = "0.1.0"
