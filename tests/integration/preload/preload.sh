#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# libpageclear-preload.so under preload_target (target.c beside this
# script), a program built without pageclear, one case per ctest name
# (tests/integration/preload/CMakeLists.txt).
# PAGECLEAR_PRELOAD_STATS=1 is the observable of where calls went: its
# lines are "pageclear-preload: CLASS  pageclear-calls bytes  libc-calls
# bytes".
# Usage: preload.sh CASE PRELOAD TARGET EARLY_SO CHAIN_SO PAGECLEAR SANITIZED WX
set -u
case_="$1" preload="$2" target="$3" early="$4" chain="$5" bin="$6" sanitized="$7" wx="$8"

if [ "$sanitized" = 1 ]; then
    echo "SKIP: a sanitizer build: its runtime must be first in the lookup order and"
    echo "intercepts memset itself, so a preload ahead of it cannot run (ASan fails"
    echo "at start, here with a SEGV before main); the preload is tested in the other configurations"
    exit 77
fi

fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Nothing of the caller's: no profile, no PAGECLEAR_* variable.
for v in $(env | sed -n 's/^\(PAGECLEAR_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PAGECLEAR_PROFILE= PAGECLEAR_QUIET=1
unset LD_PRELOAD

bad() { echo "FAIL: $*"; fail=1; }

# run NAME [VAR=VALUE ...] -- ARGS: the target under the preload, stderr
# in $tmp/NAME.err; its status in $rc.
run() {
    name="$1"; shift
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    # shellcheck disable=SC2086
    env LD_PRELOAD="$preload" $envs "$target" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
}

# stat NAME CLASS FIELD: from the stats lines of NAME, CLASS's field
# (1 pageclear calls, 2 bytes, 3 C-library calls, 4 bytes).
stat() {
    awk -v c="pageclear-preload: $2 " -v f="$3" \
        'index($0, c) == 1 { split(substr($0, length(c) + 1), a, " "); v = a[f] }
         END { print v }' "$tmp/$1.err"
}

# chained NAME LIB: the target's route under LD_PRELOAD=LIB:chain.so,
# preload_min 1M; its status in $rc, and in $small, $large and $tiny
# chain.so's counts of the calls that reached it.
chained() {
    LD_PRELOAD="$2:$chain" PAGECLEAR_PRELOAD_MIN=1M "$target" route \
        > "$tmp/$1.out" 2> "$tmp/$1.err"
    rc=$?
    small=$(sed -n 's/^chain: small \([0-9]*\) large .*/\1/p' "$tmp/$1.err")
    large=$(sed -n 's/^chain: small [0-9]* large \([0-9]*\) .*/\1/p' "$tmp/$1.err")
    tiny=$(sed -n 's/^chain: .* tiny \([0-9]*\)$/\1/p' "$tmp/$1.err")
}

expect_ok() {
    [ "$rc" -eq 0 ] || { bad "$1: exit $rc"; cat "$tmp/$1.err"; }
}

case "$case_" in
correct)
    # Every length through pageclear (preload_min 0), then the built-in
    # threshold, then passed through: the same bytes each time.
    run all PAGECLEAR_PRELOAD_MIN=0 PAGECLEAR_PRELOAD_STATS=1 -- correct
    expect_ok all
    [ "$(stat all '[0, 4K)' 1)" -gt 1000000 ] || bad "preload_min 0: small calls not via pageclear"
    [ "$(stat all '[16M, 256M)' 3)" = 0 ] || bad "preload_min 0: a large call to the C library"
    run dflt -- correct
    expect_ok dflt
    # preload_min inside the lengths the entry stores itself: those from
    # it on are pageclear's (preload.c, own_limit), the rest the entry's.
    run min200 PAGECLEAR_PRELOAD_MIN=200 -- correct
    expect_ok min200
    # Inside the copies' loops (257-2048 B in the AVX2 copy, 513-2048 B in
    # the AVX-512 one: entry_x86_64_v3.c, _v4.c): their spans then end at
    # 999 B.
    run min1000 PAGECLEAR_PRELOAD_MIN=1000 -- correct
    expect_ok min1000
    # At the AVX-512 copy's first span length: 64 B its only own call past
    # the head (a span of 1).
    run min65 PAGECLEAR_PRELOAD_MIN=65 -- correct
    expect_ok min65
    # The same inside the span the AVX-512 copy stores with rep stosb on
    # Intel with ERMS (2049 B-64 KiB, entry_x86_64_v4.c), and with a
    # tunable that moves the C library's rep stosb threshold, which turns
    # that span off (cpu.h; the rule itself: test_preload_cpu).
    run min4k PAGECLEAR_PRELOAD_MIN=4K -- correct
    expect_ok min4k
    run tun GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=4096 -- correct
    expect_ok tun
    # The entry's baseline stores where it would use AVX-512 (with AVX2
    # from 32 B where the CPU has it, RTM or not), then without AVX2
    # either: each a no-op where the CPU lacks that path, which then ran
    # above.
    run base PAGECLEAR_PRELOAD_AVX512=0 PAGECLEAR_PRELOAD_AVX2=1 -- correct
    expect_ok base
    run sse2 PAGECLEAR_PRELOAD_AVX512=0 PAGECLEAR_PRELOAD_AVX2=0 -- correct
    expect_ok sse2
    run off PAGECLEAR_PRELOAD=0 PAGECLEAR_PRELOAD_STATS=1 -- correct
    expect_ok off
    grep -q "passing through (PAGECLEAR_PRELOAD=0)" "$tmp/off.err" || bad "PAGECLEAR_PRELOAD=0 not said"
    [ "$(stat off '[16M, 256M)' 1)" = 0 ] || bad "PAGECLEAR_PRELOAD=0: a call via pageclear"
    ;;
route)
    # From preload_min (1M) pageclear, below it the C library. The target's
    # constructor clears 2 MiB too: 4 calls, 2 MiB + 3 x 4 MiB.
    run route PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1 -- route
    expect_ok route
    [ "$(stat route '[1M, 16M)' 1)" = 4 ] || bad "the calls of 2 and 4 MiB did not go via pageclear"
    [ "$(stat route '[1M, 16M)' 2)" = 14680064 ] || bad "bytes via pageclear"
    [ "$(stat route '[64K, 1M)' 1)" = 0 ] || bad "a 64 KiB call went via pageclear"
    [ "$(stat route '[64K, 1M)' 3)" -ge 64 ] || bad "the 64 KiB calls did not reach the C library"
    # A switch set to neither 0 nor 1 is said and ignored: "off" leaves the
    # preload on (the same 4 calls via pageclear), rather than silently.
    run sw PAGECLEAR_QUIET=0 PAGECLEAR_PRELOAD=off PAGECLEAR_PRELOAD_AVX2=yes \
        PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1 -- route
    expect_ok sw
    grep -q 'ignoring PAGECLEAR_PRELOAD="off": want 0 or 1' "$tmp/sw.err" ||
        bad "PAGECLEAR_PRELOAD=off not said"
    grep -q 'ignoring PAGECLEAR_PRELOAD_AVX2="yes"' "$tmp/sw.err" ||
        bad "PAGECLEAR_PRELOAD_AVX2=yes not said"
    [ "$(stat sw '[1M, 16M)' 1)" = 4 ] || bad "PAGECLEAR_PRELOAD=off: not the default (on)"
    # Empty is unset, and PAGECLEAR_QUIET=1 (this script's) silences it.
    run swe PAGECLEAR_QUIET=0 PAGECLEAR_PRELOAD= -- route
    expect_ok swe
    ! grep -q ignoring "$tmp/swe.err" || bad "an empty switch: reported"
    run swq PAGECLEAR_PRELOAD_AVX512=no -- route
    expect_ok swq
    ! grep -q ignoring "$tmp/swq.err" || bad "PAGECLEAR_QUIET=1: reported"
    ;;
ctor)
    # early.so, preloaded after the preload, is initialised before it: its
    # constructor's 1 MiB memset takes the safe path (not counted); the
    # target's constructor, after the preload's, goes via pageclear.
    LD_PRELOAD="$preload:$early" PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1 \
        "$target" ctor > "$tmp/ctor.out" 2> "$tmp/ctor.err"
    rc=$?
    expect_ok ctor
    [ "$(stat ctor '[1M, 16M)' 1)" = 1 ] ||
        bad "constructors: want exactly the target's 2 MiB via pageclear, early.so's before it"
    ;;
signal)
    for min in 0 1M; do
        run "signal$min" PAGECLEAR_PRELOAD_MIN=$min -- signal
        expect_ok "signal$min"
    done
    ;;
threads)
    run threads PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1 -- threads
    expect_ok threads
    [ "$(stat threads '[1M, 16M)' 1)" -ge 200 ] || bad "threads: calls not via pageclear"
    ;;
fork)
    run fork PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1 -- fork
    expect_ok fork
    # parent and child each print their own counts
    [ "$(grep -c 'preload_min 1048576' "$tmp/fork.err")" = 2 ] || bad "fork: two reports wanted"
    ;;
first)
    # A fresh mapping's first memset (every page faulted in by it) goes to
    # the C library; the same memory again, resident, to pageclear.
    run first PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1 -- first
    expect_ok first
    [ "$(stat first '[1M, 16M)' 3)" = 1 ] || bad "first touch: not to the C library"
    [ "$(stat first '[1M, 16M)' 1)" = 2 ] ||
        bad "resident: want the target's constructor's 2 MiB and the second call via pageclear"
    ;;
chk)
    # A destination too small aborts as the C library's __memset_chk does.
    run chk PAGECLEAR_PRELOAD_MIN=0 -- chk
    [ "$rc" -eq 134 ] || bad "__memset_chk overflow: exit $rc, not SIGABRT"
    grep -q "buffer overflow detected" "$tmp/chk.err" || bad "__memset_chk: no C library message"
    ;;
chain)
    # LD_PRELOAD already holding another memset preload: below preload_min
    # the calls reach it, from preload_min they do not.
    chained chain "$preload"
    expect_ok chain
    [ "${small:-0}" -ge 64 ] || bad "chain: small calls did not reach the next preload"
    # route's 16 calls of 24 B: the preload stores such calls itself only
    # when the next memset is the C library's.
    [ "${tiny:-0}" -ge 16 ] || bad "chain: calls of 24 B did not reach the next preload"
    [ "${large:-x}" = 0 ] || bad "chain: large calls reached the next preload"
    ;;
exec)
    # pageclear exec: the preload first, an LD_PRELOAD kept after it.
    export PAGECLEAR_PRELOAD_LIB="$preload"
    out=$(LD_PRELOAD="$chain" "$bin" exec -- "$target" env 2>/dev/null)
    [ "$out" = "LD_PRELOAD=$preload:$chain" ] || bad "exec: $out"
    out=$("$bin" exec -- "$target" env)
    [ "$out" = "LD_PRELOAD=$preload" ] || bad "exec, no LD_PRELOAD before: $out"
    # A copy of the preload already there by path (the user's own
    # LD_PRELOAD of it) is left out, the rest kept in order, colon-separated
    # (the loader splits on spaces too).
    out=$(LD_PRELOAD="$preload $chain::" "$bin" exec -- "$target" env 2>/dev/null)
    [ "$out" = "LD_PRELOAD=$preload:$chain" ] || bad "exec, the preload already there: $out"
    "$bin" exec --min 1M --stats -- "$target" route 2> "$tmp/execr.err"
    rc=$?
    expect_ok execr
    [ "$(stat execr '[1M, 16M)' 1)" = 4 ] || bad "exec --min 1M --stats"
    # The command's status and signals pass through.
    "$bin" exec -- sh -c 'exit 7'
    [ $? -eq 7 ] || bad "exec: exit status not passed through"
    "$bin" exec -- sh -c 'kill -TERM $$'
    [ $? -eq 143 ] || bad "exec: signal not passed through"
    # Errors: exit 2 with a message.
    for args in "" "--" "-- /nonexistent/cmd" "--min huge -- true" "--bogus -- true"; do
        # shellcheck disable=SC2086
        "$bin" exec $args > /dev/null 2> "$tmp/e.err"
        rc=$?
        [ "$rc" -eq 2 ] && [ -s "$tmp/e.err" ] || bad "exec $args: exit $rc"
    done
    # Each says why: a directory, a file it may not run, an empty name,
    # and on PATH the first name that exists (tests run as root, for whom
    # access(X_OK) fails only without any execute bit).
    mkdir -p "$tmp/pa/dcmd" "$tmp/pb"
    printf 'x\n' > "$tmp/pa/fcmd" && chmod 644 "$tmp/pa/fcmd"
    printf '#!/bin/sh\necho second\n' > "$tmp/pb/dcmd" && chmod 755 "$tmp/pb/dcmd"
    for case in "$tmp/pa|is a directory" "$tmp/pa/fcmd|cannot be run: permission denied" \
        "|the command is an empty string" "nosuch-cmd-$$|no such command on PATH" \
        "fcmd|no command of that name on PATH can be run ($tmp/pa/fcmd cannot be run" \
        "dcmd|no command of that name on PATH can be run ($tmp/pa/dcmd is a directory)"; do
        PATH="$tmp/pa:$PATH" "$bin" exec -- "${case%%|*}" > /dev/null 2> "$tmp/e.err"
        rc=$?
        [ "$rc" -eq 2 ] && grep -qF -- "${case#*|}" "$tmp/e.err" ||
            { bad "exec -- '${case%%|*}': exit $rc"; cat "$tmp/e.err"; }
    done
    # As execvp does, a directory earlier on PATH is passed over for the
    # command after it.
    out=$(PATH="$tmp/pa:$tmp/pb:$PATH" "$bin" exec -- dcmd)
    [ "$out" = second ] || bad "exec: PATH past a directory: $out"
    # A library that is not the preload: the loader would skip it, or load
    # it to no effect, and run the command without pageclear. Refused,
    # said: the library pageclear itself is (no preload note, cli/exec/exec_elf.c),
    # a program, a text file, a directory.
    libpc=$(ldd "$preload" | awk '$1 ~ /^libpageclear\.so/ { print $3 }')
    printf 'not a library\n' > "$tmp/text.so"
    for case in "$libpc|lacks the pageclear preload note" "$target|not a shared library" \
        "$tmp/text.so|not an ELF file" "$tmp|not a file"; do
        "$bin" exec --lib "${case%%|*}" -- true > /dev/null 2> "$tmp/e.err"
        rc=$?
        [ "$rc" -eq 2 ] && grep -qF -- "${case#*|}" "$tmp/e.err" ||
            { bad "exec --lib '${case%%|*}': exit $rc"; cat "$tmp/e.err"; }
    done
    [ -n "$libpc" ] || bad "exec: no libpageclear.so in ldd of $preload"
    PAGECLEAR_PRELOAD_LIB=/nonexistent/libpageclear-preload.so "$bin" exec -- true \
        2> "$tmp/e.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "preload" "$tmp/e.err" || bad "exec, library missing: exit $rc"
    # A set-user-ID program ignores LD_PRELOAD: refused, said.
    cp "$target" "$tmp/suid" && chmod 4755 "$tmp/suid"
    "$bin" exec -- "$tmp/suid" env > /dev/null 2> "$tmp/e.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "set-user-ID" "$tmp/e.err" || bad "exec, setuid: exit $rc"
    # No dynamic loader, or one that cannot load the preload: refused, said
    # (cli/exec/exec_elf.c). Copies of the target with its PT_INTERP header made
    # PT_NULL (as a static program has none), and with another machine.
    python3 - "$target" "$tmp" <<'PY' || bad "exec: could not make the static and foreign copies"
import struct, sys
src, tmp = sys.argv[1], sys.argv[2]
b = bytearray(open(src, "rb").read())
assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "a 64-bit little-endian ELF"
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
st = bytearray(b)
for i in range(phnum):
    if struct.unpack_from("<I", st, phoff + i * phentsize)[0] == 3:  # PT_INTERP
        struct.pack_into("<I", st, phoff + i * phentsize, 0)
fo = bytearray(b)
machine, = struct.unpack_from("<H", fo, 18)
struct.pack_into("<H", fo, 18, 62 if machine != 62 else 183)  # x86-64 <-> AArch64
for name, data in (("static", st), ("foreign", fo)):
    with open(f"{tmp}/{name}", "wb") as f:
        f.write(data)
PY
    chmod 755 "$tmp/static" "$tmp/foreign"
    "$bin" exec -- "$tmp/static" env > /dev/null 2> "$tmp/e.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "statically linked" "$tmp/e.err" || bad "exec, static: exit $rc"
    "$bin" exec -- "$tmp/foreign" env > /dev/null 2> "$tmp/e.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "another word size or architecture" "$tmp/e.err" ||
        bad "exec, another machine: exit $rc"
    # A script whose interpreter is static: refused, naming both.
    printf '#!%s\n' "$tmp/static" > "$tmp/sscript" && chmod 755 "$tmp/sscript"
    "$bin" exec -- "$tmp/sscript" > /dev/null 2> "$tmp/e.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "sscript: its interpreter .*static is statically linked" "$tmp/e.err" ||
        bad "exec, a script of a static interpreter: exit $rc"
    # A script: its interpreter gets the preload.
    printf '#!/bin/sh\nprintf "%%s" "$LD_PRELOAD"\n' > "$tmp/script" && chmod 755 "$tmp/script"
    out=$("$bin" exec -- "$tmp/script")
    [ "$out" = "$preload" ] || bad "exec, a script: $out"
    ;;
filter)
    # libpageclear-preload.so, the file users name, is a filter that loads
    # the preload (preload/filter.c): named by path, the program's calls
    # are the preload's; the next preload in LD_PRELOAD still gets the
    # short ones (the filter defines no memset of its own for dlsym's
    # RTLD_NEXT to find).
    filter="$(dirname "$preload")/libpageclear-preload.so"
    [ -f "$filter" ] || { bad "no filter beside $preload"; exit 1; }
    preload="$filter"
    run froute PAGECLEAR_PRELOAD_MIN=1M PAGECLEAR_PRELOAD_STATS=1 -- route
    expect_ok froute
    [ "$(stat froute '[1M, 16M)' 1)" = 4 ] || bad "through the filter: calls not via pageclear"
    chained fchain "$filter"
    expect_ok fchain
    [ "${small:-0}" -ge 64 ] && [ "${large:-x}" = 0 ] ||
        bad "through the filter: the next preload got small ${small:-none}, large ${large:-none}"
    # The filter alone, the preload not beside it: the program runs, as
    # with a missing LD_PRELOAD file, and is told so; exec refuses it.
    mkdir "$tmp/lone" && cp "$filter" "$tmp/lone/"
    env PAGECLEAR_QUIET=0 LD_PRELOAD="$tmp/lone/libpageclear-preload.so" "$target" route \
        > /dev/null 2> "$tmp/lone.err"
    rc=$?
    expect_ok lone
    grep -q "libpageclear-preload-impl.so, which libpageclear-preload.so loads from its own directory, is missing" \
        "$tmp/lone.err" || { bad "the filter alone: not said"; cat "$tmp/lone.err"; }
    env LD_PRELOAD="$tmp/lone/libpageclear-preload.so" "$target" route > /dev/null 2> "$tmp/loneq.err"
    [ ! -s "$tmp/loneq.err" ] || bad "the filter alone: said under PAGECLEAR_QUIET=1"
    "$bin" exec --lib "$tmp/lone/libpageclear-preload.so" -- true > /dev/null 2> "$tmp/e.err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF "$tmp/lone/libpageclear-preload-impl.so, which cannot be read" \
        "$tmp/e.err" || { bad "exec --lib, the filter alone: exit $rc"; cat "$tmp/e.err"; }
    # exec with the filter: a copy of it or of the preload already in
    # LD_PRELOAD is left out.
    out=$(LD_PRELOAD="$filter:$chain:$(dirname "$filter")/libpageclear-preload-impl.so" \
        "$bin" exec --lib "$filter" -- "$target" env 2>/dev/null)
    [ "$out" = "LD_PRELOAD=$filter:$chain" ] || bad "exec, the filter and preload already there: $out"
    ;;
wx)
    # No code is written at run time: under wx.c's seccomp filter any
    # request for memory both writable and executable kills the process
    # (as systemd's MemoryDenyWriteExecute=), and programs under the
    # preload start, run every length and alignment, and exit with none
    # in their maps. First, that the filter bites.
    "$wx" --self-test 2> "$tmp/self.err"
    rc=$?
    [ "$rc" -eq 125 ] && { echo "SKIP: no seccomp filter here: $(cat "$tmp/self.err")"; exit 77; }
    [ "$rc" -eq 159 ] || bad "wx --self-test: exit $rc, want 159 (SIGSYS): $(cat "$tmp/self.err")"
    for stats in 0 1; do
        env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_STATS=$stats "$wx" "$target" wx \
            > "$tmp/wx$stats.out" 2> "$tmp/wx$stats.err"
        rc=$?
        [ "$rc" -eq 0 ] && grep -q "^no writable and executable mapping$" "$tmp/wx$stats.out" ||
            { bad "wx, stats $stats: exit $rc"; cat "$tmp/wx$stats.err"; }
    done
    # With a thread in the entry while the constructor sets its limits.
    env LD_PRELOAD="$preload:$early" PC_TEST_EARLY_THREAD=1 "$wx" "$target" wx \
        > "$tmp/wxt.out" 2> "$tmp/wxt.err"
    rc=$?
    [ "$rc" -eq 0 ] || { bad "wx, a thread in the entry from the start: exit $rc"; cat "$tmp/wxt.err"; }
    "$wx" "$bin" exec --lib "$preload" -- "$target" wx > "$tmp/wxe.out" 2> "$tmp/wxe.err"
    rc=$?
    [ "$rc" -eq 0 ] || { bad "wx, pageclear exec: exit $rc"; cat "$tmp/wxe.err"; }
    # A program no one here wrote, and its children.
    env LD_PRELOAD="$preload" "$wx" /bin/sh -c 'ls / > /dev/null && grep -c . /proc/self/maps' \
        > "$tmp/wxs.out" 2> "$tmp/wxs.err"
    rc=$?
    [ "$rc" -eq 0 ] || { bad "wx, sh -c ls: exit $rc"; cat "$tmp/wxs.err"; }
    ;;
quiet)
    # Programs no one here wrote, each with a library that binds memset
    # when it is loaded (ls: libselinux; bash: libtinfo), before the
    # preload: under it they write what they write without it and nothing
    # more, on stdout or stderr. The dynamic loader speaks on stderr for
    # some things a preload may do: with memset an indirect function
    # (tried, docs/notes.md, "Zen 5: the loads of the limits") it printed
    # "Relink ... for IFUNC symbol `memset'" for every
    # such library, in every program.
    for prog in "ls -d /" "bash -c :"; do
        want=$(env $prog 2>&1) || { echo "SKIP: $prog does not run here"; exit 77; }
        # shellcheck disable=SC2086
        got=$(env LD_PRELOAD="$preload" $prog 2>&1) || bad "$prog under the preload: failed"
        [ "$got" = "$want" ] || bad "$prog under the preload wrote: $got"
    done
    ;;
hwcaps)
    # The builds of the preload the dynamic loader chooses among by CPU
    # (glibc-hwcaps/, preload/CMakeLists.txt) when the filter loads it,
    # whether the filter is named by path, by name or by `pageclear exec`,
    # against the loader's account of this CPU (ld.so --help: "x86-64-v3
    # (supported, searched)").
    dir=$(dirname "$preload")
    filter="$dir/libpageclear-preload.so"
    v3="$dir/glibc-hwcaps/x86-64-v3/libpageclear-preload-impl.so"
    v4="$dir/glibc-hwcaps/x86-64-v4/libpageclear-preload-impl.so"
    [ -f "$v3" ] && [ -f "$v4" ] || { echo "SKIP: no glibc-hwcaps copies (not x86-64)"; exit 77; }
    unset GLIBC_TUNABLES
    ld=/lib64/ld-linux-x86-64.so.2
    supported() { "$ld" --help | grep -q "^  $1 (supported, searched)"; }
    # mapped CMD...: the build of the preload that cat maps, run by CMD
    mapped() { "$@" cat /proc/self/maps | awk '/libpageclear-preload-impl/ { print $6; exit }'; }
    base=$(realpath "$preload") copy=$(realpath "$v3") copy4=$(realpath "$v4")
    [ "$copy4" != "$base" ] || bad "the x86-64-v4 copy is the default preload"
    if supported x86-64-v4; then level=4; elif supported x86-64-v3; then level=3; else level=2; fi
    echo "the loader: x86-64-v$level at most"
    want=$base
    [ $level = 3 ] && want=$copy
    [ $level = 4 ] && want=$copy4
    got=$(mapped env LD_PRELOAD="$filter")
    [ "$got" = "$want" ] || bad "the filter by path loaded $got, not $want"
    got=$(mapped env LD_LIBRARY_PATH="$dir" LD_PRELOAD=libpageclear-preload.so)
    [ "$got" = "$want" ] || bad "the filter by name loaded $got, not $want"
    if [ $level = 4 ]; then
        # The same CPU as the loader sees it without AVX-512: the v3 copy.
        got=$(mapped env GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F LD_PRELOAD="$filter")
        [ "$got" = "$copy" ] || bad "the filter without AVX-512 loaded $got, not $copy"
    fi
    # exec, the library not named: the filter (the build tree's, or an
    # installed one), and through it the same build.
    unset PAGECLEAR_PRELOAD_LIB
    out=$("$bin" exec -- "$target" env)
    case "${out#LD_PRELOAD=}" in
    */libpageclear-preload.so) ;;
    *) bad "exec chose ${out#LD_PRELOAD=}, not a filter" ;;
    esac
    got=$(mapped "$bin" exec --)
    case "$got" in
    */glibc-hwcaps/x86-64-v3/libpageclear-preload-impl.so) [ $level = 3 ] ;;
    */glibc-hwcaps/x86-64-v4/libpageclear-preload-impl.so) [ $level = 4 ] ;;
    */glibc-hwcaps/*) false ;;
    */libpageclear-preload-impl.so) [ $level = 2 ] ;;
    *) false ;;
    esac || bad "under exec the loader loaded $got where it supports x86-64-v$level"
    # pageclear info names the same file.
    "$bin" info | grep -qF "preload:        ${out#LD_PRELOAD=}, from " ||
        bad "info's preload line does not name exec's ${out#LD_PRELOAD=}"
    # Named, it is taken as named.
    out=$("$bin" exec --lib "$v3" -- "$target" env)
    [ "$out" = "LD_PRELOAD=$v3" ] || bad "exec --lib: $out"
    ;;
python)
    # CPython, which no one here wrote, zeroing and filling through memset
    # (bytearray(n), bytes * n, resizing, slice assignment, ljust): the
    # same digest with every call through pageclear as without the preload.
    py=$(command -v python3) || { echo "SKIP: no python3"; exit 77; }
    script='
import hashlib
h = hashlib.sha256()
for n in (0, 1, 63, 4096, 65537, 1 << 20, (4 << 20) + 5, 24 << 20):
    a = bytearray(n); h.update(a)
    b = bytes([0x5a]) * n; h.update(b)
    a[n // 3:] = bytes(n - n // 3); h.update(a)
    a.extend(bytes(n // 2)); h.update(a)
    h.update(b"x".ljust(n, b"\x11"))
    m = memoryview(bytearray(n)); h.update(m[n // 4:])
print(h.hexdigest())'
    want=$("$py" -c "$script") || bad "python3 without the preload"
    got=$(env LD_PRELOAD="$preload" PAGECLEAR_PRELOAD_MIN=0 PAGECLEAR_PRELOAD_STATS=1 \
          "$py" -c "$script" 2> "$tmp/py.err") || bad "python3 under the preload"
    [ -n "$want" ] && [ "$want" = "$got" ] || bad "python3: $got, not $want"
    [ "$(stat py '[1M, 16M)' 1)" -gt 0 ] || bad "python3: no call went via pageclear"
    ;;
calls)
    # The per-call benchmark (tests/integration/preload/calls.c) runs and
    # compares what
    # it says: under the preload the memset it finds is not the C
    # library's, without it both are. One round, not a timing check.
    calls="$(dirname "$target")/preload_calls"
    env LD_PRELOAD="$preload" "$calls" 1 1 8 64 200 > "$tmp/calls.out" 2>&1 ||
        { bad "preload_calls under the preload"; cat "$tmp/calls.out"; }
    grep -q "a preload's" "$tmp/calls.out" || bad "preload_calls did not find the preload"
    # 4 sizes over the extent, then the 3 of them up to 64 B at a page's end.
    [ "$(grep -c '^ *[0-9]' "$tmp/calls.out")" = 7 ] || bad "preload_calls: not 4 + 3 rows"
    grep -q "PROT_NONE" "$tmp/calls.out" || bad "preload_calls: no page-end table"
    "$calls" 1 8 > "$tmp/plain.out" 2>&1 || bad "preload_calls without the preload"
    grep -q "no preload" "$tmp/plain.out" || bad "preload_calls saw a preload where none was"
    "$calls" 0 > /dev/null 2>&1; [ $? -eq 2 ] || bad "preload_calls 0 rounds: not exit 2"
    # scripts/preload_calls.py, the tables of docs/notes.md's short calls: two
    # columns, two sizes, both tables; a bad path name refused.
    tables="$(dirname "$0")/../../../scripts/preload_calls.py"
    python3 "$tables" --calls "$calls" --preload "$preload" --runs 1 --rounds 1 \
        --paths entry,sse2 8 64 > "$tmp/tables.out" 2>&1 || bad "preload_calls.py"
    [ "$(grep -c '^| per call | entry | sse2 |$' "$tmp/tables.out")" = 2 ] &&
        [ "$(grep -cE '^\| (8|64) B \| [0-9.]+ \([0-9.-]+\) \| [0-9.]+ ' "$tmp/tables.out")" = 4 ] ||
        { bad "preload_calls.py: not two tables of two rows"; cat "$tmp/tables.out"; }
    python3 "$tables" --calls "$calls" --preload "$preload" --paths nosuch 8 > /dev/null 2>&1
    [ $? -eq 2 ] || bad "preload_calls.py --paths nosuch: not exit 2"
    # "none": the C library's memset on both sides, so the tool must have
    # run it without the preload (preload_calls says which it saw).
    python3 "$tables" --calls "$calls" --preload "$preload" --runs 1 --rounds 1 \
        --paths none 8 > "$tmp/none.out" 2>&1 &&
        grep -q '^# without the preload (the C library on both sides): none$' "$tmp/none.out" &&
        [ "$(grep -cE '^\| 8 B \| [0-9.]+ \([0-9.-]+\) \|$' "$tmp/none.out")" = 2 ] ||
        { bad "preload_calls.py --paths none"; cat "$tmp/none.out"; }
    python3 "$tables" --calls "$calls" --preload "$preload" --glibc "$tmp/nosuch.sh" 8 \
        > "$tmp/glibc.out" 2>&1
    [ $? -eq 2 ] && grep -q "no such command" "$tmp/glibc.out" ||
        { bad "preload_calls.py --glibc nosuch: not exit 2 with a message"; cat "$tmp/glibc.out"; }
    # The copies for the AVX2 and AVX-512 CPUs as columns of their own,
    # where they are built.
    if [ -f "$(dirname "$preload")/glibc-hwcaps/x86-64-v3/libpageclear-preload-impl.so" ]; then
        python3 "$tables" --calls "$calls" --preload "$preload" --runs 1 --rounds 1 \
            --paths v3,v4 8 > "$tmp/v3.out" 2>&1 &&
            [ "$(grep -cE '^\| 8 B \| [0-9.]+ \([0-9.-]+\) \| [0-9.]+ ' "$tmp/v3.out")" = 2 ] ||
            { bad "preload_calls.py --paths v3,v4"; cat "$tmp/v3.out"; }
    fi
    # pageclear mem's libc function: the C library's own memset, listed
    # only under a preload, and a row of its own in -f glibc,libc.
    env LD_PRELOAD="$preload" "$bin" mem memset -f glibc,libc -v 0 -s 4K -n 1 -l 10 \
        --format=csv > "$tmp/mem.csv" 2>&1 || bad "mem -f glibc,libc under the preload"
    [ "$(grep -c '^memset,glibc,4096,' "$tmp/mem.csv")" = 1 ] &&
        [ "$(grep -c '^memset,libc,4096,' "$tmp/mem.csv")" = 1 ] ||
        { bad "mem -f glibc,libc: not one row each"; cat "$tmp/mem.csv"; }
    env LD_PRELOAD="$preload" "$bin" mem memset -f help | grep -q '^  libc ' ||
        bad "libc not listed under the preload"
    "$bin" mem memset -f help | grep -q '^  libc ' && bad "libc listed with no preload"
    # scripts/preload_states.py, the per-state table of docs/notes.md's
    # "The preload's threshold": it runs pageclear mem under the filter of the
    # build $bin is
    # in. One pass of two states and two sizes, preload_min 64K: one table
    # of four rows, each with its two ratios, and the one against pc_clear
    # only from preload_min on; a state it has not is refused.
    case "$preload" in
    */glibc-hwcaps/*) ;; # the copies: the filter is the same for all three
    *)
        states="$(dirname "$0")/../../../scripts/preload_states.py"
        build=$(dirname "$(dirname "$bin")")
        ratios='[0-9.]+x \([0-9.x-]+\) \| [0-9.]+x \([0-9.x-]+\)'
        python3 "$states" --build "$build" --runs 1 --passes 1 --states warm,first --min 64K \
            4K 64K > "$tmp/states.out" 2>&1
        [ $? -eq 0 ] && [ "$(grep -c '^| state | size |' "$tmp/states.out")" = 1 ] &&
            [ "$(grep -cE "^\\| (warm|first) \\| 4 KiB \\| .* \\| $ratios \\|  \\|\$" \
                "$tmp/states.out")" = 2 ] &&
            [ "$(grep -cE "^\\| (warm|first) \\| 64 KiB \\| .* \\| $ratios \\| [0-9]+% .*\\|\$" \
                "$tmp/states.out")" = 2 ] &&
            grep -q "^the system.s C library, preload_min 64KiB:\$" "$tmp/states.out" ||
            { bad "preload_states.py: not one table of four rows"; cat "$tmp/states.out"; }
        python3 "$states" --build "$build" --states hot 4K > "$tmp/hot.out" 2>&1
        [ $? -eq 2 ] && grep -q "no state 'hot'" "$tmp/hot.out" ||
            { bad "preload_states.py --states hot: not exit 2 with a message"; cat "$tmp/hot.out"; }
        ;;
    esac
    ;;
*)
    echo "preload.sh: unknown case $case_"; exit 2 ;;
esac

[ $fail -eq 0 ] && echo "preload $case_: ok"
exit $fail
