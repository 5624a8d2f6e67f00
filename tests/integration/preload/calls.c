/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * calls.c - the cost of a short memset through libpageclear-preload.so,
 * measured in one process: the C library's own memset (looked up in
 * libc.so.6, past any preload) against memset as the program finds it
 * (the preload's, under LD_PRELOAD), both called through a pointer, the
 * two interleaved in every round. Cache state: the same 64 KiB extent
 * repeated (warm), one call per CHUNK bytes, as
 * `pageclear mem memset -f glibc -k CHUNK --cache warm`.
 *
 *   LD_PRELOAD=build/preload/libpageclear-preload.so \
 *       build/tests/preload/preload_calls [ROUNDS [SIZE...]]
 *
 * (the filter: the preload's build for this CPU; name
 * libpageclear-preload-impl.so, or a copy in glibc-hwcaps/, for one entry.)
 *
 * Prints per size the median ns per call of each and the median, lowest
 * and highest of the per-round ratios (interposed / C library). A ratio
 * is the figure to quote: two runs on a shared machine move together.
 * Then the sizes up to 64 B again, each call ending at the end of a page
 * whose next page is PROT_NONE (the same bytes every call: warm), where a
 * wide masked store can cost far more than its bytes (entry_x86_64.c).
 * Without a preload both pointers are the C library's and it says so.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef void *(*memset_fn)(void *, int, size_t);

#define EXTENT 65536
#define MAX_ROUNDS 101
static char buf[EXTENT] __attribute__((aligned(4096)));

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per call of f over the extent in chunk-byte calls: about 2e7 calls
 * or 4 GiB a round, whichever comes first (some tens of ms up to 0.1 s
 * here: long against the clock, short against drift). */
__attribute__((noinline)) static double per_call(memset_fn f, size_t chunk)
{
    size_t calls = EXTENT / chunk;
    size_t reps = 20000000 / calls;
    if (reps > ((size_t)1 << 32) / EXTENT)
        reps = ((size_t)1 << 32) / EXTENT;
    reps += 1;
    double t0 = now_ns();
    for (size_t r = 0; r < reps; r++)
        for (size_t off = 0; off + chunk <= EXTENT; off += chunk)
            f(buf + off, 0, chunk);
    return (now_ns() - t0) / (double)(reps * calls);
}

/* ns per call of f on the last n bytes of page (pg bytes, whose next
 * page is PROT_NONE), 2e6 calls. */
__attribute__((noinline)) static double per_call_edge(memset_fn f, char *page, size_t pg,
                                                      size_t n)
{
    char *d = page + pg - n;
    double t0 = now_ns();
    for (int i = 0; i < 2000000; i++) {
        f(d, 0, n);
        __asm__ volatile("" ::: "memory"); /* one call per iteration */
    }
    return (now_ns() - t0) / 2e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return v[n / 2];
}

/* One row: own against found at n bytes, interleaved rounds; over the
 * 64 KiB extent, or at the end of page when page is not NULL. */
static void compare(memset_fn own, memset_fn found, int rounds, size_t n, char *page,
                    size_t pg)
{
    double a[MAX_ROUNDS], b[MAX_ROUNDS], r[MAX_ROUNDS];
    for (int i = -1; i < rounds; i++) { /* round -1 untimed: code and extent in cache */
        double x = page ? per_call_edge(own, page, pg, n) : per_call(own, n);
        double y = page ? per_call_edge(found, page, pg, n) : per_call(found, n);
        if (i >= 0) {
            a[i] = x;
            b[i] = y;
            r[i] = y / x;
        }
    }
    double ma = median(a, rounds), mb = median(b, rounds), mr = median(r, rounds);
    printf("%8zu %10.3f %10.3f %8.3f %8.3f %8.3f\n", n, ma, mb, mr, r[0], r[rounds - 1]);
}

int main(int argc, char **argv)
{
    /* 200, 248 and 288 B: where the tests before the jump to the C
     * library showed most, and which the AVX-512 copy now stores itself
     * (docs/notes.md, "Calls passed on: 129-320 B") */
    static const size_t dflt[] = {1,  3,  4,   7,   8,   12,  16,  24,  32,  48,   64,
                                  65, 96, 128, 200, 248, 256, 288, 512, 4096, 65536};
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "preload_calls: ROUNDS must be 1..%d\n", MAX_ROUNDS);
        return 2;
    }
    void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
    memset_fn own = libc ? (memset_fn)dlsym(libc, "memset") : NULL;
    memset_fn found = (memset_fn)dlsym(RTLD_DEFAULT, "memset");
    if (own == NULL || found == NULL) {
        fprintf(stderr, "preload_calls: memset not found (%s)\n", dlerror());
        return 2;
    }
    printf("# ns per call, warm 64 KiB, %d interleaved rounds; %s\n", rounds,
           own == found ? "no preload: both are the C library's memset"
                        : "interposed = the memset this program finds (a preload's)");
    printf("%8s %10s %10s %8s %8s %8s\n", "bytes", "libc", "interposed", "ratio", "lowest",
           "highest");
    int nsize = argc > 2 ? argc - 2 : (int)(sizeof(dflt) / sizeof(dflt[0]));
    size_t sizes[256];
    if (nsize > 256) {
        fprintf(stderr, "preload_calls: at most 256 SIZEs\n");
        return 2;
    }
    for (int s = 0; s < nsize; s++) {
        size_t chunk = argc > 2 ? strtoul(argv[s + 2], NULL, 0) : dflt[s];
        if (chunk == 0 || chunk > EXTENT) {
            fprintf(stderr, "preload_calls: a SIZE is 1..%d bytes\n", EXTENT);
            return 2;
        }
        sizes[s] = chunk;
        compare(own, found, rounds, chunk, NULL, 0);
    }
    /* A page and a PROT_NONE page after it. */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *page = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED || mprotect(page + pg, pg, PROT_NONE) != 0) {
        perror("preload_calls: mmap");
        return 2;
    }
    printf("# the same, each call ending at a page's end before a PROT_NONE page\n");
    for (int s = 0; s < nsize; s++)
        if (sizes[s] <= 64)
            compare(own, found, rounds, sizes[s], page, pg);
    /* What the extent holds after the last call: a check that both
     * pointers stored (a memset that did nothing would time fastest). */
    memset(buf, 0x5a, sizeof(buf));
    own(buf, 0, 100);
    found(buf + 100, 0, 100);
    for (size_t i = 0; i < 201; i++)
        if (buf[i] != (i < 200 ? 0 : 0x5a)) {
            fprintf(stderr, "preload_calls: byte %zu wrong after the calls\n", i);
            return 1;
        }
    return 0;
}
