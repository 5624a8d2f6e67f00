#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Check an installed pageclear the ways a user consumes it:
#   1. pkg-config, shared and static;
#   2. CMake find_package(pageclear CONFIG), pageclear::pageclear (shared)
#      and pageclear::pageclear_static, plus the version rule;
#   3. the man pages, the preload with its copies by CPU (x86-64), and the
#      daemon's program run by the command;
#   4. the programs in examples/, built with find_package and run.
# Everything is built against a copy of the prefix moved elsewhere, so a
# path written into the install at install time shows up as a failure.
# Usage: scripts/check_install.sh PREFIX
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 PREFIX (an installed pageclear)" >&2; exit 2; }
command -v pkg-config >/dev/null || { echo "check_install: pkg-config missing" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/moved-prefix"
cp -a "$1" "$prefix"
step() { echo "--- check_install: $*"; }

cat > "$tmp/use.c" <<'C'
#include <pageclear.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    size_t n = 3 << 20;
    unsigned char *p = malloc(n + 2);
    if (p == NULL) return 4;
    for (size_t i = 0; i < n + 2; i++) p[i] = 0xAA;
    if (pc_clear(p + 1, n) != 0) return 1;
    for (size_t i = 1; i <= n; i++) if (p[i]) return 2;
    if (p[0] != 0xAA || p[n + 1] != 0xAA) return 3;
    printf("installed pageclear %s clears with %s\n", pc_version(), pc_selected(n));
    free(p);
    return 0;
}
C

# The program must load libpageclear.so.MAJOR from the moved prefix (shared)
# or not at all (static).
check_links() {
  local bin="$1" want="$2" got
  got="$(ldd "$bin" | awk '$1 ~ /^libpageclear\.so/ {print $3}')"
  if [ "$want" = static ]; then
    [ -z "$got" ] || { echo "check_install: $bin loads $got, expected static" >&2; exit 1; }
  else
    case "$got" in
      "$prefix"/*) ;;
      *) echo "check_install: $bin loads '${got:-nothing}', expected $prefix/..." >&2; exit 1 ;;
    esac
  fi
}

step "pkg-config (shared, static)"
pcdir="$(dirname "$(find "$prefix" -name pageclear.pc -path '*/pkgconfig/*' | head -n1)")"
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir="$(pkg-config --variable=libdir pageclear)"
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror "$tmp/use.c" -o "$tmp/use_shared" $(pkg-config --cflags --libs pageclear) -Wl,-rpath,"$libdir"
"$tmp/use_shared"
check_links "$tmp/use_shared" shared
# shellcheck disable=SC2046
cc -Wall -Wextra -Werror "$tmp/use.c" -o "$tmp/use_static" $(pkg-config --cflags pageclear) "$libdir/libpageclear.a" $(pkg-config --static --libs-only-l pageclear | sed 's/-lpageclear//')
"$tmp/use_static"
check_links "$tmp/use_static" static

step "CMake find_package (pageclear::pageclear, pageclear::pageclear_static)"
mkdir -p "$tmp/cmake-use"
cp "$tmp/use.c" "$tmp/cmake-use/"
cat > "$tmp/cmake-use/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(use_pageclear C)
find_package(pageclear 1.0 CONFIG REQUIRED)
add_executable(use_shared use.c)
target_compile_options(use_shared PRIVATE -Wall -Wextra -Werror)
target_link_libraries(use_shared PRIVATE pageclear::pageclear)
add_executable(use_static use.c)
target_compile_options(use_static PRIVATE -Wall -Wextra -Werror)
target_link_libraries(use_static PRIVATE pageclear::pageclear_static)
CM
cmake -S "$tmp/cmake-use" -B "$tmp/cmake-use/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cmake-use/build" >/dev/null
"$tmp/cmake-use/build/use_shared"
check_links "$tmp/cmake-use/build/use_shared" shared
"$tmp/cmake-use/build/use_static"
check_links "$tmp/cmake-use/build/use_static" static

step "CMake version rule (SameMajorVersion, docs/abi.md)"
cfgdir="$(dirname "$(find "$prefix" -name pageclearConfigVersion.cmake | head -n1)")"
version="$(pkg-config --modversion pageclear)"
IFS=. read -r major minor _ <<<"$version"
[ "$major" -ge 1 ] || { echo "check_install: version $version: the rule below is 1.0's" >&2; exit 1; }
cat > "$tmp/version.cmake" <<'CM'
string(REPLACE "." ";" v "${PACKAGE_FIND_VERSION}")
list(GET v 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET v 1 PACKAGE_FIND_VERSION_MINOR)
list(GET v 2 PACKAGE_FIND_VERSION_PATCH)
set(PACKAGE_FIND_VERSION_COUNT 3)
include(${F})
message("${PACKAGE_VERSION_COMPATIBLE}")
CM
compatible() { # requested version -> TRUE/FALSE from the installed version file
  cmake -DPACKAGE_FIND_VERSION="$1" -DF="$cfgdir/pageclearConfigVersion.cmake" -P "$tmp/version.cmake" 2>&1
}
reqs=("$major.$minor.0:TRUE" "$major.0.0:TRUE" "$major.$((minor + 1)).0:FALSE"
      "$((major + 1)).0.0:FALSE" "$((major - 1)).$minor.0:FALSE")
for req in "${reqs[@]}"; do
  got="$(compatible "${req%%:*}")"
  [ "$got" = "${req##*:}" ] || { echo "check_install: find_package(pageclear ${req%%:*}) against $version: $got, expected ${req##*:}" >&2; exit 1; }
done
# The rule itself, not just this version: the same file made for a later
# minor release (MAJOR.(MINOR+3)) meets a request for this one.
sed "s/^set(PACKAGE_VERSION \"$version\")/set(PACKAGE_VERSION \"$major.$((minor + 3)).0\")/" \
  "$cfgdir/pageclearConfigVersion.cmake" > "$tmp/later.cmake"
grep -q "^set(PACKAGE_VERSION \"$major.$((minor + 3)).0\")" "$tmp/later.cmake" ||
  { echo "check_install: no PACKAGE_VERSION line in pageclearConfigVersion.cmake" >&2; exit 1; }
got="$(cmake -DPACKAGE_FIND_VERSION="$version" -DF="$tmp/later.cmake" -P "$tmp/version.cmake" 2>&1)"
[ "$got" = TRUE ] || { echo "check_install: a request for $version against $major.$((minor + 3)).0: $got, expected TRUE" >&2; exit 1; }

step "man pages installed, aliases resolving"
# (compressed, as a Debian package installs them, or not)
for name in pageclear.1 libpageclear.7 pc_clear.3 pc_clear_cold.3 pc_pool_alloc.3; do
  f="$prefix/share/man/man${name##*.}/$name"
  [ -f "$f" ] || [ -f "$f.gz" ] || { echo "check_install: $f missing or dangling" >&2; exit 1; }
done
for f in "$prefix"/share/man/man3/*.3*; do
  [ -f "$f" ] || { echo "check_install: $f dangling" >&2; exit 1; }
done

step "the preload's filter, the preload and, on x86-64, its copies for the loader to choose by CPU"
filter=$(find "$prefix" -path '*/pageclear/libpageclear-preload.so' | head -n 1)
[ -n "$filter" ] || { echo "check_install: no libpageclear-preload.so under $prefix" >&2; exit 1; }
pre="$(dirname "$filter")/libpageclear-preload-impl.so"
[ -f "$pre" ] || { echo "check_install: no $pre beside the filter" >&2; exit 1; }
# Installed and moved, the filter still finds the preload beside it
# (RUNPATH $ORIGIN), and the preload the library (RUNPATH relative to
# $ORIGIN, preload/CMakeLists.txt), with no LD_LIBRARY_PATH: the
# program's maps hold both, from the moved prefix.
maps=$(env -u LD_LIBRARY_PATH LD_PRELOAD="$filter" cat /proc/self/maps)
for want in 'pageclear/.*libpageclear-preload-impl\.so' 'libpageclear\.so\.[0-9.]*'; do
  echo "$maps" | grep -q " $prefix/.*$want\$" ||
    { echo "check_install: the installed filter did not load $want from $prefix" >&2; exit 1; }
done

step "pageclear exec from the moved prefix, without LD_LIBRARY_PATH"
# The command finds the preload installed beside it, not the path it was
# configured with (the prefix has moved), and the exit status is CMD's.
exe="$prefix/bin/pageclear"
rc=0; env -u LD_LIBRARY_PATH -u PAGECLEAR_PRELOAD_LIB "$exe" exec -- sh -c 'exit 3' || rc=$?
[ "$rc" -eq 3 ] || { echo "check_install: pageclear exec -- sh -c 'exit 3' exited $rc, want 3" >&2; exit 1; }
maps=$(env -u LD_LIBRARY_PATH -u PAGECLEAR_PRELOAD_LIB "$exe" exec -- cat /proc/self/maps)
echo "$maps" | grep -q " $prefix/.*pageclear/.*libpageclear-preload-impl\.so\$" ||
  { echo "check_install: pageclear exec did not load the moved prefix's preload" >&2; exit 1; }
if [ "$(uname -m)" = x86_64 ]; then
  hw="$(dirname "$pre")/glibc-hwcaps"
  for v in 3 4; do
    f="$hw/x86-64-v$v/libpageclear-preload-impl.so"
    [ -f "$f" ] && [ ! -L "$f" ] && ! cmp -s "$f" "$pre" ||
      { echo "check_install: $f: missing, a link, or the default preload" >&2; exit 1; }
  done
fi

step "pageclear serve runs pageclear-serve from the moved prefix"
# The daemon is a program of its own, installed beside the command; the
# command finds the moved one, not the path it was configured with.
[ -x "$prefix/bin/pageclear-serve" ] || { echo "check_install: no $prefix/bin/pageclear-serve" >&2; exit 1; }
printf 'quota = 1G\n' > "$tmp/serve.conf"
out=$(env -u LD_LIBRARY_PATH "$exe" serve --check-config --config "$tmp/serve.conf") ||
  { echo "check_install: pageclear serve --check-config failed" >&2; exit 1; }
grep -q "^quota  *1GiB per uid" <<<"$out" && grep -qx "program  *$prefix/bin/pageclear-serve" <<<"$out" ||
  { echo "check_install: pageclear serve --check-config said: $out" >&2; exit 1; }
if ldd "$prefix/bin/pageclear-serve" | grep -q libpageclear; then
  echo "check_install: pageclear-serve loads libpageclear: it links the library statically" >&2; exit 1
fi

if [ -f "$src/examples/CMakeLists.txt" ]; then
  step "examples/, built with find_package and run"
  cmake -S "$src/examples" -B "$tmp/examples" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$tmp/examples" >/dev/null
  (cd "$tmp/examples" && ctest --output-on-failure)
fi
echo "check_install: all passed"
