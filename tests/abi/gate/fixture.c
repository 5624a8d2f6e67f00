/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fixture.c - a library shaped like libpageclear's ABI (fixture.h: a sized
 * input struct with tail padding and a callback, a sized output struct
 * holding an enum, an opaque struct, plain functions), for
 * tests/abi/gate_selftest.sh: built as 1.0 and again with one -D change at
 * a time, each change must pass or fail scripts/abi_gate.py as docs/abi.md
 * says it should.
 */
#include <stdlib.h>

#include "fixture.h"

struct fx_ctx {
    int a;
#ifdef PRIVATE_LAYOUT /* an opaque struct's layout changed: compatible */
    long added;
#endif
};

struct fx_ctx *fx_ctx_new(void)
{
    return calloc(1, sizeof(struct fx_ctx));
}

#ifdef PARAM_TYPE
int fx_get(struct fx_out *out, unsigned size)
#elif defined(PARAM_ADDED)
int fx_get(struct fx_out *out, size_t size, int flags)
#else
int fx_get(struct fx_out *out, size_t size)
#endif
{
    if (out == NULL || size == 0)
        return -1;
    out->kind = FX_C;
    out->count = 1;
    return 0;
}

int fx_run(const struct fx_in *in, size_t size)
{
    return in != NULL && size > 0 && in->fn != NULL ? in->fn(NULL, in->unit) : -1;
}

#ifdef RETURN_TYPE
long fx_plain(int x)
#else
int fx_plain(int x)
#endif
{
    return x + 1;
}

#ifndef REMOVE_FUNCTION
int fx_old(int x)
{
    return x - 1;
}
#endif

#if defined(ADD_FUNCTION) || defined(ADD_FUNCTION_TO_1_0)
int fx_new(int x)
{
    return x * 2;
}
#endif
