/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pool_track.c - what the pool does with a freed allocation (pool.h).
 *
 * Known zero, to the page. With tracking (written.h), the pool's pages are
 * write-protected whenever they are known zero: the whole mapping once at
 * create, and every run the pool clears, right after the clear and before
 * anybody else can reach it. So when an allocation is freed, a page the
 * kernel reports unwritten still holds the zero it was handed out with:
 * it goes back CLEAN and is never cleared. Only written pages go DIRTY.
 * Nothing the owner does escapes this: the record is in the page table, and
 * every write reaches it - any thread's store, the kernel's copy_to_user
 * for read(2), /proc/self/mem. A scan that fails counts every page written.
 *
 * Clear or give back. A page that must become zero again can be cleared,
 * or dropped (MADV_DONTNEED) and refaulted, zeroed by the kernel, when next
 * touched. Per GiB, dropping costs about a twentieth of clearing but a
 * refault three times a clear (docs/notes.md, "Figures the old README
 * quoted"): for memory that is used again clearing wins, and a pool exists
 * for memory that is reused. So it keeps and clears, and drops only to
 * honour the caller's resident bound (resident_max): there the choice is
 * between dropping and exceeding the bound, and dropping also makes the
 * pages zero for free.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "plan.h"
#include "pool.h"

#define PG PC_PAGE_SIZE

int pci_pool_track_start(struct pc_pool *p, enum pc_pool_tracking want, int populated)
{
    /* A hugetlb page can be write-protected only whole, and is shared by
     * the 4 KiB allocations within it: re-arming it for one would lose the
     * writes of the others. Those backings are cleared in whole runs. */
    int can = want != PC_POOL_TRACK_OFF &&
              (p->backing == PC_BACKING_THP || p->backing == PC_BACKING_4K) &&
              pci_written_available();
    /* Lazy memory is not armed: a page never faulted in is zero, and a
     * write faults it in unprotected (reported written); arming it would
     * build the page tables of the whole capacity now. */
    if (can)
        can = pci_written_open(&p->w, p->base, p->map_len, populated) == 0;
    p->tracked = can;
    return want == PC_POOL_TRACK_WRITTEN && !can ? -ENOTSUP : 0;
}

void pci_pool_cleared(struct pc_pool *p, size_t first, size_t n)
{
    /* If it fails the pages stay unprotected, that is "written": cleared
     * once more than needed, never less. */
    if (p->tracked)
        (void)pci_written_arm(&p->w, p->base + first * PG, n * PG);
}

/* Pages [at, at + n) to give back to the kernel to keep within the
 * resident bound: how many are resident beyond it now, 0 if none. */
static size_t excess(struct pc_pool *p)
{
    if (p->resident_max == 0 || p->backing == PC_BACKING_HUGETLB_1G ||
        p->backing == PC_BACKING_HUGETLB_2M)
        return 0;
    pthread_mutex_lock(&p->mu);
    size_t over = p->resident > p->resident_max ? p->resident - p->resident_max : 0;
    pthread_mutex_unlock(&p->mu);
    return over;
}

/* The end of the run of pages from i whose mark has all of `bits`. */
static size_t run_end(const unsigned char *m, size_t i, size_t end, unsigned bits)
{
    while (i < end && (m[i] & bits) == bits)
        i++;
    return i;
}

/* Drop resident runs of [at, at + n) until `want` pages are gone; their
 * marks become 0 (zero, not resident). Returns the pages dropped. */
static size_t drop_runs(struct pc_pool *p, size_t at, size_t n, size_t want)
{
    unsigned char *m = p->mark;
    size_t dropped = 0;
    for (size_t i = at; i < at + n && dropped < want;) {
        size_t j = run_end(m, i, at + n, PCI_WRITTEN_P);
        if (j == i) {
            i++;
            continue;
        }
        if (madvise(p->base + i * PG, (j - i) * PG, MADV_DONTNEED) == 0) {
            memset(m + i, 0, j - i);
            dropped += j - i;
            /* Protect the empty page-table entries too, so that a read
             * (the shared zero page) does not count as a write. */
            pci_pool_cleared(p, i, j - i);
        }
        i = j;
    }
    return dropped;
}

/* INIT_ON_FREE: clear the written runs of [at, at + n) now, cold (nobody
 * reads them soon); their marks become "resident, unwritten". */
static size_t clear_written(struct pc_pool *p, size_t at, size_t n, size_t *calls)
{
    unsigned char *m = p->mark;
    size_t bytes = 0;
    for (size_t i = at; i < at + n;) {
        size_t j = run_end(m, i, at + n, PCI_WRITTEN_W);
        if (j == i) {
            i++;
            continue;
        }
        pci_clear_cold_for((j - i) * PG)(p->base + i * PG, (j - i) * PG);
        pci_pool_cleared(p, i, j - i);
        memset(m + i, PCI_WRITTEN_P, j - i);
        bytes += (j - i) * PG;
        (*calls)++;
        i = j;
    }
    return bytes;
}

struct freed_counts {
    size_t skipped, dropped, clears, cleared;
};

/* Record what [at, at + n) became, by its marks, and wake whoever waits. */
static void settle(struct pc_pool *p, size_t at, size_t n, const struct freed_counts *c)
{
    const unsigned char *m = p->mark;
    size_t dirty = 0;
    pthread_mutex_lock(&p->mu);
    for (size_t i = at; i < at + n; i++) {
        unsigned char res = (m[i] & PCI_WRITTEN_P) != 0;
        p->resident = p->resident - p->res[i] + res;
        p->res[i] = res;
        dirty += (m[i] & PCI_WRITTEN_W) != 0;
        p->state[i] = m[i] & PCI_WRITTEN_W ? PG_DIRTY : PG_CLEAN;
    }
    p->busy -= n;
    p->dirty += dirty;
    p->clean += n - dirty;
    p->skipped += c->skipped;
    p->dropped += c->dropped;
    p->clears += c->clears;
    p->cleared += c->cleared;
    pthread_cond_broadcast(&p->changed);
    if (dirty && p->policy == PC_POOL_BACKGROUND)
        pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->mu);
}

void pci_pool_freed(struct pc_pool *p, size_t at, size_t n)
{
    struct freed_counts c = {0, 0, 0, 0};
    unsigned char *m = p->mark + at;
    if (p->tracked && pci_written_scan(&p->w, p->base + at * PG, n * PG, m) == 0) {
        for (size_t i = 0; i < n; i++)
            c.skipped += !(m[i] & PCI_WRITTEN_W);
    } else {
        /* Untracked: the owner may have written, and touched, anything. */
        memset(m, PCI_WRITTEN_W | PCI_WRITTEN_P, n);
    }
    size_t over = excess(p);
    if (over)
        c.dropped = drop_runs(p, at, n, over);
    if (p->policy == PC_POOL_INIT_ON_FREE)
        c.cleared = clear_written(p, at, n, &c.clears);
    settle(p, at, n, &c);
}
