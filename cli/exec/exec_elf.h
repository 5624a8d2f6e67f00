/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * exec_elf.h - whether the dynamic loader will read LD_PRELOAD for a
 * program, and whether a library is the preload: `pageclear exec` refuses
 * a program it would not run the preload for, and a library that is not
 * the preload (cli/exec/exec.c).
 */
#ifndef PAGECLEAR_CLI_EXEC_ELF_H
#define PAGECLEAR_CLI_EXEC_ELF_H

#include <stddef.h>

/* Bytes of a program's start that cli_elf_kind looks at: its header and
 * program headers lie there in every linker's output (right after the
 * 64-byte header). */
#define CLI_ELF_HEAD 65536

enum cli_elf_kind {
    CLI_ELF_UNKNOWN, /* not ELF, not read far enough, or malformed: left to
                        execve */
    CLI_ELF_DYNAMIC, /* an ELF of the preload's word size, byte order and
                        machine with an interpreter: the loader reads
                        LD_PRELOAD */
    CLI_ELF_STATIC,  /* no interpreter (static or static-pie): no loader */
    CLI_ELF_FOREIGN, /* another word size, byte order or machine (a 32-bit
                        program): its loader cannot load the preload */
};

/* Word size, byte order and machine (e_machine) of an ELF file. */
struct cli_elf_id {
    int is64, le;
    unsigned machine;
};

/* The identity in the len bytes at buf: 0, or -1 if they are not an ELF
 * header. Reads nothing outside [buf, buf + len). */
int cli_elf_id(const unsigned char *buf, size_t len, struct cli_elf_id *id);

/* What the first len bytes of a program (buf, at most CLI_ELF_HEAD of them
 * are read) say it is, for a preload library of identity lib (NULL: the
 * command's own). Reads nothing outside [buf, buf + len). */
enum cli_elf_kind cli_elf_kind(const unsigned char *buf, size_t len,
                               const struct cli_elf_id *lib);

/* What a library given to `exec` is (cli_elf_lib). */
enum cli_elf_lib {
    CLI_ELF_LIB_PRELOAD,     /* a shared library with the preload's note
                                (preload/note.h) */
    CLI_ELF_LIB_NOT_ELF,     /* no ELF header: the loader ignores it */
    CLI_ELF_LIB_NOT_SHARED,  /* not ET_DYN, with an interpreter (a
                                position-independent program), or program
                                headers that do not lie in the bytes read */
    CLI_ELF_LIB_NOT_PRELOAD, /* a shared library without the note (within
                                the first CLI_ELF_HEAD bytes, where a linker
                                puts notes) */
    CLI_ELF_LIB_FILTER,      /* a shared library with the filter's note:
                                libpageclear-preload.so, which loads the
                                preload from beside it (preload/filter.c) */
    CLI_ELF_LIB_UNREAD,      /* cli_elf_lib_of: the file cannot be read */
};

/* What the first len bytes of a library say it is (at most CLI_ELF_HEAD
 * of them are read). Reads nothing outside [buf, buf + len). */
enum cli_elf_lib cli_elf_lib(const unsigned char *buf, size_t len);

/* The same for the file at path; id (may be NULL) gets its identity
 * where it has an ELF header (neither CLI_ELF_LIB_NOT_ELF nor
 * CLI_ELF_LIB_UNREAD), from the same bytes. */
enum cli_elf_lib cli_elf_lib_of(const char *path, struct cli_elf_id *id);

/* The interpreter a "#!" first line among the len bytes at buf names,
 * into out (NUL-terminated): its length, or 0 if there is no such line,
 * it names nothing, or the name does not fit in n bytes. */
size_t cli_shebang(const unsigned char *buf, size_t len, char *out, size_t n);

/* The same as cli_elf_kind for the file at path, or for a script the
 * interpreter its "#!" line names (as the kernel follows them, up to five
 * scripts deep): the program the dynamic loader would run for. judged (n bytes)
 * gets the path of the file the answer is about. CLI_ELF_UNKNOWN if a
 * file cannot be read or the chain is deeper. */
enum cli_elf_kind cli_elf_kind_of(const char *path, const struct cli_elf_id *lib, char *judged,
                                  size_t n);

#endif
