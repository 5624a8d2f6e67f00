/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * prealloc_run.c - one run of each way to make memory resident before
 * use: a serial touch loop (a JVM's single-threaded pretouch), the
 * kernel's MAP_POPULATE, QEMU's prealloc (MADV_POPULATE_WRITE on equal
 * static shares, a thread each) and pc_populate. Each run maps fresh
 * memory, so the kernel must find and zero every page: cold memory, first
 * touch by this process. The time is from mmap to resident; munmap is not
 * timed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "pageclear.h"

#include "fault.h"
#include "prealloc.h"
#include "stats.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

const char *cli_pa_method_name(enum cli_pa_method m)
{
    static const char *const names[] = {"touch", "MAP_POPULATE", "qemu-split", "pc_populate"};
    return m < CLI_PA_NMETHODS ? names[m] : "?";
}

struct share {
    char *addr;
    size_t len;
    int rc;
};

static void *populate_share(void *arg)
{
    struct share *s = arg;
    s->rc = s->len && madvise(s->addr, s->len, MADV_POPULATE_WRITE) != 0 ? -errno : 0;
    return NULL;
}

/* QEMU's split: the pages divided evenly over the threads, each share a
 * contiguous run of whole pages, the first ones a page longer where it
 * does not divide; threads created for the call and joined. */
#define QEMU_MAX_THREADS 1024
static int qemu_split(char *addr, size_t len, size_t page, int threads)
{
    static struct share sh[QEMU_MAX_THREADS];
    static pthread_t tid[QEMU_MAX_THREADS];
    if (threads > QEMU_MAX_THREADS)
        threads = QEMU_MAX_THREADS;
    size_t pages = len / page, at = 0;
    int started = 0, rc = 0;
    for (int t = 0; t < threads; t++) {
        size_t n = pages / (size_t)threads + ((size_t)t < pages % (size_t)threads);
        sh[t] = (struct share){addr + at * page, n * page, 0};
        at += n;
    }
    while (started < threads &&
           pthread_create(&tid[started], NULL, populate_share, &sh[started]) == 0)
        started++;
    for (int t = started; t < threads; t++) /* could not start: here */
        populate_share(&sh[t]);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    for (int t = 0; t < threads && rc == 0; t++)
        rc = sh[t].rc;
    return rc;
}

static double tv_secs(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Make b resident by method m. */
static int make_resident(enum cli_pa_method m, struct cli_buf *b, int threads, char *err,
                         size_t errlen)
{
    size_t bad = 0;
    int rc = 0;
    if (m == CLI_PA_TOUCH) {
        /* THP may fall back to base pages: a byte per 4 KiB, as perf. */
        size_t stride = b->page == CLI_PAGE_THP ? 4096 : cli_page_bytes(b->page);
        rc = cli_touch(b->addr, b->map_len, stride, 1, 0, &bad);
    } else if (m == CLI_PA_QEMU) {
        rc = qemu_split(b->addr, b->map_len, cli_page_bytes(b->page), threads);
    } else if (m == CLI_PA_PC_POPULATE) {
        rc = pc_populate(b->addr, b->map_len, threads, 0);
    }
    if (rc != 0)
        snprintf(err, errlen, "%s of %s pages: %s", cli_pa_method_name(m),
                 cli_page_name(b->page), strerror(-rc));
    return rc;
}

int cli_pa_run(enum cli_pa_method m, enum cli_page p, size_t size, int threads,
               struct cli_pa_sample *out, char *err, size_t errlen)
{
    struct rusage r0, r1;
    struct cli_buf b;
    getrusage(RUSAGE_SELF, &r0);
    uint64_t t0 = cli_now_ns();
    /* THP and MAP_POPULATE: the flag acts inside mmap, before the
     * MADV_HUGEPAGE that makes the memory THP-eligible could be given
     * (this machine has THP on madvise), so the kernel's one-thread
     * populate is MADV_POPULATE_WRITE right after it (cli_buf_map). */
    int rc = cli_buf_map(&b, size, p, m == CLI_PA_MAP_POPULATE ? CLI_MAP_POPULATE : 0, err,
                         errlen);
    if (rc == 0)
        rc = make_resident(m, &b, threads, err, errlen);
    uint64_t ns = cli_now_ns() - t0;
    getrusage(RUSAGE_SELF, &r1);
    cli_buf_unmap(&b);
    if (rc != 0)
        return rc;
    out->secs = (double)ns / 1e9;
    out->stime = tv_secs(r1.ru_stime) - tv_secs(r0.ru_stime);
    out->utime = tv_secs(r1.ru_utime) - tv_secs(r0.ru_utime);
    return 0;
}
