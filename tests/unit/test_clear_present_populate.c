/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_clear_present_populate.c - pc_clear_present with
 * PC_PRESENT_POPULATE: the pages it would leave alone are faulted in
 * instead, so afterwards every page of the range is resident and reads
 * zero, as after a memset; where the kernel refuses (here a seccomp filter
 * answering madvise with an errno, as an old kernel answers EINVAL) those
 * pages are stored to instead, with the same outcome. Each case checks the
 * bytes around the range (guard pages, sentinels) and the report against
 * the classic /proc/self/pagemap read before and after (present.h).
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "present.h"

#define NPAGES 64
#define HEAD 123
#define TAIL 1000

/* Pages 0, 5 and 62 written (0 holds the sentinel head), page 40 only
 * read (the shared zero page), the rest never touched. */
static char *setup(void)
{
    char *m = anon_map(NPAGES, 0);
    pat_fill(m, PG);
    pat_fill(m + 5 * PG, PG);
    pat_fill(m + 62 * PG, PG);
    CHECK(((volatile char *)m)[40 * PG + 9] == 0);
    return m;
}

/* Bytes of [lo, lo + len) in pages the reference says are absent. */
static size_t absent_bytes(const char *m, const char *lo, size_t len)
{
    char kinds[NPAGES];
    page_kinds(m, NPAGES * PG, kinds);
    kinds[40] = '-'; /* the zero page: present, yet it reads zero unwritten */
    return bytes_of(lo, len, kinds + (size_t)(lo - m) / PG, '-');
}

/* Every page the range touches resident (asked before any byte is read:
 * a read would map the zero page), the range zero, page 0's head as
 * written, page 63's tail untouched. */
static void check_after(const char *m, const char *lo, size_t len)
{
    char kinds[NPAGES];
    page_kinds(m, NPAGES * PG, kinds);
    for (int i = 0; i < NPAGES; i++)
        CHECK_EQ(kinds[i], 'P');
    CHECK(all_bytes(lo, len, 0));
    CHECK(pat_check(m, HEAD, HEAD, HEAD) == SIZE_MAX);
    CHECK(all_bytes(lo + len, NPAGES * PG - HEAD - len, 0));
}

static void populated(void)
{
    char *m = setup();
    char *lo = m + HEAD;
    size_t len = (NPAGES - 1) * PG + TAIL - HEAD;
    size_t want = absent_bytes(m, lo, len);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(lo, len, PC_PRESENT_POPULATE | PC_PRESENT_NO_FALLBACK, &r), 0);
    check_report(&r, len);
    CHECK_EQ(r.why, PC_PRESENT_PROVEN);
    CHECK_EQ(r.populated, want);
    CHECK_EQ(r.skipped, 0);
    CHECK_EQ(r.populate_error, 0);
    CHECK(r.used & PC_PRESENT_USED_POPULATE);
    check_after(m, lo, len);
    printf("    %zu of %zu bytes populated\n", r.populated, len);
}

/* A dry run faults nothing in and says what the call then does. */
static void dry_run(void)
{
    char *m = setup();
    char *lo = m + HEAD;
    size_t len = (NPAGES - 1) * PG + TAIL - HEAD;
    char before[NPAGES], after[NPAGES];
    page_kinds(m, NPAGES * PG, before);
    struct pc_present_report dry, real;
    CHECK_EQ(pc_clear_present(lo, len, PC_PRESENT_POPULATE | PC_PRESENT_DRY_RUN, &dry), 0);
    page_kinds(m, NPAGES * PG, after);
    CHECK(memcmp(before, after, NPAGES) == 0);
    CHECK(!(dry.used & PC_PRESENT_USED_POPULATE));
    CHECK(pat_check(m + 5 * PG, PG, 0, 0) == SIZE_MAX);
    CHECK_EQ(pc_clear_present(lo, len, PC_PRESENT_POPULATE, &real), 0);
    CHECK_EQ(dry.populated, real.populated);
    CHECK_EQ(dry.cleared, real.cleared);
    check_after(m, lo, len);
}

/* Transparent huge pages: the two never touched are faulted in whole. */
static void thp(void)
{
    const size_t huge = (size_t)2 << 20, len = 4 * huge;
    char *raw = mmap(NULL, len + 3 * huge, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(raw != MAP_FAILED);
    char *m = (char *)(((uintptr_t)raw + 2 * huge - 1) & ~(uintptr_t)(huge - 1));
    if (madvise(m, len, MADV_HUGEPAGE) != 0)
        skip("madvise(MADV_HUGEPAGE): %s", strerror(errno));
    m[0] = 1;
    m[2 * huge + 5] = 2;
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m, len, PC_PRESENT_POPULATE, &r), 0);
    check_report(&r, len);
    CHECK(r.populated >= 2 * huge);
    CHECK_EQ(absent_now(m, len), 0);
    CHECK(all_bytes(m, len, 0));
}

#if defined(__x86_64__)
#define PC_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* madvise answered with -EPERM, everything else allowed. */
static void refuse_madvise(void)
{
#ifdef PC_AUDIT_ARCH
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PC_AUDIT_ARCH, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_madvise, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};
    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        skip("seccomp filter: %s", strerror(errno));
#else
    skip("no seccomp architecture constant for this CPU in the test");
#endif
}

/* The kernel refuses: the absent pages are stored to instead, and the
 * error is said. */
static void refused(void)
{
    char *m = setup();
    char *lo = m + HEAD;
    size_t len = (NPAGES - 1) * PG + TAIL - HEAD;
    refuse_madvise();
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(lo, len, PC_PRESENT_POPULATE | PC_PRESENT_NO_FALLBACK, &r), 0);
    check_report(&r, len);
    CHECK_EQ(r.populated, 0);
    CHECK_EQ(r.cleared, len);
    CHECK_EQ(r.populate_error, EPERM);
    CHECK_EQ(r.why, PC_PRESENT_PROVEN);
    check_after(m, lo, len);
}

/* Every page present already: nothing to fault in, no madvise. */
static void all_present(void)
{
    char *m = anon_map(NPAGES, 0);
    pat_fill(m, NPAGES * PG);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m + 1, NPAGES * PG - 2, PC_PRESENT_POPULATE, &r), 0);
    check_report(&r, NPAGES * PG - 2);
    CHECK_EQ(r.populated, 0);
    CHECK(!(r.used & PC_PRESENT_USED_POPULATE));
    CHECK(all_bytes(m + 1, NPAGES * PG - 2, 0));
    CHECK_EQ((unsigned char)m[0], pat(0));
    CHECK_EQ((unsigned char)m[NPAGES * PG - 1], pat(NPAGES * PG - 1));
}

/* A file's private mapping: its absent pages read the file, so they are
 * never populated (that would read the file in): cleared, and said. */
static void file_private(void)
{
    char name[] = "/tmp/pageclear-populate-XXXXXX";
    int fd = mkstemp(name);
    CHECK(fd >= 0);
    unlink(name);
    CHECK(ftruncate(fd, 8 * (off_t)PG) == 0);
    char *m = mmap(NULL, 8 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(m != MAP_FAILED);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m, 8 * PG, PC_PRESENT_POPULATE | PC_PRESENT_NO_FALLBACK, &r),
             -ENOTSUP);
    CHECK_EQ(r.why, PC_PRESENT_FILE);
    CHECK_EQ(r.populated + r.cleared, 0);
    CHECK_EQ(pc_clear_present(m, 8 * PG, PC_PRESENT_POPULATE, &r), 0);
    check_report(&r, 8 * PG);
    CHECK_EQ(r.populated, 0);
    CHECK_EQ(r.unproven, 8 * PG);
    CHECK(all_bytes(m, 8 * PG, 0));
    close(fd);
}

int main(void)
{
    struct tally t = {0, 0, 0};
    if (only_the_fallback(&t))
        return tally_end(&t);
    run_case(&t, "populate: some pages present, some read, some absent", populated);
    run_case(&t, "populate: dry run", dry_run);
    run_case(&t, "populate: transparent huge pages", thp);
    run_case(&t, "populate refused by a filter: stored instead", refused);
    run_case(&t, "populate: every page present", all_present);
    run_case(&t, "populate: a file's private mapping", file_private);
    return tally_end(&t);
}
