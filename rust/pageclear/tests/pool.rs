// SPDX-License-Identifier: MIT OR Apache-2.0
//! The pool: zeroed allocations under every policy, errors, stats, drop
//! order and threads.

use pageclear::{Backing, ErrorKind, Policy, Pool, PoolBox, PoolOptions, Tracking};

const PAGE: usize = 4096;
const POLICIES: [Policy; 3] = [Policy::InitOnAlloc, Policy::InitOnFree, Policy::Background];

/// Base pages: a capacity that does not depend on the huge pages the
/// machine happens to have reserved (Auto could round 8 MiB up to 1 GiB).
fn small(policy: Policy) -> Pool {
    let opts = PoolOptions {
        capacity: 8 << 20,
        policy,
        backing: Backing::Base,
        ..Default::default()
    };
    Pool::new(opts).unwrap()
}

#[test]
fn pool_and_boxes_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Pool>();
    send_sync::<PoolBox<'static>>();
}

#[test]
fn defaults_are_the_librarys() {
    let o = PoolOptions::default();
    assert_eq!(
        (o.capacity, o.backing, o.policy, o.populate),
        (256 << 20, Backing::Auto, Policy::InitOnAlloc, true)
    );
}

#[test]
fn allocations_read_as_zero_after_a_previous_owner_wrote_them() {
    for policy in POLICIES {
        let pool = small(policy);
        for round in 0..4 {
            let mut boxes: Vec<PoolBox<'_>> = Vec::new();
            for len in [1, PAGE - 1, PAGE, PAGE + 1, 5 * PAGE + 7, 1 << 20] {
                let mut b = pool.alloc(len).unwrap();
                assert_eq!(b.len(), len);
                assert_eq!(b.as_ptr() as usize % PAGE, 0, "page-aligned");
                assert!(
                    b.iter().all(|&x| x == 0),
                    "{policy:?} round {round}: len {len} not zero"
                );
                b.fill(0xC3); // the next owner must not see this
                boxes.push(b);
            }
            // Distinct, non-overlapping runs.
            let mut spans: Vec<(usize, usize)> = boxes
                .iter()
                .map(|b| (b.as_ptr() as usize, b.len()))
                .collect();
            spans.sort();
            assert!(spans.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0));
            // Dropped in allocation order on some rounds, reversed on others.
            if round % 2 == 1 {
                boxes.reverse();
            }
        }
        let s = pool.stats();
        assert_eq!(s.policy, policy);
        assert_eq!((s.allocs, s.frees, s.in_use), (24, 24, 0), "{s:?}");
    }
}

#[test]
fn stats_follow_allocations_and_frees() {
    let pool = small(Policy::InitOnAlloc);
    let s0 = pool.stats();
    assert_eq!((s0.in_use, s0.allocs, s0.frees), (0, 0, 0));
    assert!(s0.capacity >= 8 << 20);
    assert_eq!(s0.clean + s0.dirty, s0.capacity);
    let mut a = pool.alloc(3 * PAGE).unwrap();
    let mut b = pool.alloc(PAGE + 1).unwrap(); // rounds up to 2 pages
    a.fill(0xAB);
    b.fill(0xCD);
    let s1 = pool.stats();
    assert_eq!((s1.in_use, s1.allocs, s1.frees), (5 * PAGE, 2, 0));
    assert_eq!(s1.in_use + s1.clean + s1.dirty, s1.capacity);
    drop(a);
    let s2 = pool.stats();
    assert_eq!((s2.in_use, s2.frees), (2 * PAGE, 1));
    drop(b);
    let s3 = pool.stats();
    assert_eq!((s3.in_use, s3.allocs, s3.frees), (0, 2, 2));
    // Under init-on-alloc the freed pages wait dirty until reused.
    assert_eq!(s3.dirty, 5 * PAGE);
    // Taking the whole pool must reuse (and so clear) the dirty pages.
    let all = pool.alloc(s3.capacity).unwrap();
    assert!(all.iter().all(|&x| x == 0));
    let s4 = pool.stats();
    assert!(s4.clears >= 1 && s4.cleared_bytes >= 5 * PAGE, "{s4:?}");
    assert_eq!((s4.dirty, s4.in_use), (0, s4.capacity));
}

#[test]
fn init_on_free_clears_at_free() {
    let pool = small(Policy::InitOnFree);
    let mut b = pool.alloc(4 * PAGE).unwrap();
    b.fill(1);
    let before = pool.stats().cleared_bytes;
    drop(b);
    let s = pool.stats();
    assert_eq!(s.dirty, 0, "{s:?}");
    assert!(s.cleared_bytes >= before + 4 * PAGE, "{s:?}");
}

#[test]
fn bad_requests_are_errors_and_change_nothing() {
    let pool = small(Policy::InitOnAlloc);
    let before = pool.stats();
    assert_eq!(pool.alloc(0).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(
        pool.alloc(usize::MAX).unwrap_err().kind(),
        ErrorKind::Overflow
    );
    assert_eq!(
        pool.alloc(64 << 20).unwrap_err().kind(),
        ErrorKind::OutOfMemory
    );
    assert_eq!(pool.stats(), before);
    // Exhaustion, then room again after a free.
    let all = pool.alloc(pool.stats().capacity).unwrap();
    assert_eq!(pool.alloc(PAGE).unwrap_err().kind(), ErrorKind::OutOfMemory);
    drop(all);
    assert!(pool.alloc(PAGE).is_ok());
}

#[test]
fn impossible_options_are_errors() {
    let e = Pool::new(PoolOptions {
        capacity: usize::MAX,
        ..Default::default()
    })
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Overflow | ErrorKind::OutOfMemory),
        "{e}"
    );
}

#[test]
fn auto_backing_gets_at_least_the_capacity_asked_for() {
    let pool = Pool::new(PoolOptions {
        capacity: 3 << 20,
        ..Default::default()
    })
    .unwrap();
    let s = pool.stats();
    assert!(s.capacity >= 3 << 20, "{s:?}");
    assert_ne!(s.backing, Backing::Auto, "stats name the backing obtained");
    let b = pool.alloc(3 << 20).unwrap();
    assert!(b.iter().all(|&x| x == 0));
}

#[test]
fn base_pages_and_lazy_population_are_honoured() {
    let opts = PoolOptions {
        capacity: 1 << 20,
        backing: Backing::Base,
        populate: false,
        ..Default::default()
    };
    let pool = Pool::new(opts).unwrap();
    let s = pool.stats();
    assert_eq!((s.backing, s.capacity), (Backing::Base, 1 << 20));
    let b = pool.alloc(1 << 20).unwrap();
    assert!(b.iter().all(|&x| x == 0));
    assert_eq!(Backing::Base.name(), "4K");
    assert_eq!(Backing::Auto.to_string(), "auto");
}

#[test]
fn boxes_are_dropped_before_the_pool_and_can_be_freed_on_other_threads() {
    let pool = small(Policy::Background);
    std::thread::scope(|s| {
        // Allocated here, written and dropped there.
        let boxes: Vec<PoolBox<'_>> = (0..8).map(|_| pool.alloc(64 << 10).unwrap()).collect();
        for mut b in boxes {
            s.spawn(move || {
                assert!(b.iter().all(|&x| x == 0));
                b.fill(0x5A);
            });
        }
    });
    let st = pool.stats();
    assert_eq!((st.allocs, st.frees, st.in_use), (8, 8, 0));
}

#[test]
fn threads_share_one_pool() {
    for policy in POLICIES {
        let pool = small(policy);
        let rounds = 200;
        std::thread::scope(|s| {
            for t in 0..4 {
                let pool = &pool;
                s.spawn(move || {
                    for i in 0..rounds {
                        let len = PAGE * (1 + (i + t) % 7);
                        let mut b = match pool.alloc(len) {
                            Ok(b) => b,
                            // Another thread may hold the pages for a moment.
                            Err(e) if e.kind() == ErrorKind::OutOfMemory => continue,
                            Err(e) => panic!("{e}"),
                        };
                        assert!(b.iter().all(|&x| x == 0), "{policy:?}: dirty allocation");
                        b.fill(t as u8 + 1);
                    }
                });
            }
        });
        let st = pool.stats();
        assert_eq!(st.allocs, st.frees);
        assert_eq!(st.in_use, 0);
    }
}

#[test]
fn debug_output_shows_the_stats() {
    let pool = small(Policy::InitOnAlloc);
    let b = pool.alloc(PAGE).unwrap();
    assert!(format!("{pool:?}").contains("in_use: 4096"));
    assert!(format!("{b:?}").contains("len: 4096"));
}

#[test]
fn tracking_clears_only_the_written_pages() {
    for tracking in [Tracking::Auto, Tracking::Off] {
        let pool = Pool::new(PoolOptions {
            capacity: 64 * 4096,
            backing: Backing::Base,
            tracking,
            ..Default::default()
        })
        .unwrap();
        let tracked = pool.stats().tracking == Tracking::Written;
        assert!(tracking == Tracking::Auto || !tracked);
        let mut a = pool.alloc(64 * 4096).unwrap();
        a[5 * 4096] = 1;
        drop(a);
        let st = pool.stats();
        assert_eq!(st.dirty, if tracked { 4096 } else { 64 * 4096 });
        assert_eq!(st.skipped_bytes, if tracked { 63 * 4096 } else { 0 });
        let a = pool.alloc(64 * 4096).unwrap();
        assert!(a.iter().all(|&b| b == 0));
    }
}

#[test]
fn the_resident_bound_drops_freed_pages() {
    let pool = Pool::new(PoolOptions {
        capacity: 64 * 4096,
        backing: Backing::Base,
        resident_max: 16 * 4096,
        ..Default::default()
    })
    .unwrap();
    let mut a = pool.alloc(64 * 4096).unwrap();
    a.fill(0x5A);
    drop(a);
    let st = pool.stats();
    assert!(st.dropped_bytes >= 48 * 4096 && st.resident <= 16 * 4096);
    let a = pool.alloc(64 * 4096).unwrap();
    assert!(a.iter().all(|&b| b == 0));
}
