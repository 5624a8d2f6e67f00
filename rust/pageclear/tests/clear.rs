// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every clearing function against the reference (the range zeroed, every
//! byte around it untouched) at odd offsets and lengths.

mod common;

use std::mem::MaybeUninit;
use std::ops::ControlFlow;

use common::{Arena, PAGE, cases, max_len};
use pageclear::{Batch, ErrorKind, Preempt};

type ClearFn = fn(&mut [u8]);

fn functions() -> Vec<(&'static str, ClearFn)> {
    vec![
        ("clear", |b| pageclear::clear(b)),
        ("clear_cold", |b| pageclear::clear_cold(b)),
        ("clear_zeroable", |b| pageclear::clear_zeroable(b)),
        ("clear_uninit", |b| {
            let ptr = b.as_mut_ptr();
            let len = b.len();
            // SAFETY: u8 and MaybeUninit<u8> share a layout; the slice is
            // exclusively borrowed for the call.
            let u = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<MaybeUninit<u8>>(), len) };
            let out = pageclear::clear_uninit(u);
            assert_eq!((out.as_ptr(), out.len()), (ptr.cast_const(), len));
        }),
        ("clear_hint first", |b| pageclear::clear_hint(b, 0).unwrap()),
        ("clear_hint middle", |b| {
            pageclear::clear_hint(b, b.len() / 2).unwrap()
        }),
        ("clear_hint last", |b| {
            pageclear::clear_hint(b, b.len().saturating_sub(1)).unwrap()
        }),
        ("clear_batched default", |b| {
            let n =
                pageclear::clear_batched(b, &Batch::default(), |_, _| ControlFlow::Continue(()));
            assert_eq!(n, Ok(b.len()));
        }),
        ("clear_batched 1 page voluntary", |b| {
            let batch = Batch {
                unit: PAGE,
                model: Preempt::Voluntary,
            };
            let n = pageclear::clear_batched(b, &batch, |_, _| ControlFlow::Continue(()));
            assert_eq!(n, Ok(b.len()));
        }),
        ("clear_batched 1000-byte units", |b| {
            let batch = Batch {
                unit: 1000,
                ..Default::default()
            };
            let n = pageclear::clear_batched(b, &batch, |_, _| ControlFlow::Continue(()));
            assert_eq!(n, Ok(b.len()));
        }),
        ("clear_hint_batched", |b| {
            let batch = Batch {
                unit: PAGE,
                ..Default::default()
            };
            let h = b.len() / 3;
            let n = pageclear::clear_hint_batched(b, h, &batch, |_, _| ControlFlow::Continue(()));
            assert_eq!(n, Ok(b.len()));
        }),
        ("clear_parallel 2", |b| pageclear::clear_parallel(b, 2)),
        ("clear_parallel 0", |b| pageclear::clear_parallel(b, 0)),
    ]
}

#[test]
fn every_function_matches_the_reference_and_writes_nothing_around() {
    let mut arena = Arena::new(max_len());
    for (name, f) in functions() {
        for (off, len) in cases() {
            f(arena.range(off, len));
            arena.check(off, len, name);
        }
        arena.assert_untouched(name);
    }
}

#[test]
fn every_supported_primitive_matches_the_reference() {
    let mut arena = Arena::new(max_len());
    let prims = pageclear::primitives();
    assert!(prims.iter().any(|p| p.supported));
    for p in prims {
        for (off, len) in cases() {
            match p.clear(arena.range(off, len)) {
                Ok(()) => arena.check(off, len, p.name),
                Err(e) => {
                    assert!(!p.supported, "{}: {e}", p.name);
                    assert_eq!(e.kind(), ErrorKind::Unsupported, "{}", p.name);
                    arena.check(off, 0, p.name); // nothing written
                }
            }
        }
        arena.assert_untouched(p.name);
    }
}

#[test]
fn fill_stores_the_byte_or_refuses_without_writing() {
    let mut arena = Arena::new(1 << 20);
    for p in pageclear::primitives() {
        for (off, len) in [(0, 4096), (3, 100_003), (4095, 1)] {
            match p.fill(arena.range(off, len), 0x42) {
                Ok(()) => assert!(
                    arena.range(off, len).iter().all(|&b| b == 0x42),
                    "{}",
                    p.name
                ),
                Err(e) => assert_eq!(e.kind(), ErrorKind::Unsupported, "{}", p.name),
            }
            // fill(0) is a clear.
            if p.fill(arena.range(off, len), 0).is_ok() {
                arena.check(off, len, p.name);
            } else {
                assert!(!p.supported, "{} refused byte 0", p.name);
                arena.reset();
            }
        }
        arena.assert_untouched(p.name);
    }
}

#[test]
fn fill_through_the_selection_sets_exactly_the_range() {
    let mut arena = Arena::new(max_len());
    for (off, len) in cases() {
        match pageclear::fill(arena.range(off, len), 0xA5) {
            Ok(()) => assert!(
                arena.range(off, len).iter().all(|&b| b == 0xA5),
                "fill: off {off} len {len}"
            ),
            Err(e) => {
                assert_eq!(
                    e.kind(),
                    ErrorKind::Unsupported,
                    "fill: off {off} len {len}"
                );
                arena.check(off, 0, "fill refused"); // nothing written
            }
        }
        // Byte 0 is a clear, which every host runs; check() then holds the
        // 0xA5 fill to the range as well (it compares around it).
        assert_eq!(pageclear::fill(arena.range(off, len), 0), Ok(()));
        arena.check(off, len, "fill");
    }
    arena.assert_untouched("fill");
}

#[test]
fn typed_slices_are_cleared_whole_and_only_their_elements() {
    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct Padded {
        a: u8,
        // 7 padding bytes
        b: u64,
        c: f32,
    }
    // SAFETY: all-zero bytes are a valid Padded (integers and a float).
    unsafe impl bytemuck::Zeroable for Padded {}
    let one = Padded {
        a: 1,
        b: u64::MAX,
        c: 1.5,
    };
    let zero = Padded { a: 0, b: 0, c: 0.0 };
    for n in [1usize, 2, 17, 1000, 70_001] {
        let mut v = vec![one; n + 10];
        pageclear::clear_zeroable(&mut v[3..3 + n]);
        assert!(v[..3].iter().chain(&v[3 + n..]).all(|x| *x == one));
        assert!(v[3..3 + n].iter().all(|x| *x == zero));
        let mut w = vec![u128::MAX; n + 2];
        pageclear::clear_zeroable(&mut w[1..=n]);
        assert_eq!((w[0], w[n + 1]), (u128::MAX, u128::MAX));
        assert!(w[1..=n].iter().all(|&x| x == 0));
    }
    // Zero-sized elements: nothing to write.
    let mut units = [(); 100];
    pageclear::clear_zeroable(&mut units);
}

#[test]
fn clear_uninit_initialises_fresh_memory() {
    let mut v: Vec<MaybeUninit<u8>> = Vec::with_capacity((3 << 20) + 5);
    // SAFETY: MaybeUninit needs no initialisation.
    unsafe { v.set_len((3 << 20) + 5) };
    let bytes = pageclear::clear_uninit(&mut v[5..]);
    assert_eq!(bytes.len(), 3 << 20);
    assert!(bytes.iter().all(|&b| b == 0));
}

#[test]
fn hint_outside_the_slice_is_an_error_and_writes_nothing() {
    let mut arena = Arena::new(1 << 20);
    for (off, len) in [(0, 1), (1, 4096), (7, 100_000), (0, 1 << 20)] {
        for hint in [len, len + 1, len + PAGE, usize::MAX / 2, usize::MAX] {
            let e = pageclear::clear_hint(arena.range(off, len), hint).unwrap_err();
            assert_eq!(
                (e.kind(), e.errno()),
                (ErrorKind::InvalidInput, libc::EINVAL)
            );
            let mut called = false;
            let r = pageclear::clear_hint_batched(
                arena.range(off, len),
                hint,
                &Batch::default(),
                |_, _| {
                    called = true;
                    ControlFlow::Continue(())
                },
            );
            assert_eq!(r.unwrap_err().kind(), ErrorKind::InvalidInput);
            assert!(!called, "callback ran for a refused hint");
            arena.check(off, 0, "refused hint");
        }
    }
    // Empty: nothing to write, whatever the hint.
    assert!(pageclear::clear_hint(&mut [], 12345).is_ok());
    arena.assert_untouched("hint");
}

#[test]
fn empty_slices_are_accepted_everywhere() {
    let mut e: [u8; 0] = [];
    pageclear::clear(&mut e);
    pageclear::clear_cold(&mut e);
    pageclear::clear_zeroable::<u64>(&mut []);
    assert!(pageclear::clear_uninit(&mut []).is_empty());
    pageclear::clear_parallel(&mut e, 4);
    assert_eq!(pageclear::populate(&mut e, 0), Ok(()));
    let r = pageclear::clear_batched(&mut e, &Batch::default(), |_, _| ControlFlow::Continue(()));
    assert_eq!(r, Ok(0));
    for p in pageclear::primitives().into_iter().filter(|p| p.supported) {
        assert_eq!(p.clear(&mut e), Ok(()), "{}", p.name);
    }
}

#[test]
fn populate_keeps_the_contents_in_and_around_the_slice() {
    let mut arena = Arena::new(9 << 20);
    for (off, len) in [(0, 1), (5, 4096), (4095, 2), (123, 9 << 20)] {
        for threads in [1, 2, 0] {
            pageclear::populate(arena.range(off, len), threads).unwrap();
            arena.check(off, 0, "populate");
        }
    }
    arena.assert_untouched("populate");
}

#[test]
fn populate_faults_in_a_fresh_mapping() {
    let len = 8 << 20;
    // SAFETY: a fresh private anonymous mapping, unmapped below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    let resident = || {
        let mut v = vec![0u8; len / PAGE];
        // SAFETY: p is a mapping of len bytes; v has one byte per page.
        assert_eq!(unsafe { libc::mincore(p, len, v.as_mut_ptr()) }, 0);
        v.iter().filter(|&&b| b & 1 != 0).count()
    };
    assert_eq!(resident(), 0, "a fresh mapping is not resident");
    // SAFETY: the mapping is readable and writable, owned by this test.
    let s = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) };
    pageclear::populate(s, 2).unwrap();
    assert_eq!(resident(), len / PAGE);
    assert!(s.iter().all(|&b| b == 0), "contents (zeros) kept");
    // SAFETY: unmapping what was mapped above; s is not used after.
    assert_eq!(unsafe { libc::munmap(p, len) }, 0);
}

#[test]
fn populate_many_faults_in_parts_of_a_mapping_and_nothing_between() {
    let len = 16 << 20;
    // SAFETY: a fresh private anonymous mapping, unmapped below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    // SAFETY: p is a mapping of len bytes, owned by this test.
    unsafe { libc::madvise(p, len, libc::MADV_NOHUGEPAGE) };
    let resident = |off: usize, n: usize| {
        let mut v = vec![0u8; n / PAGE];
        // SAFETY: [p + off, p + off + n) lies in the mapping; one byte a page.
        assert_eq!(
            unsafe { libc::mincore(p.cast::<u8>().add(off).cast(), n, v.as_mut_ptr()) },
            0
        );
        v.iter().filter(|&&b| b & 1 != 0).count()
    };
    // SAFETY: the mapping is readable and writable, owned by this test.
    let s = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) };
    s[(9 << 20) + 3] = 7;
    let (a, rest) = s.split_at_mut(4 << 20);
    let (_, rest) = rest.split_at_mut(4 << 20);
    let (b, _) = rest.split_at_mut(2 << 20);
    pageclear::populate_many(&mut [a, &mut [], b], 2).unwrap();
    assert_eq!(resident(0, 4 << 20), (4 << 20) / PAGE);
    assert_eq!(resident(4 << 20, 4 << 20), 0, "nothing between the slices");
    assert_eq!(resident(8 << 20, 2 << 20), (2 << 20) / PAGE);
    assert_eq!(resident(10 << 20, 6 << 20), 0, "nothing after them");
    assert_eq!(s[(9 << 20) + 3], 7, "contents kept");
    pageclear::populate_many(&mut [], 0).unwrap();
    // SAFETY: unmapping what was mapped above; s is not used after.
    assert_eq!(unsafe { libc::munmap(p, len) }, 0);
}

#[test]
fn threads_clear_disjoint_parts_of_one_buffer() {
    let mut buf = vec![0xEEu8; 48 << 20];
    let chunks: Vec<&mut [u8]> = buf.chunks_mut((4 << 20) + 13).collect();
    std::thread::scope(|s| {
        for (i, c) in chunks.into_iter().enumerate() {
            s.spawn(move || match i % 4 {
                0 => pageclear::clear(c),
                1 => pageclear::clear_cold(c),
                2 => pageclear::clear_parallel(c, 2),
                _ => {
                    let batch = Batch {
                        unit: 64 << 10,
                        ..Default::default()
                    };
                    let n = pageclear::clear_batched(c, &batch, |_, _| ControlFlow::Continue(()));
                    assert_eq!(n, Ok(c.len()));
                }
            });
        }
    });
    assert!(buf.iter().all(|&b| b == 0));
}

#[test]
fn parallel_clear_of_large_extents_from_several_threads_at_once() {
    // Extents large enough for the library to use its worker threads.
    let mut bufs: Vec<Vec<u8>> = (0..3).map(|_| vec![0x11u8; (130 << 20) + 7]).collect();
    std::thread::scope(|s| {
        for (i, b) in bufs.iter_mut().enumerate() {
            s.spawn(move || pageclear::clear_parallel(&mut b[i..], 2 + i));
        }
    });
    for (i, b) in bufs.iter().enumerate() {
        assert_eq!(&b[..i], &vec![0x11u8; i][..]);
        assert!(b[i..].iter().all(|&x| x == 0));
    }
}
