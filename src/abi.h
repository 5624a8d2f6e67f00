/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * abi.h - the size contract of the public structs (pageclear.h, at its
 * top; docs/abi.md): the smallest size each struct may be passed with, and
 * the two copies every function taking one of them makes (abi.c).
 */
#ifndef PCI_ABI_H
#define PCI_ABI_H

#include <stddef.h>

#include "pageclear.h"

#pragma GCC visibility push(hidden)

/* Where a field ends: the smallest size that holds it. */
#define PCI_ABI_END(type, field) \
    (offsetof(struct type, field) + sizeof(((struct type *)0)->field))

/* The end of each struct's last field in 1.0: a caller's size must reach
 * it, whatever the library's struct has grown to since. These never
 * change; a struct new after 1.0 gets the end of its first version's last
 * field. (The end of the field, not sizeof: a 1.0 program passes its
 * sizeof, which is at least that, and a field added later starts at or
 * past it, docs/abi.md.) */
#define PCI_ABI_MIN_pc_batch PCI_ABI_END(pc_batch, ctx)
#define PCI_ABI_MIN_pc_impl_info PCI_ABI_END(pc_impl_info, supported)
#define PCI_ABI_MIN_pc_pool_opts PCI_ABI_END(pc_pool_opts, populate)
#define PCI_ABI_MIN_pc_pool_stats PCI_ABI_END(pc_pool_stats, cleared_bytes)
#define PCI_ABI_MIN_pc_host PCI_ABI_END(pc_host, profile_status)
#define PCI_ABI_MIN_pc_tuning PCI_ABI_END(pc_tuning, parallel_nt_threshold)
#define PCI_ABI_MIN_pc_threshold_info PCI_ABI_END(pc_threshold_info, value)
/* New in 1.1: its first version ends with len. */
#define PCI_ABI_MIN_pc_extent PCI_ABI_END(pc_extent, len)
/* New in 1.1: its first version ends with used. */
#define PCI_ABI_MIN_pc_present_report PCI_ABI_END(pc_present_report, used)

/* The largest size taken: a page. The largest struct, pc_host, is under
 * 1 KiB; a size past a page is a wrong argument, not a struct, and
 * refusing it keeps the copies from running through memory (openat2 has
 * the same bound). */
#define PCI_ABI_SIZE_LIMIT PC_PAGE_SIZE

/* 0 if the caller's struct at p, of size bytes, can be used: -EINVAL if p
 * is NULL or size is below min or above PCI_ABI_SIZE_LIMIT. */
int pci_abi_check(const void *p, size_t size, size_t min);

/* Give the caller's struct dst (size bytes as it knows it) the library's
 * src (own bytes): min(size, own) bytes of src, then zeros from own up to
 * size. Returns pci_abi_check(dst, size, min); nothing is written then. */
int pci_abi_out(void *dst, size_t size, const void *src, size_t own, size_t min);

/* Take the caller's struct src (size bytes) into the library's dst (own
 * bytes, holding the defaults): its first min(size, own) bytes; fields
 * past size keep the defaults. Returns pci_abi_check(src, size, min), or
 * -E2BIG if a byte of src past own is not zero (a setting this library
 * does not know); dst is unchanged then. */
int pci_abi_in(void *dst, size_t own, const void *src, size_t size, size_t min);

/* The same for struct type, the library's own size and 1.0's minimum
 * filled in. */
#define PCI_ABI_CHECK(type, p, size) pci_abi_check((p), (size), PCI_ABI_MIN_##type)
#define PCI_ABI_OUT(type, dst, size, src) \
    pci_abi_out((dst), (size), (src), sizeof(struct type), PCI_ABI_MIN_##type)
#define PCI_ABI_IN(type, dst, src, size) \
    pci_abi_in((dst), sizeof(struct type), (src), (size), PCI_ABI_MIN_##type)

#pragma GCC visibility pop

#endif /* PCI_ABI_H */
