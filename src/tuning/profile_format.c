/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * profile_format.c - writing a profile for this host (pc_profile_format):
 * the identity lines, then one line per threshold, in the format profile.c
 * describes and parses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pageclear.h"
#include "abi.h"
#include "cpu.h"
#include "profile.h"
#include "tuning.h"

/* Output as snprintf does it: len counts everything, buf gets what fits,
 * always NUL-terminated when size > 0. */
struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->size > 0 && o->len < o->size - 1) {
        size_t room = o->size - 1 - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
    if (o->size > 0)
        o->buf[o->len < o->size - 1 ? o->len : o->size - 1] = '\0';
}

static void putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct out *o, const char *fmt, ...)
{
    char line[PCI_PROFILE_LINE_MAX + 2];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n > 0)
        put(o, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

const char *pci_size_text(size_t v, char *out, size_t size)
{
    static const struct { unsigned shift; char suffix; } units[] = {
        {40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
    if (v == PC_NEVER) {
        snprintf(out, size, "never");
        return out;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t unit = (size_t)1 << units[i].shift;
        if (v != 0 && v % unit == 0) {
            snprintf(out, size, "%zu%c", v / unit, units[i].suffix);
            return out;
        }
    }
    snprintf(out, size, "%zu", v);
    return out;
}

/* The comment, each line prefixed "# ", lines longer than the parser takes
 * wrapped (between UTF-8 characters where the text allows). */
static void put_comment(struct out *o, const char *c)
{
    const size_t max = PCI_PROFILE_LINE_MAX - 2;
    while (*c != '\0') {
        size_t n = strcspn(c, "\n");
        const char *end = c + n;
        do {
            size_t chunk = (size_t)(end - c) < max ? (size_t)(end - c) : max;
            /* Do not cut inside a UTF-8 character: back off continuation
             * bytes, unless nothing would be left. */
            size_t cut = chunk;
            while (cut > 0 && c + cut < end && ((unsigned char)c[cut] & 0xc0) == 0x80)
                cut--;
            if (cut == 0)
                cut = chunk;
            put(o, chunk ? "# " : "#", chunk ? 2 : 1);
            put(o, c, cut);
            put(o, "\n", 1);
            c += cut;
        } while (c < end);
        c = *end ? end + 1 : end;
    }
}

int (pc_profile_format)(const struct pc_tuning *t, size_t tsize, const char *comment,
                        char *buf, size_t size)
{
    if (t == NULL || (buf == NULL && size > 0))
        return -EINVAL;
    /* Thresholds past the caller's struct are the built-in defaults. */
    struct pci_tuning v;
    struct pc_tuning in;
    memset(&in, 0, sizeof(in));
    pci_tuning_defaults(pci_cpu(), pci_libc(), &v);
    pci_tuning_to_public(&v, &in);
    int rc = PCI_ABI_IN(pc_tuning, &in, t, tsize);
    if (rc != 0)
        return rc;
    pci_tuning_from_public(&in, &v);
    for (int i = 0; i < PC_NTHRESHOLDS; i++)
        if (!pci_threshold_accepts(i, v.v[i]))
            return -ERANGE;

    struct pci_ident h;
    struct out o = {buf, size, 0};
    char a[32];
    pci_profile_ident(&h);
    if (comment != NULL)
        put_comment(&o, comment);
    putf(&o, "%s = %u\n", pci_profile_key(PCI_K_FORMAT), PCI_PROFILE_FORMAT);
    putf(&o, "%s = %s\n", pci_profile_key(PCI_K_LIBRARY), pc_version());
    putf(&o, "%s = %s\n", pci_profile_key(PCI_K_VENDOR), h.vendor);
    putf(&o, "%s = %u.%u.%u\n", pci_profile_key(PCI_K_CPU), h.cpu[0], h.cpu[1], h.cpu[2]);
    putf(&o, "%s = %s\n", pci_profile_key(PCI_K_FEATURES), *h.features ? h.features : "none");
    putf(&o, "%s = %s\n", pci_profile_key(PCI_K_LLC), pci_size_text(h.llc, a, sizeof(a)));
    putf(&o, "%s = %d\n", pci_profile_key(PCI_K_HYPERVISOR), h.hypervisor);
    for (int i = 0; i < PC_NTHRESHOLDS; i++)
        putf(&o, "%s = %s\n", pci_thresholds[i].key, pci_size_text(v.v[i], a, sizeof(a)));
    /* The loader would refuse a larger file: do not write one. */
    if (o.len > PCI_PROFILE_FILE_MAX)
        return -ERANGE;
    return (int)o.len;
}
