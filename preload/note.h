/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * note.h - the ELF note that marks libpageclear-preload.so and the
 * preload's builds (note.c) and that `pageclear exec` looks for in the
 * library it is told to use (cli/exec/exec_elf.c): a library without it,
 * libpageclear.so for one, would run the program without pageclear while
 * the user believed otherwise.
 */
#ifndef PC_PRELOAD_NOTE_H
#define PC_PRELOAD_NOTE_H

/* The note's owner name, type and descriptor (each with its NUL). The
 * type tells the preload (libpageclear-preload-impl.so, each build) from
 * the filter users name (libpageclear-preload.so, filter.c), which is the
 * preload only where the other file lies beside it. */
#define PC_PRELOAD_NOTE_NAME "pageclear"
#define PC_PRELOAD_NOTE_TYPE 1u
#define PC_PRELOAD_NOTE_TYPE_FILTER 2u
#define PC_PRELOAD_NOTE_DESC "preload"

/* The preload's file name, which the filter names (DT_AUXILIARY, set in
 * preload/CMakeLists.txt) and the loader looks for beside it. */
#define PC_PRELOAD_IMPL_FILE "libpageclear-preload-impl.so"

#endif
