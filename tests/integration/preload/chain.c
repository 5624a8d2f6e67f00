/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * chain.c - chain.so, another memset preload, already in LD_PRELOAD when
 * libpageclear-preload.so is put before it: it counts the calls that
 * reach it and passes them on. Below preload_min the calls must reach it
 * (the preload's "next memset" is the next in the lookup order, not the C
 * library's by name), the short ones the preload could store itself too;
 * from preload_min they must not. It prints its counts at exit.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((visibility("default"))) void *memset(void *s, int c, size_t n);

static void *(*next_memset)(void *, int, size_t);
static atomic_ulong large, small, tiny;

static void *slow(void *s, int c, size_t n)
{
    volatile unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)c;
    return s;
}

void *memset(void *s, int c, size_t n)
{
    atomic_fetch_add(n >= ((size_t)1 << 20) ? &large : &small, 1);
    if (n <= 64)
        atomic_fetch_add(&tiny, 1);
    return next_memset != NULL ? next_memset(s, c, n) : slow(s, c, n);
}

__attribute__((constructor)) static void chain_init(void)
{
    next_memset = (void *(*)(void *, int, size_t))dlsym(RTLD_NEXT, "memset");
}

__attribute__((destructor)) static void chain_fini(void)
{
    char line[96];
    int n = snprintf(line, sizeof(line), "chain: small %lu large %lu tiny %lu\n",
                     (unsigned long)atomic_load(&small), (unsigned long)atomic_load(&large),
                     (unsigned long)atomic_load(&tiny));
    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n);
}
