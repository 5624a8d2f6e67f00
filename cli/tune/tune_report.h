/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_report.h - what `pageclear tune` prints and writes: the table
 * behind each threshold, and the profile file (tune_report.c).
 */
#ifndef PAGECLEAR_CLI_TUNE_REPORT_H
#define PAGECLEAR_CLI_TUNE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "pageclear.h"

#include "decide.h"
#include "output.h"

/* "never" for SIZE_MAX, else the size. */
const char *cli_thr_str(size_t v, char *buf, size_t n);
/* Print to f the table behind a threshold (a below it, b from it), the
 * choice against the built-in default dflt; add the measurements to rs. */
void cli_tune_report(FILE *f, struct cli_records *rs, enum cli_format fmt, unsigned long runs,
                     const char *key, const char *an, const char *bn,
                     const struct cli_xover *x, const struct cli_decision *d, size_t dflt,
                     unsigned long threads);
/* The thresholds chosen, one line: "chose vector_max = 32KiB, ...". */
void cli_tune_summary(FILE *f, const struct pc_tuning *t);
/* Write the profile carrying t to dest ('-': standard output), with a
 * comment saying how it was made; 0, or -1 after a message. */
int cli_tune_write(const char *dest, const struct pc_tuning *t, int quick, unsigned long runs,
                   double secs);
/* "wrote FILE in N s" and how the library comes to use it: by itself if
 * FILE is the user's profile, else through PAGECLEAR_PROFILE or a copy
 * at the user's path, which it names. */
void cli_tune_written(FILE *f, const char *file, double secs);
/* The user's profile: $XDG_CONFIG_HOME/pageclear/profile, else
 * $HOME/.config/pageclear/profile; -1 if neither can be formed. */
int cli_profile_path(char *buf, size_t n);
/* Can path be written (its directory made if need be)? 0, or -1 after a
 * message: checked before a long measurement, not after it. */
int cli_check_writable(const char *path);
/* --if-needed: does pc_profile_parse accept the profile at path on this
 * machine? 1 if so, said on say: it is kept; 0 if it is missing or
 * refused (another CPU, another major version, malformed, unreadable),
 * said on stderr: tune measures and replaces it. */
int cli_tune_if_needed(const char *path, FILE *say);
/* Write text to path (parent directories made) through a temporary file
 * and a rename; 0, or -1 after a message. */
int cli_write_file(const char *path, const char *text);

#endif
