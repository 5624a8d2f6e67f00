/*
 * cli.h - shared pieces of the `pageclear` command: argument helpers,
 * statistics over repeated runs, benchmark buffers and output formats.
 * The command includes only the public pageclear.h from the library.
 */
#ifndef PAGECLEAR_CLI_H
#define PAGECLEAR_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pageclear.h"

/* The command line as main() got it (tune re-runs itself with it). */
extern char **cli_argv;

/* Exit statuses: 2 for usage errors, 1 for run-time failures. */
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_RUNTIME 1

/* ---- args.c ---- */
/* Print "pageclear: <msg>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a size of at least min bytes for option opt; on failure print why
 * and return -1. */
int cli_size(const char *opt, const char *s, size_t min, size_t *out);
/* Parse a positive integer in [min, max]; on failure print why, return -1. */
int cli_uint(const char *opt, const char *s, unsigned long min,
             unsigned long max, unsigned long *out);
/* Options that take a value: -k VALUE, --long VALUE or --long=VALUE. */
struct cli_opt {
    char key;
    const char *long_name;
};
/* Match argv[*i] against spec (ended by {0, NULL}). On a match, set *val,
 * step *i past the value and return the key; -1 after a message for an
 * unknown option or a missing value. cmd names the command in messages. */
int cli_opt_value(const struct cli_opt *spec, const char *cmd, int argc,
                  char **argv, int *i, const char **val);
/* "4KiB", "2MiB", "1.5GiB": binary units, exactly named. */
const char *cli_fmt_size(size_t v, char *buf, size_t n);

/* ---- stats.c ---- */
struct cli_stats {
    double mean, median, min, max, p99;
    double stdev_pct; /* sample standard deviation, % of the mean */
    size_t n;
};
void cli_stats(const double *v, size_t n, struct cli_stats *s);
uint64_t cli_now_ns(void);

/* ---- buffer.c ---- */
enum cli_page { CLI_PAGE_4K, CLI_PAGE_THP, CLI_PAGE_2M, CLI_PAGE_1G };
struct cli_buf {
    char *addr;
    size_t len;     /* what was asked for */
    size_t map_len; /* what was mapped (rounded to the page size) */
    enum cli_page page;
};
/* Parse 4KB|thp|2MB|1GB (also 4K, 2M, 1G, any case). -1 if invalid. */
int cli_parse_page(const char *s, enum cli_page *out);
const char *cli_page_name(enum cli_page p);
size_t cli_page_bytes(enum cli_page p);
#define CLI_MAP_POPULATE 1  /* fault everything in now (MAP_POPULATE) */
#define CLI_MAP_NORESERVE 2 /* hugetlb: no reservation, so running out of
                               pages shows as SIGBUS at first touch */
/* Map len bytes backed by page size p, with CLI_MAP_* flags. Returns 0, or
 * -errno with a message in err that says what to do (e.g. how many hugetlb
 * pages to reserve and where). */
int cli_buf_map(struct cli_buf *b, size_t len, enum cli_page p, int flags,
                char *err, size_t errlen);
void cli_buf_unmap(struct cli_buf *b);
/* Bytes of memory available (MemAvailable), 0 if unknown. */
size_t cli_mem_available(void);

/* ---- output.c ---- */
enum cli_format { CLI_FMT_DEFAULT, CLI_FMT_SIMPLE, CLI_FMT_JSON, CLI_FMT_CSV };
/* One measurement; bandwidth in GB/s (10^9 bytes per second). */
struct cli_record {
    const char *workload, *function, *page;
    size_t size, chunk; /* chunk 0: whole size */
    unsigned long loops, threads;
    const char *unit; /* "GB/s" */
    struct cli_stats st;
    const struct cli_counts *counts; /* NULL: not asked for */
    const char *cache;  /* mem, check, tune: warm/cold/use; else NULL */
    const char *stores; /* mem, check, tune: "zero", "loop-index" or a byte
                           ("0x5a"); else NULL */
    const char *verdict; /* check: "ok ..." or "short ..." for a library
                            function in its contract's state; else NULL */
};
/* Parse --format=X / --json / --csv. Returns 1 if arg was a format option. */
int cli_parse_format(const char *arg, enum cli_format *fmt);
void cli_record_header(FILE *f, enum cli_format fmt);
void cli_record_print(FILE *f, enum cli_format fmt, const struct cli_record *r);
void cli_record_footer(FILE *f, enum cli_format fmt);
/* Records gathered across a run and printed once at the end, so --json
 * gives one array however many tables produced them. */
#define CLI_MAX_RECORDS 2048 /* `check` makes ~400, the suite ~200 */
struct cli_records {
    struct cli_record r[CLI_MAX_RECORDS];
    char function[CLI_MAX_RECORDS][48]; /* owned copies of the names */
    char stores[CLI_MAX_RECORDS][12];   /* and of what was stored */
    char verdict[CLI_MAX_RECORDS][160]; /* and of check's verdicts */
    size_t n;
};
/* Add a copy of *r (its function name and stores copied, counts dropped);
 * no-op if rs is NULL or full. */
void cli_records_add(struct cli_records *rs, const struct cli_record *r);
/* Header, every record, footer. */
void cli_records_print(FILE *f, enum cli_format fmt, const struct cli_records *rs);
/* Progress on stderr, only when stderr is a terminal. */
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- counters.c ---- */
struct cli_counter_set {
    int loads, misses; /* perf event fds */
};
/* 0, or -errno when hardware counters cannot be had here. */
int cli_counters_open(struct cli_counter_set *cs);
void cli_counters_start(struct cli_counter_set *cs);
void cli_counters_stop(struct cli_counter_set *cs, uint64_t *loads, uint64_t *misses);
void cli_counters_close(struct cli_counter_set *cs);
/* "available ..." or "not supported here (...)". */
const char *cli_counters_status(char *buf, size_t n);

/* ---- target.c ---- */
/* The cache state a measurement runs in (target.c says what each means). */
enum cli_cache { CLI_CACHE_WARM, CLI_CACHE_COLD, CLI_CACHE_USE };
#define CLI_NCACHE 3
int cli_parse_cache(const char *s, enum cli_cache *out); /* -1 if invalid */
const char *cli_cache_name(enum cli_cache c);           /* "warm", ... */
const char *cli_cache_what(enum cli_cache c);           /* one line */
/* What each call stores: zeros (the clears), perf's memset byte (the loop
 * index), or a fixed byte 0..255 (memset -v). */
#define CLI_FILL_NONE (-1)
#define CLI_FILL_LOOP (-2)
/* What the timed calls clear: extents of size bytes, the same one (warm)
 * or the next one of a rotation over region bytes (cold, use). */
struct cli_target {
    char *base;
    size_t region, size, next;
    enum cli_cache cache;
    int fill;             /* CLI_FILL_* or a byte */
    struct cli_buf buf;   /* the region, when cli_target_map mapped it */
    struct cli_buf evict; /* read before each cold run to empty the cache */
};
/* Bytes a cold rotation for size-byte extents spans: four LLCs, at least
 * 256 MiB, a whole number of extents; size itself when larger. */
size_t cli_cold_span(size_t size);
/* Map and populate a target (CLI_MAP_POPULATE, page size page); 0 or
 * -errno with the reason in err. */
int cli_target_map(struct cli_target *t, size_t size, enum cli_cache c,
                   enum cli_page page, int fill, char *err, size_t errlen);
/* A warm target over a buffer the caller owns (zeros stored). */
void cli_target_warm(struct cli_target *t, char *buf, size_t size);
void cli_target_unmap(struct cli_target *t);
/* The extent the next call clears. */
char *cli_target_next(struct cli_target *t);
/* The caller's use of a cleared extent: read and write every line. */
void cli_target_use(char *p, size_t size);
/* Empty the cache of what the last run left (cold and use; no-op warm). */
void cli_target_evict(struct cli_target *t);

/* ---- measure.c ---- */
#define CLI_FN_PC_CLEAR (-1)
#define CLI_FN_GLIBC (-2)
#define CLI_FN_PC_BATCHED (-3) /* pc_clear_batched, chunk = its unit */
#define CLI_FN_PC_COLD (-4)    /* pc_clear_cold */
#define CLI_MAX_FNS 32
struct cli_fn {
    char name[48];
    int kind;     /* CLI_FN_PC_*, CLI_FN_GLIBC, or a primitive index */
    size_t chunk; /* one call per chunk bytes; 0: one call per pass */
    int byte;     /* 1..255: store this byte whatever the target says (the
                     suite's zero-against-fill table); 0: the target's */
};
struct cli_counts {
    int available;
    double l1d_loads, l1d_misses; /* per run */
};
/* Which functions a list holds: the library's clears (pc_clear,
 * pc_clear_batched, pc_clear_cold), the C library's memset, the
 * primitives this host runs. CLI_FNS_FILL keeps only what can store any
 * byte (glibc and the fill-capable primitives: perf's memset workload). */
#define CLI_FNS_LIBRARY 1
#define CLI_FNS_GLIBC 2
#define CLI_FNS_PRIMITIVES 4
#define CLI_FNS_FILL 8
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
/* The enum pc_cache of the primitive called name, -1 if there is none. */
int cli_impl_cache(const char *name);
/* 1 if f can store a non-zero byte (perf's memset workload). */
int cli_fn_fills(const struct cli_fn *f);
/* Time fns[0..n) on target t: one untimed pass each, then `runs` runs of
 * `loops` calls, interleaved; counts (if not NULL) gets L1D counts when
 * counters is set and they can be had. */
void cli_measure(const struct cli_fn *fns, size_t n, struct cli_target *t,
                 unsigned long loops, unsigned long runs, int counters,
                 struct cli_stats *out, struct cli_counts *counts);
/* The same, keeping every run's figure in raw[f * runs + r] (rounds r are
 * the same time slot for every function: ratios within a round cancel the
 * machine's drift). */
void cli_measure_runs(const struct cli_fn *fns, size_t n, struct cli_target *t,
                      unsigned long loops, unsigned long runs, int counters,
                      struct cli_stats *out, struct cli_counts *counts, double *raw);

/* ---- grid.c ---- */
#define CLI_GRID_MAX_SIZES 24
/* Functions x sizes x cache states. Fill in the inputs, run, read with
 * cli_grid_at, free. */
struct cli_grid {
    const struct cli_fn *fns;
    size_t nfn;
    const size_t *sizes;
    size_t nsize;
    unsigned states;      /* bits 1 << enum cli_cache */
    unsigned long runs;
    size_t bytes_per_run; /* each run clears at least this much */
    unsigned long loops[CLI_GRID_MAX_SIZES]; /* out: calls per run, per size */
    struct cli_stats *st; /* out */
    double *raw;          /* out: every run, see cli_grid_ratio */
};
/* 0, or -1 after a message (label names the command in it). */
int cli_grid_run(struct cli_grid *g, const char *label);
struct cli_stats *cli_grid_at(const struct cli_grid *g, size_t size_index,
                              enum cli_cache c, size_t fn_index);
void cli_grid_free(struct cli_grid *g);
/* Median over the rounds of fn_a's figure over fn_b's in the same round:
 * the paired comparison, free of the drift both saw. */
double cli_grid_ratio(const struct cli_grid *g, size_t size_index, enum cli_cache c,
                      size_t fn_a, size_t fn_b);

/* ---- decide.c ---- */
/* Two primitives measured over sizes and cache states: a runs below a
 * threshold, b from it. tol[c] is state c's tolerance (0: not weighed). */
struct cli_xover {
    size_t n;
    const size_t *sizes;   /* ascending */
    size_t first;          /* candidates: sizes[first..n-1], and never */
    size_t dflt;           /* the built-in threshold: kept when the
                              measurement cannot tell it is wrong */
    double a[CLI_GRID_MAX_SIZES][CLI_NCACHE], b[CLI_GRID_MAX_SIZES][CLI_NCACHE];
    double a_sd[CLI_GRID_MAX_SIZES][CLI_NCACHE], b_sd[CLI_GRID_MAX_SIZES][CLI_NCACHE];
    double tol[CLI_NCACHE];
    unsigned long runs; /* behind each median (their standard error) */
};
struct cli_decision {
    size_t threshold;   /* a measured size, or SIZE_MAX for never */
    double worst_loss;  /* fraction behind the better primitive, at: */
    size_t worst_index; /* that size index */
    int worst_state;    /* and that state (-1: nothing weighed) */
    int ambiguous;      /* candidates within the noise of each other */
    double noise_pct;   /* the medians' standard error, % */
};
/* Choose the threshold (decide.c says how). */
void cli_decide(const struct cli_xover *x, struct cli_decision *d);
/* Worst loss (fraction) of any threshold t, with where it happens. */
double cli_xover_loss(const struct cli_xover *x, size_t t, size_t *worst_index,
                      int *worst_state);

/* ---- tune_report.c ---- */
/* "never" for SIZE_MAX, else the size. */
const char *cli_thr_str(size_t v, char *buf, size_t n);
/* Print to f the table behind a threshold (a below it, b from it), the
 * choice against the built-in default dflt; add the measurements to rs. */
void cli_tune_report(FILE *f, struct cli_records *rs, enum cli_format fmt, unsigned long runs,
                     const char *key, const char *an, const char *bn,
                     const struct cli_xover *x, const struct cli_decision *d, size_t dflt,
                     unsigned long threads);
/* The user's profile: $XDG_CONFIG_HOME/pageclear/profile, else
 * $HOME/.config/pageclear/profile; -1 if neither can be formed. */
int cli_profile_path(char *buf, size_t n);
/* Can path be written (its directory made if need be)? 0, or -1 after a
 * message: checked before a long measurement, not after it. */
int cli_check_writable(const char *path);
/* Write text to path (parent directories made) through a temporary file
 * and a rename; 0, or -1 after a message. */
int cli_write_file(const char *path, const char *text);

/* ---- libc.c ---- */
/* The C library's version ("glibc 2.36", or what is known). */
const char *cli_libc_version(void);
/* glibc's memset-related tunables as the running dynamic loader reports
 * them (ld.so --list-tunables), one "name: value ..." line each, into
 * buf; returns the number of lines, 0 if they cannot be had. */
size_t cli_libc_tunables(char *buf, size_t n);

/* ---- fault.c ---- */
/* Write one byte per stride bytes of [p, p + len), at offset `seed`-driven
 * random positions within each stride when seed != 0, split over nthreads
 * threads. A SIGBUS (hugetlb pages ran out) is caught: returns 0, or
 * -EFAULT with *bad set to the offset that faulted. */
int cli_touch(char *p, size_t len, size_t stride, unsigned long nthreads,
              unsigned long seed, size_t *bad);

/* ---- mmap.c ---- */
/* Time `loops` rounds of mapping size bytes and writing a byte per page;
 * *st gets GB/s per round. 0, or -errno with the reason in err. */
int cli_fault_measure(size_t size, enum cli_page page, int populate,
                      unsigned long loops, unsigned long threads,
                      unsigned long seed, int noreserve, struct cli_stats *st,
                      char *err, size_t errlen);

/* ---- workloads ---- */
int cli_mem(int argc, char **argv);
int cli_mmap(int argc, char **argv);
int cli_info(void);
int cli_bench(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_tune(int argc, char **argv);
/* pool.c: `pageclear pool` / `pageclear parallel`, and their tables for
 * the default suite (numbered table_no). */
int cli_pool_cmd(const char *cmd, int argc, char **argv);
/* Tables print when fmt is CLI_FMT_DEFAULT; records go to rs (may be NULL). */
int cli_pool_bench(size_t n, unsigned long runs, enum cli_format fmt, int table_no,
                   struct cli_records *rs);
int cli_parallel_bench(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                       struct cli_records *rs);
/* bench_states.c: the suite's cache-state table (sizes 4 KiB .. max) and
 * its zero-against-fill table (1 MiB and size); 0, or -1 after a message. */
int cli_states_table(size_t max, unsigned long runs, enum cli_format fmt, int table_no,
                     struct cli_records *rs);
int cli_fill_table(size_t size, unsigned long runs, enum cli_format fmt, int table_no,
                   struct cli_records *rs);

#endif
