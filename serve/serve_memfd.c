/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_memfd.c - hugetlb memfds for `pageclear serve`: creating one,
 * filling it at request time, sealing what is handed out, and the
 * kernel's count of free pages.
 *
 * fallocate on a hugetlb memfd allocates each page into the file, and the
 * kernel zeroes it then; mapping pages already in the file later costs
 * only the page tables (README, serve's table, has the figures).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "serve_reserve.h"

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

int serve_fill_fresh(int page, uint64_t size, int *stop, int *fd)
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
