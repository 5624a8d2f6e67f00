/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * profile.h - what the profile files share (profile.c parses, profile_format.c
 * writes, profile_load.c finds and reads): the format's limits, its keys and
 * this host's identity, and the profile read at start. The format itself is
 * described in profile.c.
 */
#ifndef PCI_PROFILE_H
#define PCI_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "pageclear.h"
#include "tuning.h"

#pragma GCC visibility push(hidden)

/* The format this library reads and writes. */
#define PCI_PROFILE_FORMAT 1u
/* Longest line accepted, newline excluded. The longest line the library
 * writes is the features line, under 100 bytes; 512 leaves hand-written
 * comments room while each line fits a stack buffer. */
#define PCI_PROFILE_LINE_MAX 512
/* Largest profile file the loader reads. A profile is a dozen short lines
 * (well under 1 KiB); 64 KiB leaves room for long comments while bounding
 * what every process reads at start, whatever the file turns out to be. */
#define PCI_PROFILE_FILE_MAX ((size_t)64 << 10)
/* vector_max: vector stores win while rep stosb's start-up dominates (tens
 * of KiB) or, on Zen 5, while the extent fits the L2 (1 MiB there); 64 MiB
 * is many times either and still catches a unit slip (32G for 32K). 0
 * (never vector) is allowed. */
#define PCI_PROFILE_VECTOR_MAX_LIMIT ((size_t)64 << 20)
/* Non-temporal thresholds: below one page the sfence and the unaligned head
 * and tail cost more than streaming can save, so a smaller crossover is
 * noise; above 1 TiB no single clear exists on today's machines, and
 * `never` says "no streaming" explicitly. */
#define PCI_PROFILE_NT_MIN ((size_t)4 << 10)
#define PCI_PROFILE_NT_LIMIT ((size_t)1 << 40)

/* The keys that identify the host, all required; the threshold keys
 * (thresholds.def, in its order) follow them: key PCI_NIDENTITY + i is
 * threshold i. */
enum pci_profile_key {
    PCI_K_FORMAT, PCI_K_LIBRARY, PCI_K_VENDOR, PCI_K_CPU, PCI_K_FEATURES, PCI_K_LLC,
    PCI_K_HYPERVISOR
};
#define PCI_NIDENTITY (PCI_K_HYPERVISOR + 1)
#define PCI_NKEYS (PCI_NIDENTITY + PC_NTHRESHOLDS)

/* The name of key k, 0 <= k < PCI_NKEYS. */
const char *pci_profile_key(int k);

/* What identifies this host in a profile. */
struct pci_ident {
    char vendor[16]; /* printable, no '#', no surrounding spaces */
    unsigned cpu[3]; /* family, model, stepping */
    char features[256];
    size_t llc;
    int hypervisor;
};
void pci_profile_ident(struct pci_ident *id);

/* A size as the parser reads it back: the largest exact K/M/G/T unit, or
 * "never" for PC_NEVER (profile_format.c). Returns out. */
const char *pci_size_text(size_t v, char *out, size_t size);

/* pc_profile_parse's work: on success t holds the thresholds the profile
 * gives, t->set saying which (profile.c). */
int pci_profile_parse(const char *text, size_t len, struct pci_tuning *t, char *why,
                      size_t whylen);

/* The profile read once at start (profile_load.c): t holds the thresholds
 * it gives (none if no profile is in force); path names it ("" if none was
 * found or it was refused); status is pc_host.profile_status. */
struct pci_profile {
    struct pci_tuning t;
    char path[256];
    char status[256];
};
/* Find, read and check the profile once (called while the plans are
 * built); warns once on stderr if one is refused. */
const struct pci_profile *pci_profile(void);

#pragma GCC visibility pop

#endif /* PCI_PROFILE_H */
