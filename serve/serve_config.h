/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_config.h - the configuration of `pageclear serve`
 * (serve_config.c): a `key = value` file like the profile, parsed by a
 * pure function (fuzzed by tests/fuzz_serve.c); names of users and groups
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
    enum serve_miss on_miss;
    enum serve_fill fill;
    unsigned connections; /* per uid at once */
    unsigned timeout;     /* seconds */
};

/* The built-in configuration: no reserve, no quota, on_miss fill. */
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

#endif
