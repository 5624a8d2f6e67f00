/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * mem.c - `pageclear mem memset|clear`: bandwidth of clearing a buffer, in
 * perf bench mem's manner. The buffer is mapped with MAP_POPULATE and
 * cleared once untimed; each run times LOOPS calls, one per CHUNK of an
 * extent; the figure is the statistics of RUNS runs (measure.c). --cache
 * says which extent each call gets (target.c): the same one (warm, perf's
 * way and the default), one not in cache (cold), a cold one the caller
 * then uses (use), or a fresh mapping each call touches first (first).
 * `clear` stores zeros; `memset` stores what perf's memset workload
 * does, the loop index as the byte, or -v's byte, with the functions that
 * can store any byte.
 * Without -s it sweeps sizes 4 KiB .. 4 GiB and prints one table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "counters.h"
#include "measure.h"
#include "output.h"
#include "stats.h"
#include "target.h"

/* Each run covers at least this many bytes unless -l says otherwise, so a
 * 4 KiB clear is timed over 65536 calls (~ms), not one (~30 ns, near the
 * clock's own overhead). */
#define AUTO_BYTES_PER_RUN ((size_t)256 << 20)
#define DEFAULT_RUNS 5
#define SWEEP_MIN ((size_t)4 << 10)
#define SWEEP_MAX ((size_t)4 << 30)
#define PAGE_AT_A_TIME ((size_t)4096)

struct mem_opts {
    size_t size, chunk;
    unsigned long loops, runs;
    enum cli_page page;
    enum cli_format fmt;
    enum cli_cache cache;
    const char *function;
    int have_size, counters;
    int fill; /* CLI_FILL_NONE (clear), CLI_FILL_LOOP or -v's byte */
    char stores[16];
};

static void print_help_functions(int fill)
{
    struct cli_fn fns[CLI_MAX_FNS];
    size_t n = cli_fn_list(fns, CLI_MAX_FNS, CLI_FNS_ALL | (fill ? CLI_FNS_FILL : 0));
    printf("# functions for 'pageclear mem %s -f':\n", fill ? "memset" : "clear");
    for (size_t i = 0; i < n; i++)
        printf("  %-20s %s\n", fns[i].name, cli_fn_what(&fns[i]));
    for (size_t i = 0; i < pc_impl_count(); i++) {
        struct pc_impl_info in;
        pc_impl_get(i, &in);
        if (!in.supported)
            printf("  %-20s %s  [not supported on this machine]\n", in.name, in.description);
    }
    if (fill)
        printf("  (the library's clears and zero-only primitives: 'pageclear mem clear')\n");
    printf("  %-20s %s\n", "all", "every supported function above");
}

void cli_mem_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear mem memset|clear [options]\n"
            "  -s, --size SIZE       bytes to clear (B/KB/MB/GB/TB, powers of 1024);\n"
            "                        without -s: sweep 4KB..4GB and print a table\n"
            "  -k, --chunk CHUNK     one call per CHUNK bytes (0 = whole size)\n"
            "  -l, --nr_loops LOOPS  passes per run (default: enough for 256 MiB)\n"
            "  -n, --runs RUNS       timed runs for the statistics (default %d)\n"
            "  -f, --function NAMES  a function, a comma list (interleaved), 'all'\n"
            "                        or 'help' (default pc_clear; memset: glibc)\n"
            "  --cache warm|cold|use|first  the extent each call gets: the same one\n"
            "                        again (warm, perf's way, the default), one not\n"
            "                        in cache (cold), a cold one the caller then\n"
            "                        reads and writes line by line, timed (use), or\n"
            "                        a fresh mapping it touches first (first)\n"
            "  -v, --value BYTE      memset: store BYTE (0-255); default: the loop\n"
            "                        index, as perf's memset workload\n"
            "  -p, --page 4KB|thp|2MB|1GB  backing page size (default 4KB)\n"
            "  -e, --counters        L1-dcache loads and misses per run, if available\n"
            "  --format=simple|default, --json, --csv\n"
            "Bandwidth is GB/s = 10^9 bytes/s.\n",
            DEFAULT_RUNS);
}

static int parse(int argc, char **argv, struct mem_opts *o)
{
    static const struct cli_opt spec[] = {
        {'s', "--size"}, {'k', "--chunk"}, {'l', "--nr_loops"}, {'n', "--runs"},
        {'f', "--function"}, {'p', "--page"}, {'C', "--cache"}, {'v', "--value"},
        {0, NULL}};
    *o = (struct mem_opts){.runs = DEFAULT_RUNS, .fill = CLI_FILL_NONE};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (cli_parse_format(a, &o->fmt))
            continue;
        if (strcmp(a, "-e") == 0 || strcmp(a, "--counters") == 0) {
            o->counters = 1;
            continue;
        }
        int key = cli_opt_value(spec, "mem", argc, argv, &i, &v);
        if (key < 0)
            return cli_mem_usage(stderr), -1;
        switch (key) {
        case 's':
            if (cli_size("-s", v, 1, &o->size) != 0)
                return -1;
            o->have_size = 1;
            break;
        case 'k':
            if (cli_size("-k", v, 0, &o->chunk) != 0)
                return -1;
            break;
        case 'l':
            if (cli_uint("-l", v, 1, 1000000000ul, &o->loops) != 0)
                return -1;
            break;
        case 'n':
            if (cli_uint("-n", v, 1, 10000, &o->runs) != 0)
                return -1;
            break;
        case 'f':
            o->function = v;
            break;
        case 'p':
            if (cli_parse_page(v, &o->page) != 0) {
                cli_error("-p: invalid page size '%s' (4KB, thp, 2MB or 1GB)", v);
                return -1;
            }
            break;
        case 'C':
            if (cli_parse_cache(v, &o->cache) != 0) {
                cli_error("--cache: invalid state '%s' (warm, cold, use or first)", v);
                return -1;
            }
            break;
        case 'v': {
            unsigned long byte;
            if (cli_uint("-v", v, 0, 255, &byte) != 0)
                return -1;
            o->fill = (int)byte;
            break;
        }
        }
    }
    return 0;
}

/* One function -f names, into *out; 0, or -1 after an error message. */
static int select_one(const char *want, int fill, struct cli_fn *out)
{
    int rc = cli_fn_find(want, out);
    if (rc == 0 && fill && !cli_fn_fills(out)) {
        cli_error("-f: '%s' stores only zeros: use 'pageclear mem clear -f %s'", want, want);
        return -1;
    }
    if (rc == 0)
        return 0;
    if (rc == -ENOTSUP)
        cli_error("-f: '%s' cannot run on this CPU/OS; see 'pageclear mem clear -f help'",
                  want);
    else
        cli_error("-f: unknown function '%s'; see 'pageclear mem clear -f help'", want);
    return -1;
}

/* The functions -f names (one, a comma list, or all); returns their
 * count, 0 after an error message. */
static size_t select_functions(const char *want, int fill, struct cli_fn *sel)
{
    if (want == NULL || strcmp(want, "all") == 0)
        return cli_fn_list(sel, CLI_MAX_FNS, CLI_FNS_ALL | (fill ? CLI_FNS_FILL : 0));
    size_t n = 0;
    for (const char *p = want;; p++) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        char name[sizeof(sel[0].name)];
        if (len == 0 || len >= sizeof(name)) {
            cli_error("-f: '%s': an empty or overlong name in the list", want);
            return 0;
        }
        if (n == CLI_MAX_FNS) {
            cli_error("-f: more than %d functions", CLI_MAX_FNS);
            return 0;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        if (select_one(name, fill, &sel[n++]) != 0)
            return 0;
        if (end == NULL)
            return n;
        p = end;
    }
}

static int map_or_fail(struct cli_target *t, const struct mem_opts *o, size_t size)
{
    char err[512];
    if (cli_target_map(t, size, o->cache, o->page, o->fill, err, sizeof(err)) != 0) {
        cli_error("mem: %s", err);
        return -1;
    }
    return 0;
}

static struct cli_record mem_record(const struct mem_opts *o, const char *workload,
                                    const struct cli_fn *f, size_t size,
                                    unsigned long loops, const struct cli_stats *st,
                                    const struct cli_counts *ct)
{
    return (struct cli_record){workload, f->name, cli_page_name(o->page), size, f->chunk,
                               loops, 1, "GB/s", *st, o->counters ? ct : NULL,
                               cli_cache_name(o->cache), o->stores, NULL};
}

static void counters_note(const struct mem_opts *o)
{
    char why[160];
    if (o->counters && o->fmt == CLI_FMT_DEFAULT)
        printf("# counters: %s\n", cli_counters_status(why, sizeof(why)));
}

static int run_single(const struct mem_opts *o, struct cli_fn *sel, size_t n,
                      const char *workload)
{
    struct cli_target t;
    struct cli_stats st[CLI_MAX_FNS];
    struct cli_counts ct[CLI_MAX_FNS];
    unsigned long loops = o->loops ? o->loops : cli_loops_per_run(o->size, AUTO_BYTES_PER_RUN);
    if (map_or_fail(&t, o, o->size) != 0)
        return CLI_EXIT_RUNTIME;
    for (size_t f = 0; f < n; f++)
        sel[f].chunk = o->chunk;
    cli_measure(sel, n, &t, loops, o->runs, o->counters, st, ct);
    cli_target_unmap(&t);
    counters_note(o);
    cli_record_header(stdout, o->fmt);
    for (size_t f = 0; f < n; f++) {
        struct cli_record r = mem_record(o, workload, &sel[f], o->size, loops, &st[f], &ct[f]);
        cli_record_print(stdout, o->fmt, &r);
    }
    cli_record_footer(stdout, o->fmt);
    return 0;
}

/* The sweep: every function at every size, pc_clear's ratios at the end. */
static int run_sweep(const struct mem_opts *o, struct cli_fn *sel, size_t n,
                     const char *workload)
{
    char s1[32];
    size_t avail = cli_mem_available(), max = SWEEP_MAX;
    /* Leave half of the free memory to everyone else on a shared machine. */
    while (avail && max > SWEEP_MIN && max > avail / 2)
        max /= 4;
    /* The page-at-a-time column: the string instruction the selection
     * uses for large extents, as the kernel's clear_page runs it (or, where
     * it cannot store the byte asked for, the workload's default). */
    struct cli_roles roles;
    struct cli_fn page;
    cli_roles(&roles);
    if (cli_fn_find(roles.string, &page) != 0 || (o->fill != CLI_FILL_NONE && !cli_fn_fills(&page)))
        cli_fn_find(o->fill == CLI_FILL_NONE ? "pc_clear" : "glibc", &page);
    page.chunk = PAGE_AT_A_TIME;
    snprintf(page.name + strlen(page.name), sizeof(page.name) - strlen(page.name), "/4KiB");
    if (n < CLI_MAX_FNS)
        sel[n++] = page;

    counters_note(o);
    if (o->fmt == CLI_FMT_DEFAULT) {
        printf("# pageclear mem %s: median GB/s (10^9 B/s) ± %%stdev of %lu runs, "
               "%s pages; each run >= %s; stores %s\n# cache %s: %s\n", workload, o->runs,
               cli_page_name(o->page), cli_fmt_size(AUTO_BYTES_PER_RUN, s1, sizeof(s1)),
               o->stores, cli_cache_name(o->cache), cli_cache_what(o->cache));
        printf("%-7s", "size");
        for (size_t f = 0; f < n; f++)
            printf(" %17s", sel[f].name);
        if (o->fill == CLI_FILL_NONE)
            printf("  %-18s %8s %8s %8s", "pc_clear uses", "vs-page", "vs-best",
                   "vs-glibc");
        printf("\n");
    } else {
        cli_record_header(stdout, o->fmt);
    }
    for (size_t size = SWEEP_MIN; size <= max; size *= 4) {
        struct cli_target t;
        struct cli_stats st[CLI_MAX_FNS];
        struct cli_counts ct[CLI_MAX_FNS];
        cli_progress("mem %s: %s", workload, cli_fmt_size(size, s1, sizeof(s1)));
        if (map_or_fail(&t, o, size) != 0)
            return CLI_EXIT_RUNTIME;
        unsigned long loops = o->loops ? o->loops : cli_loops_per_run(size, AUTO_BYTES_PER_RUN);
        cli_measure(sel, n, &t, loops, o->runs, o->counters, st, ct);
        cli_target_unmap(&t);
        cli_progress("%s", "");
        if (o->fmt != CLI_FMT_DEFAULT) {
            for (size_t f = 0; f < n; f++) {
                struct cli_record r = mem_record(o, workload, &sel[f], size, loops, &st[f],
                                                 &ct[f]);
                cli_record_print(stdout, o->fmt, &r);
            }
            continue;
        }
        double pc = 0, pg = 0, best = 0, glibc = 0;
        printf("%-7s", cli_fmt_size(size, s1, sizeof(s1)));
        for (size_t f = 0; f < n; f++) {
            printf(" %10.2f ±%4.1f%%", st[f].median, st[f].stdev_pct);
            if (sel[f].chunk != 0)
                pg = st[f].median;
            else if (sel[f].kind == CLI_FN_PC_CLEAR)
                pc = st[f].median;
            else if (sel[f].kind == CLI_FN_GLIBC)
                glibc = st[f].median;
            else if (sel[f].kind >= 0 && st[f].median > best) /* raw primitives */
                best = st[f].median;
        }
        if (pc > 0) /* the ratios are pc_clear's: not in a memset sweep */
            printf("  %-18s %7.2fx %7.1f%% %7.1f%%", pc_selected(size),
                   pg > 0 ? pc / pg : 0, best > 0 ? 100 * pc / best : 0,
                   glibc > 0 ? 100 * pc / glibc : 0);
        printf("\n");
        fflush(stdout);
    }
    if (o->fmt != CLI_FMT_DEFAULT)
        cli_record_footer(stdout, o->fmt);
    return 0;
}

int cli_mem(int argc, char **argv)
{
    struct mem_opts o;
    struct cli_fn sel[CLI_MAX_FNS];

    if (argc < 1 || (strcmp(argv[0], "memset") != 0 && strcmp(argv[0], "clear") != 0)) {
        cli_error("mem: expected 'memset' or 'clear'");
        return cli_mem_usage(stderr), CLI_EXIT_USAGE;
    }
    int rc = parse(argc - 1, argv + 1, &o);
    if (rc != 0)
        return CLI_EXIT_USAGE;
    int memset_workload = strcmp(argv[0], "memset") == 0;
    if (!memset_workload && o.fill != CLI_FILL_NONE) {
        cli_error("mem clear: -v applies to memset; clear stores zeros");
        return CLI_EXIT_USAGE;
    }
    if (memset_workload && o.fill == CLI_FILL_NONE)
        o.fill = CLI_FILL_LOOP; /* what perf's memset workload stores */
    if (o.fill == CLI_FILL_NONE)
        snprintf(o.stores, sizeof(o.stores), "zero");
    else if (o.fill == CLI_FILL_LOOP)
        snprintf(o.stores, sizeof(o.stores), "loop-index");
    else
        snprintf(o.stores, sizeof(o.stores), "0x%02x", (unsigned)o.fill);
    if (o.function != NULL && strcmp(o.function, "help") == 0) {
        print_help_functions(memset_workload);
        return 0;
    }
    const char *want = o.function ? o.function
                       : o.have_size ? (memset_workload ? "glibc" : "pc_clear")
                                     : "all";
    size_t n = select_functions(want, memset_workload, sel);
    if (n == 0)
        return CLI_EXIT_USAGE;
    return o.have_size ? run_single(&o, sel, n, argv[0]) : run_sweep(&o, sel, n, argv[0]);
}
