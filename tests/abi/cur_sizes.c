/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * cur_sizes.c - the sizes of the public structs as this tree's header
 * (include/pageclear.h) has them: the library's own, before tests/abi's
 * build grows it. client.c is built against another header (1.0's, or the
 * grown one) and needs them to know where the library it runs with stops
 * writing and reading, once structs have grown past 1.0 (1.1 on).
 */
#include <stddef.h>

#include "pageclear.h"

#define CUR(type) extern const size_t pc_abi_cur_##type; \
    const size_t pc_abi_cur_##type = sizeof(struct type);
CUR(pc_batch)
CUR(pc_impl_info)
CUR(pc_pool_opts)
CUR(pc_pool_stats)
CUR(pc_host)
CUR(pc_tuning)
CUR(pc_threshold_info)
CUR(pc_present_report)
