#!/usr/bin/env bash
# Installs what Axe needs on Debian 12: LLVM/MLIR 22.1.8 from Debian's security
# suite, CMake, Ninja, and the libraries LLVM's CMake package refers to. Idempotent: does nothing
# when everything is present. The Rust toolchain (cargo) must already be installed.
set -euo pipefail
PACKAGES=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 libpolly-22-dev
          libzstd-dev libz3-dev libxml2-dev zlib1g-dev cmake ninja-build python3 python3-numpy
          python3-venv)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
# islpy lets the ISL-export test check every exported relation with a Presburger library
# (the test is skipped, saying so, without it).
if ! python3 -c 'import islpy' 2>/dev/null; then
  python3 -m pip install -q islpy || echo "setup: islpy could not be installed; the ISL cross-check will be skipped" >&2
fi
command -v cargo >/dev/null || { echo "setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
# The formatter and the linter CI requires (rustup installs them; a toolchain without rustup must
# bring its own).
if command -v rustup >/dev/null; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || echo "setup: rustup could not add rustfmt and clippy" >&2
fi
/usr/lib/llvm-22/bin/llvm-config --version | grep -q '^22\.' || { echo "setup: LLVM 22 not found" >&2; exit 1; }
