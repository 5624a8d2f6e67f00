/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * glibc_tunables.h - the GLIBC_TUNABLES setting `pageclear tune` suggests
 * to programs that do not use pageclear, and the rule that keeps it only
 * when a re-measurement under it gains (glibc_tunables.c; no measuring
 * here, so tests feed it anything).
 */
#ifndef PAGECLEAR_CLI_GLIBC_TUNABLES_H
#define PAGECLEAR_CLI_GLIBC_TUNABLES_H

#include <stddef.h>

/* The tunables' names, defaults and limits, and glibc's version
 * strings, are the library's (src/libc_memset.h): one list for the
 * library's rules, the preload and the command. */
#include "../../src/libc_memset.h"

/* The value of tunable name in `ld.so --list-tunables` output
 * ("glibc.cpu.x86_rep_stosb_threshold: 0x800 (min: ...)"): 0 and *v set,
 * or -1 if it is not listed. */
int cli_glibc_listed(const char *list, const char *name, size_t *v);
/* The GLIBC_TUNABLES value that keeps existing (the user's, NULL or ""
 * for none) but for its entries of a tunable set here, then appends
 * PCI_GLIBC_STOSB_TUNABLE=stosb and PCI_GLIBC_MEMSET_NT_TUNABLE=memset_nt
 * (0: not set).
 * Returns the length, or -1 if buf is too small. */
int cli_glibc_tunables(char *buf, size_t n, const char *existing, size_t stosb,
                       size_t memset_nt);

/* One size and cache state measured with memset as it is now and under
 * the setting: medians (GB/s), the median of the per-round ratio
 * set / now, its standard error (a fraction), and the state's tolerance
 * (contract.h: what a loss there weighs). */
struct cli_gt_point {
    size_t size;
    int state;
    double now, set, ratio, se, tol;
};
/* Whether the setting is worth suggesting: it gains beyond the noise
 * somewhere, and its worst loss, in units of each state's tolerance, is
 * smaller than the worst loss of memset as it is now (the rule tune
 * places its own thresholds by, between two candidates). */
int cli_glibc_verdict(const struct cli_gt_point *p, size_t n);

#endif
