#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The ABI gate (scripts/abi_gate.py, abi/abidiff.abignore) on a small
# library shaped like libpageclear's ABI (tests/abi/gate/fixture.h): built
# as "1.0" and recorded, then rebuilt with one change at a time, each of
# which must pass or fail the gate as docs/abi.md says. Runs in a few
# seconds; exit 77 (skipped) without abigail-tools.
# Usage: tests/abi/gate_selftest.sh SOURCE_DIR [CC]
set -uo pipefail
src="$1" cc="${2:-cc}"
for t in abidw abidiff python3 "$cc"; do
  command -v "$t" >/dev/null || { echo "gate_selftest: $t not found (scripts/deps.sh abi)"; exit 77; }
done
gate="$src/scripts/abi_gate.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fns="fx_ctx_new; fx_run; fx_get; fx_plain; fx_old;"
printf 'PAGECLEAR_1.0 { global: %s local: *; };\n' "$fns" > "$tmp/1.0.map"
printf 'PAGECLEAR_1.0 { global: %s local: *; };\nPAGECLEAR_1.1 { global: fx_new; } PAGECLEAR_1.0;\n' \
  "$fns" > "$tmp/1.1.map"
printf 'PAGECLEAR_1.0 { global: %s fx_new; local: *; };\n' "$fns" > "$tmp/1.0-new.map"

# build NAME MAP SONAME -DCHANGE...
build() {
  local name="$1" map="$2" soname="$3"; shift 3
  "$cc" -g -O2 -shared -fPIC -Wl,-soname,"$soname" -Wl,--version-script="$tmp/$map" \
    "$@" "$src/tests/abi/gate/fixture.c" -o "$tmp/$name.so" 2>"$tmp/cc.log" ||
    { cat "$tmp/cc.log"; echo "gate_selftest: cannot build $name"; exit 1; }
}
build base 1.0.map libfx.so.1
python3 "$gate" dump "$tmp/base.so" "$src/tests/abi/gate" "$tmp/base.abi" || { echo "gate_selftest: abidw failed"; exit 1; }

fail=0 n=0
# expect pass|fail WHAT MAP SONAME -DCHANGE...
expect() {
  local want="$1" what="$2"; shift 2
  build variant "$@"
  local got=pass
  python3 "$gate" check "$tmp/base.abi" "$tmp/variant.so" "$src/tests/abi/gate" \
    >"$tmp/gate.log" 2>&1 || got=fail
  n=$((n + 1))
  if [ "$got" = "$want" ]; then
    printf '  %-4s as it must: %s\n' "$got" "$what"
  else
    printf '  %-4s, must %s: %s\n' "$got" "$want" "$what"
    sed 's/^/      /' "$tmp/gate.log"
    fail=1
  fi
}
echo "gate_selftest: each change against the recorded 1.0 fixture"
expect pass "nothing changed" 1.0.map libfx.so.1
expect pass "a member appended to an input struct" 1.0.map libfx.so.1 -DAPPEND_IN
expect pass "a member appended to an output struct" 1.0.map libfx.so.1 -DAPPEND_OUT
expect pass "an enum constant added at the end" 1.0.map libfx.so.1 -DADD_CONSTANT
expect pass "a function added at a new version node" 1.1.map libfx.so.1 -DADD_FUNCTION
expect pass "an opaque struct's private layout changed" 1.0.map libfx.so.1 -DPRIVATE_LAYOUT
expect pass "all of these at once" 1.1.map libfx.so.1 -DAPPEND_IN -DAPPEND_OUT \
  -DADD_CONSTANT -DADD_FUNCTION
expect fail "a function removed" 1.0.map libfx.so.1 -DREMOVE_FUNCTION
expect fail "a function added at 1.0's node" 1.0-new.map libfx.so.1 -DADD_FUNCTION_TO_1_0
expect fail "a parameter's type changed" 1.0.map libfx.so.1 -DPARAM_TYPE
expect fail "a parameter added (with a member appended)" 1.0.map libfx.so.1 -DPARAM_ADDED \
  -DAPPEND_OUT
expect fail "a return type changed" 1.0.map libfx.so.1 -DRETURN_TYPE
expect fail "a member's type changed, int to long, size kept by padding" 1.0.map libfx.so.1 \
  -DFIELD_TYPE
expect fail "a member's type changed, with a member appended" 1.0.map libfx.so.1 -DFIELD_TYPE \
  -DAPPEND_IN
expect fail "members reordered" 1.0.map libfx.so.1 -DREORDER
expect fail "members reordered, with a member appended" 1.0.map libfx.so.1 -DREORDER -DAPPEND_IN
expect fail "an enum constant renumbered" 1.0.map libfx.so.1 -DRENUMBER
expect fail "an enum constant renumbered, its struct grown" 1.0.map libfx.so.1 -DRENUMBER \
  -DAPPEND_OUT
expect fail "a callback's parameter changed, its struct grown" 1.0.map libfx.so.1 \
  -DCALLBACK_TYPE -DAPPEND_IN
expect fail "a member added in 1.0's tail padding" 1.0.map libfx.so.1 -DINSERT_IN_PADDING
expect fail "a member added in 1.0's tail padding, and one past it" 1.0.map libfx.so.1 \
  -DINSERT_IN_PADDING -DAPPEND_IN
expect fail "a member inserted before others" 1.0.map libfx.so.1 -DINSERT_MIDDLE
expect fail "the last member removed" 1.0.map libfx.so.1 -DDROP_LAST
expect fail "the SONAME changed" 1.0.map libfx.so.2
if [ "$fail" -ne 0 ]; then
  echo "gate_selftest: the gate judged a change wrongly (above)"
  exit 1
fi
echo "gate_selftest: all $n changes judged as docs/abi.md says"
