/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * early.c - early.so, preloaded after libpageclear-preload.so and so
 * initialised before it: its constructor calls memset while the preload
 * is not ready (tests/preload.sh, target ctor). It must work, and not
 * recurse.
 */
#include <stddef.h>
#include <string.h>

/* 1 if the constructor's memset set every byte; read by target. */
__attribute__((visibility("default"))) int pc_test_early_ok;

static void *(*volatile f_memset)(void *, int, size_t) = memset;
static unsigned char buf[(size_t)1 << 20];

__attribute__((constructor)) static void early_ctor(void)
{
    volatile unsigned char *v = buf; /* a loop, never a memset call */
    for (size_t i = 0; i < sizeof(buf); i++)
        v[i] = 0x77;
    if (f_memset(buf, 0, sizeof(buf)) != buf)
        return;
    for (size_t i = 0; i < sizeof(buf); i++)
        if (buf[i] != 0)
            return;
    pc_test_early_ok = 1;
}
