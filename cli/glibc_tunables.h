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

/* From this length glibc's x86-64 memset runs `rep stosb` instead of
 * vector stores (glibc's own default, 2048, where the loader lists none). */
#define CLI_GT_STOSB "glibc.cpu.x86_rep_stosb_threshold"
#define CLI_GT_STOSB_DEFAULT ((size_t)2048)
/* From this length glibc 2.40 and later stream a memset (non-temporal
 * stores); earlier versions have no such tunable. */
#define CLI_GT_MEMSET_NT "glibc.cpu.x86_memset_non_temporal_threshold"
#define CLI_GT_MEMSET_NT_SINCE_MAJOR 2
#define CLI_GT_MEMSET_NT_SINCE_MINOR 40
/* The least the loader accepts for the non-temporal threshold (its
 * --list-tunables "min: 0x4040"); a smaller value is ignored by glibc. */
#define CLI_GT_NT_MIN ((size_t)0x4040)

/* 1 if version ("2.41", "2.36.1", what gnu_get_libc_version gives) is
 * major.minor or later; 0 if earlier or unreadable. */
int cli_glibc_at_least(const char *version, int major, int minor);
/* The value of tunable name in `ld.so --list-tunables` output
 * ("glibc.cpu.x86_rep_stosb_threshold: 0x800 (min: ...)"): 0 and *v set,
 * or -1 if it is not listed. */
int cli_glibc_listed(const char *list, const char *name, size_t *v);
/* The GLIBC_TUNABLES value that keeps existing (the user's, NULL or ""
 * for none) but for its entries of a tunable set here, then appends
 * CLI_GT_STOSB=stosb and CLI_GT_MEMSET_NT=memset_nt (0: not set).
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
