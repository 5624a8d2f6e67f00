/*
 * parallel.c - `pageclear parallel` and the default suite's table 6:
 * pc_clear_parallel and pc_populate from one thread to all cores, against
 * the kernel's MAP_POPULATE.
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
#include "output.h"
#include "parallel.h"
#include "stats.h"
#include "units.h"

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

static int usage(void)
{
    fprintf(stderr, "usage: pageclear parallel [-s SIZE] [-n RUNS] [--json|--csv]\n"
                    "  -s, --size SIZE    bytes per clear / populate (default 1GB)\n"
                    "  -n, --runs RUNS    timed rounds (default 5)\n");
    return CLI_EXIT_USAGE;
}

int cli_parallel(int argc, char **argv)
{
    /* -c is pool's: named as such rather than as unknown. */
    static const struct cli_opt spec[] = {{'s', "--size"}, {'n', "--runs"}, {'c', "--count"},
                                          {0, NULL}};
    enum cli_format fmt = CLI_FMT_DEFAULT;
    unsigned long runs = 5;
    size_t size = GIB;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &fmt))
            continue;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(), 0;
        const char *opt = argv[i];
        int key = cli_opt_value(spec, "parallel", argc, argv, &i, &v);
        if (key == 'c')
            cli_error("parallel: option '%s' is not for this command", opt);
        if (key < 0 || key == 'c')
            return usage();
        if (key == 'n' && cli_uint("-n", v, 1, 1000, &runs) != 0)
            return CLI_EXIT_USAGE;
        if (key == 's' && cli_size("-s", v, 1, &size) != 0)
            return CLI_EXIT_USAGE;
    }
    static struct cli_records rs;
    int rc = cli_parallel_bench(size, runs, fmt, 6, &rs);
    if (rc == 0 && fmt != CLI_FMT_DEFAULT)
        cli_records_print(stdout, fmt, &rs);
    return rc;
}
