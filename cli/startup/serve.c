/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve.c - `pageclear serve`: the daemon that keeps a reserve of zeroed
 * huge pages and hands them out over a Unix socket (docs/serve.md) is a
 * program of its own, pageclear-serve (serve/serve_main.c), which this
 * runs in its place with the same arguments; `--bench` measures it
 * (serve_bench.c), in this process.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "serve.h"
#include "serve_config.h"

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

static int executable(const char *path)
{
    return access(path, X_OK) == 0;
}

/* pageclear-serve beside this command (the build tree, an install, a
 * moved prefix), else where it was configured to be installed. NULL if
 * neither is there. */
static const char *daemon_path(void)
{
    static char path[4096];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash = n > 0 ? memrchr(exe, '/', (size_t)n) : NULL;
    if (slash != NULL) {
        *slash = '\0';
        int w = snprintf(path, sizeof(path), "%s/pageclear-serve", exe);
        if (w > 0 && (size_t)w < sizeof(path) && executable(path))
            return path;
    }
    return executable(PC_SERVE_INSTALLED) ? PC_SERVE_INSTALLED : NULL;
}

int cli_serve(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0)
            return cli_serve_bench(argc, argv);
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return fputs(usage_text, stdout) < 0;
    }
    const char *bin = daemon_path();
    if (bin == NULL) {
        cli_error("serve: no pageclear-serve beside this command nor at %s: the daemon is "
                  "a program of its own (docs/serve.md)", PC_SERVE_INSTALLED);
        return CLI_EXIT_RUNTIME;
    }
    char *args[argc + 2];
    args[0] = "pageclear-serve";
    for (int i = 0; i < argc; i++)
        args[i + 1] = argv[i];
    args[argc + 1] = NULL;
    fflush(NULL);
    execv(bin, args);
    cli_error("serve: cannot run %s: %s", bin, strerror(errno));
    return CLI_EXIT_RUNTIME;
}
