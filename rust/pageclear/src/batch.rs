// SPDX-License-Identifier: MIT OR Apache-2.0
//! Batched clearing: units with a callback (a resched point) before each.

use std::any::Any;
use std::ffi::{c_int, c_void};
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use pageclear_sys as sys;

use crate::Error;

/// Preemption models, after the kernel's: they decide whether the clear is
/// split into units with a callback before each.
///
/// ```
/// use pageclear::Preempt;
/// assert_eq!(Preempt::default(), Preempt::None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Preempt {
    /// Units, with the callback before each (the kernel's
    /// `PREEMPT_NONE`: nothing preempts a long clear but its own resched
    /// points).
    #[default]
    None,
    /// Units, with the callback before each (`PREEMPT_VOLUNTARY`).
    Voluntary,
    /// One unit; the callback is never called: the scheduler can preempt
    /// at any time (`PREEMPT_FULL`).
    Full,
    /// One unit; the callback is never called (`PREEMPT_LAZY`).
    Lazy,
}

impl Preempt {
    fn to_raw(self) -> sys::pc_preempt {
        match self {
            Preempt::None => sys::PC_PREEMPT_NONE,
            Preempt::Voluntary => sys::PC_PREEMPT_VOLUNTARY,
            Preempt::Full => sys::PC_PREEMPT_FULL,
            Preempt::Lazy => sys::PC_PREEMPT_LAZY,
        }
    }

    fn from_raw(v: sys::pc_preempt) -> Option<Preempt> {
        [
            Preempt::None,
            Preempt::Voluntary,
            Preempt::Full,
            Preempt::Lazy,
        ]
        .into_iter()
        .find(|p| p.to_raw() == v)
    }
}

/// How [`clear_batched`] splits its work.
///
/// `Default` is the library's (`pc_batch_init`): unit 0, meaning the
/// library's default unit ([`default_unit`](crate::default_unit)), and
/// [`Preempt::None`].
///
/// ```
/// let b = pageclear::Batch { unit: 2 << 20, ..Default::default() };
/// assert_eq!(b.model, pageclear::Preempt::None);
/// assert_eq!(pageclear::Batch::default().unit, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Batch {
    /// Bytes per unit; 0 means the library's default unit. Units of whole
    /// pages keep to the page grid.
    pub unit: usize,
    /// The preemption model.
    pub model: Preempt,
}

impl Default for Batch {
    fn default() -> Batch {
        let mut raw = std::mem::MaybeUninit::<sys::pc_batch>::uninit();
        // SAFETY: pc_batch_init fills every field of the struct it is given
        // (its size is passed).
        let raw = unsafe {
            sys::pc_batch_init(raw.as_mut_ptr(), size_of::<sys::pc_batch>());
            raw.assume_init()
        };
        Batch {
            unit: raw.unit,
            model: Preempt::from_raw(raw.model).expect("pc_batch_init's model is a pc_preempt"),
        }
    }
}

/// The callback's state, shared with the C trampoline through `ctx`.
struct Callback<F> {
    f: F,
    panic: Option<Box<dyn Any + Send + 'static>>,
}

/// The `pc_resched_fn` for a Rust closure. A panic must not unwind into C:
/// it is caught here, the clear is stopped (non-zero return) and the panic
/// is resumed once the C call has returned.
unsafe extern "C" fn trampoline<F>(ctx: *mut c_void, done: usize, total: usize) -> c_int
where
    F: FnMut(usize, usize) -> ControlFlow<()>,
{
    // SAFETY: ctx is the &mut Callback<F> that run() passed in the batch;
    // it outlives the C call, which calls back on the calling thread only
    // (pc_clear_batched runs there), so no other reference is live.
    let cb = unsafe { &mut *ctx.cast::<Callback<F>>() };
    if cb.panic.is_some() {
        return 1; // the library stops at the first non-zero; stay stopped
    }
    match catch_unwind(AssertUnwindSafe(|| (cb.f)(done, total))) {
        Ok(ControlFlow::Continue(())) => 0,
        Ok(ControlFlow::Break(())) => 1,
        Err(payload) => {
            cb.panic = Some(payload);
            1
        }
    }
}

/// Run one batched C call with `f` as its callback.
fn run<F>(
    batch: &Batch,
    f: F,
    call: impl FnOnce(&sys::pc_batch, &mut usize) -> c_int,
) -> Result<usize, Error>
where
    F: FnMut(usize, usize) -> ControlFlow<()>,
{
    let mut cb = Callback { f, panic: None };
    // Zeroed whole, padding too: an older library refuses non-zero bytes
    // past the struct it knows (the size contract, pageclear.h).
    // SAFETY: all zeros is a valid pc_batch (no callback, null ctx).
    let mut raw: sys::pc_batch = unsafe { std::mem::zeroed() };
    raw.unit = batch.unit;
    raw.model = batch.model.to_raw();
    raw.resched = Some(trampoline::<F>);
    raw.ctx = (&mut cb as *mut Callback<F>).cast();
    let mut cleared = 0usize;
    let rc = call(&raw, &mut cleared);
    if let Some(payload) = cb.panic.take() {
        resume_unwind(payload);
    }
    if rc == -libc::ECANCELED {
        return Err(Error::cancelled(cleared));
    }
    Error::check(rc).map(|()| cleared)
}

/// Zero the slice in units of `batch.unit` bytes, calling `resched(done,
/// total)` before each unit (under [`Preempt::None`] and
/// [`Preempt::Voluntary`]; under `Full` and `Lazy` the slice is one unit
/// and `resched` is never called). This is where a long clear lets others
/// run: yield, check a deadline, or stop.
///
/// The primitive is the one [`clear`](crate::clear) uses for the whole
/// slice; units only place the callback.
///
/// Returns the bytes cleared (the slice's length).
///
/// Units of whole pages keep to the page grid: if the slice starts `m`
/// bytes into a page (`m = address % 4096`), the first unit is `unit - m`
/// bytes and every later one starts on a page boundary (an 8 KiB unit 16
/// bytes into a page: `resched` sees 0, 8176, 16368, ...). Other units are
/// not adjusted.
///
/// # Errors
/// If `resched` returns `ControlFlow::Break(())`, the clear stops before
/// that unit and the error ([`ErrorKind::Cancelled`](crate::ErrorKind::Cancelled))
/// carries the bytes cleared: always a prefix of the slice, the rest
/// untouched.
///
/// # Panics
/// A panic in `resched` stops the clear (the prefix cleared so far stays
/// cleared) and is resumed after the C call returns; it never unwinds
/// through C.
///
/// ```
/// use std::ops::ControlFlow;
/// let mut buf = vec![1u8; 8 << 20];
/// let batch = pageclear::Batch { unit: 1 << 20, ..Default::default() };
/// let mut calls = 0;
/// let n = pageclear::clear_batched(&mut buf, &batch, |done, total| {
///     assert!(done < total);
///     calls += 1;
///     std::thread::yield_now();
///     ControlFlow::Continue(())
/// })?;
/// // 8 units of 1 MiB; one more if the Vec is not page-aligned (the first
/// // unit is then 1 MiB less the Vec's offset into its page).
/// assert_eq!(n, 8 << 20);
/// assert!(calls == 8 || calls == 9);
/// assert!(buf.iter().all(|&b| b == 0));
/// # Ok::<(), pageclear::Error>(())
/// ```
pub fn clear_batched<F>(buf: &mut [u8], batch: &Batch, resched: F) -> Result<usize, Error>
where
    F: FnMut(usize, usize) -> ControlFlow<()>,
{
    let (ptr, len) = (buf.as_mut_ptr(), buf.len());
    run(batch, resched, |raw, cleared| {
        // SAFETY: the slice is valid for writes and exclusively borrowed;
        // raw (of the size passed) and cleared are valid for the call.
        unsafe { sys::pc_clear_batched(ptr.cast(), len, raw, size_of::<sys::pc_batch>(), cleared) }
    })
}

/// [`clear_hint`](crate::clear_hint) with each of its ranges batched as in
/// [`clear_batched`]: `resched` sees the bytes done over the whole slice.
///
/// Returns the bytes cleared.
///
/// # Errors
/// As `clear_hint` (a hint outside the slice: nothing written), and as
/// `clear_batched` for a stop; the cleared count of a stopped clear is not
/// a prefix here (the ranges go right, left, then the neighbourhood).
///
/// # Panics
/// As `clear_batched`.
///
/// ```
/// use std::ops::ControlFlow;
/// let mut buf = vec![1u8; 4 << 20];
/// let batch = pageclear::Batch { unit: 256 << 10, ..Default::default() };
/// let n = pageclear::clear_hint_batched(&mut buf, 1 << 20, &batch, |_, _| ControlFlow::Continue(()))?;
/// assert_eq!(n, 4 << 20);
/// assert!(buf.iter().all(|&b| b == 0));
/// # Ok::<(), pageclear::Error>(())
/// ```
pub fn clear_hint_batched<F>(
    buf: &mut [u8],
    hint: usize,
    batch: &Batch,
    resched: F,
) -> Result<usize, Error>
where
    F: FnMut(usize, usize) -> ControlFlow<()>,
{
    let (ptr, len) = (buf.as_mut_ptr(), buf.len());
    let hint_ptr = ptr.wrapping_add(hint);
    run(batch, resched, |raw, cleared| {
        // SAFETY: as in clear_batched; the hint is only compared with the
        // range, never dereferenced (see clear_hint).
        unsafe {
            sys::pc_clear_hint_batched(
                ptr.cast(),
                len,
                hint_ptr.cast(),
                raw,
                size_of::<sys::pc_batch>(),
                cleared,
            )
        }
    })
}
