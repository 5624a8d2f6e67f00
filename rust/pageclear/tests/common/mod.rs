// SPDX-License-Identifier: MIT OR Apache-2.0
//! Test helpers: a page-aligned arena filled with a pattern that has no
//! zero byte, and the reference result of zeroing a range of it.
#![allow(dead_code)] // each test binary uses its own subset

use std::alloc::{Layout, alloc, dealloc};

pub const PAGE: usize = 4096;
/// Bytes kept around every range under test, to catch stray writes.
pub const GUARD: usize = 2 * PAGE;

/// Offsets into a page: the small ones, and the last ones before a page
/// boundary (as glibc's string tests walk them).
pub fn offsets() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=64).collect();
    v.extend((1..=16).map(|i| PAGE - i));
    v
}

/// Lengths around the sizes where primitives and units change.
pub const LENGTHS: &[usize] = &[
    0,
    1,
    2,
    3,
    7,
    15,
    16,
    31,
    63,
    64,
    65,
    127,
    255,
    256,
    511,
    1000,
    4095,
    4096,
    4097,
    3 * 4096 + 5,
    65_539,
    262_147,
];
/// Larger lengths, tried at a few offsets only.
pub const LARGE: &[usize] = &[(1 << 20) + 17, (5 << 20) + 4093, (33 << 20) + 1];

/// A page-aligned buffer of `GUARD + len + GUARD` (rounded) bytes.
pub struct Arena {
    ptr: *mut u8,
    layout: Layout,
    pattern: Vec<u8>,
}

impl Arena {
    pub fn new(max_len: usize) -> Arena {
        let size = (GUARD + max_len + PAGE + GUARD).next_multiple_of(PAGE);
        let layout = Layout::from_size_align(size, PAGE).unwrap();
        // SAFETY: a non-zero size.
        let ptr = unsafe { alloc(layout) };
        assert!(!ptr.is_null());
        // A pattern with no zero byte, differing between neighbours.
        let pattern: Vec<u8> = (0..size).map(|i| (i % 251) as u8 | 1).collect();
        let mut a = Arena {
            ptr,
            layout,
            pattern,
        };
        a.reset();
        a
    }

    pub fn all(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for layout.size() bytes, initialised by reset().
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    pub fn reset(&mut self) {
        let p = self.pattern.clone();
        self.all().copy_from_slice(&p);
    }

    /// The range [GUARD + off, GUARD + off + len): page-aligned when off is 0.
    pub fn range(&mut self, off: usize, len: usize) -> &mut [u8] {
        assert!(GUARD + off + len + GUARD <= self.layout.size());
        &mut self.all()[GUARD + off..GUARD + off + len]
    }

    /// Assert that, within GUARD bytes on either side of the range
    /// [off, off + len), exactly the range is zeroed and the rest is the
    /// pattern; then restore the pattern there for the next case.
    #[track_caller]
    pub fn check(&mut self, off: usize, len: usize, what: &str) {
        let end = GUARD + off + len + GUARD;
        let mut want = self.pattern[..end].to_vec();
        want[GUARD + off..GUARD + off + len].fill(0);
        let got = &self.all()[..end];
        if got != want.as_slice() {
            let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
            let rel = first as isize - (GUARD + off) as isize;
            panic!(
                "{what}: off {off} len {len}: byte {rel} relative to the range is {:#x}, want {:#x}",
                got[first], want[first]
            );
        }
        let p = self.pattern[..end].to_vec();
        self.all()[..end].copy_from_slice(&p);
    }

    /// Assert the whole arena is the pattern (no stray write anywhere).
    #[track_caller]
    pub fn assert_untouched(&mut self, what: &str) {
        let p = self.pattern.clone();
        assert!(
            self.all() == p.as_slice(),
            "{what}: a byte outside every range changed"
        );
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Every (offset, length) pair the tests walk: all offsets for the small
/// lengths, a few for the large ones.
pub fn cases() -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for &len in LENGTHS {
        for off in offsets() {
            v.push((off, len));
        }
    }
    for &len in LARGE {
        for off in [0, 1, 63, PAGE - 1] {
            v.push((off, len));
        }
    }
    v
}

pub fn max_len() -> usize {
    *LARGE.iter().max().unwrap()
}
