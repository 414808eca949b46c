"""Compiling an Axe kernel to a launch manifest with the axe-opt and axe-translate tools."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Sequence
from typing import Any

from .manifest import validate


class CompileError(RuntimeError):
    """axe-opt or axe-translate failed; the message holds its diagnostics."""


def pipeline_options(chip: str) -> str:
    """The axe-to-nvvm-pipeline options for `chip`: sm_90a's wgmma / TMA need PTX ISA 8.0."""
    opts = f"chip={chip}"
    if chip.endswith("a") and chip.startswith("sm_9"):
        opts += " features=+ptx80"
    return opts


def _run(cmd: Sequence[str], what: str) -> str:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise CompileError(f"{what}: {cmd[0]} not found (pass its path, e.g. axe_opt='target/release/axe-opt')") from None
    if r.returncode:
        raise CompileError(f"{what} failed ({' '.join(cmd)}):\n{r.stderr.strip()}")
    return r.stdout


def compile(path_or_text: str | os.PathLike[str], chip: str = "sm_90a", axe_opt: str = "axe-opt",
            axe_translate: str = "axe-translate") -> dict[str, Any]:
    """The launch manifest (a dict) of an Axe kernel: a .mlir path or the MLIR text itself,
    lowered by `axe-opt --axe-to-nvvm-pipeline=chip=...` and described by
    `axe-translate --axe-to-launch-manifest`."""
    with tempfile.TemporaryDirectory(prefix="axe_runtime_") as tmp:
        src = os.fspath(path_or_text)
        if not os.path.exists(src):
            if "func.func" not in src and "module" not in src:
                raise FileNotFoundError(f"{src}: neither a file nor MLIR text")
            path = os.path.join(tmp, "kernel.mlir")
            with open(path, "w") as f:
                f.write(src)
            src = path
        lowered = os.path.join(tmp, "kernel.lowered.mlir")
        _run([axe_opt, src, f"--axe-to-nvvm-pipeline={pipeline_options(chip)}", "-o", lowered], "axe-opt")
        text = _run([axe_translate, "--axe-to-launch-manifest", lowered], "axe-translate")
    try:
        return validate(json.loads(text), "axe-translate output")
    except json.JSONDecodeError as e:
        raise CompileError(f"axe-translate printed no JSON: {e}") from None
