/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * proc_text.h - reading this process's /proc/self files for
 * pc_clear_present (proc_text.c): the system calls it makes, a line reader
 * in a fixed buffer, and the parse of a /proc/self/maps line (which
 * /proc/self/smaps repeats as the head of each mapping).
 *
 * The calls go through syscall(2): they are then no cancellation points
 * (a thread cancelled inside pc_clear_present would leak the descriptor),
 * no other library's interposed open or read sees them, and they are
 * async-signal-safe, as the preload's memset must be.
 */
#ifndef PCI_PROC_TEXT_H
#define PCI_PROC_TEXT_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* open(path, O_RDONLY | O_CLOEXEC): a descriptor, or -errno. */
int pci_proc_open(const char *path);
/* close(fd) where fd >= 0. */
void pci_proc_close(int fd);
/* ioctl(fd, req, arg): its result, or -errno. */
int pci_proc_ioctl(int fd, unsigned long req, void *arg);

/* The buffer of a line reader: a /proc file is read in chunks of this
 * size (its lines are short, and a caller's stack may be a signal
 * handler's alternate stack: SIGSTKSZ, 8 KiB, much of which the signal
 * frame takes). */
#define PCI_LINES_BUF 512

struct pci_lines {
    int fd;
    int eof;
    size_t pos, len;
    char buf[PCI_LINES_BUF];
};

/* Read fd's lines from its start. */
void pci_lines_init(struct pci_lines *r, int fd);
/* Back to the file's first line: 0 or -errno. */
int pci_lines_rewind(struct pci_lines *r);

/* The next line, without its newline: its first cap - 1 bytes into line
 * (cap >= 2), NUL-terminated, the rest of it read past. Returns 1 for a
 * whole line, 2 for one cut to fit, 0 at the end of the file, -errno if
 * a read fails. Bounded: it reads the file once, buf by buf. */
int pci_lines_next(struct pci_lines *r, char *line, size_t cap);

/* A mapping as a maps line gives it. */
struct pci_maps_line {
    uintptr_t start, end;
    int writable; /* 'w' in its permissions */
    int shared;   /* 's': a shared mapping */
    int file;     /* a device or an inode: it maps a file (anonymous
                     shared memory and hugetlb included), not 0:0 and 0 */
};

/* Parse "start-end perms offset dev inode [path]". 0, or -1 if line is not
 * one (an smaps field line, say). */
int pci_maps_parse(const char *line, struct pci_maps_line *m);

#pragma GCC visibility pop

#endif /* PCI_PROC_TEXT_H */
