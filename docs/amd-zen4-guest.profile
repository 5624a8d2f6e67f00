# made by 'pageclear tune' on 2026-11-22, 15 runs, 24 s
# thresholds measured in the cache states each contract serves; see pageclear(1)
format = 1
library = 0.2.0
vendor = AuthenticAMD
cpu = 25.17.1
features = x86-64 erms fsrm avx2 avx512f clzero
llc = 32M
hypervisor = 1
vector_max = 64K
nt_threshold = 8M
cold_nt_threshold = 4K
parallel_nt_threshold = 256M
