/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * thresholds.c - the threshold table (expanded from thresholds.def), the
 * internal struct pci_tuning against the public struct pc_tuning, and the
 * public view: what each threshold is, its range, default and value in
 * force, and access to struct pc_tuning by index.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "pageclear.h"
#include "abi.h"
#include "cpu.h"
#include "profile.h"
#include "tuning.h"

#define PCI_NEVER_OK 1
#define PCI_NO_NEVER 0

const struct pci_threshold pci_thresholds[PC_NTHRESHOLDS] = {
#define PCI_THRESHOLD(id, index, env_, env_min_, min_, max_, never_, host, rule, desc) \
    [index] = {.key = #id,                                                      \
               .env = env_,                                                     \
               .description = desc,                                             \
               .env_min = env_min_,                                             \
               .min = min_,                                                     \
               .max = max_,                                                     \
               .tuning_offset = offsetof(struct pc_tuning, id),                 \
               .never = PCI_##never_},
#include "thresholds.def"
#undef PCI_THRESHOLD
};

/* The table and the public enum agree: as many rows as constants, each
 * row at its constant's place (a profile writes them in row order), and
 * struct pc_tuning holds exactly one size per row. */
enum {
#define PCI_THRESHOLD(id, index, env, env_min, min, max, never, host, rule, desc) \
    PCI_ROW_##id,
#include "thresholds.def"
#undef PCI_THRESHOLD
    PCI_NROWS
};
_Static_assert(PCI_NROWS == PC_NTHRESHOLDS, "thresholds.def has a row per enum pc_threshold");
#define PCI_THRESHOLD(id, index, env, env_min, min, max, never, host, rule, desc) \
    _Static_assert((int)PCI_ROW_##id == (int)index,                                  \
                   "thresholds.def rows in enum pc_threshold order");
#include "thresholds.def"
#undef PCI_THRESHOLD
#ifndef PCI_ABI_TEST_GROW /* (tests/abi's build gives each struct a field more) */
_Static_assert(sizeof(struct pc_tuning) == PC_NTHRESHOLDS * sizeof(size_t),
               "struct pc_tuning has one field per threshold");
#endif

static size_t *field(struct pc_tuning *t, int i)
{
    return (size_t *)(void *)((char *)t + pci_thresholds[i].tuning_offset);
}

static size_t field_value(const struct pc_tuning *t, int i)
{
    return *(const size_t *)(const void *)((const char *)t + pci_thresholds[i].tuning_offset);
}

int pci_threshold_accepts(int i, size_t v)
{
    const struct pci_threshold *r = &pci_thresholds[i];
    return v == PC_NEVER ? r->never : v >= r->min && v <= r->max;
}

void pci_tuning_overlay(struct pci_tuning *dst, const struct pci_tuning *src)
{
    for (int i = 0; i < PC_NTHRESHOLDS; i++)
        if (src->set & (1u << i))
            dst->v[i] = src->v[i];
    dst->set |= src->set;
}

void pci_tuning_to_public(const struct pci_tuning *t, struct pc_tuning *out)
{
    for (int i = 0; i < PC_NTHRESHOLDS; i++)
        *field(out, i) = t->v[i];
}

void pci_tuning_from_public(const struct pc_tuning *in, struct pci_tuning *t)
{
    for (int i = 0; i < PC_NTHRESHOLDS; i++)
        t->v[i] = field_value(in, i);
    t->set = PCI_TUNING_ALL;
}

void pci_tuning_to_caller(const struct pci_tuning *t, struct pc_tuning *out, size_t tsize)
{
    struct pc_tuning pub;
    memset(&pub, 0, sizeof(pub));
    pci_tuning_to_public(t, &pub);
    (void)PCI_ABI_OUT(pc_tuning, out, tsize, &pub);
}

int (pc_tuning_defaults)(struct pc_tuning *t, size_t tsize)
{
    int rc = PCI_ABI_CHECK(pc_tuning, t, tsize);
    if (rc != 0)
        return rc;
    struct pci_tuning d;
    pci_tuning_defaults(pci_cpu(), pci_libc(), &d);
    pci_tuning_to_caller(&d, t, tsize);
    return 0;
}

int (pc_threshold_info)(int i, struct pc_threshold_info *out, size_t size)
{
    int rc = PCI_ABI_CHECK(pc_threshold_info, out, size);
    if (rc != 0)
        return rc;
    if (i < 0 || i >= PC_NTHRESHOLDS)
        return -ENOENT;
    const struct pci_threshold *r = &pci_thresholds[i];
    struct pci_tuning d;
    pci_tuning_defaults(pci_cpu(), pci_libc(), &d);
    struct pc_threshold_info in;
    memset(&in, 0, sizeof(in));
    in.key = r->key;
    in.env = r->env;
    in.description = r->description;
    in.min = r->min;
    in.max = r->max;
    in.never = r->never;
    in.dflt = d.v[i];
    in.value = pci_tuning()->v[i];
    return PCI_ABI_OUT(pc_threshold_info, out, size, &in);
}

/* 0 if threshold i is a field of the caller's struct pc_tuning of tsize
 * bytes (the one field pc_tuning_get and _set touch). */
static int caller_field(const struct pc_tuning *t, size_t tsize, int i)
{
    int rc = PCI_ABI_CHECK(pc_tuning, t, tsize);
    if (rc != 0)
        return rc;
    if (i < 0 || i >= PC_NTHRESHOLDS ||
        pci_thresholds[i].tuning_offset + sizeof(size_t) > tsize)
        return -ENOENT;
    return 0;
}

int (pc_tuning_get)(const struct pc_tuning *t, size_t tsize, int i, size_t *v)
{
    if (v == NULL)
        return -EINVAL;
    int rc = caller_field(t, tsize, i);
    if (rc == 0)
        *v = field_value(t, i);
    return rc;
}

int (pc_tuning_set)(struct pc_tuning *t, size_t tsize, int i, size_t v)
{
    int rc = caller_field(t, tsize, i);
    if (rc != 0)
        return rc;
    if (!pci_threshold_accepts(i, v))
        return -ERANGE;
    *field(t, i) = v;
    return 0;
}
