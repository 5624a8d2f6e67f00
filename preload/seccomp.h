/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * seccomp.h - whether memset's path may make system calls (seccomp.c):
 * only while the preload knows no seccomp filter is installed, since a
 * filter may kill or trap a program at a call it would not make without
 * the preload.
 */
#ifndef PCI_PRELOAD_SECCOMP_H
#define PCI_PRELOAD_SECCOMP_H

#pragma GCC visibility push(hidden)

/* From the constructor: 1 if no filter is installed (/proc/self/status
 * says so), 0 if one was at start (the calls are refused for good), -1 if
 * one was installed through prctl or syscall before the constructor ran
 * (then even the library's start may be refused: its files). */
int pci_preload_calls_init(void);

/* 1 if the path may make its calls now; it must then call
 * pci_preload_calls_end when done. 0: it may not. Lock-free,
 * async-signal-safe. */
int pci_preload_calls_begin(void);
void pci_preload_calls_end(void);

/* NULL while the calls are allowed, else why not (for the stats). */
const char *pci_preload_calls_why(void);

#pragma GCC visibility pop

#endif
