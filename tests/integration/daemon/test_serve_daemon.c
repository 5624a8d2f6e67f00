/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_serve_daemon.c - the daemon of `pageclear serve` (serve/) in
 * this process, with no reserve, so no huge pages are needed: how it ends
 * connections. A client refused as busy gets the refusal (EAGAIN from
 * pc_serve_get), whether its request came before the daemon answered or
 * after; a client that sent more than its request still gets the reply.
 * tests/stress/serve_soak.py found both broken: the daemon closed connections
 * with a message unread, and the kernel then resets the client's side,
 * which reads ECONNRESET before the reply queued for it. And the quota's
 * tables: tenants against a reference, a grant's life against its memory's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "harness.h"
#include "serve_daemon.h"
#include "serve_log.h"
#include "serve_proto.h"
#include "serve_quota.h"

/* Hang-catchers only: a reply comes in microseconds. */
#define WAIT_MS 60000

struct runner {
    struct serve_daemon d;
    pthread_t thread;
    int efd;
};

static void *run_loop(void *arg)
{
    struct runner *r = arg;
    CHECK_EQ(serve_daemon_run(&r->d, r->efd), 0);
    return NULL;
}

/* The daemon bound and listening, not yet accepting: connections made now
 * wait in its backlog with what they sent. */
static void open_daemon(struct runner *r, const char *path, unsigned connections)
{
    struct serve_config c;
    serve_config_defaults(&c);
    c.connections = connections;
    c.timeout = 60; /* a silent client is not timed out during the test */
    r->efd = eventfd(0, EFD_CLOEXEC);
    CHECK(r->efd >= 0);
    CHECK_EQ(serve_daemon_open(&r->d, &c, path), 0);
}

static void run_daemon(struct runner *r)
{
    CHECK(pthread_create(&r->thread, NULL, run_loop, r) == 0);
}

static void stop_daemon(struct runner *r)
{
    uint64_t one = 1;
    CHECK(write(r->efd, &one, sizeof(one)) == (ssize_t)sizeof(one));
    CHECK(pthread_join(r->thread, NULL) == 0);
    serve_daemon_close(&r->d);
    close(r->efd);
}

static int connect_to(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    CHECK(s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0);
    return s;
}

static void send_request(int s, uint64_t size)
{
    uint8_t m[SERVE_MSG_SIZE];
    struct serve_request r = {.version = SERVE_PROTO_VERSION, .op = SERVE_OP_GET,
                              .size = size, .page = (uint64_t)2 << 20};
    serve_request_encode(m, &r);
    CHECK(send(s, m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m));
}

/* The reply on s has status st and no descriptor; then the daemon closes. */
static void expect_reply(int s, int st)
{
    uint8_t m[2 * SERVE_MSG_SIZE];
    struct pollfd p = {.fd = s, .events = POLLIN};
    CHECK(poll(&p, 1, WAIT_MS) == 1);
    char ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = m, .iov_len = sizeof(m)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                        .msg_controllen = sizeof(ctl)};
    ssize_t n = recvmsg(s, &mh, 0);
    if (n < 0)
        fprintf(stderr, "reply: %s\n", strerror(errno));
    CHECK_EQ(n, SERVE_MSG_SIZE);
    CHECK(memcmp(m, "pcRP", 4) == 0 && mh.msg_controllen == 0);
    uint16_t status;
    memcpy(&status, m + 6, sizeof(status));
    CHECK_EQ(status, st);
    CHECK_EQ(recv(s, m, sizeof(m), 0), 0); /* closed, not reset */
}

/* One connection per uid: the first is held open and silent, the rest are
 * refused. */
static void test_busy(const char *path)
{
    struct runner r;
    open_daemon(&r, path, 1);
    int hold = connect_to(path);
    int early = connect_to(path);
    send_request(early, 2 << 20); /* queued before the daemon reads anything */
    run_daemon(&r);
    expect_reply(early, SERVE_E_BUSY);
    close(early);

    /* The library's client: its request comes before the refusal or after
     * (then its send fails, EPIPE, and the refusal is there to read); here
     * mostly after, as the daemon's thread answers at once. */
    for (int i = 0; i < 100; i++) {
        int fd = -1, rc = pc_serve_get(2 << 20, 0, 0, &fd);
        if (rc != -EAGAIN) {
            fprintf(stderr, "try %d: pc_serve_get %d (%s), want -EAGAIN\n", i, rc,
                    strerror(-rc));
            exit(1);
        }
        CHECK_EQ(fd, -1);
    }
    close(hold);
    stop_daemon(&r);
}

/* A client that sends more than one message: the first is answered, the
 * rest discarded, and the answer reaches it. */
static void test_extra_message(const char *path)
{
    struct runner r;
    open_daemon(&r, path, 8);
    int s = connect_to(path);
    CHECK(send(s, "pcRQ\1\0", 6, MSG_NOSIGNAL) == 6); /* malformed: short */
    CHECK(send(s, "more", 4, MSG_NOSIGNAL) == 4);
    run_daemon(&r);
    expect_reply(s, SERVE_E_PROTO);
    close(s);
    stop_daemon(&r);
}

/* The tenant table against a reference: uids come and go at random; a
 * connection is refused as EUSERS exactly when its uid would be one tenant
 * too many, as EBUSY when its uid has its connections, and every entry
 * stays findable however entries before it in its probe run leave. */
static void test_tenants(void)
{
    enum { POOL = 300, TENANTS = 37, CONNS = 3 };
    static unsigned ref[POOL];
    struct serve_config c;
    struct serve_quota q;
    serve_config_defaults(&c);
    c.tenants = TENANTS;
    c.connections = CONNS;
    c.quota = 10;
    CHECK_EQ(serve_quota_init(&q, &c), 0);
    uint64_t seed = 12345;
    unsigned live = 0;
    for (int it = 0; it < 200000; it++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        unsigned i = (unsigned)(seed >> 33) % POOL;
        uid_t uid = (uid_t)(i * 7919u + 1000u); /* spread, and colliding slots */
        if ((seed >> 20) & 1) {
            int want = ref[i] == 0 && live == TENANTS ? -EUSERS : ref[i] == CONNS ? -EBUSY : 0;
            CHECK_EQ(serve_quota_connect(&q, uid), want);
            live += want == 0 && ref[i]++ == 0;
        } else if (ref[i] > 0) {
            serve_quota_disconnect(&q, uid);
            live -= --ref[i] == 0;
        }
        CHECK_EQ(q.nuids, live);
        if (it % 97 == 0) { /* a grant: only for a uid with a connection */
            int g = serve_quota_reserve(&q, uid, 1);
            CHECK_EQ(g >= 0, ref[i] > 0);
            if (g >= 0)
                serve_quota_cancel(&q, g);
        }
    }
    serve_quota_destroy(&q);
}

/* A grant counts until the last reference to its memory goes, whoever
 * holds it: the asker's descriptor closed, a child's kept, then the
 * child's gone. A plain memfd stands in for hugetlb memory. */
static void test_grant_lifetime(void)
{
    struct serve_config c;
    struct serve_quota q;
    uint64_t held, limit;
    serve_config_defaults(&c);
    c.quota = 8 << 20;
    CHECK_EQ(serve_quota_init(&q, &c), 0);
    CHECK_EQ(serve_quota_connect(&q, 4242), 0);
    int g = serve_quota_reserve(&q, 4242, 6 << 20);
    CHECK(g >= 0);
    CHECK_EQ(serve_quota_reserve(&q, 4242, 4 << 20), -EDQUOT);
    int fd = memfd_create("grant", MFD_CLOEXEC);
    CHECK(fd >= 0 && serve_quota_hold(&q, g, fd) == 0);
    serve_quota_disconnect(&q, 4242);
    int go[2];
    CHECK(pipe2(go, O_CLOEXEC) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) { /* the child the memory was passed to */
        char b;
        _exit(read(go[0], &b, 1) == 1 ? 0 : 1);
    }
    close(fd); /* the daemon's, then the asker's: the child holds it still */
    struct pollfd p = {.fd = q.inotify_fd, .events = POLLIN};
    CHECK_EQ(poll(&p, 1, 200), 0); /* nothing: a short wait, for a wrong release */
    serve_quota_events(&q);
    serve_quota_usage(&q, 4242, &held, &limit);
    CHECK(held == 6 << 20 && limit == 8 << 20);
    CHECK(write(go[1], "", 1) == 1);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(poll(&p, 1, WAIT_MS), 1); /* the kernel says it is gone */
    serve_quota_events(&q);
    serve_quota_usage(&q, 4242, &held, &limit);
    CHECK_EQ(held, 0);
    CHECK_EQ(q.nuids, 0); /* and the uid is a tenant no more */
    close(go[0]);
    close(go[1]);
    serve_quota_destroy(&q);
}

int main(void)
{
    char dir[] = "/tmp/pc-test-serve-daemon-XXXXXX", path[108];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/sock", dir);
    setenv("PAGECLEAR_SOCKET", path, 1);
    char uid[16]; /* the daemon is this process: trusted by its uid if not root */
    snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
    setenv("PAGECLEAR_SERVE_UID", uid, 1);
    serve_log_level = SERVE_WARNING; /* a refusal is an info line each */
    test_busy(path);
    test_extra_message(path);
    test_tenants();
    test_grant_lifetime();
    unlink(path);
    CHECK(rmdir(dir) == 0);
    printf("ok: serve refuses as busy, and answers, without resetting the client; tenants "
           "and grants counted\n");
    return 0;
}
