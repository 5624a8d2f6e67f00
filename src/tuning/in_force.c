/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * in_force.c - the thresholds in force: the built-in defaults for this CPU
 * and C library, then the profile's, then each PAGECLEAR_* variable's,
 * resolved once (dispatch.c builds the plans from them).
 */
#include <pthread.h>

#include "cpu.h"
#include "options.h"
#include "profile.h"
#include "tuning.h"

static struct pci_tuning in_force;
static pthread_once_t in_force_once = PTHREAD_ONCE_INIT;

/* The variables are read before the profile, as their warnings on stderr
 * come before the profile's. */
static void resolve(void)
{
    const struct pci_options *o = pci_options();
    const struct pci_cpu *c = pci_cpu();
    pci_tuning_defaults(c, pci_libc(), &in_force);
    pci_tuning_overlay(&in_force, &pci_profile()->t);
    pci_tuning_overlay(&in_force, &o->t);
}

const struct pci_tuning *pci_tuning(void)
{
    pthread_once(&in_force_once, resolve);
    return &in_force;
}
