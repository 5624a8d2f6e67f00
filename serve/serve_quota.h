/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_quota.h - who holds what (serve_quota.c): per uid (a tenant), the
 * connections open and the memory handed out, against the configured
 * limits.
 *
 * A grant counts for as long as its memory exists, whoever holds it: the
 * daemon watches each memfd it hands out (inotify), and the kernel reports
 * the watch gone (IN_IGNORED, after IN_DELETE_SELF) when the last
 * reference to the unnamed file goes: every descriptor, in any process or
 * in flight in a socket, and every mapping. A client that forks, passes
 * the memfd on and exits gives nothing back.
 */
#ifndef PAGECLEAR_SERVE_QUOTA_H
#define PAGECLEAR_SERVE_QUOTA_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "serve_config.h"

/* Grants one uid may have at once (a VMM takes one per memory zone), so
 * no uid fills the table with small ones. */
#define SERVE_UID_GRANTS 64

struct serve_uid {
    uid_t uid;
    int used;
    unsigned conns, grants; /* grants counts pending ones too */
    uint64_t bytes;         /* held or pending */
};

struct serve_grant {
    int state; /* 0 free, 1 pending (request in progress), 2 held */
    int wd;    /* the inotify watch of a held grant's memory */
    uid_t uid;
    uint64_t bytes;
};

struct serve_quota {
    pthread_mutex_t lock;
    const struct serve_config *cfg;
    int inotify_fd; /* the held grants' watches; the daemon polls it */
    unsigned nuids, uid_slots; /* uid_slots: a power of two, >= 2 * tenants */
    struct serve_uid *uids;    /* open addressing by uid */
    struct serve_grant *grants; /* cfg->grants of them */
    unsigned long overflows;   /* inotify queue overflows seen (lost releases) */
};

/* Set up for cfg (its tenants and grants); 0, or a negative errno after a
 * log line. The inotify descriptor is then q->inotify_fd. */
int serve_quota_init(struct serve_quota *q, const struct serve_config *cfg);
/* Free it all; the watches go with the inotify descriptor. */
void serve_quota_destroy(struct serve_quota *q);

/* A connection of uid opens: 0, -EBUSY (uid has its connections), or
 * -EUSERS (uid would be a tenant past the configured number); and closes. */
int serve_quota_connect(struct serve_quota *q, uid_t uid);
void serve_quota_disconnect(struct serve_quota *q, uid_t uid);

/* Set bytes aside for a request of uid: the grant's index, or -EDQUOT
 * (over the quota or the grant limits). Then exactly one of: _hold (the
 * memory is about to be handed out: the daemon still holds memfd, so the
 * watch is added while the memory exists; 0, or a negative errno and the
 * grant is cancelled), _cancel. */
int serve_quota_reserve(struct serve_quota *q, uid_t uid, uint64_t bytes);
int serve_quota_hold(struct serve_quota *q, int grant, int memfd);
void serve_quota_cancel(struct serve_quota *q, int grant);
/* Read the watches' events: the grants whose memory is gone are free. */
void serve_quota_events(struct serve_quota *q);

/* What uid holds now (bytes) and may hold, for messages. */
void serve_quota_usage(struct serve_quota *q, uid_t uid, uint64_t *held, uint64_t *limit);

#endif
