// SPDX-License-Identifier: MIT OR Apache-2.0
//! Zeroed huge pages from the `pageclear serve` daemon (`pc_serve_get`).

use std::os::fd::{FromRawFd, OwnedFd};

use crate::Error;
use pageclear_sys as sys;

/// Ask the `pageclear serve` daemon for `size` bytes of zeroed hugetlb
/// memory in pages of `page_size` bytes (2 MiB or 1 GiB; 0 means 2 MiB).
///
/// The memfd returned is the caller's alone: `size` rounded up to the page
/// long, every byte zero, its pages allocated already, sealed against
/// growing, shrinking and further seals, close-on-exec. Map it
/// `MAP_SHARED` (with `MAP_POPULATE` that costs only page tables) or pass
/// it on as `/proc/self/fd/N`; its pages go back to the kernel when the
/// last reference is closed. With `reserve_only`, only memory the daemon
/// holds ready is taken, never a fill at request time. The socket is
/// `$PAGECLEAR_SOCKET`, else `/run/pageclear/serve.sock`, served by root
/// (or by the uid `$PAGECLEAR_SERVE_UID` names). Blocks until the daemon
/// answers. Since 1.1.
///
/// # Errors
/// The C library's errno, in [`Error::errno`]: `ENOENT` or `ECONNREFUSED`
/// (no daemon), `EACCES` (not in the socket's group), `EDQUOT` (over this
/// user's quota or its cgroup's limit), `ENOMEM` (no memory), `EAGAIN`
/// (busy), `EOPNOTSUPP` (no pages of that size), `EPERM` (the socket is
/// served by an untrusted uid), `EINVAL` (a size of 0, another page size),
/// `EPROTO` (an answer that is not the protocol).
///
/// ```no_run
/// let fd = pageclear::serve_get(1 << 30, 2 << 20, false)?;
/// // map it, or hand it to a VMM as /proc/self/fd/N
/// # Ok::<(), pageclear::Error>(())
/// ```
pub fn serve_get(size: usize, page_size: usize, reserve_only: bool) -> Result<OwnedFd, Error> {
    let flags = if reserve_only {
        sys::PC_SERVE_RESERVE_ONLY
    } else {
        0
    };
    let mut fd: libc::c_int = -1;
    // SAFETY: a writable int; the library writes it only on success.
    let rc = unsafe { sys::pc_serve_get(size, page_size, flags, &mut fd) };
    Error::check(rc)?;
    // SAFETY: on success fd is a new descriptor that nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}
