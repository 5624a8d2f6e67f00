/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * dispatch.c - the plans in force: the thresholds in force (in_force.c)
 * with the PAGECLEAR_IMPL override over all, resolved once into the plans
 * the entry points read.
 */
#include <pthread.h>

#include "pageclear.h"
#include "cpu.h"
#include "options.h"
#include "plan.h"
#include "tuning.h"

/* Everything the hot path needs, resolved once; see pci_plans in plan.h. */
struct pci_plan pci_plans[PCI_NPLANS];
int pci_plans_ready;
static pthread_once_t plans_once = PTHREAD_ONCE_INIT;

static void build_plans(void)
{
    const struct pci_tuning *t = pci_tuning();
    const struct pci_options *o = pci_options();
    for (int k = 0; k < PCI_NPLANS; k++)
        pci_plan_build_kind(pci_cpu(), t, o->forced, (enum pci_plan_kind)k, &pci_plans[k]);
    __atomic_store_n(&pci_plans_ready, 1, __ATOMIC_RELEASE);
}

void pci_plans_init(void)
{
    pthread_once(&plans_once, build_plans);
}
