/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * proc_uapi.h - the two ioctls of /proc/<pid>/ files the library uses, as
 * the kernel's include/uapi/linux/fs.h has them: PAGEMAP_SCAN on
 * /proc/self/pagemap (Linux 6.7) and PROCMAP_QUERY on /proc/self/maps
 * (Linux 6.11). Debian 12's linux-libc-dev (6.1) has neither, so they are
 * defined here where the system's header lacks them; the values are the
 * kernel's ABI, which never changes them. Whether the running kernel has
 * them is found at run time: an older one answers ENOTTY.
 */
#ifndef PCI_PROC_UAPI_H
#define PCI_PROC_UAPI_H

#include <linux/fs.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifndef PAGEMAP_SCAN
/* Page categories a scan reports and filters on. */
#define PAGE_IS_WPALLOWED (1ULL << 0) /* under async userfaultfd write-protect */
#define PAGE_IS_WRITTEN (1ULL << 1)   /* written since write-protected */
#define PAGE_IS_FILE (1ULL << 2)
#define PAGE_IS_PRESENT (1ULL << 3)   /* mapped to a page in memory */
#define PAGE_IS_SWAPPED (1ULL << 4)   /* any other non-empty entry: swap,
                                         migration, a marker */
#define PAGE_IS_PFNZERO (1ULL << 5)   /* mapped to the shared zero page */
#define PAGE_IS_HUGE (1ULL << 6)
#define PM_SCAN_WP_MATCHING (1ULL << 0)
#define PM_SCAN_CHECK_WPASYNC (1ULL << 1)
/* A run of pages with the same categories, [start, end). */
struct page_region {
    uint64_t start, end, categories;
};
/* A page is reported if, with its categories c' = c ^ category_inverted,
 * (c' & category_mask) == category_mask and, when category_anyof_mask is
 * not 0, (c' & category_anyof_mask) != 0. */
struct pm_scan_arg {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
    uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#ifndef PROCMAP_QUERY
#define PROCMAP_QUERY_VMA_READABLE 0x01
#define PROCMAP_QUERY_VMA_WRITABLE 0x02
#define PROCMAP_QUERY_VMA_EXECUTABLE 0x04
#define PROCMAP_QUERY_VMA_SHARED 0x08
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10
/* The mapping holding query_addr, or with COVERING_OR_NEXT_VMA the first
 * one after it; ENOENT if there is none. */
struct procmap_query {
    uint64_t size, query_flags, query_addr;
    uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
    uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
    uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#endif

#endif /* PCI_PROC_UAPI_H */
