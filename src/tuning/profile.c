/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * profile.c - per-host profiles: the thresholds `pageclear tune` measured,
 * in a text file headed by what identifies the CPU and the library.
 *
 * Format (format = 1), one `key = value` per line; `#` starts a comment
 * that runs to the end of the line; blank lines are allowed; whitespace
 * around keys and values is ignored. Keys:
 *   format      1, this file's format version             (required)
 *   library     MAJOR.MINOR.PATCH of the library that wrote it; the same
 *               MAJOR is required: within a major version a threshold
 *               keeps its meaning (a new key or meaning is a new format
 *               or a new major)                          (required)
 *   vendor      cpuid vendor, e.g. AuthenticAMD; arm64    (required)
 *   cpu         FAMILY.MODEL.STEPPING, decimal; 0.0.0 off x86-64 (required)
 *   features    the features the selection uses, as pc_host.features
 *               (compared as a set; "none" for none)      (required)
 *   llc         last-level cache size, as pc_host.llc_size (required)
 *   hypervisor  0 or 1                                    (required)
 *   then one key per threshold (thresholds.def: vector_max, nt_threshold,
 *               cold_nt_threshold, parallel_nt_threshold, ...): sizes (K/M/G/T
 *               suffixes, powers of 1024) in the threshold's range, or
 *               `never` where it takes that. Optional: a missing one keeps
 *               the built-in default.
 * The parser reads only text[0, len), copies each line into a bounded
 * buffer first and answers every input with 0 or one documented errno.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pageclear.h"
#include "abi.h"
#include "cpu.h"
#include "keyval.h"
#include "profile.h"
#include "tuning.h"

static const char *const identity_keys[PCI_NIDENTITY] = {
    "format", "library", "vendor", "cpu", "features", "llc", "hypervisor",
};

const char *pci_profile_key(int k)
{
    return k < PCI_NIDENTITY ? identity_keys[k] : pci_thresholds[k - PCI_NIDENTITY].key;
}

/* The vendor as a profile value: printable ASCII other than '#', the rest
 * '_', surrounding spaces dropped (the parser ignores them), so that what
 * format writes, parse reads back equal. */
static void vendor_value(const char *in, char *out, size_t size)
{
    size_t n = 0;
    while (*in == ' ')
        in++;
    for (; *in != '\0' && n + 1 < size; in++)
        out[n++] = (*in > ' ' && *in < 0x7f && *in != '#') || *in == ' ' ? *in : '_';
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

void pci_profile_ident(struct pci_ident *id)
{
    const struct pci_cpu *c = pci_cpu();
    vendor_value(c->vendor_name, id->vendor, sizeof(id->vendor));
    id->cpu[0] = c->family;
    id->cpu[1] = c->model;
    id->cpu[2] = c->stepping;
    pci_feature_names(c->features, id->features, sizeof(id->features));
    id->llc = c->llc_size;
    id->hypervisor = c->hypervisor != 0;
}

/* What threshold i accepts, as messages say it, e.g. "a size from 4K to
 * 1T, or never". */
static const char *range_words(int i, char *out, size_t size)
{
    const struct pci_threshold *r = &pci_thresholds[i];
    char lo[32], hi[32];
    snprintf(out, size, "a size from %s to %s%s", pci_size_text(r->min, lo, sizeof(lo)),
             pci_size_text(r->max, hi, sizeof(hi)), r->never ? ", or never" : "");
    return out;
}

/* ---- parsing ------------------------------------------------------------ */

struct parse {
    char *why;
    size_t whylen;
    size_t lineno;
    size_t line_of[PCI_NKEYS]; /* 0: not given */
    unsigned format, lib[3], cpu[3];
    int hypervisor;
    size_t llc;
    struct pci_tuning thr; /* the thresholds given, thr.set saying which */
    char vendor[PCI_PROFILE_LINE_MAX + 1];
    char features[PCI_PROFILE_LINE_MAX + 1];
};

static int fail(struct parse *p, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parse *p, int rc, const char *fmt, ...)
{
    if (p->why != NULL && p->whylen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->why, p->whylen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* "A.B.C", three decimal numbers of at most max. */
static int parse_triple(const char *s, unsigned max, unsigned out[3])
{
    char part[3][16];
    for (int i = 0; i < 3; i++) {
        size_t n = strcspn(s, ".");
        if (n >= sizeof(part[i]) || (i < 2) != (s[n] == '.'))
            return -1;
        memcpy(part[i], s, n);
        part[i][n] = '\0';
        if (pci_kv_uint(part[i], 0, max, &out[i]) != 0)
            return -1;
        s += n + (i < 2);
    }
    return 0;
}

/* The library's own version, as numbers. */
static void own_version(unsigned v[3])
{
    v[0] = PC_VERSION_MAJOR;
    v[1] = PC_VERSION_MINOR;
    v[2] = PC_VERSION_PATCH;
}

/* First pass: a profile of another format or major version is refused
 * as that (-EPROTO) before any key it may have and this one lacks. A
 * profile of another minor or patch level of the same major is read: the
 * thresholds keep their meaning within a major version. Only
 * the first well-formed format and library lines count here; the second
 * pass reports anything malformed. */
static int check_versions(struct parse *p, const char *text, size_t len)
{
    char buf[PCI_PROFILE_LINE_MAX + 1], *line, *key, *val;
    size_t pos = 0, lineno = 0;
    int seen_format = 0, seen_library = 0, r;
    unsigned v, lib[3], own[3];
    own_version(own);
    while ((r = pci_kv_next_line(text, len, &pos, buf, PCI_PROFILE_LINE_MAX, &line)) != 0) {
        lineno++;
        if (r < 0 || *line == '\0' || pci_kv_split(line, &key, &val) != 0)
            continue;
        if (!seen_format && strcmp(key, "format") == 0 && pci_kv_uint(val, 0, 1000000, &v) == 0) {
            seen_format = 1;
            if (v != PCI_PROFILE_FORMAT)
                return fail(p, -EPROTO, "line %zu: profile format %u; this library reads "
                            "format %u", lineno, v, PCI_PROFILE_FORMAT);
        }
        if (!seen_library && strcmp(key, "library") == 0 &&
            parse_triple(val, 1000000, lib) == 0) {
            seen_library = 1;
            if (lib[0] != own[0])
                return fail(p, -EPROTO, "line %zu: made for library %u.%u.%u; this is "
                            "%s (the major version must match)", lineno, lib[0], lib[1],
                            lib[2], pc_version());
        }
    }
    return 0;
}

/* Threshold i's value into p->thr. */
static int parse_threshold(struct parse *p, int i, const char *val)
{
    size_t v;
    char s[48], w[64];
    if (pci_thresholds[i].never && strcasecmp(val, "never") == 0) {
        v = PC_NEVER;
    } else {
        int rc = pc_parse_size(val, &v);
        if (rc == -ERANGE || (rc == 0 && !pci_threshold_accepts(i, v)))
            return fail(p, -ERANGE, "line %zu: %s = %s is out of range (want %s)",
                        p->lineno, pci_thresholds[i].key, pci_kv_shown(val, s, sizeof(s)),
                        range_words(i, w, sizeof(w)));
        if (rc != 0)
            return fail(p, -EINVAL, "line %zu: %s = %s is not %s", p->lineno,
                        pci_thresholds[i].key, pci_kv_shown(val, s, sizeof(s)),
                        range_words(i, w, sizeof(w)));
    }
    p->thr.v[i] = v;
    p->thr.set |= 1u << i;
    return 0;
}

/* An identity key's value into *p; the identity is compared once all are
 * read. */
static int parse_value(struct parse *p, enum pci_profile_key k, const char *val)
{
    char s[48];
    int rc;
    switch (k) {
    case PCI_K_FORMAT:
        if (pci_kv_uint(val, 0, 1000000, &p->format) != 0)
            break;
        return 0;
    case PCI_K_LIBRARY:
        if (parse_triple(val, 1000000, p->lib) != 0)
            break;
        return 0;
    case PCI_K_VENDOR:
        snprintf(p->vendor, sizeof(p->vendor), "%s", val);
        return 0;
    case PCI_K_CPU:
        if (parse_triple(val, 1000000, p->cpu) != 0)
            break;
        return 0;
    case PCI_K_FEATURES:
        /* "none": a CPU whose selection uses no feature (the portable
         * build); a value cannot be empty. */
        snprintf(p->features, sizeof(p->features), "%s", strcmp(val, "none") == 0 ? "" : val);
        return 0;
    case PCI_K_LLC:
        rc = pc_parse_size(val, &p->llc);
        if (rc == -ERANGE)
            return fail(p, -ERANGE, "line %zu: llc = %s is out of range", p->lineno,
                        pci_kv_shown(val, s, sizeof(s)));
        if (rc != 0)
            break;
        return 0;
    case PCI_K_HYPERVISOR:
        if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
            break;
        p->hypervisor = val[0] == '1';
        return 0;
    }
    static const char *const want[PCI_NIDENTITY] = {
        "a decimal number", "MAJOR.MINOR.PATCH", "", "FAMILY.MODEL.STEPPING",
        "", "a size", "0 or 1",
    };
    return fail(p, -EINVAL, "line %zu: bad %s value '%s' (want %s)", p->lineno,
                identity_keys[k], pci_kv_shown(val, s, sizeof(s)), want[k]);
}

/* Is the word w[0, n) one of the space-separated words of list? */
static int has_word(const char *list, const char *w, size_t n)
{
    for (const char *q = list; *q;) {
        while (pci_kv_blank(*q))
            q++;
        size_t m = 0;
        while (q[m] && !pci_kv_blank(q[m]))
            m++;
        if (m == n && m > 0 && memcmp(q, w, n) == 0)
            return 1;
        q += m;
    }
    return 0;
}

/* The first word of a that b lacks, into out; 0 if there is none. */
static int missing_word(const char *a, const char *b, char *out, size_t size)
{
    for (const char *q = a; *q;) {
        while (pci_kv_blank(*q))
            q++;
        size_t m = 0;
        while (q[m] && !pci_kv_blank(q[m]))
            m++;
        if (m > 0 && !has_word(b, q, m)) {
            char w[PCI_PROFILE_LINE_MAX + 1];
            memcpy(w, q, m);
            w[m] = '\0';
            pci_kv_shown(w, out, size);
            return 1;
        }
        q += m;
    }
    return 0;
}

/* The profile's identity against this host: -ENODEV naming the first
 * difference. */
static int check_identity(struct parse *p)
{
    struct pci_ident h;
    char s[48];
    pci_profile_ident(&h);
    if (strcmp(p->vendor, h.vendor) != 0)
        return fail(p, -ENODEV, "line %zu: made on another CPU: vendor %s, this is %s",
                    p->line_of[PCI_K_VENDOR], pci_kv_shown(p->vendor, s, sizeof(s)), h.vendor);
    if (memcmp(p->cpu, h.cpu, sizeof(h.cpu)) != 0)
        return fail(p, -ENODEV, "line %zu: made on another CPU: cpu %u.%u.%u, this is "
                    "%u.%u.%u", p->line_of[PCI_K_CPU], p->cpu[0], p->cpu[1], p->cpu[2],
                    h.cpu[0], h.cpu[1], h.cpu[2]);
    if (missing_word(p->features, h.features, s, sizeof(s)))
        return fail(p, -ENODEV, "line %zu: made on another CPU: feature %s is not "
                    "here", p->line_of[PCI_K_FEATURES], s);
    if (missing_word(h.features, p->features, s, sizeof(s)))
        return fail(p, -ENODEV, "line %zu: made on another CPU: it lacks feature %s",
                    p->line_of[PCI_K_FEATURES], s);
    if (p->llc != h.llc)
        return fail(p, -ENODEV, "line %zu: made on another CPU: llc %zu bytes, this "
                    "has %zu", p->line_of[PCI_K_LLC], p->llc, h.llc);
    if (p->hypervisor != h.hypervisor)
        return fail(p, -ENODEV, "line %zu: made %s a hypervisor; this runs %s one",
                    p->line_of[PCI_K_HYPERVISOR], p->hypervisor ? "under" : "without",
                    h.hypervisor ? "under" : "without");
    return 0;
}

/* Second pass: every line, each key's value into *p. */
static int parse_lines(struct parse *p, const char *text, size_t len)
{
    char buf[PCI_PROFILE_LINE_MAX + 1], *line, *key, *val, s[48];
    size_t pos = 0;
    int r;
    while ((r = pci_kv_next_line(text, len, &pos, buf, PCI_PROFILE_LINE_MAX, &line)) != 0) {
        p->lineno++;
        if (r == -1)
            return fail(p, -EINVAL, "line %zu: longer than %d bytes", p->lineno,
                        PCI_PROFILE_LINE_MAX);
        if (r == -2)
            return fail(p, -EINVAL, "line %zu: NUL byte", p->lineno);
        if (*line == '\0')
            continue;
        r = pci_kv_split(line, &key, &val);
        if (r == -1)
            return fail(p, -EINVAL, "line %zu: no '=' (want key = value)", p->lineno);
        if (r < -1)
            return fail(p, -EINVAL, "line %zu: malformed key", p->lineno);
        int k = 0;
        while (k < PCI_NKEYS && strcmp(key, pci_profile_key(k)) != 0)
            k++;
        if (k == PCI_NKEYS)
            return fail(p, -EINVAL, "line %zu: unknown key '%s'", p->lineno,
                        pci_kv_shown(key, s, sizeof(s)));
        if (p->line_of[k] != 0)
            return fail(p, -EINVAL, "line %zu: duplicate key '%s' (first on line %zu)",
                        p->lineno, pci_profile_key(k), p->line_of[k]);
        if (*val == '\0')
            return fail(p, -EINVAL, "line %zu: no value for %s", p->lineno, pci_profile_key(k));
        p->line_of[k] = p->lineno;
        if ((r = k < PCI_NIDENTITY ? parse_value(p, (enum pci_profile_key)k, val)
                                   : parse_threshold(p, k - PCI_NIDENTITY, val)) != 0)
            return r;
    }
    return 0;
}

int pci_profile_parse(const char *text, size_t len, struct pci_tuning *t, char *why,
                      size_t whylen)
{
    static struct parse zero;
    struct parse p = zero;
    p.why = why;
    p.whylen = whylen;
    if (why != NULL && whylen > 0)
        why[0] = '\0';
    if (t == NULL || (text == NULL && len > 0))
        return fail(&p, -EINVAL, "no profile text or no result to fill");

    int rc = check_versions(&p, text, len);
    if (rc == 0)
        rc = parse_lines(&p, text, len);
    if (rc != 0)
        return rc;
    for (int k = 0; k < PCI_NIDENTITY; k++)
        if (p.line_of[k] == 0)
            return fail(&p, -EINVAL, "missing identity key '%s'", identity_keys[k]);
    /* The first pass compared the versions already; they are well-formed. */
    if ((rc = check_identity(&p)) != 0)
        return rc;
    *t = p.thr;
    return 0;
}

int (pc_profile_parse)(const char *text, size_t len, struct pc_tuning *t, size_t tsize,
                       char *why, size_t whylen)
{
    struct pci_tuning given, d;
    if (t != NULL && PCI_ABI_CHECK(pc_tuning, t, tsize) != 0) {
        if (why != NULL && whylen > 0)
            snprintf(why, whylen, "struct pc_tuning passed with a size (%zu) this library "
                     "cannot take", tsize);
        return -EINVAL;
    }
    int rc = pci_profile_parse(text, len, t != NULL ? &given : NULL, why, whylen);
    if (rc != 0)
        return rc;
    /* A threshold the profile does not give keeps the built-in default. */
    pci_tuning_defaults(pci_cpu(), pci_libc(), &d);
    pci_tuning_overlay(&d, &given);
    pci_tuning_to_caller(&d, t, tsize);
    return 0;
}
