/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * env.h - the environment a measurement ran in, as the header of every
 * results file records it and `compare` sets files side by side (env.c).
 */
#ifndef PAGECLEAR_CLI_ENV_H
#define PAGECLEAR_CLI_ENV_H

#include <stdio.h>

/* The header's keys, in the order they are written and compared. */
#define CLI_ENV_KEYS(X)                                                                  \
    X(pageclear, "the pageclear version")                                                \
    X(command, "the command line")                                                       \
    X(started, "when the command started (UTC)")                                         \
    X(cpu, "the CPU's model name")                                                       \
    X(cpu_id, "vendor, family, model, stepping")                                         \
    X(cpus, "CPUs online")                                                               \
    X(hypervisor, "under a hypervisor: yes or no")                                       \
    X(kernel, "the kernel release")                                                      \
    X(kernel_build, "the kernel's build string (uname -v)")                              \
    X(cmdline, "the kernel command line")                                                \
    X(preempt, "the preemption model in force: none, voluntary, full, lazy")             \
    X(preempt_from, "where that was read")                                               \
    X(clearing, "how the kernel clears huge pages: in extents, page at a time, unknown") \
    X(clearing_from, "what says so: the symbols, or why it is unknown")                  \
    X(huge_page_units, "what it clears a huge page in: 4 KiB units, 32 MiB units ...")   \
    X(init_on_alloc, "1 if the kernel zeroes pages as it allocates them")                \
    X(init_on_free, "1 if it zeroes them as they are freed")                             \
    X(thp_enabled, "transparent huge pages: always, madvise, never")                     \
    X(thp_defrag, "THP defrag setting")                                                  \
    X(hugepages, "hugetlb pages reserved, per size")                                     \
    X(profile, "the pageclear profile in force, or why none is")                         \
    X(overrides, "PAGECLEAR_* and GLIBC_TUNABLES variables set")                          \
    X(libc, "the C library")

enum cli_env_key {
#define CLI_ENV_ENUM(k, what) CLI_ENV_##k,
    CLI_ENV_KEYS(CLI_ENV_ENUM)
#undef CLI_ENV_ENUM
    CLI_ENV_COUNT
};
/* The key's name as written ("kernel"), and what it means. */
const char *cli_env_name(enum cli_env_key k);
const char *cli_env_what(enum cli_env_key k);
/* Keys whose values differ from run to run by nature (the command line,
 * the time): `compare` names them under the files, not as differences. */
int cli_env_incidental(enum cli_env_key k);

/* This process's environment, read once. A value is NULL where it
 * cannot be known (init_on_alloc of a kernel whose build configuration
 * is not readable). */
const char *cli_env_value(enum cli_env_key k);
/* The header object, {"pageclear": "...", ...}, at indentation ind. */
void cli_env_print_json(FILE *f, int ind);

#endif
