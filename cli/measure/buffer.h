/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * buffer.h - benchmark buffers backed by a chosen page size, and how much
 * memory the machine has free for them (buffer.c).
 */
#ifndef PAGECLEAR_CLI_BUFFER_H
#define PAGECLEAR_CLI_BUFFER_H

#include <stddef.h>

enum cli_page { CLI_PAGE_4K, CLI_PAGE_THP, CLI_PAGE_2M, CLI_PAGE_1G };
struct cli_buf {
    char *addr;
    size_t len;     /* what was asked for */
    size_t map_len; /* what was mapped (rounded to the page size) */
    enum cli_page page;
};
/* Parse 4KB|thp|2MB|1GB (also 4K, 2M, 1G, any case). -1 if invalid. */
int cli_parse_page(const char *s, enum cli_page *out);
const char *cli_page_name(enum cli_page p);
size_t cli_page_bytes(enum cli_page p);
#define CLI_MAP_POPULATE 1  /* fault everything in now (MAP_POPULATE) */
#define CLI_MAP_NORESERVE 2 /* hugetlb: no reservation, so running out of
                               pages shows as SIGBUS at first touch */
/* Map len bytes backed by page size p, with CLI_MAP_* flags. Returns 0, or
 * -errno with a message in err that says what to do (e.g. how many hugetlb
 * pages to reserve and where); b->addr is NULL then. */
int cli_buf_map(struct cli_buf *b, size_t len, enum cli_page p, int flags,
                char *err, size_t errlen);
void cli_buf_unmap(struct cli_buf *b);
/* The message for too few hugetlb pages of size p: how many are needed
 * and free, and the `echo` that reserves them. */
void cli_hugetlb_advice(size_t need_pages, enum cli_page p, char *err, size_t errlen);
/* Bytes of memory available (MemAvailable), 0 if unknown. */
size_t cli_mem_available(void);
/* The number a file such as /sys/kernel/mm/hugepages/.../free_hugepages
 * starts with, or -1 if it cannot be read. */
long cli_read_long(const char *path);

#endif
