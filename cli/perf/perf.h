/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * perf.h - `pageclear bench mem ...`: perf bench mem's command line, taken
 * and answered as perf takes and answers it (docs/perf.md), on the
 * measurement core of cli/measure/. One concern per file:
 *   front.c         which command lines are perf's; perf bench's own
 *                   options, the collection and the benchmark
 *   perf_options.c  perf's option parser: its syntax, its errors, its usage
 *   size.c          perf's sizes (digits, then B, KB, MB, GB or TB)
 *   common.c        the options every mem benchmark shares and their checks
 *   print.c         perf's output lines and units
 *   perf_mem.c      memset and memcpy
 *   perf_mmap.c     mmap: each thread its own mapping
 */
#ifndef PAGECLEAR_CLI_PERF_H
#define PAGECLEAR_CLI_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"

/* perf's exit statuses: a bad option or -h (129), a bad value or an
 * unknown function (1), no cycles counter (255, perf's -1). */
#define CLI_PERF_EXIT_USAGE 129
#define CLI_PERF_EXIT_VALUE 1
#define CLI_PERF_EXIT_COUNTER 255
/* perf reports a failed allocation and exits 0; pageclear exits with
 * this, the fix on stderr (docs/perf.md, "What differs"). */
#define CLI_PERF_EXIT_RUNTIME 1

/* ---- perf_options.c: perf's option syntax ---- */
enum cli_perf_type { CLI_PERF_STRING, CLI_PERF_UINT, CLI_PERF_BOOL };
struct cli_perf_opt {
    char key;              /* the short name */
    const char *name;      /* the long name */
    enum cli_perf_type type;
    const char *argh;      /* the value's placeholder in the usage (a string's) */
    const char *help;
    int own;               /* the benchmark's own, not a shared one: its
                              line follows an error about it (as perf's) */
    void *value;           /* const char **, unsigned int * or int * */
};
struct cli_perf_cmd {
    const char *usage;               /* "pageclear bench mem memset <options>" */
    const struct cli_perf_opt *opts; /* ended by an entry without a name */
    int stop_at_word;                /* stop at the first word that is no option */
};
/* Parse argv[0, argc) as perf does: short options alone or in clusters
 * (-cl5), values attached (-s4MB) or next, long ones whole or abbreviated
 * (--size=4MB, --si 4MB, --no-cycles), "--" ending them. The words that
 * are no options (with stop_at_word: from the first on) are moved to
 * argv's front and counted in the return; -1 after perf's message and the
 * usage on stderr (a bad option, a missing or bad value, -h, --help). */
int cli_perf_parse(const struct cli_perf_cmd *c, int argc, char **argv);
/* The whole usage on stderr, as -h prints it. */
void cli_perf_usage(const struct cli_perf_cmd *c);

/* ---- size.c ---- */
/* perf's size: digits, then optionally B, KB, MB, GB or TB (or b, kb, mb,
 * gb, tb), powers of 1024. 0 with *out set, or -1 for anything else,
 * a value beyond 2^63 - 1 included. */
int cli_perf_size(const char *s, uint64_t *out);

/* ---- front.c ---- */
enum cli_perf_format { CLI_PERF_DEFAULT, CLI_PERF_SIMPLE };
struct cli_perf {
    enum cli_perf_format format;
    unsigned int repeat; /* taken and checked; perf's mem benchmarks ignore it */
};
/* 1 if argv[0, argc) (main's, after the program name) is perf's command
 * line: `bench`, perf bench's options around it, then `mem`. */
int cli_perf_claims(int argc, char **argv);
/* Run it; the exit status. */
int cli_perf_bench(int argc, char **argv);

/* ---- common.c ---- */
/* The options of one mem benchmark, as typed and as understood. */
struct cli_perf_mem {
    const char *size_str, *page_str, *function, *chunk_str;
    unsigned int loops, threads, seed;
    int cycles;
    size_t size, chunk;
    enum cli_page page;
};
/* perf's defaults: 1MB, 4KB pages, all functions, one loop, one thread. */
void cli_perf_mem_defaults(struct cli_perf_mem *m);
/* The shared options (-s, -p, -f, -l, -c) into out[0, 5), each own = 0. */
void cli_perf_mem_options(struct cli_perf_mem *m, struct cli_perf_opt *out);
/* perf's checks after parsing, in its order (the cycles counter, size,
 * chunk, page size) and pageclear's (no loop, no thread); 0, or the
 * exit status after the message. */
int cli_perf_mem_check(struct cli_perf_mem *m);
/* 1 if -f asks for every function (perf takes any word starting "all"). */
int cli_perf_wants_all(const char *function);

/* ---- print.c ---- */
void cli_perf_function(const char *name, const char *desc);
/* "# Copying SIZE bytes ..." and a blank line, in the default format. */
void cli_perf_copying(const struct cli_perf *pf, const char *size_str);
/* The figure: bytes over time in perf's units (or time over bytes, with
 * -c: cycles per byte); with threads > 1, per thread with the spread of
 * the threads' times (spread_pct). */
void cli_perf_result(const struct cli_perf *pf, double bytes, double time, int cycles,
                     unsigned int threads, double spread_pct);
/* "# Memory allocation failed - ..." as perf says it (stdout), then the
 * reason and the fix (stderr). */
void cli_perf_alloc_failed(const char *size_str, enum cli_page page, const char *why);

/* ---- perf_mem.c, perf_mmap.c: argv[0] is the benchmark's name ---- */
int cli_perf_memset(const struct cli_perf *pf, int argc, char **argv);
int cli_perf_memcpy(const struct cli_perf *pf, int argc, char **argv);
int cli_perf_mmap(const struct cli_perf *pf, int argc, char **argv);

#endif
