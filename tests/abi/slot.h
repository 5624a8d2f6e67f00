/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * slot.h - the ABI client's checks (client.c) and where it puts the
 * structs it passes: at the very end of a readable page followed by a
 * PROT_NONE page, the rest of the page filled with a canary, so that the
 * library reading or writing one byte past the size it was given faults,
 * and any byte it wrote can be told from the ones it did not.
 * Deliberately free of pageclear.h: the client picks its header.
 */
#ifndef PC_ABI_SLOT_H
#define PC_ABI_SLOT_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* What the library never writes: a byte still CANARY was not written. */
#define CANARY 0xCC
/* What the grown library's extra field holds (src/abi.c). */
#define GROWN_BYTE 0xA5
#define SLOT_PAGE ((size_t)4096)

static unsigned char *slot_page;

/* n bytes ending where the guard page starts, the whole page before them
 * (and they themselves) set to CANARY. n is a multiple of the struct's
 * alignment (a sizeof, or a sizeof plus whole pages' worth of nothing), so
 * the struct is aligned. */
static inline void *slot(size_t n)
{
    if (slot_page == NULL) {
        void *m = mmap(NULL, 2 * SLOT_PAGE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(m != MAP_FAILED);
        slot_page = m;
        CHECK(mprotect(slot_page + SLOT_PAGE, SLOT_PAGE, PROT_NONE) == 0);
    }
    CHECK(n <= SLOT_PAGE);
    memset(slot_page, CANARY, SLOT_PAGE);
    return slot_page + SLOT_PAGE - n;
}

/* Every byte of [p, p + n) is b. */
static inline int all(const void *p, size_t n, int b)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != (unsigned char)b)
            return 0;
    return 1;
}

/* Nothing before the slot of n bytes at p was written. */
static inline int before_untouched(const void *p)
{
    return all(slot_page, (size_t)((const unsigned char *)p - slot_page), CANARY);
}

#endif /* PC_ABI_SLOT_H */
