/*
 * tune.c - `pageclear tune`: measure this machine's crossovers and write a
 * profile. The library picks among three kinds of stores (vector stores
 * for small extents, the string instruction, streaming stores for large or
 * cold extents); a profile moves the thresholds between them, not the
 * primitives. So tune measures the primitives the selection uses, in the
 * cache states each contract serves, and places each threshold with
 * decide.c:
 *   vector_max             vector vs string; use (5%) and warm (10%)
 *   nt_threshold           temporal vs streaming for pc_clear; use, warm
 *   cold_nt_threshold      the same for pc_clear_cold; cold
 *   parallel_nt_threshold  the same with every core clearing its share at
 *                          once (pc_clear_parallel); use, warm
 * Runs are interleaved; the table behind each choice is printed with it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "decide.h"
#include "grid.h"
#include "measure.h"
#include "output.h"
#include "stats.h"
#include "target.h"
#include "tune_report.h"
#include "units.h"

/* ~2-6 ms per run at 10-30 GB/s: above the clock's resolution by far, and
 * 3 primitives x 3 states x 17 sizes x 16 runs stay within a minute. */
#define BYTES_PER_RUN (64 * MIB)
/* The medians' standard error falls with the square root of the runs:
 * 15 runs put it near 3% with this guest's ~10% run-to-run spread, and
 * tune near a minute on 2 cores. */
#define DEFAULT_RUNS 15
#define QUICK_RUNS 5
/* The vector/string crossover lies within L1/L2 sizes on every CPU
 * measured (32-48 KiB); past 256 KiB vector stores have no edge left. */
#define VECTOR_SPAN (256 * KIB)
#define TOL_CONTRACT 0.05
#define TOL_WARM 0.10
#define MAX_THREADS 64

struct tune {
    const char *out; /* NULL: the user's profile path */
    int quick;
    unsigned long runs;
    enum cli_format fmt;
    struct cli_records rs;
};

static int usage(void)
{
    fprintf(stderr,
            "usage: pageclear tune [-o FILE|-] [--quick] [-n RUNS] [--json|--csv]\n"
            "  measures this machine's crossovers (vector vs string stores, temporal vs\n"
            "  streaming stores, one thread and all cores) in the cache states warm,\n"
            "  cold and use, and writes a profile the library reads at start\n"
            "  -o FILE   where to write it; '-' prints it (default:\n"
            "            $XDG_CONFIG_HOME/pageclear/profile, ~/.config/pageclear/profile)\n"
            "  --quick   fewer sizes and %d runs (~20 s)\n"
            "  -n RUNS   interleaved runs per measurement (default %d)\n",
            QUICK_RUNS, DEFAULT_RUNS);
    return CLI_EXIT_USAGE;
}

/* Tune measures the selection's primitives: that needs the built-in
 * selection, not one a profile or PAGECLEAR_* variable moved. If either is
 * in force, run again without them. */
static const char *const overrides[] = {
    "PAGECLEAR_IMPL", "PAGECLEAR_VECTOR_MAX", "PAGECLEAR_NT_THRESHOLD",
    "PAGECLEAR_COLD_NT_THRESHOLD", "PAGECLEAR_PARALLEL_NT_THRESHOLD"};

static void clean_selection(char **argv)
{
    struct pc_host h;
    pc_host_get(&h);
    int dirty = *h.profile != '\0';
    for (size_t i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++)
        dirty |= getenv(overrides[i]) != NULL;
    if (!dirty || getenv("PAGECLEAR_TUNE_CLEAN") != NULL)
        return;
    for (size_t i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++)
        unsetenv(overrides[i]);
    setenv("PAGECLEAR_PROFILE", "", 1); /* empty: no profile */
    setenv("PAGECLEAR_TUNE_CLEAN", "1", 1);
    fprintf(stderr, "pageclear: tune runs with the built-in selection (the profile or "
                    "PAGECLEAR_* variables in force are set aside)\n");
    execv("/proc/self/exe", argv);
    cli_error("tune: cannot re-run itself without the overrides: %s", strerror(errno));
}

/* ---- all cores at once: pc_clear_parallel's shares ---------------------- */

struct par {
    pthread_barrier_t start, end;
    char *base;
    size_t share;
    int impl, use;
    unsigned long threads;
};

struct par_arg {
    struct par *p;
    unsigned long i;
};

static void *par_worker(void *arg)
{
    struct par_arg *a = arg;
    struct par *p = a->p;
    char *mine = p->base + a->i * p->share;
    pthread_barrier_wait(&p->start);
    (void)pc_impl_clear((size_t)p->impl, mine, p->share);
    if (p->use)
        cli_target_use(mine, p->share);
    pthread_barrier_wait(&p->end);
    return NULL;
}

/* One timed pass of every thread clearing its share of [base, +size). */
static double par_once(struct par *p, char *base, size_t size)
{
    pthread_t th[MAX_THREADS];
    struct par_arg args[MAX_THREADS];
    p->base = base;
    p->share = size / p->threads;
    pthread_barrier_init(&p->start, NULL, (unsigned)p->threads + 1);
    pthread_barrier_init(&p->end, NULL, (unsigned)p->threads + 1);
    for (unsigned long i = 0; i < p->threads; i++) {
        args[i] = (struct par_arg){p, i};
        if (pthread_create(&th[i], NULL, par_worker, &args[i]) != 0) {
            cli_error("tune: cannot start a thread");
            exit(CLI_EXIT_RUNTIME);
        }
    }
    pthread_barrier_wait(&p->start);
    uint64_t t0 = cli_now_ns();
    pthread_barrier_wait(&p->end);
    uint64_t ns = cli_now_ns() - t0;
    for (unsigned long i = 0; i < p->threads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&p->start);
    pthread_barrier_destroy(&p->end);
    return (double)size / (double)(ns ? ns : 1);
}

/* Fill x (a = temporal, b = streaming) for extents sizes[] split over
 * `threads` cores, in warm and use (cold: the extents already exceed the
 * caches). */
static int par_measure(const struct tune *t, int ia, int ib, const size_t *sizes, size_t n,
                       unsigned long threads, struct cli_xover *x)
{
    char err[512];
    struct par p = {.threads = threads};
    const enum cli_cache states[] = {CLI_CACHE_WARM, CLI_CACHE_USE};
    for (size_t si = 0; si < n; si++) {
        struct cli_target tg;
        if (cli_target_map(&tg, sizes[si], CLI_CACHE_COLD, CLI_PAGE_4K, CLI_FILL_NONE, err,
                           sizeof(err)) != 0) {
            cli_error("tune: %s", err);
            return -1;
        }
        for (size_t k = 0; k < 2; k++) {
            enum cli_cache c = states[k];
            double va[64], vb[64];
            char a[32];
            cli_progress("tune: %lu threads, %s, %s", threads,
                         cli_fmt_size(sizes[si], a, sizeof(a)), cli_cache_name(c));
            p.use = c == CLI_CACHE_USE;
            tg.cache = c == CLI_CACHE_WARM ? CLI_CACHE_WARM : CLI_CACHE_USE;
            for (unsigned long r = 0; r <= t->runs && r < 64; r++)
                for (int f = 0; f < 2; f++) {
                    p.impl = f ? ib : ia;
                    if (c != CLI_CACHE_WARM)
                        cli_target_evict(&tg);
                    double v = par_once(&p, c == CLI_CACHE_WARM ? tg.base : cli_target_next(&tg),
                                        sizes[si]);
                    if (r > 0) /* the first pass is untimed, as everywhere */
                        (f ? vb : va)[r - 1] = v;
                }
            struct cli_stats sa, sb;
            cli_stats(va, t->runs, &sa);
            cli_stats(vb, t->runs, &sb);
            x->a[si][c] = sa.median;
            x->a_sd[si][c] = sa.stdev_pct;
            x->b[si][c] = sb.median;
            x->b_sd[si][c] = sb.stdev_pct;
        }
        cli_target_unmap(&tg);
    }
    cli_progress("%s", "");
    return 0;
}

/* ---- the command -------------------------------------------------------------- */

static int parse(int argc, char **argv, struct tune *t)
{
    t->runs = DEFAULT_RUNS;
    int have_runs = 0;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &t->fmt))
            continue;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(), -2;
        if (strcmp(argv[i], "--quick") == 0) {
            t->quick = 1;
            continue;
        }
        static const struct cli_opt spec[] = {{'o', "--output"}, {'n', "--runs"}, {0, NULL}};
        int key = cli_opt_value(spec, "tune", argc, argv, &i, &v);
        if (key < 0)
            return usage(), -1;
        if (key == 'o') {
            if (*v == '\0') {
                cli_error("tune: -o needs a file name, or '-' for standard output");
                return -1;
            }
            t->out = v;
        } else if (cli_uint("-n", v, 2, 60, &t->runs) != 0) {
            return -1;
        } else {
            have_runs = 1;
        }
    }
    if (t->quick && !have_runs)
        t->runs = QUICK_RUNS;
    if (t->fmt != CLI_FMT_DEFAULT && t->out != NULL && strcmp(t->out, "-") == 0) {
        cli_error("tune: -o - prints the profile, --json/--csv the measurements: choose one");
        return -1;
    }
    return 0;
}

/* Copy one primitive pair's grid figures into x for the states in tol. */
static void from_grid(const struct cli_grid *g, size_t first_size, size_t n,
                      const int *a_fn, size_t b_fn, struct cli_xover *x)
{
    x->n = n;
    x->sizes = g->sizes + first_size;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < CLI_NCACHE; c++) {
            const struct cli_stats *sa = cli_grid_at(g, first_size + i, (enum cli_cache)c,
                                                      (size_t)a_fn[first_size + i]);
            const struct cli_stats *sb = cli_grid_at(g, first_size + i, (enum cli_cache)c, b_fn);
            x->a[i][c] = sa->median;
            x->a_sd[i][c] = sa->stdev_pct;
            x->b[i][c] = sb->median;
            x->b_sd[i][c] = sb->stdev_pct;
        }
}

static int run(struct tune *t)
{
    uint64_t t0 = cli_now_ns();
    static char path[4096];
    if (t->out == NULL) {
        if (cli_profile_path(path, sizeof(path)) != 0) {
            cli_error("tune: neither XDG_CONFIG_HOME nor HOME is set: give -o FILE");
            return CLI_EXIT_RUNTIME;
        }
        t->out = path;
    }
    if (strcmp(t->out, "-") != 0 && cli_check_writable(t->out) != 0)
        return CLI_EXIT_RUNTIME;
    /* With -o - the profile owns stdout; what tune has to say goes to
     * stderr. */
    FILE *rep = strcmp(t->out, "-") == 0 ? stderr : stdout;
    struct pc_tuning dflt, out;
    char s1[32], s2[32];
    pc_tuning_defaults(&dflt);
    out = dflt;
    /* The selection's roles, read from the library (cli_roles). */
    struct cli_roles roles;
    cli_roles(&roles);
    int iv = pc_impl_find(roles.vector);
    int is = pc_impl_find(roles.string);
    int in = pc_impl_find(roles.stream);
    int has_v = iv != is && dflt.vector_max > 0;
    int has_n = in != is && cli_impl_cache(roles.stream) == PC_CACHE_NONTEMPORAL;

    struct cli_fn fns[3];
    size_t nfn = 0, fv = 0, fs = SIZE_MAX, fnt = 0;
    struct cli_fn all[CLI_MAX_FNS];
    size_t nall = cli_fn_list(all, CLI_MAX_FNS, CLI_FNS_PRIMITIVES);
    for (size_t i = 0; i < nall; i++) {
        if (all[i].kind == is)
            fs = nfn, fns[nfn++] = all[i];
        else if (has_v && all[i].kind == iv)
            fv = nfn, fns[nfn++] = all[i];
        else if (has_n && all[i].kind == in)
            fnt = nfn, fns[nfn++] = all[i];
    }
    if (fs == SIZE_MAX) { /* the selection runs only what the host can */
        cli_error("tune: the selection's primitive %s is not runnable here", roles.string);
        return CLI_EXIT_RUNTIME;
    }
    size_t sizes[CLI_GRID_MAX_SIZES], nsize = 0;
    for (size_t sz = 4 * KIB; sz <= 256 * MIB; sz *= t->quick ? 4 : 2)
        sizes[nsize++] = sz;
    if (t->fmt == CLI_FMT_DEFAULT) {
        struct pc_host h;
        pc_host_get(&h);
        fprintf(rep, "# pageclear tune: %s, family %u model %u stepping %u, LLC %s%s; %lu runs%s\n",
               h.vendor, h.family, h.model, h.stepping,
               h.llc_size ? cli_fmt_size(h.llc_size, s1, sizeof(s1)) : "unknown",
               h.hypervisor ? ", under a hypervisor" : "", t->runs, t->quick ? ", --quick" : "");
        fprintf(rep, "# primitives: string %s%s%s%s%s\n", fns[fs].name, has_v ? ", vector " : "",
               has_v ? fns[fv].name : "", has_n ? ", streaming " : "",
               has_n ? fns[fnt].name : "");
        for (int c = 0; c < CLI_NCACHE; c++)
            fprintf(rep, "# %s: %s\n", cli_cache_name((enum cli_cache)c),
                   cli_cache_what((enum cli_cache)c));
        fflush(rep);
    }
    struct cli_grid g = {.fns = fns, .nfn = nfn, .sizes = sizes, .nsize = nsize,
                         .states = 7, .runs = t->runs, .bytes_per_run = BYTES_PER_RUN};
    if (cli_grid_run(&g, "tune") != 0)
        return CLI_EXIT_RUNTIME;

    static struct cli_xover x;
    struct cli_decision d;
    int a_fn[CLI_GRID_MAX_SIZES];
    /* 1. vector_max: vector below, string from it; the caller uses the
     * memory (use), and must not lose badly when it is warm. */
    if (has_v) {
        size_t n = 0;
        while (n < nsize && sizes[n] <= VECTOR_SPAN)
            a_fn[n++] = (int)fv;
        x = (struct cli_xover){.tol = {[CLI_CACHE_WARM] = TOL_WARM, [CLI_CACHE_USE] = TOL_CONTRACT}};
        from_grid(&g, 0, n, a_fn, fs, &x);
        x.dflt = dflt.vector_max;
        x.runs = t->runs;
        cli_decide(&x, &d);
        /* never = vector stores over the whole span measured */
        out.vector_max = d.threshold == SIZE_MAX ? 2 * sizes[n - 1] : d.threshold;
        cli_tune_report(rep, &t->rs, t->fmt, t->runs, "vector_max", fns[fv].name, fns[fs].name, &x,
                        &d, dflt.vector_max, 1);
    }
    /* Below a streaming threshold the temporal choice runs: vector stores
     * under vector_max, else the string instruction. */
    for (size_t i = 0; i < nsize; i++)
        a_fn[i] = has_v && sizes[i] < out.vector_max ? (int)fv : (int)fs;
    if (has_n) {
        /* 2. nt_threshold, for pc_clear: use and warm. */
        size_t first = 0;
        while (first < nsize && sizes[first] < out.vector_max)
            first++;
        x = (struct cli_xover){.tol = {[CLI_CACHE_WARM] = TOL_WARM, [CLI_CACHE_USE] = TOL_CONTRACT}};
        from_grid(&g, 0, nsize, a_fn, fnt, &x);
        x.first = first;
        x.dflt = dflt.nt_threshold;
        x.runs = t->runs;
        cli_decide(&x, &d);
        out.nt_threshold = d.threshold;
        cli_tune_report(rep, &t->rs, t->fmt, t->runs, "nt_threshold", "temporal", fns[fnt].name, &x,
                        &d, dflt.nt_threshold, 1);
        /* 3. cold_nt_threshold, for pc_clear_cold: cold. */
        x = (struct cli_xover){.tol = {[CLI_CACHE_COLD] = TOL_CONTRACT}};
        from_grid(&g, 0, nsize, a_fn, fnt, &x);
        x.dflt = dflt.cold_nt_threshold;
        x.runs = t->runs;
        cli_decide(&x, &d);
        out.cold_nt_threshold = d.threshold;
        cli_tune_report(rep, &t->rs, t->fmt, t->runs, "cold_nt_threshold", "temporal", fns[fnt].name,
                        &x, &d, dflt.cold_nt_threshold, 1);
    } else {
        out.nt_threshold = out.cold_nt_threshold = SIZE_MAX;
    }
    cli_grid_free(&g);

    /* 4. parallel_nt_threshold: every core clearing its share at once, as
     * pc_clear_parallel does (shares of 64 MiB and more). */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned long threads = ncpu > MAX_THREADS ? MAX_THREADS : ncpu > 0 ? (unsigned long)ncpu : 1;
    const size_t psizes_full[] = {128 * MIB, 256 * MIB, 512 * MIB, GIB};
    const size_t psizes_quick[] = {128 * MIB, 512 * MIB};
    const size_t *psizes = t->quick ? psizes_quick : psizes_full;
    size_t np = t->quick ? 2 : 4;
    size_t avail = cli_mem_available();
    while (np > 0 && avail && psizes[np - 1] > avail / 4)
        np--; /* leave the machine its memory */
    out.parallel_nt_threshold = out.nt_threshold;
    if (has_n && threads > 1 && np > 0) {
        x = (struct cli_xover){.tol = {[CLI_CACHE_WARM] = TOL_WARM, [CLI_CACHE_USE] = TOL_CONTRACT}};
        x.n = np;
        x.sizes = psizes;
        if (par_measure(t, fns[fs].kind, fns[fnt].kind, psizes, np, threads, &x) != 0)
            return CLI_EXIT_RUNTIME;
        x.dflt = dflt.parallel_nt_threshold;
        x.runs = t->runs;
        cli_decide(&x, &d);
        out.parallel_nt_threshold = d.threshold;
        cli_tune_report(rep, &t->rs, t->fmt, t->runs, "parallel_nt_threshold", fns[fs].name,
                        fns[fnt].name, &x, &d, dflt.parallel_nt_threshold, threads);
    } else if (t->fmt == CLI_FMT_DEFAULT) {
        fprintf(rep, "\n## parallel_nt_threshold: not measured (%s); set to nt_threshold\n",
               !has_n ? "no streaming stores here" : threads < 2 ? "one CPU" : "too little memory");
    }

    /* The profile. */
    double secs = (double)(cli_now_ns() - t0) / 1e9;
    char comment[1024], text[8192];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    snprintf(comment, sizeof(comment),
             "made by 'pageclear tune%s' on %04d-%02d-%02d, %lu runs, %.0f s\n"
             "thresholds measured in the cache states each contract serves; see pageclear(1)",
             t->quick ? " --quick" : "", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, t->runs,
             secs);
    int len = pc_profile_format(&out, comment, text, sizeof(text));
    if (len < 0 || (size_t)len >= sizeof(text)) {
        cli_error("tune: cannot format the profile (%d)", len);
        return CLI_EXIT_RUNTIME;
    }
    const char *dest = t->out;
    if (strcmp(dest, "-") == 0) {
        fputs(text, stdout);
        fflush(stdout);
    } else if (cli_write_file(dest, text) != 0) {
        return CLI_EXIT_RUNTIME;
    }
    if (t->fmt != CLI_FMT_DEFAULT) {
        cli_records_print(stdout, t->fmt, &t->rs);
        fprintf(stderr, "pageclear: tune wrote %s in %.0f s\n", dest, secs);
        return 0;
    }
    fprintf(rep, "\nchose vector_max = %s, nt_threshold = %s, cold_nt_threshold = %s, "
                 "parallel_nt_threshold = %s\n",
            cli_thr_str(out.vector_max, s1, sizeof(s1)),
            cli_thr_str(out.nt_threshold, s2, sizeof(s2)),
            cli_thr_str(out.cold_nt_threshold, comment, 32),
            cli_thr_str(out.parallel_nt_threshold, comment + 32, 32));
    if (strcmp(dest, "-") != 0)
        fprintf(rep, "wrote %s in %.0f s; the library reads it at start (PAGECLEAR_PROFILE=FILE "
                     "points elsewhere); 'pageclear check' shows what it gives\n", dest, secs);
    else
        fprintf(rep, "took %.0f s\n", secs);
    return 0;
}

int cli_tune(int argc, char **argv)
{
    static struct tune t;
    int rc = parse(argc, argv, &t);
    if (rc == -2)
        return 0;
    if (rc != 0)
        return CLI_EXIT_USAGE;
    clean_selection(cli_argv);
    return run(&t);
}
