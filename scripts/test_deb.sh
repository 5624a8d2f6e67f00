#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Build the Debian packages (libpageclear1, libpageclear-dev, pageclear) the
# way a packager would, `dpkg-buildpackage -us -uc -b`, out of a copy of the
# tree (it writes into the parent directory), then:
#   - the package version must be the CMake project version;
#   - the runtime package is named after the SONAME's major version;
#   - debian/libpageclear1.symbols must list every PC_API function of the
#     header at its symbol version (the build itself fails on any
#     difference from the exports);
#   - lintian: no errors (its full output is printed);
#   - the .debs hold what they should, and the unpacked packages pass
#     scripts/check_install.sh (pkg-config, CMake, man pages, examples).
# Installs nothing (scripts/deps.sh deb does). The tests run
# in scripts/test.sh's own configurations, so the package build skips them
# (nocheck).
set -euo pipefail
cd "$(dirname "$0")/.."
src="$(pwd)"
fail() { echo "test_deb: $*" >&2; exit 1; }

scripts/deps.sh --check deb ||
  fail "tools missing (above): scripts/deps.sh deb installs them"

version="$(cat VERSION)"
deb_version="$(dpkg-parsechangelog -l debian/changelog -S Version)"
[ -n "$version" ] && [ "$deb_version" = "$version" ] ||
  fail "debian/changelog says $deb_version, VERSION says $version: add a changelog entry"

major="${version%%.*}"
lib="libpageclear$major"
symbols="debian/$lib.symbols"
[ -f "$symbols" ] && grep -qx "Package: $lib" debian/control ||
  fail "version $version: the runtime package must be $lib (SONAME libpageclear.so.$major), with $symbols"
head -n1 "$symbols" | grep -qx "libpageclear.so.$major $lib #MINVER#" ||
  fail "$symbols does not start with 'libpageclear.so.$major $lib #MINVER#'"
header_fns="$(grep -oE '^PC_API [^(]*\(' include/pageclear.h | sed -E 's/\($//; s/.*[ *]//' | sort -u)"
# name@PAGECLEAR_M.N for the functions; the version nodes are listed too.
symbol_vers="$(sed -n 's/^ \(pc_[a-z_0-9]*@PAGECLEAR_[0-9.]*\) .*/\1/p' "$symbols" | sort -u)"
symbol_fns="$(sed 's/@.*//' <<<"$symbol_vers" | sort -u)"
[ "$header_fns" = "$symbol_fns" ] ||
  fail "$symbols and include/pageclear.h differ:"$'\n'"$(diff <(echo "$header_fns") <(echo "$symbol_fns"))"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tree="$tmp/pageclear-$version"
mkdir "$tree"
# What git tracks or would track: no build directories, no stray output.
git ls-files -z --cached --others --exclude-standard |
  (while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
  tar --null -T - -cf - | tar -xf - -C "$tree"

echo "=== test_deb: dpkg-buildpackage -us -uc -b (nocheck)"
if ! (cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
      dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
  tail -n 60 "$tmp/build.log"
  fail "dpkg-buildpackage failed"
fi
arch="$(dpkg-architecture -qDEB_HOST_ARCH)"
ma="$(dpkg-architecture -qDEB_HOST_MULTIARCH)"
changes="$tmp/pageclear_${version}_${arch}.changes"
[ -f "$changes" ] || fail "no $changes"

# dpkg-gensymbols forgives a symbol missing in the version that introduces
# it (it was never released), so compare the exports, with their symbol
# versions, to the file here.
so="$tree/debian/$lib/usr/lib/$ma/libpageclear.so.$version"
exports="$(nm -D --defined-only "$so" | awk '$2 == "T" {sub("@@", "@", $3); print $3}' | sort -u)"
[ "$exports" = "$symbol_vers" ] ||
  fail "the library's exports and $symbols differ (< exported, > listed):"$'\n'"$(diff <(echo "$exports") <(echo "$symbol_vers"))"

echo "=== test_deb: lintian"
lintian_out="$(lintian --fail-on error --display-info "$changes" 2>&1)" || {
  echo "$lintian_out"; fail "lintian reports errors"; }
echo "${lintian_out:-(no lintian tags)}"
echo "lintian: $(grep -c '^E:' <<<"$lintian_out" || true) errors," \
     "$(grep -c '^W:' <<<"$lintian_out" || true) warnings," \
     "$(grep -c '^[IPX]:' <<<"$lintian_out" || true) info/pedantic"

echo "=== test_deb: contents"
contains() { # deb path...
  local deb="$tmp/$1_${version}_$arch.deb" list
  shift
  [ -f "$deb" ] || fail "missing $deb"
  list="$(dpkg-deb -c "$deb" | awk '{print $6}')"
  for p in "$@"; do
    grep -qx "\./$p" <<<"$list" || fail "$(basename "$deb") lacks $p"
  done
}
contains "$lib" "usr/lib/$ma/libpageclear.so.$major" "usr/lib/$ma/libpageclear.so.$version"
contains libpageclear-dev usr/include/pageclear.h "usr/lib/$ma/libpageclear.so" \
  "usr/lib/$ma/libpageclear.a" "usr/lib/$ma/pkgconfig/pageclear.pc" \
  "usr/lib/$ma/cmake/pageclear/pageclearConfig.cmake" \
  "usr/lib/$ma/cmake/pageclear/pageclearConfigVersion.cmake" \
  "usr/lib/$ma/cmake/pageclear/pageclearTargets.cmake" \
  usr/share/man/man3/pc_clear.3.gz usr/share/man/man3/pc_clear_cold.3.gz \
  usr/share/man/man3/pc_pool_create.3.gz usr/share/man/man3/pc_serve_get.3.gz \
  usr/share/man/man7/libpageclear.7.gz
contains pageclear usr/bin/pageclear usr/bin/pageclear-serve usr/share/man/man1/pageclear.1.gz \
  usr/share/man/man8/pageclear-serve.8.gz \
  usr/share/pageclear/plot.py lib/systemd/system/pageclear-tune.service \
  lib/systemd/system/pageclear-serve.service usr/share/doc/pageclear/examples/serve.conf \
  $(cd data/profiles && printf 'usr/share/pageclear/profiles/%s ' *.profile)
# The units are installed, not enabled: no maintainer script starts them,
# and the postinst enables them only where an administrator had (debhelper's
# --no-enable guards it with debian-installed).
ctl="$tmp/pageclear-control"
dpkg-deb -e "$tmp/pageclear_${version}_$arch.deb" "$ctl"
if grep -qE "deb-systemd-invoke (start|restart|try-restart)" "$ctl"/*; then
  fail "a maintainer script of pageclear starts a unit:"$'\n'"$(grep -H deb-systemd-invoke "$ctl"/*)"
fi
if grep -q "deb-systemd-helper enable" "$ctl/postinst" &&
   ! grep -q "deb-systemd-helper debian-installed" "$ctl/postinst"; then
  fail "pageclear's postinst enables a unit"
fi
# No file in two packages, nothing of the library in the command's package.
dup="$(for d in "$tmp"/*.deb; do dpkg-deb -c "$d" | awk '$1 !~ /^d/ {print $6}'; done | sort | uniq -d)"
[ -z "$dup" ] || fail "files in more than one package: $dup"
echo "contents as expected"

echo "=== test_deb: the unpacked packages in use"
root="$tmp/root"
for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$root"; done
"$root/usr/bin/pageclear" version
"$root/usr/bin/pageclear" list >/dev/null
"$src/scripts/check_install.sh" "$root/usr"
# The unit as systemd reads it, pointed at the unpacked command.
if command -v systemd-analyze >/dev/null; then
  sed "s|^ExecStart=/usr/bin/pageclear|ExecStart=$root/usr/bin/pageclear|" \
    "$root/lib/systemd/system/pageclear-tune.service" > "$tmp/pageclear-tune.service"
  (cd "$tmp" && systemd-analyze verify --man=no ./pageclear-tune.service) ||
    fail "systemd-analyze verify: pageclear-tune.service"
  grep -q "^ExecStart=/usr/bin/pageclear-serve " "$root/lib/systemd/system/pageclear-serve.service" ||
    fail "pageclear-serve.service does not run /usr/bin/pageclear-serve"
  sed "s|^ExecStart=/usr/bin/pageclear-serve|ExecStart=$root/usr/bin/pageclear-serve|" \
    "$root/lib/systemd/system/pageclear-serve.service" > "$tmp/pageclear-serve.service"
  (cd "$tmp" && systemd-analyze verify --man=no ./pageclear-serve.service) ||
    fail "systemd-analyze verify: pageclear-serve.service"
fi
# The preload from its package, through the command's exec (the unpacked
# library found by LD_LIBRARY_PATH, as it is not installed).
LD_LIBRARY_PATH="$root/usr/lib/$ma" \
  PAGECLEAR_PRELOAD_LIB="$root/usr/lib/$ma/pageclear/libpageclear-preload.so" \
  "$root/usr/bin/pageclear" exec --min 0 --stats -- true 2>"$tmp/exec.err"
grep -q "pageclear-preload: pid" "$tmp/exec.err" || fail "the packaged preload did not run"
echo "test_deb: all passed"
