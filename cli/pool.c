/*
 * pool.c - `pageclear pool` and `pageclear parallel`.
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
 *
 * parallel: pc_clear_parallel and pc_populate from 1 thread to all cores,
 * against the kernel's MAP_POPULATE.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "measure.h"
#include "output.h"
#include "parallel.h"
#include "pool.h"
#include "stats.h"

#define ALLOC ((size_t)2 << 20) /* the published case: 2 MiB allocations */
#define PAGE ((size_t)4096)

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
            for (size_t off = 0; off < ALLOC; off += PAGE)
                pc_impl_clear((size_t)page_fn, buf + a * ALLOC + off, PAGE);
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

    struct cli_fn page_fn;
    if (cli_fn_find("x86-64-stosb", &page_fn) != 0 && cli_fn_find("aarch64-dczva", &page_fn) != 0)
        cli_fn_find("generic", &page_fn);
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

/* ---- clear and populate scaling ---- */

int cli_parallel_bench(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                       struct cli_records *rs)
{
    char a[32], err[512];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1)
        ncpu = 1;
    if (ncpu > 64)
        ncpu = 64;
    double *v = calloc(runs, sizeof(double));
    struct cli_stats clear_st[65], pop_st[65], kern_st;
    if (v == NULL) {
        cli_error("out of memory");
        return CLI_EXIT_RUNTIME;
    }
    struct cli_buf b;
    if (cli_buf_map(&b, size, CLI_PAGE_4K, CLI_MAP_POPULATE, err, sizeof(err)) != 0) {
        cli_error("parallel: %s", err);
        free(v);
        return CLI_EXIT_RUNTIME;
    }
    for (long t = 1; t <= ncpu; t++) {
        cli_progress("parallel: clear, %ld threads", t);
        pc_clear_parallel(b.addr, size, (int)t); /* untimed: wakes the workers */
        for (unsigned long r = 0; r < runs; r++) {
            uint64_t t0 = cli_now_ns();
            pc_clear_parallel(b.addr, size, (int)t);
            v[r] = (double)size / (double)(cli_now_ns() - t0);
        }
        cli_stats(v, runs, &clear_st[t]);
    }
    cli_buf_unmap(&b);

    /* Populate: fresh 4 KiB-page memory each run (munmap untimed). */
    for (long t = 0; t <= ncpu; t++) {
        cli_progress("parallel: populate, %ld threads", t);
        for (unsigned long r = 0; r < runs; r++) {
            uint64_t t0 = cli_now_ns();
            int rc = cli_buf_map(&b, size, CLI_PAGE_4K, t == 0 ? CLI_MAP_POPULATE : 0, err,
                                 sizeof(err));
            if (rc == 0 && t > 0)
                rc = pc_populate(b.addr, size, (int)t, 0);
            uint64_t ns = cli_now_ns() - t0;
            if (b.addr != NULL)
                cli_buf_unmap(&b);
            if (rc != 0) {
                cli_progress("%s", "");
                cli_error("parallel: populate: %s", rc == -ENOMEM ? err : strerror(-rc));
                free(v);
                return CLI_EXIT_RUNTIME;
            }
            v[r] = (double)size / (double)ns;
        }
        cli_stats(v, runs, t == 0 ? &kern_st : &pop_st[t]);
    }
    cli_progress("%s", "");
    free(v);

    struct cli_record k = {"parallel", "MAP_POPULATE", "4KB", size, 0, runs, 1, "GB/s",
                           kern_st, NULL, NULL, NULL, NULL};
    cli_records_add(rs, &k);
    for (long t = 1; t <= ncpu; t++) {
        struct cli_record c = {"parallel", "pc_clear_parallel", "4KB", size, 0, runs,
                               (unsigned long)t, "GB/s", clear_st[t], NULL, NULL, NULL, NULL};
        struct cli_record p = {"parallel", "pc_populate", "4KB", size, 0, runs,
                               (unsigned long)t, "GB/s", pop_st[t], NULL, NULL, NULL, NULL};
        cli_records_add(rs, &c);
        cli_records_add(rs, &p);
    }
    if (fmt != CLI_FMT_DEFAULT)
        return 0;
    printf("\n## %d. Clear and populate scaling over %s (4 KiB pages): GB/s, median ± "
           "%%stdev of %lu runs\n%-8s %22s %22s\n", table_no,
           cli_fmt_size(size, a, sizeof(a)), runs, "threads", "pc_clear_parallel",
           "pc_populate");
    printf("%-8s %22s %14.2f ±%3.0f%%  (mmap MAP_POPULATE, the kernel)\n", "kernel", "",
           kern_st.median, kern_st.stdev_pct);
    for (long t = 1; t <= ncpu; t++)
        printf("%-8ld %8.2f ±%3.0f%% (%4.2fx) %8.2f ±%3.0f%% (%4.2fx)\n", t,
               clear_st[t].median, clear_st[t].stdev_pct,
               clear_st[t].median / clear_st[1].median, pop_st[t].median,
               pop_st[t].stdev_pct, pop_st[t].median / kern_st.median);
    return 0;
}

/* ---- the two commands ---- */

static int usage(const char *cmd)
{
    if (strcmp(cmd, "pool") == 0)
        fprintf(stderr, "usage: pageclear pool [-c COUNT] [-n RUNS] [--json|--csv]\n"
                        "  -c, --count COUNT  2 MiB allocations per round (default: up to\n"
                        "                     8192 = 16 GiB, scaled to a sixth of free memory)\n");
    else
        fprintf(stderr, "usage: pageclear parallel [-s SIZE] [-n RUNS] [--json|--csv]\n"
                        "  -s, --size SIZE    bytes per clear / populate (default 1GB)\n");
    fprintf(stderr, "  -n, --runs RUNS    timed rounds (default 5)\n");
    return CLI_EXIT_USAGE;
}

int cli_pool_cmd(const char *cmd, int argc, char **argv)
{
    static const struct cli_opt spec[] = {
        {'c', "--count"}, {'s', "--size"}, {'n', "--runs"}, {0, NULL}};
    enum cli_format fmt = CLI_FMT_DEFAULT;
    unsigned long runs = 5, count = 0;
    size_t size = (size_t)1 << 30;
    int is_pool = strcmp(cmd, "pool") == 0;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &fmt))
            continue;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(cmd), 0;
        int key = cli_opt_value(spec, cmd, argc, argv, &i, &v);
        if (key < 0 || (key == 'c' && !is_pool) || (key == 's' && is_pool)) {
            if (key >= 0)
                cli_error("%s: option '%s' is not for this command", cmd, argv[i - 1]);
            return usage(cmd);
        }
        if (key == 'n' && cli_uint("-n", v, 1, 1000, &runs) != 0)
            return CLI_EXIT_USAGE;
        if (key == 'c' && cli_uint("-c", v, 1, 1u << 20, &count) != 0)
            return CLI_EXIT_USAGE;
        if (key == 's' && cli_size("-s", v, 1, &size) != 0)
            return CLI_EXIT_USAGE;
    }
    static struct cli_records rs;
    int rc;
    if (!is_pool) {
        rc = cli_parallel_bench(size, runs, fmt, 6, &rs);
        if (rc == 0 && fmt != CLI_FMT_DEFAULT)
            cli_records_print(stdout, fmt, &rs);
        return rc;
    }
    if (count == 0) {
        /* The published 8192 (16 GiB) where it fits: the pool, the dirty
         * buffer and fresh memory must all be live at once, with room to
         * spare on a shared machine. */
        size_t avail = cli_mem_available();
        count = 8192;
        while (count > 16 && avail && (size_t)count * ALLOC > avail / 6)
            count /= 2;
    }
    rc = cli_pool_bench(count, runs, fmt, 5, &rs);
    if (rc == 0 && fmt != CLI_FMT_DEFAULT)
        cli_records_print(stdout, fmt, &rs);
    return rc;
}
