/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tuning.h - the selection's thresholds, one list (thresholds.def) indexed
 * by enum pc_threshold: the table (thresholds.c), the built-in defaults
 * for a CPU (defaults.c) and the values in force (in_force.c).
 */
#ifndef PCI_TUNING_H
#define PCI_TUNING_H

#include <stddef.h>

#include "pageclear.h"
#include "cpu.h"
#include "libc_memset.h"

#pragma GCC visibility push(hidden)

/* Threshold values, v[i] for enum pc_threshold i. set has bit i where
 * v[i] is given; the others are not set and mean nothing. A value of
 * PC_NEVER is "never" (no streaming), never "not set". */
struct pci_tuning {
    size_t v[PC_NTHRESHOLDS];
    unsigned set;
};
#define PCI_TUNING_ALL ((1u << PC_NTHRESHOLDS) - 1)
_Static_assert(PC_NTHRESHOLDS < 32, "struct pci_tuning's set has a bit per threshold");

/* A row of thresholds.def, for code that treats the thresholds alike. */
struct pci_threshold {
    const char *key;         /* profile key and pc_tuning field */
    const char *env;         /* PAGECLEAR_* variable */
    const char *description; /* one line */
    size_t env_min;          /* smallest size the variable accepts */
    size_t min, max;         /* sizes a profile accepts */
    size_t tuning_offset;    /* of the field in struct pc_tuning */
    int never;               /* 1 if PC_NEVER is accepted too */
};
extern const struct pci_threshold pci_thresholds[PC_NTHRESHOLDS];

/* 1 if a profile (and pc_tuning_set) accepts v for threshold i. */
int pci_threshold_accepts(int i, size_t v);

/* Put the thresholds src sets over dst's. */
void pci_tuning_overlay(struct pci_tuning *dst, const struct pci_tuning *src);
/* To and from the public struct pc_tuning (which has every threshold). */
void pci_tuning_to_public(const struct pci_tuning *t, struct pc_tuning *out);
void pci_tuning_from_public(const struct pc_tuning *in, struct pci_tuning *t);
/* Into a caller's struct pc_tuning of tsize bytes (abi.h), which the
 * caller has checked. */
void pci_tuning_to_caller(const struct pci_tuning *t, struct pc_tuning *out, size_t tsize);

/* The built-in defaults for the CPU *c under the C library *l, every
 * threshold set (defaults.c). */
void pci_tuning_defaults(const struct pci_cpu *c, const struct pci_libc *l,
                         struct pci_tuning *t);
/* The thresholds in force: the defaults, then the profile, then the
 * PAGECLEAR_* variables (in_force.c). */
const struct pci_tuning *pci_tuning(void);

#pragma GCC visibility pop

#endif /* PCI_TUNING_H */
