/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * note.c - the note `pageclear exec` reads (note.h), linked into the file
 * users name (filter.c) and into each build of the preload. Each field is
 * 4-byte aligned, as the ELF note format wants; a section named .note.* is
 * a note section to GCC and Clang alike, put in a PT_NOTE segment.
 */
#include <stddef.h>
#include <stdint.h>

#include "note.h"

/* The type, PC_PRELOAD_NOTE_TYPE but in the filter (its CMake target
 * defines it). */
#ifndef PCI_NOTE_TYPE
#define PCI_NOTE_TYPE PC_PRELOAD_NOTE_TYPE
#endif

__attribute__((section(".note.pageclear"), used, aligned(4))) static const struct {
    uint32_t namesz, descsz, type;
    char name[(sizeof(PC_PRELOAD_NOTE_NAME) + 3) & ~(size_t)3];
    char desc[(sizeof(PC_PRELOAD_NOTE_DESC) + 3) & ~(size_t)3];
} pci_preload_note = {sizeof(PC_PRELOAD_NOTE_NAME), sizeof(PC_PRELOAD_NOTE_DESC),
                      PCI_NOTE_TYPE, PC_PRELOAD_NOTE_NAME, PC_PRELOAD_NOTE_DESC};
