/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * parallel.c - running a job (work.h) on several threads. The threads are
 * a persistent worker pool, started on first use and kept for the life of
 * the process (waking a parked thread costs microseconds; creating one per
 * call costs tens and shows at 64 MiB shares). A call's participants are
 * all pool workers: each moves to its home group's CPUs, waits at a start
 * barrier until every participant is there, then takes chunks from its
 * group's cursor, and from the other groups' once its own is done.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageclear.h"
#include "parallel.h"
#include "plan.h"
#include "range.h"

/* Each thread gets at least this much: below it, handing work to another
 * thread costs more than it saves (a 64 MiB clear takes ~3 ms at 22 GB/s,
 * a wake-up and join tens of microseconds). */
#define MIN_SHARE ((size_t)64 << 20)

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work;
    struct pci_job *queue; /* jobs with participants not yet taken */
    int workers;           /* threads alive */
    int outstanding;       /* participants queued or running */
} wp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0};

/* Keep the first error in the caller's order of regions, then addresses,
 * and stop handing out chunks. */
static void fail(struct pci_job *j, size_t ri, char *at, int rc)
{
    pthread_mutex_lock(&j->mu);
    size_t idx = j->r[ri].index;
    if (j->rc == 0 || idx < j->err_region || (idx == j->err_region && at < j->err_at)) {
        j->rc = rc;
        j->err_region = idx;
        j->err_at = at;
    }
    __atomic_store_n(&j->stop, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&j->mu);
}

static void run_group(struct pci_job *j, int slot, struct pci_group *g)
{
    for (;;) {
        if (__atomic_load_n(&j->stop, __ATOMIC_RELAXED))
            return;
        size_t k = __atomic_fetch_add(&g->next, 1, __ATOMIC_RELAXED);
        if (k >= g->nchunks)
            return;
        char *a;
        size_t len;
        size_t ri = pci_job_chunk(j, g, k, &a, &len);
        int rc = 0;
        if (j->populate)
            rc = j->sys->populate(slot, a, len, j->flags);
        else
            j->fn(a, len);
        if (rc != 0)
            fail(j, ri, a, rc);
    }
}

static void pin(struct pci_job *j, int gi, int slot)
{
    cpu_set_t set;
    if (pci_job_cpus(j, gi, slot, &set))
        j->sys->pin(slot, &set); /* a failure leaves it where it was */
}

/* Participant slot of j: its home, the barrier, its group, then the
 * others' leftovers (moving to their CPUs first). */
static void participate(struct pci_job *j, int slot)
{
    int home = pci_job_home(j, slot);
    pin(j, home, slot);
    j->sys->started(slot);
    pthread_mutex_lock(&j->mu);
    if (++j->arrived == j->n)
        pthread_cond_broadcast(&j->cv);
    while (j->arrived < j->n)
        pthread_cond_wait(&j->cv, &j->mu);
    pthread_mutex_unlock(&j->mu);
    for (int i = 0; i < j->ng; i++) {
        int gi = (home + i) % j->ng;
        struct pci_group *g = &j->g[gi];
        if (i > 0) {
            if (__atomic_load_n(&g->next, __ATOMIC_RELAXED) >= g->nchunks)
                continue;
            pin(j, gi, slot);
        }
        run_group(j, slot, g);
    }
    pthread_mutex_lock(&j->mu);
    if (++j->finished == j->n)
        pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wp.mu);
    for (;;) {
        while (wp.queue == NULL)
            pthread_cond_wait(&wp.work, &wp.mu);
        struct pci_job *j = wp.queue;
        int slot = j->taken++;
        if (j->taken == j->n)
            wp.queue = j->next;
        pthread_mutex_unlock(&wp.mu);
        participate(j, slot); /* j may be gone once this returns */
        pthread_mutex_lock(&wp.mu);
        wp.outstanding--;
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
    wp.queue = NULL;
    wp.workers = 0;
    wp.outstanding = 0;
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, after_fork_in_child);
}

/* Reserve up to n participants (wp.mu held), starting threads so that
 * every participant queued or running has one of its own: a participant
 * waits at its call's barrier, and one left queued behind it would wait
 * for ever. Returns how many were reserved (creation can fail). */
static int reserve(int n)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (wp.workers < wp.outstanding + n) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) != 0)
            break;
        wp.workers++;
    }
    pthread_attr_destroy(&attr);
    int have = wp.workers - wp.outstanding;
    if (n > have)
        n = have;
    wp.outstanding += n > 1 ? n : 0;
    return n;
}

int pci_threads_for(size_t len, int want, const struct pci_sys *sys, cpu_set_t *allowed)
{
    if (sys->affinity(allowed) != 0 || CPU_COUNT(allowed) == 0) {
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        CPU_ZERO(allowed);
        for (long c = 0; c < on && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, allowed);
    }
    if (want <= 0)
        want = CPU_COUNT(allowed);
    size_t by_size = len / MIN_SHARE;
    if ((size_t)want > by_size)
        want = by_size ? (int)by_size : 1;
    return want;
}

/* One participant, the calling thread, where it is: no pinning. */
static void run_here(struct pci_job *j)
{
    j->n = 1;
    j->sys->started(0);
    for (int gi = 0; gi < j->ng; gi++)
        run_group(j, 0, &j->g[gi]);
}

int pci_job_run(struct pci_job *j, int n)
{
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    j->taken = j->arrived = j->finished = j->stop = j->rc = 0;
    /* No more participants than chunks: one woken with nothing to take
     * only adds its wake-up and the barrier (one 1 GiB page asked of two
     * threads measured 0.88x the one-thread populate). */
    size_t chunks = 0;
    for (int gi = 0; gi < j->ng; gi++)
        chunks += j->g[gi].nchunks;
    if ((size_t)n > chunks)
        n = chunks > 0 ? (int)chunks : 1;
    if (n > 1) {
        pthread_mutex_lock(&wp.mu);
        n = reserve(n);
        if (n > 1) {
            pci_job_slots(j, n);
            struct pci_job **q = &wp.queue;
            while (*q != NULL)
                q = &(*q)->next;
            j->next = NULL;
            *q = j;
            pthread_cond_broadcast(&wp.work);
        }
        pthread_mutex_unlock(&wp.mu);
    }
    if (n <= 1) {
        pci_job_slots(j, 1);
        if (!j->populate)
            j->fn = j->nr ? pci_clear_for((size_t)(j->r[0].hi - j->r[0].lo)) : j->fn;
        run_here(j);
    } else {
        pthread_mutex_lock(&j->mu);
        while (j->finished < j->n)
            pthread_cond_wait(&j->cv, &j->mu);
        pthread_mutex_unlock(&j->mu);
    }
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    return j->rc;
}

int pc_clear_parallel(void *addr, size_t len, int nthreads)
{
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    struct pci_region r = {.lo = addr, .hi = (char *)addr + len, .chunk = PCI_CHUNK};
    struct pci_job j = {.r = &r, .nr = 1, .sys = pci_sys()};
    int n = pci_threads_for(len, nthreads, j.sys, &j.allowed);
    if (n == 1) {
        pci_clear_for(len)(addr, len);
        return 0;
    }
    j.topo = j.sys->topology();
    /* The placement of the memory, as for pc_populate: the clear's stores
     * are cheapest from the node it is on. */
    if (j.sys->policy(addr, &r.kind, &r.nodes) != 0)
        r.kind = PCI_POLICY_SPREAD, r.nodes = 0;
    if (pci_job_plan(&j) != 0) {
        pci_clear_for(len)(addr, len); /* no memory for the plan: here */
        return 0;
    }
    /* Several threads share the memory bandwidth and each other's caches:
     * from parallel_nt_threshold the chunks stream (the parallel plan);
     * below it, cache-allocating stores chosen for the whole extent. */
    j.fn = pci_plan_fn(PCI_PLAN_PARALLEL, len);
    rc = pci_job_run(&j, n);
    pci_job_free(&j);
    return rc;
}
