/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pool.c - a pool of zeroed pages: user space's init_on_alloc and
 * init_on_free. Programs that recycle memory can skip the kernel's
 * fault-time zeroing altogether: the pool maps one large run once and
 * clears pages itself on reuse, with the extent-aware clear (measured ~3x
 * the kernel's own hugetlb clearing on the Xeon guest; docs/measurements.md,
 * sections 4 and 5).
 *
 * Clearing at allocation uses pc_clear's choice (the caller is about to
 * touch the memory, so cache-allocating stores below the NT threshold);
 * clearing at free and in the worker uses non-temporal stores where the CPU
 * has them (nobody touches those pages soon).
 *
 * Every page is in one state, kept in a byte per page:
 *   CLEAN  free and known zero       DIRTY  free, holds old data
 *   ALLOC  handed out                BUSY   being cleared off the lock
 * An allocation's length in pages sits in head[] at its first page (0
 * elsewhere), which is what makes a foreign, interior or double free
 * detectable. One mutex guards the arrays; clearing runs outside it.
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

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

#define DEFAULT_CAPACITY ((size_t)256 << 20)
#define HUGE_2M ((size_t)2 << 20)
#define HUGE_1G ((size_t)1 << 30)
/* The background worker clears at most this much per turn, so a waiting
 * allocation is never stuck behind a long clear (about 1.5 ms at 22 GB/s,
 * the same reasoning as the 32 MiB batching unit). */
#define WORKER_RUN_MAX (((size_t)32 << 20) / PC_PAGE_SIZE)

enum { PG_CLEAN = 0, PG_DIRTY, PG_ALLOC, PG_BUSY, PG_ALLOC_DIRTY };

struct pc_pool {
    pthread_mutex_t mu;
    pthread_cond_t changed; /* BUSY pages became CLEAN */
    pthread_cond_t wake;    /* the worker has DIRTY pages to clear */
    char *base;
    size_t map_len, npages;
    enum pc_backing backing;
    enum pc_pool_policy policy;
    unsigned char *state;
    uint32_t *head;
    size_t cursor; /* next-fit: where the last allocation ended */
    size_t clean, dirty, busy, in_use; /* pages */
    size_t allocs, frees, clears, cleared;
    pthread_t worker;
    int has_worker, stopping;
};

const char *pc_backing_name(enum pc_backing b)
{
    switch (b) {
    case PC_BACKING_HUGETLB_1G: return "hugetlb-1G";
    case PC_BACKING_HUGETLB_2M: return "hugetlb-2M";
    case PC_BACKING_THP: return "thp";
    case PC_BACKING_4K: return "4K";
    default: return "auto";
    }
}

/* The defaults, padding included: what pc_pool_opts_init gives. */
static void opts_defaults(struct pc_pool_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->capacity = DEFAULT_CAPACITY;
    o->backing = PC_BACKING_AUTO;
    o->policy = PC_POOL_INIT_ON_ALLOC;
    o->populate = 1;
}

void (pc_pool_opts_init)(struct pc_pool_opts *o, size_t size)
{
    struct pc_pool_opts d;
    opts_defaults(&d);
    (void)PCI_ABI_OUT(pc_pool_opts, o, size, &d);
}

/* THP can be had through madvise unless the kernel lacks it or it is set
 * to "never" in /sys/kernel/mm/transparent_hugepage/enabled. */
static int thp_usable(void)
{
    char buf[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == NULL)
        return 0;
    int ok = fgets(buf, sizeof(buf), f) != NULL && strstr(buf, "[never]") == NULL;
    fclose(f);
    return ok;
}

/* Map capacity bytes with backing b; 0 or -errno. */
static int map_backing(struct pc_pool *p, size_t capacity, enum pc_backing b, int populate)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
    size_t page = PC_PAGE_SIZE;
    if (b == PC_BACKING_HUGETLB_1G || b == PC_BACKING_HUGETLB_2M) {
        page = b == PC_BACKING_HUGETLB_1G ? HUGE_1G : HUGE_2M;
        flags |= MAP_HUGETLB | ((b == PC_BACKING_HUGETLB_1G ? 30 : 21) << MAP_HUGE_SHIFT);
        if (populate)
            flags |= MAP_POPULATE; /* reserved at mmap: no SIGBUS later */
    }
    if (capacity > SIZE_MAX - page)
        return -EOVERFLOW;
    size_t len = (capacity + page - 1) / page * page;
    size_t over = b == PC_BACKING_THP ? HUGE_2M : 0; /* to align to 2 MiB */
    if (b == PC_BACKING_4K && populate)
        flags |= MAP_POPULATE;
    char *a = mmap(NULL, len + over, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (a == MAP_FAILED)
        return -errno;
    if (b == PC_BACKING_THP) {
        char *al = (char *)(((uintptr_t)a + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
        if (al > a)
            munmap(a, (size_t)(al - a));
        if (a + over > al)
            munmap(al + len, (size_t)(a + over - al));
        a = al;
        /* madvise succeeds even with THP set to "never", so ask sysfs: a
         * pool must not report a backing it will not get. */
        if (!thp_usable() || madvise(a, len, MADV_HUGEPAGE) != 0) {
            munmap(a, len);
            return -EINVAL;
        }
        if (populate) {
            int rc = pc_populate(a, len, 1, 0);
            if (rc != 0) {
                munmap(a, len);
                return rc;
            }
        }
    }
    p->base = a;
    p->map_len = len;
    p->backing = b;
    return 0;
}

static void *worker_main(void *arg);
static void busy_cleared(struct pc_pool *p, size_t first, size_t n);

struct pc_pool *(pc_pool_create)(const struct pc_pool_opts *opts, size_t size)
{
    struct pc_pool_opts o;
    opts_defaults(&o);
    if (opts != NULL) {
        int rc = PCI_ABI_IN(pc_pool_opts, &o, opts, size);
        if (rc != 0) {
            errno = -rc;
            return NULL;
        }
    }
    if (o.capacity == 0)
        o.capacity = DEFAULT_CAPACITY;
    if ((unsigned)o.backing > PC_BACKING_4K || (unsigned)o.policy > PC_POOL_BACKGROUND ||
        (o.populate != 0 && o.populate != 1)) {
        errno = EINVAL;
        return NULL;
    }
    /* head[] holds page counts in 32 bits: 16 TiB at most. */
    if (o.capacity > SIZE_MAX - HUGE_1G || o.capacity / PC_PAGE_SIZE >= UINT32_MAX) {
        errno = EOVERFLOW;
        return NULL;
    }
    struct pc_pool *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;

    int rc = -ENOMEM;
    if (o.backing != PC_BACKING_AUTO) {
        rc = map_backing(p, o.capacity, o.backing, o.populate);
    } else {
        /* Best first; a 1 GiB page only where the pool is at least that
         * large (rounding 256 MiB up to 1 GiB would waste three quarters). */
        for (enum pc_backing b = PC_BACKING_HUGETLB_1G; b <= PC_BACKING_4K && rc != 0; b++)
            if (b != PC_BACKING_HUGETLB_1G || o.capacity >= HUGE_1G)
                rc = map_backing(p, o.capacity, b, o.populate);
    }
    if (rc != 0) {
        free(p);
        errno = rc == -EOVERFLOW ? EOVERFLOW : rc == -EINVAL ? EINVAL : ENOMEM;
        return NULL;
    }
    p->npages = p->map_len / PC_PAGE_SIZE;
    p->state = calloc(p->npages, 1); /* all CLEAN: fresh anonymous memory */
    p->head = calloc(p->npages, sizeof(*p->head));
    p->policy = o.policy;
    p->clean = p->npages;
    if (p->state == NULL || p->head == NULL ||
        pthread_mutex_init(&p->mu, NULL) != 0) {
        munmap(p->base, p->map_len);
        free(p->state);
        free(p->head);
        free(p);
        errno = ENOMEM;
        return NULL;
    }
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
    for (size_t i = at; i < at + n; i++)
        p->state[i] = PG_ALLOC;
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
    if (p->policy != PC_POOL_INIT_ON_FREE) {
        for (size_t i = at; i < at + n; i++)
            p->state[i] = PG_DIRTY;
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

    /* The old owner's data goes now; the pages go back to the pool, not to
     * a caller, so they are cleared with cache-bypassing stores. */
    pci_clear_cold_for(n * PC_PAGE_SIZE)(ptr, n * PC_PAGE_SIZE);

    pthread_mutex_lock(&p->mu);
    busy_cleared(p, at, n);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

/* Pages [first, first + n) were BUSY and are zero now: record it and wake
 * allocations waiting for them. Called with the lock held. */
static void busy_cleared(struct pc_pool *p, size_t first, size_t n)
{
    for (size_t i = first; i < first + n; i++)
        p->state[i] = PG_CLEAN;
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
    free(p->state);
    free(p->head);
    free(p);
}
