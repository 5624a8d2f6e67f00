/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * written.c - written-page tracking for the pool (written.h).
 *
 * A range registered with userfaultfd in write-protect mode, with the
 * asynchronous feature, is write-protected in its page tables; the first
 * write to a protected page is resolved by the kernel on the spot (no
 * fault message, no handler thread) and leaves the page unprotected. The
 * PAGEMAP_SCAN ioctl on /proc/self/pagemap then reports PAGE_IS_WRITTEN for
 * exactly the unprotected pages. Because it is the page table that records
 * it, a write is seen whoever makes it: any thread, or the kernel writing
 * for a system call (read(2) into the range, /proc/self/mem,
 * process_vm_writev) - those go through the same fault path.
 *
 * WP_UNPOPULATED makes pages not yet faulted in protected too (a marker in
 * the page table), so a page that is only read (the shared zero page) is
 * not reported written, and PM_SCAN_CHECK_WPASYNC can insist that the whole
 * range is still tracked.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pageclear.h"
#include "proc_uapi.h"
#include "written.h"

/* The userfaultfd UAPI this needs, where the system's headers predate it
 * (Debian 12's linux-libc-dev is 6.1; PAGEMAP_SCAN: proc_uapi.h). Values
 * from the kernel's ABI, which never changes them. */
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1 /* Linux 5.11 */
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1ULL << 13) /* Linux 6.4 */
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1ULL << 15) /* Linux 6.7 */
#endif

#define PG PC_PAGE_SIZE
/* Regions per PAGEMAP_SCAN call: adjacent pages of one kind come back as
 * one region, so a pool allocation rarely needs more than a few; more
 * simply means another call. */
#define SCAN_VEC 64

static int uffd_open(void)
{
    /* User-mode-only needs no privilege even with
     * vm.unprivileged_userfaultfd=0, and loses nothing here: asynchronous
     * write-protect faults, kernel-mode ones included, never reach the
     * descriptor. Before Linux 5.11 the flag is refused: try without. */
    long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (fd < 0 && errno == EINVAL)
        fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    return fd < 0 ? -errno : (int)fd;
}

static int uffd_api(int fd)
{
    struct uffdio_api api;
    memset(&api, 0, sizeof(api));
    api.api = UFFD_API;
    api.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
    return ioctl(fd, UFFDIO_API, &api) == 0 ? 0 : -errno;
}

int pci_written_open(struct pci_written *w, void *addr, size_t len, int arm)
{
    w->uffd = w->pagemap = -1;
    int fd = uffd_open();
    if (fd < 0)
        return fd;
    int rc = uffd_api(fd);
    struct uffdio_register reg;
    memset(&reg, 0, sizeof(reg));
    reg.range.start = (uintptr_t)addr;
    reg.range.len = len;
    reg.mode = UFFDIO_REGISTER_MODE_WP;
    if (rc == 0 && ioctl(fd, UFFDIO_REGISTER, &reg) != 0)
        rc = -errno;
    if (rc == 0 && !(reg.ioctls & ((uint64_t)1 << _UFFDIO_WRITEPROTECT)))
        rc = -EOPNOTSUPP; /* e.g. a backing the kernel cannot protect */
    w->uffd = fd;
    if (rc == 0) {
        w->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
        rc = w->pagemap < 0 ? -errno : arm ? pci_written_arm(w, addr, len) : 0;
    }
    if (rc != 0)
        pci_written_close(w);
    return rc;
}

void pci_written_close(struct pci_written *w)
{
    if (w->pagemap >= 0)
        close(w->pagemap);
    if (w->uffd >= 0)
        close(w->uffd);
    w->uffd = w->pagemap = -1;
}

int pci_written_arm(const struct pci_written *w, void *addr, size_t len)
{
    struct uffdio_writeprotect wp;
    memset(&wp, 0, sizeof(wp));
    wp.range.start = (uintptr_t)addr;
    wp.range.len = len;
    wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
    return ioctl(w->uffd, UFFDIO_WRITEPROTECT, &wp) == 0 ? 0 : -errno;
}

int pci_written_scan(const struct pci_written *w, void *addr, size_t len,
                     unsigned char *out)
{
    struct page_region vec[SCAN_VEC];
    uintptr_t lo = (uintptr_t)addr, end = lo + len, at = lo;
    memset(out, 0, len / PG);
    while (at < end) {
        struct pm_scan_arg a;
        memset(&a, 0, sizeof(a));
        a.size = sizeof(a);
        /* Every page of the range must still be under asynchronous
         * write-protect, else the answer would mean nothing. */
        a.flags = PM_SCAN_CHECK_WPASYNC;
        a.start = at;
        a.end = end;
        a.vec = (uintptr_t)vec;
        a.vec_len = SCAN_VEC;
        a.category_anyof_mask = PAGE_IS_WRITTEN | PAGE_IS_PRESENT;
        a.return_mask = PAGE_IS_WRITTEN | PAGE_IS_PRESENT;
        int n = ioctl(w->pagemap, PAGEMAP_SCAN, &a);
        if (n < 0)
            return -errno;
        for (int r = 0; r < n; r++) {
            unsigned char bits = (vec[r].categories & PAGE_IS_WRITTEN ? PCI_WRITTEN_W : 0) |
                                 (vec[r].categories & PAGE_IS_PRESENT ? PCI_WRITTEN_P : 0);
            if (vec[r].start < lo || vec[r].end > end || vec[r].start > vec[r].end)
                return -EIO; /* not what was asked: trust none of it */
            memset(out + (vec[r].start - lo) / PG, bits, (vec[r].end - vec[r].start) / PG);
        }
        if (a.walk_end <= at || a.walk_end > end)
            return -EIO; /* no progress: never loop forever */
        at = (uintptr_t)a.walk_end;
    }
    return 0;
}

/* The probe: a mapping of four pages, tracked, one written; the scan must
 * say exactly that page. Sets why to the reason when it fails. */
static int probe(const char **why)
{
    size_t len = 4 * PG;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        *why = "no memory for the probe";
        return 0;
    }
    m[0] = 1; /* present before arming: must read as not written */
    struct pci_written w;
    int rc = pci_written_open(&w, m, len, 1), ok = 0;
    if (rc == -ENOSYS)
        *why = "no userfaultfd in this kernel";
    else if (rc == -EPERM)
        *why = "userfaultfd not permitted (seccomp or vm.unprivileged_userfaultfd)";
    else if (rc == -EINVAL)
        *why = "kernel before 6.7: no asynchronous userfaultfd write-protect";
    else if (rc != 0)
        *why = "cannot register anonymous memory for write-protect";
    if (rc == 0) {
        unsigned char got[4];
        volatile char *v = m;
        v[2 * PG] = 1;
        (void)v[3 * PG]; /* a read is not a write */
        rc = pci_written_scan(&w, m, len, got);
        ok = rc == 0 && got[0] == PCI_WRITTEN_P && got[1] == 0 &&
             got[2] == (PCI_WRITTEN_W | PCI_WRITTEN_P) && (got[3] & PCI_WRITTEN_W) == 0;
        *why = rc == -ENOTTY || rc == -EINVAL ? "kernel before 6.7: no PAGEMAP_SCAN"
               : !ok                          ? "PAGEMAP_SCAN disagrees with the probe's writes"
                                              : NULL;
        pci_written_close(&w);
    }
    munmap(m, len);
    return ok;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int available;
static char support[160];

static void probe_once(void)
{
    const char *why = NULL;
    available = probe(&why);
    if (available)
        snprintf(support, sizeof(support),
                 "written pages (userfaultfd async write-protect, PAGEMAP_SCAN)");
    else
        snprintf(support, sizeof(support), "whole runs (%s)", why ? why : "unknown");
}

int pci_written_available(void)
{
    pthread_once(&once, probe_once);
    return available;
}

const char *pci_written_support(void)
{
    pthread_once(&once, probe_once);
    return support;
}
