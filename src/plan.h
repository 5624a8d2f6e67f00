/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * plan.h - the selection and the hot path: the pure selector (select.c),
 * the plans it is resolved into for every length, and the inline look-up
 * the entry points make (dispatch.c holds the plans in force).
 */
#ifndef PCI_PLAN_H
#define PCI_PLAN_H

#include <stddef.h>

#include "cpu.h"
#include "primitive.h"
#include "tuning.h"

#pragma GCC visibility push(hidden)

/* The selector: a pure function from CPU, thresholds and length to a
 * primitive index. temporal != 0 restricts it to cache-allocating ones. */
int pci_select(const struct pci_cpu *c, const struct pci_tuning *t,
               size_t len, int temporal);

/* The four plans: what pc_clear, the hint neighbourhood (cache-allocating
 * only), pc_clear_cold and pc_clear_parallel on more than one thread run. */
enum pci_plan_kind {
    PCI_PLAN_CLEAR = 0,
    PCI_PLAN_TEMPORAL = 1,
    PCI_PLAN_COLD = 2,
    PCI_PLAN_PARALLEL = 3,
    PCI_NPLANS
};

/* The selector for a plan kind, as pure as pci_select: CLEAR and TEMPORAL
 * are pci_select; COLD and PARALLEL take the cache-allocating choice below
 * their own streaming threshold (pc_clear's nt_threshold does not reach
 * them) and, from it, the selector with non-temporal stores from that
 * threshold (vector stores only below it). */
int pci_select_kind(const struct pci_cpu *c, const struct pci_tuning *t,
                    enum pci_plan_kind kind, size_t len);

/* The selection resolved for every length: range i covers lengths from
 * upto[i-1] (0 for i = 0) up to, not including, upto[i]; the last range
 * ends at SIZE_MAX (a len of SIZE_MAX cannot pass pci_check_range). */
/* Six ranges: the most a plan can have is one more than its boundaries
 * (vector_max, nt_threshold, the cold or parallel threshold, four dc zva
 * blocks), so no combination of thresholds can overflow it. */
#define PCI_PLAN_MAX 6
struct pci_plan {
    size_t n;
    size_t upto[PCI_PLAN_MAX];
    int id[PCI_PLAN_MAX];
    pci_clear_fn fn[PCI_PLAN_MAX];
    pci_fill_fn fill[PCI_PLAN_MAX]; /* a non-zero byte (pci_impl_fill_for) */
};
/* Build the plan from the pure selector; forced >= 0 overrides it (for
 * temporal plans, only if the forced primitive allocates in cache). */
void pci_plan_build(const struct pci_cpu *c, const struct pci_tuning *t,
                    int forced, int temporal, struct pci_plan *p);
/* The same for any kind; forced overrides every kind but TEMPORAL's
 * restriction to cache-allocating primitives. */
void pci_plan_build_kind(const struct pci_cpu *c, const struct pci_tuning *t,
                         int forced, enum pci_plan_kind kind, struct pci_plan *p);
/* The plans in force, indexed by enum pci_plan_kind ([0] pc_clear, [1]
 * cache-allocating, for the hint neighbourhood, [2] pc_clear_cold, [3]
 * pc_clear_parallel's shares), valid once pci_plans_ready reads 1
 * (dispatch.c). They are reached inline: at 256 B the clear itself takes
 * ~4 ns, and calls across files to reach the plan measured ~3 ns more. */
extern struct pci_plan pci_plans[PCI_NPLANS];
extern int pci_plans_ready;
void pci_plans_init(void);

/* The plan of a kind, built on first use. */
static inline const struct pci_plan *pci_plan_of(enum pci_plan_kind kind)
{
    if (__builtin_expect(!__atomic_load_n(&pci_plans_ready, __ATOMIC_ACQUIRE), 0))
        pci_plans_init();
    return &pci_plans[kind];
}

/* Index into p of the range holding len; the last range ends at SIZE_MAX. */
static inline size_t pci_plan_slot(const struct pci_plan *p, size_t len)
{
    size_t i = 0;
    while (len >= p->upto[i])
        i++;
    return i;
}

/* The primitive a plan kind runs for len. */
static inline pci_clear_fn pci_plan_fn(enum pci_plan_kind kind, size_t len)
{
    const struct pci_plan *p = pci_plan_of(kind);
    return p->fn[pci_plan_slot(p, len)];
}

/* What pc_clear runs for len (honours PAGECLEAR_IMPL). */
static inline pci_clear_fn pci_clear_for(size_t len)
{
    return pci_plan_fn(PCI_PLAN_CLEAR, len);
}

/* What pc_fill stores a non-zero byte with for len: pc_clear's primitive
 * or its stand-in; NULL where none runs here. */
static inline pci_fill_fn pci_fill_for(size_t len)
{
    const struct pci_plan *p = pci_plan_of(PCI_PLAN_CLEAR);
    return p->fill[pci_plan_slot(p, len)];
}

/* The cache-allocating primitive for len (the hint neighbourhood). */
static inline pci_clear_fn pci_clear_temporal_for(size_t len)
{
    return pci_plan_fn(PCI_PLAN_TEMPORAL, len);
}

/* For memory nobody will read soon (cleared at free, or ahead of demand by
 * the pool's worker): pc_clear_cold's choice, i.e. non-temporal stores from
 * cold_nt_threshold where the CPU has them, so the clear neither pollutes
 * the cache nor waits on it. */
static inline pci_clear_fn pci_clear_cold_for(size_t len)
{
    return pci_plan_fn(PCI_PLAN_COLD, len);
}

#pragma GCC visibility pop

#endif /* PCI_PLAN_H */
