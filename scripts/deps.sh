#!/usr/bin/env bash
# Install what building and testing pageclear needs on a fresh Debian 12
# machine: compilers, cmake, the arm64 cross toolchain and qemu-user, and
# clang's runtime for libFuzzer. Installs only what is missing.
# Usage: scripts/deps.sh [run|test]   (run: just what the main job needs)
set -euo pipefail
want=(cmake gcc make)
[ "${1:-test}" = test ] && want+=(clang qemu-aarch64 aarch64-linux-gnu-gcc pkg-config groff)
missing=()
for tool in "${want[@]}"; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
pkgs=()
for tool in "${missing[@]}"; do
  case "$tool" in
    qemu-aarch64) pkgs+=(qemu-user) ;;
    aarch64-linux-gnu-gcc) pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) ;;
    clang) pkgs+=(clang libclang-rt-14-dev) ;;
    gcc) pkgs+=(gcc libc6-dev) ;;
    groff) pkgs+=(groff-base) ;; # renders the man pages in the tests
    *) pkgs+=("$tool") ;;
  esac
done
# libFuzzer's runtime ships apart from clang itself.
if [ "${1:-test}" = test ] && command -v clang >/dev/null 2>&1 &&
   ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  pkgs+=(libclang-rt-14-dev)
fi
if [ ${#pkgs[@]} -ne 0 ]; then
  echo "scripts/deps.sh: installing ${pkgs[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi
# `pageclear --plot` runs scripts/plot.py with the python3 on PATH (which
# may be a pyenv one, not Debian's), so matplotlib goes where that finds it.
if command -v python3 >/dev/null 2>&1 && ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "scripts/deps.sh: installing matplotlib for $(command -v python3)" >&2
  python3 -m pip install --quiet --disable-pip-version-check matplotlib ||
    { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo;
      $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-matplotlib >/dev/null; }
fi
