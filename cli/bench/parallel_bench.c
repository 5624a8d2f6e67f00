/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * parallel_bench.c - `pageclear parallel` and the default suite's table 6:
 * pc_clear_parallel and pc_populate from one thread to all cores, against
 * the kernel's MAP_POPULATE; each run's system and user CPU time (every
 * thread's) is recorded beside it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "output.h"
#include "parallel_bench.h"
#include "stats.h"
#include "units.h"

/* Threads measured: one to all cores, up to this many rows. */
#define MAX_THREADS 64

struct scaling {
    size_t size;
    unsigned long runs;
    long ncpu;
    double *v;           /* one figure per run */
    struct cli_cpu *cpu; /* CPU time before [0, runs) and after [runs,
                            2 runs) each run */
    struct cli_stats clear[MAX_THREADS + 1], populate[MAX_THREADS + 1], kernel;
};

/* pc_clear_parallel over one populated buffer, 1 .. ncpu threads. 0, or
 * -1 after a message. */
static int clear_scaling(struct scaling *sc)
{
    char err[512];
    struct cli_buf b;
    if (cli_buf_map(&b, sc->size, CLI_PAGE_4K, CLI_MAP_POPULATE, err, sizeof(err)) != 0) {
        cli_error("parallel: %s", err);
        return -1;
    }
    for (long t = 1; t <= sc->ncpu; t++) {
        cli_progress("parallel: clear, %ld threads", t);
        pc_clear_parallel(b.addr, sc->size, (int)t); /* untimed: wakes the workers */
        for (unsigned long r = 0; r < sc->runs; r++) {
            cli_cpu_now(&sc->cpu[r]);
            uint64_t t0 = cli_now_ns();
            pc_clear_parallel(b.addr, sc->size, (int)t);
            uint64_t ns = cli_now_ns() - t0;
            cli_cpu_now(&sc->cpu[sc->runs + r]);
            sc->v[r] = (double)sc->size / (double)(ns ? ns : 1);
        }
        cli_stats(sc->v, sc->runs, &sc->clear[t]);
        cli_stats_cpu(&sc->clear[t], sc->cpu, sc->cpu + sc->runs);
    }
    cli_buf_unmap(&b);
    return 0;
}

/* Fresh 4 KiB-page memory each run (munmap untimed), faulted in by the
 * kernel (MAP_POPULATE, "0 threads") or by pc_populate on 1 .. ncpu
 * threads. 0, or -1 after a message. */
static int populate_scaling(struct scaling *sc)
{
    char err[512];
    for (long t = 0; t <= sc->ncpu; t++) {
        cli_progress("parallel: populate, %ld threads", t);
        for (unsigned long r = 0; r < sc->runs; r++) {
            struct cli_buf b;
            cli_cpu_now(&sc->cpu[r]);
            uint64_t t0 = cli_now_ns();
            int rc = cli_buf_map(&b, sc->size, CLI_PAGE_4K, t == 0 ? CLI_MAP_POPULATE : 0, err,
                                 sizeof(err));
            if (rc == 0 && t > 0)
                rc = pc_populate(b.addr, sc->size, (int)t, 0);
            uint64_t ns = cli_now_ns() - t0;
            cli_cpu_now(&sc->cpu[sc->runs + r]);
            cli_buf_unmap(&b); /* a no-op when the map failed */
            if (rc != 0) {
                cli_progress("%s", "");
                cli_error("parallel: populate: %s", rc == -ENOMEM ? err : strerror(-rc));
                return -1;
            }
            sc->v[r] = (double)sc->size / (double)(ns ? ns : 1);
        }
        struct cli_stats *st = t == 0 ? &sc->kernel : &sc->populate[t];
        cli_stats(sc->v, sc->runs, st);
        cli_stats_cpu(st, sc->cpu, sc->cpu + sc->runs);
    }
    return 0;
}

static void print_table(const struct scaling *sc, int table_no)
{
    char a[32];
    printf("\n## %d. Clear and populate scaling over %s (4 KiB pages): GB/s, median ± "
           "%%stdev of %lu runs\n%-8s %22s %22s\n", table_no,
           cli_fmt_size(sc->size, a, sizeof(a)), sc->runs, "threads", "pc_clear_parallel",
           "pc_populate");
    printf("%-8s %22s %14.2f ±%3.0f%%  (mmap MAP_POPULATE, the kernel)\n", "kernel", "",
           sc->kernel.median, sc->kernel.stdev_pct);
    for (long t = 1; t <= sc->ncpu; t++)
        printf("%-8ld %8.2f ±%3.0f%% (%4.2fx) %8.2f ±%3.0f%% (%4.2fx)\n", t,
               sc->clear[t].median, sc->clear[t].stdev_pct,
               sc->clear[t].median / sc->clear[1].median, sc->populate[t].median,
               sc->populate[t].stdev_pct, sc->populate[t].median / sc->kernel.median);
}

int cli_parallel_bench(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                       struct cli_records *rs)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    struct scaling sc = {.size = size, .runs = runs,
                         .ncpu = ncpu < 1 ? 1 : ncpu > MAX_THREADS ? MAX_THREADS : ncpu,
                         .v = calloc(runs, sizeof(double)),
                         .cpu = calloc(2 * runs, sizeof(struct cli_cpu))};
    if (sc.v == NULL || sc.cpu == NULL) {
        free(sc.v);
        free(sc.cpu);
        cli_error("out of memory");
        return CLI_EXIT_RUNTIME;
    }
    int rc = clear_scaling(&sc) != 0 || populate_scaling(&sc) != 0;
    cli_progress("%s", "");
    free(sc.v);
    free(sc.cpu);
    if (rc != 0)
        return CLI_EXIT_RUNTIME;
    struct cli_record k = {"parallel", "MAP_POPULATE", "4KB", size, 0, runs, 1, "GB/s",
                           sc.kernel, NULL, NULL, NULL, NULL};
    cli_records_add(rs, &k);
    for (long t = 1; t <= sc.ncpu; t++) {
        struct cli_record c = {"parallel", "pc_clear_parallel", "4KB", size, 0, runs,
                               (unsigned long)t, "GB/s", sc.clear[t], NULL, NULL, NULL, NULL};
        struct cli_record p = {"parallel", "pc_populate", "4KB", size, 0, runs,
                               (unsigned long)t, "GB/s", sc.populate[t], NULL, NULL, NULL, NULL};
        cli_records_add(rs, &c);
        cli_records_add(rs, &p);
    }
    if (fmt == CLI_FMT_DEFAULT)
        print_table(&sc, table_no);
    return 0;
}

void cli_parallel_usage(FILE *f)
{
    fprintf(f, "usage: pageclear parallel [-s SIZE] [-n RUNS] [--json|--csv]\n"
               "  -s, --size SIZE    bytes per clear / populate (default 1GB)\n"
               "  -n, --runs RUNS    timed rounds (default 5)\n");
}

int cli_parallel(int argc, char **argv)
{
    /* -c is pool's. */
    static const struct cli_opt spec[] = {
        {'s', "--size"}, {'n', "--runs"}, {'c', "--count"}, {0, NULL}};
    enum cli_format fmt = CLI_FMT_DEFAULT;
    unsigned long runs = 5;
    size_t size = GIB;
    const char *v;
    int i = 0, key;
    while ((key = cli_next_opt(spec, "c", "parallel", argc, argv, &i, &fmt, &v)) > 0) {
        if (key == 'n' && cli_uint("-n", v, 1, 1000, &runs) != 0)
            return CLI_EXIT_USAGE;
        if (key == 's' && cli_size("-s", v, 1, &size) != 0)
            return CLI_EXIT_USAGE;
    }
    if (key < 0)
        return cli_parallel_usage(stderr), CLI_EXIT_USAGE;
    static struct cli_records rs;
    int rc = cli_parallel_bench(size, runs, fmt, 6, &rs);
    if (rc == 0 && fmt != CLI_FMT_DEFAULT)
        cli_records_print(stdout, fmt, &rs);
    return rc;
}
