/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_cgroup.h - the tenants' cgroups: where the hierarchies are mounted
 * and what a process's cgroups are (serve_cgparse.c, pure parsers, fuzzed
 * by tests/fuzz/fuzz_serve.c), a requester's cgroups opened so that a worker
 * can be placed in them and their limits read (serve_cgroup.c), and the
 * fill by that worker (serve_memfd.c).
 *
 * The kernel charges a hugetlb page to the hugetlb cgroup of the task that
 * allocates it, and the charge stays with the page until it is freed,
 * whoever holds it then; the CPU time of zeroing it goes to that task too.
 * A fill for a tenant therefore runs in a process placed in the tenant's
 * cgroups (clone3 CLONE_INTO_CGROUP for cgroup v2, cgroup.procs for the
 * v1 hierarchies of a hybrid host), and the tenant's own limits hold.
 */
#ifndef PAGECLEAR_SERVE_CGROUP_H
#define PAGECLEAR_SERVE_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SERVE_CG_MAX 16      /* hierarchies: v2 and the v1 ones */
#define SERVE_CG_DIR 256     /* a mount point */
#define SERVE_CG_OPTS 256    /* a v1 mount's super options */
#define SERVE_CG_PATH 1024   /* a cgroup's directory: mount point and path */
#define SERVE_CG_FILE 8192   /* /proc/PID/cgroup, read whole */

struct serve_cg_mount {
    int v2;                   /* cgroup2, else a v1 hierarchy */
    char dir[SERVE_CG_DIR];   /* its mount point */
    char opts[SERVE_CG_OPTS]; /* v1: its super options (its controllers) */
};

/* The cgroup file systems mounted at their root ("/"), the first mount of
 * each, in /proc/self/mountinfo's order. */
struct serve_cg_mounts {
    unsigned n;
    struct serve_cg_mount m[SERVE_CG_MAX];
    int hugetlb_in_memcg; /* cgroup2 mounted with memory_hugetlb_accounting */
};

/* Parse /proc/self/mountinfo's text[0, len) into *out. A pure function:
 * lines that are not a cgroup mount, or not well formed, are skipped;
 * mount points are unescaped (\040) and those too long skipped. Returns
 * the mounts found (out->n). */
unsigned serve_cg_mounts_parse(const char *text, size_t len, struct serve_cg_mounts *out);

/* One line of /proc/PID/cgroup, "ID:CONTROLLERS:PATH", pointing into the
 * text: ctrl is empty for cgroup v2 (ID 0), path starts with '/'. */
struct serve_cg_line {
    unsigned long id;
    const char *ctrl, *path;
    size_t ctrl_len, path_len;
};

/* The line of text[0, len) at *pos: 1 with *out and *pos past it, 0 at the
 * end, -EINVAL (and *pos at the end) where a line is malformed. Pure. */
int serve_cg_line_next(const char *text, size_t len, size_t *pos, struct serve_cg_line *out);

/* Does the v1 mount with super options opts hold every controller of
 * ctrl[0, len) (a comma-separated list)? Pure. */
int serve_cg_mount_holds(const char *opts, const char *ctrl, size_t len);

/* Read /proc/self/mountinfo: 0, or a negative errno. */
int serve_cg_mounts_read(struct serve_cg_mounts *out);

/* A requester's cgroups, opened. */
struct serve_tenant {
    int v2_dir;               /* its v2 cgroup if not the daemon's, else -1 */
    int procs[SERVE_CG_MAX];  /* cgroup.procs of its v1 cgroups that are
                                 not the daemon's, open for writing */
    unsigned nprocs;
    char v2_path[SERVE_CG_PATH]; /* its v2 cgroup's directory, "" if none */
    size_t v2_root;           /* the mount point's length in v2_path */
    char v1_hugetlb[SERVE_CG_PATH]; /* its v1 hugetlb cgroup's, "" if none */
    size_t v1_root;           /* the mount point's length in v1_hugetlb */
};

/* t's v2 cgroup as /proc/PID/cgroup has it ("/" for the root, "-" for
 * none), for log lines. */
const char *serve_tenant_name(const struct serve_tenant *t);

/* The cgroups of the process pidfd (pid in the daemon's namespace), read
 * from /proc/PID/cgroup and checked against the pidfd afterwards (the
 * process still lives, so the pid was not reused), compared with the
 * calling thread's own. 0, or a negative errno (-ESRCH: the process is
 * gone or cannot be told). serve_tenant_close after either. */
int serve_tenant_open(const struct serve_cg_mounts *m, int pidfd, pid_t pid,
                      struct serve_tenant *t);
void serve_tenant_close(struct serve_tenant *t);
/* Does a fill for t need a worker placed in other cgroups? */
int serve_tenant_elsewhere(const struct serve_tenant *t);

/* Is t's hugetlb memory of page size `page` (enum serve_page) limited:
 * hugetlb.SIZE.max or .rsvd.max (v2; .limit_in_bytes in v1) below "max"
 * in its cgroup or an ancestor, or memory.max where the kernel charges
 * hugetlb to the memory controller? 1 or 0, with the room left below the
 * tightest limit in *room (UINT64_MAX without one). */
int serve_tenant_limit(const struct serve_cg_mounts *m, const struct serve_tenant *t, int page,
                       uint64_t *room);

/* Fill memfd's [0, size) in a process placed in t's cgroups (so it is
 * charged there, its pages and its CPU time), at normal priority. *stop
 * (read atomically) becoming non-zero kills it, and so does taking longer
 * than 30 s and 10 s per GiB. It keeps no descriptor of the daemon's but
 * memfd. 0, or -ENOSPC (no pages: the kernel's, or the cgroups' limit),
 * -ECANCELED (stopped), -ETIMEDOUT, or the negative errno of placing it
 * there (clone3, cgroup.procs). */
int serve_worker_fill(const struct serve_tenant *t, int memfd, uint64_t size, const int *stop);

#endif
