/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* serve_log.c - the daemon's log lines on stderr (or the journal), the
 * refusals among them rate-limited by a token bucket. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static void vlog(enum serve_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void vlog(enum serve_level level, const char *fmt, va_list ap)
{
    /* Longer lines are cut: every message here is one short line. */
    char line[512];
    if (level > serve_log_level)
        return;
    /* systemd sets JOURNAL_STREAM when stderr is the journal; it reads a
     * line's priority from a "<N>" prefix and names the unit itself. */
    int n = getenv("JOURNAL_STREAM") != NULL
                ? snprintf(line, sizeof(line), "<%d>", (int)level)
                : snprintf(line, sizeof(line), "pageclear-serve: ");
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w; /* nowhere to report a failed log write */
}

void serve_log(enum serve_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

static struct {
    pthread_mutex_t lock;
    unsigned rate;           /* tokens a second, and the bucket's size */
    double tokens;
    struct timespec last;    /* CLOCK_MONOTONIC of the last refill */
    unsigned long dropped;   /* lines not written since the last one */
} bucket = {PTHREAD_MUTEX_INITIALIZER, 10, 10, {0, 0}, 0};

void serve_log_refusals(unsigned per_second)
{
    pthread_mutex_lock(&bucket.lock);
    bucket.rate = per_second > 0 ? per_second : 1;
    bucket.tokens = bucket.rate;
    pthread_mutex_unlock(&bucket.lock);
}

void serve_log_refusal(const char *fmt, ...)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&bucket.lock);
    double dt = (double)(now.tv_sec - bucket.last.tv_sec) +
                (double)(now.tv_nsec - bucket.last.tv_nsec) / 1e9;
    bucket.last = now;
    bucket.tokens += dt * bucket.rate;
    if (bucket.tokens > bucket.rate)
        bucket.tokens = bucket.rate;
    int pass = bucket.tokens >= 1;
    unsigned long dropped = 0;
    if (pass) {
        bucket.tokens -= 1;
        dropped = bucket.dropped;
        bucket.dropped = 0;
    } else {
        bucket.dropped++;
    }
    unsigned rate = bucket.rate;
    pthread_mutex_unlock(&bucket.lock);
    if (!pass)
        return;
    if (dropped > 0)
        serve_log(SERVE_INFO, "%lu refusals not logged (refusal_log_rate = %u a second)",
                  dropped, rate);
    va_list ap;
    va_start(ap, fmt);
    vlog(SERVE_INFO, fmt, ap);
    va_end(ap);
}
