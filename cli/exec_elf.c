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

enum cli_elf_kind cli_elf_kind(const unsigned char *buf, size_t len)
{
    if (len > CLI_ELF_HEAD)
        len = CLI_ELF_HEAD;
    if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0)
        return CLI_ELF_UNKNOWN;
    int cls = buf[EI_CLASS], data = buf[EI_DATA];
    if ((cls != ELFCLASS32 && cls != ELFCLASS64) ||
        (data != ELFDATA2LSB && data != ELFDATA2MSB))
        return CLI_ELF_UNKNOWN;
    int le = data == ELFDATA2LSB, is64 = cls == ELFCLASS64;
    size_t ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
    if (len < ehsize)
        return CLI_ELF_UNKNOWN;
    uint16_t type = rd16(buf + 16, le), machine = rd16(buf + 18, le);
    if (type != ET_EXEC && type != ET_DYN)
        return CLI_ELF_UNKNOWN; /* execve refuses it */
    int native = is64 == (sizeof(void *) == 8) && le == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
#ifdef PCI_ELF_MACHINE
    native = native && machine == PCI_ELF_MACHINE;
#else
    (void)machine;
#endif
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
            return native ? CLI_ELF_DYNAMIC : CLI_ELF_FOREIGN;
    }
    /* No interpreter: nothing reads LD_PRELOAD, whatever the machine. */
    return CLI_ELF_STATIC;
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

enum cli_elf_kind cli_elf_kind_of(const char *path, char *judged, size_t n)
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
        int fd = open(next, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* never wait on a FIFO */
        if (fd < 0)
            break; /* execute-only, or gone: execve will judge */
        size_t len = 0;
        while (len < CLI_ELF_HEAD) {
            ssize_t k = read(fd, buf + len, CLI_ELF_HEAD - len);
            if (k <= 0)
                break;
            len += (size_t)k;
        }
        close(fd);
        if (cli_shebang(buf, len, next, sizeof(next)) == 0) {
            kind = cli_elf_kind(buf, len);
            break;
        }
    }
    free(buf);
    return kind;
}
