/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * units.h - the binary units the command's sizes are written in: one
 * definition for every file (sizes print as KiB, MiB, GiB: output.c).
 */
#ifndef PAGECLEAR_CLI_UNITS_H
#define PAGECLEAR_CLI_UNITS_H

#include <stddef.h>

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

#endif
