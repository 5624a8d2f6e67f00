/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_daemon.c - the daemon of pageclear-serve: its socket (mode 0660,
 * the configured group), the event loop (new connections, memory handed
 * out that is gone, the stop signal), admission (connections per uid and
 * in all, tenants) and the orderly stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "serve_daemon.h"
#include "serve_log.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* Linux 5.3, the same number everywhere */
#endif

#define LISTEN_TAG ((uint64_t)1 << 40)
#define STOP_TAG ((uint64_t)2 << 40)
#define WATCH_TAG ((uint64_t)3 << 40) /* the quota's inotify: memory handed out is gone */
#define CONN_STACK ((size_t)256 << 10) /* a connection's frames are small */
#define ACCEPT_PAUSE_MS 100 /* out of descriptors: wait this long, then retry */

/* The path: the caller's, else the configuration's, else the
 * environment's, else the default. */
static const char *socket_path(const struct serve_config *cfg, const char *path)
{
    const char *env = getenv("PAGECLEAR_SOCKET");
    if (path != NULL)
        return path;
    if (cfg->socket[0] != '\0')
        return cfg->socket;
    return env != NULL && env[0] != '\0' ? env : SERVE_SOCKET_DEFAULT;
}

/* A socket file left by a daemon that died is removed; a live one, or
 * anything that is not a socket, is left alone. 0 or -1 after a log line. */
static int clear_stale(const struct sockaddr_un *a)
{
    struct stat st;
    if (lstat(a->sun_path, &st) != 0)
        return 0;
    if (!S_ISSOCK(st.st_mode)) {
        serve_log(SERVE_ERR, "%s exists and is not a socket; not touched", a->sun_path);
        return -1;
    }
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    int live = s >= 0 && connect(s, (const struct sockaddr *)a, sizeof(*a)) == 0;
    if (s >= 0)
        close(s);
    if (live) {
        serve_log(SERVE_ERR, "another daemon is serving on %s", a->sun_path);
        return -1;
    }
    unlink(a->sun_path);
    return 0;
}

static int bind_socket(struct serve_daemon *d)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", d->path);
    if (clear_stale(&a) != 0)
        return -1;
    d->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (d->listen_fd < 0) {
        serve_log(SERVE_ERR, "socket: %s", strerror(errno));
        return -1;
    }
    /* Mode 0660 from the start: no moment when others could connect. */
    mode_t old = umask(0117);
    int rc = bind(d->listen_fd, (struct sockaddr *)&a, sizeof(a));
    umask(old);
    struct stat st;
    if (rc != 0 || lstat(d->path, &st) != 0) {
        serve_log(SERVE_ERR, "cannot create the socket %s: %s%s", d->path, strerror(errno),
                  errno == ENOENT ? " (its directory must exist)" : "");
        return -1;
    }
    d->sock_dev = st.st_dev;
    d->sock_ino = st.st_ino;
    if (d->cfg.gid != (gid_t)-1 && lchown(d->path, (uid_t)-1, d->cfg.gid) != 0) {
        serve_log(SERVE_ERR, "cannot give the socket %s to group %s: %s", d->path,
                  d->cfg.group, strerror(errno));
        return -1;
    }
    if (listen(d->listen_fd, SERVE_MAX_CONNS) != 0) {
        serve_log(SERVE_ERR, "listen on %s: %s", d->path, strerror(errno));
        return -1;
    }
    return 0;
}

int serve_daemon_open(struct serve_daemon *d, const struct serve_config *cfg, const char *path)
{
    memset(d, 0, sizeof(*d));
    d->cfg = *cfg;
    d->listen_fd = -1;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->idle, NULL);
    for (int i = 0; i < SERVE_MAX_CONNS; i++)
        d->conn_fds[i] = -1;
    serve_log_refusals(d->cfg.log_rate);
    d->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (d->epoll_fd < 0) {
        serve_log(SERVE_ERR, "epoll: %s", strerror(errno));
        return -1;
    }
    int rc = serve_cg_mounts_read(&d->mounts);
    if (rc != 0)
        serve_log(SERVE_WARNING, "cannot read the cgroup mounts (%s): fills are charged to "
                  "the daemon", strerror(-rc));
    d->quota_ready = serve_quota_init(&d->quota, &d->cfg) == 0;
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = WATCH_TAG};
    if (!d->quota_ready || epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, d->quota.inotify_fd, &ev) != 0)
        return -1;
    path = socket_path(cfg, path);
    if (strlen(path) > SERVE_SOCKET_MAX) {
        serve_log(SERVE_ERR, "socket path longer than %d bytes: %.120s", SERVE_SOCKET_MAX,
                  path);
        return -1;
    }
    snprintf(d->path, sizeof(d->path), "%s", path);
    if (bind_socket(d) != 0)
        return -1;
    for (; d->reserves < SERVE_NPAGES; d->reserves++) {
        int p = (int)d->reserves;
        if (serve_reserve_start(&d->reserve[p], p, d->cfg.reserve[p], d->cfg.nblocks[p],
                                d->cfg.on_miss, d->cfg.fill) != 0)
            return -1;
    }
    return 0;
}

/* The client process of a connection: SO_PEERPIDFD names it for sure;
 * before Linux 6.5, pidfd_open of the pid SO_PEERCRED gave. -1 if neither
 * works (a pid from another namespace reads as 0). */
static int peer_pidfd(int fd, pid_t pid)
{
    int pidfd = -1;
    socklen_t len = sizeof(pidfd);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 && pidfd >= 0) {
        fcntl(pidfd, F_SETFD, FD_CLOEXEC);
        return pidfd;
    }
    if (pid <= 0)
        return -1;
    return (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec by default */
}

/* Start a thread for a new connection; refuse it (BUSY) over the limits. */
static void admit(struct serve_daemon *d, int fd)
{
    struct serve_conn *c = calloc(1, sizeof(*c));
    socklen_t len = sizeof(struct ucred);
    if (c == NULL || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->cred, &len) != 0) {
        free(c);
        close(fd);
        return;
    }
    c->d = d;
    c->fd = fd;
    c->slot = -1;
    pthread_mutex_lock(&d->lock);
    for (int i = 0; i < SERVE_MAX_CONNS && c->slot < 0; i++)
        if (d->conn_fds[i] < 0)
            c->slot = i;
    int why = c->slot < 0 ? -EBUSY : serve_quota_connect(&d->quota, c->cred.uid);
    int ok = why == 0;
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, CONN_STACK);
    if (ok) {
        c->pidfd = peer_pidfd(fd, c->cred.pid);
        d->conn_fds[c->slot] = fd;
        d->conns++;
        if (pthread_create(&t, &attr, serve_conn_main, c) != 0) {
            serve_quota_disconnect(&d->quota, c->cred.uid);
            d->conn_fds[c->slot] = -1;
            d->conns--;
            if (c->pidfd >= 0)
                close(c->pidfd);
            ok = 0;
        }
    }
    pthread_attr_destroy(&attr);
    pthread_mutex_unlock(&d->lock);
    if (!ok && why == -EUSERS)
        serve_log_refusal("uid %u pid %d: refused a connection: %u uids are tenants already "
                          "(tenants = %u)", (unsigned)c->cred.uid, (int)c->cred.pid,
                          d->cfg.tenants, d->cfg.tenants);
    else if (!ok)
        serve_log_refusal("uid %u pid %d: refused a connection: too many at once",
                          (unsigned)c->cred.uid, (int)c->cred.pid);
    if (!ok) {
        serve_reply_error(fd, SERVE_E_BUSY);
        serve_conn_drain(fd); /* the request, if it came: unread, it would reset the reply */
        close(fd);
        free(c);
    }
}

static void accept_all(struct serve_daemon *d)
{
    for (;;) {
        int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd >= 0) {
            admit(d, fd);
            continue;
        }
        if (errno == EMFILE || errno == ENFILE) {
            /* The connection stays queued and the socket readable: without
             * a pause the loop would spin (and log) until a descriptor
             * frees up, which a grant's client exiting does. */
            serve_log(SERVE_WARNING, "accept: %s; pausing %d ms", strerror(errno),
                      ACCEPT_PAUSE_MS);
            usleep(ACCEPT_PAUSE_MS * 1000);
            return;
        }
        if (errno != EINTR && errno != ECONNABORTED)
            return; /* EAGAIN: all taken */
    }
}

int serve_daemon_run(struct serve_daemon *d, int stop_fd)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = LISTEN_TAG};
    if (epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, d->listen_fd, &ev) != 0)
        return -1;
    ev.data.u64 = STOP_TAG;
    if (epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, stop_fd, &ev) != 0)
        return -1;
    serve_log(SERVE_INFO, "serving on %s", d->path);
    for (;;) {
        struct epoll_event evs[32];
        int n = epoll_wait(d->epoll_fd, evs, 32, -1);
        if (n < 0 && errno != EINTR) {
            serve_log(SERVE_ERR, "epoll_wait: %s", strerror(errno));
            return -1;
        }
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == STOP_TAG)
                return 0;
            if (tag == LISTEN_TAG)
                accept_all(d);
            else if (tag == WATCH_TAG)
                serve_quota_events(&d->quota);
        }
    }
}

void serve_daemon_close(struct serve_daemon *d)
{
    struct stat st;
    if (d->listen_fd >= 0) {
        close(d->listen_fd);
        /* Only the socket this daemon made: a successor may own the path. */
        if (lstat(d->path, &st) == 0 && st.st_dev == d->sock_dev && st.st_ino == d->sock_ino)
            unlink(d->path);
    }
    pthread_mutex_lock(&d->lock);
    __atomic_store_n(&d->stopping, 1, __ATOMIC_RELAXED); /* fills at request time stop */
    for (int i = 0; i < SERVE_MAX_CONNS; i++)
        if (d->conn_fds[i] >= 0)
            shutdown(d->conn_fds[i], SHUT_RDWR); /* a waiting read ends now */
    while (d->conns > 0)
        pthread_cond_wait(&d->idle, &d->lock);
    pthread_mutex_unlock(&d->lock);
    for (unsigned p = 0; p < d->reserves; p++)
        serve_reserve_stop(&d->reserve[p]);
    if (d->quota_ready)
        serve_quota_destroy(&d->quota);
    if (d->epoll_fd >= 0)
        close(d->epoll_fd);
    pthread_cond_destroy(&d->idle);
    pthread_mutex_destroy(&d->lock);
}
