/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_reserve.c - the reserve of zeroed huge pages: per page size, a
 * worker thread at idle priority keeps each configured block filled, and
 * requests take whole blocks, those they use at least half of.
 *
 * The worker fills in steps, taking the lock only between them, so a
 * request can claim a block that is still being filled once it holds
 * enough, and a stopping daemon waits at most one step. It allocates only
 * what the kernel says is free: a reserve larger than the huge pages
 * there are is filled as far as it goes, logged once, and retried
 * (requests meanwhile get what there is, or fills at request time).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "serve_log.h"
#include "serve_reserve.h"

/* The worker's steps: a request claiming a block being filled waits for
 * the current one. 64 MiB of 2 MiB pages is ~21 ms at the 343 ms per GiB
 * a fresh hugetlb mapping took here (README, serve's table): no longer
 * than that does a request for a block being filled wait; a 1 GiB page
 * cannot be split. */
#define STEP_2M ((uint64_t)64 << 20)
/* A reserve short of pages tries again this often: pages come back when
 * clients close theirs or the administrator raises nr_hugepages, and a
 * try that finds none costs two reads of sysfs. */
#define RETRY_NS (2 * 1000000000ull)

static const char *page_name(int page)
{
    return page == SERVE_PAGE_1G ? "1GiB" : "2MiB";
}

/* SCHED_IDLE where allowed, else the lowest nice value: the fill only
 * uses otherwise idle CPU time (the kernel zeroes the pages in this
 * thread's context). Not with fill_priority = normal. */
static void lower_priority(const struct serve_reserve *r)
{
    if (r->fill == SERVE_FILL_NORMAL)
        return;
    struct sched_param sp = {.sched_priority = 0};
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) == 0)
        return;
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19) != 0)
        serve_log(SERVE_WARNING, "reserve of %s pages: fills at normal priority "
                  "(neither SCHED_IDLE nor nice 19 allowed)", page_name(r->page));
}

/* The next block to fill: one that is not full, not being taken, and (if
 * the last try ran short) only once the retry time has come. */
static struct serve_block *next_block(struct serve_reserve *r)
{
    if (r->short_of_pages && serve_now_ns() < r->retry_at_ns)
        return NULL;
    for (unsigned i = 0; i < r->nblocks; i++) {
        struct serve_block *b = &r->blocks[i];
        if (b->state != SERVE_FILLING && !b->claimed && b->filled < b->target)
            return b;
    }
    return NULL;
}

static void log_state(struct serve_reserve *r, int err)
{
    char have[32], want[32], rate[64] = "";
    uint64_t filled = 0, target = 0;
    for (unsigned i = 0; i < r->nblocks; i++) {
        filled += r->blocks[i].filled;
        target += r->blocks[i].target;
    }
    serve_log_size(filled, have, sizeof(have));
    serve_log_size(target, want, sizeof(want));
    if (err != 0) {
        serve_log(SERVE_WARNING, "reserve of %s pages: %s of %s filled: %s; raise "
                  "/sys/kernel/mm/hugepages/hugepages-%s/nr_hugepages; meanwhile %s",
                  page_name(r->page), have, want,
                  err == ENOSPC ? "the kernel has no free pages left" : strerror(err),
                  r->page == SERVE_PAGE_1G ? "1048576kB" : "2048kB",
                  r->on_miss == SERVE_MISS_FILL ? "requests it cannot serve are filled "
                                                  "at request time"
                                                : "requests it cannot serve get ENOMEM");
        return;
    }
    if (r->rate_ns > 0)
        snprintf(rate, sizeof(rate), ", filled at %.1f GiB/s",
                 (double)r->rate_bytes / (double)(1u << 30) / ((double)r->rate_ns / 1e9));
    serve_log(SERVE_INFO, "reserve of %s pages full: %s in %u block%s%s", page_name(r->page),
              want, r->nblocks, r->nblocks == 1 ? "" : "s", rate);
}

/* One step of b's fill, outside the lock. 0, or the errno that stopped it
 * (ENOSPC when the kernel has no free pages). */
static int fill_step(struct serve_reserve *r, int fd, uint64_t from, uint64_t *step)
{
    uint64_t pb = serve_page_bytes[r->page];
    long avail = serve_free_pages(r->page);
    if (avail >= 0 && (uint64_t)avail * pb < *step)
        *step = (uint64_t)avail * pb; /* only what is free: see serve_fill_fresh */
    if (*step == 0)
        return ENOSPC;
    if (fallocate(fd, 0, (off_t)from, (off_t)*step) == 0)
        return 0;
    int e = errno;
    /* Pages a failed call got stay past the file's end until cut. */
    if (ftruncate(fd, (off_t)from) != 0)
        serve_log(SERVE_ERR, "reserve: cannot cut a failed fill: %s", strerror(errno));
    return e;
}

/* Fill b up to its target, the lock held on entry and on return. */
static void fill_block(struct serve_reserve *r, struct serve_block *b)
{
    int err = 0;
    if (b->fd < 0) {
        pthread_mutex_unlock(&r->lock);
        int fd = serve_memfd(r->page);
        pthread_mutex_lock(&r->lock);
        if (fd < 0)
            err = -fd;
        else
            b->fd = fd, b->filled = 0;
    }
    uint64_t start = serve_now_ns(), from = b->filled;
    b->state = SERVE_FILLING;
    while (err == 0 && b->filled < b->target && !r->stop && !b->claimed) {
        uint64_t at = b->filled, left = b->target - at;
        uint64_t step = r->page == SERVE_PAGE_1G ? serve_page_bytes[r->page] : STEP_2M;
        step = step < left ? step : left;
        pthread_mutex_unlock(&r->lock);
        err = fill_step(r, b->fd, at, &step);
        pthread_mutex_lock(&r->lock);
        if (err == 0)
            b->filled += step;
    }
    b->state = b->filled > 0 ? SERVE_READY : SERVE_EMPTY;
    if (err != 0) {
        if (!r->logged_short)
            log_state(r, err);
        r->logged_short = 1;
        r->short_of_pages = 1;
        r->retry_at_ns = serve_now_ns() + RETRY_NS;
        r->was_full = 0;
    } else if (b->filled == b->target) {
        if (from == 0) {
            r->rate_bytes = b->filled;
            r->rate_ns = serve_now_ns() - start;
        }
        r->short_of_pages = 0;
    }
    pthread_cond_broadcast(&r->cond);
}

static int all_full(const struct serve_reserve *r)
{
    for (unsigned i = 0; i < r->nblocks; i++)
        if (r->blocks[i].state != SERVE_READY || r->blocks[i].filled < r->blocks[i].target)
            return 0;
    return 1;
}

static void *worker(void *arg)
{
    struct serve_reserve *r = arg;
    lower_priority(r);
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        struct serve_block *b = next_block(r);
        if (b != NULL) {
            fill_block(r, b);
            if (!r->was_full && all_full(r)) {
                r->was_full = 1;
                r->logged_short = 0;
                log_state(r, 0);
            }
            continue;
        }
        if (r->short_of_pages) {
            uint64_t at = r->retry_at_ns;
            struct timespec ts = {.tv_sec = (time_t)(at / 1000000000u),
                                  .tv_nsec = (long)(at % 1000000000u)};
            pthread_cond_timedwait(&r->cond, &r->lock, &ts);
        } else {
            pthread_cond_wait(&r->cond, &r->lock);
        }
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

int serve_reserve_start(struct serve_reserve *r, int page, const uint64_t *blocks, unsigned n,
                        enum serve_miss on_miss, enum serve_fill fill)
{
    memset(r, 0, sizeof(*r));
    r->page = page;
    r->nblocks = n;
    r->on_miss = on_miss;
    r->fill = fill;
    for (unsigned i = 0; i < n; i++)
        r->blocks[i] = (struct serve_block){.fd = -1, .target = blocks[i]};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* retry times are monotonic */
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (n == 0)
        return 0;
    int rc = pthread_create(&r->worker, NULL, worker, r);
    if (rc != 0) {
        serve_log(SERVE_ERR, "reserve of %s pages: cannot start its worker: %s",
                  page_name(page), strerror(rc));
        return -rc;
    }
    r->started = 1;
    return 0;
}

void serve_reserve_stop(struct serve_reserve *r)
{
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    if (r->started)
        pthread_join(r->worker, NULL);
    r->started = 0;
    for (unsigned i = 0; i < r->nblocks; i++) {
        if (r->blocks[i].fd >= 0)
            close(r->blocks[i].fd);
        r->blocks[i] = (struct serve_block){.fd = -1, .target = r->blocks[i].target};
    }
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->lock);
}

/* May a request of size bytes take a block of filled bytes? Only if it
 * uses at least half of it: the part beyond the request goes back to the
 * kernel, and a request must never discard more zeroed memory than it
 * takes (a 1-byte request must not empty a 64 GiB block for everyone). */
static int fits(uint64_t filled, uint64_t size)
{
    return filled >= size && filled - size <= size;
}

/* The best block for size: the smallest ready one that it fits, else the
 * smallest being filled that it fits already. NULL if none. */
static struct serve_block *best_block(struct serve_reserve *r, uint64_t size)
{
    struct serve_block *best = NULL;
    for (int pass = 0; pass < 2 && best == NULL; pass++)
        for (unsigned i = 0; i < r->nblocks; i++) {
            struct serve_block *b = &r->blocks[i];
            enum serve_block_state want = pass == 0 ? SERVE_READY : SERVE_FILLING;
            if (b->state == want && !b->claimed && fits(b->filled, size) &&
                (best == NULL || b->filled < best->filled))
                best = b;
        }
    return best;
}

int serve_reserve_take(struct serve_reserve *r, uint64_t size, int *fd, uint64_t *filled)
{
    pthread_mutex_lock(&r->lock);
    struct serve_block *b = best_block(r, size);
    if (b != NULL && b->state == SERVE_FILLING) {
        /* The worker stops after its current step and says so. */
        b->claimed = 1;
        while (b->state == SERVE_FILLING)
            pthread_cond_wait(&r->cond, &r->lock);
        b->claimed = 0;
    }
    /* A block being filled may have grown by the worker's last step. */
    if (b == NULL || b->state != SERVE_READY || !fits(b->filled, size)) {
        pthread_mutex_unlock(&r->lock);
        return -ENOENT;
    }
    *fd = b->fd;
    *filled = b->filled;
    b->fd = -1;
    b->filled = 0;
    b->state = SERVE_EMPTY;
    r->was_full = 0;
    r->retry_at_ns = 0; /* pages the request does not use come back now */
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return 0;
}

uint64_t serve_reserve_full_bytes(struct serve_reserve *r)
{
    uint64_t sum = 0;
    pthread_mutex_lock(&r->lock);
    for (unsigned i = 0; i < r->nblocks; i++)
        if (r->blocks[i].state == SERVE_READY && r->blocks[i].filled == r->blocks[i].target)
            sum += r->blocks[i].filled;
    pthread_mutex_unlock(&r->lock);
    return sum;
}

void serve_reserve_rate(struct serve_reserve *r, uint64_t *bytes, uint64_t *ns)
{
    pthread_mutex_lock(&r->lock);
    *bytes = r->rate_bytes;
    *ns = r->rate_ns;
    pthread_mutex_unlock(&r->lock);
}
