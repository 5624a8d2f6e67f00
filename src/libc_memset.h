/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * libc_memset.h - what the C library's memset does with a long call, as
 * far as pageclear knows it: glibc's tunables that move it and the rule
 * of when it takes rep stosb (libc_memset.c). The one place the library's
 * defaults (defaults.c), the preload (preload/short_stores.c) and the
 * command (cli/tune/glibc_tunables.c, cli/tune/tune_glibc.c, cli/info.c) read it
 * from. Pure functions of their arguments, so that tests feed them any
 * C library on any CPU (tests/unit/test_libc_memset.c).
 */
#ifndef PCI_LIBC_MEMSET_H
#define PCI_LIBC_MEMSET_H

#include <stddef.h>

#include "cpu.h"

#pragma GCC visibility push(hidden)

/* glibc's x86-64 memset stores a call longer than this with rep stosb
 * where the CPU has ERMS (2048 unless set; `ld.so --list-tunables`, and
 * gdb on the Zen 5 and Intel guests, docs/notes.md, "The C library's
 * versions"). */
#define PCI_GLIBC_STOSB_TUNABLE "glibc.cpu.x86_rep_stosb_threshold"
#define PCI_GLIBC_STOSB_DEFAULT ((size_t)2048)
#define PCI_GLIBC_STOSB_TUNABLE_SINCE 32 /* glibc 2.32 brought it */
/* From this length glibc 2.40 and later stream a memset (non-temporal
 * stores); earlier versions have no such tunable. The least the loader
 * accepts is 0x4040 (its --list-tunables "min: 0x4040"); a smaller
 * value is ignored. */
#define PCI_GLIBC_MEMSET_NT_TUNABLE "glibc.cpu.x86_memset_non_temporal_threshold"
#define PCI_GLIBC_MEMSET_NT_SINCE 40 /* glibc 2.40 */
#define PCI_GLIBC_MEMSET_NT_MIN ((size_t)0x4040)

/* MINOR of a glibc 2.MINOR version string ("2.36", "2.41.9000": what
 * gnu_get_libc_version() gives), or -1 for anything else (NULL, another
 * major version, no digits after the dot, text after the minor other
 * than a '.' part). */
int pci_glibc_minor(const char *version);

/* 1 if the GLIBC_TUNABLES entry [e, e + len) (one of those ':' joins)
 * sets the tunable name: "name=value", the name whole and in its case. */
int pci_glibc_entry_sets(const char *e, size_t len, const char *name);

/* The value of the tunable name in tunables (GLIBC_TUNABLES's syntax:
 * name=value entries joined by ':'; the last entry of name counts, as in
 * glibc): 1 and *v set; 0 if name is not set (tunables NULL included);
 * -1 if it is set to something this reader cannot be sure glibc reads as
 * it does (not decimal or 0x hexadecimal digits alone, a leading 0 that
 * glibc would read as octal, or past SIZE_MAX). */
int pci_glibc_tunable(const char *tunables, const char *name, size_t *v);

/* What pci_libc_stosb_above answers where it cannot say. */
#define PCI_LIBC_UNKNOWN ((size_t)0)

/* The length above which the memset of glibc of version version (as
 * pci_glibc_minor reads it) stores a call with rep stosb on a CPU of
 * vendor with (erms 1) or without ERMS, under the tunables string
 * tunables (GLIBC_TUNABLES, or NULL): its x86_rep_stosb_threshold there.
 * PC_NEVER where it never does; PCI_LIBC_UNKNOWN where that is not known:
 * - not glibc 2.26 or later (from 2.26 memset takes its rep stosb
 *   variant wherever the CPU has ERMS), or a CPU of neither vendor:
 *   unknown;
 * - without ERMS: never (glibc then picks a memset without rep stosb);
 * - Intel: 2048 on every version from 2.26 (a fixed 2048 up to 2.31, the
 *   tunable's default from 2.32, which brought it);
 * - AMD under 2.26 to 2.38: 2048; from 2.40: never (its threshold is
 *   SIZE_MAX on AMD and it loops at every size; later versions are taken
 *   to do the same); 2.39: unknown, as its release set 2048 and its
 *   maintenance updates SIZE_MAX, both calling themselves "2.39"
 *   (docs/notes.md, "The C library's versions");
 * - PCI_GLIBC_STOSB_TUNABLE set (from 1, glibc's least): its value on
 *   either vendor, glibc taking it over its default; before 2.32, which
 *   ignores it unless its distribution brought the tunable in: unknown;
 * - any other entry holding "stosb", "erms" (glibc.cpu.hwcaps=-ERMS) or
 *   "non_temporal" (streaming from a length this rule does not follow),
 *   in any case, or the threshold set to what pci_glibc_tunable cannot
 *   read: unknown. */
size_t pci_libc_stosb_above(enum pci_vendor vendor, int erms, const char *version,
                            const char *tunables);

/* The C library this process runs, as the rules read it. */
struct pci_libc {
    int glibc_minor;    /* pci_glibc_minor of its version; -1 if not glibc 2 */
    size_t stosb_above; /* pci_libc_stosb_above on this CPU, GLIBC_TUNABLES */
};
/* The running C library, read once (host.c): gnu_get_libc_version() and
 * GLIBC_TUNABLES as the process had them then. */
const struct pci_libc *pci_libc(void);

#pragma GCC visibility pop

#endif /* PCI_LIBC_MEMSET_H */
