/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * hugetlb.h - reserving hugetlb pages for a measurement and giving them
 * back (hugetlb.c), under the machine-wide lock file every pageclear
 * measurement that reserves pages takes.
 */
#ifndef PAGECLEAR_CLI_HUGETLB_H
#define PAGECLEAR_CLI_HUGETLB_H

#include <stddef.h>

#include "buffer.h"

/* The lock: reservations by concurrent measurements would take each
 * other's pages (and one's give-back would undo the other's). */
#define CLI_HUGETLB_LOCK "/tmp/pageclear-hugetlb.lock"

struct cli_hugetlb {
    int lock_fd;   /* -1: not taken by us (none, or held by our parent) */
    long old;      /* nr_hugepages before; -1: not changed */
    enum cli_page page;
};

/* Make `pages` free hugetlb pages of size p available: take the lock
 * (waiting for it up to a minute; not if this process inherited it, as
 * under `flock CLI_HUGETLB_LOCK pageclear ...`), and if fewer are free,
 * raise nr_hugepages by the difference (root only). If the lock stays
 * busy, the pages already free are used if they are enough. 0 with *h to
 * release, or -1 with a message in err (nothing held then). */
int cli_hugetlb_reserve(struct cli_hugetlb *h, enum cli_page p, size_t pages, char *err,
                        size_t errlen);
/* Give the pages back (nr_hugepages as it was) and drop the lock. Also
 * done on SIGINT, SIGTERM and SIGHUP while held. */
void cli_hugetlb_release(struct cli_hugetlb *h);

#endif
