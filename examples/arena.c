/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * arena.c - a request arena whose allocations always read as zero, on a
 * zeroed-page pool.
 *
 * A server gives each request a scratch arena: allocations bump a pointer
 * through one block, and the whole arena is reset when the request ends.
 * Callers get zeroed memory (calloc's promise) without a memset per
 * allocation:
 *   - the block comes from a pc_pool, so it is zero when the arena gets it;
 *   - a reset clears only the bytes the request used, with pc_clear_batched:
 *     the primitive chosen for the whole used extent, and a resched point
 *     per unit where a long reset lets other threads run;
 *   - when the arena is closed its block goes back to the pool, whose
 *     init_on_free policy clears it with streaming stores, so the next arena
 *     starts clean and the old requests' data does not linger.
 * The program runs requests of random sizes, writes into everything it is
 * given, and checks that every allocation reads as zero when handed out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pageclear.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BYTES ((size_t)16 << 20) /* one request's scratch, at most */
#define RESET_UNIT ((size_t)1 << 20)   /* a resched point per MiB cleared */
#define ALIGNMENT 16                   /* what malloc gives on x86-64 */
#define SESSIONS 3                     /* arenas opened one after another */
#define REQUESTS 20                    /* requests per arena */
#define MAX_ALLOC ((size_t)256 << 10)

struct arena {
    struct pc_pool *pool;
    unsigned char *base;
    size_t size, used;
    size_t yields, reset_bytes;
};

static int all_zero(const unsigned char *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

static int arena_open(struct arena *a, struct pc_pool *pool)
{
    *a = (struct arena){.pool = pool, .size = ARENA_BYTES};
    a->base = pc_pool_alloc(pool, ARENA_BYTES);
    return a->base ? 0 : -errno;
}

/* Zeroed memory, or NULL when the arena is full. */
static void *arena_alloc(struct arena *a, size_t n)
{
    size_t off = (a->used + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
    if (off > a->size || n > a->size - off)
        return NULL;
    a->used = off + n;
    return a->base + off;
}

static int yield_unit(void *ctx, size_t done, size_t total)
{
    (void)done;
    (void)total;
    ((struct arena *)ctx)->yields++;
    sched_yield();
    return 0; /* never cancel: the arena must end up clean */
}

static int arena_reset(struct arena *a)
{
    struct pc_batch b;
    size_t cleared = 0;
    pc_batch_init(&b);
    b.unit = RESET_UNIT;
    b.model = PC_PREEMPT_VOLUNTARY;
    b.resched = yield_unit;
    b.ctx = a;
    int rc = pc_clear_batched(a->base, a->used, &b, &cleared);
    if (rc == 0 && cleared != a->used)
        rc = -EIO;
    a->reset_bytes += cleared;
    a->used = 0;
    return rc;
}

int main(void)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.capacity = 2 * ARENA_BYTES;
    o.policy = PC_POOL_INIT_ON_FREE;
    struct pc_pool *pool = pc_pool_create(&o);
    if (pool == NULL)
        return perror("arena: pc_pool_create"), 1;
    srand(42);
    size_t allocs = 0, bytes = 0, reset_bytes = 0, yields = 0;
    for (int s = 0; s < SESSIONS; s++) {
        struct arena a;
        int rc = arena_open(&a, pool);
        if (rc != 0) {
            fprintf(stderr, "arena: pc_pool_alloc: %s\n", strerror(-rc));
            return 1;
        }
        for (int r = 0; r < REQUESTS; r++) {
            size_t budget = (size_t)rand() % ARENA_BYTES;
            for (;;) {
                size_t n = 1 + (size_t)rand() % MAX_ALLOC;
                unsigned char *p = arena_alloc(&a, n);
                if (p == NULL || a.used > budget)
                    break;
                if (!all_zero(p, n)) {
                    fprintf(stderr, "arena: session %d request %d: an allocation of "
                            "%zu bytes is not zero\n", s, r, n);
                    return 1;
                }
                memset(p, 0xA5, n); /* the request's data */
                allocs++;
                bytes += n;
            }
            if ((rc = arena_reset(&a)) != 0) {
                fprintf(stderr, "arena: reset: %s\n", strerror(-rc));
                return 1;
            }
        }
        reset_bytes += a.reset_bytes;
        yields += a.yields;
        if ((rc = pc_pool_free(pool, a.base)) != 0) {
            fprintf(stderr, "arena: pc_pool_free: %s\n", strerror(-rc));
            return 1;
        }
    }
    struct pc_pool_stats st;
    /* Every released byte was cleared, or found unwritten (known zero) or
     * given back to the kernel: where the kernel can say which pages a
     * session wrote, the pool clears only those. */
    if (pc_pool_stats(pool, &st) != 0 || st.in_use != 0 || st.frees != SESSIONS ||
        st.cleared_bytes + st.skipped_bytes + st.dropped_bytes <
            (size_t)SESSIONS * ARENA_BYTES) {
        fprintf(stderr, "arena: the pool did not clear the released arenas\n");
        return 1;
    }
    printf("arena: %d arenas x %d requests: %zu allocations (%.1f MiB) all read as "
           "zero when handed out\n", SESSIONS, REQUESTS, allocs, bytes / 1048576.0);
    printf("arena: resets cleared only what was used, %.1f MiB of %.1f MiB of "
           "arena, yielding %zu times (a point per %zu KiB)\n", reset_bytes / 1048576.0,
           (double)SESSIONS * REQUESTS * ARENA_BYTES / 1048576.0, yields, RESET_UNIT >> 10);
    printf("arena: the pool (%s pages, init_on_free) cleared %.1f MiB in %zu clears as "
           "arenas were closed\n", pc_backing_name(st.backing),
           st.cleared_bytes / 1048576.0, st.clears);
    pc_pool_destroy(pool);
    return 0;
}
