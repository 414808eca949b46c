#!/usr/bin/env bash
# Lints and type-checks the project's Python (configured in pyproject.toml), then runs the
# axe_runtime package's CPU tests. ruff, mypy and NumPy (which the tests use) are pinned and
# installed from PyPI into a virtual environment under target/, and the tests run on that venv's
# interpreter: Debian's python3 is externally managed, and the first python3 on PATH (a pyenv
# build, say) need not have NumPy. Run by .ci/run.
#
#     bash scripts/lint-python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF_VERSION=0.17.6
MYPY_VERSION=2.4.1
NUMPY_VERSION=2.3.5
VENV=target/python-lint
if ! "$VENV/bin/ruff" --version 2>/dev/null | grep -q "$RUFF_VERSION" \
   || ! "$VENV/bin/mypy" --version 2>/dev/null | grep -q "$MYPY_VERSION" \
   || ! "$VENV/bin/python" -c "import numpy, sys; sys.exit(numpy.__version__ != '$NUMPY_VERSION')" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "ruff==$RUFF_VERSION" \
    "mypy==$MYPY_VERSION" "numpy==$NUMPY_VERSION"
fi
# The tracked Python files (every *.py outside target/ when this is not a git checkout).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.py')
else
  mapfile -t files < <(find . -path ./target -prune -o -name '*.py' -print | sed 's|^\./||' | sort)
fi
"$VENV/bin/ruff" check "${files[@]}"
# lit's config runs inside lit, which defines its globals.
mapfile -t typed < <(printf '%s\n' "${files[@]}" | grep -v '^test/lit\.cfg\.py$')
"$VENV/bin/mypy" "${typed[@]}"
PYTHONPATH=python "$VENV/bin/python" -m unittest discover -s python/tests
