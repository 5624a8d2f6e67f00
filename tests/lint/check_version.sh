#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# The version is written once, in the file VERSION. CMake and pyproject.toml
# read it; the files that must repeat it as a literal (the header users
# read and its manual page, the -sys crate's copy of its constants, cargo's
# manifests and lock file, debian/changelog) agree with it, and
# CHANGELOG.md has its entry. Every file that disagrees is named. `scripts/release.sh --set-version
# X.Y.Z` rewrites them all.
# Usage: check_version.sh SOURCE_DIR [CMAKE_PROJECT_VERSION]
#   CMAKE_PROJECT_VERSION: what CMake configured (ctest passes it).
set -u
cd "$1" || exit 1
fail=0
bad() { echo "check_version: $*"; fail=1; }
# same FILE WHAT FOUND WANTED
same() { [ "$3" = "$4" ] || bad "$1: $2 is '$3', VERSION says '$4'"; }

[ -f VERSION ] || { bad "no file VERSION"; exit 1; }
version=$(sed -n 1p VERSION)
[ "$(wc -l <VERSION)" -eq 1 ] || bad "VERSION: one line expected, MAJOR.MINOR.PATCH"
echo "$version" | grep -Eqx '[0-9]+\.[0-9]+\.[0-9]+' ||
    { bad "VERSION: '$version' is not MAJOR.MINOR.PATCH"; exit 1; }
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
patch=${version##*.}

# CMake: project() takes VERSION's, and the configured build has it.
grep -Eq '^file\(STRINGS \$\{CMAKE_CURRENT_SOURCE_DIR\}/VERSION PC_VERSION' CMakeLists.txt &&
    grep -Eq '^project\(pageclear VERSION \$\{PC_VERSION\}' CMakeLists.txt ||
    bad "CMakeLists.txt: project(pageclear VERSION ...) must be read from VERSION"
[ $# -lt 2 ] || same "CMakeLists.txt" "the configured PROJECT_VERSION" "$2" "$version"

# The header: literal numbers, as users read them.
define() { sed -n "s/^#define PC_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" include/pageclear.h; }
same include/pageclear.h PC_VERSION_MAJOR "$(define MAJOR)" "$major"
same include/pageclear.h PC_VERSION_MINOR "$(define MINOR)" "$minor"
same include/pageclear.h PC_VERSION_PATCH "$(define PATCH)" "$patch"
mdefine() { sed -n "s/^\.B #define PC_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" man/pc_host_get.3; }
same man/pc_host_get.3 PC_VERSION_MAJOR "$(mdefine MAJOR)" "$major"
same man/pc_host_get.3 PC_VERSION_MINOR "$(mdefine MINOR)" "$minor"
same man/pc_host_get.3 PC_VERSION_PATCH "$(mdefine PATCH)" "$patch"
rdefine() { sed -n "s/^pub const PC_VERSION_$1: c_uint = \([0-9][0-9]*\);\$/\1/p" rust/pageclear-sys/src/lib.rs; }
same rust/pageclear-sys/src/lib.rs PC_VERSION_MAJOR "$(rdefine MAJOR)" "$major"
same rust/pageclear-sys/src/lib.rs PC_VERSION_MINOR "$(rdefine MINOR)" "$minor"
same rust/pageclear-sys/src/lib.rs PC_VERSION_PATCH "$(rdefine PATCH)" "$patch"

# pyproject.toml: a dynamic version, scikit-build-core's regex over VERSION.
grep -Eq '^dynamic = \[.*"version".*\]' pyproject.toml &&
    ! grep -Eq '^version *=' pyproject.toml &&
    sed -n '/^\[tool\.scikit-build\.metadata\.version\]/,/^\[/p' pyproject.toml |
    grep -Eqx 'input = "VERSION"' ||
    bad "pyproject.toml: the version must be dynamic, read from VERSION" \
        "([tool.scikit-build.metadata.version] input = \"VERSION\")"

# Rust: the workspace's version, both crates taking it, pageclear's
# requirement on pageclear-sys, and the lock file's entries for both.
same rust/Cargo.toml "[workspace.package] version" \
    "$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' rust/Cargo.toml)" "$version"
for c in pageclear-sys pageclear; do
    grep -qx 'version.workspace = true' "rust/$c/Cargo.toml" ||
        bad "rust/$c/Cargo.toml: version must be the workspace's (version.workspace = true)"
    same rust/Cargo.lock "$c's version" \
        "$(sed -n "/^name = \"$c\"\$/{n;s/^version = \"\(.*\)\"\$/\1/p;}" rust/Cargo.lock)" "$version"
done
same rust/pageclear/Cargo.toml "the pageclear-sys requirement" \
    "$(sed -n 's/^pageclear-sys = {.*version = "\([^"]*\)".*/\1/p' rust/pageclear/Cargo.toml)" "$version"

# debian/changelog: the newest entry (a native package: no revision).
same debian/changelog "the newest entry's version" \
    "$(sed -n '1s/^pageclear (\([^)]*\)).*/\1/p' debian/changelog)" "$version"

# CHANGELOG.md: an entry for this version.
grep -Eqs "^## \[$(echo "$version" | sed 's/\./\\./g')\]" CHANGELOG.md ||
    bad "CHANGELOG.md: no '## [$version]' entry"

[ $fail -eq 0 ] && echo "check_version: $version in VERSION, CMake, the header, its man page," \
    "pyproject.toml, the Rust crates, manifests and lock file, debian/changelog and CHANGELOG.md"
exit $fail
