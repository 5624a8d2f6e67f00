/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* serve_log.c - the daemon's log lines on stderr (or the journal). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "serve_log.h"

enum serve_level serve_log_level = SERVE_INFO;

const char *serve_log_size(unsigned long long v, char *buf, size_t n)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    double d = (double)v;
    while (d >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
        d /= 1024;
        u++;
    }
    if (d == (double)(unsigned long long)d)
        snprintf(buf, n, "%llu%s", (unsigned long long)d, units[u]);
    else
        snprintf(buf, n, "%.2f%s", d, units[u]);
    return buf;
}

void serve_log(enum serve_level level, const char *fmt, ...)
{
    /* Longer lines are cut: every message here is one short line. */
    char line[512];
    if (level > serve_log_level)
        return;
    /* systemd sets JOURNAL_STREAM when stderr is the journal; it reads a
     * line's priority from a "<N>" prefix and names the unit itself. */
    int n = getenv("JOURNAL_STREAM") != NULL
                ? snprintf(line, sizeof(line), "<%d>", (int)level)
                : snprintf(line, sizeof(line), "pageclear serve: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w; /* nowhere to report a failed log write */
}
