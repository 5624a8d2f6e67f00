/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_quota.c - per uid: connections open, memory handed out and not yet
 * released (the asking process still lives), against the configuration.
 * One mutex guards it all; every operation is a short table walk.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "serve_log.h"
#include "serve_quota.h"

void serve_quota_init(struct serve_quota *q, const struct serve_config *cfg, int epoll_fd)
{
    memset(q, 0, sizeof(*q));
    pthread_mutex_init(&q->lock, NULL);
    q->cfg = cfg;
    q->epoll_fd = epoll_fd;
    for (unsigned i = 0; i < SERVE_MAX_GRANTS; i++)
        q->grants[i].pidfd = -1;
}

void serve_quota_destroy(struct serve_quota *q)
{
    for (unsigned i = 0; i < SERVE_MAX_GRANTS; i++)
        if (q->grants[i].pidfd >= 0)
            close(q->grants[i].pidfd);
    pthread_mutex_destroy(&q->lock);
}

/* uid's entry, created if asked (NULL when the table is full). */
static struct serve_uid *find_uid(struct serve_quota *q, uid_t uid, int create)
{
    for (unsigned i = 0; i < q->nuids; i++)
        if (q->uids[i].uid == uid)
            return &q->uids[i];
    if (!create || q->nuids == SERVE_MAX_UIDS)
        return NULL;
    q->uids[q->nuids] = (struct serve_uid){.uid = uid};
    return &q->uids[q->nuids++];
}

/* Drop u's entry once nothing is counted on it. */
static void tidy_uid(struct serve_quota *q, struct serve_uid *u)
{
    if (u->conns == 0 && u->grants == 0 && u->bytes == 0)
        *u = q->uids[--q->nuids];
}

int serve_quota_connect(struct serve_quota *q, uid_t uid)
{
    pthread_mutex_lock(&q->lock);
    struct serve_uid *u = find_uid(q, uid, 1);
    int rc = u == NULL || u->conns >= q->cfg->connections ? -EBUSY : 0;
    if (rc == 0)
        u->conns++;
    pthread_mutex_unlock(&q->lock);
    return rc;
}

void serve_quota_disconnect(struct serve_quota *q, uid_t uid)
{
    pthread_mutex_lock(&q->lock);
    struct serve_uid *u = find_uid(q, uid, 0);
    if (u != NULL && u->conns > 0) {
        u->conns--;
        tidy_uid(q, u);
    }
    pthread_mutex_unlock(&q->lock);
}

int serve_quota_reserve(struct serve_quota *q, uid_t uid, uint64_t bytes)
{
    uint64_t limit = serve_config_quota(q->cfg, uid);
    int g = -EDQUOT;
    pthread_mutex_lock(&q->lock);
    struct serve_uid *u = find_uid(q, uid, 1);
    if (u == NULL || u->grants >= SERVE_UID_GRANTS ||
        (limit != SERVE_UNLIMITED && (bytes > limit || u->bytes > limit - bytes)))
        goto out;
    for (unsigned i = 0; i < SERVE_MAX_GRANTS; i++)
        if (q->grants[i].state == 0) {
            q->grants[i] = (struct serve_grant){.state = 1, .pidfd = -1, .uid = uid,
                                                .bytes = bytes};
            u->grants++;
            u->bytes += bytes;
            g = (int)i;
            break;
        }
out:
    if (u != NULL)
        tidy_uid(q, u);
    pthread_mutex_unlock(&q->lock);
    return g;
}

/* Forget grant g and what it counted; the lock held. */
static void drop(struct serve_quota *q, int g)
{
    struct serve_grant *gr = &q->grants[g];
    struct serve_uid *u = find_uid(q, gr->uid, 0);
    if (u != NULL) {
        u->grants--;
        u->bytes -= gr->bytes;
        tidy_uid(q, u);
    }
    if (gr->pidfd >= 0)
        close(gr->pidfd); /* also leaves the epoll set */
    *gr = (struct serve_grant){.pidfd = -1};
}

void serve_quota_hold(struct serve_quota *q, int g, int pidfd)
{
    pthread_mutex_lock(&q->lock);
    struct serve_grant *gr = &q->grants[g];
    gr->state = 2;
    gr->pidfd = pidfd;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = SERVE_GRANT_TAG | (uint64_t)g};
    if (epoll_ctl(q->epoll_fd, EPOLL_CTL_ADD, pidfd, &ev) != 0) {
        /* Counted until the daemon stops rather than lost. */
        serve_log(SERVE_ERR, "cannot watch a client process: %s", strerror(errno));
    }
    pthread_mutex_unlock(&q->lock);
}

void serve_quota_cancel(struct serve_quota *q, int g)
{
    pthread_mutex_lock(&q->lock);
    drop(q, g);
    pthread_mutex_unlock(&q->lock);
}

void serve_quota_release(struct serve_quota *q, int g)
{
    pthread_mutex_lock(&q->lock);
    if (g >= 0 && g < SERVE_MAX_GRANTS && q->grants[g].state == 2)
        drop(q, g);
    pthread_mutex_unlock(&q->lock);
}

void serve_quota_usage(struct serve_quota *q, uid_t uid, uint64_t *held, uint64_t *limit)
{
    *limit = serve_config_quota(q->cfg, uid);
    pthread_mutex_lock(&q->lock);
    struct serve_uid *u = find_uid(q, uid, 0);
    *held = u != NULL ? u->bytes : 0;
    pthread_mutex_unlock(&q->lock);
}
