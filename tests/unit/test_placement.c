/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_placement.c - pc_populate, pc_populate_many and pc_clear_parallel's
 * placement, chunking, start barrier and thread count on machines made up
 * through the seam of src/parallel/sys.h: two and four NUMA nodes, memory bound,
 * interleaved or under the default policy, hugetlb page sizes, affinity
 * masks wider than the 64 threads the library once stopped at. The
 * populate is the seam's too, so the addresses are never touched: each
 * call is recorded with the CPUs its thread was on at the time.
 */
#include <errno.h>
#include <pthread.h>

#include "harness.h"
#include "sys.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
#define MAX_EVENTS 200000
#define MAX_SLOTS 256
#define MAX_AREAS 16

/* The made-up machine. */
static struct pci_numa topo;
static cpu_set_t mask;                /* the affinity mask */
static struct area {                  /* policies and page sizes by address */
    uintptr_t lo, hi;
    enum pci_policy kind;
    uint64_t nodes;
    size_t page;
} areas[MAX_AREAS];
static int nareas;
static int fail_rc;                   /* the populate of fail_at returns it */
static uintptr_t fail_at;

/* What the workers did. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct event {
    int slot, started;                /* started: the barrier event */
    uintptr_t a;
    size_t len;
    cpu_set_t on;                     /* where slot was pinned then */
    int pinned;
} ev[MAX_EVENTS];
static int nev;
static cpu_set_t slot_on[MAX_SLOTS];
static int slot_pinned[MAX_SLOTS];

static const struct area *area_at(uintptr_t a)
{
    for (int i = 0; i < nareas; i++)
        if (a >= areas[i].lo && a < areas[i].hi)
            return &areas[i];
    return NULL;
}

static const struct pci_numa *f_topology(void)
{
    return &topo;
}

static int f_policy(const void *addr, enum pci_policy *kind, uint64_t *nodes)
{
    const struct area *ar = area_at((uintptr_t)addr);
    *kind = ar ? ar->kind : PCI_POLICY_SPREAD;
    *nodes = ar ? ar->nodes : 0;
    return 0;
}

static int f_affinity(cpu_set_t *set)
{
    *set = mask;
    return 0;
}

static int f_pin(int slot, const cpu_set_t *set)
{
    CHECK(slot >= 0 && slot < MAX_SLOTS);
    pthread_mutex_lock(&mu);
    slot_on[slot] = *set;
    slot_pinned[slot] = 1;
    pthread_mutex_unlock(&mu);
    return 0;
}

static size_t f_page_size(const void *addr, size_t len)
{
    (void)len;
    const struct area *ar = area_at((uintptr_t)addr);
    return ar && ar->page ? ar->page : TEST_PAGE;
}

static void record(int slot, int started, uintptr_t a, size_t len)
{
    CHECK(slot >= 0 && slot < MAX_SLOTS);
    pthread_mutex_lock(&mu);
    CHECK(nev < MAX_EVENTS);
    ev[nev] = (struct event){slot, started, a, len, slot_on[slot], slot_pinned[slot]};
    nev++;
    pthread_mutex_unlock(&mu);
}

static int f_populate(int slot, void *addr, size_t len, int flags)
{
    (void)flags;
    record(slot, 0, (uintptr_t)addr, len);
    return fail_rc && (uintptr_t)addr <= fail_at && fail_at < (uintptr_t)addr + len ? fail_rc
                                                                                     : 0;
}

static void f_started(int slot)
{
    record(slot, 1, 0, 0);
}

static const struct pci_sys fake = {f_topology, f_policy, f_affinity, f_pin,
                                    f_page_size, f_populate, f_started};

/* A machine of `nodes` nodes (ids from ids[]) of `per` CPUs each, all in
 * the affinity mask, no areas. */
static void machine(int nodes, const int *ids, int per)
{
    memset(&topo, 0, sizeof(topo));
    CPU_ZERO(&mask);
    topo.nodes = nodes;
    for (int n = 0; n < nodes; n++) {
        topo.id[n] = ids[n];
        CPU_ZERO(&topo.cpus[n]);
        for (int c = 0; c < per; c++) {
            CPU_SET(n * per + c, &topo.cpus[n]);
            CPU_SET(n * per + c, &mask);
        }
    }
    nareas = 0;
    fail_rc = 0;
}

static void area(uintptr_t lo, size_t len, enum pci_policy kind, uint64_t nodes,
                 size_t page)
{
    CHECK(nareas < MAX_AREAS);
    areas[nareas++] = (struct area){lo, lo + len, kind, nodes, page};
}

static void reset_events(void)
{
    nev = 0;
    memset(slot_pinned, 0, sizeof(slot_pinned));
}

/* The CPUs of the nodes in `nodes` (by id). */
static void cpus_of(uint64_t nodes, cpu_set_t *out)
{
    CPU_ZERO(out);
    for (int n = 0; n < topo.nodes; n++)
        if (nodes >> topo.id[n] & 1)
            CPU_OR(out, out, &topo.cpus[n]);
}

static int subset(const cpu_set_t *a, const cpu_set_t *b)
{
    cpu_set_t x;
    CPU_AND(&x, a, b);
    return CPU_EQUAL(&x, a);
}

static int cmp_event(const void *x, const void *y)
{
    const struct event *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a;
}

/* The populate events, sorted, cover exactly the page-rounded extents,
 * each chunk at most `chunk` bytes (the extent's) and ending on a chunk
 * boundary or at the extent's end; none is repeated. Checks too that every
 * participant started before any populate (the barrier), and returns the
 * number of participants. */
static int check_cover(const struct pc_extent *e, size_t n, const size_t *chunk)
{
    int last_start = -1, first_pop = nev, slots = 0;
    for (int i = 0; i < nev; i++) {
        if (ev[i].started) {
            last_start = i;
            slots++;
        } else if (first_pop == nev) {
            first_pop = i;
        }
    }
    CHECK(last_start < first_pop);
    qsort(ev, (size_t)nev, sizeof(ev[0]), cmp_event);
    int k = slots; /* the started events sort first: their a is 0 */
    for (size_t r = 0; r < n; r++) {
        uintptr_t lo = (uintptr_t)e[r].addr & ~(TEST_PAGE - 1);
        uintptr_t hi = ((uintptr_t)e[r].addr + e[r].len + TEST_PAGE - 1) & ~(TEST_PAGE - 1);
        for (uintptr_t at = lo; at < hi; k++) {
            CHECK(k < nev);
            CHECK_EQ(ev[k].a, at);
            uintptr_t end = ev[k].a + ev[k].len;
            CHECK(ev[k].len > 0 && ev[k].len <= chunk[r]);
            CHECK(end == hi || end % chunk[r] == 0);
            at = end;
        }
    }
    CHECK_EQ(k, nev);
    return slots;
}

/* Every populate ran on CPUs of the nodes its memory is bound to. */
static void check_bound(uintptr_t lo, uintptr_t hi, uint64_t nodes)
{
    cpu_set_t want;
    cpus_of(nodes, &want);
    for (int i = 0; i < nev; i++)
        if (!ev[i].started && ev[i].a >= lo && ev[i].a < hi) {
            CHECK(ev[i].pinned);
            CHECK(subset(&ev[i].on, &want));
        }
}

static const uintptr_t BASE = (uintptr_t)1 << 44; /* never touched */

/* Two nodes: memory bound to node 1 is populated from node 1's CPUs only,
 * by as many threads as asked; default and interleaved memory from both
 * nodes, one node per thread. */
static void test_two_nodes(void)
{
    const int ids[] = {0, 1};
    machine(2, ids, 4);
    area(BASE, GIB, PCI_POLICY_BOUND, 1u << 1, 0);
    struct pc_extent e = {(void *)BASE, GIB};
    size_t chunk = 4 * MIB;
    reset_events();
    CHECK_EQ(pc_populate(e.addr, e.len, 4, 0), 0);
    CHECK_EQ(check_cover(&e, 1, &chunk), 4);
    check_bound(BASE, BASE + GIB, 1u << 1);

    for (int kind = 0; kind < 2; kind++) { /* default, then interleaved */
        machine(2, ids, 4);
        if (kind == 1)
            area(BASE, GIB, PCI_POLICY_SPREAD, 3, 0);
        reset_events();
        CHECK_EQ(pc_populate(e.addr, e.len, 0, 0), 0); /* all 8 CPUs */
        CHECK_EQ(check_cover(&e, 1, &chunk), 8);
        int on[2] = {0, 0};
        for (int s = 0; s < 8; s++) {
            CHECK(slot_pinned[s]);
            CHECK(CPU_EQUAL(&slot_on[s], &topo.cpus[0]) ||
                  CPU_EQUAL(&slot_on[s], &topo.cpus[1]));
            on[CPU_EQUAL(&slot_on[s], &topo.cpus[1])]++;
        }
        CHECK_EQ(on[0], 4);
        CHECK_EQ(on[1], 4);
    }
    puts("ok   two nodes: bound, default and interleaved placement");
}

/* Four nodes with ids 0, 1, 2 and 5 (a gap, as on machines with
 * memory-only or offline nodes): regions bound to node 5, to nodes 1 and 2
 * (a preferred-many or multi-node bind), and one under the default policy,
 * populated in one call. Each chunk runs on its own memory's nodes; the
 * affinity mask leaves out node 2's CPUs, so memory bound there alone gets
 * the rest of the mask. */
static void test_four_nodes(void)
{
    const int ids[] = {0, 1, 2, 5};
    machine(4, ids, 2);
    uintptr_t a = BASE, b = BASE + 4 * GIB, c = BASE + 8 * GIB, d = BASE + 12 * GIB;
    area(a, GIB, PCI_POLICY_BOUND, 1u << 5, 0);
    area(b, GIB, PCI_POLICY_BOUND, (1u << 1) | (1u << 2), 0);
    area(c, GIB, PCI_POLICY_SPREAD, 0, 0);
    area(d, GIB, PCI_POLICY_BOUND, 1u << 2, 0);
    struct pc_extent e[] = {{(void *)a, 300 * MIB}, {(void *)b, 300 * MIB},
                            {(void *)c, 300 * MIB}, {(void *)d, 100 * MIB}};
    size_t chunk[] = {4 * MIB, 4 * MIB, 4 * MIB, 4 * MIB};
    reset_events();
    CHECK_EQ(pc_populate_many(e, 4, 0, 0), 0);
    CHECK_EQ(check_cover(e, 4, chunk), 8);
    check_bound(a, a + GIB, 1u << 5);
    check_bound(b, b + GIB, (1u << 1) | (1u << 2));

    /* Node 2 outside the mask: its memory gets the whole mask. */
    CPU_CLR(4, &mask);
    CPU_CLR(5, &mask);
    reset_events();
    CHECK_EQ(pc_populate_many(e, 4, 6, 0), 0);
    CHECK_EQ(check_cover(e, 4, chunk), 6);
    check_bound(a, a + GIB, 1u << 5);
    for (int i = 0; i < nev; i++)
        if (!ev[i].started) {
            CHECK(subset(&ev[i].on, &mask));
            if (ev[i].a >= d)
                CHECK(CPU_EQUAL(&ev[i].on, &mask));
        }
    puts("ok   four nodes: several placements in one call");
}

/* Chunks follow the mapping's pages: 1 GiB pages one page each, 2 MiB
 * pages and THP in 4 MiB chunks on 4 MiB boundaries, a misaligned start
 * rounded down to its page and its first chunk ending on a boundary. */
static void test_chunks(void)
{
    const int ids[] = {0, 1};
    machine(2, ids, 4);
    area(BASE, 8 * GIB, PCI_POLICY_SPREAD, 0, GIB);
    area(BASE + 8 * GIB, 2 * GIB, PCI_POLICY_SPREAD, 0, 2 * MIB);
    struct pc_extent e[] = {{(void *)BASE, 8 * GIB},
                            {(void *)(BASE + 8 * GIB + 3 * MIB + 5), 512 * MIB}};
    size_t chunk[] = {GIB, 4 * MIB};
    reset_events();
    CHECK_EQ(pc_populate_many(e, 2, 8, 0), 0);
    CHECK_EQ(check_cover(e, 2, chunk), 8);
    int gib = 0;
    for (int i = 0; i < nev; i++)
        gib += !ev[i].started && ev[i].len == GIB && ev[i].a % GIB == 0;
    CHECK_EQ(gib, 8);
    /* One 1 GiB page is one chunk: one participant, however many asked. */
    struct pc_extent one = {(void *)BASE, GIB};
    reset_events();
    CHECK_EQ(pc_populate(one.addr, one.len, 8, 0), 0);
    CHECK_EQ(check_cover(&one, 1, chunk), 1);
    puts("ok   chunks: a page for 1 GiB pages, 4 MiB on boundaries otherwise");
}

/* No cap below the affinity mask: 100 CPUs, 100 threads; 80 asked, 80. */
static void test_no_cap(void)
{
    const int ids[] = {0, 1};
    machine(2, ids, 50);
    struct pc_extent e = {(void *)BASE, 100 * 64 * MIB};
    size_t chunk = 4 * MIB;
    reset_events();
    CHECK_EQ(pc_populate(e.addr, e.len, 0, 0), 0);
    CHECK_EQ(check_cover(&e, 1, &chunk), 100);
    reset_events();
    CHECK_EQ(pc_populate(e.addr, e.len, 80, 0), 0);
    CHECK_EQ(check_cover(&e, 1, &chunk), 80);
    /* Sized to the work still: 64 MiB a thread at least. */
    e.len = 10 * 64 * MIB;
    reset_events();
    CHECK_EQ(pc_populate(e.addr, e.len, 0, 0), 0);
    CHECK_EQ(check_cover(&e, 1, &chunk), 10);
    puts("ok   no cap below the affinity mask (100 threads)");
}

/* One thread: the caller, unpinned; errors from the populate come back. */
static void test_one_and_errors(void)
{
    const int ids[] = {0, 1};
    machine(2, ids, 2);
    struct pc_extent e = {(void *)BASE, 256 * MIB};
    size_t chunk = 4 * MIB;
    reset_events();
    CHECK_EQ(pc_populate(e.addr, e.len, 1, 0), 0);
    CHECK_EQ(check_cover(&e, 1, &chunk), 1);
    for (int i = 0; i < nev; i++)
        CHECK(!ev[i].pinned);
    fail_rc = -EIO;
    fail_at = BASE + 100 * MIB + 5;
    reset_events();
    CHECK_EQ(pc_populate(e.addr, e.len, 4, 0), -EIO);
    reset_events();
    CHECK_EQ(pc_populate(e.addr, e.len, 1, 0), -EIO);
    puts("ok   one thread in place; errors returned");
}

/* pc_clear_parallel is placed the same way (its clears are real, so on
 * real memory; the machine around it is made up). */
static void test_clear_placed(void)
{
    const int ids[] = {0, 1};
    machine(2, ids, 2);
    struct guarded g;
    guarded_alloc(&g, 130 * MIB);
    area((uintptr_t)g.lo, g.len, PCI_POLICY_BOUND, 1u << 1, 0);
    pat_fill(g.lo, g.len);
    reset_events();
    CHECK_EQ(pc_clear_parallel(g.lo + 3, g.len - 3, 2), 0);
    CHECK_EQ(pat_check(g.lo, g.len, 3, g.len), SIZE_MAX);
    int started = 0;
    for (int s = 0; s < nev; s++)
        started += ev[s].started;
    CHECK_EQ(started, 2);
    for (int s = 0; s < 2; s++)
        CHECK(slot_pinned[s] && CPU_EQUAL(&slot_on[s], &topo.cpus[1]));
    guarded_free(&g);
    puts("ok   pc_clear_parallel placed on the bound node");
}

int main(void)
{
    pci_sys_use(&fake);
    test_two_nodes();
    test_four_nodes();
    test_chunks();
    test_no_cap();
    test_one_and_errors();
    test_clear_placed();
    pci_sys_use(NULL);
    puts("ok");
    return 0;
}
