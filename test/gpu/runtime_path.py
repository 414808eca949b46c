"""Makes the axe_runtime package importable for the GPU scripts (run.py, bench.py,
profile_one.py, mesh_sim.py, mesh_dist.py), in this order: $AXE_PYTHON, a copy next to these
scripts (target/gpu/, where build.sh puts one), an installed copy, the repository's python/
(../../python from test/gpu). The scripts import it as `from runtime_path import axe_runtime`."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for _dir in (os.environ.get("AXE_PYTHON"), HERE):
    if _dir and os.path.isdir(os.path.join(_dir, "axe_runtime")):
        sys.path.insert(0, _dir)
        break
else:
    try:
        import axe_runtime  # an installed copy
    except ImportError:
        sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import axe_runtime  # noqa: E402,F811

__all__ = ["axe_runtime"]
