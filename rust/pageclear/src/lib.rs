// SPDX-License-Identifier: MIT OR Apache-2.0
//! Fast, extent-aware memory clearing: the safe Rust API of libpageclear.
//!
//! `slice.fill(0)` and `ptr::write_bytes` end in the C library's `memset`,
//! which picks one strategy for every length. libpageclear picks, per
//! extent and per CPU, among rep stosb/stosq, AVX2/AVX-512 stores,
//! non-temporal stores, clzero and arm64 `dc zva`, and adds what virtual
//! machine monitors, allocators and runtimes need around a clear:
//!
//! - [`clear`], [`clear_cold`] (memory nobody reads soon), [`clear_zeroable`]
//!   (any `bytemuck::Zeroable` type), [`clear_uninit`] (initialise by
//!   zeroing);
//! - [`clear_present`]: leave alone the pages the kernel has not handed out
//!   yet (a fresh mapping's), clear the rest;
//! - [`clear_batched`]: units with a callback before each (yield, deadline,
//!   cancel), as the kernel's resched points;
//! - [`clear_hint`]: the pages about to be touched are cleared last, so
//!   they are still in cache;
//! - [`clear_parallel`], [`populate`] and [`populate_many`] on several threads;
//! - [`Pool`]: zeroed pages on demand (init-on-alloc, init-on-free or a
//!   background worker), with huge-page backing where it can be had;
//! - [`host`], [`selected`], [`primitives`], [`Tuning`]: what was detected
//!   and chosen, and the thresholds in force.
//!
//! Every choice (which primitive, which threshold, when the pool clears) is
//! the C library's; this crate only makes the calls safe. The library is
//! built from source by `pageclear-sys` (a C compiler is all it needs) or,
//! with the feature `pkg-config`, linked from an installed libpageclear.
//!
//! ```
//! use std::ops::ControlFlow;
//!
//! let mut guest_ram = vec![0xFFu8; 64 << 20];
//! pageclear::clear(&mut guest_ram);
//! assert!(guest_ram.iter().all(|&b| b == 0));
//!
//! // In units of 8 MiB, checking a stop flag between them.
//! guest_ram.fill(1);
//! let batch = pageclear::Batch { unit: 8 << 20, ..Default::default() };
//! let stop = std::sync::atomic::AtomicBool::new(false);
//! let cleared = pageclear::clear_batched(&mut guest_ram, &batch, |_done, _total| {
//!     if stop.load(std::sync::atomic::Ordering::Relaxed) {
//!         ControlFlow::Break(())
//!     } else {
//!         ControlFlow::Continue(())
//!     }
//! })?;
//! assert_eq!(cleared, 64 << 20);
//! # Ok::<(), pageclear::Error>(())
//! ```
//!
//! Environment variables (`PAGECLEAR_IMPL`, `PAGECLEAR_NT_THRESHOLD`, ...,
//! `PAGECLEAR_PROFILE`) are read by the library once, on first use; see
//! the project's README.
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod batch;
mod clear;
mod error;
mod host;
mod pool;
mod present;
mod serve;

pub use batch::{Batch, Preempt, clear_batched, clear_hint_batched};
pub use clear::{
    clear, clear_cold, clear_hint, clear_parallel, clear_uninit, clear_zeroable, fill, populate,
    populate_many,
};
pub use error::{Error, ErrorKind};
pub use host::{
    Cache, Host, Primitive, Tuning, default_unit, host, parse_size, primitive, primitives,
    selected, selected_cold, selected_temporal, version,
};
pub use pool::{Backing, Policy, Pool, PoolBox, PoolOptions, PoolStats, Tracking};
pub use present::{Present, PresentOptions, Unproven, Used, clear_present, clear_present_with};
pub use serve::serve_get;

// The user guide's examples run as doc tests (in the repository only: the
// packaged crate does not carry docs/).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rust.md")]
struct UserGuide;

/// The page unit of the library's page-grid operations (the hint
/// neighbourhood, batching units, pool allocations): 4 KiB everywhere.
///
/// ```
/// assert_eq!(pageclear::PAGE_SIZE, 4096);
/// ```
pub const PAGE_SIZE: usize = pageclear_sys::PC_PAGE_SIZE;
