/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * target.h - what the timed calls clear, in one of four cache states
 * (target.c says what each means).
 */
#ifndef PAGECLEAR_CLI_TARGET_H
#define PAGECLEAR_CLI_TARGET_H

#include <stddef.h>

#include "buffer.h"

enum cli_cache { CLI_CACHE_WARM, CLI_CACHE_COLD, CLI_CACHE_USE, CLI_CACHE_FIRST };
/* The states the grids measure (tune, check, the suite): the first three.
 * first (a fresh mapping each call) is `mem --cache first`'s only: the
 * library's choices are not made on it. */
#define CLI_NCACHE 3
int cli_parse_cache(const char *s, enum cli_cache *out); /* -1 if invalid */
const char *cli_cache_name(enum cli_cache c);           /* "warm", ... */
const char *cli_cache_what(enum cli_cache c);           /* one line */
/* What each call stores: zeros (the clears), perf's memset byte (the loop
 * index), or a fixed byte 0..255 (memset -v). */
#define CLI_FILL_NONE (-1)
#define CLI_FILL_LOOP (-2)
/* What the timed calls clear: extents of size bytes, the same one (warm)
 * or the next one of a rotation over region bytes (cold, use). */
struct cli_target {
    char *base;
    size_t region, size, next;
    enum cli_cache cache;
    enum cli_page page;   /* first: what each fresh mapping is backed by */
    int fill;             /* CLI_FILL_* or a byte */
    struct cli_buf buf;   /* the region, when cli_target_map mapped it */
    struct cli_buf evict; /* read before each cold run to empty the cache */
    struct cli_buf src;   /* a copy's source, laid out as the region (or NULL) */
};
/* Bytes a cold rotation for size-byte extents spans: four LLCs, at least
 * 256 MiB, a whole number of extents; size itself when larger. */
size_t cli_cold_span(size_t size);
/* Map and populate a target (CLI_MAP_POPULATE, page size page); 0 or
 * -errno with the reason in err. */
int cli_target_map(struct cli_target *t, size_t size, enum cli_cache c,
                   enum cli_page page, int fill, char *err, size_t errlen);
/* A source for copies into t (CLI_FN_MEMCPY): region bytes of t's page
 * size, populated and zeroed, as perf's memcpy workload has it. 0 or
 * -errno with the reason in err; cli_target_unmap gives it back. */
int cli_target_map_source(struct cli_target *t, char *err, size_t errlen);
/* Where a copy into the extent at p reads from: the same offset of the
 * source; NULL without one. */
const char *cli_target_source(const struct cli_target *t, const char *p);
/* A warm target over a buffer the caller owns (zeros stored). */
void cli_target_warm(struct cli_target *t, char *buf, size_t size);
void cli_target_unmap(struct cli_target *t);
/* The extent the next call clears. */
char *cli_target_next(struct cli_target *t);
/* first: a fresh, untouched mapping of t->size bytes for the next call,
 * or NULL (out of memory); give it back with cli_target_release. */
char *cli_target_fresh(struct cli_target *t, struct cli_buf *b);
void cli_target_release(struct cli_buf *b);
/* The caller's use of a cleared extent: read and write every line. */
void cli_target_use(char *p, size_t size);
/* Empty the cache of what the last run left (cold and use; no-op warm). */
void cli_target_evict(struct cli_target *t);

#endif
