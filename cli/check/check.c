/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * check.c - `pageclear check`: does the selection in force pick the best
 * primitive on this machine? pc_clear, pc_clear_batched and pc_clear_cold
 * against every primitive the host runs and the C library's memset, from
 * 4 KiB to 1 GiB (4 GiB where memory allows), in the three cache states,
 * interleaved. Each library function is judged in the states its contract
 * serves: pc_clear and pc_clear_batched in `use` (the caller is about to
 * touch the memory) and `warm`, pc_clear_cold in `cold`. The verdict is
 * `ok` within the tolerance of the fastest primitive, else `short`, naming
 * the faster primitive and the profile line that would make the selection
 * pick it. Exit 0 whenever it ran: a short verdict is a finding, not a
 * failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "check_advice.h"
#include "commands.h"
#include "contract.h"
#include "durations.h"
#include "grid.h"
#include "libc.h"
#include "measure.h"
#include "output.h"
#include "target.h"
#include "units.h"

/* Each run clears at least this much: ~2-10 ms at 15-60 GB/s, long enough
 * for the clock, short enough for 14 functions x 3 states x 11 sizes. */
#define BYTES_PER_RUN (128 * MIB)
#define DEFAULT_RUNS 7

enum role { ROLE_CLEAR, ROLE_BATCHED, ROLE_COLD, ROLE_OTHER };

/* The contract a library function is judged by (not ROLE_OTHER). */
static enum cli_contract contract_of(enum role r)
{
    return r == ROLE_COLD ? CLI_CONTRACT_COLD : CLI_CONTRACT_CLEAR;
}

struct check {
    struct cli_fn fns[CLI_MAX_FNS];
    enum role role[CLI_MAX_FNS];
    size_t nfn;
    size_t sizes[CLI_GRID_MAX_SIZES];
    size_t nsize;
    unsigned long runs;
    enum cli_format fmt;
    int quick;
};

void cli_check_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear check [--quick] [-n RUNS] [--json|--csv]\n"
            "  pc_clear, pc_clear_batched and pc_clear_cold against every primitive\n"
            "  and the C library's memset, 4KiB..1GiB (4GiB where memory allows),\n"
            "  in the cache states warm, cold and use; a verdict per size and state:\n"
            "  %s on %s\n"
            "  --quick     5 sizes up to 256MiB, 3 runs (a check that it works)\n"
            "  -n RUNS     interleaved runs per measurement (default %d)\n",
            CLI_CHECK_TIME, CLI_TIME_MACHINE, DEFAULT_RUNS);
}

/* "profile: KEY = SIZE", the line that sets threshold i to v (the
 * library's parser takes the KiB/MiB/GiB sizes print in). */
static void profile_line(enum pc_threshold i, size_t v, char *out, size_t n)
{
    struct pc_threshold_info ti;
    char a[32];
    pc_threshold_info(i, &ti);
    snprintf(out, n, "profile: %s = %s", ti.key, cli_fmt_size(v, a, sizeof(a)));
}

/* Which profile line would make the function in `role` run `faster` at
 * size s (or why none would); 1 if it wrote a profile line. The selection
 * is read from the library, not re-derived: what it runs now at s, what it
 * streams with, and what its cache-allocating plan runs at s. */
static int fix_line(enum role role, size_t s, const char *faster, char *out, size_t n)
{
    const char *now = role == ROLE_COLD ? pc_selected_cold(s) : pc_selected(s);
    /* the streaming threshold that governs this function alone */
    enum pc_threshold nt = role == ROLE_COLD ? PC_THRESHOLD_COLD_NT : PC_THRESHOLD_NT;
    struct cli_roles roles; /* what the selection streams with, and more */
    cli_roles(&roles);
    int fc = cli_impl_cache(faster), nc = cli_impl_cache(now);
    struct pc_host h;
    pc_host_get(&h);
    int x86 = strstr(h.features, "x86-64") != NULL; /* vector_max is x86's */
    if (strcmp(faster, now) == 0) {
        snprintf(out, n, "it runs %s itself: the gap is call overhead or noise", now);
    } else if (fc == PC_CACHE_NONTEMPORAL && nc != PC_CACHE_NONTEMPORAL) {
        if (strcmp(faster, roles.stream) == 0)
            return profile_line(nt, s, out, n), 1;
        snprintf(out, n, "no profile line: the selection streams with %s", roles.stream);
    } else if (fc != PC_CACHE_NONTEMPORAL && nc == PC_CACHE_NONTEMPORAL) {
        if (strcmp(faster, pc_selected_temporal(s)) == 0)
            return profile_line(nt, 2 * s, out, n), 1;
        snprintf(out, n, "no profile line: below its threshold it runs %s",
                 pc_selected_temporal(s));
    } else if (!x86) {
        /* elsewhere the small-extent boundary is the dc zva block, not a
         * tunable */
        snprintf(out, n, "no profile line: the selection's boundary here is not tunable");
    } else if (role != ROLE_COLD && strcmp(faster, roles.vector) == 0 &&
               strcmp(now, roles.vector) != 0) {
        /* the small-extent (vector) choice, above vector_max */
        return profile_line(PC_THRESHOLD_VECTOR_MAX, 2 * s, out, n), 1;
    } else if (role != ROLE_COLD && strcmp(now, roles.vector) == 0 &&
               strcmp(faster, roles.string) == 0) {
        return profile_line(PC_THRESHOLD_VECTOR_MAX, s, out, n), 1;
    } else {
        snprintf(out, n, "no profile line: the selection does not use %s here", faster);
    }
    return 0;
}

/* " (at this size: warm -35%, cold +12%)": what the change does in every
 * other measured state. */
static void advice_costs(const struct cli_advice_in *in, const struct cli_advice *a, char *out,
                         size_t n)
{
    size_t k = 0;
    out[0] = '\0';
    for (int c = 0; c < CLI_NCACHE && k < n; c++) {
        if (c == (int)in->state || in->ratio[c] <= 0)
            continue;
        int w = snprintf(out + k, n - k, "%s%s %+.0f%%", k == 0 ? " (at this size: " : ", ",
                         cli_cache_name((enum cli_cache)c), -100 * a->cost[c]);
        if (w < 0)
            return;
        k += (size_t)w;
    }
    if (k > 0 && k < n)
        snprintf(out + k, n - k, ")");
}

/* A profile line in fix (for function fi, short in state cs against
 * primitive bi at size index si) weighed against what the same change
 * does in the other states of this run (check_advice.c): kept with its
 * cost there, or withdrawn when it trades a small gain here for a larger
 * loss elsewhere. */
static void weigh_fix(const struct check *c, const struct cli_grid *g, size_t si,
                      enum cli_cache cs, size_t fi, size_t bi, char *fix, size_t n)
{
    struct cli_advice_in in = {.state = cs};
    for (int k = 0; k < CLI_NCACHE; k++) {
        if (!(g->states & (1u << k)))
            continue;
        in.ratio[k] = cli_grid_ratio(g, si, (enum cli_cache)k, bi, fi);
        in.tol[k] = cli_contract_tol(contract_of(c->role[fi]), (enum cli_cache)k);
    }
    struct cli_advice a;
    char costs[96];
    cli_advice_weigh(&in, &a);
    advice_costs(&in, &a, costs, sizeof(costs));
    size_t len = strlen(fix);
    if (a.offer || a.worst < 0) {
        snprintf(fix + len, n - len, "%s", costs);
        return;
    }
    snprintf(fix, n, "no profile line: %s would be %.0f%% slower in %s for %.0f%% faster here%s",
             c->fns[bi].name, 100 * a.cost[a.worst], cli_cache_name((enum cli_cache)a.worst),
             100 * (in.ratio[cs] - 1), costs);
}

static int parse(int argc, char **argv, struct check *c)
{
    c->runs = DEFAULT_RUNS;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (cli_parse_format(argv[i], &c->fmt))
            continue;
        if (strcmp(argv[i], "--quick") == 0) {
            c->quick = 1;
            continue;
        }
        static const struct cli_opt spec[] = {{'n', "--runs"}, {0, NULL}};
        if (cli_opt_value(spec, "check", argc, argv, &i, &v) < 0)
            return cli_check_usage(stderr), -1;
        if (cli_uint("-n", v, 1, 200, &c->runs) != 0)
            return -1;
    }
    return 0;
}

static void sizes(struct check *c)
{
    size_t avail = cli_mem_available();
    if (c->quick) {
        const size_t q[] = {4 * KIB, 64 * KIB, 1 * MIB, 16 * MIB, 256 * MIB};
        for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
            c->sizes[c->nsize++] = q[i];
        if (c->runs > 3)
            c->runs = 3;
        return;
    }
    /* 4 KiB .. 1 GiB by fours; 4 GiB where 10 GiB are free (the region and
     * everyone else on the machine both need room). */
    for (size_t s = 4 * KIB; s <= GIB; s *= 4)
        c->sizes[c->nsize++] = s;
    if (avail >= 10 * GIB)
        c->sizes[c->nsize++] = 4 * GIB;
}

static void header(const struct check *c)
{
    struct pc_host h;
    char tun[2048];
    pc_host_get(&h);
    printf("# pageclear check: pc_clear, pc_clear_batched, pc_clear_cold against every "
           "primitive and the C library's memset\n");
    printf("# %s on %s family %u model %u stepping %u (%s)%s\n", pc_version(), h.vendor,
           h.family, h.model, h.stepping, h.features, h.hypervisor ? ", under a hypervisor" : "");
    if (*h.profile != '\0') {
        printf("# profile: %s%s%s\n", h.profile, *h.profile_status ? ": " : "",
               h.profile_status);
    } else { /* the status says "none found" or "none: <why>" */
        const char *why = h.profile_status;
        why = strcmp(why, "none found") == 0 ? "none found; 'pageclear tune' writes one"
              : strncmp(why, "none: ", 6) == 0 ? why + 6
                                               : why;
        printf("# profile: no profile, the built-in thresholds (%s)\n", why);
    }
    printf("# memset: %s", cli_libc_version());
    if (cli_libc_tunables(tun, sizeof(tun)) > 0) {
        printf("; its tunables (ld.so --list-tunables):\n");
        for (char *l = strtok(tun, "\n"); l != NULL; l = strtok(NULL, "\n"))
            printf("#   %s\n", l);
    } else {
        printf(" (no tunables listed)\n");
    }
    printf("# GB/s (10^9 B/s), median of %lu interleaved runs. Verdicts: pc_clear and "
           "pc_clear_batched in use (within %.0f%%) and warm (within %.0f%%), pc_clear_cold "
           "in cold (within %.0f%%) of every primitive, each compared run by run (the "
           "median of the ratios within each round, which cancels the machine's drift).\n",
           c->runs, 100 * cli_contract_tol(CLI_CONTRACT_CLEAR, CLI_CACHE_USE),
           100 * cli_contract_tol(CLI_CONTRACT_CLEAR, CLI_CACHE_WARM),
           100 * cli_contract_tol(CLI_CONTRACT_COLD, CLI_CACHE_COLD));
}

/* Verdict for function fi at size si in state cs, or NULL if the state is
 * not its contract's. Counts shorts in shorts[0], those a profile line
 * would fix in shorts[1]. */
static const char *verdict(const struct check *c, const struct cli_grid *g, size_t si,
                           enum cli_cache cs, size_t fi, char *buf, size_t n, int *shorts)
{
    enum role r = c->role[fi];
    if (r == ROLE_OTHER)
        return NULL;
    double tol = cli_contract_tol(contract_of(r), cs);
    if (tol <= 0) /* not a state its contract weighs */
        return NULL;
    /* The strongest competitor by paired ratio: the median over rounds of
     * this function's figure over the primitive's in the same round. */
    size_t best = SIZE_MAX;
    double ratio = 0;
    for (size_t f = 0; f < c->nfn; f++) {
        if (c->fns[f].kind < 0)
            continue;
        double q = cli_grid_ratio(g, si, cs, fi, f);
        if (best == SIZE_MAX || q < ratio) {
            best = f;
            ratio = q;
        }
    }
    if (best == SIZE_MAX)
        return NULL;
    double gap = 1 - ratio;
    if (gap <= tol) {
        snprintf(buf, n, "ok (%+.0f%%)", -100 * gap);
        return buf;
    }
    char fix[256];
    if (fix_line(r, c->sizes[si], c->fns[best].name, fix, sizeof(fix)))
        weigh_fix(c, g, si, cs, fi, best, fix, sizeof(fix));
    snprintf(buf, n, "short: %s is %.0f%% faster; %s", c->fns[best].name,
             100 * (1 / ratio - 1), fix);
    shorts[0]++;
    shorts[1] += strncmp(fix, "profile: ", 9) == 0;
    return buf;
}

static void table(const struct check *c, const struct cli_grid *g, enum cli_cache cs,
                  struct cli_records *rs, int *shorts)
{
    char a[32], vb[CLI_MAX_FNS][320];
    if (c->fmt == CLI_FMT_DEFAULT) {
        printf("\n## %s: %s\n", cli_cache_name(cs), cli_cache_what(cs));
        printf("%-7s %-26s %8s %8s %8s %8s  %-26s %s\n", "size", "pc_clear uses", "pc_clear",
               "batched", "cold", "memset", "fastest primitive", "verdict");
    }
    for (size_t si = 0; si < c->nsize; si++) {
        size_t s = c->sizes[si];
        size_t best = SIZE_MAX;
        const char *vd[CLI_MAX_FNS] = {0};
        for (size_t f = 0; f < c->nfn; f++) {
            if (c->fns[f].kind >= 0 &&
                (best == SIZE_MAX || cli_grid_at(g, si, cs, f)->median >
                                         cli_grid_at(g, si, cs, best)->median))
                best = f;
            vd[f] = verdict(c, g, si, cs, f, vb[f], sizeof(vb[f]), shorts);
            struct cli_record r = {"check", c->fns[f].name, "4KB", s, 0, g->loops[si], 1,
                                   "GB/s", *cli_grid_at(g, si, cs, f), NULL,
                                   cli_cache_name(cs), "zero", vd[f]};
            cli_records_add(rs, &r);
        }
        if (c->fmt != CLI_FMT_DEFAULT)
            continue;
        double m[4] = {0};
        for (size_t f = 0; f < c->nfn; f++) {
            int col = c->role[f] == ROLE_CLEAR     ? 0
                      : c->role[f] == ROLE_BATCHED ? 1
                      : c->role[f] == ROLE_COLD    ? 2
                      : c->fns[f].kind == CLI_FN_GLIBC ? 3 : -1;
            if (col >= 0)
                m[col] = cli_grid_at(g, si, cs, f)->median;
        }
        char fastest[64];
        snprintf(fastest, sizeof(fastest), "%s %.2f",
                 best == SIZE_MAX ? "-" : c->fns[best].name,
                 best == SIZE_MAX ? 0 : cli_grid_at(g, si, cs, best)->median);
        printf("%-7s %-26s %8.2f %8.2f %8.2f %8.2f  %-26s", cli_fmt_size(s, a, sizeof(a)),
               cs == CLI_CACHE_COLD ? pc_selected_cold(s) : pc_selected(s), m[0], m[1], m[2],
               m[3], fastest);
        int first = 1;
        for (size_t f = 0; f < c->nfn; f++)
            if (vd[f] != NULL) {
                printf("%s%s %s", first ? " " : "; ", c->role[f] == ROLE_BATCHED ? "batched"
                                                      : c->role[f] == ROLE_COLD  ? "cold"
                                                                                 : "pc_clear",
                       vd[f]);
                first = 0;
            }
        printf("\n");
    }
}

/* The last line: a pointer to profile lines only if some were printed. */
static void summary(const int shorts[2])
{
    printf("\n%d short verdict%s: ", shorts[0], shorts[0] == 1 ? "" : "s");
    if (shorts[0] == 0)
        printf("the selection in force is within tolerance everywhere\n");
    else if (shorts[1] > 0)
        printf("%d with the profile line that would fix it above; 'pageclear tune' "
               "measures every threshold\n", shorts[1]);
    else
        printf("no profile line would fix them (each verdict says why)\n");
}

int cli_check(int argc, char **argv)
{
    struct check c = {0};
    int rc = parse(argc, argv, &c);
    if (rc != 0)
        return CLI_EXIT_USAGE;
    sizes(&c);
    c.nfn = cli_fn_list(c.fns, CLI_MAX_FNS, CLI_FNS_ALL);
    for (size_t f = 0; f < c.nfn; f++)
        c.role[f] = c.fns[f].kind == CLI_FN_PC_CLEAR     ? ROLE_CLEAR
                    : c.fns[f].kind == CLI_FN_PC_BATCHED ? ROLE_BATCHED
                    : c.fns[f].kind == CLI_FN_PC_COLD    ? ROLE_COLD
                                                         : ROLE_OTHER;
    struct cli_grid g = {.fns = c.fns, .nfn = c.nfn, .sizes = c.sizes, .nsize = c.nsize,
                         .states = 7, .runs = c.runs, .bytes_per_run = BYTES_PER_RUN};
    if (c.fmt == CLI_FMT_DEFAULT)
        header(&c);
    if (cli_grid_run(&g, "check") != 0)
        return CLI_EXIT_RUNTIME;
    static struct cli_records rs;
    int shorts[2] = {0, 0};
    const enum cli_cache order[] = {CLI_CACHE_USE, CLI_CACHE_COLD, CLI_CACHE_WARM};
    for (size_t i = 0; i < 3; i++)
        table(&c, &g, order[i], &rs, shorts);
    if (c.fmt == CLI_FMT_DEFAULT)
        summary(shorts);
    else
        cli_records_print(stdout, c.fmt, &rs);
    cli_grid_free(&g);
    return 0;
}
