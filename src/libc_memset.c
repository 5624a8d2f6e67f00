/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * libc_memset.c - the rule of when the C library's memset takes rep stosb
 * (libc_memset.h), and the readers of glibc's version and tunables it
 * rests on. No locale, no allocation: the preload runs this before
 * anything else in the process is ready.
 */
#include <stdint.h>
#include <string.h>

#include "pageclear.h"
#include "libc_memset.h"

/* The least glibc 2 minor version whose memset picks its rep stosb
 * variant by ERMS alone, and the versions whose default on AMD each
 * branch below knows (libc_memset.h says how each is known; 2.39 is
 * either, by its maintenance updates). */
#define GLIBC_ERMS_MEMSET_SINCE 26
#define GLIBC_AMD_STOSB_LAST 38
#define GLIBC_AMD_NEVER_SINCE 40

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

int pci_glibc_minor(const char *v)
{
    if (v == NULL || v[0] != '2' || v[1] != '.' || !digit(v[2]))
        return -1;
    int minor = 0;
    for (v += 2; digit(*v); v++) {
        if (minor > 9999)
            return -1; /* no glibc has such a version: not one */
        minor = minor * 10 + (*v - '0');
    }
    if (*v == '.' && digit(v[1])) /* "2.41.9000": a development or point release */
        for (v++; digit(*v); v++)
            ;
    return *v == '\0' ? minor : -1;
}

/* The value of [s, s + n), or -1: decimal, or 0x (0X) and hexadecimal
 * digits; a leading 0 before more digits (octal to glibc), a sign, a
 * space, an empty value or one past SIZE_MAX refused. */
static int read_value(const char *s, size_t n, size_t *v)
{
    unsigned base = 10;
    size_t x = 0, i = 0;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (n >= 2 && s[0] == '0') {
        return -1;
    }
    if (i == n)
        return -1;
    for (; i < n; i++) {
        unsigned d;
        char c = s[i];
        if (digit(c))
            d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return -1;
        if (x > (SIZE_MAX - d) / base)
            return -1;
        x = x * base + d;
    }
    *v = x;
    return 0;
}

int pci_glibc_entry_sets(const char *e, size_t len, const char *name)
{
    size_t k = strlen(name);
    return len > k && strncmp(e, name, k) == 0 && e[k] == '=';
}

int pci_glibc_tunable(const char *tunables, const char *name, size_t *v)
{
    size_t k = strlen(name);
    int found = 0;
    for (const char *e = tunables; e != NULL && *e != '\0'; e += *e == ':') {
        size_t len = strcspn(e, ":");
        if (pci_glibc_entry_sets(e, len, name)) {
            if (read_value(e + k + 1, len - k - 1, v) != 0)
                return -1;
            found = 1;
        }
        e += len;
    }
    return found;
}

/* c in lower case, ASCII letters only: tolower() would follow a locale
 * the program may already have set. */
static char ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* 1 if word (lower case) occurs in [s, s + n), ignoring case. */
static int has_word(const char *s, size_t n, const char *word)
{
    size_t k = strlen(word);
    for (size_t at = 0; at + k <= n; at++) {
        size_t i = 0;
        while (i < k && ascii_lower(s[at + i]) == word[i])
            i++;
        if (i == k)
            return 1;
    }
    return 0;
}

/* 1 if an entry of tunables other than PCI_GLIBC_STOSB_TUNABLE's may move
 * the memset's rep stosb or turn it off (libc_memset.h says which). */
static int other_mover(const char *tunables)
{
    for (const char *e = tunables; e != NULL && *e != '\0'; e += *e == ':') {
        size_t len = strcspn(e, ":");
        if (!pci_glibc_entry_sets(e, len, PCI_GLIBC_STOSB_TUNABLE) &&
            (has_word(e, len, "stosb") || has_word(e, len, "erms") ||
             has_word(e, len, "non_temporal")))
            return 1;
        e += len;
    }
    return 0;
}

size_t pci_libc_stosb_above(enum pci_vendor vendor, int erms, const char *version,
                            const char *tunables)
{
    int minor = pci_glibc_minor(version);
    if (minor < GLIBC_ERMS_MEMSET_SINCE ||
        (vendor != PCI_VENDOR_INTEL && vendor != PCI_VENDOR_AMD))
        return PCI_LIBC_UNKNOWN;
    if (other_mover(tunables))
        return PCI_LIBC_UNKNOWN;
    if (!erms)
        return PC_NEVER;
    size_t set;
    switch (pci_glibc_tunable(tunables, PCI_GLIBC_STOSB_TUNABLE, &set)) {
    case 1:
        /* before the tunable, glibc ignores it, unless a distribution
         * brought it in: unknown; from it, 0 is ignored */
        return minor >= PCI_GLIBC_STOSB_TUNABLE_SINCE && set >= 1 ? set : PCI_LIBC_UNKNOWN;
    case -1:
        return PCI_LIBC_UNKNOWN;
    default:
        break;
    }
    if (vendor == PCI_VENDOR_INTEL || minor <= GLIBC_AMD_STOSB_LAST)
        return PCI_GLIBC_STOSB_DEFAULT;
    return minor >= GLIBC_AMD_NEVER_SINCE ? PC_NEVER : PCI_LIBC_UNKNOWN;
}
