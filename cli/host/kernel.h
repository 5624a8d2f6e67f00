/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel.h - how the running kernel clears huge pages and under which
 * preemption model, the two things that decide how it clears a huge page
 * (docs/kernel.md): kernel.c decides from inputs it is handed (the lines
 * of /proc/kallsyms, the version strings, debugfs's sched/preempt, the
 * build configuration), so that a test can hand it any kernel;
 * kernel_read.c reads them from this one.
 */
#ifndef PAGECLEAR_CLI_KERNEL_H
#define PAGECLEAR_CLI_KERNEL_H

#include <stddef.h>

#include "units.h"

/* The unit between resched points of a kernel that clears in extents,
 * under the none and voluntary models (the kernel's
 * PROCESS_PAGES_NON_PREEMPT_BATCH, docs/kernel.md): 32 MiB. */
#define CLI_KERNEL_BATCH (32 * MIB)
/* The releases the inference of an unreadable kernel rests on: 7.2
 * carries the multi-page clearing (Debian's 7.2.13 image has clear_pages
 * and __clear_pages_unrolled), 6.18 predates it (this project's machines
 * run it: clear_page_erms and no clear_pages). */
#define CLI_KERNEL_WITH_MAJOR 7
#define CLI_KERNEL_WITH_MINOR 2
#define CLI_KERNEL_BEFORE_MAJOR 6
#define CLI_KERNEL_BEFORE_MINOR 18

enum cli_kclear { CLI_KCLEAR_UNKNOWN, CLI_KCLEAR_PAGES, CLI_KCLEAR_EXTENTS };
enum cli_kmodel {
    CLI_KMODEL_UNKNOWN,
    CLI_KMODEL_NONE,
    CLI_KMODEL_VOLUNTARY,
    CLI_KMODEL_FULL,
    CLI_KMODEL_LAZY,
    CLI_KMODEL_NONE_OR_VOLUNTARY, /* a build without PREEMPT in uname -v */
    CLI_KMODEL_FULL_OR_LAZY       /* PREEMPT or PREEMPT_RT in uname -v */
};
/* What a huge page is cleared in: base pages, 32 MiB units, the whole
 * page, one of the last two (the model unknown), or unknown. */
enum cli_kunits { CLI_KUNITS_UNKNOWN, CLI_KUNITS_PAGE, CLI_KUNITS_BATCH, CLI_KUNITS_WHOLE,
                  CLI_KUNITS_BATCH_OR_WHOLE };

/* The symbols that tell, in the order of cli_ksym_name: the first three
 * are the multi-page clearing's, the rest clear one page per call. */
#define CLI_KSYM_COUNT 7
#define CLI_KSYM_EXTENTS 3
const char *cli_ksym_name(int i);

/* /proc/kallsyms, fed a line at a time ("ffffffff821eb0e0 T
 * clear_page_erms", a module's name may follow). */
struct cli_ksyms {
    const char *path; /* for messages; "/proc/kallsyms" unless set */
    int error;        /* errno: the file could not be read (0: it could) */
    size_t names;     /* lines that held an address, a type and a name */
    int addresses;    /* 1 once an address was not all zeros */
    unsigned found;   /* bit i: cli_ksym_name(i) seen */
    int stopped;      /* the answer was known before the end */
};
void cli_ksyms_init(struct cli_ksyms *k, const char *path);
/* Take one line (without or with its newline). Returns 1 once the
 * answer is known (a multi-page symbol seen: read no further), else 0. */
int cli_ksyms_line(struct cli_ksyms *k, const char *line);
/* Feed the file at path through cli_ksyms_line, a bounded line at a time,
 * stopping where the answer is known; k->error says if it could not be
 * read (kernel_read.c). */
void cli_ksyms_read(struct cli_ksyms *k, const char *path);

/* What the decision reads. NULL (or -1) where it could not be had. */
struct cli_kernel_in {
    const char *release;      /* uname -r */
    const char *version;      /* uname -v: PREEMPT, PREEMPT_DYNAMIC, PREEMPT_RT ... */
    const char *cmdline;      /* /proc/cmdline */
    const char *debugfs;      /* /sys/kernel/debug/sched/preempt */
    const char *debugfs_why;  /* why it was not read ("debugfs is not mounted") */
    const char *config;       /* where the build configuration was read */
    const char *config_model; /* its model: "none", "voluntary", "full", "lazy" */
    int config_dynamic;       /* CONFIG_PREEMPT_DYNAMIC=y */
    int realtime;             /* /sys/kernel/realtime: 1, 0, or -1 absent */
    size_t base_page;         /* bytes; 0 counts as 4 KiB */
    struct cli_ksyms syms;
};

/* The decision, each part with what it was read from. */
struct cli_kernel {
    enum cli_kclear clear;
    enum cli_kclear inferred; /* clear, or where clear is unknown the
                                 release's inference (maybe unknown too) */
    char clear_from[640];
    enum cli_kmodel model;
    char model_from[512];
    enum cli_kunits units;
    int units_inferred; /* units rest on the release's inference */
    char units_why[256];
    size_t base_page;
};
void cli_kernel_decide(const struct cli_kernel_in *in, struct cli_kernel *out);

/* "in extents", "page at a time", "unknown". */
const char *cli_kclear_name(enum cli_kclear c);
/* "none", "voluntary", "full", "lazy", "none or voluntary", "full or
 * lazy"; NULL for unknown. */
const char *cli_kmodel_name(enum cli_kmodel m);
/* "4 KiB units", "32 MiB units", "whole extent", "32 MiB units or whole
 * extent", with " (inferred)" where it rests on the release; NULL for
 * unknown. */
const char *cli_kunits_name(const struct cli_kernel *k, char *buf, size_t n);
/* Bytes per clearing call the kernel takes for one huge page of `page`
 * bytes: the base page, min(32 MiB, page) or page. *assumed is set to 1
 * where that is a guess (units unknown or one of two, or inferred). */
size_t cli_kernel_chunk(const struct cli_kernel *k, size_t page, int *assumed);

/* The running kernel, read once (kernel_read.c). */
const struct cli_kernel *cli_kernel(void);

/* The kernel's build configuration, where it can be read: /boot/config-
 * RELEASE, or the kernel's own /proc/config.gz (kernel_read.c). */
struct cli_kconfig {
    int read;          /* 0: neither was there */
    const char *path;  /* where it was read */
    const char *model; /* "none", "voluntary", "full", "lazy", or NULL */
    int dynamic, on_alloc, on_free; /* PREEMPT_DYNAMIC, INIT_ON_*_DEFAULT_ON */
};
void cli_kconfig_read(const char *release, struct cli_kconfig *c);

/* The value of NAME=VALUE on a kernel command line (blank-separated), its
 * length in *len; NULL where the parameter is not there. */
const char *cli_cmdline_param(const char *cmdline, const char *name, size_t *len);

/* The first line of path, newline stripped, into buf (n bytes); NULL if
 * it cannot be read (errno set) or is empty (kernel_read.c). */
const char *cli_first_line(const char *path, char *buf, size_t n);

#endif
