/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * perf_mmap.c - `pageclear bench mem mmap`: perf's fault-path workload on
 * cli/bench/mmap.c's timed round (map SIZE, write a byte per page; the
 * unmap untimed). As perf: each of -t threads maps its own SIZE, -l times,
 * and its time is the sum of its rounds; the figure is SIZE x loops over
 * the threads' mean time, so with threads it is each thread's rate
 * ("GB/sec/thread"), beside the spread of their times: the standard error
 * of their mean, in % of it. -r SEED writes a random byte of each page.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "buffer.h"
#include "mmap.h"
#include "perf.h"
#include "stats.h"

struct job {
    const struct cli_perf_mem *m;
    int populate;
    unsigned int index;
    double time; /* its rounds' nanoseconds (cycles with -c) */
    int rc;
    char err[512];
};

static void *worker(void *arg)
{
    struct job *j = arg;
    const struct cli_perf_mem *m = j->m;
    for (unsigned int l = 0; l < m->loops && j->rc == 0; l++) {
        /* A seed per thread and round: the same pages are not hit alike. */
        unsigned long seed = m->seed ? m->seed + j->index + (unsigned long)l * m->threads : 0;
        struct cli_cpu before, after;
        double per_ns;
        j->rc = cli_fault_once(m->size, m->page, j->populate, 1, seed, 0, &per_ns, &before,
                               &after, j->err, sizeof(j->err));
        if (j->rc == 0)
            j->time += (double)m->size / per_ns;
    }
    return NULL;
}

/* All threads' rounds; 0, or -1 with the reason in err. */
static int run_threads(const struct cli_perf_mem *m, int populate, double *mean,
                       double *spread_pct, char *err, size_t errlen)
{
    unsigned int n = m->threads;
    struct job *jobs = calloc(n, sizeof(*jobs));
    pthread_t *tid = calloc(n, sizeof(*tid));
    int rc = 0;
    if (jobs == NULL || tid == NULL) {
        snprintf(err, errlen, "out of memory for %u threads", n);
        rc = -1;
        n = 0;
    }
    unsigned int started = 0;
    for (unsigned int i = 0; i < n; i++)
        jobs[i] = (struct job){.m = m, .populate = populate, .index = i};
    while (started < n && pthread_create(&tid[started], NULL, worker, &jobs[started]) == 0)
        started++;
    for (unsigned int i = started; i < n; i++) /* those no thread could take */
        worker(&jobs[i]);
    double sum = 0, sq = 0;
    for (unsigned int i = 0; i < n; i++) {
        if (i < started)
            pthread_join(tid[i], NULL);
        if (jobs[i].rc != 0 && rc == 0) {
            snprintf(err, errlen, "%s", jobs[i].err);
            rc = -1;
        }
        sum += jobs[i].time;
        sq += jobs[i].time * jobs[i].time;
    }
    if (rc == 0) {
        *mean = sum / n;
        double var = n > 1 ? (sq - sum * sum / n) / (n - 1) : 0;
        *spread_pct = n > 1 && *mean > 0 ? 100 * sqrt((var > 0 ? var : 0) / n) / *mean : 0;
    }
    free(jobs);
    free(tid);
    return rc;
}

/* The memory every thread's mapping needs at once: refused up front when
 * it is not there (4 KiB pages), or said in full when hugetlb pages ran
 * short (each thread reserves its own). */
static int too_large(const struct cli_perf_mem *m, char *err, size_t errlen)
{
    size_t avail = cli_mem_available(), n = m->threads;
    if (m->page != CLI_PAGE_4K || avail == 0 || m->size <= avail / n)
        return 0;
    char a[32], b[32];
    snprintf(err, errlen, "%u thread(s) of %s each do not fit in the %s of memory available",
             m->threads, cli_fmt_size(m->size, a, sizeof(a)), cli_fmt_size(avail, b, sizeof(b)));
    return 1;
}

static int run_one(const struct cli_perf *pf, const struct cli_perf_mem *m, const char *name,
                   const char *desc, int populate)
{
    char err[512];
    double mean, spread;
    cli_perf_function(name, desc);
    cli_perf_copying(pf, m->size_str);
    fflush(stdout);
    int rc = too_large(m, err, sizeof(err));
    if (rc == 0)
        rc = run_threads(m, populate, &mean, &spread, err, sizeof(err));
    if (rc != 0) {
        size_t pg = cli_page_bytes(m->page);
        if (m->page != CLI_PAGE_4K && strstr(err, "hugetlb pages") != NULL)
            cli_hugetlb_advice((m->size + pg - 1) / pg * m->threads, m->page, err, sizeof(err));
        cli_perf_alloc_failed(m->size_str, m->page, err);
        return -1;
    }
    double bytes = (double)m->size * (double)m->loops;
    cli_perf_result(pf, bytes, m->cycles ? mean : mean / 1e9, m->cycles, m->threads, spread);
    fflush(stdout);
    return 0;
}

int cli_perf_mmap(const struct cli_perf *pf, int argc, char **argv)
{
    static const char *const names[] = {"demand", "populate"};
    static const char *const descs[] = {"Demand loaded mmap()", "Eagerly populated mmap()"};
    struct cli_perf_mem m;
    struct cli_perf_opt opts[8];
    cli_perf_mem_defaults(&m);
    opts[0] = (struct cli_perf_opt){'r', "randomize", CLI_PERF_UINT, NULL,
                                    "a seed: write a random byte of each page", 1, &m.seed};
    opts[1] = (struct cli_perf_opt){'t', "threads", CLI_PERF_UINT, NULL,
                                    "threads, each mapping its own SIZE (default: 1)", 1,
                                    &m.threads};
    cli_perf_mem_options(&m, opts + 2);
    opts[7] = (struct cli_perf_opt){0};
    const struct cli_perf_cmd cmd = {"pageclear bench mem mmap <options>", opts, 0};
    if (cli_perf_parse(&cmd, argc - 1, argv + 1) < 0)
        return CLI_PERF_EXIT_USAGE;
    int rc = cli_perf_mem_check(&m);
    if (rc != 0)
        return rc;
    int all = cli_perf_wants_all(m.function), ran = 0, failed = 0;
    for (int f = 0; f < 2; f++)
        if (all || strcmp(m.function, names[f]) == 0) {
            failed |= run_one(pf, &m, names[f], descs[f], f) != 0;
            ran++;
        }
    if (ran > 0)
        return failed ? CLI_PERF_EXIT_RUNTIME : 0;
    if (strcmp(m.function, "help") != 0 && strcmp(m.function, "h") != 0)
        printf("Unknown function: %s\n", m.function);
    printf("Available functions:\n");
    for (int f = 0; f < 2; f++)
        printf("\t%s ... %s\n", names[f], descs[f]);
    return CLI_PERF_EXIT_VALUE;
}
