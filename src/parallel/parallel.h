/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * parallel.h - running a planned job (work.h) on the worker pool
 * (parallel.c), for pc_clear_parallel and pc_populate.
 */
#ifndef PCI_PARALLEL_H
#define PCI_PARALLEL_H

#include <sched.h>
#include <stddef.h>

#include "work.h"

#pragma GCC visibility push(hidden)

/* Participants for len bytes: want (<= 0: every CPU of the affinity mask,
 * read through sys into *allowed), at most one per 64 MiB, at least one.
 * No other bound: the caller's mask is the limit. */
int pci_threads_for(size_t len, int want, const struct pci_sys *sys, cpu_set_t *allowed);
/* Run the planned job j on up to n participants (fewer if threads cannot
 * be started; on the calling thread alone if n <= 1, with pc_clear's
 * choice for a clear). Returns the first error (by region, then address)
 * or 0. */
int pci_job_run(struct pci_job *j, int n);

#pragma GCC visibility pop

#endif /* PCI_PARALLEL_H */
