/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * exec.h - `pageclear exec`: where the preload library is found, and the
 * LD_PRELOAD value that puts it first.
 */
#ifndef PAGECLEAR_CLI_EXEC_H
#define PAGECLEAR_CLI_EXEC_H

#include <stddef.h>

/* The preload library to use: lib if not NULL, else $PAGECLEAR_PRELOAD_LIB
 * (unless empty), else the installed one, else the one of the build tree
 * this command was built in: the filter libpageclear-preload.so, which
 * has the dynamic loader choose the preload's build for the CPU
 * (preload/filter.c), unless the user names another file.
 * NULL, after a message, if none is a readable file. Whether it is the
 * preload, cli_exec checks (exec_elf.h, cli_elf_lib). */
const char *cli_exec_preload(const char *lib);

/* The library cli_exec_preload(NULL) would choose, or NULL without a
 * message (pageclear info). */
const char *cli_exec_found(void);

/* LD_PRELOAD with lib first and the entries of old (may be NULL) after
 * it, colon-separated, but those that are paths to a copy of the preload,
 * into buf. 0, or -1 if it does not fit. */
int cli_exec_ld_preload(const char *lib, const char *old, char *buf, size_t n);

#endif
