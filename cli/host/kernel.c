/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel.c - how a kernel clears huge pages, decided from what it shows
 * and nothing else, so that a test can hand it any kernel:
 *   clearing   the symbols of /proc/kallsyms: the multi-page clearing
 *              (clear_pages, __clear_pages_unrolled and the batched
 *              init_on_alloc's clear_highpages_kasan_tagged) or only the
 *              one-page clear_page variants; where the names cannot be had,
 *              an inference from the release, labelled as one;
 *   preemption debugfs's sched/preempt names the active model; else
 *              preempt= (PREEMPT_DYNAMIC), the build's configuration,
 *              /sys/kernel/realtime and uname -v, each labelled;
 *   units      from both: page at a time clears a huge page in base pages
 *              whatever the model; in extents, 32 MiB units under none and
 *              voluntary (a resched point between), the whole page under
 *              full and lazy (docs/kernel.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"

static const char *const ksyms[CLI_KSYM_COUNT] = {
    "clear_pages", "__clear_pages_unrolled", "clear_highpages_kasan_tagged", /* extents */
    "clear_page_erms", "clear_page_rep", "clear_page_orig", "clear_page",   /* a page */
};
#define EXTENT_BITS ((1u << CLI_KSYM_EXTENTS) - 1)

const char *cli_ksym_name(int i)
{
    return i >= 0 && i < CLI_KSYM_COUNT ? ksyms[i] : "?";
}

void cli_ksyms_init(struct cli_ksyms *k, const char *path)
{
    *k = (struct cli_ksyms){.path = path ? path : "/proc/kallsyms"};
}

int cli_ksyms_line(struct cli_ksyms *k, const char *line)
{
    const char *ws = " \t\r\n";
    size_t alen = strspn(line, "0123456789abcdefABCDEF");
    const char *p = line + alen;
    if (alen == 0 || (*p != ' ' && *p != '\t'))
        return k->stopped; /* not "ADDRESS TYPE NAME" */
    p += strspn(p, " \t");
    size_t tlen = strcspn(p, ws);
    if (tlen != 1)
        return k->stopped;
    p += 1 + strspn(p + 1, " \t");
    size_t nlen = strcspn(p, ws);
    if (nlen == 0)
        return k->stopped;
    k->names++;
    if (strspn(line, "0") < alen)
        k->addresses = 1;
    for (int i = 0; i < CLI_KSYM_COUNT; i++)
        if (strlen(ksyms[i]) == nlen && strncmp(p, ksyms[i], nlen) == 0)
            k->found |= 1u << i;
    /* One multi-page symbol settles it: the rest of a 100,000-line file
     * could only add names to the evidence. */
    if (k->found & EXTENT_BITS)
        k->stopped = 1;
    return k->stopped;
}

/* ---- clearing ---------------------------------------------------------- */

/* Append to buf[n] as printf would, never past its end. */
static void add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(char *buf, size_t n, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, n - used, fmt, ap);
    va_end(ap);
}

/* The names of bits [from, to) of found, comma-separated. */
static void names(char *buf, size_t n, unsigned found, int from, int to)
{
    for (int i = from, first = 1; i < to; i++)
        if (found & (1u << i)) {
            add(buf, n, "%s%s", first ? "" : ", ", ksyms[i]);
            first = 0;
        }
}

/* Where the names cannot tell, the release can guess: at or after the
 * release that carries the series, or at or before one that predates it. */
static enum cli_kclear infer(const char *release, char *buf, size_t n)
{
    int maj, min;
    if (release == NULL || sscanf(release, "%d.%d", &maj, &min) != 2) {
        add(buf, n, "; no release to infer from");
        return CLI_KCLEAR_UNKNOWN;
    }
    int with = maj > CLI_KERNEL_WITH_MAJOR ||
               (maj == CLI_KERNEL_WITH_MAJOR && min >= CLI_KERNEL_WITH_MINOR);
    int before = maj < CLI_KERNEL_BEFORE_MAJOR ||
                 (maj == CLI_KERNEL_BEFORE_MAJOR && min <= CLI_KERNEL_BEFORE_MINOR);
    add(buf, n, "; inferred from the release %d.%d, not read: Linux %d.%d carries the "
        "multi-page clearing and Debian's 7.2.13 shows it, %d.%d does not, so ",
        maj, min, CLI_KERNEL_WITH_MAJOR, CLI_KERNEL_WITH_MINOR, CLI_KERNEL_BEFORE_MAJOR,
        CLI_KERNEL_BEFORE_MINOR);
    if (with || before)
        add(buf, n, "probably %s, unless a distribution backported it",
            with ? "in extents" : "page at a time");
    else
        add(buf, n, "%d.%d could be either", maj, min);
    return with ? CLI_KCLEAR_EXTENTS : before ? CLI_KCLEAR_PAGES : CLI_KCLEAR_UNKNOWN;
}

static void decide_clear(const struct cli_kernel_in *in, struct cli_kernel *out)
{
    const struct cli_ksyms *k = &in->syms;
    char *b = out->clear_from;
    size_t n = sizeof(out->clear_from);
    b[0] = '\0';
    out->clear = CLI_KCLEAR_UNKNOWN;
    if (k->error != 0) {
        add(b, n, "%s cannot be read: %s", k->path, strerror(k->error));
    } else if (k->names == 0) {
        add(b, n, "%s lists no symbols: they are hidden from this process", k->path);
    } else if (k->found & EXTENT_BITS) {
        out->clear = CLI_KCLEAR_EXTENTS;
        add(b, n, "%s has ", k->path);
        names(b, n, k->found, 0, CLI_KSYM_EXTENTS);
        add(b, n, ", the multi-page clearing's");
    } else if (k->found != 0) {
        out->clear = CLI_KCLEAR_PAGES;
        add(b, n, "%s has ", k->path);
        names(b, n, k->found, CLI_KSYM_EXTENTS, CLI_KSYM_COUNT);
        add(b, n, " and none of ");
        names(b, n, EXTENT_BITS, 0, CLI_KSYM_EXTENTS);
        add(b, n, ", among %zu symbols", k->names);
    } else {
        /* Addresses read as zeros (kptr_restrict) still come with their
         * names; none of ours among them means this kernel names its
         * clearing otherwise, or the list was cut. */
        add(b, n, "none of the clearing symbols among the %zu of %s%s", k->names, k->path,
            k->addresses ? "" : ", whose addresses are hidden as well");
    }
    out->inferred = out->clear;
    if (out->clear == CLI_KCLEAR_UNKNOWN)
        out->inferred = infer(in->release, b, n);
}

/* ---- preemption -------------------------------------------------------- */

static const char *const model_names[] = {NULL,  "none", "voluntary", "full",
                                          "lazy", "none or voluntary", "full or lazy"};

const char *cli_kmodel_name(enum cli_kmodel m)
{
    return (unsigned)m < sizeof(model_names) / sizeof(model_names[0]) ? model_names[m] : NULL;
}

/* The model called name[0, len): one of the four a kernel offers. */
static enum cli_kmodel model_of(const char *name, size_t len)
{
    for (int m = CLI_KMODEL_NONE; m <= CLI_KMODEL_LAZY; m++)
        if (strlen(model_names[m]) == len && strncmp(name, model_names[m], len) == 0)
            return (enum cli_kmodel)m;
    return CLI_KMODEL_UNKNOWN;
}

/* 1 if the blank-separated words of s hold word exactly. */
static int has_word(const char *s, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = s; p != NULL && *p; p += strcspn(p, " \t\n")) {
        p += strspn(p, " \t\n");
        if (strcspn(p, " \t\n") == len && strncmp(p, word, len) == 0)
            return 1;
    }
    return 0;
}

/* debugfs's "none voluntary (full) lazy": the word in parentheses. */
static enum cli_kmodel debugfs_model(const char *text)
{
    const char *a = text ? strchr(text, '(') : NULL;
    const char *b = a ? strchr(a, ')') : NULL;
    return b ? model_of(a + 1, (size_t)(b - a - 1)) : CLI_KMODEL_UNKNOWN;
}

const char *cli_cmdline_param(const char *cmdline, const char *name, size_t *len)
{
    size_t n = strlen(name);
    for (const char *p = cmdline; p != NULL && *p; p += strcspn(p, " \n")) {
        p += strspn(p, " \n");
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            *len = strcspn(p + n + 1, " \n");
            return p + n + 1;
        }
    }
    return NULL;
}

/* preempt=WORD on the command line, if it is a model. */
static enum cli_kmodel cmdline_model(const char *cmdline)
{
    size_t len;
    const char *v = cli_cmdline_param(cmdline, "preempt", &len);
    return v != NULL ? model_of(v, len) : CLI_KMODEL_UNKNOWN;
}

static void decide_model(const struct cli_kernel_in *in, struct cli_kernel *out)
{
    char *b = out->model_from;
    size_t n = sizeof(out->model_from);
    const char *why = in->debugfs_why ? in->debugfs_why : "debugfs's sched/preempt unread";
    int dynamic = in->config_dynamic || has_word(in->version, "PREEMPT_DYNAMIC");
    enum cli_kmodel m;
    b[0] = '\0';
    if ((m = debugfs_model(in->debugfs)) != CLI_KMODEL_UNKNOWN) {
        add(b, n, "/sys/kernel/debug/sched/preempt: the active model");
    } else if (dynamic && (m = cmdline_model(in->cmdline)) != CLI_KMODEL_UNKNOWN) {
        add(b, n, "preempt= on the kernel command line under PREEMPT_DYNAMIC; %s, so a "
            "switch since boot would not show", why);
    } else if ((m = in->config_model ? model_of(in->config_model, strlen(in->config_model))
                                     : CLI_KMODEL_UNKNOWN) != CLI_KMODEL_UNKNOWN) {
        if (dynamic)
            add(b, n, "the build's default under PREEMPT_DYNAMIC, read from %s, and no "
                "preempt= on the command line; %s, so a switch since boot would not show",
                in->config, why);
        else
            add(b, n, "the build's configuration, read from %s", in->config);
    } else if (has_word(in->version, "PREEMPT_RT") || in->realtime == 1) {
        m = CLI_KMODEL_FULL_OR_LAZY;
        add(b, n, "%s: a real-time kernel, preemptible",
            in->realtime == 1 ? "/sys/kernel/realtime" : "PREEMPT_RT in uname -v");
    } else if (dynamic) {
        add(b, n, "PREEMPT_DYNAMIC in uname -v: the active model is in debugfs, and %s "
            "(mount -t debugfs none /sys/kernel/debug); neither preempt= nor a build "
            "configuration says", why);
    } else if (has_word(in->version, "PREEMPT_LAZY")) {
        m = CLI_KMODEL_LAZY;
        add(b, n, "PREEMPT_LAZY in uname -v");
    } else if (has_word(in->version, "PREEMPT")) {
        m = CLI_KMODEL_FULL_OR_LAZY;
        add(b, n, "PREEMPT in uname -v: a preemptible build, full or lazy");
    } else if (in->version != NULL) {
        m = CLI_KMODEL_NONE_OR_VOLUNTARY;
        add(b, n, "no PREEMPT in uname -v, \"%s\": none or voluntary", in->version);
    } else {
        add(b, n, "no debugfs, command line, configuration or version to read it from");
    }
    out->model = m;
}

/* ---- units ------------------------------------------------------------- */

static void decide_units(struct cli_kernel *out)
{
    char *b = out->units_why;
    size_t n = sizeof(out->units_why);
    const char *model = cli_kmodel_name(out->model);
    b[0] = '\0';
    out->units_inferred = out->clear == CLI_KCLEAR_UNKNOWN;
    if (out->inferred == CLI_KCLEAR_PAGES) {
        out->units = CLI_KUNITS_PAGE;
        add(b, n, "page at a time, whatever the preemption model");
    } else if (out->inferred == CLI_KCLEAR_UNKNOWN) {
        out->units = CLI_KUNITS_UNKNOWN;
        add(b, n, "how the kernel clears is unknown");
    } else if (out->model == CLI_KMODEL_UNKNOWN) {
        out->units = CLI_KUNITS_BATCH_OR_WHOLE;
        add(b, n, "in extents; the preemption model decides, 32 MiB units under none or "
            "voluntary and whole under full or lazy, and it could not be read");
    } else if (out->model == CLI_KMODEL_FULL || out->model == CLI_KMODEL_LAZY ||
               out->model == CLI_KMODEL_FULL_OR_LAZY) {
        out->units = CLI_KUNITS_WHOLE;
        add(b, n, "in extents, without a resched point under %s", model);
    } else {
        out->units = CLI_KUNITS_BATCH;
        add(b, n, "in extents, with a resched point every 32 MiB under %s", model);
    }
    if (out->units_inferred && out->units != CLI_KUNITS_UNKNOWN)
        add(b, n, "; the clearing inferred from the release");
}

void cli_kernel_decide(const struct cli_kernel_in *in, struct cli_kernel *out)
{
    out->base_page = in->base_page ? in->base_page : 4 * KIB;
    decide_clear(in, out);
    decide_model(in, out);
    decide_units(out);
}

const char *cli_kclear_name(enum cli_kclear c)
{
    return c == CLI_KCLEAR_EXTENTS ? "in extents" : c == CLI_KCLEAR_PAGES ? "page at a time"
                                                                          : "unknown";
}

const char *cli_kunits_name(const struct cli_kernel *k, char *buf, size_t n)
{
    const char *u;
    char page[32];
    snprintf(page, sizeof(page), "%zu KiB units", k->base_page / KIB);
    switch (k->units) {
    case CLI_KUNITS_PAGE: u = page; break;
    case CLI_KUNITS_BATCH: u = "32 MiB units"; break;
    case CLI_KUNITS_WHOLE: u = "whole extent"; break;
    case CLI_KUNITS_BATCH_OR_WHOLE: u = "32 MiB units or whole extent"; break;
    default: return NULL;
    }
    snprintf(buf, n, "%s%s", u, k->units_inferred ? " (inferred)" : "");
    return buf;
}

size_t cli_kernel_chunk(const struct cli_kernel *k, size_t page, int *assumed)
{
    size_t base = k->base_page, batch = CLI_KERNEL_BATCH < page ? CLI_KERNEL_BATCH : page;
    *assumed = k->units_inferred || k->units == CLI_KUNITS_UNKNOWN ||
               k->units == CLI_KUNITS_BATCH_OR_WHOLE;
    if (page <= base) {
        *assumed = 0;
        return page; /* a base page is one call whatever the kernel */
    }
    switch (k->units) {
    case CLI_KUNITS_WHOLE: return page;
    case CLI_KUNITS_BATCH:
    case CLI_KUNITS_BATCH_OR_WHOLE: return batch; /* the more cautious of the two */
    default: return base;
    }
}
