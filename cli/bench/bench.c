/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench.c - the default suite (`pageclear`, `pageclear bench`): the kernel
 * work's published tables, reproduced on this machine and scaled to its
 * memory, cores and reserved huge pages.
 *   1. clearing by unit size (4 KiB, 2 MiB, 32 MiB, whole extent)
 *   2. the fault path (populate and demand, for each page size)
 *   3. the hint neighbourhood: first touch after a straight clear vs hint
 *   4. latency against throughput: time per unit for 2, 8, 32 MiB, whole
 *   5. init_on_alloc: zeroed 2 MiB allocations, page-at-a-time to pool
 *   6. clear and populate scaling from one thread to all cores
 *   7. the cache state: warm, cold and use, 4 KiB to the main extent
 *   8. zero against a non-zero byte with the same primitives
 *   9. anon-w-seq on every core: bandwidth, system and user time
 *  10. time to usable memory: touch, MAP_POPULATE, QEMU's split,
 *      pc_populate, per page size and thread count (hugetlb pages
 *      reserved for it and given back)
 *  11. the kernel's headroom: its fault path against user space clearing
 *      the same memory its way (kernel.c), and with the best temporal and
 *      streaming primitives, per page size (headroom.c)
 * Tables 2, 5, 6 and 9 record each run's system and user CPU time too.
 * Tables go to stdout; --json/--csv print every measurement as a record
 * instead; --plot DIR also writes DIR/results.json and PNG charts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pageclear.h"

#include "anon.h"
#include "args.h"
#include "bench_states.h"
#include "buffer.h"
#include "commands.h"
#include "headroom.h"
#include "measure.h"
#include "mmap.h"
#include "output.h"
#include "parallel_bench.h"
#include "pool_bench.h"
#include "prealloc.h"
#include "stats.h"
#include "target.h"
#include "units.h"

#define NEIGHBOURHOOD (5 * PC_PAGE_SIZE) /* 2 pages either side + the hint's */

struct suite {
    size_t size;     /* main extent: 1 GiB (quick: 64 MiB) */
    size_t big;      /* 4 GiB where memory allows, else 0 */
    unsigned long runs;
    int quick;
    enum cli_format fmt;
    const char *plot_dir;
};

/* Every measurement, kept for --json, --csv and --plot. */
static struct cli_records saved;

static void save(const struct cli_record *r)
{
    cli_records_add(&saved, r);
}

static int tables(const struct suite *s)
{
    return s->fmt == CLI_FMT_DEFAULT;
}

/* ---- 1. clearing by unit size ---------------------------------------- */

#define NUNITS 4 /* 4 KiB, 2 MiB, 32 MiB, whole */

/* The functions of table 1, asked of the library: the primitives of the
 * selection's kinds of stores (cli_fn_kinds), then pc_clear_batched.
 * `few`, the 4 GiB pass, keeps the string baseline, the streaming store
 * the selection uses and pc_clear_batched, to stay in the time budget. */
static size_t units_functions(int few, struct cli_fn *out, size_t max)
{
    struct cli_roles r;
    size_t n = 0;
    cli_roles(&r);
    if (!few) {
        n = cli_fn_kinds(out, max - 1);
    } else {
        n += cli_fn_find(r.string, &out[n]) == 0;
        if (strcmp(r.stream, r.string) != 0)
            n += cli_fn_find(r.stream, &out[n]) == 0;
    }
    n += cli_fn_find("pc_clear_batched", &out[n]) == 0;
    return n;
}

static int units_table(const struct suite *s, size_t size, int few)
{
    const size_t units[NUNITS] = {4 * KIB, 2 * MIB, 32 * MIB, 0};
    struct cli_fn list[CLI_MAX_FNS / NUNITS], fns[CLI_MAX_FNS];
    struct cli_stats st[CLI_MAX_FNS];
    size_t nfn = 0;
    char a[32], err[512];

    size_t nlist = units_functions(few, list, CLI_MAX_FNS / NUNITS);
    for (size_t i = 0; i < nlist; i++)
        for (size_t u = 0; u < NUNITS; u++) {
            fns[nfn] = list[i];
            fns[nfn++].chunk = units[u];
        }
    struct cli_buf b;
    if (cli_buf_map(&b, size, CLI_PAGE_4K, CLI_MAP_POPULATE, err, sizeof(err)) != 0) {
        cli_error("bench: %s", err);
        return -1;
    }
    pc_clear(b.addr, size);
    cli_progress("1. clearing %s by unit size", cli_fmt_size(size, a, sizeof(a)));
    unsigned long runs = few ? (s->runs > 3 ? 3 : s->runs) : s->runs;
    struct cli_target t;
    cli_target_warm(&t, b.addr, size);
    cli_measure(fns, nfn, &t, 1, runs, 0, st, NULL);
    cli_buf_unmap(&b);
    cli_progress("%s", "");

    if (tables(s)) {
        printf("\n## 1. Clearing %s by unit size: GB/s (10^9 B/s), median ± %%stdev of "
               "%lu runs; (change against 4 KiB units)\n",
               cli_fmt_size(size, a, sizeof(a)), runs);
        printf("%-18s %16s %26s %26s %26s\n", "function", "4KiB units", "2MiB units",
               "32MiB units", "whole extent");
    }
    for (size_t i = 0; i < nfn; i += NUNITS) {
        if (tables(s))
            printf("%-18s %9.2f ±%4.1f%%", fns[i].name, st[i].median, st[i].stdev_pct);
        for (size_t u = 0; u < NUNITS; u++) {
            struct cli_record r = {"units", fns[i].name, "4KB", size, fns[i + u].chunk,
                                   1, 1, "GB/s", st[i + u], NULL, "warm", "zero", NULL};
            save(&r);
            if (u > 0 && tables(s))
                printf("  %9.2f ±%4.1f%% (%+5.0f%%)", st[i + u].median, st[i + u].stdev_pct,
                       100.0 * (st[i + u].median / st[i].median - 1));
        }
        if (tables(s))
            printf("\n");
    }
    return 0;
}

/* ---- 2. the fault path ----------------------------------------------- */

static void fault_table(const struct suite *s)
{
    const enum cli_page pages[] = {CLI_PAGE_4K, CLI_PAGE_THP, CLI_PAGE_2M, CLI_PAGE_1G};
    char a[32], err[512];
    unsigned long loops = s->runs;

    if (tables(s))
        printf("\n## 2. The fault path: mmap %s and write a byte per page; GB/s, "
               "median ± %%stdev of %lu loops\n%-6s %20s %20s\n",
               cli_fmt_size(s->size, a, sizeof(a)), loops, "pages", "populate", "demand");
    for (size_t p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
        struct cli_stats st[2];
        int ok = 1;
        for (int populate = 1; populate >= 0 && ok; populate--) {
            cli_progress("2. fault path: %s %s", cli_page_name(pages[p]),
                         populate ? "populate" : "demand");
            if (cli_fault_measure(s->size, pages[p], populate, loops, 1, 0, 0,
                                  &st[1 - populate], err, sizeof(err)) != 0)
                ok = 0;
        }
        cli_progress("%s", "");
        if (!ok) {
            if (tables(s))
                printf("%-6s unavailable: %s\n", cli_page_name(pages[p]), err);
            else
                fprintf(stderr, "pageclear: bench: %s pages skipped: %s\n",
                        cli_page_name(pages[p]), err);
            continue;
        }
        for (int k = 0; k < 2; k++) {
            struct cli_record r = {"fault", k == 0 ? "populate" : "demand",
                                   cli_page_name(pages[p]), s->size, 0, loops, 1, "GB/s",
                                   st[k], NULL, NULL, NULL, NULL};
            save(&r);
        }
        if (tables(s))
            printf("%-6s %12.2f ±%4.1f%% %12.2f ±%4.1f%%\n", cli_page_name(pages[p]),
                   st[0].median, st[0].stdev_pct, st[1].median, st[1].stdev_pct);
    }
}

/* ---- 3. the hint neighbourhood --------------------------------------- */

/* Read one word per cache line of the neighbourhood: ns to first touch. */
static double first_touch_ns(const char *p)
{
    volatile const uint64_t *w = (const uint64_t *)(const void *)p;
    uint64_t sum = 0, t0 = cli_now_ns();
    for (size_t i = 0; i < NEIGHBOURHOOD / 8; i += 8)
        sum += w[i];
    uint64_t ns = cli_now_ns() - t0;
    return sum == 0 ? (double)ns : -1; /* a non-zero word: the clear failed */
}

static int hint_table(const struct suite *s)
{
    size_t sizes[] = {2 * MIB, 32 * MIB, s->size};
    char a[32], err[512];
    if (tables(s))
        printf("\n## 3. Hint neighbourhood: ns to first read of the %zu KiB around the "
               "hint (the middle), median of reps\n%-8s %-18s %14s %-18s %14s\n",
               NEIGHBOURHOOD >> 10, "extent", "pc_clear uses", "straight", "hint uses",
               "pc_clear_hint");
    for (size_t i = 0; i < 3; i++) {
        size_t size = sizes[i];
        if (i == 2 && size <= sizes[1])
            break;
        struct cli_buf b;
        if (cli_buf_map(&b, size, CLI_PAGE_4K, CLI_MAP_POPULATE, err, sizeof(err)) != 0) {
            cli_error("bench: %s", err);
            return -1;
        }
        /* Enough reps for a stable median, within ~1 s per extent. */
        unsigned long reps = size <= 2 * MIB ? 200 : size <= 32 * MIB ? 40 : s->runs * 2;
        double *v[2] = {calloc(reps, sizeof(double)), calloc(reps, sizeof(double))};
        if (v[0] == NULL || v[1] == NULL) {
            cli_error("out of memory");
            exit(CLI_EXIT_RUNTIME);
        }
        char *hint = b.addr + size / 2;
        char *near = hint - 2 * PC_PAGE_SIZE;
        cli_progress("3. hint neighbourhood: %s", cli_fmt_size(size, a, sizeof(a)));
        for (unsigned long r = 0; r < reps; r++) {
            pc_clear(b.addr, size);
            v[0][r] = first_touch_ns(near);
            pc_clear_hint(b.addr, size, hint);
            v[1][r] = first_touch_ns(near);
            if (v[0][r] < 0 || v[1][r] < 0) {
                cli_error("bench: memory read back non-zero after a clear");
                exit(CLI_EXIT_RUNTIME);
            }
        }
        cli_progress("%s", "");
        cli_buf_unmap(&b);
        struct cli_stats st[2];
        for (int k = 0; k < 2; k++) {
            cli_stats(v[k], reps, &st[k]);
            free(v[k]);
            struct cli_record r = {"hint", k ? "pc_clear_hint" : "pc_clear", "4KB", size,
                                   0, reps, 1, "ns", st[k], NULL, NULL, NULL, NULL};
            save(&r);
        }
        if (tables(s))
            printf("%-8s %-18s %11.0f ns %-18s %11.0f ns  (%.1fx)\n",
                   cli_fmt_size(size, a, sizeof(a)), pc_selected(size), st[0].median,
                   pc_selected_temporal(NEIGHBOURHOOD), st[1].median,
                   st[1].median > 0 ? st[0].median / st[1].median : 0);
    }
    return 0;
}

/* ---- 4. latency against throughput ----------------------------------- */

struct unit_clock {
    uint64_t *t;
    size_t n, cap;
};

static int stamp(void *ctx, size_t done, size_t total)
{
    struct unit_clock *c = ctx;
    (void)done;
    (void)total;
    if (c->n < c->cap)
        c->t[c->n++] = cli_now_ns();
    return 0;
}

static int latency_table(const struct suite *s)
{
    const size_t units[] = {2 * MIB, 8 * MIB, 32 * MIB, 0};
    char a[32], err[512];
    struct cli_buf b;
    size_t size = s->size;
    if (cli_buf_map(&b, size, CLI_PAGE_4K, CLI_MAP_POPULATE, err, sizeof(err)) != 0) {
        cli_error("bench: %s", err);
        return -1;
    }
    pc_clear(b.addr, size);
    if (tables(s))
        printf("\n## 4. Latency against throughput: pc_clear_batched over %s, time per "
               "unit (between resched points) over %lu runs\n%-12s %-18s %10s %10s %10s "
               "%12s\n", cli_fmt_size(size, a, sizeof(a)), s->runs, "unit",
               "primitive", "median ms", "p99 ms", "max ms", "GB/s");
    for (size_t u = 0; u < 4; u++) {
        size_t unit = units[u] ? units[u] : size;
        size_t per_run = (size + unit - 1) / unit;
        struct unit_clock c = {calloc(per_run + 1, sizeof(uint64_t)), 0, per_run + 1};
        double *lat = calloc(per_run * s->runs, sizeof(double));
        double *bw = calloc(s->runs, sizeof(double));
        if (c.t == NULL || lat == NULL || bw == NULL) {
            cli_error("out of memory");
            exit(CLI_EXIT_RUNTIME);
        }
        size_t nlat = 0;
        struct pc_batch batch;
        pc_batch_init(&batch);
        batch.unit = unit;
        batch.model = PC_PREEMPT_VOLUNTARY;
        batch.resched = stamp;
        batch.ctx = &c;
        cli_progress("4. latency: %s units", cli_fmt_size(unit, a, sizeof(a)));
        for (unsigned long r = 0; r < s->runs; r++) {
            c.n = 0;
            uint64_t t0 = cli_now_ns();
            pc_clear_batched(b.addr, size, &batch, NULL);
            uint64_t t1 = cli_now_ns();
            stamp(&c, 0, 0); /* the end of the last unit */
            for (size_t i = 1; i < c.n; i++)
                lat[nlat++] = (double)(c.t[i] - c.t[i - 1]) / 1e6;
            bw[r] = (double)size / (double)(t1 - t0 ? t1 - t0 : 1);
        }
        cli_progress("%s", "");
        struct cli_stats ls, bs;
        cli_stats(lat, nlat, &ls);
        cli_stats(bw, s->runs, &bs);
        struct cli_record r1 = {"latency", "pc_clear_batched", "4KB", size, unit,
                                s->runs, 1, "ms", ls, NULL, NULL, NULL, NULL};
        struct cli_record r2 = {"latency", "pc_clear_batched", "4KB", size, unit,
                                s->runs, 1, "GB/s", bs, NULL, NULL, NULL, NULL};
        save(&r1);
        save(&r2);
        if (tables(s))
            printf("%-12s %-18s %10.3f %10.3f %10.3f %12.2f\n",
                   units[u] ? cli_fmt_size(unit, a, sizeof(a)) : "whole",
                   pc_selected(size), ls.median, ls.p99, ls.max, bs.median);
        free(c.t);
        free(lat);
        free(bw);
    }
    cli_buf_unmap(&b);
    return 0;
}

/* ---- the suite -------------------------------------------------------- */

void cli_bench_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear [bench] [--quick] [--runs N] [--json|--csv] [--plot DIR]\n"
            "  --quick       small extents and two runs: a check that all of it works\n"
            "  --runs N      repeated runs per figure (default 5)\n"
            "  --plot DIR    also write DIR/results.json and PNG charts (needs\n"
            "                python3 with matplotlib; scripts/run.sh installs it)\n");
}

static int write_json(const char *dir, char *path, size_t n)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("--plot: cannot create '%s': %s", dir, strerror(errno));
        return -1;
    }
    snprintf(path, n, "%s/results.json", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        cli_error("--plot: cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    cli_records_print(f, CLI_FMT_JSON, &saved);
    return fclose(f) == 0 ? 0 : -1;
}

static int plot(const char *dir)
{
    char json[4096], script[4096], cmd[16384];
    if (write_json(dir, json, sizeof(json)) != 0)
        return -1;
    const char *env = getenv("PAGECLEAR_PLOT_SCRIPT");
    snprintf(script, sizeof(script), "%s",
             env != NULL                            ? env
             : access(PC_PLOT_INSTALLED, R_OK) == 0 ? PC_PLOT_INSTALLED
                                                    : PC_PLOT_SOURCE);
    if (access(script, R_OK) != 0) {
        cli_error("--plot: plotting script not found (set PAGECLEAR_PLOT_SCRIPT); "
                  "results are in %s", json);
        return -1;
    }
    snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' '%s'", script, json, dir);
    if (system(cmd) != 0) {
        cli_error("--plot: the plotting script failed (python3 with matplotlib "
                  "needed: apt-get install python3-matplotlib); results are in %s", json);
        return -1;
    }
    fprintf(stderr, "pageclear: charts written to %s\n", dir);
    return 0;
}

int cli_bench(int argc, char **argv)
{
    struct suite s = {.size = GIB, .runs = 5};
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &s.fmt))
            continue;
        if (strcmp(argv[i], "--quick") == 0) {
            s.quick = 1;
            continue;
        }
        static const struct cli_opt spec[] = {{'n', "--runs"}, {'P', "--plot"}, {0, NULL}};
        int key = cli_opt_value(spec, "bench", argc, argv, &i, &v);
        if (key < 0)
            return cli_bench_usage(stderr), CLI_EXIT_USAGE;
        unsigned long runs;
        if (key == 'n') {
            if (cli_uint("--runs", v, 1, 1000, &runs) != 0)
                return CLI_EXIT_USAGE;
            s.runs = runs;
        } else {
            s.plot_dir = v;
        }
    }
    if (s.quick) {
        s.size = 64 * MIB;
        if (s.runs > 2)
            s.runs = 2;
    }
    /* Scale to memory: the main extent at most a quarter of what is free,
     * the 4 GiB pass only where 10 GiB are free. */
    size_t avail = cli_mem_available();
    while (avail && s.size > 64 * MIB && s.size > avail / 4)
        s.size /= 2;
    if (!s.quick && avail >= 10 * GIB)
        s.big = 4 * GIB;

    if (tables(&s)) {
        struct pc_host h;
        char a[32];
        pc_host_get(&h);
        printf("# pageclear %s on %s (%s), %ld cpus, %s available%s\n", pc_version(),
               h.vendor, h.features, sysconf(_SC_NPROCESSORS_ONLN),
               cli_fmt_size(avail, a, sizeof(a)), s.quick ? "; --quick" : "");
        printf("# 'pageclear info' has the details; GB/s = 10^9 bytes/s\n");
    }
    if (units_table(&s, s.size, 0) != 0)
        return CLI_EXIT_RUNTIME;
    if (s.big && units_table(&s, s.big, 1) != 0)
        return CLI_EXIT_RUNTIME;
    fault_table(&s);
    if (hint_table(&s) != 0 || latency_table(&s) != 0)
        return CLI_EXIT_RUNTIME;
    if (cli_pool_bench(s.size / (2 * MIB), s.runs, s.fmt, 5, &saved) != 0 ||
        cli_parallel_bench(s.size, s.runs, s.fmt, 6, &saved) != 0 ||
        cli_states_table(s.size, s.runs, s.fmt, 7, &saved) != 0 ||
        cli_fill_table(s.size, s.runs, s.fmt, 8, &saved) != 0)
        return CLI_EXIT_RUNTIME;
    cli_anon_table(s.size, s.runs, s.fmt, 9, &saved);
    /* Where no page size can be measured at all, the table says so; the
     * suite goes on. */
    cli_prealloc_bench(s.size, s.runs, 1, NULL, s.fmt, 10, &saved);
    cli_headroom_table(s.size, s.runs, s.fmt, 11, &saved);
    if (!tables(&s))
        cli_records_print(stdout, s.fmt, &saved);
    if (s.plot_dir != NULL && plot(s.plot_dir) != 0)
        return CLI_EXIT_RUNTIME;
    return 0;
}
