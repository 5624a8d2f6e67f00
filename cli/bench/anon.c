/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * anon.c - the anon-w-seq workload, after vm-scalability's case of that
 * name (our own code): N threads each map their share of anonymous memory
 * and write all of it in order, so every page is faulted in, zeroed by the
 * kernel, then overwritten. System time is the kernel's part (faults,
 * clearing), user time the writes; how clearing is done moves the first
 * and, through what it leaves in cache, the second. Mapping and writing
 * are timed, after one untimed round; thread start and munmap are not,
 * and neither is in the CPU time: a gate holds every thread before and
 * after the timed part.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anon.h"
#include "args.h"
#include "buffer.h"
#include "output.h"
#include "stats.h"

#define MAX_THREADS 256 /* as mmap's -t */

/* Where the threads wait for the main thread: it waits until all have
 * arrived at a step, reads the clocks, then opens the next step. */
struct gate {
    pthread_mutex_t m;
    pthread_cond_t c;
    unsigned long arrived; /* threads at the current step */
    unsigned step;         /* steps opened so far */
    int cancel;            /* not every thread started: do nothing */
};

/* A thread: arrive at step s, go on once it is opened. */
static void gate_pass(struct gate *g, unsigned s)
{
    pthread_mutex_lock(&g->m);
    g->arrived++;
    pthread_cond_broadcast(&g->c);
    while (g->step <= s)
        pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}

/* The main thread: wait until n threads have arrived. */
static void gate_wait(struct gate *g, unsigned long n)
{
    pthread_mutex_lock(&g->m);
    while (g->arrived < n)
        pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}

static void gate_open(struct gate *g)
{
    pthread_mutex_lock(&g->m);
    g->arrived = 0;
    g->step++;
    pthread_cond_broadcast(&g->c);
    pthread_mutex_unlock(&g->m);
}

struct anon_job {
    size_t len;
    enum cli_page page;
    struct gate *gate;
    int rc;
    char err[256];
};

/* Write every 8-byte word of [p, p + len) in order. The word's index is
 * stored, not zero, so no store can be skipped as already done. */
static void write_seq(char *p, size_t len)
{
    uint64_t *w = (uint64_t *)(void *)p;
    for (size_t i = 0; i < len / sizeof(*w); i++)
        w[i] = i;
}

static void *worker(void *arg)
{
    struct anon_job *j = arg;
    struct cli_buf b = {0};
    gate_pass(j->gate, 0); /* ready */
    if (!j->gate->cancel) {
        j->rc = cli_buf_map(&b, j->len, j->page, 0, j->err, sizeof(j->err));
        if (j->rc == 0)
            write_seq(b.addr, j->len);
    }
    gate_pass(j->gate, 1); /* written; unmap once measured */
    cli_buf_unmap(&b);
    return NULL;
}

/* One round of n threads: seconds into *s and the CPU time around it.
 * 0, or -errno with the reason in err. */
static int one_round(struct anon_job *jobs, unsigned long n, double *s, struct cli_cpu *before,
                     struct cli_cpu *after, char *err, size_t errlen)
{
    struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    pthread_t tid[MAX_THREADS];
    unsigned long started = 0;
    for (unsigned long t = 0; t < n; t++)
        jobs[t].gate = &g, jobs[t].rc = 0;
    while (started < n && pthread_create(&tid[started], NULL, worker, &jobs[started]) == 0)
        started++;
    g.cancel = started < n;
    gate_wait(&g, started);
    cli_cpu_now(before);
    uint64_t t0 = cli_now_ns();
    gate_open(&g); /* go */
    gate_wait(&g, started);
    uint64_t ns = cli_now_ns() - t0;
    cli_cpu_now(after);
    gate_open(&g); /* measured */
    for (unsigned long t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    *s = (double)(ns ? ns : 1) / 1e9;
    if (started < n) {
        snprintf(err, errlen, "could start only %lu of %lu threads", started, n);
        return -EAGAIN;
    }
    for (unsigned long t = 0; t < n; t++)
        if (jobs[t].rc != 0) {
            if (n > 1)
                snprintf(err, errlen, "each of the %lu threads' shares: %s", n, jobs[t].err);
            else
                snprintf(err, errlen, "%s", jobs[t].err);
            return jobs[t].rc;
        }
    return 0;
}

int cli_anon_measure(size_t size, enum cli_page page, unsigned long threads,
                     unsigned long loops, struct cli_stats *st, char *err, size_t errlen)
{
    struct anon_job jobs[MAX_THREADS];
    size_t pg = cli_page_bytes(page), avail = cli_mem_available();
    char a[32], b[32];
    threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    /* Each thread's share in whole pages of the backing size. */
    size_t share = size / threads / pg * pg;
    if (share == 0) {
        snprintf(err, errlen, "%s is less than one %s page for each of %lu threads",
                 cli_fmt_size(size, a, sizeof(a)), cli_page_name(page), threads);
        return -EINVAL;
    }
    if ((page == CLI_PAGE_4K || page == CLI_PAGE_THP) && avail && share * threads > avail) {
        snprintf(err, errlen, "%s does not fit in the %s of memory available",
                 cli_fmt_size(size, a, sizeof(a)), cli_fmt_size(avail, b, sizeof(b)));
        return -ENOMEM;
    }
    for (unsigned long t = 0; t < threads; t++)
        jobs[t] = (struct anon_job){.len = share, .page = page};
    double *v = calloc(loops, sizeof(*v));
    struct cli_cpu *cpu = calloc(2 * loops, sizeof(*cpu));
    int rc = v == NULL || cpu == NULL ? -ENOMEM : 0;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    /* One untimed round first, as every workload of the command has. */
    struct cli_cpu c0, c1;
    double s;
    if (rc == 0)
        rc = one_round(jobs, threads, &s, &c0, &c1, err, errlen);
    for (unsigned long l = 0; l < loops && rc == 0; l++) {
        rc = one_round(jobs, threads, &s, &cpu[l], &cpu[loops + l], err, errlen);
        v[l] = (double)(share * threads) / 1e9 / s;
    }
    if (rc == 0) {
        cli_stats(v, loops, st);
        cli_stats_cpu(st, cpu, cpu + loops);
    }
    free(v);
    free(cpu);
    return rc;
}

/* "median ±stdev%" of CPU seconds v[0, n) into buf. */
static const char *cpu_cell(const double *v, size_t n, char *buf, size_t len)
{
    struct cli_stats s;
    cli_stats_summary(v, n, &s);
    snprintf(buf, len, "%11.3f ±%4.1f%%", s.median, s.stdev_pct);
    return buf;
}

void cli_anon_table(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                    struct cli_records *rs)
{
    const enum cli_page pages[] = {CLI_PAGE_4K, CLI_PAGE_THP, CLI_PAGE_2M, CLI_PAGE_1G};
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned long threads = ncpu < 1 ? 1 : ncpu > MAX_THREADS ? MAX_THREADS : (unsigned long)ncpu;
    char a[32], err[512], c1[48], c2[48];
    if (fmt == CLI_FMT_DEFAULT)
        printf("\n## %d. anon-w-seq: %lu threads map %s of anonymous memory in shares and "
               "write it in order; GB/s and CPU seconds per round (system: faults and the "
               "kernel's clearing; user: the writes), median ± %%stdev of %lu rounds\n"
               "%-6s %18s %18s %18s\n", table_no, threads, cli_fmt_size(size, a, sizeof(a)),
               runs, "pages", "GB/s", "stime s", "utime s");
    for (size_t p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
        struct cli_stats st;
        const double *user, *sys;
        cli_progress("%d. anon-w-seq: %s", table_no, cli_page_name(pages[p]));
        int rc = cli_anon_measure(size, pages[p], threads, runs, &st, err, sizeof(err));
        cli_progress("%s", "");
        if (rc != 0) {
            if (fmt == CLI_FMT_DEFAULT)
                printf("%-6s unavailable: %s\n", cli_page_name(pages[p]), err);
            else
                fprintf(stderr, "pageclear: bench: anon-w-seq on %s pages skipped: %s\n",
                        cli_page_name(pages[p]), err);
            continue;
        }
        size_t share = size / threads / cli_page_bytes(pages[p]) * cli_page_bytes(pages[p]);
        struct cli_record r = {"anon", "anon-w-seq", cli_page_name(pages[p]), share * threads,
                               0, runs, threads, "GB/s", st, NULL, NULL, NULL, NULL};
        cli_records_add(rs, &r);
        if (fmt == CLI_FMT_DEFAULT && cli_stats_cpu_samples(&st, &user, &sys) == 0)
            printf("%-6s %11.2f ±%4.1f%% %s %s\n", cli_page_name(pages[p]), st.median,
                   st.stdev_pct, cpu_cell(sys, st.n, c1, sizeof(c1)),
                   cpu_cell(user, st.n, c2, sizeof(c2)));
    }
}
