/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * early.c - early.so, preloaded after libpageclear-preload.so and so
 * initialised before it: its constructor calls memset while the preload
 * is not ready (tests/integration/preload/preload.sh, target ctor). It
 * must work, and not
 * recurse. With PC_TEST_EARLY_THREAD set it also starts a thread that
 * calls memset until the process ends, so that the preload's constructor
 * runs while another thread is in its entry, its limits changing under
 * it (case wx).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* 1 if the constructor's memset set every byte; read by target. */
__attribute__((visibility("default"))) int pc_test_early_ok;

static void *(*volatile f_memset)(void *, int, size_t) = memset;
static unsigned char buf[(size_t)1 << 20];

static void *caller(void *arg)
{
    static unsigned char tbuf[256];
    for (size_t n = 0;; n = (n + 1) % sizeof(tbuf))
        if (f_memset(tbuf, 0x11, n) != tbuf)
            abort();
    return arg;
}

__attribute__((constructor)) static void early_ctor(void)
{
    pthread_t t;
    if (getenv("PC_TEST_EARLY_THREAD") != NULL && pthread_create(&t, NULL, caller, NULL) == 0)
        pthread_detach(t);
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
