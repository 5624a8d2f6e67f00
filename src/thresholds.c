/*
 * thresholds.c - the public view of the threshold table (thresholds.def):
 * what each threshold is, its range, default and value in force, and
 * access to struct pc_tuning by index.
 */
#include <errno.h>
#include <stddef.h>

#include "pageclear.h"
#include "cpu.h"
#include "profile.h"
#include "tuning.h"

#define PCI_NEVER_OK 1
#define PCI_NO_NEVER 0

static const struct {
    const char *key, *env, *description;
    size_t min, max, tuning_offset, state_offset;
    int never;
} table[PC_NTHRESHOLDS] = {
#define PCI_THRESHOLD(id, index, env_, env_min, min_, max_, never_, desc)        \
    [index] = {.key = #id,                                                      \
               .env = env_,                                                     \
               .description = desc,                                             \
               .min = min_,                                                     \
               .max = max_,                                                     \
               .tuning_offset = offsetof(struct pc_tuning, id),                 \
               .state_offset = offsetof(struct pci_thresholds, id),             \
               .never = PCI_##never_},
#include "thresholds.def"
#undef PCI_THRESHOLD
};

static size_t *slot(void *base, size_t offset)
{
    return (size_t *)((char *)base + offset);
}

int pc_threshold_info(int i, struct pc_threshold_info *out)
{
    if (out == NULL)
        return -EINVAL;
    if (i < 0 || i >= PC_NTHRESHOLDS)
        return -ENOENT;
    struct pci_thresholds d;
    pci_default_thresholds(pci_cpu(), &d);
    *out = (struct pc_threshold_info){
        .key = table[i].key,
        .env = table[i].env,
        .description = table[i].description,
        .min = table[i].min,
        .max = table[i].max,
        .never = table[i].never,
        .dflt = *slot(&d, table[i].state_offset),
        .value = *slot((void *)pci_thresholds(), table[i].state_offset),
    };
    return 0;
}

int pc_tuning_get(const struct pc_tuning *t, int i, size_t *v)
{
    if (t == NULL || v == NULL)
        return -EINVAL;
    if (i < 0 || i >= PC_NTHRESHOLDS)
        return -ENOENT;
    *v = *slot((void *)t, table[i].tuning_offset);
    return 0;
}

int pc_tuning_set(struct pc_tuning *t, int i, size_t v)
{
    if (t == NULL)
        return -EINVAL;
    if (i < 0 || i >= PC_NTHRESHOLDS)
        return -ENOENT;
    if (v == PC_NEVER ? !table[i].never : v < table[i].min || v > table[i].max)
        return -ERANGE;
    *slot(t, table[i].tuning_offset) = v;
    return 0;
}
