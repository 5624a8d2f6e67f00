/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * get.c - `pageclear get SIZE [--page 2MB|1GB] [--reserve-only] -- CMD
 * ARGS...`: zeroed huge pages from `pageclear serve` (pc_serve_get), then
 * CMD in this process's place with the memory's descriptor inherited and
 * its number in PAGECLEAR_FD, so a VMM can map /proc/self/fd/N. CMD's
 * exit status is the command's; before CMD runs, errors exit 2 (usage) or
 * 1 (no memory), and a CMD that cannot be run 127 (not found) or 126, as
 * env(1) does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"

static const char usage_text[] =
    "usage: pageclear get SIZE [--page 2MB|1GB] [--reserve-only] -- CMD [ARGS...]\n"
    "Zeroed huge pages from 'pageclear serve', then CMD with their descriptor\n"
    "inherited and its number in PAGECLEAR_FD (map /proc/self/fd/$PAGECLEAR_FD).\n"
    "  SIZE            bytes (K/M/G/T suffixes), rounded up to the page size\n"
    "  --page          2MB (default) or 1GB hugetlb pages\n"
    "  --reserve-only  only memory the service holds ready; never a fill now\n"
    "The service's socket: $PAGECLEAR_SOCKET, else /run/pageclear/serve.sock, served\n"
    "by root (or by the uid $PAGECLEAR_SERVE_UID names).\n";

void cli_get_usage(FILE *f)
{
    fputs(usage_text, f);
}

static const char *socket_path(void)
{
    const char *env = getenv("PAGECLEAR_SOCKET");
    return env != NULL && env[0] != '\0' ? env : "/run/pageclear/serve.sock";
}

/* What a failed pc_serve_get means for the user, and what to do. */
static void explain(int rc, size_t size, size_t page)
{
    char s[32], p[32];
    cli_fmt_size(size, s, sizeof(s));
    cli_fmt_size(page, p, sizeof(p));
    switch (-rc) {
    case ENOENT:
    case ECONNREFUSED:
        cli_error("get: no pageclear serve on %s: start it ('systemctl start "
                  "pageclear-serve', or 'pageclear serve --config FILE'), or point "
                  "PAGECLEAR_SOCKET at its socket", socket_path());
        break;
    case EACCES:
        cli_error("get: %s: permission denied (the socket is for its group's members)",
                  socket_path());
        break;
    case EDQUOT:
        cli_error("get: %s is over this user's quota at the service, or over its cgroup's "
                  "limit on %s huge pages", s, p);
        break;
    case EPERM:
        cli_error("get: %s is served by a process that runs neither as root nor as the uid "
                  "PAGECLEAR_SERVE_UID names: its memory is not trusted (an impostor may "
                  "map it too)", socket_path());
        break;
    case ENOMEM:
        cli_error("get: the service has no %s of %s pages: neither its reserve nor the "
                  "kernel's free huge pages hold that much", s, p);
        break;
    case EAGAIN:
        cli_error("get: the service is busy (too many connections or tenants); try again");
        break;
    case EOPNOTSUPP:
        cli_error("get: the kernel has no %s huge pages", p);
        break;
    default:
        cli_error("get: %s of %s pages from the service: %s", s, p, strerror(-rc));
    }
}

struct get_args {
    size_t size, page;
    int flags;
    char **cmd;
};

static int parse(int argc, char **argv, struct get_args *a)
{
    static const struct cli_opt spec[] = {{'p', "--page"}, {0, NULL}};
    const char *val;
    int i = 0;
    *a = (struct get_args){.page = (size_t)2 << 20};
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        enum cli_page pg;
        if (strcmp(argv[i], "--reserve-only") == 0) {
            a->flags |= PC_SERVE_RESERVE_ONLY;
        } else if (argv[i][0] != '-' && a->size == 0) {
            if (cli_size("get", argv[i], 1, &a->size) != 0)
                return -1;
        } else if (argv[i][0] != '-') {
            break; /* the command, without "--" */
        } else {
            int k = cli_opt_value(spec, "get", argc, argv, &i, &val);
            if (k < 0)
                return cli_get_usage(stderr), -1;
            if (cli_parse_page(val, &pg) != 0 || (pg != CLI_PAGE_2M && pg != CLI_PAGE_1G)) {
                cli_error("get: --page: want 2MB or 1GB, not '%s'", val);
                return -1;
            }
            a->page = cli_page_bytes(pg);
        }
    }
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    if (a->size == 0 || i >= argc) {
        cli_error("get: %s", a->size == 0 ? "SIZE is required" : "a command to run is required");
        fputs(usage_text, stderr);
        return -1;
    }
    a->cmd = argv + i;
    return 0;
}

int cli_get(int argc, char **argv)
{
    struct get_args a;
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return fputs(usage_text, stdout) < 0;
    if (parse(argc, argv, &a) != 0)
        return CLI_EXIT_USAGE;
    int fd = -1;
    int rc = pc_serve_get(a.size, a.page, a.flags, &fd);
    if (rc != 0) {
        explain(rc, a.size, a.page);
        return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_RUNTIME;
    }
    /* Inherited by CMD: the one descriptor it is meant to have. */
    char num[16];
    snprintf(num, sizeof(num), "%d", fd);
    if (fcntl(fd, F_SETFD, 0) != 0 || setenv("PAGECLEAR_FD", num, 1) != 0) {
        cli_error("get: %s", strerror(errno));
        close(fd);
        return CLI_EXIT_RUNTIME;
    }
    fflush(NULL);
    execvp(a.cmd[0], a.cmd);
    int e = errno;
    cli_error("get: cannot run %s: %s", a.cmd[0], strerror(e));
    close(fd);
    return e == ENOENT ? 127 : 126;
}
