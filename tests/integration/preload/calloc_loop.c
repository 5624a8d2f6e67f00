/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * calloc_loop.c - issue 47's loop: calloc(1, SIZE), one byte written, free,
 * CALLS times, each call timed (CLOCK_MONOTONIC) and printed in
 * nanoseconds, one per line. Built without pageclear: the allocator and
 * the preload come from LD_PRELOAD (scripts/bench_skip_absent.sh).
 * Usage: calloc_loop [CALLS [SIZE]]   (defaults 5 and 1000000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The allocation escapes through it, so the compiler keeps the calls. */
static char *volatile sink;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
    size_t size = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 1000000000;
    if (calls < 1 || size < 2) {
        fprintf(stderr, "usage: calloc_loop [CALLS [SIZE]]\n");
        return 2;
    }
    for (long i = 0; i < calls; i++) {
        long long t0 = now_ns();
        sink = calloc(1, size);
        if (sink == NULL) {
            perror("calloc");
            return 1;
        }
        sink[size / 2] = 1;
        if (sink[0] != 0 || sink[size - 1] != 0) {
            fprintf(stderr, "calloc_loop: calloc's memory not zero\n");
            return 1;
        }
        free(sink);
        printf("%lld\n", now_ns() - t0);
    }
    return 0;
}
