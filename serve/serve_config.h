/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_config.h - the configuration of `pageclear serve`
 * (serve_config.c): a `key = value` file like the profile, parsed by a
 * pure function (fuzzed by tests/fuzz/fuzz_serve.c); names of users and groups
 * are looked up afterwards (serve_config_resolve).
 */
#ifndef PAGECLEAR_SERVE_CONFIG_H
#define PAGECLEAR_SERVE_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "serve_proto.h"

#define SERVE_CONFIG_DEFAULT "/etc/pageclear/serve.conf"
#define SERVE_SOCKET_DEFAULT "/run/pageclear/serve.sock"
#define SERVE_LINE_MAX 256         /* bytes per line, as the profile */
#define SERVE_CONFIG_MAX (64 << 10) /* bytes in the file: ~250 full lines */
#define SERVE_SOCKET_MAX 107       /* sun_path holds 108 bytes with the NUL */
#define SERVE_NAME_MAX 32          /* user and group names (useradd's limit) */
/* Blocks per page size: each is a memfd, a descriptor the daemon holds,
 * and one request's worth; a VMM host keeps a few guest sizes ready. */
#define SERVE_MAX_BLOCKS 16
#define SERVE_MAX_USERS 64         /* quota.USER lines */
#define SERVE_UNLIMITED UINT64_MAX
/* Bytes of reserve per page size at most: 64 TiB, above any machine's
 * memory today, and far from overflowing a sum of 16 blocks. */
#define SERVE_RESERVE_LIMIT ((uint64_t)64 << 40)
/* Connections one uid may have open at once: each is a thread while it
 * lasts; a VMM asks once per memory zone. */
#define SERVE_CONNS_DEFAULT 8
#define SERVE_CONNS_MAX 64
#define SERVE_TIMEOUT_DEFAULT 5 /* seconds to send the request after connecting */
#define SERVE_TIMEOUT_MAX 60
/* Uids with a connection open or memory held at once (one per VM is
 * common); each is a small table entry. */
#define SERVE_TENANTS_DEFAULT 256
#define SERVE_TENANTS_MAX 65536
/* Grants held at once, in all: each is an inotify watch on the memory
 * handed out (serve_quota.c), two queued events when it goes, and the
 * kernel queues 16384 events by default (max_queued_events). */
#define SERVE_GRANTS_DEFAULT 1024
#define SERVE_GRANTS_MAX 8192
/* Refusals logged per second at most (serve_log_refusal): one user's
 * flood must not flood the journal. */
#define SERVE_LOG_RATE_DEFAULT 10
#define SERVE_LOG_RATE_MAX 1000

enum serve_miss {
    SERVE_MISS_FILL = 0, /* a request the reserve cannot serve is filled
                            at request time (as fast as a fresh mapping) */
    SERVE_MISS_ERROR = 1 /* ... or refused with ENOMEM */
};

/* The priority the reserve's worker fills at (the kernel zeroes the pages
 * in its context). */
enum serve_fill {
    SERVE_FILL_IDLE = 0,  /* SCHED_IDLE (else nice 19): only otherwise idle
                             CPU time, so on a machine that is never idle
                             the reserve fills slowly, or not at all */
    SERVE_FILL_NORMAL = 1 /* the daemon's own priority */
};

/* Whose cgroups a fill at request time is charged to (serve_cgroup.c). */
enum serve_charge {
    SERVE_CHARGE_TENANT = 0, /* a worker process placed in the requester's
                                cgroups fills it: the tenant's limits hold */
    SERVE_CHARGE_DAEMON = 1  /* the daemon fills it, in its own cgroups */
};

/* Who may take a block of the reserve, which the daemon fills ahead and
 * which stays charged to the daemon's cgroups once handed out. */
enum serve_reserve_for {
    SERVE_FOR_UNLIMITED = 0, /* tenants whose cgroups set no limit on
                                that page size's hugetlb memory */
    SERVE_FOR_ALL = 1        /* anyone: the reserve escapes the limits */
};

struct serve_user_quota {
    char user[SERVE_NAME_MAX + 1]; /* a name or a decimal uid */
    uint64_t bytes;                /* SERVE_UNLIMITED: no limit */
    unsigned line;
    uid_t uid; /* filled by serve_config_resolve */
};

struct serve_config {
    char socket[SERVE_SOCKET_MAX + 1]; /* "" : not given */
    char group[SERVE_NAME_MAX + 1];    /* "" : the daemon's own group */
    unsigned group_line;
    gid_t gid;                         /* resolved; (gid_t)-1 for "" */
    uint64_t reserve[SERVE_NPAGES][SERVE_MAX_BLOCKS]; /* block sizes */
    unsigned nblocks[SERVE_NPAGES];
    uint64_t quota; /* bytes each uid may hold; SERVE_UNLIMITED */
    struct serve_user_quota users[SERVE_MAX_USERS];
    unsigned nusers;
    unsigned on_miss;     /* enum serve_miss */
    unsigned fill;        /* enum serve_fill */
    unsigned charge;      /* enum serve_charge */
    unsigned reserve_for; /* enum serve_reserve_for */
    unsigned connections; /* per uid at once */
    unsigned timeout;     /* seconds */
    unsigned tenants;     /* uids at once */
    unsigned grants;      /* grants held at once, in all */
    unsigned log_rate;    /* refusals logged per second */
};

/* The built-in configuration: no reserve, no quota, on_miss fill, fills
 * charged to the tenant, the reserve for tenants with no limit. */
void serve_config_defaults(struct serve_config *c);

/* Parse text[0, len) (not NUL-terminated) over the defaults in *c. A pure
 * function: 0, or -EINVAL (malformed) / -ERANGE (a value out of range)
 * with *c untouched and a one-line reason, "line N: ...", in why (if why
 * is not NULL and whylen > 0; always NUL-terminated there). */
int serve_config_parse(const char *text, size_t len, struct serve_config *c, char *why,
                       size_t whylen);

/* Look up the group and the users' names: 0, or -ENOENT with "line N:
 * no group 'x'" (or user) in why. Numbers are taken as they are. */
int serve_config_resolve(struct serve_config *c, char *why, size_t whylen);

/* The quota of uid under *c (after resolve). */
uint64_t serve_config_quota(const struct serve_config *c, uid_t uid);

/* `pageclear-serve --check-config` (serve_check.c): what *c, read from
 * path (NULL: the built-in defaults), means on this host, on stdout, with
 * whose cgroups each kind of memory is charged to. The exit status: 0. */
int serve_check_config(const char *path, const struct serve_config *c);

#endif
