#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# `pageclear tune` and `pageclear check` end to end (--quick): tune writes
# a profile the library then takes (in force, no warning), to -o FILE, to
# the user's default place, or to stdout; with a profile in force it
# measures without it; info names where the profile in force comes from;
# --if-needed keeps a profile the library takes and measures where there
# is none or it is refused; check judges each library function in its
# contract's states and nowhere else; JSON against the schema. Tune
# measures preload_min (never below nt_threshold where the C library's
# memset takes rep stosb) and ends with one
# "glibc tunables:" line: a GLIBC_TUNABLES setting, appended to the
# user's, or none and why.
# Usage: cli_tune.sh PAGECLEAR SOURCE_DIR
set -u
bin="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0
step() { echo "--- $*"; }
bad() { echo "FAIL: $*"; fail=1; }
check="python3 $src/tests/helpers/check_json.py $src/docs/results.schema.json"
# No profile of the machine's or the user's may leak in.
unset PAGECLEAR_PROFILE PAGECLEAR_IMPL PAGECLEAR_VECTOR_MAX PAGECLEAR_NT_THRESHOLD \
      PAGECLEAR_COLD_NT_THRESHOLD PAGECLEAR_PARALLEL_NT_THRESHOLD XDG_CONFIG_HOME \
      PAGECLEAR_TUNE_CLEAN
export HOME="$tmp/home"
# Nor an installed shipped profile: the cases that want one make it.
export PAGECLEAR_PROFILES_DIR="$tmp/no-shipped"

step "tune --quick --json -o FILE"
"$bin" tune --quick -n 2 --json -o "$tmp/prof" > "$tmp/tune.json" 2> "$tmp/tune.err" ||
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
# A profile elsewhere than the user's path: how to use it, in full.
grep -qF "PAGECLEAR_PROFILE=$(realpath "$tmp/prof")" "$tmp/tune.err" ||
    bad "tune -o FILE did not say PAGECLEAR_PROFILE=FILE: $(cat "$tmp/tune.err")"
grep -qF "copy it to $HOME/.config/pageclear/profile" "$tmp/tune.err" ||
    bad "tune -o FILE did not name the default path"
PAGECLEAR_PROFILE="$tmp/prof" "$bin" info > "$tmp/info.txt" 2> "$tmp/info.err"
grep -q "^profile: .*/prof (in force, named by PAGECLEAR_PROFILE)$" "$tmp/info.txt" ||
    bad "tune's profile is not in force"
[ -s "$tmp/info.err" ] && bad "tune's own profile warns: $(cat "$tmp/info.err")"
# Every threshold tune chose is the one info reports.
for key in vector_max nt_threshold cold_nt_threshold parallel_nt_threshold preload_min; do
    grep -q "^$key = " "$tmp/prof" || bad "profile lacks $key"
done
# --json: the GLIBC_TUNABLES verdict on stderr, stdout the results alone
grep -q "^pageclear: tune: glibc tunables: " "$tmp/tune.err" ||
    bad "tune --json gave no GLIBC_TUNABLES line: $(cat "$tmp/tune.err")"

step "tune --quick to the default place, then with that profile in force"
"$bin" tune --quick -n 2 > "$tmp/tune.txt" 2>&1 || bad "tune (default place) exit $?"
grep -q "^chose vector_max = " "$tmp/tune.txt" || bad "tune did not say what it chose"
grep -q "wrote $HOME/.config/pageclear/profile .*the library reads it at start" "$tmp/tune.txt" ||
    bad "tune did not name the file"
grep -q "PAGECLEAR_PROFILE=" "$tmp/tune.txt" && bad "tune to the default path says to set PAGECLEAR_PROFILE"
# What tune says it chose is what it wrote: each threshold's "chose KEY =
# VALUE:" line and the summary against the profile (never "never" for a
# threshold the profile then sets to a size).
python3 - "$tmp/tune.txt" "$HOME/.config/pageclear/profile" <<'PY' || bad "tune reported other values than it wrote"
import re, sys
def size(s):
    if s == "never":
        return s
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)(?:iB|B)?", s)
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " "))
text = open(sys.argv[1]).read()
prof = dict(re.findall(r"^(\w+) = (\S+)$", open(sys.argv[2]).read(), re.M))
each = re.findall(r"^chose (\w+) = (\S+):", text, re.M)
summary = re.search(r"^chose (\w+ = \S+(?:, \w+ = \S+)*)$", text, re.M).group(1)
said = each + [tuple(kv.split(" = ")) for kv in summary.split(", ")]
# (a build with nothing to measure, portable-only, has no "chose KEY =
# VALUE:" line: only the summary)
assert said, text
for key, value in said:
    assert size(value) == size(prof[key]), (key, value, prof[key])
PY
# preload_min is measured from nt_threshold on, never below it where the
# C library's memset takes rep stosb.
python3 - "$tmp/tune.txt" "$HOME/.config/pageclear/profile" <<'PY' || bad "preload_min"
import re, sys
def size(s):
    if s == "never":
        return float("inf")
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)(?:iB|B)?", s)
    return int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " "))
text = open(sys.argv[1]).read()
prof = dict(re.findall(r"^(\w+) = (\S+)$", open(sys.argv[2]).read(), re.M))
# (or from the built-in preload_min, where its rule put that below
# nt_threshold: a C library whose memset never takes rep stosb)
if "from the built-in preload_min on" not in text:
    assert size(prof["preload_min"]) >= size(prof["nt_threshold"]), prof
# measured (its table) where pc_clear streams within the ladder, else
# set to nt_threshold and said so
assert re.search(r"^## preload_min: (glibc below, \S+ from it|not measured \(.+\); "
                 r"set to nt_threshold)", text, re.M), text
PY
# The GLIBC_TUNABLES suggestion: one line, its form; every figure behind
# it in the form "memset at SIZE STATE: X GB/s now, Y under the setting
# (+P%, noise ±N%)"; a tunable in the setting only with its "suggested".
python3 - "$tmp/tune.txt" <<'PY' || bad "tune's GLIBC_TUNABLES line"
import re, sys
text = open(sys.argv[1]).read()
lines = re.findall(r"^glibc tunables: .*$", text, re.M)
assert len(lines) == 1, lines
m = re.fullmatch(r"glibc tunables: (?:GLIBC_TUNABLES=(\S+)|none \(.+\))", lines[0])
assert m, lines[0]
for f in re.findall(r"^memset at .*$", text, re.M):
    assert re.fullmatch(r"memset at [0-9.]+[KMG]iB (warm|use): [0-9.]+ GB/s now, [0-9.]+ "
                        r"under the setting \([+-][0-9]+%, noise ±[0-9]+%\)", f), f
if m.group(1):
    for e in m.group(1).split(":"):
        name, value = re.fullmatch(r"(glibc\.cpu\.x86_(?:rep_stosb|memset_non_temporal)"
                                   r"_threshold)=([0-9]+)", e).groups()
        # its block: from "NAME: " to the next tunable or the verdict line
        block = re.search(r"^" + re.escape(name) + r": (.*?)^glibc", text, re.M | re.S)
        assert block and "\ngains: suggested\n" in block.group(1), (name, text)
PY
"$bin" info | grep -q "^profile: .*home/.config/pageclear/profile (in force, the user's)$" ||
    bad "the default profile is not in force"
# a GLIBC_TUNABLES of the user's own: kept, the suggestion appended to it
GLIBC_TUNABLES=glibc.malloc.perturb=0 "$bin" tune --quick -n 2 -o - > "$tmp/prof2" \
    2> "$tmp/tune2.err" || bad "tune -o - exit $?"
grep -q "^glibc tunables: \(none (\|GLIBC_TUNABLES=glibc.malloc.perturb=0:glibc.cpu.x86_\)" \
    "$tmp/tune2.err" || bad "tune dropped the user's GLIBC_TUNABLES: $(grep "^glibc tunables" "$tmp/tune2.err")"
grep -q "set aside" "$tmp/tune2.err" || bad "tune measured with a profile in force"
grep -q "^format = 1$" "$tmp/prof2" || bad "tune -o - printed no profile"
PAGECLEAR_PROFILE="$tmp/prof2" "$bin" info 2>&1 | grep -q "(in force, named by PAGECLEAR_PROFILE)" ||
    bad "-o - profile refused"

step "tune --if-needed: a profile made here is kept"
cp "$tmp/prof" "$tmp/kept"
"$bin" tune --if-needed -o "$tmp/kept" > "$tmp/if.out" 2> "$tmp/if.err" || bad "--if-needed exit $?"
grep -q "^kept $tmp/kept: the library takes it" "$tmp/if.out" || bad "--if-needed did not say it kept"
grep -q "^## " "$tmp/if.out" && bad "--if-needed measured a profile the library takes"
[ -s "$tmp/if.err" ] && bad "--if-needed (kept) said on stderr: $(cat "$tmp/if.err")"
cmp -s "$tmp/prof" "$tmp/kept" || bad "--if-needed changed a profile it kept"

step "info names a shipped profile in force"
# A HOME without a profile: the shipped one comes after the user's.
mkdir -p "$tmp/shipped" "$tmp/home2"
cp "$tmp/prof" "$tmp/shipped/this-host.profile"
HOME="$tmp/home2" PAGECLEAR_PROFILES_DIR="$tmp/shipped" "$bin" info > "$tmp/info.txt"
grep -q "^profile: *$tmp/shipped/this-host.profile (in force, shipped for this CPU)$" \
    "$tmp/info.txt" || bad "info does not name the shipped profile: $(grep ^profile "$tmp/info.txt")"

step "tune --if-needed: another CPU's profile is measured again and replaced"
# With the shipped profile in force: tune sets it aside and runs itself
# again, and says once why it measures.
sed 's/^cpu = .*/cpu = 9999.1.1/' "$tmp/prof" > "$tmp/other"
HOME="$tmp/home2" PAGECLEAR_PROFILES_DIR="$tmp/shipped" \
    "$bin" tune --if-needed --quick -n 2 -o "$tmp/other" > "$tmp/if.out" 2> "$tmp/if.err" ||
    bad "--if-needed (another CPU) exit $?"
[ "$(grep -c "is not taken here (line .*made on another CPU.*); measuring" "$tmp/if.err")" = 1 ] ||
    bad "--if-needed did not say once why it measured: $(cat "$tmp/if.err")"
grep -q "set aside" "$tmp/if.err" || bad "--if-needed measured with the shipped profile in force"
grep -q "^chose vector_max = " "$tmp/if.out" || bad "--if-needed did not measure"
grep -q "^cpu = 9999" "$tmp/other" && bad "--if-needed left another CPU's profile"
PAGECLEAR_PROFILE="$tmp/other" "$bin" info 2>&1 | grep -q "(in force, named by PAGECLEAR_PROFILE)" ||
    bad "the profile --if-needed wrote is not in force"
"$bin" tune --if-needed -o "$tmp/other" | grep -q "^kept " || bad "--if-needed's own profile not kept"

step "tune --if-needed: none there"
# Where it cannot write, it says why it would measure, then fails before
# measuring.
"$bin" tune --if-needed -o /proc/nonexistent/dir/profile > "$tmp/if.out" 2> "$tmp/if.err"
[ $? = 1 ] || bad "--if-needed (none, unwritable) exit status"
grep -q "/proc/nonexistent/dir/profile does not exist; measuring" "$tmp/if.err" ||
    bad "--if-needed (none) did not say why it measured: $(cat "$tmp/if.err")"
grep -q "cannot create the directory" "$tmp/if.err" || bad "--if-needed (none) wrote somewhere"

step "check --quick --json"
"$bin" check --quick -n 2 --json > "$tmp/check.json" || bad "check exit $?"
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

step "check --quick with no profile"
PAGECLEAR_PROFILE= "$bin" check --quick -n 1 > "$tmp/check0.txt" || bad "check exit $?"
grep -q "^# profile: no profile, the built-in thresholds" "$tmp/check0.txt" ||
    bad "check did not say 'no profile': $(grep '^# profile' "$tmp/check0.txt")"

step "check --quick tables"
PAGECLEAR_PROFILE="$tmp/prof" "$bin" check --quick -n 2 > "$tmp/check.txt" || bad "check exit $?"
for h in "## use" "## cold" "## warm" "# profile: .*prof: in force" "# memset: " "short verdict"; do
    grep -q -- "$h" "$tmp/check.txt" || bad "check output lacks '$h'"
done

# A pointer to profile lines only where a verdict printed one.
for f in "$tmp/check0.txt" "$tmp/check.txt"; do
    if grep -q "profile line that would fix it above" "$f" && ! grep -q "faster; profile: " "$f"; then
        bad "check points to profile lines it did not print"
    fi
    grep -q "see the profile lines above" "$f" && bad "check's old pointer"
done

[ $fail -eq 0 ] && echo "all tune and check checks passed"
exit $fail
