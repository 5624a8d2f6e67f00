// SPDX-License-Identifier: MIT OR Apache-2.0
//! `cargo bench`: pageclear's clear against what Rust programs use today
//! (`slice.fill(0)` and `ptr::write_bytes`, both ending in the C library's
//! memset), from 4 KiB to 1 GiB; and clear_parallel by thread count.
//!
//! Cache state: WARM. Each benchmark clears the same buffer over and over,
//! its pages faulted in beforehand, so no iteration takes a page fault;
//! extents that fit in the last-level cache stay in it between
//! iterations, larger ones stream to memory. (The `pageclear` command
//! measures cold and use-after states too: `pageclear mem ... --cache`.)
//!
//! Throughput is GB/s (10^9 bytes per second, as everywhere in pageclear:
//! `BytesDecimal`). Large sizes take few samples on a
//! flat schedule: a 1 GiB clear is 20-100 ms, so criterion's defaults
//! (100 samples, growing iteration counts) would take minutes per line.
//!
//! Environment:
//!   PAGECLEAR_BENCH_MAX=64M   skip sizes above this (quick runs)
//! Examples:
//!   cargo bench --bench clear                       # the full table
//!   cargo bench --bench clear -- 'clear/4 KiB'      # one size
//!   PAGECLEAR_BENCH_MAX=1M cargo bench --bench clear -- --quick

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
const GIB: usize = 1 << 30;

/// 4 KiB (a page) to 1 GiB (a VM's memory slot), with the sizes where the
/// library's choice changes in between (a few MiB: vector stores give way
/// to rep stosb; tens of MiB: the last-level cache is exceeded).
const SIZES: &[usize] = &[
    4 * KIB,
    64 * KIB,
    256 * KIB,
    MIB,
    4 * MIB,
    16 * MIB,
    64 * MIB,
    256 * MIB,
    GIB,
];
/// clear_parallel: each thread gets at least 64 MiB (the library's rule),
/// so only large extents can use more than one.
const PARALLEL_SIZES: &[usize] = &[64 * MIB, 256 * MIB, GIB];

fn label(size: usize) -> String {
    match size {
        s if s >= GIB => format!("{} GiB", s / GIB),
        s if s >= MIB => format!("{} MiB", s / MIB),
        s => format!("{} KiB", s / KIB),
    }
}

fn max_size() -> usize {
    std::env::var("PAGECLEAR_BENCH_MAX")
        .ok()
        .map(|v| pageclear::parse_size(&v).expect("PAGECLEAR_BENCH_MAX: a size such as 64M"))
        .unwrap_or(usize::MAX)
}

/// A buffer of `len` bytes with every page faulted in (written non-zero).
fn faulted(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    v.fill(1);
    v
}

/// Sampling for a size: small extents take criterion's defaults, large
/// ones few samples of one flat iteration count.
fn configure(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, size: usize) {
    g.throughput(Throughput::BytesDecimal(size as u64));
    if size >= 64 * MIB {
        g.sampling_mode(SamplingMode::Flat);
        g.sample_size(10);
        g.warm_up_time(Duration::from_millis(500));
        g.measurement_time(Duration::from_secs(if size >= GIB { 8 } else { 4 }));
    } else {
        g.sample_size(30);
        g.warm_up_time(Duration::from_millis(500));
        g.measurement_time(Duration::from_secs(2));
    }
}

fn clear_vs_memset(c: &mut Criterion) {
    let max = max_size();
    let mut buf: Vec<u8> = Vec::new();
    for &size in SIZES.iter().filter(|&&s| s <= max) {
        let mut g = c.benchmark_group(format!("clear/{}", label(size)));
        configure(&mut g, size);
        g.bench_function("pageclear::clear", |b| {
            if buf.len() < size {
                buf = faulted(size);
            }
            b.iter(|| pageclear::clear(black_box(&mut buf[..size])))
        });
        g.bench_function("pageclear::clear_cold", |b| {
            if buf.len() < size {
                buf = faulted(size);
            }
            b.iter(|| pageclear::clear_cold(black_box(&mut buf[..size])))
        });
        g.bench_function("slice::fill(0)", |b| {
            if buf.len() < size {
                buf = faulted(size);
            }
            b.iter(|| black_box(&mut buf[..size]).fill(0))
        });
        g.bench_function("ptr::write_bytes", |b| {
            if buf.len() < size {
                buf = faulted(size);
            }
            b.iter(|| {
                let s = black_box(&mut buf[..size]);
                // SAFETY: s is valid for writes of s.len() bytes.
                unsafe { std::ptr::write_bytes(s.as_mut_ptr(), 0, s.len()) }
            })
        });
        g.finish();
    }
}

fn clear_parallel_by_threads(c: &mut Criterion) {
    let max = max_size();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads = vec![1, 2, 4, cpus];
    threads.sort_unstable();
    threads.dedup();
    let mut buf: Vec<u8> = Vec::new();
    for &size in PARALLEL_SIZES.iter().filter(|&&s| s <= max) {
        let mut g = c.benchmark_group(format!("clear_parallel/{}", label(size)));
        configure(&mut g, size);
        for &t in &threads {
            g.bench_with_input(BenchmarkId::new("threads", t), &t, |b, &t| {
                if buf.len() < size {
                    buf = faulted(size);
                }
                b.iter(|| pageclear::clear_parallel(black_box(&mut buf[..size]), t))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, clear_vs_memset, clear_parallel_by_threads);
criterion_main!(benches);
