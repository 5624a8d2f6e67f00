/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * keyval.c - the text of `key = value` files (keyval.h): what the profile
 * and the daemon's configuration read alike.
 */
#include <string.h>

#include "keyval.h"

int pci_kv_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

char *pci_kv_trim(char *s)
{
    while (pci_kv_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && pci_kv_blank(s[n - 1]))
        n--;
    s[n] = '\0';
    return s;
}

const char *pci_kv_shown(const char *s, char *out, size_t size)
{
    size_t n = 0, max = size - 4 < 40 ? size - 4 : 40;
    for (; s[n] != '\0' && n < max; n++)
        out[n] = s[n] >= ' ' && s[n] < 0x7f ? s[n] : '?';
    if (s[n] != '\0')
        out[n++] = '.', out[n++] = '.', out[n++] = '.';
    out[n] = '\0';
    return out;
}

int pci_kv_next_line(const char *text, size_t len, size_t *pos, char *buf, size_t max,
                     char **line)
{
    if (*pos >= len)
        return 0;
    const char *start = text + *pos;
    const char *nl = memchr(start, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - start) : len - *pos;
    *pos += n + (nl != NULL);
    if (n > max)
        return -1;
    if (memchr(start, '\0', n) != NULL)
        return -2;
    memcpy(buf, start, n);
    buf[n] = '\0';
    char *hash = strchr(buf, '#');
    if (hash != NULL)
        *hash = '\0';
    *line = pci_kv_trim(buf);
    return 1;
}

int pci_kv_split(char *line, char **key, char **val)
{
    char *eq = strchr(line, '=');
    if (eq == NULL)
        return -1;
    *eq = '\0';
    *key = pci_kv_trim(line);
    *val = pci_kv_trim(eq + 1);
    if (**key == '\0')
        return -2;
    /* ASCII by hand: the caller's locale must not change what a key is. */
    for (const char *k = *key; *k; k++)
        if (!(*k >= 'a' && *k <= 'z') && !(*k >= 'A' && *k <= 'Z') &&
            !(*k >= '0' && *k <= '9') && *k != '_' && *k != '-' && *k != '.')
            return -3;
    return 0;
}

int pci_kv_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
    unsigned long v = 0;
    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (unsigned)(*s - '0');
        if (v > max)
            return -1;
    }
    if (v < min)
        return -1;
    *out = (unsigned)v;
    return 0;
}
