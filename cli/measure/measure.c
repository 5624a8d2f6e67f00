/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * measure.c - the functions a clearing benchmark can time (pc_clear and
 * its siblings, glibc's memset, each primitive) and the timing core every
 * workload shares: an untimed pass each, then runs interleaved across
 * functions so that drift on a shared machine hits all of them alike, on a
 * target in one of four cache states (target.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "counters.h"
#include "libc.h"
#include "measure.h"
#include "stats.h"
#include "target.h"

/* The C library's own memset for CLI_FN_LIBC, set when that function is
 * listed (cli_fn_list): call() must not look it up per call. */
static cli_memset_fn libc_memset;

/* One call of f over [p, p + n): a clear, or with byte >= 0 a fill, or
 * a copy from src (CLI_FN_MEMCPY). */
static void call(const struct cli_fn *f, char *p, const char *src, size_t n, int byte)
{
    if (f->kind == CLI_FN_PC_CLEAR)
        (void)pc_clear(p, n);
    else if (f->kind == CLI_FN_PC_COLD)
        (void)pc_clear_cold(p, n);
    else if (f->kind == CLI_FN_GLIBC)
        memset(p, byte < 0 ? 0 : byte, n);
    else if (f->kind == CLI_FN_LIBC)
        libc_memset(p, byte < 0 ? 0 : byte, n);
    else if (f->kind == CLI_FN_MEMCPY)
        memcpy(p, src, n);
    else if (byte < 0)
        (void)pc_impl_clear((size_t)f->kind, p, n);
    else
        (void)pc_impl_fill((size_t)f->kind, p, n, byte);
}

/* One pass of f over the extent at p (from src, for a copy): one call,
 * or one per chunk (the batched clear makes its units itself). */
static void pass(const struct cli_fn *f, char *p, const char *src, size_t size, size_t chunk,
                 int byte, const struct pc_batch *b)
{
    if (f->kind == CLI_FN_PC_BATCHED) {
        (void)pc_clear_batched(p, size, b, NULL);
        return;
    }
    for (size_t off = 0; off < size; off += chunk)
        call(f, p + off, src != NULL ? src + off : NULL, size - off < chunk ? size - off : chunk,
             byte);
}

/* The byte loop l stores: f's own, perf's loop index, the target's. */
static int byte_of(const struct cli_fn *f, const struct cli_target *t, unsigned long l)
{
    if (f->byte > 0)
        return f->byte;
    return t->fill == CLI_FILL_LOOP ? (int)(l & 0xff) : t->fill;
}

/* A run of first-touch calls: each on a fresh mapping, only the call
 * timed (its page faults included), the mapping given back after. */
static double run_first(const struct cli_fn *f, struct cli_target *t, unsigned long loops,
                        size_t chunk, const struct pc_batch *b)
{
    uint64_t ns = 0;
    for (unsigned long l = 0; l < loops; l++) {
        struct cli_buf m;
        char *p = cli_target_fresh(t, &m);
        if (p == NULL)
            return 0; /* out of memory since cli_target_map: no figure */
        uint64_t t0 = cli_now_ns();
        pass(f, p, t->src.addr, t->size, chunk, byte_of(f, t, l), b);
        ns += cli_now_ns() - t0;
        cli_target_release(&m);
    }
    return (double)t->size * (double)loops / (double)(ns ? ns : 1);
}

/* One timed run: GB/s (10^9 bytes per second). */
static double run_once(const struct cli_fn *f, struct cli_target *t, unsigned long loops)
{
    size_t size = t->size;
    size_t chunk = f->chunk == 0 || f->chunk > size ? size : f->chunk;
    struct pc_batch b;
    pc_batch_init(&b);
    b.unit = chunk;
    b.model = PC_PREEMPT_VOLUNTARY;
    if (t->cache == CLI_CACHE_FIRST)
        return run_first(f, t, loops, chunk, &b);
    cli_target_evict(t);
    /* Warm means the extent as this function's own last pass left it:
     * with runs interleaved, the function before may have left it out of
     * cache (streaming stores evict what they write), so one untimed pass
     * first, as perf bench's untimed first clear. */
    if (t->cache == CLI_CACHE_WARM)
        pass(f, t->base, cli_target_source(t, t->base), size, chunk, byte_of(f, t, 0), &b);
    uint64_t t0 = cli_now_ns();
    for (unsigned long l = 0; l < loops; l++) {
        char *p = cli_target_next(t);
        pass(f, p, cli_target_source(t, p), size, chunk, byte_of(f, t, l), &b);
        if (t->cache == CLI_CACHE_USE)
            cli_target_use(p, size);
    }
    uint64_t ns = cli_now_ns() - t0;
    return (double)size * (double)loops / (double)(ns ? ns : 1);
}

double cli_measure_once(const struct cli_fn *f, struct cli_target *t, unsigned long loops)
{
    return run_once(f, t, loops);
}

void cli_roles(struct cli_roles *r)
{
    /* Lengths no threshold reaches: 64 bytes is below any vector_max the
     * profile parser accepts but 0, 2^46 above any streaming threshold. */
    const size_t tiny = 64, huge = (size_t)1 << 46;
    *r = (struct cli_roles){pc_selected_temporal(tiny), pc_selected_temporal(huge),
                            pc_selected_cold(huge)};
}

int cli_fn_portable(const struct cli_fn *f)
{
    struct pc_impl_info in;
    return f->kind >= 0 && pc_impl_get((size_t)f->kind, &in) == 0 && strcmp(in.arch, "any") == 0;
}

/* Primitive i's kind of store: how it treats the cache, and whether it
 * needs a CPU extension. -1 for no primitive. */
static int store_kind(int i)
{
    struct pc_impl_info in;
    if (i < 0 || pc_impl_get((size_t)i, &in) != 0)
        return -1;
    return 2 * (int)in.cache + (*in.features != '\0');
}

size_t cli_fn_kinds(struct cli_fn *fns, size_t max)
{
    struct cli_roles r;
    cli_roles(&r);
    int string = pc_impl_find(r.string);
    const int kinds[3] = {store_kind(string), store_kind(pc_impl_find(r.vector)),
                          store_kind(pc_impl_find(r.stream))};
    size_t n = 0;
    if (max > 0 && cli_fn_find(r.string, &fns[0]) == 0)
        n = 1;
    struct cli_fn all[CLI_MAX_FNS];
    size_t nall = cli_fn_list(all, CLI_MAX_FNS, CLI_FNS_PRIMITIVES);
    for (size_t i = 0; i < nall && n < max; i++) {
        int k = store_kind(all[i].kind);
        if (all[i].kind == string || (n > 0 && cli_fn_portable(&all[i])))
            continue;
        if (k >= 0 && (k == kinds[0] || k == kinds[1] || k == kinds[2]))
            fns[n++] = all[i];
    }
    return n;
}

int cli_impl_cache(const char *name)
{
    struct pc_impl_info in;
    int i = pc_impl_find(name);
    return i >= 0 && pc_impl_get((size_t)i, &in) == 0 ? (int)in.cache : -1;
}

unsigned long cli_loops_per_run(size_t size, size_t bytes_per_run)
{
    return size >= bytes_per_run ? 1 : (unsigned long)(bytes_per_run / size);
}

int cli_fn_fills(const struct cli_fn *f)
{
    if (f->kind == CLI_FN_GLIBC || f->kind == CLI_FN_LIBC)
        return 1;
    /* a primitive that can fill accepts a non-zero byte on an empty range */
    return f->kind >= 0 && pc_impl_fill((size_t)f->kind, NULL, 0, 1) == 0;
}

const char *cli_fn_what(const struct cli_fn *f)
{
    struct pc_impl_info in;
    if (f->kind >= 0 && pc_impl_get((size_t)f->kind, &in) == 0)
        return in.description;
    switch (f->kind) {
    case CLI_FN_PC_CLEAR: return "libpageclear's clear: primitive chosen by CPU and size";
    case CLI_FN_PC_BATCHED: return "pc_clear_batched with -k as its unit";
    case CLI_FN_PC_COLD: return "pc_clear_cold: for memory nobody reads soon";
    case CLI_FN_GLIBC: return "the C library's memset, as this program calls it";
    case CLI_FN_LIBC: return "the C library's own memset, past the preload";
    case CLI_FN_MEMCPY: return "the C library's memcpy, as this program calls it";
    default: return "";
    }
}

size_t cli_fn_list(struct cli_fn *fns, size_t max, int which)
{
    static const struct cli_fn library[] = {
        {"pc_clear", CLI_FN_PC_CLEAR, 0, 0},
        {"pc_clear_batched", CLI_FN_PC_BATCHED, 0, 0},
        {"pc_clear_cold", CLI_FN_PC_COLD, 0, 0},
    };
    size_t n = 0;
    if ((which & CLI_FNS_LIBRARY) && !(which & CLI_FNS_FILL))
        for (size_t i = 0; i < sizeof(library) / sizeof(library[0]) && n < max; i++)
            fns[n++] = library[i];
    if ((which & CLI_FNS_GLIBC) && n < max)
        fns[n++] = (struct cli_fn){"glibc", CLI_FN_GLIBC, 0, 0};
    /* libc: listed only under a preload, where it differs from glibc;
     * `-f libc` names it anywhere (cli_fn_find). */
    if ((which & CLI_FNS_GLIBC) && (which & CLI_FNS_LIBC_ALWAYS || cli_memset_interposed()) &&
        (libc_memset = cli_libc_memset()) != NULL && n < max)
        fns[n++] = (struct cli_fn){"libc", CLI_FN_LIBC, 0, 0};
    for (size_t i = 0; (which & CLI_FNS_PRIMITIVES) && i < pc_impl_count() && n < max; i++) {
        struct pc_impl_info in;
        pc_impl_get(i, &in);
        if (!in.supported)
            continue;
        fns[n] = (struct cli_fn){"", (int)i, 0, 0};
        snprintf(fns[n].name, sizeof(fns[n].name), "%s", in.name);
        if (!(which & CLI_FNS_FILL) || cli_fn_fills(&fns[n]))
            n++;
    }
    return n;
}

int cli_fn_find(const char *name, struct cli_fn *out)
{
    struct cli_fn all[CLI_MAX_FNS];
    size_t n = cli_fn_list(all, CLI_MAX_FNS, CLI_FNS_ALL | CLI_FNS_LIBC_ALWAYS);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, name) == 0) {
            *out = all[i];
            return 0;
        }
    return pc_impl_find(name) >= 0 ? -ENOTSUP : -ENOENT;
}

void cli_measure_runs(const struct cli_fn *fns, size_t n, struct cli_target *t,
                      unsigned long loops, unsigned long runs, int counters,
                      struct cli_stats *out, struct cli_counts *counts, double *raw)
{
    double *v = raw != NULL ? raw : calloc(n * runs, sizeof(double));
    if (v == NULL) {
        cli_error("out of memory");
        exit(CLI_EXIT_RUNTIME);
    }
    struct cli_counter_set cs;
    int have = counters && cli_counters_open(&cs) == 0;
    for (size_t f = 0; f < n; f++) {
        run_once(&fns[f], t, 1);
        if (counts != NULL)
            counts[f] = (struct cli_counts){.available = have};
    }
    /* Each round starts one function later, so no function always runs
     * right after the same one (whose cache footprint it would inherit). */
    for (unsigned long r = 0; r < runs; r++)
        for (size_t k = 0; k < n; k++) {
            size_t f = (k + r) % n;
            if (have)
                cli_counters_start(&cs);
            v[f * runs + r] = run_once(&fns[f], t, loops);
            if (have) {
                uint64_t loads, misses;
                cli_counters_stop(&cs, &loads, &misses);
                counts[f].l1d_loads += (double)loads / (double)runs;
                counts[f].l1d_misses += (double)misses / (double)runs;
            }
        }
    if (have)
        cli_counters_close(&cs);
    for (size_t f = 0; f < n; f++)
        cli_stats(&v[f * runs], runs, &out[f]);
    if (raw == NULL)
        free(v);
}

void cli_measure(const struct cli_fn *fns, size_t n, struct cli_target *t,
                 unsigned long loops, unsigned long runs, int counters,
                 struct cli_stats *out, struct cli_counts *counts)
{
    cli_measure_runs(fns, n, t, loops, runs, counters, out, counts, NULL);
}
