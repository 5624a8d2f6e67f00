/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_options.c - `pageclear tune`'s command line: its usage, the
 * options read and checked against each other, and where the profile
 * goes. The measuring is tune.c's.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "durations.h"
#include "output.h"
#include "tune_options.h"
#include "tune_report.h"

/* The medians' standard error falls with the square root of the runs:
 * 15 runs put it near 3% with this guest's ~10% run-to-run spread, and
 * tune near a minute on 2 cores. */
#define DEFAULT_RUNS 15
#define QUICK_RUNS 5

void cli_tune_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear tune [-o FILE|-] [--if-needed] [--quick] [-n RUNS]\n"
            "                      [--json|--csv]\n"
            "  measures this machine's crossovers (vector vs string stores, temporal vs\n"
            "  streaming stores, one thread and all cores) in the cache states warm,\n"
            "  cold and use, and writes a profile: the library reads the one at the\n"
            "  default path at start, another when PAGECLEAR_PROFILE=FILE says so;\n"
            "  for programs without pageclear it ends with the GLIBC_TUNABLES setting\n"
            "  closest to what it measured, checked by timing memset under it\n"
            "  -o FILE   where to write it; '-' prints it (default:\n"
            "            $XDG_CONFIG_HOME/pageclear/profile, ~/.config/pageclear/profile)\n"
            "  --if-needed\n"
            "            keep FILE if the library takes it on this machine; measure\n"
            "            only if it is missing or refused (another CPU, malformed, ...)\n"
            "  --quick   fewer sizes and %d runs: %s (without: %s) on\n"
            "            %s\n"
            "  -n RUNS   interleaved runs per measurement (default %d)\n",
            QUICK_RUNS, CLI_TUNE_QUICK_TIME, CLI_TUNE_TIME, CLI_TIME_MACHINE, DEFAULT_RUNS);
}

int cli_tune_parse(int argc, char **argv, struct cli_tune_opts *t)
{
    t->runs = DEFAULT_RUNS;
    int have_runs = 0;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &t->fmt))
            continue;
        if (strcmp(argv[i], "--quick") == 0) {
            t->quick = 1;
            continue;
        }
        if (strcmp(argv[i], "--if-needed") == 0) {
            t->if_needed = 1;
            continue;
        }
        static const struct cli_opt spec[] = {{'o', "--output"}, {'n', "--runs"}, {0, NULL}};
        int key = cli_opt_value(spec, "tune", argc, argv, &i, &v);
        if (key < 0)
            return cli_tune_usage(stderr), -1;
        if (key == 'o') {
            if (*v == '\0') {
                cli_error("tune: -o needs a file name, or '-' for standard output");
                return -1;
            }
            t->out = v;
        } else if (cli_uint("-n", v, 2, 60, &t->runs) != 0) {
            return -1;
        } else {
            have_runs = 1;
        }
    }
    if (t->quick && !have_runs)
        t->runs = QUICK_RUNS;
    int to_stdout = t->out != NULL && strcmp(t->out, "-") == 0;
    if (t->fmt != CLI_FMT_DEFAULT && to_stdout) {
        cli_error("tune: -o - prints the profile, --json/--csv the measurements: choose one");
        return -1;
    }
    if (t->if_needed && to_stdout) {
        cli_error("tune: --if-needed keeps or replaces a file: give -o FILE, not -o -");
        return -1;
    }
    return 0;
}

int cli_tune_destination(struct cli_tune_opts *t)
{
    static char path[4096];
    if (t->out != NULL)
        return 0;
    if (cli_profile_path(path, sizeof(path)) != 0) {
        cli_error("tune: neither XDG_CONFIG_HOME nor HOME is set: give -o FILE");
        return -1;
    }
    t->out = path;
    return 0;
}
