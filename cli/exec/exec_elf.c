/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * exec_elf.c - reads a program's ELF header and program headers to tell
 * whether the dynamic loader will run for it and can load the preload:
 * LD_PRELOAD is read only by the interpreter named in PT_INTERP, and only
 * for a library of the program's own class and machine. `pageclear exec`
 * (cli/exec/exec.c) refuses a program for which it would silently do nothing;
 * for a script, it reads the interpreter the "#!" line names, as the
 * kernel runs it. It reads the preload library's notes too: a library
 * that is not the preload would be loaded and change nothing.
 * The bytes come from a file the user names: every offset and count is
 * checked against len before it is used (fuzzed in tests/unit/test_exec_elf.c).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../preload/note.h"
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

/* The command's own word size, byte order and machine, which a NULL
 * library identity stands for (the preload is built with the command). */
static struct cli_elf_id native(void)
{
    struct cli_elf_id id = {sizeof(void *) == 8, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, 0};
#ifdef PCI_ELF_MACHINE
    id.machine = PCI_ELF_MACHINE;
#endif
    return id;
}

/* Where the program headers lie in the bytes at buf, each checked. */
struct phdrs {
    uint64_t off; /* of the first, from buf */
    size_t num, ent; /* count, and the size of one */
    int le;
};

/* The program headers of the ELF whose identity is id in the len bytes
 * at buf: 0, or -1 if they do not lie whole within them. */
static int phdrs_of(const unsigned char *buf, size_t len, const struct cli_elf_id *id,
                    struct phdrs *ph)
{
    int le = id->le, is64 = id->is64;
    uint64_t phoff = is64 ? rd64(buf + 32, le) : rd32(buf + 28, le);
    uint16_t phentsize = rd16(buf + (is64 ? 54 : 42), le);
    uint16_t phnum = rd16(buf + (is64 ? 56 : 44), le);
    size_t want = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
    /* PN_XNUM (the count kept elsewhere) and a size other than the
     * class's are not what a linker writes: left to execve. */
    if (phentsize != want || phnum == 0 || phnum == PN_XNUM || phoff > len ||
        (uint64_t)phnum * want > len - phoff)
        return -1;
    *ph = (struct phdrs){phoff, phnum, want, le};
    return 0;
}

/* 1 if one of the program headers ph is PT_INTERP. */
static int has_interp(const unsigned char *buf, const struct phdrs *ph)
{
    for (size_t i = 0; i < ph->num; i++)
        if (rd32(buf + ph->off + i * ph->ent, ph->le) == PT_INTERP)
            return 1;
    return 0;
}

enum cli_elf_kind cli_elf_kind(const unsigned char *buf, size_t len,
                               const struct cli_elf_id *lib)
{
    struct cli_elf_id id, own = lib ? *lib : native();
    if (len > CLI_ELF_HEAD)
        len = CLI_ELF_HEAD;
    if (cli_elf_id(buf, len, &id) != 0)
        return CLI_ELF_UNKNOWN;
    uint16_t type = rd16(buf + 16, id.le);
    if (type != ET_EXEC && type != ET_DYN)
        return CLI_ELF_UNKNOWN; /* execve refuses it */
    /* machine 0 (EM_NONE): a build for a machine not named above, whose
     * number this file does not know; word size and byte order still
     * tell a 32-bit program from a 64-bit preload */
    int same = id.is64 == own.is64 && id.le == own.le &&
               (own.machine == 0 || id.machine == own.machine);
    struct phdrs ph;
    if (phdrs_of(buf, len, &id, &ph) != 0)
        return CLI_ELF_UNKNOWN;
    if (has_interp(buf, &ph))
        return same ? CLI_ELF_DYNAMIC : CLI_ELF_FOREIGN;
    /* No interpreter: nothing reads LD_PRELOAD, whatever the machine. */
    return CLI_ELF_STATIC;
}

/* The type of the first of the preload's notes (note.h) among the note
 * entries in [buf + off, buf + end), 0 if none. Each entry is three
 * 4-byte words (name size, descriptor size, type), then the name and the
 * descriptor, each padded to align. */
static uint32_t preload_note(const unsigned char *buf, uint64_t off, uint64_t end, int le,
                             uint64_t align)
{
    static const char name[] = PC_PRELOAD_NOTE_NAME, desc[] = PC_PRELOAD_NOTE_DESC;
    while (end - off >= 12) {
        uint64_t namesz = rd32(buf + off, le), descsz = rd32(buf + off + 4, le);
        uint32_t type = rd32(buf + off + 8, le);
        off += 12;
        uint64_t npad = (namesz + align - 1) & ~(align - 1);
        uint64_t dpad = (descsz + align - 1) & ~(align - 1);
        if (npad > end - off || dpad > end - off - npad)
            return 0; /* an entry past the segment: malformed */
        if ((type == PC_PRELOAD_NOTE_TYPE || type == PC_PRELOAD_NOTE_TYPE_FILTER) &&
            namesz == sizeof(name) && memcmp(buf + off, name, sizeof(name)) == 0 &&
            descsz == sizeof(desc) && memcmp(buf + off + npad, desc, sizeof(desc)) == 0)
            return type;
        off += npad + dpad;
    }
    return 0;
}

enum cli_elf_lib cli_elf_lib(const unsigned char *buf, size_t len)
{
    struct cli_elf_id id;
    struct phdrs ph;
    if (len > CLI_ELF_HEAD)
        len = CLI_ELF_HEAD;
    if (cli_elf_id(buf, len, &id) != 0)
        return CLI_ELF_LIB_NOT_ELF;
    /* a program, not a library; a position-independent one has an
     * interpreter, and the loader refuses to preload it */
    if (rd16(buf + 16, id.le) != ET_DYN || phdrs_of(buf, len, &id, &ph) != 0 ||
        has_interp(buf, &ph))
        return CLI_ELF_LIB_NOT_SHARED;
    for (size_t i = 0; i < ph.num; i++) {
        const unsigned char *p = buf + ph.off + i * ph.ent;
        if (rd32(p, id.le) != PT_NOTE)
            continue;
        uint64_t off = id.is64 ? rd64(p + 8, id.le) : rd32(p + 4, id.le);
        uint64_t size = id.is64 ? rd64(p + 32, id.le) : rd32(p + 16, id.le);
        uint64_t align = id.is64 ? rd64(p + 48, id.le) : rd32(p + 28, id.le);
        /* notes are 4-byte aligned, or 8 in a segment that says so (the
         * GNU property notes of 64-bit files) */
        uint32_t type = off <= len && size <= len - off
                            ? preload_note(buf, off, off + size, id.le, align == 8 ? 8 : 4)
                            : 0;
        if (type != 0)
            return type == PC_PRELOAD_NOTE_TYPE ? CLI_ELF_LIB_PRELOAD : CLI_ELF_LIB_FILTER;
    }
    return CLI_ELF_LIB_NOT_PRELOAD;
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

enum cli_elf_lib cli_elf_lib_of(const char *path, struct cli_elf_id *id)
{
    unsigned char *buf = malloc(CLI_ELF_HEAD);
    if (buf == NULL)
        return CLI_ELF_LIB_UNREAD;
    ssize_t len = head_of(path, buf, CLI_ELF_HEAD);
    enum cli_elf_lib r = len < 0 ? CLI_ELF_LIB_UNREAD : cli_elf_lib(buf, (size_t)len);
    if (id != NULL && r != CLI_ELF_LIB_UNREAD && r != CLI_ELF_LIB_NOT_ELF)
        (void)cli_elf_id(buf, (size_t)len, id);
    free(buf);
    return r;
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
