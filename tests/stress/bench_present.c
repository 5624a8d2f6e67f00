/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench_present.c - pc_clear_present against pc_clear on the same memory:
 * a fresh private anonymous mapping with a share of its pages faulted in
 * (written, one byte a page) just before the timed call, 4 KiB pages
 * (MADV_NOHUGEPAGE) or transparent huge pages (MADV_HUGEPAGE, one byte a
 * 2 MiB page). The two contenders alternate, which goes first swapping
 * every repetition; each sample maps, fills, times one call and unmaps.
 * Prints a Markdown table: the median and the spread (lowest-highest) of
 * each, in ms, and their ratio. Cache state: the faulted-in pages were
 * just zeroed by the kernel and written, so warm as far as the caches
 * hold them. Not a test: run it under the bench lock
 * (scripts/bench_skip_absent.sh does).
 * Usage: bench_present [-c] [-w] [-n REPS] [-s MiB,...] [-p PCT,...]
 *   defaults: 7 repetitions, 64 and 1024 MiB, 0,1,50,100 % present;
 *   -c: the thread's CPU time rather than the wall clock;
 *   -w: warm, every page present (below)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pageclear.h"

#define HUGE ((size_t)2 << 20)
#define MAX_REPS 101
#define MAX_LIST 8

/* CLOCK_MONOTONIC, or with -c the thread's CPU time (user and system):
 * on a machine shared with other jobs a call descheduled midway counts
 * only the time it ran. */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(clock_id, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Fault in pct % of the units (pages, or huge pages) of [m, m + len),
 * spread evenly (unit 0, then one more each time the share crosses a
 * whole unit), and return the bytes resident then (mincore): with THP,
 * whole huge pages where the kernel had them. */
static size_t touch(char *m, size_t len, size_t unit, int pct)
{
    size_t n = len / unit;
    for (size_t i = 0; i < n; i++)
        if (i * (size_t)pct % 100 < (size_t)pct)
            m[i * unit] = 1;
    size_t pages = len / PC_PAGE_SIZE, resident = 0;
    unsigned char *vec = malloc(pages);
    if (vec == NULL || mincore(m, len, vec) != 0) {
        perror("mincore");
        exit(1);
    }
    for (size_t i = 0; i < pages; i++)
        resident += vec[i] & 1;
    free(vec);
    return resident * PC_PAGE_SIZE;
}

/* -w: one mapping per row, every page present, a byte of each 4 KiB
 * written again before each call: the clear finds as much of it in cache
 * as the caches hold (warm), and no fault in the way. */
static int warm;
static char *warm_raw;

static char *map_aligned(size_t len, int thp, char **raw)
{
    *raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*raw == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    char *m = (char *)(((uintptr_t)*raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    (void)madvise(m, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    return m;
}

/* One sample: a fresh mapping (or with -w the row's), pct % faulted in,
 * one call timed; *resident gets the bytes resident before the call. */
static double sample(int present, size_t len, int thp, int pct, size_t *resident)
{
    char *raw = warm_raw, *m;
    if (warm) {
        m = (char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
        *resident = touch(m, len, PC_PAGE_SIZE, 100);
    } else {
        m = map_aligned(len, thp, &raw);
        *resident = touch(m, len, thp ? HUGE : PC_PAGE_SIZE, pct);
    }
    double t0 = now_ms();
    int rc = present ? pc_clear_present(m, len, 0, NULL) : pc_clear(m, len);
    double t = now_ms() - t0;
    if (rc != 0 || m[len / 2] != 0) {
        fprintf(stderr, "bench_present: the call failed (%d)\n", rc);
        exit(1);
    }
    if (!warm)
        munmap(raw, len + HUGE);
    return t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void row(size_t mib, int thp, int pct, int reps)
{
    double t[2][MAX_REPS];
    size_t resident = 0;
    if (warm)
        (void)map_aligned(mib << 20, thp, &warm_raw);
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 2; k++) {
            int present = (k + r) % 2; /* alternate which goes first */
            t[present][r] = sample(present, mib << 20, thp, pct, &resident);
        }
    double mc = median(t[0], reps), mp = median(t[1], reps);
    printf("| %zu MiB | %s | %d%% (%.1f MiB) | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.3f |\n",
           mib, thp ? "THP" : "4 KiB", pct, (double)resident / (1 << 20), mc, t[0][0],
           t[0][reps - 1], mp, t[1][0], t[1][reps - 1], mp / mc);
    if (warm)
        munmap(warm_raw, (mib << 20) + HUGE);
    fflush(stdout);
}

/* A comma-separated list of numbers into v: the count. */
static int list(const char *s, long *v)
{
    int n = 0;
    for (char *end; n < MAX_LIST && *s; s = *end ? end + 1 : end) {
        v[n++] = strtol(s, &end, 10);
        if (end == s)
            return 0;
    }
    return n;
}

int main(int argc, char **argv)
{
    int reps = 7, opt;
    long sizes[MAX_LIST] = {64, 1024}, pcts[MAX_LIST] = {0, 1, 50, 100};
    int nsizes = 2, npcts = 4;
    while ((opt = getopt(argc, argv, "cwn:s:p:")) != -1) {
        if (opt == 'c')
            clock_id = CLOCK_THREAD_CPUTIME_ID;
        else if (opt == 'w')
            warm = 1;
        else if (opt == 'n')
            reps = atoi(optarg);
        else if (opt == 's')
            nsizes = list(optarg, sizes);
        else if (opt == 'p')
            npcts = list(optarg, pcts);
        else
            return 2;
    }
    if (warm)
        npcts = 1, pcts[0] = 100; /* every page present, by the rewrite */
    if (reps < 1 || reps > MAX_REPS || nsizes == 0 || npcts == 0) {
        fprintf(stderr, "usage: bench_present [-c] [-w] [-n REPS] [-s MiB,...] [-p PCT,...]\n");
        return 2;
    }
    printf("pc_clear: %s; %d repetitions, median (lowest-highest), ms of %s; %s\n\n",
           pc_selected((size_t)sizes[0] << 20), reps,
           clock_id == CLOCK_MONOTONIC ? "wall clock" : "the thread's CPU time",
           warm ? "warm: one mapping a row, written again before each call"
                : "a fresh mapping each call");
    printf("| size | pages | present (resident) | pc_clear | pc_clear_present | ratio |\n");
    printf("|---|---|---|---|---|---|\n");
    for (int s = 0; s < nsizes; s++)
        for (int thp = 0; thp < 2; thp++)
            for (int p = 0; p < npcts; p++)
                row((size_t)sizes[s], thp, (int)pcts[p], reps);
    return 0;
}
