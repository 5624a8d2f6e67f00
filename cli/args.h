/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * args.h - argument helpers and error messages (args.c), and the exit
 * statuses every subcommand returns.
 */
#ifndef PAGECLEAR_CLI_ARGS_H
#define PAGECLEAR_CLI_ARGS_H

#include <stddef.h>

#include "output.h"

/* Exit statuses: 2 for usage errors, 1 for run-time failures. */
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_RUNTIME 1

/* Print "pageclear: <msg>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a size of at least min bytes for option opt; on failure print why
 * and return -1. */
int cli_size(const char *opt, const char *s, size_t min, size_t *out);
/* Parse a positive integer in [min, max]; on failure print why, return -1. */
int cli_uint(const char *opt, const char *s, unsigned long min,
             unsigned long max, unsigned long *out);
/* Parse --format=X / --json / --csv. Returns 1 if arg was a format option. */
int cli_parse_format(const char *arg, enum cli_format *fmt);
/* Options that take a value: -k VALUE, --long VALUE or --long=VALUE. */
struct cli_opt {
    char key;
    const char *long_name;
};
/* Match argv[*i] against spec (ended by {0, NULL}). On a match, set *val,
 * step *i past the value and return the key; -1 after a message for an
 * unknown option or a missing value. cmd names the command in messages. */
int cli_opt_value(const struct cli_opt *spec, const char *cmd, int argc,
                  char **argv, int *i, const char **val);
/* The loop of a command whose options are formats (set in *fmt) and ones
 * in spec: from argv[*i], the next option in spec, with *val and *i past
 * it; 0 at the end; -1 after a message (unknown option, missing value, or
 * one whose key is in foreign: another command's, in spec so that it is
 * named as such rather than as unknown).
 * Usage: while ((key = cli_next_opt(...)) > 0) ... */
int cli_next_opt(const struct cli_opt *spec, const char *foreign, const char *cmd,
                 int argc, char **argv, int *i, enum cli_format *fmt, const char **val);

#endif
