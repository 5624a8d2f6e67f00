/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * buffer.c - benchmark buffers backed by a chosen page size: 4 KiB pages,
 * transparent huge pages (madvise) or hugetlb 2 MiB / 1 GiB pages. A page
 * size that cannot be had comes back as an error that says what to do.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "args.h"
#include "buffer.h"
#include "units.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#define THP_SIZE (2 * MIB)

int cli_parse_page(const char *s, enum cli_page *out)
{
    static const struct { const char *name; enum cli_page p; } names[] = {
        {"4KB", CLI_PAGE_4K}, {"4K", CLI_PAGE_4K},   {"4KiB", CLI_PAGE_4K},
        {"thp", CLI_PAGE_THP}, {"2MB", CLI_PAGE_2M}, {"2M", CLI_PAGE_2M},
        {"2MiB", CLI_PAGE_2M}, {"1GB", CLI_PAGE_1G}, {"1G", CLI_PAGE_1G},
        {"1GiB", CLI_PAGE_1G},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].p;
            return 0;
        }
    return -1;
}

const char *cli_page_name(enum cli_page p)
{
    switch (p) {
    case CLI_PAGE_THP: return "thp";
    case CLI_PAGE_2M: return "2MB";
    case CLI_PAGE_1G: return "1GB";
    default: return "4KB";
    }
}

size_t cli_page_bytes(enum cli_page p)
{
    switch (p) {
    case CLI_PAGE_2M: case CLI_PAGE_THP: return 2 * MIB;
    case CLI_PAGE_1G: return GIB;
    default: return 4 * KIB;
    }
}

long cli_read_long(const char *path)
{
    FILE *f = fopen(path, "re");
    long v = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

size_t cli_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    size_t kb = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "MemAvailable: %zu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

void cli_hugetlb_advice(size_t need_pages, enum cli_page p, char *err, size_t errlen)
{
    const char *dir = p == CLI_PAGE_1G ? "hugepages-1048576kB" : "hugepages-2048kB";
    char path[128];
    snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/free_hugepages", dir);
    long free_pages = cli_read_long(path);
    snprintf(err, errlen,
             "not enough %s hugetlb pages: need %zu, %ld free; reserve them with "
             "'echo %zu > /sys/kernel/mm/hugepages/%s/nr_hugepages' (as root; "
             "give them back with 'echo 0' afterwards)",
             cli_page_name(p), need_pages, free_pages < 0 ? 0 : free_pages,
             need_pages, dir);
}

/* Hugetlb pages of b->page: reserved at mmap, so too few pages fail here
 * with ENOMEM rather than as SIGBUS at first touch (unless NORESERVE). */
static int map_hugetlb(struct cli_buf *b, int how, char *err, size_t errlen)
{
    int shift = b->page == CLI_PAGE_1G ? 30 : 21;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (shift << MAP_HUGE_SHIFT);
    if (how & CLI_MAP_POPULATE)
        flags |= MAP_POPULATE;
    if (how & CLI_MAP_NORESERVE)
        flags |= MAP_NORESERVE;
    void *a = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (a == MAP_FAILED) {
        int e = errno;
        if (e == ENOMEM || e == EINVAL)
            cli_hugetlb_advice(b->map_len / cli_page_bytes(b->page), b->page, err, errlen);
        else
            snprintf(err, errlen, "mmap of %s hugetlb memory: %s", cli_page_name(b->page),
                     strerror(e));
        return -e;
    }
    b->addr = a;
    return 0;
}

/* Transparent huge pages: over-map by one huge page and trim, so the
 * buffer starts on a 2 MiB boundary and every 2 MiB of it can be a huge
 * page. */
static int map_thp(struct cli_buf *b, int how, char *err, size_t errlen)
{
    size_t over = b->map_len + THP_SIZE;
    char *a = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED) {
        int e = errno;
        snprintf(err, errlen, "mmap: %s", strerror(e));
        return -e;
    }
    char *al = (char *)(((uintptr_t)a + THP_SIZE - 1) & ~(uintptr_t)(THP_SIZE - 1));
    if (al > a)
        munmap(a, (size_t)(al - a));
    size_t tail = (size_t)(a + over - (al + b->map_len));
    if (tail)
        munmap(al + b->map_len, tail);
    b->addr = al;
    if (madvise(al, b->map_len, MADV_HUGEPAGE) != 0) {
        snprintf(err, errlen,
                 "madvise(MADV_HUGEPAGE): %s (is THP disabled? see "
                 "/sys/kernel/mm/transparent_hugepage/enabled)",
                 strerror(errno));
        cli_buf_unmap(b);
        return -EINVAL;
    }
    if ((how & CLI_MAP_POPULATE) && madvise(al, b->map_len, MADV_POPULATE_WRITE) != 0)
        for (size_t i = 0; i < b->map_len; i += 4 * KIB) /* before Linux 5.14 */
            al[i] = 0;
    return 0;
}

int cli_buf_map(struct cli_buf *b, size_t len, enum cli_page p, int how,
                char *err, size_t errlen)
{
    size_t pg = cli_page_bytes(p);
    *b = (struct cli_buf){.len = len, .page = p};
    if (len == 0 || len > SIZE_MAX - 2 * pg) {
        snprintf(err, errlen, "size %zu cannot be mapped", len);
        return -EINVAL;
    }
    b->map_len = (len + pg - 1) / pg * pg;
    size_t avail = cli_mem_available();
    if ((p == CLI_PAGE_4K || p == CLI_PAGE_THP) && avail && b->map_len > avail) {
        /* Refused up front: populating or touching it would only end in
         * the OOM killer, taking other programs with it. */
        char a[32], m[32];
        snprintf(err, errlen, "%s does not fit in the %s of memory available",
                 cli_fmt_size(len, a, sizeof(a)), cli_fmt_size(avail, m, sizeof(m)));
        return -ENOMEM;
    }
    if (p == CLI_PAGE_2M || p == CLI_PAGE_1G)
        return map_hugetlb(b, how, err, errlen);
    if (p == CLI_PAGE_THP)
        return map_thp(b, how, err, errlen);
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (how & CLI_MAP_POPULATE ? MAP_POPULATE : 0);
    void *a = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (a == MAP_FAILED) {
        int e = errno;
        snprintf(err, errlen, "mmap of %zu bytes: %s", b->map_len, strerror(e));
        return -e;
    }
    b->addr = a;
    return 0;
}

void cli_buf_unmap(struct cli_buf *b)
{
    if (b->addr != NULL)
        munmap(b->addr, b->map_len);
    b->addr = NULL;
}
