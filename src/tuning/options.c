/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * options.c - PAGECLEAR_* environment tunables, read once on first use.
 * A bad value prints one line on stderr and keeps the default.
 *   PAGECLEAR_IMPL          force a primitive by name (see impl.def)
 *   PAGECLEAR_UNIT          batching unit, e.g. 32M
 *   PAGECLEAR_QUIET         set to 1 to silence these warnings
 * and one variable per threshold, named with its smallest value and
 * whether it takes "never" in thresholds.def. Each threshold set here
 * overrides the same key of the profile (profile_load.c), which overrides the
 * built-in default (defaults.c).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"
#include "cpu.h"
#include "impl.h"
#include "options.h"
#include "tuning.h"

static struct pci_options opts = {.forced = -1};
static pthread_once_t opts_once = PTHREAD_ONCE_INIT;

int pc_parse_size(const char *s, size_t *out)
{
    if (s == NULL || out == NULL)
        return -EINVAL;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s)) /* also rejects "", "-1", "+1" */
        return -EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -ERANGE;

    static const struct { const char *suffix; unsigned shift; } units[] = {
        {"", 0},    {"b", 0},    {"k", 10},   {"kb", 10},  {"kib", 10},
        {"m", 20},  {"mb", 20},  {"mib", 20}, {"g", 30},   {"gb", 30},
        {"gib", 30}, {"t", 40},  {"tb", 40},  {"tib", 40},
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcasecmp(end, units[i].suffix) != 0)
            continue;
        unsigned shift = units[i].shift;
        if (shift && v > (unsigned long long)(SIZE_MAX >> shift))
            return -ERANGE;
        if (v >= SIZE_MAX) /* SIZE_MAX is PC_NEVER, which no size spells */
            return -ERANGE;
        *out = (size_t)v << shift;
        return 0;
    }
    return -EINVAL;
}

int pci_quiet(void)
{
    const char *q = getenv("PAGECLEAR_QUIET");
    return q != NULL && strcmp(q, "1") == 0;
}

/* Read var, a size of at least min (or "never", PC_NEVER, if never_ok),
 * into *dst. Returns 1 if it is set and valid; a bad value is reported and
 * ignored. */
static int read_size(const char *var, size_t min, int never_ok, size_t *dst)
{
    const char *s = getenv(var);
    size_t v;
    if (s == NULL)
        return 0;
    if (never_ok && strcasecmp(s, "never") == 0) {
        v = PC_NEVER;
    } else if (pc_parse_size(s, &v) != 0 || v < min) {
        if (!pci_quiet())
            fprintf(stderr,
                    "pageclear: ignoring %s=\"%s\": want a size >= %zu "
                    "(suffix K, M, G or T)%s; keeping the default\n",
                    var, s, min, never_ok ? " or never" : "");
        return 0;
    }
    *dst = v;
    return 1;
}

static void read_impl(void)
{
    const char *s = getenv("PAGECLEAR_IMPL");
    if (s == NULL || *s == '\0')
        return;
    int id = pc_impl_find(s);
    if (id < 0) {
        if (!pci_quiet()) {
            fprintf(stderr, "pageclear: ignoring PAGECLEAR_IMPL=\"%s\": no such "
                            "primitive (one of:", s);
            for (int i = 0; i < PCI_NIMPL; i++)
                fprintf(stderr, " %s", pci_impls[i].name);
            fprintf(stderr, "); keeping the default selection\n");
        }
        return;
    }
    if (!pci_impl_runnable(pci_cpu(), id)) {
        if (!pci_quiet())
            fprintf(stderr,
                    "pageclear: ignoring PAGECLEAR_IMPL=\"%s\": this CPU or OS "
                    "cannot run it (needs arch %s%s%s); keeping the default "
                    "selection\n",
                    s, pci_impls[id].arch, *pci_impls[id].features ? ", " : "",
                    pci_impls[id].features);
        return;
    }
    opts.forced = id;
}

static void parse(void)
{
    read_impl();
    read_size("PAGECLEAR_UNIT", 1, 0, &opts.unit);
    for (int i = 0; i < PC_NTHRESHOLDS; i++) {
        const struct pci_threshold *r = &pci_thresholds[i];
        if (read_size(r->env, r->env_min, r->never, &opts.t.v[i]))
            opts.t.set |= 1u << i;
    }
}

const struct pci_options *pci_options(void)
{
    pthread_once(&opts_once, parse);
    return &opts;
}
