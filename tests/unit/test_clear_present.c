/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_clear_present.c - pc_clear_present on private anonymous memory:
 * some pages present, some read (the zero page), some never touched;
 * transparent huge pages partly present; both sides of a fork; swapped
 * pages; several mappings in one range; threads; every bad argument.
 * Each case checks that the whole range reads zero afterwards, that
 * nothing outside it changed (guard pages and sentinel bytes), and that
 * the report matches the reference: the classic /proc/self/pagemap read
 * before and after (the library uses PAGEMAP_SCAN, not this). The other
 * mapping kinds: test_clear_present_kinds.c.
 */
#include <pthread.h>
#include <sys/swap.h>

#include "present.h"

/* Pages the cases write (their pattern) and only read (the zero page),
 * of a 64-page mapping; the range starts 123 bytes into page 0 and ends
 * 1000 bytes into page 63, so both ends are partial pages, one present
 * (page 0) and one not (page 63). */
#define NPAGES 64
static const int written[] = {0, 1, 5, 6, 7, 30, 62};
static const int read_only[] = {10, 11, 40};
#define HEAD 123
#define TAIL 1000

static char *setup_partly(void)
{
    char *m = anon_map(NPAGES, 0);
    for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++)
        pat_fill(m + (size_t)written[i] * PG, PG);
    for (size_t i = 0; i < sizeof(read_only) / sizeof(read_only[0]); i++)
        CHECK(((volatile char *)m)[(size_t)read_only[i] * PG + 7] == 0);
    return m;
}

/* The bytes of [lo, lo + len) the call must skip: absent pages, and the
 * pages the case only read (mapped to the zero page). */
static size_t want_skipped(const char *m, const char *lo, size_t len)
{
    char kinds[NPAGES + 1];
    page_kinds(m, NPAGES * PG, kinds);
    for (size_t i = 0; i < sizeof(read_only) / sizeof(read_only[0]); i++) {
        CHECK(kinds[read_only[i]] == 'P'); /* the zero page is present */
        kinds[read_only[i]] = '-';
    }
    /* bytes_of wants kinds from lo's page on */
    size_t first = (size_t)((uintptr_t)lo - (uintptr_t)m) / PG;
    return bytes_of(lo, len, kinds + first, '-');
}

/* The range zero, the bytes around it as they were: page 0's head holds
 * the pattern, page 63's tail nothing. */
static void check_partly(const char *m, const char *lo, size_t len)
{
    CHECK(all_bytes(lo, len, 0));
    CHECK(pat_check(m, HEAD, HEAD, HEAD) == SIZE_MAX);
    CHECK(all_bytes(lo + len, NPAGES * PG - HEAD - len, 0));
}

static void partly_present(void)
{
    char *m = setup_partly();
    char *lo = m + HEAD;
    size_t len = (NPAGES - 1) * PG + TAIL - HEAD;
    size_t want = want_skipped(m, lo, len);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(lo, len, 0, &r), 0);
    check_report(&r, len);
    CHECK_EQ(r.why, PC_PRESENT_PROVEN);
    CHECK_EQ(r.skipped, want);
    CHECK(r.used & PC_PRESENT_USED_SCAN);
    CHECK(r.used & (PC_PRESENT_USED_PROCMAP_QUERY | PC_PRESENT_USED_MAPS));
    CHECK(r.used & PC_PRESENT_USED_SMAPS); /* it skipped: it had to ask */
    /* The skipped pages are still not handed out: nothing faulted them. */
    char kinds[NPAGES];
    page_kinds(m, NPAGES * PG, kinds);
    CHECK_EQ(kinds[63], '-');
    CHECK_EQ(kinds[20], '-');
    check_partly(m, lo, len);
    printf("    %zu of %zu bytes skipped\n", r.skipped, len);
}

/* Every page present: nothing to skip, so no userfaultfd question. */
static void all_present(void)
{
    char *m = anon_map(NPAGES, 0);
    pat_fill(m, NPAGES * PG);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m + 1, NPAGES * PG - 2, 0, &r), 0);
    check_report(&r, NPAGES * PG - 2);
    CHECK_EQ(r.skipped, 0);
    CHECK_EQ(r.why, PC_PRESENT_PROVEN);
    CHECK(!(r.used & PC_PRESENT_USED_SMAPS));
    CHECK(all_bytes(m + 1, NPAGES * PG - 2, 0));
    CHECK_EQ((unsigned char)m[0], pat(0));
    CHECK_EQ((unsigned char)m[NPAGES * PG - 1], pat(NPAGES * PG - 1));
}

/* THP partly present: huge pages 0 and 2 of four touched by one byte
 * each. Where the kernel gave huge pages, the other two are absent
 * whole; khugepaged may fill pages in at any time, so the skipped bytes
 * are bounded by what was absent before and is absent after. */
static void thp_partly(void)
{
    const size_t huge = (size_t)2 << 20, len = 4 * huge;
    char *raw = mmap(NULL, len + 3 * huge, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(raw != MAP_FAILED);
    char *m = (char *)(((uintptr_t)raw + 2 * huge - 1) & ~(uintptr_t)(huge - 1));
    CHECK(mprotect(m - PG, PG, PROT_NONE) == 0 && mprotect(m + len, PG, PROT_NONE) == 0);
    if (madvise(m, len, MADV_HUGEPAGE) != 0)
        skip("madvise(MADV_HUGEPAGE): %s", strerror(errno));
    m[0] = 1;
    m[2 * huge + 5] = 2;
    size_t before = absent_now(m, len);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m, len, 0, &r), 0);
    size_t after = absent_now(m, len);
    check_report(&r, len);
    CHECK_EQ(r.why, PC_PRESENT_PROVEN);
    CHECK(r.skipped <= before && r.skipped >= after);
    CHECK(r.skipped >= 2 * huge); /* huge pages 1 and 3 never touched */
    CHECK(all_bytes(m, len, 0));
    printf("    %s: %zu MiB skipped of %zu\n",
           before == 2 * huge ? "huge pages" : "4 KiB pages (no THP given)",
           r.skipped >> 20, len >> 20);
}

/* After fork both sides share the written pages copy-on-write: each
 * clears its own copy and skips the pages neither has. */
static void fork_cow(void)
{
    char *m = setup_partly();
    char *lo = m + HEAD;
    size_t len = (NPAGES - 1) * PG + TAIL - HEAD;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        size_t want = want_skipped(m, lo, len);
        struct pc_present_report r;
        CHECK_EQ(pc_clear_present(lo, len, 0, &r), 0);
        CHECK_EQ(r.skipped, want);
        check_partly(m, lo, len);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* The child's clear never reached the parent's pages. */
    for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++)
        CHECK(pat_check(m + (size_t)written[i] * PG, PG, 0, 0) == SIZE_MAX);
    size_t want = want_skipped(m, lo, len);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(lo, len, 0, &r), 0);
    CHECK_EQ(r.skipped, want);
    check_partly(m, lo, len);
}

/* Swap for the case: the system's if it has some, else a swap file of
 * 64 MiB made and enabled here (root; a file system that takes swap
 * files). Returns 1 with *made set when this made one (path holds it). */
static int get_swap(char *path, size_t cap, int *made)
{
    *made = 0;
    FILE *f = fopen("/proc/swaps", "r");
    char line[256];
    int lines = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        lines++;
    if (f != NULL)
        fclose(f);
    if (lines > 1)
        return 1; /* a header and a device */
    snprintf(path, cap, "/var/tmp/pageclear-test-swap.%ld", (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    static char zeros[1 << 16];
    int ok = 1;
    for (int i = 0; ok && i < 1024; i++)
        ok = write(fd, zeros, sizeof(zeros)) == (ssize_t)sizeof(zeros);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "mkswap %s > /dev/null 2>&1", path);
    if (!ok || system(cmd) != 0 || swapon(path, 0) != 0) {
        printf("    no swap file here: %s\n", ok ? strerror(errno) : "cannot write it");
        unlink(path);
        return 0;
    }
    *made = 1;
    return 1;
}

/* Swapped pages hold data: cleared (swapped in and zeroed), never
 * skipped. Pages are pushed out with MADV_PAGEOUT (Linux 5.4). */
static void swapped_case(void)
{
    char *m = setup_partly();
    if (madvise(m, NPAGES * PG, MADV_PAGEOUT) != 0)
        skip("madvise(MADV_PAGEOUT): %s", strerror(errno));
    char kinds[NPAGES];
    page_kinds(m, NPAGES * PG, kinds);
    size_t swapped = 0;
    for (int i = 0; i < NPAGES; i++)
        swapped += kinds[i] == 'S';
    if (swapped == 0)
        skip("MADV_PAGEOUT swapped no page out");
    char *lo = m + HEAD;
    size_t len = (NPAGES - 1) * PG + TAIL - HEAD;
    size_t want = want_skipped(m, lo, len);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(lo, len, 0, &r), 0);
    CHECK_EQ(r.skipped, want);
    CHECK_EQ(r.why, PC_PRESENT_PROVEN);
    check_partly(m, lo, len);
    printf("    %zu pages were swapped\n", swapped);
}

static void swapped(void)
{
    int lock = take_lock("/tmp/pageclear-swap.lock", 0);
    char path[256];
    int made;
    if (!get_swap(path, sizeof(path), &made))
        skip("no swap device, and no swap file could be made (not root, or the "
             "file system of /var/tmp takes none)");
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        swapped_case();
        fflush(NULL);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (made) {
        CHECK(swapoff(path) == 0); /* given back */
        unlink(path);
    }
    if (lock >= 0)
        close(lock);
    if (WIFEXITED(st) && WEXITSTATUS(st) == CASE_SKIP)
        exit(CASE_SKIP);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A dry run writes nothing and says what the call then does; with
 * NO_FALLBACK on anonymous memory, the call goes ahead. */
static void dry_run(void)
{
    char *m = setup_partly();
    char *lo = m + HEAD;
    size_t len = (NPAGES - 1) * PG + TAIL - HEAD;
    char before[NPAGES], after[NPAGES];
    page_kinds(m, NPAGES * PG, before);
    struct pc_present_report dry, real;
    CHECK_EQ(pc_clear_present(lo, len, PC_PRESENT_DRY_RUN | PC_PRESENT_NO_FALLBACK, &dry), 0);
    page_kinds(m, NPAGES * PG, after);
    CHECK(memcmp(before, after, NPAGES) == 0); /* nothing faulted in */
    for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++)
        CHECK(pat_check(m + (size_t)written[i] * PG, PG, 0, 0) == SIZE_MAX);
    CHECK_EQ(pc_clear_present(lo, len, PC_PRESENT_NO_FALLBACK, &real), 0);
    CHECK(memcmp(&dry, &real, sizeof(dry)) == 0);
    check_partly(m, lo, len);
}

/* anonymous | a file's private mapping | anonymous, in one range: the
 * file part cleared whole and said, the others skipped where absent. */
static void three_mappings(void)
{
    char *m = anon_map(3 * 16, 0);
    char name[] = "/tmp/pageclear-present-XXXXXX";
    int fd = mkstemp(name);
    CHECK(fd >= 0);
    unlink(name);
    char *page = malloc(16 * PG);
    pat_fill(page, 16 * PG);
    CHECK(write(fd, page, 16 * PG) == (ssize_t)(16 * PG));
    CHECK(mmap(m + 16 * PG, 16 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
          m + 16 * PG);
    m[3 * PG] = 1;
    m[40 * PG] = 1;
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m, 48 * PG, 0, &r), 0);
    check_report(&r, 48 * PG);
    CHECK_EQ(r.why, PC_PRESENT_FILE);
    CHECK_EQ(r.unproven, 16 * PG);
    CHECK_EQ(r.skipped, 30 * PG);
    CHECK(all_bytes(m, 48 * PG, 0));
    CHECK(pread(fd, page, 16 * PG, 0) == (ssize_t)(16 * PG)); /* the file untouched */
    CHECK(pat_check(page, 16 * PG, 0, 0) == SIZE_MAX);
    /* With NO_FALLBACK: refused, nothing written. */
    pat_fill(m + 16 * PG, 16 * PG);
    CHECK_EQ(pc_clear_present(m, 48 * PG, PC_PRESENT_NO_FALLBACK, &r), -ENOTSUP);
    CHECK_EQ(r.why, PC_PRESENT_FILE);
    CHECK_EQ(r.cleared + r.skipped, 0);
    CHECK(pat_check(m + 16 * PG, 16 * PG, 0, 0) == SIZE_MAX);
    free(page);
    close(fd);
}

/* Every bad argument: a clear error, nothing written. */
static void bad_arguments(void)
{
    char *m = anon_map(8, 0);
    pat_fill(m, 8 * PG);
    struct pc_present_report r;
    memset(&r, 0x5a, sizeof(r));
    CHECK_EQ(pc_clear_present(NULL, 1, 0, &r), -EINVAL);
    CHECK_EQ(pc_clear_present(m, SIZE_MAX, 0, &r), -EOVERFLOW);
    CHECK_EQ(pc_clear_present(m, PG, 8, &r), -EINVAL);
    CHECK_EQ(pc_clear_present(m, PG, -1, &r), -EINVAL);
    CHECK_EQ((pc_clear_present)(m, PG, 0, &r, 8), -EINVAL); /* below the first version */
    CHECK_EQ((pc_clear_present)(m, PG, 0, &r, 2 * 4096), -EINVAL); /* past a page */
    CHECK(all_bytes((const char *)&r, sizeof(r), 0x5a)); /* report untouched */
    /* a hole in the middle, a read-only page, the guard page: -EFAULT */
    CHECK(munmap(m + 3 * PG, PG) == 0);
    CHECK_EQ(pc_clear_present(m, 8 * PG, 0, &r), -EFAULT);
    CHECK(mprotect(m + 6 * PG, PG, PROT_READ) == 0);
    CHECK_EQ(pc_clear_present(m + 4 * PG, 4 * PG, 0, &r), -EFAULT);
    CHECK_EQ(pc_clear_present(m + 7 * PG, 2 * PG, 0, &r), -EFAULT);
    CHECK(pat_check(m, 3 * PG, 0, 0) == SIZE_MAX);
    for (size_t i = 4 * PG; i < 8 * PG; i++)
        CHECK_EQ((unsigned char)m[i], pat(i));
    /* nothing to do, NULL report, errno kept */
    errno = 12345;
    CHECK_EQ(pc_clear_present(NULL, 0, 0, &r), 0);
    CHECK_EQ(r.skipped + r.cleared + r.unproven + (size_t)r.used, 0);
    CHECK_EQ(pc_clear_present(m, PG, 0, NULL), 0);
    CHECK(all_bytes(m, PG, 0));
    CHECK_EQ(errno, 12345);
}

/* Threads at once, each on its range: each report its own. */
#define THREADS 4
static void *thread_main(void *arg)
{
    char *m = arg;
    uint64_t seed = (uintptr_t)arg;
    for (int round = 0; round < 20; round++) {
        for (int k = 0; k < 8; k++)
            m[(rng_next(&seed) % NPAGES) * PG + 11] = 1;
        size_t want = absent_now(m, NPAGES * PG);
        struct pc_present_report r;
        CHECK_EQ(pc_clear_present(m, NPAGES * PG, 0, &r), 0);
        CHECK_EQ(r.skipped, want);
        CHECK(all_bytes(m, NPAGES * PG, 0));
        CHECK(madvise(m, NPAGES * PG, MADV_DONTNEED) == 0);
    }
    return NULL;
}

static void threads(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, thread_main, anon_map(NPAGES, 0)) == 0);
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
}

int main(void)
{
    struct tally t = {0, 0, 0};
    if (only_the_fallback(&t))
        return tally_end(&t);
    run_case(&t, "private anonymous, some pages present, some read", partly_present);
    run_case(&t, "private anonymous, every page present", all_present);
    run_case(&t, "transparent huge pages, partly present", thp_partly);
    run_case(&t, "after fork, copy-on-write, both sides", fork_cow);
    run_case(&t, "swapped pages", swapped);
    run_case(&t, "dry run and PC_PRESENT_NO_FALLBACK", dry_run);
    run_case(&t, "anonymous, a file's private mapping, anonymous", three_mappings);
    run_case(&t, "bad arguments", bad_arguments);
    run_case(&t, "threads", threads);
    return tally_end(&t);
}
