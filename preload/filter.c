/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * filter.c - libpageclear-preload.so, the file a user names in
 * LD_PRELOAD (by path or by name) and `pageclear exec` puts there. It
 * defines no memset: it is an ELF auxiliary filter (DT_AUXILIARY) of the
 * preload itself, libpageclear-preload-impl.so (preload.c), which the
 * dynamic loader finds through this file's RUNPATH, $ORIGIN, and so looks
 * for in $ORIGIN/glibc-hwcaps/<level>/ first: the build for this CPU,
 * whatever path the user wrote (docs/notes.md, "The file users name loads
 * the copy for the CPU"). The loader puts a filtee just before its filter
 * in the lookup order, so the filtee's memset is the one every object
 * binds to, and its dlsym(RTLD_NEXT) passes over this file to the next
 * memset (tests/integration/preload/preload.sh, case filter). Auxiliary, so that a missing
 * filtee is skipped and the program runs, as with a missing LD_PRELOAD
 * file; this constructor then says so on stderr (unless PAGECLEAR_QUIET=1),
 * so that no one believes pageclear ran.
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
