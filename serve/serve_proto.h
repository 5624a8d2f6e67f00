/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_proto.h - the wire format of `pageclear serve` (serve_proto.c),
 * version 1, as docs/serve.md documents it: one fixed-size request per
 * connection on a SOCK_SEQPACKET Unix socket, one fixed-size reply, the
 * memory's descriptor attached to a successful reply (SCM_RIGHTS).
 *
 * Both messages are 32 bytes, in the host's byte order (the socket is
 * local):
 *   request: "pcRQ", u16 version, u16 op, u64 size, u64 page, u32 flags,
 *            u32 reserved (0)
 *   reply:   "pcRP", u16 version, u16 status, u64 size, u64 page,
 *            u64 reserved (0)
 * The library's client (src/serve_client.c) writes and reads the same
 * layout; tests/integration/daemon/test_serve.c checks the two against
 * each other.
 */
#ifndef PAGECLEAR_SERVE_PROTO_H
#define PAGECLEAR_SERVE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define SERVE_PROTO_VERSION 1
#define SERVE_MSG_SIZE 32 /* both messages, every version so far */
#define SERVE_OP_GET 1
/* Request flag: serve from the reserve only; never a fill at request
 * time (PC_SERVE_RESERVE_ONLY in pageclear.h). */
#define SERVE_FLAG_RESERVE_ONLY 0x1u
#define SERVE_FLAGS_KNOWN SERVE_FLAG_RESERVE_ONLY

/* A reply's status; the client turns each into a negative errno. */
enum serve_status {
    SERVE_OK = 0,
    SERVE_E_PROTO = 1,   /* malformed: length, magic, op, reserved bits */
    SERVE_E_VERSION = 2, /* a version this daemon does not speak; the
                            reply carries the one it does */
    SERVE_E_INVAL = 3,   /* size 0 or too large, page size, unknown flag */
    SERVE_E_QUOTA = 4,   /* over the asking uid's quota */
    SERVE_E_NOMEM = 5,   /* neither the reserve nor the kernel has it */
    SERVE_E_BUSY = 6,    /* too many connections now; try again */
    SERVE_E_NOTSUP = 7,  /* the kernel has no pages of that size */
};
#define SERVE_NSTATUS 8

struct serve_request {
    uint16_t version;
    uint16_t op;
    uint64_t size; /* bytes wanted, > 0 */
    uint64_t page; /* 2 MiB or 1 GiB */
    uint32_t flags;
};

/* The supported page sizes, by index (the reserve is kept per size). */
enum serve_page { SERVE_PAGE_2M = 0, SERVE_PAGE_1G = 1 };
#define SERVE_NPAGES 2
extern const uint64_t serve_page_bytes[SERVE_NPAGES];
/* The index of a page size in bytes, or -1. */
int serve_page_index(uint64_t bytes);

/* Decode the message buf[0, len), where len is its real length (recv
 * with MSG_TRUNC), so a longer message is told from a full one. A pure
 * function: reads only buf[0, min(len, SERVE_MSG_SIZE)), writes *out only
 * when it returns SERVE_OK; else the status to reply with. A request is
 * valid when it is exactly SERVE_MSG_SIZE bytes, has the magic, version
 * SERVE_PROTO_VERSION, op GET, no unknown flag, reserved 0, a supported
 * page size and a size in [1, 2^62] (its rounding up to the page always
 * fits an off_t). */
enum serve_status serve_request_parse(const void *buf, size_t len, struct serve_request *out);

/* Encode a request (tests, the bench) and a reply into out. */
void serve_request_encode(uint8_t out[SERVE_MSG_SIZE], const struct serve_request *r);
void serve_reply_encode(uint8_t out[SERVE_MSG_SIZE], enum serve_status st, uint64_t size,
                        uint64_t page);

/* One line for a status, for the daemon's log. */
const char *serve_status_text(enum serve_status st);

#endif
