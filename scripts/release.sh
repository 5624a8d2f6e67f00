#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Make a release of HEAD in dist/ (removed first, made afresh, never
# committed); X.Y.Z is HEAD's VERSION:
#   pageclear-X.Y.Z.tar.gz(.sha256)  the source, `git archive` of HEAD
#   debian/*.deb                     the Debian packages (dpkg-buildpackage -b,
#                                    lintian without errors)
#   python/pageclear-X.Y.Z.tar.gz    the Python sdist, and the wheel built
#   python/pageclear-X.Y.Z-*.whl     from it (installed and imported once)
#   crates/*-X.Y.Z.crate             pageclear-sys and pageclear (cargo
#                                    package, each verified by a build)
#   SHA256SUMS                       every file above
# Every package is built from the tarball, not from the work tree. Then the
# tarball is unpacked once more, outside any git repository, built (gcc,
# Release) and tested (ctest) from scratch, as whoever downloads it would.
# Exit status 1 on any failure: dist/ is then left out, and the work
# directory with each step's log is kept and named.
# Usage: scripts/release.sh [--allow-dirty] [-j N] [-v]
#        scripts/release.sh --set-version X.Y.Z
#   --allow-dirty  release HEAD although the work tree has changes (they are
#                  not in the release: it is made from the commit).
#   -j N           parallel build jobs (default: every CPU).
#   -v, --verbose  print every step's output as it runs.
#   --set-version  write X.Y.Z into VERSION and every file that repeats it
#                  (tests/lint/check_version.sh checks them), and start entries
#                  for X.Y.Z in CHANGELOG.md and debian/changelog where
#                  there are none; builds nothing.
# Needs what `scripts/deps.sh release` installs (checked first), PyPI for
# the Python build tools (into a venv of its own) and crates.io for the
# crates' dependencies unless cargo has them cached.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '18,30s/^# \{0,1\}//p' "$0"; }
die() { echo "release: $*" >&2; exit 1; }

# Rust comes from rustup on the machines this project targets; it may not
# be on a non-login PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

allow_dirty="" verbose="" new_version="" jobs="$(nproc)"
while [ $# -gt 0 ]; do
  case "$1" in
    --allow-dirty) allow_dirty=1 ;;
    -v|--verbose) verbose=1 ;;
    -j) [ $# -ge 2 ] || die "-j needs a number"; jobs="$2"; shift ;;
    -j*) jobs="${1#-j}" ;;
    --set-version) [ $# -ge 2 ] || die "--set-version needs X.Y.Z"; new_version="$2"; shift ;;
    --set-version=*) new_version="${1#*=}" ;;
    -h|--help) usage; exit 0 ;;
    *) echo "release: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "-j: '$jobs' is not a number of jobs"

# --- --set-version ------------------------------------------------------------
# set_version X.Y.Z: every literal copy of the version, and a heading for it
# in both changelogs (their prose is for a person to write).
set_version() {
  local v="$1" major minor patch
  [[ "$v" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "--set-version: '$v' is not MAJOR.MINOR.PATCH"
  major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[2]}" patch="${BASH_REMATCH[3]}"
  echo "$v" > VERSION
  sed -i -E "s/^(#define PC_VERSION_MAJOR) [0-9]+\$/\\1 $major/;
             s/^(#define PC_VERSION_MINOR) [0-9]+\$/\\1 $minor/;
             s/^(#define PC_VERSION_PATCH) [0-9]+\$/\\1 $patch/" include/pageclear.h
  sed -i -E "s/^(\\.B #define PC_VERSION_MAJOR) [0-9]+\$/\\1 $major/;
             s/^(\\.B #define PC_VERSION_MINOR) [0-9]+\$/\\1 $minor/;
             s/^(\\.B #define PC_VERSION_PATCH) [0-9]+\$/\\1 $patch/" man/pc_host_get.3
  sed -i -E "s/^(pub const PC_VERSION_MAJOR: c_uint =) [0-9]+;\$/\\1 $major;/;
             s/^(pub const PC_VERSION_MINOR: c_uint =) [0-9]+;\$/\\1 $minor;/;
             s/^(pub const PC_VERSION_PATCH: c_uint =) [0-9]+;\$/\\1 $patch;/" rust/pageclear-sys/src/lib.rs
  sed -i -E "/^\\[workspace\\.package\\]/,/^\\[/s/^version = \"[^\"]*\"\$/version = \"$v\"/" rust/Cargo.toml
  sed -i -E "s/^(pageclear-sys = \\{.*version = \")[^\"]*(\".*)\$/\\1$v\\2/" rust/pageclear/Cargo.toml
  local c
  for c in pageclear-sys pageclear; do
    sed -i -E "/^name = \"$c\"\$/{n;s/^version = \"[^\"]*\"\$/version = \"$v\"/;}" rust/Cargo.lock
  done
  if [ "$(sed -n '1s/^pageclear (\([^)]*\)).*/\1/p' debian/changelog)" != "$v" ]; then
    local who
    who="$(sed -n 's/^ -- \(.*>\)  .*/\1/p' debian/changelog | head -n1)"
    { printf 'pageclear (%s) unstable; urgency=medium\n\n  * Release %s (CHANGELOG.md has the details).\n\n -- %s  %s\n\n' \
        "$v" "$v" "$who" "$(LC_ALL=C date -R)"
      cat debian/changelog; } > debian/changelog.new
    mv debian/changelog.new debian/changelog
  fi
  if ! grep -q "^## \\[$v\\]" CHANGELOG.md; then
    awk -v h="## [$v] - unreleased" '!done && /^## \[/ { print h "\n"; done = 1 } { print }' \
      CHANGELOG.md > CHANGELOG.md.new
    mv CHANGELOG.md.new CHANGELOG.md
  fi
  tests/lint/check_version.sh . || die "the files above still disagree with VERSION: fix them by hand"
  echo "release: now say what $v brings in CHANGELOG.md and debian/changelog, and commit"
}
if [ -n "$new_version" ]; then set_version "$new_version"; exit 0; fi

# --- the release --------------------------------------------------------------
scripts/deps.sh --check release || die "tools missing (above): scripts/deps.sh release installs them"
git rev-parse --verify -q HEAD >/dev/null || die "not in a git repository with a commit: a release is made from one"
version="$(git show HEAD:VERSION)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "HEAD's VERSION is '$version', not MAJOR.MINOR.PATCH"
dirty="$(git status --porcelain)"
if [ -n "$dirty" ]; then
  echo "$dirty" >&2
  [ -n "$allow_dirty" ] || die "the work tree has changes (above): the release is HEAD and would not" \
    "hold them. Commit them, or release HEAD without them with --allow-dirty"
  echo "release: the work tree has changes (above); releasing HEAD without them (--allow-dirty)" >&2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/pageclear-release.XXXXXX")"
ok=""
finish() {
  if [ -n "$ok" ]; then rm -rf "$work"
  else echo "release: FAILED; dist/ not made; the work directory and logs are in $work" >&2; fi
}
trap finish EXIT
# The tarball's tests must see no repository around them (a release
# tarball has none: tests/lint/check_spdx.sh lists the files itself then).
if git -C "$work" rev-parse --git-dir >/dev/null 2>&1; then
  die "$work is inside a git repository; set TMPDIR to a directory outside one"
fi
out="$work/dist"
mkdir -p "$out"/{debian,python,crates} "$work/logs"
name="pageclear-$version"
tarball="$out/$name.tar.gz"
rm -rf dist

# step NAME CMD...: CMD's output in $work/logs/NAME.log (and on the terminal
# with -v); on failure the log's end, and the whole release fails. CMD runs
# in a subshell with set -e in force: called as the condition of an if or
# an &&, a function would run with set -e ignored and go on past a failure.
step() {
  local what="$1" log="$work/logs/${1// /-}.log" rc start="$SECONDS"; shift
  echo "=== release: $what"
  set +e
  if [ -n "$verbose" ]; then (set -e; "$@") 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  else (set -e; "$@") >"$log" 2>&1; rc=$?; fi
  set -e
  if [ "$rc" -ne 0 ]; then
    [ -n "$verbose" ] || tail -n 60 "$log" | sed 's/^/    /'
    die "$what failed (exit status $rc), $log"
  fi
  # (each step's last line says what it found)
  echo "    $(tail -n 1 "$log"), in $((SECONDS - start)) s"
}
# unpack DIR: a fresh copy of the tarball's tree in DIR; prints its path.
unpack() { mkdir -p "$1" && tar -xzf "$tarball" -C "$1" && echo "$1/$name"; }

source_tarball() {
  git archive --format=tar.gz --prefix="$name/" -o "$tarball" HEAD
  (cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
  cat "$out/$name.tar.gz.sha256"
  local tree
  tree="$(unpack "$work/check")"
  # The release's version is the same everywhere, and has its entry.
  "$tree/tests/check_version.sh" "$tree"
}

debian_packages() {
  local tree arch
  tree="$(unpack "$work/deb")"
  # Its tests are the from-scratch run's (below): nocheck here.
  (cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=$jobs" dpkg-buildpackage -us -uc -b)
  arch="$(dpkg-architecture -qDEB_HOST_ARCH)"
  lintian --fail-on error --display-info "$work/deb/pageclear_${version}_$arch.changes"
  cp "$work/deb"/*.deb "$out/debian/"
  echo "$(find "$out/debian" -name '*.deb' | wc -l) packages, lintian without errors"
}

python_packages() {
  local tree vpy
  tree="$(unpack "$work/python")"
  # The build front end in a venv of its own; scikit-build-core comes into
  # build's isolated environment. The wheel is built from the sdist.
  python3 -m venv "$work/venv"
  vpy="$work/venv/bin/python"
  "$vpy" -m pip --disable-pip-version-check install -q "build>=1,<2"
  "$vpy" -m build --outdir "$out/python" "$tree"
  [ -f "$out/python/$name.tar.gz" ] || die "no sdist $name.tar.gz"
  local wheels=("$out/python/$name"-*.whl)
  [ -f "${wheels[0]}" ] || die "no wheel $name-*.whl"
  # The wheel in use: it installs, imports and says its version.
  "$vpy" -m pip --disable-pip-version-check install -q --no-deps "${wheels[@]}"
  (cd "$work" && "$vpy" -c "import pageclear; v = pageclear.__version__
assert v == '$version', 'the wheel says ' + v
print('sdist and wheel; the wheel installs and says', v)")
}

crates() {
  local tree
  tree="$(unpack "$work/rust")"
  # Both at once: pageclear's verification build then finds the
  # pageclear-sys it requires among the packaged crates (it is not on
  # crates.io before the release).
  (cd "$tree/rust" && CARGO_TARGET_DIR="$work/cargo" cargo package --locked --workspace)
  cp "$work/cargo/package/pageclear-sys-$version.crate" "$work/cargo/package/pageclear-$version.crate" \
     "$out/crates/"
  echo "pageclear-sys and pageclear packaged, each verified by a build"
}

from_scratch() {
  local tree
  tree="$(unpack "$work/verify")"
  cmake -S "$tree" -B "$tree/build" -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release
  cmake --build "$tree/build" -j"$jobs"
  (cd "$tree/build" && ctest -j"$jobs" --output-on-failure)
  local said
  said="$("$tree/build/cli/pageclear" version)"
  [ "$said" = "pageclear $version" ] || die "the built command says '$said', not 'pageclear $version'"
  echo "all $(cd "$tree/build" && ctest -N | sed -n 's/^Total Tests: //p') tests passed; the command says '$said'"
}

echo "release: $name from $(git rev-parse --short HEAD), $jobs jobs, work in $work"
step "source tarball" source_tarball
step "Debian packages" debian_packages
step "Python sdist and wheel" python_packages
step "Rust crates" crates
step "the tarball built and tested from scratch" from_scratch

(cd "$out" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
  xargs sha256sum > SHA256SUMS)
rm -rf dist
cp -r "$out" dist
ok=1
echo "=== release: dist/ ($name)"
(cd dist && while read -r sum f; do
  printf '%8s  %s  %s\n' "$(numfmt --to=iec-i --suffix=B "$(stat -c %s "$f")")" "$sum" "$f"
done < SHA256SUMS)
if git show HEAD:CHANGELOG.md | grep -q "^## \\[$version\\] - unreleased"; then
  echo "release: note: CHANGELOG.md's $version entry says 'unreleased': date it before publishing"
fi
echo "release: $name made and verified"
