// SPDX-License-Identifier: MIT OR Apache-2.0
// vector.cc - C++ value-initialisation as programs write it, for
// scripts/real_programs.py: std::vector<unsigned char> v(SIZE) (libstdc++
// allocates with operator new, then fills with zeros: one memset of fresh
// memory), or with "array", new double[SIZE / 8]() (the same through
// operator new[]). Prints the construction's time in ms, then how many of
// the pages are resident (mincore) before any byte is read, then checks
// that every page reads zero.
// Usage: vector [vector|array] [SIZE]
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

static size_t resident(const void *p, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)(pg - 1);
    size_t pages = ((uintptr_t)p + n - a + pg - 1) / pg, count = 0;
    std::vector<unsigned char> vec(4096);
    for (size_t i = 0; i < pages; i += vec.size()) {
        size_t k = pages - i < vec.size() ? pages - i : vec.size();
        if (mincore((void *)(a + i * pg), k * pg, vec.data()) != 0)
            return 0;
        for (size_t j = 0; j < k; j++)
            count += vec[j] & 1;
    }
    return count * 100 / pages;
}

template <class T> static int zero(const T *p, size_t n)
{
    size_t step = (size_t)sysconf(_SC_PAGESIZE) / sizeof(T);
    for (size_t i = 0; i < n; i += step)
        if (p[i] != 0)
            return 0;
    return n == 0 || p[n - 1] == 0;
}

int main(int argc, char **argv)
{
    bool array = argc > 1 && std::strcmp(argv[1], "array") == 0;
    size_t size = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : (size_t)1 << 30;
    auto t0 = std::chrono::steady_clock::now();
    if (array) {
        std::unique_ptr<double[]> a(new double[size / 8]());
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%.3f\nresident %zu%%\n", ms, resident(a.get(), size));
        return zero(a.get(), size / 8) ? 0 : 1;
    }
    std::vector<unsigned char> v(size);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.3f\nresident %zu%%\n", ms, resident(v.data(), size));
    return zero(v.data(), size) ? 0 : 1;
}
