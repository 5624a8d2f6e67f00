/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * hugetlb.c - reserving hugetlb pages for a measurement under
 * CLI_HUGETLB_LOCK, and giving them back, on every path out (a signal
 * included): huge pages left reserved are memory lost to everything else
 * on the machine.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffer.h"
#include "hugetlb.h"

static const char *dir_of(enum cli_page p)
{
    return p == CLI_PAGE_1G ? "/sys/kernel/mm/hugepages/hugepages-1048576kB"
                            : "/sys/kernel/mm/hugepages/hugepages-2048kB";
}

static long read_count(enum cli_page p, const char *name)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir_of(p), name);
    return cli_read_long(path);
}

/* With open() and write() only: it also runs in the signal handler. */
static int write_count(enum cli_page p, long v)
{
    char path[128], num[32];
    snprintf(path, sizeof(path), "%s/nr_hugepages", dir_of(p));
    int n = snprintf(num, sizeof(num), "%ld\n", v);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int ok = write(fd, num, (size_t)n) == n;
    close(fd);
    return ok ? 0 : -1;
}

/* The reservation to undo if a signal ends the process first. */
static volatile sig_atomic_t active;
static enum cli_page active_page;
static long active_old;

static void on_signal(int sig)
{
    if (active && active_old >= 0) {
        char num[32];
        /* snprintf is not async-signal-safe: format by hand. */
        long v = active_old;
        int n = 0;
        char rev[24];
        do {
            rev[n++] = (char)('0' + v % 10);
            v /= 10;
        } while (v > 0 && n < 23);
        for (int i = 0; i < n; i++)
            num[i] = rev[n - 1 - i];
        num[n] = '\n';
        int fd = open(active_page == CLI_PAGE_1G
                          ? "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
                          : "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
                      O_WRONLY);
        if (fd >= 0 && write(fd, num, (size_t)n + 1) < 0) {
            /* nothing more can be done from a signal handler */
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* 1 if an inherited descriptor is open on the lock file: the parent took
 * the lock (flock(1) keeps it open for the command it runs), and taking it
 * again through a new open file would wait for ever. */
static int inherited(void)
{
    struct stat lk, st;
    if (stat(CLI_HUGETLB_LOCK, &lk) != 0)
        return 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = 0;
    while (d != NULL && !found && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd != dirfd(d) && fstat(fd, &st) == 0)
            found = st.st_dev == lk.st_dev && st.st_ino == lk.st_ino;
    }
    if (d != NULL)
        closedir(d);
    return found;
}

/* How long to wait for another measurement's reservation to end: the
 * default suite must finish within a test's time limit, and a reservation
 * held longer is a measurement of its own, not a gap between two. */
#define LOCK_WAIT_S 60

static int take_lock(struct cli_hugetlb *h)
{
    h->lock_fd = -1;
    if (inherited())
        return 0;
    h->lock_fd = open(CLI_HUGETLB_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (h->lock_fd < 0)
        return -1;
    for (int tenths = 0; flock(h->lock_fd, LOCK_EX | LOCK_NB) != 0; tenths++) {
        if (errno != EWOULDBLOCK || tenths >= LOCK_WAIT_S * 10) {
            int e = errno;
            close(h->lock_fd);
            h->lock_fd = -1;
            errno = e;
            return -1;
        }
        if (tenths == 0)
            fprintf(stderr, "pageclear: waiting up to %d s for %s (another measurement "
                            "reserves hugetlb pages)\n", LOCK_WAIT_S, CLI_HUGETLB_LOCK);
        usleep(100000);
    }
    return 0;
}

/* 1 if reserving what pages lack of freep would take more than half the
 * memory available, with the message in err: the kernel takes what it can
 * of an impossible request, memory the rest of the machine then lacks
 * until it is given back. */
static int too_much(enum cli_page p, size_t pages, long freep, char *err, size_t errlen)
{
    if (freep < 0 || (size_t)freep >= pages)
        return 0;
    size_t more = (pages - (size_t)freep) * cli_page_bytes(p), avail = cli_mem_available();
    if (avail == 0 || more <= avail / 2)
        return 0;
    snprintf(err, errlen, "%zu %s hugetlb pages would take more than half the memory available",
             pages, cli_page_name(p));
    return 1;
}

int cli_hugetlb_reserve(struct cli_hugetlb *h, enum cli_page p, size_t pages, char *err,
                        size_t errlen)
{
    *h = (struct cli_hugetlb){.lock_fd = -1, .old = -1, .page = p};
    long nr = read_count(p, "nr_hugepages"), freep = read_count(p, "free_hugepages");
    /* Refused before the lock: no wait for another measurement's pages
     * can make such a request fit (asked again under the lock below). */
    if (too_much(p, pages, freep, err, errlen))
        return -1;
    if (take_lock(h) != 0) {
        /* Busy too long: what is free can still be used, unreserved. */
        if (freep >= 0 && (size_t)freep >= pages)
            return 0;
        snprintf(err, errlen, "%s busy for %d s (another measurement holds hugetlb pages) "
                 "and %ld %s pages free, %zu needed", CLI_HUGETLB_LOCK, LOCK_WAIT_S,
                 freep < 0 ? 0 : freep, cli_page_name(p), pages);
        return -1;
    }
    nr = read_count(p, "nr_hugepages");
    freep = read_count(p, "free_hugepages");
    if (nr < 0 || freep < 0) {
        snprintf(err, errlen, "no %s hugetlb pages in this kernel", cli_page_name(p));
        cli_hugetlb_release(h);
        return -1;
    }
    if ((size_t)freep >= pages)
        return 0;
    if (too_much(p, pages, freep, err, errlen)) {
        cli_hugetlb_release(h);
        return -1;
    }
    long want = nr + (long)pages - freep;
    active_page = p;
    active_old = nr;
    active = 1;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    h->old = nr;
    if (write_count(p, want) != 0 || read_count(p, "free_hugepages") < (long)pages) {
        snprintf(err, errlen,
                 "could not reserve %zu %s hugetlb pages (%ld free; as root, echo %ld > "
                 "%s/nr_hugepages; memory may be too fragmented for them)",
                 pages, cli_page_name(p), freep, want, dir_of(p));
        cli_hugetlb_release(h);
        return -1;
    }
    return 0;
}

void cli_hugetlb_release(struct cli_hugetlb *h)
{
    if (h->old >= 0) {
        write_count(h->page, h->old);
        h->old = -1;
    }
    active = 0;
    if (h->lock_fd >= 0) {
        close(h->lock_fd); /* drops the lock */
        h->lock_fd = -1;
    }
}
