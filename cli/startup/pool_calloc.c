/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pool_calloc.c - the calloc-style case under the pool table: one 256 MiB
 * allocation of which the owner writes 1 MiB, freed and allocated again
 * (a program's calloc(1, 256 MiB) in a loop), with the pool tracking
 * written pages and without (whole runs). The owner's write is not timed;
 * a round is the free and the allocation, all the pool's own cost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "output.h"
#include "pool_calloc.h"
#include "stats.h"
#include "units.h"

#define CALLOC_SIZE (256 * MIB) /* the allocation */
#define CALLOC_WRITTEN (1 * MIB) /* what its owner writes of it */

enum { C_ROWS = 4 };
static const struct {
    enum pc_backing backing;
    enum pc_pool_tracking tracking;
    const char *name;
} rows[C_ROWS] = {
    {PC_BACKING_THP, PC_POOL_TRACK_WRITTEN, "pool-calloc-tracked"},
    {PC_BACKING_THP, PC_POOL_TRACK_OFF, "pool-calloc-whole"},
    {PC_BACKING_4K, PC_POOL_TRACK_WRITTEN, "pool-calloc-tracked"},
    {PC_BACKING_4K, PC_POOL_TRACK_OFF, "pool-calloc-whole"},
};

struct calloc_row {
    struct cli_stats st;
    size_t cleared; /* bytes cleared per timed round */
    const char *backing;
};

/* Row i's rounds (the first untimed) into *out; 0, or -1 with the reason
 * in err (tracking unavailable here, no THP, no memory). */
static int measure_row(int i, unsigned long runs, double *v, struct calloc_row *out,
                       char *err, size_t errn)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.capacity = CALLOC_SIZE;
    o.backing = rows[i].backing;
    o.tracking = rows[i].tracking;
    struct pc_pool *pool = pc_pool_create(&o);
    char *a = pool ? pc_pool_alloc(pool, CALLOC_SIZE) : NULL;
    if (a == NULL) {
        snprintf(err, errn, "%s", strerror(errno));
        pc_pool_destroy(pool);
        return -1;
    }
    /* Each round's CPU time before [0, runs) and after [runs, 2 runs):
     * results record it for the pool's rows (the system time is the
     * kernel's write-protect and scan work). */
    struct cli_cpu *cpu = calloc(2 * runs, sizeof(*cpu));
    if (cpu == NULL) {
        snprintf(err, errn, "%s", strerror(ENOMEM));
        pc_pool_free(pool, a);
        pc_pool_destroy(pool);
        return -1;
    }
    struct pc_pool_stats s0, s1;
    for (unsigned long r = 0; r <= runs && a != NULL; r++) {
        memset(a, (int)(r % 255) + 1, CALLOC_WRITTEN); /* the owner's write */
        if (r == 1)
            pc_pool_stats(pool, &s0);
        struct cli_cpu before, after;
        cli_cpu_now(&before);
        uint64_t t0 = cli_now_ns();
        pc_pool_free(pool, a);
        a = pc_pool_alloc(pool, CALLOC_SIZE);
        uint64_t t1 = cli_now_ns();
        cli_cpu_now(&after);
        if (r > 0) {
            v[r - 1] = (double)(t1 - t0) / 1e6; /* ms, as recorded */
            cpu[r - 1] = before;
            cpu[runs + r - 1] = after;
        }
    }
    int failed = a == NULL;
    if (failed)
        snprintf(err, errn, "pc_pool_alloc: %s", strerror(errno));
    pc_pool_stats(pool, &s1);
    out->backing = pc_backing_name(s1.backing);
    out->cleared = (s1.cleared_bytes - s0.cleared_bytes) / runs;
    pc_pool_destroy(pool);
    if (!failed) {
        cli_stats(v, runs, &out->st);
        cli_stats_cpu(&out->st, cpu, cpu + runs);
    }
    free(cpu);
    return failed ? -1 : 0;
}

static void print_rows(unsigned long runs, const struct calloc_row *c, const int *ok)
{
    char a[32];
    printf("\ncalloc-style: one %s allocation, %s of it written, freed and allocated "
           "again (init_on_alloc); median ± %%stdev of %lu rounds\n",
           cli_fmt_size(CALLOC_SIZE, a, sizeof(a)), "1M", runs);
    printf("%-20s %-8s %-9s %14s %15s\n", "method", "backing", "tracking", "ms/round",
           "cleared/round");
    for (int i = 0; i < C_ROWS; i++) {
        if (!ok[i])
            continue;
        printf("%-20s %-8s %-9s %9.3f ±%3.0f%% %15s\n", rows[i].name, c[i].backing,
               rows[i].tracking == PC_POOL_TRACK_WRITTEN ? "written" : "off",
               c[i].st.median, c[i].st.stdev_pct,
               cli_fmt_size(c[i].cleared, a, sizeof(a)));
    }
}

int cli_pool_calloc_bench(unsigned long runs, enum cli_format fmt, struct cli_records *rs)
{
    struct calloc_row c[C_ROWS];
    int ok[C_ROWS], any = 0;
    double *v = calloc(runs, sizeof(double));
    if (v == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_RUNTIME;
    }
    for (int i = 0; i < C_ROWS; i++) {
        char err[256];
        cli_progress("pool: %s %s", rows[i].name, pc_backing_name(rows[i].backing));
        ok[i] = measure_row(i, runs, v, &c[i], err, sizeof(err)) == 0;
        any |= ok[i];
        cli_progress("%s", "");
        /* Tracking needs Linux 6.7+ (`pageclear info`); THP may be off. */
        if (!ok[i] && fmt == CLI_FMT_DEFAULT)
            printf("(%s on %s: not measured here: %s)\n", rows[i].name,
                   pc_backing_name(rows[i].backing), err);
        if (!ok[i])
            continue;
        struct cli_record r = {"pool", rows[i].name, c[i].backing, CALLOC_SIZE,
                               CALLOC_WRITTEN, runs, 1, "ms", c[i].st, NULL, NULL, NULL, NULL};
        cli_records_add(rs, &r);
    }
    free(v);
    if (any && fmt == CLI_FMT_DEFAULT)
        print_rows(runs, c, ok);
    return 0;
}
