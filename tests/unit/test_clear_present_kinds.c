/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_clear_present_kinds.c - pc_clear_present where an absent page does
 * not read zero, or where the kernel cannot say: a file's private mapping
 * with its bytes untouched, shared anonymous memory written by a child, a
 * memfd written through write(2) (mapped shared and private), hugetlb, a
 * range registered with userfaultfd in missing mode, and seccomp filters
 * refusing the ioctls. Each case checks that the range reads zero
 * afterwards, that the bytes around it and the file behind it are as
 * they were, and that the report names the fallback. Every one of them
 * fails if the call skips an absent page there: that page would read
 * the file's, the child's or the handler's bytes.
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "present.h"
#include "proc_uapi.h"

#define NPAGES 16
#define EDGE 100 /* the range starts and ends this far inside its pages */

/* n pages at a fixed place between PROT_NONE guard pages: the address
 * for a MAP_FIXED mapping of them. */
static char *guarded_place(size_t n)
{
    char *m = mmap(NULL, (n + 2) * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    return m + PG;
}

/* A file of n pages holding the pattern (unlinked): its descriptor. */
static int pattern_file(size_t n, int memfd)
{
    int fd;
    if (memfd) {
        fd = (int)syscall(SYS_memfd_create, "pageclear-test", 0);
    } else {
        char name[] = "/tmp/pageclear-kinds-XXXXXX";
        fd = mkstemp(name);
        if (fd >= 0)
            unlink(name);
    }
    CHECK(fd >= 0);
    char *buf = malloc(n * PG);
    CHECK(buf != NULL);
    pat_fill(buf, n * PG);
    CHECK(write(fd, buf, n * PG) == (ssize_t)(n * PG)); /* through write(2) */
    free(buf);
    return fd;
}

/* The file's bytes [0, n pages): the pattern but zeros in [z0, z1). */
static void check_file(int fd, size_t n, size_t z0, size_t z1)
{
    char *buf = malloc(n * PG);
    CHECK(buf != NULL && pread(fd, buf, n * PG, 0) == (ssize_t)(n * PG));
    CHECK(pat_check(buf, n * PG, z0, z1) == SIZE_MAX);
    free(buf);
}

/* The call over [EDGE, n pages - EDGE) of m: every byte cleared whole,
 * for the reason why. */
static void clear_whole(char *m, size_t n, enum pc_present_why why)
{
    size_t len = n * PG - 2 * EDGE;
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m + EDGE, len, 0, &r), 0);
    check_report(&r, len);
    CHECK_EQ(r.skipped, 0);
    CHECK_EQ(r.unproven, len);
    CHECK_EQ(r.why, why);
    CHECK(all_bytes(m + EDGE, len, 0));
}

static void private_file(void)
{
    int fd = pattern_file(NPAGES, 0);
    char *m = mmap(guarded_place(NPAGES), NPAGES * PG, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_FIXED, fd, 0);
    CHECK(m != MAP_FAILED);
    m[2 * PG] = (char)pat(2 * PG); /* one page copied on write, the rest absent */
    clear_whole(m, NPAGES, PC_PRESENT_FILE);
    CHECK(pat_check(m, NPAGES * PG, EDGE, NPAGES * PG - EDGE) == SIZE_MAX);
    check_file(fd, NPAGES, 0, 0); /* private: the file keeps its bytes */
    struct pc_present_report r;
    pat_fill(m, NPAGES * PG);
    CHECK_EQ(pc_clear_present(m, NPAGES * PG, PC_PRESENT_NO_FALLBACK, &r), -ENOTSUP);
    CHECK_EQ(r.why, PC_PRESENT_FILE);
    CHECK(pat_check(m, NPAGES * PG, 0, 0) == SIZE_MAX);
}

static void shared_anon_child(void)
{
    char *m = mmap(guarded_place(NPAGES), NPAGES * PG, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(m != MAP_FAILED);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        pat_fill(m, NPAGES * PG);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* Nothing of it is in this process's page tables: absent, not zero. */
    CHECK_EQ(absent_now(m, NPAGES * PG), NPAGES * PG);
    clear_whole(m, NPAGES, PC_PRESENT_SHARED);
    CHECK(pat_check(m, NPAGES * PG, EDGE, NPAGES * PG - EDGE) == SIZE_MAX);
}

static void memfd_written(void)
{
    int fd = pattern_file(NPAGES, 1);
    char *m = mmap(guarded_place(NPAGES), NPAGES * PG, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, fd, 0);
    CHECK(m != MAP_FAILED);
    CHECK_EQ(absent_now(m, NPAGES * PG), NPAGES * PG);
    clear_whole(m, NPAGES, PC_PRESENT_SHARED);
    check_file(fd, NPAGES, EDGE, NPAGES * PG - EDGE); /* shared: the file is zero */
    close(fd);
    /* The same mapped private: the file's bytes, kept in the file. */
    fd = pattern_file(NPAGES, 1);
    m = mmap(guarded_place(NPAGES), NPAGES * PG, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_FIXED, fd, 0);
    CHECK(m != MAP_FAILED);
    clear_whole(m, NPAGES, PC_PRESENT_FILE);
    CHECK(pat_check(m, NPAGES * PG, EDGE, NPAGES * PG - EDGE) == SIZE_MAX);
    check_file(fd, NPAGES, 0, 0);
}

/* --- hugetlb: two 2 MiB pages reserved for the case and given back ---- */

#define HUGE_DIR "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
#define HUGE ((size_t)2 << 20)

static long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f != NULL && fscanf(f, "%ld", &v) != 1)
        v = -1;
    if (f != NULL)
        fclose(f);
    return v;
}

static int write_long(const char *path, long v)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    int ok = fprintf(f, "%ld\n", v) > 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static void hugetlb_case(void)
{
    char *m = mmap(NULL, 2 * HUGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (m == MAP_FAILED)
        skip("no 2 MiB hugetlb pages to be had: %s", strerror(errno));
    pat_fill(m, HUGE); /* the first page present, the second absent */
    size_t len = 2 * HUGE - 2 * EDGE;
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m + EDGE, len, 0, &r), 0);
    check_report(&r, len);
    CHECK_EQ(r.unproven, len);
    /* Only PROCMAP_QUERY gives the page size; /proc/self/maps shows a
     * file (its hugetlbfs inode). */
    CHECK_EQ(r.why, r.used & PC_PRESENT_USED_PROCMAP_QUERY ? PC_PRESENT_HUGETLB
                                                             : PC_PRESENT_FILE);
    CHECK(all_bytes(m + EDGE, len, 0));
    CHECK(pat_check(m, EDGE, EDGE, EDGE) == SIZE_MAX);
    CHECK(all_bytes(m + 2 * HUGE - EDGE, EDGE, 0)); /* the absent page's tail */
    munmap(m, 2 * HUGE);
}

static void hugetlb(void)
{
    long old = read_long(HUGE_DIR);
    if (old < 0 || access(HUGE_DIR, W_OK) != 0)
        skip("cannot reserve hugetlb pages here (%s not writable)", HUGE_DIR);
    /* The lock the other hugetlb tests and measurements take
     * (tests/integration/daemon/serve.sh, pageclear prealloc). */
    int lock = take_lock("/tmp/pageclear-hugetlb.lock", 60);
    if (lock == -2)
        skip("/tmp/pageclear-hugetlb.lock busy for a minute: another test or measurement "
             "holds hugetlb pages");
    old = read_long(HUGE_DIR);
    if (write_long(HUGE_DIR, old + 2) != 0 || read_long(HUGE_DIR) < old + 2) {
        (void)write_long(HUGE_DIR, old);
        skip("the kernel gave no 2 more huge pages of 2 MiB");
    }
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        hugetlb_case();
        fflush(NULL);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(write_long(HUGE_DIR, old) == 0); /* given back */
    if (lock >= 0)
        close(lock);
    if (WIFEXITED(st) && WEXITSTATUS(st) == CASE_SKIP)
        exit(CASE_SKIP);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* --- userfaultfd, missing mode: the handler fills pages with 0xEE ----- */

struct handler {
    int uffd;
    volatile int stop;
    size_t filled;
};

static void *handle(void *arg)
{
    struct handler *h = arg;
    char *page = aligned_alloc(PG, PG);
    CHECK(page != NULL);
    memset(page, 0xEE, PG);
    while (!h->stop) {
        struct pollfd p = {h->uffd, POLLIN, 0};
        if (poll(&p, 1, 10) <= 0)
            continue;
        struct uffd_msg msg;
        if (read(h->uffd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg) ||
            msg.event != UFFD_EVENT_PAGEFAULT)
            continue;
        struct uffdio_copy c = {.dst = msg.arg.pagefault.address & ~(uint64_t)(PG - 1),
                                .src = (uintptr_t)page, .len = PG, .mode = 0};
        if (ioctl(h->uffd, UFFDIO_COPY, &c) == 0)
            h->filled++;
    }
    free(page);
    return NULL;
}

static void userfaultfd_missing(void)
{
    char *m = anon_map(NPAGES, 0);
    long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | 1 /* UFFD_USER_MODE_ONLY */);
    if (fd < 0 && errno == EINVAL)
        fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        skip("userfaultfd: %s", strerror(errno));
    struct uffdio_api api = {.api = UFFD_API, .features = 0};
    struct uffdio_register reg = {.range = {(uintptr_t)m, NPAGES * PG},
                                  .mode = UFFDIO_REGISTER_MODE_MISSING};
    if (ioctl((int)fd, UFFDIO_API, &api) != 0 || ioctl((int)fd, UFFDIO_REGISTER, &reg) != 0)
        skip("userfaultfd registration: %s", strerror(errno));
    struct handler h = {(int)fd, 0, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, handle, &h) == 0);
    m[3 * PG] = 1; /* filled by the handler, then written */
    struct pc_present_report r;
    /* NO_FALLBACK: refused before a byte is written. */
    CHECK_EQ(pc_clear_present(m, NPAGES * PG, PC_PRESENT_NO_FALLBACK, &r), -ENOTSUP);
    CHECK_EQ(r.why, PC_PRESENT_USERFAULTFD);
    CHECK_EQ(absent_now(m, NPAGES * PG), (NPAGES - 1) * PG);
    CHECK_EQ(pc_clear_present(m + EDGE, NPAGES * PG - 2 * EDGE, 0, &r), 0);
    check_report(&r, NPAGES * PG - 2 * EDGE);
    CHECK_EQ(r.why, PC_PRESENT_USERFAULTFD);
    CHECK_EQ(r.skipped, 0);
    CHECK(r.used & PC_PRESENT_USED_SMAPS);
    CHECK(all_bytes(m + EDGE, NPAGES * PG - 2 * EDGE, 0));
    CHECK(all_bytes(m, EDGE, 0xEE)); /* the handler's bytes, around the range */
    CHECK(all_bytes(m + NPAGES * PG - EDGE, EDGE, 0xEE));
    h.stop = 1;
    CHECK(pthread_join(t, NULL) == 0);
    printf("    the handler filled %zu pages\n", h.filled);
}

/* --- seccomp: the ioctls refused with an errno ------------------------- */

#if defined(__x86_64__)
#define PC_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* Install a filter answering ioctl(.., req, ..) with -err, all else
 * allowed. The request is an unsigned int in the kernel: its low word. */
static void refuse_ioctl(unsigned long req, int err)
{
#ifdef PC_AUDIT_ARCH
    const unsigned arg1 = offsetof(struct seccomp_data, args[1]) +
                          (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0);
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PC_AUDIT_ARCH, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg1),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)req, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (uint32_t)err),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};
    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        skip("seccomp filter: %s", strerror(errno));
#else
    (void)req, (void)err;
    skip("no seccomp architecture constant for this CPU in the test");
#endif
}

/* Pages 2 and 9 written, the rest absent. */
static char *two_written(void)
{
    char *m = anon_map(NPAGES, 0);
    m[2 * PG] = 1;
    m[9 * PG + 5] = 1;
    return m;
}

static void seccomp_scan(int err, enum pc_present_why why)
{
    char *m = two_written();
    refuse_ioctl(PAGEMAP_SCAN, err);
    clear_whole(m, NPAGES, why);
    struct pc_present_report r;
    CHECK_EQ(pc_clear_present(m, PG, 0, &r), 0);
    CHECK_EQ(r.error, err);
    CHECK(r.used & PC_PRESENT_USED_SCAN);
    m[5 * PG] = 1;
    CHECK_EQ(pc_clear_present(m, NPAGES * PG, PC_PRESENT_NO_FALLBACK, &r), -ENOTSUP);
    CHECK_EQ(r.why, why);
    CHECK_EQ(m[5 * PG], 1);
}

/* A seccomp filter refusing PAGEMAP_SCAN: said, and everything cleared. */
static void seccomp_scan_eperm(void)
{
    seccomp_scan(EPERM, PC_PRESENT_REFUSED);
}

/* ENOTTY: what a kernel before 6.7 answers. */
static void seccomp_scan_enotty(void)
{
    seccomp_scan(ENOTTY, PC_PRESENT_NO_SCAN);
}

/* PROCMAP_QUERY refused (or a kernel before 6.11): /proc/self/maps read
 * instead, and the absent pages still skipped, across several mappings. */
static void seccomp_procmap(void)
{
    char *m = two_written();
    /* Three mappings: pages 8-11 differ by a flag (not copied at fork). */
    CHECK(madvise(m + 8 * PG, 4 * PG, MADV_DONTFORK) == 0);
    refuse_ioctl(PROCMAP_QUERY, ENOTTY);
    struct pc_present_report r;
    size_t want = absent_now(m + EDGE, NPAGES * PG - 2 * EDGE);
    CHECK_EQ(pc_clear_present(m + EDGE, NPAGES * PG - 2 * EDGE, 0, &r), 0);
    CHECK_EQ(r.skipped, want);
    CHECK_EQ(r.why, PC_PRESENT_PROVEN);
    CHECK(r.used & PC_PRESENT_USED_MAPS);
    CHECK(!(r.used & PC_PRESENT_USED_PROCMAP_QUERY));
    CHECK(all_bytes(m, NPAGES * PG, 0));
    CHECK_EQ(pc_clear_present(m - PG, 2 * PG, 0, &r), -EFAULT); /* the guard, by the text */
}

int main(void)
{
    struct tally t = {0, 0, 0};
    if (only_the_fallback(&t))
        return tally_end(&t);
    run_case(&t, "a file's private mapping, untouched bytes", private_file);
    run_case(&t, "shared anonymous memory written by a child", shared_anon_child);
    run_case(&t, "a memfd written through write(2), shared and private", memfd_written);
    run_case(&t, "hugetlb, private anonymous", hugetlb);
    run_case(&t, "userfaultfd, missing mode", userfaultfd_missing);
    run_case(&t, "seccomp refusing PAGEMAP_SCAN (EPERM)", seccomp_scan_eperm);
    run_case(&t, "seccomp answering PAGEMAP_SCAN as an old kernel (ENOTTY)",
             seccomp_scan_enotty);
    run_case(&t, "seccomp answering PROCMAP_QUERY as an old kernel (ENOTTY)", seccomp_procmap);
    return tally_end(&t);
}
