/*
 * main.c - the `pageclear` command: subcommand dispatch.
 */
#include <stdio.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"
#include "commands.h"

static int usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear [<command> [options]]\n"
            "  (none), bench      the default suite: the published tables, on this\n"
            "                     machine (--quick, --runs N, --json, --csv, --plot DIR)\n"
            "  mem memset|clear   clearing bandwidth (perf bench mem memset style)\n"
            "  mmap               the kernel's fault path (perf bench mem mmap style)\n"
            "  pool               init_on_alloc: page-at-a-time, batched, fresh, pool\n"
            "  parallel           pc_clear_parallel / pc_populate from 1 to all cores\n"
            "  check              is the selection in force the best here? pc_clear & co.\n"
            "                     against every primitive and memset, per size and\n"
            "                     cache state, with a verdict (--quick, -n, --json)\n"
            "  tune               measure this machine's crossovers and write a profile\n"
            "                     (-o FILE|-, --quick, --json)\n"
            "  info               this machine: CPU, caches, selection, huge pages, ...\n"
            "  list               the clearing primitives and which run here\n"
            "  version            print the library version\n"
            "Run 'pageclear <command> --help' for a command's options.\n");
    return f == stderr ? CLI_EXIT_USAGE : 0;
}

static int list(void)
{
    for (size_t i = 0; i < pc_impl_count(); i++) {
        struct pc_impl_info in;
        pc_impl_get(i, &in);
        printf("%-18s %-8s %-12s %-11s %s%s\n", in.name, in.arch,
               *in.features ? in.features : "-",
               in.cache == PC_CACHE_NONTEMPORAL ? "nontemporal"
               : in.cache == PC_CACHE_ADAPTIVE  ? "adaptive"
                                                : "temporal",
               in.description, in.supported ? "" : "  [not supported here]");
    }
    return 0;
}

char **cli_argv;

int main(int argc, char **argv)
{
    cli_argv = argv;
    /* No command (or only the suite's options): the default suite. */
    int suite_opts = argc >= 2 && argv[1][0] == '-' && strcmp(argv[1], "-h") != 0 &&
                     strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "--version") != 0;
    if (argc < 2 || suite_opts)
        return cli_bench(argc - 1, argv + 1);
    if (strcmp(argv[1], "bench") == 0)
        return cli_bench(argc - 2, argv + 2);
    const char *cmd = argv[1];
    if (strcmp(cmd, "mem") == 0)
        return cli_mem(argc - 2, argv + 2);
    if (strcmp(cmd, "mmap") == 0)
        return cli_mmap(argc - 2, argv + 2);
    if (strcmp(cmd, "pool") == 0 || strcmp(cmd, "parallel") == 0)
        return cli_pool_cmd(cmd, argc - 2, argv + 2);
    if (strcmp(cmd, "check") == 0)
        return cli_check(argc - 2, argv + 2);
    if (strcmp(cmd, "tune") == 0)
        return cli_tune(argc - 2, argv + 2);
    if (strcmp(cmd, "info") == 0)
        return cli_info();
    if (strcmp(cmd, "list") == 0)
        return list();
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0)
        return printf("pageclear %s\n", pc_version()) < 0;
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0)
        return usage(stdout);
    cli_error("unknown command '%s'", cmd);
    return usage(stderr);
}
