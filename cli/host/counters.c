/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * counters.c - L1 data cache loads and misses, and CPU cycles, through
 * perf_event_open, for the calling thread in user and kernel mode. Many
 * guests do not expose hardware counters: opening then fails and the
 * command says "not supported here" instead of failing.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"

static int open_event(uint32_t type, uint64_t config, int disabled)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = type;
    a.size = sizeof(a);
    a.config = config;
    a.disabled = disabled != 0;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0) {
        /* Counting the kernel too needs privileges some systems withhold. */
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    }
    return fd < 0 ? -errno : fd;
}

static int open_one(uint64_t result)
{
    return open_event(PERF_TYPE_HW_CACHE,
                      PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                          (result << 16),
                      1);
}

static int cycles_fd = -1;

int cli_cycles_open(void)
{
    if (cycles_fd < 0)
        cycles_fd = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
    return cycles_fd < 0 ? cycles_fd : 0;
}

uint64_t cli_cycles_now(void)
{
    uint64_t v = 0;
    if (cycles_fd < 0 || read(cycles_fd, &v, sizeof(v)) != sizeof(v))
        return 0;
    return v;
}

int cli_counters_open(struct cli_counter_set *cs)
{
    cs->loads = open_one(PERF_COUNT_HW_CACHE_RESULT_ACCESS);
    if (cs->loads < 0)
        return cs->loads;
    cs->misses = open_one(PERF_COUNT_HW_CACHE_RESULT_MISS);
    if (cs->misses < 0) {
        int e = cs->misses;
        close(cs->loads);
        return e;
    }
    return 0;
}

void cli_counters_start(struct cli_counter_set *cs)
{
    ioctl(cs->loads, PERF_EVENT_IOC_RESET, 0);
    ioctl(cs->misses, PERF_EVENT_IOC_RESET, 0);
    ioctl(cs->loads, PERF_EVENT_IOC_ENABLE, 0);
    ioctl(cs->misses, PERF_EVENT_IOC_ENABLE, 0);
}

void cli_counters_stop(struct cli_counter_set *cs, uint64_t *loads, uint64_t *misses)
{
    ioctl(cs->loads, PERF_EVENT_IOC_DISABLE, 0);
    ioctl(cs->misses, PERF_EVENT_IOC_DISABLE, 0);
    if (read(cs->loads, loads, sizeof(*loads)) != sizeof(*loads))
        *loads = 0;
    if (read(cs->misses, misses, sizeof(*misses)) != sizeof(*misses))
        *misses = 0;
}

void cli_counters_close(struct cli_counter_set *cs)
{
    close(cs->loads);
    close(cs->misses);
}

const char *cli_counters_status(char *buf, size_t n)
{
    struct cli_counter_set cs;
    int rc = cli_counters_open(&cs);
    if (rc == 0) {
        cli_counters_close(&cs);
        snprintf(buf, n, "available (L1-dcache loads and misses)");
    } else {
        snprintf(buf, n, "not supported here (perf_event_open: %s)", strerror(-rc));
    }
    return buf;
}
