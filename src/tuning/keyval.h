/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * keyval.h - the text of `key = value` files, one reader for the profile
 * (profile.c) and the daemon's configuration (serve/serve_config.c): lines
 * copied into a bounded buffer, `#` comments, blanks around keys and
 * values. Each caller words its own messages.
 */
#ifndef PCI_KEYVAL_H
#define PCI_KEYVAL_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* 1 for the blanks around keys and values: space, \t, \r, \v, \f. */
int pci_kv_blank(char c);
/* s without its leading and trailing blanks (cut in place). */
char *pci_kv_trim(char *s);
/* s for a message into out (size bytes, at least 8): printable ASCII,
 * others as '?', at most min(size - 4, 40) bytes, "..." where cut. */
const char *pci_kv_shown(const char *s, char *out, size_t size);
/* The next line of text[*pos, len) into buf (max + 1 bytes), its comment
 * cut and trimmed, *line pointing into buf; *pos steps past the line in
 * every case. 1 with a line, 0 at the end, -1 for a line longer than max
 * bytes, -2 for a NUL byte in it. */
int pci_kv_next_line(const char *text, size_t len, size_t *pos, char *buf, size_t max,
                     char **line);
/* Split "key = value" in place into *key and *val, both trimmed. 0, or -1
 * without '=', -2 for an empty key, -3 for a key with a character no key
 * has (ASCII letters, digits, '_', '-' and '.' are a key's). */
int pci_kv_split(char *line, char **key, char **val);
/* A decimal number in [min, max] and nothing else: 0 with *out, else -1. */
int pci_kv_uint(const char *s, unsigned min, unsigned max, unsigned *out);

#pragma GCC visibility pop

#endif /* PCI_KEYVAL_H */
