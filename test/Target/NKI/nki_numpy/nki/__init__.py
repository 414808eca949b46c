"""Fake `nki` package: a NumPy test oracle for the NKI subset emitted by axe-to-nki.

NOT the AWS Neuron Kernel Interface. See ../README.md.
"""
from . import isa, language  # noqa: F401


def jit(func=None, mode="auto", **kwargs):
    """`nki.jit`: documented as a decorator (optionally called). Here it only marks the kernel."""
    def wrap(f):
        f.__nki_kernel__ = True
        return f
    if func is None:
        return wrap
    return wrap(func)
