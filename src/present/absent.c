/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * absent.c - the pages that read as zero without a write (absent.h).
 *
 * A scan reports a page when its categories c, with c' = c ^ inverted,
 * hold all of mask and one of anyof. With inverted = PRESENT | SWAPPED,
 * mask = SWAPPED and anyof = PRESENT | PFNZERO:
 *   nothing there         c = 0            c' = P|S     reported
 *   the shared zero page  c = P|PFNZERO    c' = S|Z     reported
 *   a page                c = P            c' = S       not (no P, no Z)
 *   swapped, a marker     c = S            c' = P       not (no S)
 * SWAPPED is every non-empty entry that is not a page: swap, migration,
 * hardware poison, userfaultfd and guard markers; all of those are left
 * to the clear. Asking for the empty pages rather than the present ones
 * measured 0.7 ms against 3.0-7.2 ms over 1 GiB of present 4 KiB pages
 * here (Zen 5 guest, kernel 6.18): a page that is not reported costs only
 * its test, a reported one the merge into the output.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "absent.h"
#include "proc_text.h"
#include "proc_uapi.h"

_Static_assert(sizeof(struct pci_run) == sizeof(struct page_region) &&
                   offsetof(struct pci_run, end) == offsetof(struct page_region, end) &&
                   offsetof(struct pci_run, categories) ==
                       offsetof(struct page_region, categories),
               "struct pci_run is the kernel's struct page_region");

int pci_absent_open(void)
{
    return pci_proc_open("/proc/self/pagemap");
}

int pci_absent_scan(int fd, uintptr_t lo, uintptr_t hi, struct pci_run *runs, int n,
                    uint64_t max_pages, uintptr_t *walked)
{
    struct pm_scan_arg a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.start = lo;
    a.end = hi;
    a.vec = (uintptr_t)runs;
    a.vec_len = (uint64_t)n;
    a.max_pages = max_pages;
    a.category_inverted = PAGE_IS_PRESENT | PAGE_IS_SWAPPED;
    a.category_mask = PAGE_IS_SWAPPED;
    a.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_PFNZERO;
    /* Every category asked for: runs then never join a page of one kind
     * to a page of the other, which nothing here needs, but an empty
     * return mask is not a request every kernel takes. */
    a.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_PFNZERO;
    int got = pci_proc_ioctl(fd, PAGEMAP_SCAN, &a);
    if (got < 0)
        return got;
    /* Runs in order inside [lo, hi), the walk past the last of them and
     * past lo (else a caller could loop forever). */
    uint64_t at = lo;
    for (int i = 0; i < got; i++) {
        if (got > n || runs[i].start < at || runs[i].end <= runs[i].start)
            return -EIO;
        at = runs[i].end;
    }
    if (a.walk_end < at || a.walk_end <= lo || a.walk_end > hi)
        return -EIO;
    *walked = (uintptr_t)a.walk_end;
    return got;
}
