/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * clear.c - the clearing entry points, what they select, and batching:
 * units with a resched point before each, shaped by the preemption model.
 */
#include <errno.h>
#include <string.h>

#include "pageclear.h"
#include "abi.h"
#include "batch.h"
#include "cpu.h"
#include "impl.h"
#include "options.h"
#include "plan.h"
#include "primitive.h"
#include "range.h"

/* 32 MiB per unit where an architecture primitive exists (see
 * pc_default_unit in pageclear.h for the reasoning: CPU optimisation
 * threshold against ~3 ms per unit at a poor 10 GB/s). */
#define UNIT_MULTIPAGE ((size_t)32 << 20)

int pc_clear(void *addr, size_t len)
{
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    pci_clear_for(len)(addr, len);
    return 0;
}

int pc_fill(void *addr, size_t len, int byte)
{
    if (byte < 0 || byte > 255)
        return -EINVAL;
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    if (byte == 0) {
        pci_clear_for(len)(addr, len);
        return 0;
    }
    pci_fill_fn f = pci_fill_for(len);
    if (f == NULL)
        return -ENOTSUP;
    f(addr, len, pci_pattern((unsigned char)byte));
    return 0;
}

int pc_clear_pages(void *addr, size_t npages)
{
    if (npages == 0)
        return 0;
    if (addr == NULL || ((uintptr_t)addr & (PC_PAGE_SIZE - 1)) != 0)
        return -EINVAL;
    if (npages > SIZE_MAX / PC_PAGE_SIZE)
        return -EOVERFLOW;
    return pc_clear(addr, npages * PC_PAGE_SIZE);
}

int pc_clear_cold(void *addr, size_t len)
{
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    pci_clear_cold_for(len)(addr, len);
    return 0;
}

static const char *plan_name(enum pci_plan_kind kind, size_t len)
{
    const struct pci_plan *p = pci_plan_of(kind);
    /* The last range ends at SIZE_MAX exclusive: the clears never see that
     * length (pci_check_range), but pc_selected() takes any, and the slot
     * search would walk past the table. It gets the last range. */
    if (len == SIZE_MAX)
        len = SIZE_MAX - 1;
    return pci_impls[p->id[pci_plan_slot(p, len)]].name;
}

const char *pc_selected_cold(size_t len)
{
    return plan_name(PCI_PLAN_COLD, len);
}

const char *pc_selected(size_t len)
{
    return plan_name(PCI_PLAN_CLEAR, len);
}

const char *pc_selected_temporal(size_t len)
{
    return plan_name(PCI_PLAN_TEMPORAL, len);
}

size_t pc_default_unit(void)
{
    size_t forced = pci_options()->unit;
    if (forced != 0)
        return forced;
    /* Only the portable C fallback lacks a fast multi-page primitive; the
     * kernel likewise batches one page at a time without clear_pages. */
    return (pci_cpu()->features & (PCI_F_X86_64 | PCI_F_AARCH64)) ? UNIT_MULTIPAGE
                                                                 : PC_PAGE_SIZE;
}

/* The defaults, padding included: what pc_batch_init gives. */
static void batch_defaults(struct pc_batch *b)
{
    memset(b, 0, sizeof(*b)); /* no callback, no ctx */
    b->unit = 0;              /* pc_default_unit() */
    b->model = PC_PREEMPT_NONE;
}

void (pc_batch_init)(struct pc_batch *b, size_t size)
{
    struct pc_batch d;
    batch_defaults(&d);
    (void)PCI_ABI_OUT(pc_batch, b, size, &d);
}

int pci_batch_resolve(const struct pc_batch *in, size_t size, struct pc_batch *out)
{
    batch_defaults(out);
    if (in != NULL) {
        int rc = PCI_ABI_IN(pc_batch, out, in, size);
        if (rc != 0)
            return rc;
    }
    switch (out->model) {
    case PC_PREEMPT_NONE:
    case PC_PREEMPT_VOLUNTARY:
        break;
    case PC_PREEMPT_FULL:
    case PC_PREEMPT_LAZY:
        /* Preemptible: the scheduler can interrupt anywhere, so the whole
         * range is one unit and no resched point is needed. */
        out->unit = SIZE_MAX;
        out->resched = NULL;
        return 0;
    default:
        return -EINVAL;
    }
    if (out->unit == 0)
        out->unit = pc_default_unit();
    return 0;
}

int pci_clear_units(char *addr, size_t len, pci_clear_fn fn,
                    const struct pc_batch *b, size_t *done, size_t total)
{
    /* Units of whole pages stay on the page grid, as the kernel's do: an
     * extent m bytes into a page gets a first unit of unit - m bytes, so the
     * later ones start on page boundaries (pageclear.h, struct pc_batch). */
    size_t first = b->unit;
    size_t mis = (uintptr_t)addr & (PC_PAGE_SIZE - 1);
    if (mis != 0 && b->unit % PC_PAGE_SIZE == 0)
        first = b->unit - mis;
    while (len > 0) {
        if (b->resched != NULL && b->resched(b->ctx, *done, total) != 0)
            return -ECANCELED;
        size_t n = len < first ? len : first;
        first = b->unit;
        fn(addr, n);
        addr += n;
        len -= n;
        *done += n;
    }
    return 0;
}

int (pc_clear_batched)(void *addr, size_t len, const struct pc_batch *b,
                       size_t size, size_t *cleared)
{
    struct pc_batch rb;
    size_t done = 0;
    int rc = pci_check_range(addr, len);

    if (rc == 0)
        rc = pci_batch_resolve(b, size, &rb);
    if (rc == 0 && len > 0) {
        /* The primitive is chosen for the whole extent, not the unit: units
         * exist for the resched points and must not hide the extent's size
         * from the selection (a 1 GiB clear in 2 MiB units still streams;
         * chosen per unit it measured 8 GB/s against 21 on the Xeon guest). */
        pci_clear_fn fn = pci_clear_for(len);
        rc = pci_clear_units(addr, len, fn, &rb, &done, len);
    }
    if (cleared != NULL)
        *cleared = done;
    return rc;
}
