/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * avx2.c - 32-byte AVX2 stores, temporal and non-temporal (shape in
 * vector_store.h). Compiled with a target attribute so the library stays
 * baseline x86-64; called only after cpu.c confirmed AVX2 in cpuid and the
 * OS's SSE and AVX state in XCR0.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "primitive.h"

#define PCI_V 32
#define PCI_VTYPE __m256i
#define PCI_VSET1 _mm256_set1_epi64x
#define PCI_VSTOREU _mm256_storeu_si256
#define PCI_VSTORE _mm256_store_si256
#define PCI_VSTREAM _mm256_stream_si256
#define PCI_VTARGET "avx2"
#define PCI_VNAME(s) pci_clear_x86_avx2##s
#define PCI_VFILLNAME(s) pci_fill_x86_avx2##s
#include "vector_store.h"
#endif
