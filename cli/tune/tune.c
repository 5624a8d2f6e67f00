/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune.c - `pageclear tune`: measure this machine's crossovers and write a
 * profile. The library picks among three kinds of stores (vector stores
 * for small extents, the string instruction, streaming stores for large or
 * cold extents); a profile moves the thresholds between them, not the
 * primitives. So tune measures the primitives the selection uses, in the
 * cache states of the contract each threshold governs (contract.h), and
 * places each threshold with decide.c. What each threshold is (its key,
 * its variable, its default) the library says (pc_threshold_info); how
 * tune measures it is the table `recipes` below:
 *   vector_max             vector vs string; pc_clear's contract (use, warm)
 *   nt_threshold           temporal vs streaming for pc_clear; use, warm
 *   cold_nt_threshold      the same for pc_clear_cold; cold
 *   parallel_nt_threshold  the same with every core clearing its share at
 *                          once (pc_clear_parallel); use, warm
 *   preload_min            the C library's memset vs pc_clear, from
 *                          nt_threshold on (from the built-in
 *                          preload_min where that is lower); use, warm
 *                          (tune_preload.c)
 * Runs are interleaved; the table behind each choice is printed with it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "contract.h"
#include "decide.h"
#include "durations.h"
#include "grid.h"
#include "measure.h"
#include "output.h"
#include "stats.h"
#include "target.h"
#include "tune_parallel.h"
#include "tune_clean.h"
#include "tune_glibc.h"
#include "tune_options.h"
#include "tune_preload.h"
#include "tune_report.h"
#include "units.h"

/* ~2-6 ms per run at 10-30 GB/s: above the clock's resolution by far; 3
 * primitives and memset x 3 states x 17 sizes x 16 runs: durations.h. */
#define BYTES_PER_RUN (64 * MIB)
/* The grid the one-thread thresholds are placed on: from a page to the
 * size where every crossover measured lies well behind (the streaming
 * ones at 4-32 MiB on the machines in docs/notes.md), by twos
 * (--quick: by fours). */
#define GRID_MIN (4 * KIB)
#define GRID_MAX (256 * MIB)
/* The vector/string crossover: 32-48 KiB on the Intel, Zen 3 and 4 guests, 768-896 KiB on
 * Zen 5 (docs/notes.md, "Selection thresholds"); 2 MiB is the largest L2
 * measured. */
#define VECTOR_SPAN (2 * MIB)

/* The primitives tune measures, by the kind of store the selection uses
 * them for (cli_roles). */
enum store {
    STORE_STRING, /* the string instruction: every host has one */
    STORE_VECTOR, /* vector stores, where the host has them */
    STORE_STREAM, /* streaming stores, where the host has them */
    STORE_MEMSET, /* not the selection's: the C library's memset */
    STORE_TEMPORAL, /* not a primitive: what runs below a streaming
                       threshold, vector stores below vector_max and the
                       string instruction from it */
    STORE_PC_CLEAR  /* not a primitive: what pc_clear runs with the
                       thresholds chosen, temporal below nt_threshold and
                       streaming from it */
};
#define NSTORES 4 /* the functions among them */

/* How a threshold is measured: store a runs below it, b from it, in the
 * states (with the tolerances) of the contract it governs. */
struct recipe {
    enum store a, b;
    enum cli_contract contract;
    size_t span;          /* the grid's sizes up to span (0: all of them) */
    int above_vector_max; /* candidates from vector_max up: below it vector
                             stores run whatever this threshold says */
    int from_nt;          /* candidates from nt_threshold up (or from the
                             built-in preload_min, where that is lower),
                             the only sizes measured, decided by
                             tune_preload.c */
    int all_cores;        /* every core clearing its share at once, over
                             extents of its own (shares of 64 MiB and up,
                             where pc_clear_parallel uses several threads) */
    int fallback;         /* when it cannot be measured: FALLBACK_*, or the
                             threshold whose value it takes */
    const char *unmeasured; /* why tune does not measure it, or NULL */
};
#define FALLBACK_DEFAULT (-1) /* the built-in */
#define FALLBACK_NEVER (-2)   /* PC_NEVER: no streaming stores to move to */

static const struct recipe recipes[PC_NTHRESHOLDS] = {
    [PC_THRESHOLD_VECTOR_MAX] = {.a = STORE_VECTOR, .b = STORE_STRING,
                                 .contract = CLI_CONTRACT_CLEAR, .span = VECTOR_SPAN,
                                 .fallback = FALLBACK_DEFAULT},
    [PC_THRESHOLD_NT] = {.a = STORE_TEMPORAL, .b = STORE_STREAM,
                         .contract = CLI_CONTRACT_CLEAR, .above_vector_max = 1,
                         .fallback = FALLBACK_NEVER},
    [PC_THRESHOLD_COLD_NT] = {.a = STORE_TEMPORAL, .b = STORE_STREAM,
                              .contract = CLI_CONTRACT_COLD, .fallback = FALLBACK_NEVER},
    /* one thread's share of an extent is a string instruction's length */
    [PC_THRESHOLD_PARALLEL_NT] = {.a = STORE_STRING, .b = STORE_STREAM,
                                  .contract = CLI_CONTRACT_CLEAR, .all_cores = 1,
                                  .fallback = PC_THRESHOLD_NT},
    /* pc_clear as it runs: streaming from nt_threshold, and below it,
     * where the built-in rule sees a C library whose memset never takes
     * rep stosb (src/tuning/defaults.c), the string instruction */
    [PC_THRESHOLD_PRELOAD_MIN] = {.a = STORE_MEMSET, .b = STORE_PC_CLEAR,
                                  .contract = CLI_CONTRACT_CLEAR, .from_nt = 1,
                                  .fallback = PC_THRESHOLD_NT},
};

#define MAX_SHARES 4

struct tune {
    struct cli_tune_opts o;
    /* the run */
    FILE *rep;                    /* the tables: stdout, or stderr when the
                                     profile goes to stdout */
    struct cli_fn fns[NSTORES];   /* the functions measured */
    size_t nfn;
    size_t fn[NSTORES];           /* each store's index in fns; SIZE_MAX:
                                     the host has none */
    size_t sizes[CLI_GRID_MAX_SIZES], nsize;
    struct cli_grid grid;
    size_t shares[MAX_SHARES], nshare; /* the all-cores extents */
    unsigned long threads;
    struct pc_tuning dflt, chosen;
    struct cli_xover x;
    struct cli_records rs;
};

/* The selection's primitives, as the library names them (cli_roles): the
 * string instruction always, vector and streaming stores where the host
 * has them (else their role names the string instruction, or a
 * cache-allocating store for streaming). 0, or -1 after a message. */
static int pick_primitives(struct tune *t)
{
    struct cli_roles roles;
    cli_roles(&roles);
    int want[NSTORES];
    want[STORE_STRING] = pc_impl_find(roles.string);
    want[STORE_VECTOR] = pc_impl_find(roles.vector);
    want[STORE_STREAM] = pc_impl_find(roles.stream);
    want[STORE_MEMSET] = -1; /* not a primitive: added below */
    if (want[STORE_VECTOR] == want[STORE_STRING] || t->dflt.vector_max == 0)
        want[STORE_VECTOR] = -1;
    if (want[STORE_STREAM] == want[STORE_STRING] ||
        cli_impl_cache(roles.stream) != PC_CACHE_NONTEMPORAL)
        want[STORE_STREAM] = -1;
    struct cli_fn all[CLI_MAX_FNS];
    size_t nall = cli_fn_list(all, CLI_MAX_FNS, CLI_FNS_PRIMITIVES);
    for (size_t s = 0; s < NSTORES; s++)
        t->fn[s] = SIZE_MAX;
    for (size_t i = 0; i < nall; i++) /* in the library's order */
        for (size_t s = 0; s < NSTORES; s++)
            if (want[s] >= 0 && all[i].kind == want[s]) {
                t->fn[s] = t->nfn;
                t->fns[t->nfn++] = all[i];
            }
    if (cli_fn_find("glibc", &t->fns[t->nfn]) == 0)
        t->fn[STORE_MEMSET] = t->nfn++;
    if (t->fn[STORE_STRING] == SIZE_MAX) { /* the selection runs only what the host can */
        cli_error("tune: the selection's primitive %s is not runnable here", roles.string);
        return -1;
    }
    return 0;
}

static const char *store_name(const struct tune *t, enum store s)
{
    return s == STORE_TEMPORAL   ? "temporal"
           : s == STORE_PC_CLEAR ? "pc_clear"
                                 : t->fns[t->fn[s]].name;
}

/* The sizes measured: the grid's, and the all-cores extents (those that
 * leave the machine three quarters of its free memory). */
static void pick_sizes(struct tune *t)
{
    for (size_t sz = GRID_MIN; sz <= GRID_MAX; sz *= t->o.quick ? 4 : 2)
        t->sizes[t->nsize++] = sz;
    static const size_t full[MAX_SHARES] = {128 * MIB, 256 * MIB, 512 * MIB, GIB};
    static const size_t quick[] = {128 * MIB, 512 * MIB};
    const size_t *s = t->o.quick ? quick : full;
    size_t n = t->o.quick ? sizeof(quick) / sizeof(quick[0]) : MAX_SHARES;
    size_t avail = cli_mem_available();
    while (n > 0 && avail && s[n - 1] > avail / 4)
        n--;
    memcpy(t->shares, s, n * sizeof(*s));
    t->nshare = n;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    t->threads = ncpu > CLI_TUNE_MAX_THREADS ? CLI_TUNE_MAX_THREADS
                 : ncpu > 0                  ? (unsigned long)ncpu
                                             : 1;
}

static void print_header(const struct tune *t)
{
    struct pc_host h;
    char s[32];
    int has_v = t->fn[STORE_VECTOR] != SIZE_MAX, has_n = t->fn[STORE_STREAM] != SIZE_MAX;
    pc_host_get(&h);
    fprintf(t->rep, "# pageclear tune: %s, family %u model %u stepping %u, LLC %s%s; %lu runs%s\n",
            h.vendor, h.family, h.model, h.stepping,
            h.llc_size ? cli_fmt_size(h.llc_size, s, sizeof(s)) : "unknown",
            h.hypervisor ? ", under a hypervisor" : "", t->o.runs, t->o.quick ? ", --quick" : "");
    fprintf(t->rep, "# primitives: string %s%s%s%s%s\n", store_name(t, STORE_STRING),
            has_v ? ", vector " : "", has_v ? store_name(t, STORE_VECTOR) : "",
            has_n ? ", streaming " : "", has_n ? store_name(t, STORE_STREAM) : "");
    for (int c = 0; c < CLI_NCACHE; c++)
        fprintf(t->rep, "# %s: %s\n", cli_cache_name((enum cli_cache)c),
                cli_cache_what((enum cli_cache)c));
    fflush(t->rep);
}

/* The least size a from_nt recipe measures: nt_threshold, or the
 * built-in preload_min where its rule put it below the built-in
 * nt_threshold (a C library whose memset never takes rep stosb, which
 * pc_clear's string instruction may beat below nt_threshold too) and it
 * is lower. Elsewhere the built-in preload_min only follows the built-in
 * nt_threshold and says nothing about the one tune chose. */
static size_t from_nt(const struct tune *t)
{
    size_t nt = t->chosen.nt_threshold, p = t->dflt.preload_min;
    return p < t->dflt.nt_threshold && p < nt ? p : nt;
}

/* Why recipe r cannot be measured here, or NULL. */
static const char *unmeasurable(const struct tune *t, const struct recipe *r)
{
    if (r->unmeasured != NULL)
        return r->unmeasured;
    if ((r->a == STORE_VECTOR || r->b == STORE_VECTOR) && t->fn[STORE_VECTOR] == SIZE_MAX)
        return "no vector stores here";
    if ((r->a == STORE_STREAM || r->b == STORE_STREAM) && t->fn[STORE_STREAM] == SIZE_MAX)
        return "no streaming stores here";
    if (r->from_nt && t->fn[STORE_MEMSET] == SIZE_MAX)
        return "no C library memset to measure";
    if (r->from_nt && t->chosen.nt_threshold == PC_NEVER)
        return "pc_clear never streams";
    if (r->from_nt && from_nt(t) > t->sizes[t->nsize - 1])
        return "nt_threshold lies above the sizes measured";
    if (r->all_cores && t->threads < 2)
        return "one CPU";
    if (r->all_cores && t->nshare == 0)
        return "too little memory";
    return NULL;
}

/* The grid's index of what store s runs at size index i. */
static size_t fn_at(const struct tune *t, enum store s, size_t i)
{
    if (s == STORE_PC_CLEAR)
        s = t->sizes[i] >= t->chosen.nt_threshold ? STORE_STREAM : STORE_TEMPORAL;
    if (s != STORE_TEMPORAL)
        return t->fn[s];
    int vector = t->fn[STORE_VECTOR] != SIZE_MAX && t->sizes[i] < t->chosen.vector_max;
    return t->fn[vector ? STORE_VECTOR : STORE_STRING];
}

/* x's figures for recipe r from the grid. */
static void from_grid(const struct tune *t, const struct recipe *r, struct cli_xover *x)
{
    size_t off = 0; /* from_nt: the sizes below from_nt() are not x's */
    while (r->from_nt && off < t->nsize && t->sizes[off] < from_nt(t))
        off++;
    x->sizes = t->sizes + off;
    x->n = 0;
    while (off + x->n < t->nsize && (r->span == 0 || x->sizes[x->n] <= r->span))
        x->n++;
    while (r->above_vector_max && x->first < x->n && x->sizes[x->first] < t->chosen.vector_max)
        x->first++;
    for (size_t i = 0; i < x->n; i++)
        for (int c = 0; c < CLI_NCACHE; c++) {
            const struct cli_stats *sa = cli_grid_at(&t->grid, off + i, (enum cli_cache)c,
                                                      fn_at(t, r->a, off + i));
            const struct cli_stats *sb = cli_grid_at(&t->grid, off + i, (enum cli_cache)c,
                                                      fn_at(t, r->b, off + i));
            x->a[i][c] = sa->median;
            x->a_sd[i][c] = sa->stdev_pct;
            x->b[i][c] = sb->median;
            x->b_sd[i][c] = sb->stdev_pct;
        }
}

/* Threshold i where it cannot be measured (why says why). */
static void fall_back(struct tune *t, int i, const struct pc_threshold_info *ti, const char *why)
{
    int from = recipes[i].fallback;
    if (from == FALLBACK_DEFAULT)
        return; /* t->chosen starts as the defaults */
    size_t v = PC_NEVER;
    if (from >= 0) { /* another threshold's value: said, as it is not obvious */
        struct pc_threshold_info src;
        pc_threshold_info(from, &src);
        pc_tuning_get(&t->chosen, from, &v);
        if (t->o.fmt == CLI_FMT_DEFAULT)
            fprintf(t->rep, "\n## %s: not measured (%s); set to %s\n", ti->key, why, src.key);
    }
    pc_tuning_set(&t->chosen, i, v);
}

/* Measure, place and report threshold i. 0, or -1 after a message. */
static int tune_one(struct tune *t, int i)
{
    const struct recipe *r = &recipes[i];
    struct pc_threshold_info ti;
    pc_threshold_info(i, &ti);
    const char *why = unmeasurable(t, r);
    if (why != NULL) {
        fall_back(t, i, &ti, why);
        return 0;
    }
    struct cli_xover *x = &t->x;
    *x = (struct cli_xover){.runs = t->o.runs};
    for (int c = 0; c < CLI_NCACHE; c++)
        x->tol[c] = cli_contract_tol(r->contract, (enum cli_cache)c);
    pc_tuning_get(&t->dflt, i, &x->dflt);
    if (!r->all_cores) {
        from_grid(t, r, x);
    } else {
        x->sizes = t->shares;
        x->n = t->nshare;
        if (cli_tune_parallel(t->fns[t->fn[r->a]].kind, t->fns[t->fn[r->b]].kind, t->threads,
                              t->o.runs, x) != 0)
            return -1;
    }
    struct cli_decision d;
    if (r->from_nt)
        cli_preload_decide(x, &d);
    else
        cli_decide(x, &d);
    /* a ahead over the whole span measured, for a threshold that cannot
     * be never: set past the span, and report that value, the one written. */
    int past = d.threshold == PC_NEVER && !ti.never;
    if (past)
        d.threshold = 2 * x->sizes[x->n - 1];
    size_t v = d.threshold;
    if (pc_tuning_set(&t->chosen, i, v) != 0) {
        char s[32];
        cli_error("tune: %s = %s is outside what a profile accepts", ti.key,
                  cli_thr_str(v, s, sizeof(s)));
        return -1;
    }
    cli_tune_report(t->rep, &t->rs, t->o.fmt, t->o.runs, ti.key, store_name(t, r->a),
                    store_name(t, r->b), x, &d, x->dflt, r->all_cores ? t->threads : 1);
    if (r->from_nt && t->o.fmt == CLI_FMT_DEFAULT)
        fprintf(t->rep, "(%s: the smallest size from %s on where pc_clear, as it runs there, "
                        "is not behind %s beyond the noise, there and above)\n",
                ti.key,
                from_nt(t) < t->chosen.nt_threshold ? "the built-in preload_min" : "nt_threshold",
                store_name(t, r->a));
    if (past && t->o.fmt == CLI_FMT_DEFAULT)
        fprintf(t->rep, "(%s is ahead at every size measured; %s cannot be never, so it is set "
                        "past the largest)\n", store_name(t, r->a), ti.key);
    return 0;
}

static int run(struct tune *t)
{
    uint64_t t0 = cli_now_ns();
    if (cli_tune_destination(&t->o) != 0)
        return CLI_EXIT_RUNTIME;
    int to_stdout = strcmp(t->o.out, "-") == 0;
    if (!to_stdout && cli_check_writable(t->o.out) != 0)
        return CLI_EXIT_RUNTIME;
    /* With -o - the profile owns stdout; what tune has to say goes to
     * stderr. */
    t->rep = to_stdout ? stderr : stdout;
    pc_tuning_defaults(&t->dflt);
    t->chosen = t->dflt;
    if (pick_primitives(t) != 0)
        return CLI_EXIT_RUNTIME;
    pick_sizes(t);
    if (t->o.fmt == CLI_FMT_DEFAULT)
        print_header(t);
    t->grid = (struct cli_grid){.fns = t->fns, .nfn = t->nfn, .sizes = t->sizes,
                                .nsize = t->nsize, .states = (1u << CLI_NCACHE) - 1,
                                .runs = t->o.runs, .bytes_per_run = BYTES_PER_RUN};
    if (cli_grid_run(&t->grid, "tune") != 0)
        return CLI_EXIT_RUNTIME;
    int rc = 0;
    for (int i = 0; i < PC_NTHRESHOLDS && rc == 0; i++)
        rc = tune_one(t, i);
    cli_grid_free(&t->grid);
    if (rc != 0)
        return CLI_EXIT_RUNTIME;
    cli_tune_glibc(t->rep, &t->rs, t->o.fmt, &t->chosen, t->o.quick, t->o.runs);
    double secs = (double)(cli_now_ns() - t0) / 1e9;
    if (cli_tune_write(t->o.out, &t->chosen, t->o.quick, t->o.runs, secs) != 0)
        return CLI_EXIT_RUNTIME;
    if (t->o.fmt != CLI_FMT_DEFAULT) {
        cli_records_print(stdout, t->o.fmt, &t->rs);
        fputs("pageclear: tune ", stderr);
        cli_tune_written(stderr, t->o.out, secs);
        return 0;
    }
    cli_tune_summary(t->rep, &t->chosen);
    if (!to_stdout)
        cli_tune_written(t->rep, t->o.out, secs);
    else
        fprintf(t->rep, "took %.0f s\n", secs);
    return 0;
}

int cli_tune(int argc, char **argv)
{
    static struct tune t;
    if (cli_tune_memset_wanted()) /* tune_glibc.c's timing process */
        return cli_tune_memset_child();
    int rc = cli_tune_parse(argc, argv, &t.o);
    if (rc != 0)
        return CLI_EXIT_USAGE;
    /* --if-needed decides before anything is set aside or measured; the
     * run cli_tune_clean_selection starts again has been decided for. */
    if (t.o.if_needed && getenv("PAGECLEAR_TUNE_CLEAN") == NULL) {
        if (cli_tune_destination(&t.o) != 0)
            return CLI_EXIT_RUNTIME;
        if (cli_tune_if_needed(t.o.out, t.o.fmt == CLI_FMT_DEFAULT ? stdout : stderr))
            return 0;
    }
    cli_tune_clean_selection(cli_argv);
    return run(&t);
}
