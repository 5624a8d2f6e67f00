/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_daemon.h - the daemon of `pageclear serve` (serve_daemon.c: the
 * socket and the event loop; serve_conn.c: one thread per connection,
 * which answers its one request).
 */
#ifndef PAGECLEAR_SERVE_DAEMON_H
#define PAGECLEAR_SERVE_DAEMON_H

#include <pthread.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "serve_cgroup.h"
#include "serve_config.h"
#include "serve_quota.h"
#include "serve_reserve.h"

/* Connections (threads) at once, in all: what a host's clients need is
 * a few, and the bound keeps a flood from exhausting threads. */
#define SERVE_MAX_CONNS 64

struct serve_daemon {
    struct serve_config cfg;
    char path[SERVE_SOCKET_MAX + 1];
    int listen_fd, epoll_fd;
    dev_t sock_dev; /* the socket file bound, unlinked at the end only */
    ino_t sock_ino; /* if it is still this one */
    struct serve_reserve reserve[SERVE_NPAGES];
    unsigned reserves; /* how many were started */
    struct serve_quota quota;
    int quota_ready; /* set up: destroyed at the end */
    struct serve_cg_mounts mounts; /* the cgroup file systems, read at the start */
    pthread_mutex_t lock; /* conns and conn_fds */
    pthread_cond_t idle;  /* signalled as connections end */
    unsigned conns;
    int conn_fds[SERVE_MAX_CONNS]; /* -1: free slot; shut down at the end */
    int stopping; /* atomic: the fills at request time read it */
};

/* One accepted connection, handed to its thread. */
struct serve_conn {
    struct serve_daemon *d;
    int fd, slot;
    int pidfd; /* the client process, -1 if it cannot be had: to read
                  its cgroups with no doubt about whose they are */
    struct ucred cred;
};

/* Bind the socket (path: cfg's, else PAGECLEAR_SOCKET, else the
 * default; `path` overrides them all if not NULL) and start the
 * reserves. 0, or -1 after a log line. */
int serve_daemon_open(struct serve_daemon *d, const struct serve_config *cfg, const char *path);
/* Serve until stop_fd becomes readable (a signalfd, an eventfd). */
int serve_daemon_run(struct serve_daemon *d, int stop_fd);
/* Stop: no new connections, wait for those open, close the reserves
 * (their pages go back to the kernel), remove the socket. */
void serve_daemon_close(struct serve_daemon *d);

/* The connection thread (serve_conn.c); it frees c. */
void *serve_conn_main(void *c);
/* Reply st (no descriptor) on fd, never blocking; for refusals. */
void serve_reply_error(int fd, int st);
/* Before closing a connection: shut its reading and discard what the
 * client sent and nobody read, so the close does not reset the client's
 * side and lose the reply sent. */
void serve_conn_drain(int fd);

#endif
