/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * dispatch.c - the selection in force: the thresholds' defaults with the
 * profile and the PAGECLEAR_* variables on top, the PAGECLEAR_IMPL override
 * over all, resolved once into the plans the entry points read.
 */
#include <pthread.h>

#include "pageclear.h"
#include "cpu.h"
#include "impl.h"
#include "options.h"
#include "plan.h"
#include "profile.h"
#include "range.h"
#include "tuning.h"

/* Everything the hot path needs, resolved once; see pci_plans in plan.h. */
static struct pci_tuning in_force;
struct pci_plan pci_plans[PCI_NPLANS];
int pci_plans_ready;
static pthread_once_t state_once = PTHREAD_ONCE_INIT;

/* Precedence: built-in defaults, then the thresholds the profile gives,
 * then each threshold a PAGECLEAR_* variable sets. */
static void init_state(void)
{
    const struct pci_options *o = pci_options();
    const struct pci_cpu *c = pci_cpu();
    pci_tuning_defaults(c, pci_libc(), &in_force);
    pci_tuning_overlay(&in_force, &pci_profile()->t);
    pci_tuning_overlay(&in_force, &o->t);
    for (int k = 0; k < PCI_NPLANS; k++)
        pci_plan_build_kind(c, &in_force, o->forced, (enum pci_plan_kind)k, &pci_plans[k]);
    __atomic_store_n(&pci_plans_ready, 1, __ATOMIC_RELEASE);
}

void pci_plans_init(void)
{
    pthread_once(&state_once, init_state);
}

const struct pci_tuning *pci_tuning(void)
{
    pci_plans_init();
    return &in_force;
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
