/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench_states.c - the default suite's tables on what perf bench does not
 * show: the cache state (the same extent again, a cold one, a cold one the
 * caller then uses), which changes the winner by 2x on the machines
 * measured, and zero against a non-zero byte with the same code, which
 * some CPUs store much faster.
 */
#include <stdio.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "bench_states.h"
#include "buffer.h"
#include "grid.h"
#include "measure.h"
#include "output.h"
#include "stats.h"
#include "target.h"
#include "units.h"

/* Long enough per run for the clock at every size, short enough that
 * 6 sizes x 3 states x 6 functions x runs stay near half a minute. */
#define BYTES_PER_RUN (64 * MIB)
/* The non-zero byte of the fill columns: every bit pattern differs from
 * zero's, and its nibbles differ, so nothing can pass for a special case. */
#define FILL_BYTE 0x5a

/* The selection's three kinds of stores (cli_roles): adds each one not
 * already in fns once. */
static size_t add_roles(struct cli_fn *fns, size_t n)
{
    struct cli_roles roles;
    cli_roles(&roles);
    const char *names[] = {roles.vector, roles.string, roles.stream};
    for (size_t r = 0; r < 3; r++) {
        int dup = 0;
        for (size_t i = 0; i < n; i++)
            dup |= strcmp(fns[i].name, names[r]) == 0;
        if (!dup && cli_fn_find(names[r], &fns[n]) == 0)
            n++;
    }
    return n;
}

int cli_states_table(size_t max, unsigned long runs, enum cli_format fmt, int table_no,
                     struct cli_records *rs)
{
    struct cli_fn fns[8];
    size_t nfn = 0;
    const char *lib[] = {"pc_clear", "pc_clear_cold", "glibc"};
    for (size_t i = 0; i < 3; i++)
        if (cli_fn_find(lib[i], &fns[nfn]) == 0)
            nfn++;
    nfn = add_roles(fns, nfn);
    size_t sizes[8], ns = 0;
    for (size_t s = 4 * KIB; s <= max && ns < 8; s *= 16)
        sizes[ns++] = s;
    struct cli_grid g = {.fns = fns, .nfn = nfn, .sizes = sizes, .nsize = ns, .states = 7,
                         .runs = runs, .bytes_per_run = BYTES_PER_RUN};
    if (cli_grid_run(&g, "7. cache states") != 0)
        return -1;
    char a[32];
    if (fmt == CLI_FMT_DEFAULT) {
        printf("\n## %d. Cache state: GB/s (10^9 B/s), median ± %%stdev of %lu runs\n", table_no,
               runs);
        for (int c = 0; c < CLI_NCACHE; c++)
            printf("#  %-5s %s\n", cli_cache_name((enum cli_cache)c),
                   cli_cache_what((enum cli_cache)c));
        printf("%-7s %-5s", "size", "state");
        for (size_t f = 0; f < nfn; f++)
            printf(" %17s", fns[f].name);
        printf("  %-18s %s\n", "pc_clear uses", "vs best primitive");
    }
    for (size_t si = 0; si < ns; si++)
        for (int c = 0; c < CLI_NCACHE; c++) {
            double pc = 0, best = 0;
            if (fmt == CLI_FMT_DEFAULT)
                printf("%-7s %-5s", cli_fmt_size(sizes[si], a, sizeof(a)),
                       cli_cache_name((enum cli_cache)c));
            for (size_t f = 0; f < nfn; f++) {
                const struct cli_stats *st = cli_grid_at(&g, si, (enum cli_cache)c, f);
                struct cli_record r = {"states", fns[f].name, "4KB", sizes[si], 0,
                                       g.loops[si], 1, "GB/s", *st, NULL,
                                       cli_cache_name((enum cli_cache)c), "zero", NULL};
                cli_records_add(rs, &r);
                if (fns[f].kind == CLI_FN_PC_CLEAR)
                    pc = st->median;
                else if (fns[f].kind >= 0 && st->median > best)
                    best = st->median;
                if (fmt == CLI_FMT_DEFAULT)
                    printf(" %10.2f ±%4.1f%%", st->median, st->stdev_pct);
            }
            if (fmt == CLI_FMT_DEFAULT)
                printf("  %-18s %5.0f%%\n", pc_selected(sizes[si]),
                       best > 0 ? 100 * pc / best : 0);
        }
    cli_grid_free(&g);
    return 0;
}

int cli_fill_table(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                   struct cli_records *rs)
{
    struct cli_fn all[CLI_MAX_FNS], fns[CLI_MAX_FNS];
    size_t nall = cli_fn_list(all, CLI_MAX_FNS, CLI_FNS_GLIBC | CLI_FNS_PRIMITIVES), nfn = 0;
    /* Each function twice, zero then the byte, interleaved in one
     * measurement; zero-only primitives once. */
    for (size_t i = 0; i < nall && nfn + 2 <= CLI_MAX_FNS; i++) {
        if (cli_fn_portable(&all[i]) && nall > 1)
            continue; /* the portable one matters only where it is all there is */
        fns[nfn++] = all[i];
        if (cli_fn_fills(&all[i])) {
            fns[nfn] = all[i];
            fns[nfn++].byte = FILL_BYTE;
        }
    }
    const size_t sizes[] = {MIB, size};
    struct cli_stats st[2][CLI_MAX_FNS];
    char a[32], b[32], err[512];
    for (size_t si = 0; si < 2; si++) {
        struct cli_target t;
        cli_progress("%d. zero against fill: %s", table_no, cli_fmt_size(sizes[si], a, sizeof(a)));
        if (cli_target_map(&t, sizes[si], CLI_CACHE_WARM, CLI_PAGE_4K, CLI_FILL_NONE, err,
                           sizeof(err)) != 0) {
            cli_error("bench: %s", err);
            return -1;
        }
        unsigned long loops = cli_loops_per_run(sizes[si], BYTES_PER_RUN);
        cli_measure(fns, nfn, &t, loops, runs, 0, st[si], NULL);
        cli_target_unmap(&t);
        for (size_t f = 0; f < nfn; f++) {
            char stores[8];
            snprintf(stores, sizeof(stores), "0x%02x", (unsigned)fns[f].byte);
            struct cli_record r = {"fill", fns[f].name, "4KB", sizes[si], 0, loops, 1, "GB/s",
                                   st[si][f], NULL, "warm", fns[f].byte ? stores : "zero", NULL};
            cli_records_add(rs, &r);
        }
    }
    cli_progress("%s", "");
    if (fmt != CLI_FMT_DEFAULT)
        return 0;
    printf("\n## %d. Zero against a non-zero byte (0x%02x), the same code: GB/s, median of "
           "%lu runs, warm (the same extent repeated, perf's way)\n",
           table_no, FILL_BYTE, runs);
    printf("%-18s %11s %11s %7s %11s %11s %7s\n", "function", cli_fmt_size(MIB, a, sizeof(a)),
           "fill", "zero/x", cli_fmt_size(size, b, sizeof(b)), "fill", "zero/x");
    for (size_t f = 0; f < nfn; f++) {
        if (fns[f].byte)
            continue;
        int pair = f + 1 < nfn && fns[f + 1].byte;
        printf("%-18s", fns[f].name);
        for (size_t si = 0; si < 2; si++) {
            if (pair)
                printf(" %11.2f %11.2f %6.2fx", st[si][f].median, st[si][f + 1].median,
                       st[si][f].median / st[si][f + 1].median);
            else
                printf(" %11.2f %11s %7s", st[si][f].median, "zero only", "");
        }
        printf("\n");
    }
    return 0;
}
