/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * pool_map.c - the pool's options and its one mapping (pool.h): the
 * backings best first, hugetlb reserved at mmap, THP aligned to 2 MiB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pageclear.h"
#include "abi.h"
#include "pool.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

#define DEFAULT_CAPACITY ((size_t)256 << 20)
#define HUGE_2M ((size_t)2 << 20)
#define HUGE_1G ((size_t)1 << 30)

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
void pci_pool_opts_defaults(struct pc_pool_opts *o)
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
    pci_pool_opts_defaults(&d);
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

int pci_pool_map(struct pc_pool *p, size_t capacity, enum pc_backing b, int populate)
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
