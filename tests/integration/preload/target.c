/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * target.c - a program that knows nothing of pageclear (it is not built
 * or linked against it), run by tests/integration/preload/preload.sh under
 * libpageclear-preload.so. It calls memset, bzero, explicit_bzero and
 * __memset_chk through volatile function pointers, so that its compiler
 * keeps every call a call, and checks every byte: the extent, the
 * sentinels around it and, for large extents, guard pages. It exits 0 if
 * every check held, 1 (with a line on stderr) if one did not.
 *
 *   target correct    every length 0..8 KiB at every alignment 0..63,
 *                     short calls from the last 64 bytes of a page, and
 *                     selected large lengths, bytes 0 and non-zero, all
 *                     four entry points; return values; length 0 at a
 *                     guard page
 *   target route      16 calls of 24 B, 64 of 64 KiB and 3 of 4 MiB (the script reads
 *                     PAGECLEAR_PRELOAD_STATS to see where they went)
 *   target ctor       checks what its constructor and early.so's cleared
 *   target signal     memset in a SIGALRM handler firing while the main
 *                     loop clears large extents
 *   target threads    4 threads clearing their own extents
 *   target fork       a child clears after fork
 *   target first      a fresh mapping cleared twice: the first call is its
 *                     first touch (the preload leaves it to the C library),
 *                     the second is not; errno unchanged by both
 *   target chk        __memset_chk with a destination too small (must
 *                     abort as the C library does)
 *   target wx         the correct case, then no mapping writable and
 *                     executable, and memset's code as built (x86-64: its
 *                     head reads its first limit); run under wx.c
 *   target env        prints LD_PRELOAD
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

void *__memset_chk(void *s, int c, size_t n, size_t destlen);

static void *(*volatile f_memset)(void *, int, size_t) = memset;
static void (*volatile f_bzero)(void *, size_t) = bzero;
static void (*volatile f_explicit_bzero)(void *, size_t) = explicit_bzero;
static void *(*volatile f_memset_chk)(void *, int, size_t, size_t) = __memset_chk;

#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "target: %s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

#define SENTINEL 0x3c
#define PAD 64
#define SMALL_MAX 8192

/* 1 if n bytes at p are all b (memcmp against a run of b: the C
 * library's, which the preload does not interpose). */
static unsigned char runs[256][PAD + 64 + SMALL_MAX + PAD]; /* buf of small_lengths */
static int all(const unsigned char *p, size_t n, unsigned char b)
{
    while (n > 0) {
        size_t k = n < sizeof(runs[b]) ? n : sizeof(runs[b]);
        if (memcmp(p, runs[b], k) != 0)
            return 0;
        p += k;
        n -= k;
    }
    return 1;
}

static void make_run(unsigned char b)
{
    for (size_t i = 0; i < sizeof(runs[b]); i++)
        runs[b][i] = b;
}

/* One call of entry point e (0 memset, 1 bzero, 2 explicit_bzero,
 * 3 __memset_chk) setting n bytes at p to b (0 for the bzero ones). */
static void call(int e, unsigned char *p, int b, size_t n)
{
    switch (e) {
    case 0:
        CHECK(f_memset(p, b, n) == p);
        break;
    case 1:
        f_bzero(p, n);
        break;
    case 2:
        f_explicit_bzero(p, n);
        break;
    default:
        CHECK(f_memset_chk(p, b, n, n + (size_t)b % 3) == p);
        break;
    }
}

/* Every length 0..8 KiB at every alignment 0..63: memset and
 * __memset_chk with 0 and 0xa5, bzero and explicit_bzero. */
static void small_lengths(void)
{
    static unsigned char buf[PAD + 64 + SMALL_MAX + PAD];
    static const struct { int e, b; } calls[] = {{0, 0}, {0, 0xa5}, {1, 0}, {2, 0}, {3, 0},
                                                 {3, 0xa5}};
    make_run(SENTINEL);
    make_run(0);
    make_run(0xa5);
    memcpy(buf, runs[SENTINEL], sizeof(buf));
    for (size_t n = 0; n <= SMALL_MAX; n++)
        for (size_t a = 0; a < 64; a++)
            for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
                unsigned char *p = buf + PAD + a;
                call(calls[k].e, p, calls[k].b, n);
                if (!all(p, n, (unsigned char)calls[k].b) || !all(p - PAD, PAD, SENTINEL) ||
                    !all(p + n, PAD, SENTINEL)) {
                    fprintf(stderr, "target: entry %d byte %#x length %zu alignment %zu: wrong\n",
                            calls[k].e, calls[k].b, n, a);
                    exit(1);
                }
                memcpy(p, runs[SENTINEL], n);
            }
}

/* Calls of up to 128 B starting in the last 64 bytes of a page, running
 * on into the next (mapped) page, and calls of up to 64 B ending at or
 * before a PROT_NONE page: where a wide store from s would reach past the
 * page (entry_x86_64.c stores these differently). Every entry point and
 * byte of small_lengths, whose runs it reuses (so it runs after it); the
 * 256 bytes each side of each call checked. */
static void page_ends(void)
{
    static const struct { int e, b; } calls[] = {{0, 0}, {0, 0xa5}, {1, 0}, {2, 0}, {3, 0},
                                                 {3, 0xa5}};
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    CHECK(m != MAP_FAILED);
    CHECK(mprotect(m, pg, PROT_NONE) == 0 && mprotect(m + 3 * pg, pg, PROT_NONE) == 0);
    unsigned char *lo = m + pg, *hi = m + 3 * pg; /* two mapped pages */
    for (size_t i = 0; i < 2 * pg; i += 256)
        memcpy(lo + i, runs[SENTINEL], 256);
    for (int second = 0; second < 2; second++)
        for (size_t i = 0; i < 64; i++) {
            unsigned char *p = lo + (second + 1) * pg - 64 + i;
            size_t most = second ? 64 - i : 128;
            for (size_t n = 0; n <= most; n++)
                for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
                    call(calls[k].e, p, calls[k].b, n);
                    unsigned char *from = p - 256 > lo ? p - 256 : lo;
                    unsigned char *to = p + n + 256 < hi ? p + n + 256 : hi;
                    if (!all(p, n, (unsigned char)calls[k].b) ||
                        !all(from, (size_t)(p - from), SENTINEL) ||
                        !all(p + n, (size_t)(to - p - n), SENTINEL)) {
                        fprintf(stderr, "target: entry %d byte %#x length %zu at %zu bytes "
                                        "before a page's end: wrong\n",
                                calls[k].e, calls[k].b, n, 64 - i);
                        exit(1);
                    }
                    memcpy(p, runs[SENTINEL], n);
                }
        }
    munmap(m, 4 * pg);
}

/* n bytes ending a bytes before a PROT_NONE page (a <= 63) and preceded
 * by one: a store out of bounds faults, one short leaves a sentinel. */
static void large_length(size_t n, size_t a, int e, int b)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (n + a + pg - 1) / pg * pg;
    unsigned char *m = mmap(NULL, span + 2 * pg, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    CHECK(mprotect(m, pg, PROT_NONE) == 0 && mprotect(m + pg + span, pg, PROT_NONE) == 0);
    unsigned char *base = m + pg, *p = base + span - n - a;
    for (size_t i = 0; i < span; i += sizeof(runs[SENTINEL]))
        memcpy(base + i, runs[SENTINEL],
               span - i < sizeof(runs[SENTINEL]) ? span - i : sizeof(runs[SENTINEL]));
    call(e, p, b, n);
    CHECK(all(p, n, (unsigned char)b));
    CHECK(all(base, (size_t)(p - base), SENTINEL));
    CHECK(all(p + n, a, SENTINEL));
    munmap(m, span + 2 * pg);
}

static int mode_correct(void)
{
    small_lengths();
    page_ends();
    make_run(0x5a);
    /* 64 KiB and either side of it: the last length the AVX-512 copy
     * stores with rep stosb (entry_x86_64_v4.c) and the first it passes on */
    const size_t big[] = {((size_t)64 << 10) - 1, (size_t)64 << 10, ((size_t)64 << 10) + 1,
                          ((size_t)1 << 20) + 3,   ((size_t)4 << 20) - 1,
                          ((size_t)16 << 20) + 17, (size_t)64 << 20};
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
        for (int e = 0; e < 4; e++) {
            large_length(big[i], (i * 13 + (size_t)e) % 64, e, 0);
            if (e == 0 || e == 3)
                large_length(big[i], (i * 7 + (size_t)e) % 64, e, 0x5a);
        }
    /* Length 0 touches nothing: at a PROT_NONE page, it must not fault. */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *g = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(g != MAP_FAILED);
    for (int e = 0; e < 4; e++)
        call(e, g, 0x11, 0);
    return 0;
}

/* Write one byte in every page of [p, p + n), so that a clear after it is
 * not the memory's first touch (which the preload leaves to the C
 * library: mode_first). A volatile loop, never a memset call. */
static void touch(unsigned char *p, size_t n)
{
    volatile unsigned char *v = p;
    for (size_t i = 0; i < n; i += 4096)
        v[i] = 1;
    v[n - 1] = 1;
}

/* 64 calls of 64 KiB, 3 of 4 MiB (memset 0, explicit_bzero, memset
 * 0xee), on memory already touched: tests/integration/preload/preload.sh
 * reads where they went. */
static int mode_route(void)
{
    static unsigned char small[64 << 10];
    for (int i = 0; i < 64; i++) {
        make_run((unsigned char)(i + 1));
        call(0, small, i + 1, sizeof(small));
        CHECK(all(small, sizeof(small), (unsigned char)(i + 1)));
    }
    make_run(0x5b);
    for (int i = 0; i < 16; i++) { /* short calls: the chain case counts them */
        call(0, small, 0x5b, 24);
        CHECK(all(small, 24, 0x5b) && small[24] != 0x5b);
    }
    size_t n = (size_t)4 << 20;
    unsigned char *big = malloc(n);
    CHECK(big != NULL);
    touch(big, n);
    const int bytes[3] = {0, 0, 0xee};
    for (int i = 0; i < 3; i++) {
        make_run((unsigned char)bytes[i]);
        call(i == 1 ? 2 : 0, big, bytes[i], n);
        CHECK(all(big, n, (unsigned char)bytes[i]));
    }
    free(big);
    return 0;
}

/* Constructors: this program's runs after the preload's; early.so's (a
 * library preloaded after it, so initialised before it) runs while the
 * preload still takes its safe path. Each clears 2 MiB it had filled. */
#define CTOR_LEN ((size_t)2 << 20)
static unsigned char ctor_buf[CTOR_LEN];
static int ctor_ok;
__attribute__((constructor)) static void target_ctor(void)
{
    volatile unsigned char *v = ctor_buf; /* a loop, never a memset call */
    for (size_t i = 0; i < CTOR_LEN; i++)
        v[i] = 0xee;
    f_memset(ctor_buf, 0, CTOR_LEN);
    for (size_t i = 0; i < CTOR_LEN; i++)
        if (ctor_buf[i] != 0)
            return;
    ctor_ok = 1;
}

static int mode_ctor(void)
{
    CHECK(ctor_ok);
    const int *early = dlsym(RTLD_DEFAULT, "pc_test_early_ok");
    CHECK(early != NULL); /* early.so is preloaded */
    CHECK(*early == 1);
    return 0;
}

/* A handler clearing (zero, then a byte) 256 KiB while the main loop
 * clears 8 MiB extents: both must come out right, whichever path each
 * call takes when the signal lands. */
#define SIG_LEN ((size_t)256 << 10)
static unsigned char sig_buf[SIG_LEN];
static volatile sig_atomic_t sig_runs, sig_bad;
static void on_alarm(int s)
{
    (void)s;
    f_memset(sig_buf, 0, SIG_LEN);
    if (sig_buf[0] != 0 || sig_buf[SIG_LEN - 1] != 0)
        sig_bad = 1;
    f_memset(sig_buf, 0x42, SIG_LEN);
    for (size_t i = 0; i < SIG_LEN; i += 4096)
        if (sig_buf[i] != 0x42)
            sig_bad = 1;
    sig_runs++;
}

static int mode_signal(void)
{
    struct sigaction sa;
    f_memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    struct itimerval it = {{0, 200}, {0, 200}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    size_t n = (size_t)8 << 20;
    unsigned char *big = malloc(n);
    CHECK(big != NULL);
    make_run(0);
    make_run(0x99);
    for (int i = 0; i < 200 || sig_runs < 20; i++) {
        int b = i % 2 ? 0x99 : 0;
        call(0, big, b, n);
        CHECK(all(big, n, (unsigned char)b));
        CHECK(i < 100000);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    CHECK(!sig_bad);
    return 0;
}

#define NTHREADS 4
static void *thread_main(void *arg)
{
    size_t t = (size_t)(uintptr_t)arg;
    size_t n = ((size_t)3 << 20) + t * 4097;
    unsigned char *p = malloc(n);
    if (p == NULL)
        return (void *)1;
    touch(p, n);
    for (int i = 0; i < 50; i++) {
        unsigned char b = (unsigned char)(i % 3 == 0 ? 0 : t * 16 + (size_t)i % 7 + 1);
        call(i % 4, p, i % 4 == 1 || i % 4 == 2 ? 0 : b, n - (size_t)i);
        unsigned char want = i % 4 == 1 || i % 4 == 2 ? 0 : b;
        for (size_t k = 0; k < n - (size_t)i; k++)
            if (p[k] != want) {
                free(p);
                return (void *)1;
            }
    }
    free(p);
    return NULL;
}

static int mode_threads(void)
{
    pthread_t th[NTHREADS];
    for (size_t t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, (void *)(uintptr_t)t) == 0);
    for (size_t t = 0; t < NTHREADS; t++) {
        void *r;
        CHECK(pthread_join(th[t], &r) == 0);
        CHECK(r == NULL);
    }
    return 0;
}

static int mode_fork(void)
{
    size_t n = (size_t)4 << 20;
    unsigned char *p = malloc(n);
    CHECK(p != NULL);
    make_run(0);
    make_run(0x31);
    call(0, p, 0x31, n);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        call(0, p, 0, n);
        exit(all(p, n, 0) ? 0 : 3); /* exit: the preload reports at exit */
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(all(p, n, 0x31)); /* the child's copy, not ours */
    call(3, p, 0, n);
    CHECK(all(p, n, 0));
    free(p);
    return 0;
}

/* A fresh 4 MiB mapping, its first and last bytes written (as an
 * allocator's header and CPython's terminating NUL do): the first memset
 * faults the other pages in (the preload's mincore sees the middle page
 * not resident: to the C library),
 * the second finds them resident (to pageclear from preload_min 1M).
 * tests/integration/preload/preload.sh reads the routes; here, the bytes
 * and errno. */
static int mode_first(void)
{
    size_t n = (size_t)4 << 20;
    unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    ((volatile unsigned char *)p)[0] = 1;
    ((volatile unsigned char *)p)[n - 1] = 1;
    make_run(0);
    make_run(0x77);
    errno = EILSEQ;
    call(0, p, 0x77, n);
    CHECK(errno == EILSEQ);
    CHECK(all(p, n, 0x77));
    errno = EDOM;
    call(0, p, 0, n);
    CHECK(errno == EDOM);
    CHECK(all(p, n, 0));
    munmap(p, n);
    return 0;
}

static int mode_chk(void)
{
    static unsigned char buf[(size_t)2 << 20];
    f_memset_chk(buf, 0, sizeof(buf), sizeof(buf) - 1); /* must not return */
    fprintf(stderr, "target: __memset_chk returned for a destination too small\n");
    return 1;
}

/* No mapping of this process is writable and executable, after every
 * length and alignment through the preload's entry (mode_correct); on
 * x86-64 memset's head still reads its first limit from memory (mov
 * %rdi, %rax: 48 89 f8, then cmp VAR(%rip): 48 3b): its code is as
 * built. Run under tests/integration/preload/wx.c, which kills the
 * process at any
 * request for writable and executable memory. */
static int mode_wx(void)
{
    if (mode_correct() != 0)
        return 1;
    FILE *f = fopen("/proc/self/maps", "re");
    CHECK(f != NULL);
    char line[512], perms[8];
    int wx = 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' && perms[2] == 'x') {
            fprintf(stderr, "target: writable and executable: %s", line);
            wx = 1;
        }
    fclose(f);
    CHECK(!wx);
#if defined(__x86_64__)
    const unsigned char *h = dlsym(RTLD_DEFAULT, "memset");
    CHECK(h != NULL);
    if (h[0] == 0x48 && h[1] == 0x89 && h[2] == 0xf8) /* the preload's entry */
        CHECK(h[3] == 0x48 && h[4] == 0x3b);
#endif
    printf("no writable and executable mapping\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (strcmp(m, "correct") == 0)
        return mode_correct();
    if (strcmp(m, "route") == 0)
        return mode_route();
    if (strcmp(m, "ctor") == 0)
        return mode_ctor();
    if (strcmp(m, "signal") == 0)
        return mode_signal();
    if (strcmp(m, "threads") == 0)
        return mode_threads();
    if (strcmp(m, "fork") == 0)
        return mode_fork();
    if (strcmp(m, "chk") == 0)
        return mode_chk();
    if (strcmp(m, "first") == 0)
        return mode_first();
    if (strcmp(m, "wx") == 0)
        return mode_wx();
    if (strcmp(m, "env") == 0) {
        const char *v = getenv("LD_PRELOAD");
        printf("LD_PRELOAD=%s\n", v ? v : "");
        return 0;
    }
    fprintf(stderr, "usage: target correct|route|ctor|signal|threads|fork|first|chk|wx|env\n");
    return 2;
}
