/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * avx512.c - 64-byte AVX-512 stores, temporal and non-temporal (shape in
 * vector_store.h). Compiled with a target attribute so the library stays
 * baseline x86-64; called only after cpu.c confirmed AVX512F in cpuid and
 * the OS's opmask and ZMM state in XCR0.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "primitive.h"

#define PCI_V 64
#define PCI_VTYPE __m512i
#define PCI_VSET1 _mm512_set1_epi64
#define PCI_VSTOREU _mm512_storeu_si512
#define PCI_VSTORE _mm512_store_si512
#define PCI_VSTREAM _mm512_stream_si512
#define PCI_VTARGET "avx512f"
#define PCI_VNAME(s) pci_clear_x86_avx512##s
#define PCI_VFILLNAME(s) pci_fill_x86_avx512##s
#include "vector_store.h"
#endif
