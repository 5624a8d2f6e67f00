/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_main.c - pageclear-serve, the daemon's own program (docs/serve.md):
 * keep a reserve of zeroed huge pages and hand them out over a Unix
 * socket, in the foreground, logging to stderr, until SIGTERM or SIGINT;
 * `--check-config` reads the configuration and says what it means
 * (serve_check.c). It holds the daemon (serve/) and the library only:
 * `pageclear serve` runs this program (cli/startup/serve.c), and
 * tests/lint/check_serve_binary.cmake checks that none of the command is in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "serve_daemon.h"
#include "serve_log.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: pageclear-serve [--config FILE] [--socket PATH] [-v]\n"
    "       pageclear-serve --check-config [--config FILE]\n"
    "Keep a reserve of zeroed huge pages and hand them to clients (pc_serve_get,\n"
    "'pageclear get') over a Unix socket, in the foreground, until SIGTERM.\n"
    "  --config FILE   the configuration (default " SERVE_CONFIG_DEFAULT " if it exists;\n"
    "                  else no reserve: every request is filled when asked)\n"
    "  --socket PATH   the socket (default: the configuration's, else $PAGECLEAR_SOCKET,\n"
    "                  else " SERVE_SOCKET_DEFAULT ")\n"
    "  --check-config  read the configuration, say what it means, exit (0: valid)\n"
    "  -v, --verbose   log every connection, not only the requests\n";

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pageclear-serve: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Read path (at most SERVE_CONFIG_MAX bytes) into buf. 0 or -1 after a
 * message. */
static int read_file(const char *path, char *buf, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error("cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = 0;
    ssize_t r;
    while (n <= SERVE_CONFIG_MAX && (r = read(fd, buf + n, SERVE_CONFIG_MAX + 1 - n)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            error("cannot read %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        n += (size_t)r;
    }
    close(fd);
    if (n > SERVE_CONFIG_MAX) {
        error("%s: larger than %d KiB", path, SERVE_CONFIG_MAX >> 10);
        return -1;
    }
    *len = n;
    return 0;
}

/* The configuration from path (NULL: the default file if it exists, else
 * the built-in defaults), names resolved. 0, or -1 after a message. */
static int load(const char *path, struct serve_config *c)
{
    serve_config_defaults(c);
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
        error("%s: %s", path, why);
        return -1;
    }
    return 0;
}

/* More descriptors than the default 1024: a memfd per block of the
 * reserve and a socket per connection. */
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
        return EXIT_RUNTIME;
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    raise_nofile();
    struct serve_daemon *d = malloc(sizeof(*d));
    if (sfd < 0 || d == NULL) {
        error("%s", sfd < 0 ? strerror(errno) : "out of memory");
        free(d);
        return EXIT_RUNTIME;
    }
    int rc = serve_daemon_open(d, c, socket);
    if (rc == 0)
        rc = serve_daemon_run(d, sfd);
    serve_daemon_close(d);
    free(d);
    close(sfd);
    serve_log(SERVE_INFO, rc == 0 ? "stopped; every reserved page given back"
                                  : "stopped after an error");
    return rc == 0 ? 0 : EXIT_RUNTIME;
}

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: the value (advancing *i),
 * or NULL if argv[*i] is not opt. *missing is set when opt has no value. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt, int *missing)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int main(int argc, char **argv)
{
    const char *config = NULL, *socket = NULL, *v;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        int missing = 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return fputs(usage_text, stdout) < 0;
        if (strcmp(argv[i], "--check-config") == 0)
            check = 1;
        else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
            serve_log_level = SERVE_DEBUG;
        else if ((v = opt_value(argc, argv, &i, "--config", &missing)) != NULL && *v != '\0')
            config = v;
        else if ((v = opt_value(argc, argv, &i, "--socket", &missing)) != NULL && *v != '\0')
            socket = v;
        else {
            error(missing || v != NULL ? "%s needs a value" : "unknown option '%s'", argv[i]);
            fputs(usage_text, stderr);
            return EXIT_USAGE;
        }
    }
    if (config == NULL && access(SERVE_CONFIG_DEFAULT, F_OK) == 0)
        config = SERVE_CONFIG_DEFAULT;
    struct serve_config *c = malloc(sizeof(*c));
    if (c == NULL || load(config, c) != 0) {
        free(c);
        return EXIT_USAGE;
    }
    int rc = check ? serve_check_config(config, c) : run(c, socket);
    free(c);
    return rc;
}
