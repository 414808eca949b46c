#!/usr/bin/env bash
# Copies the op and pass reference that the build generates from the dialect's ODS
# (mlir-tblgen -gen-dialect-doc / -gen-pass-doc, under cargo's OUT_DIR) into docs/reference/,
# where readers find it; tests/reference_docs.rs fails when the copy is stale.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build -q --lib -p axe
# The build just refreshed: the newest generated pass reference (several axe-* build
# directories may exist; a directory's own time does not change when files are rewritten).
newest=$(ls -t target/debug/build/axe-*/out/cmake/dialect/docs/AxePasses.md 2>/dev/null | head -1)
out=${newest:+$(dirname "$newest")}
[ -n "$out" ] || { echo "reference-docs: no generated docs under target/debug/build/axe-*/out" >&2; exit 1; }
mkdir -p docs/reference
cp "$out/AxeDialect.md" "$out/AxePasses.md" docs/reference/
echo "docs/reference/ refreshed from $out"
