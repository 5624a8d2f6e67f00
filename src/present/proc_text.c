/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * proc_text.c - system calls on /proc/self files, a bounded line reader
 * and the maps-line parse (proc_text.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc_text.h"

int pci_proc_open(const char *path)
{
    long fd;
    do
        fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : (int)fd;
}

void pci_proc_close(int fd)
{
    if (fd >= 0)
        (void)syscall(SYS_close, fd);
}

int pci_proc_ioctl(int fd, unsigned long req, void *arg)
{
    long rc = syscall(SYS_ioctl, fd, req, arg);
    return rc < 0 ? -errno : (int)rc;
}

void pci_lines_init(struct pci_lines *r, int fd)
{
    r->fd = fd;
    r->eof = 0;
    r->pos = r->len = 0;
}

int pci_lines_rewind(struct pci_lines *r)
{
    if (syscall(SYS_lseek, r->fd, 0L, SEEK_SET) < 0)
        return -errno;
    pci_lines_init(r, r->fd);
    return 0;
}

/* Refill the buffer: 1, 0 at the end of the file, or -errno. */
static int fill(struct pci_lines *r)
{
    long n;
    if (r->eof)
        return 0;
    do
        n = syscall(SYS_read, r->fd, r->buf, sizeof(r->buf));
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    r->pos = 0;
    r->len = (size_t)n;
    r->eof = n == 0;
    return n > 0;
}

int pci_lines_next(struct pci_lines *r, char *line, size_t cap)
{
    size_t k = 0;
    int cut = 0, any = 0;
    for (;;) {
        if (r->pos == r->len) {
            int rc = fill(r);
            if (rc < 0)
                return rc;
            if (rc == 0)
                break; /* a last line without a newline ends here */
        }
        char c = r->buf[r->pos++];
        any = 1;
        if (c == '\n')
            break;
        if (k + 1 < cap)
            line[k++] = c;
        else
            cut = 1;
    }
    line[k] = '\0';
    return !any ? 0 : cut ? 2 : 1;
}

/* Hex digits at *p into *v, advancing *p: the count of digits read (0 if
 * none, or too many for 64 bits). */
static int hex(const char **p, uint64_t *v)
{
    int n = 0;
    *v = 0;
    for (;; n++) {
        char c = **p;
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                            : 16;
        if (d == 16)
            break;
        if (n == 16)
            return 0;
        *v = *v << 4 | d;
        (*p)++;
    }
    return n;
}

static int expect(const char **p, char c)
{
    if (**p != c)
        return 0;
    (*p)++;
    return 1;
}

int pci_maps_parse(const char *line, struct pci_maps_line *m)
{
    const char *p = line;
    uint64_t start, end, offset, major, minor, inode = 0;
    if (!hex(&p, &start) || !expect(&p, '-') || !hex(&p, &end) || !expect(&p, ' '))
        return -1;
    const char *perms = p;
    for (int i = 0; i < 4; i++)
        if (*p++ == '\0')
            return -1;
    if (!expect(&p, ' ') || !hex(&p, &offset) || !expect(&p, ' ') || !hex(&p, &major) ||
        !expect(&p, ':') || !hex(&p, &minor) || !expect(&p, ' '))
        return -1;
    int digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 20; p++, digits++)
        inode = inode * 10 + (uint64_t)(*p - '0');
    if (digits == 0 || start > end || (*p != ' ' && *p != '\0'))
        return -1;
    m->start = (uintptr_t)start;
    m->end = (uintptr_t)end;
    m->writable = perms[1] == 'w';
    m->shared = perms[3] == 's';
    m->file = major != 0 || minor != 0 || inode != 0;
    return 0;
}
