/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * present.h - what the pc_clear_present tests share: each case in a child
 * of its own (a crash, a seccomp filter or a fork stays there), skipping
 * with its reason; the reference for what a range holds, from the classic
 * /proc/self/pagemap (64 bits a page: bit 63 present, bit 62 swapped),
 * which the library does not use; and the checks after a call.
 */
#ifndef PC_TEST_PRESENT_H
#define PC_TEST_PRESENT_H

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"

/* The system's page: the unit of the page tables (4 KiB on x86-64, 4, 16
 * or 64 KiB on arm64). */
static inline size_t sys_page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}
#define PG sys_page()

/* A case that cannot run here says why and exits with this. */
#define CASE_SKIP 77

static inline void skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("    skipped: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(CASE_SKIP);
}

/* Run fn in a child; count its outcome. */
struct tally {
    int pass, skip, fail;
};

static inline void run_case(struct tally *t, const char *name, void (*fn)(void))
{
    printf("%s\n", name);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        fn();
        fflush(NULL);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (code == 0)
        t->pass++;
    else if (code == CASE_SKIP)
        t->skip++;
    else
        t->fail++, printf("    FAILED (%s %d)\n", WIFEXITED(st) ? "exit" : "signal",
                          WIFEXITED(st) ? code : WTERMSIG(st));
}

static inline int tally_end(const struct tally *t)
{
    printf("%d passed, %d skipped, %d failed\n", t->pass, t->skip, t->fail);
    return t->fail ? 1 : 0;
}

/* What the classic pagemap says of each page of [lo, lo + len)
 * (rounded out to pages): 'P' present, 'S' swapped, '-' neither. Returns
 * the page count; kinds must hold that many. */
static inline size_t page_kinds(const void *lo, size_t len, char *kinds)
{
    uintptr_t a = (uintptr_t)lo & ~(uintptr_t)(PG - 1);
    size_t n = ((uintptr_t)lo + len - a + PG - 1) / PG;
    int fd = open("/proc/self/pagemap", O_RDONLY);
    CHECK(fd >= 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t e;
        CHECK(pread(fd, &e, sizeof(e), (off_t)((a / PG + i) * sizeof(e))) ==
              (ssize_t)sizeof(e));
        kinds[i] = e >> 63 & 1 ? 'P' : e >> 62 & 1 ? 'S' : '-';
    }
    close(fd);
    return n;
}

/* Bytes of [lo, lo + len) in pages kinds[] (as page_kinds gave them)
 * marks as k. */
static inline size_t bytes_of(const void *lo, size_t len, const char *kinds, char k)
{
    uintptr_t a = (uintptr_t)lo, b = a + len, page0 = a & ~(uintptr_t)(PG - 1);
    size_t sum = 0;
    for (uintptr_t p = page0; p < b; p += PG) {
        if (kinds[(p - page0) / PG] != k)
            continue;
        uintptr_t s = p < a ? a : p, e = p + PG > b ? b : p + PG;
        sum += e - s;
    }
    return sum;
}

/* Bytes of the range in pages the kernel has handed out nothing for. */
static inline size_t absent_now(const void *lo, size_t len)
{
    char *kinds = malloc(len / PG + 2);
    CHECK(kinds != NULL);
    page_kinds(lo, len, kinds);
    size_t n = bytes_of(lo, len, kinds, '-');
    free(kinds);
    return n;
}

static inline int all_bytes(const char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] != v)
            return 0;
    return 1;
}

/* The report adds up, and says why when and only when it fell back. */
static inline void check_report(const struct pc_present_report *r, size_t len)
{
    CHECK_EQ(r->skipped + r->cleared + r->populated, len);
    CHECK(r->unproven <= r->cleared);
    CHECK((r->unproven == 0) == (r->why == PC_PRESENT_PROVEN));
}

/* A private anonymous mapping of n pages between PROT_NONE guard pages,
 * without transparent huge pages (unless thp), untouched. */
static inline char *anon_map(size_t pages, int thp)
{
    size_t len = (pages + 2) * PG;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    CHECK(mprotect(m, PG, PROT_NONE) == 0);
    CHECK(mprotect(m + len - PG, PG, PROT_NONE) == 0);
    if (!thp)
        (void)madvise(m + PG, pages * PG, MADV_NOHUGEPAGE);
    return m + PG;
}

/* Why this kernel (or emulator, or filter) cannot say which pages are
 * absent, or 0 where it can: a dry run over two pages, one written. Under
 * qemu-user the scan is ENOSYS, before Linux 6.7 ENOTTY; the library then
 * clears everything and says so, which is what scan_fallback checks. */
static inline enum pc_present_why scan_unavailable(void)
{
    char *m = anon_map(2, 0);
    m[0] = 1;
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m, 2 * PG, PC_PRESENT_DRY_RUN, &r), 0);
    CHECK(munmap(m - PG, 4 * PG) == 0);
    return r.why == PC_PRESENT_NO_SCAN || r.why == PC_PRESENT_REFUSED ||
                   r.why == PC_PRESENT_NO_MAPS
               ? r.why
               : PC_PRESENT_PROVEN;
}

/* Where the pages cannot be told: a range partly written, some of it
 * absent, is cleared whole, nothing skipped, said as unproven, and the
 * bytes around it are kept. */
static inline void scan_fallback(void)
{
    char *m = anon_map(16, 0);
    for (size_t i = 0; i < 16; i += 3)
        memset(m + i * PG, 0x5a, PG);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m + 7, 15 * PG, 0, &r), 0);
    check_report(&r, 15 * PG);
    CHECK_EQ(r.skipped, 0);
    CHECK_EQ(r.unproven, 15 * PG);
    CHECK(r.why == PC_PRESENT_NO_SCAN || r.why == PC_PRESENT_REFUSED ||
          r.why == PC_PRESENT_NO_MAPS);
    CHECK(all_bytes(m + 7, 15 * PG, 0));
    CHECK(all_bytes(m, 7, 0x5a));
    CHECK(all_bytes(m + 7 + 15 * PG, PG - 7, 0x5a));
    CHECK_EQ(pc_clear_present(m, PG, PC_PRESENT_NO_FALLBACK, &r), -ENOTSUP);
    CHECK(all_bytes(m, 7, 0x5a)); /* refused: nothing written */
}

/* Where the scan is unavailable (scan_unavailable), the cases that check
 * what was skipped cannot run: the fallback is checked instead. Returns
 * 1 when it ran (main then ends), 0 where the scan works. */
static inline int only_the_fallback(struct tally *t)
{
    enum pc_present_why why = scan_unavailable();
    if (why == PC_PRESENT_PROVEN)
        return 0;
    printf("the kernel cannot say which pages are absent here (why %d): the cases that "
           "check what is skipped do not apply; the fallback does\n", (int)why);
    run_case(t, "no page scan: everything cleared, and said", scan_fallback);
    return 1;
}

/* 1 if an ancestor of this process (or it) holds an flock on path, as
 * `flock LOCK ctest` does: taking the lock again would wait for ever.
 * tests/helpers/lock.py answers, the one copy the scripts use too (its
 * path from tests/CMakeLists.txt); where python3 cannot run, 0, as where
 * /proc/locks cannot be read. */
static inline int lock_held_above(const char *path)
{
    char *argv[] = {"python3", PC_TEST_LOCK_PY, "held-above", (char *)path, NULL};
    pid_t pid;
    int st;
    if (posix_spawnp(&pid, "python3", NULL, NULL, argv, environ) != 0)
        return 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Take the flock on path unless an ancestor holds it, waiting up to
 * seconds (0: as long as it takes): its descriptor; -1 if an ancestor
 * holds it (go ahead under it); -2 if it stayed busy. */
static inline int take_lock(const char *path, int seconds)
{
    if (lock_held_above(path))
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    CHECK(fd >= 0);
    if (seconds == 0) {
        CHECK(flock(fd, LOCK_EX) == 0);
        return fd;
    }
    for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
        if (tries == seconds * 10) {
            close(fd);
            return -2;
        }
        usleep(100 * 1000);
    }
    return fd;
}

#endif /* PC_TEST_PRESENT_H */
