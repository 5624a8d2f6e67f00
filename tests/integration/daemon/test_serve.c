/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_serve.c - `pageclear serve` without huge pages: the configuration
 * parser's answers and messages (serve/serve_config.c), the request parser
 * (serve/serve_proto.c), and the library's client (pc_serve_get) against a
 * scripted daemon in a thread: every refusal turns into its errno, and a
 * reply that is not the protocol, or a descriptor that is not what it
 * promises, into EPROTO with nothing leaked; a socket served by an
 * untrusted uid into EPERM with nothing sent. The daemon itself, with real
 * huge pages, is tests/integration/daemon/serve.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "harness.h"
#include "serve_cgroup.h"
#include "serve_config.h"
#include "serve_proto.h"

static int parse(const char *text, struct serve_config *c, char *why)
{
    serve_config_defaults(c);
    return serve_config_parse(text, strlen(text), c, why, 256);
}

static void expect_error(const char *text, int rc, const char *msg)
{
    struct serve_config c, before;
    char why[256];
    serve_config_defaults(&c);
    before = c;
    CHECK_EQ(serve_config_parse(text, strlen(text), &c, why, sizeof(why)), rc);
    CHECK(memcmp(&c, &before, sizeof(c)) == 0);
    if (strstr(why, msg) == NULL) {
        fprintf(stderr, "want '%s' in '%s'\n", msg, why);
        exit(1);
    }
}

static void test_config(void)
{
    struct serve_config c;
    char why[256];
    CHECK_EQ(parse("# the reserve\n\nsocket = /run/x.sock  # here\ngroup = kvm\n"
                   "reserve.2M = 4G, 1G 0\nreserve.1G = none\nquota = 8G\n"
                   "quota.root = unlimited\non_miss = error\nconnections = 2\n"
                   "request_timeout = 60\nfill_priority = normal\n", &c, why), 0);
    CHECK(strcmp(c.socket, "/run/x.sock") == 0 && strcmp(c.group, "kvm") == 0);
    CHECK_EQ(c.nblocks[SERVE_PAGE_2M], 2);
    CHECK(c.reserve[SERVE_PAGE_2M][0] == (uint64_t)4 << 30);
    CHECK(c.reserve[SERVE_PAGE_2M][1] == (uint64_t)1 << 30);
    CHECK_EQ(c.nblocks[SERVE_PAGE_1G], 0);
    CHECK(c.quota == (uint64_t)8 << 30 && c.nusers == 1 && c.users[0].bytes == SERVE_UNLIMITED);
    CHECK(c.on_miss == SERVE_MISS_ERROR && c.connections == 2 && c.timeout == 60);
    CHECK(c.fill == SERVE_FILL_NORMAL);
    CHECK_EQ(parse("", &c, why), 0);
    CHECK(c.quota == SERVE_UNLIMITED && c.on_miss == SERVE_MISS_FILL && c.nblocks[0] == 0);
    CHECK(c.fill == SERVE_FILL_IDLE && c.charge == SERVE_CHARGE_TENANT);
    CHECK(c.reserve_for == SERVE_FOR_UNLIMITED && c.tenants == SERVE_TENANTS_DEFAULT);
    CHECK(c.grants == SERVE_GRANTS_DEFAULT && c.log_rate == SERVE_LOG_RATE_DEFAULT);
    CHECK_EQ(parse("tenants = 65536\ngrants = 8192\nrefusal_log_rate = 1\ncharge = daemon\n"
                   "reserve_for = all\n", &c, why), 0);
    CHECK(c.tenants == 65536 && c.grants == 8192 && c.log_rate == 1);
    CHECK(c.charge == SERVE_CHARGE_DAEMON && c.reserve_for == SERVE_FOR_ALL);
    expect_error("tenants = 0\n", -ERANGE, "line 1: tenants = 0 is out of range (want 1 to 65536)");
    expect_error("grants = 8193\n", -ERANGE, "grants = 8193 is out of range (want 1 to 8192)");
    expect_error("refusal_log_rate = 1001\n", -ERANGE, "(want 1 to 1000 lines per second)");
    expect_error("charge = nobody\n", -EINVAL, "charge = nobody (want tenant or daemon)");
    expect_error("reserve_for = some\n", -EINVAL, "reserve_for = some (want unlimited or all)");
    expect_error("charge = tenant\ncharge = tenant\n", -EINVAL,
                 "line 2: duplicate key 'charge' (first on line 1)");

    expect_error("quota = 1G\n\nbogus = 1\n", -EINVAL, "line 3: unknown key 'bogus'");
    expect_error("reserve.2M = 3M\n", -EINVAL, "line 1: reserve.2M: 3M is not a whole number");
    expect_error("reserve.1G = 1G\nreserve.1G = 2G\n", -EINVAL, "line 2: duplicate key");
    expect_error("reserve.4K = 4K\n", -EINVAL, "not a huge page size");
    expect_error("quota = 1G\nquota = 2G\n", -EINVAL, "line 2: duplicate key 'quota' "
                 "(first on line 1)");
    expect_error("connections = 65\n", -ERANGE, "line 1: connections = 65 is out of range");
    expect_error("request_timeout = 0\n", -ERANGE, "out of range");
    expect_error("quota = 65T\n", -ERANGE, "out of range");
    expect_error("socket = run/x\n", -EINVAL, "not an absolute path");
    expect_error("on_miss = maybe\n", -EINVAL, "want fill or error");
    expect_error("fill_priority = high\n", -EINVAL, "want idle or normal");
    expect_error("group = a b\n", -EINVAL, "not a group name");
    expect_error("just words\n", -EINVAL, "line 1: no '='");
    expect_error("quota =\n", -EINVAL, "no value for quota");
    expect_error("reserve.2M = 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M 2M\n",
                 -ERANGE, "more than 16 blocks");
    char long_line[400];
    memset(long_line, 'x', sizeof(long_line) - 1);
    long_line[sizeof(long_line) - 1] = '\0';
    expect_error(long_line, -EINVAL, "line 1: longer than 256 bytes");
    CHECK_EQ(serve_config_parse("quota = 1G\0x", 12, &c, why, sizeof(why)), -EINVAL);
    CHECK(strstr(why, "NUL") != NULL);

    CHECK_EQ(parse("group = root\nquota.0 = 1G\n", &c, why), 0);
    CHECK_EQ(serve_config_resolve(&c, why, sizeof(why)), 0);
    CHECK(c.gid == 0 && c.users[0].uid == 0 && serve_config_quota(&c, 0) == (uint64_t)1 << 30);
    CHECK(serve_config_quota(&c, 12345) == SERVE_UNLIMITED);
    CHECK_EQ(parse("\n\ngroup = no-such-group-pc\n", &c, why), 0);
    CHECK_EQ(serve_config_resolve(&c, why, sizeof(why)), -ENOENT);
    CHECK(strcmp(why, "line 3: no group 'no-such-group-pc'") == 0);
}

/* The cgroup texts: a hybrid host's mountinfo (as this project's machine
 * has it), and /proc/PID/cgroup lines. */
static void test_cgroup_texts(void)
{
    static const char mi[] =
        "22 1 8:1 / / rw,relatime - ext4 /dev/vda1 rw\n"
        "30 25 0:26 / /sys/fs/cgroup/cpu rw,relatime shared:5 - cgroup cgroup rw,cpu\n"
        "31 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
        "32 25 0:28 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,name=systemd\n"
        "33 25 0:29 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
        "34 25 0:29 / /mnt/v2\\040again rw - cgroup2 cgroup2 rw\n"
        "35 25 0:27 /sub /mnt/memsub rw - cgroup cgroup rw,memory\n"
        "36 25 0:30 / /mnt/c\\040d rw - cgroup cgroup rw,cpuacct,clone_children\n"
        "malformed line\n";
    struct serve_cg_mounts m;
    CHECK_EQ(serve_cg_mounts_parse(mi, sizeof(mi) - 1, &m), 5);
    CHECK(!m.m[0].v2 && strcmp(m.m[0].dir, "/sys/fs/cgroup/cpu") == 0);
    CHECK(strcmp(m.m[1].opts, "rw,memory") == 0);
    CHECK(m.m[3].v2 && strcmp(m.m[3].dir, "/sys/fs/cgroup/unified") == 0); /* the first v2 */
    CHECK(strcmp(m.m[4].dir, "/mnt/c d") == 0 && !m.hugetlb_in_memcg); /* \040: a space */
    static const char acct[] = "1 1 0:1 / /x rw - cgroup2 none rw,memory_hugetlb_accounting\n";
    CHECK(serve_cg_mounts_parse(acct, sizeof(acct) - 1, &m) == 1 && m.hugetlb_in_memcg);

    CHECK(serve_cg_mount_holds("rw,cpu,cpuacct", "cpu,cpuacct", 11));
    CHECK(serve_cg_mount_holds("rw,cpu,cpuacct", "cpu", 3));
    CHECK(!serve_cg_mount_holds("rw,cpuacct", "cpu", 3)); /* an item, not a prefix */
    CHECK(!serve_cg_mount_holds("rw,cpu", "cpu,memory", 10));
    CHECK(!serve_cg_mount_holds("rw,cpu", "", 0) && !serve_cg_mount_holds("rw,cpu", "cpu,", 4));

    static const char cg[] = "4:memory:/process_api/x\n1:name=systemd:/\n\n0::/a b/c\n";
    struct serve_cg_line l;
    size_t pos = 0;
    CHECK(serve_cg_line_next(cg, sizeof(cg) - 1, &pos, &l) == 1 && l.id == 4);
    CHECK(l.ctrl_len == 6 && memcmp(l.ctrl, "memory", 6) == 0);
    CHECK(l.path_len == 14 && memcmp(l.path, "/process_api/x", 14) == 0);
    CHECK(serve_cg_line_next(cg, sizeof(cg) - 1, &pos, &l) == 1 && l.path_len == 1);
    CHECK(serve_cg_line_next(cg, sizeof(cg) - 1, &pos, &l) == 1 && l.id == 0 && l.ctrl_len == 0);
    CHECK(l.path_len == 6 && memcmp(l.path, "/a b/c", 6) == 0);
    CHECK(serve_cg_line_next(cg, sizeof(cg) - 1, &pos, &l) == 0 && pos == sizeof(cg) - 1);
    static const char *const bad[] = {"x::/\n", "0:/\n", "0::\n", "0::a\n", ":cpu:/\n",
                                      "1234567890:cpu:/\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pos = 0;
        CHECK_EQ(serve_cg_line_next(bad[i], strlen(bad[i]), &pos, &l), -EINVAL);
        CHECK_EQ(pos, strlen(bad[i]));
    }
}

static void request(uint8_t m[SERVE_MSG_SIZE], uint64_t size, uint64_t page, uint32_t flags)
{
    struct serve_request r = {.version = SERVE_PROTO_VERSION, .op = SERVE_OP_GET,
                              .size = size, .page = page, .flags = flags};
    serve_request_encode(m, &r);
}

static void test_proto(void)
{
    uint8_t m[2 * SERVE_MSG_SIZE] = {0};
    struct serve_request r;
    request(m, 5, (uint64_t)2 << 20, 1);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_OK);
    CHECK(r.size == 5 && r.page == (uint64_t)2 << 20 && r.flags == 1);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE - 1, &r), SERVE_E_PROTO);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE + 1, &r), SERVE_E_PROTO);
    CHECK_EQ(serve_request_parse(m, 3, &r), SERVE_E_PROTO);
    CHECK_EQ(serve_request_parse(NULL, 0, &r), SERVE_E_PROTO);
    m[0] = 'x';
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_E_PROTO);
    request(m, 5, (uint64_t)1 << 30, 0);
    m[4] = 2; /* version 2, even longer: the version is what is wrong */
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE + 8, &r), SERVE_E_VERSION);
    request(m, 5, (uint64_t)1 << 30, 0);
    m[6] = 2; /* op */
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_E_PROTO);
    request(m, 5, (uint64_t)1 << 30, 0);
    m[31] = 1; /* reserved */
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_E_PROTO);
    request(m, 5, (uint64_t)1 << 30, 2);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_E_INVAL);
    request(m, 0, (uint64_t)1 << 30, 0);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_E_INVAL);
    request(m, ((uint64_t)1 << 62) + 1, (uint64_t)1 << 30, 0);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_E_INVAL);
    request(m, (uint64_t)1 << 62, (uint64_t)1 << 30, 0);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_OK);
    request(m, 4096, 4096, 0);
    CHECK_EQ(serve_request_parse(m, SERVE_MSG_SIZE, &r), SERVE_E_INVAL);
}

/* The scripted daemon: for each step, accept one connection, check the
 * request, and answer as the step says. */
enum act { A_STATUS, A_CLOSE, A_GARBAGE, A_OK_NO_FD, A_OK_PLAIN_FD, A_OK_TWO_FDS };
struct step {
    enum act act;
    int status;
};
struct fake {
    int listen_fd;
    int done_fd; /* a byte after each step, once the step's descriptors are closed */
    const struct step *steps;
    int nsteps;
};

static void send_reply(int s, const struct step *st)
{
    uint8_t m[SERVE_MSG_SIZE];
    int fds[2] = {-1, -1}, nfds = st->act == A_OK_TWO_FDS ? 2 : st->act == A_OK_PLAIN_FD;
    serve_reply_encode(m, st->act == A_STATUS ? (enum serve_status)st->status : SERVE_OK,
                       (uint64_t)2 << 20, (uint64_t)2 << 20);
    if (st->act == A_GARBAGE)
        memcpy(m, "nope", 4);
    for (int i = 0; i < nfds; i++) {
        fds[i] = memfd_create("fake", MFD_CLOEXEC); /* not hugetlb, not sealed */
        CHECK(fds[i] >= 0 && ftruncate(fds[i], (off_t)2 << 20) == 0);
    }
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = m, .iov_len = sizeof(m)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        memset(&ctl, 0, sizeof(ctl));
        mh.msg_control = ctl.buf;
        mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    CHECK(sendmsg(s, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(m));
    for (int i = 0; i < nfds; i++)
        close(fds[i]);
}

static void *fake_main(void *arg)
{
    struct fake *f = arg;
    for (int i = 0; i < f->nsteps; i++) {
        /* poll first: a blocked accept holds the lowest free descriptor
         * number already, which would look like a leak to next_fd. */
        struct pollfd pfd = {.fd = f->listen_fd, .events = POLLIN};
        CHECK(poll(&pfd, 1, -1) == 1);
        int s = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        CHECK(s >= 0);
        uint8_t m[2 * SERVE_MSG_SIZE];
        struct serve_request r;
        ssize_t n = recv(s, m, sizeof(m), MSG_TRUNC);
        CHECK(n > 0 && serve_request_parse(m, (size_t)n, &r) == SERVE_OK);
        CHECK(r.size == 3 << 20 && r.page == (uint64_t)2 << 20 && r.flags == 0);
        if (f->steps[i].act != A_CLOSE)
            send_reply(s, &f->steps[i]);
        close(s);
        CHECK(write(f->done_fd, "", 1) == 1);
    }
    return NULL;
}

/* The lowest free descriptor: what pc_serve_get leaks shows up here. */
static int next_fd(void)
{
    int fd = dup(0);
    CHECK(fd >= 0);
    close(fd);
    return fd;
}

static void test_client(void)
{
    char dir[] = "/tmp/pc-test-serve-XXXXXX", path[108];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/sock", dir);
    setenv("PAGECLEAR_SOCKET", path, 1);
    char uid[16]; /* the scripted daemon is this process: trusted by its uid if not root */
    snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
    setenv("PAGECLEAR_SERVE_UID", uid, 1);
    int fd = 12345;
    CHECK_EQ(pc_serve_get(0, 0, 0, &fd), -EINVAL);
    CHECK_EQ(pc_serve_get(1, 4096, 0, &fd), -EINVAL);
    CHECK_EQ(pc_serve_get(1, 0, 2, &fd), -EINVAL);
    CHECK_EQ(pc_serve_get(1, 0, 0, NULL), -EINVAL);
    CHECK_EQ(pc_serve_get(1, 0, 0, &fd), -ENOENT);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof(a)) == 0);
    CHECK_EQ(pc_serve_get(1, 0, 0, &fd), -ECONNREFUSED); /* bound, nobody listens */
    CHECK(listen(l, 8) == 0);

    static const struct step steps[] = {
        {A_STATUS, SERVE_E_QUOTA},  {A_STATUS, SERVE_E_NOMEM}, {A_STATUS, SERVE_E_BUSY},
        {A_STATUS, SERVE_E_NOTSUP}, {A_STATUS, SERVE_E_INVAL}, {A_STATUS, SERVE_E_PROTO},
        {A_STATUS, 99},             {A_CLOSE, 0},              {A_GARBAGE, 0},
        {A_OK_NO_FD, 0},            {A_OK_PLAIN_FD, 0},        {A_OK_TWO_FDS, 0},
    };
    static const int want[] = {-EDQUOT, -ENOMEM, -EAGAIN, -EOPNOTSUPP, -EINVAL, -EPROTO,
                               -EPROTO, -ECONNRESET, -EPROTO, -EPROTO, -EPROTO, -EPROTO};
    int done[2];
    CHECK(pipe2(done, O_CLOEXEC) == 0);
    struct fake f = {.listen_fd = l, .done_fd = done[1], .steps = steps,
                     .nsteps = (int)(sizeof(want) / sizeof(int))};
    pthread_t t;
    int low = next_fd(); /* before the thread: it holds none until it accepts */
    CHECK(pthread_create(&t, NULL, fake_main, &f) == 0);
    for (int i = 0; i < f.nsteps; i++) {
        int rc = pc_serve_get(3 << 20, 0, 0, &fd);
        if (rc != want[i]) {
            fprintf(stderr, "step %d: pc_serve_get %d, want %d\n", i, rc, want[i]);
            exit(1);
        }
        CHECK_EQ(fd, 12345); /* untouched on error */
        char b;
        CHECK(read(done[0], &b, 1) == 1); /* the fake's side is closed */
        CHECK_EQ(next_fd(), low); /* nothing leaked, descriptors of bad replies neither */
    }
    CHECK(pthread_join(t, NULL) == 0);
    close(done[0]);
    close(done[1]);
    close(l);
    unlink(path);
    rmdir(dir);
}

/* The impostor's side: listen on path as uid (root drops to it), tell
 * ready, then take `quiet` connections that must send nothing before they
 * close, and one request answered NOMEM. Exits 0 if so. */
static void impostor(const char *path, uid_t uid, int ready, int quiet)
{
    if (getuid() == 0 && (setgid((gid_t)uid) != 0 || setuid(uid) != 0))
        _exit(3);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 8) != 0 ||
        write(ready, "", 1) != 1)
        _exit(4);
    uint8_t m[2 * SERVE_MSG_SIZE];
    for (int i = 0; i <= quiet; i++) {
        int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        ssize_t n = s >= 0 ? recv(s, m, sizeof(m), 0) : -1;
        if (i < quiet && n != 0)
            _exit(5); /* a request reached the impostor */
        if (i == quiet) {
            serve_reply_encode(m, SERVE_E_NOMEM, 0, 0);
            if (n != SERVE_MSG_SIZE || send(s, m, SERVE_MSG_SIZE, MSG_NOSIGNAL) != SERVE_MSG_SIZE)
                _exit(6);
        }
        close(s);
    }
    _exit(0);
}

/* A socket served by another uid than root and PAGECLEAR_SERVE_UID is
 * refused (EPERM) before anything is sent; the uid the variable names is
 * trusted; a variable that is not a uid is no trust at all. As root, the
 * impostor is uid 65534; otherwise this test's own uid, which nothing
 * trusts unless the variable names it. */
static void test_impostor(void)
{
    char dir[] = "/tmp/pc-test-serve-imp-XXXXXX", path[108], num[16];
    CHECK(mkdtemp(dir) != NULL && chmod(dir, 0777) == 0); /* for uid 65534 */
    snprintf(path, sizeof(path), "%s/sock", dir);
    setenv("PAGECLEAR_SOCKET", path, 1);
    uid_t other = getuid() == 0 ? 65534 : getuid();
    static const char *const distrust[] = {NULL, "", "abc", "12x", "-1", "0", "4294967295",
                                           "99999999999999999999"};
    const int quiet = (int)(sizeof(distrust) / sizeof(distrust[0])) + 1;
    int ready[2];
    CHECK(pipe2(ready, O_CLOEXEC) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        impostor(path, other, ready[1], quiet);
    char b;
    CHECK(read(ready[0], &b, 1) == 1);
    int low = next_fd(), fd = 12345;
    for (int i = 0; i < quiet; i++) {
        if (i == quiet - 1) { /* a uid, but not the impostor's */
            snprintf(num, sizeof(num), "%u", (unsigned)other + 1);
            setenv("PAGECLEAR_SERVE_UID", num, 1);
        } else if (distrust[i] == NULL) {
            unsetenv("PAGECLEAR_SERVE_UID");
        } else {
            setenv("PAGECLEAR_SERVE_UID", distrust[i], 1);
        }
        CHECK_EQ(pc_serve_get(3 << 20, 0, 0, &fd), -EPERM);
        CHECK(fd == 12345 && next_fd() == low);
    }
    snprintf(num, sizeof(num), "%u", (unsigned)other);
    setenv("PAGECLEAR_SERVE_UID", num, 1);
    CHECK_EQ(pc_serve_get(3 << 20, 0, 0, &fd), -ENOMEM); /* trusted: its answer */
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "the impostor: status %#x (5: a request reached it)\n", status);
        exit(1);
    }
    close(ready[0]);
    close(ready[1]);
    unsetenv("PAGECLEAR_SERVE_UID");
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_config();
    test_cgroup_texts();
    test_proto();
    test_client();
    test_impostor();
    printf("ok: serve configuration, protocol, client errors, impostor refused\n");
    return 0;
}
