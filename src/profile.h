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
/* vector_max: vector stores win only while rep stosb's start-up dominates,
 * tens of KiB on every CPU measured; 64 MiB is a thousand times that and
 * still catches a unit slip (32G for 32K). 0 (never vector) is allowed. */
#define PCI_PROFILE_VECTOR_MAX_LIMIT ((size_t)64 << 20)
/* Non-temporal thresholds: below one page the sfence and the unaligned head
 * and tail cost more than streaming can save, so a smaller crossover is
 * noise; above 1 TiB no single clear exists on today's machines, and
 * `never` says "no streaming" explicitly. */
#define PCI_PROFILE_NT_MIN ((size_t)4 << 10)
#define PCI_PROFILE_NT_LIMIT ((size_t)1 << 40)

enum pci_profile_key {
    PCI_K_FORMAT, PCI_K_LIBRARY, PCI_K_VENDOR, PCI_K_CPU, PCI_K_FEATURES, PCI_K_LLC,
    PCI_K_HYPERVISOR, PCI_K_VECTOR_MAX, PCI_K_NT, PCI_K_COLD_NT, PCI_K_PARALLEL_NT,
    PCI_NKEYS
};
/* The keys before PCI_K_VECTOR_MAX identify the host and are required. */
#define PCI_NIDENTITY PCI_K_VECTOR_MAX

/* The key names, in enum pci_profile_key order. */
extern const char *const pci_profile_keys[PCI_NKEYS];

/* What identifies this host in a profile. */
struct pci_ident {
    char vendor[16]; /* printable, no '#', no surrounding spaces */
    unsigned cpu[3]; /* family, model, stepping */
    char features[256];
    size_t llc;
    int hypervisor;
};
void pci_profile_ident(struct pci_ident *id);

/* Whether v is allowed for vector_max (nt = 0) or for a non-temporal
 * threshold (nt = 1). */
static inline int pci_profile_in_range(size_t v, int nt)
{
    if (!nt)
        return v <= PCI_PROFILE_VECTOR_MAX_LIMIT;
    return v == SIZE_MAX || (v >= PCI_PROFILE_NT_MIN && v <= PCI_PROFILE_NT_LIMIT);
}

/* The profile read once at start (profile_load.c): applied says whether
 * its thresholds are in force; path names it ("" if none was found or it
 * was refused); status is pc_host.profile_status. */
struct pci_profile {
    int applied;
    struct pc_tuning t;
    char path[256];
    char status[256];
};
/* Find, read and check the profile once (called while the plans are
 * built); warns once on stderr if one is refused. */
const struct pci_profile *pci_profile(void);

#pragma GCC visibility pop

#endif /* PCI_PROFILE_H */
