/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_memfd.c - hugetlb memfds for pageclear-serve: creating one,
 * filling it at request time (in the daemon, or in a worker process placed
 * in the tenant's cgroups: serve_cgroup.h says why), sealing what is handed
 * out, and the kernel's count of free pages.
 *
 * fallocate on a hugetlb memfd allocates each page into the file, and the
 * kernel zeroes it then; mapping pages already in the file later costs
 * only the page tables (README, serve's table, has the figures).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "serve_cgroup.h"
#include "serve_reserve.h"

#ifndef SYS_clone3
#define SYS_clone3 435 /* Linux 5.3, the same number everywhere */
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#define PC_CLONE_PIDFD 0x00001000ull
#define PC_CLONE_INTO_CGROUP 0x200000000ull /* Linux 5.7 */
#define STOP_POLL_MS 100 /* how often a waiting fill looks at the stop flag */
/* A worker still filling after 30 s and 10 s per GiB is killed: zeroing
 * runs at gigabytes a second, so it is stopped (the tenant's freezer) or
 * starved (its cpu.max), and the request fails rather than wait. */
#define WORKER_NS (30 * 1000000000ull)
#define WORKER_NS_GIB (10 * 1000000000ull)
#ifndef SYS_close_range
#define SYS_close_range 436 /* Linux 5.9, the same number everywhere */
#endif

/* clone3's argument, as the kernel's uapi <linux/sched.h> has it (not
 * included: it clashes with the C library's <sched.h>). */
struct pc_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
    uint64_t set_tid, set_tid_size, cgroup;
};

#ifndef MFD_HUGE_SHIFT
#define MFD_HUGE_SHIFT 26
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif

/* A fill at request time goes in steps of this many bytes, so a stopping
 * daemon leaves it within one step: 1 GiB took 0.34 s to fault and zero
 * here (README, serve's table). */
#define FRESH_STEP ((uint64_t)1 << 30)

uint64_t serve_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int serve_memfd(int page)
{
    unsigned shift = page == SERVE_PAGE_1G ? 30 : 21;
    /* Sealable: hugetlb memfds take seals only when created so. */
    int fd = memfd_create("pageclear-serve", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB |
                                                 (shift << MFD_HUGE_SHIFT));
    if (fd < 0)
        return errno == EINVAL ? -EOPNOTSUPP : -errno;
    return fd;
}

static long read_count(int page, const char *name)
{
    char path[96];
    snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%s/%s",
             page == SERVE_PAGE_1G ? "1048576kB" : "2048kB", name);
    FILE *f = fopen(path, "re");
    long v = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

long serve_free_pages(int page)
{
    long free_pages = read_count(page, "free_hugepages");
    long resv = read_count(page, "resv_hugepages");
    if (free_pages < 0 || resv < 0)
        return -1;
    return free_pages > resv ? free_pages - resv : 0;
}

int serve_fill_fresh(int page, uint64_t size, const struct serve_tenant *t, int *stop,
                     int *fd)
{
    long avail = serve_free_pages(page);
    /* Not even tried when the kernel says it lacks the pages: a fill that
     * fails part way would hold them all for a moment, and someone else's
     * allocation could fail meanwhile. */
    if (avail >= 0 && (uint64_t)avail < size / serve_page_bytes[page])
        return -ENOMEM;
    int f = serve_memfd(page);
    if (f < 0)
        return f;
    if (t != NULL && serve_tenant_elsewhere(t)) {
        int rc = serve_worker_fill(t, f, size, stop);
        if (rc == 0)
            *fd = f;
        else
            close(f); /* every page it got goes back */
        return rc == -ENOSPC ? -ENOMEM : rc;
    }
    for (uint64_t done = 0; done < size;) {
        uint64_t step = size - done < FRESH_STEP ? size - done : FRESH_STEP;
        if (__atomic_load_n(stop, __ATOMIC_RELAXED)) {
            close(f);
            return -ECANCELED;
        }
        if (fallocate(f, 0, (off_t)done, (off_t)step) != 0) {
            int e = errno;
            close(f); /* every page it got goes back */
            return e == ENOSPC ? -ENOMEM : -e;
        }
        done += step;
    }
    *fd = f;
    return 0;
}

int serve_seal(int fd, uint64_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    if ((uint64_t)st.st_size > size && ftruncate(fd, (off_t)size) != 0)
        return -errno;
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
        return -errno;
    return 0;
}

/* Close every descriptor but keep[0, n) (sorted, distinct), which a
 * worker inherits from the daemon: other clients' sockets and memory are
 * none of its business, and a worker stopped in the tenant's cgroup (its
 * freezer) must not keep them alive. */
__attribute__((no_sanitize_thread)) static void close_others(const int *keep, unsigned n)
{
    unsigned from = 0;
    for (unsigned i = 0; i <= n; i++) {
        unsigned to = i < n ? (unsigned)keep[i] : ~0u;
        if (to > from && syscall(SYS_close_range, from, to - 1, 0) != 0)
            for (unsigned fd = from; fd < to && fd < 65536; fd++) /* before Linux 5.9 */
                syscall(SYS_close, fd);
        from = i < n ? to + 1 : from;
    }
}

/* The worker, in a copy of the daemon made by clone3 from a thread of it:
 * only system calls from here (no lock another thread held at the clone
 * can be taken). Keeps only what it needs, joins the tenant's v1 cgroups
 * (writing "0" moves the writer), then fills. Its exit status: 0, or the
 * errno that stopped it. */
__attribute__((no_sanitize_thread)) static int worker(const struct serve_tenant *t, int memfd,
                                                      uint64_t size, long daemon)
{
    /* The daemon killed with SIGKILL takes its worker along: an orphan
     * would go on holding the tenant's pages. */
    if (syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 ||
        syscall(SYS_getppid) != daemon)
        return ECANCELED;
    int keep[SERVE_CG_MAX + 1];
    unsigned n = 0;
    keep[n++] = memfd;
    for (unsigned i = 0; i < t->nprocs; i++) { /* an insertion sort of a few */
        unsigned j = n++;
        for (; j > 0 && keep[j - 1] > t->procs[i]; j--)
            keep[j] = keep[j - 1];
        keep[j] = t->procs[i];
    }
    close_others(keep, n);
    for (unsigned i = 0; i < t->nprocs; i++)
        if (syscall(SYS_write, t->procs[i], "0", 1) != 1)
            return errno != 0 ? errno : EIO;
    for (uint64_t done = 0; done < size;) {
        uint64_t step = size - done < FRESH_STEP ? size - done : FRESH_STEP;
        if (fallocate(memfd, 0, (off_t)done, (off_t)step) != 0)
            return errno;
        done += step;
    }
    return 0;
}

int serve_worker_fill(const struct serve_tenant *t, int memfd, uint64_t size, const int *stop)
{
    int pidfd = -1;
    struct pc_clone_args ca = {.flags = PC_CLONE_PIDFD, .pidfd = (uint64_t)(uintptr_t)&pidfd};
    if (t->v2_dir >= 0) {
        ca.flags |= PC_CLONE_INTO_CGROUP; /* it never runs in the daemon's v2 cgroup */
        ca.cgroup = (uint64_t)t->v2_dir;
    }
    long daemon = getpid();
    /* exit_signal 0: no SIGCHLD, nobody else's wait reaps it. It leaves by
     * the system call, not _exit: a sanitizer's _exit takes locks that
     * another thread of the daemon may have held at the clone. */
    long pid = syscall(SYS_clone3, &ca, sizeof(ca));
    if (pid == 0) {
        int status = worker(t, memfd, size, daemon);
        for (;;)
            syscall(SYS_exit_group, status);
    }
    if (pid < 0)
        return -errno;
    int killed = 0;
    uint64_t end = serve_now_ns() + WORKER_NS + size / ((uint64_t)1 << 30) * WORKER_NS_GIB;
    struct pollfd p = {.fd = pidfd, .events = POLLIN};
    for (;;) { /* readable when it exits */
        int n = poll(&p, 1, STOP_POLL_MS);
        if (n > 0 || (n < 0 && errno != EINTR))
            break;
        int late = serve_now_ns() > end;
        if (!killed && (late || __atomic_load_n(stop, __ATOMIC_RELAXED)))
            killed = syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 ? 1 + late : 0;
    }
    siginfo_t si = {0};
    int rc;
    do
        rc = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED | __WALL);
    while (rc != 0 && errno == EINTR);
    close(pidfd);
    if (rc != 0)
        return -errno;
    if (killed)
        return killed == 2 ? -ETIMEDOUT : -ECANCELED;
    if (si.si_code != CLD_EXITED)
        return -ENOMEM; /* killed: the OOM killer, or the tenant's own */
    return si.si_status == 0 ? 0 : si.si_status == ENOSPC ? -ENOSPC : -si.si_status;
}
