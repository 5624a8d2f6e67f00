/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_pool_zero.c - known zero, to the page: a pool that tracks written
 * pages clears only those, and still every allocation reads zero, however
 * the previous owner's pages were written: by the owner, by another thread
 * (also while a neighbour in the same huge page is freed and re-armed), by
 * the kernel (read(2) into it, /proc/self/mem, process_vm_writev), after a
 * fork. Also: only-read pages are not written, tracking OFF clears whole
 * runs, userfaultfd forbidden by seccomp falls back to them, the resident
 * bound drops pages, the 1.0-sized options.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "harness.h"

#define PG TEST_PAGE
#define MIB ((size_t)1 << 20)

static int tracked_here; /* the kernel can track: pools must say WRITTEN */

static struct pc_pool *make(size_t cap, enum pc_backing b, enum pc_pool_policy pol,
                            enum pc_pool_tracking t, size_t resident_max)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.capacity = cap;
    o.backing = b;
    o.policy = pol;
    o.tracking = t;
    o.resident_max = resident_max;
    struct pc_pool *p = pc_pool_create(&o);
    if (p == NULL)
        fprintf(stderr, "pool %s/%d: %s\n", pc_backing_name(b), pol, strerror(errno));
    return p;
}

static int all_zero(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

static struct pc_pool_stats stats(struct pc_pool *p)
{
    struct pc_pool_stats st;
    CHECK_EQ(pc_pool_stats(p, &st), 0);
    CHECK_EQ(st.in_use + st.clean + st.dirty, st.capacity);
    CHECK(st.resident <= st.capacity);
    return st;
}

/* Free a, allocate the same length again (next-fit from a fresh pool of
 * exactly that size lands on the same pages), check it reads zero and
 * return what the free found written (dirty bytes after the free). */
static char *recycle(struct pc_pool *p, char *a, size_t len, size_t *written)
{
    struct pc_pool_stats before = stats(p);
    CHECK_EQ(pc_pool_free(p, a), 0);
    struct pc_pool_stats freed = stats(p);
    /* Dirty is what must be cleared: exactly the pages found written. */
    *written = freed.dirty;
    CHECK(freed.dirty + (freed.skipped_bytes - before.skipped_bytes) <= len);
    char *b = pc_pool_alloc(p, len);
    CHECK(b == a);
    CHECK(all_zero(b, len));
    struct pc_pool_stats after = stats(p);
    CHECK_EQ(after.cleared_bytes - freed.cleared_bytes, freed.dirty);
    return b;
}

/* The calloc case, exact on base pages: write 5 scattered pages of 1024,
 * and the next allocation clears those 5 pages and nothing else. */
static void test_calloc_4k(enum pc_pool_tracking t)
{
    size_t len = 1024 * PG, w;
    struct pc_pool *p = make(len, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC, t, 0);
    CHECK(p != NULL);
    int tracks = stats(p).tracking == PC_POOL_TRACK_WRITTEN;
    CHECK_EQ(tracks, tracked_here && t != PC_POOL_TRACK_OFF);
    char *a = pc_pool_alloc(p, len);
    CHECK(a != NULL && all_zero(a, len));
    const size_t pages[] = {0, 1, 17, 512, 1023};
    for (size_t k = 0; k < 5; k++)
        a[pages[k] * PG + 100] = (char)(k + 1);
    unsigned sum = 0;
    for (size_t i = 0; i < len; i += 64) /* reads are not writes */
        sum += (unsigned char)((volatile char *)a)[i];
    CHECK_EQ(sum, 0);
    a = recycle(p, a, len, &w);
    CHECK_EQ(w, tracks ? 5 * PG : len);
    CHECK_EQ(stats(p).skipped_bytes, tracks ? len - 5 * PG : 0);
    /* Second round: the pool's own clear re-armed those 5 pages, so a
     * round writing other pages clears only those. */
    a[300 * PG] = 1;
    a = recycle(p, a, len, &w);
    CHECK_EQ(w, tracks ? PG : len);
    /* A round that writes nothing clears nothing. */
    a = recycle(p, a, len, &w);
    CHECK_EQ(w, tracks ? 0 : len);
    CHECK_EQ(pc_pool_free(p, a), 0);
    pc_pool_destroy(p);
}

/* THP: written pages come back per huge page at worst (one write makes a
 * 2 MiB page written), never fewer than written. */
static void test_calloc_thp(void)
{
    size_t len = 16 * MIB, w;
    struct pc_pool *p = make(len, PC_BACKING_THP, PC_POOL_INIT_ON_ALLOC, 0, 0);
    if (p == NULL) {
        printf("thp: not available, skipped\n");
        return;
    }
    int tracks = stats(p).tracking == PC_POOL_TRACK_WRITTEN;
    char *a = pc_pool_alloc(p, len);
    CHECK(a != NULL);
    memset(a + 3 * MIB, 0x5A, MIB); /* within one 2 MiB page */
    a = recycle(p, a, len, &w);
    CHECK(tracks ? w >= MIB && w <= 2 * MIB : w == len);
    CHECK_EQ(pc_pool_free(p, a), 0);
    pc_pool_destroy(p);
}

/* Writes the owner did not make itself: the kernel's. */
static void test_kernel_writes(void)
{
    size_t len = 64 * PG, w;
    struct pc_pool *p = make(len, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC, 0, 0);
    CHECK(p != NULL);
    int tracks = stats(p).tracking == PC_POOL_TRACK_WRITTEN;
    char *a = pc_pool_alloc(p, len);
    CHECK(a != NULL);
    /* read(2) from a pipe into page 3 (copy_to_user) */
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], "kernel", 6) == 6);
    CHECK(read(fds[0], a + 3 * PG + 8, 6) == 6);
    close(fds[0]);
    close(fds[1]);
    /* /proc/self/mem: the same memory through another view, page 10 */
    int mem = open("/proc/self/mem", O_RDWR);
    CHECK(mem >= 0);
    CHECK(pwrite(mem, "mem", 3, (off_t)(uintptr_t)(a + 10 * PG)) == 3);
    close(mem);
    /* process_vm_writev to ourselves, page 40 */
    char src[4] = "pvw";
    struct iovec l = {src, 3}, r = {a + 40 * PG, 3};
    ssize_t pv = process_vm_writev(getpid(), &l, 1, &r, 1, 0);
    CHECK(pv == 3 || (pv < 0 && (errno == EPERM || errno == ENOSYS)));
    CHECK(memcmp(a + 3 * PG + 8, "kernel", 6) == 0 && memcmp(a + 10 * PG, "mem", 3) == 0);
    a = recycle(p, a, len, &w);
    CHECK_EQ(w, tracks ? (pv == 3 ? 3 : 2) * PG : len);
    CHECK_EQ(pc_pool_free(p, a), 0);
    pc_pool_destroy(p);
}

/* fork: the child's writes are its own copy; the parent's writes after
 * the fork (breaking copy-on-write) are still seen. */
static void test_fork(void)
{
    size_t len = 32 * PG, w;
    struct pc_pool *p = make(len, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC, 0, 0);
    CHECK(p != NULL);
    int tracks = stats(p).tracking == PC_POOL_TRACK_WRITTEN;
    char *a = pc_pool_alloc(p, len);
    CHECK(a != NULL);
    a[0] = 1;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        memset(a, 7, len);
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    CHECK(a[0] == 1 && a[PG] == 0);
    a[5 * PG] = 1;
    a = recycle(p, a, len, &w);
    CHECK_EQ(w, tracks ? 2 * PG : len);
    CHECK_EQ(pc_pool_free(p, a), 0);
    pc_pool_destroy(p);
}

/* Another thread writes into an allocation in the same huge page as one
 * this thread frees and recycles over and over: the neighbour's scans and
 * re-arming must never make its writes look unwritten. */
struct neighbour {
    char *b;
    size_t len;
    volatile int stop;
};

static void *neighbour_writes(void *arg)
{
    struct neighbour *n = arg;
    unsigned v = 1;
    while (!__atomic_load_n(&n->stop, __ATOMIC_ACQUIRE))
        for (size_t i = 0; i < n->len; i += PG, v++)
            __atomic_store_n(&n->b[i + v % 64], (char)(v | 1), __ATOMIC_RELAXED);
    return NULL;
}

static void test_threads(enum pc_backing backing)
{
    size_t half = MIB, w;
    struct pc_pool *p = make(2 * half, backing, PC_POOL_INIT_ON_ALLOC, 0, 0);
    if (p == NULL)
        return;
    char *a = pc_pool_alloc(p, half), *b = pc_pool_alloc(p, half);
    CHECK(a != NULL && b == a + half);
    struct neighbour n = {b, half, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, neighbour_writes, &n) == 0);
    for (int round = 0; round < 50; round++) {
        a[(size_t)round * PG] = 1;
        a = recycle(p, a, half, &w);
    }
    __atomic_store_n(&n.stop, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(t, NULL) == 0);
    /* Every page of b was written: all of it must come back dirty. */
    CHECK_EQ(pc_pool_free(p, a), 0);
    struct pc_pool_stats before = stats(p);
    CHECK_EQ(pc_pool_free(p, b), 0);
    struct pc_pool_stats after = stats(p);
    CHECK(after.dirty - before.dirty >= half);
    char *c = pc_pool_alloc(p, 2 * half);
    CHECK(c == a && all_zero(c, 2 * half));
    CHECK_EQ(pc_pool_free(p, c), 0);
    pc_pool_destroy(p);
}

/* The other policies clear only written pages too, and still read zero. */
static void test_policies(void)
{
    for (int pol = PC_POOL_INIT_ON_FREE; pol <= PC_POOL_BACKGROUND; pol++) {
        size_t len = 256 * PG;
        struct pc_pool *p = make(len, PC_BACKING_4K, (enum pc_pool_policy)pol, 0, 0);
        CHECK(p != NULL);
        int tracks = stats(p).tracking == PC_POOL_TRACK_WRITTEN;
        for (int round = 0; round < 20; round++) {
            char *a = pc_pool_alloc(p, len);
            CHECK(a != NULL && all_zero(a, len));
            memset(a + (size_t)(round % 7) * 30 * PG, round + 1, 3 * PG);
            CHECK_EQ(pc_pool_free(p, a), 0);
        }
        struct pc_pool_stats st = stats(p);
        CHECK(tracks ? st.cleared_bytes <= 20 * 3 * PG : st.cleared_bytes >= 19 * len);
        pc_pool_destroy(p);
    }
}

/* The resident bound: past it, freed pages are dropped, not kept. */
static void test_resident_bound(void)
{
    size_t len = 512 * PG, bound = 128 * PG;
    struct pc_pool *p = make(len, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC, 0, bound);
    CHECK(p != NULL);
    CHECK_EQ(stats(p).resident, len); /* populated */
    char *a = pc_pool_alloc(p, len);
    CHECK(a != NULL);
    memset(a, 1, len);
    CHECK_EQ(pc_pool_free(p, a), 0);
    struct pc_pool_stats st = stats(p);
    CHECK(st.dropped_bytes >= len - bound && st.resident <= bound);
    CHECK_EQ(st.dirty, 0); /* dropped, not dirty: nothing to clear */
    unsigned char vec[512];
    CHECK(mincore(a, len, vec) == 0);
    size_t res = 0;
    for (size_t i = 0; i < 512; i++)
        res += vec[i] & 1;
    CHECK(res <= bound / PG);
    char *b = pc_pool_alloc(p, len);
    CHECK(b == a && all_zero(b, len));
    CHECK_EQ(stats(p).cleared_bytes, 0);
    CHECK_EQ(pc_pool_free(p, b), 0);
    pc_pool_destroy(p);
}

static void test_options(void)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    CHECK(o.resident_max == 0 && o.tracking == PC_POOL_TRACK_AUTO);
    o.tracking = (enum pc_pool_tracking)3;
    errno = 0;
    CHECK(pc_pool_create(&o) == NULL && errno == EINVAL);
    /* A 1.0 program's options: the new members take their defaults. */
    memset(&o, 0xFF, sizeof(o));
    pc_pool_opts_init(&o);
    o.capacity = 16 * PG;
    o.backing = PC_BACKING_4K;
    o.tracking = (enum pc_pool_tracking)7; /* past 1.0's size: ignored */
    struct pc_pool *p = (pc_pool_create)(&o, offsetof(struct pc_pool_opts, populate) + sizeof(int));
    CHECK(p != NULL);
    CHECK_EQ(stats(p).tracking, tracked_here ? PC_POOL_TRACK_WRITTEN : PC_POOL_TRACK_OFF);
    pc_pool_destroy(p);
    /* WRITTEN required: had here, refused where it cannot be. */
    p = make(16 * PG, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC, PC_POOL_TRACK_WRITTEN, 0);
    CHECK(tracked_here ? p != NULL : p == NULL && errno == ENOTSUP);
    pc_pool_destroy(p);
}

/* Where userfaultfd is forbidden (a seccomp filter, as container
 * runtimes install): whole runs, said so, and still zero. In a child,
 * before anything in this process has probed. */
static void test_forbidden(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct sock_filter f[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_userfaultfd, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
            _exit(77); /* no seccomp here (an emulator): nothing to test */
        struct pc_host h;
        CHECK_EQ(pc_host_get(&h), 0);
        CHECK(h.pool_tracking != NULL && strncmp(h.pool_tracking, "whole runs (", 12) == 0);
        CHECK(strstr(h.pool_tracking, "not permitted") != NULL);
        size_t len = 16 * PG, w;
        struct pc_pool *p = make(len, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC, 0, 0);
        CHECK(p != NULL && stats(p).tracking == PC_POOL_TRACK_OFF);
        char *a = pc_pool_alloc(p, len);
        CHECK(a != NULL);
        a[PG] = 1;
        a = recycle(p, a, len, &w);
        CHECK_EQ(w, len);
        pc_pool_destroy(p);
        errno = 0;
        CHECK(make(len, PC_BACKING_4K, 0, PC_POOL_TRACK_WRITTEN, 0) == NULL && errno == ENOTSUP);
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77);
    printf("userfaultfd forbidden: %s\n", WEXITSTATUS(status) ? "skipped (no seccomp)" : "ok");
}

int main(void)
{
    test_forbidden();
    /* Whether the kernel can track: a pool asked for WRITTEN tells. */
    struct pc_pool *probe = make(16 * PG, PC_BACKING_4K, 0, PC_POOL_TRACK_WRITTEN, 0);
    tracked_here = probe != NULL;
    pc_pool_destroy(probe);
    printf("tracking written pages: %s\n", tracked_here ? "yes" : "no (whole runs)");
    test_options();
    test_calloc_4k(PC_POOL_TRACK_AUTO);
    test_calloc_4k(PC_POOL_TRACK_OFF);
    test_calloc_thp();
    test_kernel_writes();
    test_fork();
    test_threads(PC_BACKING_4K);
    test_threads(PC_BACKING_THP);
    test_policies();
    test_resident_bound();
    printf("test_pool_zero: ok\n");
    return 0;
}
