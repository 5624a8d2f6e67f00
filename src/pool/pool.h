/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pool.h - the zeroed-page pool's private layout, shared by its files:
 * pool.c (allocate, free, the worker, stats), pool_map.c (options and the
 * mapping) and pool_track.c (what a freed allocation wrote).
 */
#ifndef PCI_POOL_H
#define PCI_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "pageclear.h"
#include "written.h"

#pragma GCC visibility push(hidden)

/* Every page is in one state, kept in a byte per page:
 *   CLEAN  free and known zero       DIRTY  free, holds old data
 *   ALLOC  handed out                BUSY   being cleared, scanned or
 *                                           dropped off the lock
 *   ALLOC_DIRTY  handed out, being cleared by the allocating thread */
enum { PG_CLEAN = 0, PG_DIRTY, PG_ALLOC, PG_BUSY, PG_ALLOC_DIRTY };

struct pc_pool {
    pthread_mutex_t mu;
    pthread_cond_t changed; /* BUSY pages became CLEAN or DIRTY */
    pthread_cond_t wake;    /* the worker has DIRTY pages to clear */
    char *base;
    size_t map_len, npages;
    enum pc_backing backing;
    enum pc_pool_policy policy;
    unsigned char *state;
    /* Per page, 1 if known resident as of the pool's last look (a scan at
     * free, a clear, a drop). Under mu. */
    unsigned char *res;
    /* Per page, what the scan at free said (PCI_WRITTEN_*): written only
     * by the thread that holds the page BUSY, so it needs no lock. */
    unsigned char *mark;
    uint32_t *head;
    size_t cursor; /* next-fit: where the last allocation ended */
    size_t clean, dirty, busy, in_use, resident; /* pages */
    size_t allocs, frees, clears, cleared;        /* calls, bytes */
    size_t skipped, dropped;                      /* pages */
    size_t resident_max;                          /* pages; 0: no bound */
    int tracked; /* w is open: clear only written pages */
    struct pci_written w;
    pthread_t worker;
    int has_worker, stopping;
};

/* pool_map.c: the defaults of the options (padding included), and the
 * mapping of capacity bytes with backing b into p->base, p->map_len,
 * p->backing; 0 or -errno. */
void pci_pool_opts_defaults(struct pc_pool_opts *o);
int pci_pool_map(struct pc_pool *p, size_t capacity, enum pc_backing b, int populate);

/* pool_track.c */
/* Start tracking the mapping as asked (opts' tracking); 0, or -ENOTSUP if
 * PC_POOL_TRACK_WRITTEN was asked and cannot be had. */
int pci_pool_track_start(struct pc_pool *p, enum pc_pool_tracking want, int populated);
/* Pages [first, first + n), owned by the caller, were just cleared by the
 * pool: from now on they count as unwritten. */
void pci_pool_cleared(struct pc_pool *p, size_t first, size_t n);
/* The allocation [at, at + n) was freed and its pages are BUSY, owned by
 * the caller: find what it wrote, drop or clear as the policy and the
 * resident bound say, and give the pages back (CLEAN or DIRTY). */
void pci_pool_freed(struct pc_pool *p, size_t at, size_t n);

#pragma GCC visibility pop

#endif /* PCI_POOL_H */
