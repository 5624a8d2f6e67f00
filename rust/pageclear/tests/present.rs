// SPDX-License-Identifier: MIT OR Apache-2.0
//! clear_present against the classic /proc/self/pagemap as the reference:
//! the absent pages skipped, the others cleared, every byte zero after and
//! none around the slice touched; a file's private mapping cleared whole;
//! the flags.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;

use pageclear::{PresentOptions, Unproven};

const FILL: u8 = 0xA5;

fn page() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// A private mapping of `len` bytes: anonymous, or of `file`.
struct Map {
    ptr: *mut u8,
    len: usize,
}

impl Map {
    fn new(len: usize, file: Option<&File>) -> Map {
        let (flags, fd) = match file {
            Some(f) => (libc::MAP_PRIVATE, f.as_raw_fd()),
            None => (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1),
        };
        // SAFETY: a fresh mapping at an address the kernel picks.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                fd,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        // Exact page counts: no transparent huge pages filled in behind us.
        // SAFETY: the mapping just made.
        unsafe { libc::madvise(p, len, libc::MADV_NOHUGEPAGE) };
        Map { ptr: p.cast(), len }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the mapping is ours, readable and writable, for len bytes.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// Bytes in pages neither present nor swapped (bits 63 and 62).
    fn absent(&self) -> usize {
        let pg = page();
        let mut f = File::open("/proc/self/pagemap").unwrap();
        f.seek(SeekFrom::Start((self.ptr as u64 / pg as u64) * 8))
            .unwrap();
        let mut e = vec![0u8; self.len / pg * 8];
        f.read_exact(&mut e).unwrap();
        e.chunks(8)
            .filter(|c| u64::from_ne_bytes((*c).try_into().unwrap()) >> 62 == 0)
            .count()
            * pg
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: unmapping what new() mapped.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Whether the kernel can say which pages are absent: not before Linux
/// 6.7, under qemu-user or a seccomp filter refusing the scan (the library
/// then clears everything and says why; the C tests check that).
fn scan_works() -> bool {
    let pg = page();
    let mut m = Map::new(2 * pg, None);
    m.bytes()[0] = 1;
    let dry = PresentOptions {
        dry_run: true,
        ..Default::default()
    };
    let r = pageclear::clear_present_with(m.bytes(), &dry);
    !matches!(
        r.why,
        Some(Unproven::NoScan | Unproven::Refused | Unproven::NoMaps)
    )
}

#[test]
fn absent_pages_skipped_the_rest_cleared() {
    if !scan_works() {
        eprintln!("skipped: the kernel cannot say which pages are absent here");
        return;
    }
    let pg = page();
    let mut m = Map::new(64 * pg, None);
    for p in [0, 3, 9, 63] {
        m.bytes()[p * pg..(p + 1) * pg].fill(FILL);
    }
    let want = m.absent();
    assert_eq!(want, 60 * pg);
    // A slice inside the mapping: 5 bytes in, 7 bytes short of its end.
    let r = pageclear::clear_present(&mut m.bytes()[5..64 * pg - 7]);
    assert_eq!(r.skipped, want);
    assert_eq!(r.skipped + r.cleared, 64 * pg - 12);
    assert_eq!((r.why, r.unproven, r.refused), (None, 0, false));
    assert!(r.used.scan && r.used.smaps);
    assert_eq!(m.absent(), want); // nothing faulted in (reading maps the zero page)
    let b = m.bytes();
    assert!(b[..5].iter().all(|&x| x == FILL) && b[64 * pg - 7..].iter().all(|&x| x == FILL));
    assert!(b[5..64 * pg - 7].iter().all(|&x| x == 0));
}

#[test]
fn populate_faults_the_absent_pages_in() {
    if !scan_works() {
        eprintln!("skipped: the kernel cannot say which pages are absent here");
        return;
    }
    let pg = page();
    let mut m = Map::new(64 * pg, None);
    for p in [0, 3, 63] {
        m.bytes()[p * pg..(p + 1) * pg].fill(FILL);
    }
    let want = m.absent();
    let opts = PresentOptions {
        populate: true,
        ..Default::default()
    };
    let r = pageclear::clear_present_with(m.bytes(), &opts);
    // Asked before a byte is read: a read would map the zero page.
    assert_eq!(m.absent(), 0);
    assert_eq!((r.populated, r.cleared, r.skipped), (want, 3 * pg, 0));
    assert_eq!((r.why, r.populate_errno, r.refused), (None, 0, false));
    assert!(r.used.populate);
    assert!(m.bytes().iter().all(|&x| x == 0));
}

#[test]
fn a_files_private_mapping_is_cleared_whole() {
    if !scan_works() {
        eprintln!("skipped: the kernel cannot say which pages are absent here");
        return;
    }
    let pg = page();
    let mut f = tempfile_in_tmp();
    f.write_all(&vec![FILL; 16 * pg]).unwrap();
    let mut m = Map::new(16 * pg, Some(&f));
    let no = PresentOptions {
        no_fallback: true,
        ..Default::default()
    };
    let refused = pageclear::clear_present_with(m.bytes(), &no);
    assert!(refused.refused && refused.why == Some(Unproven::File));
    assert_eq!(m.bytes()[0], FILL);
    let r = pageclear::clear_present(m.bytes());
    assert_eq!(
        (r.why, r.unproven, r.skipped),
        (Some(Unproven::File), 16 * pg, 0)
    );
    assert!(m.bytes().iter().all(|&x| x == 0));
    let mut back = vec![0u8; 16 * pg];
    f.seek(SeekFrom::Start(0)).unwrap();
    f.read_exact(&mut back).unwrap();
    assert!(back.iter().all(|&x| x == FILL)); // private: the file keeps its bytes
}

#[test]
fn dry_run_writes_nothing_and_says_what_follows() {
    let pg = page();
    let mut m = Map::new(32 * pg, None);
    m.bytes()[7 * pg] = FILL;
    let dry = pageclear::clear_present_with(
        m.bytes(),
        &PresentOptions {
            dry_run: true,
            no_fallback: true,
            ..Default::default()
        },
    );
    assert_eq!(m.bytes()[7 * pg], FILL);
    assert_eq!(pageclear::clear_present(m.bytes()), dry);
    assert!(m.bytes().iter().all(|&x| x == 0));
    let empty = pageclear::clear_present(&mut []);
    assert_eq!((empty.skipped, empty.cleared), (0, 0));
}

/// An unlinked file under /tmp (no tempfile crate: std only).
fn tempfile_in_tmp() -> File {
    let path = std::env::temp_dir().join(format!("pageclear-present-{}", std::process::id()));
    let f = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    f
}
