/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_cgroup.c - a requester's cgroups (serve_cgroup.h): read from
 * /proc/PID/cgroup for the process that connected (its pid checked
 * against its pidfd, so a reused pid is never charged), the directories a
 * worker must be placed in opened, and the limits on its hugetlb memory
 * read up its hierarchy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "serve_cgroup.h"
#include "serve_proto.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424 /* Linux 5.1, the same number everywhere */
#endif
#define MOUNTINFO_MAX ((size_t)4 << 20) /* a host with thousands of mounts */
/* A v1 hugetlb limit this high is none: the default is the page
 * counter's maximum, near 2^63. */
#define NO_LIMIT ((uint64_t)1 << 62)

/* Read path whole into buf (size bytes, NUL-terminated): its length, or a
 * negative errno (-E2BIG if it does not fit). */
static ssize_t read_whole(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = 0;
    ssize_t r = 0;
    char extra;
    do {
        r = n < size - 1 ? read(fd, buf + n, size - 1 - n) : read(fd, &extra, 1);
        if (r > 0 && n == size - 1)
            r = -1, errno = E2BIG;
        else if (r > 0)
            n += (size_t)r;
    } while (r > 0 || (r < 0 && errno == EINTR));
    int e = errno;
    close(fd);
    if (r < 0)
        return -e;
    buf[n] = '\0';
    return (ssize_t)n;
}

int serve_cg_mounts_read(struct serve_cg_mounts *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t size = (size_t)64 << 10; size <= MOUNTINFO_MAX; size *= 2) {
        char *buf = malloc(size);
        if (buf == NULL)
            return -ENOMEM;
        ssize_t n = read_whole("/proc/self/mountinfo", buf, size);
        if (n >= 0)
            serve_cg_mounts_parse(buf, (size_t)n, out);
        free(buf);
        if (n != -E2BIG)
            return n < 0 ? (int)n : 0;
    }
    return -E2BIG;
}

/* The same hierarchy's line in own[0, len), if any. */
static int own_line(const char *own, size_t len, unsigned long id, struct serve_cg_line *out)
{
    size_t pos = 0;
    while (serve_cg_line_next(own, len, &pos, out) == 1)
        if (out->id == id)
            return 1;
    return 0;
}

/* Only named hierarchies (name=systemd): no controller to charge. */
static int named_only(const struct serve_cg_line *l)
{
    for (size_t i = 0; i < l->ctrl_len;) {
        if (l->ctrl_len - i < 5 || memcmp(l->ctrl + i, "name=", 5) != 0)
            return 0;
        const char *comma = memchr(l->ctrl + i, ',', l->ctrl_len - i);
        i = comma != NULL ? (size_t)(comma - l->ctrl) + 1 : l->ctrl_len;
    }
    return 1;
}

/* mount point + the line's path into out: its length, or -ENAMETOOLONG. */
static int join(const char *dir, const struct serve_cg_line *l, char out[SERVE_CG_PATH])
{
    size_t path_len = l->path_len == 1 ? 0 : l->path_len; /* "/": the mount point */
    if (strlen(dir) + path_len >= SERVE_CG_PATH)
        return -ENAMETOOLONG;
    int n = snprintf(out, SERVE_CG_PATH, "%s%.*s", dir, (int)path_len, l->path);
    return n;
}

/* Open what a worker needs of one of the requester's lines. */
static int open_line(const struct serve_cg_mounts *m, const struct serve_cg_line *l, int same,
                     struct serve_tenant *t)
{
    char path[SERVE_CG_PATH];
    for (unsigned i = 0; i < m->n; i++) {
        const struct serve_cg_mount *mt = &m->m[i];
        int v2 = l->id == 0 && l->ctrl_len == 0;
        if (v2 != mt->v2 || (!v2 && !serve_cg_mount_holds(mt->opts, l->ctrl, l->ctrl_len)))
            continue;
        int n = join(mt->dir, l, path);
        if (n < 0)
            return n;
        if (v2) {
            memcpy(t->v2_path, path, (size_t)n + 1);
            t->v2_root = strlen(mt->dir);
            t->v2_dir = same ? -1 : open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            return same || t->v2_dir >= 0 ? 0 : -errno;
        }
        if (serve_cg_mount_holds(mt->opts, "hugetlb", 7)) {
            memcpy(t->v1_hugetlb, path, (size_t)n + 1);
            t->v1_root = strlen(mt->dir);
        }
        if (same || t->nprocs == SERVE_CG_MAX)
            return 0;
        if ((size_t)n + sizeof("/cgroup.procs") > sizeof(path))
            return -ENAMETOOLONG;
        memcpy(path + n, "/cgroup.procs", sizeof("/cgroup.procs"));
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        t->procs[t->nprocs++] = fd;
        return 0;
    }
    return 0; /* a hierarchy not mounted here: nothing to join */
}

int serve_tenant_open(const struct serve_cg_mounts *m, int pidfd, pid_t pid,
                      struct serve_tenant *t)
{
    char path[48], peer[SERVE_CG_FILE], own[SERVE_CG_FILE];
    memset(t, 0, sizeof(*t));
    t->v2_dir = -1;
    if (pidfd < 0 || pid <= 0)
        return -ESRCH;
    snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
    ssize_t n = read_whole(path, peer, sizeof(peer));
    if (n == -ENOENT)
        return -ESRCH;
    if (n < 0)
        return (int)n;
    /* Read first, checked after: if the process still lives, the pid was
     * its own all along (a live process's pid is never reused). EPERM
     * says it lives too (the daemon may lack CAP_KILL). */
    if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) != 0 && errno != EPERM)
        return -ESRCH;
    ssize_t k = read_whole("/proc/thread-self/cgroup", own, sizeof(own));
    if (k < 0)
        return (int)k;
    size_t pos = 0;
    struct serve_cg_line l, o;
    int rc;
    while ((rc = serve_cg_line_next(peer, (size_t)n, &pos, &l)) == 1) {
        if (l.ctrl_len > 0 && named_only(&l))
            continue;
        int same = own_line(own, (size_t)k, l.id, &o) && o.path_len == l.path_len &&
                   memcmp(o.path, l.path, l.path_len) == 0;
        if ((rc = open_line(m, &l, same, t)) != 0)
            return rc;
    }
    return rc;
}

void serve_tenant_close(struct serve_tenant *t)
{
    if (t->v2_dir >= 0)
        close(t->v2_dir);
    for (unsigned i = 0; i < t->nprocs; i++)
        close(t->procs[i]);
    t->v2_dir = -1;
    t->nprocs = 0;
}

int serve_tenant_elsewhere(const struct serve_tenant *t)
{
    return t->v2_dir >= 0 || t->nprocs > 0;
}

const char *serve_tenant_name(const struct serve_tenant *t)
{
    if (t->v2_path[0] == '\0')
        return "-";
    return t->v2_path[t->v2_root] != '\0' ? t->v2_path + t->v2_root : "/";
}

/* A limit or usage file of dir: its value, UINT64_MAX for "max" or none. */
static uint64_t read_value(const char *dir, const char *name)
{
    char path[SERVE_CG_PATH + 64], text[32];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    ssize_t n = read_whole(path, text, sizeof(text));
    if (n <= 0 || strncmp(text, "max", 3) == 0)
        return UINT64_MAX;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    return end != text && v < NO_LIMIT ? (uint64_t)v : UINT64_MAX;
}

/* The limits in pairs {limit, usage} of files (a %s for the page size's
 * name), in dir and each ancestor down to the mount point (root bytes):
 * whether any is set, the least room in *room. */
static int walk(const char *dir, size_t root, const char *const (*files)[2], unsigned nfiles,
                const char *size_name, uint64_t *room)
{
    char path[SERVE_CG_PATH], lim[64], use[64];
    int limited = 0;
    snprintf(path, sizeof(path), "%s", dir);
    for (size_t len = strlen(path); len > root;) {
        for (unsigned i = 0; i < nfiles; i++) {
            snprintf(lim, sizeof(lim), files[i][0], size_name);
            snprintf(use, sizeof(use), files[i][1], size_name);
            uint64_t limit = read_value(path, lim);
            if (limit == UINT64_MAX)
                continue;
            uint64_t used = read_value(path, use);
            uint64_t left = used != UINT64_MAX && used < limit ? limit - used : 0;
            limited = 1;
            *room = left < *room ? left : *room;
        }
        char *slash = strrchr(path, '/');
        len = slash != NULL ? (size_t)(slash - path) : 0;
        path[len] = '\0';
    }
    return limited;
}

int serve_tenant_limit(const struct serve_cg_mounts *m, const struct serve_tenant *t, int page,
                       uint64_t *room)
{
    static const char *const v2[][2] = {
        {"hugetlb.%s.max", "hugetlb.%s.current"},
        {"hugetlb.%s.rsvd.max", "hugetlb.%s.rsvd.current"},
        {"memory.max%.0s", "memory.current%.0s"},
    };
    static const char *const v1[][2] = {
        {"hugetlb.%s.limit_in_bytes", "hugetlb.%s.usage_in_bytes"},
        {"hugetlb.%s.rsvd.limit_in_bytes", "hugetlb.%s.rsvd.usage_in_bytes"},
    };
    const char *name = page == SERVE_PAGE_1G ? "1GB" : "2MB";
    int limited = 0;
    *room = UINT64_MAX;
    if (t->v2_path[0] != '\0')
        limited |= walk(t->v2_path, t->v2_root, v2, m->hugetlb_in_memcg ? 3 : 2, name, room);
    if (t->v1_hugetlb[0] != '\0')
        limited |= walk(t->v1_hugetlb, t->v1_root, v1, 2, name, room);
    return limited;
}
