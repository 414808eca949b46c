"""Reads a launch manifest (axe-translate --axe-to-launch-manifest) on stdin; writes each
kernel's PTX to DIR/<entry>.ptx (for FileCheck on the PTX) and prints one line of compact,
sorted JSON per kernel with everything but the PTX text, so CHECK lines stay on one line."""
import json
import sys

if len(sys.argv) != 2:
    sys.exit("usage: manifest_summary.py DIR < manifest.json")
manifest = json.load(sys.stdin)
print(f"version {manifest['version']}")
for kernel in manifest["kernels"]:
    with open(f"{sys.argv[1]}/{kernel['entry']}.ptx", "w") as f:
        f.write(kernel.pop("ptx"))
    print(json.dumps(kernel, sort_keys=True))
