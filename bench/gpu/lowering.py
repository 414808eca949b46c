"""The build step the benchmark builders share: a user-level module through `axe-opt
--axe-to-nvvm-pipeline` and `axe-translate --axe-to-launch-manifest`, written as
OUTDIR/<entry>.json. The tools are $AXE_OPT and $AXE_TRANSLATE, else the release builds."""
import os
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def tools():
    """axe-opt and axe-translate: $AXE_OPT / $AXE_TRANSLATE, else target/release."""
    opt = os.environ.get("AXE_OPT", os.path.join(ROOT, "target/release/axe-opt"))
    return opt, os.environ.get("AXE_TRANSLATE", os.path.join(os.path.dirname(opt), "axe-translate"))


def lower(outdir, entry, src):
    """Lowers `src` (a module with one function `entry`) and writes OUTDIR/<entry>.json;
    returns None, or the error (the tool's stderr, cut to 3000 characters)."""
    opt, translate = tools()
    lowered = subprocess.run([opt, "-", "--axe-to-nvvm-pipeline=chip=sm_90a features=+ptx80"], input=src,
                             capture_output=True, text=True)
    if lowered.returncode:
        return f"{entry}: {lowered.stderr.strip()[:3000]}"
    manifest = subprocess.run([translate, "-", "--axe-to-launch-manifest"], input=lowered.stdout,
                              capture_output=True, text=True)
    if manifest.returncode:
        return f"{entry}: {manifest.stderr.strip()[:3000]}"
    with open(os.path.join(outdir, f"{entry}.json"), "w") as f:
        f.write(manifest.stdout)
    return None
