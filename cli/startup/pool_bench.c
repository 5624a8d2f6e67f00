/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pool_bench.c - `pageclear pool` and the default suite's table 5.
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
 * Each round's system and user CPU time goes with it into the records
 * (the background worker's too: what it clears after a round ends is
 * charged to the rounds that follow).
 * Under the table, the calloc-style rows (pool_calloc.c).
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
#include "pool_bench.h"
#include "pool_calloc.h"
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

/* One measurement: n allocations of ALLOC bytes, `runs` rounds. */
struct pool_run {
    size_t n, total;
    unsigned long runs;
    struct cli_buf buf;       /* what the clears work on */
    int page_fn;              /* the primitive page at a time runs */
    enum cli_page fresh_page; /* what fresh memory is backed by */
    struct pc_pool *pool;     /* the pool methods' */
    char **ptrs;              /* its n allocations */
    double *v;                /* one figure per round: ms */
    struct cli_cpu *cpu;      /* CPU time before [0, runs) and after
                                 [runs, 2 runs) each round */
    char err[512];
};

/* The methods that clear p->buf in place (the others get their memory
 * from the kernel or the pool). */
static int in_place(int m)
{
    return m == M_PAGE || m == M_BATCHED || m == M_BATCHED_COLD;
}

/* Give the pool's n allocations back and take n again; < 0 with the
 * reason in p->err. The caught-up row starts the clock only once the
 * worker has cleared what was freed. */
static int pool_round(struct pool_run *p, int m, uint64_t *t0)
{
    for (size_t a = 0; a < p->n; a++)
        if (pc_pool_free(p->pool, p->ptrs[a]) != 0) {
            snprintf(p->err, sizeof(p->err), "pc_pool_free failed");
            return -1;
        }
    if (m == M_POOL_BG_READY) { /* let the worker finish, untimed */
        struct pc_pool_stats st;
        do {
            usleep(200);
            pc_pool_stats(p->pool, &st);
        } while (st.dirty != 0);
        *t0 = cli_now_ns();
    }
    for (size_t a = 0; a < p->n; a++)
        if ((p->ptrs[a] = pc_pool_alloc(p->pool, ALLOC)) == NULL) {
            snprintf(p->err, sizeof(p->err), "pc_pool_alloc: %s", strerror(errno));
            return -1;
        }
    return 0;
}

/* One round of method m; seconds, or < 0 with the reason in p->err. */
static double round_s(struct pool_run *p, int m)
{
    char *buf = p->buf.addr;
    uint64_t t0 = cli_now_ns();
    if (m == M_PAGE) {
        for (size_t a = 0; a < p->n; a++)
            for (size_t off = 0; off < ALLOC; off += PC_PAGE_SIZE)
                pc_impl_clear((size_t)p->page_fn, buf + a * ALLOC + off, PC_PAGE_SIZE);
    } else if (m == M_BATCHED) {
        for (size_t a = 0; a < p->n; a++)
            pc_clear(buf + a * ALLOC, ALLOC);
    } else if (m == M_BATCHED_COLD) {
        for (size_t a = 0; a < p->n; a++)
            pc_clear_cold(buf + a * ALLOC, ALLOC);
    } else if (m == M_FRESH) {
        struct cli_buf b;
        if (cli_buf_map(&b, p->total, p->fresh_page, CLI_MAP_POPULATE, p->err,
                        sizeof(p->err)) != 0)
            return -1;
        cli_buf_unmap(&b); /* timed: the round trip matches the pool's free */
    } else if (pool_round(p, m, &t0) != 0) {
        return -1;
    }
    return (double)(cli_now_ns() - t0) / 1e9;
}

/* The pool for method m (with its n allocations made), or NULL with the
 * reason in p->err. */
static struct pc_pool *make_pool(struct pool_run *p, int m)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.capacity = p->total;
    o.policy = m == M_POOL_ALLOC  ? PC_POOL_INIT_ON_ALLOC
               : m == M_POOL_FREE ? PC_POOL_INIT_ON_FREE
                                  : PC_POOL_BACKGROUND; /* both bg rows */
    struct pc_pool *pool = pc_pool_create(&o);
    if (pool == NULL) {
        snprintf(p->err, sizeof(p->err), "pc_pool_create: %s", strerror(errno));
        return NULL;
    }
    for (size_t i = 0; i < p->n; i++)
        p->ptrs[i] = pc_pool_alloc(pool, ALLOC);
    return pool;
}

/* Method m's rounds (the first untimed) into *st, and what backed its
 * memory into *backing. 0, or -1 after a message. */
static int measure(struct pool_run *p, int m, struct cli_stats *st, const char **backing)
{
    p->err[0] = '\0';
    p->pool = m >= M_POOL_ALLOC ? make_pool(p, m) : NULL;
    int failed = m >= M_POOL_ALLOC && p->pool == NULL;
    cli_progress("pool: %s", method_name[m]);
    for (unsigned long r = 0; r <= p->runs && !failed; r++) {
        if (in_place(m))
            dirty(p->buf.addr, p->total);
        else if (p->pool != NULL)
            for (size_t i = 0; i < p->n; i++)
                if (p->ptrs[i] != NULL)
                    dirty(p->ptrs[i], ALLOC);
        struct cli_cpu before, after;
        cli_cpu_now(&before);
        double s = round_s(p, m);
        cli_cpu_now(&after);
        if (s < 0) {
            failed = 1;
        } else if (r > 0) {
            p->v[r - 1] = s * 1e3;
            p->cpu[r - 1] = before;
            p->cpu[p->runs + r - 1] = after;
        }
    }
    *backing = m == M_FRESH ? cli_page_name(p->fresh_page) : "4KB";
    if (p->pool != NULL) {
        struct pc_pool_stats ps;
        pc_pool_stats(p->pool, &ps);
        *backing = pc_backing_name(ps.backing);
        pc_pool_destroy(p->pool);
        p->pool = NULL;
    }
    if (failed) {
        cli_progress("%s", "");
        cli_error("pool: %s: %s", method_name[m], p->err);
        return -1;
    }
    cli_stats(p->v, p->runs, st);
    cli_stats_cpu(st, p->cpu, p->cpu + p->runs);
    return 0;
}

/* Set up p: the page-at-a-time primitive, the buffer, what fresh memory
 * is backed by, the arrays. 0, or -1 after a message, nothing held. */
static int setup(struct pool_run *p)
{
    /* Page at a time with what the kernel's clear_page runs: the string
     * instruction (rep stosb, dc zva), the selection's choice for large
     * extents. */
    struct cli_roles roles;
    struct cli_fn page_fn;
    cli_roles(&roles);
    if (cli_fn_find(roles.string, &page_fn) != 0) {
        cli_error("pool: the selection's primitive %s is not runnable here", roles.string);
        return -1;
    }
    p->page_fn = page_fn.kind;
    if (cli_buf_map(&p->buf, p->total, CLI_PAGE_4K, CLI_MAP_POPULATE, p->err,
                    sizeof(p->err)) != 0) {
        cli_error("pool: %s", p->err);
        return -1;
    }
    /* Fresh memory: hugetlb 2 MiB pages where reserved, else THP. */
    struct cli_buf probe;
    p->fresh_page = CLI_PAGE_2M;
    if (cli_buf_map(&probe, p->total, CLI_PAGE_2M, 0, p->err, sizeof(p->err)) == 0)
        cli_buf_unmap(&probe);
    else
        p->fresh_page = CLI_PAGE_THP;
    p->v = calloc(p->runs, sizeof(double));
    p->cpu = calloc(2 * p->runs, sizeof(*p->cpu));
    p->ptrs = calloc(p->n, sizeof(char *));
    if (p->v == NULL || p->cpu == NULL || p->ptrs == NULL) {
        cli_error("out of memory");
        free(p->v);
        free(p->cpu);
        free(p->ptrs);
        cli_buf_unmap(&p->buf);
        return -1;
    }
    return 0;
}

static void print_table(const struct pool_run *p, int table_no, const struct cli_stats *st,
                        const int *ok, const char *const *backing)
{
    char a[32];
    printf("\n## %d. init_on_alloc: %zu zeroed 2 MiB allocations (%s) per round; "
           "median ± %%stdev of %lu rounds\n", table_no, p->n,
           cli_fmt_size(p->total, a, sizeof(a)), p->runs);
    printf("%-20s %-14s %12s %10s %12s %12s\n", "method", "backing", "ms/round", "GB/s",
           "vs page", "vs fresh");
    for (int m = 0; m < M_COUNT; m++) {
        if (!ok[m])
            continue;
        printf("%-20s %-14s %9.1f ±%3.0f%% %8.2f", method_name[m], backing[m],
               st[m].median, st[m].stdev_pct, (double)p->total / 1e6 / st[m].median);
        if (ok[M_PAGE])
            printf(" %11.2fx", st[M_PAGE].median / st[m].median);
        else
            printf(" %12s", "-");
        if (ok[M_FRESH])
            printf(" %11.2fx", st[M_FRESH].median / st[m].median);
        printf("\n");
    }
}

int cli_pool_bench(size_t n, unsigned long runs, enum cli_format fmt, int table_no,
                   struct cli_records *rs)
{
    struct pool_run p = {.n = n, .total = n * ALLOC, .runs = runs};
    struct cli_stats st[M_COUNT];
    int ok[M_COUNT];
    const char *backing[M_COUNT];
    if (setup(&p) != 0)
        return CLI_EXIT_RUNTIME;
    for (int m = 0; m < M_COUNT; m++)
        ok[m] = measure(&p, m, &st[m], &backing[m]) == 0;
    cli_progress("%s", "");
    cli_buf_unmap(&p.buf);
    free(p.v);
    free(p.cpu);
    free(p.ptrs);
    for (int m = 0; m < M_COUNT; m++) {
        if (!ok[m])
            continue;
        struct cli_record r = {"pool", method_name[m], backing[m], p.total, ALLOC, runs, 1,
                               "ms", st[m], NULL, NULL, NULL, NULL};
        cli_records_add(rs, &r);
    }
    if (fmt == CLI_FMT_DEFAULT)
        print_table(&p, table_no, st, ok, backing);
    return cli_pool_calloc_bench(runs, fmt, rs);
}

void cli_pool_usage(FILE *f)
{
    fprintf(f, "usage: pageclear pool [-c COUNT] [-n RUNS] [--json|--csv]\n"
               "  -c, --count COUNT  2 MiB allocations per round (default: up to\n"
               "                     8192 = 16 GiB, scaled to a sixth of free memory)\n"
               "  -n, --runs RUNS    timed rounds (default 5)\n");
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
    /* -s is parallel's. */
    static const struct cli_opt spec[] = {
        {'c', "--count"}, {'n', "--runs"}, {'s', "--size"}, {0, NULL}};
    enum cli_format fmt = CLI_FMT_DEFAULT;
    unsigned long runs = 5, count = 0;
    const char *v;
    int i = 0, key;
    while ((key = cli_next_opt(spec, "s", "pool", argc, argv, &i, &fmt, &v)) > 0) {
        if (key == 'n' && cli_uint("-n", v, 1, 1000, &runs) != 0)
            return CLI_EXIT_USAGE;
        if (key == 'c' && cli_uint("-c", v, 1, 1u << 20, &count) != 0)
            return CLI_EXIT_USAGE;
    }
    if (key < 0)
        return cli_pool_usage(stderr), CLI_EXIT_USAGE;
    static struct cli_records rs;
    int rc = cli_pool_bench(count ? count : default_count(), runs, fmt, 5, &rs);
    if (rc == 0 && fmt != CLI_FMT_DEFAULT)
        cli_records_print(stdout, fmt, &rs);
    return rc;
}
