/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_clean.h - tune's run without the overrides (tune_clean.c).
 */
#ifndef PAGECLEAR_CLI_TUNE_CLEAN_H
#define PAGECLEAR_CLI_TUNE_CLEAN_H

/* If a profile or a variable that moves the selection is in force (and
 * this is not already the re-run), execute argv again (/proc/self/exe)
 * with them set aside; returns only if there is nothing to set aside or
 * the re-run could not start (said on stderr). */
void cli_tune_clean_selection(char **argv);

#endif
