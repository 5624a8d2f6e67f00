/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * mmap.c - `pageclear mmap`: the kernel's fault path, in perf bench mem
 * mmap's manner. Each loop maps SIZE bytes (with MAP_POPULATE for -f
 * populate, lazily for -f demand), then writes one byte per page; the time
 * of both is one sample, and munmap is untimed. The kernel zeroes every
 * page it hands out, so this measures its clearing (plus fault handling);
 * each loop's system and user CPU time is recorded beside it. -f
 * anon-w-seq is vm-scalability's case instead (anon.c): each thread maps
 * its share and writes all of it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon.h"
#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "fault.h"
#include "mmap.h"
#include "output.h"
#include "stats.h"

#define DEFAULT_LOOPS 5

enum mmap_fn { FN_DEMAND, FN_POPULATE, FN_ANON };
static const char *const fn_name[] = {"demand", "populate", "anon-w-seq"};

struct mmap_opts {
    size_t size;
    enum cli_page page;
    enum mmap_fn fn;
    unsigned long loops, threads, seed;
    enum cli_format fmt;
    int have_size, noreserve;
};

void cli_mmap_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear mmap -s SIZE [options]\n"
            "  -s, --size SIZE        bytes to map (B/KB/MB/GB/TB, powers of 1024)\n"
            "  -p, --page 4KB|thp|2MB|1GB  backing pages (default 4KB; 2MB and 1GB\n"
            "                         are hugetlb pages and must be reserved)\n"
            "  -f, --function populate|demand|anon-w-seq  MAP_POPULATE, or fault on\n"
            "                         first write (default demand); anon-w-seq: each\n"
            "                         thread maps SIZE/N and writes every byte in order\n"
            "  -l, --nr_loops LOOPS   timed loops, one sample each (default %d)\n"
            "  -t, --threads N        threads sharing the writes (default 1)\n"
            "  -r, --randomize SEED   write a random byte within each page\n"
            "  --noreserve            hugetlb without a reservation (SIGBUS if short)\n"
            "  --format=simple|default, --json, --csv\n"
            "Bandwidth is GB/s = 10^9 bytes/s of memory mapped and touched; each loop's\n"
            "system and user CPU time (all threads) is reported beside it.\n",
            DEFAULT_LOOPS);
}

static int parse(int argc, char **argv, struct mmap_opts *o)
{
    static const struct cli_opt spec[] = {
        {'s', "--size"}, {'p', "--page"}, {'f', "--function"}, {'l', "--nr_loops"},
        {'t', "--threads"}, {'r', "--randomize"}, {0, NULL}};
    *o = (struct mmap_opts){.loops = DEFAULT_LOOPS, .threads = 1};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (cli_parse_format(a, &o->fmt))
            continue;
        if (strcmp(a, "--noreserve") == 0) {
            o->noreserve = 1;
            continue;
        }
        int key = cli_opt_value(spec, "mmap", argc, argv, &i, &v);
        if (key < 0)
            return cli_mmap_usage(stderr), -1;
        switch (key) {
        case 's':
            if (cli_size("-s", v, 1, &o->size) != 0)
                return -1;
            o->have_size = 1;
            break;
        case 'p':
            if (cli_parse_page(v, &o->page) != 0) {
                cli_error("-p: invalid page size '%s' (4KB, thp, 2MB or 1GB)", v);
                return -1;
            }
            break;
        case 'f': {
            int f = FN_DEMAND;
            while (f <= FN_ANON && strcmp(v, fn_name[f]) != 0)
                f++;
            if (f > FN_ANON) {
                cli_error("-f: '%s' is not populate, demand or anon-w-seq", v);
                return -1;
            }
            o->fn = (enum mmap_fn)f;
            break;
        }
        case 'l':
            if (cli_uint("-l", v, 1, 100000, &o->loops) != 0)
                return -1;
            break;
        case 't':
            if (cli_uint("-t", v, 1, 256, &o->threads) != 0)
                return -1;
            break;
        case 'r':
            if (cli_uint("-r", v, 1, 0xffffffffUL, &o->seed) != 0)
                return -1;
            break;
        }
    }
    if (!o->have_size) {
        cli_error("mmap: -s SIZE is required");
        return cli_mmap_usage(stderr), -1;
    }
    if (o->fn == FN_ANON && (o->seed || o->noreserve)) {
        cli_error("mmap: -r and --noreserve apply to populate and demand, not anon-w-seq");
        return -1;
    }
    return 0;
}

int cli_fault_once(size_t size, enum cli_page page, int populate, unsigned long threads,
                   unsigned long seed, int noreserve, double *gbs, struct cli_cpu *before,
                   struct cli_cpu *after, char *err, size_t errlen)
{
    /* Touch each page of the backing size; THP may fall back to 4 KiB
     * pages, so it is touched at 4 KiB as perf bench does. */
    size_t stride = page == CLI_PAGE_THP ? 4096 : cli_page_bytes(page);
    int how = (populate ? CLI_MAP_POPULATE : 0) | (noreserve ? CLI_MAP_NORESERVE : 0);
    struct cli_buf b;
    size_t bad;
    cli_cpu_now(before);
    uint64_t t0 = cli_now_ns();
    int rc = cli_buf_map(&b, size, page, how, err, errlen);
    if (rc != 0)
        return rc;
    rc = cli_touch(b.addr, size, stride, threads, seed, &bad);
    uint64_t ns = cli_now_ns() - t0;
    cli_cpu_now(after);
    cli_buf_unmap(&b);
    if (rc != 0) {
        char a[32];
        snprintf(err, errlen,
                 "SIGBUS writing offset %zu of %s %s pages: the hugetlb pool ran "
                 "out (reserve more in /sys/kernel/mm/hugepages/*/nr_hugepages)",
                 bad, cli_fmt_size(size, a, sizeof(a)), cli_page_name(page));
        return rc;
    }
    *gbs = (double)size / (double)(ns ? ns : 1);
    return 0;
}

int cli_fault_measure(size_t size, enum cli_page page, int populate,
                      unsigned long loops, unsigned long threads,
                      unsigned long seed, int noreserve, struct cli_stats *st,
                      char *err, size_t errlen)
{
    double *v = calloc(loops, sizeof(double));
    struct cli_cpu *cpu = calloc(2 * loops, sizeof(*cpu));
    if (v == NULL || cpu == NULL) {
        free(v);
        free(cpu);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = 0;
    for (unsigned long l = 0; l < loops && rc == 0; l++)
        rc = cli_fault_once(size, page, populate, threads, seed ? seed + l : 0, noreserve,
                            &v[l], &cpu[l], &cpu[loops + l], err, errlen);
    if (rc == 0) {
        cli_stats(v, loops, st);
        cli_stats_cpu(st, cpu, cpu + loops);
    }
    free(v);
    free(cpu);
    return rc;
}

int cli_mmap(int argc, char **argv)
{
    struct mmap_opts o;
    struct cli_stats st;
    char err[512];

    int rc = parse(argc, argv, &o);
    if (rc != 0)
        return CLI_EXIT_USAGE;
    if (o.fn == FN_ANON)
        rc = cli_anon_measure(o.size, o.page, o.threads, o.loops, &st, err, sizeof(err));
    else
        rc = cli_fault_measure(o.size, o.page, o.fn == FN_POPULATE, o.loops, o.threads,
                               o.seed, o.noreserve, &st, err, sizeof(err));
    if (rc != 0) {
        cli_error("mmap: %s", err);
        return CLI_EXIT_RUNTIME;
    }
    /* anon-w-seq writes whole pages of each thread's share */
    size_t pg = cli_page_bytes(o.page), size = o.size;
    if (o.fn == FN_ANON)
        size = o.size / o.threads / pg * pg * o.threads;
    cli_record_header(stdout, o.fmt);
    struct cli_record r = {"mmap", fn_name[o.fn],
                           cli_page_name(o.page), size, 0, o.loops, o.threads,
                           "GB/s", st, NULL, NULL, NULL, NULL};
    cli_record_print(stdout, o.fmt, &r);
    cli_record_footer(stdout, o.fmt);
    return 0;
}
