/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * durations.h - how long the long subcommands take, the one place the
 * command's help, pageclear(1), README.md and docs/tuning.md take it from
 * (tests/check_durations.py holds the docs to these strings).
 *
 * MEASUREMENT
 */
#ifndef PAGECLEAR_CLI_DURATIONS_H
#define PAGECLEAR_CLI_DURATIONS_H

#define CLI_TUNE_TIME "about 30 s"
#define CLI_TUNE_QUICK_TIME "about 10 s"
#define CLI_CHECK_TIME "about 2 min"

#endif
