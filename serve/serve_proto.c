/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_proto.c - the wire format of `pageclear serve`: decoding a
 * request (a pure function, fuzzed by tests/fuzz/fuzz_serve.c) and encoding
 * the reply. Fields are read and written with memcpy at fixed offsets, so
 * no struct layout or alignment of the buffer matters.
 */
#include <string.h>

#include "serve_proto.h"

static const char req_magic[4] = {'p', 'c', 'R', 'Q'};
static const char rep_magic[4] = {'p', 'c', 'R', 'P'};

/* Offsets of the fields; both messages share the first three. */
enum {
    OFF_MAGIC = 0,
    OFF_VERSION = 4,
    OFF_OP = 6, /* request; the reply's status sits here */
    OFF_SIZE = 8,
    OFF_PAGE = 16,
    OFF_FLAGS = 24,    /* request */
    OFF_RESERVED = 28, /* request: u32; the reply's u64 starts at 24 */
};

/* The largest size a request may ask for: 4 EiB, far above any machine,
 * and low enough that rounding up to a 1 GiB page stays below 2^63, so
 * the result is always a valid off_t for ftruncate and fallocate. */
#define SIZE_LIMIT ((uint64_t)1 << 62)

const uint64_t serve_page_bytes[SERVE_NPAGES] = {(uint64_t)2 << 20, (uint64_t)1 << 30};

int serve_page_index(uint64_t bytes)
{
    for (int i = 0; i < SERVE_NPAGES; i++)
        if (serve_page_bytes[i] == bytes)
            return i;
    return -1;
}

static uint16_t get16(const uint8_t *p, size_t off)
{
    uint16_t v;
    memcpy(&v, p + off, sizeof(v));
    return v;
}

static uint32_t get32(const uint8_t *p, size_t off)
{
    uint32_t v;
    memcpy(&v, p + off, sizeof(v));
    return v;
}

static uint64_t get64(const uint8_t *p, size_t off)
{
    uint64_t v;
    memcpy(&v, p + off, sizeof(v));
    return v;
}

enum serve_status serve_request_parse(const void *buf, size_t len, struct serve_request *out)
{
    const uint8_t *p = buf;
    /* The version is read before the length is judged: a later version's
     * request may be longer, and deserves a VERSION answer, not PROTO. */
    if (buf == NULL || len < OFF_OP || memcmp(p + OFF_MAGIC, req_magic, 4) != 0)
        return SERVE_E_PROTO;
    if (get16(p, OFF_VERSION) != SERVE_PROTO_VERSION)
        return SERVE_E_VERSION;
    if (len != SERVE_MSG_SIZE || get16(p, OFF_OP) != SERVE_OP_GET ||
        get32(p, OFF_RESERVED) != 0)
        return SERVE_E_PROTO;
    struct serve_request r = {
        .version = SERVE_PROTO_VERSION,
        .op = SERVE_OP_GET,
        .size = get64(p, OFF_SIZE),
        .page = get64(p, OFF_PAGE),
        .flags = get32(p, OFF_FLAGS),
    };
    if ((r.flags & ~SERVE_FLAGS_KNOWN) != 0 || r.size == 0 || r.size > SIZE_LIMIT ||
        serve_page_index(r.page) < 0)
        return SERVE_E_INVAL;
    *out = r;
    return SERVE_OK;
}

void serve_request_encode(uint8_t out[SERVE_MSG_SIZE], const struct serve_request *r)
{
    uint32_t reserved = 0;
    memcpy(out + OFF_MAGIC, req_magic, 4);
    memcpy(out + OFF_VERSION, &r->version, 2);
    memcpy(out + OFF_OP, &r->op, 2);
    memcpy(out + OFF_SIZE, &r->size, 8);
    memcpy(out + OFF_PAGE, &r->page, 8);
    memcpy(out + OFF_FLAGS, &r->flags, 4);
    memcpy(out + OFF_RESERVED, &reserved, 4);
}

void serve_reply_encode(uint8_t out[SERVE_MSG_SIZE], enum serve_status st, uint64_t size,
                        uint64_t page)
{
    uint16_t version = SERVE_PROTO_VERSION, status = (uint16_t)st;
    memset(out, 0, SERVE_MSG_SIZE);
    memcpy(out + OFF_MAGIC, rep_magic, 4);
    memcpy(out + OFF_VERSION, &version, 2);
    memcpy(out + OFF_OP, &status, 2);
    memcpy(out + OFF_SIZE, &size, 8);
    memcpy(out + OFF_PAGE, &page, 8);
}

const char *serve_status_text(enum serve_status st)
{
    static const char *const text[SERVE_NSTATUS] = {
        "ok",
        "malformed request",
        "unsupported protocol version",
        "invalid size, page size or flags",
        "over the quota",
        "no memory",
        "too many connections",
        "page size not supported by the kernel",
    };
    return (unsigned)st < SERVE_NSTATUS ? text[st] : "unknown status";
}
