/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fixture.h - the public header of the gate's fixture library
 * (fixture.c, tests/abi/gate_selftest.sh): what it declares is the ABI;
 * what fixture.c alone defines is private (abidw --headers-dir).
 */
#ifndef FX_FIXTURE_H
#define FX_FIXTURE_H

#include <stddef.h>

enum fx_kind {
    FX_A = 0,
#ifdef RENUMBER /* a constant's value changed: incompatible */
    FX_B = 5,
#else
    FX_B = 1,
#endif
    FX_C = 2,
#ifdef ADD_CONSTANT /* a constant at the end: compatible */
    FX_D = 3,
#endif
};

#ifdef CALLBACK_TYPE /* the callback's parameter changed: incompatible */
typedef int (*fx_fn)(void *ctx, unsigned done);
#else
typedef int (*fx_fn)(void *ctx, size_t done);
#endif

/* Input: 24 bytes in 1.0, the last 4 of them padding. */
struct fx_in {
#ifdef REORDER /* two fields swapped: incompatible */
    fx_fn fn;
    size_t unit;
#else
    size_t unit;
    fx_fn fn;
#endif
#ifdef FIELD_TYPE /* int -> long, the size unchanged thanks to padding */
    long flag;
#else
    int flag;
#endif
#ifdef INSERT_IN_PADDING /* a field in 1.0's tail padding: incompatible */
    int tail;
#endif
#ifdef APPEND_IN /* a field past 1.0's size: compatible */
    size_t added;
#endif
};

/* Output: an enum and two counters. */
struct fx_out {
    enum fx_kind kind;
#ifdef INSERT_MIDDLE /* a field before existing ones: incompatible */
    int inserted;
#endif
    unsigned count;
#ifndef DROP_LAST /* the last field removed: incompatible */
    size_t bytes;
#endif
#ifdef APPEND_OUT /* a field past 1.0's size: compatible */
    size_t added;
#endif
};

/* Opaque: its layout is the library's business. */
struct fx_ctx;
struct fx_ctx *fx_ctx_new(void);

int fx_run(const struct fx_in *in, size_t size);
#ifdef PARAM_TYPE /* a parameter's type changed: incompatible */
int fx_get(struct fx_out *out, unsigned size);
#elif defined(PARAM_ADDED) /* a parameter added: incompatible */
int fx_get(struct fx_out *out, size_t size, int flags);
#else
int fx_get(struct fx_out *out, size_t size);
#endif
#ifdef RETURN_TYPE /* the return type changed: incompatible */
long fx_plain(int x);
#else
int fx_plain(int x);
#endif
#ifndef REMOVE_FUNCTION /* a function removed: incompatible */
int fx_old(int x);
#endif
#if defined(ADD_FUNCTION) || defined(ADD_FUNCTION_TO_1_0)
/* A new function: in a new version node, compatible; put in 1.0's node
 * (ADD_FUNCTION_TO_1_0, see gate_selftest.sh), incompatible. */
int fx_new(int x);
#endif

#endif /* FX_FIXTURE_H */
