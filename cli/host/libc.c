/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * libc.c - what the C library's memset is: its version and, on glibc, the
 * tunables that decide when it switches strategy (rep stosb, streaming
 * stores), as the dynamic loader this process runs under reports them.
 * The loader is found in /proc/self/maps, not at a fixed path, so a run
 * under another glibc (started through that glibc's ld.so) names that
 * glibc's thresholds, not the system's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "libc.h"

const char *cli_glibc_version(void)
{
#if defined(__GLIBC__)
    return gnu_get_libc_version();
#else
    return "";
#endif
}

cli_memset_fn cli_libc_memset(void)
{
    static cli_memset_fn f;
    static int done;
    if (!done) { /* the command is single-threaded when it measures */
        void *h = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
        f = h != NULL ? (cli_memset_fn)dlsym(h, "memset") : NULL;
        if (h != NULL)
            dlclose(h);
        done = 1;
    }
    return f;
}

int cli_memset_interposed(void)
{
    cli_memset_fn own = cli_libc_memset();
    return own != NULL && own != (cli_memset_fn)dlsym(RTLD_DEFAULT, "memset");
}

const char *cli_libc_version(void)
{
    static char v[32];
    if (*cli_glibc_version() == '\0')
        return "a C library other than glibc";
    snprintf(v, sizeof(v), "glibc %s", cli_glibc_version());
    return v;
}

/* Path of the dynamic loader mapped into this process, or "" if none. */
static void loader_path(char *out, size_t n)
{
    FILE *m = fopen("/proc/self/maps", "r");
    char line[4096];
    *out = '\0';
    if (m == NULL)
        return;
    while (fgets(line, sizeof(line), m) != NULL) {
        char *path = strchr(line, '/');
        if (path == NULL || strstr(path, "/ld-linux") == NULL)
            continue;
        path[strcspn(path, "\n")] = '\0';
        snprintf(out, n, "%s", path);
        break;
    }
    fclose(m);
}

size_t cli_libc_tunables(char *buf, size_t n)
{
    char ld[1024], cmd[1200], line[256];
    size_t lines = 0, used = 0;
    if (n > 0)
        *buf = '\0';
    loader_path(ld, sizeof(ld));
    /* The path goes into a shell command in single quotes: refuse any
     * path that could close them. */
    if (*ld == '\0' || strchr(ld, '\'') != NULL || access(ld, X_OK) != 0)
        return 0;
    snprintf(cmd, sizeof(cmd), "'%s' --list-tunables 2>/dev/null", ld);
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return 0;
    while (fgets(line, sizeof(line), p) != NULL) {
        if (!strstr(line, "memset") && !strstr(line, "non_temporal") &&
            !strstr(line, "rep_stosb") && !strstr(line, "x86_shared_cache"))
            continue;
        int w = snprintf(buf + used, n - used, "%s", line);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
        lines++;
    }
    pclose(p);
    return lines;
}

int cli_exec_self(char *const argv[])
{
    char ld[1024], self[PATH_MAX], ldreal[PATH_MAX];
    loader_path(ld, sizeof(ld));
    ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (k > 0 && *ld != '\0' && realpath(ld, ldreal) != NULL) {
        self[k] = '\0';
        if (strcmp(self, ldreal) == 0) {
            /* Started as `ld.so PROGRAM ...` (another glibc's loader, as a
             * wrapper running a program under that glibc does): that
             * loader again, with its own directory first in the search
             * path (else it would load the system's C library), then
             * LD_LIBRARY_PATH, as it was started; argv[0] is the program
             * as it was named. */
            char libs[4096], *slash = strrchr(ld, '/');
            const char *llp = getenv("LD_LIBRARY_PATH");
            snprintf(libs, sizeof(libs), "%.*s%s%s", (int)(slash - ld), ld,
                     llp && *llp ? ":" : "", llp && *llp ? llp : "");
            size_t n = 0;
            while (argv[n] != NULL)
                n++;
            char **a = calloc(n + 4, sizeof(*a));
            if (a == NULL)
                return -ENOMEM;
            a[0] = ld;
            a[1] = "--library-path";
            a[2] = libs;
            for (size_t i = 0; i < n; i++)
                a[3 + i] = argv[i];
            execv(ld, a);
            int e = errno;
            free(a);
            return -e;
        }
    }
    execv("/proc/self/exe", argv);
    return -errno;
}
