/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * vma.c - the kind of each mapping of this process (vma.h).
 *
 * PROCMAP_QUERY answers for one mapping at a time, without formatting the
 * others or walking their page tables, and says the mapping's page size,
 * so hugetlb is told apart. A kernel before 6.11 answers ENOTTY, and a
 * seccomp filter may refuse the ioctl: the reader then reads the text of
 * the same file, in order, a fixed buffer at a time, up to the mapping
 * asked for. Either way a mapping counts as anonymous only with neither
 * device nor inode: [heap], [stack], [anon:name] and unnamed ones. The
 * kernel's special mappings without a file ([vdso], [vvar]) are not
 * writable, which makes them READONLY first.
 */
#include <errno.h>
#include <string.h>

#include "proc_uapi.h"
#include "vma.h"

/* A maps line up to its inode fits (two 16-digit addresses, permissions,
 * a 16-digit offset, the device, a 20-digit inode: under 100 bytes); the
 * path past it may be cut. */
#define HEAD_MAX 128

int pci_vmas_open(struct pci_vmas *v, size_t page)
{
    int fd = pci_proc_open("/proc/self/maps");
    if (fd < 0)
        return fd;
    v->page = page;
    v->query = 1;
    v->used = 0;
    v->text_end = 0;
    pci_lines_init(&v->text, fd);
    return 0;
}

void pci_vmas_close(struct pci_vmas *v)
{
    pci_proc_close(v->text.fd);
    v->text.fd = -1;
}

static enum pci_vma_kind kind_of(int writable, int hugetlb, int shared, int file)
{
    if (!writable)
        return PCI_VMA_READONLY;
    if (hugetlb)
        return PCI_VMA_HUGETLB;
    if (shared)
        return PCI_VMA_SHARED;
    return file ? PCI_VMA_FILE : PCI_VMA_ANON;
}

static int find_query(struct pci_vmas *v, uintptr_t at, struct pci_vma *out)
{
    struct procmap_query q;
    memset(&q, 0, sizeof(q)); /* no name, no build ID: vma_name_size 0 */
    q.size = sizeof(q);
    q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
    q.query_addr = at;
    int rc = pci_proc_ioctl(v->text.fd, PROCMAP_QUERY, &q);
    if (rc == -ENOENT)
        return 0;
    if (rc < 0)
        return rc;
    if (q.vma_end <= q.vma_start || q.vma_end <= at)
        return -EIO; /* not what was asked: trust none of it */
    out->start = (uintptr_t)q.vma_start;
    out->end = (uintptr_t)q.vma_end;
    out->kind = kind_of((q.vma_flags & PROCMAP_QUERY_VMA_WRITABLE) != 0,
                        q.vma_page_size != v->page,
                        (q.vma_flags & PROCMAP_QUERY_VMA_SHARED) != 0,
                        q.inode != 0 || q.dev_major != 0 || q.dev_minor != 0);
    return 1;
}

static int find_text(struct pci_vmas *v, uintptr_t at, struct pci_vma *out)
{
    char line[HEAD_MAX];
    if (at < v->text_end) {
        int rc = pci_lines_rewind(&v->text);
        if (rc < 0)
            return rc;
        v->text_end = 0;
    }
    for (;;) {
        int rc = pci_lines_next(&v->text, line, sizeof(line));
        if (rc <= 0)
            return rc;
        struct pci_maps_line m;
        if (pci_maps_parse(line, &m) != 0)
            return -EIO; /* maps holds nothing else */
        if (m.end <= at)
            continue;
        v->text_end = m.end;
        out->start = m.start;
        out->end = m.end;
        out->kind = kind_of(m.writable, 0, m.shared, m.file);
        return 1;
    }
}

int pci_vmas_find(struct pci_vmas *v, uintptr_t at, struct pci_vma *out)
{
    if (v->query) {
        int rc = find_query(v, at, out);
        if (rc >= 0) {
            v->used |= PCI_VMAS_QUERY;
            return rc;
        }
        /* ENOTTY before Linux 6.11, or refused: the text from here on. */
        v->query = 0;
        v->text_end = UINTPTR_MAX; /* start from the top */
    }
    v->used |= PCI_VMAS_TEXT;
    return find_text(v, at, out);
}
