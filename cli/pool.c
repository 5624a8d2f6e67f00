/*
 * pool.c - `pageclear pool` and the default suite's table 5.
 *
 * pool: the published init_on_alloc case. N zeroed allocations of 2 MiB
 * obtained, per round, by
 *   page-at-a-time  clearing each 2 MiB one 4 KiB page per call
 *   batched         one pc_clear per 2 MiB (the kernel change)
 *   batched-cold    one pc_clear_cold per 2 MiB (non-temporal)
 *   fresh           mmap + populate + munmap (the kernel zeroes)
 *   pool            pc_pool_free of the N, then pc_pool_alloc of N again,
 *                   for each policy (the pool clears)
 * Every method's round includes giving the memory back, so the pool is
 * charged for its clearing wherever the policy puts it. One more row,
 * pool-bg-caught-up, times only the N allocations after the background
 * worker has finished clearing (untimed): the allocation latency a program
 * sees when it does other work between freeing and allocating.
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
#include "measure.h"
#include "output.h"
#include "pool.h"
#include "stats.h"
#include "units.h"

#define ALLOC (2 * MIB) /* the published case: 2 MiB allocations */

enum { M_PAGE, M_BATCHED, M_BATCHED_COLD, M_FRESH, M_POOL_ALLOC, M_POOL_FREE, M_POOL_BG,
       M_POOL_BG_READY, M_COUNT };
static const char *const method_name[M_COUNT] = {
    "page-at-a-time", "batched", "batched-cold", "fresh-populate", "pool-init-on-alloc",
    "pool-init-on-free", "pool-background", "pool-bg-caught-up"};

static void dirty(char *p, size_t len)
{
    for (size_t i = 0; i < len; i += 512) /* a write per 512 B: every line dirty-ish */
        p[i] = 1;
}

/* One round of method m over n allocations; seconds, or < 0 on failure. */
static double round_s(int m, size_t n, char *buf, int page_fn, enum cli_page fresh_page,
                      struct pc_pool *pool, char **ptrs, char *err, size_t errlen)
{
    uint64_t t0 = cli_now_ns();
    switch (m) {
    case M_PAGE:
        for (size_t a = 0; a < n; a++)
            for (size_t off = 0; off < ALLOC; off += PC_PAGE_SIZE)
                pc_impl_clear((size_t)page_fn, buf + a * ALLOC + off, PC_PAGE_SIZE);
        break;
    case M_BATCHED:
        for (size_t a = 0; a < n; a++)
            pc_clear(buf + a * ALLOC, ALLOC);
        break;
    case M_BATCHED_COLD:
        for (size_t a = 0; a < n; a++)
            pc_clear_cold(buf + a * ALLOC, ALLOC);
        break;
    case M_FRESH: {
        struct cli_buf b;
        if (cli_buf_map(&b, n * ALLOC, fresh_page, CLI_MAP_POPULATE, err, errlen) != 0)
            return -1;
        cli_buf_unmap(&b); /* timed: the round trip matches the pool's free */
        break;
    }
    default:
        for (size_t a = 0; a < n; a++)
            if (pc_pool_free(pool, ptrs[a]) != 0) {
                snprintf(err, errlen, "pc_pool_free failed");
                return -1;
            }
        if (m == M_POOL_BG_READY) { /* let the worker finish, untimed */
            struct pc_pool_stats st;
            do {
                usleep(200);
                pc_pool_stats(pool, &st);
            } while (st.dirty != 0);
            t0 = cli_now_ns();
        }
        for (size_t a = 0; a < n; a++)
            if ((ptrs[a] = pc_pool_alloc(pool, ALLOC)) == NULL) {
                snprintf(err, errlen, "pc_pool_alloc: %s", strerror(errno));
                return -1;
            }
        break;
    }
    return (double)(cli_now_ns() - t0) / 1e9;
}

int cli_pool_bench(size_t n, unsigned long runs, enum cli_format fmt, int table_no,
                   struct cli_records *rs)
{
    char a[32], err[512];
    size_t total = n * ALLOC;
    struct cli_stats st[M_COUNT];
    int ok[M_COUNT] = {0};
    struct pc_pool_stats ps[M_COUNT];
    const char *backing[M_COUNT] = {0};
    enum cli_page fresh_page = CLI_PAGE_2M;

    /* Page at a time with what the kernel's clear_page runs: the string
     * instruction (rep stosb, dc zva), the selection's choice for large
     * extents. */
    struct cli_roles roles;
    struct cli_fn page_fn;
    cli_roles(&roles);
    if (cli_fn_find(roles.string, &page_fn) != 0) {
        cli_error("pool: the selection's primitive %s is not runnable here", roles.string);
        return CLI_EXIT_RUNTIME;
    }
    struct cli_buf b;
    if (cli_buf_map(&b, total, CLI_PAGE_4K, CLI_MAP_POPULATE, err, sizeof(err)) != 0) {
        cli_error("pool: %s", err);
        return CLI_EXIT_RUNTIME;
    }
    /* Fresh memory: hugetlb 2 MiB pages where reserved, else THP. */
    struct cli_buf probe;
    if (cli_buf_map(&probe, total, CLI_PAGE_2M, 0, err, sizeof(err)) == 0)
        cli_buf_unmap(&probe);
    else
        fresh_page = CLI_PAGE_THP;

    double *v = calloc(runs, sizeof(double));
    char **ptrs = calloc(n, sizeof(char *));
    if (v == NULL || ptrs == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_RUNTIME;
    }
    for (int m = 0; m < M_COUNT; m++) {
        struct pc_pool *pool = NULL;
        err[0] = '\0';
        if (m >= M_POOL_ALLOC) {
            struct pc_pool_opts o;
            pc_pool_opts_init(&o);
            o.capacity = total;
            o.policy = m == M_POOL_ALLOC   ? PC_POOL_INIT_ON_ALLOC
                       : m == M_POOL_FREE ? PC_POOL_INIT_ON_FREE
                                          : PC_POOL_BACKGROUND; /* both bg rows */
            pool = pc_pool_create(&o);
            if (pool == NULL) {
                snprintf(err, sizeof(err), "pc_pool_create: %s", strerror(errno));
                continue;
            }
            for (size_t i = 0; i < n; i++)
                ptrs[i] = pc_pool_alloc(pool, ALLOC);
        }
        cli_progress("pool: %s", method_name[m]);
        int failed = 0;
        for (unsigned long r = 0; r <= runs && !failed; r++) { /* round 0 untimed */
            if (m == M_PAGE || m == M_BATCHED || m == M_BATCHED_COLD)
                dirty(b.addr, total);
            else if (pool != NULL)
                for (size_t i = 0; i < n; i++)
                    if (ptrs[i] != NULL)
                        dirty(ptrs[i], ALLOC);
            double s = round_s(m, n, b.addr, page_fn.kind, fresh_page, pool, ptrs, err,
                               sizeof(err));
            if (s < 0)
                failed = 1;
            else if (r > 0)
                v[r - 1] = s;
        }
        if (pool != NULL) {
            pc_pool_stats(pool, &ps[m]);
            backing[m] = pc_backing_name(ps[m].backing);
            pc_pool_destroy(pool);
        }
        if (failed) {
            cli_progress("%s", "");
            cli_error("pool: %s: %s", method_name[m], err);
            continue;
        }
        cli_stats(v, runs, &st[m]);
        ok[m] = 1;
    }
    cli_progress("%s", "");
    cli_buf_unmap(&b);
    free(v);
    free(ptrs);

    if (fmt == CLI_FMT_DEFAULT) {
        printf("\n## %d. init_on_alloc: %zu zeroed 2 MiB allocations (%s) per round; "
               "median ± %%stdev of %lu rounds\n", table_no, n,
               cli_fmt_size(total, a, sizeof(a)), runs);
        printf("%-20s %-14s %12s %10s %12s %12s\n", "method", "backing", "ms/round",
               "GB/s", "vs page", "vs fresh");
    }
    for (int m = 0; m < M_COUNT; m++) {
        if (!ok[m])
            continue;
        const char *bk = m == M_FRESH ? cli_page_name(fresh_page)
                         : backing[m] ? backing[m]
                                      : "4KB";
        /* Records carry the time per round in ms, as measured. */
        struct cli_stats ms = st[m];
        ms.mean *= 1e3, ms.median *= 1e3, ms.min *= 1e3, ms.max *= 1e3, ms.p99 *= 1e3;
        struct cli_record r = {"pool", method_name[m], bk, total, ALLOC, runs, 1, "ms",
                               ms, NULL, NULL, NULL, NULL};
        cli_records_add(rs, &r);
        if (fmt != CLI_FMT_DEFAULT)
            continue;
        printf("%-20s %-14s %9.1f ±%3.0f%% %8.2f", method_name[m], bk, st[m].median * 1e3,
               st[m].stdev_pct, (double)total / 1e9 / st[m].median);
        if (ok[M_PAGE])
            printf(" %11.2fx", st[M_PAGE].median / st[m].median);
        else
            printf(" %12s", "-");
        if (ok[M_FRESH])
            printf(" %11.2fx", st[M_FRESH].median / st[m].median);
        printf("\n");
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: pageclear pool [-c COUNT] [-n RUNS] [--json|--csv]\n"
                    "  -c, --count COUNT  2 MiB allocations per round (default: up to\n"
                    "                     8192 = 16 GiB, scaled to a sixth of free memory)\n"
                    "  -n, --runs RUNS    timed rounds (default 5)\n");
    return CLI_EXIT_USAGE;
}

/* The published 8192 allocations (16 GiB) where they fit: the pool, the
 * dirty buffer and fresh memory must all be live at once, with room to
 * spare on a shared machine. */
static unsigned long default_count(void)
{
    size_t avail = cli_mem_available();
    unsigned long count = 8192;
    while (count > 16 && avail && (size_t)count * ALLOC > avail / 6)
        count /= 2;
    return count;
}

int cli_pool(int argc, char **argv)
{
    /* -s is parallel's: named as such rather than as unknown. */
    static const struct cli_opt spec[] = {{'c', "--count"}, {'n', "--runs"}, {'s', "--size"},
                                          {0, NULL}};
    enum cli_format fmt = CLI_FMT_DEFAULT;
    unsigned long runs = 5, count = 0;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &fmt))
            continue;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(), 0;
        const char *opt = argv[i];
        int key = cli_opt_value(spec, "pool", argc, argv, &i, &v);
        if (key == 's')
            cli_error("pool: option '%s' is not for this command", opt);
        if (key < 0 || key == 's')
            return usage();
        if (key == 'n' && cli_uint("-n", v, 1, 1000, &runs) != 0)
            return CLI_EXIT_USAGE;
        if (key == 'c' && cli_uint("-c", v, 1, 1u << 20, &count) != 0)
            return CLI_EXIT_USAGE;
    }
    static struct cli_records rs;
    int rc = cli_pool_bench(count ? count : default_count(), runs, fmt, 5, &rs);
    if (rc == 0 && fmt != CLI_FMT_DEFAULT)
        cli_records_print(stdout, fmt, &rs);
    return rc;
}
