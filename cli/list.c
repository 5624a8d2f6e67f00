/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * list.c - `pageclear list`: the library's clearing primitives, one line
 * each (name, architecture, required features, cache behaviour, what it
 * is), marked where this host cannot run them. tests/data/golden/list.txt pins
 * the format.
 */
#include <stdio.h>

#include "pageclear.h"

#include "args.h"
#include "commands.h"

static const char *cache_name(enum pc_cache c)
{
    return c == PC_CACHE_NONTEMPORAL ? "nontemporal"
           : c == PC_CACHE_ADAPTIVE  ? "adaptive"
                                     : "temporal";
}

void cli_list_usage(FILE *f)
{
    fprintf(f, "usage: pageclear list\n"
               "  the clearing primitives, one a line: name, architecture, CPU features\n"
               "  needed, cache behaviour, what it is; marked where this CPU lacks them\n");
}

int cli_list(int argc, char **argv)
{
    if (argc > 0) {
        cli_error("list: unexpected argument '%s'", argv[0]);
        cli_list_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    for (size_t i = 0; i < pc_impl_count(); i++) {
        struct pc_impl_info in;
        pc_impl_get(i, &in);
        printf("%-18s %-8s %-12s %-11s %s%s\n", in.name, in.arch,
               *in.features ? in.features : "-", cache_name(in.cache), in.description,
               in.supported ? "" : "  [not supported here]");
    }
    return 0;
}
