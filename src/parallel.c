/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * parallel.c - clearing and populating on several threads. The threads are
 * a persistent worker pool, started on first use and kept for the life of
 * the process (waking a parked thread costs microseconds; creating one per
 * call costs tens and shows at 64 MiB shares). On machines with several
 * NUMA nodes, worker i runs on node i % nodes.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pageclear.h"
#include "fault_guard.h"
#include "numa.h"
#include "plan.h"
#include "primitive.h"
#include "range.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Each thread gets at least this much: below it, handing work to another
 * thread costs more than it saves (a 64 MiB clear takes ~3 ms at 22 GB/s,
 * a wake-up and join tens of microseconds). */
#define MIN_SHARE ((size_t)64 << 20)
/* Shares start on 2 MiB boundaries, so no huge page is split between two
 * threads (two threads faulting one THP would contend for it). */
#define SHARE_ALIGN ((size_t)2 << 20)
#define MAX_THREADS 64

struct task {
    char *addr;
    size_t len;
    int populate; /* 0: clear with fn; 1: populate */
    int flags;
    pci_clear_fn fn;
    int rc;
    struct batch *batch;
    struct task *next;
};

struct batch {
    int pending;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    struct task *queue;
    int workers;
} wp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
        NULL, 0};

static int populate_range(char *addr, size_t len, int flags)
{
    if (!(flags & PC_POPULATE_TOUCH)) {
        if (madvise(addr, len, MADV_POPULATE_WRITE) == 0)
            return 0;
        /* EINVAL: a kernel before 5.14 does not know the advice; touch. */
        if (errno != EINVAL)
            return -errno;
    }
    return pci_touch_pages(addr, len);
}

static void run_task(struct task *t)
{
    if (t->populate)
        t->rc = populate_range(t->addr, t->len, t->flags);
    else {
        t->fn(t->addr, t->len);
        t->rc = 0;
    }
}

static void *worker(void *arg)
{
    const struct pci_numa *nu = pci_numa();
    int id = (int)(intptr_t)arg;
    if (nu->nodes > 1)
        pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), &nu->cpus[id % nu->nodes]);
    pthread_mutex_lock(&wp.mu);
    for (;;) {
        while (wp.queue == NULL)
            pthread_cond_wait(&wp.work, &wp.mu);
        struct task *t = wp.queue;
        wp.queue = t->next;
        pthread_mutex_unlock(&wp.mu);
        run_task(t);
        pthread_mutex_lock(&wp.mu);
        if (--t->batch->pending == 0)
            pthread_cond_broadcast(&wp.done);
    }
    return NULL;
}

/* A forked child has none of the parent's threads: forget them, or its
 * first parallel call would queue work for workers that do not exist and
 * wait forever. The lock may have been held by a thread that is gone too. */
static void after_fork_in_child(void)
{
    pthread_mutex_init(&wp.mu, NULL);
    pthread_cond_init(&wp.work, NULL);
    pthread_cond_init(&wp.done, NULL);
    wp.queue = NULL;
    wp.workers = 0;
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, after_fork_in_child);
}

/* Make sure n workers exist; returns how many do (creation can fail). */
static int ensure_workers(int n)
{
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    pthread_once(&atfork_once, register_atfork);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&wp.mu);
    while (wp.workers < n) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, (void *)(intptr_t)(wp.workers + 1)) != 0)
            break;
        wp.workers++;
    }
    int have = wp.workers;
    pthread_mutex_unlock(&wp.mu);
    pthread_attr_destroy(&attr);
    return have;
}

/* Threads for len bytes: at most want, at least one, MIN_SHARE each. */
static int threads_for(size_t len, int want)
{
    if (want <= 0)
        want = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (want > MAX_THREADS)
        want = MAX_THREADS;
    size_t by_size = len / MIN_SHARE;
    if ((size_t)want > by_size)
        want = by_size ? (int)by_size : 1;
    return want;
}

/* Split [addr, addr + len) into n shares on SHARE_ALIGN boundaries, run
 * share 0 here and the rest on workers; the first error wins. fn is the
 * clear for more than one thread: if no worker can be started, the calling
 * thread clears alone with pc_clear's choice, as pc_clear_parallel does
 * when it runs on one thread. */
static int run_split(char *addr, size_t len, int n, int populate, int flags,
                     pci_clear_fn fn)
{
    struct task tasks[MAX_THREADS];
    struct batch b = {0};
    if (n > 1) {
        int have = ensure_workers(n - 1); /* fewer if creation failed */
        if (have < n - 1)
            n = have + 1;
        if (n == 1 && !populate)
            fn = pci_clear_for(len);
    }
    char *end = addr + len, *p = addr;
    for (int i = 0; i < n; i++) {
        char *q = end;
        if (i + 1 < n) {
            q = addr + len / (size_t)n * (size_t)(i + 1);
            q = (char *)(((uintptr_t)q + SHARE_ALIGN - 1) & ~(uintptr_t)(SHARE_ALIGN - 1));
            if (q > end)
                q = end;
        }
        tasks[i] = (struct task){p, (size_t)(q - p), populate, flags, fn, 0, &b, NULL};
        p = q;
    }
    if (n > 1) {
        pthread_mutex_lock(&wp.mu);
        b.pending = n - 1;
        for (int i = n - 1; i >= 1; i--) {
            tasks[i].next = wp.queue;
            wp.queue = &tasks[i];
        }
        pthread_cond_broadcast(&wp.work);
        pthread_mutex_unlock(&wp.mu);
    }
    run_task(&tasks[0]);
    if (n > 1) {
        pthread_mutex_lock(&wp.mu);
        while (b.pending > 0)
            pthread_cond_wait(&wp.done, &wp.mu);
        pthread_mutex_unlock(&wp.mu);
    }
    for (int i = 0; i < n; i++)
        if (tasks[i].rc != 0)
            return tasks[i].rc;
    return 0;
}

int pc_clear_parallel(void *addr, size_t len, int nthreads)
{
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    int n = threads_for(len, nthreads);
    if (n == 1) {
        pci_clear_for(len)(addr, len);
        return 0;
    }
    /* Several threads share the memory bandwidth and each other's caches:
     * from parallel_nt_threshold the shares stream (the parallel plan);
     * below it, cache-allocating stores chosen for the whole extent. */
    return run_split(addr, len, n, 0, 0, pci_plan_fn(PCI_PLAN_PARALLEL, len));
}

int pc_populate(void *addr, size_t len, int nthreads, int flags)
{
    if (flags & ~PC_POPULATE_TOUCH)
        return -EINVAL;
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    uintptr_t lo = (uintptr_t)addr & ~(uintptr_t)(PC_PAGE_SIZE - 1);
    uintptr_t hi = (uintptr_t)addr + len;
    if (hi > UINTPTR_MAX - (PC_PAGE_SIZE - 1))
        return -EOVERFLOW;
    hi = (hi + PC_PAGE_SIZE - 1) & ~(uintptr_t)(PC_PAGE_SIZE - 1);
    return run_split((char *)lo, hi - lo, threads_for(hi - lo, nthreads), 1, flags, NULL);
}
