/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_cgparse.c - the two cgroup texts the daemon reads, parsed by pure
 * functions (fuzzed by tests/fuzz/fuzz_serve.c): /proc/self/mountinfo, for
 * where the cgroup hierarchies are mounted, and /proc/PID/cgroup, for a
 * requester's cgroup in each. Both read only text[0, len), copy nothing
 * longer than their buffers, and skip or refuse what is not well formed.
 */
#include <errno.h>
#include <string.h>

#include "serve_cgroup.h"

#define FIELDS 32 /* of a mountinfo line: 10 and its optional fields */

/* Split line[0, len) at single spaces into at most FIELDS fields (start
 * and length each). The count, or -1 for more. */
static int split(const char *line, size_t len, const char *f[FIELDS], size_t fl[FIELDS])
{
    int n = 0;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && line[j] != ' ')
            j++;
        if (n == FIELDS)
            return -1;
        f[n] = line + i;
        fl[n++] = j - i;
        i = j + 1;
    }
    return n;
}

/* A mount point as mountinfo escapes it (\ooo for space, tab, newline and
 * backslash) into out (n bytes, NUL-terminated). 0, or -1 if malformed or
 * too long. */
static int unescape(const char *s, size_t len, char *out, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '\\') {
            unsigned v = 0;
            for (size_t k = 1; k <= 3; k++) {
                if (i + k >= len || s[i + k] < '0' || s[i + k] > '7')
                    return -1;
                v = v * 8 + (unsigned)(s[i + k] - '0');
            }
            if (v == 0 || v > 255)
                return -1;
            c = (char)v;
            i += 3;
        }
        if (o + 1 >= n)
            return -1;
        out[o++] = c;
    }
    out[o] = '\0';
    return o > 0 && out[0] == '/' ? 0 : -1;
}

/* Is word (wlen bytes) one of the comma-separated items of list[0, llen)? */
static int has_item(const char *list, size_t llen, const char *word, size_t wlen)
{
    for (size_t i = 0; i <= llen;) {
        size_t j = i;
        while (j < llen && list[j] != ',')
            j++;
        if (j - i == wlen && wlen > 0 && memcmp(list + i, word, wlen) == 0)
            return 1;
        i = j + 1;
    }
    return 0;
}

int serve_cg_mount_holds(const char *opts, const char *ctrl, size_t len)
{
    size_t olen = strlen(opts);
    int any = 0;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && ctrl[j] != ',')
            j++;
        if (j == i || !has_item(opts, olen, ctrl + i, j - i))
            return 0;
        any = 1;
        i = j + 1;
    }
    return any;
}

/* One line of mountinfo into out, if it is a cgroup mount of a root. */
static void mount_line(const char *line, size_t len, struct serve_cg_mounts *out)
{
    const char *f[FIELDS];
    size_t fl[FIELDS];
    int n = split(line, len, f, fl), sep = -1;
    for (int i = 6; i < n && sep < 0; i++)
        if (fl[i] == 1 && f[i][0] == '-')
            sep = i;
    if (sep < 0 || sep + 3 >= n || fl[3] != 1 || f[3][0] != '/' || out->n == SERVE_CG_MAX)
        return;
    int v2 = fl[sep + 1] == 7 && memcmp(f[sep + 1], "cgroup2", 7) == 0;
    int v1 = fl[sep + 1] == 6 && memcmp(f[sep + 1], "cgroup", 6) == 0;
    const char *opts = f[sep + 3];
    size_t olen = fl[sep + 3];
    if (!v1 && !v2)
        return;
    for (unsigned i = 0; i < out->n; i++) /* a bind mount of one already had */
        if (out->m[i].v2 ? v2 : v1 && strlen(out->m[i].opts) == olen &&
                                     memcmp(out->m[i].opts, opts, olen) == 0)
            return;
    struct serve_cg_mount *m = &out->m[out->n];
    if (unescape(f[4], fl[4], m->dir, sizeof(m->dir)) != 0 || olen >= sizeof(m->opts))
        return;
    m->v2 = v2;
    memcpy(m->opts, opts, olen);
    m->opts[olen] = '\0';
    if (v2 && has_item(opts, olen, "memory_hugetlb_accounting", 25))
        out->hugetlb_in_memcg = 1;
    out->n++;
}

unsigned serve_cg_mounts_parse(const char *text, size_t len, struct serve_cg_mounts *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t pos = 0; text != NULL && pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;
        if (memchr(text + pos, '\0', n) == NULL)
            mount_line(text + pos, n, out);
        pos += n + 1;
    }
    return out->n;
}

int serve_cg_line_next(const char *text, size_t len, size_t *pos, struct serve_cg_line *out)
{
    while (text != NULL && *pos < len && text[*pos] == '\n')
        (*pos)++;
    if (text == NULL || *pos >= len)
        return 0;
    const char *line = text + *pos, *nl = memchr(line, '\n', len - *pos);
    size_t n = nl != NULL ? (size_t)(nl - line) : len - *pos;
    const char *c1 = memchr(line, ':', n);
    const char *c2 = c1 != NULL ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
    unsigned long id = 0;
    int ok = c1 != NULL && c2 != NULL && c1 > line && c1 - line <= 9 &&
             memchr(line, '\0', n) == NULL;
    for (const char *p = line; ok && p < c1; p++) {
        ok = *p >= '0' && *p <= '9';
        id = id * 10 + (unsigned long)(*p - '0');
    }
    if (!ok || c2 + 1 >= line + n || c2[1] != '/') {
        *pos = len;
        return -EINVAL;
    }
    *out = (struct serve_cg_line){.id = id, .ctrl = c1 + 1, .ctrl_len = (size_t)(c2 - c1 - 1),
                                  .path = c2 + 1, .path_len = (size_t)(line + n - (c2 + 1))};
    *pos += n + (nl != NULL);
    return 1;
}
