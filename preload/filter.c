/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * filter.c - libpageclear-preload.so, the file a user names in
 * LD_PRELOAD (by path or by name) and `pageclear exec` puts there. It
 * defines no memset: it is an ELF auxiliary filter (DT_AUXILIARY) of
 * libpageclear-preload-impl.so, the preload itself (preload.c), which
 * the dynamic loader then finds through this file's RUNPATH, $ORIGIN, and
 * so looks for in $ORIGIN/glibc-hwcaps/<level>/ first: on x86-64 the
 * build for this CPU, with its own memset entry (entry_x86_64_v3.c,
 * entry_x86_64_v4.c), whatever path the user wrote. Named by path, the
 * preload was otherwise that one file, the default entry, which measured
 * up to 28% slower on short calls than the CPU's own copy
 * (docs/notes.md, "The file users name loads the copy for the CPU").
 * The loader puts a filter's
 * filtee just before it in the lookup order, so the filtee's memset is
 * the one every object binds to, and its dlsym(RTLD_NEXT) passes over
 * this file, which defines none, to the next memset (tests/preload.sh,
 * case filter).
 *
 * Auxiliary rather than a plain filter: a missing filtee is then skipped
 * and the program runs, as the loader runs it when a file named in
 * LD_PRELOAD is missing, rather than not at all; and this constructor
 * says so on stderr (PAGECLEAR_QUIET=1 silences it, as it does the
 * preload's own reports), so that no one believes pageclear ran.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "note.h"

/* Defined and exported by the preload (preload.c, preload.map); resolved
 * when this file is relocated, so null exactly when no build of the
 * preload was loaded. */
extern const int pci_preload_loaded __attribute__((weak));

__attribute__((constructor)) static void pci_filter_check(void)
{
    static const char msg[] =
        "pageclear-preload: " PC_PRELOAD_IMPL_FILE ", which libpageclear-preload.so loads "
        "from its own directory, is missing: the program runs without pageclear\n";
    const char *quiet = getenv("PAGECLEAR_QUIET");
    if (&pci_preload_loaded == NULL && (quiet == NULL || strcmp(quiet, "1") != 0))
        (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
}
