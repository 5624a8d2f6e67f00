/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_quota.h - who holds what (serve_quota.c): per uid, the connections
 * open and the memory handed out, against the configured limits.
 *
 * The daemon keeps no reference to memory it handed out, so it cannot
 * see when a client closes it; a grant is counted until the process that
 * asked for it exits (its pidfd becomes readable). Memory passed on to
 * another process stays counted only as long as the one that asked lives.
 */
#ifndef PAGECLEAR_SERVE_QUOTA_H
#define PAGECLEAR_SERVE_QUOTA_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "serve_config.h"

/* Grants at once, in all: each holds the asking process's pidfd. */
#define SERVE_MAX_GRANTS 1024
/* Grants one uid may have at once (a VMM takes one per memory zone), so
 * no uid fills the table with small ones. */
#define SERVE_UID_GRANTS 64
/* Uids with a connection or a grant at once. */
#define SERVE_MAX_UIDS 256

struct serve_uid {
    uid_t uid;
    unsigned conns, grants; /* grants counts pending ones too */
    uint64_t bytes;         /* held or pending */
};

struct serve_grant {
    int state; /* 0 free, 1 pending (request in progress), 2 held */
    int pidfd;
    uid_t uid;
    uint64_t bytes;
};

struct serve_quota {
    pthread_mutex_t lock;
    const struct serve_config *cfg;
    int epoll_fd; /* held grants' pidfds, data = SERVE_GRANT_TAG | index */
    unsigned nuids;
    struct serve_uid uids[SERVE_MAX_UIDS];
    struct serve_grant grants[SERVE_MAX_GRANTS];
};
#define SERVE_GRANT_TAG ((uint64_t)1 << 32)

void serve_quota_init(struct serve_quota *q, const struct serve_config *cfg, int epoll_fd);
/* Close every held grant's pidfd. */
void serve_quota_destroy(struct serve_quota *q);

/* A connection of uid opens (0, or -EBUSY over its limit) and closes. */
int serve_quota_connect(struct serve_quota *q, uid_t uid);
void serve_quota_disconnect(struct serve_quota *q, uid_t uid);

/* Set bytes aside for a request of uid: the grant's index, or -EDQUOT
 * (over the quota or the grant limits). Then exactly one of: _hold (the
 * memory was handed out; pidfd, >= 0, moves to the grant), _cancel. */
int serve_quota_reserve(struct serve_quota *q, uid_t uid, uint64_t bytes);
void serve_quota_hold(struct serve_quota *q, int grant, int pidfd);
void serve_quota_cancel(struct serve_quota *q, int grant);
/* The grant's process exited: its bytes are free again. */
void serve_quota_release(struct serve_quota *q, int grant);

/* What uid holds now (bytes) and may hold, for messages. */
void serve_quota_usage(struct serve_quota *q, uid_t uid, uint64_t *held, uint64_t *limit);

#endif
