#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The main job: install what is missing, build (Release), run `pageclear`
# with the arguments given (none: the default suite).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh run
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
exec ./build/cli/pageclear "$@"
