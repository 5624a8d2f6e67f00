/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_quota.c - per uid: connections open, memory handed out and not yet
 * gone (serve_quota.h says how that is seen), against the configuration.
 * One mutex guards it all. Uids are found by open addressing in a table
 * twice the number of tenants allowed; grants by a walk of their table,
 * bounded by the `grants` setting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "serve_log.h"
#include "serve_quota.h"

int serve_quota_init(struct serve_quota *q, const struct serve_config *cfg)
{
    memset(q, 0, sizeof(*q));
    pthread_mutex_init(&q->lock, NULL);
    q->cfg = cfg;
    q->uid_slots = 2;
    while (q->uid_slots < 2 * cfg->tenants)
        q->uid_slots *= 2;
    q->uids = calloc(q->uid_slots, sizeof(*q->uids));
    q->grants = calloc(cfg->grants, sizeof(*q->grants));
    q->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (q->uids == NULL || q->grants == NULL || q->inotify_fd < 0) {
        serve_log(SERVE_ERR, "cannot set up the quotas: %s",
                  q->inotify_fd < 0 ? strerror(errno) : "out of memory");
        return q->inotify_fd < 0 ? -errno : -ENOMEM;
    }
    return 0;
}

void serve_quota_destroy(struct serve_quota *q)
{
    if (q->inotify_fd >= 0)
        close(q->inotify_fd);
    q->inotify_fd = -1;
    free(q->uids);
    free(q->grants);
    q->uids = NULL;
    q->grants = NULL;
    pthread_mutex_destroy(&q->lock);
}

static unsigned slot_of(const struct serve_quota *q, uid_t uid)
{
    return ((unsigned)uid * 2654435761u) & (q->uid_slots - 1); /* Knuth's multiplier */
}

/* uid's entry, created if asked (NULL when the table holds `tenants`). */
static struct serve_uid *find_uid(struct serve_quota *q, uid_t uid, int create)
{
    unsigned mask = q->uid_slots - 1;
    for (unsigned i = slot_of(q, uid);; i = (i + 1) & mask) {
        struct serve_uid *u = &q->uids[i];
        if (u->used && u->uid == uid)
            return u;
        if (u->used)
            continue;
        /* A free slot ends the probe: the table is never full, as it has
         * twice the slots of the tenants it holds. */
        if (!create || q->nuids >= q->cfg->tenants)
            return NULL;
        *u = (struct serve_uid){.uid = uid, .used = 1};
        q->nuids++;
        return u;
    }
}

/* Drop u's entry once nothing is counted on it: the entries after it in
 * its probe run move back, so every probe still reaches its entry. */
static void tidy_uid(struct serve_quota *q, struct serve_uid *u)
{
    if (u->conns != 0 || u->grants != 0 || u->bytes != 0)
        return;
    unsigned mask = q->uid_slots - 1, hole = (unsigned)(u - q->uids);
    q->nuids--;
    for (unsigned j = (hole + 1) & mask; q->uids[j].used; j = (j + 1) & mask) {
        unsigned home = slot_of(q, q->uids[j].uid);
        /* Stays if its home lies cyclically in (hole, j]. */
        int stays = hole < j ? home > hole && home <= j : home > hole || home <= j;
        if (!stays) {
            q->uids[hole] = q->uids[j];
            hole = j;
        }
    }
    q->uids[hole].used = 0;
}

int serve_quota_connect(struct serve_quota *q, uid_t uid)
{
    pthread_mutex_lock(&q->lock);
    struct serve_uid *u = find_uid(q, uid, 1);
    int rc = u == NULL ? -EUSERS : u->conns >= q->cfg->connections ? -EBUSY : 0;
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
    struct serve_uid *u = find_uid(q, uid, 0); /* it has the connection asking */
    if (u == NULL || u->grants >= SERVE_UID_GRANTS ||
        (limit != SERVE_UNLIMITED && (bytes > limit || u->bytes > limit - bytes)))
        goto out;
    for (unsigned i = 0; i < q->cfg->grants; i++)
        if (q->grants[i].state == 0) {
            q->grants[i] = (struct serve_grant){.state = 1, .wd = -1, .uid = uid,
                                                .bytes = bytes};
            u->grants++;
            u->bytes += bytes;
            g = (int)i;
            break;
        }
out:
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
    *gr = (struct serve_grant){.wd = -1};
}

int serve_quota_hold(struct serve_quota *q, int g, int memfd)
{
    char path[40];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
    pthread_mutex_lock(&q->lock);
    /* Under the lock: the watch's end is read (serve_quota_events) only
     * once the grant knows its watch. */
    int wd = inotify_add_watch(q->inotify_fd, path, IN_DELETE_SELF);
    int rc = wd >= 0 ? 0 : -errno;
    if (rc == 0) {
        q->grants[g].state = 2;
        q->grants[g].wd = wd;
    } else {
        drop(q, g);
    }
    pthread_mutex_unlock(&q->lock);
    if (rc != 0)
        serve_log(SERVE_ERR, "cannot watch the memory handed out, so it could not be "
                  "counted: %s (fs.inotify.max_user_watches?)", strerror(-rc));
    return rc;
}

void serve_quota_cancel(struct serve_quota *q, int g)
{
    pthread_mutex_lock(&q->lock);
    drop(q, g);
    pthread_mutex_unlock(&q->lock);
}

/* The held grant watched by wd goes; the lock held. */
static void release_wd(struct serve_quota *q, int wd)
{
    for (unsigned i = 0; i < q->cfg->grants; i++)
        if (q->grants[i].state == 2 && q->grants[i].wd == wd) {
            drop(q, (int)i);
            return;
        }
}

void serve_quota_events(struct serve_quota *q)
{
    union {
        char buf[4096];
        struct inotify_event align;
    } u;
    for (;;) {
        ssize_t n = read(q->inotify_fd, u.buf, sizeof(u.buf));
        if (n <= 0)
            return; /* EAGAIN: all read */
        int overflow = 0;
        pthread_mutex_lock(&q->lock);
        for (ssize_t off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
            struct inotify_event ev;
            memcpy(&ev, u.buf + off, sizeof(ev));
            off += (ssize_t)(sizeof(ev) + ev.len);
            if (ev.mask & IN_Q_OVERFLOW)
                overflow = 1;
            else if (ev.mask & IN_IGNORED) /* the watch is gone: the memory too */
                release_wd(q, ev.wd);
        }
        q->overflows += (unsigned long)overflow;
        pthread_mutex_unlock(&q->lock);
        if (overflow) /* never seen: the queue holds twice the grants allowed */
            serve_log(SERVE_ERR, "the kernel dropped events of memory handed out "
                      "(fs.inotify.max_queued_events): some grants stay counted until "
                      "the daemon restarts");
    }
}

void serve_quota_usage(struct serve_quota *q, uid_t uid, uint64_t *held, uint64_t *limit)
{
    *limit = serve_config_quota(q->cfg, uid);
    pthread_mutex_lock(&q->lock);
    struct serve_uid *u = find_uid(q, uid, 0);
    *held = u != NULL ? u->bytes : 0;
    pthread_mutex_unlock(&q->lock);
}
