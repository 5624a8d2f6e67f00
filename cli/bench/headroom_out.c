/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * headroom_out.c - the headroom table as printed (headroom.c measures
 * it): what this kernel does and how that was read, the figures of each
 * page size, the fault path's share of each, the kernel work's published
 * figures beside them, and what the fault path would reach here if it
 * cleared the way the fastest primitive does.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "headroom.h"
#include "kernel.h"
#include "kernel_published.h"

/* The kernel work's published demand-fault figures for page size p
 * (data/kernel-published.tsv says where they come from). */
static const char *published(enum cli_page p)
{
    switch (p) {
    case CLI_PAGE_THP:
    case CLI_PAGE_2M:
        return CLI_PUBLISHED_2M;
    case CLI_PAGE_1G:
        return CLI_PUBLISHED_1G;
    default:
        return "-";
    }
}

/* The faster of the fault path's two medians. */
static double fault_of(const struct cli_hr_row *r)
{
    double p = r->st[CLI_HR_POPULATE].median, d = r->st[CLI_HR_DEMAND].median;
    return p > d ? p : d;
}

/* median (lowest-highest) */
static const char *fig(const struct cli_stats *s, char *buf, size_t n)
{
    snprintf(buf, n, "%.2f (%.2f-%.2f)", s->median, s->min, s->max);
    return buf;
}

static void heading(const struct cli_kernel *k, unsigned long runs, int table_no)
{
    char u[64];
    const char *m = cli_kmodel_name(k->model);
    printf("\n## %d. The kernel's headroom: its fault path against user space clearing the "
           "same size of memory faulted in before and out of cache (cold); GB/s (10^9 B/s), "
           "median (lowest-highest) of %lu runs, a row's columns interleaved\n",
           table_no, runs);
    printf("# this kernel clears %s: %s\n", cli_kclear_name(k->clear), k->clear_from);
    printf("# preemption %s: %s\n", m ? m : "unknown", k->model_from);
    printf("# so it clears a huge page in %s: %s\n",
           cli_kunits_name(k, u, sizeof(u)) ? u : "units unknown", k->units_why);
    printf("# kernel's way: its string instruction in those units; best temporal, best "
           "streaming: the fastest primitive of each kind over the whole extent, one call\n");
}

static void figures(const struct cli_hr_row *rows, size_t n)
{
    char a[32], f[5][48];
    printf("%-6s %-7s %-20s %-20s %-20s %-20s %s\n", "pages", "extent", "populate", "demand",
           "kernel's way", "best temporal", "best streaming");
    for (size_t i = 0; i < n; i++) {
        const struct cli_hr_row *r = &rows[i];
        if (!r->ok) {
            printf("%-6s not measured: %s\n", cli_page_name(r->page), r->err);
            continue;
        }
        const size_t col[5] = {CLI_HR_POPULATE, CLI_HR_DEMAND, CLI_HR_KERNEL, r->best_temporal,
                               r->best_stream};
        for (int c = 0; c < 5; c++)
            if (col[c] == 0 && c > 1)
                snprintf(f[c], sizeof(f[c]), "-");
            else
                fig(&r->st[col[c]], f[c], sizeof(f[c]));
        printf("%-6s %-7s %-20s %-20s %-20s %-20s %s\n", cli_page_name(r->page),
               cli_fmt_size(r->size, a, sizeof(a)), f[0], f[1], f[2], f[3], f[4]);
    }
}

/* The fault path's share of a figure, or "-". */
static const char *share(const struct cli_hr_row *r, size_t f, char *buf, size_t n)
{
    if (f == 0) /* no primitive of that kind */
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.0f%%", 100 * fault_of(r) / r->st[f].median);
    return buf;
}

static void shares(const struct cli_hr_row *rows, size_t n)
{
    char a[32], way[64], s[3][16];
    printf("\n%-6s %-24s %-18s %-18s %9s %9s %9s  %s\n", "pages", "kernel's way",
           "best temporal", "best streaming", "fault/way", "/temporal", "/stream",
           CLI_PUBLISHED_HEADING);
    for (size_t i = 0; i < n; i++) {
        const struct cli_hr_row *r = &rows[i];
        if (!r->ok)
            continue;
        snprintf(way, sizeof(way), "%s, %s%s", r->fn[CLI_HR_KERNEL].name,
                 cli_fmt_size(r->chunk, a, sizeof(a)), r->assumed ? "?" : "");
        printf("%-6s %-24s %-18s %-18s %9s %9s %9s  %s\n", cli_page_name(r->page), way,
               r->best_temporal ? r->fn[r->best_temporal].name : "-",
               r->best_stream ? r->fn[r->best_stream].name : "-",
               share(r, CLI_HR_KERNEL, s[0], sizeof(s[0])),
               share(r, r->best_temporal, s[1], sizeof(s[1])),
               share(r, r->best_stream, s[2], sizeof(s[2])), published(r->page));
    }
}

/* The fault path's time per byte less the kernel's way's, plus the
 * fastest primitive's: what it would reach clearing as that one does. */
static void projection(const struct cli_hr_row *rows, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cli_hr_row *r = &rows[i];
        if (!r->ok)
            continue;
        size_t best = r->st[r->best_stream].median > r->st[r->best_temporal].median
                          ? r->best_stream : r->best_temporal;
        if (best == 0)
            continue;
        double fault = fault_of(r), way = r->st[CLI_HR_KERNEL].median;
        double rest = 1 / fault - 1 / way; /* ns per byte besides the clearing */
        double reach = 1 / ((rest > 0 ? rest : 0) + 1 / r->st[best].median);
        printf("%s %s %.2f GB/s with %s (now %.2f%s)", any++ ? ";" : "# The fault path would "
               "reach here, clearing as the fastest primitive does:", cli_page_name(r->page),
               reach, r->fn[best].name, fault,
               rest > 0 ? "" : "; no slower than the kernel's way: the primitive's own figure");
    }
    if (any)
        printf(".\n#   (its time per byte less the kernel's way's, plus the fastest "
               "primitive's: an estimate from the figures above, not a measurement)\n");
}

void cli_hr_print(const struct cli_kernel *k, const struct cli_hr_row *rows, size_t nrows,
                  unsigned long runs, int table_no)
{
    heading(k, runs, table_no);
    figures(rows, nrows);
    shares(rows, nrows);
    printf("# fault: the faster of populate and demand; a '?' after the kernel's units: "
           "assumed, the kernel's could not be read\n");
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].ok && rows[i].remapped)
            printf("# %s: too few huge pages to keep the cold memory beside the fault path's: "
                   "mapped afresh, untimed, for each run\n", cli_page_name(rows[i].page));
    projection(rows, nrows);
}
