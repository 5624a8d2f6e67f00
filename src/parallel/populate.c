/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * populate.c - pc_populate and pc_populate_many: the extents checked,
 * rounded out to pages and placed (each one's memory policy and page
 * size, through the seam of sys.h), then populated together on the worker
 * pool (parallel.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"
#include "abi.h"
#include "parallel.h"
#include "range.h"
#include "work.h"

static int by_start(const void *a, const void *b)
{
    const struct pci_region *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* -EINVAL if two of the n extents (as given, before rounding) share a
 * byte: almost certainly a caller's mistake (the same buffer listed twice,
 * or a length that runs into the next), and refused before anything is
 * populated. Extents that only share a page are allowed. */
static int overlapping(const struct pci_region *r, size_t n)
{
    if (n < 2)
        return 0;
    struct pci_region *s = malloc(n * sizeof(*s));
    if (s == NULL)
        return -ENOMEM;
    memcpy(s, r, n * sizeof(*s));
    qsort(s, n, sizeof(*s), by_start);
    int rc = 0;
    for (size_t i = 1; i < n && rc == 0; i++)
        if (s[i].lo < s[i - 1].hi)
            rc = -EINVAL;
    free(s);
    return rc;
}

/* Take the caller's extent i into *r as given (lo, hi unrounded). 1 if it
 * has bytes, 0 if empty, or -errno. */
static int take(const struct pc_extent *ext, size_t size, size_t i, struct pci_region *r)
{
    struct pc_extent e = {0};
    int rc = PCI_ABI_IN(pc_extent, &e, (const char *)ext + i * size, size);
    if (rc == 0)
        rc = pci_check_range(e.addr, e.len);
    if (rc != 0 || e.len == 0)
        return rc;
    if ((uintptr_t)e.addr + e.len > UINTPTR_MAX - (PC_PAGE_SIZE - 1))
        return -EOVERFLOW; /* its end cannot be rounded up to a page */
    *r = (struct pci_region){.lo = e.addr, .hi = (char *)e.addr + e.len, .index = i};
    return 1;
}

/* Round r out to pages and find where its memory lives and its pages'
 * size; returns its bytes. */
static size_t place(struct pci_region *r, const struct pci_sys *sys)
{
    uintptr_t lo = (uintptr_t)r->lo & ~(uintptr_t)(PC_PAGE_SIZE - 1);
    uintptr_t hi = ((uintptr_t)r->hi + PC_PAGE_SIZE - 1) & ~(uintptr_t)(PC_PAGE_SIZE - 1);
    r->lo = (char *)lo;
    r->hi = (char *)hi;
    if (sys->policy(r->lo, &r->kind, &r->nodes) != 0) {
        r->kind = PCI_POLICY_SPREAD; /* no policy to read: as before */
        r->nodes = 0;
    }
    r->chunk = pci_chunk_for(sys->page_size(r->lo, hi - lo));
    return hi - lo;
}

/* The regions of ext[0 .. count), checked: fills j->r, j->nr. */
static int gather(struct pci_job *j, const struct pc_extent *ext, size_t size, size_t count)
{
    int rc = PCI_ABI_CHECK(pc_extent, ext, size);
    if (rc != 0)
        return rc;
    if (count > SIZE_MAX / size)
        return -EOVERFLOW;
    j->r = malloc(count * sizeof(*j->r));
    if (j->r == NULL)
        return -ENOMEM;
    j->nr = 0;
    for (size_t i = 0; i < count; i++) {
        rc = take(ext, size, i, &j->r[j->nr]);
        if (rc < 0)
            return rc;
        j->nr += (size_t)rc;
    }
    return overlapping(j->r, j->nr);
}

static int populate(struct pci_job *j, int nthreads)
{
    size_t total = 0;
    j->sys = pci_sys();
    j->topo = j->sys->topology();
    j->populate = 1;
    for (size_t i = 0; i < j->nr; i++)
        total += place(&j->r[i], j->sys);
    int n = pci_threads_for(total, nthreads, j->sys, &j->allowed);
    int rc = pci_job_plan(j);
    if (rc == 0)
        rc = pci_job_run(j, n);
    pci_job_free(j);
    return rc;
}

int (pc_populate_many)(const struct pc_extent *ext, size_t size, size_t count,
                       int nthreads, int flags)
{
    if (flags & ~PC_POPULATE_TOUCH)
        return -EINVAL;
    if (count == 0)
        return 0;
    struct pci_job j = {.flags = flags};
    int rc = gather(&j, ext, size, count);
    if (rc == 0 && j.nr > 0)
        rc = populate(&j, nthreads);
    free(j.r);
    return rc;
}

int pc_populate(void *addr, size_t len, int nthreads, int flags)
{
    struct pc_extent e;
    memset(&e, 0, sizeof(e));
    e.addr = addr;
    e.len = len;
    return (pc_populate_many)(&e, sizeof(e), 1, nthreads, flags);
}
