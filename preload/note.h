/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * note.h - the ELF note that marks libpageclear-preload.so and its copies
 * (preload.c puts it in a PT_NOTE segment) and that `pageclear exec` looks
 * for in the library it is told to use (cli/exec_elf.c): a shared library
 * without it, libpageclear.so itself for one, would be loaded and its
 * memset would not be pageclear's, so the program would run without
 * pageclear while the user believed otherwise.
 */
#ifndef PC_PRELOAD_NOTE_H
#define PC_PRELOAD_NOTE_H

/* The note's owner name, type and descriptor (each with its NUL). */
#define PC_PRELOAD_NOTE_NAME "pageclear"
#define PC_PRELOAD_NOTE_TYPE 1u
#define PC_PRELOAD_NOTE_DESC "preload"

#endif
