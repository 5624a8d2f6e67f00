/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve.c - `pageclear serve`: keep a reserve of zeroed huge pages and
 * hand them out over a Unix socket (docs/serve.md). In the foreground,
 * logging to stderr, until SIGTERM or SIGINT; `--check-config` reads the
 * configuration and says what it means; `--bench` measures (serve_bench.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "commands.h"
#include "serve.h"
#include "serve_daemon.h"
#include "serve_log.h"

static const char usage_text[] =
    "usage: pageclear serve [--config FILE] [--socket PATH] [-v]\n"
    "       pageclear serve --check-config [--config FILE]\n"
    "       pageclear serve --bench [--sizes LIST] [--runs N] [--page 2MB|1GB]\n"
    "Keep a reserve of zeroed huge pages and hand them to clients (pc_serve_get,\n"
    "'pageclear get') over a Unix socket, in the foreground, until SIGTERM.\n"
    "  --config FILE   the configuration (default " SERVE_CONFIG_DEFAULT " if it exists;\n"
    "                  else no reserve: every request is filled when asked)\n"
    "  --socket PATH   the socket (default: the configuration's, else $PAGECLEAR_SOCKET,\n"
    "                  else " SERVE_SOCKET_DEFAULT ")\n"
    "  --check-config  read the configuration, say what it means, exit (0: valid)\n"
    "  -v, --verbose   log every connection, not only the requests\n"
    "  --bench         time to usable memory, fresh against from the service\n";

void cli_serve_usage(FILE *f)
{
    fputs(usage_text, f);
}

/* Read FILE (at most SERVE_CONFIG_MAX bytes) into buf. 0 or -1 after a
 * message. */
static int read_file(const char *path, char *buf, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("serve: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = 0;
    ssize_t r;
    while (n <= SERVE_CONFIG_MAX && (r = read(fd, buf + n, SERVE_CONFIG_MAX + 1 - n)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cli_error("serve: cannot read %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        n += (size_t)r;
    }
    close(fd);
    if (n > SERVE_CONFIG_MAX) {
        cli_error("serve: %s: larger than %d KiB", path, SERVE_CONFIG_MAX >> 10);
        return -1;
    }
    *len = n;
    return 0;
}

int cli_serve_load(const char *path, struct serve_config *c)
{
    serve_config_defaults(c);
    if (path == NULL && access(SERVE_CONFIG_DEFAULT, F_OK) == 0)
        path = SERVE_CONFIG_DEFAULT;
    if (path == NULL)
        return 0;
    char *text = malloc(SERVE_CONFIG_MAX + 1), why[256];
    size_t len = 0;
    if (text == NULL || read_file(path, text, &len) != 0) {
        free(text);
        return -1;
    }
    int rc = serve_config_parse(text, len, c, why, sizeof(why));
    free(text);
    if (rc == 0)
        rc = serve_config_resolve(c, why, sizeof(why));
    if (rc != 0) {
        cli_error("serve: %s: %s", path, why);
        return -1;
    }
    return 0;
}

static void print_blocks(const struct serve_config *c, int p)
{
    char s[32];
    uint64_t total = 0;
    printf("reserve.%s      ", p == SERVE_PAGE_1G ? "1G" : "2M");
    if (c->nblocks[p] == 0)
        printf("none\n");
    for (unsigned i = 0; i < c->nblocks[p]; i++) {
        printf("%s%s", cli_fmt_size(c->reserve[p][i], s, sizeof(s)),
               i + 1 < c->nblocks[p] ? " " : "");
        total += c->reserve[p][i];
    }
    if (c->nblocks[p] == 0)
        return;
    printf(" (%s in all", cli_fmt_size(total, s, sizeof(s)));
    long have = -1;
    char path[96];
    snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%s/nr_hugepages",
             p == SERVE_PAGE_1G ? "1048576kB" : "2048kB");
    FILE *f = fopen(path, "re");
    if (f != NULL && fscanf(f, "%ld", &have) != 1)
        have = -1;
    if (f != NULL)
        fclose(f);
    uint64_t need = total / serve_page_bytes[p];
    if (have >= 0 && (uint64_t)have < need)
        printf("; needs %llu pages, the kernel has %ld: filled as far as they go",
               (unsigned long long)need, have);
    printf(")\n");
}

static const char *quota_text(uint64_t q, char *buf, size_t n)
{
    return q == SERVE_UNLIMITED ? "unlimited" : cli_fmt_size(q, buf, n);
}

static void print_config(const char *path, const struct serve_config *c)
{
    char s[32];
    printf("configuration   %s\n", path != NULL ? path : "(none: built-in defaults)");
    printf("socket          %s (mode 0660, group %s)\n",
           c->socket[0] ? c->socket : "(from --socket, $PAGECLEAR_SOCKET or the default)",
           c->group[0] ? c->group : "the daemon's");
    for (int p = 0; p < SERVE_NPAGES; p++)
        print_blocks(c, p);
    printf("quota           %s per uid\n", quota_text(c->quota, s, sizeof(s)));
    for (unsigned i = 0; i < c->nusers; i++)
        printf("quota.%-9s %s (uid %u)\n", c->users[i].user,
               quota_text(c->users[i].bytes, s, sizeof(s)), (unsigned)c->users[i].uid);
    printf("on_miss         %s\n", c->on_miss == SERVE_MISS_FILL ? "fill" : "error");
    printf("connections     %u per uid\n", c->connections);
    printf("request_timeout %u s\n", c->timeout);
    printf("fill_priority   %s\n", c->fill == SERVE_FILL_IDLE ? "idle" : "normal");
}

/* More descriptors than the default 1024: a pidfd per grant held. */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int run(const struct serve_config *c, const char *socket)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    /* Blocked before any thread starts, so all of them inherit it and
     * only the signalfd sees these signals. */
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
        return CLI_EXIT_RUNTIME;
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    raise_nofile();
    struct serve_daemon *d = malloc(sizeof(*d));
    if (sfd < 0 || d == NULL) {
        cli_error("serve: %s", sfd < 0 ? strerror(errno) : "out of memory");
        free(d);
        return CLI_EXIT_RUNTIME;
    }
    int rc = serve_daemon_open(d, c, socket);
    if (rc == 0)
        rc = serve_daemon_run(d, sfd);
    serve_daemon_close(d);
    free(d);
    close(sfd);
    serve_log(SERVE_INFO, rc == 0 ? "stopped; every reserved page given back"
                                  : "stopped after an error");
    return rc == 0 ? 0 : CLI_EXIT_RUNTIME;
}

int cli_serve(int argc, char **argv)
{
    static const struct cli_opt spec[] = {{'c', "--config"}, {'s', "--socket"}, {0, NULL}};
    const char *config = NULL, *socket = NULL, *val;
    int check = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0)
            return cli_serve_bench(argc, argv);
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return fputs(usage_text, stdout) < 0;
        if (strcmp(argv[i], "--check-config") == 0) {
            check = 1;
            continue;
        }
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            serve_log_level = SERVE_DEBUG;
            continue;
        }
        int k = cli_opt_value(spec, "serve", argc, argv, &i, &val);
        if (k < 0)
            return cli_serve_usage(stderr), CLI_EXIT_USAGE;
        if (k == 'c' && *val == '\0') {
            cli_error("serve: --config needs a file name");
            return CLI_EXIT_USAGE;
        }
        *(k == 'c' ? &config : &socket) = val;
    }
    struct serve_config *c = malloc(sizeof(*c));
    if (c == NULL || cli_serve_load(config, c) != 0) {
        free(c);
        return CLI_EXIT_USAGE;
    }
    int rc;
    if (check) {
        print_config(config != NULL || access(SERVE_CONFIG_DEFAULT, F_OK) != 0
                         ? config : SERVE_CONFIG_DEFAULT, c);
        rc = 0;
    } else {
        rc = run(c, socket);
    }
    free(c);
    return rc;
}
