/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * target.c - what a timed call clears, in one of four cache states:
 *   warm  the same extent again and again (perf bench's method): after the
 *         first pass it sits in cache as far as it fits;
 *   cold  each call clears the next extent of a region several times the
 *         LLC, so the extent was last written long ago and is not in
 *         cache (the memory an allocator, pool or kernel hands out);
 *   use   cold, and then the caller reads and writes every line of the
 *         extent, timed with the clear: what pc_clear's contract serves.
 *   first each call clears a fresh anonymous mapping, mapped before and
 *         unmapped after the timed call: the call is the memory's first
 *         touch and faults every page in (the kernel zeroing each into
 *         the cache), as a memset right after a large malloc.
 * Before each timed run of a cold or use target a read of twice the LLC
 * evicts whatever the previous run left (streaming stores do not evict
 * lines they do not write, so rotation alone would not).
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "pageclear.h"

#include "buffer.h"
#include "target.h"
#include "units.h"

/* The rotation spans at least four LLCs: an extent then comes round again
 * only after four caches' worth of other extents were written, so even a
 * cache that does not replace in LRU order has let it go. Never less than
 * 256 MiB, so a small or unknown LLC (cpuid may report none in a guest)
 * still rotates over memory no cache holds. */
#define COLD_SPAN_MIN (256 * MIB)
#define COLD_LLCS 4
/* What the eviction read covers when the LLC is unknown. */
#define EVICT_MIN (64 * MIB)

static const char *const names[] = {"warm", "cold", "use", "first"};
static const char *const what[] = {
    "the same extent repeated (in cache as far as it fits)",
    "each clear hits an extent not in cache",
    "a cold extent, then the caller reads and writes every line (timed)",
    "each clear is the first touch of a fresh mapping (page faults timed)",
};

int cli_parse_cache(const char *s, enum cli_cache *out)
{
    for (int i = 0; i < 4; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = (enum cli_cache)i;
            return 0;
        }
    return -1;
}

const char *cli_cache_name(enum cli_cache c)
{
    return names[c];
}

const char *cli_cache_what(enum cli_cache c)
{
    return what[c];
}

static size_t llc_size(void)
{
    struct pc_host h;
    pc_host_get(&h);
    return h.llc_size;
}

size_t cli_cold_span(size_t size)
{
    size_t llc = llc_size(), span = COLD_LLCS * llc;
    if (span < COLD_SPAN_MIN)
        span = COLD_SPAN_MIN;
    if (size >= span)
        return size; /* one extent already spans several LLCs */
    return (span + size - 1) / size * size;
}

int cli_target_map(struct cli_target *t, size_t size, enum cli_cache c,
                   enum cli_page page, int fill, char *err, size_t errlen)
{
    *t = (struct cli_target){.size = size, .cache = c, .page = page, .fill = fill};
    if (c == CLI_CACHE_FIRST) {
        /* Nothing kept: one mapping now, to report a page size that
         * cannot be had before any run. */
        int rc = cli_buf_map(&t->buf, size, page, 0, err, errlen);
        cli_buf_unmap(&t->buf);
        t->region = size;
        return rc;
    }
    size_t region = c == CLI_CACHE_WARM ? size : cli_cold_span(size);
    int rc = cli_buf_map(&t->buf, region, page, CLI_MAP_POPULATE, err, errlen);
    if (rc != 0)
        return rc;
    t->base = t->buf.addr;
    t->region = region;
    memset(t->base, 0, region); /* the untimed first clear, as perf bench */
    if (c != CLI_CACHE_WARM) {
        size_t ev = 2 * llc_size();
        if (ev < EVICT_MIN)
            ev = EVICT_MIN;
        rc = cli_buf_map(&t->evict, ev, CLI_PAGE_4K, CLI_MAP_POPULATE, err, errlen);
        if (rc != 0) {
            cli_buf_unmap(&t->buf);
            return rc;
        }
        memset(t->evict.addr, 1, ev); /* backed by pages of its own */
    }
    return 0;
}

int cli_target_map_source(struct cli_target *t, char *err, size_t errlen)
{
    int rc = cli_buf_map(&t->src, t->region, t->page, CLI_MAP_POPULATE, err, errlen);
    if (rc == 0)
        memset(t->src.addr, 0, t->region);
    return rc;
}

const char *cli_target_source(const struct cli_target *t, const char *p)
{
    if (t->src.addr == NULL)
        return NULL;
    return t->base != NULL ? t->src.addr + (p - t->base) : t->src.addr;
}

void cli_target_warm(struct cli_target *t, char *buf, size_t size)
{
    *t = (struct cli_target){.base = buf, .region = size, .size = size,
                             .cache = CLI_CACHE_WARM, .fill = CLI_FILL_NONE};
}

void cli_target_unmap(struct cli_target *t)
{
    cli_buf_unmap(&t->buf);
    cli_buf_unmap(&t->evict);
    cli_buf_unmap(&t->src);
}

char *cli_target_next(struct cli_target *t)
{
    char *p = t->base + t->next;
    if (t->cache != CLI_CACHE_WARM) {
        t->next += t->size;
        if (t->next + t->size > t->region)
            t->next = 0;
    }
    return p;
}

char *cli_target_fresh(struct cli_target *t, struct cli_buf *b)
{
    char err[256];
    return cli_buf_map(b, t->size, t->page, 0, err, sizeof(err)) == 0 ? b->addr : NULL;
}

void cli_target_release(struct cli_buf *b)
{
    cli_buf_unmap(b);
}

/* The caller's use of what it cleared: a read and a write in every line.
 * Each write depends on the reads (a running sum), so neither can be
 * dropped, and the memory escaped to the library, so the stores stay. */
void cli_target_use(char *p, size_t size)
{
    unsigned char sum = 0;
    for (size_t i = 0; i < size; i += 64) {
        sum = (unsigned char)(sum + (unsigned char)p[i]);
        p[i] = (char)(sum | 1);
    }
}

void cli_target_evict(struct cli_target *t)
{
    const volatile char *p = t->evict.addr;
    if (p == NULL)
        return;
    for (size_t i = 0; i < t->evict.map_len; i += 64)
        (void)p[i];
}
