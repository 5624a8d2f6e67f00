#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# `pageclear tune` and `pageclear check` end to end (--quick): tune writes
# a profile the library then takes (in force, no warning), to -o FILE, to
# the user's default place, or to stdout; with a profile in force it
# measures without it; check judges each library function in its
# contract's states and nowhere else; JSON against the schema.
# Usage: cli_tune.sh PAGECLEAR SOURCE_DIR
set -u
bin="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0
step() { echo "--- $*"; }
bad() { echo "FAIL: $*"; fail=1; }
check="python3 $src/tests/check_json.py $src/docs/results.schema.json"
# No profile of the machine's or the user's may leak in.
unset PAGECLEAR_PROFILE PAGECLEAR_IMPL PAGECLEAR_VECTOR_MAX PAGECLEAR_NT_THRESHOLD \
      PAGECLEAR_COLD_NT_THRESHOLD PAGECLEAR_PARALLEL_NT_THRESHOLD XDG_CONFIG_HOME
export HOME="$tmp/home"

step "tune --quick --json -o FILE"
"$bin" tune --quick --json -o "$tmp/prof" > "$tmp/tune.json" 2> "$tmp/tune.err" ||
    bad "tune exit $?"
# A host with streaming stores has thresholds to measure; one without
# (the portable build) has none, and says so with no records.
if "$bin" list | grep -v "not supported" | grep -q " nontemporal "; then
    $check "$tmp/tune.json" --expect tune || bad "tune JSON"
else
    python3 -c "import json, sys; assert json.load(open(sys.argv[1]))['records'] == []" "$tmp/tune.json" ||
        bad "tune JSON without streaming stores"
fi
grep -q "^format = 1$" "$tmp/prof" || bad "no profile written"
PAGECLEAR_PROFILE="$tmp/prof" "$bin" info > "$tmp/info.txt" 2> "$tmp/info.err"
grep -q "^profile: .*/prof (in force)" "$tmp/info.txt" || bad "tune's profile is not in force"
[ -s "$tmp/info.err" ] && bad "tune's own profile warns: $(cat "$tmp/info.err")"
# Every threshold tune chose is the one info reports.
for key in vector_max nt_threshold cold_nt_threshold parallel_nt_threshold; do
    grep -q "^$key = " "$tmp/prof" || bad "profile lacks $key"
done

step "tune --quick to the default place, then with that profile in force"
"$bin" tune --quick > "$tmp/tune.txt" 2>&1 || bad "tune (default place) exit $?"
grep -q "^chose vector_max = " "$tmp/tune.txt" || bad "tune did not say what it chose"
grep -q "wrote $HOME/.config/pageclear/profile" "$tmp/tune.txt" || bad "tune did not name the file"
"$bin" info | grep -q "^profile: .*home/.config/pageclear/profile (in force)" ||
    bad "the default profile is not in force"
"$bin" tune --quick -o - > "$tmp/prof2" 2> "$tmp/tune2.err" || bad "tune -o - exit $?"
grep -q "set aside" "$tmp/tune2.err" || bad "tune measured with a profile in force"
grep -q "^format = 1$" "$tmp/prof2" || bad "tune -o - printed no profile"
PAGECLEAR_PROFILE="$tmp/prof2" "$bin" info 2>&1 | grep -q "(in force)" || bad "-o - profile refused"

step "check --quick --json"
"$bin" check --quick --json > "$tmp/check.json" || bad "check exit $?"
$check "$tmp/check.json" --expect check || bad "check JSON"
python3 - "$tmp/check.json" <<'PY' || bad "check verdicts"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
judged = {("pc_clear", "use"), ("pc_clear", "warm"), ("pc_clear_batched", "use"),
          ("pc_clear_batched", "warm"), ("pc_clear_cold", "cold")}
sizes = {r["size"] for r in recs}
assert len(sizes) == 5, sizes
for r in recs:
    want = (r["function"], r["cache"]) in judged
    assert (r["verdict"] is not None) == want, r
    if r["verdict"] is not None and r["verdict"].startswith("short"):
        assert "faster" in r["verdict"], r
# every state, and glibc and every runnable primitive beside the library
assert {r["cache"] for r in recs} == {"warm", "cold", "use"}
assert "glibc" in {r["function"] for r in recs}
PY

step "check --quick tables"
PAGECLEAR_PROFILE="$tmp/prof" "$bin" check --quick > "$tmp/check.txt" || bad "check exit $?"
for h in "## use" "## cold" "## warm" "# profile: .*prof: in force" "# memset: " "short verdict"; do
    grep -q -- "$h" "$tmp/check.txt" || bad "check output lacks '$h'"
done

[ $fail -eq 0 ] && echo "all tune and check checks passed"
exit $fail
