/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * smaps_uffd.c - whether part of a range is registered with a userfaultfd
 * (vma.h, pci_vmas_uffd).
 *
 * The registration is a flag of the mapping (VM_UFFD_MISSING,
 * VM_UFFD_MINOR) that only /proc/self/smaps shows, on the VmFlags line
 * ending each mapping's entry ("um", "ui"): PROCMAP_QUERY, maps and
 * PAGEMAP_SCAN do not carry it, and the descriptor may be held by another
 * process (a monitor, after fork with UFFD_FEATURE_EVENT_FORK), so no
 * look at this process's descriptors can rule it out. smaps costs: for
 * each mapping it shows, the kernel walks its page tables to count
 * resident pages first. The file is read only up to the last mapping
 * overlapping the range and then closed, and pc_clear_present asks only
 * when it would skip a page. Write-protect mode ("uw") changes when a
 * write proceeds, never what a page holds, so it does not count.
 */
#include <errno.h>
#include <string.h>

#include "vma.h"

/* A VmFlags line: "VmFlags:" and two letters and a space per flag, some
 * forty flags in 6.x kernels; a line cut to this means flags unseen. */
#define LINE_MAX_SMAPS 256

/* 1 if the flags on a VmFlags line include missing or minor mode. */
static int uffd_flag(const char *flags)
{
    for (const char *p = flags; *p != '\0'; p++)
        if ((p == flags || p[-1] == ' ') && p[0] == 'u' && (p[1] == 'm' || p[1] == 'i') &&
            (p[2] == ' ' || p[2] == '\0'))
            return 1;
    return 0;
}

/* Read the entries of smaps up to hi; 1, 0 or -errno as pci_vmas_uffd. */
static int scan(struct pci_lines *r, uintptr_t lo, uintptr_t hi)
{
    static const char key[] = "VmFlags:";
    char line[LINE_MAX_SMAPS];
    int inside = 0; /* the entry being read overlaps [lo, hi) */
    int pending = 0; /* ... and its VmFlags line is still to come */
    for (;;) {
        int rc = pci_lines_next(r, line, sizeof(line));
        if (rc < 0)
            return rc;
        struct pci_maps_line m;
        if (rc == 0 || pci_maps_parse(line, &m) == 0) {
            if (pending)
                return -ENODATA; /* an entry without flags: cannot tell */
            if (rc == 0 || m.start >= hi)
                return 0;
            inside = pending = m.end > lo;
        } else if (inside && strncmp(line, key, sizeof(key) - 1) == 0) {
            if (rc == 2)
                return -ENAMETOOLONG; /* flags past the buffer: unseen */
            if (uffd_flag(line + sizeof(key) - 1))
                return 1;
            pending = 0;
        }
    }
}

int pci_vmas_uffd(uintptr_t lo, uintptr_t hi)
{
    int fd = pci_proc_open("/proc/self/smaps");
    if (fd < 0)
        return fd;
    struct pci_lines r;
    pci_lines_init(&r, fd);
    int rc = scan(&r, lo, hi);
    pci_proc_close(fd);
    return rc;
}
