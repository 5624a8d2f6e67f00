/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * measure.h - the functions a clearing benchmark can time and the timing
 * core every workload shares (measure.c).
 */
#ifndef PAGECLEAR_CLI_MEASURE_H
#define PAGECLEAR_CLI_MEASURE_H

#include <stddef.h>

#include "stats.h"
#include "target.h"

#define CLI_FN_PC_CLEAR (-1)
#define CLI_FN_GLIBC (-2)
#define CLI_FN_PC_BATCHED (-3) /* pc_clear_batched, chunk = its unit */
#define CLI_FN_PC_COLD (-4)    /* pc_clear_cold */
#define CLI_FN_LIBC (-5)       /* the C library's own memset, past a preload */
#define CLI_FN_MEMCPY (-6)     /* the C library's memcpy from the target's source
                                  (cli_target_map_source): perf's memcpy workload;
                                  never listed, only named by cli/perf/ */
#define CLI_MAX_FNS 32
struct cli_fn {
    char name[48];
    int kind;     /* CLI_FN_PC_*, CLI_FN_GLIBC, CLI_FN_LIBC, or a primitive index */
    size_t chunk; /* one call per chunk bytes; 0: one call per pass */
    int byte;     /* 1..255: store this byte whatever the target says (the
                     suite's zero-against-fill table); 0: the target's */
};
struct cli_counts {
    int available;
    double l1d_loads, l1d_misses; /* per run */
};
/* Which functions a list holds: the library's clears (pc_clear,
 * pc_clear_batched, pc_clear_cold), the C library's memset (as the
 * program calls it, and under a preload the C library's own), the
 * primitives this host runs. CLI_FNS_FILL keeps only what can store any
 * byte (glibc and the fill-capable primitives: perf's memset workload). */
#define CLI_FNS_LIBRARY 1
#define CLI_FNS_GLIBC 2
#define CLI_FNS_PRIMITIVES 4
#define CLI_FNS_FILL 8
#define CLI_FNS_LIBC_ALWAYS 16 /* libc even with no preload (a name looked up) */
#define CLI_FNS_ALL (CLI_FNS_LIBRARY | CLI_FNS_GLIBC | CLI_FNS_PRIMITIVES)
size_t cli_fn_list(struct cli_fn *fns, size_t max, int which);
/* 0, -ENOTSUP (a primitive this host cannot run) or -ENOENT. */
int cli_fn_find(const char *name, struct cli_fn *out);
/* The selection's three kinds of stores, as the library names them: its
 * cache-allocating choices for the smallest extents (vector stores where
 * the host has them) and the largest (the string instruction), and what
 * pc_clear_cold runs for the largest (streaming stores where the host has
 * them; else the same as string). */
struct cli_roles {
    const char *vector, *string, *stream;
};
void cli_roles(struct cli_roles *r);
/* The primitives this host runs of the selection's three kinds of stores:
 * the roles' own and the others of their kind (the same cache behaviour
 * and the same need, or not, for a CPU extension: other widths of vector
 * and streaming stores, the other string instruction). The string role
 * first, the rest in the library's order; the portable primitive only
 * where nothing else runs. Returns their count. */
size_t cli_fn_kinds(struct cli_fn *fns, size_t max);
/* 1 if f is the portable primitive (architecture "any"): the reference
 * and fallback, worth a row only where nothing else runs. */
int cli_fn_portable(const struct cli_fn *f);
/* The enum pc_cache of the primitive called name, -1 if there is none. */
int cli_impl_cache(const char *name);
/* 1 if f can store a non-zero byte (perf's memset workload). */
int cli_fn_fills(const struct cli_fn *f);
/* One line on what f is: the primitive's description, or the library's
 * or the C library's function in a few words. */
const char *cli_fn_what(const struct cli_fn *f);
/* Passes per run over an extent of size bytes so that a run clears at
 * least bytes_per_run (one pass from that size on). */
unsigned long cli_loops_per_run(size_t size, size_t bytes_per_run);
/* Time fns[0..n) on target t: one untimed pass each, then `runs` runs of
 * `loops` calls, interleaved; counts (if not NULL) gets L1D counts when
 * counters is set and they can be had. */
void cli_measure(const struct cli_fn *fns, size_t n, struct cli_target *t,
                 unsigned long loops, unsigned long runs, int counters,
                 struct cli_stats *out, struct cli_counts *counts);
/* One timed run of f on t, untimed pass not included: GB/s (a workload
 * that interleaves other things between the runs: the headroom table). */
double cli_measure_once(const struct cli_fn *f, struct cli_target *t, unsigned long loops);
/* The same, keeping every run's figure in raw[f * runs + r] (rounds r are
 * the same time slot for every function: ratios within a round cancel the
 * machine's drift). */
void cli_measure_runs(const struct cli_fn *fns, size_t n, struct cli_target *t,
                      unsigned long loops, unsigned long runs, int counters,
                      struct cli_stats *out, struct cli_counts *counts, double *raw);

#endif
