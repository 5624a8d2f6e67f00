/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * harness.h - what every test program shares: CHECK macros that report
 * and exit, buffers fenced by PROT_NONE guard pages, and a non-zero
 * pattern to tell written bytes from untouched ones.
 */
#ifndef PC_TEST_HARNESS_H
#define PC_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pageclear.h"

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        if (a_ != b_) {                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n",   \
                    __FILE__, __LINE__, #a, #b, a_, b_);                       \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define TEST_PAGE ((size_t)4096)

/* [lo, lo + len) is usable; the page before and the page after are
 * PROT_NONE, so a write even one byte outside faults at once. */
struct guarded {
    char *map;
    size_t map_len;
    char *lo;
    size_t len;
};

static inline void guarded_alloc(struct guarded *g, size_t len)
{
    size_t body = (len + TEST_PAGE - 1) / TEST_PAGE * TEST_PAGE;
    g->map_len = body + 2 * TEST_PAGE;
    g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(g->map != MAP_FAILED);
    CHECK(mprotect(g->map, TEST_PAGE, PROT_NONE) == 0);
    CHECK(mprotect(g->map + TEST_PAGE + body, TEST_PAGE, PROT_NONE) == 0);
    g->lo = g->map + TEST_PAGE;
    g->len = body;
}

static inline void guarded_free(struct guarded *g)
{
    munmap(g->map, g->map_len);
}

/* The pattern byte for offset i of a buffer: never zero. */
static inline unsigned char pat(size_t i)
{
    return (unsigned char)(i % 251 + 1);
}

static inline void pat_fill(char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)pat(i);
}

/* Check p[0..n) holds the pattern except [z0, z1), which must hold byte.
 * Returns the first bad offset, or SIZE_MAX if all is as expected. */
static inline size_t pat_check_byte(const char *p, size_t n, size_t z0, size_t z1,
                                    unsigned char byte)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char want = (i >= z0 && i < z1) ? byte : pat(i);
        if ((unsigned char)p[i] != want)
            return i;
    }
    return SIZE_MAX;
}

/* As pat_check_byte, for zeros in [z0, z1). */
static inline size_t pat_check(const char *p, size_t n, size_t z0, size_t z1)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char want = (i >= z0 && i < z1) ? 0 : pat(i);
        if ((unsigned char)p[i] != want)
            return i;
    }
    return SIZE_MAX;
}

/* 1 if the primitive called name streams (non-temporal stores or
 * clzero), as the table says. */
static inline int is_streaming(const char *name)
{
    struct pc_impl_info in;
    int i = pc_impl_find(name);
    return i >= 0 && pc_impl_get((size_t)i, &in) == 0 && in.cache == PC_CACHE_NONTEMPORAL;
}

/* A small deterministic PRNG (xorshift64*), so failures reproduce. */
static inline uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

#endif
