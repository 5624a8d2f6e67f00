/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_client.c - pc_serve_get: zeroed huge pages from the `pageclear
 * serve` daemon. Self-contained: it needs nothing else of the library.
 *
 * The protocol (docs/serve.md; the daemon's side is serve/serve_proto.c,
 * and tests/integration/daemon/test_serve.c checks the two against each
 * other): one
 * request per connection on a SOCK_SEQPACKET Unix socket, 32 bytes each
 * way in the host's byte order,
 *   request: "pcRQ", u16 version 1, u16 op 1 (get), u64 size, u64 page,
 *            u32 flags, u32 0
 *   reply:   "pcRP", u16 version, u16 status, u64 size, u64 page, u64 0
 * with the memfd attached to a successful reply (SCM_RIGHTS).
 *
 * The daemon is trusted with nothing: a reply is checked in full, and the
 * descriptor too (a hugetlb file of the promised size and page size,
 * sealed as promised) before the caller sees it. Nor is whoever listens
 * on the socket: memory handed out by a process the caller does not trust
 * may be mapped by that process too (the issue of a socket in a directory
 * others can write), so the listener must run as root, or as the uid
 * PAGECLEAR_SERVE_UID names, before anything is sent.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv, MSG_CMSG_CLOEXEC */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>

#include "pageclear.h"

#ifndef F_GET_SEALS
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif
#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW) /* what the contract promises */
#define HUGETLBFS_MAGIC_ 0x958458f6 /* statfs f_type of hugetlb files */

#define MSG_SIZE 32
#define VERSION 1
#define OP_GET 1
#define PAGE_2M ((uint64_t)2 << 20)
#define PAGE_1G ((uint64_t)1 << 30)
/* The largest size the protocol carries (the daemon refuses more). */
#define SIZE_LIMIT ((uint64_t)1 << 62)
/* Descriptors a reply may carry that are read (and closed): one is
 * right, more is a protocol error, never a leak. */
#define MAX_FDS 4

/* Reply statuses and what they mean to the caller. */
static const int status_errno[] = {
    0, EPROTO, EPROTO, EINVAL, EDQUOT, ENOMEM, EAGAIN, EOPNOTSUPP,
};

static int open_socket(int *out)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    const char *path = secure_getenv("PAGECLEAR_SOCKET");
    if (path == NULL || path[0] == '\0')
        path = "/run/pageclear/serve.sock";
    if (strlen(path) >= sizeof(a.sun_path))
        return -ENAMETOOLONG;
    memcpy(a.sun_path, path, strlen(path) + 1);
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -errno;
    int rc;
    do /* an interrupted connect on a Unix socket leaves it unconnected */
        rc = connect(s, (const struct sockaddr *)&a, sizeof(a));
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int e = errno;
        close(s);
        return -e;
    }
    *out = s;
    return 0;
}

/* Does the process listening on s run as a uid the caller trusts: root,
 * or PAGECLEAR_SERVE_UID (a decimal uid; ignored by set-user-ID programs,
 * and when it is not a number)? 0, -EPERM, or the errno of SO_PEERCRED. */
static int check_daemon(int s)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return -errno;
    if (cred.uid == 0)
        return 0;
    const char *env = secure_getenv("PAGECLEAR_SERVE_UID");
    char *end = NULL;
    errno = 0;
    unsigned long uid = env != NULL && *env >= '0' && *env <= '9' ? strtoul(env, &end, 10) : 0;
    if (env == NULL || uid == 0 || errno != 0 || *end != '\0' || uid > UINT32_MAX - 1)
        return -EPERM;
    return (uid_t)uid == cred.uid ? 0 : -EPERM;
}

static int send_request(int s, uint64_t size, uint64_t page, int flags)
{
    uint8_t m[MSG_SIZE] = {'p', 'c', 'R', 'Q'};
    uint16_t version = VERSION, op = OP_GET;
    uint32_t f = (uint32_t)flags;
    memcpy(m + 4, &version, 2);
    memcpy(m + 6, &op, 2);
    memcpy(m + 8, &size, 8);
    memcpy(m + 16, &page, 8);
    memcpy(m + 24, &f, 4); /* 28..31: reserved, 0 */
    ssize_t n;
    do
        n = send(s, m, sizeof(m), MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EPIPE ? -ECONNRESET : -errno;
    return n == (ssize_t)sizeof(m) ? 0 : -EPROTO;
}

/* Receive the reply into m and its descriptors into fds[0, *nfds).
 * Returns 0, or a negative errno with every descriptor closed. */
static int recv_reply(int s, uint8_t m[MSG_SIZE], int fds[MAX_FDS], int *nfds)
{
    union {
        char buf[CMSG_SPACE(MAX_FDS * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = m, .iov_len = MSG_SIZE};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof(ctl.buf)};
    ssize_t n;
    do
        n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC | MSG_TRUNC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    *nfds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k && *nfds < MAX_FDS; i++)
            memcpy(&fds[(*nfds)++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    }
    int rc = n == 0 ? -ECONNRESET : 0; /* closed without an answer */
    if (rc == 0 && (n != MSG_SIZE || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))))
        rc = -EPROTO;
    if (rc != 0)
        for (int i = 0; i < *nfds; i++)
            close(fds[i]);
    return rc;
}

/* Is fd what a successful reply promises? */
static int check_fd(int fd, uint64_t size, uint64_t page)
{
    struct stat st;
    struct statfs sf;
    int seals = fcntl(fd, F_GET_SEALS);
    if (fstat(fd, &st) != 0 || fstatfs(fd, &sf) != 0 || seals < 0)
        return -EPROTO;
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size ||
        (unsigned long)sf.f_type != HUGETLBFS_MAGIC_ || (uint64_t)sf.f_bsize != page ||
        (seals & SEALS) != SEALS)
        return -EPROTO;
    return 0;
}

/* The reply m with its descriptors, for a request of size (rounded) bytes
 * of page: 0 with the one descriptor in *fd, or a negative errno. */
static int judge(const uint8_t m[MSG_SIZE], const int *fds, int nfds, uint64_t size,
                 uint64_t page, int *fd)
{
    uint16_t version, status;
    uint64_t rsize, rpage;
    memcpy(&version, m + 4, 2);
    memcpy(&status, m + 6, 2);
    memcpy(&rsize, m + 8, 8);
    memcpy(&rpage, m + 16, 8);
    if (memcmp(m, "pcRP", 4) != 0 || version != VERSION ||
        status >= sizeof(status_errno) / sizeof(status_errno[0]))
        return -EPROTO;
    if (status != 0)
        return nfds == 0 ? -status_errno[status] : -EPROTO;
    if (nfds != 1 || rsize != size || rpage != page || check_fd(fds[0], size, page) != 0)
        return -EPROTO;
    *fd = fds[0];
    return 0;
}

int pc_serve_get(size_t size, size_t page_size, int flags, int *fd)
{
    uint64_t page = page_size == 0 ? PAGE_2M : (uint64_t)page_size;
    if (fd == NULL || size == 0 || (page != PAGE_2M && page != PAGE_1G) ||
        (flags & ~PC_SERVE_RESERVE_ONLY) != 0 || (uint64_t)size > SIZE_LIMIT)
        return -EINVAL;
    if (size > SIZE_MAX - (page - 1))
        return -EOVERFLOW;
    uint64_t rounded = ((uint64_t)size + page - 1) / page * page;
    int s = -1, nfds = 0, fds[MAX_FDS], got = -1;
    uint8_t m[MSG_SIZE];
    int rc = open_socket(&s);
    if (rc != 0)
        return rc;
    rc = check_daemon(s);
    if (rc != 0) {
        close(s);
        return rc;
    }
    rc = send_request(s, (uint64_t)size, page, flags);
    /* A daemon refusing the connection (too many at once) may answer
     * before the request is sent, and stop reading: the send fails, and
     * the answer is there to read. */
    if (rc == 0 || rc == -ECONNRESET) {
        int sent = rc;
        rc = recv_reply(s, m, fds, &nfds);
        if (rc != 0 && sent != 0)
            rc = sent;
    }
    close(s);
    if (rc != 0)
        return rc;
    rc = judge(m, fds, nfds, rounded, page, &got);
    for (int i = 0; i < nfds; i++)
        if (fds[i] != got)
            close(fds[i]);
    if (rc == 0)
        *fd = got;
    return rc;
}
