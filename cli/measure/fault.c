/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fault.c - touching memory one byte per page, on several threads, with a
 * SIGBUS guard: demand-faulting hugetlb memory that was mapped without a
 * reservation raises SIGBUS when the pool runs dry, and the command must
 * report that rather than die.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fault.h"

/* volatile: see src/parallel/fault_guard.c; clang -O2 dropped the plain store. */
static __thread sigjmp_buf *volatile guard_jmp;
static __thread volatile size_t guard_at;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    (void)si;
    if (guard_jmp != NULL)
        siglongjmp(*guard_jmp, 1);
    /* Not ours: fall back to the default action. */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_guard(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

#define MAX_TOUCH_THREADS 256

struct touch_job {
    char *p;
    size_t len, stride;
    size_t base; /* offset of p in the whole range */
    unsigned long seed;
    int failed;
    size_t bad; /* offset within p that raised SIGBUS */
};

static void *touch_worker(void *arg)
{
    struct touch_job *j = arg;
    sigjmp_buf jb;
    uint64_t s = j->seed ? j->seed * 0x9e3779b97f4a7c15ULL : 0;

    if (sigsetjmp(jb, 1)) {
        guard_jmp = NULL;
        j->failed = 1;
        j->bad = guard_at;
        return NULL;
    }
    guard_jmp = &jb;
    for (size_t off = 0; off < j->len; off += j->stride) {
        size_t in = 0;
        if (s) { /* xorshift: a random byte within this page */
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            in = (size_t)(s % j->stride);
            if (off + in >= j->len)
                in = 0;
        }
        guard_at = off + in;
        ((volatile char *)j->p)[off + in] = 1;
    }
    guard_jmp = NULL;
    return NULL;
}

int cli_touch(char *p, size_t len, size_t stride, unsigned long nthreads,
              unsigned long seed, size_t *bad)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    struct touch_job jobs[MAX_TOUCH_THREADS];
    pthread_t tid[MAX_TOUCH_THREADS];

    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > MAX_TOUCH_THREADS)
        nthreads = MAX_TOUCH_THREADS;
    pthread_once(&once, install_guard);
    /* Shares of whole strides, so every page is touched exactly once. */
    size_t pages = (len + stride - 1) / stride, done = 0;
    for (unsigned long t = 0; t < nthreads; t++) {
        size_t share = pages / nthreads + (t < pages % nthreads);
        size_t start = done * stride, end = (done + share) * stride;
        if (end > len)
            end = len;
        if (start > end)
            start = end;
        jobs[t] = (struct touch_job){.p = p + start, .len = end - start,
                                     .stride = stride, .base = start,
                                     .seed = seed ? seed + t : 0};
        done += share;
    }
    unsigned long started = 1;
    while (started < nthreads &&
           pthread_create(&tid[started], NULL, touch_worker, &jobs[started]) == 0)
        started++;
    touch_worker(&jobs[0]);
    for (unsigned long t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    /* Shares whose thread could not be started run here. */
    for (unsigned long t = started; t < nthreads; t++)
        touch_worker(&jobs[t]);
    for (unsigned long t = 0; t < nthreads; t++)
        if (jobs[t].failed) {
            *bad = jobs[t].base + jobs[t].bad;
            return -EFAULT;
        }
    return 0;
}
