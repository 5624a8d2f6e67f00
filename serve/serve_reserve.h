/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_reserve.h - the reserve of zeroed huge pages (serve_reserve.c):
 * per page size, blocks of memory in hugetlb memfds that a worker thread
 * at idle priority fills with fallocate (the kernel zeroes each page as it
 * allocates it) and refills when a request takes one. Also the memfd
 * helpers the requests use: a fill at request time, and the sealing.
 */
#ifndef PAGECLEAR_SERVE_RESERVE_H
#define PAGECLEAR_SERVE_RESERVE_H

#include <pthread.h>
#include <stdint.h>

#include "serve_config.h"

enum serve_block_state { SERVE_EMPTY, SERVE_FILLING, SERVE_READY };

struct serve_block {
    int fd;          /* the memfd, or -1 */
    uint64_t target; /* configured bytes */
    uint64_t filled; /* bytes allocated (and zeroed), the file's size */
    enum serve_block_state state;
    int claimed;     /* a request waits to take it */
};

struct serve_reserve {
    int page; /* enum serve_page */
    unsigned nblocks;
    struct serve_block blocks[SERVE_MAX_BLOCKS];
    pthread_mutex_t lock;
    pthread_cond_t cond; /* the worker waits here; claimers too */
    pthread_t worker;
    int started, stop;
    int short_of_pages;   /* the last fill ran out of pages: retry later */
    int logged_short;     /* said so in the log (once until full again) */
    uint64_t retry_at_ns; /* CLOCK_MONOTONIC: when to try again */
    enum serve_miss on_miss; /* for the log line when short */
    enum serve_fill fill;    /* the worker's priority */
    uint64_t rate_bytes, rate_ns; /* the last fill of a block from empty */
    int was_full;         /* every block was full at the last look */
};

/* Set up the reserve of page size `page` with blocks[0, n) and start its
 * worker (none when n is 0) at the priority fill says. 0, or a negative
 * errno after a log line. */
int serve_reserve_start(struct serve_reserve *r, int page, const uint64_t *blocks, unsigned n,
                        enum serve_miss on_miss, enum serve_fill fill);
/* Stop the worker (it finishes its current step) and close every block:
 * their pages go back to the kernel. */
void serve_reserve_stop(struct serve_reserve *r);

/* Take a block holding at least size bytes and at most twice as many (a
 * request never discards more of the reserve than it takes): the smallest
 * ready one, else one being filled that has them (waiting for the worker's
 * current step to end). Returns 0 with its memfd in *fd (the caller owns
 * it) and its size in *filled; -ENOENT if no block fits. The worker starts
 * to refill at once. */
int serve_reserve_take(struct serve_reserve *r, uint64_t size, int *fd, uint64_t *filled);

/* Bytes in blocks that are full; the last block fill's bytes and
 * nanoseconds (0 before the first). */
uint64_t serve_reserve_full_bytes(struct serve_reserve *r);
void serve_reserve_rate(struct serve_reserve *r, uint64_t *bytes, uint64_t *ns);

/* A new hugetlb memfd of page size `page` (close-on-exec, sealable):
 * the fd, or -EOPNOTSUPP if the kernel has no such page size, or another
 * negative errno. */
int serve_memfd(int page);
/* Pages of `page` size the kernel has free and unpromised (free minus
 * reserved), or -1 if it does not say. */
long serve_free_pages(int page);
/* A memfd of size bytes filled now (the request-time fill): in a worker
 * placed in t's cgroups if t is not NULL and they are not the calling
 * thread's (serve_worker_fill), else by the calling thread. *stop (read
 * atomically), if it becomes non-zero, ends it early. 0 with *fd, or
 * -ENOMEM (too few free pages, or t's cgroups' limit), -EOPNOTSUPP,
 * -ECANCELED (stopped), another negative errno (the worker's placing). */
struct serve_tenant;
int serve_fill_fresh(int page, uint64_t size, const struct serve_tenant *t, int *stop,
                     int *fd);
/* Cut fd to size bytes (if it is larger; the rest goes back to the
 * kernel) and seal it against growing, shrinking and further seals. */
int serve_seal(int fd, uint64_t size);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t serve_now_ns(void);

#endif
