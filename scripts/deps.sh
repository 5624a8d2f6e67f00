#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# What building, running and testing pageclear needs on Debian 12, section by
# section: `run` (the main job, scripts/run.sh) and one section per
# configuration of scripts/test.sh (`scripts/test.sh --list`). The one place
# that knows which tool comes from which package, and the only script that
# installs anything.
# Usage: scripts/deps.sh [--check] SECTION...
#   --check  install nothing: say what is missing, exit 1 if anything
#            required is (optional things are only named).
#   without  install what is missing (apt-get, as root or through sudo;
#            rustup components; matplotlib with pip), then check again.
set -euo pipefail
cd "$(dirname "$0")/.."

# Rust comes from rustup on the machines this project targets (Debian's
# cargo is too old for edition 2024); it may not be on a non-login PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- probes: each succeeds when the thing is there ---------------------------
has() { command -v "$1" >/dev/null 2>&1; }
# Whether CC links a C program with FLAGS: the real question for compilers
# and their runtimes (sanitizers, libFuzzer), wherever a package put them.
links() { # CC FLAGS...
  local cc="$1"; shift
  has "$cc" || return 1
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d == NULL && n > 0; }' \
    '#ifndef FUZZ' 'int main(void) { return LLVMFuzzerTestOneInput(NULL, 0); }' '#endif' \
    > "$tmp/probe.c"
  "$cc" "$@" "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1
}
py_has() { has python3 && python3 -c "import $1" >/dev/null 2>&1; }
py_headers() {
  has python3 && [ -f "$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")/Python.h" ]
}
# (in rust/: a toolchain file there would pick the toolchain)
cargo_has() { has cargo && (cd rust && cargo "$1" --version) >/dev/null 2>&1; }

# --- need [-o] WHAT HOW PROBE...: PROBE fails -> WHAT is missing -------------
# HOW: apt:PKG[,PKG...] | rustup:COMPONENT | pip:MODULE | manual:TEXT
# -o: optional (used when there; a missing one fails nothing).
missing=() optional=() apt=() rustup=() pip=()
need() {
  local opt=""
  [ "$1" = -o ] && { opt=1; shift; }
  local what="$1" how="$2"; shift 2
  "$@" >/dev/null 2>&1 && return 0
  local hint pkgs
  case "$how" in
    apt:*) hint="apt-get install ${how#apt:}"; hint="${hint//,/ }"
           IFS=, read -r -a pkgs <<<"${how#apt:}"; apt+=("${pkgs[@]}") ;;
    rustup:*) hint="rustup component add ${how#rustup:}"; rustup+=("${how#rustup:}") ;;
    pip:*) hint="pip install ${how#pip:}"; pip+=("${how#pip:}") ;;
    manual:*) hint="${how#manual:}" ;;
  esac
  if [ -n "$opt" ]; then optional+=("$what ($hint)"); else missing+=("$what ($hint)"); fi
}

# --- sections ----------------------------------------------------------------
cmake_make() {
  need cmake apt:cmake has cmake
  need make apt:make has make
}
gcc_c() { need "gcc (C compiler and libc headers)" apt:gcc,libc6-dev links gcc; }
# What the native ctest suite calls besides the programs it builds: python3
# (the command's JSON checks), groff (the man pages), and matplotlib for the
# `--plot` check (skipped without it).
native_suite() {
  need python3 apt:python3 has python3
  need groff apt:groff-base has groff
  need -o "matplotlib for $(command -v python3 || echo python3)" pip:matplotlib py_has matplotlib
  # The ABI gate's self-test (ctest abi_gate_selftest) is skipped without.
  need -o "abidiff (the ABI gate's self-test)" apt:abigail-tools has abidiff
}
clang_c() { need clang apt:clang,libc6-dev links clang; }

# cmake also reads CMakePresets.json, scripts/test.sh's list of its CMake
# configurations.
sec_presets() { need cmake apt:cmake has cmake; }
sec_run() {
  cmake_make; gcc_c
  # `pageclear --plot` runs scripts/plot.py with the python3 on PATH.
  need -o "matplotlib for $(command -v python3 || echo python3)" pip:matplotlib py_has matplotlib
}
# scripts/serve_qemu.sh: a real VMM started with memory from `pageclear
# serve`. A section of its own: no test and not the main job needs QEMU.
sec_serve-qemu() {
  need "qemu-system-x86_64 (scripts/serve_qemu.sh)" apt:qemu-system-x86 has qemu-system-x86_64
}
sec_gcc-release() { cmake_make; gcc_c; native_suite; }
sec_portable-only() { cmake_make; gcc_c; native_suite; }
sec_clang-release() {
  cmake_make; clang_c; native_suite
  # libFuzzer's runtime ships apart from clang; without it the fuzz
  # targets run with their own driver only (scripts/test.sh says so).
  need -o "clang's libFuzzer runtime" apt:libclang-rt-14-dev links clang -DFUZZ -fsanitize=fuzzer
}
sec_clang-asan-ubsan() {
  cmake_make; clang_c; native_suite
  need "clang's ASan/UBSan runtime" apt:libclang-rt-14-dev links clang -fsanitize=address,undefined
}
sec_clang-tsan() {
  cmake_make; clang_c; native_suite
  need "clang's TSan runtime" apt:libclang-rt-14-dev links clang -fsanitize=thread
}
sec_arm64-qemu() {
  cmake_make
  need aarch64-linux-gnu-gcc apt:gcc-aarch64-linux-gnu,libc6-dev-arm64-cross links aarch64-linux-gnu-gcc
  need qemu-aarch64 apt:qemu-user has qemu-aarch64
  need groff apt:groff-base has groff
}
# install, rust: gcc-release's build as well (scripts/test.sh asks for both).
sec_install() {
  need pkg-config apt:pkg-config has pkg-config
  need "cc (C compiler)" apt:gcc,libc6-dev links cc
}
# The ABI gate (scripts/abi.sh): abidw and abidiff, a gcc build.
sec_abi() {
  cmake_make; gcc_c
  need "abidw, abidiff" apt:abigail-tools has abidiff
  need python3 apt:python3 has python3
}
sec_deb() {
  need dh apt:debhelper has dh
  need dpkg-buildpackage apt:dpkg-dev has dpkg-buildpackage
  need lintian apt:lintian has lintian
  need fakeroot apt:fakeroot has fakeroot
  need build-essential apt:build-essential dpkg -s build-essential
  need cmake apt:cmake has cmake
  need git apt:git has git
}
sec_python() {
  need python3 apt:python3 has python3
  need "python3's venv and ensurepip" apt:python3-venv py_has "venv, ensurepip"
  need "Python.h for $(command -v python3 || echo python3)" apt:python3-dev py_headers
  need unzip apt:unzip has unzip
  need "gcc (C compiler and libc headers)" apt:gcc,libc6-dev links gcc
}
sec_rust() {
  need cargo "manual:install Rust with rustup, https://rustup.rs" has cargo
  need "cargo clippy" rustup:clippy cargo_has clippy
  need "cargo fmt" rustup:rustfmt cargo_has fmt
  need pkg-config apt:pkg-config has pkg-config
  need "cc (C compiler)" apt:gcc,libc6-dev links cc
}
# README's and the docs' code blocks (scripts/snippets.py): C against
# gcc-release's build and its install, Python with numpy, Rust with cargo.
sec_snippets() {
  cmake_make; gcc_c
  need pkg-config apt:pkg-config has pkg-config
  need "python3 (3.11+, tomllib)" apt:python3 py_has tomllib
  need -o "numpy (the Python blocks run; without, compiled only)" apt:python3-numpy py_has numpy
  need -o "Python.h (the Python blocks' extension)" apt:python3-dev py_headers
  need -o "cargo (the Rust blocks built and run)" "manual:install Rust with rustup, https://rustup.rs" has cargo
}
# scripts/release.sh: the packages' tools, and gcc-release's to build and
# test the source tarball from scratch.
sec_release() {
  cmake_make; gcc_c; native_suite
  sec_deb; sec_python
  need cargo "manual:install Rust with rustup, https://rustup.rs" has cargo
}

sections() { declare -F | sed -n 's/^declare -f sec_//p' | paste -sd' '; }
check=""
[ "${1:-}" = --check ] && { check=1; shift; }
[ $# -gt 0 ] || { echo "usage: $0 [--check] SECTION... (sections: $(sections))" >&2; exit 2; }
for s in "$@"; do
  declare -F "sec_$s" >/dev/null ||
    { echo "deps.sh: no section '$s' (sections: $(sections))" >&2; exit 2; }
done
survey() { missing=() optional=() apt=() rustup=() pip=(); for s in "$@"; do "sec_$s"; done; }
report() {
  local m
  for m in "${missing[@]}"; do echo "deps.sh: missing: $m" >&2; done
  for m in "${optional[@]}"; do echo "deps.sh: missing (optional): $m" >&2; done
  [ ${#missing[@]} -eq 0 ]
}
survey "$@"
if [ -n "$check" ]; then report; exit; fi

sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
if [ ${#apt[@]} -ne 0 ]; then
  mapfile -t apt < <(printf '%s\n' "${apt[@]}" | sort -u)
  echo "deps.sh: installing ${apt[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # (waits for another apt-get holding the lock rather than failing)
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${apt[@]}" >/dev/null
fi
if [ ${#rustup[@]} -ne 0 ] && has rustup; then
  mapfile -t rustup < <(printf '%s\n' "${rustup[@]}" | sort -u)
  echo "deps.sh: rustup component add ${rustup[*]}" >&2
  (cd rust && rustup component add "${rustup[@]}")
fi
if [ ${#pip[@]} -ne 0 ]; then
  # For the python3 on PATH (which may be a pyenv one, not Debian's); a
  # Debian python3 refuses pip (externally managed): then its package.
  echo "deps.sh: installing ${pip[*]} for $(command -v python3)" >&2
  python3 -m pip install --quiet --disable-pip-version-check "${pip[@]}" ||
    $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
      "${pip[@]/#/python3-}" >/dev/null || true
fi
survey "$@"
report
