# made by 'pageclear tune' on 2026-11-23, 15 runs, 209 s
# thresholds measured in the cache states each contract serves; see pageclear(1)
#
# Where and when: this project's machine on 2026-11-23, a KVM guest whose
# CPU `pageclear info` reports as "Intel(R) Xeon(R) Processor" (GenuineIntel
# family 6 model 207 stepping 2: Sapphire/Emerald Rapids class), 2 cores,
# L1d 48 KiB, L2 2 MiB, L3 260 MiB shared with other tenants; a full run of
# `PAGECLEAR_PROFILE= pageclear tune -o FILE` with library 0.2.0. The
# machine was busy (other tenants, other work in the guest): run-to-run
# spread in tune's tables reached 30-48% from 32 KiB up; the choices rest on
# medians of 15 interleaved runs. docs/notes.md, "Selection thresholds",
# says why each threshold is what it is, and
# tests/data/thresholds/machines.json holds the windows measured there.
# library: measured with 0.2.0. The thresholds mean what they meant then
# (the selection that reads them and the ranges a profile accepts are
# unchanged since), so the line names the major version that reads it.
format = 1
library = 1.0.0
vendor = GenuineIntel
cpu = 6.207.2
features = x86-64 erms fsrm avx2 avx512f
llc = 260M
hypervisor = 1
vector_max = 8K
nt_threshold = 4M
cold_nt_threshold = 4K
parallel_nt_threshold = 128M
