/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * print_profile.c - prints the profile pc_profile_format writes for fixed
 * thresholds and a two-line comment, for
 * tests/integration/command/cli_golden.sh: the format
 * (keys, their order, how sizes and "never" are written) must not change
 * by accident.
 */
#include <stdint.h>
#include <stdio.h>

#include "pageclear.h"

int main(void)
{
    struct pc_tuning t;
    pc_tuning_defaults(&t);
    t.vector_max = 48 << 10;
    t.nt_threshold = (size_t)3 << 20;
    t.cold_nt_threshold = SIZE_MAX;
    t.parallel_nt_threshold = (size_t)1 << 30;
    t.preload_min = (size_t)64 << 20;
    char buf[4096];
    int n = pc_profile_format(&t, "first line\nsecond line", buf, sizeof(buf));
    if (n < 0 || (size_t)n >= sizeof(buf)) {
        fprintf(stderr, "print_profile: pc_profile_format gave %d\n", n);
        return 1;
    }
    fputs(buf, stdout);
    return 0;
}
