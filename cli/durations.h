/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * durations.h - how long the long subcommands take, the one place the
 * command's help, pageclear(1), README.md and docs/tuning.md take it from
 * (tests/check_durations.py holds the docs to these strings).
 *
 * The figures are for a quiet 2-core machine. Full tune and check:
 * docs/measurements.md records 24 s for `pageclear tune -o FILE` and 110 s
 * for `pageclear check` on the Zen 4 guest. --quick takes 5 runs to the
 * full run's 15, at fewer sizes: a third of it or less. On a busy machine
 * it takes several times longer: `flock /tmp/pageclear-bench.lock
 * /usr/bin/time pageclear tune --quick -o FILE` on the Xeon guest took
 * 35 s wall (29 s of CPU) with the load average at 5, and 187 s and 238 s
 * with it at 15 (other test suites running beside it). Remeasure on a
 * quiet machine before changing these; the docs follow the test.
 */
#ifndef PAGECLEAR_CLI_DURATIONS_H
#define PAGECLEAR_CLI_DURATIONS_H

#define CLI_TUNE_TIME "about 30 s"
#define CLI_TUNE_QUICK_TIME "about 10 s"
#define CLI_CHECK_TIME "about 2 min"

#endif
