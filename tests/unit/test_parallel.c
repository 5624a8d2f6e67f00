/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_parallel.c - pc_clear_parallel against the reference at several
 * thread counts, pc_populate on both of its paths (MADV_POPULATE_WRITE and
 * touching), observed through mincore, with contents kept; the error
 * paths of both; pc_populate_many over several mappings and its refusals;
 * the real system behind the seam of src/parallel/sys.h (policies, page sizes);
 * and the NUMA node discovery on a made-up sysfs tree.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "harness.h"
#include "numa.h"
#include "sys.h"

#define MIB ((size_t)1 << 20)

/* Cross builds run the tests under qemu-user (PC_TEST_EMULATOR is set),
 * which accepts madvise advice and returns success without acting on it:
 * there, what MADV_POPULATE_WRITE does is the emulator's, not the kernel's. */
static int emulated(void)
{
    return getenv("PC_TEST_EMULATOR") != NULL;
}


static void test_clear_parallel(void)
{
    struct guarded g;
    /* Thread counts: one, two, more than the work allows, and "all CPUs";
     * lengths: nothing, below one 64 MiB share, just over two shares (so
     * three threads get two), and everything up to the guard page. */
    guarded_alloc(&g, 140 * MIB);
    const int threads[] = {1, 2, 8, 0};
    const size_t lens[] = {0, 5000, 64 * MIB - 1, 128 * MIB + 77, g.len - 4096 - 3};
    for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
            size_t off = 4096 + 3 * (l % 2);
            pat_fill(g.lo, g.len);
            CHECK_EQ(pc_clear_parallel(g.lo + off, lens[l], threads[t]), 0);
            CHECK_EQ(pat_check(g.lo, g.len, off, off + lens[l]), SIZE_MAX);
        }
    /* Flush against the guard page at the end. */
    pat_fill(g.lo, g.len);
    CHECK_EQ(pc_clear_parallel(g.lo + 5, g.len - 5, 4), 0);
    CHECK_EQ(pat_check(g.lo, g.len, 5, g.len), SIZE_MAX);
    CHECK_EQ(pc_clear_parallel(NULL, 10, 2), -EINVAL);
    CHECK_EQ(pc_clear_parallel((void *)(UINTPTR_MAX - 5), 10, 2), -EOVERFLOW);
    CHECK_EQ(pc_clear_parallel(NULL, 0, 2), 0);
    guarded_free(&g);
}

static size_t resident_pages(char *p, size_t len)
{
    size_t n = len / TEST_PAGE, r = 0;
    unsigned char *v = malloc(n);
    CHECK(v != NULL);
    CHECK(mincore(p, len, v) == 0);
    for (size_t i = 0; i < n; i++)
        r += v[i] & 1;
    free(v);
    return r;
}

/* Resident pages of this process. A page faulted in only for reading maps
 * the shared zero page and does not count; one populated for writing does,
 * which is what tells a real populate from a read that only looks like one
 * to mincore. */
static long rss_pages(void)
{
    long size = 0, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f != NULL);
    CHECK(fscanf(f, "%ld %ld", &size, &resident) == 2);
    fclose(f);
    return resident;
}

static void test_populate(int flags)
{
    const size_t len = 130 * MIB; /* two 64 MiB shares and a bit */
    for (int threads = 1; threads <= 2; threads++) {
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        madvise(p, len, MADV_NOHUGEPAGE); /* count 4 KiB pages exactly */
        CHECK_EQ(resident_pages(p, len), 0);
        /* Contents kept: a few pages written before populating. */
        for (size_t i = 0; i < len; i += 7 * MIB)
            p[i + 5] = (char)(i / MIB + 1);
        long rss0 = rss_pages();
        CHECK_EQ(pc_populate(p + 100, len - 200, threads, flags), 0);
        CHECK_EQ(resident_pages(p, len), len / TEST_PAGE); /* ends rounded out */
        /* Written, not just mapped: RSS grew by (nearly) every page; the
         * few pages written above were resident already. */
        CHECK(rss_pages() - rss0 >= (long)(len / TEST_PAGE) - 64);
        for (size_t i = 0; i < len; i += 7 * MIB)
            CHECK_EQ(p[i + 5], (char)(i / MIB + 1));
        CHECK_EQ(p[len - 1], 0);
        munmap(p, len);
    }
}

/* The same condition gives the same error on both paths. */
static void test_populate_errors(void)
{
    CHECK_EQ(pc_populate(NULL, 4096, 1, 0), -EINVAL);
    char buf[8192];
    CHECK_EQ(pc_populate(buf, 10, 1, 0x80), -EINVAL);
    CHECK_EQ(pc_populate(buf, 0, 1, 0), 0);
    CHECK_EQ(pc_populate((void *)(UINTPTR_MAX - 100), 50, 1, 0), -EOVERFLOW);

    char *m = mmap(NULL, 4 * TEST_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    CHECK(munmap(m + 2 * TEST_PAGE, 2 * TEST_PAGE) == 0); /* a hole after */
    int rc_madv = pc_populate(m, 4 * TEST_PAGE, 1, 0);
    int rc_touch = pc_populate(m, 4 * TEST_PAGE, 1, PC_POPULATE_TOUCH);
    if (!emulated())
        CHECK_EQ(rc_madv, -ENOMEM);
    CHECK_EQ(rc_touch, -ENOMEM);
    CHECK(mprotect(m, TEST_PAGE, PROT_READ) == 0); /* not writable */
    rc_madv = pc_populate(m, TEST_PAGE, 1, 0);
    rc_touch = pc_populate(m, TEST_PAGE, 1, PC_POPULATE_TOUCH);
    if (!emulated())
        CHECK(rc_madv == -EFAULT || rc_madv == -ENOMEM);
    CHECK_EQ(rc_touch, -EFAULT);
    CHECK(mprotect(m, TEST_PAGE, PROT_NONE) == 0);
    if (!emulated())
        CHECK(pc_populate(m, TEST_PAGE, 1, 0) < 0);
    CHECK_EQ(pc_populate(m, TEST_PAGE, 1, PC_POPULATE_TOUCH), -EFAULT);
    munmap(m, 2 * TEST_PAGE);

    /* Hugetlb memory with no pages behind it: SIGBUS on touch, an error
     * from populate. Only where no 2 MiB pages are free. */
    FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
    long freep = -1, over = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &freep) != 1)
            freep = -1;
        fclose(f);
    }
    f = fopen("/proc/sys/vm/nr_overcommit_hugepages", "r");
    if (f != NULL) {
        if (fscanf(f, "%ld", &over) != 1)
            over = -1;
        fclose(f);
    }
    char *h = freep == 0 && over == 0 && !emulated()
                  ? mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0)
                  : MAP_FAILED;
    if (h != MAP_FAILED) {
        CHECK_EQ(pc_populate(h, 4 * MIB, 1, 0), -EFAULT);
        CHECK_EQ(pc_populate(h, 4 * MIB, 1, PC_POPULATE_TOUCH), -EFAULT);
        munmap(h, 4 * MIB);
        puts("ok   hugetlb SIGBUS -> -EFAULT on both paths");
    } else {
        puts("skip hugetlb SIGBUS case (free 2 MiB pages, or no hugetlb)");
    }
}

/* Several mappings populated in one call: exactly their pages (rounded
 * out), none between them, contents kept; an empty extent skipped. */
static void test_populate_many(int flags)
{
    const size_t len = 80 * MIB;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED && q != MAP_FAILED);
    madvise(p, len, MADV_NOHUGEPAGE);
    madvise(q, len, MADV_NOHUGEPAGE);
    p[70 * MIB + 9] = 42;
    struct pc_extent e[] = {{p + 100, 10 * MIB},          /* pages 0 .. 2560 */
                            {NULL, 0},                    /* skipped */
                            {q, 70 * MIB},                /* a whole part */
                            {p + 20 * MIB, 1},            /* one page */
                            {p + 70 * MIB + 9, 5 * MIB - 9}};
    CHECK_EQ(pc_populate_many(e, 5, 2, flags), 0);
    CHECK_EQ(resident_pages(p, 10 * MIB + TEST_PAGE), 10 * MIB / TEST_PAGE + 1);
    CHECK_EQ(resident_pages(p + 10 * MIB + TEST_PAGE, 10 * MIB - TEST_PAGE), 0);
    CHECK_EQ(resident_pages(p + 20 * MIB, TEST_PAGE), 1);
    CHECK_EQ(resident_pages(p + 20 * MIB + TEST_PAGE, 50 * MIB - TEST_PAGE), 0);
    CHECK_EQ(resident_pages(p + 70 * MIB, 5 * MIB), 5 * MIB / TEST_PAGE);
    CHECK_EQ(resident_pages(p + 75 * MIB, 5 * MIB), 0);
    CHECK_EQ(resident_pages(q, len), 70 * MIB / TEST_PAGE);
    CHECK_EQ(p[70 * MIB + 9], 42);
    CHECK_EQ(p[100], 0);
    munmap(p, len);
    munmap(q, len);
}

/* Bad arrays are refused whole: nothing is populated, not even the good
 * extents before the bad one. */
static void test_populate_many_errors(void)
{
    const size_t len = 16 * MIB;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    madvise(p, len, MADV_NOHUGEPAGE);
    struct pc_extent ok = {p, TEST_PAGE};
    CHECK_EQ(pc_populate_many(NULL, 0, 1, 0), 0);     /* nothing to do */
    CHECK_EQ(pc_populate_many(&ok, 0, 1, 0), 0);
    CHECK_EQ(pc_populate_many(NULL, 1, 1, 0), -EINVAL);
    CHECK_EQ(pc_populate_many(&ok, 1, 1, 0x80), -EINVAL);
    struct pc_extent null_addr[] = {{p, MIB}, {NULL, 5}};
    CHECK_EQ(pc_populate_many(null_addr, 2, 1, 0), -EINVAL);
    struct pc_extent wraps[] = {{p, MIB}, {(void *)(UINTPTR_MAX - 100), 50}};
    CHECK_EQ(pc_populate_many(wraps, 2, 1, 0), -EOVERFLOW);
    struct pc_extent overlap[] = {{p + 4 * MIB, MIB}, {p, 4 * MIB + 1}};
    CHECK_EQ(pc_populate_many(overlap, 2, 1, 0), -EINVAL);
    struct pc_extent twice[] = {{p, MIB}, {p + 8 * MIB, MIB}, {p, MIB}};
    CHECK_EQ(pc_populate_many(twice, 3, 1, 0), -EINVAL);
    /* The size contract, element by element: too small, too large, a
     * newer caller's element with a field this library does not know. */
    CHECK_EQ((pc_populate_many)(&ok, sizeof(ok) - 1, 1, 1, 0), -EINVAL);
    CHECK_EQ((pc_populate_many)(&ok, 2 * TEST_PAGE, 1, 1, 0), -EINVAL);
    CHECK_EQ((pc_populate_many)(&ok, SIZE_MAX / 2, 4, 1, 0), -EINVAL);
    CHECK_EQ((pc_populate_many)(&ok, sizeof(ok), SIZE_MAX / 8, 1, 0), -EOVERFLOW);
    struct { struct pc_extent e; size_t newer; } grown[2] = {{{p, MIB}, 0}, {{p + MIB, MIB}, 7}};
    CHECK_EQ((pc_populate_many)(&grown[0].e, sizeof(grown[0]), 2, 1, 0), -E2BIG);
    CHECK_EQ(resident_pages(p, len), 0); /* every refusal left it alone */
    /* Extents that share a page but no byte are fine; the newer caller
     * whose unknown fields are zero is taken, at its stride. */
    /* (qemu-user takes madvise and does nothing: touch there.) */
    int fl = emulated() ? PC_POPULATE_TOUCH : 0;
    struct pc_extent touching[] = {{p + 100, 100}, {p + 200, 100}};
    CHECK_EQ(pc_populate_many(touching, 2, 1, fl), 0);
    CHECK_EQ(resident_pages(p, 2 * TEST_PAGE), 1);
    grown[1].newer = 0;
    grown[1].e.addr = p + 8 * MIB;
    CHECK_EQ((pc_populate_many)(&grown[0].e, sizeof(grown[0]), 2, 2, fl), 0);
    CHECK_EQ(resident_pages(p, 10 * MIB), 2 * MIB / TEST_PAGE);
    munmap(p, len);
}

/* The real seam: a mapping bound to node 0 with mbind(2) reads as bound
 * there, one without a policy as spread (unless the whole process is
 * bound, as under numactl --membind); base pages are 4 KiB. */
static void test_real_sys(void)
{
    const struct pci_sys *sys = pci_sys();
    const size_t len = 4 * MIB;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK_EQ(sys->page_size(p, len), TEST_PAGE);
    enum pci_policy kind;
    uint64_t nodes;
    unsigned long node0 = 1;
    if (emulated() || syscall(SYS_mbind, p, len, 2 /* MPOL_BIND */, &node0, 64UL, 0) != 0) {
        puts("skip mbind case (no NUMA support here)");
    } else {
        CHECK_EQ(sys->policy(p, &kind, &nodes), 0);
        CHECK_EQ(kind, PCI_POLICY_BOUND);
        CHECK_EQ(nodes, 1);
        CHECK_EQ(pc_populate(p, len, 1, 0), 0);
        CHECK_EQ(resident_pages(p, len), len / TEST_PAGE);
    }
    munmap(p, len);
    int mode = -1;
    if (syscall(SYS_get_mempolicy, &mode, NULL, 0UL, NULL, 0UL) == 0 && mode == 0) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        CHECK_EQ(sys->policy(p, &kind, &nodes), 0);
        CHECK_EQ(kind, PCI_POLICY_SPREAD);
        munmap(p, len);
    }
    /* A hugetlb mapping's page size, where a 2 MiB page is free. */
    char *h = emulated() ? MAP_FAILED
                         : mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (h != MAP_FAILED) {
        CHECK_EQ(sys->page_size(h, 2 * MIB), 2 * MIB);
        munmap(h, 2 * MIB);
        puts("ok   hugetlb mapping: 2 MiB pages seen");
    } else {
        puts("skip hugetlb page size (no free 2 MiB page)");
    }
    cpu_set_t set;
    CHECK_EQ(sys->affinity(&set), 0);
    CHECK(CPU_COUNT(&set) >= 1);
}

static void test_numa(void)
{
    cpu_set_t set;
    CHECK_EQ(pci_parse_cpulist("0-3,8,10-11\n", &set), 7);
    CHECK(CPU_ISSET(2, &set) && CPU_ISSET(8, &set) && CPU_ISSET(11, &set));
    CHECK(!CPU_ISSET(4, &set) && !CPU_ISSET(9, &set));
    CHECK_EQ(pci_parse_cpulist("", &set), 0);
    CHECK_EQ(pci_parse_cpulist("3-1", &set), -1);
    CHECK_EQ(pci_parse_cpulist("x", &set), -1);
    CHECK_EQ(pci_parse_cpulist("1,,2", &set), -1);

    char root[] = "/tmp/pc_numa_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    const char *nodes[][2] = {{"node0", "0-3\n"}, {"node1", "4-7\n"},
                              {"node2", "\n"} /* memory only */, {"nodeX", "0\n"},
                              {"possible", "0-2\n"}};
    char path[256];
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "%s/%s", root, nodes[i][0]);
        CHECK(mkdir(path, 0700) == 0);
        snprintf(path, sizeof(path), "%s/%s/cpulist", root, nodes[i][0]);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        fputs(nodes[i][1], f);
        fclose(f);
    }
    struct pci_numa *nu = malloc(sizeof(*nu));
    CHECK(nu != NULL);
    CHECK_EQ(pci_numa_read(root, nu), 2);
    CHECK_EQ(CPU_COUNT(&nu->cpus[0]) + CPU_COUNT(&nu->cpus[1]), 8);
    CHECK_EQ(pci_numa_read("/nonexistent", nu), 0);
    free(nu);
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "%s/%s/cpulist", root, nodes[i][0]);
        unlink(path);
        snprintf(path, sizeof(path), "%s/%s", root, nodes[i][0]);
        rmdir(path);
    }
    rmdir(root);
    CHECK(pci_numa()->nodes >= 1);
}

/* After fork() the child has none of the parent's workers: its parallel
 * calls must still run (a regression here hangs; ctest's timeout ends it). */
static void test_fork(void)
{
    struct guarded g;
    guarded_alloc(&g, 160 * MIB);
    CHECK_EQ(pc_clear_parallel(g.lo, g.len, 2), 0); /* workers exist now */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        pat_fill(g.lo, g.len);
        int rc = pc_clear_parallel(g.lo, g.len, 2);
        _exit(rc == 0 && pat_check(g.lo, g.len, 0, g.len) == SIZE_MAX ? 0 : 1);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    guarded_free(&g);
}

int main(void)
{
    test_clear_parallel();
    if (emulated()) /* qemu-user 7.2 asserts in a forked child's new thread */
        puts("skip fork case: qemu-user cannot start threads in a forked child");
    else
        test_fork();
    if (emulated())
        puts("skip MADV_POPULATE_WRITE path: qemu-user ignores madvise");
    else
        test_populate(0);
    test_populate(PC_POPULATE_TOUCH);
    if (!emulated())
        test_populate_many(0);
    test_populate_many(PC_POPULATE_TOUCH);
    test_populate_errors();
    test_populate_many_errors();
    test_real_sys();
    test_numa();
    puts("ok");
    return 0;
}
