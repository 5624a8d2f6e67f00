#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The Python package, as a new user gets it: a fresh venv, `pip install .`
# (scikit-build-core builds the C library and the extension from this
# tree), then the pytest suite and mypy --strict on the package. Also checks
# that the wheel holds the package and nothing else (no headers, no
# pkg-config file, no command). Installs nothing on the system (scripts/deps.sh
# python does); takes scikit-build-core, numpy, pytest and mypy from PyPI
# into the venv.
# Usage: scripts/test_python.sh   (from anywhere; works in build-test/python)
set -euo pipefail
cd "$(dirname "$0")/.."
py="${PYTHON:-python3}"
work="build-test/python"

scripts/deps.sh --check python || {
  echo "test_python.sh: tools missing (above): scripts/deps.sh python installs them" >&2; exit 1; }

# (only what this script makes: scripts/test.sh keeps its logs here)
rm -rf "$work/venv" "$work/wheel" "$work/install.log" "$work/wheel.log"
mkdir -p "$work"
"$py" -m venv "$work/venv"
vpy="$work/venv/bin/python"
pipq=("$vpy" -m pip --disable-pip-version-check -q)

echo "=== python: pip install . (fresh venv)"
"${pipq[@]}" install . > "$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
# Majors pinned for the tools whose new releases add checks; numpy is what
# users get.
"${pipq[@]}" install "pytest<10" numpy "mypy<3"

echo "=== python: wheel contents"
"${pipq[@]}" wheel --no-deps -w "$work/wheel" . > "$work/wheel.log" 2>&1 ||
  { cat "$work/wheel.log"; exit 1; }
wheel="$(ls "$work"/wheel/pageclear-*.whl)"
# Every entry is the package or its metadata, and the module is there.
names="$(unzip -Z1 "$wheel")"
if echo "$names" | grep -Ev '^(pageclear/|pageclear-[0-9.]+\.dist-info/)'; then
  echo "test_python.sh: unexpected files in $wheel (above)" >&2
  exit 1
fi
for f in pageclear/__init__.py pageclear/py.typed pageclear/_pageclear.pyi; do
  echo "$names" | grep -qx "$f" || { echo "test_python.sh: $f missing from the wheel" >&2; exit 1; }
done
echo "$names" | grep -q '^pageclear/_pageclear\..*\.so$' ||
  { echo "test_python.sh: the extension is missing from the wheel" >&2; exit 1; }

echo "=== python: mypy --strict"
"$vpy" -m mypy --strict --no-incremental python/pageclear

echo "=== python: pytest"
# From the repository root: python/tests puts itself on sys.path for its
# conftest; `import pageclear` finds the installed package, not the sources.
"$vpy" -m pytest -p no:cacheprovider python/tests
