/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fuzz_results.c - fuzz target for the command's JSON reader and results
 * reader (cli/json.c, cli/compare/results.c), which `pageclear compare` runs on
 * files it is handed. Invariants: the reader never reads outside the text
 * (it lies in a buffer of exactly its length, for the sanitizers);
 * returns 0 or -1, and on -1 a reason that is one NUL-terminated line
 * within the buffer given and nothing held; on 0, a tree whose every
 * link stays inside it, that written back out as JSON and read again is
 * the same tree; a results file read has every record's runs where it
 * says. libFuzzer with clang (-DPC_FUZZ=ON); otherwise a seeded driver
 * that mutates a valid results file and JSON's own tokens.
 */
#include <math.h>

#include "harness.h"
#include "json.h"
#include "results.h"

char **cli_argv; /* env.c names the command line; main.c is not linked */

static int accepted, refused;

/* The reason: one line, NUL-terminated within errlen, nothing after. */
static void check_reason(const char *err, size_t errlen, size_t cap)
{
    const char *nul = memchr(err, '\0', errlen);
    CHECK(nul != NULL && nul > err);
    CHECK(memchr(err, '\n', (size_t)(nul - err)) == NULL);
    for (size_t i = errlen; i < cap; i++)
        CHECK(err[i] == 0x77);
}

/* Write n (and its children) as JSON. */
static void emit(FILE *f, const struct cli_json *d, const struct cli_json_node *n, int depth)
{
    CHECK(depth <= CLI_JSON_MAX_DEPTH + 1);
    switch (n->type) {
    case CLI_JSON_NULL: fputs("null", f); break;
    case CLI_JSON_TRUE: fputs("true", f); break;
    case CLI_JSON_FALSE: fputs("false", f); break;
    case CLI_JSON_NUMBER: fprintf(f, "%.17g", n->num); break;
    case CLI_JSON_STRING:
        CHECK(strlen(cli_json_str(d, n)) == n->len);
        cli_json_put_string(f, cli_json_str(d, n));
        break;
    default: {
        int obj = n->type == CLI_JSON_OBJECT;
        uint32_t count = 0;
        fputc(obj ? '{' : '[', f);
        for (const struct cli_json_node *e = cli_json_first(d, n); e; e = cli_json_next(d, e)) {
            CHECK((size_t)(e - d->node) < d->count && e > n); /* children come after */
            fputs(count++ ? "," : "", f);
            if (obj) {
                cli_json_put_string(f, cli_json_key(d, e));
                fputc(':', f);
            }
            emit(f, d, e, depth + 1);
        }
        CHECK(count == n->len);
        fputc(obj ? '}' : ']', f);
    }
    }
}

/* The two trees are the same. */
static void same(const struct cli_json *a, const struct cli_json_node *x, const struct cli_json *b,
                 const struct cli_json_node *y)
{
    CHECK(x->type == y->type && x->len == y->len);
    if (x->type == CLI_JSON_NUMBER)
        CHECK(x->num == y->num || (x->num == 0 && y->num == 0));
    if (x->type == CLI_JSON_STRING)
        CHECK(strcmp(cli_json_str(a, x), cli_json_str(b, y)) == 0);
    const struct cli_json_node *e = cli_json_first(a, x), *g = cli_json_first(b, y);
    for (; e && g; e = cli_json_next(a, e), g = cli_json_next(b, g)) {
        if (x->type == CLI_JSON_OBJECT)
            CHECK(strcmp(cli_json_key(a, e), cli_json_key(b, g)) == 0);
        same(a, e, b, g);
    }
    CHECK(e == NULL && g == NULL);
}

static void check_json(const char *text, size_t len, size_t errlen)
{
    struct cli_json d, back;
    char err[300];
    memset(err, 0x77, sizeof(err));
    if (cli_json_parse(&d, text, len, err, errlen) != 0) {
        CHECK(d.node == NULL && d.count == 0);
        if (errlen > 1)
            check_reason(err, errlen, sizeof(err));
        return;
    }
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    CHECK(f != NULL);
    emit(f, &d, cli_json_root(&d), 0);
    CHECK(fclose(f) == 0);
    int rc = cli_json_parse(&back, out, outlen, err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "written back: %s\nrefused: %s\n", out, err);
    CHECK(rc == 0);
    same(&d, cli_json_root(&d), &back, cli_json_root(&back));
    cli_json_free(&back);
    cli_json_free(&d);
    free(out);
}

static void check_results(const char *text, size_t len, size_t errlen)
{
    struct cli_results r;
    char err[300];
    memset(err, 0x77, sizeof(err));
    if (cli_results_parse(&r, text, len, err, errlen) != 0) {
        CHECK(r.n == 0 && r.r == NULL && r.doc.node == NULL);
        if (errlen > 1)
            check_reason(err, errlen, sizeof(err));
        refused++;
        return;
    }
    accepted++;
    for (size_t i = 0; i < r.n; i++) {
        const struct cli_result *x = &r.r[i];
        CHECK(x->runs >= 1 && x->threads >= 1 && x->workload && x->function && x->unit);
        const double *v[3] = {x->samples, x->utime, x->stime};
        for (int k = 0; k < 3; k++)
            if (v[k] != NULL)
                CHECK(isfinite(v[k][0]) && isfinite(v[k][x->runs - 1]) && (k == 0 || v[k][0] >= 0));
    }
    cli_results_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t errlens[] = {1, 16, 64, 256};
    if (size < 1)
        return 0;
    size_t len = size - 1, errlen = errlens[data[0] % 4];
    char *exact = malloc(len ? len : 1); /* reading past len is caught */
    CHECK(exact != NULL);
    memcpy(exact, data + 1, len);
    check_json(exact, len, errlen);
    check_results(exact, len, errlen);
    free(exact);
    return 0;
}

#ifndef PC_LIBFUZZER
/* A results file as the command writes it, in short. */
static const char valid[] =
    "{\"format\": \"pageclear-results\", \"schema\": 2,\n \"header\": {\"pageclear\": "
    "\"0.2.0\", \"kernel\": \"6.18\", \"preempt\": null, \"thp_enabled\": \"madvise\", "
    "\"cmdline\": \"quiet preempt=full\"},\n \"records\": [\n  {\"workload\": \"mmap\", "
    "\"function\": \"anon-w-seq\", \"size\": 1073741824, \"chunk\": 0, \"page\": \"4KB\", "
    "\"loops\": 3, \"threads\": 2, \"unit\": \"GB/s\", \"mean\": 3.5, \"median\": 3.5, "
    "\"stdev_pct\": 1.5, \"runs\": 3, \"cache\": null, \"stores\": null, \"verdict\": null, "
    "\"samples\": [3.4, 3.5, 3.6], \"utime_s\": [0.1, 0.1, 0.2], \"stime_s\": [0.3, 0.3, "
    "0.3]},\n  {\"workload\": \"tune\", \"function\": \"x86-64-stosb\", \"size\": 4096, "
    "\"chunk\": 0, \"page\": \"4KB\", \"threads\": 1, \"unit\": \"GB/s\", \"median\": 2e1, "
    "\"stdev_pct\": 0, \"runs\": 5, \"cache\": \"warm\", \"stores\": \"zero\", \"samples\": "
    "null, \"utime_s\": null, \"stime_s\": null, \"name\\u00e9\\ud83d\\ude00\\n\": -0.5e-3}\n ]}\n";

static const char *const tokens[] = {
    "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "\\udc00", "\\u00e9",
    "\\ud83d\\ude00", "\\x", "1e999", "-0", "01", "1.", ".5", "1e", "-", "null", "nul",
    "true", "false", "\"schema\": 1", "\"schema\": 2.5", "\"format\": \"x\"", "\"runs\": 4",
    "\"runs\": 0", "\"samples\": []", "\"utime_s\": [-1, 0, 0]", "[\"a\",1]",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "\"size\": 1e300", "\"threads\": 1.5", " ", "\n",
    "\t", "\x01", "\xff", "\"records\": {}", "\"header\": []", "\"kernel\": 7",
    "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
};

/* One input: the valid file cut, with bytes and tokens spliced in. */
static size_t make_input(uint64_t *seed, uint8_t *in, size_t cap)
{
    size_t vl = sizeof(valid) - 1, n = 0;
    in[n++] = (uint8_t)rng_next(seed);
    uint64_t r = rng_next(seed);
    size_t cut = r % 4 == 0 ? vl : rng_next(seed) % (vl + 1);
    memcpy(in + n, valid, cut);
    n += cut;
    size_t edits = r % 4 == 0 ? 0 : rng_next(seed) % 4;
    for (size_t e = 0; e < edits && n > 1; e++) {
        size_t at = 1 + rng_next(seed) % (n - 1);
        uint64_t k = rng_next(seed);
        const char *tok = tokens[k / 8 % (sizeof(tokens) / sizeof(tokens[0]))];
        size_t tl = k % 8 == 0 ? 1 : strlen(tok);
        if (n + tl > cap)
            break;
        if (k % 3 == 0 && tl <= n - at) { /* overwrite */
            memcpy(in + at, k % 8 == 0 ? (const char *)&k : tok, tl);
            continue;
        }
        memmove(in + at + tl, in + at, n - at);
        memcpy(in + at, k % 8 == 0 ? (const char *)&k : tok, tl);
        n += tl;
    }
    return n;
}

/* Every cut of the valid file before its last '}' is refused as one that
 * ends early, wherever the cut falls: inside a number ("3.", "2e", "-0.5e-"),
 * a literal, an escape or a surrogate pair ("\\ud83d\\"), between tokens.
 * `compare` says "truncated?" of a file cut short, whatever its figures. */
static void check_cuts(void)
{
    size_t end = (size_t)(strrchr(valid, '}') - valid);
    for (size_t cut = 1; cut <= end; cut++) {
        char err[300];
        struct cli_json d;
        struct cli_results r;
        char *exact = malloc(cut);
        CHECK(exact != NULL);
        memcpy(exact, valid, cut);
        CHECK(cli_json_parse(&d, exact, cut, err, sizeof(err)) == -1);
        if (strstr(err, "(truncated?)") == NULL)
            fprintf(stderr, "cut at %zu of %zu: %s\n", cut, end + 1, err);
        CHECK(strstr(err, "(truncated?)") != NULL);
        CHECK(cli_results_parse(&r, exact, cut, err, sizeof(err)) == -1);
        CHECK(strstr(err, "(truncated?)") != NULL);
        free(exact);
    }
}

int main(int argc, char **argv)
{
    check_cuts();
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    static uint8_t in[4096];
    for (unsigned long it = 0; it < iters; it++)
        LLVMFuzzerTestOneInput(in, make_input(&seed, in, sizeof(in)));
    /* The driver must reach both ends, or it tests only one. */
    CHECK(accepted > 0 && refused > 0);
    printf("ok: %lu inputs, %d results files accepted, %d refused\n", iters, accepted, refused);
    return 0;
}
#endif
