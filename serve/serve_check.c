/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_check.c - `pageclear-serve --check-config`: the configuration as
 * the daemon would run it on this host, one `key value` line each, with
 * what the host lacks for it (huge pages) and whose cgroups pay for what.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "serve_cgroup.h"
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

/* The cgroup hierarchies, and the daemon's own v2 cgroup. */
static void print_cgroups(const struct serve_cg_mounts *m)
{
    char text[SERVE_CG_FILE], own[SERVE_CG_PATH] = "-";
    FILE *f = fopen("/proc/self/cgroup", "re");
    size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0, pos = 0;
    struct serve_cg_line l;
    if (f != NULL)
        fclose(f);
    while (serve_cg_line_next(text, n, &pos, &l) == 1)
        if (l.id == 0 && l.ctrl_len == 0)
            snprintf(own, sizeof(own), "%.*s", (int)l.path_len, l.path);
    if (m->n == 0)
        printf("cgroups          none mounted: nothing is charged to anyone's cgroups\n");
    for (unsigned i = 0; i < m->n; i++) {
        const char *opts = m->m[i].opts, *ctrl = strchr(opts, ',');
        printf("cgroups          %s %s", m->m[i].v2 ? "v2" : "v1", m->m[i].dir);
        if (m->m[i].v2)
            printf(" (the daemon's: %s%s)\n", own,
                   m->hugetlb_in_memcg ? "; hugetlb charged to memory too" : "");
        else
            printf(" (%s)\n", ctrl != NULL ? ctrl + 1 : opts);
    }
}

/* Whose cgroups pay for the fills and the reserve. */
static void print_charging(const struct serve_config *c)
{
    int reserve = c->nblocks[0] + c->nblocks[1] > 0;
    if (c->charge == SERVE_CHARGE_TENANT)
        printf("charge           tenant: a fill at request time runs in a process placed in "
               "the requester's cgroups and is charged there, its pages and CPU time, for as "
               "long as the memory exists: their limits hold\n");
    else
        printf("charge           daemon: fills are charged to the daemon's cgroups: a "
               "tenant's own limits do not hold for memory from the service\n");
    if (!reserve)
        printf("reserve_for      %s (no reserve)\n",
               c->reserve_for == SERVE_FOR_ALL ? "all" : "unlimited");
    else if (c->reserve_for == SERVE_FOR_UNLIMITED)
        printf("reserve_for      unlimited: the reserve is filled ahead by the daemon and stays "
               "charged to the daemon's cgroups once handed out; only requesters whose cgroups "
               "set no limit on huge pages of that size take from it\n");
    else
        printf("reserve_for      all: the reserve is filled ahead by the daemon and stays "
               "charged to the daemon's cgroups once handed out, to any requester: a tenant's "
               "own limits do not hold for memory from the reserve\n");
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
    print_charging(c);
    struct serve_cg_mounts m;
    if (serve_cg_mounts_read(&m) == 0)
        print_cgroups(&m);
    return 0;
}
