/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * event_loop.c - clearing a multi-GiB buffer from an event loop, in units,
 * with progress reports and cancellation.
 *
 * A single-threaded server must not stop answering for the second or so
 * that zeroing gigabytes takes. pc_clear_batched calls back before each
 * unit (pc_default_unit(): 32 MiB on CPUs with a fast primitive, about
 * 1.5 ms); the callback is the loop's turn: it polls the loop's descriptor
 * without blocking, serves one pending message, reports progress, and
 * stops the clear when the message says "cancel". A cancelled clear says
 * how much it zeroed, always a prefix, so it can resume from there.
 *
 * The messages are queued on a pipe before the clear starts, as requests
 * pile up while a loop is busy: N pings, then a cancel. One is served per
 * unit, so the cancel lands before unit N exactly and the program can check
 * that the clear stopped there, zeroed that prefix and not a byte more.
 *
 * usage: event_loop [SIZE]   (default 2G; capped at a quarter of the
 *                             memory available)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pageclear.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_UNITS 1024 /* more units than this: larger units, so the queued
                          messages stay far below a pipe's 64 KiB */
#define MSG_LEN 8

struct loop {
    int fd;
    size_t pings, last_pct;
    double last_ns, max_gap_ms;
};

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int all_equal(const unsigned char *p, size_t n, unsigned char v)
{
    return n == 0 || (p[0] == v && memcmp(p, p + 1, n - 1) == 0);
}

/* Runs before each unit: the event loop's turn. */
static int loop_turn(void *ctx, size_t done, size_t total)
{
    struct loop *l = ctx;
    double t = now_ns();
    if (l->last_ns > 0 && (t - l->last_ns) / 1e6 > l->max_gap_ms)
        l->max_gap_ms = (t - l->last_ns) / 1e6;
    l->last_ns = t;
    size_t pct = total ? done * 100 / total : 100;
    if (pct >= l->last_pct + 10) {
        printf("event_loop:   %3zu%% cleared\n", pct);
        l->last_pct = pct - pct % 10;
    }
    struct pollfd p = {.fd = l->fd, .events = POLLIN};
    char msg[MSG_LEN];
    if (poll(&p, 1, 0) == 1 && read(l->fd, msg, MSG_LEN) == MSG_LEN) {
        if (strcmp(msg, "cancel") == 0) {
            printf("event_loop:   cancel received at %zu of %zu bytes\n", done, total);
            return 1;
        }
        l->pings++; /* a real server would answer it here */
    }
    return 0;
}

static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long kb = 0;
    char line[128];
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (size_t)kb << 10;
}

int main(int argc, char **argv)
{
    size_t size = (size_t)2 << 30, avail = mem_available();
    if (argc > 2 || (argc == 2 && (pc_parse_size(argv[1], &size) != 0 || size == 0))) {
        fprintf(stderr, "usage: event_loop [SIZE]   e.g. 2G, 512M\n");
        return 2;
    }
    if (avail && size > avail / 4) {
        size = (avail / 4) & ~(PC_PAGE_SIZE - 1);
        printf("event_loop: %zu MiB available: clearing %zu MiB\n", avail >> 20, size >> 20);
    }
    unsigned char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int fds[2];
    if (buf == MAP_FAILED || pipe(fds) != 0)
        return perror("event_loop"), 1;
    memset(buf, 0xA5, size); /* the previous contents */

    struct pc_batch b;
    pc_batch_init(&b); /* PC_PREEMPT_NONE: the callback runs before each unit */
    b.unit = pc_default_unit();
    if (size / b.unit > MAX_UNITS)
        b.unit = (size / MAX_UNITS + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1);
    size_t units = (size + b.unit - 1) / b.unit, n_pings = units * 4 / 10;
    static const char msgs[2][MSG_LEN] = {"ping", "cancel"};
    for (size_t i = 0; i <= n_pings; i++) /* the pings, then the cancel */
        if (write(fds[1], msgs[i == n_pings], MSG_LEN) != MSG_LEN)
            return perror("event_loop: write"), 1;

    struct loop l = {.fd = fds[0]};
    b.resched = loop_turn;
    b.ctx = &l;
    size_t cleared = 0;
    printf("event_loop: clearing %zu MiB in %zu units of %zu KiB with %s; %zu pings, "
           "then a cancel, queued\n", size >> 20, units, b.unit >> 10, pc_selected(size),
           n_pings);
    int rc = pc_clear_batched(buf, size, &b, &cleared);
    if (rc != -ECANCELED || cleared != n_pings * b.unit || l.pings != n_pings) {
        fprintf(stderr, "event_loop: expected -ECANCELED after %zu bytes; got %d after %zu\n",
                n_pings * b.unit, rc, cleared);
        return 1;
    }
    if (!all_equal(buf, cleared, 0) || !all_equal(buf + cleared, size - cleared, 0xA5)) {
        fprintf(stderr, "event_loop: the cancelled clear did not zero exactly its prefix\n");
        return 1;
    }
    printf("event_loop: cancelled: %zu MiB zeroed (a prefix), the rest untouched; "
           "%zu pings served\n", cleared >> 20, l.pings);

    size_t rest = 0;
    l.last_ns = 0; /* the checks above were not the loop's turn */
    l.last_pct = 0;
    rc = pc_clear_batched(buf + cleared, size - cleared, &b, &rest);
    if (rc != 0 || rest != size - cleared || !all_equal(buf, size, 0)) {
        fprintf(stderr, "event_loop: resuming failed (%d) or left non-zero bytes\n", rc);
        return 1;
    }
    printf("event_loop: resumed and finished: all %zu MiB zero; the loop waited at most "
           "%.2f ms between turns\n", size >> 20, l.max_gap_ms);
    munmap(buf, size);
    return 0;
}
