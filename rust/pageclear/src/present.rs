// SPDX-License-Identifier: MIT OR Apache-2.0
//! Clearing only what the kernel has handed out: [`clear_present`].

use pageclear_sys as sys;

use crate::clear::expect_ok;

/// Why [`clear_present`] cleared a part of the slice whole: it could not
/// tell what the pages the kernel has not handed out there would read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unproven {
    /// The kernel has no `PAGEMAP_SCAN` (before Linux 6.7).
    NoScan,
    /// `/proc/self/pagemap` or its scan failed otherwise: a seccomp filter
    /// or security module, no `/proc`, no free descriptor
    /// ([`Present::errno`] says which).
    Refused,
    /// The mappings could not be read at all.
    NoMaps,
    /// A private mapping of a file (a memfd's too): an absent page reads
    /// the file.
    File,
    /// A shared mapping: another process may have written the pages.
    Shared,
    /// hugetlb: an absent page of a private mapping reads the file behind it.
    Hugetlb,
    /// Registered with a userfaultfd in missing or minor mode.
    Userfaultfd,
    /// The userfaultfd registration could not be read.
    NoUffdInfo,
    /// A reason this crate does not know (a newer library).
    Other(u32),
}

impl Unproven {
    fn from_c(why: sys::pc_present_why) -> Option<Unproven> {
        Some(match why {
            sys::PC_PRESENT_PROVEN => return None,
            sys::PC_PRESENT_NO_SCAN => Unproven::NoScan,
            sys::PC_PRESENT_REFUSED => Unproven::Refused,
            sys::PC_PRESENT_NO_MAPS => Unproven::NoMaps,
            sys::PC_PRESENT_FILE => Unproven::File,
            sys::PC_PRESENT_SHARED => Unproven::Shared,
            sys::PC_PRESENT_HUGETLB => Unproven::Hugetlb,
            sys::PC_PRESENT_USERFAULTFD => Unproven::Userfaultfd,
            sys::PC_PRESENT_NO_UFFD_INFO => Unproven::NoUffdInfo,
            other => Unproven::Other(other),
        })
    }
}

/// The kernel interfaces a call read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Used {
    /// The mappings, with the `PROCMAP_QUERY` ioctl (Linux 6.11).
    pub procmap_query: bool,
    /// The mappings, from `/proc/self/maps`.
    pub maps: bool,
    /// The pages, with `PAGEMAP_SCAN` (Linux 6.7).
    pub scan: bool,
    /// The userfaultfd registration, from `/proc/self/smaps`.
    pub smaps: bool,
    /// `madvise(MADV_POPULATE_WRITE)`, under [`PresentOptions::populate`].
    pub populate: bool,
}

/// What [`clear_present`] did (with [`PresentOptions::dry_run`]: would do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Present {
    /// Bytes left alone: their pages read zero already.
    pub skipped: usize,
    /// Bytes stored to; `skipped + cleared + populated` is the slice's
    /// length.
    pub cleared: usize,
    /// Under [`PresentOptions::populate`]: bytes of absent pages the kernel
    /// faulted in.
    pub populated: usize,
    /// Of `cleared`, bytes in parts cleared whole for want of proof.
    pub unproven: usize,
    /// Why, for the lowest such part; `None` when `unproven` is 0.
    pub why: Option<Unproven>,
    /// The errno behind [`Unproven::NoScan`], [`Unproven::Refused`],
    /// [`Unproven::NoMaps`] and [`Unproven::NoUffdInfo`], else 0.
    pub errno: i32,
    /// The errno of a refused populate (its pages were then cleared), else 0.
    pub populate_errno: i32,
    /// What was read to tell.
    pub used: Used,
    /// [`PresentOptions::no_fallback`] refused: nothing was written.
    pub refused: bool,
}

/// How [`clear_present_with`] goes about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PresentOptions {
    /// Where a part could not be proven, write nothing at all and return
    /// with [`Present::refused`] set.
    pub no_fallback: bool,
    /// Write nothing; report what the call would do now.
    pub dry_run: bool,
    /// Fault the pages it would leave alone in instead
    /// (`MADV_POPULATE_WRITE`, Linux 5.14): resident zeroed pages on the
    /// calling thread's node, as after writing zeros, without the stores.
    /// Where the kernel refuses, they are cleared.
    pub populate: bool,
}

/// Zero the slice, leaving alone the pages that read zero already: those
/// of private anonymous memory the kernel has not handed out yet (never
/// touched, or given back with `MADV_DONTNEED`) and those mapped to its
/// shared zero page; present and swapped pages are cleared as [`clear`]
/// would (libpageclear 1.1's `pc_clear_present`).
///
/// Where it cannot tell what an absent page would read (a file's mapping,
/// shared memory, hugetlb, a userfaultfd-registered range, a kernel before
/// 6.7, a seccomp profile refusing the calls) it clears that part whole and
/// says why. The skipped pages are not faulted in: they are neither made
/// resident nor placed on a NUMA node, as writing zeros would.
///
/// # Panics
/// Only if the library breaks its contract (a slice is always mapped and
/// writable).
///
/// ```
/// // A large fresh vector comes from mmap: only its first page was touched.
/// let mut v = vec![0u8; 64 << 20];
/// v[0] = 1;
/// let r = pageclear::clear_present(&mut v);
/// assert!(v.iter().all(|&b| b == 0));
/// assert_eq!(r.skipped + r.cleared, v.len());
/// ```
///
/// [`clear`]: crate::clear
pub fn clear_present(buf: &mut [u8]) -> Present {
    clear_present_with(buf, &PresentOptions::default())
}

/// [`clear_present`] with options.
///
/// # Panics
/// Only if the library breaks its contract.
///
/// ```
/// use pageclear::PresentOptions;
/// let mut v = vec![7u8; 1 << 20];
/// let dry = pageclear::clear_present_with(&mut v, &PresentOptions { dry_run: true, ..Default::default() });
/// assert_eq!(v[0], 7); // a dry run writes nothing
/// assert_eq!(pageclear::clear_present(&mut v), dry);
/// assert!(v.iter().all(|&b| b == 0));
/// ```
pub fn clear_present_with(buf: &mut [u8], opts: &PresentOptions) -> Present {
    let mut flags = 0;
    if opts.no_fallback {
        flags |= sys::PC_PRESENT_NO_FALLBACK;
    }
    if opts.dry_run {
        flags |= sys::PC_PRESENT_DRY_RUN;
    }
    if opts.populate {
        flags |= sys::PC_PRESENT_POPULATE;
    }
    let mut r = sys::pc_present_report {
        skipped: 0,
        cleared: 0,
        unproven: 0,
        why: sys::PC_PRESENT_PROVEN,
        error: 0,
        used: 0,
        populated: 0,
        populate_error: 0,
    };
    // SAFETY: buf is valid for writes of buf.len() bytes and exclusively
    // borrowed; the library writes nothing outside it, and fills r, of the
    // size passed, which is ours.
    let rc = unsafe {
        sys::pc_clear_present(
            buf.as_mut_ptr().cast(),
            buf.len(),
            flags,
            &mut r,
            core::mem::size_of::<sys::pc_present_report>(),
        )
    };
    let refused = rc == -libc::ENOTSUP;
    if !refused {
        expect_ok("pc_clear_present", rc);
    }
    Present {
        skipped: r.skipped,
        cleared: r.cleared,
        populated: r.populated,
        unproven: r.unproven,
        why: Unproven::from_c(r.why),
        errno: r.error,
        populate_errno: r.populate_error,
        used: Used {
            procmap_query: r.used & sys::PC_PRESENT_USED_PROCMAP_QUERY != 0,
            maps: r.used & sys::PC_PRESENT_USED_MAPS != 0,
            scan: r.used & sys::PC_PRESENT_USED_SCAN != 0,
            smaps: r.used & sys::PC_PRESENT_USED_SMAPS != 0,
            populate: r.used & sys::PC_PRESENT_USED_POPULATE != 0,
        },
        refused,
    }
}
