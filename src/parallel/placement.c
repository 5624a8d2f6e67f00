/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * placement.c - where a parallel call's work goes: its regions grouped by
 * the NUMA placement of their memory, cut into chunks, and the
 * participants given a home group and CPUs. Pure over the job and the
 * topology it carries, so tests check it on made-up machines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"
#include "work.h"

size_t pci_chunk_for(size_t page_size)
{
    return page_size > PCI_CHUNK ? page_size : PCI_CHUNK;
}

static int group_of(struct pci_job *j, const struct pci_region *r)
{
    for (int i = 0; i < j->ng; i++)
        if (j->g[i].kind == r->kind && j->g[i].nodes == r->nodes)
            return i;
    struct pci_group *g = &j->g[j->ng];
    memset(g, 0, sizeof(*g));
    g->kind = r->kind;
    g->nodes = r->nodes;
    return j->ng++;
}

/* Cut region r into chunks aligned to its chunk size (so that a huge page
 * is never split), numbered on from the group's count. */
static void cut(struct pci_region *r, struct pci_group *g)
{
    uintptr_t lo = (uintptr_t)r->lo, hi = (uintptr_t)r->hi;
    uintptr_t base = lo & ~(uintptr_t)(r->chunk - 1);
    r->first = g->nchunks;
    r->nchunks = hi > lo ? (hi - base - 1) / r->chunk + 1 : 0;
    g->nchunks += r->nchunks;
    g->bytes += hi - lo;
}

int pci_job_plan(struct pci_job *j)
{
    j->ng = 0;
    j->g = calloc(j->nr ? j->nr : 1, sizeof(*j->g));
    struct pci_region *sorted = malloc((j->nr ? j->nr : 1) * sizeof(*sorted));
    if (j->g == NULL || sorted == NULL) {
        free(j->g);
        free(sorted);
        j->g = NULL;
        return -ENOMEM;
    }
    for (size_t i = 0; i < j->nr; i++)
        j->r[i].group = group_of(j, &j->r[i]);
    /* Each group's regions together, in the caller's order. */
    size_t k = 0;
    for (int gi = 0; gi < j->ng; gi++) {
        j->g[gi].r0 = k;
        for (size_t i = 0; i < j->nr; i++)
            if (j->r[i].group == gi) {
                sorted[k] = j->r[i];
                cut(&sorted[k++], &j->g[gi]);
            }
        j->g[gi].r1 = k;
    }
    memcpy(j->r, sorted, j->nr * sizeof(*sorted));
    free(sorted);
    return 0;
}

void pci_job_slots(struct pci_job *j, int n)
{
    size_t total = 0;
    int given = 0;
    for (int gi = 0; gi < j->ng; gi++) {
        total += j->g[gi].bytes;
        j->g[gi].nslots = gi < n; /* one each, while they last */
        given += gi < n;
    }
    /* The rest in proportion to bytes; what rounding leaves, in order. */
    int extra = n - given;
    for (int gi = 0; gi < j->ng && extra > 0 && total > 0; gi++) {
        int more = (int)((double)extra * (double)j->g[gi].bytes / (double)total);
        j->g[gi].nslots += more;
        given += more;
    }
    for (int gi = 0; given < n && j->ng > 0; gi = (gi + 1) % j->ng) {
        j->g[gi].nslots++;
        given++;
    }
    int s = 0;
    for (int gi = 0; gi < j->ng; gi++) {
        j->g[gi].first_slot = s;
        s += j->g[gi].nslots;
    }
    j->n = n;
}

int pci_job_home(const struct pci_job *j, int slot)
{
    for (int gi = 0; gi < j->ng; gi++)
        if (slot >= j->g[gi].first_slot && slot < j->g[gi].first_slot + j->g[gi].nslots)
            return gi;
    return 0;
}

/* The CPUs of node index i (in topo) the caller may use; 0 if none. */
static int node_cpus(const struct pci_job *j, int i, cpu_set_t *set)
{
    CPU_AND(set, &j->topo->cpus[i], &j->allowed);
    return CPU_COUNT(set) > 0;
}

int pci_job_cpus(const struct pci_job *j, int gi, int slot, cpu_set_t *set)
{
    const struct pci_numa *t = j->topo;
    const struct pci_group *g = &j->g[gi];
    if (t->nodes <= 1)
        return 0; /* one node: nowhere better to go */
    int found = 0;
    if (g->kind == PCI_POLICY_BOUND) {
        /* The bound nodes' CPUs, all of them: the kernel places the memory
         * there whichever of them faults it. */
        CPU_ZERO(set);
        for (int i = 0; i < t->nodes; i++) {
            cpu_set_t one;
            if (t->id[i] < 64 && (g->nodes >> t->id[i] & 1) && node_cpus(j, i, &one)) {
                CPU_OR(set, set, &one);
                found = 1;
            }
        }
    } else {
        /* Spread: participant i of the group on node i % nodes, as the
         * memory of a default or interleaved policy goes where it is
         * faulted, or round the nodes. */
        int li = slot >= g->first_slot && slot < g->first_slot + g->nslots
                     ? slot - g->first_slot : slot;
        found = node_cpus(j, li % t->nodes, set);
    }
    if (!found) /* the nodes' CPUs are all outside the mask: any of ours */
        memcpy(set, &j->allowed, sizeof(*set));
    return 1;
}

size_t pci_job_chunk(const struct pci_job *j, const struct pci_group *g, size_t k,
                     char **a, size_t *len)
{
    size_t lo = g->r0, hi = g->r1; /* the region with first <= k, last such */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->r[mid].first <= k)
            lo = mid;
        else
            hi = mid;
    }
    /* Regions without chunks share their first with the next: skip on. */
    while (lo + 1 < g->r1 && j->r[lo].first + j->r[lo].nchunks <= k)
        lo++;
    const struct pci_region *r = &j->r[lo];
    uintptr_t base = (uintptr_t)r->lo & ~(uintptr_t)(r->chunk - 1);
    uintptr_t s = base + (k - r->first) * r->chunk, e = s + r->chunk;
    if (s < (uintptr_t)r->lo)
        s = (uintptr_t)r->lo;
    if (e > (uintptr_t)r->hi || e < s)
        e = (uintptr_t)r->hi;
    *a = (char *)s;
    *len = e - s;
    return lo;
}

void pci_job_free(struct pci_job *j)
{
    free(j->g);
    j->g = NULL;
}
