"""Unit tests of the axe_bench package that need no GPU (NumPy only):

    PYTHONPATH=python python3 -m unittest discover -s python/tests

The package itself imports nothing GPU-bound, and the shipped kernels' table (axe_bench.kernels,
what test/gpu/run.py and bench/gpu/bench.py run) is well formed on a machine without torch."""
import subprocess
import sys
import unittest

import numpy as np
from axe_bench import kernels
from axe_gen import gemm_tma


class PackageTest(unittest.TestCase):
    def test_package_imports_no_torch(self):
        # In a fresh interpreter: importing the package must not pull in torch (its modules do,
        # where they need it; the package imports none of them).
        code = "import sys, axe_bench; sys.exit('torch' in sys.modules)"
        self.assertEqual(subprocess.run([sys.executable, "-c", code]).returncode, 0)


class KernelsTest(unittest.TestCase):
    def test_entries(self):
        self.assertIn("copy_1d_kernel", kernels.KERNELS)
        for name, entry in kernels.KERNELS.items():
            with self.subTest(name=name):
                make, ref, outputs, tol, nbytes, baseline = entry
                self.assertTrue(callable(make))
                self.assertTrue(ref is None or callable(ref))
                self.assertTrue(isinstance(outputs, (int, tuple)))
                self.assertEqual(len(tol), 2)
                self.assertIsInstance(nbytes, int)
                self.assertTrue(baseline is None or isinstance(baseline, str))

    def test_generated_tma_gemms(self):
        # Every multi-stage TMA GEMM test/gpu/build.sh generates has an entry under its name.
        for v in gemm_tma.VARIANTS:
            self.assertIn(gemm_tma.name(*v) + "_kernel", kernels.KERNELS)

    def test_small_reference(self):
        make, ref, outputs, _, _, _ = kernels.KERNELS["gemm_mma_kernel"]
        args = make()
        self.assertEqual([a.dtype for a in args], [np.float16, np.float16, np.float32])
        self.assertEqual(ref(args).shape, (64 * 64,))


if __name__ == "__main__":
    unittest.main()
