/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_check.c - `pageclear-serve --check-config`: the configuration as
 * the daemon would run it on this host, one `key value` line each, with
 * what the host lacks for it (huge pages) and whose cgroups pay for what.
 */
#include <stdio.h>
#include <unistd.h>

#include "serve_config.h"
#include "serve_log.h"

static long read_long(const char *path)
{
    FILE *f = fopen(path, "re");
    long v = -1;
    if (f != NULL && fscanf(f, "%ld", &v) != 1)
        v = -1;
    if (f != NULL)
        fclose(f);
    return v;
}

static void print_blocks(const struct serve_config *c, int p)
{
    char s[32];
    uint64_t total = 0;
    printf("reserve.%s       ", p == SERVE_PAGE_1G ? "1G" : "2M");
    if (c->nblocks[p] == 0)
        printf("none\n");
    for (unsigned i = 0; i < c->nblocks[p]; i++) {
        printf("%s%s", serve_log_size(c->reserve[p][i], s, sizeof(s)),
               i + 1 < c->nblocks[p] ? " " : "");
        total += c->reserve[p][i];
    }
    if (c->nblocks[p] == 0)
        return;
    printf(" (%s in all", serve_log_size(total, s, sizeof(s)));
    char path[96];
    snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%s/nr_hugepages",
             p == SERVE_PAGE_1G ? "1048576kB" : "2048kB");
    long have = read_long(path);
    uint64_t need = total / serve_page_bytes[p];
    if (have >= 0 && (uint64_t)have < need)
        printf("; needs %llu pages, the kernel has %ld: filled as far as they go",
               (unsigned long long)need, have);
    printf(")\n");
}

static const char *quota_text(uint64_t q, char *buf, size_t n)
{
    return q == SERVE_UNLIMITED ? "unlimited" : serve_log_size(q, buf, n);
}

int serve_check_config(const char *path, const struct serve_config *c)
{
    char s[32], exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    printf("program          %s\n", exe);
    printf("configuration    %s\n", path != NULL ? path : "(none: built-in defaults)");
    printf("socket           %s (mode 0660, group %s)\n",
           c->socket[0] ? c->socket : "(from --socket, $PAGECLEAR_SOCKET or the default)",
           c->group[0] ? c->group : "the daemon's");
    for (int p = 0; p < SERVE_NPAGES; p++)
        print_blocks(c, p);
    printf("quota            %s per uid\n", quota_text(c->quota, s, sizeof(s)));
    for (unsigned i = 0; i < c->nusers; i++)
        printf("quota.%-10s %s (uid %u)\n", c->users[i].user,
               quota_text(c->users[i].bytes, s, sizeof(s)), (unsigned)c->users[i].uid);
    printf("on_miss          %s\n", c->on_miss == SERVE_MISS_FILL ? "fill" : "error");
    printf("connections      %u per uid\n", c->connections);
    printf("request_timeout  %u s\n", c->timeout);
    printf("fill_priority    %s\n", c->fill == SERVE_FILL_IDLE ? "idle" : "normal");
    printf("tenants          %u uids at once\n", c->tenants);
    printf("grants           %u at once\n", c->grants);
    printf("refusal_log_rate %u lines per second\n", c->log_rate);
    return 0;
}
