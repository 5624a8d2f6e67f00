/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * bench_first_touch.c - the two costs behind the preload's RESIDENT_MAX
 * (preload/first_touch.c), per 4 KiB page: what populating a fresh page
 * saves over a first touch by memset (the fault and the store, against
 * madvise(MADV_POPULATE_WRITE)), and what reading /proc/self/smaps costs
 * per resident page below a range (pc_clear_present reads it up to the
 * range). The ratio of the two is how much resident memory a process may
 * have before the proof costs what it saves. The contenders alternate,
 * REPS repetitions, medians printed; fresh mappings without THP (the
 * dearest case for smaps: THP pages are walked 512 at a time). Not a
 * test: run it under the bench lock; its output is kept in
 * tests/data/first-touch-cost.txt.
 * Usage: bench_first_touch [REPS [MiB]]   (defaults 7 and 256)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define MAX_REPS 101

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static char *fresh(size_t n)
{
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    (void)madvise(p, n, MADV_NOHUGEPAGE);
    return p;
}

/* Through a pointer the compiler cannot see through: a real memset call. */
static void *(*volatile set)(void *, int, size_t) = memset;

/* ns to make n fresh bytes resident and zero: 0 by memset, 1 by populate. */
static double first_touch(size_t n, int how)
{
    char *p = fresh(n);
    double t = now_ns();
    if (how == 0)
        set(p, 0, n);
    else if (madvise(p, n, MADV_POPULATE_WRITE) != 0)
        perror("madvise"), exit(1);
    t = now_ns() - t;
    munmap(p, n);
    return t;
}

/* ns to read /proc/self/smaps whole. */
static double smaps(void)
{
    static char buf[1 << 16];
    double t = now_ns();
    int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
        ;
    if (fd >= 0)
        close(fd);
    return now_ns() - t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 256;
    if (reps < 1 || reps > MAX_REPS || mib < 1 || mib > (1 << 20)) {
        fprintf(stderr, "usage: bench_first_touch [REPS (1-%d) [MiB]]\n", MAX_REPS);
        return 2;
    }
    size_t n = mib << 20, pages = n / 4096;
    double store[MAX_REPS], pop[MAX_REPS], empty[MAX_REPS], full[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        int first = r & 1;
        pop[r] = first_touch(n, !first) / (double)pages;
        store[r] = first_touch(n, first) / (double)pages;
        if (first) {
            double t = pop[r];
            pop[r] = store[r], store[r] = t;
        }
        empty[r] = smaps();
    }
    char *held = fresh(n);
    memset(held, 1, n);
    for (int r = 0; r < reps; r++)
        full[r] = smaps();
    double saved = median(store, reps) - median(pop, reps);
    double walk = (median(full, reps) - median(empty, reps)) / (double)pages;
    printf("first touch of %zu MiB, 4 KiB pages, %d repetitions, medians, ns a page:\n", mib, reps);
    printf("  memset %.0f, MADV_POPULATE_WRITE %.0f: populate saves %.0f\n",
           median(store, reps), median(pop, reps), saved);
    printf("  /proc/self/smaps per resident page: %.1f\n", walk);
    printf("  ratio (resident bytes the proof may walk per byte populated): %.1f\n",
           walk > 0 ? saved / walk : 0.0);
    munmap(held, n);
    return 0;
}
