/*
 * measure.c - the functions a clearing benchmark can time (pc_clear,
 * glibc's memset, each primitive) and the timing core every workload
 * shares: an untimed pass each, then runs interleaved across functions so
 * that drift on a shared machine hits all of them alike.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void call(const struct cli_fn *f, char *p, size_t n)
{
    if (f->kind == CLI_FN_PC_CLEAR)
        (void)pc_clear(p, n);
    else if (f->kind == CLI_FN_GLIBC)
        memset(p, 0, n);
    else
        (void)pc_impl_clear((size_t)f->kind, p, n);
}

/* One timed run: GB/s (10^9 bytes per second). */
static double run_once(const struct cli_fn *f, char *buf, size_t size,
                       unsigned long loops)
{
    size_t chunk = f->chunk == 0 || f->chunk > size ? size : f->chunk;
    struct pc_batch b;
    pc_batch_init(&b);
    b.unit = chunk;
    b.model = PC_PREEMPT_VOLUNTARY;
    uint64_t t0 = cli_now_ns();
    for (unsigned long l = 0; l < loops; l++) {
        if (f->kind == CLI_FN_PC_BATCHED) /* one call; the library makes the units */
            (void)pc_clear_batched(buf, size, &b, NULL);
        else
            for (size_t off = 0; off < size; off += chunk)
                call(f, buf + off, size - off < chunk ? size - off : chunk);
    }
    uint64_t ns = cli_now_ns() - t0;
    return (double)size * (double)loops / (double)(ns ? ns : 1);
}

size_t cli_fn_list(struct cli_fn *fns, size_t max)
{
    size_t n = 0;
    if (n < max)
        fns[n++] = (struct cli_fn){"pc_clear", CLI_FN_PC_CLEAR, 0};
    if (n < max)
        fns[n++] = (struct cli_fn){"pc_clear_batched", CLI_FN_PC_BATCHED, 0};
    if (n < max)
        fns[n++] = (struct cli_fn){"glibc", CLI_FN_GLIBC, 0};
    for (size_t i = 0; i < pc_impl_count() && n < max; i++) {
        struct pc_impl_info in;
        pc_impl_get(i, &in);
        if (in.supported) {
            fns[n] = (struct cli_fn){"", (int)i, 0};
            snprintf(fns[n].name, sizeof(fns[n].name), "%s", in.name);
            n++;
        }
    }
    return n;
}

int cli_fn_find(const char *name, struct cli_fn *out)
{
    struct cli_fn all[CLI_MAX_FNS];
    size_t n = cli_fn_list(all, CLI_MAX_FNS);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, name) == 0) {
            *out = all[i];
            return 0;
        }
    return pc_impl_find(name) >= 0 ? -ENOTSUP : -ENOENT;
}

void cli_measure(const struct cli_fn *fns, size_t n, char *buf, size_t size,
                 unsigned long loops, unsigned long runs, int counters,
                 struct cli_stats *out, struct cli_counts *counts)
{
    double *v = calloc(n * runs, sizeof(double));
    if (v == NULL) {
        cli_error("out of memory");
        exit(CLI_EXIT_RUNTIME);
    }
    struct cli_counter_set cs;
    int have = counters && cli_counters_open(&cs) == 0;
    for (size_t f = 0; f < n; f++) {
        run_once(&fns[f], buf, size, 1);
        if (counts != NULL)
            counts[f] = (struct cli_counts){.available = have};
    }
    for (unsigned long r = 0; r < runs; r++)
        for (size_t f = 0; f < n; f++) {
            if (have)
                cli_counters_start(&cs);
            v[f * runs + r] = run_once(&fns[f], buf, size, loops);
            if (have) {
                uint64_t loads, misses;
                cli_counters_stop(&cs, &loads, &misses);
                counts[f].l1d_loads += (double)loads / (double)runs;
                counts[f].l1d_misses += (double)misses / (double)runs;
            }
        }
    if (have)
        cli_counters_close(&cs);
    for (size_t f = 0; f < n; f++)
        cli_stats(&v[f * runs], runs, &out[f]);
    free(v);
}
