#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Run Debian's perf 7.x, the tool `pageclear bench mem` answers like, on a
# Debian 12 machine without touching its system: trixie-backports'
# linux-perf and the trixie libraries it needs (glibc 2.41 among them) are
# unpacked under a private directory with a private apt state, and perf
# runs through that glibc's loader. Used to record tests/data/perf/ and
# by scripts/perf_crosscheck.py; see docs/perf.md.
#   scripts/perf7.sh bench mem mmap -p 2MB -f demand -s 1GB -l 5
#   scripts/perf7.sh --version
set -euo pipefail
dir=${PAGECLEAR_PERF7_DIR:-/var/tmp/pageclear-perf7}
root=$dir/root
lib=$root/usr/lib/x86_64-linux-gnu
# What Debian 12 lacks for perf 7.x: its own dependencies and theirs,
# found by running it until the loader asked for nothing more.
libs=(libc6 libgcc-s1 libstdc++6 libdebuginfod1t64 libdw1t64 libelf1t64 liblzma5 libnuma1
      libopencsd1 libpython3.13 libexpat1 libffi8 libslang2 libtraceevent1 libzstd1 zlib1g
      libbz2-1.0 libcapstone5 libssl3t64 libcurl3t64-gnutls libnghttp2-14 libnghttp3-9
      libngtcp2-16 libngtcp2-crypto-gnutls8 libldap2 libsasl2-2 libsasl2-modules-db libpsl5t64
      libssh2-1t64 librtmp1 libgnutls30t64 libnettle8t64 libhogweed6t64 libidn2-0 libunistring5
      libtasn1-6 libp11-kit0 libbrotli1 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0
      libcom-err2 libkeyutils1 libgmp10 libdb5.3t64)
if [[ ! -x $root/usr/bin/perf || ! -x $lib/ld-linux-x86-64.so.2 ]]; then
  [[ $(uname -m) == x86_64 ]] || { echo "perf7.sh: x86-64 only" >&2; exit 1; }
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/debs" "$root"
  uri=$( (grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null || true) | head -n1 | tr -d ' ')
  [[ -n $uri ]] || { echo "perf7.sh: no Debian archive in the apt sources" >&2; exit 1; }
  key=/usr/share/keyrings/debian-archive-keyring.gpg
  printf 'deb [signed-by=%s] %s trixie main\ndeb [signed-by=%s] %s trixie-backports main\n' \
    "$key" "${uri%/}" "$key" "${uri%/}" > "$dir/apt/sources.list"
  o=(-o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$dir/apt/lists" -o Dir::Cache::Archives="$dir/apt/archives"
     -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
  apt-get -qq "${o[@]}" update >&2
  ver=$(apt-cache "${o[@]}" madison linux-perf | awk '$3 ~ /^7\./ {print $3; exit}')
  [[ -n $ver ]] || { echo "perf7.sh: no linux-perf 7.x in trixie-backports" >&2; exit 1; }
  (cd "$dir/debs" && apt-get -qq "${o[@]}" download "linux-perf=$ver" "${libs[@]}" >&2)
  for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
  echo "$ver" > "$dir/version"
fi
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$root/usr/bin/perf" "$@"
