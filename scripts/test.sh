#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# pageclear's tests, by configuration (`scripts/test.sh --list`): first the
# CMake configurations, which are CMakePresets.json's workflow presets
# (configure, build, ctest; `cmake --workflow --preset NAME` runs one by
# hand), then the installed library, the ABI against its record, the
# Debian packages, the Python package and the Rust crates.
# Usage: scripts/test.sh [--install-deps] [--under-load] [-v] [NAME...]
#        scripts/test.sh --list
#   NAME...         run just these (none: every configuration, in --list
#                   order). install and rust use gcc-release's build: when
#                   gcc-release is not among the NAMEs it is brought up to
#                   date first (built, not tested).
#   --install-deps  first install what the chosen configurations need
#                   (scripts/deps.sh). Without it nothing is installed, and
#                   a configuration whose tools are missing fails, saying so.
#   --under-load    keep every core busy meanwhile (scripts/load.sh: a
#                   busy loop and kernel clears, at the tests' priority),
#                   as CI's shared machine may be: no test may depend on
#                   an idle core or on timing.
#   -v, --verbose   also print every step's output as it runs.
# Each step writes build-test/NAME/<step>.log (deps, configure, build,
# test); a failed step shows the end of its log. The summary gives every
# chosen configuration's outcome and log; exit status 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '8,24s/^# \{0,1\}//p' "$0"; }
jobs="$(nproc)"
prefix="$(pwd)/build-test/prefix"

# The configurations after the CMake ones: name|description.
others=(
  "install|cmake --install of gcc-release's build, moved: pkg-config, CMake package, man pages, examples"
  "abi|the ABI against abi/libpageclear.so.1.abi (abidiff; scripts/abi.sh), after the gate's self-test"
  "deb|Debian packages (dpkg-buildpackage, nocheck): version, symbols, lintian, contents, unpacked in use"
  "python|pip install . in a fresh venv: wheel contents, mypy --strict, pytest (needs PyPI)"
  "rust|Rust crates: rustfmt, clippy, docs, tests (also via pkg-config on gcc-release's install), cargo package"
  "snippets|README's and docs/*.md's code blocks, each as its marker says (scripts/snippets.py), on gcc-release's build"
)
uses_prefix() { [ "$1" = install ] || [ "$1" = rust ] || [ "$1" = snippets ]; }

install_deps="" verbose="" list="" under_load="" names=()
for a in "$@"; do
  case "$a" in
    --install-deps) install_deps=1 ;;
    --under-load) under_load=1 ;;
    -v|--verbose) verbose=1 ;;
    --list) list=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "test.sh: unknown option $a" >&2; usage >&2; exit 2 ;;
    *) names+=("$a") ;;
  esac
done

# cmake reads the presets, so with --install-deps it comes first.
if [ -n "$install_deps" ] && ! scripts/deps.sh presets; then
  echo "test.sh: could not install cmake" >&2; exit 1
fi
if ! command -v cmake >/dev/null 2>&1; then
  echo "test.sh: cmake not found (it reads CMakePresets.json, the CMake configurations):" \
       "run scripts/test.sh --install-deps" >&2
  exit 1
fi
# name|description, CMake configurations first.
mapfile -t all < <(cmake --list-presets=workflow |
  sed -n 's/^  "\([^"]*\)" *\(- \(.*\)\)\{0,1\}$/\1|\3/p'; printf '%s\n' "${others[@]}")
[ ${#all[@]} -gt ${#others[@]} ] || { echo "test.sh: no workflow presets in CMakePresets.json" >&2; exit 1; }
declare -A desc is_cmake
for c in "${all[@]}"; do desc[${c%%|*}]="${c#*|}"; done
while read -r n; do is_cmake[$n]=1; done < <(cmake --list-presets=workflow | sed -n 's/^  "\([^"]*\)".*/\1/p')

if [ -n "$list" ]; then
  for c in "${all[@]}"; do printf '%-17s %s\n' "${c%%|*}" "${c#*|}"; done
  exit 0
fi

# The chosen configurations, in --list order.
for n in "${names[@]}"; do
  [ -n "${desc[$n]+x}" ] || { echo "test.sh: no configuration '$n' (scripts/test.sh --list)" >&2; exit 2; }
done
chosen=()
for c in "${all[@]}"; do
  n="${c%%|*}"
  if [ ${#names[@]} -eq 0 ] || printf '%s\n' "${names[@]}" | grep -qxF -- "$n"; then chosen+=("$n"); fi
done
want_prefix=""
for n in "${chosen[@]}"; do uses_prefix "$n" && want_prefix=1; done
tested_gcc=""
printf '%s\n' "${chosen[@]}" | grep -qx gcc-release && tested_gcc=1

if [ -n "$install_deps" ]; then
  sections=("${chosen[@]}")
  [ -n "$want_prefix" ] && [ -z "$tested_gcc" ] && sections+=(gcc-release)
  # What cannot be installed fails its configuration below, not the run.
  scripts/deps.sh "${sections[@]}" ||
    echo "test.sh: scripts/deps.sh could not provide everything (above); those configurations fail" >&2
fi

if [ -n "$under_load" ]; then
  scripts/load.sh & load_pid=$!
  trap 'kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null' EXIT
  echo "--- under load: scripts/load.sh, $(nproc) workers (pid $load_pid)"
fi

declare -A result logof
failed_log=""
# step NAME STEP CMD...: runs CMD with its output in build-test/NAME/STEP.log
# (and on the terminal with -v); on failure shows the log's end, sets
# failed_log and returns 1.
step() {
  local name="$1" what="$2" rc; shift 2
  local log="build-test/$name/$what.log"
  mkdir -p "build-test/$name"
  echo "--- $name: $what"
  if [ -n "$verbose" ]; then "$@" 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  else "$@" >"$log" 2>&1; rc=$?; fi
  [ "$rc" -eq 0 ] && return 0
  echo "--- $name: $what FAILED (exit status $rc), $log"
  [ -n "$verbose" ] || tail -n 40 "$log" | sed 's/^/    /'
  failed_log="$log"
  return 1
}
# deps NAME: what NAME needs is there (scripts/deps.sh --check); optional
# things missing are only named.
deps() {
  step "$1" deps scripts/deps.sh --check "$1" || {
    echo "--- $1: missing tools (above): install them, or run scripts/test.sh --install-deps"
    return 1; }
  sed -n 's/^deps.sh: missing (optional): /--- note: without /p' "build-test/$1/deps.log"
}
# Whether clang links libFuzzer: without its runtime, clang-release builds
# the fuzz targets with their own driver only.
has_libfuzzer() {
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n > 1; }\n' |
    clang -fsanitize=fuzzer -x c - -o build-test/clang-release/libfuzzer-probe >/dev/null 2>&1
}

# cmake_config NAME [BUILD_ONLY]: the preset's configure, build (and test).
cmake_config() {
  local name="$1" build_only="${2:-}" extra=()
  rm -f "build-test/$name"/{deps,configure,build,test}.log
  deps "$name" || { result[$name]="FAILED (missing tools)"; logof[$name]="$failed_log"; return 1; }
  if [ "$name" = clang-release ] && ! has_libfuzzer; then
    echo "--- clang-release: no libFuzzer runtime: the fuzz targets run with their own driver only"
    extra=(-DPC_FUZZ=OFF)
  fi
  local ok=1
  step "$name" configure cmake --preset "$name" "${extra[@]}" &&
    step "$name" build cmake --build --preset "$name" -j"$jobs" || ok=""
  if [ -z "$ok" ]; then
    result[$name]="FAILED ($(basename "$failed_log" .log))"; logof[$name]="$failed_log"; return 1
  fi
  if [ -n "$build_only" ]; then
    result[$name]="built (not tested)"; logof[$name]="build-test/$name/build.log"; return 0
  fi
  logof[$name]="build-test/$name/test.log"
  if step "$name" test ctest --preset "$name" -j"$jobs"; then
    result[$name]="passed${extra:+ (without the libFuzzer targets: no runtime)}"
  else
    result[$name]="FAILED (test)"; return 1
  fi
}

# The installed library in build-test/prefix, from gcc-release's build;
# made once. Returns 1 (and says why in result[NAME]) when it cannot be.
prefix_state="" prefix_log=""
need_prefix() {
  local name="$1"
  if [ -z "$prefix_state" ]; then
    prefix_state=failed
    if [ -z "$tested_gcc" ] && [ -z "${result[gcc-release]+x}" ]; then
      echo "--- $name uses gcc-release's build: building it (build-test/gcc-release, not tested)"
      cmake_config gcc-release build_only
    fi
    case "${result[gcc-release]:-}" in
      passed*|"FAILED (test)"|built*)
        rm -rf "$prefix"
        step gcc-release install cmake --install build-test/gcc-release --prefix "$prefix" &&
          prefix_state=ready ;;
    esac
    [ "$prefix_state" = ready ] || prefix_log="${failed_log:-${logof[gcc-release]:-}}"
  fi
  [ "$prefix_state" = ready ] && return 0
  if [ -n "$tested_gcc" ]; then result[$name]="skipped (gcc-release's build or install failed)"
  else result[$name]="FAILED (gcc-release's build or install)"; fi
  logof[$name]="$prefix_log"
  return 1
}

# script_config NAME CMD...: a configuration that is one script.
script_config() {
  local name="$1"; shift
  rm -f "build-test/$name"/{deps,test}.log
  if uses_prefix "$name"; then need_prefix "$name" || return 1; fi
  if ! deps "$name"; then result[$name]="FAILED (missing tools)"; logof[$name]="$failed_log"; return 1; fi
  logof[$name]="build-test/$name/test.log"
  if step "$name" test "$@"; then result[$name]=passed; else result[$name]="FAILED (test)"; return 1; fi
}

for n in "${chosen[@]}"; do
  echo "=== $n: ${desc[$n]}"
  if [ -n "${is_cmake[$n]+x}" ]; then cmake_config "$n"; continue; fi
  case "$n" in
    install) script_config install scripts/check_install.sh "$prefix" ;;
    abi) script_config abi scripts/abi.sh ;;
    deb) script_config deb scripts/test_deb.sh ;;
    python) script_config python scripts/test_python.sh ;;
    rust) script_config rust scripts/test_rust.sh "$prefix" ;;
    snippets) script_config snippets scripts/snippets.py --build build-test/gcc-release \
                $(python3 -c "import numpy, os, sysconfig
assert os.path.exists(sysconfig.get_paths()['include'] + '/Python.h')" 2>/dev/null && echo --python) \
                $(command -v cargo >/dev/null && echo --rust) ;;
    *) result[$n]="FAILED (test.sh does not know how to run it)"; logof[$n]="" ;;
  esac
done

echo "=== summary"
status=0
shown=("${chosen[@]}")
# gcc-release built only for install or rust: shown too.
[ -z "$tested_gcc" ] && [ -n "${result[gcc-release]+x}" ] && shown=(gcc-release "${shown[@]}")
for n in "${shown[@]}"; do
  printf '%-17s %-44s %s\n' "$n" "${result[$n]}" "${logof[$n]:-}"
  case "${result[$n]}" in FAILED*) status=1 ;; esac
done
load_note="${under_load:+ (under load)}"
if [ "$status" -ne 0 ]; then
  echo "test.sh: FAILED$load_note"
else
  echo "test.sh: all passed$load_note"
fi
exit "$status"
