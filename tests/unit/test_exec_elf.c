/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_exec_elf.c - how `pageclear exec` reads a program before running it
 * under the preload (cli/exec/exec_elf.c): built headers of each kind (with an
 * interpreter, static, another class, machine or byte order, not ELF,
 * cut short, program headers out of range), libraries with and without
 * the preload's note, "#!" lines, the same as files
 * (scripts followed to their interpreter), this very program, and a
 * seeded fuzz of mutated headers and lines in buffers of exactly their
 * length, so the sanitizers catch a read past one. libFuzzer with
 * clang (-DPC_FUZZ=ON) runs the same target.
 */
#include <elf.h>
#include <fcntl.h>

#include "../../cli/exec/exec_elf.h"
#include "../../preload/note.h"
#include "harness.h"

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#endif

/* The len bytes at data in a buffer of exactly that length (freed by the
 * caller), so that the sanitizers catch a read past them. */
static unsigned char *exact_copy(const unsigned char *data, size_t len)
{
    unsigned char *exact = malloc(len ? len : 1);
    CHECK(exact != NULL);
    if (len)
        memcpy(exact, data, len);
    return exact;
}

/* The invariants of the library reader on any input: one of its answers
 * (never "cannot be read": it reads no file), "not ELF" exactly where the
 * header reader finds none, and the preload only where the kind reader
 * sees a shared library without an interpreter (static, to it). */
static enum cli_elf_lib lib_exact(const unsigned char *exact, size_t len)
{
    enum cli_elf_lib l = cli_elf_lib(exact, len);
    struct cli_elf_id id;
    CHECK(l == CLI_ELF_LIB_PRELOAD || l == CLI_ELF_LIB_NOT_ELF || l == CLI_ELF_LIB_NOT_SHARED ||
          l == CLI_ELF_LIB_NOT_PRELOAD || l == CLI_ELF_LIB_FILTER);
    CHECK((l == CLI_ELF_LIB_NOT_ELF) == (cli_elf_id(exact, len, &id) != 0));
    if (l == CLI_ELF_LIB_PRELOAD || l == CLI_ELF_LIB_FILTER)
        CHECK(cli_elf_kind(exact, len, &id) == CLI_ELF_STATIC);
    return l;
}

/* The invariants on any input: one of the four kinds; bytes that are no
 * ELF header are unknown; judged against the identity their own header
 * gives, never foreign. */
static enum cli_elf_kind kind_exact(const unsigned char *data, size_t len)
{
    unsigned char *exact = exact_copy(data, len);
    enum cli_elf_kind k = cli_elf_kind(exact, len, NULL);
    CHECK(k == CLI_ELF_UNKNOWN || k == CLI_ELF_DYNAMIC || k == CLI_ELF_STATIC ||
          k == CLI_ELF_FOREIGN);
    /* the identity read from the bytes themselves: never foreign to it */
    struct cli_elf_id id;
    if (cli_elf_id(exact, len, &id) == 0) {
        CHECK((id.is64 == 0 || id.is64 == 1) && (id.le == 0 || id.le == 1));
        CHECK(cli_elf_kind(exact, len, &id) != CLI_ELF_FOREIGN);
    } else {
        CHECK(k == CLI_ELF_UNKNOWN);
    }
    lib_exact(exact, len);
    free(exact);
    return k;
}

/* The invariant of the "#!" reader: a length below the room given, the
 * name NUL-terminated there, without a blank or newline, and made of the
 * first line's bytes. */
static size_t shebang_exact(const unsigned char *data, size_t len)
{
    unsigned char *exact = exact_copy(data, len);
    char out[64];
    memset(out, 'z', sizeof(out));
    size_t k = cli_shebang(exact, len, out, sizeof(out));
    CHECK(k < sizeof(out));
    if (k > 0) {
        CHECK(out[k] == '\0' && strlen(out) == k);
        CHECK(strpbrk(out, " \t\n") == NULL);
        CHECK(len >= 2 && exact[0] == '#' && exact[1] == '!');
        CHECK(memmem(exact, len, out, k) != NULL);
    }
    free(exact);
    return k;
}

#ifdef PC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    kind_exact(data, len);
    shebang_exact(data, len);
    return 0;
}
#else

static void put(unsigned char *p, uint64_t v, int bytes, int le)
{
    for (int i = 0; i < bytes; i++)
        p[le ? i : bytes - 1 - i] = (unsigned char)(v >> (8 * i));
}

struct shape {
    int is64, le, machine, type, phnum;
    int interp; /* index of the PT_INTERP header, or -1 */
};

/* An ELF header and phnum program headers right after it (PT_LOAD but
 * the one at interp); returns the length. */
static size_t make(unsigned char *b, struct shape s)
{
    size_t eh = s.is64 ? 64 : 52, ph = s.is64 ? 56 : 32;
    memset(b, 0, eh + (size_t)s.phnum * ph);
    memcpy(b, ELFMAG, SELFMAG);
    b[EI_CLASS] = s.is64 ? ELFCLASS64 : ELFCLASS32;
    b[EI_DATA] = s.le ? ELFDATA2LSB : ELFDATA2MSB;
    b[EI_VERSION] = EV_CURRENT;
    put(b + 16, (uint64_t)s.type, 2, s.le);
    put(b + 18, (uint64_t)s.machine, 2, s.le);
    put(b + (s.is64 ? 32 : 28), eh, s.is64 ? 8 : 4, s.le); /* e_phoff */
    put(b + (s.is64 ? 52 : 40), eh, 2, s.le);              /* e_ehsize */
    put(b + (s.is64 ? 54 : 42), ph, 2, s.le);              /* e_phentsize */
    put(b + (s.is64 ? 56 : 44), (uint64_t)s.phnum, 2, s.le);
    for (int i = 0; i < s.phnum; i++)
        put(b + eh + (size_t)i * ph, i == s.interp ? PT_INTERP : PT_LOAD, 4, s.le);
    return eh + (size_t)s.phnum * ph;
}

/* A shared library as a linker lays one out: an ELF header, a PT_LOAD
 * and a PT_NOTE header, and the note segment after them: a build-id note
 * of 20 bytes, then the preload's (note.h) with the name, type and
 * descriptor given, each entry padded to align. Returns the length. */
static size_t make_lib(unsigned char *b, int is64, int le, unsigned align, const char *name,
                       unsigned type, const char *desc)
{
    struct shape sh = {is64, le, 62, ET_DYN, 2, -1};
    size_t off = make(b, sh), ph = (is64 ? 64 : 52) + (is64 ? 56 : 32), at = off;
    unsigned char *p = b + ph;
    put(p, PT_NOTE, 4, le);
    put(p + (is64 ? 8 : 4), off, is64 ? 8 : 4, le); /* p_offset */
    put(p + (is64 ? 48 : 28), align, is64 ? 8 : 4, le); /* p_align */
    const char *names[2] = {"GNU", name}, *descs[2] = {"0123456789abcdefghij", desc};
    const unsigned types[2] = {NT_GNU_BUILD_ID, type};
    for (int i = 0; i < 2; i++) {
        size_t nsz = strlen(names[i]) + 1, dsz = strlen(descs[i]) + 1;
        if (i == 0)
            dsz--; /* a build id is bytes, not a string */
        put(b + at, nsz, 4, le);
        put(b + at + 4, dsz, 4, le);
        put(b + at + 8, types[i], 4, le);
        at += 12;
        memset(b + at, 0, ((nsz + align - 1) & ~(size_t)(align - 1)) +
                              ((dsz + align - 1) & ~(size_t)(align - 1)));
        memcpy(b + at, names[i], nsz);
        at += (nsz + align - 1) & ~(size_t)(align - 1);
        memcpy(b + at, descs[i], dsz);
        at += (dsz + align - 1) & ~(size_t)(align - 1);
    }
    put(p + (is64 ? 32 : 16), at - off, is64 ? 8 : 4, le); /* p_filesz */
    return at;
}

/* lib_exact on an exact copy of the len bytes at b. */
static enum cli_elf_lib lib_copy(const unsigned char *b, size_t len)
{
    unsigned char *exact = exact_copy(b, len);
    enum cli_elf_lib l = lib_exact(exact, len);
    free(exact);
    return l;
}

/* Libraries given to exec: the preload's note and the filter's found in
 * either class and byte order and at either alignment, and anything else
 * refused. */
static void libs(void)
{
    static unsigned char b[1024];
    const char *nm = PC_PRELOAD_NOTE_NAME, *ds = PC_PRELOAD_NOTE_DESC;
    const unsigned ty = PC_PRELOAD_NOTE_TYPE;
    size_t n = 0;
    for (int is64 = 0; is64 < 2; is64++)
        for (int le = 0; le < 2; le++)
            for (unsigned align = 4; align <= 8; align += 4) {
                for (int filter = 0; filter < 2; filter++) {
                    enum cli_elf_lib want = filter ? CLI_ELF_LIB_FILTER : CLI_ELF_LIB_PRELOAD;
                    n = make_lib(b, is64, le, align, nm,
                                 filter ? PC_PRELOAD_NOTE_TYPE_FILTER : ty, ds);
                    CHECK_EQ(lib_copy(b, n), want);
                    /* cut anywhere short of the note's last byte: not found */
                    for (size_t cut = 0; cut < n; cut++)
                        CHECK(lib_copy(b, cut) != want);
                }
            }
    /* another name, type or descriptor, a name one byte longer */
    CHECK_EQ(lib_copy(b, make_lib(b, 1, 1, 4, "pageclean", ty, ds)), CLI_ELF_LIB_NOT_PRELOAD);
    CHECK_EQ(lib_copy(b, make_lib(b, 1, 1, 4, nm, 0, ds)), CLI_ELF_LIB_NOT_PRELOAD);
    CHECK_EQ(lib_copy(b, make_lib(b, 1, 1, 4, nm, 3, ds)), CLI_ELF_LIB_NOT_PRELOAD);
    CHECK_EQ(lib_copy(b, make_lib(b, 1, 1, 4, nm, ty, "prelude")), CLI_ELF_LIB_NOT_PRELOAD);
    CHECK_EQ(lib_copy(b, make_lib(b, 1, 1, 4, "pageclear!", ty, ds)), CLI_ELF_LIB_NOT_PRELOAD);
    /* the build id's sizes out of range: the walk stops, nothing read
     * past the segment (the buffer is exactly its length) */
    size_t first = 64 + 2 * 56;
    for (int field = 0; field < 2; field++) {
        n = make_lib(b, 1, 1, 4, nm, ty, ds);
        put(b + first + 4 * (size_t)field, 0xfffffff0u, 4, 1);
        CHECK_EQ(lib_copy(b, n), CLI_ELF_LIB_NOT_PRELOAD);
    }
    /* the segment past the bytes, or its offset + size wrapping */
    n = make_lib(b, 1, 1, 4, nm, ty, ds);
    put(b + 64 + 56 + 32, 4000, 8, 1);
    CHECK_EQ(lib_copy(b, n), CLI_ELF_LIB_NOT_PRELOAD);
    put(b + 64 + 56 + 32, UINT64_MAX - 8, 8, 1);
    CHECK_EQ(lib_copy(b, n), CLI_ELF_LIB_NOT_PRELOAD);
    /* a program, with an interpreter (a PIE) or ET_EXEC; an object */
    n = make_lib(b, 1, 1, 4, nm, ty, ds);
    put(b + 64, PT_INTERP, 4, 1); /* the PT_LOAD header */
    CHECK_EQ(lib_copy(b, n), CLI_ELF_LIB_NOT_SHARED);
    n = make_lib(b, 1, 1, 4, nm, ty, ds);
    put(b + 16, ET_EXEC, 2, 1);
    CHECK_EQ(lib_copy(b, n), CLI_ELF_LIB_NOT_SHARED);
    put(b + 16, ET_REL, 2, 1);
    CHECK_EQ(lib_copy(b, n), CLI_ELF_LIB_NOT_SHARED);
    CHECK_EQ(lib_copy((const unsigned char *)"!<arch>\n", 8), CLI_ELF_LIB_NOT_ELF);
    CHECK_EQ(cli_elf_lib_of("/nonexistent/lib.so", NULL), CLI_ELF_LIB_UNREAD);
    /* this program: not a library to preload (it has an interpreter) */
    CHECK_EQ(cli_elf_lib_of("/proc/self/exe", NULL), CLI_ELF_LIB_NOT_SHARED);
}

static void built(void)
{
    static unsigned char b[4096];
#ifdef NATIVE_MACHINE
    const int m = NATIVE_MACHINE, other = m == EM_X86_64 ? EM_AARCH64 : EM_X86_64;
    struct shape dyn = {1, 1, m, ET_DYN, 9, 1};
    size_t n = make(b, dyn);
    CHECK_EQ(kind_exact(b, n), CLI_ELF_DYNAMIC);
    CHECK_EQ(kind_exact(b, n + 100), CLI_ELF_DYNAMIC); /* bytes after: no matter */
    struct shape exe = dyn;
    exe.type = ET_EXEC;
    exe.interp = 8; /* the last header */
    CHECK_EQ(kind_exact(b, make(b, exe)), CLI_ELF_DYNAMIC);
    /* no PT_INTERP: static (or static-pie), on any machine */
    struct shape st = dyn;
    st.interp = -1;
    CHECK_EQ(kind_exact(b, make(b, st)), CLI_ELF_STATIC);
    st.machine = other;
    CHECK_EQ(kind_exact(b, make(b, st)), CLI_ELF_STATIC);
    /* an interpreter, but not the preload's kind: another machine, a
     * 32-bit program, the other byte order */
    struct shape f = dyn;
    f.machine = other;
    CHECK_EQ(kind_exact(b, make(b, f)), CLI_ELF_FOREIGN);
    f = dyn;
    f.is64 = 0;
    f.machine = m == EM_X86_64 ? EM_386 : EM_ARM;
    CHECK_EQ(kind_exact(b, make(b, f)), CLI_ELF_FOREIGN);
    f = dyn;
    f.le = 0;
    CHECK_EQ(kind_exact(b, make(b, f)), CLI_ELF_FOREIGN);
    /* against a preload library's own identity rather than the
     * command's: a 32-bit one takes the 32-bit program; one whose machine
     * is unknown (0) judges by word size and byte order alone */
    struct cli_elf_id i386 = {0, 1, m == EM_X86_64 ? EM_386 : EM_ARM}, id;
    f = dyn;
    f.is64 = 0;
    f.machine = (int)i386.machine;
    n = make(b, f);
    CHECK_EQ(cli_elf_kind(b, n, &i386), CLI_ELF_DYNAMIC);
    CHECK_EQ(cli_elf_id(b, n, &id), 0);
    CHECK(id.is64 == 0 && id.le == 1 && id.machine == i386.machine);
    CHECK_EQ(cli_elf_kind(b, make(b, dyn), &i386), CLI_ELF_FOREIGN);
    struct cli_elf_id any64 = {1, 1, 0};
    f = dyn;
    f.machine = other;
    CHECK_EQ(cli_elf_kind(b, make(b, f), &any64), CLI_ELF_DYNAMIC);
    f.is64 = 0;
    CHECK_EQ(cli_elf_kind(b, make(b, f), &any64), CLI_ELF_FOREIGN);
    n = make(b, dyn);
    CHECK_EQ(cli_elf_id(b, n, &id), 0);
    CHECK(id.is64 == 1 && id.le == 1 && id.machine == (unsigned)m);
    CHECK_EQ(cli_elf_id(b, 63, &id), -1); /* the header cut */
    /* not a program execve runs: left to it */
    struct shape rel = dyn;
    rel.type = ET_REL;
    CHECK_EQ(kind_exact(b, make(b, rel)), CLI_ELF_UNKNOWN);
    /* cut anywhere before the last program header is whole: unknown,
     * even past the interpreter's (the second) */
    n = make(b, dyn);
    for (size_t cut = 0; cut < n; cut++)
        CHECK_EQ(kind_exact(b, cut), CLI_ELF_UNKNOWN);
    CHECK_EQ(kind_exact(b, n), CLI_ELF_DYNAMIC);
    /* program headers out of range, of the wrong size, none, PN_XNUM */
    make(b, dyn);
    put(b + 32, 4000, 8, 1);
    CHECK_EQ(kind_exact(b, n), CLI_ELF_UNKNOWN);
    put(b + 32, UINT64_MAX - 8, 8, 1); /* offset + size would wrap */
    CHECK_EQ(kind_exact(b, n), CLI_ELF_UNKNOWN);
    make(b, dyn);
    put(b + 54, 64, 2, 1);
    CHECK_EQ(kind_exact(b, sizeof(b)), CLI_ELF_UNKNOWN);
    make(b, dyn);
    put(b + 56, 0, 2, 1);
    CHECK_EQ(kind_exact(b, n), CLI_ELF_UNKNOWN);
    put(b + 56, PN_XNUM, 2, 1);
    CHECK_EQ(kind_exact(b, sizeof(b)), CLI_ELF_UNKNOWN);
#endif
    /* not ELF: a script, text, nothing; a bad class or byte order */
    CHECK_EQ(kind_exact((const unsigned char *)"#!/bin/sh\nexit 0\n", 17), CLI_ELF_UNKNOWN);
    CHECK_EQ(kind_exact((const unsigned char *)"", 0), CLI_ELF_UNKNOWN);
    CHECK_EQ(kind_exact((const unsigned char *)"\177ELF", 4), CLI_ELF_UNKNOWN);
    struct shape bad = {1, 1, 62, ET_DYN, 2, 0};
    size_t k = make(b, bad);
    b[EI_CLASS] = 3;
    CHECK_EQ(kind_exact(b, k), CLI_ELF_UNKNOWN);
    make(b, bad);
    b[EI_DATA] = 0;
    CHECK_EQ(kind_exact(b, k), CLI_ELF_UNKNOWN);
}

static void shebangs(void)
{
    char out[16];
#define SB(text) cli_shebang((const unsigned char *)(text), sizeof(text) - 1, out, sizeof(out))
    CHECK_EQ(SB("#!/bin/sh\nexit 0\n"), 7);
    CHECK(strcmp(out, "/bin/sh") == 0);
    CHECK_EQ(SB("#! \t/usr/bin/env python3 -u\n"), 12); /* blanks first; args after */
    CHECK(strcmp(out, "/usr/bin/env") == 0);
    CHECK_EQ(SB("#!/bin/sh"), 7); /* no newline: the file's end ends it */
    CHECK_EQ(SB("#!sh\n"), 2);    /* relative, as the kernel takes it */
    CHECK(strcmp(out, "sh") == 0);
    CHECK_EQ(SB("#!\n/bin/sh\n"), 0); /* names nothing */
    CHECK_EQ(SB("#!   \n"), 0);
    CHECK_EQ(SB("#!"), 0);
    CHECK_EQ(SB("#"), 0);
    CHECK_EQ(SB(" #!/bin/sh\n"), 0);
    CHECK_EQ(SB("\177ELF#!/bin/sh"), 0);
    CHECK_EQ(SB("#!/aaaaaaaaaaaaaa\n"), 15); /* 15 bytes and the NUL fill out */
    CHECK(strcmp(out, "/aaaaaaaaaaaaaa") == 0);
    CHECK_EQ(SB("#!/aaaaaaaaaaaaaaa\n"), 0); /* 16: no room, refused, not cut */
    CHECK_EQ(cli_shebang((const unsigned char *)"#!/bin/sh", 9, out, 0), 0);
#undef SB
}

/* The same read from files, and this program, which the dynamic loader
 * started (qemu-user shows the guest program as /proc/self/exe). */
static void files(void)
{
    char dir[] = "/tmp/pc-elf-XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    static unsigned char b[4096];
    size_t n = 0;
#ifdef NATIVE_MACHINE
    struct shape st = {1, 1, NATIVE_MACHINE, ET_DYN, 3, -1};
    n = make(b, st);
#endif
    snprintf(path, sizeof(path), "%s/prog", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    CHECK(fd >= 0);
    CHECK(write(fd, b, n) == (ssize_t)n);
    close(fd);
    char judged[64], s[8][64];
#ifdef NATIVE_MACHINE
    CHECK_EQ(cli_elf_kind_of(path, NULL, judged, sizeof(judged)), CLI_ELF_STATIC);
    CHECK(strcmp(judged, path) == 0);
    CHECK_EQ(cli_elf_kind_of("/proc/self/exe", NULL, judged, sizeof(judged)), CLI_ELF_DYNAMIC);
    struct cli_elf_id self;
    CHECK_EQ(cli_elf_lib_of("/proc/self/exe", &self), CLI_ELF_LIB_NOT_SHARED);
    CHECK(self.is64 == (sizeof(void *) == 8) && self.machine == NATIVE_MACHINE);
    CHECK_EQ(cli_elf_lib_of(dir, &self), CLI_ELF_LIB_NOT_ELF); /* no bytes */
#endif
    /* scripts: s[0] runs prog, s[i] runs s[i-1]; the kernel runs five
     * scripts in a row and refuses a sixth, and so does the check, naming
     * the program at the end */
    for (int i = 0; i < 6; i++) {
        snprintf(s[i], sizeof(s[i]), "%s/s%d", dir, i);
        FILE *f = fopen(s[i], "w");
        CHECK(f != NULL);
        fprintf(f, "#! %s -x\necho\n", i == 0 ? path : s[i - 1]);
        CHECK(fclose(f) == 0);
    }
    for (int i = 0; i < 6; i++) {
        enum cli_elf_kind k = cli_elf_kind_of(s[i], NULL, judged, sizeof(judged));
#ifdef NATIVE_MACHINE
        CHECK_EQ(k, i < 5 ? CLI_ELF_STATIC : CLI_ELF_UNKNOWN);
        if (i < 5)
            CHECK(strcmp(judged, path) == 0);
#else
        CHECK_EQ(k, CLI_ELF_UNKNOWN);
#endif
    }
    /* an interpreter that is not there: unknown, execve reports it */
    FILE *f = fopen(s[0], "w");
    CHECK(f != NULL);
    fprintf(f, "#!%s/none\n", dir);
    CHECK(fclose(f) == 0);
    CHECK_EQ(cli_elf_kind_of(s[0], NULL, judged, sizeof(judged)), CLI_ELF_UNKNOWN);
    CHECK_EQ(cli_elf_kind_of("/nonexistent/prog", NULL, judged, sizeof(judged)), CLI_ELF_UNKNOWN);
    CHECK(strcmp(judged, "/nonexistent/prog") == 0);
    static char longp[5000]; /* longer than any path: unknown, judged still set */
    memset(longp, 'a', sizeof(longp) - 1);
    longp[0] = '/';
    memset(judged, 0, sizeof(judged));
    CHECK_EQ(cli_elf_kind_of(longp, NULL, judged, sizeof(judged)), CLI_ELF_UNKNOWN);
    CHECK(strlen(judged) == sizeof(judged) - 1 && judged[0] == '/');
    CHECK_EQ(cli_elf_kind_of(dir, NULL, judged, sizeof(judged)), CLI_ELF_UNKNOWN); /* no bytes */
    for (int i = 0; i < 6; i++)
        unlink(s[i]);
    unlink(path);
    rmdir(dir);
}

/* Mutations of built headers (a byte, a field set to a random value, a
 * random length), the same bytes as a "#!" line, and random first lines. */
static void fuzz(unsigned long iters)
{
    static unsigned char b[2048];
    uint64_t seed = 0x243f6a8885a308d3ULL;
    int seen[4] = {0}, seen_lib[CLI_ELF_LIB_UNREAD + 1] = {0};
    unsigned long shebangs_named = 0;
    for (unsigned long it = 0; it < iters; it++) {
        struct shape s = {(int)(rng_next(&seed) % 2), (int)(rng_next(&seed) % 4 != 0),
                          (int)(rng_next(&seed) % 2 ? 62 : 183), ET_DYN,
                          (int)(rng_next(&seed) % 12),
                          (int)(rng_next(&seed) % 14) - 1};
        size_t n = make(b, s);
        uint64_t how = rng_next(&seed) % 4;
        if (how == 1)
            b[rng_next(&seed) % (n + 1)] = (unsigned char)rng_next(&seed);
        else if (how == 2)
            put(b + 16 + rng_next(&seed) % 40, rng_next(&seed), 2, 1);
        else if (how == 3)
            n = rng_next(&seed) % sizeof(b);
        seen[kind_exact(b, n)]++;
        /* a library with the preload's note or the filter's, mutated the
         * same ways */
        size_t m = make_lib(b, s.is64, s.le, rng_next(&seed) % 2 ? 4 : 8, PC_PRELOAD_NOTE_NAME,
                            rng_next(&seed) % 2 ? PC_PRELOAD_NOTE_TYPE_FILTER
                                                : PC_PRELOAD_NOTE_TYPE,
                            PC_PRELOAD_NOTE_DESC);
        if (how == 1)
            b[rng_next(&seed) % (m + 1)] = (unsigned char)rng_next(&seed);
        else if (how == 2)
            put(b + 16 + rng_next(&seed) % (m - 20), rng_next(&seed), 4, s.le);
        else if (how == 3)
            m = rng_next(&seed) % (m + 1);
        seen_lib[lib_copy(b, m)]++;
        /* the same bytes as a "#!" line, and a first line of random text */
        b[0] = '#';
        b[1] = '!';
        shebang_exact(b, n);
        for (size_t i = 2; i < 40; i++)
            b[i] = " \t\n/ab\0"[rng_next(&seed) % 7];
        if (shebang_exact(b, 2 + rng_next(&seed) % 38) > 0)
            shebangs_named++;
    }
    /* the driver must reach every kind, or it tests refusals only */
    for (int k = 0; k < 4; k++)
        CHECK(seen[k] > 0 && seen_lib[k] > 0);
    CHECK(seen_lib[CLI_ELF_LIB_FILTER] > 0);
    CHECK(shebangs_named > 0);
    printf("ok: %lu inputs: %d unknown, %d dynamic, %d static, %d foreign; libraries: %d "
           "the preload, %d the filter, %d not ELF, %d not shared, %d without the note\n",
           iters, seen[CLI_ELF_UNKNOWN], seen[CLI_ELF_DYNAMIC], seen[CLI_ELF_STATIC],
           seen[CLI_ELF_FOREIGN], seen_lib[CLI_ELF_LIB_PRELOAD], seen_lib[CLI_ELF_LIB_FILTER],
           seen_lib[CLI_ELF_LIB_NOT_ELF],
           seen_lib[CLI_ELF_LIB_NOT_SHARED], seen_lib[CLI_ELF_LIB_NOT_PRELOAD]);
}

int main(int argc, char **argv)
{
    built();
    libs();
    shebangs();
    files();
    fuzz(argc > 1 ? strtoul(argv[1], NULL, 10) : 200000);
    return 0;
}
#endif
