/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * work.h - one parallel call as data: the regions, grouped by where their
 * memory lives, cut into chunks handed out from a cursor per group, and
 * the participants that take them (placement.c plans it, parallel.c runs
 * it, populate.c and pc_clear_parallel fill it in).
 */
#ifndef PCI_WORK_H
#define PCI_WORK_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "primitive.h"
#include "sys.h"

#pragma GCC visibility push(hidden)

/* One extent of the call. */
struct pci_region {
    char *lo, *hi;        /* the bytes to work on */
    size_t chunk;         /* bytes per chunk, a power of two */
    size_t first;         /* index of its first chunk within its group */
    size_t nchunks;
    size_t index;         /* its place in the caller's array */
    enum pci_policy kind; /* where its memory lives */
    uint64_t nodes;       /* PCI_POLICY_BOUND: the node ids */
    int group;
};

/* Regions of one placement, worked on by the same participants. */
struct pci_group {
    size_t r0, r1;        /* its regions: job->r[r0 .. r1) */
    size_t nchunks, bytes;
    enum pci_policy kind;
    uint64_t nodes;
    int first_slot, nslots; /* the participants whose home it is */
    size_t next;          /* the cursor: next chunk to hand out (atomic) */
};

struct pci_job {
    struct pci_region *r;
    size_t nr;
    struct pci_group *g;
    int ng;
    int n;                /* participants */
    int populate, flags;  /* populate (with pc_populate's flags), else clear */
    pci_clear_fn fn;      /* the clear */
    const struct pci_sys *sys;
    const struct pci_numa *topo;
    cpu_set_t allowed;    /* the caller's affinity mask */
    /* The start barrier, the end, the first error (by region, then
     * address). */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int taken, arrived, finished, stop;
    int rc;
    size_t err_region;
    char *err_at;
    struct pci_job *next; /* the workers' queue */
};

/* Chunks of at least this many bytes. Handing one out is an atomic add
 * (~0.1 us even contended), populating 4 MiB of 4 KiB pages takes ~1.5 ms
 * at the 2.8 GB/s of this machine's best 4 KiB demand faults, so the
 * cursor costs nothing measurable; and a straggler holds the call up by at
 * most one chunk, where a static 64 MiB share could hold it up by 23 ms.
 * A power of two and a multiple of 2 MiB: no transparent huge page is
 * split between two threads (both would fault it). */
#define PCI_CHUNK ((size_t)4 << 20)

/* The chunk for memory backed by pages of page_size bytes: PCI_CHUNK, or
 * one page if pages are larger (never less than one page: two threads
 * faulting one page serialise on it). */
size_t pci_chunk_for(size_t page_size);

/* Group the regions (kind, nodes and chunk set) by placement and cut them
 * into chunks: fills r[].first, .nchunks, .group, reorders r by group and
 * allocates j->g. 0 or -ENOMEM. */
int pci_job_plan(struct pci_job *j);
/* Give the n participants homes in proportion to each group's bytes, at
 * least one per group while there are participants to give. */
void pci_job_slots(struct pci_job *j, int n);
/* The home group of participant slot. */
int pci_job_home(const struct pci_job *j, int slot);
/* The CPUs participant slot runs on for group gi: 1 with *set filled, 0
 * when nothing is to be pinned (one node). */
int pci_job_cpus(const struct pci_job *j, int gi, int slot, cpu_set_t *set);
/* Chunk k of group g: its region's index in j->r, the bytes in *a, *len. */
size_t pci_job_chunk(const struct pci_job *j, const struct pci_group *g, size_t k,
                     char **a, size_t *len);
void pci_job_free(struct pci_job *j);

#pragma GCC visibility pop

#endif /* PCI_WORK_H */
