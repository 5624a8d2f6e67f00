/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_conn.c - one connection of `pageclear serve`: read the request
 * (within the configured timeout), check it and the peer's quota, take a
 * block of the reserve or fill memory now, seal it, send it with the reply
 * (SCM_RIGHTS) and close the daemon's descriptor, so the memory is the
 * client's alone. Anything a client sends or fails to do ends in an error
 * reply or a closed connection, never in anything kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "serve_cgroup.h"
#include "serve_daemon.h"
#include "serve_log.h"
#include "serve_proto.h"

/* What one request came to, for the reply and the log line. */
struct outcome {
    enum serve_status st;
    uint64_t size; /* rounded up to the page */
    int fd;        /* the memory, or -1 */
    const char *source;
};

void serve_conn_drain(int fd)
{
    /* Closing a Unix stream or seqpacket socket with messages unread in
     * its queue makes the kernel set ECONNRESET on the peer, and the
     * peer's next read reports that before the reply queued for it: a
     * client refused as busy, whose request was never read, saw
     * "connection reset" instead of the refusal. Reading is shut first, so
     * nothing can arrive after the drain (a late send fails with EPIPE,
     * the reply still there for the client to read); a zero-length
     * message or an empty queue ends the drain. */
    char b;
    shutdown(fd, SHUT_RD);
    while (recv(fd, &b, sizeof(b), MSG_DONTWAIT | MSG_TRUNC) > 0)
        continue;
}

void serve_reply_error(int fd, int st)
{
    uint8_t msg[SERVE_MSG_SIZE];
    serve_reply_encode(msg, (enum serve_status)st, 0, 0);
    /* A peer that is gone or not reading loses its reply; nothing waits. */
    ssize_t n = send(fd, msg, sizeof(msg), MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)n;
}

/* The reply with fd attached. 0, or the errno of a peer that is gone. */
static int reply_fd(int sock, const struct serve_request *r, uint64_t size, int fd)
{
    uint8_t msg[SERVE_MSG_SIZE];
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    serve_reply_encode(msg, SERVE_OK, size, r->page);
    struct iovec iov = {.iov_base = msg, .iov_len = sizeof(msg)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof(ctl.buf)};
    memset(ctl.buf, 0, sizeof(ctl.buf));
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(msg) ? 0 : errno;
}

/* The requester's cgroups, read once per request when first needed. */
struct tenant_ctx {
    struct serve_tenant t;
    int state; /* 0: not read yet; 1: open; else the negative errno */
};

static int tenant(struct serve_conn *c, struct tenant_ctx *tc)
{
    if (tc->state == 0) {
        int rc = serve_tenant_open(&c->d->mounts, c->pidfd, c->cred.pid, &tc->t);
        tc->state = rc == 0 ? 1 : rc;
        if (rc != 0)
            serve_log_refusal("uid %u pid %d: cannot read its cgroups: %s",
                              (unsigned)c->cred.uid, (int)c->cred.pid, strerror(-rc));
    }
    return tc->state == 1 ? 0 : tc->state;
}

/* May the requester take a block of the reserve, which stays charged to
 * the daemon's cgroups? Not if its cgroups limit its hugetlb memory (with
 * reserve_for = unlimited): its memory is filled in its cgroups instead,
 * where the limit holds. A requester whose cgroups cannot be read is taken
 * to be limited. */
static int may_take_reserve(struct serve_conn *c, struct tenant_ctx *tc, int page)
{
    struct serve_daemon *d = c->d;
    uint64_t room;
    if (d->reserve[page].nblocks == 0 || d->cfg.reserve_for == SERVE_FOR_ALL)
        return d->reserve[page].nblocks > 0;
    return tenant(c, tc) == 0 && !serve_tenant_limit(&d->mounts, &tc->t, page, &room);
}

/* Is size over what the requester's cgroups have room for? */
static int over_limit(struct serve_conn *c, struct tenant_ctx *tc, int page, uint64_t size)
{
    uint64_t room;
    return tenant(c, tc) == 0 && serve_tenant_limit(&c->d->mounts, &tc->t, page, &room) &&
           room < size;
}

/* A fill at request time, charged to the requester's cgroups unless
 * charge = daemon. */
static void fill_now(struct serve_conn *c, struct tenant_ctx *tc, int page, struct outcome *o)
{
    struct serve_daemon *d = c->d;
    int tenant_pays = d->cfg.charge == SERVE_CHARGE_TENANT;
    o->source = "filled at request time";
    if (tenant_pays && tenant(c, tc) != 0) {
        o->st = SERVE_E_NOMEM;
        o->source = "its cgroups, to charge the fill to, cannot be read";
        return;
    }
    if (tenant_pays && over_limit(c, tc, page, o->size)) {
        o->st = SERVE_E_QUOTA;
        o->source = "over its cgroup's limit on huge pages of that size";
        return;
    }
    int rc = serve_fill_fresh(page, o->size, tenant_pays ? &tc->t : NULL, &d->stopping, &o->fd);
    if (rc == 0)
        return;
    o->fd = -1;
    o->st = rc == -EOPNOTSUPP ? SERVE_E_NOTSUP : SERVE_E_NOMEM;
    o->source = rc == -ENOMEM ? "not in the reserve, too few free pages"
                              : "not in the reserve, cannot fill now";
    if (rc == -ENOMEM && tenant_pays && over_limit(c, tc, page, o->size)) {
        o->st = SERVE_E_QUOTA; /* the limit was reached while it filled */
        o->source = "over its cgroup's limit on huge pages of that size";
    } else if (rc != -ENOMEM && rc != -EOPNOTSUPP && rc != -ECANCELED) {
        serve_log(SERVE_ERR, "fill at request time%s: %s",
                  tenant_pays && serve_tenant_elsewhere(&tc->t) ? " in the tenant's cgroups" : "",
                  strerror(-rc));
    }
}

/* Memory for r: a block of the reserve, else (if allowed) a fill now. */
static void find_memory(struct serve_conn *c, const struct serve_request *r,
                        struct outcome *o)
{
    struct serve_daemon *d = c->d;
    int page = serve_page_index(r->page);
    uint64_t filled;
    struct tenant_ctx tc = {.state = 0};
    int may = may_take_reserve(c, &tc, page);
    if (may && serve_reserve_take(&d->reserve[page], o->size, &o->fd, &filled) == 0) {
        o->source = "from the reserve";
    } else if ((r->flags & SERVE_FLAG_RESERVE_ONLY) || d->cfg.on_miss == SERVE_MISS_ERROR) {
        o->st = SERVE_E_NOMEM;
        o->source = may || d->reserve[page].nblocks == 0
                        ? "not in the reserve"
                        : "not in the reserve, which is not for cgroups that limit huge pages";
    } else {
        fill_now(c, &tc, page, o);
    }
    if (tc.state == 1)
        serve_tenant_close(&tc.t);
    if (o->st != SERVE_OK)
        return;
    int rc = serve_seal(o->fd, o->size);
    if (rc != 0) {
        serve_log(SERVE_ERR, "cannot seal the memory: %s", strerror(-rc));
        close(o->fd);
        o->fd = -1;
        o->st = SERVE_E_NOMEM;
    }
}

static void log_outcome(struct serve_conn *c, const struct serve_request *r,
                        const struct outcome *o, uint64_t ns)
{
    char sz[32], held[32], lim[32];
    const char *page = r->page == serve_page_bytes[SERVE_PAGE_1G] ? "1GiB" : "2MiB";
    serve_log_size(o->size, sz, sizeof(sz));
    if (o->st == SERVE_OK) {
        serve_log(SERVE_INFO, "uid %u pid %d: %s of %s pages %s in %.1f ms",
                  (unsigned)c->cred.uid, (int)c->cred.pid, sz, page, o->source, (double)ns / 1e6);
    } else if (o->st == SERVE_E_QUOTA && o->source == NULL) {
        uint64_t h, l;
        serve_quota_usage(&c->d->quota, c->cred.uid, &h, &l);
        serve_log_size(h, held, sizeof(held));
        if (l == SERVE_UNLIMITED)
            snprintf(lim, sizeof(lim), "unlimited");
        else
            serve_log_size(l, lim, sizeof(lim));
        serve_log_refusal("uid %u pid %d: refused %s of %s pages: over the quota "
                          "(holds %s of %s, or %d grants)", (unsigned)c->cred.uid,
                          (int)c->cred.pid, sz, page, held, lim, SERVE_UID_GRANTS);
    } else {
        serve_log_refusal("uid %u pid %d: refused %s of %s pages: %s (%s)",
                          (unsigned)c->cred.uid, (int)c->cred.pid, sz, page,
                          serve_status_text(o->st), o->source != NULL ? o->source : "-");
    }
}

/* Answer a well-formed request. */
static void handle_get(struct serve_conn *c, const struct serve_request *r)
{
    struct serve_daemon *d = c->d;
    uint64_t t0 = serve_now_ns(), page = r->page;
    struct outcome o = {.st = SERVE_OK, .fd = -1, .size = (r->size + page - 1) / page * page};
    int grant = serve_quota_reserve(&d->quota, c->cred.uid, o.size);
    if (grant < 0)
        o.st = SERVE_E_QUOTA;
    else
        find_memory(c, r, &o);
    if (o.st == SERVE_OK && serve_quota_hold(&d->quota, grant, o.fd) != 0) {
        /* Memory that could not be counted is not handed out. */
        o.st = SERVE_E_NOMEM;
        o.source = "its memory could not be counted";
    } else if (grant >= 0 && o.st != SERVE_OK) {
        serve_quota_cancel(&d->quota, grant);
    }
    if (o.st != SERVE_OK) {
        serve_reply_error(c->fd, o.st);
    } else if ((errno = reply_fd(c->fd, r, o.size, o.fd)) != 0) {
        /* The watch releases the grant as the daemon closes the memory. */
        serve_log_refusal("uid %u pid %d: gone before the reply (%s); its memory goes back "
                          "to the kernel", (unsigned)c->cred.uid, (int)c->cred.pid,
                          strerror(errno));
        o.source = NULL; /* nothing to log twice */
    }
    if (o.fd >= 0)
        close(o.fd); /* the client's now, or nobody's: never the daemon's */
    if (o.source != NULL || o.st == SERVE_E_QUOTA)
        log_outcome(c, r, &o, serve_now_ns() - t0);
}

/* Read the one request: its real length even if longer than the buffer
 * (MSG_TRUNC), no descriptors taken (none is asked for: the kernel closes
 * any a client sends). -1 if the client sent nothing in time or left. */
static ssize_t read_request(struct serve_conn *c, uint8_t *buf, size_t size)
{
    struct timeval tv = {.tv_sec = c->d->cfg.timeout};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    ssize_t n;
    do
        n = recv(c->fd, buf, size, MSG_TRUNC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        serve_log(SERVE_DEBUG, "uid %u pid %d: no request (%s)", (unsigned)c->cred.uid,
                  (int)c->cred.pid, strerror(errno));
    return n > 0 ? n : -1;
}

void *serve_conn_main(void *arg)
{
    struct serve_conn *c = arg;
    struct serve_daemon *d = c->d;
    uint8_t buf[2 * SERVE_MSG_SIZE];
    ssize_t n = read_request(c, buf, sizeof(buf));
    if (n > 0) {
        struct serve_request r;
        enum serve_status st = serve_request_parse(buf, (size_t)n, &r);
        if (st == SERVE_OK) {
            handle_get(c, &r);
        } else {
            serve_log_refusal("uid %u pid %d: refused a request of %zd bytes: %s",
                              (unsigned)c->cred.uid, (int)c->cred.pid, n,
                              serve_status_text(st));
            serve_reply_error(c->fd, st);
        }
    }
    if (c->pidfd >= 0)
        close(c->pidfd);
    serve_quota_disconnect(&d->quota, c->cred.uid);
    serve_conn_drain(c->fd);
    pthread_mutex_lock(&d->lock);
    close(c->fd);
    d->conn_fds[c->slot] = -1;
    d->conns--;
    pthread_cond_broadcast(&d->idle);
    pthread_mutex_unlock(&d->lock);
    free(c);
    return NULL;
}
