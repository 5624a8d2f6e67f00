/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_pool.c - the zeroed-page pool: every error path, the policies seen
 * through their clear counts, reuse never leaking an old owner's data, and
 * a multi-threaded randomized alloc/free/write stress with guard pages
 * mapped right against the pool.
 */
#include <errno.h>
#include <pthread.h>

#include "harness.h"

#define PG TEST_PAGE

static struct pc_pool *make(size_t cap, enum pc_backing b, enum pc_pool_policy pol)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.capacity = cap;
    o.backing = b;
    o.policy = pol;
    struct pc_pool *p = pc_pool_create(&o);
    if (p == NULL)
        fprintf(stderr, "pool %s/%d: %s\n", pc_backing_name(b), pol, strerror(errno));
    return p;
}

static int all_zero(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

static void check_accounting(struct pc_pool *p)
{
    struct pc_pool_stats st;
    CHECK_EQ(pc_pool_stats(p, &st), 0);
    CHECK_EQ(st.in_use + st.clean + st.dirty, st.capacity);
}

static void test_errors(void)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.policy = (enum pc_pool_policy)9;
    errno = 0;
    CHECK(pc_pool_create(&o) == NULL && errno == EINVAL);
    pc_pool_opts_init(&o);
    o.backing = (enum pc_backing)9;
    CHECK(pc_pool_create(&o) == NULL && errno == EINVAL);
    pc_pool_opts_init(&o);
    o.populate = 2;
    CHECK(pc_pool_create(&o) == NULL && errno == EINVAL);
    pc_pool_opts_init(&o);
    o.capacity = SIZE_MAX;
    CHECK(pc_pool_create(&o) == NULL && errno == EOVERFLOW);

    struct pc_pool *p = make(16 * PG, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC);
    CHECK(p != NULL);
    errno = 0;
    CHECK(pc_pool_alloc(NULL, PG) == NULL && errno == EINVAL);
    CHECK(pc_pool_alloc(p, 0) == NULL && errno == EINVAL);
    CHECK(pc_pool_alloc(p, SIZE_MAX) == NULL && errno == EOVERFLOW);
    CHECK(pc_pool_alloc(p, 17 * PG) == NULL && errno == ENOMEM);

    char *a = pc_pool_alloc(p, 3 * PG + 1); /* 4 pages */
    CHECK(a != NULL && ((uintptr_t)a & (PG - 1)) == 0);
    pat_fill(a, 4 * PG);
    struct pc_pool_stats before, after;
    CHECK_EQ(pc_pool_stats(p, &before), 0);
    CHECK_EQ(before.in_use, 4 * PG);

    char stack[64];
    CHECK_EQ(pc_pool_free(NULL, a), -EINVAL);
    CHECK_EQ(pc_pool_free(p, stack), -EINVAL);     /* foreign */
    CHECK_EQ(pc_pool_free(p, a + PG), -EINVAL);    /* interior page */
    CHECK_EQ(pc_pool_free(p, a + 1), -EINVAL);     /* unaligned */
    CHECK_EQ(pc_pool_free(p, a + 8 * PG), -EINVAL);/* never allocated */
    CHECK_EQ(pc_pool_free(p, a - PG), -EINVAL);    /* just before the pool */
    CHECK_EQ(pc_pool_free(p, NULL), 0);
    CHECK_EQ(pc_pool_stats(NULL, &after), -EINVAL);
    CHECK_EQ(pc_pool_stats(p, NULL), -EINVAL);
    /* Nothing was changed by any of that. */
    CHECK_EQ(pc_pool_stats(p, &after), 0);
    CHECK_EQ(after.in_use, before.in_use);
    CHECK_EQ(after.frees, 0);
    CHECK_EQ(pat_check(a, 4 * PG, 0, 0), SIZE_MAX);

    CHECK_EQ(pc_pool_free(p, a), 0);
    CHECK_EQ(pc_pool_free(p, a), -EINVAL); /* double free */
    check_accounting(p);

    /* Exhaustion, then recovery once something is given back. */
    char *all = pc_pool_alloc(p, 16 * PG);
    CHECK(all != NULL);
    CHECK(pc_pool_alloc(p, PG) == NULL && errno == ENOMEM);
    CHECK_EQ(pc_pool_free(p, all), 0);
    CHECK(pc_pool_alloc(p, PG) != NULL);
    pc_pool_destroy(p);
    pc_pool_destroy(NULL);
    CHECK(strcmp(pc_backing_name(PC_BACKING_THP), "thp") == 0);
}

/* The policies, seen through when and how often the pool clears. */
static void test_policies(void)
{
    struct pc_pool_stats st;

    /* init_on_alloc: freeing leaves the pages dirty; reusing them costs one
     * batched clear per contiguous dirty run, and nothing for clean ones. */
    struct pc_pool *p = make(16 * PG, PC_BACKING_4K, PC_POOL_INIT_ON_ALLOC);
    CHECK(p != NULL);
    char *a = pc_pool_alloc(p, 8 * PG);
    memset(a, 0x5a, 8 * PG);
    CHECK_EQ(pc_pool_free(p, a), 0);
    pc_pool_stats(p, &st);
    CHECK_EQ(st.dirty, 8 * PG);
    CHECK_EQ(st.clears, 0);
    char *b = pc_pool_alloc(p, 8 * PG); /* next fit: the clean half */
    CHECK(b == a + 8 * PG);
    pc_pool_stats(p, &st);
    CHECK_EQ(st.clears, 0);
    char *c = pc_pool_alloc(p, 8 * PG); /* the dirty half: one clear */
    CHECK(c == a);
    CHECK(all_zero(c, 8 * PG));
    pc_pool_stats(p, &st);
    CHECK_EQ(st.clears, 1);
    CHECK_EQ(st.cleared_bytes, 8 * PG);
    check_accounting(p);
    /* b (pages 8-15) and c (pages 0-7) freed: 16 adjacent dirty pages, one
     * contiguous run, so reusing all of them costs one more clear. */
    memset(b, 1, 8 * PG);
    memset(c, 1, 8 * PG);
    CHECK_EQ(pc_pool_free(p, b), 0);
    CHECK_EQ(pc_pool_free(p, c), 0);
    char *x = pc_pool_alloc(p, 16 * PG);
    CHECK(x != NULL && all_zero(x, 16 * PG));
    pc_pool_stats(p, &st);
    CHECK_EQ(st.clears, 2);
    CHECK_EQ(st.cleared_bytes, 24 * PG);
    pc_pool_destroy(p);

    /* init_on_free: the clear happens in free; allocation never clears. */
    p = make(8 * PG, PC_BACKING_4K, PC_POOL_INIT_ON_FREE);
    CHECK(p != NULL);
    a = pc_pool_alloc(p, 8 * PG);
    memset(a, 0x77, 8 * PG);
    CHECK_EQ(pc_pool_free(p, a), 0);
    pc_pool_stats(p, &st);
    CHECK_EQ(st.clears, 1);
    CHECK_EQ(st.dirty, 0);
    CHECK(all_zero(a, 8 * PG)); /* freed data does not linger */
    a = pc_pool_alloc(p, 8 * PG);
    CHECK(all_zero(a, 8 * PG));
    pc_pool_stats(p, &st);
    CHECK_EQ(st.clears, 1);
    pc_pool_destroy(p);

    /* background: the worker cleans freed pages by itself. A liveness
     * check, not a timing one: it waits as long as the machine needs, up
     * to a minute. */
    p = make(64 * PG, PC_BACKING_4K, PC_POOL_BACKGROUND);
    CHECK(p != NULL);
    a = pc_pool_alloc(p, 64 * PG);
    memset(a, 0x33, 64 * PG);
    CHECK_EQ(pc_pool_free(p, a), 0);
    for (int i = 0; i < 60000; i++) {
        pc_pool_stats(p, &st);
        if (st.clean == 64 * PG)
            break;
        usleep(1000);
    }
    CHECK_EQ(st.clean, 64 * PG);
    CHECK(st.clears >= 1);
    CHECK(all_zero(a, 64 * PG));
    size_t clears = st.clears;
    a = pc_pool_alloc(p, 64 * PG);
    pc_pool_stats(p, &st);
    CHECK_EQ(st.clears, clears); /* already clean: allocation cleared nothing */
    pc_pool_destroy(p);
}

/* Reuse across backings and policies: zero at allocation, every time. */
static void test_reuse(void)
{
    const enum pc_backing backings[] = {PC_BACKING_AUTO, PC_BACKING_4K, PC_BACKING_THP};
    for (size_t bi = 0; bi < 3; bi++)
        for (int pol = 0; pol <= 2; pol++) {
            struct pc_pool *p = make(8 << 20, backings[bi], pol);
            if (p == NULL && backings[bi] == PC_BACKING_THP) {
                printf("skip thp backing (THP unavailable)\n");
                continue;
            }
            CHECK(p != NULL);
            struct pc_pool_stats st;
            pc_pool_stats(p, &st);
            CHECK(st.backing != PC_BACKING_AUTO);
            if (backings[bi] != PC_BACKING_AUTO)
                CHECK_EQ(st.backing, backings[bi]);
            for (int round = 0; round < 3; round++) {
                char *a = pc_pool_alloc(p, 3 << 20), *b = pc_pool_alloc(p, 5 << 20);
                /* Everything is free again each round: 3 + 5 MiB must fit
                 * the 8 MiB pool whatever the background worker has done. */
                CHECK(a != NULL && b != NULL);
                CHECK(all_zero(a, 3 << 20) && all_zero(b, 5 << 20));
                memset(a, 0xa5, 3 << 20);
                memset(b, 0x5a, 5 << 20);
                CHECK_EQ(pc_pool_free(p, b), 0);
                CHECK_EQ(pc_pool_free(p, a), 0);
            }
            check_accounting(p);
            pc_pool_destroy(p);
        }
}

/* ---- the stress ---- */

#define STRESS_THREADS 4
#define STRESS_PAGES 512
#define STRESS_SLOTS 16

static struct pc_pool *sp;
static char *sbase;
static unsigned char owner[STRESS_PAGES]; /* 0 free, else thread id + 1 */
static pthread_mutex_t owner_mu = PTHREAD_MUTEX_INITIALIZER;

/* Move pages [a, a + n pages) from owner `from` to owner `to`: claiming
 * (0 -> id) finds no other owner there, releasing (id -> 0) finds only us. */
static void claim(char *a, size_t n, unsigned char from, unsigned char to)
{
    size_t first = (size_t)(a - sbase) / PG;
    pthread_mutex_lock(&owner_mu);
    for (size_t i = first; i < first + n; i++) {
        CHECK(i < STRESS_PAGES);
        CHECK_EQ(owner[i], from);
        owner[i] = to;
    }
    pthread_mutex_unlock(&owner_mu);
}

static void *stress(void *arg)
{
    unsigned char id = (unsigned char)(uintptr_t)arg;
    uint64_t seed = 0x1234567ULL * (id + 1);
    struct { char *p; size_t n; } slot[STRESS_SLOTS] = {{0}};
    for (int it = 0; it < 4000; it++) {
        int s = (int)(rng_next(&seed) % STRESS_SLOTS);
        if (slot[s].p == NULL) {
            size_t n = 1 + rng_next(&seed) % 24;
            char *a = pc_pool_alloc(sp, n * PG - rng_next(&seed) % PG);
            if (a == NULL) {
                CHECK(errno == ENOMEM);
                continue;
            }
            CHECK(a >= sbase && a + n * PG <= sbase + STRESS_PAGES * PG);
            CHECK(all_zero(a, n * PG)); /* never another owner's data */
            claim(a, n, 0, id);
            memset(a, id, n * PG);
            slot[s].p = a;
            slot[s].n = n;
        } else {
            /* Our bytes are still ours: nobody wrote into them. */
            for (size_t i = 0; i < slot[s].n * PG; i++)
                CHECK_EQ((unsigned char)slot[s].p[i], id);
            claim(slot[s].p, slot[s].n, id, 0);
            /* (No double free here: another thread may already own these
             * pages again. test_errors and fuzz_pool cover it.) */
            CHECK_EQ(pc_pool_free(sp, slot[s].p), 0);
            slot[s].p = NULL;
        }
    }
    for (int s = 0; s < STRESS_SLOTS; s++)
        if (slot[s].p != NULL) {
            claim(slot[s].p, slot[s].n, id, 0);
            CHECK_EQ(pc_pool_free(sp, slot[s].p), 0);
        }
    return NULL;
}

static void test_stress(int policy)
{
    sp = make(STRESS_PAGES * PG, PC_BACKING_4K, policy);
    CHECK(sp != NULL);
    sbase = pc_pool_alloc(sp, PG); /* a fresh pool hands out its start first */
    CHECK(sbase != NULL);
    CHECK_EQ(pc_pool_free(sp, sbase), 0);
    /* Guard pages right against the pool, where the address space allows:
     * a clear or write past either end faults at once. */
    void *g1 = mmap(sbase - PG, PG, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    void *g2 = mmap(sbase + STRESS_PAGES * PG, PG, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    int guards = (g1 == sbase - PG) + (g2 == sbase + STRESS_PAGES * PG);
    memset(owner, 0, sizeof(owner));
    pthread_t t[STRESS_THREADS];
    for (int i = 0; i < STRESS_THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, stress, (void *)(uintptr_t)(i + 1)) == 0);
    for (int i = 0; i < STRESS_THREADS; i++)
        pthread_join(t[i], NULL);
    struct pc_pool_stats st;
    pc_pool_stats(sp, &st);
    CHECK_EQ(st.in_use, 0);
    CHECK_EQ(st.allocs, st.frees);
    check_accounting(sp);
    pc_pool_destroy(sp);
    if (g1 == sbase - PG)
        munmap(g1, PG);
    if (g2 == sbase + STRESS_PAGES * PG)
        munmap(g2, PG);
    printf("ok   stress, policy %d, %d guard pages, %zu allocations\n", policy, guards,
           st.allocs);
}

int main(void)
{
    test_errors();
    test_policies();
    test_reuse();
    for (int pol = 0; pol <= 2; pol++)
        test_stress(pol);
    puts("ok");
    return 0;
}
