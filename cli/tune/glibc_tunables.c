/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * glibc_tunables.c - the GLIBC_TUNABLES string `pageclear tune` suggests
 * and the rule that keeps it only where a re-measurement gains. Pure
 * functions: tests/unit/test_glibc_tunables.c feeds them versions, loader
 * listings, a user's own GLIBC_TUNABLES and synthetic measurements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glibc_tunables.h"

int cli_glibc_listed(const char *list, const char *name, size_t *v)
{
    size_t len = strlen(name);
    for (const char *p = list; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, name, len) != 0 || p[len] != ':')
            continue;
        char *end;
        unsigned long long x = strtoull(p + len + 1, &end, 0);
        if (end == p + len + 1)
            return -1;
        *v = (size_t)x;
        return 0;
    }
    return -1;
}

/* Whether entry [e, e + len) ("name=value") sets a tunable set here (a
 * non-zero value in set[]). */
static int ours(const char *e, size_t len, const size_t set[2])
{
    static const char *const names[] = {PCI_GLIBC_STOSB_TUNABLE, PCI_GLIBC_MEMSET_NT_TUNABLE};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (set[i] != 0 && pci_glibc_entry_sets(e, len, names[i]))
            return 1;
    return 0;
}

int cli_glibc_tunables(char *buf, size_t n, const char *existing, size_t stosb,
                       size_t memset_nt)
{
    size_t used = 0, set[2] = {stosb, memset_nt};
    int w;
    if (n == 0)
        return -1;
    *buf = '\0';
    /* The user's entries in their order, but those of a tunable set here:
     * one value per tunable, ours, whatever glibc does with duplicates. */
    for (const char *e = existing; e != NULL && *e;) {
        size_t len = strcspn(e, ":");
        if (len > 0 && !ours(e, len, set)) {
            w = snprintf(buf + used, n - used, "%s%.*s", used ? ":" : "", (int)len, e);
            if (w < 0 || (size_t)w >= n - used)
                return -1;
            used += (size_t)w;
        }
        e += len;
        if (*e == ':')
            e++;
    }
    if (stosb != 0) {
        w = snprintf(buf + used, n - used, "%s%s=%zu", used ? ":" : "", PCI_GLIBC_STOSB_TUNABLE,
                     stosb);
        if (w < 0 || (size_t)w >= n - used)
            return -1;
        used += (size_t)w;
    }
    if (memset_nt != 0) {
        w = snprintf(buf + used, n - used, "%s%s=%zu", used ? ":" : "",
                     PCI_GLIBC_MEMSET_NT_TUNABLE, memset_nt);
        if (w < 0 || (size_t)w >= n - used)
            return -1;
        used += (size_t)w;
    }
    return (int)used;
}

int cli_glibc_verdict(const struct cli_gt_point *p, size_t n)
{
    double worst_now = 0, worst_set = 0;
    int gains = 0;
    for (size_t i = 0; i < n; i++) {
        double r = p[i].ratio, tol = p[i].tol > 0 ? p[i].tol : 1;
        if (r <= 0)
            return 0; /* a failed measurement proves nothing */
        if (r - 1 > p[i].se)
            gains = 1;
        double loss_set = r < 1 ? (1 - r) / tol : 0;     /* behind memset now */
        double loss_now = r > 1 ? (1 - 1 / r) / tol : 0; /* behind the setting */
        if (loss_set > worst_set)
            worst_set = loss_set;
        if (loss_now > worst_now)
            worst_now = loss_now;
    }
    return gains && worst_set < worst_now;
}
