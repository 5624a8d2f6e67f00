#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A load generator for `scripts/test.sh --under-load`: one worker per core,
# at the tests' own priority, each alternating a busy loop (the CPU) with
# reads of /dev/zero into a 16 MiB buffer (the kernel clears it: memory
# bandwidth and the caches, as a neighbour's job would). It runs until it
# gets SIGTERM or SIGINT (or for SECONDS, when given), then stops every
# worker. CI runs on a shared machine; a test that passes only on an idle
# one would fail a good change sooner or later.
# Usage: scripts/load.sh [WORKERS [SECONDS]]   (WORKERS: nproc by default)
set -u
workers="${1:-$(nproc)}"
seconds="${2:-0}"
case "$workers$seconds" in *[!0-9]*) echo "usage: $0 [WORKERS [SECONDS]]" >&2; exit 2 ;; esac
pids=()
stop() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; exit 0; }
trap stop TERM INT HUP EXIT
worker() {
  trap 'exit 0' TERM
  while :; do
    for _ in $(seq 20000); do :; done
    dd if=/dev/zero of=/dev/null bs=16M count=32 status=none
  done
}
for _ in $(seq "$workers"); do worker & pids+=($!); done
# Until SECONDS have passed, or for ever; either way it ends with the
# process that started it (test.sh killed with SIGKILL leaves no load).
parent=$PPID
for ((t = 0; seconds == 0 || t < seconds; t++)); do
  kill -0 "$parent" 2>/dev/null || break
  sleep 1
done
