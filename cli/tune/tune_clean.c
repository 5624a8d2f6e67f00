/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_clean.c - `pageclear tune` measures the built-in selection: with a
 * profile or a PAGECLEAR_* variable in force it runs itself again without.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "libc.h"
#include "tune_clean.h"

/* Whether a variable that moves the selection is set (PAGECLEAR_IMPL or
 * one of the thresholds' own); with unset, unset them all. */
static int overrides(int unset)
{
    int any = getenv("PAGECLEAR_IMPL") != NULL;
    if (unset)
        unsetenv("PAGECLEAR_IMPL");
    for (int i = 0; i < PC_NTHRESHOLDS; i++) {
        struct pc_threshold_info ti;
        pc_threshold_info(i, &ti);
        any |= getenv(ti.env) != NULL;
        if (unset)
            unsetenv(ti.env);
    }
    return any;
}

/* Tune measures the selection's primitives: that needs the built-in
 * selection, not one a profile or PAGECLEAR_* variable moved. If either is
 * in force, run again without them. */
void cli_tune_clean_selection(char **argv)
{
    struct pc_host h;
    pc_host_get(&h);
    int dirty = *h.profile != '\0' || overrides(0);
    if (!dirty || getenv("PAGECLEAR_TUNE_CLEAN") != NULL)
        return;
    overrides(1);
    setenv("PAGECLEAR_PROFILE", "", 1); /* empty: no profile */
    setenv("PAGECLEAR_TUNE_CLEAN", "1", 1);
    fprintf(stderr, "pageclear: tune runs with the built-in selection (the profile or "
                    "PAGECLEAR_* variables in force are set aside)\n");
    int e = cli_exec_self(argv);
    cli_error("tune: cannot re-run itself without the overrides: %s", strerror(-e));
}
