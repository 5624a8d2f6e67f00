/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* fault.h - touching memory a byte per page, on threads, under a SIGBUS guard (fault.c). */
#ifndef PAGECLEAR_CLI_FAULT_H
#define PAGECLEAR_CLI_FAULT_H

#include <stddef.h>

/* Write one byte per stride bytes of [p, p + len), at offset `seed`-driven
 * random positions within each stride when seed != 0, split over nthreads
 * threads. A SIGBUS (hugetlb pages ran out) is caught: returns 0, or
 * -EFAULT with *bad set to the offset that faulted. */
int cli_touch(char *p, size_t len, size_t stride, unsigned long nthreads,
              unsigned long seed, size_t *bad);

#endif
