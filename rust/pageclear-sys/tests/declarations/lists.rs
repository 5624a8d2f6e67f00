// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the crate declares, written by hand: every struct with its fields,
//! enum with its constants, constant, function and function-pointer typedef
//! of src/lib.rs, each with its Rust type. This module compiles only if
//! src/lib.rs declares each of them with the listed type (every field,
//! constant and function is bound at it) and each struct with the listed
//! fields and no others; main.rs checks the lists against the header.

use pageclear_sys::*;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// A struct: name, Rust's size and alignment, and the fields in C's order
/// as (name, Rust type, Rust offset).
pub type Struct = (
    &'static str,
    usize,
    usize,
    Vec<(&'static str, &'static str, usize)>,
);

macro_rules! structs {
    ($($s:ident { $($f:ident: $t:ty),* $(,)? })*) => {
        pub fn structs() -> Vec<Struct> {
            // Every field of the Rust struct is listed: no other compiles.
            $(let _ = |x: $s| $s { $($f: x.$f),* };)*
            vec![$((stringify!($s), size_of::<$s>(), align_of::<$s>(), vec![$({
                let _: fn(&$s) -> &$t = |s| &s.$f;
                (stringify!($f), stringify!($t), core::mem::offset_of!($s, $f))
            }),*])),*]
        }
    };
}

structs! {
    pc_batch { unit: usize, model: pc_preempt, resched: pc_resched_fn, ctx: *mut c_void }
    pc_impl_info {
        name: *const c_char, arch: *const c_char, features: *const c_char,
        description: *const c_char, cache: pc_cache, supported: c_int,
    }
    pc_pool_opts {
        capacity: usize, backing: pc_backing, policy: pc_pool_policy, populate: c_int,
        resident_max: usize, tracking: pc_pool_tracking,
    }
    pc_pool_stats {
        backing: pc_backing, policy: pc_pool_policy, capacity: usize, in_use: usize,
        clean: usize, dirty: usize, allocs: usize, frees: usize, clears: usize,
        cleared_bytes: usize, skipped_bytes: usize, dropped_bytes: usize, resident: usize,
        tracking: pc_pool_tracking,
    }
    pc_host {
        vendor: [c_char; 16], features: [c_char; 256], hypervisor: c_int, llc_size: usize,
        zva_block: usize, vector_max: usize, nt_threshold: usize, unit: usize,
        forced: *const c_char, numa_nodes: c_int, cold_nt_threshold: usize,
        parallel_nt_threshold: usize, family: c_uint, model: c_uint, stepping: c_uint,
        profile: [c_char; 256], profile_status: [c_char; 256], pool_tracking: *const c_char,
    }
    pc_tuning {
        vector_max: usize, nt_threshold: usize, cold_nt_threshold: usize,
        parallel_nt_threshold: usize, preload_min: usize,
    }
    pc_threshold_info {
        key: *const c_char, env: *const c_char, description: *const c_char, min: usize,
        max: usize, never: c_int, dflt: usize, value: usize,
    }
    pc_extent { addr: *mut c_void, len: usize }
    pc_present_report {
        skipped: usize, cleared: usize, unproven: usize, why: pc_present_why, error: c_int,
        used: c_int, populated: usize, populate_error: c_int,
    }
}

/// Structs used through pointers only.
pub const OPAQUE: &[&str] = &["pc_pool"];

/// An enum: name, Rust's size, and its constants with Rust's values.
pub type Enum = (&'static str, usize, Vec<(&'static str, i128)>);

macro_rules! enums {
    ($($e:ident { $($c:ident),* $(,)? })*) => {
        pub fn enums() -> Vec<Enum> {
            vec![$((stringify!($e), size_of::<$e>(), vec![$({
                let v: $e = $c;
                (stringify!($c), v as i128)
            }),*])),*]
        }
    };
}

enums! {
    pc_preempt { PC_PREEMPT_NONE, PC_PREEMPT_VOLUNTARY, PC_PREEMPT_FULL, PC_PREEMPT_LAZY }
    pc_cache { PC_CACHE_TEMPORAL, PC_CACHE_NONTEMPORAL, PC_CACHE_ADAPTIVE }
    pc_backing {
        PC_BACKING_AUTO, PC_BACKING_HUGETLB_1G, PC_BACKING_HUGETLB_2M, PC_BACKING_THP,
        PC_BACKING_4K,
    }
    pc_pool_policy { PC_POOL_INIT_ON_ALLOC, PC_POOL_INIT_ON_FREE, PC_POOL_BACKGROUND }
    pc_pool_tracking { PC_POOL_TRACK_AUTO, PC_POOL_TRACK_OFF, PC_POOL_TRACK_WRITTEN }
    pc_threshold {
        PC_THRESHOLD_VECTOR_MAX, PC_THRESHOLD_NT, PC_THRESHOLD_COLD_NT,
        PC_THRESHOLD_PARALLEL_NT, PC_THRESHOLD_PRELOAD_MIN,
    }
    pc_present_why {
        PC_PRESENT_PROVEN, PC_PRESENT_NO_SCAN, PC_PRESENT_REFUSED, PC_PRESENT_NO_MAPS,
        PC_PRESENT_FILE, PC_PRESENT_SHARED, PC_PRESENT_HUGETLB, PC_PRESENT_USERFAULTFD,
        PC_PRESENT_NO_UFFD_INFO,
    }
}

macro_rules! constants {
    ($($c:ident: $t:ty),* $(,)?) => {
        /// The header's `#define`s with Rust's values.
        pub fn constants() -> Vec<(&'static str, i128)> {
            vec![$({ let v: $t = $c; (stringify!($c), v as i128) }),*]
        }
    };
}

constants! {
    PC_VERSION_MAJOR: c_uint, PC_VERSION_MINOR: c_uint, PC_VERSION_PATCH: c_uint,
    PC_PAGE_SIZE: usize, PC_POPULATE_TOUCH: c_int, PC_NTHRESHOLDS: c_int, PC_NEVER: usize,
    PC_SERVE_RESERVE_ONLY: c_int, PC_PRESENT_NO_FALLBACK: c_int, PC_PRESENT_DRY_RUN: c_int,
    PC_PRESENT_POPULATE: c_int, PC_PRESENT_USED_PROCMAP_QUERY: c_int,
    PC_PRESENT_USED_MAPS: c_int, PC_PRESENT_USED_SCAN: c_int, PC_PRESENT_USED_SMAPS: c_int,
    PC_PRESENT_USED_POPULATE: c_int,
}

/// A function or function-pointer typedef: name, parameter types, return
/// type ("" for none), as Rust spells them.
pub type Function = (&'static str, Vec<&'static str>, &'static str);

macro_rules! functions {
    ($(fn $name:ident($($p:ty),*) $(-> $r:ty)?;)*) => {
        pub fn functions() -> Vec<Function> {
            vec![$({
                let _: unsafe extern "C" fn($($p),*) $(-> $r)? = $name;
                (stringify!($name), vec![$(stringify!($p)),*], concat!("" $(, stringify!($r))?))
            }),*]
        }
    };
}

macro_rules! typedefs {
    ($(typedef $name:ident($($p:ty),*) -> $r:ty;)*) => {
        pub fn typedefs() -> Vec<Function> {
            vec![$({
                let _: $name = None::<unsafe extern "C" fn($($p),*) -> $r>;
                (stringify!($name), vec![$(stringify!($p)),*], stringify!($r))
            }),*]
        }
    };
}

typedefs! {
    typedef pc_resched_fn(*mut c_void, usize, usize) -> c_int;
}

functions! {
    fn pc_version() -> *const c_char;
    fn pc_clear(*mut c_void, usize) -> c_int;
    fn pc_clear_cold(*mut c_void, usize) -> c_int;
    fn pc_clear_pages(*mut c_void, usize) -> c_int;
    fn pc_fill(*mut c_void, usize, c_int) -> c_int;
    fn pc_clear_present(*mut c_void, usize, c_int, *mut pc_present_report, usize) -> c_int;
    fn pc_default_unit() -> usize;
    fn pc_batch_init(*mut pc_batch, usize);
    fn pc_clear_batched(*mut c_void, usize, *const pc_batch, usize, *mut usize) -> c_int;
    fn pc_clear_hint(*mut c_void, usize, *const c_void) -> c_int;
    fn pc_clear_hint_batched(
        *mut c_void, usize, *const c_void, *const pc_batch, usize, *mut usize
    ) -> c_int;
    fn pc_impl_count() -> usize;
    fn pc_impl_get(usize, *mut pc_impl_info, usize) -> c_int;
    fn pc_impl_find(*const c_char) -> c_int;
    fn pc_impl_clear(usize, *mut c_void, usize) -> c_int;
    fn pc_impl_fill(usize, *mut c_void, usize, c_int) -> c_int;
    fn pc_selected(usize) -> *const c_char;
    fn pc_selected_temporal(usize) -> *const c_char;
    fn pc_selected_cold(usize) -> *const c_char;
    fn pc_pool_opts_init(*mut pc_pool_opts, usize);
    fn pc_pool_create(*const pc_pool_opts, usize) -> *mut pc_pool;
    fn pc_pool_alloc(*mut pc_pool, usize) -> *mut c_void;
    fn pc_pool_free(*mut pc_pool, *mut c_void) -> c_int;
    fn pc_pool_destroy(*mut pc_pool);
    fn pc_pool_stats(*mut pc_pool, *mut pc_pool_stats, usize) -> c_int;
    fn pc_backing_name(pc_backing) -> *const c_char;
    fn pc_clear_parallel(*mut c_void, usize, c_int) -> c_int;
    fn pc_populate(*mut c_void, usize, c_int, c_int) -> c_int;
    fn pc_populate_many(*const pc_extent, usize, usize, c_int, c_int) -> c_int;
    fn pc_host_get(*mut pc_host, usize) -> c_int;
    fn pc_tuning_defaults(*mut pc_tuning, usize) -> c_int;
    fn pc_threshold_info(c_int, *mut pc_threshold_info, usize) -> c_int;
    fn pc_tuning_get(*const pc_tuning, usize, c_int, *mut usize) -> c_int;
    fn pc_tuning_set(*mut pc_tuning, usize, c_int, usize) -> c_int;
    fn pc_profile_format(*const pc_tuning, usize, *const c_char, *mut c_char, usize) -> c_int;
    fn pc_profile_parse(*const c_char, usize, *mut pc_tuning, usize, *mut c_char, usize)
        -> c_int;
    fn pc_parse_size(*const c_char, *mut usize) -> c_int;
    fn pc_serve_get(usize, usize, c_int, *mut c_int) -> c_int;
}
