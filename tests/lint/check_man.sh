#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The manual pages: every page renders without a single groff or man
# warning, every alias resolves, and every PC_API function in the public
# header has a section-3 page (its own or an alias) whose SYNOPSIS declares
# it, so a new function cannot go undocumented.
# Usage: tests/lint/check_man.sh MAN_BUILD_DIR include/pageclear.h
set -euo pipefail
dir="$1" header="$2"
command -v groff >/dev/null || { echo "check_man: groff missing (apt-get install groff-base)" >&2; exit 1; }
export LC_ALL=C.UTF-8 MANWIDTH=80
fail=0
bad() { echo "check_man: $*" >&2; fail=1; }

pages=$(find "$dir"/man1 "$dir"/man3 "$dir"/man7 "$dir"/man8 -type f -name '*.[1378]' | sort)
[ -n "$pages" ] || { echo "check_man: no pages under $dir" >&2; exit 1; }
for p in $pages; do
  w="$(groff -mandoc -ww -z -Tutf8 "$p" 2>&1)" || bad "$p: groff failed"
  [ -z "$w" ] || bad "$p: groff warnings:"$'\n'"$w"
  if command -v man >/dev/null; then
    w="$(man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)" || bad "$p: man failed"
    [ -z "$w" ] || bad "$p: man warnings:"$'\n'"$w"
  fi
  # The NAME line must parse for whatis/apropos (lintian checks it too).
  if command -v lexgrog >/dev/null && ! lexgrog "$p" >/dev/null; then
    bad "$p: lexgrog cannot parse its NAME section"
  fi
done
for l in $(find "$dir"/man3 -type l); do
  [ -f "$l" ] || bad "$l: alias points nowhere"
done

# Every exported function: PC_API <type> [*]name(
funcs=$(grep -oE '^PC_API [^(]*\(' "$header" | sed -E 's/\($//; s/.*[ *]//' | sort -u)
[ "$(echo "$funcs" | wc -w)" -ge 30 ] || bad "found only $(echo "$funcs" | wc -w) PC_API functions in $header"
for f in $funcs; do
  page="$dir/man3/$f.3"
  if [ ! -f "$page" ]; then
    bad "$f: no section-3 page (add it to a page's NAME line and SYNOPSIS)"
    continue
  fi
  synopsis="$(groff -mandoc -Tascii -P-cbou "$page" 2>/dev/null |
              sed -n '/^SYNOPSIS/,/^DESCRIPTION/p')"
  grep -qE "[ *]$f\(" <<<"$synopsis" || bad "$f: $page does not declare it in its SYNOPSIS"
done
[ "$fail" -eq 0 ] || exit 1
echo "check_man: $(echo "$pages" | wc -w) pages render cleanly; $(echo "$funcs" | wc -w) functions documented"
