# -*- Python -*-
# The Axe lit suite: LLVM 22's lit + FileCheck over the tools built by cargo.
#
#   lit test/                  (after `cargo build --workspace`)
#   cargo test --test lit      (builds, then runs this suite)
#
# AXE_TOOLS_DIR overrides where the built tools are looked up (default target/debug).
import os
import sys

import lit.formats
import lit.llvm

lit.llvm.initialize(lit_config, config)
from lit.llvm import llvm_config  # noqa: E402  (set by initialize)

config.name = "Axe"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "gpu"]
config.test_source_root = os.path.dirname(__file__)
project_root = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(project_root, "target", "lit")

llvm_bin = os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin")
tools_dir = os.environ.get("AXE_TOOLS_DIR", os.path.join(project_root, "target", "debug"))

config.llvm_tools_dir = llvm_bin
llvm_config.with_environment("PATH", tools_dir, append_path=True)
llvm_config.with_environment("PATH", llvm_bin, append_path=True)
llvm_config.use_default_substitutions()
# Full paths for the project's tools (PATH alone is not enough: lit resolves tools itself).
# AXE_OPT_CHECK_IR_ROUNDTRIP=1 makes every axe-opt run also check that its output prints and
# parses back identically (--verify-roundtrip), as CIRCT does for circt-opt.
from lit.llvm.subst import ToolSubst  # noqa: E402

axe_opt_args = ["--verify-roundtrip"] if os.environ.get("AXE_OPT_CHECK_IR_ROUNDTRIP") else []
llvm_config.add_tool_substitutions(
    [ToolSubst("axe-opt", extra_args=axe_opt_args), "axe-layout", "axe-translate"], [tools_dir])

config.substitutions.append(("%axe_plugin", os.path.join(tools_dir, "libaxe_plugin.so")))
config.substitutions.append(("%mlir_opt", os.path.join(llvm_bin, "mlir-opt")))
# The interpreter running lit (Debian's python3, with python3-numpy from scripts/setup.sh),
# not whichever python3 comes first on PATH.
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%axe_bin", tools_dir))
config.environment["AXE_PROJECT_ROOT"] = project_root
# The integration tests run emulated kernels with mlir-runner and its runtime libraries.
llvm_lib = os.environ.get("LLVM_LIB_DIR", os.path.join(os.path.dirname(llvm_bin), "lib"))
config.substitutions.append(("%mlir_runner_utils", os.path.join(llvm_lib, "libmlir_runner_utils.so")))
config.substitutions.append(("%mlir_c_runner_utils", os.path.join(llvm_lib, "libmlir_c_runner_utils.so")))
