#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The Rust crates (rust/): formatting, clippy, unit/integration/doc tests of
# both crates with the library built from source; the same tests with the
# `pkg-config` feature against an installed libpageclear (shared, then
# static); and `cargo package` of both crates (pageclear verified against
# the packaged pageclear-sys), whose packaged -sys crate must build and pass
# its tests on its own.
# Usage: scripts/test_rust.sh [PREFIX]
#   PREFIX: a `cmake --install` prefix to test the pkg-config feature with
#   (scripts/test.sh passes build-test/prefix); without it one is made.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
echo "=== rust"

# Rust comes from rustup on the machines this project targets (Debian's
# cargo is too old for edition 2024); it may not be on a non-login PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "test_rust.sh: cargo not found; install Rust with rustup (https://rustup.rs)" >&2
  exit 1
fi

cd rust
export CARGO_TERM_COLOR=never
# Warnings in the crates' own code fail the run; the C library's warnings
# are CMake's -Werror business (the crate builds without -Werror).
cargo fmt --all --check
cargo clippy --locked --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --locked --workspace --no-deps
cargo test --locked --workspace

# --- pkg-config feature against an installed library -----------------------
prefix="${1:-}"
if [ -z "$prefix" ]; then
  prefix="$repo/rust/target/prefix"
  cmake -S "$repo" -B "$repo/rust/target/cmake" -DPC_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$repo/rust/target/cmake" -j"$(nproc)" >/dev/null
  rm -rf "$prefix"
  cmake --install "$repo/rust/target/cmake" --prefix "$prefix" >/dev/null
fi
prefix="$(cd "$prefix" && pwd)"
libdir="$(dirname "$(find "$prefix" -name pageclear.pc | head -n1)")/.."
libdir="$(cd "$libdir" && pwd)"
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pc_features=(--features pageclear/pkg-config)

# (Output captured first: grep -q closing a pipe early would fail the
# pipeline under pipefail.)
calls_library() { local s; s="$(nm -D --undefined-only "$1" 2>/dev/null || true)"; grep -q ' pc_' <<<"$s"; }
loads() { local s; s="$(LD_LIBRARY_PATH="$libdir" ldd "$1" 2>/dev/null || true)"; grep -q "$2" <<<"$s"; }

# The test executables a cargo invocation builds.
executables() {
  cargo test --locked --workspace "${pc_features[@]}" --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*"' | sed 's/"executable":"//; s/"$//'
}

echo "--- pkg-config, shared library from $libdir"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  cargo test --locked --workspace "${pc_features[@]}"
# The tests must have run against the installed library, not a built one:
# every executable that calls into the library (unit tests of error
# mapping do not) loads it from the prefix.
n=0
while read -r exe; do
  calls_library "$exe" || continue
  loads "$exe" "libpageclear.so.* => $libdir/" ||
    { echo "test_rust.sh: $exe does not load $libdir/libpageclear.so" >&2; exit 1; }
  n=$((n + 1))
done < <(executables)
[ "$n" -gt 0 ] || { echo "test_rust.sh: no test executable uses the installed library" >&2; exit 1; }

echo "--- pkg-config, static library"
PAGECLEAR_STATIC=1 cargo test --locked --workspace "${pc_features[@]}"
while read -r exe; do
  if calls_library "$exe" || loads "$exe" libpageclear.so; then
    echo "test_rust.sh: $exe links libpageclear dynamically though PAGECLEAR_STATIC=1" >&2; exit 1
  fi
done < <(PAGECLEAR_STATIC=1 executables)

# --- the packaged -sys crate carries and builds the C sources -------------
echo "--- cargo package (both crates; pageclear verified against the packaged pageclear-sys)"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
# cargo verifies pageclear against the packaged -sys crate as if it came
# from a registry: unpacked under CARGO_HOME in a folder named after the
# package directory's path, and built as a registry crate, which cargo never
# rebuilds. Both would be reused by a later run at the same path, building
# an older pageclear-sys of the same version instead of this one.
packaging="$repo/rust/target/packaging"
rm -rf "$packaging" "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"pageclear-sys-$version"
CARGO_TARGET_DIR="$packaging" cargo package --locked --workspace --allow-dirty
crate="$packaging/package/pageclear-sys-$version.crate"
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
tar -xzf "$crate" -C "$unpacked"
# Real files, not links back into the repository.
if find "$unpacked" -type l | grep -q .; then
  echo "test_rust.sh: the packaged crate contains symbolic links" >&2; exit 1
fi
(cd "$unpacked"/pageclear-sys-* && CARGO_TARGET_DIR="$repo/rust/target/packaged" cargo test --locked)
echo "test_rust.sh: rust crates passed"
