/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* libc.h - what the C library's memset is (libc.c). */
#ifndef PAGECLEAR_CLI_LIBC_H
#define PAGECLEAR_CLI_LIBC_H

#include <stddef.h>

/* The C library's version ("glibc 2.36", or what is known). */
const char *cli_libc_version(void);
/* glibc's version alone ("2.36"), or "" under another C library. */
const char *cli_glibc_version(void);
/* glibc's memset-related tunables as the running dynamic loader reports
 * them (ld.so --list-tunables), one "name: value ..." line each, into
 * buf; returns the number of lines, 0 if they cannot be had. */
size_t cli_libc_tunables(char *buf, size_t n);
/* The C library's own memset, looked up in libc.so.6 past any preload
 * (LD_PRELOAD, `pageclear exec`), or NULL where there is no such library. */
typedef void *(*cli_memset_fn)(void *, int, size_t);
cli_memset_fn cli_libc_memset(void);
/* 1 if the memset this program calls is not the C library's own: a
 * preload interposes it. */
int cli_memset_interposed(void);
/* Run this program again (execv) with argv, under the loader it runs
 * under: /proc/self/exe, or, when that is a dynamic loader started by
 * hand (`ld.so --library-path DIR PROGRAM`), that loader with its own
 * directory as the library path. Returns only on failure: -errno. */
int cli_exec_self(char *const argv[]);

#endif
