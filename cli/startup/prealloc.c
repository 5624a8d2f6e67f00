/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * prealloc.c - `pageclear prealloc` and the default suite's table 9: time
 * to usable memory as VM and heap users read it, seconds per TiB and GB/s,
 * for each page size and thread count, with the CPU time it costs; and a
 * projection to large hosts from the per-thread rates measured here.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "commands.h"
#include "hugetlb.h"
#include "prealloc.h"
#include "stats.h"
#include "units.h"

#define TIB ((double)((size_t)1 << 40))
#define NPAGES 4
#define MAX_CONFIGS 64

static const enum cli_page all_pages[NPAGES] = {CLI_PAGE_4K, CLI_PAGE_THP, CLI_PAGE_2M,
                                               CLI_PAGE_1G};

/* One row: a method on a thread count, and its runs. */
struct config {
    enum cli_pa_method m;
    int threads;
    double *secs, *stime, *utime;
    struct cli_stats gbs, st, ut; /* GB/s; stime and utime in s/TiB */
};

struct pa {
    size_t size;
    unsigned long runs;
    int reserve;
    enum cli_format fmt;
    struct config c[MAX_CONFIGS];
    int nc;
    /* Per page size: measured, and each method's per-thread GB/s at its
     * largest thread count, for the projection. */
    int have[NPAGES];
    double per_thread[NPAGES][CLI_PA_NMETHODS];
    int at_threads[NPAGES][CLI_PA_NMETHODS];
};

/* Threads the process may use: its affinity mask. */
static int cpus_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

/* The rows: the two one-thread methods, then the two parallel ones at 1,
 * 2, 4, ... threads and at every allowed CPU. */
static int make_configs(struct pa *a)
{
    int ncpu = cpus_allowed();
    a->nc = 0;
    a->c[a->nc++].m = CLI_PA_TOUCH;
    a->c[a->nc++].m = CLI_PA_MAP_POPULATE;
    for (int m = CLI_PA_QEMU; m <= CLI_PA_PC_POPULATE; m++)
        for (int t = 1; a->nc < MAX_CONFIGS - 1; t = t * 2 < ncpu || t == ncpu ? t * 2 : ncpu) {
            a->c[a->nc].m = (enum cli_pa_method)m;
            a->c[a->nc++].threads = t;
            if (t >= ncpu)
                break;
        }
    for (int i = 0; i < a->nc; i++) {
        struct config *c = &a->c[i];
        c->threads = c->threads ? c->threads : 1;
        c->secs = calloc(a->runs, sizeof(double));
        c->stime = calloc(a->runs, sizeof(double));
        c->utime = calloc(a->runs, sizeof(double));
        if (c->secs == NULL || c->stime == NULL || c->utime == NULL)
            return -1;
    }
    return 0;
}

static void free_configs(struct pa *a)
{
    for (int i = 0; i < a->nc; i++) {
        free(a->c[i].secs);
        free(a->c[i].stime);
        free(a->c[i].utime);
    }
}

/* Bytes measured for page size p: the size, in whole pages; two 1 GiB
 * pages where memory allows (and the size is at least one), so that two
 * threads have one each. */
static size_t size_for(const struct pa *a, enum cli_page p)
{
    size_t pg = cli_page_bytes(p), n = (a->size + pg - 1) / pg * pg;
    size_t avail = cli_mem_available();
    if (p == CLI_PAGE_1G && a->size >= GIB && n < 2 * GIB && avail >= 8 * GIB)
        n = 2 * GIB;
    return n;
}

/* Every row once untimed, then runs rounds of every row in turn. */
static int measure_page(struct pa *a, enum cli_page p, size_t size, char *err, size_t errlen)
{
    struct cli_pa_sample s;
    for (int i = 0; i < a->nc; i++) {
        cli_progress("prealloc: %s %s warm-up", cli_page_name(p), cli_pa_method_name(a->c[i].m));
        if (cli_pa_run(a->c[i].m, p, size, a->c[i].threads, &s, err, errlen) != 0)
            return -1;
    }
    for (unsigned long r = 0; r < a->runs; r++)
        for (int i = 0; i < a->nc; i++) {
            struct config *c = &a->c[i];
            cli_progress("prealloc: %s run %lu/%lu %s %d", cli_page_name(p), r + 1, a->runs,
                         cli_pa_method_name(c->m), c->threads);
            if (cli_pa_run(c->m, p, size, c->threads, &s, err, errlen) != 0)
                return -1;
            c->secs[r] = (double)size / 1e9 / (s.secs > 0 ? s.secs : 1e-9);
            c->stime[r] = s.stime * TIB / (double)size;
            c->utime[r] = s.utime * TIB / (double)size;
        }
    for (int i = 0; i < a->nc; i++) {
        cli_stats(a->c[i].secs, a->runs, &a->c[i].gbs);
        cli_stats(a->c[i].stime, a->runs, &a->c[i].st);
        cli_stats(a->c[i].utime, a->runs, &a->c[i].ut);
    }
    return 0;
}

static void save(const struct pa *a, enum cli_page p, size_t size, struct cli_records *rs)
{
    for (int i = 0; i < a->nc; i++) {
        const struct config *c = &a->c[i];
        const struct cli_stats *st[3] = {&c->gbs, &c->st, &c->ut};
        const char *unit[3] = {"GB/s", "stime s/TiB", "utime s/TiB"};
        for (int k = 0; k < 3; k++) {
            struct cli_record r = {"prealloc", cli_pa_method_name(c->m), cli_page_name(p),
                                   size, 0, a->runs, (unsigned long)c->threads, unit[k],
                                   *st[k], NULL, "cold", NULL, NULL};
            cli_records_add(rs, &r);
        }
    }
}

static void print_rows(const struct pa *a, enum cli_page p)
{
    for (int i = 0; i < a->nc; i++) {
        const struct config *c = &a->c[i];
        printf("%-5s %-13s %7d %9.1f %8.2f ±%3.0f%% %10.1f %10.1f\n", cli_page_name(p),
               cli_pa_method_name(c->m), c->threads, TIB / 1e9 / c->gbs.median, c->gbs.median,
               c->gbs.stdev_pct, c->st.median, c->ut.median);
    }
}

/* Each method's per-thread rate at its largest thread count measured. */
static void keep_rates(struct pa *a, int pi)
{
    a->have[pi] = 1;
    for (int i = 0; i < a->nc; i++) {
        const struct config *c = &a->c[i];
        if (c->threads >= a->at_threads[pi][c->m]) {
            a->at_threads[pi][c->m] = c->threads;
            a->per_thread[pi][c->m] = c->gbs.median / c->threads;
        }
    }
}

/* One page size: reserve, measure, give back, print. 0, or 1 if skipped
 * (said in the table or on stderr). */
static int one_page(struct pa *a, int pi, struct cli_records *rs)
{
    enum cli_page p = all_pages[pi];
    size_t size = size_for(a, p);
    char err[512] = "";
    struct cli_hugetlb h = {.lock_fd = -1, .old = -1};
    int huge = p == CLI_PAGE_2M || p == CLI_PAGE_1G;
    int rc = 0;
    if (huge && a->reserve) {
        rc = cli_hugetlb_reserve(&h, p, size / cli_page_bytes(p), err, sizeof(err));
        /* Too fragmented for the second page size_for added: one. */
        if (rc != 0 && p == CLI_PAGE_1G && size > GIB && a->size <= GIB) {
            size = GIB;
            rc = cli_hugetlb_reserve(&h, p, 1, err, sizeof(err));
        }
    }
    if (rc == 0)
        rc = measure_page(a, p, size, err, sizeof(err));
    if (huge && a->reserve)
        cli_hugetlb_release(&h);
    cli_progress("%s", "");
    if (rc != 0) {
        if (a->fmt == CLI_FMT_DEFAULT)
            printf("%-5s unavailable: %s\n", cli_page_name(p), err);
        else
            fprintf(stderr, "pageclear: prealloc: %s pages skipped: %s\n", cli_page_name(p),
                    err);
        return 1;
    }
    keep_rates(a, pi);
    save(a, p, size, rs);
    if (a->fmt == CLI_FMT_DEFAULT)
        print_rows(a, p);
    return 0;
}

/* The hosts the projection is for: what VMMs, JVMs and GPU pools start. */
static const struct host_case {
    const char *what;
    double bytes;
    int page; /* index into all_pages */
    int threads;
} cases[] = {
    {"VM, 1 TiB of 2 MiB pages, 16 threads", TIB, 2, 16},
    {"VM, 1 TiB of 2 MiB pages, 64 threads", TIB, 2, 64},
    {"VM, 3 TiB of 1 GiB pages, 64 threads", 3 * TIB, 3, 64},
    {"JVM heap, 900 GB of THP, 64 threads", 900e9, 1, 64},
    {"pinned pool, 500 GB of 4 KiB, 64 thr.", 500e9, 0, 64},
};

static void print_projection(const struct pa *a)
{
    printf("\nProjection, not a measurement: seconds = size / (threads x the per-thread GB/s "
           "measured above\nat the most threads measured here); touch and MAP_POPULATE run on "
           "one thread whatever the host.\nIt assumes linear scaling, which a real host's memory "
           "bandwidth and NUMA links limit.\n");
    printf("%-40s %8s %13s %11s %12s\n", "host", "touch", "MAP_POPULATE", "qemu-split",
           "pc_populate");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct host_case *h = &cases[i];
        if (!a->have[h->page])
            continue;
        printf("%-40s", h->what);
        for (int m = 0; m < CLI_PA_NMETHODS; m++) {
            int t = m == CLI_PA_TOUCH || m == CLI_PA_MAP_POPULATE ? 1 : h->threads;
            double rate = a->per_thread[h->page][m] * t * 1e9;
            printf(" %*.1f s", m == 0 ? 6 : m == 1 ? 11 : m == 2 ? 9 : 10,
                   rate > 0 ? h->bytes / rate : 0.0);
        }
        printf("\n");
    }
}

static void print_header(const struct pa *a, int table_no)
{
    char s[32];
    printf("\n## %d. Time to usable memory (prealloc): %s fresh per run (1GB: %s), cold memory, "
           "first touch\n##    by this process: the kernel finds and zeroes every page. Every "
           "row ran once untimed first\n##    (a guest's first touch of its memory is slow on "
           "the host); median ± %%stdev of %lu\n##    interleaved runs; stime/utime: the "
           "process's CPU time per TiB\n",
           table_no, cli_fmt_size(a->size, s, sizeof(s)), "2 pages where memory allows",
           a->runs);
    printf("%-5s %-13s %7s %9s %8s %5s %10s %10s\n", "pages", "method", "threads", "s/TiB",
           "GB/s", "±", "stime", "utime");
}

int cli_prealloc_bench(size_t size, unsigned long runs, int reserve, const int *pages,
                       enum cli_format fmt, int table_no, struct cli_records *rs)
{
    static struct pa a;
    memset(&a, 0, sizeof(a));
    a.size = size;
    a.runs = runs;
    a.reserve = reserve;
    a.fmt = fmt;
    if (make_configs(&a) != 0) {
        free_configs(&a);
        cli_error("out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (fmt == CLI_FMT_DEFAULT)
        print_header(&a, table_no);
    int measured = 0;
    for (int pi = 0; pi < NPAGES; pi++)
        if (pages == NULL || pages[pi])
            measured += one_page(&a, pi, rs) == 0;
    if (fmt == CLI_FMT_DEFAULT && measured > 0)
        print_projection(&a);
    if (measured == 0)
        cli_error("prealloc: no page size could be measured");
    free_configs(&a);
    return measured > 0 ? 0 : CLI_EXIT_RUNTIME;
}

/* "4KB,thp": set pages[i] for each page size named. */
static int parse_pages(const char *v, int *pages)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", v);
    for (char *save, *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        enum cli_page p;
        if (cli_parse_page(t, &p) != 0) {
            cli_error("-p: invalid page size '%s' (4KB, thp, 2MB or 1GB)", t);
            return -1;
        }
        for (int i = 0; i < NPAGES; i++)
            pages[i] |= all_pages[i] == p;
    }
    return 0;
}

void cli_prealloc_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear prealloc [-s SIZE] [-n RUNS] [-p PAGES] [--no-reserve]\n"
            "                          [--json|--csv]\n"
            "  -s, --size SIZE    bytes made resident per run (default 1GB; 1 GiB pages:\n"
            "                     two pages where memory allows)\n"
            "  -n, --runs RUNS    timed rounds, interleaved over the rows (default 5)\n"
            "  -p, --page LIST    page sizes, comma-separated: 4KB,thp,2MB,1GB (default\n"
            "                     all)\n"
            "  --no-reserve       use only the hugetlb pages already free (by default,\n"
            "                     as root, the pages needed are reserved under\n"
            "                     " CLI_HUGETLB_LOCK " and given back after)\n"
            "Time to usable memory for 4 KiB, THP, 2 MiB and 1 GiB pages: a serial touch\n"
            "loop, MAP_POPULATE, QEMU-style MADV_POPULATE_WRITE shares and pc_populate.\n");
}

int cli_prealloc(int argc, char **argv)
{
    static const struct cli_opt spec[] = {{'s', "--size"}, {'n', "--runs"}, {'p', "--page"},
                                          {0, NULL}};
    enum cli_format fmt = CLI_FMT_DEFAULT;
    int pages[NPAGES] = {0}, some = 0;
    unsigned long runs = 5;
    size_t size = GIB;
    int reserve = 1;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &fmt))
            continue;
        if (strcmp(argv[i], "--no-reserve") == 0) {
            reserve = 0;
            continue;
        }
        int key = cli_opt_value(spec, "prealloc", argc, argv, &i, &v);
        if (key < 0)
            return cli_prealloc_usage(stderr), CLI_EXIT_USAGE;
        if (key == 'n' && cli_uint("-n", v, 1, 1000, &runs) != 0)
            return CLI_EXIT_USAGE;
        if (key == 's' && cli_size("-s", v, PC_PAGE_SIZE, &size) != 0)
            return CLI_EXIT_USAGE;
        if (key == 'p' && parse_pages(v, pages) != 0)
            return CLI_EXIT_USAGE;
        some |= key == 'p';
    }
    static struct cli_records rs;
    int rc = cli_prealloc_bench(size, runs, reserve, some ? pages : NULL, fmt, 9, &rs);
    if (rc == 0 && fmt != CLI_FMT_DEFAULT)
        cli_records_print(stdout, fmt, &rs);
    return rc;
}
