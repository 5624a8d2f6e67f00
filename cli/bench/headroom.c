/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * headroom.c - the default suite's table of the kernel's headroom. For
 * each page size that can be had (4 KiB, THP, and 2 MiB and 1 GiB hugetlb
 * pages where they are reserved), one interleaved run of:
 *   the fault path   mmap and a byte per page, populate and demand (as
 *                    the fault table: the kernel zeroes every page);
 *   the kernel's way user space clearing the same size of memory faulted
 *                    in before and out of cache (cold), with the string
 *                    instruction the kernel clears with, in the units this
 *                    kernel clears a huge page in (kernel.c: 4 KiB, 32 MiB
 *                    or the whole page);
 *   the primitives   each temporal and streaming one of the selection's
 *                    kinds (cli_fn_kinds) over the whole extent, one call.
 * Runs go round all contenders in turn, starting one later each round, so
 * drift on a shared machine reaches them alike. Printing: headroom_out.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "headroom.h"
#include "kernel.h"
#include "measure.h"
#include "mmap.h"
#include "output.h"
#include "stats.h"
#include "target.h"
#include "units.h"

/* One row's measurement state. */
struct hr_run {
    struct cli_hr_row *r;
    struct cli_target t; /* kept across runs, unless r->remapped */
    double *v;           /* v[f * runs + run] */
    struct cli_cpu *cpu; /* the fault path's: [f][before/after][run] */
    unsigned long runs;
};

/* One run of contender f: GB/s, or -1 with the reason in r->err. */
static double run_one(struct hr_run *h, size_t f, struct cli_cpu *before,
                      struct cli_cpu *after)
{
    struct cli_hr_row *r = h->r;
    struct cli_cpu scratch[2];
    double gbs = -1;
    if (f <= CLI_HR_DEMAND) {
        if (before == NULL)
            before = &scratch[0], after = &scratch[1];
        if (cli_fault_once(r->size, r->page, f == CLI_HR_POPULATE, 1, 0, 0, &gbs, before,
                           after, r->err, sizeof(r->err)) != 0)
            return -1;
        return gbs;
    }
    if (!r->remapped)
        return cli_measure_once(&r->fn[f], &h->t, 1);
    /* Too few huge pages to keep the target beside the fault path's
     * mapping: map it (populated, written and evicted, untimed) each run. */
    struct cli_target t;
    if (cli_target_map(&t, r->size, CLI_CACHE_COLD, r->page, CLI_FILL_NONE, r->err,
                       sizeof(r->err)) != 0)
        return -1;
    gbs = cli_measure_once(&r->fn[f], &t, 1);
    cli_target_unmap(&t);
    return gbs;
}

/* The cold target, kept if a fault-path mapping still fits beside it;
 * else r->remapped. 0, or -1 with the reason in r->err. */
static int prepare(struct hr_run *h)
{
    struct cli_hr_row *r = h->r;
    if (cli_target_map(&h->t, r->size, CLI_CACHE_COLD, r->page, CLI_FILL_NONE, r->err,
                       sizeof(r->err)) != 0)
        return -1;
    if (run_one(h, CLI_HR_POPULATE, NULL, NULL) >= 0)
        return 0;
    cli_target_unmap(&h->t);
    memset(&h->t, 0, sizeof(h->t));
    r->remapped = 1;
    return run_one(h, CLI_HR_POPULATE, NULL, NULL) >= 0 ? 0 : -1;
}

/* Every contender once untimed, then the runs, interleaved. */
static int rounds(struct hr_run *h)
{
    struct cli_hr_row *r = h->r;
    unsigned long runs = h->runs;
    for (size_t f = 0; f < r->n; f++)
        if (run_one(h, f, NULL, NULL) < 0)
            return -1;
    for (unsigned long k = 0; k < runs; k++)
        for (size_t i = 0; i < r->n; i++) {
            size_t f = (i + k) % r->n;
            struct cli_cpu *c = f <= CLI_HR_DEMAND ? &h->cpu[f * 2 * runs] : NULL;
            double v = run_one(h, f, c ? &c[k] : NULL, c ? &c[runs + k] : NULL);
            if (v < 0)
                return -1;
            h->v[f * runs + k] = v;
        }
    for (size_t f = 0; f < r->n; f++) {
        cli_stats(&h->v[f * runs], runs, &r->st[f]);
        if (f <= CLI_HR_DEMAND)
            cli_stats_cpu(&r->st[f], &h->cpu[f * 2 * runs], &h->cpu[f * 2 * runs + runs]);
    }
    return 0;
}

static void measure_row(struct cli_hr_row *r, unsigned long runs)
{
    struct hr_run h = {.r = r, .runs = runs};
    h.v = calloc(r->n * runs, sizeof(double));
    h.cpu = calloc(4 * runs, sizeof(struct cli_cpu));
    if (h.v == NULL || h.cpu == NULL) {
        cli_error("out of memory");
        exit(CLI_EXIT_RUNTIME);
    }
    r->ok = prepare(&h) == 0 && rounds(&h) == 0;
    cli_target_unmap(&h.t);
    free(h.v);
    free(h.cpu);
    if (!r->ok)
        return;
    for (size_t f = CLI_HR_FIRST_PRIMITIVE; f < r->n; f++) {
        int nt = cli_impl_cache(r->fn[f].name) == PC_CACHE_NONTEMPORAL;
        size_t *best = nt ? &r->best_stream : &r->best_temporal;
        if (*best == 0 || r->st[f].median > r->st[*best].median)
            *best = f;
    }
}

/* The contenders of a row: the kernel's way (the selection's string
 * instruction, which is the kernel's: rep stosb where ERMS is, in this
 * kernel's units), then the primitives of the selection's kinds. */
static void contenders(struct cli_hr_row *r, const struct cli_kernel *k)
{
    struct cli_roles roles;
    cli_roles(&roles);
    r->chunk = cli_kernel_chunk(k, cli_page_bytes(r->page), &r->assumed);
    r->n = CLI_HR_FIRST_PRIMITIVE;
    snprintf(r->fn[CLI_HR_POPULATE].name, sizeof(r->fn[0].name), "populate");
    snprintf(r->fn[CLI_HR_DEMAND].name, sizeof(r->fn[0].name), "demand");
    if (cli_fn_find(roles.string, &r->fn[CLI_HR_KERNEL]) != 0)
        cli_fn_find("generic", &r->fn[CLI_HR_KERNEL]);
    r->fn[CLI_HR_KERNEL].chunk = r->chunk;
    r->n += cli_fn_kinds(&r->fn[r->n], CLI_MAX_FNS);
}

static void save(const struct cli_hr_row *r, struct cli_records *rs)
{
    for (size_t f = 0; f < r->n; f++) {
        int clear = f >= CLI_HR_KERNEL;
        struct cli_record rec = {"headroom", r->fn[f].name, cli_page_name(r->page), r->size,
                                 clear ? r->fn[f].chunk : 0, 1, 1, "GB/s", r->st[f], NULL,
                                 clear ? "cold" : NULL, clear ? "zero" : NULL, NULL};
        cli_records_add(rs, &rec);
    }
}

void cli_headroom_table(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                        struct cli_records *rs)
{
    static const enum cli_page pages[] = {CLI_PAGE_4K, CLI_PAGE_THP, CLI_PAGE_2M, CLI_PAGE_1G};
    static struct cli_hr_row rows[sizeof(pages) / sizeof(pages[0])];
    const struct cli_kernel *k = cli_kernel();
    size_t n = sizeof(pages) / sizeof(pages[0]);
    for (size_t p = 0; p < n; p++) {
        struct cli_hr_row *r = &rows[p];
        size_t page = cli_page_bytes(pages[p]);
        *r = (struct cli_hr_row){.page = pages[p], .size = size};
        if (page > size) {
            /* --quick's 64 MiB (or a machine with little memory free):
             * one 1 GiB page per run would be most of its time. */
            char a[32];
            snprintf(r->err, sizeof(r->err), "a page is larger than the %s extent of this run",
                     cli_fmt_size(size, a, sizeof(a)));
        } else {
            contenders(r, k);
            cli_progress("%d. headroom: %s pages", table_no, cli_page_name(r->page));
            measure_row(r, runs);
            cli_progress("%s", "");
        }
        if (r->ok)
            save(r, rs);
        else if (fmt != CLI_FMT_DEFAULT)
            fprintf(stderr, "pageclear: bench: headroom, %s pages skipped: %s\n",
                    cli_page_name(r->page), r->err);
    }
    if (fmt == CLI_FMT_DEFAULT)
        cli_hr_print(k, rows, n, runs, table_no);
}
