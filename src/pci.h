/*
 * pci.h - internal declarations shared by the library's source files.
 * Nothing here is public; public names live in include/pageclear.h.
 */
#ifndef PCI_H
#define PCI_H

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "pageclear.h"

/* Every internal name stays inside the library: no GOT indirection for the
 * plan the hot path reads, and nothing internal exported from the .so. */
#pragma GCC visibility push(hidden)

/* A primitive: zero [dst, dst + len), any alignment and length. */
typedef void (*pci_clear_fn)(void *dst, size_t len);
/* Its fill twin, for measurement (pc_impl_fill): the same code storing
 * pattern, which holds one byte value in all eight of its bytes. */
typedef void (*pci_fill_fn)(void *dst, size_t len, uint64_t pattern);

/* The fill pattern for byte b. */
static inline uint64_t pci_pattern(unsigned char b)
{
    return 0x0101010101010101ULL * b;
}

/* CPU/OS features, each confirmed at run time by src/arch/<arch>/cpu.c. */
enum pci_feature {
    PCI_F_X86_64 = 1u << 0,
    PCI_F_AARCH64 = 1u << 1,
    PCI_F_ERMS = 1u << 2,   /* enhanced rep movsb/stosb */
    PCI_F_FSRM = 1u << 3,   /* fast short rep mov */
    PCI_F_AVX2 = 1u << 4,   /* cpuid AVX2 and the OS saves YMM state */
    PCI_F_AVX512 = 1u << 5, /* cpuid AVX512F and the OS saves ZMM state */
    PCI_F_CLZERO = 1u << 6,
    PCI_F_DCZVA = 1u << 7   /* DCZID_EL0.DZP clear */
};

enum pci_vendor { PCI_VENDOR_OTHER, PCI_VENDOR_INTEL, PCI_VENDOR_AMD, PCI_VENDOR_ARM };

struct pci_cpu {
    unsigned features; /* enum pci_feature bits */
    enum pci_vendor vendor;
    char vendor_name[16];
    int hypervisor;
    size_t llc_size;  /* bytes, 0 if unknown */
    size_t zva_block; /* bytes, 0 if dc zva is unusable */
    /* x86-64: cpuid leaf 1 display family, model and stepping (what
     * /proc/cpuinfo shows); 0 elsewhere. Part of a profile's identity. */
    unsigned family, model, stepping;
};

/* Fill *c from the hardware. Implemented once per architecture. */
void pci_cpu_detect(struct pci_cpu *c);
/* The detected CPU, computed once. */
const struct pci_cpu *pci_cpu(void);
/* Write the names of the PCI_F_* bits in features, space-separated, as
 * pc_host.features shows them (host.c). */
void pci_feature_names(unsigned features, char *buf, size_t size);

/* PC_PORTABLE_ONLY builds what an architecture without primitives of its
 * own gets, on any host: the tests then cover the portable fallback. */
#if !defined(PC_PORTABLE_ONLY) && defined(__x86_64__)
#define PCI_HAVE_X86_64 1
#endif
#if !defined(PC_PORTABLE_ONLY) && defined(__aarch64__)
#define PCI_HAVE_AARCH64 1
#endif

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

enum pci_impl_id {
#define PCI_IMPL(id, name, arch, req, feat, cache, stores, desc) PCI_ID_##id,
#include "impl.def"
#undef PCI_IMPL
    PCI_NIMPL
};

/* Declare the primitives compiled for this architecture, and the fill
 * twins of those that can store any byte. */
#define PCI_DECL_FILL_ANY_BYTE(id) void pci_fill_##id(void *dst, size_t len, uint64_t pattern);
#define PCI_DECL_FILL_ZERO_ONLY(id)
#define PCI_DECL(id, stores)                                                   \
    void pci_clear_##id(void *dst, size_t len);                                \
    PCI_DECL_FILL_##stores(id)
#define PCI_DECL_ANY(id, stores) PCI_DECL(id, stores)
#if defined(PCI_HAVE_X86_64)
#define PCI_DECL_X86_64(id, stores) PCI_DECL(id, stores)
#else
#define PCI_DECL_X86_64(id, stores)
#endif
#if defined(PCI_HAVE_AARCH64)
#define PCI_DECL_AARCH64(id, stores) PCI_DECL(id, stores)
#else
#define PCI_DECL_AARCH64(id, stores)
#endif
#define PCI_IMPL(id, name, arch, req, feat, cache, stores, desc) PCI_DECL_##arch(id, stores)
#include "impl.def"
#undef PCI_IMPL

struct pci_impl {
    const char *name;
    const char *arch;
    const char *features;
    const char *description;
    unsigned required; /* arch bit | feature bits */
    enum pc_cache cache;
    pci_clear_fn fn; /* NULL when not compiled for this architecture */
    pci_fill_fn fill; /* NULL also for ZERO_ONLY primitives */
};

extern const struct pci_impl pci_impls[PCI_NIMPL];

/* 1 if primitive id exists here and *c confirms everything it needs. */
int pci_impl_runnable(const struct pci_cpu *c, int id);

/* Tunables from the environment, parsed once (options.c). PCI_UNSET / -1
 * mean "not set": the defaults then come from the CPU (dispatch.c). */
#define PCI_UNSET SIZE_MAX
struct pci_options {
    int forced;          /* primitive index from PAGECLEAR_IMPL, or -1 */
    size_t unit;         /* PAGECLEAR_UNIT */
    size_t vector_max;   /* PAGECLEAR_VECTOR_MAX */
    size_t nt_threshold; /* PAGECLEAR_NT_THRESHOLD (see given: SIZE_MAX
                            is also "never") */
    size_t cold_nt_threshold;     /* PAGECLEAR_COLD_NT_THRESHOLD */
    size_t parallel_nt_threshold; /* PAGECLEAR_PARALLEL_NT_THRESHOLD */
    unsigned given; /* PCI_OPT_* bits: which thresholds the environment set
                       (the nt ones accept "never" = SIZE_MAX = PCI_UNSET) */
};
#define PCI_OPT_VECTOR_MAX 0x1u
#define PCI_OPT_NT 0x2u
#define PCI_OPT_COLD_NT 0x4u
#define PCI_OPT_PARALLEL_NT 0x8u
const struct pci_options *pci_options(void);
/* 1 if PAGECLEAR_QUIET=1 silences the library's warnings. */
int pci_quiet(void);

/* Selection thresholds in force. */
struct pci_thresholds {
    size_t vector_max;   /* len < vector_max: vector stores */
    size_t nt_threshold; /* len >= nt_threshold: non-temporal stores */
    size_t cold_nt_threshold;     /* pc_clear_cold: from here, streaming */
    size_t parallel_nt_threshold; /* pc_clear_parallel on >1 thread: from
                                     here, streaming */
};
void pci_default_thresholds(const struct pci_cpu *c, struct pci_thresholds *t);
const struct pci_thresholds *pci_thresholds(void);

/* The selector: a pure function from CPU, thresholds and length to a
 * primitive index. temporal != 0 restricts it to cache-allocating ones. */
int pci_select(const struct pci_cpu *c, const struct pci_thresholds *t,
               size_t len, int temporal);

/* The four plans: what pc_clear, the hint neighbourhood (cache-allocating
 * only), pc_clear_cold and pc_clear_parallel on more than one thread run. */
enum pci_plan_kind {
    PCI_PLAN_CLEAR = 0,
    PCI_PLAN_TEMPORAL = 1,
    PCI_PLAN_COLD = 2,
    PCI_PLAN_PARALLEL = 3,
    PCI_NPLANS
};

/* The selector for a plan kind, as pure as pci_select: CLEAR and TEMPORAL
 * are pci_select; COLD and PARALLEL take the cache-allocating choice below
 * their own streaming threshold (pc_clear's nt_threshold does not reach
 * them) and, from it, the selector with non-temporal stores from that
 * threshold (vector stores only below it). */
int pci_select_kind(const struct pci_cpu *c, const struct pci_thresholds *t,
                    enum pci_plan_kind kind, size_t len);

/* The selection resolved for every length: range i covers lengths from
 * upto[i-1] (0 for i = 0) up to, not including, upto[i]; the last range
 * ends at SIZE_MAX (a len of SIZE_MAX cannot pass pci_check_range). */
/* Six ranges: the most a plan can have is one more than its boundaries
 * (vector_max, nt_threshold, the cold or parallel threshold, four dc zva
 * blocks), so no combination of thresholds can overflow it. */
#define PCI_PLAN_MAX 6
struct pci_plan {
    size_t n;
    size_t upto[PCI_PLAN_MAX];
    int id[PCI_PLAN_MAX];
    pci_clear_fn fn[PCI_PLAN_MAX];
};
/* Build the plan from the pure selector; forced >= 0 overrides it (for
 * temporal plans, only if the forced primitive allocates in cache). */
void pci_plan_build(const struct pci_cpu *c, const struct pci_thresholds *t,
                    int forced, int temporal, struct pci_plan *p);
/* The same for any kind; forced overrides every kind but TEMPORAL's
 * restriction to cache-allocating primitives. */
void pci_plan_build_kind(const struct pci_cpu *c, const struct pci_thresholds *t,
                         int forced, enum pci_plan_kind kind, struct pci_plan *p);
/* The plans in force, indexed by enum pci_plan_kind ([0] pc_clear, [1]
 * cache-allocating, for the hint neighbourhood, [2] pc_clear_cold, [3]
 * pc_clear_parallel's shares), valid once pci_plans_ready reads 1
 * (dispatch.c). They are reached inline: at 256 B the clear itself takes
 * ~4 ns, and calls across files to reach the plan measured ~3 ns more. */
extern struct pci_plan pci_plans[PCI_NPLANS];
extern int pci_plans_ready;
void pci_plans_init(void);

static inline const struct pci_plan *pci_plan(int temporal)
{
    if (__builtin_expect(!__atomic_load_n(&pci_plans_ready, __ATOMIC_ACQUIRE), 0))
        pci_plans_init();
    return &pci_plans[temporal != 0];
}

/* The plan of a kind (as pci_plan, for the cold and parallel ones). */
static inline const struct pci_plan *pci_plan_of(enum pci_plan_kind kind)
{
    if (__builtin_expect(!__atomic_load_n(&pci_plans_ready, __ATOMIC_ACQUIRE), 0))
        pci_plans_init();
    return &pci_plans[kind];
}

/* Index into p of the range holding len; the last range ends at SIZE_MAX. */
static inline size_t pci_plan_slot(const struct pci_plan *p, size_t len)
{
    size_t i = 0;
    while (len >= p->upto[i])
        i++;
    return i;
}

/* What pc_clear runs for len (honours PAGECLEAR_IMPL). */
static inline pci_clear_fn pci_clear_for(size_t len)
{
    const struct pci_plan *p = pci_plan(0);
    return p->fn[pci_plan_slot(p, len)];
}

/* The cache-allocating primitive for len (the hint neighbourhood). */
static inline pci_clear_fn pci_clear_temporal_for(size_t len)
{
    const struct pci_plan *p = pci_plan(1);
    return p->fn[pci_plan_slot(p, len)];
}

/* For memory nobody will read soon (cleared at free, or ahead of demand by
 * the pool's worker): pc_clear_cold's choice, i.e. non-temporal stores from
 * cold_nt_threshold where the CPU has them, so the clear neither pollutes
 * the cache nor waits on it. */
pci_clear_fn pci_clear_cold_for(size_t len);

/* pc_clear_cold's primitive for len, inline (the cold plan). */
static inline pci_clear_fn pci_clear_cold_inline(size_t len)
{
    const struct pci_plan *p = pci_plan_of(PCI_PLAN_COLD);
    return p->fn[pci_plan_slot(p, len)];
}

/* Profiles (profile.c). The profile read once at start: applied says
 * whether its thresholds are in force; path names it ("" if none was found
 * or it was refused); status is pc_host.profile_status. */
struct pci_profile {
    int applied;
    struct pc_tuning t;
    char path[256];
    char status[256];
};
/* Find, read and check the profile once (called while the plans are
 * built); warns once on stderr if one is refused. */
const struct pci_profile *pci_profile(void);

/* Validate (addr, len) as every entry point does: 0, -EINVAL if addr is
 * NULL with len > 0, -EOVERFLOW if the end wraps (or is exactly 2^64). */
static inline int pci_check_range(const void *addr, size_t len)
{
    if (len == 0)
        return 0;
    if (addr == NULL)
        return -EINVAL;
    if ((uintptr_t)addr + len < (uintptr_t)addr)
        return -EOVERFLOW;
    return 0;
}

/* Batching core shared by pc_clear_batched and the hint clear: clear
 * [addr, addr + len) with fn in units, calling the callback before each;
 * *done is advanced by the bytes cleared and reported against total. */
int pci_clear_units(char *addr, size_t len, pci_clear_fn fn,
                    const struct pc_batch *b, size_t *done, size_t total);
/* Resolve NULL / zero fields of a batch to the defaults; -EINVAL if bad. */
int pci_batch_resolve(const struct pc_batch *in, struct pc_batch *out);

/* Touch each page of [addr, addr + len) (page-aligned) for writing without
 * changing it; SIGBUS and SIGSEGV become -EFAULT / -ENOMEM (fault_guard.c). */
int pci_touch_pages(char *addr, size_t len);

/* NUMA nodes with CPUs, from a sysfs node directory (numa.c). */
#define PCI_NUMA_MAX 64
struct pci_numa {
    int nodes;
    cpu_set_t cpus[PCI_NUMA_MAX];
};
/* Read root (normally /sys/devices/system/node); returns nodes found. */
int pci_numa_read(const char *root, struct pci_numa *out);
/* Parse "0-3,8" into *set; returns CPUs, or -1 if malformed. */
int pci_parse_cpulist(const char *s, cpu_set_t *set);
/* The machine's nodes, read once. */
const struct pci_numa *pci_numa(void);

/* Small-length helper the primitives share for their head and tail:
 * store pattern (see pci_pattern) over [dst, dst + len). */
void pci_set_bytes(void *dst, size_t len, uint64_t pattern);
static inline void pci_clear_bytes(void *dst, size_t len)
{
    pci_set_bytes(dst, len, 0);
}

/* Store pattern from p up to the next multiple of align (a power of two),
 * or over all len bytes if fewer; return the aligned pointer and take what
 * was stored off *len. Every primitive with an aligned body starts so. */
static inline char *pci_set_head(char *p, size_t *len, size_t align, uint64_t pattern)
{
    size_t head = (size_t)(-(uintptr_t)p & (align - 1));
    if (head > *len)
        head = *len;
    pci_set_bytes(p, head, pattern);
    *len -= head;
    return p + head;
}

static inline char *pci_clear_head(char *p, size_t *len, size_t align)
{
    return pci_set_head(p, len, align, 0);
}

/* Each primitive that can store any byte is one always_inline body taking
 * the pattern; PCI_ZERO_AND_FILL(id, body) defines pci_clear_<id> (the
 * body with a constant 0, which the compiler folds: the clear's machine
 * code is what a zero-only version would be) and pci_fill_<id>. */
#define PCI_ZERO_AND_FILL(id, body, attrs)                                     \
    attrs void pci_clear_##id(void *dst, size_t len) { body(dst, len, 0); }   \
    attrs void pci_fill_##id(void *dst, size_t len, uint64_t pattern)          \
    {                                                                          \
        body(dst, len, pattern);                                               \
    }

#pragma GCC visibility pop

#endif /* PCI_H */
