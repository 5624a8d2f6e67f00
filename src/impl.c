/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * impl.c - the primitive table (expanded from impl.def) and the public
 * introspection over it.
 */
#include <errno.h>
#include <string.h>

#include "pageclear.h"
#include "abi.h"
#include "cpu.h"
#include "impl.h"
#include "primitive.h"
#include "range.h"

/* A primitive's function where its architecture is compiled, else NULL. */
#define PCI_ARCH_ANY(fn) fn
#if defined(PCI_HAVE_X86_64)
#define PCI_ARCH_X86_64(fn) fn
#else
#define PCI_ARCH_X86_64(fn) NULL
#endif
#if defined(PCI_HAVE_AARCH64)
#define PCI_ARCH_AARCH64(fn) fn
#else
#define PCI_ARCH_AARCH64(fn) NULL
#endif

const struct pci_impl pci_impls[PCI_NIMPL] = {
#define PCI_ARCHNAME_ANY "any"
#define PCI_ARCHNAME_X86_64 "x86-64"
#define PCI_ARCHNAME_AARCH64 "aarch64"
#define PCI_ARCHBIT_ANY 0u
#define PCI_ARCHBIT_X86_64 PCI_F_X86_64
#define PCI_ARCHBIT_AARCH64 PCI_F_AARCH64
#define PCI_FILL_ANY_BYTE(id) pci_fill_##id
#define PCI_FILL_ZERO_ONLY(id) NULL
#define PCI_IMPL(id, nm_, arch_, req_, feat_, cache_, stores_, desc_)         \
    [PCI_ID_##id] = {.name = nm_,                                             \
                     .arch = PCI_ARCHNAME_##arch_,                            \
                     .features = feat_,                                       \
                     .description = desc_,                                    \
                     .required = PCI_ARCHBIT_##arch_ | (req_),                \
                     .cache = PC_CACHE_##cache_,                              \
                     .fn = PCI_ARCH_##arch_(pci_clear_##id),                  \
                     .fill = PCI_ARCH_##arch_(PCI_FILL_##stores_(id))},
#include "impl.def"
#undef PCI_IMPL
};

int pci_impl_runnable(const struct pci_cpu *c, int id)
{
    if (id < 0 || id >= PCI_NIMPL || pci_impls[id].fn == NULL)
        return 0;
    return (c->features & pci_impls[id].required) == pci_impls[id].required;
}

pci_fill_fn pci_impl_fill_for(const struct pci_cpu *c, int id)
{
    if (!pci_impl_runnable(c, id))
        return NULL;
    if (pci_impls[id].fill != NULL)
        return pci_impls[id].fill;
    pci_fill_fn f = NULL;
    for (int j = 0; j < PCI_NIMPL; j++)
        if (pci_impl_runnable(c, j) && pci_impls[j].fill != NULL &&
            pci_impls[j].cache == pci_impls[id].cache)
            f = pci_impls[j].fill;
    return f;
}

size_t pc_impl_count(void)
{
    return PCI_NIMPL;
}

int (pc_impl_get)(size_t i, struct pc_impl_info *out, size_t size)
{
    int rc = PCI_ABI_CHECK(pc_impl_info, out, size);
    if (rc != 0)
        return rc;
    if (i >= PCI_NIMPL)
        return -ENOENT;
    const struct pci_impl *im = &pci_impls[i];
    struct pc_impl_info in;
    memset(&in, 0, sizeof(in));
    in.name = im->name;
    in.arch = im->arch;
    in.features = im->features;
    in.description = im->description;
    in.cache = im->cache;
    in.supported = pci_impl_runnable(pci_cpu(), (int)i);
    return PCI_ABI_OUT(pc_impl_info, out, size, &in);
}

int pc_impl_find(const char *name)
{
    if (name == NULL)
        return -EINVAL;
    for (int i = 0; i < PCI_NIMPL; i++)
        if (strcmp(pci_impls[i].name, name) == 0)
            return i;
    return -ENOENT;
}

int pc_impl_clear(size_t i, void *addr, size_t len)
{
    if (i >= PCI_NIMPL)
        return -ENOENT;
    if (!pci_impl_runnable(pci_cpu(), (int)i))
        return -ENOTSUP;
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    pci_impls[i].fn(addr, len);
    return 0;
}

int pc_impl_fill(size_t i, void *addr, size_t len, int byte)
{
    if (i >= PCI_NIMPL)
        return -ENOENT;
    if (byte < 0 || byte > 255)
        return -EINVAL;
    if (!pci_impl_runnable(pci_cpu(), (int)i))
        return -ENOTSUP;
    if (byte != 0 && pci_impls[i].fill == NULL)
        return -ENOTSUP;
    int rc = pci_check_range(addr, len);
    if (rc != 0 || len == 0)
        return rc;
    if (byte == 0)
        pci_impls[i].fn(addr, len); /* a zero-only primitive still clears */
    else
        pci_impls[i].fill(addr, len, pci_pattern((unsigned char)byte));
    return 0;
}
