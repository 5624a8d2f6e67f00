/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * preload_env.h - the preload's variables (preload_env.c), read by its
 * constructor only: a bad value is said on stderr (unless
 * PAGECLEAR_QUIET=1) and the default kept, as the library does for its
 * own (src/tuning/options.c).
 */
#ifndef PCI_PRELOAD_ENV_H
#define PCI_PRELOAD_ENV_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/* 1 if variable name is set to exactly value (value NULL: unset). */
int pci_env_is(const char *name, const char *value);

/* 0 or 1 where name is "0" or "1", dflt where it is unset or empty
 * (`NAME= cmd` unsets it for one command). */
int pci_env_switch(const char *name, int dflt);

/* The index of name's value among the n words, dflt where it is unset
 * or empty. */
int pci_env_choice(const char *name, const char *const *words, int n, int dflt);

#pragma GCC visibility pop

#endif
