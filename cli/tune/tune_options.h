/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_options.h - `pageclear tune`'s command line and where its profile
 * goes (tune_options.c).
 */
#ifndef PAGECLEAR_CLI_TUNE_OPTIONS_H
#define PAGECLEAR_CLI_TUNE_OPTIONS_H

#include "output.h"

struct cli_tune_opts {
    const char *out; /* NULL: the user's profile path */
    int quick;
    int if_needed; /* measure only if out is missing or refused here */
    unsigned long runs;
    enum cli_format fmt;
};

/* Read tune's arguments into *t (zeroed by the caller). 0, or -1 after a
 * message and, for an unknown option, the usage. */
int cli_tune_parse(int argc, char **argv, struct cli_tune_opts *t);
/* Where the profile goes: -o's, else the user's profile path, into
 * t->out. 0, or -1 after a message. */
int cli_tune_destination(struct cli_tune_opts *t);

#endif
