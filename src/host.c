/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * host.c - the detected CPU and C library, each read once, and the public
 * summary of what the library found and the thresholds in force.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "pageclear.h"
#include "abi.h"
#include "written.h"
#include "cpu.h"
#include "impl.h"
#include "libc_memset.h"
#include "numa.h"
#include "options.h"
#include "profile.h"
#include "tuning.h"

static struct pci_cpu cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void detect(void)
{
    pci_cpu_detect(&cpu);
}

const struct pci_cpu *pci_cpu(void)
{
    pthread_once(&cpu_once, detect);
    return &cpu;
}

static struct pci_libc libc;
static pthread_once_t libc_once = PTHREAD_ONCE_INIT;

static void read_libc(void)
{
#if defined(__GLIBC__)
    const char *version = gnu_get_libc_version();
#else
    const char *version = NULL;
#endif
    const struct pci_cpu *c = pci_cpu();
    libc.glibc_minor = pci_glibc_minor(version);
    libc.stosb_above = pci_libc_stosb_above(c->vendor, (c->features & PCI_F_ERMS) != 0,
                                            version, getenv("GLIBC_TUNABLES"));
}

const struct pci_libc *pci_libc(void)
{
    pthread_once(&libc_once, read_libc);
    return &libc;
}

const char *pc_version(void)
{
#define PCI_STR2(x) #x
#define PCI_STR(x) PCI_STR2(x)
    return PCI_STR(PC_VERSION_MAJOR) "." PCI_STR(PC_VERSION_MINOR) "." PCI_STR(
        PC_VERSION_PATCH);
}

void pci_feature_names(unsigned features, char *buf, size_t size)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {PCI_F_X86_64, "x86-64"}, {PCI_F_AARCH64, "aarch64"},
        {PCI_F_ERMS, "erms"},     {PCI_F_FSRM, "fsrm"},
        {PCI_F_AVX2, "avx2"},     {PCI_F_AVX512, "avx512f"},
        {PCI_F_CLZERO, "clzero"}, {PCI_F_DCZVA, "dczva"},
    };
    size_t used = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!(features & names[i].bit))
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? " " : "", names[i].name);
        if (n > 0 && (size_t)n < size - used)
            used += (size_t)n;
        else
            buf[used] = '\0'; /* a name that does not fit is left out */
    }
}

int (pc_host_get)(struct pc_host *caller, size_t size)
{
    int rc = PCI_ABI_CHECK(pc_host, caller, size);
    if (rc != 0)
        return rc;
    const struct pci_cpu *c = pci_cpu();
    const struct pci_tuning *t = pci_tuning();
    const struct pci_options *o = pci_options();
    const struct pci_profile *pr = pci_profile();
    struct pc_host host, *h = &host;

    memset(h, 0, sizeof(*h)); /* padding too: it reaches the caller */
    snprintf(h->vendor, sizeof(h->vendor), "%.15s", c->vendor_name);
    pci_feature_names(c->features, h->features, sizeof(h->features));
    h->hypervisor = c->hypervisor;
    h->llc_size = c->llc_size;
    h->zva_block = c->zva_block;
    /* The thresholds pc_host has a field for; the others are read through
     * pc_threshold_info. */
#define PCI_HOST_IN_HOST(field, value) h->field = (value);
#define PCI_HOST_NOT_IN_HOST(field, value)
#define PCI_THRESHOLD(id, index, env, env_min, min, max, never, host, rule, desc) \
    PCI_HOST_##host(id, t->v[index])
#include "thresholds.def"
#undef PCI_THRESHOLD
    h->unit = pc_default_unit();
    h->forced = o->forced >= 0 ? pci_impls[o->forced].name : NULL;
    h->numa_nodes = pci_numa()->nodes;
    h->family = c->family;
    h->model = c->model;
    h->stepping = c->stepping;
    _Static_assert(sizeof(h->profile) == sizeof(pr->path) &&
                       sizeof(h->profile_status) == sizeof(pr->status),
                   "pc_host and pci_profile carry the same strings");
    memcpy(h->profile, pr->path, sizeof(h->profile));
    memcpy(h->profile_status, pr->status, sizeof(h->profile_status));
    h->pool_tracking = pci_written_support();
    return PCI_ABI_OUT(pc_host, caller, size, h);
}
