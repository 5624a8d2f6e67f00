/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * first_touch.c - the program
 * tests/integration/preload/preload_first_touch.sh runs under the
 * preload, built without pageclear: zero memsets of fresh memory, the
 * kind PAGECLEAR_PRELOAD_FIRST_TOUCH is for, and of a file's private
 * mapping, where nothing may be populated or skipped. It prints what the
 * classic /proc/self/pagemap says was absent before the anonymous memset
 * and after it (before any byte is read), so the script can check the
 * preload's counts and the mode's outcome against it, and fails unless
 * every byte reads zero afterwards and the bytes around each range are
 * kept.
 * With "large", a first touch in a process too large for the proof to pay.
 * Usage: first-touch-target [large]
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ANON ((size_t)64 << 20)
#define FILE_LEN ((size_t)32 << 20)
#define SMALL ((size_t)2 << 20)

/* Through a pointer the compiler cannot see through: every call reaches
 * the memset the dynamic loader bound, the preload's. */
static void *(*volatile set)(void *, int, size_t) = memset;

static void fail(const char *what)
{
    fprintf(stderr, "first-touch-target: %s\n", what);
    exit(1);
}

/* Bytes of [p, p + n) (page aligned) in pages neither present nor swapped. */
static size_t absent(const char *p, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), sum = 0;
    int fd = open("/proc/self/pagemap", O_RDONLY);
    if (fd < 0)
        fail("cannot open /proc/self/pagemap");
    for (size_t i = 0; i < n / pg; i++) {
        uint64_t e;
        if (pread(fd, &e, sizeof(e), (off_t)(((uintptr_t)p / pg + i) * sizeof(e))) !=
            (ssize_t)sizeof(e))
            fail("cannot read /proc/self/pagemap");
        sum += e >> 62 == 0 ? pg : 0;
    }
    close(fd);
    return sum;
}

static void check_zero(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            fail("a byte not zero after memset");
}

/* Fresh anonymous memory, as an allocator hands it out: its first and
 * last bytes written (a header, a terminating NUL), the rest untouched;
 * a sentinel page either side. */
static void fresh(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, ANON + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (m == MAP_FAILED)
        fail("mmap");
    (void)madvise(m, ANON + 2 * pg, MADV_NOHUGEPAGE); /* exact page counts */
    char *p = m + pg;
    m[pg - 1] = 'a';
    p[0] = 'h';
    p[ANON - 1] = 'n';
    p[ANON] = 'z';
    printf("anon absent %zu\n", absent(p, ANON));
    fflush(stdout);
    set(p, 0, ANON);
    printf("anon absent-after %zu\n", absent(p, ANON));
    fflush(stdout);
    check_zero(p, ANON);
    if (m[pg - 1] != 'a' || p[ANON] != 'z')
        fail("a byte around the anonymous range changed");
}

/* A file's private mapping, never touched: its pages read the file, so
 * nothing may be populated or skipped. As a first touch the preload asks
 * pc_clear_present, which refuses, and the C library's memset gets it;
 * where the file stays in the page cache, pc_clear does. */
static void file_mapping(void)
{
    char name[] = "/tmp/pageclear-first-touch-XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0)
        fail("mkstemp");
    unlink(name);
    static char chunk[1 << 16];
    set(chunk, 0x5a, sizeof(chunk));
    for (size_t off = 0; off < FILE_LEN; off += sizeof(chunk))
        if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
            fail("write");
    /* Out of the page cache where the file system lets it go (not tmpfs),
     * so that the memset is a first touch (preload.c asks mincore). */
    (void)fsync(fd);
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    char *p = mmap(NULL, FILE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        fail("mmap of the file");
    unsigned char vec = 0;
    if (mincore(p + FILE_LEN / 2, 1, &vec) != 0)
        fail("mincore");
    printf("file first-touch %d\n", !(vec & 1));
    fflush(stdout);
    set(p, 0, FILE_LEN);
    check_zero(p, FILE_LEN);
    close(fd);
}

/* A first touch of 2 MiB in a process holding 64 MiB resident: the
 * proof could cost more than populating saves (preload/first_touch.c,
 * RESIDENT_MAX), so the C library gets it. */
static void large_process(void)
{
    char *held = mmap(NULL, ANON, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *p = mmap(NULL, SMALL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (held == MAP_FAILED || p == MAP_FAILED)
        fail("mmap");
    for (size_t i = 0; i < ANON; i += 4096)
        held[i] = 1;
    set(p, 0, SMALL);
    check_zero(p, SMALL);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "large") == 0) {
        large_process();
        printf("ok\n");
        return 0;
    }
    fresh();
    file_mapping();
    printf("ok\n");
    return 0;
}
