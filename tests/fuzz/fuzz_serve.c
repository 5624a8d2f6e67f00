/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fuzz_serve.c - fuzz target for what pageclear-serve reads from others:
 * the request parser (serve/serve_proto.c: bytes from any local user), the
 * configuration parser (serve/serve_config.c), and the cgroup texts
 * (serve/serve_cgparse.c: /proc/self/mountinfo, a requester's
 * /proc/PID/cgroup, whose paths other users choose). The first byte picks
 * which.
 *
 * Invariants of the request parser: the status is one of the protocol's;
 * the result is written only on SERVE_OK, and then holds what the bytes
 * say, in range (size in [1, 2^62], a supported page, known flags), and
 * encoding it gives back the very bytes. Of the configuration parser: 0,
 * -EINVAL or -ERANGE; on an error the configuration is untouched and the
 * reason is one NUL-terminated line "line N: ..." within whylen; on success
 * every value is within its documented bounds. Of the mountinfo parser: at
 * most SERVE_CG_MAX mounts, one v2, each an absolute NUL-terminated path
 * within its buffer. Of the cgroup line reader: it ends, moving forward;
 * every line's fields lie within the text, hold no newline, the path
 * starts with '/'; a controller list is held by a mount exactly when every
 * item of it is one of the mount's options. Inputs lie in buffers of
 * exactly their length, so the sanitizers catch a read past it. libFuzzer
 * with clang (-DPC_FUZZ=ON); otherwise a seeded driver.
 */
#include <errno.h>

#include "harness.h"
#include "serve_cgroup.h"
#include "serve_config.h"
#include "serve_proto.h"

static int accepted_requests, accepted_configs, accepted_mounts, accepted_lines;

static void check_request(const uint8_t *data, size_t len)
{
    struct serve_request r, poison;
    memset(&r, 0x5a, sizeof(r));
    poison = r;
    enum serve_status st = serve_request_parse(data, len, &r);
    CHECK((unsigned)st < SERVE_NSTATUS);
    CHECK(st == SERVE_OK || st == SERVE_E_PROTO || st == SERVE_E_VERSION ||
          st == SERVE_E_INVAL);
    if (st != SERVE_OK) {
        CHECK(memcmp(&r, &poison, sizeof(r)) == 0);
        return;
    }
    accepted_requests++;
    CHECK_EQ(len, SERVE_MSG_SIZE);
    CHECK(r.version == SERVE_PROTO_VERSION && r.op == SERVE_OP_GET);
    CHECK(r.size >= 1 && r.size <= ((uint64_t)1 << 62));
    CHECK(serve_page_index(r.page) >= 0);
    CHECK((r.flags & ~SERVE_FLAGS_KNOWN) == 0);
    uint8_t back[SERVE_MSG_SIZE];
    serve_request_encode(back, &r);
    CHECK(memcmp(back, data, SERVE_MSG_SIZE) == 0);
}

static void check_config(const char *text, size_t len, size_t whylen)
{
    struct serve_config *c = malloc(sizeof(*c)), *poison = malloc(sizeof(*c));
    char why[300];
    CHECK(c != NULL && poison != NULL);
    serve_config_defaults(c);
    *poison = *c;
    memset(why, 0x77, sizeof(why));
    int rc = serve_config_parse(text, len, c, whylen ? why : NULL, whylen);
    CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
    if (whylen > 0) {
        const char *nul = memchr(why, '\0', whylen);
        CHECK(nul != NULL);
        CHECK(memchr(why, '\n', (size_t)(nul - why)) == NULL);
        for (size_t i = whylen; i < sizeof(why); i++)
            CHECK(why[i] == 0x77);
        CHECK(rc == 0 ? why[0] == '\0'
                      : (whylen < 8 || strncmp(why, "line ", 5) == 0));
    }
    if (rc != 0) {
        CHECK(memcmp(c, poison, sizeof(*c)) == 0);
    } else {
        accepted_configs++;
        CHECK(c->connections >= 1 && c->connections <= SERVE_CONNS_MAX);
        CHECK(c->tenants >= 1 && c->tenants <= SERVE_TENANTS_MAX);
        CHECK(c->grants >= 1 && c->grants <= SERVE_GRANTS_MAX);
        CHECK(c->log_rate >= 1 && c->log_rate <= SERVE_LOG_RATE_MAX);
        CHECK(c->on_miss <= 1 && c->fill <= 1 && c->charge <= 1 && c->reserve_for <= 1);
        CHECK(c->timeout >= 1 && c->timeout <= SERVE_TIMEOUT_MAX);
        CHECK(c->nusers <= SERVE_MAX_USERS);
        CHECK(c->socket[0] == '\0' || c->socket[0] == '/');
        for (int p = 0; p < SERVE_NPAGES; p++) {
            uint64_t total = 0;
            CHECK(c->nblocks[p] <= SERVE_MAX_BLOCKS);
            for (unsigned i = 0; i < c->nblocks[p]; i++) {
                CHECK(c->reserve[p][i] > 0 && c->reserve[p][i] % serve_page_bytes[p] == 0);
                total += c->reserve[p][i];
            }
            CHECK(total <= SERVE_RESERVE_LIMIT);
        }
    }
    free(c);
    free(poison);
}

static void check_mounts(const char *text, size_t len)
{
    struct serve_cg_mounts m;
    memset(&m, 0x5a, sizeof(m));
    unsigned n = serve_cg_mounts_parse(text, len, &m);
    CHECK(n == m.n && n <= SERVE_CG_MAX);
    int v2 = 0;
    for (unsigned i = 0; i < n; i++) {
        CHECK(memchr(m.m[i].dir, '\0', sizeof(m.m[i].dir)) != NULL && m.m[i].dir[0] == '/');
        CHECK(memchr(m.m[i].opts, '\0', sizeof(m.m[i].opts)) != NULL);
        v2 += m.m[i].v2;
    }
    CHECK(v2 <= 1);
    accepted_mounts += n > 0;
}

/* The reference for serve_cg_mount_holds: every item of ctrl[0, len) is
 * non-empty and one of opts' comma-separated items. */
static int ref_holds(const char *opts, const char *ctrl, size_t len)
{
    size_t olen = strlen(opts);
    if (len == 0)
        return 0;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && ctrl[j] != ',')
            j++;
        int found = 0;
        for (size_t a = 0; a <= olen && !found && j > i;) {
            size_t b = a;
            while (b < olen && opts[b] != ',')
                b++;
            found = b - a == j - i && memcmp(opts + a, ctrl + i, j - i) == 0;
            a = b + 1;
        }
        if (!found)
            return 0;
        i = j + 1;
    }
    return 1;
}

static void check_lines(const char *text, size_t len)
{
    static const char opts[] = "rw,cpu,cpuacct,name=systemd,hugetlb";
    struct serve_cg_line l;
    size_t pos = 0, prev = 0;
    int rc;
    while ((rc = serve_cg_line_next(text, len, &pos, &l)) == 1) {
        CHECK(pos > prev && pos <= len);
        prev = pos;
        CHECK(l.ctrl >= text && l.ctrl + l.ctrl_len <= text + len);
        CHECK(l.path > l.ctrl && l.path + l.path_len <= text + len);
        CHECK(l.path_len >= 1 && l.path[0] == '/');
        CHECK(memchr(l.path, '\n', l.path_len) == NULL && memchr(l.ctrl, '\n', l.ctrl_len) == NULL);
        CHECK(memchr(l.ctrl, ':', l.ctrl_len) == NULL);
        int h = serve_cg_mount_holds(opts, l.ctrl, l.ctrl_len);
        CHECK(h == ref_holds(opts, l.ctrl, l.ctrl_len));
        accepted_lines++;
    }
    CHECK(rc == 0 || (rc == -EINVAL && pos == len));
    /* The whole text as a controller list, against half of it as options. */
    char o[128];
    size_t k = len / 2 < sizeof(o) - 1 ? len / 2 : sizeof(o) - 1;
    memcpy(o, text, k);
    o[k] = '\0';
    if (memchr(o, '\0', k) == NULL)
        CHECK(serve_cg_mount_holds(o, text + k, len - k) == ref_holds(o, text + k, len - k));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t whylens[] = {0, 1, 7, 64, 256};
    if (size < 1)
        return 0;
    size_t n = size - 1;
    /* A copy of exactly n bytes: reading past it is caught. */
    uint8_t *exact = malloc(n ? n : 1);
    CHECK(exact != NULL);
    memcpy(exact, data + 1, n);
    switch (data[0] & 3) {
    case 0:
        check_request(exact, n);
        break;
    case 1:
        check_config((const char *)exact, n, whylens[(data[0] >> 2) % 5]);
        break;
    case 2:
        check_mounts((const char *)exact, n);
        break;
    default:
        check_lines((const char *)exact, n);
    }
    free(exact);
    return 0;
}

#ifndef PC_LIBFUZZER
/* Plain-test driver. Requests: valid ones with fields, bytes or the
 * length changed. Configurations: built from the format's own tokens with
 * random bytes mixed in, so both refusals and successes are reached. */
static const char *const tokens[] = {
    "socket", "group", "reserve.2M", "reserve.1G", "reserve.4K", "quota", "quota.root",
    "quota.0", "on_miss", "connections", "request_timeout", "fill_priority", "idle", "normal", "bogus", " = ", "=", " ", "\t",
    "\n", "\r\n", "# c ", "#", ",", "none", "unlimited", "fill", "error", "0", "1", "64",
    "65", "2M", "3M", "1G", "4G", "64T", "65T", "/run/x.sock", "x.sock", "root", "-x",
    "99999999999999999999", "reserve.2M = 4M 8M\n", "quota = 1G\n", "connections = 8\n",
    "tenants", "grants", "refusal_log_rate", "charge", "reserve_for", "tenant", "daemon",
    "unlimited", "all", "65536", "65537", "8192", "1000", "1001",
};
/* Pieces of mountinfo and /proc/PID/cgroup lines. */
static const char *const cg_tokens[] = {
    "36 25 0:31 / /sys/fs/cgroup/memory rw,nosuid shared:14 - cgroup cgroup rw,memory\n",
    "37 25 0:32 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,memory_hugetlb_accounting\n",
    "38 25 0:33 /sub /mnt/x rw - cgroup cgroup rw,cpu,cpuacct\n",
    "39 25 0:34 / /mnt/a\\040b rw master:1 - cgroup cgroup rw,cpu,cpuacct\n",
    "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n", " - ", " ", "\\0", "\\777", "\\", "-",
    "cgroup", "cgroup2", "rw,", "0::/\n", "0::/a/b\n", "4:memory:/x\n", "3:cpu,cpuacct:/\n",
    "1:name=systemd:/init.scope\n", "::", ":", "/", "\n", "12345678901:x:/\n", "a:b:/c\n",
};

static void drive_request(uint64_t *seed, uint8_t *in)
{
    struct serve_request r = {.version = SERVE_PROTO_VERSION, .op = SERVE_OP_GET,
                              .size = rng_next(seed) % ((uint64_t)1 << 40) + 1,
                              .page = serve_page_bytes[rng_next(seed) % SERVE_NPAGES],
                              .flags = (uint32_t)(rng_next(seed) % 2)};
    in[0] = 0;
    serve_request_encode(in + 1, &r);
    size_t n = 1 + SERVE_MSG_SIZE;
    uint64_t how = rng_next(seed) % 6;
    if (how == 1) /* a random byte */
        in[1 + rng_next(seed) % SERVE_MSG_SIZE] = (uint8_t)rng_next(seed);
    else if (how == 2) /* a random length */
        n = 1 + rng_next(seed) % (2 * SERVE_MSG_SIZE);
    else if (how == 3) /* a random field value */
        memcpy(in + 1 + 8 + 8 * (rng_next(seed) % 2), &(uint64_t){rng_next(seed)}, 8);
    LLVMFuzzerTestOneInput(in, n);
}

/* A configuration (kind 1) from tokens, or a cgroup text (2: mountinfo,
 * 3: /proc/PID/cgroup) from cg_tokens, random bytes mixed in. */
static void drive_text(uint64_t *seed, uint8_t *in, size_t cap, unsigned long it, int kind)
{
    const char *const *toks = kind == 1 ? tokens : cg_tokens;
    const size_t nt = kind == 1 ? sizeof(tokens) / sizeof(tokens[0])
                                : sizeof(cg_tokens) / sizeof(cg_tokens[0]);
    size_t n = 0;
    in[n++] = (uint8_t)((rng_next(seed) << 2) | (uint64_t)kind);
    size_t parts = rng_next(seed) % 16;
    for (size_t p = 0; p < parts; p++) {
        uint64_t r = rng_next(seed);
        if (r % 8 == 0) { /* a few raw bytes, NUL and high ones too */
            for (size_t j = 0, k = r / 8 % 6 + 1; j < k && n < cap; j++)
                in[n++] = (uint8_t)rng_next(seed);
        } else {
            const char *tok = toks[r / 8 % nt];
            size_t k = strlen(tok);
            if (n + k > cap)
                break;
            memcpy(in + n, tok, k);
            n += k;
        }
    }
    if (it % 97 == 0 && n + 300 < cap) { /* an over-long line */
        memset(in + n, 'x', 300);
        n += 300;
    }
    LLVMFuzzerTestOneInput(in, n);
}

int main(int argc, char **argv)
{
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    static uint8_t in[1024];
    for (unsigned long it = 0; it < iters; it++) {
        if (it % 4 == 0)
            drive_request(&seed, in);
        else
            drive_text(&seed, in, sizeof(in), it, (int)(it % 4));
    }
    /* The driver must reach the accepting paths, or it tests refusals only. */
    CHECK(accepted_requests > 0 && accepted_configs > 0 && accepted_mounts > 0 &&
          accepted_lines > 0);
    printf("ok: %lu inputs; accepted: %d requests, %d configurations, %d mount tables, "
           "%d cgroup lines\n", iters, accepted_requests, accepted_configs, accepted_mounts,
           accepted_lines);
    return 0;
}
#endif
