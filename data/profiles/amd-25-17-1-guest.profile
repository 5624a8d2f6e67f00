# made by 'pageclear tune' on 2026-11-22, 15 runs, 24 s
# thresholds measured in the cache states each contract serves; see pageclear(1)
#
# Where and when: this project's machine on 2026-11-22, a KVM guest
# reporting an AMD EPYC (family 25 model 17 stepping 1: Zen 4), 2 cores,
# L2 1 MiB, L3 32 MiB, shared with other tenants; a full run of
# `pageclear tune -o FILE` with library 0.2.0; docs/notes.md, "Selection
# thresholds", says why each threshold is what it is, and
# tests/data/thresholds/machines.json holds the windows measured there.
# library: measured with 0.2.0. The thresholds mean what they meant then
# (the selection that reads them and the ranges a profile accepts are
# unchanged since), so the line names the major version that reads it.
format = 1
library = 1.0.0
vendor = AuthenticAMD
cpu = 25.17.1
features = x86-64 erms fsrm avx2 avx512f clzero
llc = 32M
hypervisor = 1
vector_max = 64K
nt_threshold = 8M
cold_nt_threshold = 4K
parallel_nt_threshold = 256M
