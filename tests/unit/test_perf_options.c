/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_perf_options.c - `pageclear bench mem`'s parsing and printing
 * (cli/perf/): perf's sizes against a reference written here (a table,
 * then 300000 random strings, each ending on a guard page), perf's option
 * syntax (clusters, attached values, abbreviations, negation, "--", and
 * the errors), and perf's units with their boundaries.
 * tests/integration/command/perf_shape.py
 * holds the whole command to the real perf's output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>

#include "args.h"
#include "harness.h"
#include "perf.h"

/* print.c's one use of the command's frame (args.c, which brings the
 * rest of it): the reason after a failed allocation. */
void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- sizes ---- */

/* The reference: digits, then one of these suffixes exactly. */
static int reference_size(const char *s, uint64_t *out)
{
    static const char *const suffix[] = {"", "B", "b", "KB", "kb", "MB", "mb",
                                         "GB", "gb", "TB", "tb"};
    static const unsigned shift[] = {0, 0, 0, 10, 10, 20, 20, 30, 30, 40, 40};
    size_t nd = strspn(s, "0123456789");
    if (nd == 0)
        return -1;
    for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
        if (strcmp(s + nd, suffix[i]) != 0)
            continue;
        unsigned __int128 v = 0;
        for (size_t k = 0; k < nd; k++) {
            v = v * 10 + (unsigned)(s[k] - '0');
            if (v > INT64_MAX)
                return -1;
        }
        v <<= shift[i];
        if (v > INT64_MAX)
            return -1;
        *out = (uint64_t)v;
        return 0;
    }
    return -1;
}

static void sizes_table(void)
{
    static const struct {
        const char *s;
        int ok;
        uint64_t v;
    } t[] = {
        {"4096", 1, 4096}, {"512B", 1, 512}, {"512b", 1, 512}, {"4KB", 1, 4096},
        {"4kb", 1, 4096}, {"1MB", 1, 1 << 20}, {"64GB", 1, 64ull << 30},
        {"2TB", 1, 2ull << 40}, {"0", 1, 0}, {"007MB", 1, 7 << 20},
        /* refused by perf 7.3.4 too (tests/data/perf/cases.txt, size-*) */
        {"4Kb", 0, 0}, {"4kB", 0, 0}, {"4K", 0, 0}, {"4MiB", 0, 0}, {"4 KB", 0, 0},
        {"0x1000", 0, 0}, {"1e6", 0, 0}, {"MB", 0, 0}, {"", 0, 0}, {"+4KB", 0, 0},
        {"4KB5", 0, 0}, {"4KBKB", 0, 0}, {"-1", 0, 0}, {"1.5MB", 0, 0},
        /* beyond 2^63 - 1 */
        {"9223372036854775807", 1, INT64_MAX}, {"9223372036854775808", 0, 0},
        {"8388607TB", 1, 8388607ull << 40}, {"8388608TB", 0, 0},
        {"99999999999999999999999", 0, 0},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        uint64_t v = 12345;
        int rc = cli_perf_size(t[i].s, &v);
        if ((rc == 0) != t[i].ok || (t[i].ok && v != t[i].v)) {
            fprintf(stderr, "size '%s': rc %d value %llu\n", t[i].s, rc, (unsigned long long)v);
            CHECK(0);
        }
    }
}

/* Random strings over the characters that matter, each placed so that
 * its terminator is the last byte before a guard page. */
static void sizes_fuzz(void)
{
    static const char alphabet[] = "0123456789BKMGTbkmgt 9.x-+0";
    struct guarded g;
    guarded_alloc(&g, TEST_PAGE);
    unsigned long long seed = 0x9e3779b97f4a7c15ull;
    size_t agreed = 0, accepted = 0;
    for (int i = 0; i < 300000; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        size_t len = seed % 24;
        char *s = g.lo + g.len - 1 - len;
        for (size_t k = 0; k < len; k++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            s[k] = alphabet[seed % (sizeof(alphabet) - 1)];
        }
        s[len] = '\0';
        uint64_t got = 1, want = 2;
        int rc = cli_perf_size(s, &got), ref = reference_size(s, &want);
        if (rc != ref || (rc == 0 && got != want)) {
            fprintf(stderr, "size '%s': %d %llu, reference %d %llu\n", s, rc,
                    (unsigned long long)got, ref, (unsigned long long)want);
            CHECK(0);
        }
        agreed++;
        accepted += rc == 0;
    }
    CHECK(accepted > 1000 && accepted < agreed); /* both verdicts were exercised */
}

/* ---- options ---- */

struct opts {
    const char *size, *chunk;
    unsigned int loops;
    int cycles;
};

/* A command like memset's: -k its own, the others shared. */
static int parse(struct opts *o, int stop, int argc, const char *const *args, char **left)
{
    const struct cli_perf_opt spec[] = {
        {'k', "chunk", CLI_PERF_STRING, "0", "chunk", 1, &o->chunk},
        {'s', "size", CLI_PERF_STRING, "1MB", "size", 0, &o->size},
        {'l', "nr_loops", CLI_PERF_UINT, NULL, "loops", 0, &o->loops},
        {'c', "cycles", CLI_PERF_BOOL, NULL, "cycles", 0, &o->cycles},
        {0, NULL, CLI_PERF_BOOL, NULL, NULL, 0, NULL}};
    const struct cli_perf_cmd cmd = {"test <options>", spec, stop};
    *o = (struct opts){"1MB", "0", 1, 0};
    for (int i = 0; i < argc; i++)
        left[i] = (char *)args[i];
    return cli_perf_parse(&cmd, argc, left);
}

/* stderr into a file while f runs; its text into buf. */
static int errors_of(char *buf, size_t n, struct opts *o, int stop, int argc, const char *const *args,
                     char **left)
{
    FILE *tmp = tmpfile();
    CHECK(tmp != NULL);
    fflush(stderr);
    int saved = dup(2);
    CHECK(dup2(fileno(tmp), 2) == 2);
    int rc = parse(o, stop, argc, args, left);
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    rewind(tmp);
    size_t got = fread(buf, 1, n - 1, tmp);
    buf[got] = '\0';
    fclose(tmp);
    return rc;
}

static void options_accepted(void)
{
    struct opts o;
    char *left[8];
    const char **a;
    int n;
#define RUN(...) (a = (const char *[]){__VA_ARGS__}, n = (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(char *)), parse(&o, 0, n, a, left))
    CHECK_EQ(RUN("-s4MB"), 0);
    CHECK(strcmp(o.size, "4MB") == 0);
    CHECK_EQ(RUN("-s", "8KB", "-k", "4KB"), 0);
    CHECK(strcmp(o.size, "8KB") == 0 && strcmp(o.chunk, "4KB") == 0);
    CHECK_EQ(RUN("--size=2MB"), 0);
    CHECK(strcmp(o.size, "2MB") == 0);
    CHECK_EQ(RUN("--si", "3MB", "--nr=7"), 0); /* unambiguous beginnings */
    CHECK(strcmp(o.size, "3MB") == 0 && o.loops == 7);
    CHECK_EQ(RUN("-cl5"), 0); /* a switch, then a value attached */
    CHECK(o.cycles == 1 && o.loops == 5);
    CHECK_EQ(RUN("-cs", "5MB"), 0);
    CHECK(o.cycles == 1 && strcmp(o.size, "5MB") == 0);
    CHECK_EQ(RUN("-c", "--no-cycles"), 0);
    CHECK(o.cycles == 0);
    CHECK_EQ(RUN("-s", "-1"), 0); /* a value may start with '-' */
    CHECK(strcmp(o.size, "-1") == 0);
    CHECK_EQ(RUN("one", "-l", "2", "two"), 2); /* words kept, in order */
    CHECK(o.loops == 2 && strcmp(left[0], "one") == 0 && strcmp(left[1], "two") == 0);
    CHECK_EQ(RUN("-l", "3", "--", "-l", "4"), 2); /* "--" ends the options */
    CHECK(o.loops == 3 && strcmp(left[0], "-l") == 0 && strcmp(left[1], "4") == 0);
    CHECK_EQ(RUN("-l", "4294967295"), 0);
    CHECK(o.loops == 4294967295u);
    a = (const char *[]){"-s", "4KB", "mem", "-l", "9"};
    CHECK_EQ(parse(&o, 1, 5, a, left), 3); /* stop at the first word */
    CHECK(o.loops == 1 && strcmp(left[0], "mem") == 0 && strcmp(left[2], "9") == 0);
#undef RUN
}

static void options_refused(void)
{
    static const struct {
        const char *args[3];
        int n;
        const char *says;
    } t[] = {
        {{"-x"}, 1, "  Error: unknown switch `x'\n\n Usage: test <options>\n\n    -c, --cycles"},
        {{"-cx"}, 1, "  Error: unknown switch `x'"},
        {{"--bogus"}, 1, "  Error: unknown option `bogus'\n"},
        {{"-l", "x"}, 2, " Error: switch `l' expects a numerical value\n Usage: test <options>\n\n"},
        {{"-l", "5x"}, 2, "expects a numerical value"},
        {{"-l", "-3"}, 2, " Error: switch `l' expects an unsigned numerical value"},
        {{"--nr_loops", "x"}, 2, " Error: option `nr_loops' expects a numerical value"},
        {{"-l", "4294967296"}, 2, "expects a value below 2^32"},
        {{"-s"}, 1, " Error: switch `s' requires a value\n"},
        {{"-k"}, 1, " Error: switch `k' requires a value\n Usage: test <options>\n\n    -k, --chunk <0>"},
        {{"--size"}, 1, " Error: option `size' requires a value"},
        {{"--cycles=1"}, 1, " Error: option `cycles' takes no value"},
        {{"--no-size"}, 1, " Error: option `no-size' isn't available"},
        {{"--n", "3"}, 2, " Error: Ambiguous option: n (could be --"},
        {{"-chunk"}, 1, " Error: did you mean `--chunk` (with two dashes ?)\n"},
        {{"-h"}, 1, "\n Usage: test <options>\n\n    -c, --cycles          cycles\n"},
        {{"--help"}, 1, "    -k, --chunk <0>       chunk\n    -l, --nr_loops <n>    loops\n"},
    };
    struct opts o;
    char *left[4], err[2048];
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int rc = errors_of(err, sizeof(err), &o, 0, t[i].n, t[i].args, left);
        if (rc != -1 || strstr(err, t[i].says) == NULL) {
            fprintf(stderr, "'%s': rc %d, said:\n%s\nwanted:\n%s\n", t[i].args[0], rc, err,
                    t[i].says);
            CHECK(0);
        }
    }
}

/* ---- units ---- */

static void result_is(double bytes, double time, int cycles, unsigned threads, double spread,
                      int simple, const char *want)
{
    char got[256];
    FILE *tmp = tmpfile();
    CHECK(tmp != NULL);
    fflush(stdout);
    int saved = dup(1);
    CHECK(dup2(fileno(tmp), 1) == 1);
    const struct cli_perf pf = {simple ? CLI_PERF_SIMPLE : CLI_PERF_DEFAULT, 10};
    cli_perf_result(&pf, bytes, time, cycles, threads, spread);
    fflush(stdout);
    CHECK(dup2(saved, 1) == 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(got, 1, sizeof(got) - 1, tmp);
    got[n] = '\0';
    fclose(tmp);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "printed '%s', wanted '%s'\n", got, want);
        CHECK(0);
    }
}

static void units(void)
{
    const double k = 1024;
    result_is(1000, 1, 0, 1, 0, 0, "    1000.000000 bytes/sec\n");
    result_is(1023.5, 1, 0, 1, 0, 0, "    1023.500000 bytes/sec\n");
    result_is(k, 1, 0, 1, 0, 0, "       1.000000d KB/sec\n"); /* perf's stray 'd' */
    result_is(k * k - 1, 1, 0, 1, 0, 0, "    1023.999023d KB/sec\n");
    result_is(3 * k * k, 2, 0, 1, 0, 0, "       1.500000 MB/sec\n");
    result_is(k * k * k - k * k, 1, 0, 1, 0, 0, "    1023.000000 MB/sec\n");
    result_is(k * k * k, 1, 0, 1, 0, 0, "       1.000000 GB/sec\n"); /* 2^30, not 10^9 */
    result_is(1e9, 1, 0, 1, 0, 0, "     953.674316 MB/sec\n");
    result_is(64 * k * k * k * 5, 10, 0, 1, 0, 0, "      32.000000 GB/sec\n");
    result_is(3 * k * k * k, 1, 0, 2, 1.5, 0,
              "       3.000000 GB/sec/thread\t( +-   1.50% )\n");
    result_is(3 * k * k * k, 1, 0, 1, 1.5, 0, "       3.000000 GB/sec\n");
    result_is(1e9, 4, 0, 2, 7.25, 1, "250000000.000000\n"); /* bytes a second, bare */
    result_is(4096, 2048, 1, 1, 0, 0, "       0.500000 cycles/byte\n");
    result_is(4096, 2048, 1, 1, 0, 1, "0.500000\n");
}

int main(void)
{
    sizes_table();
    sizes_fuzz();
    options_accepted();
    options_refused();
    units();
    printf("test_perf_options: sizes (table, 300000 random), options, units: ok\n");
    return 0;
}
