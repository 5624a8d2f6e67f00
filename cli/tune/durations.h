/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * durations.h - how long the long subcommands take, the one place the
 * command's help, pageclear(1), README.md and docs/tuning.md take it from
 * (tests/lint/check_durations.py holds the docs to these strings).
 *
 * For a quiet 2-core machine with a 260 MiB LLC: every cold and use run
 * first evicts twice the LLC, so the time grows with it, and a loaded
 * machine takes several times longer (docs/notes.md, "How long tune and
 * check take"). Remeasure on a quiet machine before changing these; the
 * docs follow the test.
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
