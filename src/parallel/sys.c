/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * sys.c - the real system behind the seam of sys.h: sysfs for the
 * topology, get_mempolicy for policies, the affinity calls, the kernel's
 * view of a mapping for its page size, and MADV_POPULATE_WRITE (or
 * touching) for the populate.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pageclear.h"
#include "fault_guard.h"
#include "proc_uapi.h"
#include "sys.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* get_mempolicy(2) modes and flags (linux/mempolicy.h, not installed
 * everywhere; the values are the kernel's ABI). */
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_PREFERRED_MANY 5
#define MPOL_F_ADDR (1 << 1)
#define MPOL_MODE_FLAGS 0xe000 /* MPOL_F_STATIC_NODES and friends */
/* The mask get_mempolicy fills must hold every node the kernel may have
 * (it refuses a smaller one); 1024 is the largest NODES_SHIFT allows on
 * x86-64 and arm64. */
#define MASK_NODES 1024

static int policy_at(const void *addr, int flags, int *mode, unsigned long *mask)
{
    memset(mask, 0, MASK_NODES / 8);
    if (syscall(SYS_get_mempolicy, mode, mask, (unsigned long)MASK_NODES, addr, flags) != 0)
        return -errno;
    return 0;
}

static int real_policy(const void *addr, enum pci_policy *kind, uint64_t *nodes)
{
    unsigned long mask[MASK_NODES / (8 * sizeof(unsigned long))];
    int mode = 0;
    *kind = PCI_POLICY_SPREAD;
    *nodes = 0;
    int rc = policy_at(addr, MPOL_F_ADDR, &mode, mask);
    /* No policy of the mapping's own (MPOL_DEFAULT): the process's, which
     * is what numactl --membind sets, governs its faults. */
    if (rc == 0 && (mode & ~MPOL_MODE_FLAGS) == 0)
        rc = policy_at(NULL, 0, &mode, mask);
    if (rc != 0)
        return rc;
    mode &= ~MPOL_MODE_FLAGS;
    if (mode != MPOL_BIND && mode != MPOL_PREFERRED && mode != MPOL_PREFERRED_MANY)
        return 0;
    for (size_t i = 0; i < 64; i++)
        if (mask[i / (8 * sizeof(unsigned long))] >> (i % (8 * sizeof(unsigned long))) & 1)
            *nodes |= (uint64_t)1 << i;
    /* Preferred with no node is "local": no node to go to. */
    if (*nodes != 0)
        *kind = PCI_POLICY_BOUND;
    return 0;
}

static int real_affinity(cpu_set_t *set)
{
    return sched_getaffinity(0, sizeof(*set), set) == 0 ? 0 : -errno;
}

static int real_pin(int slot, const cpu_set_t *set)
{
    (void)slot;
    return -pthread_setaffinity_np(pthread_self(), sizeof(*set), set);
}

/* From /proc/self/smaps, for kernels before 6.11: KernelPageSize of the
 * mapping holding addr, 0 if not found. */
static size_t smaps_page_size(uintptr_t addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;
    size_t kb = 0;
    if (f == NULL)
        return 0;
    while (kb == 0 && fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            inside = addr >= lo && addr < hi;
        else if (inside && sscanf(line, "KernelPageSize: %zu kB", &kb) != 1)
            kb = 0;
    }
    fclose(f);
    return kb * 1024;
}

/* The largest page size over [addr, addr + len): PROCMAP_QUERY (Linux
 * 6.11, proc_uapi.h) gives it without reading /proc/self/smaps, which
 * walks the page tables of every mapping it prints (slow once memory is
 * populated); smaps where the kernel lacks the ioctl. */
static size_t real_page_size(const void *addr, size_t len)
{
    size_t best = PC_PAGE_SIZE;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    uintptr_t a = (uintptr_t)addr, end = a + len;
    while (a < end) {
        struct procmap_query q = {.size = sizeof(q), .query_addr = a};
        if (fd < 0 || ioctl(fd, PROCMAP_QUERY, &q) != 0) {
            /* ENOENT: a hole, which the populate will report. Anything
             * else: a kernel without the query; the first mapping only. */
            size_t ps = errno == ENOENT ? 0 : smaps_page_size(a);
            best = ps > best ? ps : best;
            break;
        }
        if (q.vma_page_size > best)
            best = (size_t)q.vma_page_size;
        a = (uintptr_t)q.vma_end;
    }
    if (fd >= 0)
        close(fd);
    return best;
}

static int real_populate(int slot, void *addr, size_t len, int flags)
{
    (void)slot;
    if (!(flags & PC_POPULATE_TOUCH)) {
        if (madvise(addr, len, MADV_POPULATE_WRITE) == 0)
            return 0;
        /* EINVAL: a kernel before 5.14 does not know the advice; touch. */
        if (errno != EINVAL)
            return -errno;
    }
    return pci_touch_pages(addr, len);
}

static void real_started(int slot)
{
    (void)slot;
}

static const struct pci_sys real = {
    .topology = pci_numa,
    .policy = real_policy,
    .affinity = real_affinity,
    .pin = real_pin,
    .page_size = real_page_size,
    .populate = real_populate,
    .started = real_started,
};

static const struct pci_sys *in_force = &real;

const struct pci_sys *pci_sys(void)
{
    return __atomic_load_n(&in_force, __ATOMIC_ACQUIRE);
}

void pci_sys_use(const struct pci_sys *s)
{
    __atomic_store_n(&in_force, s != NULL ? s : &real, __ATOMIC_RELEASE);
}
