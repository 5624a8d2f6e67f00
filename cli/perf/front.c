/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * front.c - perf bench's own level, for its `mem` collection:
 *   pageclear bench [--format=default|simple] [-r N] mem memset|memcpy|mmap|all ...
 * (--format may also come before `bench`). main() hands over any command
 * line with `mem` after `bench` and perf bench's options; every other
 * `pageclear bench` is the default suite, unchanged. As perf: "# Running
 * 'mem/memset' benchmark:" before the benchmark in the default format,
 * `mem` alone lists the benchmarks, `mem all` runs each with its
 * defaults. -r is perf's repeat count: taken and checked, and, as by
 * perf's mem benchmarks, not used.
 */
#include <stdio.h>
#include <string.h>

#include "perf.h"

struct benchmark {
    const char *name, *summary;
    int (*run)(const struct cli_perf *pf, int argc, char **argv);
};

static const struct benchmark benchmarks[] = {
    {"memcpy", "Benchmark for memcpy() functions", cli_perf_memcpy},
    {"memset", "Benchmark for memset() functions", cli_perf_memset},
    {"mmap", "Benchmark for mmap() mappings", cli_perf_mmap},
};
#define NBENCH (sizeof(benchmarks) / sizeof(benchmarks[0]))

/* Does word (a long option, "--" cut) name --format or --repeat, whose
 * value is the next word when no '=' gives it? */
static int takes_next(const char *w)
{
    if (strcmp(w, "-f") == 0 || strcmp(w, "-r") == 0)
        return 1;
    if (strncmp(w, "--", 2) != 0 || w[2] == '\0' || strchr(w, '=') != NULL)
        return 0;
    return strncmp("format", w + 2, strlen(w + 2)) == 0 ||
           strncmp("repeat", w + 2, strlen(w + 2)) == 0;
}

int cli_perf_claims(int argc, char **argv)
{
    int i = 0, bench = 0;
    while (i < argc) {
        if (argv[i][0] == '-' && strcmp(argv[i], "--") != 0) {
            i += 1 + (takes_next(argv[i]) && i + 1 < argc);
        } else if (!bench && strcmp(argv[i], "bench") == 0) {
            bench = 1;
            i++;
        } else {
            break;
        }
    }
    return bench && i < argc && strcmp(argv[i], "mem") == 0;
}

static void list(void)
{
    printf("\n        # List of available benchmarks for collection 'mem':\n\n");
    for (size_t b = 0; b < NBENCH; b++)
        printf("%14s: %s\n", benchmarks[b].name, benchmarks[b].summary);
    printf("%14s: %s\n\n", "all", "Run all memory access benchmarks");
}

/* perf bench's options, before `mem` (and before or after `bench`):
 * -f/--format, -r/--repeat. Returns how many words are left, from `mem`
 * on, at *rest; -1 after a bad option, -2 after a bad value. */
static int options(int argc, char **argv, struct cli_perf *pf, char ***rest)
{
    const char *format = NULL;
    unsigned int repeat = 10;
    const struct cli_perf_opt opts[] = {
        {'f', "format", CLI_PERF_STRING, "default|simple", "the output's style", 1, &format},
        {'r', "repeat", CLI_PERF_UINT, NULL, "times to repeat the run (the mem benchmarks "
         "run once)", 1, &repeat},
        {0, NULL, CLI_PERF_BOOL, NULL, NULL, 0, NULL}};
    const struct cli_perf_cmd cmd = {
        "pageclear bench [<common options>] <collection> <benchmark> [<options>]", opts, 1};
    int n = cli_perf_parse(&cmd, argc, argv);
    if (n > 0 && strcmp(argv[0], "bench") == 0) {
        argv++;
        n = cli_perf_parse(&cmd, n - 1, argv);
    }
    *rest = argv;
    if (n < 0)
        return -1;
    if (format == NULL || strcmp(format, "default") == 0) {
        pf->format = CLI_PERF_DEFAULT;
    } else if (strcmp(format, "simple") == 0) {
        pf->format = CLI_PERF_SIMPLE;
    } else {
        printf("Unknown format descriptor: '%s'\n", format);
        return -2;
    }
    if (repeat == 0) {
        printf("Invalid repeat option: Must specify a positive value\n");
        return -2;
    }
    pf->repeat = repeat;
    return n;
}

/* `mem all`: each benchmark with its defaults, as perf runs them. */
static int run_all(const struct cli_perf *pf)
{
    int worst = 0;
    for (size_t b = 0; b < NBENCH; b++) {
        char name[16];
        char *argv[] = {name, NULL};
        snprintf(name, sizeof(name), "%s", benchmarks[b].name);
        printf("# Running mem/%s benchmark...\n", name);
        fflush(stdout);
        int rc = benchmarks[b].run(pf, 1, argv);
        if (rc > worst)
            worst = rc;
        printf("\n");
    }
    return worst;
}

int cli_perf_bench(int argc, char **argv)
{
    struct cli_perf pf;
    char **rest;
    int n = options(argc, argv, &pf, &rest);
    if (n < 0)
        return n == -1 ? CLI_PERF_EXIT_USAGE : CLI_PERF_EXIT_RUNTIME;
    if (n < 1 || strcmp(rest[0], "mem") != 0) { /* not claimed: not reached */
        printf("Unknown collection: '%s'\n", n < 1 ? "" : rest[0]);
        return CLI_PERF_EXIT_VALUE;
    }
    if (n < 2 || strcmp(rest[1], "-h") == 0 || strcmp(rest[1], "--help") == 0) {
        list();
        return 0;
    }
    if (strcmp(rest[1], "all") == 0)
        return run_all(&pf);
    for (size_t b = 0; b < NBENCH; b++)
        if (strcmp(rest[1], benchmarks[b].name) == 0) {
            if (pf.format == CLI_PERF_DEFAULT)
                printf("# Running 'mem/%s' benchmark:\n", benchmarks[b].name);
            fflush(stdout);
            return benchmarks[b].run(&pf, n - 1, rest + 1);
        }
    printf("Unknown benchmark: '%s' for collection 'mem'\n", rest[1]);
    return CLI_PERF_EXIT_VALUE;
}
