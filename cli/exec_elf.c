/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * exec_elf.c - reads a program's ELF header and program headers to tell
 * whether the dynamic loader will run for it and can load the preload:
 * LD_PRELOAD is read only by the interpreter named in PT_INTERP, and only
 * for a library of the program's own class and machine. `pageclear exec`
 * (cli/exec.c) refuses a program for which it would silently do nothing;
 * for a script, it reads the interpreter the "#!" line names, as the
 * kernel runs it.
 * The bytes come from a file the user names: every offset and count is
 * checked against len before it is used (fuzzed in tests/test_exec_elf.c).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_elf.h"

/* The machine the preload is built for: the command's own. */
#if defined(__x86_64__)
#define PCI_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define PCI_ELF_MACHINE EM_AARCH64
#endif

static uint16_t rd16(const unsigned char *p, int le)
{
    return le ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)(p[1] | p[0] << 8);
}

static uint32_t rd32(const unsigned char *p, int le)
{
    return le ? (uint32_t)rd16(p, 1) | (uint32_t)rd16(p + 2, 1) << 16
              : (uint32_t)rd16(p + 2, 0) | (uint32_t)rd16(p, 0) << 16;
}

static uint64_t rd64(const unsigned char *p, int le)
{
    return le ? (uint64_t)rd32(p, 1) | (uint64_t)rd32(p + 4, 1) << 32
              : (uint64_t)rd32(p + 4, 0) | (uint64_t)rd32(p, 0) << 32;
}

int cli_elf_id(const unsigned char *buf, size_t len, struct cli_elf_id *id)
{
    if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0)
        return -1;
    int cls = buf[EI_CLASS], data = buf[EI_DATA];
    if ((cls != ELFCLASS32 && cls != ELFCLASS64) ||
        (data != ELFDATA2LSB && data != ELFDATA2MSB))
        return -1;
    int le = data == ELFDATA2LSB, is64 = cls == ELFCLASS64;
    if (len < (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
        return -1;
    id->is64 = is64;
    id->le = le;
    id->machine = rd16(buf + 18, le);
    return 0;
}

/* The command's own word size, byte order and machine: the preload's
 * when its file cannot be read (they are built together). */
static struct cli_elf_id native(void)
{
    struct cli_elf_id id = {sizeof(void *) == 8, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, 0};
#ifdef PCI_ELF_MACHINE
    id.machine = PCI_ELF_MACHINE;
#endif
    return id;
}

enum cli_elf_kind cli_elf_kind(const unsigned char *buf, size_t len,
                               const struct cli_elf_id *lib)
{
    struct cli_elf_id id, own = lib ? *lib : native();
    if (len > CLI_ELF_HEAD)
        len = CLI_ELF_HEAD;
    if (cli_elf_id(buf, len, &id) != 0)
        return CLI_ELF_UNKNOWN;
    int le = id.le, is64 = id.is64;
    uint16_t type = rd16(buf + 16, le);
    if (type != ET_EXEC && type != ET_DYN)
        return CLI_ELF_UNKNOWN; /* execve refuses it */
    /* machine 0 (EM_NONE): a build for a machine not named above, whose
     * number this file does not know; word size and byte order still
     * tell a 32-bit program from a 64-bit preload */
    int same = id.is64 == own.is64 && id.le == own.le &&
               (own.machine == 0 || id.machine == own.machine);
    uint64_t phoff = is64 ? rd64(buf + 32, le) : rd32(buf + 28, le);
    uint16_t phentsize = rd16(buf + (is64 ? 54 : 42), le);
    uint16_t phnum = rd16(buf + (is64 ? 56 : 44), le);
    size_t want = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
    /* PN_XNUM (the count kept elsewhere) and a size other than the
     * class's are not what a linker writes: left to execve. */
    if (phentsize != want || phnum == 0 || phnum == PN_XNUM || phoff > len ||
        (uint64_t)phnum * want > len - phoff)
        return CLI_ELF_UNKNOWN;
    for (size_t i = 0; i < phnum; i++) {
        if (rd32(buf + phoff + i * want, le) == PT_INTERP)
            return same ? CLI_ELF_DYNAMIC : CLI_ELF_FOREIGN;
    }
    /* No interpreter: nothing reads LD_PRELOAD, whatever the machine. */
    return CLI_ELF_STATIC;
}

/* Up to max bytes of the start of the file at path into buf: their
 * count, or -1 if it cannot be opened. */
static ssize_t head_of(const char *path, unsigned char *buf, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* never wait on a FIFO */
    if (fd < 0)
        return -1;
    size_t len = 0;
    while (len < max) {
        ssize_t k = read(fd, buf + len, max - len);
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    return (ssize_t)len;
}

int cli_elf_id_of(const char *path, struct cli_elf_id *id)
{
    /* the identity is in the ELF header alone */
    unsigned char buf[sizeof(Elf64_Ehdr)];
    ssize_t len = head_of(path, buf, sizeof(buf));
    return len < 0 ? -1 : cli_elf_id(buf, (size_t)len, id);
}

size_t cli_shebang(const unsigned char *buf, size_t len, char *out, size_t n)
{
    if (len < 2 || buf[0] != '#' || buf[1] != '!' || n == 0)
        return 0;
    size_t i = 2, k = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
        i++;
    for (; i < len && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\0'; i++) {
        if (k + 1 >= n)
            return 0;
        out[k++] = (char)buf[i];
    }
    out[k] = '\0';
    return k;
}

/* The kernel runs a chain of at most five "#!" scripts, each naming the
 * next, before the program at its end (a sixth script fails with ELOOP;
 * tried on the 6.18 kernel of the project's test machines), and the check
 * follows as many. */
#define PCI_SHEBANG_DEPTH 5

enum cli_elf_kind cli_elf_kind_of(const char *path, const struct cli_elf_id *lib, char *judged,
                                  size_t n)
{
    char next[4096];
    enum cli_elf_kind kind = CLI_ELF_UNKNOWN;
    if (n == 0)
        return kind;
    snprintf(judged, n, "%s", path);
    unsigned char *buf = malloc(CLI_ELF_HEAD);
    if (buf == NULL || strlen(path) >= sizeof(next)) {
        free(buf);
        return kind;
    }
    strcpy(next, path);
    for (int depth = 0; depth <= PCI_SHEBANG_DEPTH; depth++) {
        snprintf(judged, n, "%s", next);
        ssize_t len = head_of(next, buf, CLI_ELF_HEAD);
        if (len < 0)
            break; /* execute-only, or gone: execve will judge */
        if (cli_shebang(buf, (size_t)len, next, sizeof(next)) == 0) {
            kind = cli_elf_kind(buf, (size_t)len, lib);
            break;
        }
    }
    free(buf);
    return kind;
}
