/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * perf_mem.c - `pageclear bench mem memset|memcpy`: perf's memset and memcpy
 * workloads on cli/measure/'s timed runs. As perf: each function gets a
 * buffer of its own, mapped with MAP_POPULATE on the pages -p names and
 * written once untimed; then one timed run of -l passes, one call per -k
 * bytes, memset storing the loop's index. The figure is the bytes of all
 * passes over their time.
 * The functions: perf's names for what pageclear has the same of
 * ("default", the C library's; x86-64-unrolled and x86-64-stosq, the
 * primitives of those names), which are "all"; then every other
 * function of `pageclear mem` by its name (pc_clear, the primitives, ...).
 * Those that store only zeros store zeros whatever the loop. memcpy has
 * only "default": pageclear has no copying primitives.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "perf.h"
#include "target.h"

#define MAX_PERF_FNS (CLI_MAX_FNS + 3)

struct perf_fn {
    const char *name, *desc;
    struct cli_fn fn;
    int in_all; /* one of perf's own, run by -f all */
};

/* The functions of the workload: perf's first, then pageclear's others. */
static size_t functions(int copy, struct perf_fn *out)
{
    static const char *const perf_named[] = {"x86-64-unrolled", "x86-64-stosq"};
    size_t n = 0;
    if (copy) {
        out[n++] = (struct perf_fn){"default", "Default memcpy() provided by glibc",
                                    {"default", CLI_FN_MEMCPY, 0, 0}, 1};
        return n;
    }
    out[n] = (struct perf_fn){"default", "Default memset() provided by glibc", {"", 0, 0, 0}, 1};
    cli_fn_find("glibc", &out[n++].fn);
    for (size_t i = 0; i < sizeof(perf_named) / sizeof(perf_named[0]); i++) {
        struct cli_fn f;
        if (cli_fn_find(perf_named[i], &f) == 0 && cli_fn_fills(&f))
            out[n++] = (struct perf_fn){perf_named[i], NULL, f, 1};
    }
    struct cli_fn all[CLI_MAX_FNS];
    size_t nall = cli_fn_list(all, CLI_MAX_FNS, CLI_FNS_ALL);
    for (size_t i = 0; i < nall && n < MAX_PERF_FNS; i++) {
        size_t j = 0; /* perf's names and pageclear's: "default" and "glibc" both */
        while (j < n && strcmp(out[j].name ? out[j].name : out[j].fn.name, all[i].name) != 0)
            j++;
        if (j == n)
            out[n++] = (struct perf_fn){NULL, NULL, all[i], 0};
    }
    for (size_t i = 0; i < n; i++) {
        if (out[i].name == NULL)
            out[i].name = out[i].fn.name;
        if (out[i].desc == NULL)
            out[i].desc = cli_fn_what(&out[i].fn);
    }
    return n;
}

/* Map the function's buffer (and a copy's source); 0, or -errno with the
 * reason in err. */
static int map(const struct cli_perf_mem *m, const struct cli_fn *f, struct cli_target *t,
               char *err, size_t errlen)
{
    int copy = f->kind == CLI_FN_MEMCPY;
    int fill = copy || !cli_fn_fills(f) ? CLI_FILL_NONE : CLI_FILL_LOOP;
    int rc = cli_target_map(t, m->size, CLI_CACHE_WARM, m->page, fill, err, errlen);
    if (rc == 0 && copy && (rc = cli_target_map_source(t, err, errlen)) != 0)
        cli_target_unmap(t);
    if (rc != 0 && copy && m->page != CLI_PAGE_4K && (rc == -ENOMEM || rc == -EINVAL)) {
        size_t pg = cli_page_bytes(m->page);
        cli_hugetlb_advice(2 * ((m->size + pg - 1) / pg), m->page, err, errlen);
    }
    return rc;
}

/* One function, as perf runs it; 0, or -1 if its memory could not be had. */
static int run_one(const struct cli_perf *pf, const struct cli_perf_mem *m,
                   const struct perf_fn *f)
{
    struct cli_target t;
    char err[512];
    cli_perf_function(f->name, f->desc);
    if (map(m, &f->fn, &t, err, sizeof(err)) != 0) {
        cli_perf_alloc_failed(m->size_str, m->page, err);
        return -1;
    }
    cli_perf_copying(pf, m->size_str);
    fflush(stdout);
    struct cli_fn fn = f->fn;
    struct cli_stats st;
    double per_ns; /* bytes per nanosecond, or per cycle with -c */
    fn.chunk = m->chunk;
    cli_measure_runs(&fn, 1, &t, m->loops, 1, 0, &st, NULL, &per_ns);
    cli_target_unmap(&t);
    double bytes = (double)m->size * (double)m->loops;
    double time = m->cycles ? bytes / per_ns : bytes / per_ns / 1e9;
    cli_perf_result(pf, bytes, time, m->cycles, 1, 0);
    fflush(stdout);
    return 0;
}

/* -f help, or a name it does not know: perf's list, on stdout. */
static int list(const char *asked, const struct perf_fn *fns, size_t n)
{
    if (strcmp(asked, "help") != 0 && strcmp(asked, "h") != 0)
        printf("Unknown function: %s\n", asked);
    printf("Available functions:\n");
    for (size_t i = 0; i < n; i++)
        printf("\t%s ... %s\n", fns[i].name, fns[i].desc);
    return CLI_PERF_EXIT_VALUE;
}

static int bench(const struct cli_perf *pf, int argc, char **argv, int copy)
{
    struct cli_perf_mem m;
    struct cli_perf_opt opts[7];
    char usage[64];
    cli_perf_mem_defaults(&m);
    opts[0] = (struct cli_perf_opt){'k', "chunk", CLI_PERF_STRING, "0",
                                    "bytes per call: B, KB, MB, GB or TB (0: the whole buffer)",
                                    1, &m.chunk_str};
    cli_perf_mem_options(&m, opts + 1);
    opts[6] = (struct cli_perf_opt){0};
    snprintf(usage, sizeof(usage), "pageclear bench mem %s <options>", argv[0]);
    const struct cli_perf_cmd cmd = {usage, opts, 0};
    if (cli_perf_parse(&cmd, argc - 1, argv + 1) < 0)
        return CLI_PERF_EXIT_USAGE;
    int rc = cli_perf_mem_check(&m);
    if (rc != 0)
        return rc;
    struct perf_fn fns[MAX_PERF_FNS];
    size_t n = functions(copy, fns), ran = 0;
    int failed = 0;
    for (size_t i = 0; i < n; i++)
        if (cli_perf_wants_all(m.function) ? fns[i].in_all : strcmp(fns[i].name, m.function) == 0) {
            failed |= run_one(pf, &m, &fns[i]) != 0;
            ran++;
        }
    if (ran == 0)
        return list(m.function, fns, n);
    return failed ? CLI_PERF_EXIT_RUNTIME : 0;
}

int cli_perf_memset(const struct cli_perf *pf, int argc, char **argv)
{
    return bench(pf, argc, argv, 0);
}

int cli_perf_memcpy(const struct cli_perf *pf, int argc, char **argv)
{
    return bench(pf, argc, argv, 1);
}
