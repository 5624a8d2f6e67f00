/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_config.c - the configuration file of `pageclear serve`.
 *
 * One `key = value` per line; `#` starts a comment that runs to the end of
 * the line; blank lines are allowed; whitespace around keys and values is
 * ignored. Keys (docs/serve.md has the full description):
 *   socket           absolute path of the socket
 *   group            the socket's group (a name or a number)
 *   reserve.2M       blocks of zeroed memory to keep ready, in 2 MiB
 *   reserve.1G       (1 GiB) pages: sizes separated by blanks or commas,
 *                    each a whole number of pages; `none` or 0 for none
 *   quota            bytes each uid may hold at once, or `unlimited`
 *   quota.USER       the same for one user (a name or a uid)
 *   on_miss          fill | error: a request the reserve cannot serve
 *   connections      connections one uid may have open at once (1-64)
 *   request_timeout  seconds a client has to send its request (1-60)
 *   fill_priority    idle | normal: the reserve's worker's priority
 *   charge           tenant | daemon: whose cgroups a fill is charged to
 *   reserve_for      unlimited | all: who may take a block of the reserve
 *   tenants          uids with a connection or memory at once (1-65536)
 *   grants           grants held at once, in all (1-8192)
 *   refusal_log_rate refusals logged per second at most (1-1000)
 * The parser reads only text[0, len), copies each line into a bounded
 * buffer first, and answers every input with 0 or one documented errno
 * and a one-line reason naming the line.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pageclear.h"

#include "../src/tuning/keyval.h"
#include "serve_config.h"

/* Keys taking a number in a range, and keys taking one of two words: a
 * table each, so a new knob is a line. */
struct num_key {
    const char *name;
    unsigned min, max;
    size_t off; /* of its unsigned in struct serve_config */
    const char *unit;
};
static const struct num_key num_keys[] = {
    {"connections", 1, SERVE_CONNS_MAX, offsetof(struct serve_config, connections), ""},
    {"request_timeout", 1, SERVE_TIMEOUT_MAX, offsetof(struct serve_config, timeout),
     " seconds"},
    {"tenants", 1, SERVE_TENANTS_MAX, offsetof(struct serve_config, tenants), ""},
    {"grants", 1, SERVE_GRANTS_MAX, offsetof(struct serve_config, grants), ""},
    {"refusal_log_rate", 1, SERVE_LOG_RATE_MAX, offsetof(struct serve_config, log_rate),
     " lines per second"},
};
#define NNUM (sizeof(num_keys) / sizeof(num_keys[0]))

struct choice_key {
    const char *name;
    const char *words[2]; /* value 0, value 1 */
    size_t off;
};
static const struct choice_key choice_keys[] = {
    {"on_miss", {"fill", "error"}, offsetof(struct serve_config, on_miss)},
    {"fill_priority", {"idle", "normal"}, offsetof(struct serve_config, fill)},
    {"charge", {"tenant", "daemon"}, offsetof(struct serve_config, charge)},
    {"reserve_for", {"unlimited", "all"}, offsetof(struct serve_config, reserve_for)},
};
#define NCHOICE (sizeof(choice_keys) / sizeof(choice_keys[0]))

/* Every key but reserve.SIZE and quota.USER, for duplicates: socket,
 * group, quota, then the tables'. */
enum { K_SOCKET, K_GROUP, K_QUOTA, K_NUM, K_CHOICE = K_NUM + NNUM, NFIXED = K_CHOICE + NCHOICE };

struct parse {
    struct serve_config c;
    char *why;
    size_t whylen;
    unsigned lineno;
    unsigned line_of[NFIXED];
    unsigned reserve_line[SERVE_NPAGES];
};

void serve_config_defaults(struct serve_config *c)
{
    memset(c, 0, sizeof(*c));
    c->gid = (gid_t)-1;
    c->quota = SERVE_UNLIMITED;
    c->on_miss = SERVE_MISS_FILL;
    c->connections = SERVE_CONNS_DEFAULT;
    c->timeout = SERVE_TIMEOUT_DEFAULT;
    c->tenants = SERVE_TENANTS_DEFAULT;
    c->grants = SERVE_GRANTS_DEFAULT;
    c->log_rate = SERVE_LOG_RATE_DEFAULT;
}

static int fail(struct parse *p, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parse *p, int rc, const char *fmt, ...)
{
    if (p->why != NULL && p->whylen > 0) {
        int n = snprintf(p->why, p->whylen, "line %u: ", p->lineno);
        if (n >= 0 && (size_t)n < p->whylen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->why + n, p->whylen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return rc;
}

/* A user or group name as useradd allows it (ASCII letters, digits, '_',
 * '-', '.', not starting with '-'), or a decimal id. */
static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > SERVE_NAME_MAX || s[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
            return 0;
    return 1;
}

static int parse_socket(struct parse *p, const char *val)
{
    char s[48];
    if (val[0] != '/')
        return fail(p, -EINVAL, "socket = %s is not an absolute path",
                    pci_kv_shown(val, s, sizeof(s)));
    if (strlen(val) > SERVE_SOCKET_MAX)
        return fail(p, -ERANGE, "socket path is longer than %d bytes", SERVE_SOCKET_MAX);
    snprintf(p->c.socket, sizeof(p->c.socket), "%s", val);
    return 0;
}

/* A size for quota lines: a size with a suffix, or `unlimited`. */
static int parse_quota(struct parse *p, const char *key, const char *val, uint64_t *out)
{
    char s[48];
    size_t v;
    if (strcasecmp(val, "unlimited") == 0) {
        *out = SERVE_UNLIMITED;
        return 0;
    }
    int rc = pc_parse_size(val, &v);
    if (rc == -ERANGE || (rc == 0 && (uint64_t)v > SERVE_RESERVE_LIMIT))
        return fail(p, -ERANGE, "%s = %s is out of range (at most 64T, or unlimited)", key,
                    pci_kv_shown(val, s, sizeof(s)));
    if (rc != 0)
        return fail(p, -EINVAL, "%s = %s is not a size (K/M/G/T, powers of 1024) or "
                    "unlimited", key, pci_kv_shown(val, s, sizeof(s)));
    *out = v;
    return 0;
}

/* "reserve.2M = 4G 4G 1G": the blocks for one page size. */
static int parse_reserve(struct parse *p, int page, const char *key, char *val)
{
    char s[48], *save = NULL, none[] = "0";
    uint64_t total = 0, pb = serve_page_bytes[page];
    unsigned n = 0;
    if (strcasecmp(val, "none") == 0)
        val = none;
    for (char *tok = strtok_r(val, " \t,", &save); tok != NULL;
         tok = strtok_r(NULL, " \t,", &save)) {
        size_t v;
        int rc = pc_parse_size(tok, &v);
        if (rc == -ERANGE)
            return fail(p, -ERANGE, "%s: %s is too large", key,
                        pci_kv_shown(tok, s, sizeof(s)));
        if (rc != 0)
            return fail(p, -EINVAL, "%s: %s is not a size (K/M/G/T, powers of 1024)", key,
                        pci_kv_shown(tok, s, sizeof(s)));
        if (v == 0)
            continue; /* "0": no block */
        if (v % pb != 0)
            return fail(p, -EINVAL, "%s: %s is not a whole number of %s pages", key,
                        pci_kv_shown(tok, s, sizeof(s)),
                        page == SERVE_PAGE_1G ? "1GiB" : "2MiB");
        if (n == SERVE_MAX_BLOCKS)
            return fail(p, -ERANGE, "%s: more than %d blocks", key, SERVE_MAX_BLOCKS);
        if ((uint64_t)v > SERVE_RESERVE_LIMIT - total)
            return fail(p, -ERANGE, "%s: more than 64T in all", key);
        total += v;
        p->c.reserve[page][n++] = v;
    }
    p->c.nblocks[page] = n;
    return 0;
}

/* quota.USER: one line per user. */
static int parse_user_quota(struct parse *p, const char *key, const char *user,
                            const char *val)
{
    char s[48];
    if (!valid_name(user))
        return fail(p, -EINVAL, "%s: '%s' is not a user name or uid", key,
                    pci_kv_shown(user, s, sizeof(s)));
    for (unsigned i = 0; i < p->c.nusers; i++)
        if (strcmp(p->c.users[i].user, user) == 0)
            return fail(p, -EINVAL, "duplicate key '%s' (first on line %u)", key,
                        p->c.users[i].line);
    if (p->c.nusers == SERVE_MAX_USERS)
        return fail(p, -ERANGE, "more than %d quota.USER lines", SERVE_MAX_USERS);
    struct serve_user_quota *u = &p->c.users[p->c.nusers];
    int rc = parse_quota(p, key, val, &u->bytes);
    if (rc != 0)
        return rc;
    snprintf(u->user, sizeof(u->user), "%s", user);
    u->line = p->lineno;
    p->c.nusers++;
    return 0;
}

static int parse_num(struct parse *p, const struct num_key *k, const char *val)
{
    char s[48];
    unsigned *out = (unsigned *)((char *)&p->c + k->off);
    if (pci_kv_uint(val, k->min, k->max, out) != 0)
        return fail(p, -ERANGE, "%s = %s is out of range (want %u to %u%s)", k->name,
                    pci_kv_shown(val, s, sizeof(s)), k->min, k->max, k->unit);
    return 0;
}

static int parse_choice(struct parse *p, const struct choice_key *k, const char *val)
{
    char s[48];
    unsigned *out = (unsigned *)((char *)&p->c + k->off);
    for (unsigned i = 0; i < 2; i++)
        if (strcmp(val, k->words[i]) == 0) {
            *out = i;
            return 0;
        }
    return fail(p, -EINVAL, "%s = %s (want %s or %s)", k->name,
                pci_kv_shown(val, s, sizeof(s)), k->words[0], k->words[1]);
}

/* Key number k (an index of the fixed keys) with its value. */
static int parse_fixed(struct parse *p, unsigned k, const char *val)
{
    char s[48];
    if (k == K_SOCKET)
        return parse_socket(p, val);
    if (k == K_GROUP) {
        if (!valid_name(val))
            return fail(p, -EINVAL, "group = %s is not a group name or number",
                        pci_kv_shown(val, s, sizeof(s)));
        snprintf(p->c.group, sizeof(p->c.group), "%s", val);
        p->c.group_line = p->lineno;
        return 0;
    }
    if (k == K_QUOTA)
        return parse_quota(p, "quota", val, &p->c.quota);
    if (k < K_CHOICE)
        return parse_num(p, &num_keys[k - K_NUM], val);
    return parse_choice(p, &choice_keys[k - K_CHOICE], val);
}

/* The fixed key's name, or NULL past the last. */
static const char *fixed_name(unsigned k)
{
    static const char *const first[K_NUM] = {"socket", "group", "quota"};
    if (k < K_NUM)
        return first[k];
    if (k < K_CHOICE)
        return num_keys[k - K_NUM].name;
    return k < NFIXED ? choice_keys[k - K_CHOICE].name : NULL;
}

/* "reserve.SIZE": the page size's index, or -1. */
static int reserve_page(const char *suffix)
{
    size_t v;
    if (pc_parse_size(suffix, &v) != 0)
        return -1;
    return serve_page_index(v);
}

static int parse_key(struct parse *p, const char *key, char *val)
{
    char s[48];
    for (unsigned k = 0; k < NFIXED; k++) {
        if (strcmp(key, fixed_name(k)) != 0)
            continue;
        if (p->line_of[k] != 0)
            return fail(p, -EINVAL, "duplicate key '%s' (first on line %u)", key,
                        p->line_of[k]);
        p->line_of[k] = p->lineno;
        return parse_fixed(p, k, val);
    }
    if (strncmp(key, "reserve.", 8) == 0) {
        int page = reserve_page(key + 8);
        if (page < 0)
            return fail(p, -EINVAL, "%s: not a huge page size (want reserve.2M or "
                        "reserve.1G)", pci_kv_shown(key, s, sizeof(s)));
        if (p->reserve_line[page] != 0)
            return fail(p, -EINVAL, "duplicate key for %s pages (first on line %u)",
                        page == SERVE_PAGE_1G ? "1GiB" : "2MiB", p->reserve_line[page]);
        p->reserve_line[page] = p->lineno;
        return parse_reserve(p, page, key, val);
    }
    if (strncmp(key, "quota.", 6) == 0)
        return parse_user_quota(p, key, key + 6, val);
    return fail(p, -EINVAL, "unknown key '%s'", pci_kv_shown(key, s, sizeof(s)));
}

/* One line (comment cut, trimmed) into *p. */
static int parse_line(struct parse *p, char *line)
{
    char *key, *val;
    int r = pci_kv_split(line, &key, &val);
    if (r == -1)
        return fail(p, -EINVAL, "no '=' (want key = value)");
    if (r == -2)
        return fail(p, -EINVAL, "no key before '='");
    if (r != 0)
        return fail(p, -EINVAL, "malformed key");
    if (*val == '\0')
        return fail(p, -EINVAL, "no value for %s", key);
    return parse_key(p, key, val);
}

/* Every line of text[0, len) into *p, up to the first bad one. */
static int parse_text(struct parse *p, const char *text, size_t len)
{
    char buf[SERVE_LINE_MAX + 1], *line;
    size_t pos = 0;
    int r, rc = 0;
    while (rc == 0 && (r = pci_kv_next_line(text, len, &pos, buf, SERVE_LINE_MAX, &line)) != 0) {
        p->lineno++;
        if (r == -1)
            rc = fail(p, -EINVAL, "longer than %d bytes", SERVE_LINE_MAX);
        else if (r == -2)
            rc = fail(p, -EINVAL, "NUL byte");
        else if (*line != '\0')
            rc = parse_line(p, line);
    }
    return rc;
}

int serve_config_parse(const char *text, size_t len, struct serve_config *c, char *why,
                       size_t whylen)
{
    static struct parse zero;
    struct parse *p = malloc(sizeof(*p)); /* ~2 KiB of users: off the stack */
    if (p == NULL)
        return -ENOMEM;
    *p = zero;
    p->why = why;
    p->whylen = whylen;
    if (why != NULL && whylen > 0)
        why[0] = '\0';
    int rc = 0;
    if (c == NULL || (text == NULL && len > 0)) {
        rc = -EINVAL;
        if (why != NULL && whylen > 0)
            snprintf(why, whylen, "no configuration text or no result to fill");
        goto out;
    }
    p->c = *c;
    rc = parse_text(p, text, len);
    if (rc == 0)
        *c = p->c;
out:
    free(p);
    return rc;
}

/* A decimal id, or -1. */
static long long decimal_id(const char *s)
{
    unsigned v;
    return pci_kv_uint(s, 0, 0x7fffffff, &v) == 0 ? (long long)v : -1;
}

static int resolve_fail(char *why, size_t whylen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int resolve_fail(char *why, size_t whylen, int rc, const char *fmt, ...)
{
    if (why != NULL && whylen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int serve_config_resolve(struct serve_config *c, char *why, size_t whylen)
{
    char buf[4096];
    c->gid = (gid_t)-1;
    if (c->group[0] != '\0') {
        long long id = decimal_id(c->group);
        struct group g, *gp = NULL;
        if (id >= 0)
            c->gid = (gid_t)id;
        else if (getgrnam_r(c->group, &g, buf, sizeof(buf), &gp) == 0 && gp != NULL)
            c->gid = gp->gr_gid;
        else
            return resolve_fail(why, whylen, -ENOENT, "line %u: no group '%s'",
                                c->group_line, c->group);
    }
    for (unsigned i = 0; i < c->nusers; i++) {
        struct serve_user_quota *u = &c->users[i];
        long long id = decimal_id(u->user);
        struct passwd pw, *pp = NULL;
        if (id >= 0)
            u->uid = (uid_t)id;
        else if (getpwnam_r(u->user, &pw, buf, sizeof(buf), &pp) == 0 && pp != NULL)
            u->uid = pp->pw_uid;
        else
            return resolve_fail(why, whylen, -ENOENT, "line %u: no user '%s'", u->line,
                                u->user);
        for (unsigned j = 0; j < i; j++)
            if (c->users[j].uid == u->uid)
                return resolve_fail(why, whylen, -EINVAL, "line %u: a second quota for "
                                    "uid %u (first on line %u)", u->line,
                                    (unsigned)u->uid, c->users[j].line);
    }
    return 0;
}

uint64_t serve_config_quota(const struct serve_config *c, uid_t uid)
{
    for (unsigned i = 0; i < c->nusers; i++)
        if (c->users[i].uid == uid)
            return c->users[i].bytes;
    return c->quota;
}
