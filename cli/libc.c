/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * libc.c - what the C library's memset is: its version and, on glibc, the
 * tunables that decide when it switches strategy (rep stosb, streaming
 * stores), as the dynamic loader this process runs under reports them.
 * The loader is found in /proc/self/maps, not at a fixed path, so a run
 * under another glibc (started through that glibc's ld.so) names that
 * glibc's thresholds, not the system's.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "libc.h"

const char *cli_libc_version(void)
{
#if defined(__GLIBC__)
    static char v[32];
    snprintf(v, sizeof(v), "glibc %s", gnu_get_libc_version());
    return v;
#else
    return "a C library other than glibc";
#endif
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
