/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * size.c - perf's sizes: "1MB", "4096", "64gb", "512B". Digits, then
 * nothing (bytes) or one unit, all in upper case or all in lower case:
 * B, KB, MB, GB, TB, each a power of 1024. perf also lets through a few
 * strings it then reads in part ("4KB5" as 4 KiB); those are refused
 * here (tests/integration/command/perf_shape.py holds every other
 * verdict to perf's).
 */
#include <stdint.h>
#include <string.h>

#include "perf.h"

int cli_perf_size(const char *s, uint64_t *out)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    static const char *const lower[] = {"b", "kb", "mb", "gb", "tb"};
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - (uint64_t)(*p - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    unsigned shift = 0;
    if (*p != '\0') {
        size_t u = 0;
        while (u < 5 && strcmp(p, units[u]) != 0 && strcmp(p, lower[u]) != 0)
            u++;
        if (u == 5)
            return -1;
        shift = 10 * (unsigned)u;
    }
    if (shift > 0 && v > ((uint64_t)INT64_MAX >> shift))
        return -1;
    *out = v << shift;
    return 0;
}
