// SPDX-License-Identifier: MIT OR Apache-2.0
//! The crate's error: a negative errno value from the C library, named.

use std::fmt;

/// What went wrong, from the errno value the C library returned.
///
/// ```
/// use pageclear::{Error, ErrorKind};
/// assert_eq!(Error::from_errno(-libc::EINVAL).kind(), ErrorKind::InvalidInput);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `EINVAL`: an argument the function does not accept (a hint outside
    /// the slice, a zero-length pool allocation, a malformed profile, ...).
    InvalidInput,
    /// `EOVERFLOW`: a length that overflows.
    Overflow,
    /// `ENOMEM`: memory (or the requested backing) cannot be had, or a pool
    /// has no free run that long.
    OutOfMemory,
    /// `ENOENT`: no such primitive.
    NotFound,
    /// `ENOTSUP`: this CPU or OS cannot run the primitive asked for.
    Unsupported,
    /// `EFAULT`: a page cannot be written (e.g. the hugetlb pool ran dry).
    Fault,
    /// `ERANGE`: a value out of range.
    OutOfRange,
    /// `ECANCELED`: the batching callback stopped the clear;
    /// [`Error::cleared`] says how far it got.
    Cancelled,
    /// `ENODEV`: a profile made on another CPU.
    OtherHost,
    /// `EPROTO`: a profile made by an incompatible library version.
    Version,
    /// Any other errno value ([`Error::errno`] has it).
    Other,
}

/// An error from libpageclear.
///
/// It carries the errno value the C function returned, its [`ErrorKind`],
/// the bytes cleared before a cancellation and, where the library gives
/// one, a one-line reason.
///
/// ```
/// let mut buf = [1u8; 64];
/// let err = pageclear::clear_hint(&mut buf, 64).unwrap_err();
/// assert_eq!(err.kind(), pageclear::ErrorKind::InvalidInput);
/// assert_eq!(err.errno(), libc::EINVAL);
/// let io: std::io::Error = err.into();
/// assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    errno: i32,
    cleared: Option<usize>,
    reason: Option<String>,
}

impl Error {
    /// The error for an errno value, given negative (as the C functions
    /// return it) or positive.
    ///
    /// ```
    /// use pageclear::{Error, ErrorKind};
    /// let e = Error::from_errno(-libc::ENOMEM);
    /// assert_eq!((e.kind(), e.errno()), (ErrorKind::OutOfMemory, libc::ENOMEM));
    /// assert_eq!(Error::from_errno(libc::ENOMEM), e);
    /// ```
    pub fn from_errno(errno: i32) -> Error {
        let errno = errno.saturating_abs();
        let kind = match errno {
            libc::EINVAL => ErrorKind::InvalidInput,
            libc::EOVERFLOW => ErrorKind::Overflow,
            libc::ENOMEM => ErrorKind::OutOfMemory,
            libc::ENOENT => ErrorKind::NotFound,
            // Linux defines ENOTSUP as EOPNOTSUPP; elsewhere they may differ.
            e if e == libc::ENOTSUP || e == libc::EOPNOTSUPP => ErrorKind::Unsupported,
            libc::EFAULT => ErrorKind::Fault,
            libc::ERANGE => ErrorKind::OutOfRange,
            libc::ECANCELED => ErrorKind::Cancelled,
            libc::ENODEV => ErrorKind::OtherHost,
            libc::EPROTO => ErrorKind::Version,
            _ => ErrorKind::Other,
        };
        Error {
            kind,
            errno,
            cleared: None,
            reason: None,
        }
    }

    /// The C library's result `rc`: `Ok` for 0 (or any non-negative
    /// value), else the error.
    pub(crate) fn check(rc: i32) -> Result<(), Error> {
        if rc < 0 {
            Err(Error::from_errno(rc))
        } else {
            Ok(())
        }
    }

    /// The error for a C function that returned NULL and set errno.
    pub(crate) fn last_os_error() -> Error {
        let e = std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO);
        Error::from_errno(e)
    }

    pub(crate) fn cancelled(cleared: usize) -> Error {
        Error {
            cleared: Some(cleared),
            ..Error::from_errno(libc::ECANCELED)
        }
    }

    pub(crate) fn with_reason(mut self, reason: impl Into<String>) -> Error {
        let r = reason.into();
        self.reason = if r.is_empty() { None } else { Some(r) };
        self
    }

    /// What went wrong.
    ///
    /// ```
    /// let err = pageclear::parse_size("12 parsecs").unwrap_err();
    /// assert_eq!(err.kind(), pageclear::ErrorKind::InvalidInput);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The errno value (positive), e.g. `libc::EINVAL`.
    ///
    /// ```
    /// let err = pageclear::parse_size("99999999999T").unwrap_err();
    /// assert_eq!(err.errno(), libc::ERANGE);
    /// ```
    pub fn errno(&self) -> i32 {
        self.errno
    }

    /// For a cancelled clear ([`ErrorKind::Cancelled`]): the bytes zeroed
    /// before it stopped. `None` for every other error.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// let mut buf = vec![1u8; 4 * 4096];
    /// let batch = pageclear::Batch { unit: 4096, ..Default::default() };
    /// // Stop before the second unit.
    /// let err = pageclear::clear_batched(&mut buf, &batch, |done, _| {
    ///     if done > 0 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    /// })
    /// .unwrap_err();
    /// let n = err.cleared().unwrap();
    /// assert!(n > 0 && n <= 4096);
    /// assert!(buf[..n].iter().all(|&b| b == 0) && buf[n..].iter().all(|&b| b == 1));
    /// ```
    pub fn cleared(&self) -> Option<usize> {
        self.cleared
    }

    /// The library's one-line reason, where it gives one (a refused
    /// profile says why).
    ///
    /// ```
    /// let err = pageclear::Tuning::parse_profile("nonsense").unwrap_err();
    /// assert!(err.reason().is_some());
    /// ```
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let os = std::io::Error::from_raw_os_error(self.errno);
        match (self.cleared, &self.reason) {
            (Some(n), _) => write!(f, "pageclear: cancelled after {n} bytes cleared ({os})"),
            (None, Some(r)) => write!(f, "pageclear: {r} ({os})"),
            (None, None) => write!(f, "pageclear: {os}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    /// The same errno as an `std::io::Error` (the reason and the cleared
    /// count are kept in its message).
    fn from(e: Error) -> std::io::Error {
        let kind = std::io::Error::from_raw_os_error(e.errno).kind();
        std::io::Error::new(kind, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_errno_the_library_documents_has_its_kind() {
        let cases = [
            (libc::EINVAL, ErrorKind::InvalidInput),
            (libc::EOVERFLOW, ErrorKind::Overflow),
            (libc::ENOMEM, ErrorKind::OutOfMemory),
            (libc::ENOENT, ErrorKind::NotFound),
            (libc::ENOTSUP, ErrorKind::Unsupported),
            (libc::EFAULT, ErrorKind::Fault),
            (libc::ERANGE, ErrorKind::OutOfRange),
            (libc::ECANCELED, ErrorKind::Cancelled),
            (libc::ENODEV, ErrorKind::OtherHost),
            (libc::EPROTO, ErrorKind::Version),
            (libc::EPERM, ErrorKind::Other),
        ];
        for (errno, kind) in cases {
            for v in [errno, -errno] {
                let e = Error::from_errno(v);
                assert_eq!(
                    (e.kind(), e.errno(), e.cleared()),
                    (kind, errno, None),
                    "{v}"
                );
            }
        }
        assert!(Error::check(0).is_ok());
        assert_eq!(
            Error::check(-libc::EINVAL).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        // i32::MIN has no positive counterpart; it must not overflow.
        assert_eq!(Error::from_errno(i32::MIN).kind(), ErrorKind::Other);
    }

    #[test]
    fn display_names_the_errno_the_reason_and_the_cleared_count() {
        let c = Error::cancelled(8192);
        assert_eq!(c.kind(), ErrorKind::Cancelled);
        assert!(c.to_string().contains("8192"), "{c}");
        let r = Error::from_errno(-libc::ENODEV).with_reason("made on another CPU");
        assert!(r.to_string().contains("made on another CPU"), "{r}");
        let io = std::io::Error::from(Error::from_errno(-libc::ENOMEM));
        assert_eq!(io.kind(), std::io::ErrorKind::OutOfMemory);
    }
}
