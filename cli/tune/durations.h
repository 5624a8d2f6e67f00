/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * durations.h - how long the long subcommands take, the one place the
 * command's help, pageclear(1), README.md and docs/tuning.md take it from
 * (tests/check_durations.py holds the docs to these strings).
 *
 * The figures are for a quiet 2-core machine, measured on the Intel Xeon
 * guest (family 6 model 207, LLC 260 MiB shared; load average 1.1, no
 * other benchmark running) on 2026-11-23, three runs each with
 * `flock /tmp/pageclear-bench.lock /usr/bin/time -f '%e s wall, %U+%S cpu'
 * pageclear tune [--quick] -o FILE`: full 161.1, 160.2 and 161.8 s wall
 * (about 152+16 s of CPU), --quick 37.8, 32.8 and 40.8 s (28-34+6-8 s of
 * CPU); tune then also timed memset beside the primitives (preload_min)
 * and under GLIBC_TUNABLES. Every cold and use run reads twice the LLC
 * to evict it: 520 MiB here, 64 MiB on the Zen 4 guest (L3 32 MiB), where
 * a full tune took 24 s before those additions
 * (7af8c43:docs/measurements-zen4.md,
 * section 10, in git). Full
 * `pageclear check` (no profile, the same guest and lock, 14:11 UTC, load
 * average 0.2): 423.5 s wall (402+18 s of CPU), with its 4 GiB rows and
 * the 520 MiB eviction before every cold and use run; 44.2 s for
 * `check --quick`. It took 110 s on the Zen 4 guest: a smaller LLC, the
 * shorter the run. On a busy machine it takes
 * several times longer: `pageclear tune --quick` on the Xeon guest took
 * 187 s and 238 s with the load average at 15 (other test suites beside
 * it). Remeasure on a quiet machine before changing these; the docs
 * follow the test.
 */
#ifndef PAGECLEAR_CLI_DURATIONS_H
#define PAGECLEAR_CLI_DURATIONS_H

#define CLI_TUNE_TIME "about 3 min"
#define CLI_TUNE_QUICK_TIME "about 40 s"
#define CLI_CHECK_TIME "about 7 min"
/* What the durations above were measured with, said beside them: the
 * evictions make the time grow with the last-level cache. */
#define CLI_TIME_MACHINE "a quiet 2-core machine with a 260 MiB LLC (less with a smaller one)"

#endif
