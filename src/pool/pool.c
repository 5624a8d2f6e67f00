/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pool.c - a pool of zeroed pages: user space's init_on_alloc and
 * init_on_free. Programs that recycle memory can skip the kernel's
 * fault-time zeroing altogether: the pool maps one large run once and
 * clears pages itself on reuse, with the extent-aware clear (about 3x the
 * kernel's own hugetlb clearing: docs/notes.md, "Against the targets").
 *
 * Clearing at allocation uses pc_clear's choice (the caller is about to
 * touch the memory, so cache-allocating stores below the NT threshold);
 * clearing at free and in the worker uses non-temporal stores where the CPU
 * has them (nobody touches those pages soon).
 *
 * Every page is in one state (pool.h). An allocation's length in pages
 * sits in head[] at its first page (0 elsewhere), which is what makes a
 * foreign, interior or double free detectable. One mutex guards the
 * arrays; clearing, scanning and dropping run outside it. What a freed
 * allocation wrote, and whether it is dropped, is pool_track.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pageclear.h"
#include "abi.h"
#include "plan.h"
#include "pool.h"

#define DEFAULT_CAPACITY ((size_t)256 << 20)
#define HUGE_1G ((size_t)1 << 30)
/* The background worker clears at most this much per turn, so a waiting
 * allocation is never stuck behind a long clear (about 1.5 ms at 22 GB/s,
 * the same reasoning as the 32 MiB batching unit). */
#define WORKER_RUN_MAX (((size_t)32 << 20) / PC_PAGE_SIZE)

static void *worker_main(void *arg);

/* Take the caller's options (defaults past its size) and check them: 0
 * or the errno to fail with. */
static int take_opts(struct pc_pool_opts *o, const struct pc_pool_opts *opts, size_t size)
{
    pci_pool_opts_defaults(o);
    if (opts != NULL) {
        int rc = PCI_ABI_IN(pc_pool_opts, o, opts, size);
        if (rc != 0)
            return -rc;
    }
    if (o->capacity == 0)
        o->capacity = DEFAULT_CAPACITY;
    if ((unsigned)o->backing > PC_BACKING_4K || (unsigned)o->policy > PC_POOL_BACKGROUND ||
        (o->populate != 0 && o->populate != 1) ||
        (unsigned)o->tracking > PC_POOL_TRACK_WRITTEN)
        return EINVAL;
    /* head[] holds page counts in 32 bits: 16 TiB at most. */
    if (o->capacity > SIZE_MAX - HUGE_1G || o->capacity / PC_PAGE_SIZE >= UINT32_MAX)
        return EOVERFLOW;
    return 0;
}

/* Map the backing asked for, or with AUTO the best to be had: 0 or errno. */
static int map_any(struct pc_pool *p, const struct pc_pool_opts *o)
{
    int rc = -ENOMEM;
    if (o->backing != PC_BACKING_AUTO) {
        rc = pci_pool_map(p, o->capacity, o->backing, o->populate);
    } else {
        /* Best first; a 1 GiB page only where the pool is at least that
         * large (rounding 256 MiB up to 1 GiB would waste three quarters). */
        for (enum pc_backing b = PC_BACKING_HUGETLB_1G; b <= PC_BACKING_4K && rc != 0; b++)
            if (b != PC_BACKING_HUGETLB_1G || o->capacity >= HUGE_1G)
                rc = pci_pool_map(p, o->capacity, b, o->populate);
    }
    return rc == 0 ? 0 : rc == -EOVERFLOW ? EOVERFLOW : rc == -EINVAL ? EINVAL : ENOMEM;
}

static void pool_free_arrays(struct pc_pool *p)
{
    free(p->state);
    free(p->res);
    free(p->mark);
    free(p->head);
    free(p);
}

struct pc_pool *(pc_pool_create)(const struct pc_pool_opts *opts, size_t size)
{
    struct pc_pool_opts o;
    int err = take_opts(&o, opts, size);
    struct pc_pool *p = err ? NULL : calloc(1, sizeof(*p));
    if (p == NULL) {
        errno = err ? err : ENOMEM;
        return NULL;
    }
    err = map_any(p, &o);
    if (err != 0) {
        free(p);
        errno = err;
        return NULL;
    }
    p->npages = p->map_len / PC_PAGE_SIZE;
    p->state = calloc(p->npages, 1); /* all CLEAN: fresh anonymous memory */
    p->res = malloc(p->npages);
    p->mark = calloc(p->npages, 1);
    p->head = calloc(p->npages, sizeof(*p->head));
    p->policy = o.policy;
    p->clean = p->npages;
    p->resident_max = (o.resident_max + PC_PAGE_SIZE - 1) / PC_PAGE_SIZE;
    /* Populated memory is resident; lazy memory is not until touched. */
    p->resident = o.populate ? p->npages : 0;
    p->w.uffd = p->w.pagemap = -1;
    err = p->state && p->res && p->mark && p->head ? 0 : ENOMEM;
    if (err == 0 && pci_pool_track_start(p, o.tracking, o.populate) != 0)
        err = ENOTSUP;
    if (err != 0 || pthread_mutex_init(&p->mu, NULL) != 0) {
        pci_written_close(&p->w);
        munmap(p->base, p->map_len);
        pool_free_arrays(p);
        errno = err ? err : ENOMEM;
        return NULL;
    }
    memset(p->res, o.populate, p->npages);
    pthread_cond_init(&p->changed, NULL);
    pthread_cond_init(&p->wake, NULL);
    if (p->policy == PC_POOL_BACKGROUND) {
        if (pthread_create(&p->worker, NULL, worker_main, p) != 0) {
            pc_pool_destroy(p);
            errno = EAGAIN;
            return NULL;
        }
        p->has_worker = 1;
    }
    return p;
}

/* Find n free pages in a row whose states are all in `ok` (a bit mask of
 * 1 << state), next-fit from the cursor. Returns the first page or SIZE_MAX. */
static size_t find_run(const struct pc_pool *p, size_t n, unsigned ok)
{
    for (int pass = 0; pass < 2; pass++) {
        size_t from = pass == 0 ? p->cursor : 0, to = pass == 0 ? p->npages : p->cursor;
        size_t run = 0;
        for (size_t i = from; i < to + (pass ? n - 1 : 0) && i < p->npages; i++) {
            run = (ok >> p->state[i] & 1) ? run + 1 : 0;
            if (run == n)
                return i + 1 - n;
        }
    }
    return SIZE_MAX;
}

/* Clear the pages of [first, first + n) whose state is `which`, one
 * pc_clear per contiguous run. Called without the lock, on pages this
 * thread owns (ALLOC / BUSY), so nobody else writes those state bytes. */
static size_t clear_runs(struct pc_pool *p, size_t first, size_t n, unsigned char which,
                         size_t *calls)
{
    size_t bytes = 0;
    for (size_t i = first; i < first + n;) {
        if (p->state[i] != which) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < first + n && p->state[j] == which)
            j++;
        pc_clear(p->base + i * PC_PAGE_SIZE, (j - i) * PC_PAGE_SIZE);
        pci_pool_cleared(p, i, j - i); /* zero now: re-armed before handed out */
        bytes += (j - i) * PC_PAGE_SIZE;
        (*calls)++;
        i = j;
    }
    return bytes;
}

void *pc_pool_alloc(struct pc_pool *p, size_t len)
{
    if (p == NULL || len == 0) {
        errno = EINVAL;
        return NULL;
    }
    if (len > SIZE_MAX - (PC_PAGE_SIZE - 1)) {
        errno = EOVERFLOW;
        return NULL;
    }
    size_t n = (len + PC_PAGE_SIZE - 1) / PC_PAGE_SIZE;
    /* Placement is next-fit over every free page, whatever its state, and
     * the same for all policies: preferring pages the worker has already
     * cleaned would make placement depend on the worker's timing and
     * fragment the pool (3 + 5 MiB then failed to fit a free 8 MiB pool).
     * A run with pages still being cleared waits for them. */
    const unsigned free_states = 1u << PG_CLEAN | 1u << PG_DIRTY | 1u << PG_BUSY;

    pthread_mutex_lock(&p->mu);
    size_t at = SIZE_MAX;
    while (n <= p->npages) {
        at = find_run(p, n, free_states);
        size_t busy_in_run = 0;
        for (size_t i = at; at != SIZE_MAX && i < at + n; i++)
            busy_in_run += p->state[i] == PG_BUSY;
        if (busy_in_run == 0)
            break;
        pthread_cond_wait(&p->changed, &p->mu); /* being cleared: wait */
    }
    if (at == SIZE_MAX) {
        pthread_mutex_unlock(&p->mu);
        errno = ENOMEM;
        return NULL;
    }
    size_t dirty = 0;
    for (size_t i = at; i < at + n; i++) {
        dirty += p->state[i] == PG_DIRTY;
        p->state[i] = p->state[i] == PG_DIRTY ? PG_ALLOC_DIRTY : PG_ALLOC;
    }
    p->dirty -= dirty;
    p->clean -= n - dirty;
    p->in_use += n;
    p->cursor = at + n == p->npages ? 0 : at + n;
    pthread_mutex_unlock(&p->mu);

    size_t calls = 0, bytes = 0;
    if (dirty)
        bytes = clear_runs(p, at, n, PG_ALLOC_DIRTY, &calls);

    pthread_mutex_lock(&p->mu);
    for (size_t i = at; i < at + n; i++) {
        if (p->state[i] == PG_ALLOC_DIRTY && !p->res[i]) { /* cleared: resident */
            p->res[i] = 1;
            p->resident++;
        }
        p->state[i] = PG_ALLOC;
    }
    p->head[at] = (uint32_t)n; /* only now can it be freed */
    p->allocs++;
    p->clears += calls;
    p->cleared += bytes;
    pthread_mutex_unlock(&p->mu);
    return p->base + at * PC_PAGE_SIZE;
}

int pc_pool_free(struct pc_pool *p, void *ptr)
{
    if (p == NULL)
        return -EINVAL;
    if (ptr == NULL)
        return 0;
    uintptr_t a = (uintptr_t)ptr, b = (uintptr_t)p->base;
    if (a < b || a >= b + p->npages * PC_PAGE_SIZE || (a - b) % PC_PAGE_SIZE != 0)
        return -EINVAL;
    size_t at = (a - b) / PC_PAGE_SIZE;

    pthread_mutex_lock(&p->mu);
    size_t n = p->head[at];
    if (n == 0) { /* interior pointer, never allocated, or already freed */
        pthread_mutex_unlock(&p->mu);
        return -EINVAL;
    }
    p->head[at] = 0;
    p->in_use -= n;
    p->frees++;
    /* Nothing to find out and nothing to do now: as before tracking, the
     * pages are simply dirty (cleared at allocation or by the worker). */
    if (p->policy != PC_POOL_INIT_ON_FREE && !p->tracked && p->resident_max == 0) {
        for (size_t i = at; i < at + n; i++) {
            p->state[i] = PG_DIRTY;
            p->resident += !p->res[i]; /* the owner may have touched it */
            p->res[i] = 1;
        }
        p->dirty += n;
        if (p->policy == PC_POOL_BACKGROUND)
            pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->mu);
        return 0;
    }
    for (size_t i = at; i < at + n; i++)
        p->state[i] = PG_BUSY;
    p->busy += n;
    pthread_mutex_unlock(&p->mu);
    pci_pool_freed(p, at, n); /* scans, drops or clears off the lock */
    return 0;
}

/* Pages [first, first + n) were BUSY and are zero now: record it and wake
 * allocations waiting for them. Called with the lock held. */
static void busy_cleared(struct pc_pool *p, size_t first, size_t n)
{
    for (size_t i = first; i < first + n; i++) {
        p->state[i] = PG_CLEAN;
        p->resident += !p->res[i];
        p->res[i] = 1;
    }
    p->busy -= n;
    p->clean += n;
    p->clears++;
    p->cleared += n * PC_PAGE_SIZE;
    pthread_cond_broadcast(&p->changed);
}

/* The background worker: take a run of DIRTY pages (up to WORKER_RUN_MAX),
 * mark it BUSY, clear it off the lock, mark it CLEAN; sleep when none. */
static void *worker_main(void *arg)
{
    struct pc_pool *p = arg;
    size_t scan = 0;
    pthread_mutex_lock(&p->mu);
    while (!p->stopping) {
        if (p->dirty == 0) {
            pthread_cond_wait(&p->wake, &p->mu);
            continue;
        }
        size_t i = scan, seen = 0;
        while (p->state[i] != PG_DIRTY && seen < p->npages) {
            i = i + 1 == p->npages ? 0 : i + 1;
            seen++;
        }
        size_t j = i;
        while (j < p->npages && j - i < WORKER_RUN_MAX && p->state[j] == PG_DIRTY)
            p->state[j++] = PG_BUSY;
        size_t n = j - i;
        p->dirty -= n;
        p->busy += n;
        scan = j == p->npages ? 0 : j;
        pthread_mutex_unlock(&p->mu);

        /* Ahead of demand: nobody reads these pages soon. */
        pci_clear_cold_for(n * PC_PAGE_SIZE)(p->base + i * PC_PAGE_SIZE, n * PC_PAGE_SIZE);
        pci_pool_cleared(p, i, n);

        pthread_mutex_lock(&p->mu);
        busy_cleared(p, i, n);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int (pc_pool_stats)(struct pc_pool *p, struct pc_pool_stats *st, size_t size)
{
    if (p == NULL || PCI_ABI_CHECK(pc_pool_stats, st, size) != 0)
        return -EINVAL;
    struct pc_pool_stats s;
    memset(&s, 0, sizeof(s));
    pthread_mutex_lock(&p->mu);
    s.backing = p->backing;
    s.policy = p->policy;
    s.capacity = p->map_len;
    s.in_use = p->in_use * PC_PAGE_SIZE;
    s.clean = p->clean * PC_PAGE_SIZE;
    s.dirty = (p->dirty + p->busy) * PC_PAGE_SIZE;
    s.allocs = p->allocs;
    s.frees = p->frees;
    s.clears = p->clears;
    s.cleared_bytes = p->cleared;
    s.skipped_bytes = p->skipped * PC_PAGE_SIZE;
    s.dropped_bytes = p->dropped * PC_PAGE_SIZE;
    s.resident = p->resident * PC_PAGE_SIZE;
    s.tracking = p->tracked ? PC_POOL_TRACK_WRITTEN : PC_POOL_TRACK_OFF;
    pthread_mutex_unlock(&p->mu);
    return PCI_ABI_OUT(pc_pool_stats, st, size, &s);
}

void pc_pool_destroy(struct pc_pool *p)
{
    if (p == NULL)
        return;
    if (p->has_worker) {
        pthread_mutex_lock(&p->mu);
        p->stopping = 1;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->worker, NULL);
    }
    pthread_cond_destroy(&p->changed);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    munmap(p->base, p->map_len);
    pci_written_close(&p->w);
    pool_free_arrays(p);
}
