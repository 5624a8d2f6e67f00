/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * clear_present.c - pc_clear_present: make a range read as zero, doing no
 * work for the pages that already do (pageclear.h has the contract).
 *
 * A call reads the kind of each mapping in the range (vma.c) before it
 * writes anything: a hole or a page that cannot be written is -EFAULT with
 * nothing written, and with PC_PRESENT_NO_FALLBACK every reason to clear
 * without proof is known before the first store. Then, mapping by mapping:
 * a private anonymous one is scanned for the pages the kernel has not
 * handed out (absent.c) and only what lies between them is cleared; any
 * other kind is cleared whole. Whether the range is registered with a
 * userfaultfd is read (smaps_uffd.c, the costly one) once, at the first
 * page the call would skip, since it matters for nothing else.
 *
 * With PC_PRESENT_POPULATE the runs a call would leave alone are faulted
 * in instead (populate_run), and stored over where the kernel refuses.
 *
 * Nothing is kept between calls: each opens the /proc/self files it reads
 * and closes them before it returns. A descriptor kept open would answer
 * for the parent after fork (it is bound to the memory of the process that
 * opened it), and its number could be closed and reused by the program.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pageclear.h"
#include "abi.h"
#include "absent.h"
#include "plan.h"
#include "range.h"
#include "vma.h"

#define KNOWN_FLAGS (PC_PRESENT_NO_FALLBACK | PC_PRESENT_DRY_RUN | PC_PRESENT_POPULATE)

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Runs per PAGEMAP_SCAN call: 768 bytes of stack. Each call restarts the
 * walk where the last one stopped; a range of absent and present pages in
 * turn (the worst case: 131072 runs per GiB) then takes 4096 calls. */
#define SCAN_RUNS 32

/* The userfaultfd answer before anyone asked. */
#define UFFD_UNASKED 2

struct job {
    uintptr_t lo, hi; /* the range */
    int flags;
    uintptr_t page; /* the system's page size */
    pci_clear_fn fn; /* pc_clear's choice for the whole length */
    int pagemap;     /* the descriptor, or -errno once it failed to open */
    int uffd;        /* pci_vmas_uffd's answer, or UFFD_UNASKED */
    struct pc_present_report rep;
};

/* The first reason met (the lowest address: parts are done in order). */
static void note(struct job *j, enum pc_present_why why, int err)
{
    if (j->rep.why == PC_PRESENT_PROVEN) {
        j->rep.why = why;
        j->rep.error = err;
    }
}

static uintptr_t clip_lo(const struct job *j, uintptr_t a)
{
    return a < j->lo ? j->lo : a;
}

static uintptr_t clip_hi(const struct job *j, uintptr_t b)
{
    return b > j->hi ? j->hi : b;
}

/* Clear [a, b) within the range (the part of a page outside it stays). */
static void clear_part(struct job *j, uintptr_t a, uintptr_t b)
{
    a = clip_lo(j, a);
    b = clip_hi(j, b);
    if (a >= b)
        return;
    if (!(j->flags & PC_PRESENT_DRY_RUN))
        j->fn((void *)a, b - a);
    j->rep.cleared += b - a;
}

/* Clear [a, b) because what its absent pages read cannot be told. */
static void unproven(struct job *j, uintptr_t a, uintptr_t b, enum pc_present_why why,
                     int err)
{
    size_t before = j->rep.cleared;
    clear_part(j, a, b);
    if (j->rep.cleared != before) {
        j->rep.unproven += j->rep.cleared - before;
        note(j, why, err);
    }
}

static enum pc_present_why why_of_kind(enum pci_vma_kind k)
{
    return k == PCI_VMA_HUGETLB ? PC_PRESENT_HUGETLB
           : k == PCI_VMA_SHARED ? PC_PRESENT_SHARED
                                 : PC_PRESENT_FILE;
}

/* The kernel has no PAGEMAP_SCAN (ENOTTY; EINVAL from a kernel that does
 * not know a category asked for), or something refused it. */
static enum pc_present_why scan_why(int rc)
{
    return rc == -ENOTTY || rc == -EINVAL ? PC_PRESENT_NO_SCAN : PC_PRESENT_REFUSED;
}

/* /proc/self/pagemap, opened at the first need: the descriptor or -errno. */
static int pagemap(struct job *j)
{
    if (j->pagemap == -EBADF) {
        j->pagemap = pci_absent_open();
        j->rep.used |= PC_PRESENT_USED_SCAN;
    }
    return j->pagemap;
}

/* 1 if the range's absent pages read zero as far as userfaultfd goes:
 * asked once per call, at the first page it would skip. */
static int uffd_free(struct job *j)
{
    if (j->uffd == UFFD_UNASKED) {
        j->uffd = pci_vmas_uffd(j->lo, j->hi);
        j->rep.used |= PC_PRESENT_USED_SMAPS;
    }
    return j->uffd == 0;
}

static void note_uffd(struct job *j, uintptr_t a, uintptr_t b)
{
    if (j->uffd > 0)
        unproven(j, a, b, PC_PRESENT_USERFAULTFD, 0);
    else
        unproven(j, a, b, PC_PRESENT_NO_UFFD_INFO, -j->uffd);
}

static uintptr_t page_down(const struct job *j, uintptr_t a)
{
    return a & ~(j->page - 1);
}

static uintptr_t page_up(const struct job *j, uintptr_t a)
{
    return (a + j->page - 1) & ~(j->page - 1);
}

/* Fault in the whole pages of [a, b), a run that reads zero, and count
 * the bytes within the range. Through syscall(2), as proc_text.c makes
 * its calls: no cancellation point, async-signal-safe. Once the kernel
 * refuses, the rest of the call stores instead: a first touch then faults
 * as a memset's would, and the error is the one a retry would get. */
static void populate_run(struct job *j, uintptr_t a, uintptr_t b)
{
    uintptr_t lo = clip_lo(j, a), hi = clip_hi(j, b);
    if (lo >= hi)
        return;
    if (!(j->flags & PC_PRESENT_DRY_RUN) && j->rep.populate_error == 0) {
        j->rep.used |= PC_PRESENT_USED_POPULATE;
        uintptr_t from = page_down(j, lo), to = page_up(j, hi);
        if (syscall(SYS_madvise, from, to - from, MADV_POPULATE_WRITE) != 0)
            j->rep.populate_error = errno > 0 ? errno : EIO;
    }
    if (j->rep.populate_error != 0)
        clear_part(j, lo, hi);
    else
        j->rep.populated += hi - lo;
}

/* A run of pages that read zero: left alone (or, under
 * PC_PRESENT_POPULATE, faulted in) where that is proven. */
static void absent_run(struct job *j, uintptr_t a, uintptr_t b)
{
    if (!uffd_free(j)) {
        note_uffd(j, a, b);
        return;
    }
    if (j->flags & PC_PRESENT_POPULATE) {
        populate_run(j, a, b);
        return;
    }
    a = clip_lo(j, a);
    b = clip_hi(j, b);
    if (a < b)
        j->rep.skipped += b - a;
}

/* [a, b) of a private anonymous mapping: the pages between the absent
 * runs cleared, the runs left alone. A page partly in the range is whole
 * in the mapping, so the scan covers whole pages. */
static void anon_part(struct job *j, uintptr_t a, uintptr_t b)
{
    int fd = pagemap(j);
    if (fd < 0) {
        unproven(j, a, b, scan_why(fd), -fd);
        return;
    }
    struct pci_run run[SCAN_RUNS];
    uintptr_t at = page_down(j, a), end = page_up(j, b);
    while (at < end) {
        uintptr_t walked;
        int n = pci_absent_scan(fd, at, end, run, SCAN_RUNS, 0, &walked);
        if (n < 0) {
            unproven(j, at, b, scan_why(n), -n);
            return;
        }
        for (int i = 0; i < n; i++) {
            clear_part(j, at, (uintptr_t)run[i].start);
            absent_run(j, (uintptr_t)run[i].start, (uintptr_t)run[i].end);
            at = (uintptr_t)run[i].end;
        }
        clear_part(j, at, walked);
        at = walked;
    }
}

/* What the mappings of the range are, before anything is written. */
struct survey {
    enum pc_present_why kind; /* the first other kind's reason, or PROVEN */
    struct pci_vma first;     /* the mapping holding lo: when it holds the
                                 whole range (most calls), the work needs
                                 no other question */
};

/* 0 with *s; 1 if a part of the range is not mapped or not writable;
 * -errno if the mappings cannot be read. */
static int survey(const struct job *j, struct pci_vmas *v, struct survey *s)
{
    s->kind = PC_PRESENT_PROVEN;
    for (uintptr_t at = j->lo; at < j->hi;) {
        struct pci_vma m;
        int rc = pci_vmas_find(v, at, &m);
        if (rc < 0)
            return rc;
        if (rc == 0 || m.start > at || m.kind == PCI_VMA_READONLY)
            return 1;
        if (at == j->lo)
            s->first = m;
        if (m.kind != PCI_VMA_ANON && s->kind == PC_PRESENT_PROVEN)
            s->kind = why_of_kind(m.kind);
        at = m.end;
    }
    return 0;
}

/* PC_PRESENT_NO_FALLBACK: 0 if the call can prove every page it would
 * skip, else -ENOTSUP with the reason noted. The range is one stretch of
 * mappings here (the survey found no hole), so one scan for a first
 * absent page says whether the userfaultfd answer is needed at all. */
static int decide(struct job *j, const struct survey *s)
{
    if (s->kind != PC_PRESENT_PROVEN) {
        note(j, s->kind, 0);
        return -ENOTSUP;
    }
    int fd = pagemap(j);
    struct pci_run run[1];
    uintptr_t walked;
    int n = fd < 0 ? fd
                   : pci_absent_scan(fd, page_down(j, j->lo), page_up(j, j->hi), run, 1, 1,
                                     &walked);
    if (n < 0) {
        note(j, scan_why(n), -n);
        return -ENOTSUP;
    }
    if (n > 0 && !uffd_free(j)) {
        note(j, j->uffd > 0 ? PC_PRESENT_USERFAULTFD : PC_PRESENT_NO_UFFD_INFO,
             j->uffd > 0 ? 0 : -j->uffd);
        return -ENOTSUP;
    }
    return 0;
}

/* The work, mapping by mapping, in address order. Past the first, the
 * mappings are asked for again: the survey kept no more (the range may
 * span any number). */
static int work(struct job *j, struct pci_vmas *v, const struct pci_vma *first)
{
    for (uintptr_t at = j->lo; at < j->hi;) {
        struct pci_vma m = *first;
        int rc = at == j->lo ? 1 : pci_vmas_find(v, at, &m);
        if (rc < 0) {
            /* Unreadable now: clear the rest as pc_clear would. */
            unproven(j, at, j->hi, PC_PRESENT_NO_MAPS, -rc);
            return 0;
        }
        if (rc == 0 || m.start > at || m.kind == PCI_VMA_READONLY)
            return -EFAULT; /* unmapped during the call, against the contract */
        uintptr_t end = clip_hi(j, m.end);
        if (m.kind == PCI_VMA_ANON)
            anon_part(j, at, end);
        else
            unproven(j, at, end, why_of_kind(m.kind), 0);
        at = end;
    }
    return 0;
}

/* The whole range without reading the mappings (they cannot be read). */
static int blind(struct job *j, int rc)
{
    if (j->flags & PC_PRESENT_NO_FALLBACK) {
        note(j, PC_PRESENT_NO_MAPS, -rc);
        return -ENOTSUP;
    }
    unproven(j, j->lo, j->hi, PC_PRESENT_NO_MAPS, -rc);
    return 0;
}

static int run(struct job *j)
{
    struct pci_vmas v;
    int rc = pci_vmas_open(&v, j->page);
    if (rc < 0)
        return blind(j, rc);
    struct survey s;
    rc = survey(j, &v, &s);
    if (rc == 0 && (j->flags & PC_PRESENT_NO_FALLBACK))
        rc = decide(j, &s);
    if (rc == 0)
        rc = work(j, &v, &s.first);
    else if (rc == 1)
        rc = -EFAULT;
    else if (rc != -ENOTSUP)
        rc = blind(j, rc);
    j->rep.used |= (v.used & PCI_VMAS_QUERY ? PC_PRESENT_USED_PROCMAP_QUERY : 0) |
                   (v.used & PCI_VMAS_TEXT ? PC_PRESENT_USED_MAPS : 0);
    pci_vmas_close(&v);
    return rc;
}

int (pc_clear_present)(void *addr, size_t len, int flags, struct pc_present_report *r,
                       size_t size)
{
    int rc = pci_check_range(addr, len);
    if (rc == 0 && (flags & ~KNOWN_FLAGS) != 0)
        rc = -EINVAL;
    if (rc == 0 && r != NULL)
        rc = PCI_ABI_CHECK(pc_present_report, r, size);
    if (rc != 0)
        return rc;
    struct job j;
    memset(&j, 0, sizeof(j));
    j.lo = (uintptr_t)addr;
    j.hi = j.lo + len;
    j.flags = flags;
    j.pagemap = -EBADF;
    j.uffd = UFFD_UNASKED;
    if (len > 0) {
        int saved = errno; /* a memset's stand-in leaves errno alone */
        long pg = sysconf(_SC_PAGESIZE);
        j.page = pg > 0 ? (uintptr_t)pg : PC_PAGE_SIZE;
        j.fn = pci_clear_for(len);
        rc = run(&j);
        if (j.pagemap >= 0)
            pci_proc_close(j.pagemap);
        errno = saved;
    }
    if (r != NULL && (rc == 0 || rc == -ENOTSUP))
        (void)PCI_ABI_OUT(pc_present_report, r, size, &j.rep);
    return rc;
}
