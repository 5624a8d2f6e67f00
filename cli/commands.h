/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * commands.h - the subcommands: what main.c's table holds for each, and
 * their entry points.
 */
#ifndef PAGECLEAR_CLI_COMMANDS_H
#define PAGECLEAR_CLI_COMMANDS_H

#include <stdio.h>

#define CLI_MAX_ALIASES 2

/* One subcommand. */
struct cli_command {
    const char *name;
    const char *operands; /* after the name in the usage, or NULL */
    int is_default;       /* runs when no command is given (or only options) */
    const char *help;     /* the usage's line: each '\n' continues on a line
                             of its own; NULL: not listed */
    const char *options;  /* the main options, after help in parentheses;
                             NULL: none shown ('<command> --help' has all) */
    int (*run)(int argc, char **argv); /* the arguments after the name */
    /* Its usage, printed on f. main() prints it on stdout (exit 0) for
     * -h or --help anywhere in the arguments, so no command parses them;
     * the command prints it on stderr after a usage error (exit 2). */
    void (*usage)(FILE *f);
    int bare_is_help; /* no arguments at all asks for the usage too */
    const char *aliases[CLI_MAX_ALIASES]; /* other names it answers to */
};

/* The command line as main() got it (tune re-runs itself with it). */
extern char **cli_argv;

/* The entry points and their usages, one file each (bench.c, mem.c, ...). */
int cli_bench(int argc, char **argv);
int cli_mem(int argc, char **argv);
int cli_mmap(int argc, char **argv);
int cli_pool(int argc, char **argv);
int cli_parallel(int argc, char **argv);
int cli_prealloc(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_tune(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_get(int argc, char **argv);
int cli_exec(int argc, char **argv);
void cli_bench_usage(FILE *f);
void cli_mem_usage(FILE *f);
void cli_mmap_usage(FILE *f);
void cli_pool_usage(FILE *f);
void cli_parallel_usage(FILE *f);
void cli_prealloc_usage(FILE *f);
void cli_check_usage(FILE *f);
void cli_tune_usage(FILE *f);
void cli_compare_usage(FILE *f);
void cli_exec_usage(FILE *f);
void cli_info_usage(FILE *f);
void cli_list_usage(FILE *f);
void cli_serve_usage(FILE *f);
void cli_get_usage(FILE *f);

#endif
