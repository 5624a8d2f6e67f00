/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * main.c - the `pageclear` command: the table of subcommands, the
 * dispatch from it (with -h/--help for every row) and the top-level usage
 * printed from it.
 */
#include <stdio.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "commands.h"
#include "perf.h"

char **cli_argv;

static int help(int argc, char **argv);
static void help_usage(FILE *f);

static void version_usage(FILE *f)
{
    fprintf(f, "usage: pageclear version\n"
               "  print the library's version (pc_version())\n");
}

static int version(int argc, char **argv)
{
    if (argc > 0) {
        cli_error("version: unexpected argument '%s'", argv[0]);
        version_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    return printf("pageclear %s\n", pc_version()) < 0;
}

/* Every subcommand, in the order the usage lists them. */
static const struct cli_command commands[] = {
    {.name = "bench", .is_default = 1, .run = cli_bench, .usage = cli_bench_usage,
     .help = "the default suite: the published tables, on this\nmachine",
     .options = "--quick, --runs N, --json, --csv, --plot DIR"},
    {.name = "mem", .operands = "memset|clear", .run = cli_mem, .usage = cli_mem_usage,
     .bare_is_help = 1,
     .help = "clearing bandwidth (perf bench mem memset style)"},
    {.name = "mmap", .run = cli_mmap, .usage = cli_mmap_usage,
     .help = "the kernel's fault path (perf bench mem mmap style)"},
    {.name = "pool", .run = cli_pool, .usage = cli_pool_usage,
     .help = "init_on_alloc: page-at-a-time, batched, fresh, pool"},
    {.name = "parallel", .run = cli_parallel, .usage = cli_parallel_usage,
     .help = "pc_clear_parallel / pc_populate from 1 to all cores"},
    {.name = "prealloc", .run = cli_prealloc, .usage = cli_prealloc_usage,
     .help = "time to usable memory (s/TiB): touch, MAP_POPULATE,\n"
             "QEMU-style split, pc_populate; every page size\n",
     .options = "-s SIZE, -n RUNS, -p PAGES, --json"},
    {.name = "check", .run = cli_check, .usage = cli_check_usage,
     .help = "is the selection in force the best here? pc_clear & co.\n"
             "against every primitive and memset, per size and\n"
             "cache state, with a verdict",
     .options = "--quick, -n, --json"},
    {.name = "tune", .run = cli_tune, .usage = cli_tune_usage,
     .help = "measure this machine's crossovers and write a profile\n",
     .options = "-o FILE|-, --quick, --json"},
    {.name = "compare", .operands = "A B ...", .run = cli_compare, .usage = cli_compare_usage,
     .help = "before and after: results files side by side, each\nchange with its significance",
     .options = "--json, --csv"},
    {.name = "exec", .operands = "-- CMD [ARGS]", .run = cli_exec, .usage = cli_exec_usage,
     .help = "run a program with memset & co. through pageclear\n"
             "(LD_PRELOAD=libpageclear-preload.so)",
     .options = "--min SIZE, --stats"},
    {.name = "info", .run = cli_info, .usage = cli_info_usage,
     .help = "this machine: CPU, caches, selection, huge pages, ..."},
    {.name = "list", .run = cli_list, .usage = cli_list_usage,
     .help = "the clearing primitives and which run here"},
    {.name = "serve", .run = cli_serve, .usage = cli_serve_usage,
     .help = "a daemon: zeroed huge pages kept ready, handed out\n"
             "over a Unix socket",
     .options = "--config, --check-config, --bench"},
    {.name = "get", .operands = "SIZE -- CMD", .run = cli_get, .usage = cli_get_usage,
     .help = "run CMD with zeroed huge pages from serve, their\n"
             "descriptor's number in PAGECLEAR_FD",
     .options = "--page 2MB|1GB"},
    {.name = "version", .run = version, .usage = version_usage,
     .help = "print the library version",
     .aliases = {"--version"}},
    {.name = "help", .run = help, .usage = help_usage,
     .aliases = {"-h", "--help"}}, /* not listed */
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The usage's first column: "(none), " for the default command, the
 * name, its operands. */
#define NAME_WIDTH 18

static void describe(FILE *f, const struct cli_command *c)
{
    char name[64];
    snprintf(name, sizeof(name), "%s%s%s%s", c->is_default ? "(none), " : "", c->name,
             c->operands ? " " : "", c->operands ? c->operands : "");
    fprintf(f, "  %-*s ", NAME_WIDTH, name);
    size_t n = strlen(c->help);
    for (size_t i = 0; i < n; i++) {
        fputc(c->help[i], f);
        if (c->help[i] == '\n') /* continued under the first line */
            fprintf(f, "%*s", NAME_WIDTH + 3, "");
    }
    if (c->options != NULL)
        fprintf(f, "%s(%s)", n > 0 && c->help[n - 1] == '\n' ? "" : " ", c->options);
    fputc('\n', f);
}

static int usage(FILE *f)
{
    fprintf(f, "usage: pageclear [<command> [options]]\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].help != NULL)
            describe(f, &commands[i]);
    fprintf(f, "Run 'pageclear <command> --help' for a command's options.\n");
    return f == stderr ? CLI_EXIT_USAGE : 0;
}

static const struct cli_command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const struct cli_command *c = &commands[i];
        if (strcmp(name, c->name) == 0)
            return c;
        for (size_t a = 0; a < CLI_MAX_ALIASES && c->aliases[a] != NULL; a++)
            if (strcmp(name, c->aliases[a]) == 0)
                return c;
    }
    return NULL;
}

/* "pageclear help": the usage; "pageclear help CMD": CMD's. */
static int help(int argc, char **argv)
{
    const struct cli_command *c = argc > 0 ? find(argv[0]) : NULL;
    if (argc > 1 || (argc == 1 && c == NULL)) {
        cli_error("help: '%s' is not a command", argv[argc - 1]);
        return usage(stderr);
    }
    if (c != NULL && c->usage != NULL && c->run != help) {
        c->usage(stdout);
        return 0;
    }
    return usage(stdout);
}

static void help_usage(FILE *f)
{
    usage(f);
}

static int is_help(const char *a)
{
    return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* Run c with its arguments; help for any row is answered here, the same
 * way for all: the usage on stdout, exit 0. A row without a usage (none
 * yet) parses -h itself. Words after "--" are another program's (exec's
 * and get's CMD ARGS): its --help is its own. */
static int dispatch(const struct cli_command *c, int argc, char **argv)
{
    int asks = c->usage != NULL && argc == 0 && c->bare_is_help;
    for (int i = 0; c->usage != NULL && i < argc && strcmp(argv[i], "--") != 0; i++)
        asks |= is_help(argv[i]);
    if (!asks)
        return c->run(argc, argv);
    c->usage(stdout);
    return fflush(stdout) == 0 ? 0 : CLI_EXIT_RUNTIME;
}

static const struct cli_command *default_command(void)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].is_default)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    cli_argv = argv;
    /* perf's command line (`bench ... mem ...`) goes whole to cli/perf/,
     * which parses it, -h included, as perf does. */
    if (cli_perf_claims(argc - 1, argv + 1))
        return cli_perf_bench(argc - 1, argv + 1);
    const struct cli_command *c = argc >= 2 ? find(argv[1]) : NULL;
    if (c != NULL)
        return dispatch(c, argc - 2, argv + 2);
    /* No command, or only options (none of which names a command): the
     * default command gets them all. */
    if (argc < 2 || argv[1][0] == '-')
        return dispatch(default_command(), argc - 1, argv + 1);
    cli_error("unknown command '%s'", argv[1]);
    return usage(stderr);
}
