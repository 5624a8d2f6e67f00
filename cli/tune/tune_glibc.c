/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_glibc.c - for glibc users who will not use pageclear: the
 * GLIBC_TUNABLES setting that brings their C library's memset closest to
 * what tune measured, and a re-measurement that keeps it only if it gains.
 *   glibc.cpu.x86_rep_stosb_threshold            from tune's vector_max:
 *       vector stores below it, `rep stosb` from it (glibc's default 2048)
 *   glibc.cpu.x86_memset_non_temporal_threshold  from tune's nt_threshold,
 *       on glibc 2.40 and later (earlier ones never stream a memset)
 * GLIBC_TUNABLES is read by the dynamic loader when a process starts, so
 * memset is timed in two processes of this program: one with the
 * environment as it is, one with the setting appended to the user's
 * GLIBC_TUNABLES. Each is started once and keeps its extents mapped; tune
 * asks them for one run at a time, in turn (the order alternating), so
 * the machine's drift falls on both alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "contract.h"
#include "decide.h"
#include "glibc_tunables.h"
#include "libc.h"
#include "measure.h"
#include "stats.h"
#include "target.h"
#include "tune_glibc.h"
#include "tune_report.h"
#include "units.h"

/* Each run clears at least this much: 2 ms at the 120-180 GB/s of a
 * warm 8-16 KiB memset here (tune's own 64 MiB gave a 15-20% noise
 * there), 30-60 ms cold. */
#define BYTES_PER_RUN (256 * MIB)
/* Runs per size and state: each is a request to either process, and a
 * `use` run at 128 MiB takes ~0.1 s with the eviction it needs; 7 keep
 * the paired ratios' standard error near 4% at this guest's spread. */
#define RUNS_FULL 7
#define RUNS_QUICK 3
/* A warm run takes ~1 ms: warm points get this many times the runs. */
#define WARM_RUNS_FACTOR 3
#define RUNS_MAX (WARM_RUNS_FACTOR * RUNS_FULL)
/* The largest extent timed: a `use` rotation spans four LLCs, mapped by
 * both processes at once. */
#define SIZE_CAP (256 * MIB)
#define MAX_POINTS 8

struct child {
    pid_t pid;
    FILE *to, *from;
};

/* ---- the process that times memset ------------------------------------------ */

int cli_tune_memset_wanted(void)
{
    const char *v = getenv(CLI_TUNE_MEMSET_ENV);
    return v != NULL && strtol(v, NULL, 10) == (long)getppid();
}

int cli_tune_memset_child(void)
{
    struct cli_fn f;
    struct cli_target t;
    int mapped = 0, mstate = -1;
    size_t msize = 0;
    char line[128], err[512];
    if (cli_fn_find("glibc", &f) != 0)
        return CLI_EXIT_RUNTIME;
    while (fgets(line, sizeof(line), stdin) != NULL) {
        unsigned long long size;
        int state;
        if (sscanf(line, "%llu %d", &size, &state) != 2 || size == 0 || state < 0 ||
            state >= CLI_NCACHE)
            return CLI_EXIT_USAGE;
        if (!mapped || size != msize || state != mstate) {
            if (mapped)
                cli_target_unmap(&t);
            mapped = 0;
            /* perf's memset workload's byte, as `pageclear mem memset` */
            if (cli_target_map(&t, (size_t)size, (enum cli_cache)state, CLI_PAGE_4K,
                               CLI_FILL_LOOP, err, sizeof(err)) != 0) {
                cli_error("tune: memset process: %s", err);
                return CLI_EXIT_RUNTIME;
            }
            mapped = 1;
            msize = (size_t)size;
            mstate = state;
        }
        unsigned long loops = cli_loops_per_run(msize, BYTES_PER_RUN);
        struct cli_stats st;
        double gbs = 0;
        cli_measure_runs(&f, 1, &t, loops, 1, 0, &st, NULL, &gbs);
        printf("%.6f\n", gbs);
        fflush(stdout);
    }
    if (mapped)
        cli_target_unmap(&t);
    return 0;
}

/* ---- tune's side --------------------------------------------------------------- */

static int cloexec_pipe(int fd[2])
{
    if (pipe(fd) != 0)
        return -1;
    fcntl(fd[0], F_SETFD, FD_CLOEXEC);
    fcntl(fd[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Start a timing process; with tunables, GLIBC_TUNABLES=tunables in its
 * environment. 0, or -1 after a message. */
static int spawn(struct child *c, const char *tunables)
{
    int in[2], out[2];
    if (cloexec_pipe(in) != 0)
        return cli_error("tune: pipe: %s", strerror(errno)), -1;
    if (cloexec_pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        return cli_error("tune: pipe: %s", strerror(errno)), -1;
    }
    fflush(NULL);
    c->pid = fork();
    if (c->pid == 0) {
        dup2(in[0], 0); /* the copies lose FD_CLOEXEC */
        dup2(out[1], 1);
        if (tunables != NULL)
            setenv("GLIBC_TUNABLES", tunables, 1);
        char parent[24]; /* tune's pid: a stray variable starts no child loop */
        snprintf(parent, sizeof(parent), "%ld", (long)getppid());
        setenv(CLI_TUNE_MEMSET_ENV, parent, 1);
        char *argv[] = {cli_argv[0], "tune", NULL};
        cli_exec_self(argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (c->pid < 0) {
        close(in[1]);
        close(out[0]);
        return cli_error("tune: fork: %s", strerror(errno)), -1;
    }
    c->to = fdopen(in[1], "w");
    c->from = fdopen(out[0], "r");
    return c->to != NULL && c->from != NULL ? 0 : -1;
}

static void reap(struct child *c)
{
    if (c->to != NULL)
        fclose(c->to); /* end of input: it exits */
    if (c->from != NULL)
        fclose(c->from);
    if (c->pid > 0)
        waitpid(c->pid, NULL, 0);
    *c = (struct child){0};
}

/* One run of memset in process c: GB/s, or -1. */
static double ask(struct child *c, size_t size, int state)
{
    char line[64];
    if (fprintf(c->to, "%zu %d\n", size, state) < 0 || fflush(c->to) != 0)
        return -1;
    if (fgets(line, sizeof(line), c->from) == NULL)
        return -1;
    return strtod(line, NULL);
}

/* Time p (size and state set) in both processes; now is ch[0]. The runs'
 * records go to rs. 0, or -1 if a process failed. */
static int measure_point(struct child ch[2], unsigned long runs, struct cli_gt_point *p,
                         struct cli_records *rs)
{
    double v[2][RUNS_MAX], ratio[RUNS_MAX];
    struct cli_stats st[2], rst;
    if (p->state == CLI_CACHE_WARM)
        runs *= WARM_RUNS_FACTOR;
    /* a run each, not counted: the first after a mapping pays for what
     * the next ones find in place (TLB, the loop's branches) */
    if (ask(&ch[0], p->size, p->state) <= 0 || ask(&ch[1], p->size, p->state) <= 0)
        return -1;
    for (unsigned long r = 0; r < runs; r++) {
        for (int k = 0; k < 2; k++) {
            int who = k ^ (int)(r & 1); /* alternate which goes first */
            v[who][r] = ask(&ch[who], p->size, p->state);
            if (v[who][r] <= 0)
                return -1;
        }
        ratio[r] = v[1][r] / v[0][r];
    }
    for (int k = 0; k < 2; k++) {
        cli_stats(v[k], runs, &st[k]);
        struct cli_record rec = {"tune", k ? "glibc+GLIBC_TUNABLES" : "glibc", "4KB", p->size,
                                 0, cli_loops_per_run(p->size, BYTES_PER_RUN),
                                 1, "GB/s", st[k], NULL,
                                 cli_cache_name((enum cli_cache)p->state), "loop-index", NULL};
        cli_records_add(rs, &rec);
    }
    cli_stats_summary(ratio, runs, &rst);
    p->now = st[0].median;
    p->set = st[1].median;
    p->ratio = rst.median;
    p->se = cli_median_se(rst.stdev_pct, runs) * rst.mean;
    p->tol = cli_contract_tol(CLI_CONTRACT_CLEAR, (enum cli_cache)p->state);
    return 0;
}

/* Up to k of the powers of two in [lo, hi), at most SIZE_CAP: the
 * sizes whose memset the setting changes (one of lo and hi is the
 * tunable's value now, the other tune's). The largest, then the
 * smallest, then one between. */
static size_t pick_sizes(size_t lo, size_t hi, size_t k, size_t *out)
{
    size_t p2[64], n = 0;
    for (size_t p = 1024; p != 0 && p < hi && p <= SIZE_CAP; p *= 2)
        if (p >= lo)
            p2[n++] = p;
    if (n == 0)
        return 0;
    size_t m = 0;
    out[m++] = p2[n - 1];
    if (k >= 2 && n >= 2)
        out[m++] = p2[0];
    if (k >= 3 && n >= 3)
        out[m++] = p2[n / 2];
    return m;
}

/* One tunable: its values now and from tune, the points that judge it. */
struct tunable {
    const char *name, *from; /* the tunable; the threshold it comes from */
    size_t now, set;
    const char *skip;        /* why it is not suggested unmeasured, or NULL */
    size_t first, np;        /* its points */
    int ok;                  /* the re-measurement keeps it */
};

/* Why no tunable applies here, or NULL: glibc's x86-64 memset only. */
static const char *not_applicable(void)
{
#if !defined(__GLIBC__)
    return "not glibc: no GLIBC_TUNABLES setting applies to this C library's memset";
#elif !defined(__x86_64__)
    return "the glibc tunables for memset are x86-64's; none applies on this architecture";
#else
    return NULL;
#endif
}

/* The two tunables' values now (as the loader lists them, the user's
 * GLIBC_TUNABLES included) and from tune's choice. */
static void plan_values(struct tunable tu[2], const struct pc_tuning *chosen, const char *ver)
{
    static char list[4096], why[96];
    cli_libc_tunables(list, sizeof(list));
    /* Only what tune measured: as tune picks its primitives, vector_max
     * needs vector stores beside the string instruction, nt_threshold
     * streaming stores (a portable build has neither: its thresholds are
     * the built-in defaults, nothing to hand to the C library). */
    struct cli_roles roles;
    cli_roles(&roles);
    int string = pc_impl_find(roles.string), vector = pc_impl_find(roles.vector);
    int stream = pc_impl_find(roles.stream);
    int has_vector = vector >= 0 && vector != string;
    int has_stream = stream >= 0 && stream != string &&
                     cli_impl_cache(roles.stream) == PC_CACHE_NONTEMPORAL;
    tu[0] = (struct tunable){.name = PCI_GLIBC_STOSB_TUNABLE, .from = "vector_max",
                             .now = PCI_GLIBC_STOSB_DEFAULT, .set = chosen->vector_max};
    cli_glibc_listed(list, PCI_GLIBC_STOSB_TUNABLE, &tu[0].now);
    if (tu[0].set == 0 || !has_vector)
        tu[0].skip = "tune measured no vector stores to set it from";
    tu[1] = (struct tunable){.name = PCI_GLIBC_MEMSET_NT_TUNABLE, .from = "nt_threshold",
                             .set = chosen->nt_threshold};
    if (tu[1].set < PCI_GLIBC_MEMSET_NT_MIN)
        tu[1].set = PCI_GLIBC_MEMSET_NT_MIN; /* what the loader accepts */
    if (!has_stream) {
        tu[1].skip = "tune measured no streaming stores to set it from";
    } else if (pci_glibc_minor(ver) < PCI_GLIBC_MEMSET_NT_SINCE) {
        snprintf(why, sizeof(why), "not in glibc %s (from 2.%d on)", ver,
                 PCI_GLIBC_MEMSET_NT_SINCE);
        tu[1].skip = why;
    } else if (cli_glibc_listed(list, PCI_GLIBC_MEMSET_NT_TUNABLE, &tu[1].now) != 0) {
        tu[1].skip = "the dynamic loader does not list it";
    }
    for (int i = 0; i < 2; i++)
        if (tu[i].skip == NULL && tu[i].now == tu[i].set)
            tu[i].skip = "already at tune's value";
}

/* The points judging each tunable: the sizes whose memset it changes, in
 * warm (the string instruction's start-up against vector stores is a
 * matter of cache-resident lengths: `use` at 2-32 KiB would time the
 * misses and cost seconds of mapping) and, for streaming, warm and use,
 * the states tune's nt_threshold is placed in. */
static size_t plan_points(struct tunable tu[2], int quick, struct cli_gt_point *pt)
{
    size_t n = 0, s[4];
    for (int i = 0; i < 2; i++) {
        tu[i].first = n;
        if (tu[i].skip != NULL)
            continue;
        size_t lo = tu[i].now < tu[i].set ? tu[i].now : tu[i].set;
        size_t hi = tu[i].now < tu[i].set ? tu[i].set : tu[i].now;
        size_t k = pick_sizes(lo, hi, i == 0 ? (quick ? 1 : 2) : (quick ? 2 : 3), s);
        for (size_t j = 0; j < k; j++) {
            pt[n++] = (struct cli_gt_point){.size = s[j], .state = CLI_CACHE_WARM};
            if (i == 1)
                pt[n++] = (struct cli_gt_point){.size = s[j], .state = CLI_CACHE_USE};
        }
        tu[i].np = n - tu[i].first;
        if (tu[i].np == 0)
            tu[i].skip = "no size on the ladder between its value now and tune's";
    }
    return n;
}

/* Time every point now and under setting. 0, or -1 after a message. */
static int remeasure(const char *setting, struct cli_gt_point *pt, size_t n,
                     unsigned long runs, struct cli_records *rs)
{
    struct child ch[2] = {{0}, {0}};
    int rc = spawn(&ch[0], NULL);
    if (rc == 0)
        rc = spawn(&ch[1], setting);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char s[32];
        cli_progress("tune: memset under GLIBC_TUNABLES, %s %s",
                     cli_fmt_size(pt[i].size, s, sizeof(s)),
                     cli_cache_name((enum cli_cache)pt[i].state));
        rc = measure_point(ch, runs, &pt[i], rs);
    }
    cli_progress("%s", "");
    reap(&ch[0]);
    reap(&ch[1]);
    if (rc != 0)
        cli_error("tune: the process timing memset under GLIBC_TUNABLES failed; no "
                  "GLIBC_TUNABLES suggestion");
    return rc;
}

/* The figures and verdict of each tunable (default format only). */
static void report(FILE *f, const struct tunable tu[2], const struct cli_gt_point *pt,
                   const char *ver, unsigned long runs)
{
    char s1[32], s2[32];
    fprintf(f, "\n## GLIBC_TUNABLES for programs without pageclear: glibc %s's memset as it "
               "is and under the setting (GB/s, median of %lu runs, %lu warm, interleaved, a "
               "process each)\n", ver, runs, WARM_RUNS_FACTOR * runs);
    for (int i = 0; i < 2; i++) {
        fprintf(f, "%s: ", tu[i].name);
        if (tu[i].skip != NULL && tu[i].np == 0) {
            fprintf(f, "%s\n", tu[i].skip);
            continue;
        }
        fprintf(f, "%s now, %s from %s\n", cli_thr_str(tu[i].now, s1, sizeof(s1)),
                cli_thr_str(tu[i].set, s2, sizeof(s2)), tu[i].from);
        for (size_t j = tu[i].first; j < tu[i].first + tu[i].np; j++)
            fprintf(f, "memset at %s %s: %.1f GB/s now, %.1f under the setting (%+.0f%%, "
                       "noise ±%.0f%%)\n", cli_fmt_size(pt[j].size, s1, sizeof(s1)),
                    cli_cache_name((enum cli_cache)pt[j].state), pt[j].now, pt[j].set,
                    100 * (pt[j].ratio - 1), 100 * pt[j].se);
        fprintf(f, "%s\n", tu[i].ok ? "gains: suggested"
                                    : "no gain beyond the noise, or a larger loss elsewhere: "
                                      "not suggested");
    }
}

void cli_tune_glibc(FILE *rep, struct cli_records *rs, enum cli_format fmt,
                    const struct pc_tuning *chosen, int quick, unsigned long runs)
{
    /* --json/--csv own stdout: the verdict goes to stderr, as tune's last
     * words do there */
    FILE *say = fmt == CLI_FMT_DEFAULT ? rep : stderr;
    const char *lead = fmt == CLI_FMT_DEFAULT ? "" : "pageclear: tune: ";
    const char *why = not_applicable(), *ver = cli_glibc_version();
    if (why != NULL) {
        fprintf(say, "%sglibc tunables: none (%s)\n", lead, why);
        return;
    }
    struct tunable tu[2];
    struct cli_gt_point pt[MAX_POINTS];
    plan_values(tu, chosen, ver);
    size_t n = plan_points(tu, quick, pt);
    unsigned long r = quick ? RUNS_QUICK : RUNS_FULL;
    if (runs > 0 && runs < r)
        r = runs;
    const char *user = getenv("GLIBC_TUNABLES");
    char setting[2048], best[2048];
    if (cli_glibc_tunables(setting, sizeof(setting), user, tu[0].np ? tu[0].set : 0,
                           tu[1].np ? tu[1].set : 0) < 0) {
        fprintf(say, "%sglibc tunables: none (GLIBC_TUNABLES is too long to add to)\n", lead);
        return;
    }
    if (n > 0 && remeasure(setting, pt, n, r, rs) != 0)
        n = 0, tu[0].np = tu[1].np = 0;
    for (int i = 0; i < 2; i++)
        tu[i].ok = tu[i].np > 0 && cli_glibc_verdict(&pt[tu[i].first], tu[i].np);
    if (fmt == CLI_FMT_DEFAULT)
        report(rep, tu, pt, ver, r);
    if (!tu[0].ok && !tu[1].ok) {
        fprintf(say, "%sglibc tunables: none (%s)\n", lead,
                n == 0 ? "nothing to change that tune measured"
                       : "the re-measurement shows no gain under the setting");
        return;
    }
    cli_glibc_tunables(best, sizeof(best), user, tu[0].ok ? tu[0].set : 0,
                       tu[1].ok ? tu[1].set : 0);
    fprintf(say, "%sglibc tunables: GLIBC_TUNABLES=%s\n", lead, best);
}
