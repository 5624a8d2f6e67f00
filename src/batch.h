/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * batch.h - the batching core (clear.c) shared by pc_clear_batched and the
 * hint clear (zero_hint.c).
 */
#ifndef PCI_BATCH_H
#define PCI_BATCH_H

#include "pageclear.h"
#include "primitive.h"

#pragma GCC visibility push(hidden)

/* Clear [addr, addr + len) with fn in units, calling the callback before
 * each; *done is advanced by the bytes cleared and reported against total. */
int pci_clear_units(char *addr, size_t len, pci_clear_fn fn,
                    const struct pc_batch *b, size_t *done, size_t total);
/* Resolve a caller's batch (in: size bytes as it knows the struct; NULL
 * for the defaults) with its zero fields to the defaults; -EINVAL if bad,
 * -E2BIG if it sets what this library does not know (abi.h). */
int pci_batch_resolve(const struct pc_batch *in, size_t size, struct pc_batch *out);

#pragma GCC visibility pop

#endif /* PCI_BATCH_H */
