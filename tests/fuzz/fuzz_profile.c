/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fuzz_profile.c - fuzz target for pc_profile_parse: arbitrary bytes,
 * alone or spliced into this host's valid identity lines so the fuzzer
 * also reaches the threshold keys. Invariants: the result is 0 or one of
 * the documented errnos; on an error the result is untouched and the
 * reason is a NUL-terminated line within whylen (nothing written past
 * it); on success every value is in range and format-then-parse gives the
 * same values. The text lies in a buffer of exactly its length, so the
 * sanitizers catch any read past len. libFuzzer with clang (-DPC_FUZZ=ON);
 * otherwise a seeded driver that builds inputs from the format's tokens.
 */
#include <errno.h>

#include "harness.h"

static char ident[2048]; /* identity lines only */
static char full[2048];  /* identity and all four thresholds */

static void setup(void)
{
    static int done;
    struct pc_tuning d;
    if (done)
        return;
    CHECK_EQ(pc_tuning_defaults(&d), 0);
    int n = pc_profile_format(&d, NULL, full, sizeof(full));
    CHECK(n > 0 && (size_t)n < sizeof(full));
    /* The identity is everything before the first threshold line. */
    const char *v = strstr(full, "vector_max = ");
    CHECK(v != NULL);
    memcpy(ident, full, (size_t)(v - full));
    ident[v - full] = '\0';
    done = 1;
}

static int in_range(size_t v, int nt)
{
    if (!nt)
        return v <= ((size_t)64 << 20);
    return v == SIZE_MAX || (v >= 4096 && v <= ((size_t)1 << 40));
}

static int successes;

static void check_parse(const char *text, size_t len, size_t whylen)
{
    struct pc_tuning t, poison;
    char why[300];
    memset(&t, 0x5a, sizeof(t));
    poison = t;
    memset(why, 0x77, sizeof(why));
    int rc = pc_profile_parse(text, len, &t, whylen ? why : NULL, whylen);
    CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE || rc == -ENODEV || rc == -EPROTO);
    if (whylen > 0) {
        const char *nul = memchr(why, '\0', whylen);
        CHECK(nul != NULL);
        CHECK(memchr(why, '\n', (size_t)(nul - why)) == NULL);
        for (size_t i = whylen; i < sizeof(why); i++)
            CHECK(why[i] == 0x77);
        CHECK(rc == 0 ? why[0] == '\0' : (whylen == 1 || why[0] != '\0'));
    }
    if (rc != 0) {
        CHECK(memcmp(&t, &poison, sizeof(t)) == 0);
        return;
    }
    successes++;
    CHECK(in_range(t.vector_max, 0) && in_range(t.nt_threshold, 1) &&
          in_range(t.cold_nt_threshold, 1) && in_range(t.parallel_nt_threshold, 1));
    char out[2048];
    struct pc_tuning back;
    int n = pc_profile_format(&t, "round trip", out, sizeof(out));
    CHECK(n > 0 && (size_t)n < sizeof(out));
    CHECK_EQ(pc_profile_parse(out, (size_t)n, &back, NULL, 0), 0);
    CHECK(back.vector_max == t.vector_max && back.nt_threshold == t.nt_threshold &&
          back.cold_nt_threshold == t.cold_nt_threshold &&
          back.parallel_nt_threshold == t.parallel_nt_threshold);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t whylens[] = {0, 1, 7, 64, 256};
    if (size < 1)
        return 0;
    setup();
    unsigned mode = data[0] & 3;
    size_t whylen = whylens[(data[0] >> 2) % 5];
    const char *body = (const char *)data + 1;
    size_t n = size - 1, il = strlen(ident), len = 0;
    char *text = malloc(n + sizeof(full) + 1); /* exact length below */
    CHECK(text != NULL);
    if (mode == 0) { /* the bytes alone */
        memcpy(text, body, n);
        len = n;
    } else if (mode == 1 || mode == 2) { /* after the identity (or all) */
        const char *pre = mode == 1 ? ident : full;
        size_t pl = strlen(pre);
        memcpy(text, pre, pl);
        memcpy(text + pl, body, n);
        len = pl + n;
    } else { /* inserted after some identity line */
        size_t lines = 0, at = 0;
        for (size_t i = 0; i < il; i++)
            lines += ident[i] == '\n';
        size_t want = n > 0 ? (unsigned char)body[0] % (lines + 1) : 0;
        for (size_t k = 0; k < want; k++)
            at += strcspn(ident + at, "\n") + 1;
        memcpy(text, ident, at);
        memcpy(text + at, body, n);
        memcpy(text + at + n, ident + at, il - at);
        len = il + n;
    }
    /* A copy of exactly len bytes: reading past it is caught. */
    char *exact = malloc(len ? len : 1);
    CHECK(exact != NULL);
    memcpy(exact, text, len);
    free(text);
    check_parse(exact, len, whylen);
    free(exact);
    return 0;
}

#ifndef PC_LIBFUZZER
/* Plain-test driver: inputs built from the format's own tokens (keys,
 * separators, sizes, never, comments, line ends) with random bytes mixed
 * in, so that both refusals and successes are reached. */
static const char *const tokens[] = {
    "vector_max", "nt_threshold", "cold_nt_threshold", "parallel_nt_threshold",
    "format", "library", "vendor", "cpu", "features", "llc", "hypervisor", "bogus",
    " = ", "=", " ", "\t", "\n", "\r\n", "# comment ", "#", "never", "NEVER", "0", "1",
    "4K", "4095", "32K", "64M", "65M", "1T", "2T", "16MiB", "8 M", "3Kx", "-1",
    "99999999999999999999", "0.2.0", "1.0.0", "2", "25.17.1", "AuthenticAMD",
    "x86-64", "avx2", "\n\n", "vector_max = 8K\n", "nt_threshold = never\n",
    "cold_nt_threshold = 1M\n", "parallel_nt_threshold = 256M\n",
};

int main(int argc, char **argv)
{
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    static uint8_t in[1024];
    const size_t nt = sizeof(tokens) / sizeof(tokens[0]);
    for (unsigned long it = 0; it < iters; it++) {
        size_t n = 0;
        in[n++] = (uint8_t)rng_next(&seed);
        size_t parts = rng_next(&seed) % 12;
        for (size_t p = 0; p < parts; p++) {
            uint64_t r = rng_next(&seed);
            if (r % 8 == 0) { /* a few raw bytes, NUL and high ones too */
                size_t k = r / 8 % 6 + 1;
                for (size_t j = 0; j < k && n < sizeof(in); j++)
                    in[n++] = (uint8_t)rng_next(&seed);
            } else {
                const char *tok = tokens[r / 8 % nt];
                size_t k = strlen(tok);
                if (n + k > sizeof(in))
                    break;
                memcpy(in + n, tok, k);
                n += k;
            }
        }
        if (it % 97 == 0 && n + 600 < sizeof(in)) { /* an over-long line */
            memset(in + n, 'x', 600);
            n += 600;
        }
        LLVMFuzzerTestOneInput(in, n);
    }
    /* The driver must reach the accepting path, or it tests refusals only. */
    CHECK(successes > 0);
    printf("ok: %lu inputs, %d accepted\n", iters, successes);
    return 0;
}
#endif
