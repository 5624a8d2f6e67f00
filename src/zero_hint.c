/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * zero_hint.c - clearing around a hint, in the kernel's folio_zero_user
 * order: the range right of the hint's neighbourhood, then the range left of
 * it, then the neighbourhood itself last so that its lines, which the caller
 * is about to touch, are the most recently written and still in cache.
 */
#include <errno.h>

#include "pageclear.h"
#include "batch.h"
#include "plan.h"
#include "primitive.h"
#include "range.h"

/* Pages either side of the hint's page that count as its neighbourhood
 * (at most 2 * 2 + 1 = 5 pages, 20 KiB: well inside L1+L2 on current
 * cores, so clearing it last keeps all of it cached). */
#define NEIGHBOUR_RADIUS 2

/* Clear pages [first, last] of the extent whose page 0 starts at base,
 * clipped to [lo, hi). */
static int clear_pages_range(uintptr_t base, size_t first, size_t last,
                             uintptr_t lo, uintptr_t hi, pci_clear_fn fn,
                             const struct pc_batch *b, size_t *done,
                             size_t total)
{
    uintptr_t s = base + first * PC_PAGE_SIZE;
    uintptr_t e = base + (last + 1) * PC_PAGE_SIZE;
    if (s < lo)
        s = lo;
    if (e > hi)
        e = hi;
    return pci_clear_units((char *)s, e - s, fn, b, done, total);
}

int (pc_clear_hint_batched)(void *addr, size_t len, const void *hint,
                            const struct pc_batch *b, size_t size, size_t *cleared)
{
    struct pc_batch rb;
    size_t done = 0;
    int rc = pci_check_range(addr, len);

    if (cleared != NULL)
        *cleared = 0;
    if (rc != 0 || len == 0)
        return rc;
    uintptr_t lo = (uintptr_t)addr, hi = lo + len, h = (uintptr_t)hint;
    if (h < lo || h >= hi)
        return -EINVAL;
    rc = pci_batch_resolve(b, size, &rb);
    if (rc != 0)
        return rc;

    uintptr_t base = lo & ~(uintptr_t)(PC_PAGE_SIZE - 1);
    size_t n = (size_t)((hi - 1 - base) / PC_PAGE_SIZE) + 1;
    size_t fault = (size_t)((h - base) / PC_PAGE_SIZE);
    size_t nstart = fault > NEIGHBOUR_RADIUS ? fault - NEIGHBOUR_RADIUS : 0;
    size_t nend = fault + NEIGHBOUR_RADIUS < n ? fault + NEIGHBOUR_RADIUS : n - 1;

    /* Chosen for the whole extent, as in pc_clear_batched. */
    pci_clear_fn far = pci_clear_for(len);
    if (nend + 1 < n)
        rc = clear_pages_range(base, nend + 1, n - 1, lo, hi, far, &rb, &done, len);
    if (rc == 0 && nstart > 0)
        rc = clear_pages_range(base, 0, nstart - 1, lo, hi, far, &rb, &done, len);
    if (rc == 0) {
        size_t near_len = (nend - nstart + 1) * PC_PAGE_SIZE;
        rc = clear_pages_range(base, nstart, nend, lo, hi,
                               pci_clear_temporal_for(near_len), &rb, &done, len);
    }
    if (cleared != NULL)
        *cleared = done;
    return rc;
}

int pc_clear_hint(void *addr, size_t len, const void *hint)
{
    return pc_clear_hint_batched(addr, len, hint, NULL, NULL);
}
