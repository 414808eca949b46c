#!/usr/bin/env bash
# Compiles an Axe kernel to PTX and its launch manifest:
#   scripts/compile.sh KERNEL.mlir [CHIP] [OUTDIR]
# CHIP: sm_80, sm_90 or sm_90a (default: the module's #axe.target, else sm_90); OUTDIR:
# default target/compiled. Writes OUTDIR/<name>.lowered.mlir (the lowered module),
# OUTDIR/<name>.json (the launch manifest: entry, grid, block, shared memory, parameters and
# the PTX; docs/launch-manifest.md) and OUTDIR/<entry>.ptx, and says where they went.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: scripts/compile.sh KERNEL.mlir [CHIP] [OUTDIR]" >&2; exit 2; }
kernel=$1
chip=${2:-$(grep -o 'axe.target<"sm_[0-9a-z]*">' "$kernel" | head -1 | sed 's/.*"\(.*\)".*/\1/')}
chip=${chip:-sm_90}
out=${3:-$root/target/compiled}
options="chip=$chip"
[ "$chip" = sm_90a ] && options="$options features=+ptx80"
(cd "$root" && cargo build -q --bin axe-opt --bin axe-translate)
mkdir -p "$out"
name=$(basename "$kernel" .mlir)
"$root/target/debug/axe-opt" "$kernel" --axe-to-nvvm-pipeline="$options" -o "$out/$name.lowered.mlir"
"$root/target/debug/axe-translate" --axe-to-launch-manifest "$out/$name.lowered.mlir" -o "$out/$name.json"
python3 - "$out/$name.json" "$out" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
print(f"manifest: {sys.argv[1]}")
for k in manifest["kernels"]:
    ptx = f"{sys.argv[2]}/{k['entry']}.ptx"
    open(ptx, "w").write(k["ptx"])
    params = ", ".join(f"{p['kind']} of argument {p['arg']}" for p in k["params"])
    print(f"kernel {k['entry']} ({k['target']}, PTX {k['ptx_version']}): {ptx}")
    print(f"  grid {k['grid']} block {k['block']} dynamic shared {k['dynamic_shared_bytes']} B; parameters: {params}")
PY
